//! Property test of the tile enumeration of the generated host code (issue 4, item 6): for
//! random problem sizes (from 1 to half again MINI's) and random tile sizes (1, primes, sizes
//! larger than the extents), the non-empty tiles the tiled C
//! program visits (its `POLYC_TRACE=1` lines) are exactly the tiles that hold statement
//! instances, each visited once, in non-decreasing wavefront order, and no dependence joins two
//! tiles that may run at the same time. Instances and dependences come from the brute-force
//! enumerator at the parameter values the program reports.

mod common;

use polybench::harness::{self, scratch_dir, Build};
use polybench::random::Rng;
use ptile::TileMode;
use rosepolly::compilation::{self, Detection, SourceOptions, SourceUnit};
use rosepolly::enumerate::{brute_force_dependences, instances};
use rosepolly::math::isl::Ctx;
use std::collections::{BTreeSet, HashMap};

/// (group, values of the outer loops, tile) → (step, position in the trace).
type GroupTile = (usize, Vec<i64>, Vec<i64>);
type Visits = HashMap<GroupTile, (i64, usize)>;

fn parse_trace(trace: &str) -> (Vec<(String, i64)>, Visits, Vec<String>) {
    let mut params = Vec::new();
    let mut visits = Visits::new();
    let mut problems = Vec::new();
    for (pos, line) in trace.lines().enumerate() {
        if let Some(rest) = line.strip_prefix("polyc-params: scop=0") {
            params = rest
                .split_whitespace()
                .map(|kv| {
                    let (k, v) = kv.split_once('=').unwrap();
                    (k.to_string(), v.parse().unwrap())
                })
                .collect();
        } else if let Some(rest) = line.strip_prefix("polyc-tile: scop=0 ") {
            let f: HashMap<&str, &str> = rest
                .split_whitespace()
                .filter_map(|kv| kv.split_once('='))
                .collect();
            let group: usize = f["group"].parse().unwrap();
            let step: i64 = f["step"].parse().unwrap();
            let list = |key: &str| -> Vec<i64> {
                f[key]
                    .split(',')
                    .filter(|t| !t.is_empty())
                    .map(|t| t.parse().unwrap())
                    .collect()
            };
            let (outer, tile) = (list("outer"), list("tile"));
            if visits
                .insert((group, outer.clone(), tile.clone()), (step, pos))
                .is_some()
            {
                problems.push(format!(
                    "tile {tile:?} of group {group} (outer {outer:?}) visited twice"
                ));
            }
        }
    }
    (params, visits, problems)
}

/// One run: a kernel, its problem sizes (`-D` definitions), tile sizes and thread count.
struct Job {
    id: usize,
    kernel: &'static str,
    defines: Vec<String>,
    sizes: Vec<i64>,
    threads: &'static str,
}

