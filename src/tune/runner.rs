//! Running a generated program under one configuration: a tuning file written for the run
//! (`POLYC_TUNING`), the profile on, the variables that would override the file removed; what
//! each SCoP reported (its key, tiled depth, times) and what the program printed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use avelas_contract::tuning::{self, TuningFile};
use polybench::harness::within_last_digit;

/// What one SCoP reported over one run (summed over its executions).
#[derive(Debug, Clone, PartialEq)]
pub struct ScopReport {
    /// Its tuning key (`polyc-key:`).
    pub key: String,
    pub depth: usize,
    /// `time_ms`, summed.
    pub time_ms: f64,
    /// `kernel_ms` (GPU targets), summed.
    pub kernel_ms: Option<f64>,
    /// `untiled=` of its last execution (C target).
    pub untiled: Option<bool>,
    pub sizes_from: String,
    /// `tile_sizes=` of its last execution: with `sizes_from=default`, the program's defaults
    /// (32, but for a reduction's rows and a stencil's time, `codegen::host_printer`).
    pub tile_sizes: Vec<i64>,
    /// Whether its executions had different keys (parameter values).
    pub several_keys: bool,
}

impl ScopReport {
    /// The time a search compares: the kernels' on GPU targets, the SCoP's on the C target.
    pub fn cost(&self) -> f64 {
        self.kernel_ms.unwrap_or(self.time_ms)
    }
}

/// One profile line: the SCoP, its time (as [`ScopReport::cost`]), `untiled=`, `sizes_from=`,
/// and the key printed before it.
#[derive(Debug, Clone, PartialEq)]
pub struct Execution {
    pub scop: usize,
    pub cost: f64,
    pub untiled: Option<bool>,
    pub sizes_from: String,
    pub tile_sizes: Vec<i64>,
    pub key: Option<String>,
    pub depth: usize,
    pub time_ms: f64,
    pub kernel_ms: Option<f64>,
    /// `reassociates=1`: its floating-point reductions combine partial results, so that other
    /// configurations give other last bits.
    pub reassociates: bool,
}

/// One run's results.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub scops: BTreeMap<usize, ScopReport>,
    /// Every profile line, in order.
    pub executions: Vec<Execution>,
    /// `polyc-trial:` lines: SCoP, trial, how it ended.
    pub trials: Vec<(usize, usize, TrialEnd)>,
    /// SCoPs whose in-process trials were unavailable.
    pub no_trials: Vec<usize>,
    /// stdout, then stderr without polyc's own lines: what verification compares.
    pub output: String,
    pub wall: Duration,
}

/// How an in-process trial ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrialEnd {
    /// Its data equal the first run's (`match=1`).
    Matched,
    /// Its data differ (`match=0`).
    Differed,
    /// It ran past its cutoff and was stopped (`late=1`): its data are incomplete.
    Late,
}

/// Why a run gave no report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunFailure {
    /// It ran past its time limit and was killed.
    Timeout,
    /// It exited with a status other than 0, or was killed: what it said.
    Failed(String),
}

/// A program and how to run it.
pub struct Program {
    pub exe: PathBuf,
    pub args: Vec<String>,
    /// Where the run's tuning file is written.
    pub scratch: PathBuf,
}

/// The variables a run must not inherit: each overrides the tuning file, or floods stderr.
const OVERRIDES: [&str; 5] = [
    "POLYC_TILE_SIZES",
    "POLYC_MIN_POINTS",
    "POLYC_LOCAL_MEM",
    "POLYC_TRACE",
    "POLYC_TUNING",
];

impl Program {
    /// Runs the program once with `file` as its tuning file, killed after `limit`.
    pub fn run(&self, file: &TuningFile, limit: Duration) -> Result<RunReport, RunFailure> {
        self.run_trials(file, None, limit)
    }

    /// Runs the program once with `file` as its tuning file and, if any, the in-process trials
    /// `trials` (`SCOP SIZES` lines), killed after `limit`.
    pub fn run_trials(
        &self,
        file: &TuningFile,
        trials: Option<&str>,
        limit: Duration,
    ) -> Result<RunReport, RunFailure> {
        self.launch(file, trials, &[], limit)
    }

