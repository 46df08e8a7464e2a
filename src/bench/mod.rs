//! `polyc bench`: every kernel of a PolyBench/C suite (the bundled one, or a user's checkout) on
//! every target this machine runs, verified against the original program, then timed side by
//! side with it (PolyBench's timer, round-robin runs, medians). A kernel that fails a step is
//! reported with its reason and the run goes on; the exit status says whether everything
//! verified. Results: a table on stdout and, with `--out DIR`, Markdown, CSV, JSON and SVG
//! charts (`report`, `charts`).

mod busy;
mod charts;
mod report;
mod stats;
mod steps;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};
use polybench::{Kernel, DATASETS};
use serde::Serialize;

use crate::TargetArg;

/// `polyc bench`.
#[derive(Parser, Debug)]
#[command(name = "polyc bench")]
pub struct BenchCli {
    #[arg(value_parser = ["bench"], hide = true)]
    pub verb: String,
    /// A PolyBench/C 4.2.1 checkout, as it is (default: $POLYBENCH_DIR, else polyc's bundled
    /// suite).
    #[arg(long, value_name = "DIR")]
    pub polybench: Option<PathBuf>,
    /// The kernels, comma-separated (default: every kernel of the suite).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub kernels: Vec<String>,
    /// The targets, comma-separated (default: every target this machine runs).
    #[arg(long, value_enum, value_delimiter = ',', value_name = "LIST")]
    pub targets: Vec<TargetArg>,
    /// The datasets timed, comma-separated.
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "MEDIUM",
        value_name = "LIST"
    )]
    pub datasets: Vec<String>,
    /// The dataset whose array dumps are compared with the original program's.
    #[arg(long, default_value = "MINI", value_name = "DATASET")]
    pub verify_dataset: String,
    /// Timed runs of each program, at least; the median counts.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// Rounds go on past --runs while a kernel's rounds so far took less than this many seconds
    /// (wall-clock), up to --max-runs: short kernels, whose runs scatter most, get more of them.
    /// 0 runs exactly --runs.
    #[arg(long, default_value_t = 2.0, value_name = "SECONDS", value_parser = seconds)]
    pub min_seconds: f64,
    /// The most rounds --min-seconds adds up to (never fewer than --runs).
    #[arg(long, default_value_t = 51, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_runs: u32,
    /// OpenMP threads of the C target's programs (default: the machine's cores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub threads: Option<u32>,
    /// POLYC_TILE_SIZES values to time, each a configuration (`--tile-sizes 16 32 8,32,32`);
    /// the fastest is reported. Default: no variable (the program's defaults, or its tuning
    /// file).
    #[arg(long, num_args = 1.., value_name = "SIZES", conflicts_with = "tune")]
    pub tile_sizes: Vec<String>,
    /// Tune each program with `polyc tune` (default options) before timing it.
    #[arg(long)]
    pub tune: bool,
    /// The C compiler's flags for the original program (and, with the target's own, for
    /// polyc's C and OpenCL host code).
    #[arg(
        long,
        default_value = "-O3 -march=native",
        allow_hyphen_values = true,
        value_name = "FLAGS"
    )]
    pub baseline_cflags: String,
    /// More polyc flags for the code timed, e.g. "--fusion max" or "--no-tile".
    #[arg(
        long,
        allow_hyphen_values = true,
        value_name = "FLAGS",
        default_value = ""
    )]
    pub polyc_flags: String,
    /// Also time, in the same runs, the code of another polyc binary (an older version, say).
    #[arg(long, value_name = "POLYC")]
    pub baseline_polyc: Option<PathBuf>,
    /// Also time, in the same runs, the code polyc (or --baseline-polyc) generates with these
    /// flags instead, e.g. "--fixed-tile-sizes 32" for the cost of run-time tile sizes.
    #[arg(long, allow_hyphen_values = true, value_name = "FLAGS")]
    pub baseline_flags: Option<String>,
    /// Also time polyc's program beside a busy core (a thread of this command spinning from
    /// before each such run until its end), in the same rounds: its time busy over its time
    /// quiet, for the shared machine. One configuration only (at most one --tile-sizes value).
    #[arg(long)]
    pub busy: bool,
    /// A run past this many seconds is stopped and the kernel reported as failed.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub limit: u64,
    /// Where to write bench.md, bench.csv, bench.json, speedup.svg and geomean.svg.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// The step a kernel failed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    Original,
    Compile,
    Build,
    Verify,
    Tune,
    Time,
}

impl Step {
    fn name(self) -> &'static str {
        match self {
            Step::Original => "original",
            Step::Compile => "compile",
            Step::Build => "build",
            Step::Verify => "verify",
            Step::Tune => "tune",
            Step::Time => "time",
        }
    }
}

/// What went wrong, at which step.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    pub step: Step,
    pub reason: String,
}

