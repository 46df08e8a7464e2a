//! Copy-out statements: an expanded array's final values back into the array it replaces.
//!
//! Once an array is expanded ([`super::expand::expand_arrays`]), a write of `A[e]` in iteration
//! `(i, j)` of the expanded loops writes `E[i][j][e]` instead, and `A` itself is no longer
//! written. What the original program leaves in `A[e]` is the value of the last write of `A[e]`.
//! So each statement that writes the array gets a copy statement right after it in the textual
//! order, run at exactly those of its instances that are the last write of their element, which
//! stores `A[e] = E[i][j][e]`. doitgen's `sum[p]` is copied once, at `r = nr - 1, q = nq - 1`.
//!
//! A copy statement is an ordinary statement of the SCoP (`S<n>`, after the others): the
//! dependence analysis and the scheduler order it like the rest. It shares its original's loops
//! and source location; the brute-force enumerator, which walks the user's code, runs it right
//! after its original, at the instances its domain holds.

use crate::math::isl::{Ctx, DimType, Map, Set};
use crate::math::{Domain, Relation};
use crate::model::expr::{AssignOp, Expr};
use crate::model::{AccessKind, AccessPattern, Scop, Statement};

/// Whether copy statements can be made for `array` in `statements`: each that writes it does
/// so once, as the target of the statement's assignment (whose left side the copy reuses).
pub(super) fn possible(scop: &Scop, array: &str, statements: &[usize]) -> bool {
    statements.iter().all(|&k| {
        let st = &scop.statements[k];
        let writes = st
            .accesses
            .iter()
            .filter(|a| a.datum == array && a.kind == AccessKind::Write)
            .count();
        writes == 0 || (writes == 1 && target(&st.body).is_some_and(|t| is_element_of(t, array)))
    })
}

/// The instances of one statement that write the last value of their element, with what the
/// copy needs from the statement before expansion.
pub(super) struct LastWrites<'c> {
    statement: usize,
    instances: Set<'c>,
    write: AccessPattern<'c>,
    lhs: Expr,
}

/// For each statement of `statements` that writes `array`, its instances that are the last
/// write of their element in the original order (before expansion rewrites them).
pub(super) fn last_writes<'c>(
    scop: &Scop<'c>,
    array: &str,
    statements: &[usize],
) -> Vec<LastWrites<'c>> {
    let writes: Vec<(usize, &AccessPattern<'c>)> = statements
        .iter()
        .filter_map(|&k| {
            let st = &scop.statements[k];
            st.accesses
                .iter()
                .find(|a| a.datum == array && a.kind == AccessKind::Write)
                .map(|a| (k, a))
        })
        .collect();
    let schedule = |k: usize| scop.statements[k].schedule.isl().clone();
    // Element -> time of each write, and the latest per element.
    let Some(last) = writes
        .iter()
        .map(|(k, a)| a.relation.isl().clone().reverse().apply_range(schedule(*k)))
        .reduce(Map::union)
        .map(Map::lexmax)
    else {
        return Vec::new();
    };
    writes
        .into_iter()
        .map(|(k, a)| LastWrites {
            statement: k,
            instances: a
                .relation
                .isl()
                .clone()
                .apply_range(last.clone())
                .intersect(schedule(k))
                .domain()
                .coalesce(),
            write: a.clone(),
            lhs: target(&scop.statements[k].body)
                .expect("possible() checked the target")
                .clone(),
        })
        .filter(|l| !l.instances.is_empty())
        .collect()
}

/// Add a copy statement `A[e] = expanded[..][e]` after each statement of `last`, which
/// expansion has since rewritten to write `expanded`.
pub(super) fn add<'c>(
    ctx: &'c Ctx,
    scop: &mut Scop<'c>,
    expanded: &str,
    last: Vec<LastWrites<'c>>,
) {
    for l in last {
        make_room_after(ctx, scop, l.statement);
        let copy = copy_of(ctx, scop, expanded, l);
        scop.statements.push(copy);
    }
}

