//! Build a generated CUDA program for polyc's CUDA emulator and run it on the CPU: machines
//! without a GPU (CI, the development VM) run the CUDA target's kernels, not only compile them.
//!
//! The emulator is a header, `cuda-emu/polyc_cuda_emu.h` (the runtime API, the built-in
//! variables, barriers, warp shuffles and atomics, with each block's threads as fibers; its
//! comment says what it checks and what it does not model), and a stand-in for the CUDA
//! driver, `cuda-emu/libcuda.c`, which avelas-rt opens through cudarc as it would the real one.
//! g++ compiles the `.cu` file as C++ once [`translate`] has rewritten the two constructs only
//! nvcc parses.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{cc, Build};
use crate::{utilities_of, Kernel};

/// The emulator's header.
pub fn header() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda-emu/polyc_cuda_emu.h")
}

/// The C++ compiler: `$CXX`, else `g++`.
pub fn cxx() -> String {
    std::env::var("CXX").unwrap_or_else(|_| "g++".into())
}

/// Whether the emulator's programs can be built here: a C++ compiler answers.
pub fn available() -> bool {
    Command::new(cxx())
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `source` with each launch `k<<<grid, block, shared>>>(args)` made a call of the
/// emulator's `polyc_emu::launch(k, grid, block, shared)(args)`, and each dynamic shared
/// array `extern __shared__ [__align__(n)] T name[];` a pointer to the block's shared bytes.
pub fn translate(source: &str) -> String {
    let launches = rewrite_launches(source);
    launches
        .lines()
        .map(|l| rewrite_shared(l).unwrap_or_else(|| l.to_string()))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn rewrite_launches(source: &str) -> String {
    let mut out = String::with_capacity(source.len() + source.len() / 8);
    let mut rest = source;
    while let Some(open) = rest.find("<<<") {
        let Some(close) = rest[open..].find(">>>").map(|c| open + c) else {
            break;
        };
        let head = &rest[..open];
        let name_at = head
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        out.push_str(&head[..name_at]);
        out.push_str("polyc_emu::launch(");
        out.push_str(&head[name_at..]);
        out.push_str(", ");
        out.push_str(&rest[open + 3..close]);
        out.push(')');
        rest = &rest[close + 3..];
    }
    out.push_str(rest);
    out
}

fn rewrite_shared(line: &str) -> Option<String> {
    const EXTERN: &str = "extern __shared__ ";
    let at = line.find(EXTERN)?;
    let rest = &line[at + EXTERN.len()..];
    let end = rest.find("[];")?;
    let decl = rest[..end].trim();
    let decl = match decl.strip_prefix("__align__(") {
        Some(d) => d.split_once(')')?.1.trim_start(),
        None => decl,
    };
    let (ty, name) = decl.rsplit_once(' ')?;
    let after = &rest[end + 3..];
    let after = rewrite_shared(after).unwrap_or_else(|| after.to_string());
    Some(format!(
        "{}{ty} *{name} = ({ty} *)polyc_emu::dynamic_shared;{after}",
        &line[..at]
    ))
}

/// Build the stand-in driver `libcuda.so` in `dir` (once; later calls reuse it); `dir`, for
/// the programs' `LD_LIBRARY_PATH`.
pub fn driver(dir: &Path) -> Result<PathBuf, String> {
    let lib = dir.join("libcuda.so");
    if lib.exists() {
        return Ok(dir.to_path_buf());
    }
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    // A name of its own per build: two threads of a test may build it at once.
    static BUILDS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let part = dir.join(format!("libcuda.so.{}-{n}", std::process::id()));
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("cuda-emu/libcuda.c");
    run(Command::new(cc())
        .args(["-shared", "-fPIC", "-O2"])
        .arg(&src)
        .arg("-o")
        .arg(&part))?;
    // Renamed into place: a program started beside this build never loads half a library.
    std::fs::rename(&part, &lib).map_err(|e| format!("cannot move {}: {e}", part.display()))?;
    Ok(dir.to_path_buf())
}

/// The environment a program built by [`compile`] runs in: the stand-in driver `driver`
/// (from [`driver`]) on the library path.
pub fn env(driver: &Path) -> Vec<(String, String)> {
    vec![("LD_LIBRARY_PATH".into(), driver.display().to_string())]
}

/// Compile the generated `cu` of kernel `k` for the emulator into `exe`, as `build` says
/// (its flags, dataset and libraries; `openmp` is ignored). PolyBench's `polybench.c` is
/// compiled as C++ too, as nvcc does.
pub fn compile_kernel(k: &Kernel, cu: &Path, build: &Build, exe: &Path) -> Result<(), String> {
    let mut flags = build.cflags.clone();
    flags.extend(build.cpp_flags(k));
    if build.dump_arrays {
        flags.push("-DPOLYBENCH_DUMP_ARRAYS".into());
    }
    let utilities = utilities_of(k).join("polybench.c");
    compile(cu, &flags, &[utilities], &build.ldflags, exe)
}

/// Compile the generated `cu` for the emulator into `exe`, with `others` (sources the program
/// needs besides, compiled as C++ without the emulator), the compiler flags `flags` and the
/// link flags `ldflags`.
pub fn compile(
    cu: &Path,
    flags: &[String],
    others: &[PathBuf],
    ldflags: &[String],
    exe: &Path,
) -> Result<(), String> {
    let text =
        std::fs::read_to_string(cu).map_err(|e| format!("cannot read {}: {e}", cu.display()))?;
    let cpp = exe.with_extension("emu.cpp");
    std::fs::write(&cpp, translate(&text))
        .map_err(|e| format!("cannot write {}: {e}", cpp.display()))?;
    let object = |src: &Path, tag: String, emulated: bool| -> Result<PathBuf, String> {
        let o = exe.with_extension(tag);
        let mut c = Command::new(cxx());
        c.args(flags)
            .args(["-std=c++17", "-ffp-contract=off", "-w", "-c", "-x", "c++"]);
        if emulated {
            c.arg("-include").arg(header());
        }
        run(c.arg(src).arg("-o").arg(&o))?;
        Ok(o)
    };
    let mut objects = vec![object(&cpp, "emu.o".into(), true)?];
    for (i, src) in others.iter().enumerate() {
        objects.push(object(src, format!("{i}.o"), false)?);
    }
    run(Command::new(cxx())
        .args(&objects)
        .arg("-o")
        .arg(exe)
        .args(ldflags)
        .arg("-lm"))
}

fn run(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {:?}: {e}", cmd.get_program()))?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    Err(format!(
        "{:?} failed:\n{}",
        cmd.get_program(),
        err.lines().take(12).collect::<Vec<_>>().join("\n")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launches_become_calls_of_the_emulator() {
        let cu = "  if (s) k_seq<<<dim3(gx, gy), dim3(n)>>>(a, b); else k<<<g, dim3(n), (size_t)lm>>>(a);";
        assert_eq!(
            translate(cu),
            "  if (s) polyc_emu::launch(k_seq, dim3(gx, gy), dim3(n))(a, b); else polyc_emu::launch(k, g, dim3(n), (size_t)lm)(a);\n"
        );
    }

    #[test]
    fn dynamic_shared_arrays_become_pointers_to_the_blocks_bytes() {
        assert_eq!(
            translate("  extern __shared__ __align__(16) unsigned char polyc_lm[];\nx;"),
            "  unsigned char *polyc_lm = (unsigned char *)polyc_emu::dynamic_shared;\nx;\n"
        );
        assert_eq!(
            translate("{ extern __shared__ double s[]; s[0] = 1; }"),
            "{ double *s = (double *)polyc_emu::dynamic_shared; s[0] = 1; }\n"
        );
        // Not a dynamic array: left as it is (the header makes `__shared__` static).
        assert_eq!(
            translate("__shared__ double s[8];"),
            "__shared__ double s[8];\n"
        );
    }
}
