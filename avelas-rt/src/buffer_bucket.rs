//! The buffer bucket (thesis §6.4, §7.4, Definition 8, Algorithm 6): the local-memory buffers a
//! launch may use and the kernel descriptor that says which version of the device code runs.
//!
//! A group's kernel comes in versions: version `n` uses the `n` best-ranked buffers. Buffers are
//! submitted in rank order while they fit in the local-memory window `L_w`
//! (`POLYC_LOCAL_MEM`); the first that does not fit closes the bucket, and the version using
//! the buffers accepted so far is the one launched.
//!
//! A buffer's bytes are what the kernel carves out of its one block of local memory
//! (the layout of [`avelas_contract::LOCAL_MEM_ALIGN`]): the padded elements, then for a buffer
//! the tile writes one flag byte per element (which elements the move-out copies back), each
//! part rounded up to that many bytes.

use avelas_contract::LOCAL_MEM_ALIGN as ALIGN;

/// What one buffer is: the shape Algorithm 6 sizes.
#[derive(Debug, Clone, Copy)]
pub struct Shape<'a> {
    pub elem_size: u64,
    /// Extents `E_i`, outermost first.
    pub extents: &'a [i64],
    /// Each extent is padded to a multiple of its padding (1 where the list is short).
    pub padding: &'a [i64],
    /// The tile writes elements of the buffer: a flag byte per element too.
    pub written: bool,
}

impl Shape<'_> {
    /// The padded extents `E'_i`.
    fn padded(&self) -> Vec<i64> {
        self.extents
            .iter()
            .zip(self.padding.iter().chain(std::iter::repeat(&1)))
            .map(|(&e, &p)| {
                let p = p.max(1);
                (e.max(0) as u64)
                    .div_ceil(p as u64)
                    .saturating_mul(p as u64)
                    .min(i64::MAX as u64) as i64
            })
            .collect()
    }

    /// Local memory the buffer takes, saturating (a buffer of huge tiles never fits).
    fn bytes(&self, total: i64) -> u64 {
        let round = |b: u64| b.div_ceil(ALIGN).saturating_mul(ALIGN);
        let n = total.max(0) as u64;
        let flags = if self.written { round(n) } else { 0 };
        round(n.saturating_mul(self.elem_size)).saturating_add(flags)
    }
}

/// One accepted buffer (Algorithm 6, line 19).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferEntry {
    /// Extents `E_i`, outermost first.
    pub extents: Vec<i64>,
    /// Padded extents `E'_i`.
    pub padded: Vec<i64>,
    /// The work-items' layout over the buffer for data movement: width and height.
    pub threads_wide: i64,
    pub threads_high: i64,
    /// Elements of the padded buffer.
    pub total: i64,
    pub bytes: u64,
    /// The kernel version its acceptance selects.
    pub kernel: usize,
}

/// The buffers of a launch and its kernel descriptor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferBucket {
    window: u64,
    used: u64,
    closed: bool,
    entries: Vec<BufferEntry>,
    kernel: usize,
}

impl BufferBucket {
    /// An empty bucket whose kernel is version 0 (no buffers), with window `L_w` bytes.
    pub fn new(window: u64) -> BufferBucket {
        BufferBucket {
            window,
            used: 0,
            closed: false,
            entries: Vec::new(),
            kernel: 0,
        }
    }

    /// Algorithm 6: add a buffer of `shape` for `work_items` work-items, whose acceptance
    /// makes `kernel` the version to run. `false` when the bucket is (or now becomes) closed.
    ///
    /// Buffers submitted one after another with the same `kernel` are one unit (the classes of
    /// an array staged together): when one of them does not fit, those of its unit accepted
    /// before it are given back too, and the version stays the one before the unit.
    pub fn submit(&mut self, shape: &Shape, work_items: i64, kernel: usize) -> bool {
        if self.closed {
            return false;
        }
        let padded = shape.padded();
        let total = padded.iter().fold(1i64, |a, &e| a.saturating_mul(e));
        let bytes = shape.bytes(total);
        if self.used.saturating_add(bytes) > self.window {
            self.closed = true;
            while self.entries.last().is_some_and(|e| e.kernel == kernel) {
                let e = self.entries.pop().expect("checked");
                self.used -= e.bytes;
            }
            self.kernel = self.entries.last().map_or(0, |e| e.kernel);
            return false;
        }
        self.used += bytes;
        let width = *padded.last().unwrap_or(&1);
        let threads_wide = width.min(work_items.max(1));
        self.entries.push(BufferEntry {
            extents: shape.extents.to_vec(),
            padded,
            threads_wide,
            threads_high: work_items.max(1) / threads_wide,
            total,
            bytes,
            kernel,
        });
        self.kernel = kernel;
        true
    }

