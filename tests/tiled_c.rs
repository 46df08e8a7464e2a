//! `polyc --target c` (tiled, C+OpenMP): every kernel, built once, prints the original program's
//! array dumps for many run-time tile sizes (1, primes, mixed, larger than the problem, the
//! one-tile path's 10^9) and thread counts.

mod common;

use common::{check_kernels, Variant};
use polybench::Kernel;

/// The tile-size settings of issue 4, each with 1 and 2 threads; `POLYC_MIN_POINTS=0` makes the
/// programs tile even these small problems (the last two runs keep the default, so small SCoPs
/// run their untiled original order, and ask for the original order whatever the size).
const RUNS: &[&[(&str, &str)]] = &[
    &[
        ("POLYC_TILE_SIZES", "1"),
        ("OMP_NUM_THREADS", "2"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "2"),
        ("OMP_NUM_THREADS", "1"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "2"),
        ("OMP_NUM_THREADS", "2"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "3,5,7"),
        ("OMP_NUM_THREADS", "1"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "3,5,7"),
        ("OMP_NUM_THREADS", "2"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "8"),
        ("OMP_NUM_THREADS", "2"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "16"),
        ("OMP_NUM_THREADS", "1"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "32"),
        ("OMP_NUM_THREADS", "2"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "4,64,16"),
        ("OMP_NUM_THREADS", "1"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "4,64,16"),
        ("OMP_NUM_THREADS", "2"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "1000"),
        ("OMP_NUM_THREADS", "2"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    // The size of the one-tile path (`codegen::c::WHOLE_TILE`), on one thread as it runs.
    &[
        ("POLYC_TILE_SIZES", "1000000000"),
        ("OMP_NUM_THREADS", "1"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[("OMP_NUM_THREADS", "2")],
    // The original order at any size (jammed rows where a loop qualifies, codegen/src/jam.rs).
    &[
        ("OMP_NUM_THREADS", "1"),
        ("POLYC_MIN_POINTS", "1000000000000000"),
    ],
];

fn check_suite(kernels: &[Kernel], tag: &str) {
    let variants = [
        Variant {
            name: "tiled-omp",
            polyc_flags: &["--target", "c"],
            openmp: true,
            runs: RUNS,
            ldflags: vec![],
        },
        Variant {
            name: "tiled-serial",
            polyc_flags: &["--target", "c"],
            openmp: false,
            runs: &[&[("POLYC_TILE_SIZES", "3,5,7"), ("POLYC_MIN_POINTS", "0")]],
            ldflags: vec![],
        },
    ];
    check_kernels(kernels, &["MINI", "SMALL"], &variants, tag);
}

#[test]
fn bundled_suite_tiled_c_matches_original() {
    check_suite(&polybench::kernels(), "tiled-suite");
}

#[test]
fn external_polybench_tiled_c_matches_original() {
    let Some(root) = polybench::external_suite() else {
        println!("skipped: set POLYBENCH_DIR to a PolyBench/C 4.2.1 checkout to run this test");
        return;
    };
    check_suite(&polybench::kernels_in(&root).unwrap(), "tiled-external");
}

/// A tile larger than the problem costs nothing (issue 19, item 7): the tile walk clips each
/// dimension's range to the points' bounding box, so `10^9` along time walks the problem's
/// tiles, not a billion empty ones (this took minutes, then 12 s, before the clipping).
#[test]
fn tiles_far_larger_than_the_problem_cost_nothing() {
    let work = polybench::harness::scratch_dir("huge-tiles");
    let k = polybench::kernel("jacobi-2d").expect("a bundled kernel");
    let build = polybench::harness::Build::new("SMALL", true);
    let reference = polybench::harness::reference_dump(&k, &build, &work).unwrap();
    for (tag, flags) in [("diamond", &[][..]), ("skewed", &["--no-diamond"][..])] {
        let src = work.join(format!("{tag}.c"));
        common::polyc_kernel(&k, &build, flags, &src).unwrap();
        let exe = work.join(tag);
        polybench::harness::compile(&k, &src, &build, &exe).unwrap();
        for sizes in ["1000000000,1", "1,1000000000", "1000000000"] {
            let start = std::time::Instant::now();
            let env = [("POLYC_TILE_SIZES", sizes), ("POLYC_MIN_POINTS", "0")];
            let dump = polybench::harness::run(&exe, &env).unwrap();
            let took = start.elapsed();
            assert_eq!(
                polybench::harness::compare_dumps(&reference, &dump),
                None,
                "{tag} {sizes}"
            );
            // The work is the problem's (milliseconds); the bound only catches a walk that
            // grows with the tile size.
            assert!(took.as_secs() < 5, "{tag} {sizes}: {took:?}");
        }
    }
}
