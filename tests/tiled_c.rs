//! `polyc --target c` (tiled, C+OpenMP): every kernel, built once, prints the original program's
//! array dumps for many run-time tile sizes (1, primes, mixed, larger than the problem, the
//! one-tile path's 10^9) and thread counts.

mod common;

use common::{check_kernels, Variant};
use polybench::Kernel;

/// The tile-size settings of issue 4, each with 1 and 2 threads (one with 5); `POLYC_MIN_POINTS=0` makes the
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
    // More threads than cores, and many tiles a step: a wavefront's columns wait for their
    // neighbours alone (`codegen::host::unit_sync`), and threads that run on past a
    // descheduled one would read what it has not yet written were a wait missing (lu and
    // seidel-2d at SMALL differed without them).
    &[
        ("POLYC_TILE_SIZES", "2"),
        ("OMP_NUM_THREADS", "5"),
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
            cflags: &[],
            runs: RUNS,
            ldflags: vec![],
        },
        // Loops marked `POLYC_IVDEP` vectorise at -O3 (deriche's tiles did not before the
        // mark); the original still builds at -O2, and without contraction or reassociation
        // the two orders of evaluation are the same.
        Variant {
            name: "tiled-vectorised",
            polyc_flags: &["--target", "c"],
            openmp: true,
            cflags: &["-O3", "-march=native"],
            runs: &[
                &[("POLYC_TILE_SIZES", "3,5,7"), ("POLYC_MIN_POINTS", "0")],
                &[
                    ("POLYC_TILE_SIZES", "32"),
                    ("OMP_NUM_THREADS", "1"),
                    ("POLYC_MIN_POINTS", "0"),
                ],
                &[("OMP_NUM_THREADS", "2")],
            ],
            ldflags: vec![],
        },
        Variant {
            name: "tiled-serial",
            polyc_flags: &["--target", "c"],
            openmp: false,
            cflags: &[],
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

/// `POLYC_IVDEP` marks innermost loops that no dependence crosses, and no others: a recurrence
/// along the only loop gets none; rows of a triangle, scaled independently, get marks in the
/// tiles' code (their partial tiles' bounds hold `polyc_min`, whose marks gcc ignored with a
/// warning before the bound moved into the loop's initialisation).
#[test]
fn vector_marks_only_independent_loops() {
    let work = polybench::harness::scratch_dir("vector-marks");
    let programs = [
        (
            "recurrence",
            "int i;\n#pragma scop\n  for (i = 1; i < n; i++)\n    A[i] = A[i - 1] * 0.5 + B[i];",
            false,
        ),
        (
            "triangle",
            "int i, j;\n#pragma scop\n  for (i = 0; i < n; i++)\n    for (j = 0; j <= i; j++)\n      C[i][j] = C[i][j] * 2.0 + B[j];",
            true,
        ),
    ];
    for (name, body, marked) in programs {
        let src = work.join(format!("{name}.c"));
        let text = format!(
            "void f(int n, double A[n], double B[n], double C[n][n]) {{\n  {body}\n#pragma endscop\n}}\n"
        );
        std::fs::write(&src, text).unwrap();
        let out = work.join(format!("{name}-polyc.c"));
        let (code, err) = common::polyc_to(&src, "c", &out);
        assert_eq!(code, 0, "{name}: {err}");
        let generated = std::fs::read_to_string(&out).unwrap();
        let marks = generated
            .lines()
            .filter(|l| l.trim() == "POLYC_IVDEP")
            .count();
        assert_eq!(marks > 0, marked, "{name}: {marks} marks");
        common::succeeded(
            std::process::Command::new(polybench::harness::cc())
                .args(["-O3", "-march=native", "-fopenmp", "-Wall", "-Werror", "-c"])
                .arg(&out)
                .arg("-o")
                .arg(work.join(format!("{name}.o")))
                .output()
                .unwrap(),
        );
    }
}

/// Each group takes the parallelism of its own statements' loops (`Schedule::loop_parallel`):
/// gramschmidt's column sums and updates run their tiles as parallel loops beside its norm's
/// reduction, which keeps its wavefronts. Inside the host's `k` loop a group whose outermost
/// tile loop is too short to share runs without entering a parallel region (an `if` clause
/// that fails still calls into the OpenMP run-time); gemm's group, outside any host loop, has
/// the one `parallel for` alone.
#[test]
fn groups_take_their_own_parallelism_and_run_short_loops_outside_regions() {
    let work = polybench::harness::scratch_dir("group-parallelism");
    let build = polybench::harness::Build::new("MINI", true);
    let text = |name: &str| {
        let k = polybench::kernel(name).expect("a bundled kernel");
        let out = work.join(format!("{name}.c"));
        common::polyc_kernel(&k, &build, &["--target", "c"], &out).unwrap();
        std::fs::read_to_string(&out).unwrap()
    };
    let guard = "if (polyc_hi - polyc_lo + 1 < polyc_min_parallel()) {";
    let gramschmidt = text("gramschmidt");
    let mode = |stmt: &str| {
        let head = format!("[\"{stmt}\"], 2 tiled dimension(s), ");
        let at = gramschmidt.find(&head).unwrap_or_else(|| panic!("{stmt}"));
        let rest = &gramschmidt[at + head.len()..];
        rest[..rest.find(' ').unwrap()].to_string()
    };
    assert_eq!(mode("S5"), "Parallel");
    assert_eq!(mode("S6"), "Parallel");
    assert_eq!(mode("S1"), "Wavefront");
    let s6 = &gramschmidt[gramschmidt.find("[\"S6\"]").unwrap()..];
    let s6 = &s6[..s6.find("/* group").unwrap_or(s6.len())];
    assert!(s6.contains(guard), "{s6}");
    assert!(s6.contains("#pragma omp parallel for"), "{s6}");
    let gemm = text("gemm");
    assert!(gemm.contains("#pragma omp parallel for"));
    assert!(!gemm.contains(guard));
}
