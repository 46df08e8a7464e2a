//! `polyc -o FILE.cu` without a GPU (issue 6's CI check): for every kernel of the suite the
//! generated CUDA compiles to PTX with clang (device code), and its host code passes clang's
//! syntax check, against the small CUDA stand-in header `tests/cuda/polyc_cuda_stub.h`.
//! Every kernel has a GPU kernel: none runs on the host for want of parallelism.
//! The run on a GPU is `scripts/gpu-check.sh`, through the device machine.

mod common;

use std::path::Path;

use polybench::harness::{par_map, scratch_dir, Build};
use polybench::Kernel;

fn check(clang: &str, k: &Kernel, dataset: &str, work: &Path) -> Vec<String> {
    let build = Build::new(dataset, false);
    let cu = work.join(format!("{}-{dataset}.cu", k.name));
    let err = match common::polyc_kernel(k, &build, &[], &cu) {
        Ok(err) => err,
        Err(e) => return vec![e],
    };
    let ptx = work.join(format!("{}-{dataset}.ptx", k.name));
    let mut failures: Vec<String> = common::cuda_check(clang, &cu, &build.cpp_flags(k), &ptx)
        .into_iter()
        .map(|e| format!("{} {dataset}: {e}", k.name))
        .collect();
    // Every suite kernel reaches the GPU (issue 17): none falls back to the host.
    if err.contains("runs on the host") {
        failures.push(format!("{} {dataset}: runs on the host: {err}", k.name));
    }
    if failures.is_empty() {
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
    let Some(clang) = common::clang() else {
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
