//! `polyc --target opencl`: every kernel, built once against avelas-rt, run on the machine's
//! OpenCL device (PoCL on the CPU in CI), prints the original program's array dumps for tile
//! sizes of one, odd mixes, sizes larger than the problem, and with every tile run by
//! intra-tile wavefronts.

mod common;

use common::{check_kernels, runtime_ldflags, Variant};
use polybench::Kernel;

const RUNS: &[&[(&str, &str)]] = &[
    &[("POLYC_TILE_SIZES", "1")],
    &[("POLYC_TILE_SIZES", "3,5,7")],
    &[("POLYC_TILE_SIZES", "4,64,16")],
    &[("POLYC_TILE_SIZES", "8")],
    &[("POLYC_TILE_SIZES", "1000")],
];

const WAVEFRONT_RUNS: &[&[(&str, &str)]] = &[
    &[("POLYC_TILE_SIZES", "3,5,7")],
    &[("POLYC_TILE_SIZES", "16,8,4")],
];

/// Is an OpenCL platform installed? (setup.sh installs PoCL; a machine without one skips.)
fn opencl_present() -> bool {
    let dir = std::env::var_os("OCL_ICD_VENDORS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| "/etc/OpenCL/vendors".into());
    std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some())
}

fn check_suite(kernels: &[Kernel], tag: &str) {
    let variants = [
        Variant {
            name: "opencl",
            polyc_flags: &["--target", "opencl"],
            openmp: false,
            runs: RUNS,
            ldflags: runtime_ldflags(),
        },
        Variant {
            name: "opencl-wavefront",
            polyc_flags: &["--target", "opencl", "--intra-wavefront"],
            openmp: false,
            runs: WAVEFRONT_RUNS,
            ldflags: runtime_ldflags(),
        },
    ];
    check_kernels(kernels, &["MINI", "SMALL"], &variants, tag);
}

#[test]
fn bundled_suite_opencl_matches_original() {
    if !opencl_present() {
        println!("skipped: no OpenCL platform is installed (scripts/setup.sh installs PoCL)");
        return;
    }
    check_suite(&polybench::kernels(), "opencl-suite");
}

#[test]
fn external_polybench_opencl_matches_original() {
    let Some(root) = polybench::external_suite() else {
        println!("skipped: set POLYBENCH_DIR to a PolyBench/C 4.2.1 checkout to run this test");
        return;
    };
    if !opencl_present() {
        println!("skipped: no OpenCL platform is installed (scripts/setup.sh installs PoCL)");
        return;
    }
    check_suite(&polybench::kernels_in(&root).unwrap(), "opencl-external");
}
