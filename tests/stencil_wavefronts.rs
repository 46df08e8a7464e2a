//! Issue 4's check on the time-iterated stencils: with the C+OpenMP target the time dimension
//! is tiled with the space dimensions (`tiled_depth` in the profile equals the loop depth), and
//! at MEDIUM with tile size 32 some wavefronts hold more than one tile (from the trace).
//! adi is the exception the schedule explains: its two sweeps run along transposed dimensions,
//! so no permutable band contains time; the test asserts what polyc does with it (its sweeps
//! distributed inside the time loop, their `i` and `j` loops tiled, time not) so that a change
//! shows. Diamond tiling (the default) makes the first wavefront a row of tiles; skewed tiling
//! (`--no-diamond`) starts with one tile.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use polybench::harness::{self, scratch_dir, Build};

/// (kernel, loop depth of its nest).
const STENCILS: &[(&str, usize)] = &[
    ("jacobi-1d", 2),
    ("jacobi-2d", 3),
    ("heat-3d", 4),
    ("seidel-2d", 3),
    ("fdtd-2d", 3),
];

fn profile_and_trace(kernel: &str, work: &std::path::Path) -> (String, String) {
    profile_and_trace_with(kernel, &[], work)
}

fn profile_and_trace_with(
    kernel: &str,
    flags: &[&str],
    work: &std::path::Path,
) -> (String, String) {
    let k = polybench::kernel(kernel).unwrap();
    let build = Build::new("MEDIUM", true);
    let tag = flags.join("").replace('-', "");
    let out = work.join(format!("{kernel}{tag}.c"));
    let mut args = vec!["--target", "c"];
    args.extend(flags);
    common::polyc_kernel(&k, &build, &args, &out).unwrap();
    let exe = work.join(format!("{kernel}{tag}"));
    harness::compile(&k, &out, &build, &exe).unwrap();
    let stderr = harness::run(
        &exe,
        &[
            ("POLYC_TILE_SIZES", "32"),
            ("POLYC_PROFILE", "1"),
            ("POLYC_TRACE", "1"),
            ("POLYC_MIN_POINTS", "0"),
            ("OMP_NUM_THREADS", "2"),
        ],
    )
    .unwrap();
    let profile = stderr
        .lines()
        .find(|l| l.starts_with("polyc: scop=0"))
        .unwrap_or_default()
        .to_string();
    (profile, stderr)
}

fn field<'a>(profile: &'a str, key: &str) -> &'a str {
    profile
        .split_whitespace()
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key}= in `{profile}`"))
}

/// The number of tiles the trace shows at each step of the walk.
fn tiles_per_step(trace: &str) -> BTreeMap<i64, usize> {
    let mut per_step = BTreeMap::new();
    for l in trace.lines().filter(|l| l.starts_with("polyc-tile:")) {
        let step: i64 = l
            .split_whitespace()
            .find_map(|kv| kv.strip_prefix("step="))
            .unwrap()
            .parse()
            .unwrap();
        *per_step.entry(step).or_default() += 1;
    }
    per_step
}

