//! Dependence distances along one schedule dimension, as isl relations.
//!
//! For a dependence piece from `S[x]` to `T[y]` and schedule rows `r_S`, `r_T`, the distance is
//! `δ = r_T(y) − r_S(x)`. Restricting a piece to `δ = 0` keeps the instances a dimension does
//! not order (what later dimensions must still respect); a piece with `δ ≠ 0` somewhere is
//! carried by the dimension.

use petgraph::graph::DiGraph;
use rosepolly::math::isl::{Ctx, Map};
use rosepolly::model::{Dependence, Scop};

use crate::schedule::{DimKind, Row};

/// `{ S[x] -> T[y] : r_T(y) <op> r_S(x) }` in the piece's spaces.
fn relation<'c>(piece: &Map<'c>, src: &Row, sink: &Row, op: Op) -> Map<'c> {
    // δ = sink·y + c_sink - (src·x + c_src), as a row over (x, y, 1).
    let delta: Vec<i64> = src
        .coeffs
        .iter()
        .map(|c| -c)
        .chain(sink.coeffs.iter().copied())
        .chain([sink.constant - src.constant])
        .collect();
    let negated = || -> Vec<i64> { delta.iter().map(|c| -c).collect() };
    // `δ < 0` is `-δ - 1 >= 0`; `δ > 0` is `δ - 1 >= 0`.
    let less = || {
        let mut r = negated();
        *r.last_mut().expect("a constant") -= 1;
        piece.constraint_like(&r, false)
    };
    match op {
        Op::Zero => piece.constraint_like(&delta, true),
        Op::Negative => less(),
        Op::NonZero => {
            let mut more = delta.clone();
            *more.last_mut().expect("a constant") -= 1;
            less().union(piece.constraint_like(&more, false))
        }
    }
}

/// Which distances [`relation`] keeps.
#[derive(Clone, Copy)]
enum Op {
    Zero,
    Negative,
    NonZero,
}

/// The instances of `piece` the dimension does not order (`δ = 0`).
pub fn unordered<'c>(piece: &Map<'c>, src: &Row, sink: &Row) -> Map<'c> {
    piece
        .clone()
        .intersect(relation(piece, src, sink, Op::Zero))
}

/// Does the dimension order some instance of the piece (`δ ≠ 0` somewhere)?
pub fn carries(piece: &Map, src: &Row, sink: &Row) -> bool {
    !piece
        .clone()
        .intersect(relation(piece, src, sink, Op::NonZero))
        .is_empty()
}

/// Does the dimension order some instance the wrong way (`δ < 0` somewhere)?
pub fn violates(piece: &Map, src: &Row, sink: &Row) -> bool {
    !piece
        .clone()
        .intersect(relation(piece, src, sink, Op::Negative))
        .is_empty()
}

/// A convex piece of a dependence, narrowed to the instances that the schedule dimensions seen
/// so far leave unordered.
#[derive(Clone)]
pub(crate) struct Piece<'c> {
    pub src: usize,
    pub sink: usize,
    pub remaining: Map<'c>,
}

/// The convex pieces of the SCoP's direct dependences
/// ([`rosepolly::analysis::deps::direct`]), nothing ordered yet.
pub(crate) fn direct_pieces<'c>(ctx: &'c Ctx, scop: &Scop<'c>) -> Vec<Piece<'c>> {
    pieces(&rosepolly::analysis::deps::direct(ctx, scop))
}

/// Per band dimension `start..start + depth`: whether the loops of statements `stmts` there
/// carry no dependence but those `relaxed` lets go. A reduction's self-dependences on its
/// accumulator are such (issue 17): its updates may run in any order when partial results are
/// combined at the end, so tiles along its loop may run in parallel.
pub fn parallel_relaxing(
    ctx: &Ctx,
    scop: &Scop,
    schedule: &crate::Schedule,
    (start, depth): (usize, usize),
    stmts: &[usize],
    relaxed: &dyn Fn(&Dependence) -> bool,
) -> Vec<bool> {
    let kept: Vec<Dependence> = rosepolly::analysis::deps::direct(ctx, scop)
        .into_iter()
        .filter(|d| !relaxed(d))
        .collect();
    let mut remaining = pieces(&kept);
    for d in 0..start {
        remaining = restrict(remaining, &schedule.rows, d);
    }
    let (marks, _) = band_marks(remaining, &schedule.rows, &schedule.kinds, start, depth);
    marks.iter().map(|m| stmts.iter().all(|&s| m[s])).collect()
}

