//! Reductions across tiles (issue 17). On the GPU targets, the groups whose reductions (sums,
//! products, `min`/`max`, bitwise) keep all but one tile dimension sequential run those tiles in parallel, each work-item adding its partial
//! result to the accumulator atomically. Checked here: which suite kernels take that path (and
//! which must not), that `--no-reductions` gives back the original order exactly, and that the
//! CUDA code compiles where `atomicAdd` on `double` exists and where it does not. Every kernel's
//! reassociated sums are compared with the original's dumps in `tests/opencl.rs`, within one
//! unit of their last printed digit (`harness::compare_dumps_reassociated`). On the C target,
//! reductions into scalars whose loops have no other parallelism sum per row of tiles
//! (`TiledGroup::partials`): which take that path, that their result does not depend on the
//! threads, and that it stays within the last digit of the original's.

mod common;

use std::path::Path;

use common::{check_kernels, gcc, opencl_present, polyc, run_stdout, runtime_ldflags, Variant};
use polybench::harness::{compare_dumps_reassociated, scratch_dir, Build};

/// Kernels whose groups sum along a sequential tile dimension beside one parallel dimension.
/// bicg's sums do once the GPU targets' schedule distributes the initialisations of their
/// accumulators, which smart fusion put in the same tiles (`PlutoOptions::sums_across_tiles`).
const SPLIT: &[&str] = &[
    "atax",
    "bicg",
    "mvt",
    "gesummv",
    "gemver",
    "covariance",
    "correlation",
];

/// Kernels that must keep their order: 2mm, gemm and syrk have two parallel tile dimensions
/// already; trisolv and durbin read their sums in the same loop; gramschmidt's sums are inside
/// its sequential `k` loop, whose later iterations would compound their new rounding.
const KEPT: &[&str] = &["2mm", "gemm", "syrk", "trisolv", "durbin", "gramschmidt"];

fn generated(kernel: &str, target: &str, extra: &[&str], dir: &Path) -> String {
    let k = polybench::kernel(kernel).unwrap();
    let out = dir.join(format!("{kernel}-{}.{target}", extra.len()));
    let mut args: Vec<String> = vec![k.source.display().to_string()];
    args.extend(Build::new("SMALL", false).cpp_flags(&k));
    args.extend(["--target".into(), target.into(), "-o".into()]);
    args.push(out.display().to_string());
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, _, err) = polyc(&args);
    assert_eq!(code, 0, "{kernel}: {err}");
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn sums_beside_one_parallel_dimension_add_partial_results_atomically() {
    let dir = scratch_dir("reductions-code");
    for target in ["opencl", "cuda"] {
        for &k in SPLIT.iter().chain(KEPT) {
            let code = generated(k, target, &[], &dir);
            let atomic = code.contains("polyc_atomic_add_double(&");
            assert_eq!(atomic, SPLIT.contains(&k), "{k} {target}");
            let kept = generated(k, target, &["--no-reductions"], &dir);
            assert!(
                !kept.contains("polyc_atomic_add_"),
                "{k} {target} --no-reductions"
            );
        }
    }
}

/// What polyc generates for `tests/inputs/semantics/<input>.c` on `target` with `flags`.
fn semantics_input(input: &str, target: &str, flags: &[&str], dir: &Path) -> String {
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/inputs/semantics/{input}.c"));
    let out = dir.join(format!("{input}-{}.{target}", flags.len()));
    let mut args = vec![src.to_str().unwrap(), "--target", target, "-o"];
    args.push(out.to_str().unwrap());
    args.extend(flags);
    let (code, _, err) = polyc(&args);
    assert_eq!(code, 0, "{input} {target} {flags:?}: {err}");
    std::fs::read_to_string(out).unwrap()
}

