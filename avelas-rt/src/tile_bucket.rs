//! The tile bucket (thesis §7.2, Definition 6): the tiles of one launch, one entry per
//! work-group, each `dims` coordinates and a tag (full or partial tile, Algorithm 5).
//!
//! The host fills it in the order it finds the tiles, which is the order work-groups get them:
//! the layout of the launch is decided here, not in the device code. On the device the bucket
//! is one array of `(dims + 1) * stride` integers: row `d < dims` holds coordinate `d` of every
//! entry, row `dims` the tags ([`TileBucket::flattened`]); `bucket + d * stride` is the
//! per-dimension view the thesis' `device_bucket[d]` pointers give.

/// The tag of a tile every point of which is inside every statement's domain.
pub const FULL: i64 = 1;
/// The tag of any other non-empty tile.
pub const PARTIAL: i64 = 0;

/// Tiles of one launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileBucket {
    dims: usize,
    /// Entry-major while filling: `dims` coordinates then the tag, per entry.
    entries: Vec<i64>,
}

impl TileBucket {
    pub fn new(dims: usize) -> TileBucket {
        TileBucket {
            dims,
            entries: Vec::new(),
        }
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len() / (self.dims + 1)
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Add a tile (Algorithm 5, line 3).
    pub fn push(&mut self, tag: i64, coords: &[i64]) {
        assert_eq!(coords.len(), self.dims, "tile coordinates");
        self.entries.extend_from_slice(coords);
        self.entries.push(tag);
    }

    /// Entry `e`: its coordinates and tag.
    pub fn entry(&self, e: usize) -> (&[i64], i64) {
        let w = self.dims + 1;
        let row = &self.entries[e * w..(e + 1) * w];
        (&row[..self.dims], row[self.dims])
    }

    /// Empty the bucket for the next launch.
    pub fn clear(&mut self) {
        self.entries.clear();
    }

    /// The stride between the device rows: the entry count rounded up to a multiple of 16,
    /// so that rows start aligned.
    pub fn stride(&self) -> usize {
        self.len().div_ceil(16).max(1) * 16
    }

    /// The device layout: `dims + 1` rows of [`TileBucket::stride`] values.
    pub fn flattened(&self) -> Vec<i64> {
        let stride = self.stride();
        let mut out = vec![0; (self.dims + 1) * stride];
        for e in 0..self.len() {
            let (coords, tag) = self.entry(e);
            for (d, c) in coords.iter().enumerate() {
                out[d * stride + e] = *c;
            }
            out[self.dims * stride + e] = tag;
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
        assert_eq!(b.entry(1), (&[1, 1][..], FULL));
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
}
