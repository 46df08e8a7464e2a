//! `polyc tune`: searches each SCoP's tile sizes (the original order on the C target, local-
//! memory windows on GPU targets) by running the program, verifies every configuration's output
//! against the default's, and writes the best into the program's tuning file, with every
//! measurement (JSON) and a plot of the search (SVG). See `docs/interfaces.md`, "polyc tune".
//!
//! The SCoPs of a program are searched together: each run gives every SCoP its next
//! configuration, and each SCoP is timed by its own profile line.

pub mod plot;
pub mod recompile;
pub mod runner;
pub mod space;
pub mod strategy;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use avelas_contract::tuning::{self, Entry, Tuned, TuningFile};
use clap::Parser;
use indicatif::{ProgressBar, ProgressStyle};

use runner::{agree, beside, Program, RunFailure, RunReport, Tolerance, TrialEnd};
use space::{Candidate, Space, Values};
use strategy::{best, Kind, Measured, Search};

use crate::TargetArg;

/// `polyc tune`.
#[derive(Parser, Debug)]
#[command(
    name = "polyc tune",
    about = "Search each SCoP's tile sizes by running the program, verify each configuration's output, and write the best into the program's tuning file (docs/interfaces.md, \"polyc tune\")"
)]
pub struct TuneCli {
    #[arg(value_parser = ["tune"], hide = true)]
    pub verb: String,
    /// A program built by `polyc build`, or the C file to build first (then any other C files
    /// to build with it).
    #[arg(required = true)]
    pub sources: Vec<PathBuf>,
    /// Building: the target (default: the best device present).
    #[arg(long, value_enum)]
    pub target: Option<TargetArg>,
    /// Building: the preprocessor's flags.
    #[command(flatten)]
    pub pp: crate::build::Preprocessor,
    /// How the space is searched.
    #[arg(long, value_enum, default_value = "guided")]
    pub strategy: Kind,
    /// At most this many configurations per SCoP.
    #[arg(long, value_name = "N")]
    pub budget: Option<usize>,
    /// Stop starting runs after this many seconds.
    #[arg(long, value_name = "S")]
    pub budget_seconds: Option<f64>,
    /// Runs per configuration; each SCoP's time is their median.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub reps: u32,
    /// The smallest tile size tried.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(i64).range(1..=1_000_000_000))]
    pub min_size: i64,
    /// The largest tile size tried (the problem's largest parameter bounds it too).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(i64).range(1..=1_000_000_000))]
    pub max_size: i64,
    /// Tile sizes tried: powers of two, or those and the values halfway between.
    #[arg(long, value_enum, default_value = "between")]
    pub values: ValuesArg,
    /// Run every configuration in a process of its own (the C target otherwise tries a batch of
    /// configurations inside one process, restoring the data the SCoP writes before each).
    #[arg(long)]
    pub per_process: bool,
    /// Stop an in-process trial once it has run this many times as long as its SCoP's fastest
    /// run in the process, and 10 ms (0: run every trial to its end). A configuration stopped in
    /// most of its trials is never chosen.
    #[arg(long, value_name = "FACTOR", default_value_t = 1.5, value_parser = cutoff_factor)]
    pub cutoff: f64,
    /// Also measure the configurations the search measured (those of the first tiled SCoP) the
    /// iterative-compilation way, sizes fixed at compile time and the program rebuilt for each,
    /// and report both searches' times (tuning a C file, C target).
    #[arg(long)]
    pub compare_recompile: bool,
    /// Do not compare outputs (for programs whose output differs from run to run).
    #[arg(long)]
    pub no_verify: bool,
    /// Relative difference allowed between numbers of two outputs (default: 0 on the C target,
    /// 1e-9 on GPU targets, where a number may also differ by one unit of its last printed digit).
    #[arg(long, value_name = "REL")]
    pub tolerance: Option<f64>,
    /// The random strategy's seed.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where the tuning file, the measurements and the plot go (default: beside the program).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The program's arguments, after `--`.
    #[arg(last = true)]
    pub args: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ValuesArg {
    Pow2,
    Between,
}

/// Test hook: the output of runs that give a SCoP this configuration (as `polyc tune` prints
/// it) is altered, as if the configuration computed something else.
const CORRUPT: &str = "POLYC_TUNE_CORRUPT";

/// Run `polyc tune`; the exit status.
pub fn main(args: Vec<String>) -> i32 {
    let cli = TuneCli::parse_from(args);
    if cli.min_size > cli.max_size {
        eprintln!("polyc: error: --min-size is above --max-size");
        return 2;
    }
    if let Err(e) = crate::build::check_macros(&cli.pp.define, &cli.pp.undefine) {
        eprintln!("polyc: error: {e}");
        return 2;
    }
    let is_c = cli.sources[0].extension().is_some_and(|e| e == "c");
    if cli.compare_recompile && (!is_c || cli.target.is_some_and(|t| t != TargetArg::C)) {
        eprintln!("polyc: error: --compare-recompile rebuilds the program: give the C file, and the C target");
        return 2;
    }
    match tune(&cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("polyc: {e}");
            1
        }
    }
}

