//! What the end-to-end tests share: running polyc, and checking a transformed PolyBench program
//! against the original one.

#![allow(dead_code)] // each test binary uses a part

use polybench::harness::{self, Build};
use polybench::Kernel;
use std::path::Path;
use std::process::Command;

/// Build a stand-alone C program (not PolyBench-form) with gcc, as the tests build originals.
pub fn gcc(src: &Path, exe: &Path, extra: &[String]) {
    let out = Command::new("gcc")
        .args(["-O2", "-ffp-contract=off"])
        .arg(src)
        .arg("-o")
        .arg(exe)
        .args(extra)
        .arg("-lm")
        .output()
        .unwrap();
    succeeded(out);
}

/// `out`, after failing the test with its stderr unless the command succeeded.
pub fn succeeded(out: std::process::Output) -> std::process::Output {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Whether `POLYC_SWEEP=1` asks for the long sweeps (`scripts/sweep.sh`): every run setting at
/// every dataset, where CI runs a fixed sample at the larger one.
pub fn sweep() -> bool {
    std::env::var("POLYC_SWEEP").is_ok_and(|v| v == "1")
}

/// Is an OpenCL platform installed? (setup.sh installs PoCL; a machine without one skips.)
pub fn opencl_present() -> bool {
    let dir = std::env::var_os("OCL_ICD_VENDORS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/etc/OpenCL/vendors".into());
    std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some())
}

/// Compile `src` with polyc for `target` into `out`; (exit status, stderr).
pub fn polyc_to(src: &Path, target: &str, out: &Path) -> (i32, String) {
    let (code, _, err) = polyc(&[
        src.to_str().unwrap(),
        "--target",
        target,
        "-o",
        out.to_str().unwrap(),
    ]);
    (code, err)
}

/// Run polyc; (exit status, stdout, stderr).
pub fn polyc(args: &[&str]) -> (i32, String, String) {
    let r = Command::new(env!("CARGO_BIN_EXE_polyc"))
        .args(args)
        .output()
        .expect("polyc runs");
    (
        r.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&r.stdout).into(),
        String::from_utf8_lossy(&r.stderr).into(),
    )
}

/// Compile kernel `k` with polyc (`flags` after the kernel's preprocessor flags for `build`)
/// into `out`; polyc's stderr (warnings), or why it failed.
pub fn polyc_kernel(
    k: &Kernel,
    build: &Build,
    flags: &[&str],
    out: &Path,
) -> Result<String, String> {
    let mut args: Vec<String> = vec![k.source.display().to_string()];
    args.extend(build.cpp_flags(k));
    args.extend(flags.iter().map(|s| s.to_string()));
    args.extend(["-o".into(), out.display().to_string()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match polyc(&args) {
        (0, _, err) => Ok(err),
        (_, _, err) => Err(format!("{} {}: polyc failed: {err}", k.name, build.dataset)),
    }
}

/// One variant of a transformed program to check: the polyc flags, whether to build it with
/// OpenMP, and the environments to run it under.
pub struct Variant<'a> {
    pub name: &'a str,
    pub polyc_flags: &'a [&'a str],
    pub openmp: bool,
    /// C compiler flags of the generated program in place of `-O2` (empty: `-O2`).
    pub cflags: &'a [&'a str],
    pub runs: &'a [&'a [(&'a str, &'a str)]],
    /// Link flags (libraries) of the generated program.
    pub ldflags: Vec<String>,
}

/// The directory of avelas-rt's shared library next to the polyc under test (cargo leaves it
/// in `deps/` when it builds it as a dependency of the tests).
pub fn runtime_dir() -> std::path::PathBuf {
    let bin = Path::new(env!("CARGO_BIN_EXE_polyc"))
        .parent()
        .expect("polyc is in a directory")
        .to_path_buf();
    // The newest copy, as polyc chooses (src/build.rs).
    [bin.clone(), bin.join("deps")]
        .into_iter()
        .filter_map(|d| {
            let t = std::fs::metadata(d.join("libavelas_rt.so"))
                .ok()?
                .modified()
                .ok()?;
            Some((t, d))
        })
        .max_by_key(|(t, _)| *t)
        .map(|(_, d)| d)
        .expect("cargo builds libavelas_rt.so for the tests (avelas-rt is a dependency)")
}

/// Link flags of programs that use avelas-rt.
pub fn runtime_ldflags() -> Vec<String> {
    let d = runtime_dir().display().to_string();
    vec![
        format!("-L{d}"),
        "-lavelas_rt".into(),
        format!("-Wl,-rpath,{d}"),
        // RPATH, not RUNPATH: cargo's LD_LIBRARY_PATH for tests names target/debug first,
        // where an older libavelas_rt.so may lie; the one chosen here must win.
        "-Wl,--disable-new-dtags".into(),
    ]
}

