//! Footprint sets (thesis Fig. 6.11): per array, the elements a SCoP reads before writing them
//! (*live-in*, from isl's dataflow analysis: reads no earlier write reaches) and the elements it
//! writes, and the boxes that bound them (per dimension, the convex hull of the set's
//! projection). codegen prints the boxes' bounds and the transfers.

use crate::analysis::deps;
use crate::math::isl::{BasicSet, Ctx, DimType, Set};
use crate::model::{AccessKind, Scop};

/// The two sets of one array.
pub struct FootprintSets<'c> {
    /// The elements read before any write; `None` when the SCoP reads none.
    pub live_in: Option<Set<'c>>,
    /// The written elements; `None` when the SCoP writes none.
    pub written: Option<Set<'c>>,
}

impl FootprintSets<'_> {
    /// The written set equals its box ([`dim_hull`] per dimension), for every parameter value.
    pub fn written_is_box(&self) -> bool {
        self.written.as_ref().is_some_and(is_box)
    }
}

/// The footprint sets of array `name` in `scop`.
pub fn sets<'c>(ctx: &'c Ctx, scop: &Scop<'c>, name: &str) -> FootprintSets<'c> {
    let written = scop
        .statements
        .iter()
        .flat_map(|s| s.accesses.iter())
        .filter(|a| a.datum == name && a.kind == AccessKind::Write)
        .map(|a| a.relation.isl().clone().range())
        .reduce(|a, b| a.union(b))
        .map(|s| s.coalesce())
        .filter(|s| !s.is_empty());
    FootprintSets {
        live_in: deps::live_in(ctx, scop, name),
        written,
    }
}

/// The convex hull of `set`'s projection on dimension `k` (a one-dimensional set).
pub fn dim_hull<'c>(set: &Set<'c>, k: usize) -> BasicSet<'c> {
    let d = set.dim(DimType::Set);
    set.clone()
        .project_out(DimType::Set, k + 1, d - k - 1)
        .project_out(DimType::Set, 0, k)
        .remove_divs()
        .convex_hull()
}

/// The bounds of dimension `k` of `set` that its [`dim_hull`] gives, in the parameters (in the
/// set's order): each `(coeffs, constant, divisor)` stands for `(coeffs·params + constant) /
/// divisor`, with `divisor > 0`, rounded up for a lower bound and down for an upper one.
/// Constraints on the parameters alone come as `(coeffs, constant)`: `coeffs·params + constant
/// >= 0`.
pub struct HullBounds {
    pub lower: Vec<(Vec<i64>, i64, i64)>,
    pub upper: Vec<(Vec<i64>, i64, i64)>,
    pub params_only: Vec<(Vec<i64>, i64)>,
}

/// [`HullBounds`] of dimension `k` of `set`.
pub fn hull_bounds(set: &Set, k: usize) -> HullBounds {
    let np = set.dim(DimType::Param);
    let (eqs, ineqs) = dim_hull(set, k).constraint_rows();
    let rows = eqs
        .iter()
        .flat_map(|r| [r.clone(), r.iter().map(|x| -x).collect()])
        .chain(ineqs);
    let mut b = HullBounds {
        lower: Vec::new(),
        upper: Vec::new(),
        params_only: Vec::new(),
    };
    for r in rows {
        // a·x + coeffs·params + c >= 0.
        let (a, coeffs, c) = (r[np], &r[..np], r[r.len() - 1]);
        if a > 0 {
            b.lower.push((coeffs.iter().map(|x| -x).collect(), -c, a));
        } else if a < 0 {
            b.upper.push((coeffs.to_vec(), c, -a));
        } else {
            b.params_only.push((coeffs.to_vec(), c));
        }
    }
    b
}

/// Whether `set` holds every point of the box its [`dim_hull`]s describe.
pub fn is_box(set: &Set) -> bool {
    let d = set.dim(DimType::Set);
    let name = set.tuple_name().unwrap_or_default();
    let bx = (0..d)
        .map(|k| {
            dim_hull(set, k)
                .to_set()
                .insert_dims(DimType::Set, 0, k)
                .add_dims(DimType::Set, d - k - 1)
                .set_tuple_name(&name)
        })
        .reduce(|a, b| a.intersect(b));
    bx.is_some_and(|b| b.is_subset(set))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strided_writes_are_not_a_box() {
        let ctx = Ctx::new();
        let even = Set::parse(&ctx, "[n] -> { A[i] : 0 <= i < n and i mod 2 = 0 }").unwrap();
        assert!(!is_box(&even));
        let tri = Set::parse(&ctx, "[n] -> { A[i, j] : 0 <= j <= i < n }").unwrap();
        assert!(!is_box(&tri));
        let rect = Set::parse(&ctx, "[n, m] -> { A[i, j] : 1 <= i < n and 0 <= j < m }").unwrap();
        assert!(is_box(&rect));
    }
}
