//! Code generation (thesis §6.3–6.5): printing transformed SCoPs as target code and splicing
//! it into the user's file.
//!
//! This crate prints all target code except C expressions, which the statement IR prints itself
//! (`rosepolly::model::expr`), and the run-time's configuration parsers, which the C target takes
//! from `avelas-contract`. [`pipeline`] takes a scheduled SCoP to its tile space, [`lower`]s it to the
//! kernel IR ([`ir`]), and prints it: kernels through [`device`], host code through
//! [`host_printer`]; [`driver`] runs that per SCoP and [`mod@splice`] replaces each SCoP's lines of
//! the user's file with the result, keeping everything else as written. [`buffers`] reports the
//! local-memory buffers of each tiled group (`--dump buffers`); [`staging`] prints the kernel
//! versions' moves of them.

pub mod atomics;
pub mod buffers;
pub mod c;
pub mod degraded;
pub mod device;
pub mod driver;
pub mod exits;
pub mod fallback;
pub mod flushes;
pub mod footprint;
pub mod gpu_api;
pub mod gpu_host;
pub mod group_sums;
pub mod host;
pub mod host_printer;
pub mod inner_loops;
pub mod ir;
pub mod jam;
pub mod lanes;
pub mod lower;
pub mod names;
pub mod openmp;
pub mod outline;
pub mod pipeline;
pub mod placement;
pub mod registers;
pub mod splice;
pub mod staging;

pub use driver::{compile, CompileOptions, Output, Target};
pub use splice::{splice, Region, SpliceError};
