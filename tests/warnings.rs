//! Generated code compiles without warnings under `-Wall -Wextra` (issue 18): every suite
//! kernel on the C and OpenCL targets with gcc, and as CUDA (host and device code) with clang.

mod common;

use std::process::Command;

use polybench::harness::{par_map, scratch_dir, Build};
use polybench::Kernel;

fn warnings(out: std::process::Output, what: &str) -> Option<String> {
    let err = String::from_utf8_lossy(&out.stderr);
    (!out.status.success() || err.contains("warning")).then(|| format!("{what}:\n{err}"))
}

fn check(k: &Kernel, work: &std::path::Path, clang: Option<&str>) -> Vec<String> {
    let build = Build::new("SMALL", true);
    let flags = build.cpp_flags(k);
    let mut failures = Vec::new();
    for target in ["c", "opencl", "cuda"] {
        if target == "cuda" && clang.is_none() {
            continue;
        }
        let ext = if target == "cuda" { "cu" } else { "c" };
        let out = work.join(format!("{}-{target}.{ext}", k.name));
        if let Err(e) = common::polyc_kernel(k, &build, &["--target", target], &out) {
            failures.push(e);
            continue;
        }
        let runs: Vec<(String, Command)> = if target == "cuda" {
            let stub = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/cuda/polyc_cuda_stub.h");
            ["--cuda-host-only", "--cuda-device-only"]
                .iter()
                .map(|side| {
                    let mut c = Command::new(clang.unwrap());
                    c.args([
                        "-x",
                        "cuda",
                        "-nocudainc",
                        "-nocudalib",
                        "--cuda-gpu-arch=sm_80",
                    ])
                    .args(["-Wall", "-Wextra", "-fsyntax-only", side, "-include"])
                    .arg(&stub)
                    .args(&flags)
                    .arg(&out);
                    (format!("{} cuda {side}", k.name), c)
                })
                .collect()
        } else {
            let mut c = Command::new("gcc");
            c.args(["-c", "-Wall", "-Wextra", "-fopenmp", "-o", "/dev/null"])
                .args(&flags)
                .arg(&out);
            vec![(format!("{} {target}", k.name), c)]
        };
        for (what, mut cmd) in runs {
            if let Some(w) = warnings(cmd.output().unwrap(), &what) {
                failures.push(w);
            }
        }
    }
    failures
}

#[test]
fn generated_code_has_no_warnings_under_wall_wextra() {
    let clang = common::clang();
    if clang.is_none() {
        println!("CUDA part skipped: no clang (scripts/setup.sh installs clang-16)");
    }
    let work = scratch_dir("warnings");
    let kernels = polybench::kernels();
    let failures: Vec<String> = par_map(&kernels, |k| check(k, &work, clang.as_deref()))
        .into_iter()
        .flatten()
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
