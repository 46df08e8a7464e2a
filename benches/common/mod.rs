//! What the benchmarks share: timed variants of a built program, round-robin timing, polyc
//! runs, summaries.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use polybench::harness::Build;
use polybench::Kernel;

/// A built program and the environment it runs with.
pub struct Variant {
    pub name: String,
    pub exe: PathBuf,
    pub env: Vec<(String, String)>,
    /// Seconds per run (PolyBench's kernel timer); infinite for a run past the time limit.
    pub times: Vec<f64>,
}

impl Variant {
    pub fn new(name: &str, exe: &Path, env: &[(&str, &str)]) -> Variant {
        Variant {
            name: name.into(),
            exe: exe.to_path_buf(),
            env: env
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            times: Vec::new(),
        }
    }

    pub fn median(&self) -> f64 {
        let mut t = self.times.clone();
        t.sort_by(f64::total_cmp);
        t[t.len() / 2]
    }
}

/// Time each variant `runs` times, round-robin, so that drift in the machine's speed hits
/// every variant alike; a run longer than `limit` is killed and counts as infinitely slow.
pub fn time_all(variants: &mut [Variant], runs: usize, limit: Duration) -> Result<(), String> {
    for _ in 0..runs {
        for v in variants.iter_mut() {
            let t = time_one(v, limit)?;
            v.times.push(t);
        }
    }
    Ok(())
}

fn time_one(v: &Variant, limit: Duration) -> Result<f64, String> {
    let mut child = Command::new(&v.exe)
        .envs(v.env.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", v.exe.display()))?;
    let start = Instant::now();
    while child.try_wait().map_err(|e| e.to_string())?.is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Ok(f64::INFINITY);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    text.lines()
        .last()
        .and_then(|l| l.trim().parse().ok())
        .filter(|_| out.status.success())
        .ok_or_else(|| {
            format!(
                "{} ({}) printed no time: {}",
                v.name,
                v.exe.display(),
                String::from_utf8_lossy(&out.stderr)
            )
        })
}

/// Run `polyc` (the one under test, or another binary) on kernel `k` for `build`.
pub fn polyc(
    polyc: &Path,
    k: &Kernel,
    build: &Build,
    flags: &[&str],
    out: &Path,
) -> Result<(), String> {
    let r = Command::new(polyc)
        .arg(&k.source)
        .args(build.cpp_flags(k))
        .args(flags)
        .arg("-o")
        .arg(out)
        .output()
        .map_err(|e| e.to_string())?;
    if r.status.success() {
        Ok(())
    } else {
        Err(format!(
            "polyc failed: {}",
            String::from_utf8_lossy(&r.stderr)
        ))
    }
}

/// The timing build of a kernel: gcc -O3 -march=native, PolyBench's timer.
pub fn timing_build(dataset: &str, openmp: bool) -> Build {
    Build {
        dataset: dataset.into(),
        openmp,
        cflags: vec![
            "-O3".into(),
            "-march=native".into(),
            "-DPOLYBENCH_TIME".into(),
        ],
        dump_arrays: false,
        ldflags: Vec::new(),
    }
}

pub fn geomean(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

pub fn split(s: &str, sep: char) -> Vec<String> {
    s.split(sep)
        .filter(|x| !x.is_empty())
        .map(String::from)
        .collect()
}

/// "<model name>, <n> cores" of this machine.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    format!(
        "{cpu}, {} cores",
        std::thread::available_parallelism().map_or(1, |n| n.get())
    )
}

/// The options every benchmark takes.
pub struct Shared {
    pub kernels: Vec<String>,
    pub datasets: Vec<String>,
    pub runs: usize,
    pub threads: String,
    pub out: PathBuf,
}

impl Shared {
    /// Take `--kernels`, `--datasets`, `--runs`, `--threads` or `--out`; false for another flag,
    /// `Err` for a value that does not parse.
    pub fn take(&mut self, flag: &str, value: &str) -> Result<bool, ()> {
        match flag {
            "--kernels" => self.kernels = split(value, ','),
            "--datasets" => self.datasets = split(value, ','),
            "--runs" => self.runs = value.parse().map_err(|_| ())?,
            "--threads" => self.threads = value.into(),
            "--out" => self.out = PathBuf::from(value),
            _ => return Ok(false),
        }
        Ok(true)
    }
}

/// The command line as (flag, value) pairs (every flag takes a value; cargo's `--bench` aside);
/// `usage` is called with the flag whose value is missing.
pub fn flag_values(usage: fn(&str) -> !) -> Vec<(String, String)> {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut it = args.into_iter();
    let mut out = Vec::new();
    while let Some(flag) = it.next() {
        let value = it.next().unwrap_or_else(|| usage(&flag));
        out.push((flag, value));
    }
    out
}

/// Say which argument is wrong and how benchmark `bench` is called (`own`: its own flags), and
/// exit with status 2.
pub fn usage(bench: &str, own: &str, flag: &str) -> ! {
    eprintln!(
        "bench-{bench}: bad argument near '{flag}'\nusage: cargo bench --bench {bench} -- [--kernels a,b] [--datasets MEDIUM,LARGE] [--runs N] [--threads N] {own} [--out FILE]"
    );
    std::process::exit(2)
}
