//! Lane groups for sums split across tiles ([`crate::lanes`]; issue 17, item 1): where a
//! work-item runs a row of a tile alone along a summed dimension that its accesses read with
//! unit stride (atax's `tmp[i] += A[i][j] * x[j]`, work-items along `i`), [`WIDTH`] lanes of
//! each entry share that loop instead, so that neighbouring work-items read neighbouring
//! elements.
//!
//! Only where it is exact up to the order of the additions that the split already changes:
//! - the group's sums split across tiles ([`Split`]), so the summed band dimension carries no
//!   dependence but the reductions' own, which the lanes' partial results relax as the
//!   work-items' do; and the work-items share out the other dimensions independently (a
//!   rectangular layout with no barrier between points);
//! - the summed dimension reads the arrays of several dimensions with a better stride than
//!   every mapped one ([`ptile::intra::stride_score_of`]): where a mapped dimension is the
//!   unit-stride one (gemver's `x[i] += beta * A[j][i] * y[j]`), neighbours read neighbours
//!   already, and mvt's two sums, fused, read `A` along and across its rows: a tie, kept;
//! - every statement instance of the points runs inside a loop over that dimension of step 1,
//!   with no other loop over it inside, so each instance belongs to exactly one lane; and
//!   the points stand at the top of the tile's code, outside any conditional or loop, so
//!   that every work-item reaches the lanes' barriers.

use rosepolly::model::expr::{BinaryOp, Expr};

use ptile::TileGroup;

use super::reductions::Split;
use super::{Lowering, OutDim};
use crate::ir::{KLoop, KNode, ThreadLayout};
use crate::lanes::WIDTH;

impl Lowering<'_, '_> {
    /// `body` and its full-tile version with their points shared by lane groups, and the
    /// lanes' width; unchanged, and 0, where the group does not qualify.
    pub(super) fn lanes(
        &self,
        group: &TileGroup,
        threads: Option<&(ThreadLayout, bool)>,
        split: Option<&Split>,
        body: KNode,
        full: Option<KNode>,
    ) -> (KNode, Option<KNode>, usize) {
        let Some(var) = self.lane_dim(group, threads, split) else {
            return (body, full, 0);
        };
        let lanes_full = match &full {
            Some(f) => share(f.clone(), &var).map(Some),
            None => Some(None),
        };
        match (share(body.clone(), &var), lanes_full) {
            (Some(b), Some(f)) => (b, f, WIDTH),
            _ => (body, full, 0),
        }
    }

    /// The iterator of the summed band dimension that lanes should share, if any.
    fn lane_dim(
        &self,
        group: &TileGroup,
        threads: Option<&(ThreadLayout, bool)>,
        split: Option<&Split>,
    ) -> Option<String> {
        let split = split.filter(|_| self.lanes)?;
        let Some((ThreadLayout::Rectangular { dims }, false)) = threads else {
            return None;
        };
        let start = self.start();
        // Only the arrays of several dimensions count: the accumulators stay in registers,
        // and a vector's element is either each lane's own (along the lanes) or one all the
        // row's work-items read at once (along the rows), a single transaction either way.
        let score = |k: usize| {
            let counts = |a: &rosepolly::model::AccessPattern| {
                a.subscripts.len() > 1 && !split.accumulates(&a.datum)
            };
            ptile::intra::stride_score_of(
                self.scop,
                self.schedule,
                &group.statements,
                start + k,
                &counts,
            )
        };
        let mapped = dims.iter().map(|&k| score(k)).max()?;
        // Band dimensions past the split's parallel ones may carry other dependences.
        let (k, best) = (0..split.dims)
            .filter(|k| !dims.contains(k))
            .map(|k| (k, score(k)))
            .max_by_key(|&(k, s)| (s, std::cmp::Reverse(k)))?;
        (best > mapped).then(|| self.iterator(OutDim::Sched(start + k)))
    }
}

