//! The contract between the programs polyc generates and their run-time, avelas-rt: one home
//! for what both sides must agree on, so that neither restates it.
//!
//! - [`config`]: the `POLYC_*` variables — names, grammar, limits, defaults, error messages —
//!   and their parser (avelas-rt uses it as it is);
//! - [`c_config`]: the same grammar as C, printed from [`config`]'s constants into programs of
//!   the C+OpenMP target, which do not link avelas-rt;
//! - [`kernel_args`]: the arguments the run-time passes to every kernel, first, in order;
//! - [`HEADER`]: avelas-rt's C interface (`include/avelas.h`), which generated GPU programs
//!   declare and avelas-rt's `ffi` implements.
//!
//! The crate depends on nothing: codegen (which prints programs) and avelas-rt (which runs
//! them) both depend on it, and on nothing of each other.

pub mod c_config;
pub mod config;
pub mod kernel_args;

/// avelas-rt's C interface, which generated GPU programs declare.
pub const HEADER: &str = include_str!("../include/avelas.h");
