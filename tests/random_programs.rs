//! Random affine programs (`polybench::random`, with random C integer types and iterators read
//! after the SCoP), compiled by polyc for the C target and run at several tile sizes and thread
//! counts, print what gcc's build of the original prints. `POLYC_RANDOM_CASES` sets how many
//! (default 120; it was 200 until CI's time neared 45 minutes, `docs/decisions.md`);
//! `POLYC_RICH_CASES` how many programs with strides, `min`/`max` bounds and conditions too
//! (default 60, a fixed sample of what `scripts/differential.sh` runs by the thousand);
//! `POLYC_TEMPORARY_CASES` how many with a nest of temporary arrays besides (default 30,
//! `FEATURES=temporaries scripts/differential.sh`).

mod common;

use polybench::harness::{par_map, scratch_dir};
use polybench::random::Features;

fn cases(variable: &str, default: u64) -> u64 {
    std::env::var(variable)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The first seed of the rich sample: past the seeds the differential runs so far used.
const RICH_FIRST_SEED: u64 = 5_000;

const RUNS: &[&[(&str, &str)]] = &[
    &[
        ("POLYC_MIN_POINTS", "0"),
        ("POLYC_TILE_SIZES", "1"),
        ("OMP_NUM_THREADS", "2"),
    ],
    &[
        ("POLYC_MIN_POINTS", "0"),
        ("POLYC_TILE_SIZES", "3,5,7"),
        ("OMP_NUM_THREADS", "2"),
    ],
    &[
        ("POLYC_MIN_POINTS", "0"),
        ("POLYC_TILE_SIZES", "2"),
        ("OMP_NUM_THREADS", "1"),
    ],
    &[],
];

#[test]
fn random_programs_compute_what_gcc_computes() {
    let seeds: Vec<u64> = (0..cases("POLYC_RANDOM_CASES", 120)).collect();
    check("random-e2e", &seeds, Features::BASE);
}

#[test]
fn random_programs_with_strides_bounds_and_conditions_compute_what_gcc_computes() {
    let n = cases("POLYC_RICH_CASES", 60);
    let seeds: Vec<u64> = (RICH_FIRST_SEED..RICH_FIRST_SEED + n).collect();
    check("random-rich-e2e", &seeds, Features::ALL);
}

#[test]
fn random_programs_with_temporary_arrays_compute_what_gcc_computes() {
    // Array expansion and its copy-out statements: about two programs in five expand `t`.
    let n = cases("POLYC_TEMPORARY_CASES", 30);
    let seeds: Vec<u64> = (RICH_FIRST_SEED..RICH_FIRST_SEED + n).collect();
    check("random-temporaries-e2e", &seeds, Features::TEMPORARIES);
}

fn check(dir: &str, seeds: &[u64], features: Features) {
    let work = scratch_dir(dir);
    let failures: Vec<String> = par_map(seeds, |&seed| {
        let src = work.join(format!("r{seed}.c"));
        let text = polybench::random::program_with_main_of(seed, features);
        std::fs::write(&src, &text).unwrap();
        let reference = work.join(format!("r{seed}-ref"));
        common::gcc(&src, &reference, &[]);
        let expected = common::run_stdout(&reference, &[]).unwrap();
        let out = work.join(format!("r{seed}-polyc.c"));
        let (code, err) = common::polyc_to(&src, "c", &out);
        if code != 0 {
            return vec![format!("seed {seed}: polyc failed: {err}\n{text}")];
        }
        let exe = work.join(format!("r{seed}-polyc"));
        common::gcc(&out, &exe, &["-fopenmp".into()]);
        RUNS.iter()
            .filter_map(|env| match common::run_stdout(&exe, env) {
                Ok(o) if o == expected => None,
                Ok(_) => Some(format!("seed {seed} {env:?}: output differs\n{text}")),
                Err(e) => Some(format!("seed {seed} {env:?}: {e}")),
            })
            .collect()
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
