//! Deciding the conversions of a region ([`Affine::Wrap`]) so that the model is C's meaning.
//!
//! Each conversion that may change a value is looked at where C evaluates it — over the
//! enclosing domain of a loop header or a condition, over the statement's domain for a
//! subscript, over the iterations and the exit test of a loop for its condition — and isl
//! answers whether the value always fits the target type:
//!
//! * it fits: the conversion changes nothing and is dropped;
//! * it may not fit, and only parameters enter it (`i < (short)(n + 65536)`, an `int` bound of
//!   an unsigned iterator), to a type of at most 32 bits: it becomes a parameter of its own,
//!   which the generated code computes with C's conversion itself before the SCoP ([`Derived`]);
//! * it may not fit only for parameters beyond ±2^30: the model assumes the parameters stay
//!   within that box;
//! * it may not fit only for parameters near the type's limit (beyond half its maximum: `short
//!   j = i + 1` wraps at `i = 32767`): the model assumes the parameter values for which it fits;
//! * it may not fit for ordinary parameters, in a condition, a subscript or a loop's initial
//!   value, to a type of at most 32 bits: the conversion is kept in its exact quasi-affine form
//!   (`(i - 3u) % 8u` reads element `(i - 3) mod 8`);
//! * otherwise (a loop condition whose monotonicity a wrap would break, 64-bit types): the
//!   model assumes it fits.
//!
//! Assumed parameter values become the SCoP's [`Assumptions`]; the generated program checks
//! them and runs the original code for the others. If no parameter value is left, the region
//! is rejected with the conversion named. Dependences are computed within them.
//!
//! An unsigned iterator must not wrap either (`for (unsigned i = n; i >= 0; i--)` never
//! ends), and a 64-bit unsigned parameter must fit in the `long` arithmetic of generated code:
//! both are assumptions of the same kind.

use std::collections::HashMap;

use super::extract::{Analysis, Site};
use crate::analysis::params::{param_box, params_where};
use crate::diag::{Diagnostic, Diagnostics, Loc};
use crate::math::isl::{Ctx, Set};
use crate::math::Domain;
use crate::model::affine::{Affine, AffineCond, CmpOp, GuardedWrap, WrapForm};
use crate::model::ctype::IntType;
use crate::model::{AffineLoop, Assumptions, Derived, Scop};

/// Where a conversion is evaluated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Where {
    LoopInit(usize),
    LoopCond(usize),
    /// The iterator of a loop with an unsigned type (no conversion node: the variable itself).
    Iterator(usize),
    Condition(usize),
    /// A subscript of the statement draft with this index.
    Subscript(usize),
}

/// One value that must fit a type.
struct Obligation {
    /// The conversion node, if any.
    id: Option<usize>,
    inner: Affine,
    ty: IntType,
    /// The condition under which C evaluates it (within the site's domain).
    when: AffineCond,
    at: Where,
    what: String,
}

/// The decisions: conversion id → what it becomes.
pub(crate) struct Resolution<'c> {
    decisions: HashMap<usize, WrapForm>,
    pub assumptions: Option<Assumptions<'c>>,
}

/// What `decisions` says of conversion `id` (its operand if undecided).
fn form(decisions: &HashMap<usize, WrapForm>, id: usize) -> Option<WrapForm> {
    Some(decisions.get(&id).cloned().unwrap_or(WrapForm::Value))
}

impl Resolution<'_> {
    fn decide(&self) -> impl Fn(usize) -> Option<WrapForm> + '_ {
        |id| form(&self.decisions, id)
    }

    /// Replace every conversion of the analysed region by its decision.
    pub fn apply(&self, a: &mut Analysis) {
        let d = self.decide();
        for l in &mut a.loops {
            l.init = l.init.resolve_wraps(&d);
            l.cond = l.cond.resolve_wraps(&d);
        }
        for c in &mut a.conditions {
            *c = c.resolve_wraps(&d);
        }
        for s in a.loop_sites.iter_mut().chain(a.cond_sites.iter_mut()) {
            s.domain = s.domain.resolve_wraps(&d);
        }
        for dr in &mut a.drafts {
            dr.domain = dr.domain.resolve_wraps(&d);
            for (_, _, subs) in &mut dr.accesses {
                for s in subs.iter_mut() {
                    *s = s.resolve_wraps(&d);
                }
            }
        }
    }
}

