//! Building and running what polyc generates: the flags each target needs
//! (`--print-cflags`, `--print-libs`), `polyc build` and `polyc run`.
//!
//! The C+OpenMP target needs only a C compiler with OpenMP. The OpenCL target links
//! avelas-rt's shared library, found next to the `polyc` executable (cargo puts it there, or
//! in `deps/` beside it) or in `$POLYC_RT_DIR`. The CUDA target is built with nvcc and links
//! the same library.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Parser;

use crate::TargetArg;

/// The directory holding `libavelas_rt.so`.
pub fn runtime_dir() -> Result<PathBuf, String> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(d) = std::env::var_os("POLYC_RT_DIR") {
        candidates.push(PathBuf::from(d));
    }
    if let Some(dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        candidates.push(dir.clone());
        candidates.push(dir.join("deps"));
    }
    // POLYC_RT_DIR wins; otherwise the newest copy (cargo refreshes the one in `deps` on every
    // build of polyc, the one beside it only when avelas-rt itself is built).
    let found = |d: &PathBuf| std::fs::metadata(d.join("libavelas_rt.so")).ok();
    let chosen = match std::env::var_os("POLYC_RT_DIR") {
        Some(_) if found(&candidates[0]).is_some() => Some(candidates[0].clone()),
        _ => candidates
            .iter()
            .filter_map(|d| Some((found(d)?.modified().ok()?, d)))
            .max_by_key(|(t, _)| *t)
            .map(|(_, d)| d.clone()),
    };
    chosen.ok_or_else(|| {
        format!(
            "the run-time library libavelas_rt.so was not found (looked in {}); build it with `cargo build --release -p avelas-rt`, or set POLYC_RT_DIR to its directory",
            candidates
                .iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// Compiler flags a generated file of `target` needs.
pub fn cflags(target: TargetArg) -> Vec<String> {
    match target {
        // The same floating-point evaluation as the original program built without them.
        TargetArg::C => vec!["-fopenmp".into(), "-ffp-contract=off".into()],
        TargetArg::Opencl => vec!["-ffp-contract=off".into()],
        TargetArg::Cuda => vec!["--fmad=false".into()],
    }
}

/// Linker flags a generated program of `target` needs.
pub fn libs(target: TargetArg) -> Result<Vec<String>, String> {
    Ok(match target {
        TargetArg::C => vec!["-fopenmp".into(), "-lm".into()],
        TargetArg::Opencl => {
            let d = runtime_dir()?.display().to_string();
            vec![
                format!("-L{d}"),
                "-lavelas_rt".into(),
                format!("-Wl,-rpath,{d}"),
                "-lm".into(),
            ]
        }
        TargetArg::Cuda => {
            let d = runtime_dir()?.display().to_string();
            vec![
                format!("-L{d}"),
                "-lavelas_rt".into(),
                "-Xlinker".into(),
                format!("-rpath={d}"),
                "-lm".into(),
            ]
        }
    })
}

/// `polyc build` and `polyc run`.
#[derive(Parser, Debug)]
#[command(name = "polyc build|run")]
pub struct BuildCli {
    /// `build` or `run`.
    #[arg(value_parser = ["build", "run"])]
    pub verb: String,
    /// The C file to compile with polyc, then any other C files to build with it.
    #[arg(required = true)]
    pub sources: Vec<PathBuf>,
    /// The executable (`build`: required; `run`: a temporary file).
    #[arg(short = 'o', value_name = "EXE")]
    pub output: Option<PathBuf>,
    /// The target; `run` picks the best device present: CUDA with nvcc and an NVIDIA GPU, else
    /// OpenCL with a platform installed, else C+OpenMP.
    #[arg(long, value_enum)]
    pub target: Option<TargetArg>,
    #[command(flatten)]
    pub pp: Preprocessor,
    /// Arguments of the program (`run`), after `--`.
    #[arg(last = true)]
    pub args: Vec<String>,
}

/// The preprocessor flags of `polyc build`, `run` and `tune`, as a C compiler's.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct Preprocessor {
    /// An include directory, as a C compiler's -I.
    #[arg(short = 'I', value_name = "DIR")]
    pub include: Vec<PathBuf>,
    /// A macro definition, as a C compiler's -D.
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    pub define: Vec<String>,
    /// A macro to undefine, as a C compiler's -U.
    #[arg(short = 'U', value_name = "NAME")]
    pub undefine: Vec<String>,
}

impl Preprocessor {
    /// `-IDIR`, `-DNAME`, `-UNAME`, in that order.
    pub fn flags(&self) -> Vec<String> {
        let mut pp: Vec<String> = Vec::new();
        pp.extend(self.include.iter().map(|d| format!("-I{}", d.display())));
        pp.extend(self.define.iter().map(|d| format!("-D{d}")));
        pp.extend(self.undefine.iter().map(|u| format!("-U{u}")));
        pp
    }
}

fn found(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The best target this machine can run.
pub fn best_target() -> TargetArg {
    *available_targets()
        .last()
        .expect("the C target is always available")
}

/// The targets this machine can run, C first and the best last: OpenCL with a platform
/// installed, CUDA with nvcc and an NVIDIA GPU (both need avelas-rt's library).
pub fn available_targets() -> Vec<TargetArg> {
    let mut targets = vec![TargetArg::C];
    if runtime_dir().is_err() {
        return targets;
    }
    let icd = std::env::var_os("OCL_ICD_VENDORS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/etc/OpenCL/vendors"));
    if std::fs::read_dir(&icd).is_ok_and(|mut d| d.next().is_some()) {
        targets.push(TargetArg::Opencl);
    }
    let gpu = Path::new("/dev/nvidia0").exists() || Path::new("/dev/nvidiactl").exists();
    if gpu && found("nvcc") {
        targets.push(TargetArg::Cuda);
    }
    targets
}

/// Run `polyc build|run`; the exit status.
pub fn main(args: Vec<String>) -> i32 {
    let cli = BuildCli::parse_from(args);
    if let Err(e) = check_usage(&cli) {
        eprintln!("polyc: error: {e}");
        return 2;
    }
    match build(&cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("polyc: {e}");
            1
        }
    }
}

/// `-D`/`-U` need a macro name, as a C compiler's do.
pub fn check_macros(define: &[String], undefine: &[String]) -> Result<(), String> {
    let is_name = |n: &str| {
        n.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    for d in define {
        let name = d.split_once('=').map_or(d.as_str(), |(n, _)| n);
        if !is_name(name) {
            return Err(format!(
                "-D '{d}': expected NAME or NAME=VALUE with a macro name"
            ));
        }
    }
    for u in undefine {
        if !is_name(u) {
            return Err(format!("-U '{u}': expected a macro name"));
        }
    }
    Ok(())
}

fn check_usage(cli: &BuildCli) -> Result<(), String> {
    check_macros(&cli.pp.define, &cli.pp.undefine)?;
    match (&cli.output, cli.verb.as_str()) {
        (None, "build") => return Err("polyc build needs -o EXE".into()),
        (Some(o), _) => {
            if let Some(s) = cli.sources.iter().find(|s| crate::output::same_file(s, o)) {
                return Err(format!(
                    "the output {} is the source {}; polyc never overwrites its input",
                    o.display(),
                    s.display()
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

/// The scratch directory of the build in progress, for the signal handler to remove.
static SCRATCH: std::sync::Mutex<Option<PathBuf>> = std::sync::Mutex::new(None);

/// On SIGINT, SIGTERM or SIGHUP: remove the scratch directory, then exit with status 130 (the
/// compiler polyc started may still finish its step; its output goes nowhere).
fn clean_up_on_signals() {
    let _ = ctrlc::set_handler(|| {
        if let Some(dir) = SCRATCH.lock().ok().and_then(|mut d| d.take()) {
            let _ = std::fs::remove_dir_all(dir);
        }
        eprintln!("polyc: interrupted; the build's scratch directory is removed");
        std::process::exit(130);
    });
}

fn build(cli: &BuildCli) -> Result<i32, String> {
    let target = cli.target.unwrap_or_else(best_target);
    let name = match target {
        TargetArg::C => "C+OpenMP",
        TargetArg::Opencl => "OpenCL",
        TargetArg::Cuda => "CUDA",
    };
    // Created exclusively with a random name: nobody else's directory is ever reused.
    let work = tempfile::Builder::new()
        .prefix("polyc-build-")
        .tempdir()
        .map_err(|e| format!("cannot create a scratch directory: {e}"))?;
    if let Ok(mut s) = SCRATCH.lock() {
        *s = Some(work.path().to_path_buf());
    }
    clean_up_on_signals();
    let result = build_in(cli, target, name, work.path());
    if let Ok(mut s) = SCRATCH.lock() {
        *s = None;
    }
    drop(work);
    result
}

fn build_in(cli: &BuildCli, target: TargetArg, name: &str, work: &Path) -> Result<i32, String> {
    let (main_src, others) = cli.sources.split_first().expect("clap requires a source");
    let ext = if target == TargetArg::Cuda { "cu" } else { "c" };
    let stem = main_src
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".into());
    let generated = work.join(format!("{stem}.polyc.{ext}"));
    let mut pp = cli.pp.flags();
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    let target_flag = match target {
        TargetArg::C => "c",
        TargetArg::Opencl => "opencl",
        TargetArg::Cuda => "cuda",
    };
    let status = Command::new(&me)
        .arg(main_src)
        .args(&pp)
        .args(["--target", target_flag, "-o"])
        .arg(&generated)
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Ok(status.code().unwrap_or(1));
    }
    let exe = match &cli.output {
        Some(o) => o.clone(),
        None => work.join(&stem),
    };
    // The file polyc wrote includes the user's headers relative to the original's directory.
    if let Some(dir) = main_src.parent().filter(|d| !d.as_os_str().is_empty()) {
        pp.push(format!("-I{}", dir.display()));
    }
    let cc = match target {
        TargetArg::Cuda => "nvcc".to_string(),
        _ => std::env::var("CC").unwrap_or_else(|_| "cc".into()),
    };
    let mut cmd = Command::new(&cc);
    cmd.args(["-O3"])
        .args(cflags(target))
        .args(&pp)
        .arg(&generated);
    for o in others {
        // The generated file is CUDA C++: the other sources are compiled as C++ too, so that
        // their functions link with the declarations the generated file sees.
        if target == TargetArg::Cuda {
            cmd.args(["-x", "cu"]);
        }
        cmd.arg(o);
    }
    cmd.arg("-o").arg(&exe).args(libs(target)?);
    eprintln!("polyc: building for {name}: {cc} ... -o {}", exe.display());
    let out = cmd.output().map_err(|e| format!("cannot run {cc}: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "{cc} failed on the generated {}:\n{}",
            generated.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    if cli.verb == "build" {
        return Ok(0);
    }
    let status = Command::new(&exe)
        .args(&cli.args)
        .status()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    Ok(exit_code(&status))
}

/// The program's exit status; for a program killed by a signal, a message naming the signal
/// and 128 + its number, as a shell reports it.
fn exit_code(status: &std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return code;
    }
    let sig = status.signal().unwrap_or(0);
    eprintln!(
        "polyc: the program was killed by signal {sig} ({}){}",
        signal_name(sig),
        if status.core_dumped() {
            ", core dumped"
        } else {
            ""
        }
    );
    128 + sig
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        24 => "SIGXCPU",
        25 => "SIGXFSZ",
        _ => "a signal",
    }
}
