//! The generated program computes what the original computes, C's semantics included: every
//! program under `tests/inputs/semantics/` (unsigned and narrow integer types, casts, the
//! iterators' values after a SCoP, names the program shares with generated code, conversions
//! the model can only assume) prints, compiled by polyc, what gcc's build of it prints — on the
//! C target at several tile sizes and thread counts, on OpenCL (PoCL), as CUDA compiled to
//! PTX by clang, and as CUDA run by polyc's CUDA emulator.

mod common;

use std::path::{Path, PathBuf};

use polybench::harness::{par_map, scratch_dir};

fn inputs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/semantics");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    v.sort();
    // The full sweep (`scripts/sweep.sh`) adds hostile inputs whose generated code takes gcc
    // minutes: outside CI's sample, not outside the check.
    if common::sweep() {
        let hostile = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/hostile");
        v.push(hostile.join("ast-error-without-message.c"));
    }
    v
}

/// Run environments of the C target: forced tiling at several sizes, 1 and 2 threads, and the
/// default settings.
const C_RUNS: &[&[(&str, &str)]] = &[
    &[],
    &[
        ("POLYC_MIN_POINTS", "0"),
        ("POLYC_TILE_SIZES", "1"),
        ("OMP_NUM_THREADS", "2"),
    ],
    &[
        ("POLYC_MIN_POINTS", "0"),
        ("POLYC_TILE_SIZES", "3,5,7"),
        ("OMP_NUM_THREADS", "1"),
    ],
    &[
        ("POLYC_MIN_POINTS", "0"),
        ("POLYC_TILE_SIZES", "32"),
        ("OMP_NUM_THREADS", "2"),
    ],
];

/// Run environments of the GPU targets; 4 is where differential seeds 5680 and 2910 went wrong.
const GPU_RUNS: &[&[(&str, &str)]] = &[
    &[("POLYC_TILE_SIZES", "1")],
    &[("POLYC_TILE_SIZES", "3,5,7")],
    &[("POLYC_TILE_SIZES", "4")],
];

/// The inputs are small programs that run in milliseconds: a run past this is one that does not
/// end (differential seed 46267's tile walk went over 2^32 tiles, `unsigned-outer-value.c`).
const RUN_LIMIT: u32 = 30;

fn check(input: &Path, work: &Path) -> Vec<String> {
    let name = input.file_stem().unwrap().to_str().unwrap().to_string();
    let reference = work.join(format!("{name}-ref"));
    common::gcc(input, &reference, &[]);
    let expected = match common::run_stdout(&reference, &[]) {
        Ok(o) => o,
        Err(e) => return vec![format!("{name}: original: {e}")],
    };
    let mut failures = Vec::new();
    let compare = |what: &str, exe: &Path, runs: &[&[(&str, &str)]]| -> Vec<String> {
        runs.iter()
            .filter_map(|env| match common::run_stdout_within(exe, env, RUN_LIMIT) {
                Ok(out) if out == expected => None,
                Ok(out) => Some(format!(
                    "{name} {what} {env:?}: output differs\nexpected:\n{expected}\ngot:\n{out}"
                )),
                Err(e) => Some(format!("{name} {what} {env:?}: {e}")),
            })
            .collect()
    };
    // C+OpenMP.
    let c = work.join(format!("{name}-c.c"));
    match common::polyc_to(input, "c", &c) {
        (0, _) => {
            let exe = work.join(format!("{name}-c"));
            common::gcc(&c, &exe, &["-fopenmp".into()]);
            failures.extend(compare("c", &exe, C_RUNS));
        }
        (_, err) => failures.push(format!("{name} c: polyc failed: {err}")),
    }
    // OpenCL on PoCL.
    if common::opencl_present() {
        let cl = work.join(format!("{name}-cl.c"));
        match common::polyc_to(input, "opencl", &cl) {
            (0, _) => {
                let exe = work.join(format!("{name}-cl"));
                let mut flags = common::runtime_ldflags();
                flags.push("-fopenmp".into());
                common::gcc(&cl, &exe, &flags);
                failures.extend(compare("opencl", &exe, GPU_RUNS));
            }
            (_, err) => failures.push(format!("{name} opencl: polyc failed: {err}")),
        }
    }
    // CUDA, to PTX.
    if let Some(clang) = common::clang() {
        let cu = work.join(format!("{name}.cu"));
        match common::polyc_to(input, "cuda", &cu) {
            (0, _) => {
                let ptx = work.join(format!("{name}.ptx"));
                for e in common::cuda_check(&clang, &cu, &[], &ptx) {
                    failures.push(format!("{name} cuda: {e}"));
                }
            }
            (_, err) => failures.push(format!("{name} cuda: polyc failed: {err}")),
        }
    }
    // CUDA, run by the emulator (`polybench::cuda_emu`), threads in both orders.
    if polybench::cuda_emu::available() {
        let cu = work.join(format!("{name}-emu.cu"));
        let exe = work.join(format!("{name}-cuda"));
        match common::polyc_to(input, "cuda", &cu) {
            (0, _) => match common::emulated_cuda(&cu, &exe, work) {
                Ok(env) => {
                    let runs: Vec<Vec<(&str, &str)>> = GPU_RUNS
                        .iter()
                        .chain(&[&[
                            ("POLYC_TILE_SIZES", "3,5,7"),
                            ("POLYC_EMU_ORDER", "reverse"),
                        ][..]])
                        .map(|r| common::with_env(&env, r))
                        .collect();
                    let runs: Vec<&[(&str, &str)]> = runs.iter().map(|r| &r[..]).collect();
                    failures.extend(compare("cuda-emulated", &exe, &runs));
                }
                Err(e) => failures.push(format!("{name} cuda-emulated: {e}")),
            },
            (_, err) => failures.push(format!("{name} cuda: polyc failed: {err}")),
        }
    }
    failures
}

#[test]
fn generated_programs_keep_cs_semantics() {
    if !common::opencl_present() {
        println!("OpenCL part skipped: no OpenCL platform (scripts/setup.sh installs PoCL)");
    }
    if common::clang().is_none() {
        println!("CUDA part skipped: no clang (scripts/setup.sh installs clang-16)");
    }
    if !polybench::cuda_emu::available() {
        println!("emulated CUDA part skipped: no C++ compiler (g++)");
    }
    let work = scratch_dir("semantics");
    let inputs = inputs();
    assert!(inputs.len() >= 8);
    let failures: Vec<String> = par_map(&inputs, |i| check(i, &work))
        .into_iter()
        .flatten()
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
