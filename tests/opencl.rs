//! `polyc --target opencl`: every kernel, built once against avelas-rt, run on the machine's
//! OpenCL device (PoCL on the CPU in CI), prints the original program's array dumps for tile
//! sizes of one, odd mixes, sizes larger than the problem, with every local-memory window that
//! selects a different kernel version, with and without batches of wavefronts, and with every
//! tile run by intra-tile wavefronts.

mod common;

use common::{check_kernels, opencl_present, runtime_ldflags, Variant};
use polybench::Kernel;

/// Tile sizes of one, odd and mixed, wide, larger than every problem; and the local-memory
/// windows of issue 14 on the same built program: unset (the device's: none on PoCL, whose
/// local memory is global), `0` (version 0, no buffer), 2048 bytes (some buffers, fewer as
/// tiles grow) and 1 MiB (every buffer the tiles fit). (Each
/// work-group size is a kernel compilation on PoCL, the test's main cost.)
const RUNS: &[&[(&str, &str)]] = &[
    &[("POLYC_TILE_SIZES", "1")],
    &[("POLYC_TILE_SIZES", "3,5,7")],
    &[("POLYC_TILE_SIZES", "3,5,7"), ("POLYC_LOCAL_MEM", "0")],
    &[("POLYC_TILE_SIZES", "3,5,7"), ("POLYC_LOCAL_MEM", "2048")],
    &[("POLYC_TILE_SIZES", "32")],
    &[("POLYC_TILE_SIZES", "32"), ("POLYC_LOCAL_MEM", "0")],
    &[("POLYC_TILE_SIZES", "32"), ("POLYC_LOCAL_MEM", "2048")],
    &[("POLYC_TILE_SIZES", "32"), ("POLYC_LOCAL_MEM", "1048576")],
    &[("POLYC_TILE_SIZES", "16,8,64")],
    &[("POLYC_TILE_SIZES", "16,8,64"), ("POLYC_LOCAL_MEM", "0")],
    &[("POLYC_TILE_SIZES", "16,8,64"), ("POLYC_LOCAL_MEM", "2048")],
    &[
        ("POLYC_TILE_SIZES", "4,64,16"),
        ("POLYC_LOCAL_MEM", "1048576"),
    ],
    &[("POLYC_TILE_SIZES", "1000")],
    // Batches of small wavefronts (one work-group running them in order): none, a launch per
    // wavefront; and every wavefront batched.
    &[("POLYC_TILE_SIZES", "3,5,7"), ("POLYC_BATCH_TILES", "0")],
    &[("POLYC_TILE_SIZES", "2"), ("POLYC_BATCH_TILES", "1000000")],
];

/// The runs at SMALL in CI: one of each local-memory window, odd, mixed and wide sizes, and one
/// batching of wavefronts. Each run at SMALL compiles the kernels anew on PoCL (the arrays'
/// extents are constants in the source, so MINI's compilations are not reused): with all of
/// [`RUNS`] at SMALL too, this test took 11.6 minutes on the 2-core AMD EPYC VM with an empty
/// PoCL cache, as on a fresh CI machine. `POLYC_SWEEP=1` runs all of [`RUNS`] at SMALL
/// (`scripts/sweep.sh`).
const SMALL_RUNS: &[&[(&str, &str)]] = &[
    &[("POLYC_TILE_SIZES", "3,5,7"), ("POLYC_LOCAL_MEM", "2048")],
    &[("POLYC_TILE_SIZES", "32"), ("POLYC_LOCAL_MEM", "1048576")],
    &[("POLYC_TILE_SIZES", "16,8,64"), ("POLYC_LOCAL_MEM", "0")],
    &[
        ("POLYC_TILE_SIZES", "3,5,7"),
        ("POLYC_BATCH_TILES", "1000000"),
    ],
];

/// With every tile run by intra-tile wavefronts (`--intra-wavefront`).
const WAVEFRONT_RUNS: &[&[(&str, &str)]] = &[&[("POLYC_TILE_SIZES", "16,8,4")]];

fn check_suite(kernels: &[Kernel], tag: &str) {
    check_suite_runs(kernels, "MINI", RUNS, &format!("{tag}-mini"));
    let small = if common::sweep() { RUNS } else { SMALL_RUNS };
    check_suite_runs(kernels, "SMALL", small, &format!("{tag}-small"));
}

