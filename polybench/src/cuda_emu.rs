//! Build a generated CUDA program for polyc's CUDA emulator and run it on the CPU: machines
//! without a GPU (CI, the development VM) run the CUDA target's kernels, not only compile them.
//!
//! The emulator is a header, `cuda-emu/polyc_cuda_emu.h` (the runtime API, the built-in
//! variables, barriers, warp shuffles and atomics, with each block's threads as fibers; its
//! comment says what it checks and what it does not model), and a stand-in for the CUDA
//! driver, `cuda-emu/libcuda.c`, which avelas-rt opens through cudarc as it would the real one.
//! g++ compiles the `.cu` file as C++ once [`translate`] has rewritten the two constructs only
//! nvcc parses.

use std::collections::BTreeMap;
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
/// emulator's `polyc_emu::launch(k, "k", grid, block, shared)(args)`, each dynamic shared
/// array `extern __shared__ [__align__(n)] T name[];` a pointer to the block's shared bytes,
/// and each kernel's array argument `T *__restrict__ name` a `polyc_emu::global_ptr<T>` named
/// `name`, whose accesses the emulator's memory trace records.
pub fn translate(source: &str) -> String {
    let launches = rewrite_array_arguments(&rewrite_launches(source));
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
        out.push_str(", \"");
        out.push_str(&head[name_at..]);
        out.push_str("\", ");
        out.push_str(&rest[open + 3..close]);
        out.push(')');
        rest = &rest[close + 3..];
    }
    out.push_str(rest);
    out
}

