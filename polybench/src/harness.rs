//! Build and run PolyBench-form programs with the system C compiler and collect their array
//! dumps, so that a transformed program can be compared with the original one.
//!
//! A program is built the way PolyBench's own scripts build it: the kernel's `.c` (or a
//! transformed version of it) together with `utilities/polybench.c`, with the kernel's directory
//! and `utilities` on the include path, a dataset define and `POLYBENCH_DUMP_ARRAYS`, so that the
//! arrays are printed on stderr when the kernel is done.

use crate::{utilities_of, Kernel};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;

/// How to build one program.
#[derive(Debug, Clone)]
pub struct Build {
    /// `MINI`, `SMALL`... (see [`crate::DATASETS`]).
    pub dataset: String,
    /// Build with `-fopenmp`.
    pub openmp: bool,
    /// Optimisation and other flags passed before the sources, e.g. `-O2`.
    pub cflags: Vec<String>,
    /// Print the arrays on stderr when the kernel is done (`POLYBENCH_DUMP_ARRAYS`); off for
    /// timing runs, on for checks.
    pub dump_arrays: bool,
    /// Flags after the sources (libraries).
    pub ldflags: Vec<String>,
}

impl Build {
    /// An `-O2` build at `dataset`, with or without OpenMP.
    pub fn new(dataset: &str, openmp: bool) -> Build {
        Build {
            dataset: dataset.to_string(),
            openmp,
            cflags: vec!["-O2".into()],
            dump_arrays: true,
            ldflags: Vec::new(),
        }
    }

    /// The preprocessor flags a kernel needs (`-I` its directory and `utilities`, the dataset).
    pub fn cpp_flags(&self, k: &Kernel) -> Vec<String> {
        let dir = k.source.parent().unwrap_or(Path::new("."));
        vec![
            format!("-I{}", utilities_of(k).display()),
            format!("-I{}", dir.display()),
            format!("-D{}_DATASET", self.dataset),
        ]
    }
}

/// The C compiler: `$CC`, else `gcc`.
pub fn cc() -> String {
    std::env::var("CC").unwrap_or_else(|_| "gcc".into())
}

/// Compile `source` (the kernel's own file or a transformed copy) into `exe`.
pub fn compile(k: &Kernel, source: &Path, build: &Build, exe: &Path) -> Result<(), String> {
    let mut cmd = Command::new(cc());
    cmd.args(&build.cflags)
        // The same floating-point evaluation for original and transformed programs.
        .arg("-ffp-contract=off")
        .args(build.cpp_flags(k))
        .args(build.dump_arrays.then_some("-DPOLYBENCH_DUMP_ARRAYS"))
        .arg(source)
        .arg(utilities_of(k).join("polybench.c"))
        .arg("-o")
        .arg(exe)
        .args(&build.ldflags)
        .arg("-lm");
    if build.openmp {
        cmd.arg("-fopenmp");
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", cc()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} failed on {}:\n{}",
            cc(),
            source.display(),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// How a child ended ([`run_to_end`]).
pub struct Finished {
    /// None: killed at the limit.
    pub status: Option<ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    /// From this call to the child's end.
    pub wall: Duration,
}

/// Waits for `child` (its stdout and stderr piped, or not) and reads its output, killing it
/// once `limit` has passed, without polling it: the caller sleeps in `wait` and a watchdog
/// thread sleeps until the limit. A program timed that counts the runnable tasks to decide its
/// threads (polyc's `polyc_usable_threads`) does not see a parent that wakes every few
/// milliseconds to poll (`polyc bench` and `polyc tune` polled every 2 or 5 ms; under a polling
/// parent heat-3d LARGE started one thread in 1 of 10 runs, under a waiting one in none of 10).
/// A process the child starts that keeps its pipes open is not killed, and the call waits for
/// it (the programs timed start threads, not processes).
pub fn run_to_end(child: Child, limit: Duration) -> std::io::Result<Finished> {
    let start = Instant::now();
    let pid = Pid::from_raw(child.id() as i32);
    let (ended, watch) = mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || match watch.recv_timeout(limit) {
        Err(RecvTimeoutError::Timeout) => {
            // The parent reaps the child only in `wait`, which signals `ended` right after:
            // the pid could name another process only if the limit passed in that moment and
            // the system reused the pid within it.
            let _ = kill(pid, Signal::SIGKILL);
            true
        }
        _ => false,
    });
    let out = child.wait_with_output();
    let wall = start.elapsed();
    let _ = ended.send(());
    let killed = watchdog.join().unwrap_or(false);
    let out = out?;
    Ok(Finished {
        status: (!killed).then_some(out.status),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        wall,
    })
}

/// Run a built program with extra environment variables; its stderr (the array dump).
pub fn run(exe: &Path, env: &[(&str, &str)]) -> Result<String, String> {
    let out = Command::new(exe)
        .envs(env.iter().copied())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(format!(
            "{} exited with {}:\n{}",
            exe.display(),
            out.status,
            tail(&stderr, 2000)
        ));
    }
    Ok(stderr)
}

/// Build and run the original kernel; its array dump.
pub fn reference_dump(k: &Kernel, build: &Build, work: &Path) -> Result<String, String> {
    let exe = work.join(format!("{}-{}-orig", k.name, build.dataset));
    compile(k, &k.source, build, &exe)?;
    let dump = run(&exe, &[])?;
    if !dump.contains("begin dump") {
        return Err(format!(
            "{} printed no array dump; is it a PolyBench program?",
            k.name
        ));
    }
    Ok(dump)
}

