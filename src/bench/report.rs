//! What `polyc bench` writes: a line per measurement while it runs, a table at the end, and in
//! `--out` Markdown, CSV and JSON with the machine's description.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::Command;

use serde::Serialize;

use super::{BenchCli, Plan, Row};
use crate::TargetArg;

/// The machine the numbers come from.
#[derive(Debug, Clone, Serialize)]
pub struct Machine {
    pub cpu: String,
    pub cores: usize,
    pub c_compiler: String,
    pub gpu: Option<String>,
    pub nvcc: Option<String>,
    pub opencl_platforms: Option<String>,
    pub polyc: String,
}

impl Machine {
    pub fn describe(targets: &[TargetArg]) -> Machine {
        let cpu = std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|c| {
                c.lines()
                    .find(|l| l.starts_with("model name"))
                    .and_then(|l| l.split_once(':'))
                    .map(|(_, v)| v.trim().to_string())
            })
            .unwrap_or_else(|| "unknown CPU".into());
        let cuda = targets.contains(&TargetArg::Cuda);
        Machine {
            cpu,
            cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
            c_compiler: first_line(&polybench::harness::cc(), &["--version"], false)
                .unwrap_or_else(|| "unknown".into()),
            gpu: cuda
                .then(|| {
                    first_line(
                        "nvidia-smi",
                        &["--query-gpu=name,driver_version", "--format=csv,noheader"],
                        false,
                    )
                })
                .flatten()
                .map(|g| g.replacen(", ", ", driver ", 1)),
            nvcc: cuda
                .then(|| first_line("nvcc", &["--version"], true))
                .flatten(),
            opencl_platforms: targets
                .contains(&TargetArg::Opencl)
                .then(|| first_line("clinfo", &["-l"], false))
                .flatten(),
            polyc: format!("polyc {}", env!("CARGO_PKG_VERSION")),
        }
    }

    fn lines(&self) -> Vec<String> {
        let mut v = vec![
            format!("CPU: {}, {} cores", self.cpu, self.cores),
            format!("C compiler: {}", self.c_compiler),
        ];
        v.extend(self.gpu.as_ref().map(|g| format!("GPU: {g}")));
        v.extend(self.nvcc.as_ref().map(|n| format!("nvcc: {n}")));
        v.extend(
            self.opencl_platforms
                .as_ref()
                .map(|o| format!("OpenCL: {o}")),
        );
        v.push(self.polyc.clone());
        v
    }
}

/// The first (or `last`) non-empty line a command prints.
fn first_line(program: &str, args: &[&str], last: bool) -> Option<String> {
    let out = Command::new(program).args(args).output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let line = if last {
        lines.next_back()
    } else {
        lines.next()
    };
    line.map(String::from)
}

/// Milliseconds with three significant digits or more (kernels at MINI take microseconds).
fn ms(v: Option<f64>) -> String {
    v.map_or("-".into(), |t| match t {
        t if t >= 100.0 => format!("{t:.0}"),
        t if t >= 1.0 => format!("{t:.2}"),
        t if t >= 0.01 => format!("{t:.3}"),
        t => format!("{t:.4}"),
    })
}

fn times(v: Option<f64>) -> String {
    v.map_or("-".into(), |s| format!("{}×", factor(s)))
}

/// A speed-up's number: two decimals, or the charts' notation for tiny ones.
fn factor(s: f64) -> String {
    if s >= 0.1 {
        format!("{s:.2}")
    } else {
        super::charts::ratio(s)
    }
}

/// The lowest and highest speed-up of a row's rounds (`0.91–1.20×`), where it has two or more.
fn spread(row: &Row) -> String {
    let rounds = row.round_speedups();
    if rounds.len() < 2 {
        return "-".into();
    }
    let lo = rounds.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = rounds.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{}–{}×", factor(lo), factor(hi))
}

/// What became of the row: `yes`, or the failed step and the reason's first line.
fn outcome(row: &Row) -> String {
    match &row.failure {
        None => "yes".into(),
        Some(f) => format!(
            "FAILED at {}: {}",
            f.step.name(),
            f.reason.lines().next().unwrap_or("")
        ),
    }
}

/// A line per finished measurement, while the run goes on.
pub fn line(row: &Row) -> String {
    match &row.failure {
        None => format!(
            "{} {} {}: original {} ms, polyc {} ms ({}), {}",
            row.kernel,
            row.target,
            row.dataset,
            ms(row.original_ms),
            ms(row.polyc_ms),
            row.configuration,
            times(row.speedup())
        ),
        Some(_) => format!(
            "{} {} {}: {}",
            row.kernel,
            row.target,
            row.dataset,
            outcome(row)
        ),
    }
}

