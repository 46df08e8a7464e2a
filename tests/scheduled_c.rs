//! `polyc --target c --no-tile`: every kernel, scheduled by Pluto and printed back as C, built with
//! gcc with and without OpenMP, prints the same array dumps as the original program.

mod common;

use common::{check_kernels, Variant};
use polybench::Kernel;

const SERIAL: &[(&str, &str)] = &[];
const ONE_THREAD: &[(&str, &str)] = &[("OMP_NUM_THREADS", "1")];
const TWO_THREADS: &[(&str, &str)] = &[("OMP_NUM_THREADS", "2")];

fn variants() -> Vec<Variant<'static>> {
    vec![
        Variant {
            name: "serial",
            polyc_flags: &["--target", "c", "--no-tile"],
            openmp: false,
            cflags: &[],
            runs: &[SERIAL],
            ldflags: vec![],
        },
        Variant {
            name: "omp",
            polyc_flags: &["--target", "c", "--no-tile"],
            openmp: true,
            cflags: &[],
            runs: &[ONE_THREAD, TWO_THREADS],
            ldflags: vec![],
        },
    ]
}

fn check_suite(kernels: &[Kernel], tag: &str) {
    check_kernels(kernels, &["MINI", "SMALL"], &variants(), tag);
}

#[test]
fn bundled_suite_scheduled_c_matches_original() {
    check_suite(&polybench::kernels(), "sched-suite");
}

#[test]
fn external_polybench_scheduled_c_matches_original() {
    let Some(root) = polybench::external_suite() else {
        println!("skipped: set POLYBENCH_DIR to a PolyBench/C 4.2.1 checkout to run this test");
        return;
    };
    check_suite(&polybench::kernels_in(&root).unwrap(), "sched-external");
}

#[test]
fn one_time_loops_keep_the_results() {
    let ks: Vec<Kernel> = ["jacobi-2d", "gemm", "lu", "fdtd-2d"]
        .iter()
        .map(|n| polybench::kernel(n).unwrap())
        .collect();
    let v = [Variant {
        name: "otl",
        polyc_flags: &["--target", "c", "--no-tile", "--otl"],
        openmp: true,
        cflags: &[],
        runs: &[TWO_THREADS],
        ldflags: vec![],
    }];
    check_kernels(&ks, &["MINI"], &v, "sched-otl");
}