/// Compile `k` with polyc under each variant at `dataset`, build with gcc, run, and compare the
/// dumps with the original program's. A CUDA variant is built with g++ for polyc's CUDA
/// emulator and runs on it (`polybench::cuda_emu`, its stand-in driver in `work`). Returns one
/// line per failure.
pub fn check_kernel(k: &Kernel, dataset: &str, variants: &[Variant], work: &Path) -> Vec<String> {
    let reference = match harness::reference_dump(k, &Build::new(dataset, false), work) {
        Ok(d) => d,
        Err(e) => return vec![format!("{} {dataset}: original: {e}", k.name)],
    };
    let mut failures = Vec::new();
    for v in variants {
        let tag = format!("{}-{dataset}-{}", k.name, v.name);
        let cuda = targets_cuda(v.polyc_flags);
        let out = work.join(format!("{tag}.{}", if cuda { "cu" } else { "c" }));
        let mut build = Build::new(dataset, v.openmp);
        build.ldflags = v.ldflags.clone();
        if !v.cflags.is_empty() {
            build.cflags = v.cflags.iter().map(|f| f.to_string()).collect();
        }
        if let Err(e) = polyc_kernel(k, &build, v.polyc_flags, &out) {
            failures.push(format!("{tag}: {e}"));
            continue;
        }
        let exe = work.join(&tag);
        let built = match cuda {
            true => polybench::cuda_emu::driver(&work.join("cuda-driver"))
                .map(|d| polybench::cuda_emu::env(&d))
                .and_then(|env| {
                    polybench::cuda_emu::compile_kernel(k, &out, &build, &exe).map(|_| env)
                }),
            false => harness::compile(k, &out, &build, &exe).map(|_| Vec::new()),
        };
        let base = match built {
            Ok(env) => env,
            Err(e) => {
                failures.push(format!("{tag}: {e}"));
                continue;
            }
        };
        for env in v.runs {
            match harness::run(&exe, &with_env(&base, env)) {
                Err(e) => failures.push(format!("{tag} {env:?}: {e}")),
                Ok(dump) => {
                    let diff = match reassociates(v.polyc_flags) {
                        true => harness::compare_dumps_reassociated(&reference, &dump),
                        false => harness::compare_dumps(&reference, &dump),
                    };
                    if let Some(diff) = diff {
                        failures.push(format!("{tag} {env:?}: {diff}"));
                    }
                }
            }
        }
    }
    failures
}

/// Whether `flags` ask polyc for the CUDA target.
pub fn targets_cuda(flags: &[&str]) -> bool {
    flags.windows(2).any(|w| w == ["--target", "cuda"])
}

/// Whether polyc under `flags` may add a sum's terms in another order than the original (a
/// GPU target with its reductions across tiles): its dumps are compared with
/// [`harness::compare_dumps_reassociated`].
pub fn reassociates(flags: &[&str]) -> bool {
    let gpu = flags.windows(2).any(|w| w[0] == "--target" && w[1] != "c");
    gpu && !flags.contains(&"--no-reductions")
}

/// [`check_kernel`] on every kernel × dataset (in parallel, one job per pair); fails the test
/// with every failure listed.
pub fn check_kernels(kernels: &[Kernel], datasets: &[&str], variants: &[Variant], tag: &str) {
    let work = harness::scratch_dir(tag);
    let jobs: Vec<(&Kernel, &str)> = kernels
        .iter()
        .flat_map(|k| datasets.iter().map(move |d| (k, *d)))
        .collect();
    let failures: Vec<String> =
        harness::par_map(&jobs, |(k, d)| check_kernel(k, d, variants, &work))
            .into_iter()
            .flatten()
            .collect();
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Build the generated stand-alone `cu` (not PolyBench-form) for the CUDA emulator into `exe`,
/// against avelas-rt; the environment its runs need (the stand-in driver, built in `work`).
/// At -O0: g++ takes 4x as long at -O2 (adi's CUDA: 16.6 s against 3.8 s), and the tests'
/// programs run in milliseconds either way.
pub fn emulated_cuda(cu: &Path, exe: &Path, work: &Path) -> Result<Vec<(String, String)>, String> {
    let driver = polybench::cuda_emu::driver(&work.join("cuda-driver"))?;
    polybench::cuda_emu::compile(cu, &["-O0".into()], &[], &runtime_ldflags(), exe)?;
    Ok(polybench::cuda_emu::env(&driver))
}

/// `base` with `extra` added, as `run_stdout` takes an environment.
pub fn with_env<'a>(
    base: &'a [(String, String)],
    extra: &[(&'a str, &'a str)],
) -> Vec<(&'a str, &'a str)> {
    base.iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .chain(extra.iter().copied())
        .collect()
}

