//! The differential test at scale (issue 19): random affine programs (`polybench::random`), each
//! compiled by polyc for the C target (and, for one program in `--opencl-every`, for OpenCL,
//! and in `--cuda-every`, for CUDA run by polyc's CUDA emulator, `polybench::cuda_emu`),
//! built with gcc (g++ for CUDA) and run under random tile sizes and thread counts; their
//! output must equal the original program's. A program whose output differs, or that crashes polyc or the
//! generated program, is shrunk to a small reproducer (statements, loops and conditions removed
//! while it still fails) and written to `--keep`. A program past the time limit is first run
//! again alone: PoCL's kernel builds beside other programs can take the limit on a busy machine. `scripts/differential.sh` builds polyc and
//! runs this; the summary goes to stdout and `--out`.
//!
//!     cargo run --release -p polybench --example differential -- [--count 1000] [--first 0]
//!         [--polyc target/release/polyc] [--opencl-every 10] [--cuda-every 10]
//!         [--keep target/differential]
//!         [--out FILE] [--features all|base|temporaries]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use polybench::random::{self, Rng};

struct Options {
    count: u64,
    first: u64,
    polyc: PathBuf,
    opencl_every: u64,
    cuda_every: u64,
    keep: PathBuf,
    out: Option<PathBuf>,
    /// `--features base`: the property tests' programs; default: every construct.
    features: random::Features,
}

