//! Where tiles do not pay, the C target runs a loop whose rows fold values along an inner loop
//! by blocks of rows, its inner loops jammed (`codegen/src/jam.rs`). This test checks which
//! kernels get them, that the matrix-vector kernels then run their original order (their
//! jammed rows run all the work), and that at MEDIUM, where the rows leave a remainder after
//! the last block (atax's 390 rows, bicg's 410), the arrays come out as the original's,
//! exactly, and that random loops of jammed-rows shape, legal and not (`polybench::jam_shapes`,
//! and `polybench::fold_shapes` for folded rows, whose updates change order), print what gcc's
//! build prints. `tests/tiled_c.rs` checks every kernel's original order at MINI
//! and SMALL.

mod common;

use common::{check_kernels, polyc_kernel, Variant};
use polybench::harness::{compile, par_map, scratch_dir, Build};

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
    "trisolv",
    "cholesky",
    "nussinov",
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
        cflags: &[],
        runs: &[&[("OMP_NUM_THREADS", "2")]],
        ldflags: vec![],
    }];
    check_kernels(&kernels, &["MEDIUM"], &variants, "jammed-rows-medium");
}

/// How many random programs of jammed-rows shape (`polybench::jam_shapes`) the test below runs
/// (`POLYC_JAM_CASES`, default 40); `scripts/jam-shapes.sh` runs them by the hundred.
fn jam_cases() -> u64 {
    std::env::var("POLYC_JAM_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40)
}

/// Each run of a random program: its original order forced whatever the size (jammed rows where
/// a loop qualifies), the cost model's choice on two threads, tiles of 3,5.
const JAM_RUNS: &[&[(&str, &str)]] = &[
    &[("POLYC_MIN_POINTS", "1000000000000000")],
    &[("OMP_NUM_THREADS", "2")],
    &[("POLYC_MIN_POINTS", "0"), ("POLYC_TILE_SIZES", "3,5")],
];

#[test]
fn random_programs_of_jammed_row_shape_compute_what_gcc_computes() {
    random_programs("jam-shapes", polybench::jam_shapes::program);
}

/// Folded rows reorder an element's updates (integer `max`, `min`, `|`, `^`): the values must
/// still be the original's, exactly.
#[test]
fn random_programs_of_folded_row_shape_compute_what_gcc_computes() {
    random_programs("fold-shapes", polybench::fold_shapes::program);
}

/// Runs the programs of the first [`jam_cases`] seeds of `program` in the [`JAM_RUNS`]
/// settings against gcc's build of each; some of them must have jammed rows.
fn random_programs(name: &str, program: fn(u64) -> String) {
    let work = scratch_dir(name);
    let seeds: Vec<u64> = (1..=jam_cases()).collect();
    let outcomes = par_map(&seeds, |&seed| {
        let src = work.join(format!("p{seed}.c"));
        let text = program(seed);
        std::fs::write(&src, &text).unwrap();
        let reference = work.join(format!("p{seed}-ref"));
        common::gcc(&src, &reference, &[]);
        let expected = common::run_stdout(&reference, &[]).unwrap();
        let out = work.join(format!("p{seed}-polyc.c"));
        // The tiled run would sum a reduction by rows (`y[0] += ...`), rounding otherwise in
        // the last bits; jammed rows are exact either way.
        let (code, _, err) = common::polyc(&[
            src.to_str().unwrap(),
            "--no-reductions",
            "--target",
            "c",
            "-o",
            out.to_str().unwrap(),
        ]);
        if code != 0 {
            return (
                false,
                vec![format!("seed {seed}: polyc failed: {err}\n{text}")],
            );
        }
        let jammed = std::fs::read_to_string(&out).unwrap().contains("polyc_jb_");
        let exe = work.join(format!("p{seed}-polyc"));
        common::gcc(&out, &exe, &["-fopenmp".into()]);
        let failures = JAM_RUNS
            .iter()
            .filter_map(|env| match common::run_stdout(&exe, env) {
                Ok(o) if o == expected => None,
                Ok(_) => Some(format!("seed {seed} {env:?}: output differs\n{text}")),
                Err(e) => Some(format!("seed {seed} {env:?}: {e}")),
            })
            .collect();
        (jammed, failures)
    });
    let failures: Vec<&String> = outcomes.iter().flat_map(|(_, f)| f).collect();
    assert!(failures.is_empty(), "{failures:#?}");
    // The sample tests jammed rows only if some of its programs have them (about one in three).
    let jammed = outcomes.iter().filter(|(j, _)| *j).count();
    assert!(
        jammed * 5 >= seeds.len(),
        "{jammed} of {} programs with jammed rows",
        seeds.len()
    );
}