/// Decide every conversion of the region; the parameter values the model needs, if not all.
/// New parameters get names for which `taken` is false.
pub(crate) fn resolve<'c>(
    ctx: &'c Ctx,
    scop: &mut Scop<'c>,
    a: &Analysis,
    taken: &dyn Fn(&str) -> bool,
) -> Result<Resolution<'c>, Diagnostics> {
    let obligations = obligations(a);
    let mut r = Resolver {
        ctx,
        scop,
        a,
        taken,
        decisions: HashMap::new(),
        assumed: None,
        reasons: Vec::new(),
    };
    for o in &obligations {
        r.decide(o)?;
    }
    r.parameter_ranges()?;
    let Resolver {
        decisions,
        assumed,
        reasons,
        scop,
        ..
    } = r;
    let assumptions = assumed.map(|set| Assumptions {
        context: Domain::new(set.gist_params(param_box(ctx, scop)).coalesce()),
        reasons,
    });
    Ok(Resolution {
        decisions,
        assumptions,
    })
}

/// Every conversion of the region in creation order (which is program order, inner operands
/// first), then the unsigned iterators.
fn obligations(a: &Analysis) -> Vec<Obligation> {
    let mut found: Vec<(Where, GuardedWrap)> = Vec::new();
    let mut push = |at: Where, w: Vec<GuardedWrap>| found.extend(w.into_iter().map(|g| (at, g)));
    let always = AffineCond::True;
    for (k, l) in a.loops.iter().enumerate() {
        let mut w = Vec::new();
        l.init.wraps(&always, &mut w);
        push(Where::LoopInit(k), w);
        let mut w = Vec::new();
        l.cond.wraps(&always, &mut w);
        push(Where::LoopCond(k), w);
    }
    for (k, c) in a.conditions.iter().enumerate() {
        let mut w = Vec::new();
        c.wraps(&always, &mut w);
        push(Where::Condition(k), w);
    }
    for (k, d) in a.drafts.iter().enumerate() {
        let mut w = Vec::new();
        for (_, _, subs) in &d.accesses {
            subs.iter().for_each(|s| s.wraps(&always, &mut w));
        }
        push(Where::Subscript(k), w);
    }
    let mut out: Vec<Obligation> = Vec::new();
    for (at, g) in found {
        // A conversion met twice at one site is evaluated where either path reaches it.
        if let Some(o) = out.iter_mut().find(|o| o.id == Some(g.id) && o.at == at) {
            o.when = AffineCond::or(o.when.clone(), g.when);
            continue;
        }
        if out.iter().any(|o| o.id == Some(g.id)) {
            continue;
        }
        out.push(Obligation {
            id: Some(g.id),
            inner: g.inner,
            ty: g.ty,
            when: g.when,
            at,
            what: format!("{} changes its value", a.wraps.what(g.id)),
        });
    }
    out.sort_by_key(|o| o.id);
    for (k, l) in a.loops.iter().enumerate() {
        if !l.ty.signed {
            out.push(Obligation {
                id: None,
                inner: Affine::var(&l.iterator),
                ty: l.ty,
                when: AffineCond::True,
                at: Where::Iterator(k),
                what: format!(
                    "the `{}` iterator `{}` wraps around (its values leave the type's range)",
                    l.ty, l.iterator
                ),
            });
        }
    }
    out
}

struct Resolver<'a, 'c> {
    ctx: &'c Ctx,
    scop: &'a mut Scop<'c>,
    a: &'a Analysis,
    taken: &'a dyn Fn(&str) -> bool,
    decisions: HashMap<usize, WrapForm>,
    /// The parameter values assumed so far (`None`: all).
    assumed: Option<Set<'c>>,
    reasons: Vec<(Loc, String)>,
}