/// The geometric mean of the speed-ups of each target and dataset (rows that failed left out),
/// with how many rows it covers.
pub fn geomeans(rows: &[Row]) -> BTreeMap<(String, String), (f64, usize)> {
    let mut logs: BTreeMap<(String, String), Vec<f64>> = BTreeMap::new();
    for r in rows {
        if let Some(s) = r.speedup() {
            logs.entry((r.target.to_string(), r.dataset.clone()))
                .or_default()
                .push(s.ln());
        }
    }
    logs.into_iter()
        .map(|(k, v)| (k, ((v.iter().sum::<f64>() / v.len() as f64).exp(), v.len())))
        .collect()
}

fn has_baseline(rows: &[Row]) -> bool {
    rows.iter().any(|r| r.baseline_ms.is_some())
}

/// The table's cells, a row each (header first).
fn cells(rows: &[Row]) -> Vec<Vec<String>> {
    let baseline = has_baseline(rows);
    let mut header = vec![
        "kernel",
        "target",
        "dataset",
        "original ms",
        "polyc ms",
        "speed-up",
        "rounds",
    ];
    if baseline {
        header.extend(["baseline ms", "speed-up"]);
    }
    header.extend(["configuration", "verified"]);
    let mut out = vec![header.into_iter().map(String::from).collect()];
    for r in rows {
        let mut c = vec![
            r.kernel.clone(),
            r.target.to_string(),
            r.dataset.clone(),
            ms(r.original_ms),
            ms(r.polyc_ms),
            times(r.speedup()),
            spread(r),
        ];
        if baseline {
            c.extend([ms(r.baseline_ms), times(r.baseline_speedup())]);
        }
        c.extend([r.configuration.clone(), outcome(r)]);
        out.push(c);
    }
    out
}

fn summary(rows: &[Row]) -> Vec<String> {
    let mut v: Vec<String> = geomeans(rows)
        .into_iter()
        .map(|((t, d), (g, n))| {
            let same: Vec<(&Row, f64)> = rows
                .iter()
                .filter(|r| r.target == t && r.dataset == d)
                .filter_map(|r| Some((r, r.speedup()?)))
                .collect();
            let (slowest, s) = same
                .iter()
                .map(|(r, s)| (r.kernel.as_str(), *s))
                .min_by(|a, b| a.1.total_cmp(&b.1))
                .unwrap_or(("-", f64::NAN));
            let below: Vec<&Row> = same
                .iter()
                .filter(|(_, s)| *s < 1.0)
                .map(|(r, _)| *r)
                .collect();
            format!(
                "{t} at {d}: geometric mean {} over {n} kernels; slowest {slowest} {}, {}",
                times(Some(g)),
                times(Some(s)),
                below_one(&below)
            )
        })
        .collect();
    let failed = rows.iter().filter(|r| r.failure.is_some()).count();
    v.push(format!(
        "{} of {} measurements verified and timed{}",
        rows.len() - failed,
        rows.len(),
        if failed > 0 {
            format!(", {failed} failed")
        } else {
            String::new()
        }
    ));
    v
}

/// How many rows' medians are below 1.0×, and how many of those had a round at 1.0× or more
/// (a loss within the machine's spread, where the rest lost in every round).
fn below_one(below: &[&Row]) -> String {
    let mixed = below
        .iter()
        .filter(|r| r.round_speedups().iter().any(|&s| s >= 1.0))
        .count();
    match (below.len(), mixed) {
        (n, 0) => format!("{n} below 1.0×"),
        (n, m) => format!("{n} below 1.0× ({m} of them at 1.0× or more in some round)"),
    }
}