fn options() -> Options {
    let mut o = Options {
        count: 1000,
        first: 0,
        polyc: PathBuf::from("target/release/polyc"),
        opencl_every: 10,
        cuda_every: 10,
        keep: PathBuf::from("target/differential"),
        out: None,
        features: random::Features::ALL,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    for pair in args.chunks(2) {
        let (flag, value) = (pair[0].as_str(), pair.get(1).map(String::as_str));
        let Some(value) = value else { usage(flag) };
        let number = || value.parse().unwrap_or_else(|_| usage(flag));
        match flag {
            "--count" => o.count = number(),
            "--first" => o.first = number(),
            "--opencl-every" => o.opencl_every = number(),
            "--cuda-every" => o.cuda_every = number(),
            "--polyc" => o.polyc = PathBuf::from(value),
            "--keep" => o.keep = PathBuf::from(value),
            "--out" => o.out = Some(PathBuf::from(value)),
            "--features" if value == "base" => o.features = random::Features::BASE,
            "--features" if value == "all" => o.features = random::Features::ALL,
            "--features" if value == "temporaries" => o.features = random::Features::TEMPORARIES,
            _ => usage(flag),
        }
    }
    o
}

fn usage(flag: &str) -> ! {
    eprintln!("differential: bad argument near '{flag}'\nusage: differential [--count N] [--first SEED] [--polyc PATH] [--opencl-every K] [--cuda-every K] [--keep DIR] [--out FILE] [--features all|base|temporaries]");
    std::process::exit(2)
}

/// What became of one program.
enum Outcome {
    /// Every run printed what the original prints (or, with reassociated sums, what
    /// [`reassociated_only`] accepts); the number of runs, and whether some were reassociated.
    Agreed(usize, bool),
    /// polyc declined the program with a message (exit 1): not a failure, counted apart.
    Rejected(String),
    Failed(Failure),
}

/// A failure, with what reproduces it.
#[derive(Clone)]
struct Failure {
    kind: &'static str,
    target: &'static str,
    env: Vec<(String, String)>,
    detail: String,
}

/// The GPU targets a program is also checked on.
#[derive(Clone, Copy)]
struct GpuTargets {
    opencl: bool,
    cuda: bool,
}

/// A run of a generated program: the target and its environment.
#[derive(Clone)]
struct Run {
    target: &'static str,
    env: Vec<(String, String)>,
}

const LIMIT: Duration = Duration::from_secs(20);

fn main() {
    let o = options();
    let work = polybench::harness::scratch_dir("differential");
    let opencl = opencl_present();
    if o.opencl_every > 0 && !opencl {
        eprintln!("differential: no OpenCL platform; no OpenCL runs");
    }
    let cuda = o.cuda_every > 0 && cuda_emulator(&work);
    if o.cuda_every > 0 && !cuda {
        eprintln!("differential: no C++ compiler for the CUDA emulator; no CUDA runs");
    }
    let seeds: Vec<u64> = (o.first..o.first + o.count).collect();
    let done = AtomicUsize::new(0);
    let start = Instant::now();
    let with_gpu = |seed: u64| GpuTargets {
        opencl: opencl && o.opencl_every > 0 && seed.is_multiple_of(o.opencl_every),
        cuda: cuda && seed.is_multiple_of(o.cuda_every),
    };
    let outcomes = polybench::harness::par_map(&seeds, |&seed| {
        let outcome = check(&o, &work, seed, with_gpu(seed));
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(100) {
            eprintln!(
                "differential: {n} of {} programs, {:.0} s",
                seeds.len(),
                start.elapsed().as_secs_f64()
            );
        }
        if let Outcome::Failed(f) = &outcome {
            eprintln!(
                "differential: seed {seed}: {} ({}): {}",
                f.kind, f.target, f.detail
            );
        }
        (seed, outcome)
    });
    let elapsed = start.elapsed().as_secs_f64();
    let mut summary = Summary::default();
    for (seed, outcome) in &outcomes {
        // A run past the time limit while every core was busy (PoCL building kernels beside
        // other programs) may be the load's: the program is checked again alone, and where it
        // then agrees it counts as agreeing, listed apart.
        if let Outcome::Failed(f) = outcome {
            if f.detail.contains("ran past") {
                if let Outcome::Agreed(runs, reassociated) =
                    check(&o, &work, *seed, with_gpu(*seed))
                {
                    summary.agreed += 1;
                    summary.runs += runs;
                    summary.slow_under_load.push(*seed);
                    if reassociated {
                        summary.reassociated.push(*seed);
                    }
                    continue;
                }
            }
        }
        match outcome {
            Outcome::Agreed(runs, reassociated) => {
                summary.agreed += 1;
                summary.runs += runs;
                if *reassociated {
                    summary.reassociated.push(*seed);
                }
            }
            Outcome::Rejected(why) => summary.rejected.push((*seed, why.clone())),
            Outcome::Failed(f) => {
                // A program past the time limit is kept whole: shrinking it would cost the limit
                // per candidate.
                let small = if f.detail.contains("status: 124") || f.detail.contains("ran past") {
                    random::program_with_main_of(*seed, o.features)
                } else {
                    shrink(&o, &work, *seed, f)
                };
                let _ = std::fs::create_dir_all(&o.keep);
                let file = o.keep.join(format!("seed-{seed}.c"));
                let _ = std::fs::write(&file, &small);
                summary.failed.push((*seed, f.clone(), file));
            }
        }
    }
    let report = summary.report(&o, elapsed, opencl, cuda);
    print!("{report}");
    if let Some(out) = &o.out {
        std::fs::write(out, &report)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
    }
    std::process::exit(i32::from(!summary.failed.is_empty()));
}

#[derive(Default)]
struct Summary {
    agreed: usize,
    runs: usize,
    /// Programs past the time limit in the parallel run that agreed when run again alone.
    slow_under_load: Vec<u64>,
    /// Agreeing programs whose floating-point sums polyc reassociated ([`reassociated_only`]).
    reassociated: Vec<u64>,
    rejected: Vec<(u64, String)>,
    failed: Vec<(u64, Failure, PathBuf)>,
}

impl Summary {
    fn report(&self, o: &Options, elapsed: f64, opencl: bool, cuda: bool) -> String {
        let mut s = format!(
            "# Differential test: seeds {}..{} ({:?})\n\n{} programs in {elapsed:.0} s on {} cores; OpenCL (PoCL) for one program in {}{}; CUDA (polyc's emulator) for one in {}{}.\n\n\
             - agreed with gcc's build of the original: {} programs, {} runs (tile sizes and thread counts drawn per program)\n\
             - declined by polyc with a message (exit 1): {}\n\
             - failed (output differs, or a crash): {}\n",
            o.first,
            o.first + o.count,
            o.features,
            o.count,
            std::thread::available_parallelism().map_or(1, |n| n.get()),
            o.opencl_every,
            if opencl { "" } else { " (no platform here: skipped)" },
            o.cuda_every,
            if cuda { "" } else { " (no g++ here: skipped)" },
            self.agreed,
            self.runs,
            self.rejected.len(),
            self.failed.len()
        );
        let mut of_these = |what: &str, seeds: &[u64]| {
            if !seeds.is_empty() {
                let list: Vec<String> = seeds.iter().map(u64::to_string).collect();
                s += &format!(
                    "  - of these, {what}: {} (seeds {})\n",
                    seeds.len(),
                    list.join(", ")
                );
            }
        };
        of_these(
            "past the time limit beside other programs and agreeing when run again alone",
            &self.slow_under_load,
        );
        of_these(
            "with sums polyc reassociated (last digits differ; exact with `--no-reductions`)",
            &self.reassociated,
        );
        for (seed, why) in self.rejected.iter().take(20) {
            s += &format!(
                "  - declined, seed {seed}: {}\n",
                why.lines().next().unwrap_or("")
            );
        }
        for (seed, f, file) in &self.failed {
            let env: Vec<String> = f.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
            s += &format!(
                "  - FAILED seed {seed}: {} on {} with {}: {} (shrunk reproducer: {})\n",
                f.kind,
                f.target,
                env.join(" "),
                f.detail.lines().next().unwrap_or(""),
                file.display()
            );
        }
        s
    }
}

/// The runs of a program: the default configuration and three random ones on the C target, and
/// two on each GPU target asked for.
fn runs(seed: u64, gpu: GpuTargets) -> Vec<Run> {
    let mut rng = Rng::new(seed ^ 0xd1ff);
    let mut sizes = || {
        let n = 1 + rng.below(4);
        let v: Vec<String> = (0..n)
            .map(|_| [1, 2, 3, 4, 5, 7, 8, 16, 33][rng.below(9)].to_string())
            .collect();
        v.join(",")
    };
    let mut out = vec![Run {
        target: "c",
        env: Vec::new(),
    }];
    for threads in ["1", "2", "3"] {
        out.push(Run {
            target: "c",
            env: vec![
                ("POLYC_MIN_POINTS".into(), "0".into()),
                ("POLYC_TILE_SIZES".into(), sizes()),
                ("OMP_NUM_THREADS".into(), threads.into()),
            ],
        });
    }
    for (target, asked) in [("opencl", gpu.opencl), ("cuda", gpu.cuda)] {
        for _ in 0..if asked { 2 } else { 0 } {
            out.push(Run {
                target,
                env: vec![("POLYC_TILE_SIZES".into(), sizes())],
            });
        }
    }
    out
}

fn check(o: &Options, work: &Path, seed: u64, gpu: GpuTargets) -> Outcome {
    let text = random::program_with_main_of(seed, o.features);
    match differs(o, work, &format!("s{seed}"), &text, &runs(seed, gpu)) {
        Ok((n, reassociated)) => Outcome::Agreed(n, reassociated),
        Err(Verdict::Rejected(why)) => Outcome::Rejected(why),
        Err(Verdict::Failed(f)) => Outcome::Failed(f),
        Err(Verdict::Invalid(why)) => Outcome::Failed(Failure {
            kind: "the generator wrote a program gcc's build cannot run",
            target: "gcc",
            env: Vec::new(),
            detail: why,
        }),
    }
}

enum Verdict {
    Rejected(String),
    Failed(Failure),
    /// The original itself does not build or run (a shrinking step that broke the program).
    Invalid(String),
}

/// Compiles and runs `text` as the original and through polyc under `runs`; the number of runs
/// that agreed and whether some agreed only as reassociated sums may, or the first
/// disagreement.
fn differs(
    o: &Options,
    work: &Path,
    tag: &str,
    text: &str,
    runs: &[Run],
) -> Result<(usize, bool), Verdict> {
    let src = work.join(format!("{tag}.c"));
    std::fs::write(&src, text).map_err(|e| Verdict::Invalid(e.to_string()))?;
    let original = work.join(format!("{tag}-orig"));
    gcc(&src, &original, &[]).map_err(Verdict::Invalid)?;
    let expected = run(&original, &[]).map_err(Verdict::Invalid)?;
    let mut built: Vec<(&str, PathBuf)> = Vec::new();
    let mut reassociated = false;
    for r in runs {
        let exe = match built.iter().find(|(t, _)| *t == r.target) {
            Some((_, e)) => e.clone(),
            None => {
                let e = build(o, work, tag, &src, r.target, &[])?;
                built.push((r.target, e.clone()));
                e
            }
        };
        let got = run(&exe, &run_env(work, r)).map_err(|detail| {
            Verdict::Failed(Failure {
                kind: "the generated program failed",
                target: r.target,
                env: r.env.clone(),
                detail,
            })
        })?;
        if got != expected && reassociated_only(o, work, tag, &src, r, &expected, &got)? {
            reassociated = true;
        } else if got != expected {
            let line = expected
                .lines()
                .zip(got.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Err(Verdict::Failed(Failure {
                kind: "output differs",
                target: r.target,
                env: r.env.clone(),
                detail: format!("first at line {}", line + 1),
            }));
        }
    }
    Ok((runs.len(), reassociated))
}

/// Whether `got`, which differs from `expected`, differs only as polyc's reassociated
/// floating-point sums may (the C target's rows of partial sums, the GPU targets' atomic
/// ones; `--no-reductions` keeps the original order): every number within a relative 1e-12 of
/// the expected one (reassociation changes the last bits; the outputs print 17 digits), and
/// the program built with `--no-reductions` prints exactly `expected` under the same run. The
/// random programs' data are multiples of 1/4, exact in any order until repeated halvings or
/// large values make the sums round.
fn reassociated_only(
    o: &Options,
    work: &Path,
    tag: &str,
    src: &Path,
    r: &Run,
    expected: &str,
    got: &str,
) -> Result<bool, Verdict> {
    if !close_numbers(expected, got) {
        return Ok(false);
    }
    let exe = build(o, work, tag, src, r.target, &["--no-reductions"])?;
    Ok(run(&exe, &run_env(work, r)).is_ok_and(|exact| exact == expected))
}

/// Whether two outputs have the same words, but for floating-point numbers within a relative
/// 1e-12 of each other. Such a word has a fraction or an exponent, or is an integer of 1e15 or
/// more: `%.17g` prints an integral double below 1e17 without either (seed 882274's sums of
/// 5.3e15 and 2.1e16, whose reassociated additions of about 1 each rounded to other
/// neighbours), the random programs' data (multiples of 1/4) add exactly below about 2^50, and
/// no integer they print (the kernel's `long`, from `short` iterators) grows that large.
fn close_numbers(expected: &str, got: &str) -> bool {
    const INTEGRAL_DOUBLES: f64 = 1e15;
    let number = |w: &str| {
        let v = w.parse::<f64>().ok()?;
        (w.contains(['.', 'e']) || v.abs() >= INTEGRAL_DOUBLES).then_some(v)
    };
    let close = |a: &str, b: &str| {
        a == b
            || match (number(a), number(b)) {
                (Some(x), Some(y)) => (x - y).abs() <= 1e-12 * x.abs().max(y.abs()),
                _ => false,
            }
    };
    let (e, g): (Vec<&str>, Vec<&str>) = (
        expected.split_whitespace().collect(),
        got.split_whitespace().collect(),
    );
    expected.lines().count() == got.lines().count()
        && e.len() == g.len()
        && e.iter().zip(&g).all(|(a, b)| close(a, b))
}

/// polyc (with `flags`) then gcc for `target`; the executable.
fn build(
    o: &Options,
    work: &Path,
    tag: &str,
    src: &Path,
    target: &'static str,
    flags: &[&str],
) -> Result<PathBuf, Verdict> {
    let variant = if flags.is_empty() { "" } else { "-plain" };
    let ext = if target == "cuda" { "cu" } else { "c" };
    let generated = work.join(format!("{tag}-{target}{variant}.{ext}"));
    // Issue 19's bounds: 60 s and 4 GB; past them polyc has failed.
    let out = Command::new("timeout")
        .args(["60", "prlimit", "--as=4294967296", "--"])
        .arg(&o.polyc)
        .arg(src)
        .args(flags)
        .args(["--target", target, "-o"])
        .arg(&generated)
        .output()
        .map_err(|e| Verdict::Invalid(format!("cannot run {}: {e}", o.polyc.display())))?;
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    match out.status.code() {
        Some(0) => {}
        Some(1) => return Err(Verdict::Rejected(err)),
        _ => {
            return Err(Verdict::Failed(Failure {
                kind: "polyc crashed or ran past 60 s or 4 GB",
                target,
                env: Vec::new(),
                detail: format!("{}: {err}", out.status),
            }))
        }
    }
    let exe = work.join(format!("{tag}-{target}{variant}"));
    let flags = |what: &str| -> Vec<String> {
        Command::new(&o.polyc)
            .args([what, "--target", target])
            .output()
            .map(|out| {
                String::from_utf8_lossy(&out.stdout)
                    .split_whitespace()
                    .map(String::from)
                    .collect()
            })
            .unwrap_or_default()
    };
    let built = if target == "cuda" {
        polybench::cuda_emu::compile(
            &generated,
            &["-O0".into()],
            &[],
            &flags("--print-libs"),
            &exe,
        )
    } else {
        let mut extra = flags("--print-cflags");
        extra.extend(flags("--print-libs"));
        gcc(&generated, &exe, &extra)
    };
    built.map_err(|detail| {
        Verdict::Failed(Failure {
            kind: "the generated code does not build",
            target,
            env: Vec::new(),
            detail,
        })
    })?;
    Ok(exe)
}

fn gcc(src: &Path, exe: &Path, extra: &[String]) -> Result<(), String> {
    let out = Command::new("gcc")
        .args(["-O2", "-ffp-contract=off", "-w"])
        .arg(src)
        .arg("-o")
        .arg(exe)
        .args(extra)
        .arg("-lm")
        .output()
        .map_err(|e| format!("cannot run gcc: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr)
            .chars()
            .take(600)
            .collect())
    }
}

/// Stdout of a run, or why there is none (a failure, or past [`LIMIT`]).
fn run(exe: &Path, env: &[(String, String)]) -> Result<String, String> {
    let child = Command::new(exe)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let end = polybench::harness::run_to_end(child, LIMIT).map_err(|e| e.to_string())?;
    let Some(status) = end.status else {
        return Err(format!("ran past {} s", LIMIT.as_secs()));
    };
    if !status.success() {
        return Err(format!(
            "{status}: {}",
            end.stderr.chars().take(400).collect::<String>()
        ));
    }
    Ok(end.stdout)
}

/// The failing program made small: statements, whole loops, loop headers and conditions are
/// removed one at a time, each removal kept while the program still fails the same way under
/// the failing run.
fn shrink(o: &Options, work: &Path, seed: u64, f: &Failure) -> String {
    let mut text = random::program_with_main_of(seed, o.features);
    let failing = [Run {
        target: f.target,
        env: f.env.clone(),
    }];
    let still_fails = |candidate: &str, step: usize| {
        matches!(
            differs(o, work, &format!("s{seed}-shrink{step}"), candidate, &failing),
            Err(Verdict::Failed(g)) if g.kind == f.kind && panic_site(&g.detail) == panic_site(&f.detail)
        )
    };
    let mut step = 0;
    loop {
        let lines: Vec<&str> = text.lines().collect();
        let Some(region) = scop_lines(&lines) else {
            return text;
        };
        let smaller = candidates(&lines, region).into_iter().find(|c| {
            step += 1;
            still_fails(c, step)
        });
        match smaller {
            Some(c) => text = c,
            None => return text,
        }
    }
}

/// Where a crash panicked and its message (the same crash, whatever the thread's id), or "".
fn panic_site(detail: &str) -> String {
    detail
        .split_once("panicked at ")
        .map(|(_, rest)| rest.lines().take(2).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

/// The line numbers strictly between `#pragma scop` and `#pragma endscop`.
fn scop_lines(lines: &[&str]) -> Option<(usize, usize)> {
    let start = lines.iter().position(|l| l.trim() == "#pragma scop")?;
    let end = lines.iter().position(|l| l.trim() == "#pragma endscop")?;
    Some((start + 1, end))
}

/// Every program one removal smaller: a statement; a loop or `if` with its body; a loop or
/// `if` header with its closing brace, keeping the body.
fn candidates(lines: &[&str], (start, end): (usize, usize)) -> Vec<String> {
    let join = |skip: &dyn Fn(usize) -> bool| -> String {
        let kept: Vec<&str> = lines
            .iter()
            .enumerate()
            .filter(|(i, _)| !skip(*i))
            .map(|(_, l)| *l)
            .collect();
        kept.join("\n") + "\n"
    };
    let mut out = Vec::new();
    for i in start..end {
        let l = lines[i].trim();
        if l.ends_with(';') && !l.starts_with("for") {
            out.push(join(&|k| k == i));
        }
        if (l.starts_with("for") || l.starts_with("if")) && l.ends_with('{') {
            let close = matching_close(lines, i, end);
            // An `if` with an `else`: the else's lines go with it.
            out.push(join(&|k| (i..=close).contains(&k)));
            if !lines[close].contains("else") {
                out.push(join(&|k| k == i || k == close));
            }
        }
    }
    out
}

/// The line of the `}` that closes the block opened on line `open` (by indentation).
fn matching_close(lines: &[&str], open: usize, end: usize) -> usize {
    let indent = lines[open].len() - lines[open].trim_start().len();
    (open + 1..end)
        .find(|&k| {
            let l = lines[k];
            l.len() - l.trim_start().len() == indent
                && l.trim_start().starts_with('}')
                && l.trim() == "}"
        })
        .unwrap_or(open)
}

/// Builds the CUDA emulator's stand-in driver in `work` ([`run_env`] finds it there); whether
/// the emulator's programs can be built (a C++ compiler).
fn cuda_emulator(work: &Path) -> bool {
    polybench::cuda_emu::available()
        && polybench::cuda_emu::driver(&work.join("cuda-driver")).is_ok()
}

/// The environment of run `r`: its own, and the emulator's for CUDA.
fn run_env(work: &Path, r: &Run) -> Vec<(String, String)> {
    let mut env = r.env.clone();
    if r.target == "cuda" {
        env.extend(polybench::cuda_emu::env(&work.join("cuda-driver")));
    }
    env
}

fn opencl_present() -> bool {
    let dir = std::env::var_os("OCL_ICD_VENDORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| "/etc/OpenCL/vendors".into());
    std::fs::read_dir(dir).is_ok_and(|mut d| d.next().is_some())
}
