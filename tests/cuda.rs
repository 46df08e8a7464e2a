//! `polyc -o FILE.cu` without a GPU (issue 6's CI check): for every kernel of the suite the
//! generated CUDA compiles to PTX with clang (device code), and its host code passes clang's
//! syntax check, against the small CUDA stand-in header `tests/cuda/polyc_cuda_stub.h`.
//! The run on a GPU is `scripts/gpu-check.sh`, through the device machine.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use polybench::harness::{par_map, scratch_dir, Build};
use polybench::Kernel;

fn clang() -> Option<String> {
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

fn stub() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/cuda/polyc_cuda_stub.h")
}

fn check(clang: &str, k: &Kernel, dataset: &str, work: &Path) -> Vec<String> {
    let build = Build::new(dataset, false);
    let cu = work.join(format!("{}-{dataset}.cu", k.name));
    let err = match common::polyc_kernel(k, &build, &[], &cu) {
        Ok(err) => err,
        Err(e) => return vec![e],
    };
    let common_flags = |c: &mut Command| {
        c.args(["-x", "cuda", "-nocudainc", "-nocudalib", "-include"])
            .arg(stub())
            .args(build.cpp_flags(k))
            .arg(&cu);
    };
    let mut failures = Vec::new();
    let ptx = work.join(format!("{}-{dataset}.ptx", k.name));
    let mut device = Command::new(clang);
    device.args(["--cuda-gpu-arch=sm_80", "--cuda-device-only", "-O2", "-S"]);
    common_flags(&mut device);
    device.arg("-o").arg(&ptx);
    let mut host = Command::new(clang);
    host.args(["--cuda-host-only", "-fsyntax-only"]);
    common_flags(&mut host);
    for (what, mut cmd) in [("device code to PTX", device), ("host code syntax", host)] {
        match cmd.output() {
            Ok(o) if o.status.success() => {}
            Ok(o) => failures.push(format!(
                "{} {dataset}: {what}: {}",
                k.name,
                String::from_utf8_lossy(&o.stderr)
                    .lines()
                    .take(8)
                    .collect::<Vec<_>>()
                    .join("\n")
            )),
            Err(e) => failures.push(format!("{}: cannot run {clang}: {e}", k.name)),
        }
    }
    // A SCoP without parallelism a GPU can use runs on the host, and polyc says so.
    if failures.is_empty() && !err.contains("runs on the host") {
        let text = std::fs::read_to_string(&ptx).unwrap_or_default();
        if !text.contains(".entry polyc_k") {
            failures.push(format!(
                "{} {dataset}: the PTX holds no kernel entry",
                k.name
            ));
        }
    }
    failures
}

#[test]
fn generated_cuda_compiles_to_ptx_and_its_host_code_is_well_formed() {
    let Some(clang) = clang() else {
        println!("skipped: no clang to check CUDA with (scripts/setup.sh installs clang-16)");
        return;
    };
    let work = scratch_dir("cuda-ptx");
    let kernels = polybench::kernels();
    let jobs: Vec<(&Kernel, &str)> = kernels.iter().map(|k| (k, "SMALL")).collect();
    let failures: Vec<String> = par_map(&jobs, |(k, d)| check(&clang, k, d, &work))
        .into_iter()
        .flatten()
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
