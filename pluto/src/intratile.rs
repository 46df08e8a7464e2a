//! Intra-tile dependence elimination (thesis §6.2.2, Algorithm 4).
//!
//! Pluto fuses statements as much as the hyperplanes allow, which can leave dependences
//! between statements that are carried by the space dimensions of a band (jacobi-2d's two
//! statements, Figure 6.6): inside a tile those dimensions are then not parallel and a GPU
//! would need an intra-tile wavefront. Algorithm 4 walks the band's dimensions; as soon as
//! every remaining dependence runs between different strongly connected components, it
//! separates the components with a scalar dimension at that position (with a synchronisation
//! between them inside the tile) and every later dimension becomes parallel. The affine
//! functions themselves are not changed, only the fusion structure inside a tile.

use rosepolly::math::isl::Ctx;
use rosepolly::model::Scop;
use serde::Serialize;

use crate::deltas::{self, Piece};
use crate::schedule::Schedule;

/// The intra-tile structure of one band.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IntraTile {
    /// Index of the band in [`Schedule::bands`].
    pub band: usize,
    /// Band dimension (0-based, relative to the band) before which the components are
    /// separated, when Algorithm 4 cut them.
    pub cut: Option<usize>,
    /// Per statement: its component's position (in dependence order) at the cut; all zero
    /// without a cut.
    pub components: Vec<usize>,
    /// Per band dimension: parallel inside a tile.
    pub parallel: Vec<bool>,
}

/// Run Algorithm 4 on every band.
pub fn eliminate(ctx: &Ctx, scop: &Scop, schedule: &Schedule) -> Vec<IntraTile> {
    let all = deltas::direct_pieces(ctx, scop);
    (0..schedule.bands.len())
        .map(|b| band(scop, schedule, b, &all))
        .collect()
}

/// Run Algorithm 4 on band `b` alone.
pub fn eliminate_band(ctx: &Ctx, scop: &Scop, schedule: &Schedule, b: usize) -> IntraTile {
    band(scop, schedule, b, &deltas::direct_pieces(ctx, scop))
}

/// Does some dependence between two of `statements` that the schedule dimensions
/// `0..before` leave unordered have a non-zero distance along one of `dims`? Inside a tile
/// whose points along `dims` run on different threads, such a dependence needs a barrier.
pub fn crosses(
    ctx: &Ctx,
    scop: &Scop,
    schedule: &Schedule,
    before: usize,
    statements: &[usize],
    dims: &[usize],
) -> bool {
    let mut pieces: Vec<Piece> = deltas::direct_pieces(ctx, scop)
        .into_iter()
        .filter(|p| statements.contains(&p.src) && statements.contains(&p.sink))
        .collect();
    for d in 0..before {
        pieces = deltas::restrict(pieces, &schedule.rows, d);
    }
    dims.iter()
        .any(|&d| deltas::any_carried(&pieces, &schedule.rows, d))
}

/// Component of each statement in the graph of the pieces, numbered in topological order.
fn components(n: usize, pieces: &[Piece]) -> Vec<usize> {
    let mut comp = vec![0; n];
    for (k, c) in deltas::components(n, pieces).iter().enumerate() {
        for &s in c {
            comp[s] = k;
        }
    }
    comp
}

fn band(scop: &Scop, schedule: &Schedule, b: usize, all: &[Piece]) -> IntraTile {
    let band = &schedule.bands[b];
    let n = scop.statements.len();
    let mut pieces: Vec<Piece> = all.to_vec();
    for d in 0..band.start {
        pieces = deltas::restrict(pieces, &schedule.rows, d);
    }
    let mut parallel = vec![true; band.depth];
    for (i, par) in parallel.iter_mut().enumerate() {
        let d = band.start + i;
        let comp = components(n, &pieces);
        if !pieces.is_empty() && pieces.iter().all(|p| comp[p.src] != comp[p.sink]) {
            return IntraTile {
                band: b,
                cut: Some(i),
                components: comp,
                parallel,
            };
        }
        let carried = deltas::any_carried(&pieces, &schedule.rows, d);
        if carried {
            *par = false;
            pieces = deltas::restrict(pieces, &schedule.rows, d);
            if pieces.is_empty() {
                break;
            }
        }
    }
    IntraTile {
        band: b,
        cut: None,
        components: vec![0; n],
        parallel,
    }
}
