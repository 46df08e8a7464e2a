//! Candidate local-memory buffers (issue 14, item 1): every element a tile accesses through a
//! buffer's references lies in the buffer's box, on every suite kernel, for several tile
//! sizes, with diamond and with skewed tiles; and the geometry of known kernels.

mod common;

use common::with_kernel;
use pluto::{PlutoOptions, Schedule};
use ptile::buffers::{candidates, Candidate};
use ptile::{tile_space, TilePolicy, TileSpace};
use rosepolly::enumerate::instances;
use rosepolly::model::Scop;

/// The GPU targets' tile space (every band tiled).
const GPU: TilePolicy = TilePolicy::GPU;

/// `name`'s SCoP scheduled with Pluto's defaults and tiled as the GPU targets tile it: `f`
/// gets its schedule, tile space and each group's candidates.
fn with_gpu_candidates<R>(
    name: &str,
    f: impl FnOnce(&Schedule, &TileSpace, Vec<Vec<Candidate>>) -> R,
) -> R {
    with_kernel(name, |ctx, scop| {
        let schedule = pluto::schedule(ctx, scop, &PlutoOptions::default()).unwrap();
        let space = tile_space(ctx, scop, &schedule, &GPU);
        let all = all_candidates(scop, &schedule, &space);
        f(&schedule, &space, all)
    })
}

/// Each group's candidates.
fn all_candidates(scop: &Scop, schedule: &Schedule, space: &TileSpace) -> Vec<Vec<Candidate>> {
    space
        .groups
        .iter()
        .map(|g| candidates(scop, schedule, space, g, None))
        .collect()
}

/// Every access of every instance through a candidate's references, checked against the box
/// of the instance's tile; the number of accesses checked.
fn check_boxes(
    scop: &Scop,
    schedule: &Schedule,
    space: &TileSpace,
    params: &[(String, i64)],
    sizes: &[i64],
) -> Result<usize, String> {
    let cands = all_candidates(scop, schedule, space);
    let mut checked = 0;
    for inst in instances(scop, params, 2_000_000).map_err(|e| format!("{e:?}"))? {
        let s = inst.stmt;
        let Some(g) = space.groups.iter().position(|g| g.statements.contains(&s)) else {
            continue;
        };
        let group = &space.groups[g];
        if group.depth == 0 {
            continue;
        }
        let origins: Vec<i64> = (0..group.depth)
            .map(|k| {
                let c = schedule
                    .tiling_row(s, group.band_start + k)
                    .eval(&inst.iters);
                c.div_euclid(sizes[k]) * sizes[k]
            })
            .collect();
        let mut values: Vec<i64> = scop
            .params
            .iter()
            .map(|p| params.iter().find(|(n, _)| n == p).unwrap().1)
            .collect();
        values.extend(
            space
                .outer_dims
                .iter()
                .map(|&d| schedule.rows[s][d].eval(&inst.iters)),
        );
        let st = &scop.statements[s];
        let env = |v: &str| {
            st.iterators
                .iter()
                .position(|it| it == v)
                .map(|i| inst.iters[i])
                .or_else(|| params.iter().find(|(n, _)| n == v).map(|p| p.1))
        };
        for c in &cands[g] {
            for r in c.refs.iter().filter(|r| r.stmt == s) {
                let acc = &st.accesses[r.access];
                for (i, (sub, dim)) in acc.subscripts.iter().zip(&c.dims).enumerate() {
                    let e = sub.eval(&env).unwrap();
                    let lo = dim.origin.eval(&values, &origins, sizes);
                    let len = dim.extent.eval(&[], &origins, sizes);
                    if e < lo || e >= lo + len {
                        return Err(format!(
                            "{} {:?}: {}[..{e}..] (dimension {i}) outside {lo}..{} of the buffer of tile origin {origins:?}, sizes {sizes:?}",
                            st.name,
                            inst.iters,
                            c.datum,
                            lo + len - 1
                        ));
                    }
                    checked += 1;
                }
            }
        }
    }
    Ok(checked)
}

