//! `Domain` and `Relation`: the thesis' pollyDomain and pollyMap (§5.6), over isl.
//!
//! A [`Domain`] is a statement's execution domain (a union of Z-polyhedra over named
//! dimensions and parameters); a [`Relation`] is an affine relation: an access function, a schedule,
//! a dependence. Both hand out their constraints as [`ConstraintMatrix`] rows, and offer the
//! operations the compiler's passes need by name (convex hull, lexmin, Fourier–Motzkin,
//! instantiating parameters).

use std::fmt;

use super::fm;
use super::isl::{self, Ctx, DimType};
use super::matrix::ConstraintMatrix;

/// A union of integer polyhedra over one named space.
#[derive(Clone)]
pub struct Domain<'c> {
    set: isl::Set<'c>,
}

/// A relation between two named spaces.
#[derive(Clone)]
pub struct Relation<'c> {
    map: isl::Map<'c>,
}

impl<'c> Domain<'c> {
    pub fn new(set: isl::Set<'c>) -> Domain<'c> {
        Domain { set }
    }

    /// Parse isl notation (`[n] -> { S[i] : 0 <= i < n }`).
    pub fn parse(ctx: &'c Ctx, text: &str) -> Result<Domain<'c>, isl::IslError> {
        isl::Set::parse(ctx, text).map(Domain::new)
    }

    /// The set, borrowed (within rosepolly; other crates take a copy through [`Domain::set`]).
    pub(crate) fn isl(&self) -> &isl::Set<'c> {
        &self.set
    }

    /// The set in isl's algebra ([`isl::Set`]), a copy.
    pub fn set(&self) -> isl::Set<'c> {
        self.set.clone()
    }

    pub fn into_isl(self) -> isl::Set<'c> {
        self.set
    }

    /// The name of the set's tuple (a statement's name, an array's).
    pub fn tuple_name(&self) -> Option<String> {
        self.set.tuple_name()
    }

    /// `m` with its domain restricted to this set.
    pub fn restrict(&self, m: isl::Map<'c>) -> isl::Map<'c> {
        m.intersect_domain(self.set.clone())
    }

    pub fn dims(&self) -> usize {
        self.set.dim(DimType::Set)
    }

    pub fn dim_names(&self) -> Vec<String> {
        (0..self.dims())
            .map(|i| {
                self.set
                    .dim_name(DimType::Set, i)
                    .unwrap_or_else(|| format!("d{i}"))
            })
            .collect()
    }

    pub fn param_names(&self) -> Vec<String> {
        (0..self.set.dim(DimType::Param))
            .map(|i| self.set.dim_name(DimType::Param, i).unwrap_or_default())
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.set.is_empty()
    }

    /// One constraint matrix per convex piece, columns `params, dims, locals`.
    pub fn constraints(&self) -> Vec<ConstraintMatrix> {
        self.try_constraints()
            .expect("constraint coefficients fit in i64")
    }

    /// [`Domain::constraints`], or `None` when a coefficient does not fit in an `i64` (the
    /// user's constants can be that large).
    pub fn try_constraints(&self) -> Option<Vec<ConstraintMatrix>> {
        let params = self.param_names();
        let dims = self.dim_names();
        self.set
            .basic_sets()
            .into_iter()
            .map(|b| {
                let ndiv = b.dim(DimType::Div);
                let mut columns: Vec<String> = params.iter().chain(&dims).cloned().collect();
                columns.extend((0..ndiv).map(|i| format!("e{i}")));
                let (eq, ineq) = b.try_constraint_rows()?;
                Some(ConstraintMatrix {
                    columns,
                    equalities: eq,
                    inequalities: ineq,
                })
            })
            .collect()
    }

    /// The smallest convex polyhedron containing the domain (thesis §6.2.1, step 6).
    pub fn convex_hull(&self) -> Domain<'c> {
        Domain::new(self.set.clone().convex_hull().to_set())
    }

    pub fn union(&self, other: &Domain<'c>) -> Domain<'c> {
        Domain::new(self.set.clone().union(other.set.clone()).coalesce())
    }

    pub fn intersect(&self, other: &Domain<'c>) -> Domain<'c> {
        Domain::new(self.set.clone().intersect(other.set.clone()))
    }

    /// The lexicographic minimum (an ILP solved exactly by isl).
    pub fn lexmin(&self) -> Domain<'c> {
        Domain::new(self.set.clone().lexmin())
    }

    /// Eliminate dimensions by isl's exact integer projection.
    pub fn project_out(&self, first: usize, n: usize) -> Domain<'c> {
        Domain::new(self.set.clone().project_out(DimType::Set, first, n))
    }

    /// Eliminate named columns from every convex piece by Fourier–Motzkin (a rational
    /// projection; see [`fm`]).
    pub fn fourier_motzkin(&self, names: &[&str]) -> Vec<ConstraintMatrix> {
        self.constraints()
            .iter()
            .map(|m| fm::eliminate_all(m, names))
            .collect()
    }

    /// Give parameters concrete values (by name); unknown names are ignored.
    pub fn instantiate(&self, values: &[(String, i64)]) -> Domain<'c> {
        Domain::new(fix_params(self.set.clone(), values))
    }

    /// Every point of a bounded domain without free parameters, in lexicographic order.
    pub fn points(&self) -> Vec<Vec<i64>> {
        self.set.points()
    }
}

