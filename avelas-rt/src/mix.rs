//! Mixed batches: the small wavefronts of several groups that the host calls in turn
//! (durbin's seven in its `k` loop, adi's fourteen in its `t` loop), launched together.
//!
//! A tile bucket's batch ([`crate::tile_bucket`]) holds the wavefronts of one group; it is
//! flushed before another group launches, so a loop that calls seven groups per iteration
//! (durbin) still launches seven times per iteration, however small each wavefront. A *mix*
//! takes the small wavefronts of all the groups of a SCoP (or of one host loop), in the order
//! the host ends them, and launches them as one work-group of the *mix kernel*, which runs each
//! wavefront's tiles with its group's code, one after the other, a barrier between them. The
//! order is the host's, so every dependence the launches respected is respected.
//!
//! **Device layout.** One array of integers: per group of the mix, four values (where its
//! thread bucket starts in the concatenated coordinates and offsets, its stride, its intra-tile
//! wavefronts); per wavefront held (a *run*), four (its group, where its entries start in the
//! array, how many, their stride); then each run's entries as a tile bucket lays them out
//! ([`TileBucket::flattened`]).

use crate::thread_bucket::ThreadBucket;
use crate::tile_bucket::{TileBucket, WAVES_BEFORE_BATCHES};

/// Values per group and per run at the head of the device layout.
pub const HEAD: usize = avelas_contract::kernel_args::MIX_HEAD;

/// Entries a mix holds at most: a wavefront that would pass this launches the mix first.
pub const MAX_ENTRIES: usize = 1 << 16;

/// One wavefront held: its group's position in the mix, where its entries start in
/// [`Mix::entries`], how many there are and their row stride.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    group: usize,
    start: usize,
    count: usize,
    stride: usize,
}

/// The small wavefronts of a loop's groups, in the host's order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mix {
    groups: usize,
    runs: Vec<Run>,
    /// The runs' entries, each run flattened as its tile bucket lays it out.
    entries: Vec<i64>,
    held: usize,
    /// Wavefronts offered so far, and how many launch one by one before any joins.
    waves: u64,
    waves_before: u64,
}

impl Mix {
    /// A mix of `groups` groups, known by their positions `0..groups`.
    pub fn new(groups: usize) -> Mix {
        Mix {
            groups,
            runs: Vec::new(),
            entries: Vec::new(),
            held: 0,
            waves: 0,
            waves_before: WAVES_BEFORE_BATCHES,
        }
    }

    /// Lets wavefronts join from the `n + 1`-th offered on ([`WAVES_BEFORE_BATCHES`] by
    /// default, as for a tile bucket's batches).
    pub fn join_after(&mut self, n: u64) {
        self.waves_before = n;
    }

    /// Group `group` ended a wavefront, which `bucket` holds (and nothing else: the groups of
    /// a mix batch nothing by themselves). A wavefront of at most `batch` tiles joins the
    /// mix, which takes its entries and empties the bucket: `true`. Otherwise the bucket is
    /// left as it is and the caller launches the mix, if it holds anything, then the
    /// wavefront: `false`. An empty wavefront joins: there is nothing to launch.
    pub fn offer(&mut self, group: usize, bucket: &mut TileBucket, batch: i64) -> bool {
        assert!(
            group < self.groups,
            "group {group} of a mix of {}",
            self.groups
        );
        let n = bucket.len();
        if n == 0 {
            return true;
        }
        self.waves += 1;
        let small = batch >= 0 && n as i64 <= batch;
        if !small || self.waves <= self.waves_before || self.held + n > MAX_ENTRIES {
            return false;
        }
        self.runs.push(Run {
            group,
            start: self.entries.len(),
            count: n,
            stride: bucket.stride(),
        });
        self.entries.extend(bucket.flattened());
        self.held += n;
        bucket.clear();
        true
    }

    /// Whether wavefronts wait to be launched.
    pub fn pending(&self) -> bool {
        !self.runs.is_empty()
    }

    /// The wavefronts held.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Tiles held, over all wavefronts.
    pub fn held(&self) -> usize {
        self.held
    }

    /// The device layout of what is held (module documentation), with `threads`: where each
    /// group's thread bucket starts in the concatenated coordinates and offsets ([`concat()`]).
    pub fn layout(&self, threads: &[ThreadPlace]) -> Vec<i64> {
        assert_eq!(threads.len(), self.groups, "a thread bucket per group");
        let head = HEAD * (self.groups + self.runs.len());
        let mut out = Vec::with_capacity(head + self.entries.len());
        for t in threads {
            out.extend([t.coords, t.offsets, t.stride, t.waves].map(|v| v as i64));
        }
        for r in &self.runs {
            out.extend([r.group, head + r.start, r.count, r.stride].map(|v| v as i64));
        }
        out.extend_from_slice(&self.entries);
        out
    }

    /// Forget what is held (it was launched).
    pub fn clear(&mut self) {
        self.runs.clear();
        self.entries.clear();
        self.held = 0;
    }
}

/// Where one group's thread bucket lies in the concatenation of a mix's thread buckets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadPlace {
    pub coords: usize,
    pub offsets: usize,
    pub stride: usize,
    pub waves: usize,
}

/// The thread buckets of a mix's groups, in order, as one array of coordinates and one of
/// wavefront offsets; where each starts. A group's offsets index its own coordinates, so the
/// kernel reads them from its group's start.
pub fn concat(buckets: &[&ThreadBucket]) -> (Vec<i32>, Vec<i32>, Vec<ThreadPlace>) {
    let (mut coords, mut offsets, mut places) = (Vec::new(), Vec::new(), Vec::new());
    for b in buckets {
        places.push(ThreadPlace {
            coords: coords.len(),
            offsets: offsets.len(),
            stride: b.stride(),
            waves: b.waves(),
        });
        coords.extend_from_slice(b.coords());
        offsets.extend_from_slice(b.offsets());
    }
    (coords, offsets, places)
}

