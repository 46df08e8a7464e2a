//! The scheduling ILP: its unknowns, its constraint rows, and its lexicographic minimum.
//!
//! Unknowns (thesis eq. 4.8), in minimisation order: the communication bound's parameter
//! coefficients `u` and constant `w`, then for each statement its iterator coefficients (in the
//! order of [`crate::order`]) and its constant. All are non-negative; iterator coefficients are
//! taken in each loop's own direction (a loop counting down contributes `-i`), so that the
//! non-negativity Pluto imposes never forbids the original order.
//!
//! The lexicographic minimum is computed by a sequence of integer programs through good_lp
//! (default; `docs/decisions.md` records the measurement that chose it) or by isl's exact
//! parametric integer programming. good_lp's solver works in floating point, so its answer is
//! checked exactly against every constraint, and isl decides whenever that check fails or
//! good_lp finds no solution: a schedule's legality never rests on floating point.

use good_lp::{variable, Expression, ProblemVariables, SolverModel};
use rosepolly::analysis::deps::{STEP_BUDGET, STEP_TIME};
use rosepolly::math::isl::{BasicSet, Ctx, IslError};
use rosepolly::math::ConstraintMatrix;

/// Which solver computes the lexicographic minimum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Solver {
    /// isl's exact parametric integer programming (`isl_set_lexmin`).
    Isl,
    /// One integer program per unknown through good_lp (microlp), fixing each minimum in turn;
    /// checked exactly, with isl as the fallback.
    #[default]
    GoodLp,
}

/// Where each unknown lives.
#[derive(Debug, Clone)]
pub struct Layout {
    pub n_params: usize,
    /// Column of `u_p`.
    pub u: Vec<usize>,
    /// Column of `w`.
    pub w: usize,
    /// `coeff[s][k]`: column of statement `s`'s coefficient of iterator `k`.
    pub coeff: Vec<Vec<usize>>,
    /// `constant[s]`: column of statement `s`'s constant.
    pub constant: Vec<usize>,
    pub names: Vec<String>,
}

impl Layout {
    /// `order[s]` lists statement `s`'s iterators in minimisation order.
    pub fn new(
        params: &[String],
        stmt_names: &[String],
        iterators: &[Vec<String>],
        order: &[Vec<usize>],
    ) -> Layout {
        let mut names: Vec<String> = params.iter().map(|p| format!("u_{p}")).collect();
        let u = (0..params.len()).collect();
        let w = names.len();
        names.push("w".into());
        let mut coeff = Vec::new();
        let mut constant = Vec::new();
        for (s, ord) in order.iter().enumerate() {
            let mut cols = vec![0; ord.len()];
            for &k in ord {
                cols[k] = names.len();
                names.push(format!("{}.{}", stmt_names[s], iterators[s][k]));
            }
            coeff.push(cols);
            constant.push(names.len());
            names.push(format!("{}.c", stmt_names[s]));
        }
        Layout {
            n_params: params.len(),
            u,
            w,
            coeff,
            constant,
            names,
        }
    }

    pub fn n_cols(&self) -> usize {
        self.names.len()
    }

    /// An empty constraint system over these unknowns.
    pub fn system(&self) -> ConstraintMatrix {
        ConstraintMatrix::new(self.names.clone())
    }
}

/// A linear combination of unknowns: `(column, coefficient)` pairs.
pub type LinComb = Vec<(usize, i64)>;

/// Add `Σ row[i]·form[i] + row[last] (>= 0 | = 0)` for every row of a Farkas coefficient set,
/// where `form[i]` says how coefficient `i` of the affine form depends on the unknowns.
pub fn add_substituted(
    sys: &mut ConstraintMatrix,
    rows: &[Vec<i64>],
    form: &[LinComb],
    equality: bool,
) {
    for r in rows {
        let mut out = vec![0i64; sys.n_vars() + 1];
        for (i, terms) in form.iter().enumerate() {
            for &(col, c) in terms {
                out[col] += r[i] * c;
            }
        }
        out[sys.n_vars()] = r[form.len()];
        if equality {
            sys.add_equality(out);
        } else {
            sys.add_inequality(out);
        }
    }
}