/// The accumulators of `tests/inputs/semantics/reductions-across-tiles.c` (whose results that
/// test compares) that take the atomic path, per type, and the updates that must not: a
/// running sum another statement reads, and `h = h * 0.5 + e`.
#[test]
fn every_atomic_type_and_no_ordered_update() {
    let dir = scratch_dir("reductions-input");
    for target in ["opencl", "cuda"] {
        let text = semantics_input("reductions-across-tiles", target, &[], &dir);
        for call in [
            "polyc_atomic_add_double(&y[",
            "polyc_atomic_add_double(&colsum[",
            "polyc_atomic_add_float(&fsum[",
            "polyc_atomic_add_int(&isum[",
            "polyc_atomic_add_long(&lsum[",
        ] {
            assert!(text.contains(call), "{target}: no {call}");
        }
        for kept in ["(&run[", "(&horner["] {
            assert!(
                !text.contains(kept),
                "{target}: {kept} is not a sum to split"
            );
        }
    }
}

/// The accumulators of `tests/inputs/semantics/reductions-other-operators.c` (whose results
/// that test compares): every operator other than `+` takes the atomic path with its own
/// compare-and-swap helper, and only the helpers used are printed.
#[test]
fn other_operators_combine_with_their_own_atomic_helpers() {
    let dir = scratch_dir("reductions-operators");
    let input = "reductions-other-operators";
    for target in ["opencl", "cuda"] {
        let text = semantics_input(input, target, &[], &dir);
        for call in [
            "polyc_atomic_min_double_ties_nans(&dmin[",
            "polyc_atomic_max_double(&dmax[",
            "polyc_atomic_max_double_call(&dfmax[",
            "polyc_atomic_max_double_ties_nans(&dnan[",
            "polyc_atomic_max_double_call(&dfnan[",
            "polyc_atomic_min_float_ties_nans(&fnan[",
            "polyc_atomic_mul_double(&dprod[",
            "polyc_atomic_min_float(&fmin_[",
            "polyc_atomic_max_int(&imax[",
            "polyc_atomic_and_int(&iand[",
            "polyc_atomic_mul_int(&iprod[",
            "polyc_atomic_min_long(&lmin[",
            "polyc_atomic_or_long(&lor[",
            "polyc_atomic_xor_long(&lxor[",
        ] {
            assert!(text.contains(call), "{target}: no {call}");
        }
        assert!(!text.contains("polyc_atomic_add_"), "{target}: no sum here");
        let helper = match target {
            "opencl" => {
                "inline void polyc_atomic_min_double_ties_nans(volatile __global double *p, double v)"
            }
            _ => "void polyc_atomic_min_double_ties_nans(double *p, double v)",
        };
        assert!(text.contains(helper), "{target}: no {helper}");
        let text = semantics_input(input, target, &["--no-reductions"], &dir);
        // (The input's own comment names the helpers: look for calls and definitions.)
        for part in ["polyc_atomic_min_double(&", "void polyc_atomic_"] {
            assert!(!text.contains(part), "{target} --no-reductions: {part}");
        }
    }
}

#[test]
fn cuda_atomics_compile_below_and_above_compute_capability_6() {
    let Some(clang) = common::clang() else {
        println!("skipped: no clang with CUDA support is installed");
        return;
    };
    let dir = scratch_dir("reductions-cuda");
    let code = generated("mvt", "cuda", &[], &dir);
    let cu = dir.join("mvt.cu");
    std::fs::write(&cu, code).unwrap();
    let stub = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cuda/polyc_cuda_stub.h");
    let cpp = Build::new("SMALL", false).cpp_flags(&polybench::kernel("mvt").unwrap());
    for (arch, call) in [("sm_50", "atomicCAS"), ("sm_80", "atomicAdd")] {
        let ptx = dir.join(format!("mvt-{arch}.ptx"));
        let out = std::process::Command::new(&clang)
            .args(["-x", "cuda", "-nocudainc", "-nocudalib", "-include"])
            .arg(&stub)
            .args(&cpp)
            .arg(&cu)
            .arg(format!("--cuda-gpu-arch={arch}"))
            .args(["--cuda-device-only", "-O2", "-S", "-o"])
            .arg(&ptx)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{arch}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(&ptx).unwrap();
        assert!(text.contains(call), "{arch}: no call of {call}");
    }
}