#[test]
fn every_access_of_a_tile_lies_in_its_buffer() {
    let sizes: [&[i64]; 3] = [&[2, 3, 5, 7], &[4, 4, 4, 4], &[1, 6, 2, 3]];
    let mut failures = Vec::new();
    let mut kernels_with_buffers = 0;
    for k in polybench::kernels() {
        with_kernel(&k.name, |ctx, scop| {
            let given: Vec<(String, i64)> = scop
                .user_params()
                .enumerate()
                .map(|(i, p)| (p.clone(), 5 + (i as i64 % 3)))
                .collect();
            let params = scop.complete_params(&given);
            let diamond = pluto::schedule(ctx, scop, &PlutoOptions::default()).unwrap();
            let mut skewed = diamond.clone();
            skewed.bands.iter_mut().for_each(|b| b.diamond = None);
            let mut any = false;
            for schedule in [&diamond, &skewed] {
                let space = tile_space(ctx, scop, schedule, &GPU);
                any |= all_candidates(scop, schedule, &space)
                    .iter()
                    .any(|c| !c.is_empty());
                for s in sizes {
                    if let Err(e) = check_boxes(scop, schedule, &space, &params, s) {
                        failures.push(format!("{}: {e}", k.name));
                    }
                }
            }
            kernels_with_buffers += usize::from(any);
        });
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Most kernels have arrays a tile reaches through uniformly generated references.
    assert!(kernels_with_buffers >= 20, "{kernels_with_buffers} kernels");
}

/// A buffer's extents at tile sizes `sizes`.
fn extents(c: &Candidate, sizes: &[i64]) -> Vec<i64> {
    c.dims
        .iter()
        .map(|d| d.extent.eval(&[], &[], sizes))
        .collect()
}

#[test]
fn seidel_2d_has_one_buffer_widened_by_its_neighbours() {
    // The band (t, t + i, 2t + i + j) gives i = c1 - c0 and j = c2 - c1 - c0; the nine
    // references A[i + di][j + dj] spread over -1..1 in both dimensions (thesis Fig. 6.10): the
    // box is (T0 - 1) + (T1 - 1) + 3 rows by (T0 - 1) + (T1 - 1) + (T2 - 1) + 3 columns.
    with_gpu_candidates("seidel-2d", |_, space, all| {
        let c = &all[0];
        assert_eq!(c.len(), 1, "{c:?}");
        let a = &c[0];
        assert_eq!((a.datum.as_str(), a.refs.len(), a.written), ("A", 10, true));
        assert_eq!(extents(a, &[4, 8, 16]), vec![3 + 7 + 3, 3 + 7 + 15 + 3]);
        assert!(a.reuse.temporal);
        let params = &space.params;
        let o = |k: usize| format!("o{k}");
        let t = |k: usize| format!("T{k}");
        assert_eq!(
            a.dims[0].origin.render(o, t, params),
            "-o0 + o1 - (T0 - 1) - 1"
        );
    });
}

#[test]
fn gemm_buffers_are_c_then_a_and_b() {
    with_gpu_candidates("gemm", |_, _, all| {
        let c = &all[0];
        let names: Vec<&str> = c.iter().map(|c| c.datum.as_str()).collect();
        // C has four references (S0 reads and writes, S1 reads and writes), A and B one each;
        // all three are reused along the band dimension their subscripts lack.
        assert_eq!(names[0], "C", "{names:?}");
        assert_eq!(names.len(), 3, "{names:?}");
        assert!(c.iter().all(|c| c.reuse.temporal));
        for b in c {
            assert_eq!(extents(b, &[8, 8, 8]), vec![8, 8], "{}", b.datum);
        }
    });
}

/// syr2k's `C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k]` with `j`
/// along neighbouring work-items, as the GPU maps it: `A[j][k]` and `B[j][k]` are read a row
/// apart by neighbouring work-items, `A[i][k]` and `B[i][k]` once for all of them. The GPU
/// kernels stage four buffers; `C` and the two read apart come first, so that what stays in
/// global memory is a read the work-items share (the memory trace on the CUDA emulator: 22
/// sectors per request of `B` before, 1.25 after, `docs/results/memory-trace-small.md`).
#[test]
fn buffers_read_apart_by_neighbouring_work_items_rank_before_shared_ones() {
    with_kernel("syr2k", |ctx, scop| {
        let schedule = pluto::schedule(ctx, scop, &PlutoOptions::default()).unwrap();
        let space = tile_space(ctx, scop, &schedule, &GPU);
        let fastest = Some(1); // the band is (i, j, k); the work-items share out (i, j)
        let c = candidates(scop, &schedule, &space, &space.groups[0], fastest);
        let ranked: Vec<(String, bool)> = c
            .iter()
            .map(|c| {
                let s = &scop.statements[c.refs[0].stmt].accesses[c.refs[0].access];
                let row = s.subscripts[0].to_string();
                (format!("{}[{row}]", c.datum), c.reuse.strided)
            })
            .collect();
        let expected = [
            ("C[i]", false),
            ("A[j]", true),
            ("B[j]", true),
            ("A[i]", false),
            ("B[i]", false),
        ];
        let expected: Vec<(String, bool)> =
            expected.iter().map(|(n, s)| (n.to_string(), *s)).collect();
        assert_eq!(ranked, expected);
    });
}

#[test]
fn a_written_array_with_several_access_functions_gets_exclusive_buffers() {
    // lu writes A[i][j] and reads A[i][k], A[k][j]: copies of one element in several buffers
    // would go stale, so its classes are marked to be staged together where they are apart.
    with_gpu_candidates("lu", |_, _, all| {
        let a: Vec<_> = all.iter().flatten().filter(|c| c.datum == "A").collect();
        assert!(a.len() > 1, "{a:?}");
        assert!(a.iter().all(|c| c.exclusive), "{a:?}");
        assert!(a.iter().any(|c| c.written), "{a:?}");
    });
    // gemm's arrays have one class each: nothing is exclusive.
    with_gpu_candidates("gemm", |_, _, all| {
        assert!(all.iter().flatten().all(|c| !c.exclusive));
    });
}

#[test]
fn diamond_tiles_determine_subscripts_in_halves() {
    // jacobi-2d's diamond tiling rows (4t - (2t + i), 2t + i, 2t + j) give i and j as halves
    // of integer combinations: a box of about (T0 + T1) / 2 rows, each reference read from
    // both arrays' single class.
    with_gpu_candidates("jacobi-2d", |schedule, _, all| {
        assert!(schedule.bands.iter().any(|b| b.diamond.is_some()));
        let c = &all[0];
        let names: Vec<&str> = c.iter().map(|c| c.datum.as_str()).collect();
        assert_eq!(names, ["A", "B"]);
        assert!(c[0].dims.iter().all(|d| d.origin.divisor == 2));
        assert_eq!(extents(&c[0], &[8, 8, 8]), vec![10, 17]);
    });
}