/// isl could not decide a scheduling ILP: the exact solver ran over the budget of one analysis
/// step (the systems of programs with many statements or deep nests can take it exponentially
/// long), or failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IlpFailure {
    #[error(
        "the scheduling ILP ran over its budget ({} isl operations or {} s)",
        STEP_BUDGET,
        STEP_TIME.as_secs()
    )]
    OverBudget,
    #[error("isl failed on the scheduling ILP: {0}")]
    Isl(IslError),
}

/// The lexicographic minimum of a system whose unknowns are all non-negative integers (`None`
/// when it has no solution).
pub fn lexmin(
    ctx: &Ctx,
    sys: &ConstraintMatrix,
    solver: Solver,
) -> Result<Option<Vec<i64>>, IlpFailure> {
    match solver {
        Solver::Isl => lexmin_isl(ctx, sys, STEP_BUDGET),
        Solver::GoodLp => match lexmin_good_lp(sys) {
            Some(x) if satisfies(sys, &x) => Ok(Some(x)),
            _ => lexmin_isl(ctx, sys, STEP_BUDGET),
        },
    }
}

/// Does the non-negative integer point `x` satisfy every row of `sys`, in exact arithmetic?
fn satisfies(sys: &ConstraintMatrix, x: &[i64]) -> bool {
    let n = sys.n_vars();
    let value = |r: &Vec<i64>| -> i128 {
        r[..n]
            .iter()
            .zip(x)
            .map(|(c, v)| *c as i128 * *v as i128)
            .sum::<i128>()
            + r[n] as i128
    };
    x.len() == n
        && x.iter().all(|v| *v >= 0)
        && sys.inequalities.iter().all(|r| value(r) >= 0)
        && sys.equalities.iter().all(|r| value(r) == 0)
}

/// Is there a non-negative integer solution?
pub fn feasible(ctx: &Ctx, sys: &ConstraintMatrix) -> Result<bool, IlpFailure> {
    let set = to_isl(ctx, sys);
    bounded(ctx, STEP_BUDGET, || set.try_is_empty()).map(|empty| !empty)
}

/// `f`, one exact isl computation, under `ops` isl operations and the analysis' time per step.
fn bounded<T>(
    ctx: &Ctx,
    ops: u64,
    f: impl FnOnce() -> Result<T, IslError>,
) -> Result<T, IlpFailure> {
    match ctx.bounded(ops, STEP_TIME, f) {
        None => Err(IlpFailure::OverBudget),
        Some(r) => r.map_err(IlpFailure::Isl),
    }
}

fn to_isl<'c>(ctx: &'c Ctx, sys: &ConstraintMatrix) -> BasicSet<'c> {
    let n = sys.n_vars();
    // Every unknown is non-negative, as in Pluto's ILPs.
    let nonneg = (0..n).map(|i| {
        let mut r = vec![0; n + 1];
        r[i] = 1;
        r
    });
    let ineq: Vec<Vec<i64>> = nonneg.chain(sys.inequalities.iter().cloned()).collect();
    BasicSet::from_rows(ctx, n, &sys.equalities, &ineq)
}

fn lexmin_isl(ctx: &Ctx, sys: &ConstraintMatrix, ops: u64) -> Result<Option<Vec<i64>>, IlpFailure> {
    let set = to_isl(ctx, sys);
    let min = bounded(ctx, ops, || {
        if set.try_is_empty()? {
            return Ok(None);
        }
        set.try_lexmin().map(Some)
    })?;
    Ok(min.and_then(|m| m.points().into_iter().next()))
}

fn lexmin_good_lp(sys: &ConstraintMatrix) -> Option<Vec<i64>> {
    let deadline = std::time::Instant::now() + GOOD_LP_TIME;
    let n = sys.n_vars();
    let mut fixed: Vec<i64> = Vec::with_capacity(n);
    for k in 0..n {
        let mut vars = ProblemVariables::new();
        let x: Vec<_> = (0..n)
            .map(|_| vars.add(variable().integer().min(0)))
            .collect();
        let objective: Expression = x[k].into();
        let mut model = vars
            .minimise(objective)
            .using(good_lp::solvers::microlp::microlp);
        let lin = |r: &Vec<i64>| -> Expression {
            r[..n]
                .iter()
                .zip(&x)
                .filter(|(c, _)| **c != 0)
                .map(|(c, v)| *c as f64 * *v)
                .sum::<Expression>()
                + r[n] as f64
        };
        for r in &sys.inequalities {
            model = model.with(lin(r).geq(0));
        }
        for r in &sys.equalities {
            model = model.with(lin(r).eq(0));
        }
        for (j, v) in fixed.iter().enumerate() {
            model = model.with(Expression::from(x[j]).eq(*v as f64));
        }
        let left = deadline.checked_duration_since(std::time::Instant::now())?;
        fixed.push(minimum(&model, k, left)?.round() as i64);
    }
    Some(fixed)
}

