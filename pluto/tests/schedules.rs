//! The schedules the thesis and Pluto lead us to expect on known kernels: time-skewed bands on
//! stencils, parallel dimensions on gemm, Figure 4.1's choice between a parallel loop and a
//! wavefront, Algorithm 4's separation of jacobi-2d's statements, and smart fusion's guard for
//! parallel loops.

mod common;

use common::{with_kernel, with_scops, with_text};
use pluto::{DimKind, Fusion, PlutoOptions, Scheduled};
use rosepolly::compilation::SourceOptions;
use rosepolly::math::isl::Ctx;
use rosepolly::model::Scop;
use std::path::Path;

fn analyze(ctx: &Ctx, scop: &Scop, opts: &PlutoOptions) -> Scheduled {
    pluto::analyze(ctx, scop, opts).unwrap_or_else(|e| panic!("{}: {e}", scop.function))
}

fn kernel_schedule<R>(name: &str, f: impl FnOnce(&Scop, &Scheduled) -> R) -> R {
    kernel_schedule_with(name, &PlutoOptions::default(), f)
}

fn kernel_schedule_with<R>(
    name: &str,
    opts: &PlutoOptions,
    f: impl FnOnce(&Scop, &Scheduled) -> R,
) -> R {
    let k = polybench::kernel(name).unwrap();
    with_kernel(&k, |ctx, scops| {
        f(&scops[0], &analyze(ctx, &scops[0], opts))
    })
}

#[test]
fn stencils_get_one_time_skewed_permutable_band() {
    for name in ["jacobi-1d", "jacobi-2d", "heat-3d", "seidel-2d", "fdtd-2d"] {
        kernel_schedule(name, |scop, r| {
            let s = &r.schedule;
            let band = s.bands.iter().find(|b| b.depth == scop.max_depth());
            let band =
                band.unwrap_or_else(|| panic!("{name}: no band spans all loops: {:?}", s.bands));
            assert!(band.permutable, "{name}");
            for (st, rows) in scop.statements.iter().zip(&s.rows) {
                let band_rows = &rows[band.start..band.start + band.depth];
                // The time iterator (the outermost loop) appears in every row after the first:
                // the space loops are skewed by time.
                assert!(
                    band_rows[0].coeffs[0] != 0,
                    "{name} {}: {band_rows:?}",
                    st.name
                );
                assert!(
                    band_rows[1..].iter().all(|r| r.coeffs[0] != 0),
                    "{name} {}: {band_rows:?}",
                    st.name
                );
            }
        });
    }
}

/// Diamond tiling (issue 13): the time-iterated stencils with uniform dependences get a cone
/// complement for tiling, legal for every dependence the band must respect (the brute-force
/// check of `legality.rs` covers its row too); stencils whose time steps depend on themselves
/// (seidel-2d) and kernels with non-uniform dependences do not.
#[test]
fn uniform_stencils_get_diamond_tiles_and_others_do_not() {
    for name in ["jacobi-1d", "jacobi-2d", "heat-3d", "fdtd-2d"] {
        kernel_schedule(name, |scop, r| {
            let s = &r.schedule;
            let band = s
                .bands
                .iter()
                .find(|b| b.depth == scop.max_depth())
                .unwrap();
            let d = band
                .diamond
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: no diamond"));
            assert!(d.mu >= 1, "{name}: {d:?}");
            for (k, (st, rows)) in scop.statements.iter().zip(&s.rows).enumerate() {
                let n = st.depth();
                let tiling = s.tiling_row(k, band.start);
                // h' = mu*h1 - h2 + c: the time coefficient of h1 is positive, so the face
                // t = 0 is inside the cone of h' and h2 exactly when h' moves against h2 in
                // space.
                let space = |r: &pluto::Row| r.coeffs[1..n].to_vec();
                let h2 = &rows[band.start + 1];
                assert_eq!(
                    space(&tiling),
                    space(h2).iter().map(|c| -c).collect::<Vec<_>>(),
                    "{name} {}: {tiling:?} against {h2:?}",
                    st.name
                );
            }
        });
        kernel_schedule_with(
            name,
            &PlutoOptions {
                diamond: false,
                ..Default::default()
            },
            |_, r| {
                assert!(
                    r.schedule.bands.iter().all(|b| b.diamond.is_none()),
                    "{name}"
                )
            },
        );
    }
    for name in [
        "seidel-2d",
        "lu",
        "cholesky",
        "gemm",
        "floyd-warshall",
        "nussinov",
    ] {
        kernel_schedule(name, |_, r| {
            assert!(
                r.schedule.bands.iter().all(|b| b.diamond.is_none()),
                "{name}: {:?}",
                r.schedule.bands
            );
        });
    }
}

