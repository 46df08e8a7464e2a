//! The tiling benchmark (issue 4): for each kernel and dataset, builds and times side by side
//! the original program, polyc `--no-tile`, polyc tiled at several run-time tile sizes, and the
//! best of those sizes fixed at compile time (`--fixed-tile-sizes`), all with
//! `gcc -O3 -march=native` and OpenMP at `--threads` threads. Times are PolyBench's own kernel
//! timer (`POLYBENCH_TIME`), medians of `--runs` runs taken round-robin over the variants so
//! that drift in the machine's speed hits every variant alike.
//!
//!     cargo bench --bench tiling -- [--kernels gemm,lu] [--datasets MEDIUM,LARGE] [--runs 5]
//!         [--sizes '32;16,64,64'] [--threads 2] [--out FILE]
//!
//! The table goes to stdout and, in Markdown, to `--out` (default `target/bench-tiling.md`).

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{geomean, split, time_all, timing_build, Variant};
use polybench::harness;
use polybench::Kernel;

/// A run longer than this counts as infinitely slow.
const LIMIT: Duration = Duration::from_secs(120);

fn polyc(k: &Kernel, build: &harness::Build, flags: &[&str], out: &Path) -> Result<(), String> {
    common::polyc(Path::new(env!("CARGO_BIN_EXE_polyc")), k, build, flags, out)
}

/// The kernels of issue 4's comparison with Pluto and PPCG.
const KERNELS: &str = "gemm,2mm,jacobi-2d,seidel-2d,fdtd-2d,heat-3d,jacobi-1d,lu,syrk,covariance";
const SIZES: &str = "16;32;64;8,64,64;32,256,64;4,128,128";

struct Options {
    shared: common::Shared,
    sizes: Vec<String>,
}

fn options() -> Options {
    let mut o = Options {
        shared: common::Shared {
            kernels: split(KERNELS, ','),
            datasets: vec!["MEDIUM".into(), "LARGE".into()],
            runs: 5,
            threads: "2".into(),
            out: PathBuf::from("target/bench-tiling.md"),
        },
        sizes: split(SIZES, ';'),
    };
    for (flag, value) in common::flag_values(usage) {
        match o.shared.take(&flag, &value) {
            Ok(true) => {}
            Ok(false) if flag == "--sizes" => o.sizes = split(&value, ';'),
            _ => usage(&flag),
        }
    }
    o
}

fn usage(flag: &str) -> ! {
    common::usage("tiling", "[--sizes '32;16,64,64']", flag)
}

struct Row {
    kernel: String,
    dataset: String,
    original: f64,
    no_tile: f64,
    tiled: f64,
    best: String,
    parametric: f64,
    fixed: f64,
}

fn bench(k: &Kernel, dataset: &str, o: &Options, work: &Path) -> Result<Row, String> {
    let build = |openmp: bool| timing_build(dataset, openmp);
    let tag = format!("{}-{dataset}", k.name);
    let exe = |v: &str| work.join(format!("{tag}-{v}"));
    harness::compile(k, &k.source, &build(false), &exe("orig"))?;
    for (v, flags) in [
        ("notile", &["--target", "c", "--no-tile"][..]),
        ("tiled", &["--target", "c"][..]),
    ] {
        let src = work.join(format!("{tag}-{v}.c"));
        polyc(k, &build(true), flags, &src)?;
        harness::compile(k, &src, &build(true), &exe(v))?;
    }
    let threads = o.shared.threads.as_str();
    let mut vs = vec![
        Variant::new("original", &exe("orig"), &[]),
        Variant::new("no-tile", &exe("notile"), &[("OMP_NUM_THREADS", threads)]),
    ];
    for s in &o.sizes {
        vs.push(Variant::new(
            s,
            &exe("tiled"),
            &[("OMP_NUM_THREADS", threads), ("POLYC_TILE_SIZES", s)],
        ));
    }
    time_all(&mut vs, o.shared.runs, LIMIT)?;
    let best = vs[2..]
        .iter()
        .min_by(|a, b| a.median().total_cmp(&b.median()))
        .expect("sizes are given");
    let best_name = best.name.clone();
    // Parametric against fixed at the best sizes, side by side.
    let src = work.join(format!("{tag}-fixed.c"));
    polyc(
        k,
        &build(true),
        &["--target", "c", "--fixed-tile-sizes", &best_name],
        &src,
    )?;
    harness::compile(k, &src, &build(true), &exe("fixed"))?;
    let mut pf = vec![
        Variant::new(
            "parametric",
            &exe("tiled"),
            &[
                ("OMP_NUM_THREADS", threads),
                ("POLYC_TILE_SIZES", &best_name),
            ],
        ),
        Variant::new("fixed", &exe("fixed"), &[("OMP_NUM_THREADS", threads)]),
    ];
    time_all(&mut pf, o.shared.runs, LIMIT)?;
    Ok(Row {
        kernel: k.name.clone(),
        dataset: dataset.into(),
        original: vs[0].median(),
        no_tile: vs[1].median(),
        tiled: best.median(),
        best: best_name,
        parametric: pf[0].median(),
        fixed: pf[1].median(),
    })
}

