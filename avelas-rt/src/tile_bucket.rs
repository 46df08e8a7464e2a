//! The tile bucket (thesis §7.2, Definition 6): the tiles of one launch, one entry per
//! work-group, each `dims` coordinates, a tag (full or partial tile, Algorithm 5) and the
//! values of the host loops around the tile walk (`outer` of them).
//!
//! The host fills it in the order it finds the tiles, which is the order work-groups get them:
//! the layout of the launch is decided here, not in the device code. On the device the bucket
//! is one array of `(dims + 1 + outer) * stride` integers: row `d < dims` holds coordinate `d`
//! of every entry, row `dims` the tags, the rows after it the outer values
//! ([`TileBucket::flattened`]); `bucket + d * stride` is the per-dimension view the thesis'
//! `device_bucket[d]` pointers give.
//!
//! **Batches.** A wavefront of few tiles costs a launch for little work (floyd-warshall's,
//! ludcmp's and trisolv's sequential steps). At the end of each wavefront the host says how many
//! tiles a wavefront may have and still join a batch ([`TileBucket::end_wave`]): such a
//! wavefront stays in the bucket, and the next ones are appended to it. The batch is launched
//! as one work-group that runs its tiles one after the other, in the bucket's order, with a
//! barrier between them (a *sequential part*), when a larger wavefront comes or at the host's
//! flush point after the last wavefront that can join it. The outer values travel with each
//! tile, so a batch may span iterations of the host loops. [`TileBucket::next_part`] hands the
//! parts to launch out in order.

/// The tag of a tile every point of which is inside every statement's domain.
pub const FULL: i64 = 1;
/// The tag of any other non-empty tile.
pub const PARTIAL: i64 = 0;

/// Wavefronts a bucket launches one by one before any joins a batch. Batches pay where launches
/// are many (floyd-warshall's 15,500, ludcmp's 15,852 at MEDIUM); a SCoP of a few dozen wavefronts
/// saves little and pays for the twins' program and for tiles run on one work-group: at MEDIUM on
/// PoCL heat-3d (28 wavefronts of up to 16 tiles) ran 0.42x and jacobi-1d 0.53x with batches from
/// the first wavefront (docs/results/launch-batches-*).
pub const WAVES_BEFORE_BATCHES: u64 = 64;

/// A run of entries launched together: `start..end`, by one work-group in order (`sequential`)
/// or one work-group per entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part {
    pub start: usize,
    pub end: usize,
    pub sequential: bool,
}

/// Tiles of one launch, or of a batch of wavefronts and the wavefront that ends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileBucket {
    dims: usize,
    outer: usize,
    /// Entry-major while filling: `dims` coordinates, the tag, `outer` values, per entry.
    entries: Vec<i64>,
    /// Entries at the front held back for a batch, and how many wavefronts they are.
    deferred: usize,
    deferred_waves: usize,
    /// Wavefronts ended so far, and how many must end before any joins a batch.
    waves: u64,
    waves_before_batches: u64,
    /// Parts ready to launch, in order; then the one being launched.
    ready: Vec<Part>,
    current: Option<Part>,
}

impl TileBucket {
    pub fn new(dims: usize) -> TileBucket {
        TileBucket::with_outer(dims, 0)
    }