/// fdtd-2d's band is `(t, t + j, t + i)` as Pluto finds it; the diamond pairs time with the
/// outer space loop `i`, which moves to the band's second place, so that the unit-stride `j`
/// keeps full-length loops inside a tile.
#[test]
fn the_diamond_leaves_the_innermost_loop_out() {
    kernel_schedule("fdtd-2d", |scop, r| {
        let s = &r.schedule;
        let ey = scop
            .statements
            .iter()
            .position(|st| st.depth() == 3)
            .unwrap();
        let it = &scop.statements[ey].iterators;
        let rows: Vec<String> = s.rows[ey].iter().map(|r| r.expr(it)).collect();
        assert_eq!(rows, ["t", "t + i", "t + j"], "{rows:?}");
    });
}

#[test]
fn gemm_i_and_j_are_parallel() {
    kernel_schedule("gemm", |scop, r| {
        let s = &r.schedule;
        let s1 = scop
            .statements
            .iter()
            .position(|st| st.depth() == 3)
            .unwrap();
        // Find the dimensions that scan gemm's i and j (iterators 0 and 2 of S1: i, k, j).
        for it in [0usize, 2] {
            let d = (0..s.n_dims())
                .find(|&d| {
                    s.rows[s1][d]
                        .coeffs
                        .iter()
                        .enumerate()
                        .all(|(k, &c)| (c != 0) == (k == it))
                })
                .unwrap_or_else(|| panic!("no dimension scans iterator {it}: {:?}", s.rows[s1]));
            assert!(
                s.parallel[d],
                "dimension {d} of gemm is not parallel: {:?}",
                s.parallel
            );
            assert!(matches!(s.kinds[d], DimKind::Hyperplane { .. }));
        }
    });
}

/// Smart fusion gives way to distribution when that gives more statements parallel outer
/// loops: fusing covariance's, correlation's and 3mm's nests along one loop leaves no parallel
/// dimension (later nests read every earlier column), atax's and gemver's fused loop carries a
/// sum; distributed, every statement's outermost loop is parallel. Maximal fusion keeps them
/// fused; gemm, whose fused loops are parallel, stays fused.
#[test]
fn smart_fusion_distributes_when_that_gives_parallel_outer_loops() {
    for name in ["covariance", "correlation", "3mm", "atax", "gemver"] {
        kernel_schedule(name, |scop, r| {
            let s = &r.schedule;
            assert_eq!(s.kinds[0], DimKind::Scalar, "{name}: distributed first");
            assert!(
                s.parallel[1],
                "{name}: the outermost loops are parallel: {:?}",
                s.parallel
            );
            assert!(scop.statements.len() > 1);
        });
    }
    let max = PlutoOptions {
        fusion: Fusion::MaxFuse,
        ..Default::default()
    };
    kernel_schedule_with("3mm", &max, |_, r| {
        assert_ne!(r.schedule.kinds[0], DimKind::Scalar, "maximal fusion fuses");
    });
    kernel_schedule("gemm", |_, r| {
        assert_ne!(r.schedule.kinds[0], DimKind::Scalar, "gemm stays fused");
    });
}

/// Smart fusion also gives way when distribution gives deeper permutable bands: 2mm's products
/// fused at `i` and `j` leave their `k` loops out of the band, and trmm's fused band has two of
/// its product's three loops; distributed, each product has a band of depth three (tiled in all
/// three loops). syrk, whose fused band already covers every loop, stays fused.
#[test]
fn smart_fusion_distributes_when_that_gives_deeper_bands() {
    for name in ["2mm", "trmm"] {
        kernel_schedule(name, |scop, r| {
            let s = &r.schedule;
            assert_eq!(s.kinds[0], DimKind::Scalar, "{name}: distributed first");
            let deepest = scop.statements.iter().map(|st| st.depth()).max().unwrap();
            assert!(
                s.bands.iter().any(|b| b.depth == deepest),
                "{name}: a band spans a product's {deepest} loops: {:?}",
                s.bands
            );
        });
    }
    kernel_schedule("syrk", |_, r| {
        assert_ne!(r.schedule.kinds[0], DimKind::Scalar, "syrk stays fused");
    });
}

