//! Issue 4's check on the time-iterated stencils: with the C+OpenMP target the time dimension
//! is tiled with the space dimensions (`tiled_depth` in the profile equals the loop depth), and
//! at MEDIUM with tile size 32 some wavefronts hold more than one tile (from the trace).
//! adi is the exception the schedule explains: its two sweeps run along transposed dimensions,
//! so no permutable band contains time; the test asserts what polyc does with it (its sweeps
//! distributed inside the time loop, their `i` and `j` loops tiled, time not) so that a change
//! shows.

mod common;

use std::collections::HashMap;

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
    let k = polybench::kernel(kernel).unwrap();
    let build = Build::new("MEDIUM", true);
    let out = work.join(format!("{kernel}.c"));
    common::polyc_kernel(&k, &build, &["--target", "c"], &out).unwrap();
    let exe = work.join(kernel);
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

#[test]
fn stencils_tile_time_and_run_wavefronts_of_several_tiles() {
    let work = scratch_dir("stencil-waves");
    let results = harness::par_map(STENCILS, |(kernel, depth)| {
        let (profile, trace) = profile_and_trace(kernel, &work);
        let tiled: usize = field(&profile, "tiled_depth").parse().unwrap();
        let mut per_step: HashMap<String, usize> = HashMap::new();
        for l in trace.lines().filter(|l| l.starts_with("polyc-tile:")) {
            let step = l
                .split_whitespace()
                .find_map(|kv| kv.strip_prefix("step="))
                .unwrap()
                .to_string();
            *per_step.entry(step).or_default() += 1;
        }
        let widest = per_step.values().copied().max().unwrap_or(0);
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
