//! The steps of one kernel on one target: compile with polyc, build with the system compilers,
//! verify the array dumps against the original program's, tune, time side by side.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use avelas_contract::tuning;
use indicatif::ProgressBar;
use polybench::harness::{self, Build};
use polybench::Kernel;

use super::{busy, BenchCli, Failure, Plan, Row, Step};
use crate::tune::median;
use crate::TargetArg;

/// The original program's array dump at the verification dataset, built once per kernel.
pub fn reference(plan: &Plan, k: &Kernel, dataset: &str, work: &Path) -> Result<String, Failure> {
    let exe = work.join(format!("{}-{dataset}-orig-dump", k.name));
    harness::compile(k, &k.source, &original_build(plan, dataset, true), &exe)
        .and_then(|()| harness::run(&exe, &[]))
        .map_err(|reason| Failure {
            step: Step::Original,
            reason,
        })
}

/// The original program's build: the baseline flags, PolyBench's timer or its dumps.
fn original_build(plan: &Plan, dataset: &str, dump: bool) -> Build {
    let mut cflags = plan.baseline_cflags.clone();
    if !dump {
        cflags.push("-DPOLYBENCH_TIME".into());
        // The suite's timer then prints nanoseconds' digits (a user's PolyBench ignores it).
        cflags.push("-DPOLYBENCH_TIME_NANOSECONDS".into());
    }
    Build {
        dataset: dataset.into(),
        openmp: false,
        cflags,
        dump_arrays: dump,
        ldflags: Vec::new(),
    }
}

/// One kernel on one target.
pub struct KernelBench<'a> {
    pub cli: &'a BenchCli,
    pub plan: &'a Plan,
    pub kernel: &'a Kernel,
    pub target: TargetArg,
    pub work: &'a Path,
    pub bar: &'a ProgressBar,
}