/// The table for the terminal, columns aligned.
pub fn terminal_table(rows: &[Row]) -> String {
    let cells = cells(rows);
    let widths: Vec<usize> = (0..cells[0].len())
        .map(|i| {
            cells
                .iter()
                .map(|r| r[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in &cells {
        let line: Vec<String> = r
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    for s in summary(rows) {
        let _ = writeln!(out, "{s}");
    }
    out
}

fn command_line() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    format!("polyc {}", args.join(" "))
}

pub fn markdown(cli: &BenchCli, plan: &Plan, machine: &Machine, rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "# polyc bench\n\nCommand: `{}`\n", command_line());
    for l in machine.lines() {
        let _ = writeln!(out, "- {l}");
    }
    let _ = writeln!(
        out,
        "\nSuite: {}. Original: `{} {}`. Verified at {} against the original's arrays; times are \
         PolyBench's kernel timer, medians of {} round-robin runs (each round starting one \
         program later), milliseconds; C target with {} OpenMP threads.\n",
        plan.suite.display(),
        polybench::harness::cc(),
        plan.baseline_cflags.join(" "),
        cli.verify_dataset,
        cli.runs,
        plan.threads
    );
    let cells = cells(rows);
    for (i, r) in cells.iter().enumerate() {
        let _ = writeln!(out, "| {} |", r.join(" | "));
        if i == 0 {
            let _ = writeln!(out, "|{}", "---|".repeat(r.len()));
        }
    }
    out.push('\n');
    for s in summary(rows) {
        let _ = writeln!(out, "- {s}");
    }
    let failures: Vec<&Row> = rows.iter().filter(|r| r.failure.is_some()).collect();
    if !failures.is_empty() {
        let _ = writeln!(out, "\n## Failures\n");
        for r in failures {
            let f = r.failure.as_ref().expect("filtered");
            let _ = writeln!(
                out,
                "### {} {} {} ({})\n\n```\n{}\n```\n",
                r.kernel,
                r.target,
                r.dataset,
                f.step.name(),
                f.reason.trim()
            );
        }
    }
    out
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

pub fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "kernel,category,target,dataset,verified,original_ms,polyc_ms,speedup,baseline_ms,baseline_speedup,configuration,failed_step,reason,original_runs_ms,polyc_runs_ms\n",
    );
    let num = |v: Option<f64>| v.map_or(String::new(), |x| format!("{x}"));
    let runs = |v: &[f64]| {
        v.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(";")
    };
    for r in rows {
        let fields = [
            r.kernel.clone(),
            r.category.clone(),
            r.target.to_string(),
            r.dataset.clone(),
            r.verified.to_string(),
            num(r.original_ms),
            num(r.polyc_ms),
            num(r.speedup()),
            num(r.baseline_ms),
            num(r.baseline_speedup()),
            r.configuration.clone(),
            r.failure
                .as_ref()
                .map_or(String::new(), |f| f.step.name().into()),
            r.failure
                .as_ref()
                .map_or(String::new(), |f| f.reason.clone()),
            runs(&r.original_runs),
            runs(&r.polyc_runs),
        ];
        let fields: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        let _ = writeln!(out, "{}", fields.join(","));
    }
    out
}

#[derive(Serialize)]
struct Geomean {
    target: String,
    dataset: String,
    geomean: f64,
    kernels: usize,
}

#[derive(Serialize)]
struct Json<'a> {
    command: String,
    machine: &'a Machine,
    suite: String,
    baseline_cflags: String,
    verify_dataset: &'a str,
    runs: u32,
    threads: u32,
    rows: &'a [Row],
    geomeans: Vec<Geomean>,
}

pub fn json(cli: &BenchCli, plan: &Plan, machine: &Machine, rows: &[Row]) -> String {
    let doc = Json {
        command: command_line(),
        machine,
        suite: plan.suite.display().to_string(),
        baseline_cflags: plan.baseline_cflags.join(" "),
        verify_dataset: &cli.verify_dataset,
        runs: cli.runs,
        threads: plan.threads,
        rows,
        geomeans: geomeans(rows)
            .into_iter()
            .map(|((target, dataset), (geomean, kernels))| Geomean {
                target,
                dataset,
                geomean,
                kernels,
            })
            .collect(),
    };
    serde_json::to_string_pretty(&doc).expect("the results serialise")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(kernel: &str, original: &[f64], polyc: &[f64]) -> Row {
        let median = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        Row {
            kernel: kernel.into(),
            category: "test".into(),
            target: "c",
            dataset: "MEDIUM".into(),
            verified: true,
            original_ms: Some(median(original)),
            polyc_ms: Some(median(polyc)),
            baseline_ms: None,
            original_runs: original.to_vec(),
            polyc_runs: polyc.to_vec(),
            configuration: "default".into(),
            profile: Vec::new(),
            failure: None,
        }
    }

    #[test]
    fn rounds_show_the_spread_and_which_losses_any_round_contradicts() {
        // Rounds 1.0/1.25 = 0.8, 1.1/1.0 = 1.1, 1.2/1.3 = 0.92: median 1.1/1.25 = 0.88x.
        let within = row("within", &[1.0, 1.1, 1.2], &[1.25, 1.0, 1.3]);
        assert_eq!(spread(&within), "0.80–1.10×");
        // Slower in every round.
        let lost = row("lost", &[1.0, 1.0, 1.0], &[2.0, 2.1, 1.9]);
        let won = row("won", &[2.0, 2.0, 2.0], &[1.0, 1.0, 1.0]);
        let rows = [within, lost, won];
        let text = summary(&rows)[0].clone();
        assert!(
            text.ends_with(
                "slowest lost 0.50×, 2 below 1.0× (1 of them at 1.0× or more in some round)"
            ),
            "{text}"
        );
        assert!(!summary(&rows[1..])[0].contains("some round"));
        let table = cells(&rows);
        let col = table[0].iter().position(|h| h == "rounds").unwrap();
        assert_eq!(table[3][col], "2.00–2.00×");
        assert_eq!(spread(&row("one", &[1.0], &[1.0])), "-");
    }

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"x\"\n"), "\"say \"\"x\"\"\n\"");
    }
}
