//! Avelas, the run-time of polyc's generated programs (thesis Chapter 7).
//!
//! GPUs run rectangular grids; the tiles of a wavefront and the points of an intra-tile
//! wavefront are not rectangular. The host therefore fills *buckets* and the device code reads
//! its work from them, so the mapping can change at run time without recompiling:
//!
//! - [`tile_bucket`]: the tiles of one launch, one per work-group, tagged full or partial;
//! - [`thread_bucket`]: the intra-tile points of a work-group's work-items, rectangular or by
//!   intra-tile wavefront, padded to the hardware's granularity with idle entries;
//! - [`mix`]: the small wavefronts of the groups of one host loop, launched together;
//! - [`buffer_bucket`]: the local-memory buffers of a launch and the kernel version that uses
//!   them (Algorithm 6);
//! - [`ndrange`]: launches as 1-D or 2-D grids within the device's limits.
//!
//! [`config`] reads and validates the `POLYC_*` variables (the grammar is `avelas-contract`'s,
//! shared with the programs of the C target). [`opencl`] (through `ocl`) and
//! [`cuda`] (through `cudarc`, the driver loaded at run time) are the only code of polyc that
//! talks to a device. [`ffi`] is the C interface generated programs link against
//! (`avelas-contract/include/avelas.h`).

pub mod buffer_bucket;
/// The `POLYC_*` variables, as the run-time contract states them.
pub use avelas_contract::config;
pub mod cuda;
pub mod ffi;
pub mod mix;
pub mod ndrange;
pub mod opencl;
pub mod thread_bucket;
pub mod tile_bucket;

/// A run-time failure, with the message the program prints before it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RtError(pub String);

impl std::fmt::Display for RtError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RtError {}

/// The C header of [`ffi`], which generated programs declare (the run-time contract's).
pub use avelas_contract::HEADER;