    /// A bucket whose entries also carry `outer` host-loop values.
    pub fn with_outer(dims: usize, outer: usize) -> TileBucket {
        TileBucket {
            dims,
            outer,
            entries: Vec::new(),
            deferred: 0,
            deferred_waves: 0,
            waves: 0,
            waves_before_batches: WAVES_BEFORE_BATCHES,
            ready: Vec::new(),
            current: None,
        }
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Coordinates and outer values an entry is pushed with.
    pub fn values(&self) -> usize {
        self.dims + self.outer
    }

    fn width(&self) -> usize {
        self.dims + 1 + self.outer
    }

    /// Number of entries of the part being launched, or of all when none is.
    pub fn len(&self) -> usize {
        match self.current {
            Some(p) => p.end - p.start,
            None => self.entries.len() / self.width(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Add a tile (Algorithm 5, line 3): its coordinates, then the outer values.
    pub fn push(&mut self, tag: i64, values: &[i64]) {
        assert_eq!(
            values.len(),
            self.values(),
            "tile coordinates and outer values"
        );
        self.entries.extend_from_slice(&values[..self.dims]);
        self.entries.push(tag);
        self.entries.extend_from_slice(&values[self.dims..]);
    }

    /// Entry `e` of the part being launched (of all, when none is): its coordinates, tag and
    /// outer values.
    pub fn entry(&self, e: usize) -> (&[i64], i64, &[i64]) {
        let w = self.width();
        let e = e + self.current.map_or(0, |p| p.start);
        let row = &self.entries[e * w..(e + 1) * w];
        (&row[..self.dims], row[self.dims], &row[self.dims + 1..])
    }

    /// Empty the bucket, batch included.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.deferred = 0;
        self.deferred_waves = 0;
        self.ready.clear();
        self.current = None;
    }

    /// The host found a wavefront's last tile. A wavefront of at most `batch` tiles joins the
    /// batch; a larger one makes the batch (a sequential part, unless it holds one wavefront,
    /// whose tiles then run in parallel) and itself ready to launch.
    /// A negative `batch` flushes: the batch alone is made ready.
    pub fn end_wave(&mut self, batch: i64) {
        let all = self.entries.len() / self.width();
        let wave = all - self.deferred;
        if batch >= 0 {
            self.waves += 1;
        }
        if batch >= 0 && self.waves > self.waves_before_batches && wave as i64 <= batch {
            self.deferred = all;
            self.deferred_waves += 1;
            return;
        }
        if self.deferred > 0 {
            // A batch of one wavefront launches as any wavefront: its tiles in parallel.
            self.ready.push(Part {
                start: 0,
                end: self.deferred,
                sequential: self.deferred_waves > 1,
            });
        }
        self.deferred_waves = 0;
        if batch >= 0 && wave > 0 {
            self.ready.push(Part {
                start: self.deferred,
                end: all,
                sequential: false,
            });
        }
        self.deferred = all;
    }

    /// The next part to launch, made the current one (what [`TileBucket::len`] and
    /// [`TileBucket::flattened`] see); `None`, and an empty bucket, once every part is out.
    pub fn next_part(&mut self) -> Option<Part> {
        if self.ready.is_empty() {
            if self.current.is_some() {
                // The parts made ready cover every entry: all are out.
                self.clear();
            }
            return None;
        }
        let p = self.ready.remove(0);
        self.current = Some(p);
        Some(p)
    }

    /// Lets wavefronts join batches from the `n + 1`-th on ([`WAVES_BEFORE_BATCHES`] by
    /// default).
    pub fn batches_after(&mut self, n: u64) {
        self.waves_before_batches = n;
    }

    /// The part being launched, if any.
    pub fn current(&self) -> Option<Part> {
        self.current
    }

    /// The stride between the device rows: the entry count rounded up to a multiple of 16,
    /// so that rows start aligned.
    pub fn stride(&self) -> usize {
        self.len().div_ceil(16).max(1) * 16
    }

    /// The device layout: `dims + 1 + outer` rows of [`TileBucket::stride`] values.
    pub fn flattened(&self) -> Vec<i64> {
        let stride = self.stride();
        let mut out = vec![0; self.width() * stride];
        for e in 0..self.len() {
            let (coords, tag, outer) = self.entry(e);
            for (d, c) in coords.iter().enumerate() {
                out[d * stride + e] = *c;
            }
            out[self.dims * stride + e] = tag;
            for (j, x) in outer.iter().enumerate() {
                out[(self.dims + 1 + j) * stride + e] = *x;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wavefront_of_a_known_tile_space() {
        // The tiles of wavefront 2 of a 3x3 tile space, t0 + t1 = 2, in the host's order.
        let mut b = TileBucket::new(2);
        for t0 in 0..3 {
            let t1 = 2 - t0;
            b.push(if t0 == 1 { FULL } else { PARTIAL }, &[t0, t1]);
        }
        assert_eq!(b.len(), 3);
        assert_eq!(b.entry(1), (&[1, 1][..], FULL, &[][..]));
        let f = b.flattened();
        assert_eq!(b.stride(), 16);
        assert_eq!(&f[0..3], &[0, 1, 2]);
        assert_eq!(&f[16..19], &[2, 1, 0]);
        assert_eq!(&f[32..35], &[PARTIAL, FULL, PARTIAL]);
        b.clear();
        assert!(b.is_empty());
    }

    #[test]
    fn a_bucket_without_coordinates_holds_one_launch_entry() {
        let mut b = TileBucket::new(0);
        b.push(PARTIAL, &[]);
        assert_eq!(b.len(), 1);
        assert_eq!(b.flattened().len(), 16);
    }

    /// Pushes a wavefront of `n` tiles at outer value `x` and ends it.
    fn wave(b: &mut TileBucket, x: i64, n: i64, batch: i64) {
        for t in 0..n {
            b.push(FULL, &[t, x]);
        }
        b.end_wave(batch);
    }

    /// The parts ready now, each as `(first tile's outer value, length, sequential)`.
    fn parts(b: &mut TileBucket) -> Vec<(i64, usize, bool)> {
        let mut out = Vec::new();
        while let Some(p) = b.next_part() {
            let (_, _, outer) = b.entry(0);
            out.push((outer[0], b.len(), p.sequential));
            assert_eq!(b.flattened()[2 * b.stride()], outer[0], "outer row");
        }
        out
    }

    #[test]
    fn small_wavefronts_wait_for_a_large_one_or_the_flush() {
        let mut b = TileBucket::with_outer(1, 1);
        b.batches_after(0);
        // Three wavefronts of one or two tiles across outer iterations: nothing to launch.
        for (x, n) in [(0, 1), (1, 2), (2, 1)] {
            wave(&mut b, x, n, 2);
            assert!(parts(&mut b).is_empty(), "wave {x} launched");
        }
        // A wavefront of three: the batch of four tiles in order, then the wavefront.
        wave(&mut b, 3, 3, 2);
        assert_eq!(parts(&mut b), vec![(0, 4, true), (3, 3, false)]);
        assert!(b.is_empty());
        // One small wavefront, then the flush: a part of one tile runs as any launch.
        wave(&mut b, 4, 1, 2);
        assert!(parts(&mut b).is_empty());
        b.end_wave(-1);
        assert_eq!(parts(&mut b), vec![(4, 1, false)]);
        assert!(b.is_empty());
        // A batch of one wavefront runs its tiles in parallel, as without batches.
        wave(&mut b, 5, 3, 4);
        b.end_wave(-1);
        assert_eq!(parts(&mut b), vec![(5, 3, false)]);
        // A flush with nothing held back launches nothing.
        b.end_wave(-1);
        assert!(parts(&mut b).is_empty());
    }

    #[test]
    fn the_first_wavefronts_launch_one_by_one() {
        let mut b = TileBucket::with_outer(1, 1);
        for x in 0..WAVES_BEFORE_BATCHES as i64 {
            wave(&mut b, x, 1, 16);
            assert_eq!(parts(&mut b), vec![(x, 1, false)]);
        }
        wave(&mut b, 100, 1, 16);
        wave(&mut b, 101, 1, 16);
        assert!(parts(&mut b).is_empty());
        b.end_wave(-1);
        assert_eq!(parts(&mut b), vec![(100, 2, true)]);
    }

    #[test]
    fn without_batches_every_wavefront_is_one_launch() {
        let mut b = TileBucket::with_outer(1, 1);
        for x in 0..3 {
            wave(&mut b, x, 1, 0);
            assert_eq!(parts(&mut b), vec![(x, 1, false)]);
        }
    }
}
