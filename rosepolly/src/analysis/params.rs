//! The parameter values a SCoP's code can meet: the box its parameters' C types allow (derived
//! parameters equal to their definitions), and that box within the model's assumptions (where
//! the transformed code runs).

use crate::math::isl::{Ctx, Set};
use crate::model::affine::{Affine, AffineCond, CmpOp};
use crate::model::Scop;

/// The values the parameters' C types allow, the derived ones equal to their definitions.
pub fn param_box<'c>(ctx: &'c Ctx, scop: &Scop) -> Set<'c> {
    let mut conds: Vec<String> = scop
        .params
        .iter()
        .zip(&scop.param_types)
        .map(|(p, t)| format!("{} <= {} <= {}", t.min(), scop.names.get(p), t.max()))
        .collect();
    for d in &scop.derived {
        let exact = Affine::Wrap {
            id: usize::MAX,
            inner: Box::new(d.value.clone()),
            ty: d.ty,
        };
        let c = AffineCond::Cmp(CmpOp::Eq, Affine::var(&d.name), exact);
        conds.push(c.to_isl(&|v| scop.names.get(v)));
    }
    params_where(ctx, scop, conds)
}

/// The parameter values the transformed code of a SCoP runs for: their C types' ranges and the
/// model's assumptions.
pub fn assumed_box<'c>(ctx: &'c Ctx, scop: &Scop<'c>) -> Set<'c> {
    let all = param_box(ctx, scop);
    match &scop.assumptions {
        Some(a) => all.intersect(a.context.isl().clone()),
        None => all,
    }
}

/// `{ : conds }` over the SCoP's parameters (isl constraints on their isl names).
pub fn params_where<'c>(ctx: &'c Ctx, scop: &Scop, conds: Vec<String>) -> Set<'c> {
    let text = format!(
        "{}{{ : {} }}",
        scop.isl_params(),
        if conds.is_empty() {
            "true".to_string()
        } else {
            conds.join(" and ")
        }
    );
    Set::parse(ctx, &text).unwrap_or_else(|e| panic!("parameter set `{text}` does not parse: {e}"))
}