    /// Runs the program once without tuning entries, with the variables `env` too.
    pub fn run_with(&self, env: &[(&str, &str)], limit: Duration) -> Result<RunReport, RunFailure> {
        self.launch(&TuningFile::default(), None, env, limit)
    }

    fn launch(
        &self,
        file: &TuningFile,
        trials: Option<&str>,
        env: &[(&str, &str)],
        limit: Duration,
    ) -> Result<RunReport, RunFailure> {
        let path = self.scratch.join("candidate.tuning");
        std::fs::write(&path, file.render(&[]))
            .map_err(|e| RunFailure::Failed(format!("cannot write {}: {e}", path.display())))?;
        let mut cmd = Command::new(&self.exe);
        cmd.args(&self.args);
        for v in OVERRIDES {
            cmd.env_remove(v);
        }
        cmd.env_remove(tuning::TRIALS);
        if let Some(t) = trials {
            let path = self.scratch.join("trials");
            std::fs::write(&path, t)
                .map_err(|e| RunFailure::Failed(format!("cannot write {}: {e}", path.display())))?;
            cmd.env(tuning::TRIALS, path);
        }
        cmd.envs(env.iter().copied());
        cmd.env("POLYC_PROFILE", "1")
            .env(tuning::VARIABLE, &path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let child = cmd
            .spawn()
            .map_err(|e| RunFailure::Failed(format!("cannot run {}: {e}", self.exe.display())))?;
        let end = polybench::harness::run_to_end(child, limit).map_err(|e| {
            RunFailure::Failed(format!("cannot wait for {}: {e}", self.exe.display()))
        })?;
        let (status, stdout, stderr, wall) = (end.status, end.stdout, end.stderr, end.wall);
        let Some(status) = status else {
            return Err(RunFailure::Timeout);
        };
        if !status.success() {
            let tail: Vec<&str> = stderr.lines().rev().take(3).collect();
            let said: Vec<&str> = tail.into_iter().rev().collect();
            return Err(RunFailure::Failed(format!(
                "{status}: {}",
                said.join(" / ")
            )));
        }
        let p = read_profile(&stderr).map_err(RunFailure::Failed)?;
        Ok(RunReport {
            scops: scops_of(&p.executions),
            executions: p.executions,
            trials: p.trials,
            no_trials: p.no_trials,
            output: format!("{stdout}{}", p.rest),
            wall,
        })
    }
}

/// What a run's stderr says, read in one pass.
struct Profile {
    /// Every profile line, in order.
    executions: Vec<Execution>,
    /// `polyc-trial:` lines: SCoP, trial, how it ended.
    trials: Vec<(usize, usize, TrialEnd)>,
    /// SCoPs whose trials were unavailable.
    no_trials: Vec<usize>,
    /// The lines that are not polyc's.
    rest: String,
}

fn read_profile(stderr: &str) -> Result<Profile, String> {
    let mut p = Profile {
        executions: Vec::new(),
        trials: Vec::new(),
        no_trials: Vec::new(),
        rest: String::new(),
    };
    let mut key: Option<String> = None;
    for line in stderr.lines() {
        let fields: BTreeMap<&str, &str> =
            line.split(' ').filter_map(|f| f.split_once('=')).collect();
        let number = |k: &str| fields.get(k).and_then(|v| v.parse::<f64>().ok());
        let scop = fields.get("scop").and_then(|v| v.parse::<usize>().ok());
        if let Some(k) = line.strip_prefix("polyc-key: ") {
            key = Some(k.to_string());
        } else if line.starts_with("polyc: scop=") {
            let scop = scop.ok_or(format!("an unreadable profile line: {line}"))?;
            let time_ms =
                number("time_ms").ok_or(format!("a profile line without time_ms: {line}"))?;
            let kernel_ms = number("kernel_ms");
            p.executions.push(Execution {
                scop,
                cost: kernel_ms.unwrap_or(time_ms),
                untiled: fields.get("untiled").map(|u| *u == "1"),
                sizes_from: fields.get("sizes_from").unwrap_or(&"").to_string(),
                tile_sizes: fields
                    .get("tile_sizes")
                    .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect())
                    .unwrap_or_default(),
                key: key.take(),
                depth: number("tiled_depth").unwrap_or(0.0) as usize,
                time_ms,
                kernel_ms,
                reassociates: fields.get("reassociates") == Some(&"1"),
            });
        } else if line.starts_with("polyc-trial: ") {
            let end = match (fields.get("match"), fields.get("late")) {
                (Some(&"1"), _) => Some(TrialEnd::Matched),
                (Some(_), _) => Some(TrialEnd::Differed),
                (None, Some(&"1")) => Some(TrialEnd::Late),
                _ => None,
            };
            match (scop, number("trial"), end) {
                (Some(s), Some(t), Some(end)) => p.trials.push((s, t as usize, end)),
                (Some(s), _, _) if line.ends_with(" unavailable") => p.no_trials.push(s),
                _ => {}
            }
        } else if !line.starts_with("polyc") {
            p.rest.push_str(line);
            p.rest.push('\n');
        }
    }
    Ok(p)
}