impl KernelBench<'_> {
    fn step(&self, dataset: &str, what: &str) {
        self.bar.set_message(format!(
            "{} {} {dataset}: {what}",
            self.kernel.name,
            self.target.flag()
        ));
    }

    /// This polyc and `--polyc-flags`.
    fn polyc(&self) -> (&Path, &str) {
        (&self.plan.polyc, &self.cli.polyc_flags)
    }

    /// The baseline's polyc and flags, if there is a baseline.
    fn baseline(&self) -> Option<(&Path, &str)> {
        let cli = self.cli;
        if cli.baseline_polyc.is_none() && cli.baseline_flags.is_none() {
            return None;
        }
        let polyc = cli.baseline_polyc.as_deref().unwrap_or(&self.plan.polyc);
        Some((polyc, cli.baseline_flags.as_deref().unwrap_or("")))
    }

    /// The environment of polyc's program under `configuration`.
    fn env(&self, configuration: &Option<String>) -> Vec<(String, String)> {
        let mut env = vec![("OMP_NUM_THREADS".to_string(), self.plan.threads.to_string())];
        if let Some(sizes) = configuration {
            env.push(("POLYC_TILE_SIZES".into(), sizes.clone()));
        }
        env
    }

    /// Compile with `polyc` (this one, or `--baseline-polyc`) and build at `dataset`; the
    /// executable.
    fn program(
        &self,
        (polyc, flags): (&Path, &str),
        tag: &str,
        dataset: &str,
        dump: bool,
    ) -> Result<PathBuf, Failure> {
        let k = self.kernel;
        let ext = if self.target == TargetArg::Cuda {
            "cu"
        } else {
            "c"
        };
        let name = format!(
            "{}-{}-{dataset}-{tag}{}",
            k.name,
            self.target.flag(),
            if dump { "-dump" } else { "" }
        );
        let source = self.work.join(format!("{name}.{ext}"));
        let build = original_build(self.plan, dataset, dump);
        let out = Command::new(polyc)
            .arg(&k.source)
            .args(build.cpp_flags(k))
            .args(flags.split_whitespace())
            .args(["--target", self.target.flag(), "-o"])
            .arg(&source)
            .output()
            .map_err(|e| {
                failure(
                    Step::Compile,
                    format!("cannot run {}: {e}", polyc.display()),
                )
            })?;
        if !out.status.success() {
            return Err(failure(
                Step::Compile,
                String::from_utf8_lossy(&out.stderr).trim().to_string(),
            ));
        }
        let exe = self.work.join(&name);
        self.build(&source, &build, &exe)
            .map_err(|reason| failure(Step::Build, reason))?;
        Ok(exe)
    }

    fn build(&self, source: &Path, build: &Build, exe: &Path) -> Result<(), String> {
        let target = self.target;
        if target == TargetArg::Cuda {
            return nvcc(self.kernel, source, build, exe);
        }
        let mut b = build.clone();
        b.openmp = target == TargetArg::C;
        b.cflags.extend(
            crate::build::cflags(target)
                .into_iter()
                .filter(|f| f != "-fopenmp"),
        );
        b.ldflags = crate::build::libs(target)?;
        harness::compile(self.kernel, source, &b, exe)
    }

    /// Builds polyc's program at the verification dataset and compares its dumps, under every
    /// configuration, with the original's (`reference`): exactly on the C target, within the
    /// device's rounding elsewhere.
    pub fn verify(&self, reference: &Result<String, Failure>) -> Result<(), Failure> {
        let dataset = &self.cli.verify_dataset;
        let reference = reference.as_ref().map_err(Clone::clone)?;
        self.step(dataset, "verify");
        let exe = self.program(self.polyc(), "polyc", dataset, true)?;
        for configuration in &self.plan.configurations {
            let env = self.env(configuration);
            let env: Vec<(&str, &str)> =
                env.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            let dump = harness::run(&exe, &env).map_err(|r| failure(Step::Verify, r))?;
            let differs = if self.target == TargetArg::C {
                harness::compare_dumps(reference, &dump)
            } else {
                compare_within_rounding(reference, &dump)
            };
            if let Some(d) = differs {
                let with = configuration
                    .as_deref()
                    .map_or(String::new(), |c| format!(" with POLYC_TILE_SIZES={c}"));
                return Err(failure(Step::Verify, format!("{dataset}{with}: {d}")));
            }
        }
        Ok(())
    }

    /// Times the original and polyc's program at `dataset`; `originals` holds the original's
    /// timing builds, shared by the targets.
    pub fn measure(
        &self,
        dataset: &str,
        verified: &Result<(), Failure>,
        originals: &mut BTreeMap<String, Result<PathBuf, Failure>>,
    ) -> Row {
        let mut row = Row {
            kernel: self.kernel.name.clone(),
            category: self.kernel.category.clone(),
            target: self.target.flag(),
            dataset: dataset.into(),
            verified: verified.is_ok(),
            original_ms: None,
            polyc_ms: None,
            baseline_ms: None,
            busy_ms: None,
            original_runs: Vec::new(),
            polyc_runs: Vec::new(),
            baseline_runs: Vec::new(),
            busy_runs: Vec::new(),
            configuration: String::new(),
            profile: Vec::new(),
            failure: None,
        };
        if let Err(e) = verified
            .clone()
            .and_then(|()| self.time(dataset, originals, &mut row))
        {
            row.failure = Some(e);
        }
        row
    }

    fn time(
        &self,
        dataset: &str,
        originals: &mut BTreeMap<String, Result<PathBuf, Failure>>,
        row: &mut Row,
    ) -> Result<(), Failure> {
        self.step(dataset, "build");
        let original = originals
            .entry(dataset.to_string())
            .or_insert_with(|| {
                let exe = self
                    .work
                    .join(format!("{}-{dataset}-orig", self.kernel.name));
                harness::compile(
                    self.kernel,
                    &self.kernel.source,
                    &original_build(self.plan, dataset, false),
                    &exe,
                )
                .map(|()| exe)
                .map_err(|r| failure(Step::Original, r))
            })
            .clone()?;
        let exe = self.program(self.polyc(), "polyc", dataset, false)?;
        let baseline = match self.baseline() {
            Some(b) => Some(self.program(b, "baseline", dataset, false)?),
            None => None,
        };
        if self.cli.tune {
            self.step(dataset, "tune");
            self.tune(&exe, dataset)?;
        }
        let mut variants = vec![Variant::new(original, Vec::new())];
        for c in &self.plan.configurations {
            variants.push(Variant::new(exe.clone(), self.env(c)));
        }
        let has_baseline = baseline.is_some();
        if let Some(b) = baseline {
            variants.push(Variant::new(b, self.env(&None)));
        }
        if self.cli.busy {
            let mut busy = Variant::new(exe.clone(), self.env(&self.plan.configurations[0]));
            busy.busy = true;
            variants.push(busy);
        }
        let started = Instant::now();
        let mut run = 0;
        while more_rounds(self.cli, run, started.elapsed()) {
            self.step(
                dataset,
                &format!("time, run {} (at least {})", run + 1, self.cli.runs),
            );
            // Each round starts one variant later: the run just after the original's sometimes
            // ran slower on the 2-core VM (doitgen MEDIUM, the same program three times in a
            // row after the original: 1.63, 1.45 and 1.49 ms), and no variant should always
            // take that place.
            let n = variants.len();
            for k in 0..n {
                let v = &mut variants[(k + run as usize) % n];
                let spinner = v.busy.then(busy::Spinner::start);
                let t = time_one(&v.exe, &v.env, self.plan.limit)
                    .map_err(|r| failure(Step::Time, r))?;
                drop(spinner);
                // Milliseconds; the suite's timer prints nanoseconds' digits, PolyBench's microseconds'.
                v.times.push((t * 1e9).round() / 1e6);
            }
            run += 1;
        }
        let configs = &variants[1..=self.plan.configurations.len()];
        let best = (0..configs.len())
            .min_by(|&a, &b| configs[a].median().total_cmp(&configs[b].median()))
            .unwrap_or(0);
        row.original_ms = Some(variants[0].median());
        row.original_runs = variants[0].times.clone();
        row.polyc_ms = Some(configs[best].median());
        row.polyc_runs = configs[best].times.clone();
        let mut extra = variants[1 + configs.len()..].iter();
        if has_baseline {
            let baseline = extra.next().expect("the baseline's variant");
            row.baseline_ms = Some(baseline.median());
            row.baseline_runs = baseline.times.clone();
        }
        if let Some(busy) = extra.next() {
            row.busy_ms = Some(busy.median());
            row.busy_runs = busy.times.clone();
        }
        let chosen = &self.plan.configurations[best];
        row.configuration = match chosen {
            Some(c) => c.clone(),
            None if self.cli.tune => "tuned".into(),
            None => "default".into(),
        };
        row.profile = profile(&exe, &self.env(chosen));
        Ok(())
    }

    /// `polyc tune` on the program built with array dumps (the timed build prints its time, which
    /// differs from run to run, so the tuner could verify nothing by it), then its tuning file
    /// beside `exe`, whose SCoPs have the same keys (same generated code and parameters).
    fn tune(&self, exe: &Path, dataset: &str) -> Result<(), Failure> {
        let dumps = self.program(self.polyc(), "polyc", dataset, true)?;
        let out = Command::new(&self.plan.polyc)
            .arg("tune")
            .arg(&dumps)
            .env("OMP_NUM_THREADS", self.plan.threads.to_string())
            .output()
            .map_err(|e| failure(Step::Tune, e.to_string()))?;
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            return Err(failure(Step::Tune, last_lines(&err, 5)));
        }
        let file = |p: &Path| PathBuf::from(format!("{}{}", p.display(), tuning::SUFFIX));
        std::fs::copy(file(&dumps), file(exe))
            .map(|_| ())
            .map_err(|e| failure(Step::Tune, format!("polyc tune wrote no tuning file: {e}")))
    }
}

