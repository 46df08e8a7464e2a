//! Pluto scheduling (thesis Chapter 4) with the dependence-direction coefficient ordering
//! (§4.2), and the intra-tile dependence elimination of §6.2.2 (Algorithm 4).
//!
//! [`schedule()`] finds, for every statement of a [`Scop`], a multi-dimensional affine schedule:
//! bands of permutable hyperplanes of minimum communication cost, separated by scalar
//! dimensions where the dependence graph had to be cut. [`legality::check`] verifies any
//! schedule against the dependences independently of how it was found.

mod algorithm;
pub mod deltas;
pub mod diamond;
pub mod dump;
mod farkas;
pub mod ilp;
pub mod intratile;
pub mod legality;
pub mod order;
pub mod ortho;
pub mod reuse;
pub mod schedule;
mod sums;

use rosepolly::math::isl::Ctx;
use rosepolly::model::Scop;

pub use diamond::Diamond;
pub use ilp::Solver;
pub use schedule::{Band, DimKind, Row, Schedule};

/// How much Pluto fuses statements of different loop nests (Pluto's `--nofuse`,
/// `--smartfuse`, `--maxfuse`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Fusion {
    /// Distribute every strongly connected component of the dependence graph from the start.
    NoFuse,
    /// Fuse where hyperplanes allow; when stuck, first separate components of different loop
    /// depths, then all components. When the distributed schedule gives more statements
    /// parallel outer loops, it is used instead ([`schedule()`]).
    #[default]
    SmartFuse,
    /// Fuse as much as possible; when stuck, cut as little as possible.
    MaxFuse,
}

/// Scheduler options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlutoOptions {
    pub fusion: Fusion,
    /// Algorithms 2 and 3 (thesis §4.2). On by default.
    pub direction_ordering: bool,
    pub solver: Solver,
    /// Diamond tiling ([`diamond`]): tiles of time-iterated stencils start concurrently. On by
    /// default; `--no-diamond` turns it off.
    pub diamond: bool,
    /// Distribute an inner band's SCCs when fused they have no parallel loop and distributed
    /// some do. The GPU targets set it: without a parallel loop a SCoP runs on the host
    /// (durbin). The C target does not yet; its effect there is not measured.
    pub distribute_inner: bool,
    /// Prefer the distributed schedule where it lets more reductions run their tiles in
    /// parallel, partial results added atomically (`pluto/src/sums.rs`): bicg's sums, fused with the
    /// initialisations of their accumulators, split only once those run first. The GPU
    /// targets set it unless `--no-reductions`; the C target sums per row of tiles instead.
    pub sums_across_tiles: bool,
    /// One bound on dependence distances per connected component of a band's statements
    /// (Pluto's `--per-cc-obj`) instead of one for all. With one for all, a component whose
    /// distances no constant bounds (ludcmp's back substitution, `i` descending) lets every
    /// other one pick among unbounded ones too: ludcmp's LU keeps its rows outermost where
    /// lu's, alone, runs `k` outermost. Off by default: on the C target it ran ludcmp,
    /// covariance and correlation 2-3x slower (their reductions' loops innermost).
    pub cost_per_component: bool,
    /// Also schedule with [`PlutoOptions::cost_per_component`] where a band of several
    /// components, whose shared distance bound grew with the parameters, ended with no
    /// parallel dimension, and keep that schedule when it has more parallel band loops. The
    /// GPU targets set it: ludcmp's LU then runs `k` outermost with `j` parallel, a third of
    /// the launches.
    pub components_for_parallelism: bool,
}

impl PlutoOptions {
    /// The options as the GPU targets schedule with them: inner bands distributed for
    /// parallelism, and, with `reductions`, for sums across tiles.
    pub fn for_gpu(self, reductions: bool) -> Self {
        PlutoOptions {
            distribute_inner: true,
            sums_across_tiles: reductions,
            components_for_parallelism: true,
            ..self
        }
    }
}

impl Default for PlutoOptions {
    fn default() -> Self {
        PlutoOptions {
            fusion: Fusion::default(),
            direction_ordering: true,
            solver: Solver::default(),
            diamond: true,
            distribute_inner: false,
            sums_across_tiles: false,
            cost_per_component: false,
            components_for_parallelism: false,
        }
    }
}

/// Why no schedule was found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PlutoError {
    #[error("the scheduler made no progress after {dims} dimensions")]
    NoProgress { dims: usize },
    /// A dependence's Farkas constraints have a coefficient beyond 64 bits (C's wrap-around
    /// arithmetic, modelled exactly, brings constants like 2^64 into them).
    #[error("a dependence's legality constraints have coefficients beyond 64 bits")]
    CoefficientOverflow,
    /// The SCoP's dependences are unknown ([`rosepolly::model::Scop::untransformable`]): no
    /// schedule but the original is known to be legal, and none may be tiled.
    #[error("{0}")]
    Untransformable(String),
}

/// Schedule a SCoP with Pluto's algorithm.
pub fn schedule<'c>(
    ctx: &'c Ctx,
    scop: &Scop<'c>,
    opts: &PlutoOptions,
) -> Result<Schedule, PlutoError> {
    if let Some(why) = &scop.untransformable {
        return Err(PlutoError::Untransformable(why.clone()));
    }
    let (mut schedule, sequential) = fusion_choice(ctx, scop, opts)?;
    if sequential && opts.components_for_parallelism && !opts.cost_per_component {
        let apart = PlutoOptions {
            cost_per_component: true,
            ..*opts
        };
        if let Ok((alt, _)) = fusion_choice(ctx, scop, &apart) {
            if alt.parallel_band_loops() > schedule.parallel_band_loops() {
                schedule = alt;
            }
        }
    }
    if opts.diamond {
        diamond::apply(ctx, scop, &mut schedule);
    }
    Ok(schedule)
}

