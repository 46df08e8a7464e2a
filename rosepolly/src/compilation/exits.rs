//! What a SCoP leaves in its iterators: C's loops leave the first value that failed the test,
//! and code after the SCoP may read it (`return i;`). Generated code computes those values in
//! closed form from this model.
//!
//! A loop over `i` at some iteration of its enclosing loops ends with `i` at its exit value
//! (the first value from the start that fails the condition, see
//! [`super::wraps::iterations_and_exit`]). Every such ending is an event in the original
//! schedule, placed after the loop's body: time `(2β0, i0, …, 2β_d + 1)` in the original
//! schedule's positions (doubled, so that "after position β" sorts between β and β + 1). The
//! value the SCoP leaves is the one of the last event over all loops on `i`: isl's lexicographic
//! maximum, a piecewise quasi-affine function of the parameters, defined where some loop on `i`
//! runs its test at all.

use std::collections::BTreeSet;

use super::extract::Analysis;
use super::wraps::iterations_and_exit;
use crate::analysis::params::assumed_box;
use crate::math::isl::{Ctx, DimType, IslError, Set};
use crate::math::Domain;
use crate::model::affine::{Affine, AffineCond, CmpOp};
use crate::model::{IteratorExit, Scop};

/// The exit values of the iterators that code outside the region can read (`live`); the others
/// are listed without a value. Where isl cannot compute a value, no transformed code could
/// leave the iterator as C does: the SCoP is marked untransformable and keeps its original code.
pub(crate) fn exits<'c>(
    ctx: &'c Ctx,
    scop: &mut Scop<'c>,
    a: &Analysis,
    live: &BTreeSet<String>,
) -> Vec<IteratorExit<'c>> {
    let mut names: Vec<(String, crate::model::ctype::IntType)> = Vec::new();
    for (k, l) in a.loops.iter().enumerate() {
        // An iterator declared in its loop's header does not exist after it.
        if scop.flow.loops[k].declared_type.is_some() {
            continue;
        }
        if !names.iter().any(|(n, _)| *n == l.iterator) {
            names.push((l.iterator.clone(), l.ty));
        }
    }
    let depth = a
        .loop_sites
        .iter()
        .map(|s| s.iterators.len())
        .max()
        .unwrap_or(0)
        + 1;
    let mut out = Vec::new();
    for (name, ty) in names {
        let value = match live.contains(&name) {
            true => match last_value(ctx, scop, a, &name, depth) {
                Ok(v) => Some(v),
                Err(e) => {
                    scop.untransformable
                        .get_or_insert_with(|| unknown_exit(&name, &e));
                    None
                }
            },
            false => None,
        };
        out.push(IteratorExit { name, ty, value });
    }
    out
}

/// Why a SCoP keeps its original code when isl cannot compute an iterator's exit value.
fn unknown_exit(name: &str, e: &IslError) -> String {
    format!("polyc cannot compute the value `{name}` has after it, which later code reads ({e})")
}

/// `{ [v] }` over the parameters: the value of the last exit of a loop over `name`.
fn last_value<'c>(
    ctx: &'c Ctx,
    scop: &mut Scop<'c>,
    a: &Analysis,
    name: &str,
    depth: usize,
) -> Result<Domain<'c>, IslError> {
    let width = 2 * depth + 1;
    let mut events: Option<Set<'c>> = None;
    for (k, l) in a.loops.iter().enumerate() {
        if l.iterator != name || scop.flow.loops[k].declared_type.is_some() {
            continue;
        }
        let site = &a.loop_sites[k];
        let exit = AffineCond::and(iterations_and_exit(l), AffineCond::negate(l.cond.clone()));
        let mut time: Vec<Affine> = Vec::new();
        for (d, it) in site.iterators.iter().enumerate() {
            time.push(Affine::Const(2 * site.beta[d] as i64));
            time.push(Affine::scale(site.signs[d], Affine::var(it)));
        }
        time.push(Affine::Const(
            2 * site.beta[site.iterators.len()] as i64 + 1,
        ));
        time.resize(width, Affine::Const(0));
        let mut inner: Vec<String> = site.iterators.clone();
        inner.push(name.to_string());
        let inner: Vec<String> = inner.iter().map(|i| scop.names.name(i)).collect();
        let out: Vec<String> = (0..=width)
            .map(|i| {
                scop.names
                    .name_with_key(&format!("exit time {i}"), &format!("_t{i}"))
            })
            .collect();
        let mut cond = AffineCond::and(site.domain.clone(), exit);
        for (i, t) in time.iter().enumerate() {
            let c = AffineCond::cmp(CmpOp::Eq, Affine::var(&out[i]), t.clone());
            cond = AffineCond::and(cond, c);
        }
        let v = AffineCond::cmp(CmpOp::Eq, Affine::var(&out[width]), Affine::var(name));
        cond = AffineCond::and(cond, v);
        let names = &scop.names;
        let text = format!(
            "{}{{ [{}] : exists ({} : {}) }}",
            scop.isl_params(),
            out.join(", "),
            inner.join(", "),
            cond.to_isl(&|v| names.get(v))
        );
        let piece = Set::parse(ctx, &text)
            .unwrap_or_else(|e| panic!("exit events `{text}` do not parse: {e}"));
        events = Some(match events {
            Some(e) => e.union(piece),
            None => piece,
        });
    }
    // Only the transformed code assigns these values: where the assumptions hold.
    let events = events
        .expect("an iterator of the SCoP has a loop")
        .intersect_params(assumed_box(ctx, scop));
    let last = events
        .try_lexmax()?
        .project_out(DimType::Set, 0, width)
        .coalesce();
    Ok(Domain::new(last))
}
