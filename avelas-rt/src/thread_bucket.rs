//! The thread bucket (thesis §7.3, Definition 7): the intra-tile points a work-group's
//! work-items run, for any number of tile dimensions.
//!
//! - A *rectangular* layout holds every point of the box `[0, T_0) × ... × [0, T_{n-1})` of
//!   the parallel intra-tile dimensions, the last dimension varying fastest, so that
//!   neighbouring work-items get neighbouring points along it (coalesced accesses).
//! - A *wavefront* layout holds the points of the box grouped by intra-tile wavefront
//!   `w = u_0 + ... + u_{n-1}` (equation 6.5): the work-items run one wavefront at a time, with
//!   a barrier between wavefronts.
//!
//! Each wavefront (a rectangular layout is one) is padded to a multiple of the hardware's
//! allocation granularity with entries whose coordinates are negative: idle work-items.
//! Work-item `l` of a work-group of `W` runs entries `off[w] + l`, `off[w] + l + W`, ... below
//! `off[w + 1]`. On the device the bucket is `n` rows of [`ThreadBucket::stride`] coordinates
//! (row `d` holds `u_d` of every entry) and the offsets.

/// A thread bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadBucket {
    dims: usize,
    /// Dimension-major: `coords[d * stride + r]`.
    coords: Vec<i32>,
    stride: usize,
    /// `offsets[w]..offsets[w + 1]` are wavefront `w`'s entries.
    offsets: Vec<i32>,
    work_group: usize,
}

/// Why a layout cannot be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutError(pub String);

impl std::fmt::Display for LayoutError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The most entries a thread bucket holds (the tile sizes make it large, not the problem).
pub const MAX_ENTRIES: i64 = 1 << 26;

impl ThreadBucket {
    /// Every point of the box of `extents`, padded to a multiple of `padding`; work-groups of
    /// at most `max_work_group` work-items.
    pub fn rectangular(
        extents: &[i64],
        padding: usize,
        max_work_group: usize,
    ) -> Result<ThreadBucket, LayoutError> {
        let points = box_points(extents)?;
        Ok(ThreadBucket::from_waves(
            extents.len(),
            vec![points],
            padding,
            max_work_group,
        ))
    }

    /// The points of the box of `extents` by wavefront `Σ u_k`.
    pub fn wavefront(
        extents: &[i64],
        padding: usize,
        max_work_group: usize,
    ) -> Result<ThreadBucket, LayoutError> {
        let points = box_points(extents)?;
        let n_waves = extents.iter().map(|e| e - 1).sum::<i64>() + 1;
        let mut waves: Vec<Vec<Vec<i32>>> = vec![Vec::new(); n_waves.max(1) as usize];
        for p in points {
            let w: i64 = p.iter().map(|&x| i64::from(x)).sum();
            waves[w as usize].push(p);
        }
        Ok(ThreadBucket::from_waves(
            extents.len(),
            waves,
            padding,
            max_work_group,
        ))
    }

    fn from_waves(
        dims: usize,
        waves: Vec<Vec<Vec<i32>>>,
        padding: usize,
        max_work_group: usize,
    ) -> ThreadBucket {
        let padding = padding.max(1);
        let padded: Vec<usize> = waves
            .iter()
            .map(|w| w.len().div_ceil(padding).max(1) * padding)
            .collect();
        let total: usize = padded.iter().sum();
        let stride = total.max(1);
        let mut coords = vec![-1; dims.max(1) * stride];
        let mut offsets = vec![0i32];
        let mut r = 0;
        for (w, p) in waves.iter().zip(&padded) {
            for (i, point) in w.iter().enumerate() {
                for (d, &x) in point.iter().enumerate() {
                    coords[d * stride + r + i] = x;
                }
            }
            r += p;
            offsets.push(r as i32);
        }
        let widest = padded.iter().copied().max().unwrap_or(padding);
        let cap = max_work_group.max(1);
        let work_group = if widest <= cap {
            widest
        } else if cap >= padding {
            cap / padding * padding
        } else {
            cap
        };
        ThreadBucket {
            dims,
            coords,
            stride,
            offsets,
            work_group,
        }
    }

    pub fn dims(&self) -> usize {
        self.dims
    }
    /// The device rows of coordinates.
    pub fn coords(&self) -> &[i32] {
        &self.coords
    }
    pub fn stride(&self) -> usize {
        self.stride
    }
    pub fn offsets(&self) -> &[i32] {
        &self.offsets
    }
    /// Number of wavefronts (1 for a rectangular layout).
    pub fn waves(&self) -> usize {
        self.offsets.len() - 1
    }
    /// Work-items per work-group.
    pub fn work_group(&self) -> usize {
        self.work_group
    }

