//! `polyc --target c --no-tile`: every kernel, scheduled by Pluto and printed back as C, built with
//! gcc with and without OpenMP, prints the same array dumps as the original program.

mod common;

use common::{check_kernel, Variant};
use polybench::harness::{par_map, scratch_dir};
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
            runs: &[SERIAL],
        },
        Variant {
            name: "omp",
            polyc_flags: &["--target", "c", "--no-tile"],
            openmp: true,
            runs: &[ONE_THREAD, TWO_THREADS],
        },
    ]
}

fn check_suite(kernels: &[Kernel], tag: &str) {
    let work = scratch_dir(tag);
    let variants = variants();
    let jobs: Vec<(&Kernel, &str)> = kernels
        .iter()
        .flat_map(|k| ["MINI", "SMALL"].map(|d| (k, d)))
        .collect();
    let failures: Vec<String> = par_map(&jobs, |(k, d)| check_kernel(k, d, &variants, &work))
        .into_iter()
        .flatten()
        .collect();
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    let _ = std::fs::remove_dir_all(&work);
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
    let work = scratch_dir("sched-otl");
    let v = [Variant {
        name: "otl",
        polyc_flags: &["--target", "c", "--no-tile", "--otl"],
        openmp: true,
        runs: &[TWO_THREADS],
    }];
    let failures: Vec<String> = par_map(&ks, |k| check_kernel(k, "MINI", &v, &work))
        .into_iter()
        .flatten()
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