/// One measurement of the search.
#[derive(Debug, Clone)]
pub struct Measurement {
    pub scop: usize,
    pub candidate: Candidate,
    /// The SCoP's time in each run.
    pub samples: Vec<f64>,
    /// `ok`, `late`, `mismatch`, `failed`, `timeout`, `not-applied`.
    pub status: &'static str,
}

impl Measurement {
    /// The median time of a configuration measured to its end.
    pub fn median(&self) -> Option<f64> {
        (self.status == "ok").then(|| median(&self.samples))
    }

    /// What the search knows of the configuration's time: its median, or for one whose trials
    /// were mostly stopped (`late`), the median of their times when they were stopped: a lower
    /// bound, at least `--cutoff` times the best so far, so it never is the best (`None`:
    /// rejected).
    pub fn known(&self) -> Option<f64> {
        match self.status {
            "late" => Some(median(&self.samples)),
            _ => self.median(),
        }
    }
}

/// `--cutoff`: 0, or a factor of at least 1.
fn cutoff_factor(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(f) if f == 0.0 || (1.0..=1e9).contains(&f) => Ok(f),
        _ => Err("expected 0 or a number from 1 to 1e9".into()),
    }
}

pub fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    match s.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => s[n / 2],
        n => (s[n / 2 - 1] + s[n / 2]) / 2.0,
    }
}

/// What a search knows of one SCoP.
pub struct ScopSearch {
    pub key: String,
    pub search: Search,
    pub measured: Measured,
    pub default_ms: f64,
    /// The configuration the default runs (the original order, or 32 everywhere).
    pub default: Candidate,
    /// The finalists, each measured again in processes of its own: median ms (`None`: rejected).
    pub confirmed: Vec<(Candidate, Option<f64>)>,
}

