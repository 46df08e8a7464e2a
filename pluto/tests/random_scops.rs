//! Random affine programs (polybench::random): isl's dependences equal the brute-force ones,
//! and every fusion policy yields a legal schedule.

mod common;

use common::{check_schedule, options, small_params, with_text, POLICIES};
use rosepolly::enumerate::check_dependences;

/// How many programs; `POLYC_RANDOM_CASES` raises it for a longer soak.
fn cases() -> u64 {
    std::env::var("POLYC_RANDOM_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60)
}

#[test]
fn random_programs_have_exact_dependences_and_legal_schedules() {
    let seeds: Vec<u64> = (0..cases()).collect();
    let failures: Vec<String> = polybench::harness::par_map(&seeds, |&seed| {
        let text = polybench::random::program(seed);
        with_text(&format!("random{seed}"), &text, |ctx, scops| {
            let mut out = Vec::new();
            for scop in scops {
                let params = [small_params(scop, 3), small_params(scop, 5)];
                for p in &params {
                    if let Err(e) = check_dependences(scop, p, 200_000) {
                        out.push(format!("seed {seed}: dependences at {p:?}: {e}"));
                    }
                }
                for fusion in POLICIES {
                    if let Err(e) = check_schedule(ctx, scop, &options(fusion), &params) {
                        out.push(format!("seed {seed} {fusion:?}: {e}"));
                    }
                }
            }
            if !out.is_empty() {
                out.push(text.clone());
            }
            out
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn both_solvers_find_the_same_schedules_on_random_programs() {
    let seeds: Vec<u64> = (1000..1000 + cases() / 3).collect();
    let failures: Vec<String> = polybench::harness::par_map(&seeds, |&seed| {
        let text = polybench::random::program(seed);
        with_text(&format!("solvers{seed}"), &text, |ctx, scops| {
            let run = |solver| {
                pluto::schedule(
                    ctx,
                    &scops[0],
                    &pluto::PlutoOptions {
                        solver,
                        ..Default::default()
                    },
                )
            };
            let (a, b) = (run(pluto::Solver::Isl), run(pluto::Solver::GoodLp));
            (a != b).then(|| format!("seed {seed}: isl {a:?}\ngood_lp {b:?}"))
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