/// Fix the named parameters of a set to values.
pub fn fix_params<'c>(mut set: isl::Set<'c>, values: &[(String, i64)]) -> isl::Set<'c> {
    for (name, v) in values {
        if let Some(pos) = set.find_dim_by_name(DimType::Param, name) {
            set = set.fix(DimType::Param, pos, *v);
        }
    }
    set
}

impl<'c> Relation<'c> {
    pub fn new(map: isl::Map<'c>) -> Relation<'c> {
        Relation { map }
    }

    pub fn parse(ctx: &'c Ctx, text: &str) -> Result<Relation<'c>, isl::IslError> {
        isl::Map::parse(ctx, text).map(Relation::new)
    }

    /// The relation, borrowed (within rosepolly; other crates take a copy through
    /// [`Relation::map`]).
    pub(crate) fn isl(&self) -> &isl::Map<'c> {
        &self.map
    }

    /// The relation in isl's algebra ([`isl::Map`]), a copy.
    pub fn map(&self) -> isl::Map<'c> {
        self.map.clone()
    }

    pub fn into_isl(self) -> isl::Map<'c> {
        self.map
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    pub fn n_in(&self) -> usize {
        self.map.dim(DimType::In)
    }

    pub fn n_out(&self) -> usize {
        self.map.dim(DimType::Out)
    }

    /// The relation as a set of pairs `[in -> out]`.
    pub fn wrapped(&self) -> Domain<'c> {
        Domain::new(self.map.clone().wrap_set())
    }

    /// The convex pieces of the relation (each a dependence polyhedron, for dependences).
    pub fn pieces(&self) -> Vec<Relation<'c>> {
        self.map
            .basic_maps()
            .into_iter()
            .map(|b| Relation::new(b.to_map()))
            .collect()
    }

    pub fn domain(&self) -> Domain<'c> {
        Domain::new(self.map.clone().domain())
    }

    pub fn range(&self) -> Domain<'c> {
        Domain::new(self.map.clone().range())
    }

    /// The image of a domain.
    pub fn apply(&self, d: &Domain<'c>) -> Domain<'c> {
        Domain::new(d.isl().clone().apply(self.map.clone()))
    }

    /// Give parameters concrete values (by name).
    pub fn instantiate(&self, values: &[(String, i64)]) -> Relation<'c> {
        let mut map = self.map.clone();
        for (name, v) in values {
            let n = map.dim(DimType::Param);
            if let Some(pos) =
                (0..n).find(|&i| map.dim_name(DimType::Param, i).as_deref() == Some(name))
            {
                map = map.fix(DimType::Param, pos, *v);
            }
        }
        Relation::new(map)
    }

    /// Every pair `(in, out)` of a bounded, parameter-free relation.
    pub fn pairs(&self) -> Vec<(Vec<i64>, Vec<i64>)> {
        let n_in = self.n_in();
        self.map
            .clone()
            .wrap_set()
            .points()
            .into_iter()
            .map(|mut p| {
                let out = p.split_off(n_in);
                (p, out)
            })
            .collect()
    }
}

impl fmt::Display for Domain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.set, f)
    }
}

impl fmt::Debug for Domain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.set, f)
    }
}

impl fmt::Display for Relation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.map, f)
    }
}

impl fmt::Debug for Relation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.map, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_hull_and_points() {
        let ctx = Ctx::new();
        let d = Domain::parse(&ctx, "[n] -> { S[i, j] : 0 <= i < n and 0 <= j <= i }").unwrap();
        assert_eq!(d.dim_names(), vec!["i", "j"]);
        assert_eq!(d.param_names(), vec!["n"]);
        let m = &d.constraints()[0];
        assert_eq!(m.columns, vec!["n", "i", "j"]);
        assert!(m.contains(&[3, 2, 1]) && !m.contains(&[3, 1, 2]));
        let p = d.instantiate(&[("n".into(), 3)]);
        assert_eq!(p.points().len(), 6);
        // Fourier–Motzkin and isl agree on this projection.
        let fm = &d.fourier_motzkin(&["j"])[0];
        assert!(fm.contains(&[3, 2]) && !fm.contains(&[3, 3]));
        let u = Domain::parse(&ctx, "{ S[i] : i = 0 or i = 4 }").unwrap();
        assert_eq!(u.convex_hull().points().len(), 5);
    }

    #[test]
    fn relation_pairs() {
        let ctx = Ctx::new();
        let m = Relation::parse(&ctx, "[n] -> { S[i] -> T[i + 1] : 0 <= i < n }").unwrap();
        assert_eq!(
            m.instantiate(&[("n".into(), 2)]).pairs(),
            vec![(vec![0], vec![1]), (vec![1], vec![2])]
        );
    }
}