impl ScopSearch {
    /// The configuration to write: the fastest finalist, else the search's best.
    pub fn chosen(&self) -> Option<(&Candidate, f64)> {
        let confirmed = self
            .confirmed
            .iter()
            .filter_map(|(c, t)| t.map(|t| (c, t)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if confirmed.is_some() || !self.confirmed.is_empty() {
            // Every finalist rejected when run alone: none of the search's is trusted either.
            return confirmed;
        }
        best(&self.measured)
    }
}

fn tune(cli: &TuneCli) -> Result<i32, String> {
    let scratch = tempfile::Builder::new()
        .prefix("polyc-tune-")
        .tempdir()
        .map_err(|e| format!("cannot create a scratch directory: {e}"))?;
    let (exe, out_dir) = program(cli)?;
    std::fs::create_dir_all(&out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let program = Program {
        exe: exe.clone(),
        args: cli.args.clone(),
        scratch: scratch.path().to_path_buf(),
    };
    let started = Instant::now();
    let reference = reference(&program, cli)?;
    let tolerance = reference.tolerance;
    let limit = (reference.wall * 10).max(Duration::from_secs(2));
    let mut scops = spaces(cli, &reference);
    if scops.is_empty() {
        return Err(format!(
            "{} reported no tiled SCoP (was it built by polyc, without --fixed-tile-sizes or --no-tile?)",
            exe.display()
        ));
    }
    let total: usize = scops
        .values()
        .map(|s| {
            let budget = s.search.limit(cli.budget).unwrap_or(usize::MAX);
            s.search.space.len().min(budget)
        })
        .max()
        .unwrap_or(0);
    let bar = progress(cli.strategy, total);
    let mut log: Vec<Measurement> = Vec::new();
    let mut runs = 0usize;
    let corrupt = std::env::var(CORRUPT).ok();
    let check = Check {
        program: &program,
        reference: &reference.output,
        tolerance,
        verify: !cli.no_verify,
        reps: cli.reps,
        limit,
        corrupt: corrupt.as_deref(),
        cutoff: cli.cutoff,
    };
    // In-process trials compare data byte for byte: a tolerance needs whole outputs compared.
    let mut in_process = reference.target == "c" && !cli.per_process && tolerance.is_exact();
    // The C reader holds at most MAX_ENTRIES trial lines a run.
    let batch_max =
        (tuning::MAX_ENTRIES / (cli.reps as usize * scops.len().max(1))).clamp(1, BATCH);
    loop {
        let over_time = cli
            .budget_seconds
            .is_some_and(|s| started.elapsed().as_secs_f64() > s);
        if over_time {
            break;
        }
        let batch = next_batch(
            &mut scops,
            cli.budget,
            if in_process { batch_max } else { 1 },
        );
        if batch.is_empty() {
            break;
        }
        let mut results = Vec::new();
        if in_process {
            match check.in_process(&batch) {
                Some((r, n)) => {
                    results = r;
                    runs += n;
                }
                None => {
                    in_process = false;
                    runs += 1;
                    bar.suspend(|| {
                        eprintln!("polyc: in-process trials are not available for this program (a SCoP writes data of unknown size, or too much, or a trial failed); one process per configuration")
                    });
                }
            }
        }
        if results.is_empty() {
            // One process per configuration: every SCoP's i-th configuration in the i-th runs.
            let longest = batch.iter().map(|(_, c)| c.len()).max().unwrap_or(0);
            for i in 0..longest {
                let plan: Vec<(usize, Candidate)> = batch
                    .iter()
                    .filter_map(|(scop, cs)| cs.get(i).map(|c| (*scop, c.clone())))
                    .collect();
                let (r, n) = check.plan(&scops, &plan);
                runs += n;
                results.extend(r);
            }
        }
        for m in results {
            // The original order is offered to every SCoP of the C target; those without one
            // just do not apply it. A stopped trial is what the cutoff is for.
            let quiet = m.status == "ok"
                || m.status == "late"
                || (m.status == "not-applied" && m.candidate.tuned == Tuned::Untiled);
            if !quiet {
                bar.suspend(|| {
                    eprintln!(
                        "polyc: scop={} {}: {} — never chosen",
                        m.scop,
                        m.candidate,
                        explain(m.status)
                    )
                });
            }
            let s = scops.get_mut(&m.scop).expect("planned SCoPs exist");
            let mut known = m.known();
            if m.status == "late" {
                // Stopped against the process's fastest run, which noise may have put below
                // the best median: kept above the best, it can never be taken for it.
                let floor = best(&s.measured).map_or(0.0, |b| cli.cutoff * b.1);
                known = known.map(|t| t.max(floor));
            }
            s.measured.insert(m.candidate.clone(), known);
            log.push(m);
            bar.inc(0);
        }
        bar.set_position(scops.values().map(|s| s.measured.len()).max().unwrap_or(0) as u64);
        bar.set_message(best_line(&scops));
    }
    let search_seconds = started.elapsed().as_secs_f64() - reference.seconds;
    let recompiled = match (cli.compare_recompile, scops.keys().next()) {
        (true, Some(&first)) => {
            bar.set_message("rebuilding for --compare-recompile");
            Some(recompile::compare(
                cli,
                first,
                &log,
                &reference.output,
                scratch.path(),
                limit,
            )?)
        }
        _ => None,
    };
    bar.set_message("measuring the finalists one process each");
    runs += confirm(&check, &mut scops);
    bar.finish_and_clear();
    if let Some(r) = &recompiled {
        let searched = log
            .iter()
            .filter(|m| Some(&m.scop) == scops.keys().next())
            .count();
        println!(
            "polyc tune: iterative compilation measured {} configurations in {:.1} s ({:.2} s each); this search measured {searched} in {search_seconds:.1} s ({:.3} s each): {:.1}x cheaper{}",
            r.configurations,
            r.seconds,
            r.seconds / r.configurations.max(1) as f64,
            search_seconds / searched.max(1) as f64,
            r.seconds / search_seconds.max(1e-9),
            if r.mismatches > 0 { format!("; {} rebuilt runs printed something else", r.mismatches) } else { String::new() }
        );
    }
    let rebuilding = Duration::from_secs_f64(recompiled.as_ref().map_or(0.0, |r| r.seconds));
    report(
        cli,
        &exe,
        &out_dir,
        &program,
        &reference,
        &scops,
        &log,
        runs,
        started.elapsed().saturating_sub(rebuilding),
        recompiled.as_ref(),
    )
}

fn explain(status: &str) -> &'static str {
    match status {
        "mismatch" => "its output differs from the default configuration's",
        "failed" => "the program failed",
        "timeout" => "it ran more than 10 times as long as the default",
        _ => "the program did not apply it (the SCoP has no such variant)",
    }
}

/// The executable to tune (built first from C sources) and the output directory.
fn program(cli: &TuneCli) -> Result<(PathBuf, PathBuf), String> {
    let first = &cli.sources[0];
    let is_c = first.extension().is_some_and(|e| e == "c");
    if !is_c {
        if cli.sources.len() > 1 || !cli.pp.include.is_empty() || !cli.pp.define.is_empty() {
            return Err(format!(
                "{} is a program: C files, -I and -D apply only when tuning a C file",
                first.display()
            ));
        }
        if !first.is_file() {
            return Err(format!("{}: no such program", first.display()));
        }
        let exe = std::fs::canonicalize(first).map_err(|e| format!("{}: {e}", first.display()))?;
        let dir = cli
            .out
            .clone()
            .unwrap_or_else(|| exe.parent().unwrap_or(Path::new(".")).into());
        return Ok((exe, dir));
    }
    let dir = cli.out.clone().unwrap_or_else(|| PathBuf::from("."));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let stem = first
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let exe = dir.join(&stem);
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut cmd = Command::new(me);
    cmd.arg("build").args(&cli.sources).arg("-o").arg(&exe);
    // --compare-recompile rebuilds for the C target: the search must run the same programs.
    if let Some(t) = cli.target.or(cli.compare_recompile.then_some(TargetArg::C)) {
        cmd.arg("--target").arg(t.flag());
    }
    cmd.args(cli.pp.flags());
    let status = cmd.status().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("building {} failed", first.display()));
    }
    let exe = std::fs::canonicalize(&exe).map_err(|e| format!("{}: {e}", exe.display()))?;
    Ok((exe, dir))
}