/// One kernel × target × dataset.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub kernel: String,
    pub category: String,
    pub target: &'static str,
    pub dataset: String,
    /// The arrays equal the original's at the verification dataset (every configuration).
    pub verified: bool,
    /// Medians, milliseconds.
    pub original_ms: Option<f64>,
    pub polyc_ms: Option<f64>,
    pub baseline_ms: Option<f64>,
    /// polyc's program beside a busy core (`--busy`).
    pub busy_ms: Option<f64>,
    /// Every run, milliseconds.
    pub original_runs: Vec<f64>,
    pub polyc_runs: Vec<f64>,
    pub baseline_runs: Vec<f64>,
    pub busy_runs: Vec<f64>,
    /// The configuration timed (the fastest of `--tile-sizes`): `default`, `tuned` or sizes.
    pub configuration: String,
    /// polyc's profile lines of one run with that configuration (`POLYC_PROFILE=1`).
    pub profile: Vec<String>,
    pub failure: Option<Failure>,
}

impl Row {
    /// None too when a time is below the timer's resolution (0: nanoseconds with the suite's
    /// timer, microseconds with a user's PolyBench).
    pub fn speedup(&self) -> Option<f64> {
        ratio(self.original_ms?, self.polyc_ms?)
    }

    pub fn baseline_speedup(&self) -> Option<f64> {
        ratio(self.original_ms?, self.baseline_ms?)
    }

    /// polyc's speed-up over the original from all their runs, with its 95% interval
    /// (`stats`); None where the runs are too few.
    pub fn interval(&self) -> Option<stats::Interval> {
        stats::speedup(&self.original_runs, &self.polyc_runs)
    }

    /// polyc's speed-up over the baseline polyc, the same way.
    pub fn against_baseline(&self) -> Option<stats::Interval> {
        stats::speedup(&self.baseline_runs, &self.polyc_runs)
    }

    /// How many times longer polyc's program ran beside a busy core than on the quiet machine
    /// (medians).
    pub fn busy_ratio(&self) -> Option<f64> {
        ratio(self.busy_ms?, self.polyc_ms?)
    }

    /// That ratio from all the runs, with its 95% interval.
    pub fn busy_over_quiet(&self) -> Option<stats::Interval> {
        stats::speedup(&self.busy_runs, &self.polyc_runs)
    }
}

/// `--min-seconds`: a finite number of seconds, 0 or more.
fn seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "expected a number of seconds, 0 or more, not '{s}'"
        )),
    }
}

fn ratio(original: f64, other: f64) -> Option<f64> {
    (original > 0.0 && other > 0.0).then(|| original / other)
}

/// Run `polyc bench`; the exit status.
pub fn main(args: Vec<String>) -> i32 {
    let cli = BenchCli::parse_from(args);
    let plan = match Plan::new(&cli) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("polyc: error: {e}");
            return 2;
        }
    };
    match run(&cli, &plan) {
        Ok(rows) => i32::from(!rows.iter().all(|r| r.failure.is_none())),
        Err(e) => {
            eprintln!("polyc: {e}");
            1
        }
    }
}

/// What the command line asks for, checked.
pub struct Plan {
    /// This executable, which compiles and tunes.
    pub polyc: PathBuf,
    pub suite: PathBuf,
    pub kernels: Vec<Kernel>,
    pub targets: Vec<TargetArg>,
    pub configurations: Vec<Option<String>>,
    pub threads: u32,
    pub baseline_cflags: Vec<String>,
    pub limit: Duration,
}

impl Plan {
    fn new(cli: &BenchCli) -> Result<Plan, String> {
        for d in cli.datasets.iter().chain([&cli.verify_dataset]) {
            if !DATASETS.contains(&d.as_str()) {
                return Err(format!(
                    "unknown dataset '{d}'; expected one of {}",
                    DATASETS.join(", ")
                ));
            }
        }
        let suite = cli
            .polybench
            .clone()
            .or_else(|| std::env::var_os("POLYBENCH_DIR").map(PathBuf::from))
            .unwrap_or_else(polybench::suite_dir);
        let all = polybench::kernels_in(&suite).map_err(|e| {
            format!(
                "{}: not a PolyBench/C suite (no readable utilities/benchmark_list: {e})",
                suite.display()
            )
        })?;
        let kernels = pick_kernels(&all, &cli.kernels)?;
        let targets = if cli.targets.is_empty() {
            crate::build::available_targets()
        } else {
            cli.targets.clone()
        };
        let configurations = configurations(&cli.tile_sizes)?;
        if cli.busy && configurations.len() > 1 {
            return Err(format!(
                "--busy times one configuration, not the fastest of {}: give at most one \
                 --tile-sizes value",
                configurations.len()
            ));
        }
        let threads = cli
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get() as u32));
        let polyc = std::env::current_exe()
            .map_err(|e| format!("cannot find polyc's own executable: {e}"))?;
        Ok(Plan {
            polyc,
            suite,
            kernels,
            targets,
            configurations,
            threads,
            baseline_cflags: cli
                .baseline_cflags
                .split_whitespace()
                .map(String::from)
                .collect(),
            limit: Duration::from_secs(cli.limit),
        })
    }
}