#[test]
fn jacobi_2d_statements_are_separated_inside_tiles() {
    kernel_schedule("jacobi-2d", |_, r| {
        let it = &r.intra_tile[0];
        assert_eq!(it.cut, Some(1), "{it:?}");
        assert_ne!(it.components[0], it.components[1], "{it:?}");
        assert_eq!(it.parallel, vec![false, true, true]);
        assert!(r.wavefront_reuse[0] > 0);
    });
}

/// Figure 4.1: two dependences of equal communication cost, one horizontal and one diagonal.
/// Our baseline minimises inner coefficients first (as Pluto's implementation does), so the
/// thesis' example appears mirrored: `(0, 1)` horizontal along `j` and `(1, 1)` diagonal.
const FIGURE_4_1: &str = "
void figure_4_1(int n, double A[100][100])
{
  int i, j;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 1; j < n; j++)
      A[i][j] = A[i][j - 1] + A[i - 1][j - 1];
#pragma endscop
}
";

#[test]
fn figure_4_1_ordering_gives_a_parallel_loop_instead_of_a_wavefront() {
    with_text("figure41", FIGURE_4_1, |ctx, scops| {
        let with = analyze(ctx, &scops[0], &PlutoOptions::default()).schedule;
        let without = analyze(
            ctx,
            &scops[0],
            &PlutoOptions {
                direction_ordering: false,
                ..Default::default()
            },
        )
        .schedule;
        let expr = |s: &pluto::Schedule| {
            s.rows[0]
                .iter()
                .map(|r| r.expr(&["i".into(), "j".into()]))
                .collect::<Vec<_>>()
        };
        assert_eq!(expr(&with), ["j", "i"]);
        assert_eq!(with.parallel, [false, true]);
        assert_eq!(expr(&without), ["i", "j"]);
        assert_eq!(
            without.parallel,
            [false, false],
            "a wavefront: no loop is parallel"
        );
        assert!(with.bands[0].permutable && without.bands[0].permutable);
    });
}

#[test]
fn stuck_scheduler_completes_with_the_original_order() {
    // Found by the random-program test: after fusing three nests, the hyperplanes chosen for
    // cost leave zero-distance dependences both ways between S0 and S1.
    let text = include_str!("inputs/stuck-after-fusion.c");
    with_text("stuck35", text, |ctx, scops| {
        let s = analyze(ctx, &scops[0], &PlutoOptions::default()).schedule;
        assert!(s.original_order_from.is_some());
        pluto::legality::check(ctx, &scops[0], &s).unwrap();
    });
}

/// A dimension's parallelism is per loop: gramschmidt's dimension after `k` scans the norm's
/// reduction (carried, sequential) and, in another loop the scalar dimension before separates,
/// the column updates `R[k][j]`, `A[i][j]` (parallel in `j`). The band's flag says sequential;
/// the loop of the column updates is parallel, the norm's is not.
#[test]
fn parallel_loops_are_told_apart_within_a_dimension() {
    kernel_schedule("gramschmidt", |scop, r| {
        let s = &r.schedule;
        let stmt = |text: &str| {
            scop.statements
                .iter()
                .position(|st| st.text.contains(text))
                .unwrap_or_else(|| panic!("no statement `{text}`"))
        };
        let (norm, update) = (stmt("nrm +="), stmt("A[i][j] = A[i][j] -"));
        // The first dimension where the update scans `j` (its iterator 1 of k, j, i).
        let d = (0..s.n_dims())
            .find(|&d| s.rows[update][d].coeffs.get(1).is_some_and(|&c| c != 0))
            .unwrap();
        assert!(!s.parallel[d], "{:?}", s.parallel);
        assert!(s.loop_parallel[d][update], "{:?}", s.loop_parallel[d]);
        assert!(!s.loop_parallel[d][norm], "{:?}", s.loop_parallel[d]);
        assert!(s.parallel_loop(d, &[update, stmt("R[k][j] +=")]));
        assert!(!s.parallel_loop(d, &[norm]));
    });
}

