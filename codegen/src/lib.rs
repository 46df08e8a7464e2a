//! Code generation (thesis §6.3–6.5): printing transformed SCoPs as target code and splicing
//! it into the user's file.
//!
//! **Only this crate prints target code.** [`c`] prints a recovered loop program
//! ([`rosepolly::syntax::Node`]) as C with OpenMP pragmas; [`mod@splice`] replaces each SCoP's lines
//! of the user's file with the generated code and keeps everything else as written.

pub mod c;
pub mod device;
pub mod driver;
pub mod exits;
pub mod fallback;
pub mod footprint;
pub mod gpu_api;
pub mod gpu_host;
pub mod host;
pub mod host_printer;
pub mod ir;
pub mod lower;
pub mod names;
pub mod openmp;
pub mod pipeline;
pub mod splice;

pub use driver::{compile, CompileOptions, Output, Target};
pub use splice::{splice, Region, SpliceError};
