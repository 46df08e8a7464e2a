//! The original code as a fallback: where a SCoP's model is C's meaning only for some
//! parameter values ([`rosepolly::model::Assumptions`]), the generated code checks them when it
//! runs and executes the user's own lines for the other values.

use std::fmt::Write;

use rosepolly::math::isl::Ctx;
use rosepolly::model::Storage;
use rosepolly::model::{Datum, Scop};
use rosepolly::syntax;

use crate::c::host_control;
use crate::footprint;
use crate::ir::{DatumData, ParamData};
use crate::names::user;

/// The run-time test that the SCoP's arrays do not overlap (docs/scop-rules.md): the code that
/// computes the element range each array touches (its footprint's, as the GPU targets move it),
/// and the condition that every pair with a written member and a pointer parameter among them
/// lies apart. `None` when no pair can overlap (arrays that are not parameters are distinct
/// objects). Arrays whose footprint has no bounded range are left out.
pub fn overlap_check(ctx: &Ctx, scop: &Scop) -> Option<(String, String)> {
    let checked: Vec<&Datum> = scop
        .symbols
        .data
        .values()
        .filter(|d| {
            (d.storage == Storage::Parameter && !d.is_scalar()) || d.storage == Storage::Global
        })
        .filter(|d| d.extents.iter().skip(1).all(Option::is_some))
        .collect();
    let pairs: Vec<(&Datum, &Datum)> = checked
        .iter()
        .enumerate()
        .flat_map(|(i, a)| checked[i + 1..].iter().map(move |b| (*a, *b)))
        .filter(|(a, b)| a.written || b.written)
        .filter(|(a, b)| a.storage == Storage::Parameter || b.storage == Storage::Parameter)
        .collect();
    if pairs.is_empty() {
        return None;
    }
    let mut decls = String::new();
    for d in checked.iter().filter(|d| {
        pairs
            .iter()
            .any(|(a, b)| a.name == d.name || b.name == d.name)
    }) {
        let r = format!("polyc_span_{}", d.name);
        if d.is_scalar() {
            let _ = writeln!(decls, "  long {r}[2] = {{0, 1}};");
        } else {
            let fp = footprint::footprint(ctx, scop, &d.name);
            let extents = footprint::extents_c(&DatumData::of(d));
            let out = format!("polyc_span_out_{}", d.name);
            let _ = writeln!(decls, "  long {r}[2], {out}[2];");
            decls.push_str(&crate::host::indent(
                &footprint::ranges_c(&fp, &extents, &r, &out),
                2,
            ));
            let _ = writeln!(decls, "  polyc_span_join({r}, {out});");
        }
    }
    let cond: Vec<String> = pairs
        .iter()
        .map(|(a, b)| {
            let arg = |d: &Datum| {
                let base = if d.is_scalar() {
                    format!("&{}", user(&d.name))
                } else {
                    user(&d.name)
                };
                format!(
                    "(const void *){base}, polyc_span_{}, (long)sizeof({})",
                    d.name, d.elem_type
                )
            };
            format!("polyc_apart({}, {})", arg(a), arg(b))
        })
        .collect();
    Some((decls, cond.join(" && ")))
}

/// A SCoP's guard: the declarations it needs and the condition.
pub type Guard = Option<(String, String)>;

/// The C condition under which the transformed code of `scop` computes what the original
/// does, if that is not always so, with the declarations it needs: the model's assumptions
/// hold and the arrays do not overlap. `Err` when the assumptions need constants beyond 64
/// bits to be checked: the SCoP then keeps its original code.
pub fn guard(ctx: &Ctx, scop: &Scop) -> Result<Guard, String> {
    let assumed = assumption_guard(ctx, scop)?;
    let apart = overlap_check(ctx, scop);
    Ok(match (assumed, apart) {
        (None, None) => None,
        (Some(a), None) => Some((String::new(), a)),
        (None, Some(o)) => Some(o),
        (Some(a), Some((decls, o))) => Some((decls, format!("{a} && {o}"))),
    })
}

fn assumption_guard(ctx: &Ctx, scop: &Scop) -> Result<Option<String>, String> {
    let Some(a) = scop.assumptions.as_ref() else {
        return Ok(None);
    };
    let all = rosepolly::analysis::params::param_box(ctx, scop);
    let cond = syntax::condition(ctx, scop, &a.context.set(), all)
        .ok_or("checking the model's assumptions needs constants beyond 64 bits")?;
    let cond = host_control(&ParamData::of(scop), &cond);
    // A 64-bit unsigned parameter is compared before it is converted to `long`.
    let mut parts: Vec<String> = scop
        .params
        .iter()
        .zip(&scop.param_types)
        .filter(|(_, t)| t.bits == 64 && !t.signed)
        .map(|(p, _)| format!("{} <= {}UL", crate::names::user(p), i64::MAX))
        .collect();
    parts.push(format!("({cond})"));
    Ok(Some(parts.join(" && ")))
}

/// `body` run when `guard` holds, the user's own lines of the SCoP (`user_lines`) otherwise.
pub fn wrap(scop: &Scop, guard: &(String, String), body: &str, user_lines: &str) -> String {
    let (decls, cond) = guard;
    // The check is expected to hold: without the hint gcc predicts a chain of a dozen `&&`
    // tests as rarely all true, deems the transformed code cold and does not vectorise it
    // (gemver LARGE: untiled loops scalar, 8.6 ms against the original's 6.4 ms).
    let mut out = format!("{decls}  if (__builtin_expect(!!({cond}), 1)) {{\n{body}  }} else {{\n");
    let mut why: Vec<String> = scop
        .assumptions
        .iter()
        .flat_map(|a| &a.reasons)
        .map(|(loc, what)| format!("{what} (line {})", loc.line))
        .collect();
    if !decls.is_empty() {
        why.push("arrays that overlap".into());
    }
    out.push_str(&format!(
        "    /* the original code, where polyc's model would not hold: {} */\n",
        crate::splice::comment_text(&why.join("; "))
    ));
    out.push_str(user_lines);
    out.push_str("  }\n");
    out
}

/// The user's own lines `first..=last` of `original`, the text of `file`, under a `#line`
/// directive that points the compiler's messages at them. Lines end where the preprocessor
/// ends them (a carriage return alone ends one too: an old Mac file's SCoP split at `\n`
/// alone was one line, and its fallback came out empty).
pub fn user_lines(original: &str, file: &str, (first, last): (u32, u32)) -> String {
    let lines = crate::splice::lines_inclusive(original);
    let mut out = format!("#line {first} \"{}\"\n", crate::splice::escape(file));
    for l in first..=last {
        if let Some(text) = lines.get(l as usize - 1) {
            out.push_str(&crate::names::user_text(text));
            if !text.ends_with('\n') && !text.ends_with('\r') {
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::user_lines;

    #[test]
    fn user_lines_split_where_the_preprocessor_does() {
        let lf = "a;\nb;\nc;\nd;\n";
        assert_eq!(user_lines(lf, "f.c", (2, 3)), "#line 2 \"f.c\"\nb;\nc;\n");
        // A carriage return alone ends a line (old Mac files), as do CR LF pairs; the lines
        // keep their own ends.
        let cr = "a;\rb;\rc;\rd;\r";
        assert_eq!(user_lines(cr, "f.c", (2, 3)), "#line 2 \"f.c\"\nb;\rc;\r");
        let crlf = "a;\r\nb;\r\nc;";
        assert_eq!(
            user_lines(crlf, "f.c", (2, 3)),
            "#line 2 \"f.c\"\nb;\r\nc;\n"
        );
    }
}
