//! Local-memory buffers (issue 14): the kernels of the stencils and of the dense linear algebra
//! stage tiles in local memory (OpenCL `__local`, CUDA shared memory that the PTX declares and
//! loads from), and the buffer bucket picks the version the window admits, as the
//! `POLYC_PROFILE` line reports. Whether the results stay right under every window is
//! `tests/opencl.rs`'s run of the whole suite.

mod common;

use std::path::Path;

use polybench::harness::{self, par_map, scratch_dir, Build};
use polybench::Kernel;

/// The kernels whose buffers issue 14 names (lu's array is written through several classes of
/// references: they are staged together, in tiles where their boxes are apart).
const STAGED: &[&str] = &["gemm", "jacobi-2d", "seidel-2d", "fdtd-2d", "heat-3d", "lu"];

fn kernel(name: &str) -> Kernel {
    polybench::kernel(name).expect("a bundled kernel")
}

/// Where the OpenCL kernels of `k` stage nothing, or what fails.
fn opencl_stages(k: &Kernel, work: &Path) -> Result<(), String> {
    let build = Build::new("SMALL", false);
    let out = work.join(format!("{}.c", k.name));
    common::polyc_kernel(k, &build, &["--target", "opencl"], &out)?;
    let text = std::fs::read_to_string(&out).map_err(|e| e.to_string())?;
    for needle in ["__local uchar *polyc_lm", "__local double *polyc_bl0"] {
        if !text.contains(needle) {
            return Err(format!("{}: the OpenCL kernels lack `{needle}`", k.name));
        }
    }
    // A statement reads or writes the best buffer (a write through the flag that marks it).
    if !text.contains("polyc_bl0[(int)(") && !text.contains("polyc_bl0[polyc_mark(") {
        return Err(format!("{}: no statement uses the first buffer", k.name));
    }
    Ok(())
}

/// Where the PTX of `k`'s CUDA kernels neither declares nor loads shared memory, or what
/// fails.
fn ptx_stages(clang: &str, k: &Kernel, work: &Path) -> Result<(), String> {
    let build = Build::new("SMALL", false);
    let cu = work.join(format!("{}.cu", k.name));
    common::polyc_kernel(k, &build, &[], &cu)?;
    let ptx = work.join(format!("{}.ptx", k.name));
    let failures = common::cuda_check(clang, &cu, &build.cpp_flags(k), &ptx);
    if !failures.is_empty() {
        return Err(format!("{}: {}", k.name, failures.join("\n")));
    }
    let text = std::fs::read_to_string(&ptx).map_err(|e| e.to_string())?;
    for needle in [".shared", "ld.shared"] {
        if !text.contains(needle) {
            return Err(format!("{}: the PTX has no `{needle}`", k.name));
        }
    }
    Ok(())
}

#[test]
fn stencil_and_linear_algebra_kernels_stage_tiles_in_local_memory() {
    let work = scratch_dir("local-memory-text");
    let kernels: Vec<Kernel> = STAGED.iter().map(|n| kernel(n)).collect();
    let mut failures: Vec<String> = par_map(&kernels, |k| opencl_stages(k, &work))
        .into_iter()
        .filter_map(Result::err)
        .collect();
    match common::clang() {
        Some(clang) => failures.extend(
            par_map(&kernels, |k| ptx_stages(&clang, k, &work))
                .into_iter()
                .filter_map(Result::err),
        ),
        None => println!("PTX part skipped: no clang to compile CUDA with"),
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The `buffers=`, `local_bytes=` and `local_window=` of a profile line.
fn staged(profile: &str) -> Option<(u64, u64, u64)> {
    let line = profile.lines().find(|l| l.starts_with("polyc: scop="))?;
    let value = |key: &str| -> Option<u64> {
        let rest = &line[line.find(key)? + key.len()..];
        rest.split_whitespace().next()?.parse().ok()
    };
    Some((
        value("buffers=")?,
        value("local_bytes=")?,
        value("local_window=")?,
    ))
}

#[test]
fn the_window_decides_the_kernel_version_and_the_profile_says_which() {
    if !common::opencl_present() {
        println!("skipped: no OpenCL platform is installed (scripts/setup.sh installs PoCL)");
        return;
    }
    let work = scratch_dir("local-memory-profile");
    let k = kernel("gemm");
    let mut build = Build::new("MINI", false);
    build.ldflags = common::runtime_ldflags();
    let src = work.join("gemm.c");
    common::polyc_kernel(&k, &build, &["--target", "opencl"], &src).unwrap();
    let exe = work.join("gemm");
    harness::compile(&k, &src, &build, &exe).unwrap();
    let reference = harness::reference_dump(&k, &Build::new("MINI", false), &work).unwrap();
    let run = |sizes: &str, window: Option<&str>| {
        let mut env = vec![("POLYC_PROFILE", "1"), ("POLYC_TILE_SIZES", sizes)];
        env.extend(window.map(|w| ("POLYC_LOCAL_MEM", w)));
        let err = harness::run(&exe, &env).unwrap();
        let dump: String = err
            .lines()
            .filter(|l| !l.starts_with("polyc"))
            .map(|l| format!("{l}\n"))
            .collect();
        assert_eq!(
            harness::compare_dumps(&reference, &dump),
            None,
            "{sizes} {window:?}"
        );
        staged(&err).unwrap_or_else(|| panic!("no profile line in:\n{err}"))
    };
    // gemm's buffers, best first: C (written: a flag byte per element), B, A. At 16,8,64:
    // C is 16 x 8 doubles and 128 flags (1152 bytes), B 64 x 8 (4096), A 16 x 64 (8192).
    assert_eq!(run("16,8,64", Some("0")), (0, 0, 0));
    assert_eq!(run("16,8,64", Some("2048")), (1, 1152, 2048));
    assert_eq!(run("16,8,64", Some("5248")), (2, 1152 + 4096, 5248));
    assert_eq!(run("16,8,64", Some("13439")), (2, 1152 + 4096, 13439));
    assert_eq!(
        run("16,8,64", Some("13440")),
        (3, 1152 + 4096 + 8192, 13440)
    );
    // A window past any device's local memory is held to the device's (PoCL's is 512 KiB to a
    // few MiB, from the CPU's caches): all three buffers, and a window of at most 1 GiB.
    let (buffers, bytes, window) = run("16,8,64", Some("1099511627776"));
    assert_eq!((buffers, bytes), (3, 1152 + 4096 + 8192));
    assert!(window < 1 << 30, "window {window}");
    // Unset: the device's own local memory (none on a CPU, whose "local" memory is global).
    let all = 32 * 32 * 9 + 2 * 32 * 32 * 8;
    let (buffers, bytes, window) = run("32", None);
    let expected = if window >= all { (3, all) } else { (0, 0) };
    assert_eq!((buffers, bytes), expected, "window {window}");
}