/// Pluto's schedule under the fusion policy (smart fusion: the fused or the distributed one),
/// and whether a band of several components in it ended with no parallel dimension.
fn fusion_choice<'c>(
    ctx: &'c Ctx,
    scop: &Scop<'c>,
    opts: &PlutoOptions,
) -> Result<(Schedule, bool), PlutoError> {
    let (fused, sequential) = algorithm::run(ctx, scop, opts)?;
    if opts.fusion != Fusion::SmartFuse {
        return Ok((fused, sequential));
    }
    // Smart fusion fuses whenever a legal band exists, even when the fused loops carry
    // dependences that each nest alone would not (covariance's nests fused along columns that
    // the correlation nest reads back; atax's `y[j] +=` carried by the fused `i`), or when
    // fusing leaves a shallower band than each nest alone would have (2mm's products fused at
    // `i` and `j` leave `k` out of the band). When the distributed schedule gives more
    // statements parallel outer loops, then deeper tiled bands (outermost, then any), then
    // wavefronts, it is used instead (docs/decisions.md).
    let depths: Vec<usize> = scop.statements.iter().map(|s| s.depth()).collect();
    let total: usize = depths.iter().sum();
    let have = fused.outer_parallelism(&depths);
    let sums = opts.sums_across_tiles && sums::blocked(scop, &fused);
    if have.0 == total && have.1 == total && have.2 == total && !sums {
        return Ok((fused, sequential));
    }
    let distributed = PlutoOptions {
        fusion: Fusion::NoFuse,
        ..*opts
    };
    Ok(match algorithm::run(ctx, scop, &distributed) {
        Ok(d) if d.0.outer_parallelism(&depths) > have => d,
        // As parallel outside, and more sums split across tiles on a GPU (bicg: four kernels
        // where one ran a work-item per row).
        Ok(d)
            if sums
                && d.0.outer_parallelism(&depths).0 >= have.0
                && more_sums(ctx, scop, &d.0, &fused) =>
        {
            d
        }
        _ => (fused, sequential),
    })
}

/// Whether `distributed` lets more reductions sum across tiles than `fused`.
fn more_sums(ctx: &Ctx, scop: &Scop, distributed: &Schedule, fused: &Schedule) -> bool {
    sums::splittable(ctx, scop, distributed) > sums::splittable(ctx, scop, fused)
}

/// A schedule with what the GPU mapping and the reports need besides it.
#[derive(Debug, Clone)]
pub struct Scheduled {
    pub schedule: Schedule,
    /// Algorithm 4's intra-tile structure, per band.
    pub intra_tile: Vec<intratile::IntraTile>,
    /// Wavefront temporal reuse (eq. 4.16), per band.
    pub wavefront_reuse: Vec<usize>,
    /// Where scheduling did less than it could ([`Ctx::fell_back`]).
    pub fallbacks: Vec<rosepolly::diag::Fallback>,
}

/// Schedule a SCoP and derive the intra-tile structure and the wavefront reuse of each band.
pub fn analyze<'c>(
    ctx: &'c Ctx,
    scop: &Scop<'c>,
    opts: &PlutoOptions,
) -> Result<Scheduled, PlutoError> {
    let schedule = schedule(ctx, scop, opts)?;
    let intra_tile = intratile::eliminate(ctx, scop, &schedule);
    let wavefront_reuse = reuse::wavefront_reuse(ctx, scop, &schedule);
    Ok(Scheduled {
        schedule,
        intra_tile,
        wavefront_reuse,
        fallbacks: ctx.take_fallbacks(),
    })
}

/// The schedule code is generated from, as the compiler decides it: Pluto's, or the original
/// order where the scheduler fails (with its failure, which callers report); `Err(why)` where the
/// SCoP must keep its original code (its dependences are unknown, [`PlutoError::Untransformable`]).
pub fn schedule_or_original<'c>(
    ctx: &'c Ctx,
    scop: &Scop<'c>,
    opts: &PlutoOptions,
) -> Result<(Schedule, Option<PlutoError>), String> {
    match schedule(ctx, scop, opts) {
        Ok(s) => Ok((s, None)),
        Err(PlutoError::Untransformable(why)) => Err(why),
        Err(e) => Ok((original_schedule(ctx, scop), Some(e))),
    }
}

/// The original execution order as a [`Schedule`] (each loop a band of depth one), with its
/// parallel loops marked: what polyc falls back to when scheduling fails.
pub fn original_schedule<'c>(ctx: &'c Ctx, scop: &Scop<'c>) -> Schedule {
    let (rows, kinds) = Schedule::original(scop);
    let mut pieces = deltas::direct_pieces(ctx, scop);
    let mut parallel = Vec::new();
    let mut loop_parallel = Vec::new();
    let mut bands = Vec::new();
    for (d, kind) in kinds.iter().enumerate() {
        let loops = deltas::parallel_loops(&pieces, &rows, &kinds, d);
        let whole = loops.iter().all(|&p| p);
        parallel.push(whole);
        loop_parallel.push(loops);
        if let DimKind::Hyperplane { .. } = kind {
            bands.push(Band {
                start: d,
                depth: 1,
                permutable: true,
                parallel: vec![whole],
                diamond: None,
            });
        }
        pieces = deltas::restrict(pieces, &rows, d);
    }
    Schedule {
        rows,
        kinds,
        bands,
        parallel,
        loop_parallel,
        original_order_from: Some(0),
    }
}