/// The default configuration's runs: what every other must print, and each SCoP's time.
pub struct Reference {
    pub output: String,
    /// How long its runs took.
    pub seconds: f64,
    pub runs: Vec<RunReport>,
    pub wall: Duration,
    pub target: String,
    /// How far a configuration's output may stray from `output`.
    pub tolerance: Tolerance,
}

fn reference(program: &Program, cli: &TuneCli) -> Result<Reference, String> {
    let started = Instant::now();
    let mut runs = Vec::new();
    // Two runs at least, to see whether the output is reproducible at all.
    for _ in 0..cli.reps.max(2) {
        let r = program
            .run(&TuningFile::default(), Duration::from_secs(3600))
            .map_err(|e| match e {
                RunFailure::Timeout => "the program ran for over an hour".to_string(),
                RunFailure::Failed(why) => {
                    format!("the program failed with its default configuration: {why}")
                }
            })?;
        runs.push(r);
    }
    let output = runs[0].output.clone();
    if !cli.no_verify && runs.iter().any(|r| r.output != output) {
        return Err(
            "the program's output differs between two runs of the same configuration, so no configuration can be verified by it; --no-verify tunes without verifying".into(),
        );
    }
    let walls: Vec<f64> = runs.iter().map(|r| r.wall.as_secs_f64()).collect();
    let target = runs[0]
        .scops
        .values()
        .find_map(|s| s.key.split(" target=").nth(1))
        .and_then(|t| t.split(' ').next())
        .unwrap_or("c")
        .to_string();
    // GPU targets, and C programs whose reductions combine partial results, compute the same
    // values up to the order of floating-point operations.
    let reassociated = target != "c" || runs[0].executions.iter().any(|e| e.reassociates);
    Ok(Reference {
        output,
        seconds: started.elapsed().as_secs_f64(),
        wall: Duration::from_secs_f64(median(&walls)),
        runs,
        target,
        tolerance: Tolerance {
            relative: cli
                .tolerance
                .unwrap_or(if reassociated { 1e-9 } else { 0.0 }),
            last_digit: reassociated,
        },
    })
}

/// Each tiled SCoP's search space, from the reference runs.
fn spaces(cli: &TuneCli, reference: &Reference) -> BTreeMap<usize, ScopSearch> {
    let values = match cli.values {
        ValuesArg::Pow2 => Values::Pow2,
        ValuesArg::Between => Values::Between,
    };
    let mut out = BTreeMap::new();
    for (&scop, r) in &reference.runs[0].scops {
        if r.depth == 0 || r.key.is_empty() {
            continue;
        }
        if r.several_keys {
            eprintln!("polyc: scop={scop} runs with several parameter values in one run of the program; it is not tuned (a tuning entry serves one set of values)");
            continue;
        }
        let extent = largest_param(&r.key).unwrap_or(cli.max_size);
        let mut space = Space::new(r.depth, cli.min_size, cli.max_size, extent, values);
        if r.key.contains(" target=c ") {
            space.untiled = true;
        } else {
            space.windows = space::WINDOWS.to_vec();
        }
        let times: Vec<f64> = reference
            .runs
            .iter()
            .filter_map(|run| run.scops.get(&scop).map(|s| s.cost()))
            .collect();
        out.insert(
            scop,
            ScopSearch {
                key: r.key.clone(),
                search: Search::new(cli.strategy, space, cli.seed.wrapping_add(scop as u64)),
                measured: Measured::new(),
                default_ms: median(&times),
                default: if r.untiled == Some(true) {
                    Candidate {
                        tuned: Tuned::Untiled,
                        local_mem: None,
                    }
                } else if r.sizes_from == "default" && r.tile_sizes.len() == r.depth {
                    // The sizes the program chose by itself (a stencil's time tile, a
                    // reduction's rows), which a tuning entry of all 32s would not reproduce.
                    Candidate::sizes(r.tile_sizes.clone())
                } else {
                    Candidate::sizes(vec![avelas_contract::config::DEFAULT_TILE_SIZE; r.depth])
                },
                confirmed: Vec::new(),
            },
        );
    }
    out
}

