//! Scheduling time of every kernel of the suite, with isl's lexmin and with good_lp's ILPs, side
//! by side: `cargo bench -p pluto --bench schedule -- [--runs N] [KERNEL...]`.
//!
//! Prints a Markdown table of medians over N runs (default 5) after one warm-up run, and
//! whether both solvers found the same schedule. A solver whose warm-up takes longer than 60 s
//! on a kernel is not timed further on it.

use pluto::{PlutoOptions, Solver};
use rosepolly::compilation::{self, Detection, SourceOptions, SourceUnit};
use rosepolly::math::isl::Ctx;
use std::time::{Duration, Instant};

fn main() {
    let mut runs = 5usize;
    let mut only = Vec::new();
    // `cargo test --all-targets` runs this binary without `--bench`: then one quick pass on
    // one kernel shows that the benchmark still works, without timing anything.
    let benchmarking = std::env::args().any(|a| a == "--bench");
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--runs" => runs = args.next().and_then(|v| v.parse().ok()).expect("--runs N"),
            "--bench" => {}
            other => only.push(other.to_string()),
        }
    }
    if !benchmarking {
        runs = 1;
        only = vec!["gemm".into()];
    }
    println!("| kernel | isl lexmin (ms) | good_lp ILPs (ms) | same schedule |");
    println!("|---|---:|---:|---|");
    let (mut total_isl, mut total_lp) = (0.0, 0.0);
    for k in polybench::kernels() {
        if !only.is_empty() && !only.contains(&k.name) {
            continue;
        }
        let opts = SourceOptions {
            include_dirs: vec![polybench::utilities_of(&k)],
            defines: vec!["MINI_DATASET".into()],
            ..SourceOptions::default()
        };
        let src = SourceUnit::load(&k.source, &opts).expect("suite kernels load");
        let ctx = Ctx::new();
        let scops = compilation::build_models(&ctx, &src, Detection::Pragmas)
            .expect("suite kernels extract");
        let time = |solver: Solver| -> (Option<f64>, Option<pluto::Schedule>) {
            let opts = PlutoOptions {
                solver,
                ..PlutoOptions::default()
            };
            let once = || {
                let t = Instant::now();
                let s = pluto::schedule(&ctx, &scops[0], &opts).ok();
                (t.elapsed(), s)
            };
            let (warm, schedule) = once();
            if warm > Duration::from_secs(60) {
                return (None, schedule);
            }
            let mut ms: Vec<f64> = (0..runs).map(|_| once().0.as_secs_f64() * 1e3).collect();
            ms.sort_by(f64::total_cmp);
            (Some(ms[ms.len() / 2]), schedule)
        };
        let (isl, s_isl) = time(Solver::Isl);
        let (lp, s_lp) = time(Solver::GoodLp);
        total_isl += isl.unwrap_or(0.0);
        total_lp += lp.unwrap_or(0.0);
        let show =
            |t: Option<f64>| t.map_or("> 60000 (not timed)".to_string(), |v| format!("{v:.1}"));
        let same = match (&s_isl, &s_lp) {
            (Some(a), Some(b)) if a == b => "yes",
            (Some(_), None) | (None, Some(_)) => "one failed",
            (None, None) => "both failed",
            _ => "no",
        };
        println!("| {} | {} | {} | {same} |", k.name, show(isl), show(lp));
    }
    println!("| **total** | {total_isl:.1} | {total_lp:.1} | |");
}