impl<'c> Resolver<'_, 'c> {
    fn decided(&self, e: &Affine) -> Affine {
        e.resolve_wraps(&|id| form(&self.decisions, id))
    }

    fn decided_cond(&self, c: &AffineCond) -> AffineCond {
        c.resolve_wraps(&|id| form(&self.decisions, id))
    }

    fn decide(&mut self, o: &Obligation) -> Result<(), Diagnostics> {
        let (iters, domain) = self.domain(o.at);
        let domain = AffineCond::and(domain, self.decided_cond(&o.when));
        let inner = self.decided(&o.inner);
        let outside = AffineCond::or(
            AffineCond::cmp(CmpOp::Lt, inner.clone(), bound(o.ty.min())),
            AffineCond::cmp(CmpOp::Gt, inner.clone(), bound(o.ty.max())),
        );
        let violation = self.set(&iters, &AffineCond::and(domain, outside));
        if violation.is_empty() {
            if let Some(id) = o.id {
                self.decisions.insert(id, WrapForm::Value);
            }
            return Ok(());
        }
        let fails = violation.clone().params();
        // A value that wraps only for sizes no program runs (an index past 2^30) costs the
        // model nothing as an assumption that the sizes stay below that (a box, cheap to
        // carry). One that wraps only for sizes near its type's limit (`short j = i + 1` with
        // `i` up to 32767) is assumed not to: an exact form would put its modulus in loop bounds
        // and tile ranges for every size. Only a value that wraps for ordinary sizes
        // (`(i - 3u) % 8u`) gets its exact form.
        let realistic = params_within(self.ctx, self.scop, REALISTIC_SIZE);
        let unrealistic_only = fails.clone().intersect(realistic.clone()).is_empty();
        let near_limit_only = unrealistic_only || {
            let half = i64::try_from(o.ty.max() / 2)
                .unwrap_or(REALISTIC_SIZE)
                .min(REALISTIC_SIZE);
            fails
                .clone()
                .intersect(params_within(self.ctx, self.scop, half))
                .is_empty()
        };
        if let Some(id) = o.id {
            let mut vars = Vec::new();
            inner.vars(&mut vars);
            // (A 64-bit parameter's definition would need 2^64 in isl's sets, beyond the `long`
            // arithmetic of generated code: those are assumptions.)
            if o.ty.bits <= 32 && vars.iter().all(|v| self.scop.params.contains(v)) {
                let name = self.derive(inner, o.ty);
                self.decisions.insert(id, WrapForm::Name(name));
                return Ok(());
            }
            if self.exact_allowed(o, &inner) && !near_limit_only {
                self.decisions.insert(id, WrapForm::Exact);
                return Ok(());
            }
            self.decisions.insert(id, WrapForm::Value);
        }
        let (loc, text) = self.location(o.at);
        let example = self.example(&violation, &iters);
        let fails = if unrealistic_only {
            realistic.complement()
        } else {
            fails
        };
        self.assume(fails, &loc, &text, &o.what)
            .map_err(|d| d.with_note(example).into())
    }

    /// `for example with n = 3, i = -1`: a point where a value does not fit.
    fn example(&self, violation: &Set, iters: &[String]) -> String {
        let Some((params, dims)) = violation.sample_with_params() else {
            return String::new();
        };
        let names = self.scop.params.iter().chain(iters);
        let values: Vec<String> = names
            .zip(params.iter().chain(&dims))
            .map(|(n, v)| format!("{n} = {v}"))
            .collect();
        if values.is_empty() {
            "it does so in every execution".into()
        } else {
            format!("for example with {}", values.join(", "))
        }
    }

    /// Take the parameter values `fails` out of the assumed ones; an error if none is left.
    fn assume(
        &mut self,
        fails: Set<'c>,
        loc: &Loc,
        text: &str,
        what: &str,
    ) -> Result<(), Diagnostic> {
        let before = self
            .assumed
            .clone()
            .unwrap_or_else(|| param_box(self.ctx, self.scop));
        // Subtracting keeps the set within the parameters' types; a complement would first
        // add every value outside them, which isl then has to take out again.
        let after = before.subtract(fails).coalesce();
        if after.is_empty() {
            return Err(Diagnostic::new(
                loc.clone(),
                format!("{what} here, whatever the parameters"),
            )
            .with_snippet(text)
            .with_note(
                "C converts such values modulo 2^N (N bits of the type); polyc's model of this SCoP cannot follow that here: change the types so that no conversion changes a value",
            ));
        }
        self.assumed = Some(after);
        self.reasons.push((loc.clone(), what.to_string()));
        Ok(())
    }

    /// A new parameter: `value` (over parameters) converted to `ty`.
    fn derive(&mut self, value: Affine, ty: IntType) -> String {
        let k = self.scop.derived.len();
        let mut name = format!("__polyc_p{}_{k}", self.scop.id);
        while (self.taken)(&name) || self.scop.params.contains(&name) {
            name.push('_');
        }
        self.scop.params.push(name.clone());
        self.scop.param_types.push(ty);
        self.scop.names.name(&name);
        self.scop.derived.push(Derived {
            name: name.clone(),
            value,
            ty,
        });
        name
    }

    /// A 64-bit unsigned parameter must fit in `long`, the generated code's arithmetic.
    fn parameter_ranges(&mut self) -> Result<(), Diagnostics> {
        let params: Vec<(String, IntType)> = self
            .scop
            .params
            .iter()
            .cloned()
            .zip(self.scop.param_types.iter().copied())
            .collect();
        for (p, ty) in params {
            if IntType::LONG.holds(ty) {
                continue;
            }
            let name = self.scop.names.get(&p);
            let fails = params_where(self.ctx, self.scop, vec![format!("{name} > {}", i64::MAX)]);
            let loc = self.scop.region.start.clone();
            let what = format!(
                "the `{ty}` parameter `{p}` cannot exceed {} (generated code computes in `long`)",
                i64::MAX
            );
            self.assume(fails, &loc, &p, &what)?;
        }
        Ok(())
    }

    /// Exact forms are for types the generated 64-bit arithmetic holds, and not inside a
    /// loop condition's own iterator (the condition must stay monotone in it).
    fn exact_allowed(&self, o: &Obligation, inner: &Affine) -> bool {
        if o.ty.bits > 32 {
            return false;
        }
        match o.at {
            Where::LoopInit(_) | Where::Condition(_) | Where::Subscript(_) => true,
            Where::LoopCond(l) => {
                let mut vs = Vec::new();
                inner.vars(&mut vs);
                !vs.contains(&self.a.loops[l].iterator)
            }
            Where::Iterator(_) => false,
        }
    }

    /// The iterators in scope where `at` is evaluated and the condition they satisfy.
    fn domain(&self, at: Where) -> (Vec<String>, AffineCond) {
        let site = |s: &Site| (s.iterators.clone(), self.decided_cond(&s.domain));
        match at {
            Where::LoopInit(l) => site(&self.a.loop_sites[l]),
            Where::LoopCond(l) | Where::Iterator(l) => {
                let (mut iters, outer) = site(&self.a.loop_sites[l]);
                let lp = &self.a.loops[l];
                iters.push(lp.iterator.clone());
                let run = iterations_and_exit(&AffineLoop {
                    init: self.decided(&lp.init),
                    cond: self.decided_cond(&lp.cond),
                    ..lp.clone()
                });
                (iters, AffineCond::and(outer, run))
            }
            Where::Condition(c) => site(&self.a.cond_sites[c]),
            Where::Subscript(k) => {
                let d = &self.a.drafts[k];
                (d.iterators.clone(), self.decided_cond(&d.domain))
            }
        }
    }

    fn location(&self, at: Where) -> (Loc, String) {
        let flow = &self.scop.flow;
        match at {
            Where::LoopInit(l) | Where::LoopCond(l) | Where::Iterator(l) => {
                (flow.loops[l].loc.clone(), flow.loops[l].header.clone())
            }
            Where::Condition(c) => (
                flow.conditionals[c].loc.clone(),
                flow.conditionals[c].text.clone(),
            ),
            Where::Subscript(k) => {
                let s = &flow.statements[self.a.drafts[k].flow_id];
                (s.loc.clone(), s.text.clone())
            }
        }
    }

    /// `{ [iters] : cond }` over the parameters, within the parameters' types.
    fn set(&mut self, iters: &[String], cond: &AffineCond) -> Set<'c> {
        let names: Vec<String> = iters.iter().map(|i| self.scop.names.name(i)).collect();
        let map = &self.scop.names;
        let text = format!(
            "{}{{ [{}] : {} }}",
            self.scop.isl_params(),
            names.join(", "),
            cond.to_isl(&|v| map.get(v))
        );
        Set::parse(self.ctx, &text)
            .unwrap_or_else(|e| panic!("conversion check `{text}` does not parse: {e}"))
            .intersect_params(param_box(self.ctx, self.scop))
    }
}