/// The largest parameter value of a key (`params=n=40,m=30`): tiles beyond it are one tile.
fn largest_param(key: &str) -> Option<i64> {
    let params = key.split(" params=").nth(1)?;
    params
        .split(',')
        .filter_map(|p| p.split_once('=')?.1.parse::<i64>().ok())
        .max()
}

/// How many of the search's best configurations are measured again, one process each.
const FINALISTS: usize = 3;

/// Measures each SCoP's [`FINALISTS`] best configurations and its default one again, each in
/// processes of their own (in-process trials run with warm caches and OpenMP's threads started,
/// which a program that runs its SCoP once does not have; and one more measurement tempers the
/// noise of the search's); the runs made.
fn confirm(check: &Check, scops: &mut BTreeMap<usize, ScopSearch>) -> usize {
    let mut finalists: BTreeMap<usize, Vec<Candidate>> = BTreeMap::new();
    for (&k, s) in scops.iter() {
        let mut ranked: Vec<(&Candidate, f64)> = s
            .measured
            .iter()
            .filter_map(|(c, t)| t.map(|t| (c, t)))
            .collect();
        ranked.sort_by(|a, b| a.1.total_cmp(&b.1));
        let mut list: Vec<Candidate> = ranked
            .iter()
            .take(FINALISTS)
            .map(|(c, _)| (*c).clone())
            .collect();
        if !ranked.is_empty()
            && !list.contains(&s.default)
            && s.measured.get(&s.default) != Some(&None)
        {
            list.push(s.default.clone());
        }
        finalists.insert(k, list);
    }
    let mut runs = 0;
    let longest = finalists.values().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        let plan: Vec<(usize, Candidate)> = finalists
            .iter()
            .filter_map(|(k, cs)| cs.get(i).map(|c| (*k, c.clone())))
            .collect();
        let (results, n) = check.plan(scops, &plan);
        runs += n;
        for m in results {
            let t = m.median();
            scops
                .get_mut(&m.scop)
                .expect("planned SCoPs exist")
                .confirmed
                .push((m.candidate, t));
        }
    }
    runs
}

/// In-process trials are not stopped before this many milliseconds: stopping one sooner saves
/// less than a process start, and a short SCoP's times are the noisiest.
const CUTOFF_FLOOR_MS: f64 = 10.0;

/// The configurations measured together in one process, at most.
const BATCH: usize = 64;

/// The next configurations (at most `max`) of each SCoP whose search goes on, within the budget.
fn next_batch(
    scops: &mut BTreeMap<usize, ScopSearch>,
    budget: Option<usize>,
    max: usize,
) -> Vec<(usize, Vec<Candidate>)> {
    let mut batch = Vec::new();
    for (&scop, s) in scops.iter_mut() {
        let left = s
            .search
            .limit(budget)
            .map_or(max, |b| b.saturating_sub(s.measured.len()).min(max));
        let next = s.search.propose_batch(&s.measured, left);
        if !next.is_empty() {
            batch.push((scop, next));
        }
    }
    batch
}

/// The tuning file that gives each SCoP of `plan` its configuration.
fn file_for(scops: &BTreeMap<usize, ScopSearch>, plan: &[(usize, Candidate)]) -> TuningFile {
    let mut file = TuningFile::default();
    for (scop, c) in plan {
        file.set(Entry {
            key: scops[scop].key.clone(),
            tuned: c.tuned.clone(),
            local_mem: c.local_mem,
        });
    }
    file
}

/// How a plan's configurations are run and checked.
struct Check<'a> {
    program: &'a Program,
    /// The default configuration's output.
    reference: &'a str,
    tolerance: Tolerance,
    verify: bool,
    reps: u32,
    limit: Duration,
    corrupt: Option<&'a str>,
    /// In-process trials stop at this factor of the SCoP's fastest run in the process (0: never).
    cutoff: f64,
}