/// Branch-and-bound nodes one integer program may take. Each node keeps a tableau (hundreds of
/// kilobytes for the largest programs), and an unlucky program's search grows without end:
/// a random 2-nest program took 18 GB in a minute. Past the budget isl decides, exactly.
pub const NODE_BUDGET: u64 = 2_000;

/// The time one lexicographic minimum through good_lp may take in all. The node budget does not
/// bound it: one random program's integer programs ran for minutes inside the budget (seed 2728
/// of the differential test; isl decides the same systems in under a second). Past it isl
/// decides, under its own bound.
pub const GOOD_LP_TIME: std::time::Duration = std::time::Duration::from_secs(2);

/// Unknown `k`'s value at the proven optimum of `model`, or None (infeasible, or the node budget
/// or `time` spent before optimality was proven: a merely feasible point would make the
/// schedule depend on the machine's speed).
fn minimum(
    model: &good_lp::solvers::microlp::MicroLpProblem,
    k: usize,
    time: std::time::Duration,
) -> Option<f64> {
    // good_lp builds the model; microlp's own options carry the node budget good_lp does not.
    let mut options = microlp::SolveOptions::default();
    options.node_limit = Some(NODE_BUDGET);
    options.time_limit = Some(time);
    let outcome = model.as_inner().solve_with(options).ok()?;
    if !outcome.is_optimal() {
        return None;
    }
    // microlp's variables are good_lp's, in creation order.
    outcome.solution()?.iter().nth(k).map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solvers_agree_on_a_small_lexmin() {
        // x0 + x1 >= 2, x1 - x2 >= 1, x0 <= 1: lexmin (0, 2, 0).
        let mut sys = ConstraintMatrix::new(vec!["a".into(), "b".into(), "c".into()]);
        sys.add_inequality(vec![1, 1, 0, -2]);
        sys.add_inequality(vec![0, 1, -1, -1]);
        sys.add_inequality(vec![-1, 0, 0, 1]);
        let ctx = Ctx::new();
        assert_eq!(lexmin(&ctx, &sys, Solver::Isl), Ok(Some(vec![0, 2, 0])));
        assert_eq!(lexmin(&ctx, &sys, Solver::GoodLp), Ok(Some(vec![0, 2, 0])));
        sys.add_inequality(vec![0, -1, 0, 0]);
        sys.add_inequality(vec![-1, 0, 0, 0]);
        assert_eq!(lexmin(&ctx, &sys, Solver::Isl), Ok(None));
        assert_eq!(lexmin(&ctx, &sys, Solver::GoodLp), Ok(None));
    }

    #[test]
    fn an_exhausted_budget_is_reported_and_the_context_recovers() {
        let ctx = Ctx::new();
        let mut sys = ConstraintMatrix::new(vec!["a".into(), "b".into(), "c".into()]);
        sys.add_inequality(vec![1, 1, 0, -2]);
        sys.add_inequality(vec![0, 1, -1, -1]);
        assert_eq!(lexmin_isl(&ctx, &sys, 1), Err(IlpFailure::OverBudget));
        // The same context answers the next, unbounded, question.
        assert_eq!(lexmin(&ctx, &sys, Solver::Isl), Ok(Some(vec![0, 2, 0])));
        assert_eq!(feasible(&ctx, &sys), Ok(true));
    }

    #[test]
    fn exact_check_rejects_points_off_the_constraints() {
        let mut sys = ConstraintMatrix::new(vec!["a".into(), "b".into()]);
        sys.add_inequality(vec![1, 1, -2]);
        sys.add_equality(vec![1, -1, 0]);
        assert!(satisfies(&sys, &[1, 1]));
        assert!(!satisfies(&sys, &[2, 0]));
        assert!(!satisfies(&sys, &[0, 0]));
        assert!(!satisfies(&sys, &[-1, 3]));
    }
}
