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

use petgraph::graph::DiGraph;
use rosepolly::math::isl::{Ctx, Map};
use rosepolly::model::Scop;
use serde::Serialize;

use crate::deltas;
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

struct Piece<'c> {
    src: usize,
    sink: usize,
    remaining: Map<'c>,
}

/// Run Algorithm 4 on every band.
pub fn eliminate(ctx: &Ctx, scop: &Scop, schedule: &Schedule) -> Vec<IntraTile> {
    let deps = rosepolly::compilation::deps::direct(ctx, scop);
    let all: Vec<Piece> = deps
        .iter()
        .flat_map(|d| {
            d.relation.pieces().into_iter().map(|p| Piece {
                src: d.source,
                sink: d.sink,
                remaining: p.into_isl(),
            })
        })
        .collect();
    (0..schedule.bands.len())
        .map(|b| band(scop, schedule, b, &all))
        .collect()
}

/// Keep the instances dimension `d` leaves unordered.
fn restrict<'c>(
    scop: &Scop,
    schedule: &Schedule,
    pieces: Vec<Piece<'c>>,
    d: usize,
) -> Vec<Piece<'c>> {
    pieces
        .into_iter()
        .map(|p| {
            let r = deltas::unordered(
                scop,
                &p.remaining,
                &schedule.rows[p.src][d],
                &schedule.rows[p.sink][d],
            );
            Piece { remaining: r, ..p }
        })
        .filter(|p| !p.remaining.is_empty())
        .collect()
}

/// Component of each statement in the graph of the pieces, numbered in topological order.
fn components(n: usize, pieces: &[Piece]) -> Vec<usize> {
    let mut g = DiGraph::<usize, ()>::new();
    let nodes: Vec<_> = (0..n).map(|s| g.add_node(s)).collect();
    for p in pieces {
        g.update_edge(nodes[p.src], nodes[p.sink], ());
    }
    let mut sccs = petgraph::algo::tarjan_scc(&g);
    sccs.reverse();
    let mut comp = vec![0; n];
    for (k, c) in sccs.iter().enumerate() {
        for &node in c {
            comp[g[node]] = k;
        }
    }
    comp
}

fn band(scop: &Scop, schedule: &Schedule, b: usize, all: &[Piece]) -> IntraTile {
    let band = &schedule.bands[b];
    let n = scop.statements.len();
    let mut pieces: Vec<Piece> = all
        .iter()
        .map(|p| Piece {
            src: p.src,
            sink: p.sink,
            remaining: p.remaining.clone(),
        })
        .collect();
    for d in 0..band.start {
        pieces = restrict(scop, schedule, pieces, d);
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
        let carried = pieces.iter().any(|p| {
            deltas::carries(
                scop,
                &p.remaining,
                &schedule.rows[p.src][d],
                &schedule.rows[p.sink][d],
            )
        });
        if carried {
            *par = false;
            pieces = restrict(scop, schedule, pieces, d);
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