#[test]
fn no_reductions_keeps_the_original_order_exactly() {
    if !opencl_present() {
        println!("skipped: no OpenCL platform is installed (scripts/setup.sh installs PoCL)");
        return;
    }
    let kernels: Vec<_> = SPLIT
        .iter()
        .map(|k| polybench::kernel(k).unwrap())
        .collect();
    let variants = [Variant {
        name: "opencl-no-reductions",
        polyc_flags: &["--target", "opencl", "--no-reductions"],
        openmp: false,
        cflags: &[],
        runs: &[
            &[("POLYC_TILE_SIZES", "3,5,7")],
            &[("POLYC_TILE_SIZES", "16,8,64")],
        ],
        ldflags: runtime_ldflags(),
    }];
    check_kernels(&kernels, &["MINI", "SMALL"], &variants, "reductions-kept");
}

/// `tests/inputs/semantics/reductions-scalar-rows.c` (whose results the semantics test compares
/// exactly: its values add exactly in any order): on the C target every scalar reduction of its
/// first SCoP combines a partial result per row of tiles, the updates of its second SCoP keep
/// their order, and `--no-reductions` keeps every order.
#[test]
fn scalar_reductions_sum_per_row_of_tiles_on_the_c_target() {
    let dir = scratch_dir("reductions-rows");
    let input = "reductions-scalar-rows";
    let text = semantics_input(input, "c", &[], &dir);
    for acc in [
        "dot", "total", "big", "small", "prod", "fdiff", "lsum", "iand", "ior", "ixor", "negzero",
        "cell[1]",
    ] {
        assert!(
            text.contains(&format!("polyc_r++) {acc} = ")),
            "{acc} is not combined from rows"
        );
    }
    for ordered in ["run", "h"] {
        assert!(
            !text.contains(&format!("polyc_r++) {ordered} =")),
            "{ordered} must keep its order"
        );
    }
    assert_eq!(
        text.matches("reassociates=%d").count(),
        1,
        "one SCoP reassociates"
    );
    let kept = semantics_input(input, "c", &["--no-reductions"], &dir);
    assert!(!kept.contains("polyc_part"), "--no-reductions");
}

/// A stand-alone C program of a test: its source in `dir`, the original's output, and builds of
/// it by polyc with the given flags (`-fopenmp`).
struct Program {
    dir: std::path::PathBuf,
    src: std::path::PathBuf,
    expected: String,
}

impl Program {
    fn new(dir: &Path, name: &str, text: &str) -> Program {
        let src = dir.join(format!("{name}.c"));
        std::fs::write(&src, text).unwrap();
        let original = dir.join(format!("{name}-orig"));
        gcc(&src, &original, &[]);
        let expected = run_stdout(&original, &[]).unwrap();
        Program {
            dir: dir.to_path_buf(),
            src,
            expected,
        }
    }

    /// polyc's build of it with `flags`, as executable `exe`.
    fn polyc(&self, flags: &[&str], exe: &str) -> std::path::PathBuf {
        let c = self.dir.join(format!("{exe}.c"));
        let mut args = vec![self.src.to_str().unwrap(), "-o", c.to_str().unwrap()];
        args.extend(flags);
        let (code, _, err) = polyc(&args);
        assert_eq!(code, 0, "{err}");
        let exe = self.dir.join(exe);
        gcc(&c, &exe, &["-fopenmp".into()]);
        exe
    }
}