#[test]
fn stencils_tile_time_and_run_wavefronts_of_several_tiles() {
    let work = scratch_dir("stencil-waves");
    let results = harness::par_map(STENCILS, |(kernel, depth)| {
        let (profile, trace) = profile_and_trace(kernel, &work);
        let tiled: usize = field(&profile, "tiled_depth").parse().unwrap();
        let widest = tiles_per_step(&trace).values().copied().max().unwrap_or(0);
        let mut problems = Vec::new();
        if tiled != *depth {
            problems.push(format!(
                "{kernel}: tiled_depth={tiled}, its nest has depth {depth}"
            ));
        }
        if widest < 2 {
            problems.push(format!(
                "{kernel}: no wavefront holds two tiles ({profile})"
            ));
        }
        println!("{kernel}: {profile}; widest wavefront {widest} tiles");
        problems
    });
    let problems: Vec<String> = results.into_iter().flatten().collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn adi_keeps_time_untiled_because_no_band_contains_it() {
    let work = scratch_dir("adi-profile");
    let (profile, _) = profile_and_trace("adi", &work);
    assert_eq!(field(&profile, "tiled_depth"), "2", "{profile}");
}

/// Diamond tiling (issue 13): the first wavefront of a time-iterated stencil's tiles holds a
/// row of tiles (concurrent start), where skewed tiles (`--no-diamond`) start with one.
#[test]
fn diamond_tiles_start_concurrently_and_skewed_ones_do_not() {
    let work = scratch_dir("stencil-diamond");
    let kernels = ["jacobi-1d", "jacobi-2d", "heat-3d", "fdtd-2d"];
    let results = harness::par_map(&kernels, |kernel| {
        // Tiles that start together: distinct (t0, t1) in the walk's first step (a step
        // spans the first two tile dimensions; the others run in order inside each).
        let first = |flags: &[&str]| {
            let (profile, trace) = profile_and_trace_with(kernel, flags, &work);
            fn step(l: &str) -> Option<&str> {
                l.split_whitespace().find_map(|kv| kv.strip_prefix("step="))
            }
            let tiles: Vec<&str> = trace
                .lines()
                .filter(|l| l.starts_with("polyc-tile:"))
                .collect();
            let first_step = tiles
                .iter()
                .filter_map(|l| step(l)?.parse::<i64>().ok())
                .min();
            let starts: BTreeSet<String> = tiles
                .iter()
                .filter(|l| step(l).and_then(|s| s.parse().ok()) == first_step)
                .filter_map(|l| {
                    let t = l
                        .split_whitespace()
                        .find_map(|kv| kv.strip_prefix("tile="))?;
                    Some(t.split(',').take(2).collect::<Vec<_>>().join(","))
                })
                .collect();
            println!(
                "{kernel} {flags:?}: {profile}; first wavefront {} tile columns",
                starts.len()
            );
            starts.len()
        };
        let (diamond, skewed) = (first(&[]), first(&["--no-diamond"]));
        let mut problems = Vec::new();
        if diamond < 2 {
            problems.push(format!(
                "{kernel}: the first diamond wavefront holds {diamond} tile columns"
            ));
        }
        if skewed != 1 {
            problems.push(format!(
                "{kernel}: the first skewed wavefront holds {skewed} tile columns"
            ));
        }
        problems
    });
    let problems: Vec<String> = results.into_iter().flatten().collect();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The time-iterated stencils' tile sizes default to rows of 128 last (`SWEEP_ROW_TILE`: at
/// LARGE jacobi-2d ran 0.91 -> 0.59 s on 2 threads), or, where the points wait for one another
/// (seidel-2d), to a first dimension of 8 (`TIME_TILE`); every other kernel's stay 32,
/// floyd-warshall's and lu's `k` included (they index what they write). seidel-2d at MEDIUM,
/// tiled by default, reports the sizes and computes what the original computes, jacobi-2d
/// reports its own; a size in `POLYC_TILE_SIZES` still rules.
#[test]
fn time_iterated_stencils_default_to_their_own_sizes() {
    let work = scratch_dir("time-tile");
    let (mut short, mut rows) = (Vec::new(), Vec::new());
    for k in polybench::kernels() {
        let build = Build::new("MEDIUM", true);
        let out = work.join(format!("{}.c", k.name));
        common::polyc_kernel(&k, &build, &["--target", "c"], &out).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        if text.contains("polyc_ts_list(0) < 0 ? 8 : polyc_tile_size(0, polyc_tuned, 0)") {
            short.push(k.name.clone());
        }
        if let Some((_, depth)) = STENCILS.iter().find(|(s, _)| *s == k.name) {
            let last = format!(
                "polyc_ts_list(0) < 0 ? 128 : polyc_tile_size(0, polyc_tuned, {})",
                depth - 1
            );
            if text.contains(&last) {
                rows.push(k.name.clone());
            }
        } else if text.contains("polyc_ts_list(0) < 0 ? 128 :") {
            rows.push(k.name.clone());
        }
    }
    rows.sort();
    assert_eq!(short, ["seidel-2d"]);
    assert_eq!(rows, ["fdtd-2d", "heat-3d", "jacobi-1d", "jacobi-2d"]);
    let (line, _, _work) =
        common::checked_profile("jacobi-2d", "MEDIUM", &[("OMP_NUM_THREADS", "2")]);
    assert_eq!(field(&line, "tile_sizes"), "32,32,128", "{line}");
    assert_eq!(field(&line, "sizes_from"), "default", "{line}");
    let (line, exe, _work) =
        common::checked_profile("seidel-2d", "MEDIUM", &[("OMP_NUM_THREADS", "2")]);
    assert_eq!(field(&line, "tile_sizes"), "8,32,32", "{line}");
    assert_eq!(field(&line, "sizes_from"), "default", "{line}");
    let env = [
        ("POLYC_PROFILE", "1"),
        ("POLYC_TILE_SIZES", "32"),
        ("OMP_NUM_THREADS", "2"),
    ];
    let out = harness::run(&exe, &env).unwrap();
    let line = out
        .lines()
        .find(|l| l.starts_with("polyc: scop=0"))
        .expect("a profile line");
    assert_eq!(field(line, "tile_sizes"), "32,32,32", "{line}");
}