/// Each `__global__` function's `T *__restrict__ name` parameters made
/// `polyc_emu::global_ptr<T> name`, named at the start of its body. The run-time's tables
/// (pointers without `__restrict__`) stay plain pointers: the trace is of the program's arrays.
fn rewrite_array_arguments(source: &str) -> String {
    const GLOBAL: &str = "__global__ void ";
    let mut out = String::with_capacity(source.len() + source.len() / 8);
    let mut rest = source;
    while let Some(at) = rest.find(GLOBAL) {
        let Some(open) = rest[at..].find('(').map(|o| at + o) else {
            break;
        };
        let Some(close) = rest[open..].find(')').map(|c| open + c) else {
            break;
        };
        out.push_str(&rest[..=open]);
        let mut names = Vec::new();
        let params: Vec<String> = rest[open + 1..close]
            .split(',')
            .map(|p| match array_parameter(p) {
                Some((ty, name)) => {
                    let indent = &p[..p.len() - p.trim_start().len()];
                    names.push(name);
                    format!("{indent}polyc_emu::global_ptr<{ty}> {name}")
                }
                None => p.to_string(),
            })
            .collect();
        out.push_str(&params.join(","));
        rest = &rest[close..];
        let body = rest.find(|c: char| !(c == ')' || c.is_whitespace()));
        if let Some(b) = body.filter(|&b| rest[b..].starts_with('{')) {
            out.push_str(&rest[..=b]);
            for name in names {
                out.push_str(&format!(" {name}.name = \"{name}\";"));
            }
            rest = &rest[b + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// `(T, name)` of a parameter `T *__restrict__ name`.
fn array_parameter(param: &str) -> Option<(&str, &str)> {
    let (ty, name) = param.split_once("__restrict__")?;
    let ty = ty.trim().strip_suffix('*')?.trim_end();
    let name = name.trim();
    let ok =
        !ty.is_empty() && !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    ok.then_some((ty, name))
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

/// A kernel's accesses to one of its array arguments, as the emulator's memory trace
/// (`POLYC_EMU_TRACE=1`) prints them at exit: the warp requests, the 32-byte sectors they
/// touch, the distinct bytes their lanes use, and the distinct sectors of each launch summed
/// over the launches (what memory delivers with a cache as large as the data).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    pub launches: u64,
    pub requests: u64,
    pub sectors: u64,
    pub bytes: u64,
    pub distinct_sectors: u64,
}

impl Traffic {
    /// `self` and `t` together (the launches: the larger count; the rest summed).
    pub fn add(&mut self, t: &Traffic) {
        self.launches = self.launches.max(t.launches);
        self.requests += t.requests;
        self.sectors += t.sectors;
        self.bytes += t.bytes;
        self.distinct_sectors += t.distinct_sectors;
    }

    /// 8 for doubles read by 32 neighbouring lanes, 32 for one row per lane.
    pub fn sectors_per_request(&self) -> f64 {
        self.sectors as f64 / self.requests.max(1) as f64
    }

    /// The share of the sectors' bytes the lanes use, in percent.
    pub fn used_percent(&self) -> f64 {
        100.0 * self.bytes as f64 / (32.0 * self.sectors.max(1) as f64)
    }
}

/// A GPU kernel (function) of the program and an array it accesses.
pub type KernelArray = (String, String);

/// The memory trace in a program's `stderr`: (kernel function, array) -> its traffic.
pub fn traffic(stderr: &str) -> BTreeMap<KernelArray, Traffic> {
    let mut traced: BTreeMap<KernelArray, Traffic> = BTreeMap::new();
    for line in stderr.lines() {
        let Some(fields) = line.strip_prefix("polyc-cuda-emu: trace kernel=") else {
            continue;
        };
        let field = |name: &str| -> Option<&str> {
            fields
                .split_whitespace()
                .find_map(|f| f.strip_prefix(name)?.strip_prefix('='))
        };
        let num = |name: &str| field(name).and_then(|v| v.parse().ok()).unwrap_or(0);
        let t = Traffic {
            launches: num("launches"),
            requests: num("requests"),
            sectors: num("sectors"),
            bytes: num("bytes"),
            distinct_sectors: num("distinct_sectors"),
        };
        let function = fields.split_whitespace().next().unwrap_or("?").to_string();
        let array = field("array").unwrap_or("?").to_string();
        traced.entry((function, array)).or_default().add(&t);
    }
    traced
}

/// [`traffic`]'s answer summed per array over the kernel functions.
pub fn per_array(traced: &BTreeMap<KernelArray, Traffic>) -> BTreeMap<String, Traffic> {
    let mut arrays: BTreeMap<String, Traffic> = BTreeMap::new();
    for ((_, array), t) in traced {
        arrays.entry(array.clone()).or_default().add(t);
    }
    arrays
}

/// Build the generated `cu` of kernel `k` for the emulator as `build` says (its dataset and
/// libraries; at -O0, without dumps), run it in `work` in the environment `env` with the
/// memory trace on, and read the trace ([`traffic`]).
pub fn trace_kernel(
    k: &Kernel,
    cu: &Path,
    build: &Build,
    env: &[(String, String)],
    work: &Path,
) -> Result<BTreeMap<KernelArray, Traffic>, String> {
    let build = Build {
        cflags: vec!["-O0".into()],
        dump_arrays: false,
        ..build.clone()
    };
    let exe = cu.with_extension("traced");
    compile_kernel(k, cu, &build, &exe)?;
    let driver = driver(&work.join("cuda-driver"))?;
    let child = Command::new(&exe)
        .envs(self::env(&driver))
        .envs(env.iter().cloned())
        .env("POLYC_EMU_TRACE", "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    let done = crate::harness::run_to_end(child, std::time::Duration::from_secs(1800))
        .map_err(|e| format!("{}: {e}", exe.display()))?;
    if !done.status.is_some_and(|s| s.success()) {
        return Err(format!("{} failed: {}", exe.display(), done.stderr.trim()));
    }
    Ok(traffic(&done.stderr))
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
            "  if (s) polyc_emu::launch(k_seq, \"k_seq\", dim3(gx, gy), dim3(n))(a, b); else polyc_emu::launch(k, \"k\", g, dim3(n), (size_t)lm)(a);\n"
        );
    }

    #[test]
    fn array_arguments_become_traced_pointers() {
        let cu = "extern \"C\" __global__ void k(\n    const long *polyc_tb,\n    const double *__restrict__ A,\n    double *__restrict__ y)\n{\n  y[0] = A[0];\n}\n__global__ void d(float *__restrict__ x);\n";
        assert_eq!(
            translate(cu),
            "extern \"C\" __global__ void k(\n    const long *polyc_tb,\n    polyc_emu::global_ptr<const double> A,\n    polyc_emu::global_ptr<double> y)\n{ A.name = \"A\"; y.name = \"y\";\n  y[0] = A[0];\n}\n__global__ void d(polyc_emu::global_ptr<float> x);\n"
        );
    }

    #[test]
    fn trace_lines_are_read_per_kernel_and_array() {
        let err = "x\npolyc-cuda-emu: trace kernel=k0 array=A launches=2 requests=10 sectors=80 bytes=2560 distinct_sectors=40\n\
                   polyc-cuda-emu: trace kernel=k1 array=A launches=1 requests=1 sectors=32 bytes=256 distinct_sectors=32\n\
                   polyc-cuda-emu: trace total requests=11 sectors=112 bytes=2816 distinct_sectors=72 (x)\n";
        let t = traffic(err);
        assert_eq!(t.len(), 2);
        assert_eq!(t[&("k1".to_string(), "A".to_string())].sectors, 32);
        let a = per_array(&t)["A"];
        assert_eq!(
            a,
            Traffic {
                launches: 2,
                requests: 11,
                sectors: 112,
                bytes: 2816,
                distinct_sectors: 72
            }
        );
        assert!((a.sectors_per_request() - 112.0 / 11.0).abs() < 1e-9);
        assert!((a.used_percent() - 2816.0 / 35.84).abs() < 1e-9);
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