/// Each SCoP's executions summed: its times, its last `untiled=` and `sizes_from=`, its first
/// key (and whether another came).
fn scops_of(executions: &[Execution]) -> BTreeMap<usize, ScopReport> {
    let mut scops: BTreeMap<usize, ScopReport> = BTreeMap::new();
    for e in executions {
        let s = scops.entry(e.scop).or_insert_with(|| ScopReport {
            key: String::new(),
            depth: e.depth,
            time_ms: 0.0,
            kernel_ms: None,
            untiled: None,
            sizes_from: String::new(),
            tile_sizes: Vec::new(),
            several_keys: false,
        });
        s.time_ms += e.time_ms;
        if let Some(k) = e.kernel_ms {
            s.kernel_ms = Some(s.kernel_ms.unwrap_or(0.0) + k);
        }
        s.untiled = e.untiled;
        s.sizes_from = e.sizes_from.clone();
        s.tile_sizes = e.tile_sizes.clone();
        match &e.key {
            Some(k) if s.key.is_empty() => s.key = k.clone(),
            Some(k) if s.key != *k => s.several_keys = true,
            _ => {}
        }
    }
    scops
}

/// How far a configuration's output may stray from the reference's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tolerance {
    /// Relative difference allowed between two numbers.
    pub relative: f64,
    /// Whether a number printed with a fraction may also differ by one unit of its last printed
    /// digit: on the GPU targets, where sums split across tiles add in an order that depends on
    /// the tile sizes (`docs/decisions.md`, "Sums across tiles on the GPU").
    pub last_digit: bool,
}

impl Tolerance {
    /// Equal text only.
    pub const EXACT: Tolerance = Tolerance {
        relative: 0.0,
        last_digit: false,
    };

    pub fn is_exact(&self) -> bool {
        *self == Tolerance::EXACT
    }
}

/// Whether two outputs agree: equal text, or equal but for numbers within `tolerance`.
pub fn agree(a: &str, b: &str, tolerance: Tolerance) -> bool {
    if a == b {
        return true;
    }
    if tolerance.is_exact() {
        return false;
    }
    let (ta, tb): (Vec<&str>, Vec<&str>) = (
        a.split_whitespace().collect(),
        b.split_whitespace().collect(),
    );
    let close = |x: &str, y: &str| match (x.parse::<f64>(), y.parse::<f64>()) {
        (Ok(u), Ok(v)) if (u - v).abs() <= tolerance.relative * u.abs().max(v.abs()).max(1.0) => {
            true
        }
        _ => tolerance.last_digit && (within_last_digit(x, y) || within_last_digit(y, x)),
    };
    ta.len() == tb.len() && ta.iter().zip(&tb).all(|(x, y)| x == y || close(x, y))
}