/// The work-group a mix launches: one work-item where its kernel has no barriers (`serial`),
/// else the largest of its groups', within the kernel's `max`.
pub fn work_group(buckets: &[&ThreadBucket], serial: bool, max: usize) -> usize {
    if serial {
        return 1;
    }
    let widest = buckets.iter().map(|b| b.work_group()).max().unwrap_or(1);
    widest.min(max).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tile_bucket::FULL;

    /// Group `g`'s wavefront of `n` tiles at outer value `x`, offered to `mix`.
    fn offer(mix: &mut Mix, b: &mut TileBucket, g: usize, x: i64, n: i64, batch: i64) -> bool {
        for t in 0..n {
            b.push(FULL, &[t, x]);
        }
        mix.offer(g, b, batch)
    }

    #[test]
    fn small_wavefronts_of_two_groups_join_in_the_hosts_order() {
        let mut mix = Mix::new(2);
        mix.join_after(0);
        let (mut a, mut b) = (TileBucket::with_outer(1, 1), TileBucket::with_outer(1, 1));
        assert!(offer(&mut mix, &mut a, 0, 7, 2, 4));
        assert!(a.is_empty(), "the mix took the entries");
        assert!(offer(&mut mix, &mut b, 1, 7, 1, 4));
        assert!(offer(&mut mix, &mut a, 0, 8, 1, 4));
        assert_eq!((mix.runs(), mix.held()), (3, 4));
        // A large wavefront stays in its bucket: the caller launches the mix, then it.
        assert!(!offer(&mut mix, &mut b, 1, 8, 5, 4));
        assert_eq!(b.len(), 5);

        let threads = [
            ThreadPlace {
                coords: 0,
                offsets: 0,
                stride: 16,
                waves: 1,
            },
            ThreadPlace {
                coords: 16,
                offsets: 2,
                stride: 32,
                waves: 3,
            },
        ];
        let l = mix.layout(&threads);
        assert_eq!(&l[..8], &[0, 0, 16, 1, 16, 2, 32, 3]);
        // Runs: group, start, count, stride; the entries after the five heads.
        let head = 4 * 5;
        assert_eq!(&l[8..12], &[0, head, 2, 16]);
        assert_eq!(&l[12..16], &[1, head + 3 * 16, 1, 16]);
        assert_eq!(&l[16..20], &[0, head + 6 * 16, 1, 16]);
        // The first run: coordinates 0 and 1, both full, outer value 7.
        let first = &l[head as usize..];
        assert_eq!((first[0], first[1]), (0, 1));
        assert_eq!((first[16], first[17]), (FULL, FULL));
        assert_eq!((first[32], first[33]), (7, 7));
        // The third: outer value 8.
        assert_eq!(l[head as usize + 6 * 16 + 32], 8);
        mix.clear();
        assert!(!mix.pending());
    }

    #[test]
    fn the_first_wavefronts_and_large_ones_do_not_join() {
        let mut mix = Mix::new(1);
        let mut a = TileBucket::with_outer(1, 1);
        for x in 0..WAVES_BEFORE_BATCHES as i64 {
            assert!(!offer(&mut mix, &mut a, 0, x, 1, 16));
            a.clear();
        }
        assert!(offer(&mut mix, &mut a, 0, 100, 1, 16));
        assert!(!offer(&mut mix, &mut a, 0, 101, 17, 16), "past the limit");
        a.clear();
        assert!(!offer(&mut mix, &mut a, 0, 102, 1, 0), "batches off");
        a.clear();
        assert!(!offer(&mut mix, &mut a, 0, 102, 1, -1), "a flush");
        a.clear();
        // An empty wavefront joins and counts for nothing.
        assert!(mix.offer(0, &mut a, 16));
        assert_eq!(mix.runs(), 1);
    }

    #[test]
    #[cfg_attr(
        miri,
        ignore = "65,536 entries: minutes under Miri, and no unsafe code"
    )]
    fn a_full_mix_takes_no_more() {
        let mut mix = Mix::new(1);
        mix.join_after(0);
        let mut a = TileBucket::with_outer(1, 1);
        assert!(offer(
            &mut mix,
            &mut a,
            0,
            0,
            MAX_ENTRIES as i64 - 1,
            i64::MAX
        ));
        assert!(offer(&mut mix, &mut a, 0, 1, 1, i64::MAX));
        assert!(!offer(&mut mix, &mut a, 0, 2, 1, i64::MAX));
        assert_eq!(mix.held(), MAX_ENTRIES);
    }

    #[test]
    fn thread_buckets_concatenate_and_set_the_work_group() {
        let a = ThreadBucket::rectangular(&[4], 1, 64).expect("fits");
        let b = ThreadBucket::rectangular(&[8, 2], 1, 64).expect("fits");
        let (coords, offsets, places) = concat(&[&a, &b]);
        assert_eq!(coords.len(), a.coords().len() + b.coords().len());
        assert_eq!(offsets.len(), a.offsets().len() + b.offsets().len());
        assert_eq!(places[1].coords, a.coords().len());
        assert_eq!(places[1].offsets, a.offsets().len());
        assert_eq!(&coords[places[1].coords..], b.coords());
        assert_eq!(work_group(&[&a, &b], false, 1024), 16);
        assert_eq!(work_group(&[&a, &b], false, 8), 8);
        assert_eq!(work_group(&[&a, &b], true, 1024), 1);
    }
}
