//! The arguments the run-time passes to every generated kernel, first and in this order
//! (thesis §7.2–7.3: the buckets a work-group reads its work from). The kernel's own arguments
//! (parameters, tile sizes, arrays) follow from index [`COUNT`].

/// The type of a run-time argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgType {
    /// `const long *` in device memory.
    Longs,
    /// `const int *` in device memory.
    Ints,
    /// `const long`.
    Long,
}

/// One run-time argument: its name in kernel code, its type, what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuntimeArg {
    pub name: &'static str,
    pub ty: ArgType,
    pub meaning: &'static str,
}

/// Index of the tile bucket: per entry, the tile's coordinates, its full/partial tag and the
/// values of the host loops around the tile walk (`polyc_x<d>`).
pub const TILES: usize = 0;
/// Index of the number of tiles (work-groups) of the launch.
pub const TILE_COUNT: usize = 1;
/// Index of the tile bucket's stride between coordinates.
pub const TILE_STRIDE: usize = 2;
/// Index of the thread bucket's intra-tile coordinates.
pub const THREAD_COORDS: usize = 3;
/// Index of the thread bucket's per-wavefront offsets.
pub const THREAD_OFFSETS: usize = 4;
/// Index of the thread bucket's stride between coordinates.
pub const THREAD_STRIDE: usize = 5;
/// Index of the number of intra-tile wavefronts.
pub const WAVES: usize = 6;
/// How many run-time arguments come first.
pub const COUNT: usize = 7;

/// The run-time arguments, indexed by the constants above.
pub const RUNTIME_ARGS: [RuntimeArg; COUNT] = [
    RuntimeArg {
        name: "polyc_tb",
        ty: ArgType::Longs,
        meaning: "the tile bucket",
    },
    RuntimeArg {
        name: "polyc_tb_n",
        ty: ArgType::Long,
        meaning: "tiles in the bucket",
    },
    RuntimeArg {
        name: "polyc_tb_stride",
        ty: ArgType::Long,
        meaning: "the tile bucket's stride",
    },
    RuntimeArg {
        name: "polyc_th",
        ty: ArgType::Ints,
        meaning: "the thread bucket's coordinates",
    },
    RuntimeArg {
        name: "polyc_th_off",
        ty: ArgType::Ints,
        meaning: "the thread bucket's wavefront offsets",
    },
    RuntimeArg {
        name: "polyc_th_stride",
        ty: ArgType::Long,
        meaning: "the thread bucket's stride",
    },
    RuntimeArg {
        name: "polyc_nwaves",
        ty: ArgType::Long,
        meaning: "intra-tile wavefronts",
    },
];

/// Values per group, then per held wavefront, at the head of a mix's device layout
/// (avelas-rt's `mix` writes it; the mix kernels codegen prints read it at this stride).
pub const MIX_HEAD: usize = 4;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_distinct_and_prefixed() {
        for (i, a) in RUNTIME_ARGS.iter().enumerate() {
            assert!(a.name.starts_with("polyc_"), "{}", a.name);
            assert!(RUNTIME_ARGS[..i].iter().all(|b| b.name != a.name));
        }
        assert_eq!(RUNTIME_ARGS[TILES].ty, ArgType::Longs);
        assert_eq!(RUNTIME_ARGS[WAVES].name, "polyc_nwaves");
    }
}