/// The executable's tuning file, where it finds it without `POLYC_TUNING`.
pub fn beside(exe: &Path, dir: Option<&Path>) -> PathBuf {
    let name = exe
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    let mut file = name;
    file.push(tuning::SUFFIX);
    match dir {
        Some(d) => d.join(file),
        None => exe.with_file_name(file),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_stderr(stderr: &str) -> Result<(BTreeMap<usize, ScopReport>, String), String> {
        let p = read_profile(stderr)?;
        Ok((scops_of(&p.executions), p.rest))
    }

    type Trials = (Vec<Execution>, Vec<(usize, usize, TrialEnd)>, Vec<usize>);

    fn parse_trials(stderr: &str) -> Trials {
        let p = read_profile(stderr).unwrap();
        (p.executions, p.trials, p.no_trials)
    }

    #[test]
    fn profile_lines_are_summed_per_scop() {
        let err = "polyc-key: program=a.c scop=0 id=0 target=c device=openmp-2 params=n=4\n\
                   polyc: scop=0 tile_sizes=8 sizes_from=tuned tiled_depth=1 wavefronts=1 tiles=1 launches=0 time_ms=1.5 untiled=0\n\
                   A = 1.00\n\
                   polyc: scop=0 tile_sizes=8 sizes_from=tuned tiled_depth=1 wavefronts=1 tiles=1 launches=0 time_ms=2.5 untiled=1\n";
        let (scops, rest) = parse_stderr(err).unwrap();
        let s = &scops[&0];
        assert_eq!((s.time_ms, s.depth, s.untiled), (4.0, 1, Some(true)));
        assert_eq!(
            (s.sizes_from.as_str(), s.tile_sizes.as_slice()),
            ("tuned", &[8][..])
        );
        assert!(s.key.ends_with("params=n=4"));
        assert_eq!((s.cost(), rest.as_str()), (4.0, "A = 1.00\n"));
    }

    #[test]
    fn trial_lines_are_read_in_order() {
        let err =
            "polyc: scop=1 tile_sizes=8 sizes_from=default tiled_depth=1 time_ms=3 untiled=1\n\
                   polyc: scop=1 tile_sizes=8 sizes_from=tuned tiled_depth=1 time_ms=2 untiled=0\n\
                   polyc-trial: scop=1 trial=1 match=0\n\
                   polyc-trial: scop=1 trial=2 late=1\n\
                   polyc-trial: scop=1 trial=3 match=1\n\
                   polyc-trial: scop=2 unavailable\n";
        let (e, t, n) = parse_trials(err);
        assert_eq!(e.len(), 2);
        assert_eq!(
            (e[1].cost, e[1].untiled, e[1].sizes_from.as_str()),
            (2.0, Some(false), "tuned")
        );
        let ends = vec![
            (1, 1, TrialEnd::Differed),
            (1, 2, TrialEnd::Late),
            (1, 3, TrialEnd::Matched),
        ];
        assert_eq!((t, n), (ends, vec![2]));
    }

    #[test]
    fn outputs_agree_within_a_tolerance() {
        let relative = |r| Tolerance {
            relative: r,
            last_digit: false,
        };
        assert!(agree("x 1.0\n", "x 1.0\n", Tolerance::EXACT));
        assert!(!agree("x 1.0\n", "x 1.0000001\n", Tolerance::EXACT));
        assert!(agree("x 1.0\n", "x 1.0000001\n", relative(1e-6)));
        assert!(!agree("x 1.0\n", "y 1.0\n", relative(1e-6)));
        assert!(!agree("1 2", "1", relative(1e-6)));
    }

    #[test]
    fn gpu_outputs_may_flip_a_last_printed_digit() {
        let gpu = Tolerance {
            relative: 1e-9,
            last_digit: true,
        };
        // A PolyBench dump (`%0.2lf`): a sum added in another order rounds the other way.
        assert!(agree("1234.56 7.00\n", "1234.57 7.00\n", gpu));
        assert!(agree("1234.57\n", "1234.56\n", gpu));
        assert!(!agree("1234.56\n", "1234.58\n", gpu));
        // Integers and text stay exact.
        assert!(!agree("1234 x\n", "1235 x\n", gpu));
        assert!(!agree(
            "1234.56\n",
            "1234.57\n",
            Tolerance {
                last_digit: false,
                ..gpu
            }
        ));
    }
}