    /// The kernel version to launch.
    pub fn kernel(&self) -> usize {
        self.kernel
    }
    pub fn entries(&self) -> &[BufferEntry] {
        &self.entries
    }
    /// Local memory the accepted buffers need, in bytes.
    pub fn bytes(&self) -> u64 {
        self.used
    }
    pub fn is_closed(&self) -> bool {
        self.closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape<'a>(elem_size: u64, extents: &'a [i64], padding: &'a [i64]) -> Shape<'a> {
        Shape {
            elem_size,
            extents,
            padding,
            written: false,
        }
    }

    #[test]
    fn buffers_are_accepted_in_rank_order_until_the_window_is_full() {
        let mut b = BufferBucket::new(16 * 1024);
        assert_eq!(b.kernel(), 0);
        // 34 x 33 doubles padded to 34 x 64: 17408 bytes, too many.
        assert!(!b.submit(&shape(8, &[34, 33], &[1, 32]), 256, 1));
        assert!(b.is_closed());
        assert_eq!(b.kernel(), 0);
        // Later buffers cannot get in either, even small ones.
        assert!(!b.submit(&shape(8, &[2, 2], &[1, 1]), 256, 2));

        let mut b = BufferBucket::new(16 * 1024);
        assert!(b.submit(&shape(8, &[16, 30], &[1, 32]), 256, 1));
        assert_eq!(b.entries()[0].padded, vec![16, 32]);
        assert_eq!(
            (b.entries()[0].threads_wide, b.entries()[0].threads_high),
            (32, 8)
        );
        assert!(b.submit(&shape(4, &[16, 16], &[1, 1]), 256, 2));
        assert_eq!(b.kernel(), 2);
        assert_eq!(b.bytes(), 16 * 32 * 8 + 16 * 16 * 4);
    }

    #[test]
    fn written_buffers_add_a_flag_per_element_and_parts_are_aligned() {
        let mut b = BufferBucket::new(1 << 20);
        // 3 x 5 floats: 60 bytes, rounded to 64; 15 flags rounded to 16.
        let s = Shape {
            written: true,
            ..shape(4, &[3, 5], &[1, 1])
        };
        assert!(b.submit(&s, 32, 1));
        assert_eq!(b.bytes(), 64 + 16);
    }

    #[test]
    fn a_unit_that_does_not_fit_whole_is_given_back_whole() {
        let mut b = BufferBucket::new(800);
        assert!(b.submit(&shape(8, &[10], &[1]), 32, 1));
        // Unit 2: two buffers of 400 bytes; the second does not fit.
        assert!(b.submit(&shape(8, &[50], &[1]), 32, 2));
        assert_eq!(b.kernel(), 2);
        assert!(!b.submit(&shape(8, &[50], &[1]), 32, 2));
        assert_eq!((b.kernel(), b.bytes(), b.entries().len()), (1, 80, 1));
    }

    #[test]
    fn a_window_of_zero_takes_no_buffer_and_huge_tiles_never_fit() {
        let mut b = BufferBucket::new(0);
        assert!(!b.submit(&shape(8, &[1, 1], &[1, 1]), 1, 1));
        assert_eq!((b.kernel(), b.bytes()), (0, 0));
        let mut b = BufferBucket::new(u64::MAX / 2);
        let huge = [i64::MAX / 2, i64::MAX / 2, 3];
        assert!(!b.submit(&shape(8, &huge, &[1, 1, 1]), 1, 1));
        assert_eq!(b.kernel(), 0);
    }
}
