//! After a transformed SCoP: the values C's loops would have left in the iterators declared
//! outside it ([`rosepolly::model::IteratorExit`]), for the code that reads them later.

use rosepolly::analysis::params::assumed_box;
use rosepolly::math::isl::Ctx;
use rosepolly::model::Scop;
use rosepolly::syntax;

use crate::c::host_control;
use crate::ir::ParamData;
use crate::names::user;

/// Assignments of the iterators' final values, one line each (indented by two); an iterator
/// nothing reads later is only mentioned (`(void)i;`), so that a compiler does not call the
/// user's declaration unused.
///
/// `Err` names an iterator whose final value needs a constant beyond 64 bits (C's
/// wrap-around of a narrower unsigned bound, seen through isl): the SCoP then keeps its
/// original code.
pub fn assignments(ctx: &Ctx, scop: &Scop) -> Result<String, String> {
    let mut out = String::new();
    for e in &scop.exits {
        let Some(value) = &e.value else {
            out.push_str(&format!("  (void){};\n", user(&e.name)));
            continue;
        };
        let set = value.set();
        if set.is_empty() {
            continue;
        }
        let where_defined = set.clone().params();
        let pa = set.clone().dim_max(0);
        let assumed = assumed_box(ctx, scop);
        let wide = || {
            format!(
                "the final value of `{}` needs constants beyond 64 bits",
                e.name
            )
        };
        let v = syntax::value(ctx, scop, pa, assumed.clone()).ok_or_else(wide)?;
        let v = host_control(&ParamData::of(scop), &v);
        let assign = format!("{} = ({})({v});", user(&e.name), e.ty.spelling());
        let everywhere = assumed.is_subset(&where_defined);
        if everywhere {
            out.push_str(&format!("  {assign}\n"));
        } else {
            let c = syntax::condition(ctx, scop, &where_defined, assumed).ok_or_else(wide)?;
            let c = host_control(&ParamData::of(scop), &c);
            out.push_str(&format!("  if ({c}) {assign}\n"));
        }
    }
    Ok(out)
}