fn main() {
    let mut o = options();
    // `cargo test --all-targets` runs this binary without `--bench`: one quick pass over one
    // small kernel then shows that the benchmark still builds, runs and compares everything.
    // (Its table goes to a scratch directory that lives until the end of main.)
    let mut _smoke = None;
    if !std::env::args().any(|a| a == "--bench") {
        o.shared.kernels = vec!["jacobi-1d".into()];
        o.shared.datasets = vec!["MINI".into()];
        o.shared.runs = 1;
        o.sizes = vec!["8".into()];
        let dir = harness::scratch_dir("bench-tiling-smoke");
        o.shared.out = dir.join("table.md");
        _smoke = Some(dir);
    }
    let work = harness::scratch_dir("bench-tiling");
    let mut table = String::new();
    let head = format!(
        "Machine: {}; gcc -O3 -march=native; OMP_NUM_THREADS={}; medians of {} runs (milliseconds, PolyBench's kernel timer).\n\n\
         | kernel | dataset | original | --no-tile | tiled (best sizes) | speed-up | parametric | fixed | overhead |\n\
         |---|---|---:|---:|---:|---:|---:|---:|---:|\n",
        common::machine(),
        o.shared.threads,
        o.shared.runs
    );
    print!("{head}");
    table.push_str(&head);
    let mut speedups: Vec<(String, f64)> = Vec::new();
    let mut overheads: Vec<f64> = Vec::new();
    for name in &o.shared.kernels {
        let Some(k) = polybench::kernel(name) else {
            eprintln!("bench-tiling: no kernel named '{name}'");
            std::process::exit(2);
        };
        for d in &o.shared.datasets {
            match bench(&k, d, &o, &work) {
                Ok(r) => {
                    let speedup = r.original / r.tiled;
                    let overhead = 100.0 * (r.parametric / r.fixed - 1.0);
                    speedups.push((r.dataset.clone(), speedup));
                    overheads.push(overhead);
                    let line = format!(
                        "| {} | {} | {:.2} | {:.2} | {:.2} ({}) | {:.2}× | {:.2} | {:.2} | {:+.1}% |\n",
                        r.kernel,
                        r.dataset,
                        1e3 * r.original,
                        1e3 * r.no_tile,
                        1e3 * r.tiled,
                        r.best,
                        speedup,
                        1e3 * r.parametric,
                        1e3 * r.fixed,
                        overhead
                    );
                    print!("{line}");
                    table.push_str(&line);
                }
                Err(e) => {
                    eprintln!("bench-tiling: {name} {d}: {e}");
                    std::process::exit(1);
                }
            }
        }
    }
    let mut summary = String::from("\n");
    for d in &o.shared.datasets {
        let v: Vec<f64> = speedups
            .iter()
            .filter(|(ds, _)| ds == d)
            .map(|(_, s)| *s)
            .collect();
        if !v.is_empty() {
            summary.push_str(&format!(
                "Geometric mean speed-up of tiled over the original at {d}: {:.2}× (slowest {:.2}×)\n",
                geomean(&v),
                v.iter().cloned().fold(f64::INFINITY, f64::min)
            ));
        }
    }
    if !overheads.is_empty() {
        let mut s = overheads.clone();
        s.sort_by(f64::total_cmp);
        summary.push_str(&format!(
            "Parametric over fixed tile sizes: median {:+.1}%, range {:+.1}% to {:+.1}%\n",
            s[s.len() / 2],
            s[0],
            s[s.len() - 1]
        ));
    }
    print!("{summary}");
    table.push_str(&summary);
    if let Some(dir) = o.shared.out.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Err(e) = std::fs::write(&o.shared.out, table) {
        eprintln!("bench-tiling: cannot write {}: {e}", o.shared.out.display());
    }
}
