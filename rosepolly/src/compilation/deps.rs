//! Exact dependence analysis with isl's array dataflow analysis.
//!
//! Per datum: *flow* dependences are value-based (each read depends on the last write of the
//! same element before it); *anti* and *output* dependences are memory-based (every earlier
//! read, respectively write, of the element that a write overwrites). Scalars are
//! zero-dimensional arrays. Statement instances are ordered by the original schedule.

use std::collections::HashMap;

use crate::math::isl::{Ctx, Dataflow, UnionMap};
use crate::math::Map;
use crate::model::{AccessKind, DepKind, Dependence, Scop};

/// All dependences of a SCoP, sorted by kind, source, sink and datum.
pub fn compute<'c>(ctx: &'c Ctx, scop: &Scop<'c>) -> Vec<Dependence<'c>> {
    let schedule = scop.statements.iter().fold(UnionMap::empty(ctx), |u, s| {
        u.add_map(s.schedule.isl().clone())
    });
    let by_name: HashMap<String, usize> = scop
        .statements
        .iter()
        .map(|s| {
            (
                s.domain
                    .isl()
                    .tuple_name()
                    .expect("statement domains are named"),
                s.id,
            )
        })
        .collect();
    let mut out = Vec::new();
    for datum in scop.symbols.data.keys() {
        let relation = |kind: AccessKind| {
            scop.statements
                .iter()
                .flat_map(|s| s.accesses.iter())
                .filter(|a| a.datum == *datum && a.kind == kind)
                .fold(UnionMap::empty(ctx), |u, a| {
                    u.add_map(a.relation.isl().clone())
                })
        };
        let (reads, writes) = (relation(AccessKind::Read), relation(AccessKind::Write));
        if writes.is_empty() {
            continue;
        }
        let flow = Dataflow {
            sink: reads.clone(),
            must_source: writes.clone(),
            may_source: UnionMap::empty(ctx),
            schedule: schedule.clone(),
        }
        .compute()
        .must_dependence;
        let anti = Dataflow {
            sink: writes.clone(),
            must_source: UnionMap::empty(ctx),
            may_source: reads,
            schedule: schedule.clone(),
        }
        .compute()
        .may_dependence;
        let output = Dataflow {
            sink: writes.clone(),
            must_source: UnionMap::empty(ctx),
            may_source: writes,
            schedule: schedule.clone(),
        }
        .compute()
        .may_dependence;
        for (kind, rel) in [
            (DepKind::Flow, flow),
            (DepKind::Anti, anti),
            (DepKind::Output, output),
        ] {
            for m in rel.coalesce().maps() {
                if m.is_empty() {
                    continue;
                }
                let src = by_name[&m.in_tuple_name().expect("named source")];
                let sink = by_name[&m.out_tuple_name().expect("named sink")];
                out.push(Dependence {
                    kind,
                    source: src,
                    sink,
                    datum: datum.clone(),
                    relation: Map::new(m.detect_equalities().coalesce()),
                });
            }
        }
    }
    out.sort_by(|a, b| {
        (a.kind, a.source, a.sink, &a.datum).cmp(&(b.kind, b.source, b.sink, &b.datum))
    });
    out
}