    /// The entries of wavefront `w` (padding included).
    pub fn wave(&self, w: usize) -> Vec<Vec<i32>> {
        (self.offsets[w] as usize..self.offsets[w + 1] as usize)
            .map(|r| {
                (0..self.dims)
                    .map(|d| self.coords[d * self.stride + r])
                    .collect()
            })
            .collect()
    }
}

/// The points of the box, the last coordinate fastest.
fn box_points(extents: &[i64]) -> Result<Vec<Vec<i32>>, LayoutError> {
    let mut total: i64 = 1;
    for &e in extents {
        if e < 1 {
            return Err(LayoutError(format!("a tile extent of {e} has no points")));
        }
        total = total.saturating_mul(e);
    }
    if total > MAX_ENTRIES {
        return Err(LayoutError(format!(
            "tiles of {} points are too large for a thread bucket (at most {MAX_ENTRIES})",
            total
        )));
    }
    let mut out = Vec::with_capacity(total as usize);
    let mut p = vec![0i32; extents.len()];
    for _ in 0..total {
        out.push(p.clone());
        for d in (0..extents.len()).rev() {
            p[d] += 1;
            if i64::from(p[d]) < extents[d] {
                break;
            }
            p[d] = 0;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every point of the box exactly once, padding negative, each wavefront on one hyperplane.
    fn check_cover(b: &ThreadBucket, extents: &[i64], wavefront: bool) {
        let mut seen = BTreeSet::new();
        for w in 0..b.waves() {
            for e in b.wave(w) {
                if e.iter().all(|&x| x < 0) {
                    continue;
                }
                assert!(e.iter().all(|&x| x >= 0), "half-idle entry {e:?}");
                for (x, ext) in e.iter().zip(extents) {
                    assert!(i64::from(*x) < *ext, "{e:?} outside {extents:?}");
                }
                if wavefront {
                    assert_eq!(e.iter().sum::<i32>() as usize, w, "{e:?} in wavefront {w}");
                }
                assert!(seen.insert(e.clone()), "{e:?} twice");
            }
        }
        assert_eq!(seen.len() as i64, extents.iter().product::<i64>());
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "safe arithmetic over many points: minutes under Miri, which checks raw memory (the ffi tests run these buckets there)"
    )]
    fn rectangular_layouts_cover_the_box_once() {
        for extents in [
            vec![1],
            vec![7],
            vec![3, 5],
            vec![32, 32],
            vec![2, 3, 4],
            vec![1, 1, 1, 5],
        ] {
            let b = ThreadBucket::rectangular(&extents, 32, 1024).unwrap();
            check_cover(&b, &extents, false);
            assert_eq!(b.waves(), 1);
            assert_eq!(b.offsets()[1] as usize % 32, 0);
        }
        // Neighbouring work-items get neighbouring points of the last dimension.
        let b = ThreadBucket::rectangular(&[2, 3], 1, 64).unwrap();
        assert_eq!(
            b.wave(0)[..4],
            [vec![0, 0], vec![0, 1], vec![0, 2], vec![1, 0]]
        );
    }

    #[test]
    fn wavefront_layouts_cover_the_box_once_by_wavefront() {
        for extents in [
            vec![4],
            vec![3, 5],
            vec![8, 8],
            vec![2, 3, 4],
            vec![5, 1, 3],
            vec![2, 2, 2, 2],
        ] {
            let b = ThreadBucket::wavefront(&extents, 4, 1024).unwrap();
            check_cover(&b, &extents, true);
            assert_eq!(
                b.waves() as i64,
                extents.iter().map(|e| e - 1).sum::<i64>() + 1
            );
        }
        // 3x5: wavefront 2 holds (0,2), (1,1), (2,0).
        let b = ThreadBucket::wavefront(&[3, 5], 1, 1024).unwrap();
        assert_eq!(b.wave(2), vec![vec![0, 2], vec![1, 1], vec![2, 0]]);
        assert_eq!(b.work_group(), 3);
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "safe arithmetic over many points: minutes under Miri, which checks raw memory (the ffi tests run these buckets there)"
    )]
    fn work_groups_respect_the_device_limit() {
        let b = ThreadBucket::rectangular(&[64, 64], 32, 1024).unwrap();
        assert_eq!(b.work_group(), 1024);
        let b = ThreadBucket::rectangular(&[3, 3], 32, 1024).unwrap();
        assert_eq!(b.work_group(), 32);
        assert!(ThreadBucket::rectangular(&[0, 4], 32, 1024).is_err());
        assert!(ThreadBucket::rectangular(&[100_000, 100_000], 32, 1024).is_err());
    }
}
