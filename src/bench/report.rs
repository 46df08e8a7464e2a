//! What `polyc bench` writes: a line per measurement while it runs, a table at the end, and in
//! `--out` Markdown, CSV and JSON with the machine's description.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::process::Command;

use serde::Serialize;

use super::stats::{Interval, Verdict};
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

/// A 95% interval of a speed-up (`0.91–1.20×`), or `-` where the runs are too few for one.
fn interval(i: Option<Interval>) -> String {
    i.map_or("-".into(), |i| {
        format!("{}–{}×", factor(i.low), factor(i.high))
    })
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
            "{} {} {}: original {} ms, polyc {} ms ({}), {}{}",
            row.kernel,
            row.target,
            row.dataset,
            ms(row.original_ms),
            ms(row.polyc_ms),
            row.configuration,
            times(row.speedup()),
            row.busy_ms.map_or(String::new(), |b| format!(
                "; beside a busy core {} ms, {} quiet",
                ms(Some(b)),
                times(row.busy_ratio())
            ))
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

fn has_busy(rows: &[Row]) -> bool {
    rows.iter().any(|r| r.busy_ms.is_some())
}

/// The most that polyc's program may run longer beside a busy core than on the quiet machine
/// (issue 13: "no kernel more than 2x slower than on a quiet machine").
const BUSY_BOUND: f64 = 2.0;

/// The table's cells, a row each (header first).
fn cells(rows: &[Row]) -> Vec<Vec<String>> {
    let baseline = has_baseline(rows);
    let busy = has_busy(rows);
    let mut header = vec![
        "kernel",
        "target",
        "dataset",
        "original ms",
        "polyc ms",
        "speed-up",
        "95% interval",
        "runs",
    ];
    if baseline {
        header.extend(["baseline ms", "speed-up", "polyc ÷ baseline, 95%"]);
    }
    if busy {
        header.extend(["busy ms", "busy ÷ quiet", "busy ÷ quiet, 95%"]);
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
            interval(r.interval()),
            r.polyc_runs.len().to_string(),
        ];
        if baseline {
            c.extend([
                ms(r.baseline_ms),
                times(r.baseline_speedup()),
                interval(r.against_baseline()),
            ]);
        }
        if busy {
            c.extend([
                ms(r.busy_ms),
                times(r.busy_ratio()),
                interval(r.busy_over_quiet()),
            ]);
        }
        c.extend([r.configuration.clone(), outcome(r)]);
        out.push(c);
    }
    out
}

