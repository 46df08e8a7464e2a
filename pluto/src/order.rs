//! Dependence-direction ordering (thesis §4.2, Algorithms 2 and 3).
//!
//! When several hyperplanes have the same communication cost, the lexicographic minimum picks
//! among them by the order of the unknowns. Algorithm 2 records, per dependence, along which
//! loop dimensions it extends (its direction bit-vector `V_e`) and whether it extends along one
//! dimension only (*horizontal*, `H_e`). Algorithm 3 ORs the vectors of the horizontal
//! dependences into each sink statement and moves the coefficients of the dimensions no
//! horizontal dependence extends along to the leading minimisation positions: those
//! coefficients are then made zero first, so the dimensions that carry horizontal dependences
//! come out as outer (sequential) hyperplanes and the others stay fully parallel inside,
//! instead of ending up in a wavefront.
//!
//! The baseline order, before Algorithm 3, lists each statement's iterators innermost first,
//! as Pluto's implementation does: minimising inner coefficients first keeps the original loop
//! order among hyperplanes of equal cost.

use rosepolly::math::isl::Map;

use crate::schedule::Row;
use rosepolly::model::{AccessKind, DepKind, Dependence, Scop};

/// Split a dependence into its edges as Pluto's dependence tester reports them, one per pair
/// of accesses (source access, sink access) of the datum: the instance pairs that touch the
/// same element through those two accesses. Directions are a property of these edges: a
/// coalesced relation can join a horizontal and a diagonal dependence (Figure 4.1's
/// `A[i][j-1]` and `A[i-1][j-1]`), whose union extends along both dimensions.
pub fn edges<'c>(scop: &Scop<'c>, dep: &Dependence<'c>) -> Vec<Map<'c>> {
    let (src_kind, sink_kind) = match dep.kind {
        DepKind::Flow => (AccessKind::Write, AccessKind::Read),
        DepKind::Anti => (AccessKind::Read, AccessKind::Write),
        DepKind::Output => (AccessKind::Write, AccessKind::Write),
    };
    let of = |s: usize, kind: AccessKind| {
        scop.statements[s]
            .accesses
            .iter()
            .filter(move |a| a.datum == dep.datum && a.kind == kind)
    };
    let mut out = Vec::new();
    for a in of(dep.source, src_kind) {
        for b in of(dep.sink, sink_kind) {
            let same_cell = a.relation.map().apply_range(b.relation.map().reverse());
            let edge = dep.relation.map().intersect(same_cell);
            if !edge.is_empty() {
                out.push(edge);
            }
        }
    }
    out
}

/// Algorithm 2's output for one dependence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Direction {
    /// `V_e[i]`: the dependence extends along common dimension `i`.
    pub extends: Vec<bool>,
    /// `H_e`: it extends along at most one dimension.
    pub horizontal: bool,
}

/// Algorithm 2: along which common loop dimensions a dependence relation extends, i.e. has a
/// non-zero distance for some pair of instances.
pub fn direction(scop: &Scop, relation: &Map, src: usize, sink: usize) -> Direction {
    let (ds, dt) = (scop.statements[src].depth(), scop.statements[sink].depth());
    let common = ds.min(dt);
    let extends: Vec<bool> = (0..common)
        .map(|i| {
            let unit = |depth: usize| Row {
                coeffs: (0..depth).map(|k| i64::from(k == i)).collect(),
                constant: 0,
            };
            crate::deltas::carries(relation, &unit(ds), &unit(dt))
        })
        .collect();
    let count = extends.iter().filter(|e| **e).count();
    Direction {
        extends,
        horizontal: count <= 1,
    }
}

/// Algorithm 3: the minimisation order of each statement's iterator coefficients.
///
/// `directions` are `(source, sink, Direction)` for every dependence. With `enabled == false`
/// the baseline order is returned.
pub fn coefficient_order(
    depths: &[usize],
    directions: &[(usize, usize, Direction)],
    enabled: bool,
) -> Vec<Vec<usize>> {
    depths
        .iter()
        .enumerate()
        .map(|(s, &d)| {
            let baseline: Vec<usize> = (0..d).rev().collect();
            if !enabled {
                return baseline;
            }
            let mut v = vec![false; d];
            for (_, sink, dir) in directions
                .iter()
                .filter(|(_, t, dir)| *t == s && dir.horizontal)
            {
                debug_assert_eq!(*sink, s);
                for (i, e) in dir.extends.iter().enumerate() {
                    v[i] |= *e;
                }
            }
            let (lead, rest): (Vec<usize>, Vec<usize>) = baseline.into_iter().partition(|&k| !v[k]);
            lead.into_iter().chain(rest).collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_3_moves_untouched_dimensions_first() {
        // Figure 4.1's situation (mirrored): e1 = (1, 1) is diagonal, e2 = (0, 1) horizontal
        // along j. V_S = [0, 1], so i's coefficient leads.
        let e1 = Direction {
            extends: vec![true, true],
            horizontal: false,
        };
        let e2 = Direction {
            extends: vec![false, true],
            horizontal: true,
        };
        let dirs = vec![(0, 0, e1), (0, 0, e2)];
        assert_eq!(coefficient_order(&[2], &dirs, true), vec![vec![0, 1]]);
        assert_eq!(coefficient_order(&[2], &dirs, false), vec![vec![1, 0]]);
    }
}