/// durbin's three `i` loops inside `k`: fused with shifts they form one sequential loop; with
/// inner distribution (the GPU targets') the `z` and `y` updates get parallel loops of their
/// own, and the sum stays sequential.
#[test]
fn inner_distribution_gives_durbins_updates_parallel_loops() {
    let parallel_loops = |distribute_inner: bool| {
        let opts = PlutoOptions {
            distribute_inner,
            ..Default::default()
        };
        kernel_schedule_with("durbin", &opts, |scop, r| {
            let s = &r.schedule;
            let mut found = Vec::new();
            for (st, rows) in scop.statements.iter().zip(&s.rows) {
                for (d, row) in rows.iter().enumerate() {
                    if !row.is_constant() && d > 0 && s.loop_parallel[d][st.id] {
                        found.push(st.text.clone());
                    }
                }
            }
            found
        })
    };
    assert_eq!(parallel_loops(false), Vec::<String>::new());
    assert_eq!(
        parallel_loops(true),
        vec![
            "z[i] = y[i] + alpha * y[k - i - 1];".to_string(),
            "y[i] = z[i];".to_string()
        ]
    );
}

/// ludcmp's back substitution (`i` descending) has dependence distances no constant bounds, so
/// with one bound for the whole SCoP its LU part picks among unbounded ones too and keeps the
/// rows `i` outermost: one short wavefront after another, 189,450 launches on a GPU at LARGE.
/// The GPU targets' schedule bounds each component on its own there (more parallel loops):
/// the LU's updates run `k` outermost, as lu's do. The C target keeps `i` outermost (a cost
/// per component ran ludcmp 2x slower there).
#[test]
fn gpu_schedules_bound_ludcmps_components_apart() {
    let outer = |opts: &PlutoOptions| {
        kernel_schedule_with("ludcmp", opts, |scop, r| {
            // The first loop of the update `w -= A[i][k] * A[k][j]` (j < i): its iterator.
            let st = scop.statements.iter().find(|s| s.depth() == 3).unwrap();
            let row = r.schedule.rows[st.id]
                .iter()
                .find(|r| !r.is_constant())
                .unwrap();
            let k = row.coeffs.iter().position(|&c| c != 0).unwrap();
            assert_eq!(row.coeffs.iter().filter(|&&c| c != 0).count(), 1, "{row:?}");
            st.iterators[k].clone()
        })
    };
    assert_eq!(outer(&PlutoOptions::default()), "i");
    assert_eq!(outer(&PlutoOptions::default().for_gpu(true)), "k");
}

/// bicg's sums are fused with the initialisations of their accumulators (`s[i] = 0` beside
/// `s[j] += r[i] * A[i][j]`), which keeps their tiles from running in parallel on a GPU; the GPU
/// targets' schedule distributes them (`PlutoOptions::sums_across_tiles`). Kernels whose sums
/// split already, or whose tiles have parallelism enough (gemm's two parallel dimensions),
/// keep their schedules.
#[test]
fn gpu_schedules_distribute_initialisations_from_their_sums() {
    let gpu = PlutoOptions::default().for_gpu(true);
    let fused = |opts: &PlutoOptions| {
        kernel_schedule_with("bicg", opts, |scop, r| {
            let first = |text: &str| {
                let st = scop.statements.iter().find(|s| s.text.starts_with(text));
                r.schedule.rows[st.unwrap().id][0].clone()
            };
            // s[i] = 0 and the sum into s[j]: one outer loop, or two nests after a scalar.
            !first("s[i]").is_constant() && !first("s[j]").is_constant()
        })
    };
    assert!(fused(&PlutoOptions::default().for_gpu(false)));
    assert!(!fused(&gpu));
    let schedule = |k: &str, opts: &PlutoOptions| {
        kernel_schedule_with(k, opts, |_, r| r.schedule.rows.clone())
    };
    for k in [
        "atax", "mvt", "gesummv", "gemm", "gemver", "2mm", "symm", "trmm", "syrk",
    ] {
        let without = PlutoOptions::default().for_gpu(false);
        assert_eq!(schedule(k, &gpu), schedule(k, &without), "{k}");
    }
}

#[test]
fn schedule_coefficients_stay_small() {
    // Differential seed 8665 with its guard taken away: `k` starts at `j - 2` converted to
    // `unsigned`, a modulo 2^32 in the domains. Unbounded, the ILP bought zero communication
    // with `715827882*k + 2147483646`, and the tile walk ran over 10^9 empty tiles. The
    // semantics test runs the same program against gcc's build.
    let input = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/inputs/semantics/wrapped-loop-start.c");
    with_scops(&input, &SourceOptions::default(), |ctx, scops| {
        let s = analyze(ctx, &scops[0], &PlutoOptions::default()).schedule;
        for row in s.rows.iter().flatten() {
            assert!(
                row.coeffs.iter().all(|c| c.abs() <= 16) && row.constant.abs() <= 1024,
                "{row:?} in {:?}",
                s.rows
            );
        }
    });
}
