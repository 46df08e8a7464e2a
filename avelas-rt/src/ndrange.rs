//! The shape of a launch (thesis §6.3.1): a bucket of `n` work-groups as a 1-D or 2-D grid
//! within the device's limits per dimension (equations 6.7, 6.8).

/// `(g0, g1)` with `g0 * g1 >= n`, `g0 <= max0`, `g1 <= max1`: `(n, 1)` when it fits; else a
/// factorisation `n = f * (n / f)` with the largest fitting `f`; else `max0` columns and as many
/// rows as needed (the surplus work-groups find no bucket entry and return). `None` when even
/// that exceeds the limits.
pub fn factor(n: usize, max0: usize, max1: usize) -> Option<(usize, usize)> {
    let n = n.max(1);
    if n <= max0 {
        return Some((n, 1));
    }
    let best = (1..=max0.min(n))
        .rev()
        .find(|f| n.is_multiple_of(*f) && n / f <= max1);
    if let Some(f) = best {
        if f * 4 >= max0.min(n) {
            return Some((f, n / f));
        }
    }
    let rows = n.div_ceil(max0);
    (rows <= max1).then_some((max0, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(
        miri,
        ignore = "safe arithmetic over many points: minutes under Miri, which checks raw memory (the ffi tests run these buckets there)"
    )]
    fn grids_cover_the_bucket_within_the_limits() {
        assert_eq!(factor(1000, 65535, 65535), Some((1000, 1)));
        assert_eq!(factor(0, 65535, 65535), Some((1, 1)));
        assert_eq!(factor(100_000, 65535, 65535), Some((50000, 2)));
        // A prime: padded.
        let (a, b) = factor(65537, 65535, 65535).unwrap();
        assert!(a * b >= 65537 && a <= 65535);
        assert_eq!(factor(10, 3, 3), None);
        for n in [1, 7, 65536, 131_071, 1 << 20, 3_000_017] {
            let (a, b) = factor(n, 65535, 65535).unwrap();
            assert!(a * b >= n && a <= 65535 && b <= 65535, "{n}");
            assert!(a * b < n + 65535, "{n}: too much padding");
        }
    }
}