fn check_suite_runs(kernels: &[Kernel], dataset: &str, runs: &[&[(&str, &str)]], tag: &str) {
    let variants = [
        Variant {
            name: "opencl",
            polyc_flags: &["--target", "opencl"],
            openmp: false,
            cflags: &[],
            runs,
            ldflags: runtime_ldflags(),
        },
        Variant {
            name: "opencl-wavefront",
            polyc_flags: &["--target", "opencl", "--intra-wavefront"],
            openmp: false,
            cflags: &[],
            runs: WAVEFRONT_RUNS,
            ldflags: runtime_ldflags(),
        },
    ];
    check_kernels(kernels, &[dataset], &variants, tag);
}

#[test]
fn bundled_suite_opencl_matches_original() {
    if !opencl_present() {
        println!("skipped: no OpenCL platform is installed (scripts/setup.sh installs PoCL)");
        return;
    }
    check_suite(&polybench::kernels(), "opencl-suite");
}

#[test]
fn external_polybench_opencl_matches_original() {
    let Some(root) = polybench::external_suite() else {
        println!("skipped: set POLYBENCH_DIR to a PolyBench/C 4.2.1 checkout to run this test");
        return;
    };
    if !opencl_present() {
        println!("skipped: no OpenCL platform is installed (scripts/setup.sh installs PoCL)");
        return;
    }
    check_suite(&polybench::kernels_in(&root).unwrap(), "opencl-external");
}