/// Where two dumps first differ, as a short report; `None` when they are equal.
pub fn compare_dumps(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let first = e
        .iter()
        .zip(&a)
        .position(|(x, y)| x != y)
        .unwrap_or(e.len().min(a.len()));
    Some(format!(
        "dumps differ at line {} of {} (expected `{}`, got `{}`)",
        first + 1,
        e.len(),
        e.get(first).unwrap_or(&"<end>"),
        a.get(first).unwrap_or(&"<end>")
    ))
}

/// [`compare_dumps`] for a program whose floating-point sums may add in another order than
/// the original's (the GPU targets' reductions across tiles): a number printed with a
/// fraction may differ from the expected by one unit of its last printed digit (a rounding
/// flip of a last-bit difference); integers and everything else must match exactly.
pub fn compare_dumps_reassociated(expected: &str, actual: &str) -> Option<String> {
    let (e, a): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let close = within_last_digit;
    let same_line = |x: &str, y: &str| {
        let (xs, ys): (Vec<&str>, Vec<&str>) = (
            x.split_whitespace().collect(),
            y.split_whitespace().collect(),
        );
        xs.len() == ys.len() && xs.iter().zip(&ys).all(|(p, q)| p == q || close(p, q))
    };
    let first = e.iter().zip(&a).position(|(x, y)| !same_line(x, y));
    match first {
        None if e.len() == a.len() => None,
        None => compare_dumps(expected, actual),
        Some(l) => Some(format!(
            "dumps differ by more than their last printed digit at line {} of {} (expected `{}`, got `{}`)",
            l + 1,
            e.len(),
            e[l],
            a[l]
        )),
    }
}

/// Whether the number `actual` is `expected` (printed with a fraction, `12.34`) but for one unit
/// of `expected`'s last printed digit: what adding in another order may change (a last-bit
/// difference that flips a rounding).
pub fn within_last_digit(expected: &str, actual: &str) -> bool {
    let (Some(dot), Ok(u), Ok(v)) = (
        expected.find('.'),
        expected.parse::<f64>(),
        actual.parse::<f64>(),
    ) else {
        return false;
    };
    let digits = expected[dot + 1..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .count();
    let unit = 10f64.powi(-(digits as i32));
    expected.len() - dot - 1 == digits && (u - v).abs() <= unit * 1.0001
}

/// A fresh scratch directory under the system temporary directory.
pub fn scratch_dir(tag: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("polyc-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("cannot create a scratch directory");
    Scratch(dir)
}

/// A scratch directory, removed when dropped unless the thread is panicking (a failed test's
/// files stay for a look).
pub struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// Run `job` on every item with as many threads as the machine has cores; results in order.
pub fn par_map<T: Sync, R: Send>(items: &[T], job: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = std::sync::Mutex::new((0..items.len()).map(|_| None).collect::<Vec<_>>());
    std::thread::scope(|s| {
        for _ in 0..threads.min(items.len()) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = job(item);
                results.lock().unwrap()[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every item was processed"))
        .collect()
}

fn tail(s: &str, n: usize) -> &str {
    let start = s.len().saturating_sub(n);
    let start = (start..s.len())
        .find(|&i| s.is_char_boundary(i))
        .unwrap_or(s.len());
    &s[start..]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Stdio;

    #[test]
    fn compare_reports_the_first_difference() {
        assert_eq!(compare_dumps("a\nb\n", "a\nb\n"), None);
        let r = compare_dumps("a\nb\nc\n", "a\nx\nc\n").unwrap();
        assert!(r.contains("line 2"), "{r}");
        let r = compare_dumps("a\nb\n", "a\n").unwrap();
        assert!(r.contains("<end>"), "{r}");
    }

    #[test]
    fn reassociated_sums_may_flip_their_last_printed_digit_only() {
        let want = "begin dump: y\n12.34 0.05 7\nend   dump: y\n";
        assert_eq!(compare_dumps_reassociated(want, want), None);
        let flip = "begin dump: y\n12.35 0.04 7\nend   dump: y\n";
        assert_eq!(compare_dumps_reassociated(want, flip), None);
        for wrong in [
            "begin dump: y\n12.36 0.05 7\nend   dump: y\n",
            "begin dump: y\n12.34 0.05 8\nend   dump: y\n",
            "begin dump: y\n12.34 0.05\nend   dump: y\n",
            "begin dump: x\n12.34 0.05 7\nend   dump: y\n",
        ] {
            assert!(compare_dumps_reassociated(want, wrong).is_some(), "{wrong}");
        }
    }

    #[test]
    fn par_map_keeps_order() {
        let v: Vec<u32> = (0..50).collect();
        assert_eq!(
            par_map(&v, |x| x * 2),
            v.iter().map(|x| x * 2).collect::<Vec<_>>()
        );
    }

    fn spawn(script: &str) -> Child {
        Command::new("sh")
            .args(["-c", script])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    }

    #[test]
    fn a_child_that_ends_in_time_gives_its_status_and_output() {
        let f = run_to_end(
            spawn("echo out; echo err >&2; exit 3"),
            Duration::from_secs(30),
        )
        .unwrap();
        assert_eq!(f.status.and_then(|s| s.code()), Some(3));
        assert_eq!((f.stdout.as_str(), f.stderr.as_str()), ("out\n", "err\n"));
        assert!(f.wall < Duration::from_secs(30));
    }

    #[test]
    fn a_child_past_its_limit_is_killed() {
        let f = run_to_end(spawn("exec sleep 30"), Duration::from_millis(200)).unwrap();
        assert!(f.status.is_none());
        assert!(f.wall < Duration::from_secs(10), "{:?}", f.wall);
    }
}