/// The copy statement for `l`, numbered after the SCoP's statements.
fn copy_of<'c>(
    ctx: &'c Ctx,
    scop: &mut Scop<'c>,
    expanded: &str,
    l: LastWrites<'c>,
) -> Statement<'c> {
    let n = scop.statements.len();
    let (name, tuple) = scop.next_statement_name();
    let st = &scop.statements[l.statement];
    let depth = st.depth();
    let restrict = |m: &Map<'c>| {
        Relation::new(
            m.clone()
                .intersect_domain(l.instances.clone())
                .set_tuple_name(DimType::In, &tuple),
        )
    };
    let source = st
        .accesses
        .iter()
        .find(|a| a.datum == expanded && a.kind == AccessKind::Write)
        .expect("the rewritten statement writes the expanded array");
    let read = AccessPattern {
        datum: expanded.to_string(),
        kind: AccessKind::Read,
        subscripts: source.subscripts.clone(),
        relation: restrict(source.relation.isl()),
    };
    let write = AccessPattern {
        relation: restrict(l.write.relation.isl()),
        ..l.write
    };
    let value = target(&st.body)
        .expect("the rewritten statement keeps its target")
        .clone();
    let mut beta = st.beta.clone();
    beta[depth] += 1;
    Statement {
        id: n,
        name,
        loc: st.loc.clone(),
        text: format!("{} = {};", l.lhs, value),
        body: Expr::Assign {
            op: AssignOp::Assign,
            lhs: Box::new(l.lhs),
            rhs: Box::new(value),
        },
        iterators: st.iterators.clone(),
        iterator_types: st.iterator_types.clone(),
        casts: st.casts,
        loops: st.loops.clone(),
        flow_id: st.flow_id,
        domain: Domain::new(l.instances.clone().set_tuple_name(&tuple)),
        schedule: Relation::new(
            after(ctx, st.schedule.isl().clone(), 2 * depth)
                .intersect_domain(l.instances)
                .set_tuple_name(DimType::In, &tuple),
        ),
        beta,
        accesses: vec![read, write],
    }
}

/// Move every statement textually after statement `k` inside its loops one position on, so that
/// a copy fits right after `k`.
fn make_room_after<'c>(ctx: &'c Ctx, scop: &mut Scop<'c>, k: usize) {
    let (loops, beta) = (
        scop.statements[k].loops.clone(),
        scop.statements[k].beta.clone(),
    );
    let depth = loops.len();
    for s in &mut scop.statements {
        if s.loops.len() >= depth && s.loops[..depth] == loops[..] && s.beta[depth] > beta[depth] {
            s.beta[depth] += 1;
            s.schedule = Relation::new(after(ctx, s.schedule.isl().clone(), 2 * depth));
        }
    }
}

/// `schedule` with its output dimension `pos` one larger.
fn after<'c>(ctx: &'c Ctx, schedule: Map<'c>, pos: usize) -> Map<'c> {
    let n = schedule.dim(DimType::Out);
    let xs: Vec<String> = (0..n).map(|k| format!("x{k}")).collect();
    let ys: Vec<String> = (0..n)
        .map(|k| match k == pos {
            true => format!("x{k} + 1"),
            false => format!("x{k}"),
        })
        .collect();
    let shift = Map::parse(
        ctx,
        &format!("{{ [{}] -> [{}] }}", xs.join(", "), ys.join(", ")),
    )
    .expect("generated shift parses");
    schedule.apply_range(shift)
}

/// The target of a statement's assignment.
fn target(body: &Expr) -> Option<&Expr> {
    match body {
        Expr::Assign { lhs, .. } => Some(lhs),
        _ => None,
    }
}

/// Whether `e` is an element of `array`.
fn is_element_of(e: &Expr, array: &str) -> bool {
    matches!(e, Expr::Index { array: a, .. } if a == array)
}