/// The data of the programs whose sums round: a vector `a` of `N` and a matrix `B` of `M` x `M`,
/// up to the opening of `main` and the arrays' values.
const ROUNDING_DATA: &str = r#"#include <stdio.h>
#define N 20000
#define M 300
static double a[N], B[M][M];
int main(void) {
  for (int i = 0; i < N; i++) a[i] = 1.0 / (1.0 + i % 97);
  for (int i = 0; i < M; i++) for (int j = 0; j < M; j++) B[i][j] = 0.1 * ((i * 7 + j) % 31) - 1.3;
"#;

/// A dot product and a matrix sum whose additions round: the same bits on 1, 2 and 3 threads (the
/// rows combine in their order whatever ran them), within the last printed digit of the
/// original's at other tile sizes, and the original's order exactly with `--no-reductions`.
#[test]
fn row_partials_do_not_depend_on_the_threads() {
    let dir = scratch_dir("reductions-threads");
    let sums = Program::new(
        &dir,
        "sums",
        &(ROUNDING_DATA.to_string()
            + r#"  double s = 0.1, t = -0.3;
#pragma scop
  for (int i = 0; i < N; i++) s += a[i] * a[i];
#pragma endscop
#pragma scop
  for (int i = 0; i < M; i++) for (int j = 0; j < M; j++) t += B[i][j];
#pragma endscop
  printf("%.6f %.6f\n", s, t);
  return 0;
}
"#),
    );
    let expected = &sums.expected;
    let build = |flags: &[&str], exe: &str| sums.polyc(flags, exe);
    let rows = build(&[], "sums-rows");
    for sizes in ["", "1", "7", "1000"] {
        let outputs: Vec<String> = ["1", "2", "3"]
            .iter()
            .map(|threads| {
                let mut env = vec![("POLYC_MIN_POINTS", "0"), ("OMP_NUM_THREADS", *threads)];
                if !sizes.is_empty() {
                    env.push(("POLYC_TILE_SIZES", sizes));
                }
                run_stdout(&rows, &env).unwrap()
            })
            .collect();
        assert!(
            outputs.iter().all(|o| *o == outputs[0]),
            "sizes {sizes:?}: {outputs:?}"
        );
        assert_eq!(
            compare_dumps_reassociated(expected, &outputs[0]),
            None,
            "sizes {sizes:?}"
        );
    }
    let kept = build(&["--no-reductions"], "sums-kept");
    let env = [("POLYC_MIN_POINTS", "0"), ("POLYC_TILE_SIZES", "7")];
    assert_eq!(run_stdout(&kept, &env).unwrap(), *expected);
}

/// With the default settings too: whether the rows run may not depend on the threads. A dot
/// product of 5 million elements (80 MB, past the cache) is one the cost model tiles on one
/// thread for locality, but not on two (too little work to start threads for): its rows would
/// then give one thread other bits than two. Both run the original's lines.
#[test]
fn whether_rows_run_does_not_depend_on_the_threads() {
    let dir = scratch_dir("reductions-plan");
    let dot = Program::new(
        &dir,
        "dot",
        r#"#include <stdio.h>
#define N 5000000
static double a[N], b[N];
int main(void) {
  for (int i = 0; i < N; i++) { a[i] = 1.0 / (1.0 + i % 97); b[i] = 0.1 * (i % 13); }
  double s = 0.0;
#pragma scop
  for (int i = 0; i < N; i++) s += a[i] * b[i];
#pragma endscop
  printf("%.17g\n", s);
  return 0;
}
"#,
    );
    let (expected, exe) = (&dot.expected, dot.polyc(&[], "dot-polyc"));
    for threads in ["1", "2", "3"] {
        let out = run_stdout(&exe, &[("OMP_NUM_THREADS", threads)]).unwrap();
        assert_eq!(out, *expected, "{threads} threads");
    }
}

/// Reductions with no other parallelism on the GPU targets (`TiledGroup::combined`): each
/// work-item sums its points, its work-group combines their partial results in local memory and
/// adds the total once per tile. The SCoP reaches the GPU (no host fallback), its kernels add
/// from work-item 0 only, and on PoCL the sums stay within the last printed digit of the
/// original's (a max exactly) at tile sizes that give work-groups of one work-item, of a
/// remainder, and past the 256 work-items such a kernel may have.
#[test]
fn pure_reductions_run_on_the_gpu_one_atomic_update_per_work_group() {
    let dir = scratch_dir("reductions-groups");
    let program = Program::new(
        &dir,
        "pure",
        &(ROUNDING_DATA.to_string()
            + r#"  double s = 0.1, t = -0.3, big = -1e9;
#pragma scop
  for (int i = 0; i < N; i++) s += a[i] * a[i];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < M; j++) {
      t += B[i][j];
      big = B[i][j] > big ? B[i][j] : big;
    }
#pragma endscop
  printf("%.6f %.6f %.17g\n", s, t, big);
  return 0;
}
"#),
    );
    for target in ["opencl", "cuda"] {
        let code = dir.join(format!("pure.{target}.c"));
        let mut args = vec![program.src.to_str().unwrap(), "--target", target, "-o"];
        args.push(code.to_str().unwrap());
        let (status, _, err) = polyc(&args);
        assert_eq!(status, 0, "{err}");
        assert!(!err.contains("runs on the host"), "{target}: {err}");
        let text = std::fs::read_to_string(&code).unwrap();
        for acc in ["s", "t", "big"] {
            let once = format!("(&{acc}[0], polyc_wr");
            assert!(
                text.contains(&once),
                "{target}: {acc} is not combined per work-group"
            );
        }
        assert!(
            !text.contains("if (polyc_hit"),
            "{target}: an atomic per work-item"
        );
        args.push("--no-reductions");
        let (_, _, err) = polyc(&args);
        assert!(
            err.contains("runs on the host"),
            "{target} --no-reductions: {err}"
        );
    }
    if !opencl_present() {
        println!(
            "skipped running: no OpenCL platform is installed (scripts/setup.sh installs PoCL)"
        );
        return;
    }
    let c = dir.join("pure-run.opencl.c");
    let (status, _, err) = polyc(&[
        program.src.to_str().unwrap(),
        "--target",
        "opencl",
        "-o",
        c.to_str().unwrap(),
    ]);
    assert_eq!(status, 0, "{err}");
    let exe = dir.join("pure-opencl");
    gcc(&c, &exe, &runtime_ldflags());
    let big = program
        .expected
        .split_whitespace()
        .last()
        .unwrap()
        .to_string();
    for sizes in ["1", "7", "300", "1000", "64,5"] {
        let out = run_stdout(&exe, &[("POLYC_TILE_SIZES", sizes)]).unwrap();
        assert_eq!(
            compare_dumps_reassociated(&program.expected, &out),
            None,
            "sizes {sizes}: {out}"
        );
        assert_eq!(
            out.split_whitespace().last(),
            Some(big.as_str()),
            "sizes {sizes}"
        );
    }
}