fn check(job: &Job, work: &std::path::Path) -> Vec<String> {
    let (kernel, sizes) = (job.kernel, &job.sizes[..]);
    let k = polybench::kernel(kernel).unwrap();
    let mut build = Build::new("MINI", true);
    build.cflags.extend(job.defines.iter().cloned());
    let out = work.join(format!("{kernel}.c"));
    let mut flags = vec!["--target", "c"];
    flags.extend(job.defines.iter().map(String::as_str));
    common::polyc_kernel(&k, &build, &flags, &out).unwrap();
    let exe = work.join(kernel);
    harness::compile(&k, &out, &build, &exe).unwrap();
    let sizes_text: Vec<String> = sizes.iter().map(i64::to_string).collect();
    let trace = harness::run(
        &exe,
        &[
            ("POLYC_TRACE", "1"),
            ("POLYC_TILE_SIZES", &sizes_text.join(",")),
            ("OMP_NUM_THREADS", job.threads),
            ("POLYC_MIN_POINTS", "0"),
        ],
    )
    .unwrap();
    let (params, visits, mut problems) = parse_trace(&trace);

    // The same model, schedule and tile space as polyc's.
    let opts = SourceOptions {
        include_dirs: vec![polybench::utilities_of(&k)],
        defines: std::iter::once("MINI_DATASET".to_string())
            .chain(job.defines.iter().map(|d| d[2..].to_string()))
            .collect(),
        ..Default::default()
    };
    let src = SourceUnit::load(&k.source, &opts).unwrap();
    let ctx = Ctx::new();
    let scops = compilation::build_models(&ctx, &src, Detection::Pragmas).unwrap();
    let scop = &scops[0];
    let schedule = pluto::schedule(&ctx, scop, &Default::default()).unwrap();
    let space = ptile::tile_space(&ctx, scop, &schedule, &ptile::TilePolicy::CPU);
    let size = |j: usize| sizes[j.min(sizes.len() - 1)];
    let group_of: HashMap<usize, usize> = space
        .groups
        .iter()
        .enumerate()
        .flat_map(|(g, gr)| gr.statements.iter().map(move |&s| (s, g)))
        .collect();
    let tile_of = |stmt: usize, iters: &[i64]| -> Option<GroupTile> {
        let g = group_of[&stmt];
        let gr = &space.groups[g];
        (gr.depth > 0).then(|| {
            let outer = space
                .outer_dims
                .iter()
                .map(|&d| schedule.rows[stmt][d].eval(iters))
                .collect();
            let t = (0..gr.depth)
                .map(|j| {
                    // Tile coordinates along the tiling rows (a diamond's first).
                    let row = schedule.tiling_row(stmt, gr.band_start + j);
                    ptile::floord(row.eval(iters), size(j))
                })
                .collect();
            (g, outer, t)
        })
    };
    let inst = instances(scop, &params, 2_000_000).unwrap();
    let expected: BTreeSet<GroupTile> = inst
        .iter()
        .filter_map(|i| tile_of(i.stmt, &i.iters))
        .collect();
    let visited: BTreeSet<GroupTile> = visits.keys().cloned().collect();
    if expected != visited {
        let missing: Vec<_> = expected.difference(&visited).take(3).collect();
        let extra: Vec<_> = visited.difference(&expected).take(3).collect();
        problems.push(format!(
            "non-empty tiles differ: missing {missing:?}, visited but empty {extra:?}"
        ));
    }
    // Where the tiles run by wavefronts on several threads, steps never decrease along the
    // trace, within a group and one iteration of the outer loops. On one thread they run in
    // lexicographic order (`step=` still names each tile's wavefront): the dependences below
    // order them.
    let mut by_pos: Vec<(&GroupTile, &(i64, usize))> = visits.iter().collect();
    by_pos.sort_by_key(|(_, (_, pos))| *pos);
    for w in by_pos.windows(2) {
        let same = w[0].0 .0 == w[1].0 .0 && w[0].0 .1 == w[1].0 .1;
        let lexicographic =
            space.groups[w[0].0 .0].mode == TileMode::Wavefront && w[0].0 .2 < w[1].0 .2;
        if same && w[1].1 .0 < w[0].1 .0 && !lexicographic {
            problems.push(format!("step goes back from {:?} to {:?}", w[0], w[1]));
        }
    }
    // No dependence between tiles that can run at the same time: different parallel units of
    // one step. A unit is (t0, t1) for wavefronts, t0 for a parallel tile loop. Every other
    // dependence between two tiles runs from the tile visited first.
    let deps = brute_force_dependences(scop, &params, 2_000_000).unwrap();
    'deps: for ((_, src, sink, _), pairs) in &deps {
        for (a, b) in pairs {
            let (Some(ta), Some(tb)) = (tile_of(*src, a), tile_of(*sink, b)) else {
                continue;
            };
            if ta.0 != tb.0 || ta.1 != tb.1 || ta == tb {
                continue;
            }
            let gr = &space.groups[ta.0];
            let unit = match gr.mode {
                TileMode::Wavefront => 2,
                TileMode::Parallel => 1,
                TileMode::Sequential => continue,
            };
            let ((sa, pa), (sb, pb)) = (visits[&ta], visits[&tb]);
            if sa == sb && ta.2[..unit] != tb.2[..unit] {
                problems.push(format!("dependence from tile {:?} to tile {:?}, both in step {sa} and in different parallel units", ta.2, tb.2));
                break 'deps;
            }
            if pa > pb {
                problems.push(format!(
                    "dependence from tile {:?} to tile {:?}, visited after it",
                    ta.2, tb.2
                ));
                break 'deps;
            }
        }
    }
    problems
        .into_iter()
        .map(|p| format!("{kernel} {:?} tile sizes {sizes:?}: {p}", job.defines))
        .collect()
}

#[test]
fn host_loops_visit_exactly_the_non_empty_tiles_in_a_legal_order() {
    let work = scratch_dir("tile-enum");
    let mut rng = Rng::new(4);
    let kernels = [
        "jacobi-1d",
        "jacobi-2d",
        "seidel-2d",
        "fdtd-2d",
        "heat-3d",
        "gemm",
        "lu",
        "syrk",
        "trmm",
        "2mm",
        "covariance",
        "nussinov",
    ];
    let mut jobs = Vec::new();
    for k in kernels {
        let mini = polybench::dataset_sizes(&polybench::kernel(k).unwrap(), "MINI").unwrap();
        for _ in 0..3 {
            let defines = mini
                .iter()
                .map(|(name, v)| {
                    let value = if rng.chance(15) {
                        *rng.pick(&[1, 2, 3])
                    } else {
                        (v / 2).max(1) + rng.below(*v as usize + 1) as i64
                    };
                    format!("-D{name}={value}")
                })
                .collect();
            let sizes: Vec<i64> = (0..3)
                .map(|_| *rng.pick(&[1, 2, 3, 5, 7, 13, 16, 100]))
                .collect();
            let threads = if rng.chance(50) { "1" } else { "2" };
            jobs.push(Job {
                id: jobs.len(),
                kernel: k,
                defines,
                sizes,
                threads,
            });
        }
    }
    let failures: Vec<String> = harness::par_map(&jobs, |job| {
        let dir = work.join(format!("{}-{}", job.kernel, job.id));
        std::fs::create_dir_all(&dir).unwrap();
        check(job, &dir)
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
