//! The contract between the programs polyc generates and their run-time, avelas-rt: one home
//! for what both sides must agree on, so that neither restates it.
//!
//! - [`config`]: the `POLYC_*` variables — names, grammar, limits, defaults, error messages —
//!   and their parser (avelas-rt uses it as it is);
//! - [`c_config`]: the same grammar as C, printed from [`config`]'s constants into programs of
//!   the C+OpenMP target, which do not link avelas-rt;
//! - [`tuning`]: the tuning file (sizes `polyc tune` found per SCoP, keyed by program, SCoP,
//!   target, device and parameters) and its parser; [`c_tuning`] the same reader as C;
//! - [`kernel_args`]: the arguments the run-time passes to every kernel, first, in order;
//! - [`LOCAL_MEM_ALIGN`]: how a kernel version's local-memory buffers are laid out;
//! - [`HEADER`]: avelas-rt's C interface (`include/avelas.h`), which generated GPU programs
//!   declare and avelas-rt's `ffi` implements.
//!
//! The crate depends on nothing: codegen (which prints programs) and avelas-rt (which runs
//! them) both depend on it, and on nothing of each other.

pub mod c_config;
pub mod c_tuning;
pub mod config;
pub mod kernel_args;
pub mod tuning;

/// avelas-rt's C interface, which generated GPU programs declare.
pub const HEADER: &str = include_str!("../include/avelas.h");

/// A kernel version's local memory is one block the launch sizes: per buffer (in rank order)
/// its elements, then, for a buffer the tile writes, one flag byte per element; each part starts
/// at a multiple of this many bytes. avelas-rt's buffer bucket counts it so, codegen's kernels
/// carve it so.
pub const LOCAL_MEM_ALIGN: u64 = 8;

/// The C functions through which generated host code reads its configuration: the tuning
/// file's entry for a SCoP (`int f(int scop, const char *key, const char *params)`: an index,
/// or -1), the size of SCoP `scop`'s tiled dimension `k` given that entry (`long f(int scop,
/// int tuned, int k)`), where those sizes come from (`const char *f(int scop, int tuned)`:
/// `tuned`, `env` or `default`), and the profile and trace switches (`int f(void)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConfigFns {
    pub tuning: &'static str,
    pub tile_size: &'static str,
    pub sizes_from: &'static str,
    pub profile: &'static str,
    pub trace: &'static str,
}

/// The C+OpenMP target's own, defined in every such program ([`c_config`]).
pub const C_TARGET_FNS: ConfigFns = ConfigFns {
    tuning: "polyc_tuning",
    tile_size: "polyc_tile_size",
    sizes_from: "polyc_sizes_from",
    profile: "polyc_profile",
    trace: "polyc_trace",
};

/// avelas-rt's, declared in [`HEADER`].
pub const AVELAS_FNS: ConfigFns = ConfigFns {
    tuning: "avelas_tuning",
    tile_size: "avelas_tile_size",
    sizes_from: "avelas_sizes_from",
    profile: "avelas_profile",
    trace: "avelas_trace",
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_functions_are_declared_and_defined() {
        for (fns, text) in [
            (AVELAS_FNS, HEADER.to_string()),
            (
                C_TARGET_FNS,
                c_config::definitions() + &c_tuning::definitions(),
            ),
        ] {
            for f in [
                fns.tuning,
                fns.tile_size,
                fns.sizes_from,
                fns.profile,
                fns.trace,
            ] {
                let declared = [" ", "*"]
                    .iter()
                    .any(|p| text.contains(&format!("{p}{f}(")));
                assert!(declared, "{f}");
            }
        }
    }
}
