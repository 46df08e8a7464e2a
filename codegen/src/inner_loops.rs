//! What a loop order's innermost loops ask of the C compiler's vectoriser, per statement of the
//! deepest nests: nothing (every reference is invariant or walks unit-stride, and nothing is
//! accumulated), a gather or scatter (some reference strides across rows), or a chain (the
//! statement writes the same element at every step: a floating-point reduction gcc keeps
//! scalar without `-ffast-math`).
//!
//! The C target compares the original order with the tiles' order by this measure: where the
//! tiles' is better, a problem too small for tiles to pay still runs Pluto's order, as one
//! tile on one thread (`polyc_tiles_pay`). Measured on the 2-core VM at MEDIUM, one tile
//! against the original's lines: 2mm 7.6x, trmm 5.8x, covariance 5.7x, bicg 2.1x faster, where
//! the original's inner loops accumulate; jacobi-1d 0.37x, atax 0.78x slower, where they do
//! not (docs/decisions.md, "One tile where the schedule's order is better").

use std::collections::BTreeMap;

use rosepolly::model::affine::Affine;
use rosepolly::model::expr::Expr;
use rosepolly::model::{AccessKind, Scop, Storage};
use rosepolly::syntax::to_affine;

use crate::ir::KNode;

/// How a statement's references move with its innermost loop; ordered by cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Inner {
    /// Invariant or unit-stride references only: the loop vectorises.
    Contiguous,
    /// Some reference moves a subscript other than the last (or the last by more than one).
    Strided,
    /// A written element stays the same along the loop (or the loop is unknown).
    Chain,
}

impl Inner {
    fn cost(self) -> u32 {
        self as u32
    }
}

/// The cost of the original order: the sum of [`Inner`] over the deepest statements, each
/// under its own innermost iterator. Arrays polyc made from scalars count as the scalars they
/// are in the original lines.
pub fn original_cost(scop: &Scop) -> u32 {
    deepest(scop)
        .map(|s| {
            let st = &scop.statements[s];
            let Some(inner) = st.iterators.last() else {
                return 0;
            };
            classify(scop, s, true, &|a| a.split_var(inner).map(|(c, _)| c)).cost()
        })
        .sum()
}

/// The cost of the order of `tiles`, the code of a tile of each tiled group (or a group's
/// untiled loops): each deepest statement under the innermost loop around its deepest
/// occurrence (the worst of those).
pub fn tiled_cost(scop: &Scop, tiles: &[&KNode]) -> u32 {
    let mut found: BTreeMap<usize, (usize, Inner)> = BTreeMap::new();
    for t in tiles {
        visit(scop, t, &mut Vec::new(), &mut found);
    }
    deepest(scop)
        .map(|s| found.get(&s).map_or(Inner::Chain, |&(_, i)| i).cost())
        .sum()
}

/// The statements of the deepest nests, where the work is.
fn deepest<'a>(scop: &'a Scop<'_>) -> impl Iterator<Item = usize> + 'a {
    let depth = scop.statements.iter().map(|s| s.iterators.len()).max();
    (0..scop.statements.len()).filter(move |&s| Some(scop.statements[s].iterators.len()) == depth)
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
        KNode::Stmt { stmt, args } => {
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
        KNode::Barrier => {}
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
    classify(scop, s, false, &|a| {
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

/// The class of statement `s` when `step` gives each subscript's change per step of the
/// innermost loop (`None`: unknown). `scalars`: expanded arrays count as scalars.
fn classify(scop: &Scop, s: usize, scalars: bool, step: &dyn Fn(&Affine) -> Option<i64>) -> Inner {
    let mut class = Inner::Contiguous;
    for a in &scop.statements[s].accesses {
        let expanded = scop
            .symbols
            .data
            .get(&a.datum)
            .is_some_and(|d| d.storage == Storage::Expanded);
        let subscripts: &[Affine] = if scalars && expanded {
            &[]
        } else {
            &a.subscripts
        };
        let steps: Option<Vec<i64>> = subscripts.iter().map(step).collect();
        let this = match steps {
            None => Inner::Chain,
            Some(v) if v.iter().all(|&c| c == 0) => match a.kind {
                AccessKind::Write => Inner::Chain,
                AccessKind::Read => Inner::Contiguous,
            },
            Some(v) => {
                let rows = v.len() - 1;
                if v[..rows].iter().all(|&c| c == 0) && v[rows].abs() == 1 {
                    Inner::Contiguous
                } else {
                    Inner::Strided
                }
            }
        };
        class = class.max(this);
    }
    class
}