/// Run-time errors of an OpenCL program: a message naming the cause and exit status 1, never a
/// panic or a wait (no platform; a malformed variable; a device that does not exist).
#[test]
fn runtime_errors_are_messages_with_exit_status_1() {
    let work = polybench::harness::scratch_dir("opencl-errors");
    let k = polybench::kernel("jacobi-2d").unwrap();
    let mut build = polybench::harness::Build::new("MINI", false);
    build.ldflags = runtime_ldflags();
    let out = work.join("j.c");
    common::polyc_kernel(&k, &build, &["--target", "opencl"], &out).unwrap();
    let exe = work.join("j");
    polybench::harness::compile(&k, &out, &build, &exe).unwrap();
    let run = |env: &[(&str, &str)]| {
        let o = std::process::Command::new(&exe)
            .envs(env.iter().copied())
            .output()
            .unwrap();
        (
            o.status.code(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let empty = work.join("no-icds");
    std::fs::create_dir_all(&empty).unwrap();
    let started = std::time::Instant::now();
    let (code, err) = run(&[("OCL_ICD_VENDORS", empty.to_str().unwrap())]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("no OpenCL platform is installed"), "{err}");
    assert!(
        started.elapsed().as_secs() < 5,
        "no platform must not make the program wait"
    );
    let (code, err) = run(&[("POLYC_TILE_SIZES", "8,0")]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("POLYC_TILE_SIZES=\"8,0\" is malformed"),
        "{err}"
    );
    if opencl_present() {
        let (code, err) = run(&[("POLYC_DEVICE", "no-such-device")]);
        assert_eq!(code, Some(1), "{err}");
        assert!(
            err.contains("names no OpenCL device; the devices are"),
            "{err}"
        );
    }
}

/// Kernels with many barriers build in seconds on PoCL with an empty kernel cache, and compute
/// what the original does.
/// - `separation-growth.c` (differential seed 4850), many uniform loops in a row that hold
///   barriers, took over 8 minutes before such loops were entered unconditionally: PoCL
///   replicated the rest of the kernel behind every loop that might run no iteration. With
///   its 41 loops holding barriers it is past `device::SERIAL_BARRIER_LOOPS` too now (with its
///   seed's `size_t` bounds it had kept its original code, and no kernel was built).
/// - `pocl-barrier-regions.c` (seed 6400), 66 barriers, ran past 120 s in PoCL's barrier tail
///   replication; past `device::SERIAL_BARRIERS` its kernel runs each tile on one work-item
///   without barriers.
/// - `pocl-loop-barriers.c` (seed 47800), 26 barriers of which 7 and 6 in two loops, took 56 s;
///   past `device::SERIAL_LOOP_BARRIERS` in one loop its kernel runs serial too.
/// - `pocl-many-barrier-loops.c` (seed 62160), 24 barriers in twelve loops of at most 4, took
///   104-130 s; past `device::SERIAL_BARRIER_LOOPS` its kernel runs serial too.
#[test]
fn kernels_with_many_barriers_build_in_seconds_on_pocl() {
    if !opencl_present() {
        println!("skipped: no OpenCL platform (setup.sh installs PoCL)");
        return;
    }
    let work = polybench::harness::scratch_dir("opencl-barrier-loops");
    for (input, serial) in [
        ("separation-growth", true),
        ("pocl-barrier-regions", true),
        ("pocl-loop-barriers", true),
        ("pocl-many-barrier-loops", true),
    ] {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/inputs/hostile/{input}.c"));
        let (orig, gen, exe) = (
            work.join(format!("{input}-orig")),
            work.join(format!("{input}.c")),
            work.join(input),
        );
        common::gcc(&src, &orig, &[]);
        let (code, err) = common::polyc_to(&src, "opencl", &gen);
        assert_eq!(code, 0, "{err}");
        let text = std::fs::read_to_string(&gen).unwrap();
        assert_eq!(
            text.contains("one work-item per tile"),
            serial,
            "{input}: serial kernel expected: {serial}"
        );
        common::gcc(&gen, &exe, &runtime_ldflags());
        let want = common::run_stdout(&orig, &[]).unwrap();
        let cache = work.join(format!("{input}-pocl-cache"));
        let _ = std::fs::remove_dir_all(&cache);
        let started = std::time::Instant::now();
        let out =
            common::run_stdout_within(&exe, &[("POCL_CACHE_DIR", cache.to_str().unwrap())], 120);
        let took = started.elapsed().as_secs_f64();
        let out = out.unwrap_or_else(|e| panic!("{input}: {e} after {took:.1} s"));
        assert!(took < 60.0, "{input}: the first run took {took:.1} s");
        assert_eq!(out, want, "{input}");
    }
}

/// The launches a profiled run reports, over its SCoPs.
fn launches(profile: &str) -> u64 {
    profile
        .lines()
        .filter(|l| l.starts_with("polyc: scop="))
        .filter_map(|l| l.split(" launches=").nth(1))
        .map(|v| v.split(' ').next().unwrap().parse::<u64>().unwrap())
        .sum()
}

/// durbin's `k` loop calls seven groups, adi's `t` loop fourteen, ludcmp's and gramschmidt's
/// loops several: their small wavefronts join one mix (`flushes`), launched as one work-group
/// of the mix kernel; with `POLYC_BATCH_TILES=0` every wavefront launches alone. Both compute
/// the original's dumps, and the mix launches far less.
#[test]
fn a_host_loops_groups_launch_their_small_wavefronts_together() {
    if !opencl_present() {
        println!("skipped: no OpenCL platform (setup.sh installs PoCL)");
        return;
    }
    let work = polybench::harness::scratch_dir("opencl-mixes");
    for name in ["durbin", "adi", "ludcmp", "gramschmidt"] {
        let k = polybench::kernel(name).unwrap();
        let mut build = polybench::harness::Build::new("SMALL", false);
        let want = polybench::harness::reference_dump(&k, &build, &work).unwrap();
        build.ldflags = runtime_ldflags();
        let gen = work.join(format!("{name}.c"));
        let err = common::polyc_kernel(&k, &build, &["--target", "opencl"], &gen).unwrap();
        let text = std::fs::read_to_string(&gen).unwrap();
        assert!(
            text.contains("__kernel void polyc_k0_mix0("),
            "{name}: {err}"
        );
        let exe = work.join(name);
        polybench::harness::compile(&k, &gen, &build, &exe).unwrap();
        let mut counts = Vec::new();
        for batch in ["0", "16", "1000000"] {
            let env = [("POLYC_PROFILE", "1"), ("POLYC_BATCH_TILES", batch)];
            let out = polybench::harness::run(&exe, &env).unwrap();
            let dump: String = out
                .lines()
                .filter(|l| !l.starts_with("polyc"))
                .map(|l| format!("{l}\n"))
                .collect();
            assert_eq!(
                polybench::harness::compare_dumps(&want, &dump),
                None,
                "{name} POLYC_BATCH_TILES={batch}"
            );
            counts.push(launches(&out));
        }
        assert!(
            counts[1] * 5 < counts[0] && counts[2] <= counts[1],
            "{name}: launches {counts:?} (no mix, 16 tiles, any)"
        );
    }
}
