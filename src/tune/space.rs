//! A SCoP's search space: tile sizes per tiled dimension (powers of two and the values between,
//! from small to the problem's extent), the original order ("untiled") on the C target, local-
//! memory windows on GPU targets.

use std::fmt;

use avelas_contract::tuning::Tuned;

/// One configuration of one SCoP.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Candidate {
    pub tuned: Tuned,
    /// The local-memory window (GPU targets); `None`: the device's.
    pub local_mem: Option<u64>,
}

impl Candidate {
    pub fn sizes(sizes: Vec<i64>) -> Candidate {
        Candidate {
            tuned: Tuned::Sizes(sizes),
            local_mem: None,
        }
    }
}

impl fmt::Display for Candidate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.tuned)?;
        if let Some(l) = self.local_mem {
            write!(f, " local_mem={l}")?;
        }
        Ok(())
    }
}

/// The values a tile size takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// Powers of two.
    Pow2,
    /// Powers of two and, between two of them, their mean (3 * 2^k).
    Between,
}

/// A SCoP's configurations: the cartesian product of `sizes` over `depth` dimensions and of
/// `windows`, plus the original order when `untiled`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Space {
    pub depth: usize,
    /// The values of every tiled dimension, increasing.
    pub sizes: Vec<i64>,
    pub windows: Vec<Option<u64>>,
    pub untiled: bool,
}

/// The local-memory windows a GPU search tries: the device's, none, and 16 and 48 KiB.
pub const WINDOWS: [Option<u64>; 4] = [None, Some(0), Some(16 << 10), Some(48 << 10)];

impl Space {
    /// Tile sizes from `min` to the first power of two at or above `extent` (at most `max`).
    pub fn new(depth: usize, min: i64, max: i64, extent: i64, values: Values) -> Space {
        let up = (extent.max(min).max(1) as u64)
            .checked_next_power_of_two()
            .map_or(max, |p| p.min(i64::MAX as u64) as i64);
        let top = max.min(up);
        let mut sizes = Vec::new();
        let mut p = 1i64;
        while p <= top {
            if p >= min {
                sizes.push(p);
            }
            let mid = p + p / 2;
            if values == Values::Between && p >= 2 && mid >= min && mid < top {
                sizes.push(mid);
            }
            p *= 2;
        }
        if sizes.is_empty() {
            sizes.push(min);
        }
        Space {
            depth,
            sizes,
            windows: vec![None],
            untiled: false,
        }
    }

    /// How many configurations the space holds.
    pub fn len(&self) -> usize {
        self.tiled_len().saturating_add(usize::from(self.untiled))
    }

    fn tiled_len(&self) -> usize {
        self.sizes
            .len()
            .saturating_pow(self.depth as u32)
            .saturating_mul(self.windows.len())
    }

    /// Configuration `i` of [`Space::len`]: tiled ones in mixed radix (the first dimension
    /// slowest), the untiled one last.
    pub fn get(&self, i: usize) -> Candidate {
        if i >= self.tiled_len() {
            return Candidate {
                tuned: Tuned::Untiled,
                local_mem: None,
            };
        }
        let n = self.sizes.len();
        let window = self.windows[i % self.windows.len()];
        let mut rest = i / self.windows.len();
        let mut sizes = vec![0; self.depth];
        for k in (0..self.depth).rev() {
            sizes[k] = self.sizes[rest % n];
            rest /= n;
        }
        Candidate {
            tuned: Tuned::Sizes(sizes),
            local_mem: window,
        }
    }

    /// The index in [`Space::sizes`] of the value nearest to `v`.
    pub fn nearest(&self, v: i64) -> usize {
        (0..self.sizes.len())
            .min_by_key(|&i| (self.sizes[i] - v).abs())
            .unwrap_or(0)
    }

    /// The configurations one step from `c` along one dimension (or one window away).
    pub fn neighbours(&self, c: &Candidate) -> Vec<Candidate> {
        let Tuned::Sizes(sizes) = &c.tuned else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for k in 0..self.depth {
            let i = self.nearest(sizes[k.min(sizes.len() - 1)]);
            for j in [i.wrapping_sub(1), i + 1] {
                if let Some(&v) = self.sizes.get(j) {
                    let mut s = sizes.clone();
                    s[k] = v;
                    out.push(Candidate {
                        tuned: Tuned::Sizes(s),
                        local_mem: c.local_mem,
                    });
                }
            }
        }
        for &w in &self.windows {
            if w != c.local_mem {
                out.push(Candidate {
                    tuned: c.tuned.clone(),
                    local_mem: w,
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_run_from_small_to_the_extent() {
        let s = Space::new(2, 4, 1 << 20, 100, Values::Between);
        assert_eq!(s.sizes, vec![4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128]);
        let p = Space::new(1, 4, 64, 1000, Values::Pow2);
        assert_eq!(p.sizes, vec![4, 8, 16, 32, 64]);
        assert_eq!(Space::new(1, 8, 64, 3, Values::Pow2).sizes, vec![8]);
    }

    #[test]
    fn every_configuration_is_numbered_once() {
        let mut s = Space::new(2, 4, 16, 16, Values::Pow2);
        s.untiled = true;
        s.windows = vec![None, Some(0)];
        assert_eq!(s.len(), 3 * 3 * 2 + 1);
        let all: std::collections::BTreeSet<Candidate> = (0..s.len()).map(|i| s.get(i)).collect();
        assert_eq!(all.len(), s.len());
        assert_eq!(s.get(s.len() - 1).tuned, Tuned::Untiled);
        assert_eq!(s.get(0), Candidate::sizes(vec![4, 4]));
    }

    #[test]
    fn neighbours_are_one_step_away() {
        let s = Space::new(2, 4, 16, 16, Values::Pow2);
        let n = s.neighbours(&Candidate::sizes(vec![4, 8]));
        assert_eq!(
            n,
            vec![
                Candidate::sizes(vec![8, 8]),
                Candidate::sizes(vec![4, 4]),
                Candidate::sizes(vec![4, 16])
            ]
        );
    }
}
