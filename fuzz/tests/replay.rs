//! The fuzz targets on stable, in CI: every regression input the fuzzers found
//! (`tests/inputs/fuzz/<target>/`, each once a panic or a hang), then a fixed sample of
//! mutants of the seeds. The long runs are libFuzzer's (`scripts/fuzz.sh`, results in
//! `docs/results`).

use polyc_fuzz::mutate::{mutant, Rng};
use std::path::{Path, PathBuf};

/// Mutants per front-end seed (30 kernels: about 1,500 front-end runs).
const FRONT_END_MUTANTS: usize = 50;
const CONFIG_MUTANTS: usize = 2_000;
/// Generated programs through the whole compiler.
const PROGRAMS: u64 = 24;

fn regressions(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/inputs/fuzz")
        .join(target);
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(d) => d.map(|e| e.unwrap().path()).collect(),
        Err(_) => return Vec::new(),
    };
    files.sort();
    files
        .into_iter()
        .filter(|p| p.extension().is_none_or(|e| e != "md"))
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect()
}

/// Runs `f` on `data`, naming the input when it panics.
fn run(f: fn(&[u8]), what: &str, data: &[u8]) {
    if std::panic::catch_unwind(|| f(data)).is_err() {
        panic!(
            "{what} panicked; input: {:?}",
            String::from_utf8_lossy(data)
        );
    }
}

#[test]
fn front_end_regressions_and_mutants() {
    for (path, bytes) in regressions("front_end") {
        run(polyc_fuzz::front_end, &path.display().to_string(), &bytes);
    }
    let seeds = polyc_fuzz::suite_seeds();
    assert_eq!(seeds.len(), 30, "every suite kernel preprocesses");
    let mut rng = Rng::new(2026);
    for (name, text) in &seeds {
        run(polyc_fuzz::front_end, name, text);
        for i in 0..FRONT_END_MUTANTS {
            let m = mutant(text, &mut rng);
            run(polyc_fuzz::front_end, &format!("{name} mutant {i}"), &m);
        }
    }
}

#[test]
fn syntax_regressions_and_mutants() {
    for (path, bytes) in regressions("syntax") {
        run(polyc_fuzz::syntax, &path.display().to_string(), &bytes);
    }
    let mut rng = Rng::new(1);
    for (name, text) in polyc_fuzz::suite_seeds() {
        for i in 0..4 * FRONT_END_MUTANTS {
            let m = mutant(&text, &mut rng);
            run(polyc_fuzz::syntax, &format!("{name} mutant {i}"), &m);
        }
    }
}

#[test]
fn config_values_regressions_and_mutants() {
    for (path, bytes) in regressions("config_values") {
        run(
            polyc_fuzz::config_values,
            &path.display().to_string(),
            &bytes,
        );
    }
    let mut rng = Rng::new(11);
    for i in 0..CONFIG_MUTANTS {
        let seed = polyc_fuzz::CONFIG_SEEDS[i % polyc_fuzz::CONFIG_SEEDS.len()];
        let m = mutant(seed.as_bytes(), &mut rng);
        run(polyc_fuzz::config_values, &format!("config mutant {i}"), &m);
    }
}

#[test]
fn whole_compiler_regressions_and_sample() {
    for (path, bytes) in regressions("whole_compiler") {
        run(
            polyc_fuzz::whole_compiler,
            &path.display().to_string(),
            &bytes,
        );
    }
    for seed in 0..PROGRAMS {
        let mut bytes = (seed * 7919).to_le_bytes().to_vec();
        bytes.push((seed * 37) as u8);
        run(
            polyc_fuzz::whole_compiler,
            &format!("program seed {seed}"),
            &bytes,
        );
    }
}