fn pieces<'c>(deps: &[Dependence<'c>]) -> Vec<Piece<'c>> {
    deps.iter()
        .flat_map(|d| {
            d.relation.pieces().into_iter().map(|p| Piece {
                src: d.source,
                sink: d.sink,
                remaining: p.into_isl(),
            })
        })
        .collect()
}

/// Does dimension `d` of `rows` (per statement) carry some instance of some piece?
pub(crate) fn any_carried(pieces: &[Piece], rows: &[Vec<Row>], d: usize) -> bool {
    pieces
        .iter()
        .any(|p| carries(&p.remaining, &rows[p.src][d], &rows[p.sink][d]))
}

/// Per statement: whether its loop at dimension `d` carries none of the pieces. The statements
/// that share that loop are those whose constants at the scalar dimensions before `d` agree
/// (a piece between statements that differ there is ordered by that dimension, so it is not
/// among the pieces), and a carried piece makes the loop sequential for them alone: gramschmidt's
/// column updates stay parallel beside the norm's reduction, which the same dimension carries.
pub(crate) fn parallel_loops(
    pieces: &[Piece],
    rows: &[Vec<Row>],
    kinds: &[DimKind],
    d: usize,
) -> Vec<bool> {
    let key = |s: usize| -> Vec<i64> {
        (0..d)
            .filter(|&k| kinds[k] == DimKind::Scalar)
            .map(|k| rows[s][k].constant)
            .collect()
    };
    let sequential: Vec<Vec<i64>> = pieces
        .iter()
        .filter(|p| carries(&p.remaining, &rows[p.src][d], &rows[p.sink][d]))
        .flat_map(|p| [key(p.src), key(p.sink)])
        .collect();
    (0..rows.len())
        .map(|s| !sequential.contains(&key(s)))
        .collect()
}

/// Narrow every piece to what dimension `d` leaves unordered; drop the pieces it orders fully.
pub(crate) fn restrict<'c>(pieces: Vec<Piece<'c>>, rows: &[Vec<Row>], d: usize) -> Vec<Piece<'c>> {
    pieces
        .into_iter()
        .map(|p| {
            let remaining = unordered(&p.remaining, &rows[p.src][d], &rows[p.sink][d]);
            Piece { remaining, ..p }
        })
        .filter(|p| !p.remaining.is_empty())
        .collect()
}

/// The loop marks of a band's dimensions `start..start + depth` (per dimension, per statement:
/// [`parallel_loops`]) from the pieces left at its start, and the pieces the band leaves.
pub(crate) fn band_marks<'c>(
    pieces: Vec<Piece<'c>>,
    rows: &[Vec<Row>],
    kinds: &[DimKind],
    start: usize,
    depth: usize,
) -> (Vec<Vec<bool>>, Vec<Piece<'c>>) {
    let mut remaining = pieces;
    let mut marks = Vec::new();
    for d in start..start + depth {
        marks.push(parallel_loops(&remaining, rows, kinds, d));
        remaining = restrict(remaining, rows, d);
    }
    (marks, remaining)
}

/// The statements the pieces link, directly or not, as connected components (each sorted,
/// in the order of their first statements).
pub(crate) fn connected(n: usize, pieces: &[Piece]) -> Vec<Vec<usize>> {
    let mut sets = petgraph::unionfind::UnionFind::<usize>::new(n);
    for p in pieces {
        sets.union(p.src, p.sink);
    }
    let labels = sets.into_labeling();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for s in 0..n {
        match groups.iter_mut().find(|g| labels[g[0]] == labels[s]) {
            Some(g) => g.push(s),
            None => groups.push(vec![s]),
        }
    }
    groups
}

/// Strongly connected components of the graph of the pieces over `n` statements, in
/// topological order, each sorted.
pub(crate) fn components(n: usize, pieces: &[Piece]) -> Vec<Vec<usize>> {
    let mut g = DiGraph::<usize, ()>::new();
    let nodes: Vec<_> = (0..n).map(|s| g.add_node(s)).collect();
    for p in pieces {
        g.update_edge(nodes[p.src], nodes[p.sink], ());
    }
    let mut sccs: Vec<Vec<usize>> = petgraph::algo::tarjan_scc(&g)
        .into_iter()
        .map(|c| c.into_iter().map(|n| g[n]).collect())
        .collect();
    sccs.reverse();
    for c in &mut sccs {
        c.sort_unstable();
    }
    sccs
}
