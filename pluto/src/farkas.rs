//! Legality and communication-bounding constraints through Farkas' lemma (thesis §4.1,
//! eqs. 4.1–4.7).
//!
//! isl computes, for a dependence polyhedron `P`, the set of coefficients `(c0, c_n, c_x, c_y)`
//! of every affine form non-negative on `P` (`isl_basic_set_coefficients`, the Farkas dual with
//! the multipliers already eliminated). The legality form `φ_T(y) − φ_S(x)` and the bounding
//! form `u·n + w − (φ_T(y) − φ_S(x))` are linear in the unknown schedule coefficients, so each
//! row of that set becomes one constraint on the unknowns by substitution.

use rosepolly::math::isl::{Ctx, Map};
use rosepolly::math::ConstraintMatrix;

use crate::ilp::{add_substituted, Layout, LinComb};

/// The Farkas rows of a convex dependence piece, over `(c0, c_params, c_src, c_sink, 1)`.
pub struct FarkasRows {
    pub eq: Vec<Vec<i64>>,
    pub ineq: Vec<Vec<i64>>,
}

/// Why [`bounded_farkas_rows`] has no rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FarkasFailure {
    /// A coefficient does not fit in an `i64`.
    Overflow,
    /// isl's Farkas computation ran over the analysis budget
    /// ([`rosepolly::analysis::deps::STEP_BUDGET`], [`rosepolly::analysis::deps::STEP_TIME`]):
    /// some pieces of random programs with wrap-around took minutes.
    OverBudget,
}

/// The coefficient set of a convex dependence piece (Farkas' lemma). Existentially quantified
/// variables are dropped first (an over-approximation of the piece, so the constraints stay
/// sound). isl's part is bounded like each step of the dependence analysis.
pub fn bounded_farkas_rows(ctx: &Ctx, piece: &Map) -> Result<FarkasRows, FarkasFailure> {
    use rosepolly::analysis::deps::{STEP_BUDGET, STEP_TIME};
    let wrapped = piece.clone().wrap_set().remove_divs();
    let coefficients = ctx
        .bounded(STEP_BUDGET, STEP_TIME, || wrapped.try_coefficients())
        .ok_or(FarkasFailure::OverBudget)?
        .unwrap_or_else(|e| panic!("internal error in polyc's use of isl: {e}"));
    let (eq, ineq) = coefficients
        .try_constraint_rows()
        .ok_or(FarkasFailure::Overflow)?;
    Ok(FarkasRows { eq, ineq })
}

/// The unknowns a dependence from `src` to `sink` involves: `sigma` gives each statement's
/// loop directions (the coefficient of iterator `k` is `sigma[k]·a_k`).
pub struct DepForm<'a> {
    pub layout: &'a Layout,
    pub src: usize,
    pub sink: usize,
    pub sigma_src: &'a [i64],
    pub sigma_sink: &'a [i64],
}

impl DepForm<'_> {
    /// `φ_sink(y) − φ_src(x)`, coefficient by coefficient: `(c0, c_params, c_x, c_y)`.
    fn legality(&self) -> Vec<LinComb> {
        let l = self.layout;
        let mut form: Vec<LinComb> = Vec::new();
        // c0
        form.push(if self.src == self.sink {
            Vec::new()
        } else {
            vec![(l.constant[self.sink], 1), (l.constant[self.src], -1)]
        });
        form.extend((0..l.n_params).map(|_| Vec::new()));
        form.extend(
            self.sigma_src
                .iter()
                .enumerate()
                .map(|(k, s)| vec![(l.coeff[self.src][k], -s)]),
        );
        form.extend(
            self.sigma_sink
                .iter()
                .enumerate()
                .map(|(k, s)| vec![(l.coeff[self.sink][k], *s)]),
        );
        form
    }

    /// `u·n + w − (φ_sink(y) − φ_src(x))`.
    fn bounding(&self) -> Vec<LinComb> {
        let l = self.layout;
        let mut form = self.legality();
        for terms in form.iter_mut() {
            for t in terms.iter_mut() {
                t.1 = -t.1;
            }
        }
        form[0].push((l.w, 1));
        for p in 0..l.n_params {
            form[1 + p].push((l.u[p], 1));
        }
        form
    }

    /// Add the legality (permutability) constraints of a piece.
    pub fn add_legality(&self, sys: &mut ConstraintMatrix, rows: &FarkasRows) {
        let form = self.legality();
        add_substituted(sys, &rows.eq, &form, true);
        add_substituted(sys, &rows.ineq, &form, false);
    }

    /// Add the communication-bounding constraints of a piece.
    pub fn add_bounding(&self, sys: &mut ConstraintMatrix, rows: &FarkasRows) {
        let form = self.bounding();
        add_substituted(sys, &rows.eq, &form, true);
        add_substituted(sys, &rows.ineq, &form, false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ilp::{lexmin, Solver};

    /// A single loop `A[i] = A[i-1]`: the flow dependence S[i] -> S[i+1]. Legality allows
    /// a_i >= 0; bounding forces w >= a_i.
    #[test]
    fn uniform_dependence() {
        let ctx = Ctx::new();
        let dep = Map::parse(&ctx, "[n] -> { S[i] -> S[i + 1] : 0 <= i < n - 1 }").unwrap();
        let layout = Layout::new(
            &["n".into()],
            &["S".into()],
            &[vec!["i".into()]],
            &[vec![0]],
        );
        let rows = bounded_farkas_rows(&ctx, &dep).unwrap();
        let form = DepForm {
            layout: &layout,
            src: 0,
            sink: 0,
            sigma_src: &[1],
            sigma_sink: &[1],
        };
        let mut sys = layout.system();
        form.add_legality(&mut sys, &rows);
        form.add_bounding(&mut sys, &rows);
        // Non-trivial: a_i >= 1. Columns: u_n, w, S.i, S.c.
        sys.add_inequality(vec![0, 0, 1, 0, -1]);
        assert_eq!(lexmin(&ctx, &sys, Solver::Isl), Ok(Some(vec![0, 1, 1, 0])));
    }
}