impl Check<'_> {
    /// Measures `plan` (one configuration per SCoP, in the same runs); the measurements and the
    /// runs made. When the runs fail or print something else than the default configuration,
    /// each configuration is run alone to find which is at fault; if none is alone, all are
    /// rejected.
    fn plan(
        &self,
        scops: &BTreeMap<usize, ScopSearch>,
        plan: &[(usize, Candidate)],
    ) -> (Vec<Measurement>, usize) {
        let (mut results, mut runs) = self.together(scops, plan);
        let bad = results
            .iter()
            .any(|m| m.status != "ok" && m.status != "not-applied");
        if !bad || plan.len() == 1 {
            return (results, runs);
        }
        let mut any_alone = false;
        results = plan
            .iter()
            .map(|p| {
                let (mut r, n) = self.together(scops, std::slice::from_ref(p));
                runs += n;
                let m = r.remove(0);
                any_alone |= m.status != "ok" && m.status != "not-applied";
                m
            })
            .collect();
        if !any_alone {
            for m in &mut results {
                m.status = "mismatch";
            }
        }
        (results, runs)
    }

    /// Each SCoP's configurations `batch` as in-process trials (the C target), each repeated
    /// `reps` times, in one run; the measurements and the runs made (`None`: the program cannot run
    /// them, or the run failed: measure them one process each). Trials that run `cutoff` times
    /// as long as the SCoP's fastest run in the process (and [`CUTOFF_FLOOR_MS`]) are stopped:
    /// `late`.
    fn in_process(&self, batch: &[(usize, Vec<Candidate>)]) -> Option<(Vec<Measurement>, usize)> {
        let mut lines = String::new();
        let mut trials = 0u32;
        for (scop, cs) in batch {
            if self.cutoff > 0.0 {
                lines.push_str(&format!(
                    "{scop} {} {} {CUTOFF_FLOOR_MS}\n",
                    tuning::CUTOFF,
                    self.cutoff
                ));
            }
            // Each configuration once, then again: a configuration's runs are apart in time,
            // so that a passing disturbance of the machine does not hit all of them.
            for _ in 0..self.reps {
                for c in cs {
                    lines.push_str(&format!("{scop} {}\n", c.tuned));
                    trials += 1;
                }
            }
        }
        let limit = self.limit * (trials + 1);
        let r = self
            .program
            .run_trials(&TuningFile::default(), Some(&lines), limit)
            .ok()?;
        let agrees = !self.verify || agree(&r.output, self.reference, self.tolerance);
        if !r.no_trials.is_empty() || !agrees {
            return None;
        }
        let mut results = Vec::new();
        for (scop, cs) in batch {
            // The SCoP's profile lines: the default run, then one per trial.
            let runs: Vec<&runner::Execution> =
                r.executions.iter().filter(|e| e.scop == *scop).collect();
            let ends: Vec<TrialEnd> = r
                .trials
                .iter()
                .filter(|t| t.0 == *scop)
                .map(|t| t.2)
                .collect();
            let expected = cs.len() * self.reps as usize;
            if ends.len() != expected || runs.len() < expected + 1 {
                return None;
            }
            for (i, c) in cs.iter().enumerate() {
                let corrupted = self.corrupt == Some(c.to_string().as_str());
                let mut samples = Vec::new();
                let mut trials = Vec::new();
                for k in (0..self.reps as usize).map(|r| r * cs.len() + i) {
                    let e = runs[1 + k];
                    let applied = e.sizes_from == avelas_contract::tuning::SIZES_FROM_TUNED
                        && (c.tuned != Tuned::Untiled || e.untiled == Some(true));
                    let end = match ends[k] {
                        TrialEnd::Matched if corrupted => TrialEnd::Differed,
                        end => end,
                    };
                    trials.push((applied, end));
                    samples.push(e.cost);
                }
                results.push(Measurement {
                    scop: *scop,
                    candidate: c.clone(),
                    samples,
                    status: trials_status(&trials, self.verify),
                });
            }
        }
        Some((results, 1))
    }

    /// `plan` run `reps` times in one batch of runs.
    fn together(
        &self,
        scops: &BTreeMap<usize, ScopSearch>,
        plan: &[(usize, Candidate)],
    ) -> (Vec<Measurement>, usize) {
        let file = file_for(scops, plan);
        let mut results: Vec<Measurement> = plan
            .iter()
            .map(|(scop, c)| Measurement {
                scop: *scop,
                candidate: c.clone(),
                samples: Vec::new(),
                status: "ok",
            })
            .collect();
        let corrupted = plan
            .iter()
            .any(|(_, c)| self.corrupt == Some(c.to_string().as_str()));
        let mut runs = 0;
        for _ in 0..self.reps {
            runs += 1;
            let fault = match self.program.run(&file, self.limit) {
                Ok(r) => {
                    for m in &mut results {
                        match r.scops.get(&m.scop) {
                            Some(s) if applied(s, &m.candidate) => m.samples.push(s.cost()),
                            _ => m.status = "not-applied",
                        }
                    }
                    let agrees = !self.verify
                        || (agree(&r.output, self.reference, self.tolerance) && !corrupted);
                    (!agrees).then_some("mismatch")
                }
                Err(RunFailure::Timeout) => Some("timeout"),
                Err(RunFailure::Failed(_)) => Some("failed"),
            };
            if let Some(f) = fault {
                for m in &mut results {
                    m.status = f;
                }
                break;
            }
        }
        (results, runs)
    }
}

/// The status of a configuration from its trials (whether each applied it, how each ended): a
/// trial that did not apply it or differed decides; else it is `late` when most of its trials
/// were stopped (its other trials' data were compared).
fn trials_status(trials: &[(bool, TrialEnd)], verify: bool) -> &'static str {
    let late = trials.iter().filter(|t| t.1 == TrialEnd::Late).count();
    if trials.iter().any(|t| !t.0) {
        "not-applied"
    } else if verify && trials.iter().any(|t| t.1 == TrialEnd::Differed) {
        "mismatch"
    } else if 2 * late > trials.len() {
        "late"
    } else {
        "ok"
    }
}

