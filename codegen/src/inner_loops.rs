//! What a loop order's innermost loops ask of the C compiler's vectoriser, per statement of the
//! deepest nests: nothing (every reference is invariant or walks unit-stride, and nothing is
//! accumulated), a gather or scatter (some reference strides across rows), or a chain (the
//! statement writes the same element at every step: a floating-point reduction gcc keeps
//! scalar without `-ffast-math`).
//!
//! The measure itself ([`Inner`], and the original order's cost) is `ptile::locality`'s; this
//! module costs the tiles' order from the lowered tile code. The C target compares the two:
//! where the tiles' is better, a problem too small for tiles to pay still runs Pluto's order, as one
//! tile on one thread (`polyc_tiles_pay`). Measured on the 2-core VM at MEDIUM, one tile
//! against the original's lines: 2mm 7.6x, trmm 5.8x, covariance 5.7x, bicg 2.1x faster, where
//! the original's inner loops accumulate; jacobi-1d 0.37x, atax 0.78x slower, where they do
//! not (docs/decisions.md, "One tile where the schedule's order is better").

use std::collections::{BTreeMap, BTreeSet};

use ptile::locality::{classify, deepest, statement_cost, Inner};
use rosepolly::model::expr::Expr;
use rosepolly::model::Scop;
use rosepolly::syntax::to_affine;

use crate::ir::{KNode, Reorder};

pub use ptile::locality::original_cost;

/// What the order of `tiles` offers against the original's (`ir::Reorder`): nothing, or a
/// better order, which strides across rows or not. `jammed`: the statements the original order
/// runs in jammed rows' inner loops ([`crate::jam`]), which cost nothing there: eight
/// independent chains, and rows read eight elements at a time (gemver MEDIUM, one thread: its
/// jammed original order 0.126 ms, as one tile 0.175 ms; 2mm SMALL 0.041 against 0.065 ms, 3mm
/// SMALL 0.074 against 0.127 ms; medians of 41 rotated rounds).
pub fn reorder(scop: &Scop, tiles: &[&KNode], jammed: &BTreeSet<usize>) -> Reorder {
    let classes = classes(scop, tiles);
    let tiled: u32 = classes.iter().map(|i| i.cost()).sum();
    let original: u32 = deepest(scop)
        .filter(|s| !jammed.contains(s))
        .map(|s| statement_cost(scop, s))
        .sum();
    if tiled >= original {
        Reorder::No
    } else if classes.contains(&Inner::Strided) {
        Reorder::Tiles
    } else {
        Reorder::WholeTile
    }
}

/// The class of each deepest statement under the order of `tiles`, the code of a tile of
/// each tiled group (or a group's untiled loops): under the innermost loop around its deepest
/// occurrence (the worst of those).
fn classes(scop: &Scop, tiles: &[&KNode]) -> Vec<Inner> {
    let mut found: BTreeMap<usize, (usize, Inner)> = BTreeMap::new();
    for t in tiles {
        visit(scop, t, &mut Vec::new(), &mut found);
    }
    deepest(scop)
        .map(|s| found.get(&s).map_or(Inner::Chain, |&(_, i)| i))
        .collect()
}

/// Records, for each statement instance in `node`, its class under the innermost of `loops`.
fn visit(
    scop: &Scop,
    node: &KNode,
    loops: &mut Vec<String>,
    found: &mut BTreeMap<usize, (usize, Inner)>,
) {
    match node {
        KNode::For(l) => {
            loops.push(l.var.clone());
            visit(scop, &l.body, loops, found);
            loops.pop();
        }
        KNode::Stmt { stmt, args } | KNode::Reduce { stmt, args, .. } => {
            let class = match loops.last() {
                Some(var) => under_loop(scop, *stmt, args, var),
                None => Inner::Chain,
            };
            let entry = found.entry(*stmt).or_insert((loops.len(), class));
            if loops.len() > entry.0 || (loops.len() == entry.0 && class > entry.1) {
                *entry = (loops.len(), class);
            }
        }
        KNode::Block(v) => v.iter().for_each(|c| visit(scop, c, loops, found)),
        KNode::If { then, other, .. } => {
            visit(scop, then, loops, found);
            if let Some(o) = other {
                visit(scop, o, loops, found);
            }
        }
        KNode::Points { body, .. } | KNode::Single(body) => visit(scop, body, loops, found),
        KNode::Barrier | KNode::Registers(_) | KNode::Jam(_) => {}
    }
}

/// The class of statement `s` whose iterators equal `args`, under the loop of `var`.
fn under_loop(scop: &Scop, s: usize, args: &[Expr], var: &str) -> Inner {
    let st = &scop.statements[s];
    let coeffs: Option<Vec<i64>> = args
        .iter()
        .map(|a| {
            let a = to_affine(&uncast(a))?;
            a.split_var(var).map(|(c, _)| c)
        })
        .collect();
    let Some(coeffs) = coeffs else {
        return Inner::Chain;
    };
    let of_iterator: BTreeMap<&str, i64> = st
        .iterators
        .iter()
        .map(String::as_str)
        .zip(coeffs)
        .collect();
    classify(scop, s, false, &[s], &|a| {
        let mut total = 0;
        for (it, c) in &of_iterator {
            total += a.split_var(it)?.0 * c;
        }
        Some(total)
    })
}

/// `e` without its casts (the printed iterators of statements with `int` iterators).
fn uncast(e: &Expr) -> Expr {
    e.map(&mut |x| match x {
        Expr::Cast { expr, .. } => *expr,
        other => other,
    })
}