/// The values a loop's iterator takes: its iterations and the value that ends the loop (the
/// first that fails the condition), as a condition on the iterator. The condition is a
/// conjunction of bounds in the loop's direction, so the iterations are an interval from the
/// initial value: `it = init` or the previous value passed the test.
pub(crate) fn iterations_and_exit(lp: &AffineLoop) -> AffineCond {
    let it = Affine::var(&lp.iterator);
    let step = lp.stride.abs();
    let (from, dist) = if lp.stride > 0 {
        (
            AffineCond::cmp(CmpOp::Ge, it.clone(), lp.init.clone()),
            Affine::minus(it.clone(), lp.init.clone()),
        )
    } else {
        (
            AffineCond::cmp(CmpOp::Le, it.clone(), lp.init.clone()),
            Affine::minus(lp.init.clone(), it.clone()),
        )
    };
    let previous = Affine::minus(it.clone(), Affine::Const(lp.stride));
    let prev_passed = lp.cond.rename(&|v| {
        if v == lp.iterator {
            previous.clone()
        } else {
            Affine::var(v)
        }
    });
    let aligned = if step > 1 {
        AffineCond::cmp(CmpOp::Eq, Affine::floor_mod(dist, step), Affine::Const(0))
    } else {
        AffineCond::True
    };
    let first = AffineCond::cmp(CmpOp::Eq, it, lp.init.clone());
    AffineCond::and(
        AffineCond::and(from, aligned),
        AffineCond::or(first, prev_passed),
    )
}