/// Whether the run gave SCoP report `s` the configuration `c`.
fn applied(s: &runner::ScopReport, c: &Candidate) -> bool {
    s.sizes_from == avelas_contract::tuning::SIZES_FROM_TUNED
        && (c.tuned != Tuned::Untiled || s.untiled == Some(true))
}

fn progress(kind: Kind, total: usize) -> ProgressBar {
    let bar = if kind == Kind::Exhaustive || total < usize::MAX {
        ProgressBar::new(total as u64)
    } else {
        ProgressBar::no_length()
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} configurations  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    bar
}

/// The best so far of each SCoP, for the progress bar.
fn best_line(scops: &BTreeMap<usize, ScopSearch>) -> String {
    let parts: Vec<String> = scops
        .iter()
        .filter_map(|(k, s)| {
            let (c, t) = best(&s.measured)?;
            Some(format!(
                "scop {k}: {c} {t:.2} ms ({:.2}x)",
                s.default_ms / t
            ))
        })
        .collect();
    format!("best: {}", parts.join("; "))
}

/// Writes the tuning file (merged into the one there), the measurements and the plot, checks
/// the tuned program once, prints a summary.
#[allow(clippy::too_many_arguments)]
fn report(
    cli: &TuneCli,
    exe: &Path,
    out_dir: &Path,
    program: &Program,
    reference: &Reference,
    scops: &BTreeMap<usize, ScopSearch>,
    log: &[Measurement],
    runs: usize,
    elapsed: Duration,
    recompiled: Option<&recompile::Recompiled>,
) -> Result<i32, String> {
    let tuning_path = beside(exe, Some(out_dir));
    // An existing file is merged into, never silently replaced: only a missing one is empty.
    let mut file = match std::fs::read(&tuning_path) {
        Ok(bytes) => TuningFile::parse(&String::from_utf8_lossy(&bytes))
            .map_err(|e| format!("tuning file {}: {e}", tuning_path.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => TuningFile::default(),
        Err(e) => return Err(format!("cannot read {}: {e}", tuning_path.display())),
    };
    let mut chosen = TuningFile::default();
    for s in scops.values() {
        if let Some((c, _)) = s.chosen() {
            let entry = Entry {
                key: s.key.clone(),
                tuned: c.tuned.clone(),
                local_mem: c.local_mem,
            };
            chosen.set(entry.clone());
            // An entry for the same SCoP and values from another build of the program (another
            // id) can never apply again to the program beside it: it goes.
            let same = tuning::without_id(&entry.key);
            file.entries
                .retain(|e| e.key == entry.key || tuning::without_id(&e.key) != same);
            file.set(entry);
        }
    }
    // The tuned program with exactly the entries chosen, `reps` times: its SCoPs' medians.
    let mut checks = Vec::new();
    for _ in 0..cli.reps {
        checks.push(
            program
                .run(&chosen, Duration::from_secs(3600))
                .map_err(|e| format!("the tuned program failed: {e:?}"))?,
        );
    }
    let verified = cli.no_verify
        || checks
            .iter()
            .all(|c| agree(&c.output, &reference.output, reference.tolerance));
    if verified {
        let comment = vec![format!(
            "written by polyc tune ({:?} search, {} runs, {:.1} s); keys: program, SCoP, code fingerprint, target, device, parameters",
            cli.strategy,
            runs,
            elapsed.as_secs_f64()
        )];
        let text = file.render(&comment);
        // What the programs could not read is not written.
        TuningFile::parse(&text).map_err(|e| {
            format!(
                "the tuning file would be unreadable ({e}); {} is left as it was",
                tuning_path.display()
            )
        })?;
        write(&tuning_path, &text)?;
    }
    let mut check = checks[0].clone();
    for (k, r) in check.scops.iter_mut() {
        let t: Vec<f64> = checks
            .iter()
            .filter_map(|c| c.scops.get(k))
            .map(|s| s.cost())
            .collect();
        r.time_ms = median(&t);
        r.kernel_ms = None;
    }
    let stem = exe
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned();
    let json_path = out_dir.join(format!("{stem}.tune.json"));
    write(
        &json_path,
        &json(cli, exe, scops, log, runs, elapsed, &check, recompiled)?,
    )?;
    let svg_path = out_dir.join(format!("{stem}.tune.svg"));
    plot::draw(&svg_path, scops, log)
        .map_err(|e| format!("cannot draw {}: {e}", svg_path.display()))?;
    println!(
        "polyc tune: {} ({:?}, {} runs in {:.1} s)",
        exe.display(),
        cli.strategy,
        runs,
        elapsed.as_secs_f64()
    );
    for (k, s) in scops {
        let tried = s.measured.len();
        let rejected = s.measured.values().filter(|t| t.is_none()).count();
        let stopped = log
            .iter()
            .filter(|m| m.scop == *k && m.status == "late")
            .count();
        let rejected = match stopped {
            0 => format!("{rejected} rejected"),
            n => format!("{rejected} rejected, {n} stopped at the cutoff"),
        };
        let tuned = check.scops.get(k).map(|r| r.cost());
        match (s.chosen(), tuned) {
            (Some((c, t)), Some(now)) => println!(
                "  scop {k}: {c}: {t:.3} ms measured alone, {now:.3} ms tuned against {:.3} ms default ({:.2}x); {tried} of {} configurations, {rejected}",
                s.default_ms,
                s.default_ms / now,
                s.search.space.len()
            ),
            _ => println!("  scop {k}: no configuration measured ({rejected})"),
        }
    }
    println!("  tuning file: {}", tuning_path.display());
    println!(
        "  measurements: {}; plot: {}",
        json_path.display(),
        svg_path.display()
    );
    if !verified {
        eprintln!("polyc: the tuned program's output differs from the default configuration's; the tuning file was not written");
        return Ok(1);
    }
    Ok(0)
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    crate::output::write(path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[allow(clippy::too_many_arguments)]
fn json(
    cli: &TuneCli,
    exe: &Path,
    scops: &BTreeMap<usize, ScopSearch>,
    log: &[Measurement],
    runs: usize,
    elapsed: Duration,
    check: &RunReport,
    recompiled: Option<&recompile::Recompiled>,
) -> Result<String, String> {
    let scops: Vec<serde_json::Value> = scops
        .iter()
        .map(|(k, s)| {
            let ms: Vec<serde_json::Value> = log
                .iter()
                .filter(|m| m.scop == *k)
                .map(|m| {
                    serde_json::json!({
                        "config": m.candidate.to_string(),
                        "median_ms": m.median(),
                        "samples_ms": m.samples,
                        "status": m.status,
                    })
                })
                .collect();
            serde_json::json!({
                "scop": k,
                "key": s.key,
                "tiled_depth": s.search.space.depth,
                "space": s.search.space.len(),
                "sizes": s.search.space.sizes,
                "default_ms": s.default_ms,
                "best": best(&s.measured).map(|(c, t)| serde_json::json!({"config": c.to_string(), "median_ms": t})),
                "chosen": s.chosen().map(|(c, t)| serde_json::json!({"config": c.to_string(), "median_ms": t})),
                "confirmed": s.confirmed.iter().map(|(c, t)| serde_json::json!({"config": c.to_string(), "median_ms": t})).collect::<Vec<_>>(),
                "tuned_ms": check.scops.get(k).map(|r| r.cost()),
                "measurements": ms,
            })
        })
        .collect();
    let doc = serde_json::json!({
        "program": exe.display().to_string(),
        "args": cli.args,
        "strategy": format!("{:?}", cli.strategy).to_lowercase(),
        "reps": cli.reps,
        "runs": runs,
        "seconds": elapsed.as_secs_f64(),
        "scops": scops,
        "recompile": recompiled.map(|r| serde_json::json!({
            "configurations": r.configurations,
            "seconds": r.seconds,
            "mismatches": r.mismatches,
            "times_ms": r.times.iter().map(|(c, t)| serde_json::json!({"config": c, "median_ms": t})).collect::<Vec<_>>(),
        })),
    });
    serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_is_late_when_most_of_its_trials_were_stopped() {
        use TrialEnd::*;
        let ok = |e| (true, e);
        assert_eq!(trials_status(&[ok(Late)], true), "late");
        assert_eq!(
            trials_status(&[ok(Matched), ok(Late), ok(Matched)], true),
            "ok"
        );
        assert_eq!(
            trials_status(&[ok(Late), ok(Late), ok(Matched)], true),
            "late"
        );
        // A trial that ran to its end and differs rejects it, stopped or not.
        assert_eq!(
            trials_status(&[ok(Late), ok(Late), ok(Differed)], true),
            "mismatch"
        );
        assert_eq!(trials_status(&[ok(Differed)], false), "ok");
        assert_eq!(
            trials_status(&[ok(Late), (false, Matched)], true),
            "not-applied"
        );
    }

    #[test]
    fn a_late_configuration_is_known_by_a_lower_bound_and_never_best() {
        let m = |status, samples: Vec<f64>| Measurement {
            scop: 0,
            candidate: Candidate::sizes(vec![8]),
            samples,
            status,
        };
        let late = m("late", vec![30.0, 31.0, 12.0]);
        assert_eq!((late.median(), late.known()), (None, Some(30.0)));
        let ok = m("ok", vec![20.0, 21.0, 19.0]);
        assert_eq!(ok.known(), Some(20.0));
        let mut measured = Measured::new();
        measured.insert(Candidate::sizes(vec![8]), late.known());
        measured.insert(Candidate::sizes(vec![16]), ok.known());
        assert_eq!(best(&measured).unwrap().0, &Candidate::sizes(vec![16]));
    }
}
