//! Temporal reuse along a wavefront (thesis §4.2, eqs. 4.15 and 4.16).
//!
//! A wavefront over a band is the hyperplane `Σ rows`; input (read-after-read) dependences
//! whose two reads lie on the same wavefront instance (and the same iteration of the
//! dimensions outside the band) are reuse a wavefront execution can exploit. The count is what
//! the thesis proposes to weigh wavefronts against fully parallel loops; polyc reports it in
//! `--dump schedule`.

use rosepolly::math::isl::{Ctx, Dataflow, UnionMap};
use rosepolly::model::{AccessKind, Scop};

use crate::schedule::{Row, Schedule};

/// Per band: how many input dependences (per pair of statements and array) have instances on
/// one wavefront.
pub fn wavefront_reuse(ctx: &Ctx, scop: &Scop, schedule: &Schedule) -> Vec<usize> {
    let rar = input_dependences(ctx, scop);
    schedule
        .bands
        .iter()
        .map(|band| {
            rar.iter()
                .filter(|(src, sink, m)| {
                    let mut m = m.clone();
                    for d in 0..band.start {
                        m = crate::deltas::unordered(
                            &m,
                            &schedule.rows[*src][d],
                            &schedule.rows[*sink][d],
                        );
                    }
                    let sum = |s: usize| {
                        let rows = &schedule.rows[s][band.start..band.start + band.depth];
                        let depth = rows[0].coeffs.len();
                        rows.iter().fold(Row::constant(depth, 0), |acc, r| Row {
                            coeffs: acc
                                .coeffs
                                .iter()
                                .zip(&r.coeffs)
                                .map(|(a, b)| a + b)
                                .collect(),
                            constant: acc.constant + r.constant,
                        })
                    };
                    !crate::deltas::unordered(&m, &sum(*src), &sum(*sink)).is_empty()
                })
                .count()
        })
        .collect()
}

/// Each read to the previous read of the same element, per statement pair and array.
fn input_dependences<'c>(
    ctx: &'c Ctx,
    scop: &Scop<'c>,
) -> Vec<(usize, usize, rosepolly::math::isl::Map<'c>)> {
    let schedule = scop
        .statements
        .iter()
        .fold(UnionMap::empty(ctx), |u, s| u.add_map(s.schedule.map()));
    let index = |name: &str| {
        scop.statements
            .iter()
            .position(|s| s.domain.tuple_name().as_deref() == Some(name))
    };
    let mut out = Vec::new();
    for datum in scop.symbols.data.keys() {
        let reads = scop
            .statements
            .iter()
            .flat_map(|s| s.accesses.iter())
            .filter(|a| a.datum == *datum && a.kind == AccessKind::Read)
            .fold(UnionMap::empty(ctx), |u, a| u.add_map(a.relation.map()));
        let deps = Dataflow {
            sink: reads.clone(),
            must_source: reads,
            may_source: UnionMap::empty(ctx),
            schedule: schedule.clone(),
        }
        .compute()
        .must_dependence;
        for m in deps.maps() {
            if let (Some(s), Some(t)) = (
                m.in_tuple_name().and_then(|n| index(&n)),
                m.out_tuple_name().and_then(|n| index(&n)),
            ) {
                out.push((s, t, m));
            }
        }
    }
    out
}
