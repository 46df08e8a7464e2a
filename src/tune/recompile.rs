//! `polyc tune --compare-recompile`: the configurations the search measured, measured again the
//! iterative-compilation way (tile sizes fixed at compile time with `--fixed-tile-sizes`, the
//! program rebuilt and run for each), to compare what one costs against the other.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use avelas_contract::tuning::Tuned;

use super::runner::{agree, Program, RunFailure, Tolerance};
use super::{median, Measurement, TuneCli};
use crate::TargetArg;

/// What the iterative-compilation search cost.
pub struct Recompiled {
    pub configurations: usize,
    pub seconds: f64,
    /// Configurations whose rebuilt program printed something else than the default's.
    pub mismatches: usize,
    /// Per configuration: its name and the median of its SCoP's time.
    pub times: Vec<(String, f64)>,
}

/// Rebuilds and runs SCoP `scop`'s configurations of `log` (the C target), `cli.reps` times
/// each; the time spent.
pub fn compare(
    cli: &TuneCli,
    scop: usize,
    log: &[Measurement],
    reference: &str,
    work: &Path,
    limit: Duration,
) -> Result<Recompiled, String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let (source, others) = cli.sources.split_first().expect("clap requires a source");
    let started = Instant::now();
    let mut out = Recompiled {
        configurations: 0,
        seconds: 0.0,
        mismatches: 0,
        times: Vec::new(),
    };
    for m in log.iter().filter(|m| m.scop == scop) {
        let generated = work.join("recompiled.c");
        let exe = work.join("recompiled");
        let mut polyc = Command::new(&me);
        polyc
            .arg(source)
            .args(["--target", "c", "-o"])
            .arg(&generated);
        // The original order is the tiled program told to run untiled.
        let min_points = match &m.candidate.tuned {
            Tuned::Sizes(s) => {
                let s: Vec<String> = s.iter().map(i64::to_string).collect();
                polyc.arg("--fixed-tile-sizes").arg(s.join(","));
                "0"
            }
            Tuned::Untiled => "9223372036854775807",
        };
        polyc.args(cli.pp.flags());
        run_step(&mut polyc, "polyc")?;
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let mut build = Command::new(&cc);
        build
            .arg("-O3")
            .args(crate::build::cflags(TargetArg::C))
            .arg(&generated)
            .args(others)
            .arg("-o")
            .arg(&exe)
            .args(crate::build::libs(TargetArg::C)?);
        build.args(cli.pp.flags());
        if let Some(dir) = source.parent().filter(|d| !d.as_os_str().is_empty()) {
            build.arg(format!("-I{}", dir.display()));
        }
        run_step(&mut build, &cc)?;
        let program = Program {
            exe: exe.clone(),
            args: cli.args.clone(),
            scratch: work.to_path_buf(),
        };
        let mut samples = Vec::new();
        for _ in 0..cli.reps {
            match program.run_with(&[("POLYC_MIN_POINTS", min_points)], limit) {
                Ok(r) => {
                    if !cli.no_verify && !agree(&r.output, reference, Tolerance::EXACT) {
                        out.mismatches += 1;
                    }
                    if let Some(s) = r.scops.get(&scop) {
                        samples.push(s.cost());
                    }
                }
                Err(RunFailure::Timeout) | Err(RunFailure::Failed(_)) => break,
            }
        }
        out.configurations += 1;
        out.times.push((m.candidate.to_string(), median(&samples)));
    }
    out.seconds = started.elapsed().as_secs_f64();
    Ok(out)
}

fn run_step(cmd: &mut Command, what: &str) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {what}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{what} failed while rebuilding for --compare-recompile:\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(())
}
