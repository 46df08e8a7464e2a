//! The buffer bucket (thesis §6.4, §7.4, Definition 8, Algorithm 6): the local-memory buffers a
//! launch may use and the kernel descriptor that says which version of the device code runs.
//!
//! A group's kernel comes in versions: version `n` uses the `n` best-ranked buffers. Buffers are
//! submitted in rank order while they fit in the local-memory window `L_w`
//! (`POLYC_LOCAL_MEM`); the first that does not fit closes the bucket, and the version using
//! the buffers accepted so far is the one launched. Today's generated kernels have no
//! local-memory buffers, so version 0 is always chosen; the selection itself is in place.

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

    /// Algorithm 6: add a buffer of `extents` (padded to multiples of `padding`) with elements
    /// of `elem_size` bytes, for `work_items` work-items, whose acceptance makes `kernel` the
    /// version to run. `false` when the bucket is (or now becomes) closed.
    pub fn submit(
        &mut self,
        elem_size: u64,
        extents: &[i64],
        padding: &[i64],
        work_items: i64,
        kernel: usize,
    ) -> bool {
        if self.closed {
            return false;
        }
        let padded: Vec<i64> = extents
            .iter()
            .zip(padding.iter().chain(std::iter::repeat(&1)))
            .map(|(&e, &p)| {
                let p = p.max(1);
                (e + p - 1).div_euclid(p) * p
            })
            .collect();
        let total: i64 = padded.iter().product();
        let bytes = total.max(0) as u64 * elem_size;
        if self.used + bytes > self.window {
            self.closed = true;
            return false;
        }
        self.used += bytes;
        let width = *padded.last().unwrap_or(&1);
        let threads_wide = width.min(work_items.max(1));
        self.entries.push(BufferEntry {
            extents: extents.to_vec(),
            padded,
            threads_wide,
            threads_high: work_items.max(1) / threads_wide,
            total,
            bytes,
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

    #[test]
    fn buffers_are_accepted_in_rank_order_until_the_window_is_full() {
        let mut b = BufferBucket::new(16 * 1024);
        assert_eq!(b.kernel(), 0);
        // 34 x 33 doubles padded to 34 x 64: 17408 bytes, too many.
        assert!(!b.submit(8, &[34, 33], &[1, 32], 256, 1));
        assert!(b.is_closed());
        assert_eq!(b.kernel(), 0);
        // Later buffers cannot get in either, even small ones.
        assert!(!b.submit(8, &[2, 2], &[1, 1], 256, 2));

        let mut b = BufferBucket::new(16 * 1024);
        assert!(b.submit(8, &[16, 30], &[1, 32], 256, 1));
        assert_eq!(b.entries()[0].padded, vec![16, 32]);
        assert_eq!(
            (b.entries()[0].threads_wide, b.entries()[0].threads_high),
            (32, 8)
        );
        assert!(b.submit(4, &[16, 16], &[1, 1], 256, 2));
        assert_eq!(b.kernel(), 2);
        assert_eq!(b.bytes(), 16 * 32 * 8 + 16 * 16 * 4);
    }
}