/// `code` with every top-level [`KNode::Points`] shared by lanes along `var`'s loops; `None`
/// where some points do not qualify (see the module's conditions) or none do.
fn share(code: KNode, var: &str) -> Option<KNode> {
    let items = match code {
        KNode::Block(v) => v,
        other => vec![other],
    };
    let mut shared = 0;
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        match item {
            KNode::Points {
                wave,
                vars,
                origins,
                privates,
                lanes: 0,
                body,
            } => {
                if !all_inside(&body, var, false) {
                    return None;
                }
                shared += 1;
                out.push(KNode::Points {
                    wave,
                    vars,
                    origins,
                    privates,
                    lanes: WIDTH,
                    body: Box::new(stride(*body, var)),
                });
            }
            // Points elsewhere would put the lanes' barriers under a condition or a loop.
            other if other.any(&|n| matches!(n, KNode::Points { .. })) => return None,
            other => out.push(other),
        }
    }
    (shared > 0).then_some(KNode::Block(out))
}

/// Does every statement instance of `n` run inside exactly one loop over `var` of step 1?
/// `inside`: a loop over `var` encloses `n`.
fn all_inside(n: &KNode, var: &str, inside: bool) -> bool {
    match n {
        KNode::For(l) if l.var == var => !inside && l.step == 1 && all_inside(&l.body, var, true),
        KNode::Stmt { .. } | KNode::Reduce { .. } => inside,
        KNode::Points { .. }
        | KNode::Single(_)
        | KNode::Barrier
        | KNode::Registers(_)
        | KNode::Jam(_) => false,
        other => other.children().iter().all(|c| all_inside(c, var, inside)),
    }
}

/// `n` with its loops over `var` run by lanes: from the lane's offset, [`WIDTH`] apart.
fn stride(n: KNode, var: &str) -> KNode {
    match n {
        KNode::For(l) if l.var == var => KNode::For(KLoop {
            init: Expr::binary(BinaryOp::Add, l.init, Expr::var("polyc_lane")),
            step: WIDTH as i64,
            ..l
        }),
        other => other.map_children(&mut |c| stride(c, var)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(var: &str, body: KNode) -> KNode {
        KNode::For(KLoop {
            var: var.into(),
            init: Expr::var("polyc_o1"),
            cond: Expr::binary(BinaryOp::Lt, Expr::var(var), Expr::var("n")),
            step: 1,
            body: Box::new(body),
            parallel: false,
        })
    }

    fn points(body: KNode) -> KNode {
        KNode::Points {
            wave: Expr::int(0),
            vars: vec!["c1".into()],
            origins: vec!["polyc_b0".into()],
            privates: Vec::new(),
            lanes: 0,
            body: Box::new(body),
        }
    }

    fn stmt() -> KNode {
        KNode::Stmt {
            stmt: 0,
            args: Vec::new(),
        }
    }

    #[test]
    fn lanes_stride_the_summed_loop_from_their_offset() {
        let shared = share(points(row("c2", stmt())), "c2").expect("qualifies");
        let KNode::Block(items) = shared else {
            panic!("a block")
        };
        let KNode::Points { lanes, body, .. } = &items[0] else {
            panic!("points")
        };
        assert_eq!(*lanes, WIDTH);
        let KNode::For(l) = body.as_ref() else {
            panic!("the summed loop")
        };
        assert_eq!(l.step, 32);
        assert_eq!(l.init.to_string(), "polyc_o1 + polyc_lane");
    }

    #[test]
    fn instances_outside_the_summed_loop_or_points_under_a_condition_keep_one_work_item_a_row() {
        // An instance outside the loop would run once per lane.
        let before = KNode::Block(vec![stmt(), row("c2", stmt())]);
        assert!(share(points(before), "c2").is_none());
        // A loop over the dimension inside another: its instances would not split evenly.
        assert!(share(points(row("c2", row("c2", stmt()))), "c2").is_none());
        // Points under a guard: the lanes' barriers would be conditional.
        let guarded = KNode::If {
            cond: Expr::var("g"),
            then: Box::new(points(row("c2", stmt()))),
            other: None,
        };
        assert!(share(guarded, "c2").is_none());
        // No points at all.
        assert!(share(row("c2", stmt()), "c2").is_none());
    }
}