fn summary(rows: &[Row]) -> Vec<String> {
    let mut v: Vec<String> = Vec::new();
    for ((t, d), (g, n)) in geomeans(rows) {
        let same: Vec<&Row> = rows
            .iter()
            .filter(|r| r.target == t && r.dataset == d)
            .collect();
        let speedups: Vec<(&Row, f64)> = same
            .iter()
            .filter_map(|r| Some((*r, r.speedup()?)))
            .collect();
        let (slowest, s) = speedups
            .iter()
            .map(|(r, s)| (r.kernel.as_str(), *s))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .unwrap_or(("-", f64::NAN));
        let below = speedups.iter().filter(|(_, s)| *s < 1.0).count();
        v.push(format!(
            "{t} at {d}: geometric mean {} over {n} kernels; slowest {slowest} {}, {below} below \
             1.0×; {}",
            times(Some(g)),
            times(Some(s)),
            shown(
                &same,
                Row::interval,
                Verdict::Slower,
                "slower than the original"
            )
        ));
        if same.iter().any(|r| r.baseline_ms.is_some()) {
            v.push(format!(
                "{t} at {d} against the baseline polyc: {}; {}",
                shown(&same, Row::against_baseline, Verdict::Faster, "faster"),
                shown(&same, Row::against_baseline, Verdict::Slower, "slower")
            ));
        }
        if same.iter().any(|r| r.busy_ms.is_some()) {
            v.push(busy_summary(&t, &d, &same));
        }
    }
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

/// polyc beside a busy core against the quiet machine: the highest ratio, the kernels over
/// `BUSY_BOUND`, and those whose whole interval lies over it.
fn busy_summary(target: &str, dataset: &str, rows: &[&Row]) -> String {
    let ratios: Vec<(&str, f64)> = rows
        .iter()
        .filter_map(|r| Some((r.kernel.as_str(), r.busy_ratio()?)))
        .collect();
    let (worst, w) = ratios
        .iter()
        .copied()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap_or(("-", f64::NAN));
    let over: Vec<&str> = ratios
        .iter()
        .filter(|(_, x)| *x > BUSY_BOUND)
        .map(|(k, _)| *k)
        .collect();
    let shown: Vec<&str> = rows
        .iter()
        .filter(|r| r.busy_over_quiet().is_some_and(|i| i.low > BUSY_BOUND))
        .map(|r| r.kernel.as_str())
        .collect();
    let list = |v: &[&str]| match v.len() {
        0 => "none".to_string(),
        _ => v.join(", "),
    };
    format!(
        "{target} at {dataset} beside a busy core: busy ÷ quiet at most {} ({worst}); over {}: \
         {}; shown over {} (95% intervals): {}",
        times(Some(w)),
        times(Some(BUSY_BOUND)),
        list(&over),
        times(Some(BUSY_BOUND)),
        list(&shown)
    )
}

/// Which rows' 95% intervals (`which`) lie wholly on the `side` of 1.0× that `what` names. A
/// median below 1.0× whose interval holds 1.0× is a difference the runs cannot tell from the
/// machine's noise. Rows that failed have no runs and are left out.
fn shown(rows: &[&Row], which: fn(&Row) -> Option<Interval>, side: Verdict, what: &str) -> String {
    let rows: Vec<&Row> = rows
        .iter()
        .copied()
        .filter(|r| r.failure.is_none())
        .collect();
    let names: Vec<&str> = rows
        .iter()
        .filter(|r| which(r).is_some_and(|i| i.verdict() == side))
        .map(|r| r.kernel.as_str())
        .collect();
    let unknown = rows.iter().filter(|r| which(r).is_none()).count();
    let too_few = match unknown {
        0 => String::new(),
        n => format!(", {n} with too few runs to tell"),
    };
    match names.len() {
        0 => format!("none shown {what} (95% intervals){too_few}"),
        n => format!(
            "{n} shown {what} (95% intervals): {}{too_few}",
            names.join(", ")
        ),
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
         PolyBench's kernel timer, medians of round-robin runs (each round starting one \
         program later; at least {}, more up to {} while a kernel's rounds took under {} s), \
         milliseconds; C target with {} OpenMP threads. The 95% interval of a speed-up is the \
         distribution-free one of the ratio of every pair of runs (Hodges-Lehmann, \
         Mann-Whitney): one wholly below 1.0× is a loss the runs show.\n",
        plan.suite.display(),
        polybench::harness::cc(),
        plan.baseline_cflags.join(" "),
        cli.verify_dataset,
        cli.runs,
        cli.max_runs.max(cli.runs),
        cli.min_seconds,
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
        "kernel,category,target,dataset,verified,original_ms,polyc_ms,speedup,speedup_low,speedup_high,baseline_ms,baseline_speedup,against_baseline_low,against_baseline_high,configuration,failed_step,reason,original_runs_ms,polyc_runs_ms,baseline_runs_ms,busy_ms,busy_over_quiet,busy_over_quiet_low,busy_over_quiet_high,busy_runs_ms\n",
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
            num(r.interval().map(|i| i.low)),
            num(r.interval().map(|i| i.high)),
            num(r.baseline_ms),
            num(r.baseline_speedup()),
            num(r.against_baseline().map(|i| i.low)),
            num(r.against_baseline().map(|i| i.high)),
            r.configuration.clone(),
            r.failure
                .as_ref()
                .map_or(String::new(), |f| f.step.name().into()),
            r.failure
                .as_ref()
                .map_or(String::new(), |f| f.reason.clone()),
            runs(&r.original_runs),
            runs(&r.polyc_runs),
            runs(&r.baseline_runs),
            num(r.busy_ms),
            num(r.busy_ratio()),
            num(r.busy_over_quiet().map(|i| i.low)),
            num(r.busy_over_quiet().map(|i| i.high)),
            runs(&r.busy_runs),
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

/// A row with its 95% intervals (`stats`).
#[derive(Serialize)]
struct JsonRow<'a> {
    #[serde(flatten)]
    row: &'a Row,
    interval: Option<Interval>,
    against_baseline: Option<Interval>,
    busy_over_quiet: Option<Interval>,
}

#[derive(Serialize)]
struct Json<'a> {
    command: String,
    machine: &'a Machine,
    suite: String,
    baseline_cflags: String,
    verify_dataset: &'a str,
    runs: u32,
    min_seconds: f64,
    max_runs: u32,
    threads: u32,
    rows: Vec<JsonRow<'a>>,
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
        min_seconds: cli.min_seconds,
        max_runs: cli.max_runs.max(cli.runs),
        threads: plan.threads,
        rows: rows
            .iter()
            .map(|row| JsonRow {
                row,
                interval: row.interval(),
                against_baseline: row.against_baseline(),
                busy_over_quiet: row.busy_over_quiet(),
            })
            .collect(),
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
            busy_ms: None,
            original_runs: original.to_vec(),
            polyc_runs: polyc.to_vec(),
            baseline_runs: Vec::new(),
            busy_runs: Vec::new(),
            configuration: "default".into(),
            profile: Vec::new(),
            failure: None,
        }
    }

    #[test]
    fn losses_count_where_the_intervals_show_them() {
        // Medians 1.1 against 1.2: 0.92x, but the runs overlap.
        let within = row(
            "within",
            &[1.0, 1.1, 1.2, 1.0, 1.1, 1.2],
            &[1.2, 1.0, 1.3, 1.1, 1.2, 1.25],
        );
        assert!(within.speedup().unwrap() < 1.0);
        assert_eq!(within.interval().unwrap().verdict(), Verdict::Unresolved);
        let lost = row("lost", &[1.0, 1.0, 1.1, 0.9], &[2.0, 2.1, 1.9, 2.0]);
        let won = row("won", &[2.0, 2.0, 2.1, 1.9], &[1.0, 1.0, 1.0, 1.0]);
        let few = row("few", &[1.0, 1.0], &[1.1, 1.1]);
        let rows = [within, lost, won, few];
        let text = summary(&rows)[0].clone();
        assert!(
            text.ends_with(
                "slowest lost 0.50×, 3 below 1.0×; 1 shown slower than the original (95% \
                 intervals): lost, 1 with too few runs to tell"
            ),
            "{text}"
        );
        let table = cells(&rows);
        let col = table[0].iter().position(|h| h == "95% interval").unwrap();
        assert_eq!(table[2][col], "0.43–0.58×");
        assert_eq!(table[4][col], "-");
        let runs = table[0].iter().position(|h| h == "runs").unwrap();
        assert_eq!(table[2][runs], "4");
        assert!(summary(&rows[2..3])[0]
            .ends_with("none shown slower than the original (95% intervals)"));
    }

    #[test]
    fn failed_rows_are_not_counted_as_too_few_runs() {
        let won = row("won", &[2.0, 2.0, 2.1, 1.9], &[1.0, 1.0, 1.0, 1.0]);
        let mut failed = row("failed", &[1.0], &[1.0]);
        failed.original_runs.clear();
        failed.polyc_runs.clear();
        failed.original_ms = None;
        failed.polyc_ms = None;
        failed.failure = Some(super::super::Failure {
            step: super::super::Step::Verify,
            reason: "differs".into(),
        });
        let text = summary(&[won, failed])[0].clone();
        assert!(
            text.ends_with("none shown slower than the original (95% intervals)"),
            "{text}"
        );
    }

    #[test]
    fn a_baseline_is_compared_with_its_own_intervals() {
        let mut faster = row("faster", &[3.0; 5], &[1.0, 1.1, 0.9, 1.0, 1.05]);
        faster.baseline_runs = vec![2.0, 2.1, 1.9, 2.0, 2.05];
        faster.baseline_ms = Some(2.0);
        let mut same = row("same", &[3.0; 5], &[1.0, 1.1, 0.9, 1.0, 1.05]);
        same.baseline_runs = vec![1.05, 1.0, 0.9, 1.1, 1.0];
        same.baseline_ms = Some(1.0);
        let lines = summary(&[faster, same]);
        assert_eq!(
            lines[1],
            "c at MEDIUM against the baseline polyc: 1 shown faster (95% intervals): faster; \
             none shown slower (95% intervals)"
        );
    }

    #[test]
    fn busy_runs_are_compared_with_the_quiet_ones() {
        let mut within = row("within", &[3.0; 5], &[1.0, 1.1, 0.9, 1.0, 1.05]);
        within.busy_runs = vec![1.5, 1.6, 1.4, 2.5, 1.5];
        within.busy_ms = Some(1.5);
        let mut scattered = row("scattered", &[3.0; 5], &[1.0, 1.1, 0.9, 1.0, 1.05]);
        scattered.busy_runs = vec![2.2, 1.5, 2.6, 2.1, 3.0];
        scattered.busy_ms = Some(2.2);
        let mut over = row("over", &[3.0; 5], &[1.0, 1.1, 0.9, 1.0, 1.05]);
        over.busy_runs = vec![2.6, 2.7, 2.5, 2.6, 2.8];
        over.busy_ms = Some(2.6);
        let rows = [within, scattered, over];
        assert_eq!(
            summary(&rows)[1],
            "c at MEDIUM beside a busy core: busy ÷ quiet at most 2.60× (over); over 2.00×: \
             scattered, over; shown over 2.00× (95% intervals): over"
        );
        let table = cells(&rows);
        let col = table[0].iter().position(|h| h == "busy ÷ quiet").unwrap();
        assert_eq!(table[1][col], "1.50×");
        assert_eq!(table[1][col - 1], "1.50");
        assert!(line(&rows[0]).ends_with("; beside a busy core 1.50 ms, 1.50× quiet"));
        // Rows without busy runs have no such columns.
        let plain = row("plain", &[3.0; 5], &[1.0; 5]);
        assert!(!cells(&[plain])[0].iter().any(|h| h.starts_with("busy")));
    }

    #[test]
    fn csv_fields_are_quoted_when_needed() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"x\"\n"), "\"say \"\"x\"\"\n\"");
    }
}