/// Whether to time another round after `done` of them, `spent` since the first began: always
/// up to `--runs`, then while the rounds took less than `--min-seconds`, up to `--max-runs`.
fn more_rounds(cli: &BenchCli, done: u32, spent: Duration) -> bool {
    done < cli.runs || (done < cli.max_runs && spent.as_secs_f64() < cli.min_seconds)
}

fn failure(step: Step, reason: String) -> Failure {
    Failure { step, reason }
}

/// A program with its environment and its times (ms).
struct Variant {
    exe: PathBuf,
    env: Vec<(String, String)>,
    /// Timed beside a busy core (`--busy`).
    busy: bool,
    times: Vec<f64>,
}

impl Variant {
    fn new(exe: PathBuf, env: Vec<(String, String)>) -> Variant {
        Variant {
            exe,
            env,
            busy: false,
            times: Vec::new(),
        }
    }

    fn median(&self) -> f64 {
        median(&self.times)
    }
}

/// One run: the time PolyBench's timer prints (seconds), or why there is none.
fn time_one(exe: &Path, env: &[(String, String)], limit: Duration) -> Result<f64, String> {
    let child = Command::new(exe)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let end = harness::run_to_end(child, limit).map_err(|e| e.to_string())?;
    let Some(status) = end.status else {
        return Err(format!("ran past the limit of {} s", limit.as_secs()));
    };
    if !status.success() {
        return Err(format!(
            "exited with {status}: {}",
            last_lines(&end.stderr, 5)
        ));
    }
    end.stdout
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .ok_or_else(|| "printed no time (is it a PolyBench program?)".to_string())
}