fn bound(v: i128) -> Affine {
    // Bounds of 64-bit types exceed i64 only for `unsigned long`'s maximum, which no i64 value
    // exceeds: clamp it.
    Affine::Const(i64::try_from(v).unwrap_or(i64::MAX))
}

/// The largest parameter value (in magnitude) the model takes for granted when a conversion
/// would change a value only beyond it: no array is indexed past 2^30 in a program that runs.
const REALISTIC_SIZE: i64 = 1 << 30;

/// The parameter values with every parameter within ±`bound`, the derived ones too (an
/// unsigned `n - 1` is 2^32 - 1 for `n = 0`: a loop up to it is no ordinary size either).
fn params_within<'c>(ctx: &'c Ctx, scop: &Scop, bound: i64) -> Set<'c> {
    let conds = scop
        .params
        .iter()
        .map(|p| format!("-{bound} <= {} <= {bound}", scop.names.get(p)))
        .collect();
    params_where(ctx, scop, conds)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::compilation::{build_models, Detection, SourceUnit};
    use crate::math::isl::Ctx;

    /// The statements' domains of the one SCoP in `body` (a function of `unsigned n, m`).
    fn domains(body: &str) -> Vec<String> {
        let text = format!(
            "double A[100][100];\nvoid k(unsigned n, unsigned m) {{\n  unsigned i, j;\n#pragma scop\n{body}\n#pragma endscop\n}}\n"
        );
        let src = SourceUnit::from_preprocessed(Path::new("k.c"), text).expect("parses");
        let ctx = Ctx::new();
        let scops = build_models(&ctx, &src, Detection::Pragmas).expect("models");
        scops[0]
            .statements
            .iter()
            .map(|s| s.domain.to_string())
            .collect()
    }

    #[test]
    fn a_conversion_is_judged_where_c_evaluates_it() {
        // `j - 2` is converted only where `j > 2`, where it fits: no modulo in the domain.
        let guarded = domains(
            "for (i = 0; i < n; i++)\n  for (j = (i > 2 ? i - 2 : 0); j < m; j++)\n    A[i][j] = 1.0;",
        );
        assert!(!guarded[0].contains("floor"), "{}", guarded[0]);
        // `i - 2 < m` is evaluated only where `i >= 2` (after `&&`), and fits there.
        let short_circuit =
            domains("for (i = 0; i < n; i++)\n  if (i >= 2 && i - 2 < m)\n    A[i][0] = 1.0;");
        assert!(!short_circuit[0].contains("floor"), "{}", short_circuit[0]);
        // Unguarded, the same conversion wraps for `i < 2`, and the model follows C.
        let unguarded =
            domains("for (i = 0; i < n; i++)\n  for (j = i - 2; j < m; j++)\n    A[i][j] = 1.0;");
        assert!(unguarded[0].contains("4294967296"), "{}", unguarded[0]);
    }
}