/// The kernels named (all when none is), in the suite's order; an unknown name is an error.
fn pick_kernels(all: &[Kernel], names: &[String]) -> Result<Vec<Kernel>, String> {
    if let Some(n) = names.iter().find(|n| !all.iter().any(|k| &k.name == *n)) {
        return Err(format!(
            "the suite has no kernel '{n}' (it has {})",
            all.iter()
                .map(|k| k.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(all
        .iter()
        .filter(|k| names.is_empty() || names.contains(&k.name))
        .cloned()
        .collect())
}

/// `--tile-sizes` as POLYC_TILE_SIZES values (`None`: no variable), each checked by the
/// contract's parser so that a typo is a usage error, not a failed kernel.
fn configurations(sizes: &[String]) -> Result<Vec<Option<String>>, String> {
    let values: Vec<&str> = sizes.iter().flat_map(|s| s.split_whitespace()).collect();
    if values.is_empty() {
        return Ok(vec![None]);
    }
    values
        .iter()
        .map(|v| {
            avelas_contract::config::tile_size_lists(Some(v))
                .map(|_| Some(v.to_string()))
                .map_err(|e| format!("--tile-sizes '{v}': {e}"))
        })
        .collect()
}

/// Every kernel × target × dataset, in that order; the rows, also written to `--out`.
fn run(cli: &BenchCli, plan: &Plan) -> Result<Vec<Row>, String> {
    let work = tempfile::Builder::new()
        .prefix("polyc-bench-")
        .tempdir()
        .map_err(|e| format!("cannot create a scratch directory: {e}"))?;
    if let Some(out) = &cli.out {
        std::fs::create_dir_all(out)
            .map_err(|e| format!("cannot create {}: {e}", out.display()))?;
    }
    let total = plan.kernels.len() * plan.targets.len() * cli.datasets.len();
    let bar = progress(total);
    let mut rows = Vec::new();
    for k in &plan.kernels {
        let mut originals = BTreeMap::new();
        bar.set_message(format!("{}: the original's arrays", k.name));
        let reference = steps::reference(plan, k, &cli.verify_dataset, work.path());
        for &target in &plan.targets {
            let bench = steps::KernelBench {
                cli,
                plan,
                kernel: k,
                target,
                work: work.path(),
                bar: &bar,
            };
            let verified = bench.verify(&reference);
            for dataset in &cli.datasets {
                let row = bench.measure(dataset, &verified, &mut originals);
                bar.inc(1);
                // Above the bar on a terminal; a plain line in a log, where the bar is hidden.
                if bar.is_hidden() {
                    eprintln!("{}", report::line(&row));
                } else {
                    bar.println(report::line(&row));
                }
                rows.push(row);
            }
        }
    }
    bar.finish_and_clear();
    println!("{}", report::terminal_table(&rows));
    if let Some(out) = &cli.out {
        write_outputs(out, cli, plan, &rows)?;
        eprintln!("polyc: results in {}", out.display());
    }
    Ok(rows)
}

fn write_outputs(out: &Path, cli: &BenchCli, plan: &Plan, rows: &[Row]) -> Result<(), String> {
    let machine = report::Machine::describe(&plan.targets);
    let write = |name: &str, text: String| {
        std::fs::write(out.join(name), text)
            .map_err(|e| format!("cannot write {}: {e}", out.join(name).display()))
    };
    write("bench.md", report::markdown(cli, plan, &machine, rows))?;
    write("bench.csv", report::csv(rows))?;
    write("bench.json", report::json(cli, plan, &machine, rows))?;
    charts::speedups(&out.join("speedup.svg"), rows)
        .map_err(|e| format!("cannot draw speedup.svg: {e}"))?;
    charts::geomeans_chart(&out.join("geomean.svg"), rows)
        .map_err(|e| format!("cannot draw geomean.svg: {e}"))?;
    Ok(())
}

fn progress(total: usize) -> ProgressBar {
    let bar = ProgressBar::new(total as u64);
    bar.set_style(
        ProgressStyle::with_template("[{elapsed_precise}] {bar:30} {pos}/{len}  {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tile_size_lists_are_checked() {
        assert_eq!(configurations(&[]).unwrap(), vec![None]);
        assert_eq!(
            configurations(&["16 32".into(), "8,32,32".into()]).unwrap(),
            vec![Some("16".into()), Some("32".into()), Some("8,32,32".into())]
        );
        assert!(configurations(&["0".into()]).is_err());
    }

    #[test]
    fn unknown_kernels_are_named() {
        let all = polybench::kernels();
        assert_eq!(pick_kernels(&all, &[]).unwrap().len(), all.len());
        let e = pick_kernels(&all, &["gem".into()]).unwrap_err();
        assert!(e.contains("'gem'"), "{e}");
    }
}
