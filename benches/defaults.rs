//! The CPU benchmark with default settings (issue 13): every suite kernel, the original program
//! against polyc's C+OpenMP output run with no `POLYC_*` variable, as a user runs it, and
//! optionally against the output of another polyc binary (`--baseline`, e.g. the previous
//! commit's) side by side in the same round-robin runs. All built with `gcc -O3 -march=native`;
//! times are PolyBench's kernel timer, medians of `--runs` runs; a run past `--limit` seconds is
//! killed and shown as `>limit`.
//!
//!     cargo bench --bench defaults -- [--kernels gemm,lu] [--datasets MEDIUM,LARGE] [--runs 3]
//!         [--threads 2] [--baseline PATH] [--limit 60] [--out FILE]

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{geomean, time_all, timing_build, Variant};
use polybench::{harness, Kernel};

struct Options {
    shared: common::Shared,
    baseline: Option<PathBuf>,
    limit: Duration,
}

fn options() -> Options {
    let mut o = Options {
        shared: common::Shared {
            kernels: polybench::kernels().into_iter().map(|k| k.name).collect(),
            datasets: vec!["MEDIUM".into()],
            runs: 3,
            threads: "2".into(),
            out: PathBuf::from("target/bench-defaults.md"),
        },
        baseline: None,
        limit: Duration::from_secs(60),
    };
    for (flag, value) in common::flag_values(usage) {
        match o.shared.take(&flag, &value) {
            Ok(true) => {}
            Ok(false) if flag == "--baseline" => o.baseline = Some(PathBuf::from(value)),
            Ok(false) if flag == "--limit" => {
                o.limit = Duration::from_secs(value.parse().unwrap_or_else(|_| usage(&flag)))
            }
            _ => usage(&flag),
        }
    }
    o
}

fn usage(flag: &str) -> ! {
    common::usage("defaults", "[--baseline POLYC] [--limit SECONDS]", flag)
}

/// Medians in seconds: original, polyc, baseline polyc.
struct Row {
    original: f64,
    polyc: f64,
    baseline: Option<f64>,
}

fn bench(k: &Kernel, dataset: &str, o: &Options, work: &Path) -> Result<Row, String> {
    let tag = format!("{}-{dataset}", k.name);
    let exe = |v: &str| work.join(format!("{tag}-{v}"));
    harness::compile(k, &k.source, &timing_build(dataset, false), &exe("orig"))?;
    let threads = [("OMP_NUM_THREADS", o.shared.threads.as_str())];
    let mut vs = vec![Variant::new("original", &exe("orig"), &[])];
    let ours = PathBuf::from(env!("CARGO_BIN_EXE_polyc"));
    for (v, polyc) in [("polyc", Some(&ours)), ("baseline", o.baseline.as_ref())] {
        let Some(polyc) = polyc else { continue };
        let src = work.join(format!("{tag}-{v}.c"));
        let build = timing_build(dataset, true);
        common::polyc(polyc, k, &build, &["--target", "c"], &src)?;
        harness::compile(k, &src, &build, &exe(v))?;
        vs.push(Variant::new(v, &exe(v), &threads));
    }
    time_all(&mut vs, o.shared.runs, o.limit)?;
    Ok(Row {
        original: vs[0].median(),
        polyc: vs[1].median(),
        baseline: vs.get(2).map(Variant::median),
    })
}

/// One kernel's speed-ups over the original.
struct Speedup {
    dataset: String,
    polyc: f64,
    baseline: Option<f64>,
}

/// Milliseconds, or `>limit` for a run that was killed.
fn ms(t: f64, limit: Duration) -> String {
    if t.is_finite() {
        format!("{:.2}", 1e3 * t)
    } else {
        format!(">{}", limit.as_secs() * 1000)
    }
}

fn main() {
    let mut o = options();
    // `cargo test --all-targets` runs this binary without `--bench`: one quick pass over one
    // small kernel shows that the benchmark still builds, runs and compares.
    let mut _smoke = None;
    if !std::env::args().any(|a| a == "--bench") {
        o.shared.kernels = vec!["jacobi-1d".into()];
        o.shared.datasets = vec!["MINI".into()];
        o.shared.runs = 1;
        let dir = harness::scratch_dir("bench-defaults-smoke");
        o.shared.out = dir.join("table.md");
        _smoke = Some(dir);
    }
    let work = harness::scratch_dir("bench-defaults");
    let base = o.baseline.is_some();
    let mut table = format!(
        "Machine: {}; gcc -O3 -march=native; OMP_NUM_THREADS={}, no POLYC_* variable; medians of {} runs, round-robin (milliseconds, PolyBench's kernel timer).\n\n\
         | kernel | dataset | original | polyc | speed-up |{}\n|---|---|---:|---:|---:|{}\n",
        common::machine(),
        o.shared.threads,
        o.shared.runs,
        if base { " baseline | speed-up |" } else { "" },
        if base { "---:|---:|" } else { "" },
    );
    print!("{table}");
    let mut speedups: Vec<Speedup> = Vec::new();
    for name in &o.shared.kernels {
        let Some(k) = polybench::kernel(name) else {
            eprintln!("bench-defaults: no kernel named '{name}'");
            std::process::exit(2);
        };
        for d in &o.shared.datasets {
            let r = bench(&k, d, &o, &work).unwrap_or_else(|e| {
                eprintln!("bench-defaults: {name} {d}: {e}");
                std::process::exit(1);
            });
            let s = r.original / r.polyc;
            let sb = r.baseline.map(|b| r.original / b);
            let mut line = format!(
                "| {name} | {d} | {} | {} | {s:.2}× |",
                ms(r.original, o.limit),
                ms(r.polyc, o.limit)
            );
            if let (Some(b), Some(sb)) = (r.baseline, sb) {
                line.push_str(&format!(" {} | {sb:.2}× |", ms(b, o.limit)));
            }
            line.push('\n');
            print!("{line}");
            table.push_str(&line);
            speedups.push(Speedup {
                dataset: d.clone(),
                polyc: s,
                baseline: sb,
            });
        }
    }
    let mut summary = String::from("\n");
    for d in &o.shared.datasets {
        let of = |f: fn(&Speedup) -> Option<f64>| -> Vec<f64> {
            speedups
                .iter()
                .filter(|r| &r.dataset == d)
                .filter_map(f)
                .collect()
        };
        for (who, v) in [
            ("polyc", of(|r| Some(r.polyc))),
            ("baseline", of(|r| r.baseline)),
        ] {
            if v.is_empty() {
                continue;
            }
            // A killed run counts as 0.01× in the mean (its real speed-up is lower still).
            let clamped: Vec<f64> = v.iter().map(|&x| x.max(0.01)).collect();
            summary.push_str(&format!(
                "{who} at {d}: geometric mean {:.2}×, slowest {:.2}×, {} of {} below 1.0×, {} below 0.9×\n",
                geomean(&clamped),
                v.iter().cloned().fold(f64::INFINITY, f64::min),
                v.iter().filter(|&&x| x < 1.0).count(),
                v.len(),
                v.iter().filter(|&&x| x < 0.9).count(),
            ));
        }
    }
    print!("{summary}");
    table.push_str(&summary);
    if let Some(dir) = o.shared.out.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Err(e) = std::fs::write(&o.shared.out, table) {
        eprintln!(
            "bench-defaults: cannot write {}: {e}",
            o.shared.out.display()
        );
        std::process::exit(1);
    }
}
