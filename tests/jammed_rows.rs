//! Where tiles do not pay, the C target runs a loop whose rows fold values along an inner loop
//! by blocks of rows, its inner loops jammed (`codegen/src/jam.rs`). This test checks which
//! kernels get them, that the matrix-vector kernels then run their original order (their
//! jammed rows run all the work), and that at MEDIUM, where the rows leave a remainder after
//! the last block (atax's 390 rows, bicg's 410), the arrays come out as the original's,
//! exactly. `tests/tiled_c.rs` checks every kernel's original order at MINI and SMALL.

mod common;

use common::{check_kernels, polyc_kernel, Variant};
use polybench::harness::{compile, scratch_dir, Build};

/// The kernels whose original order has jammed rows.
const JAMMED: &[&str] = &[
    "atax",
    "bicg",
    "gesummv",
    "mvt",
    "gemver",
    "2mm",
    "3mm",
    "covariance",
    "correlation",
];

fn generated(name: &str, work: &std::path::Path) -> String {
    let k = polybench::kernel(name).expect("suite kernel");
    let build = Build::new("MEDIUM", true);
    let out = work.join(format!("{name}.c"));
    polyc_kernel(&k, &build, &["--target", "c"], &out).unwrap();
    std::fs::read_to_string(&out).unwrap()
}

#[test]
fn loops_that_fold_along_an_inner_loop_run_by_jammed_rows() {
    let work = scratch_dir("jammed-rows");
    for k in polybench::kernels() {
        let text = generated(&k.name, &work);
        let jammed = text.contains("polyc_jb_");
        assert_eq!(jammed, JAMMED.contains(&k.name.as_str()), "{}", k.name);
    }
    let atax = generated("atax", &work);
    let lines = atax
        .split("void polyc_scop0_lines(")
        .nth(1)
        .and_then(|rest| rest.split("\n}\n").next())
        .expect("atax's original order in a function of its own");
    insta::assert_snapshot!("atax_jammed_rows", lines);
}

#[test]
fn matrix_vector_kernels_run_their_jammed_rows_and_compute_the_same() {
    let kernels: Vec<polybench::Kernel> = ["atax", "bicg", "gesummv", "mvt"]
        .iter()
        .map(|n| polybench::kernel(n).expect("suite kernel"))
        .collect();
    let work = scratch_dir("jammed-rows-profile");
    for k in &kernels {
        let build = Build::new("MEDIUM", true);
        let src = work.join(format!("{}.c", k.name));
        polyc_kernel(k, &build, &["--target", "c"], &src).unwrap();
        let exe = work.join(&k.name);
        compile(k, &src, &build, &exe).unwrap();
        let out = std::process::Command::new(&exe)
            .env("POLYC_PROFILE", "1")
            .env("OMP_NUM_THREADS", "2")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("untiled=1"), "{}: {err}", k.name);
    }
    let variants = [Variant {
        name: "jammed",
        polyc_flags: &["--target", "c"],
        openmp: true,
        runs: &[&[("OMP_NUM_THREADS", "2")]],
        ldflags: vec![],
    }];
    check_kernels(&kernels, &["MEDIUM"], &variants, "jammed-rows-medium");
}