/// Kernels whose row sums read their matrix along the summed loop: lane groups share each
/// row of a tile (`codegen::lanes`). mvt's two sums, fused, read `A` along and across its rows
/// (a tie: one work-item per row, as before); covariance's and correlation's sums run along
/// the matrix's columns, which the work-items read side by side already.
const LANES: &[&str] = &["atax", "bicg", "gesummv", "gemver"];
const NO_LANES: &[&str] = &["mvt", "covariance", "correlation", "2mm", "trisolv"];

///
/// On by default for CUDA only; OpenCL takes `--lane-groups on` (PoCL, OpenCL on the CPU, ran
/// them slower), and `--lane-groups off` turns them off on CUDA.
#[test]
fn row_sums_share_each_row_among_lane_groups() {
    let dir = scratch_dir("reductions-lanes");
    for (target, flags) in [
        ("opencl", &["--lane-groups", "on"] as &[&str]),
        ("cuda", &[]),
    ] {
        for &k in LANES.iter().chain(NO_LANES) {
            let code = generated(k, target, flags, &dir);
            let lanes = code.contains("lane groups sum each entry's points");
            assert_eq!(lanes, LANES.contains(&k), "{k} {target}");
            if lanes {
                // The summed loop strided by the lanes, and their combination: shuffles on
                // CUDA, a tree in local memory on OpenCL; lane 0 alone adds.
                assert!(code.contains("+ polyc_lane;") || code.contains("+ polyc_lane)"));
                assert!(code.contains("+= 32)"), "{k} {target}: no strided loop");
                let combined = match target {
                    "cuda" => "__shfl_down_sync(0xffffffffu, polyc_acc0, 16)",
                    _ => "__local double polyc_lr0_double[256]",
                };
                assert!(code.contains(combined), "{k} {target}: {combined}");
                assert!(code.contains("(!polyc_tree || polyc_lane == 0)"));
            }
            let kept = generated(k, target, &["--no-reductions"], &dir);
            assert!(!kept.contains("polyc_lane"), "{k} {target} --no-reductions");
        }
    }
    for (target, flags) in [
        ("opencl", &[] as &[&str]),
        ("cuda", &["--lane-groups", "off"]),
    ] {
        let code = generated("atax", target, flags, &dir);
        assert!(
            code.contains("polyc_atomic_add_double(&"),
            "{target} {flags:?}"
        );
        assert!(!code.contains("polyc_lane"), "{target} {flags:?}");
    }
}