/// The profile lines (`polyc: scop=...`) of one run with `POLYC_PROFILE=1`.
fn profile(exe: &Path, env: &[(String, String)]) -> Vec<String> {
    let Ok(out) = Command::new(exe)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .env("POLYC_PROFILE", "1")
        .output()
    else {
        return Vec::new();
    };
    String::from_utf8_lossy(&out.stderr)
        .lines()
        .filter(|l| l.starts_with("polyc: scop="))
        .map(|l| l.trim_start_matches("polyc: ").to_string())
        .collect()
}

fn last_lines(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// nvcc on the generated `.cu` and PolyBench's `polybench.c` (as CUDA C++, so that their
/// functions link), with the host compiler's flags passed through.
fn nvcc(k: &Kernel, source: &Path, build: &Build, exe: &Path) -> Result<(), String> {
    let utilities = polybench::utilities_of(k);
    let (host, defines): (Vec<&String>, Vec<&String>) =
        build.cflags.iter().partition(|f| !f.starts_with("-D"));
    let mut cmd = Command::new("nvcc");
    cmd.args(["-O3", "-arch=native"])
        .args(crate::build::cflags(TargetArg::Cuda))
        .args(defines)
        .args(build.cpp_flags(k))
        .args(build.dump_arrays.then_some("-DPOLYBENCH_DUMP_ARRAYS"));
    if !host.is_empty() {
        let joined: Vec<&str> = host.iter().map(|s| s.as_str()).collect();
        cmd.arg(format!("-Xcompiler={}", joined.join(",")));
    }
    cmd.arg(source)
        .args(["-x", "cu"])
        .arg(utilities.join("polybench.c"))
        .arg("-o")
        .arg(exe)
        .args(crate::build::libs(TargetArg::Cuda)?);
    let out = cmd.output().map_err(|e| format!("cannot run nvcc: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "nvcc failed on {}:\n{}",
            source.display(),
            last_lines(&String::from_utf8_lossy(&out.stderr), 10)
        ))
    }
}

/// Where two array dumps differ by more than the device's rounding, if anywhere: words must be
/// equal, numbers within a relative 1e-6 or one unit of their last printed digit (a value on a
/// rounding boundary may print either way).
pub fn compare_within_rounding(expected: &str, actual: &str) -> Option<String> {
    let (e, a): (Vec<&str>, Vec<&str>) = (
        expected.split_whitespace().collect(),
        actual.split_whitespace().collect(),
    );
    if e.len() != a.len() {
        return Some(format!("dumps have {} and {} words", e.len(), a.len()));
    }
    let bad = e.iter().zip(&a).position(|(x, y)| !close(x, y))?;
    Some(format!(
        "dumps differ at word {} of {} (expected `{}`, got `{}`)",
        bad + 1,
        e.len(),
        e[bad],
        a[bad]
    ))
}

fn close(x: &str, y: &str) -> bool {
    if x == y {
        return true;
    }
    let (Ok(a), Ok(b)) = (x.parse::<f64>(), y.parse::<f64>()) else {
        return false;
    };
    let digits = |s: &str| s.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
    let unit = 10f64.powi(-digits(x).max(digits(y)));
    let diff = (a - b).abs();
    diff <= unit * 1.000_001 || diff <= 1e-6 * a.abs().max(b.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_differences_are_within_tolerance() {
        assert_eq!(compare_within_rounding("A 1.25 2.00", "A 1.26 2.00"), None);
        assert!(compare_within_rounding("A 1.25", "A 1.27").is_some());
        assert!(compare_within_rounding("A 1.25", "B 1.25").is_some());
        assert!(compare_within_rounding("A 1.25", "A 1.25 1").is_some());
        assert_eq!(
            compare_within_rounding("x 12345678.00", "x 12345679.00"),
            None
        );
    }

    #[test]
    fn short_kernels_get_more_rounds_up_to_the_cap() {
        use clap::Parser;
        let cli = |extra: &[&str]| {
            BenchCli::parse_from(["polyc", "bench", "--runs", "3"].iter().chain(extra))
        };
        let secs = Duration::from_secs_f64;
        let default = cli(&[]);
        assert!(more_rounds(&default, 2, secs(100.0)), "--runs always");
        assert!(!more_rounds(&default, 3, secs(2.5)), "a long kernel stops");
        assert!(more_rounds(&default, 3, secs(0.5)), "a short one goes on");
        assert!(!more_rounds(&default, 51, secs(0.5)), "up to --max-runs");
        let exact = cli(&["--min-seconds", "0"]);
        assert!(!more_rounds(&exact, 3, secs(0.0)));
        let capped = cli(&["--max-runs", "2"]);
        assert!(
            more_rounds(&capped, 2, secs(0.0)),
            "never fewer than --runs"
        );
        assert!(!more_rounds(&capped, 3, secs(0.0)));
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
    }
}