/// A clang that compiles CUDA without the toolkit, if one is installed.
pub fn clang() -> Option<String> {
    ["clang-16", "clang-15", "clang"]
        .into_iter()
        .find(|c| {
            Command::new(c)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .map(String::from)
}

/// Check a generated `.cu` without a GPU: its device code compiles to PTX (written to `ptx`)
/// and its host code passes clang's syntax check against `tests/cuda/polyc_cuda_stub.h`.
/// One line per failure.
pub fn cuda_check(clang: &str, cu: &Path, cpp_flags: &[String], ptx: &Path) -> Vec<String> {
    let stub = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cuda/polyc_cuda_stub.h");
    let common_flags = |c: &mut Command| {
        c.args(["-x", "cuda", "-nocudainc", "-nocudalib", "-include"])
            .arg(&stub)
            .args(cpp_flags)
            .arg(cu);
    };
    let mut device = Command::new(clang);
    device.args(["--cuda-gpu-arch=sm_80", "--cuda-device-only", "-O2", "-S"]);
    common_flags(&mut device);
    device.arg("-o").arg(ptx);
    let mut host = Command::new(clang);
    host.args(["--cuda-host-only", "-fsyntax-only"]);
    common_flags(&mut host);
    let mut failures = Vec::new();
    for (what, mut cmd) in [("device code to PTX", device), ("host code syntax", host)] {
        match cmd.output() {
            Ok(o) if o.status.success() => {}
            Ok(o) => failures.push(format!(
                "{what}: {}",
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .take(8)
                    .collect::<Vec<_>>()
                    .join("\n")
            )),
            Err(e) => failures.push(format!("cannot run {clang}: {e}")),
        }
    }
    failures
}

/// How long a generated program of the tests may run: the slowest (a suite kernel at its
/// default size under forced tiling) takes seconds, so a run past this is a program that does
/// not end (issue 19, item 7: differential seed 46267's tile walk over 2^32 tiles).
pub const RUN_LIMIT_SECONDS: u32 = 300;

/// Run `exe` with `env`; its stdout, or why it failed (a run past [`RUN_LIMIT_SECONDS`] fails).
pub fn run_stdout(exe: &Path, env: &[(&str, &str)]) -> Result<String, String> {
    run_stdout_within(exe, env, RUN_LIMIT_SECONDS)
}

/// [`run_stdout`] with a limit of `seconds` (coreutils' `timeout` kills the program).
pub fn run_stdout_within(exe: &Path, env: &[(&str, &str)], seconds: u32) -> Result<String, String> {
    let out = Command::new("timeout")
        .args(["-k", "5", &seconds.to_string()])
        .arg(exe)
        .envs(env.iter().copied())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if out.status.code() == Some(124) {
        return Err(format!("{} ran past {seconds} s", exe.display()));
    }
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{} failed ({}): {}",
            exe.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// `kernel` built by polyc at `dataset`, checked against the original's dumps on two
/// threads: its profile line (`POLYC_PROFILE=1`) with `env` besides, the program, and the
/// directory that holds it (removed when dropped).
pub fn checked_profile(
    kernel: &str,
    dataset: &str,
    env: &[(&str, &str)],
) -> (String, std::path::PathBuf, harness::Scratch) {
    let work = harness::scratch_dir(&format!("checked-{kernel}"));
    let k = polybench::kernel(kernel).expect("a bundled kernel");
    let build = Build::new(dataset, true);
    let reference = harness::reference_dump(&k, &build, &work).unwrap();
    let src = work.join(format!("{kernel}.c"));
    polyc_kernel(&k, &build, &["--target", "c"], &src).unwrap();
    let exe = work.join(kernel);
    harness::compile(&k, &src, &build, &exe).unwrap();
    let dump = harness::run(&exe, &[("OMP_NUM_THREADS", "2")]).unwrap();
    assert_eq!(harness::compare_dumps(&reference, &dump), None);
    let mut all = vec![("POLYC_PROFILE", "1")];
    all.extend_from_slice(env);
    let profile = harness::run(&exe, &all).unwrap();
    let line = profile
        .lines()
        .find(|l| l.starts_with("polyc: scop=0"))
        .expect("a profile line")
        .to_string();
    (line, exe, work)
}