/// `tests/inputs/semantics/reductions-lanes.c` (every operator and type of a row reduction,
/// exact in any order; `tests/semantics.rs` runs it at narrow tiles, and as CUDA to PTX with
/// lane groups) on PoCL with `--lane-groups on` and tiles wider
/// than a lane group, where each lane runs several points of a row, and narrower, where most
/// lanes run none: the output equals gcc's build of the original exactly.
#[test]
fn lane_groups_give_exact_reductions_of_every_operator_at_wide_and_narrow_tiles() {
    let dir = scratch_dir("reductions-lanes-run");
    let code = semantics_input("reductions-lanes", "opencl", &["--lane-groups", "on"], &dir);
    assert_eq!(
        code.matches("lane groups sum each entry's points").count(),
        4,
        "two SCoPs, each with its full-tile version, share their rows among lanes"
    );
    if !opencl_present() {
        println!(
            "skipped running: no OpenCL platform is installed (scripts/setup.sh installs PoCL)"
        );
        return;
    }
    let expected = lanes_expected(&dir);
    let c = dir.join("reductions-lanes-2.opencl");
    let exe = dir.join("lanes-opencl");
    let with_c = dir.join("lanes-opencl.c");
    std::fs::copy(&c, &with_c).unwrap();
    gcc(&with_c, &exe, &runtime_ldflags());
    for sizes in LANE_TILES {
        let out = run_stdout(&exe, &[("POLYC_TILE_SIZES", sizes)]).unwrap();
        assert_eq!(out, expected, "sizes {sizes}");
    }
}

/// What gcc's build of `tests/inputs/semantics/reductions-lanes.c` prints (built in `dir`).
fn lanes_expected(dir: &Path) -> String {
    let src =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/semantics/reductions-lanes.c");
    let original = dir.join("lanes-original");
    gcc(&src, &original, &[]);
    run_stdout(&original, &[]).unwrap()
}

/// Tile sizes for lane groups: one point, narrower and wider than a lane group, odd.
const LANE_TILES: [&str; 5] = ["1", "2,33", "8,64", "37,100", "5,75"];

/// The same input as CUDA (lane groups by default there), run by polyc's CUDA emulator: the
/// warp shuffles combine each entry's lanes (the emulator counts them), and the output equals
/// gcc's build exactly, with the threads run in either order.
#[test]
fn emulated_cuda_shuffles_give_exact_reductions_of_every_operator() {
    if !polybench::cuda_emu::available() {
        println!("skipped: no C++ compiler to build the CUDA emulator's programs (g++)");
        return;
    }
    let dir = scratch_dir("reductions-lanes-cuda");
    let code = semantics_input("reductions-lanes", "cuda", &[], &dir);
    assert!(
        code.contains("__shfl_down_sync"),
        "CUDA has lane groups by default"
    );
    let expected = lanes_expected(&dir);
    let cu = dir.join("reductions-lanes.cu");
    std::fs::copy(dir.join("reductions-lanes-0.cuda"), &cu).unwrap();
    let exe = dir.join("lanes-cuda");
    let env = common::emulated_cuda(&cu, &exe, &dir).unwrap();
    for sizes in LANE_TILES {
        for order in ["forward", "reverse"] {
            let run = [
                ("POLYC_TILE_SIZES", sizes),
                ("POLYC_EMU_ORDER", order),
                ("POLYC_EMU_STATS", "1"),
            ];
            let o = std::process::Command::new(&exe)
                .envs(common::with_env(&env, &run))
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success(), "sizes {sizes} {order}: {err}");
            assert_eq!(
                String::from_utf8_lossy(&o.stdout),
                expected,
                "sizes {sizes} {order}"
            );
            let shuffles: u64 = err
                .split("shuffles=")
                .nth(1)
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or_else(|| panic!("no emulator statistics: {err}"));
            assert!(shuffles > 0, "sizes {sizes}: no warp shuffle ran");
        }
    }
}
