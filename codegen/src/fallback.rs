//! The original code as a fallback: where a SCoP's model is C's meaning only for some
//! parameter values ([`rosepolly::model::Assumptions`]), the generated code checks them when it
//! runs and executes the user's own lines for the other values.

use rosepolly::math::isl::Ctx;
use rosepolly::model::Scop;
use rosepolly::syntax;

use crate::c::host_control;

/// The C condition under which the transformed code of `scop` is exact, if it is not always.
pub fn guard(ctx: &Ctx, scop: &Scop) -> Option<String> {
    let a = scop.assumptions.as_ref()?;
    let cond = host_control(scop, &syntax::condition(ctx, scop, a.context.isl()));
    // A 64-bit unsigned parameter is compared before it is converted to `long`.
    let mut parts: Vec<String> = scop
        .params
        .iter()
        .zip(&scop.param_types)
        .filter(|(_, t)| t.bits == 64 && !t.signed)
        .map(|(p, _)| format!("{} <= {}UL", crate::names::user(p), i64::MAX))
        .collect();
    parts.push(format!("({cond})"));
    Some(parts.join(" && "))
}

/// `body` run when `guard` holds, the original lines `first..=last` of `file` otherwise.
pub fn wrap(
    scop: &Scop,
    guard: &str,
    body: &str,
    original: &str,
    file: &str,
    (first, last): (u32, u32),
) -> String {
    let lines: Vec<&str> = original.split_inclusive('\n').collect();
    let mut out = format!("  if ({guard}) {{\n{body}  }} else {{\n");
    let why: Vec<String> = scop
        .assumptions
        .iter()
        .flat_map(|a| &a.reasons)
        .map(|(loc, what)| format!("{what} (line {})", loc.line))
        .collect();
    out.push_str(&format!(
        "    /* the original code, for the values where polyc's model would not hold: {} */\n",
        crate::splice::comment_text(&why.join("; "))
    ));
    out.push_str(&format!(
        "#line {first} \"{}\"\n",
        crate::splice::escape(file)
    ));
    for l in first..=last {
        if let Some(text) = lines.get(l as usize - 1) {
            out.push_str(&crate::names::user_text(text));
            if !text.ends_with('\n') {
                out.push('\n');
            }
        }
    }
    out.push_str("  }\n");
    out
}
