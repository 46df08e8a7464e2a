//! Datum footprints (thesis Fig. 6.11): the part of each array the host moves to the device
//! before a SCoP runs there, and back after it.
//!
//! Two sets per array, from the polyhedral model (`rosepolly::analysis::footprint`): the
//! *live-in* elements, whose values from before the SCoP are read, and the *written* elements.
//! Each is bounded by a box whose per-dimension bounds are affine in the
//! parameters, and a box is moved as the contiguous row-major range between its first and last
//! element: one copy per array and direction, no strided transfers.
//!
//! What goes back is the written box's range. Any element of that range the SCoP does not
//! write must reach the device first, or the copy back would overwrite the host's value with
//! whatever the device buffer held; so the range going in is the live-in range joined with the
//! written one, unless the written set is exactly its box and the box covers whole rows (then
//! every element of the range is written: a matrix the SCoP only produces is never copied in).

use std::fmt::Write;

use rosepolly::analysis::footprint::{self, hull_bounds};
use rosepolly::math::isl::{Ctx, DimType, Set};
use rosepolly::model::Scop;

use crate::ir::DatumData;

/// An array's box: inclusive `(lower, upper)` C expressions per dimension, in the parameters
/// (`None` where the accesses give no upper bound: the run-time then clips to the array), and
/// the conditions on the parameters alone under which the box is not empty (`T >= 1` when the
/// accesses sit in a loop `t < T` that does not index the array).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoxBounds {
    pub dims: Vec<(String, Option<String>)>,
    pub guard: Vec<String>,
}

/// Stands for "no bound" in the generated arithmetic: far above any index, far below overflow.
const UNBOUNDED: &str = "0x3fffffffffffffffL";

/// What moves for one array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Footprint {
    /// Bounds of the elements read before any write; `None` when the SCoP reads none.
    pub live_in: Option<BoxBounds>,
    /// Bounds of the written elements; `None` when the SCoP writes none.
    pub written: Option<BoxBounds>,
    /// The written set equals its box, for every parameter value.
    pub written_is_box: bool,
}

/// An array's extents as `long` C expressions (`None`: the first, unknown, of a parameter).
pub fn extents_c(d: &DatumData) -> Vec<Option<String>> {
    d.extents
        .iter()
        .map(|e| e.as_ref().map(|e| format!("(long)({e})")))
        .collect()
}

pub fn footprint<'c>(ctx: &'c Ctx, scop: &Scop<'c>, name: &str) -> Footprint {
    let sets = footprint::sets(ctx, scop, name);
    Footprint {
        written_is_box: sets.written_is_box(),
        live_in: sets.live_in.map(|s| box_bounds(scop, &s)),
        written: sets.written.map(|s| box_bounds(scop, &s)),
    }
}

/// Per dimension, the largest lower bound and the smallest upper bound of the convex hull of
/// `set`'s projection, as C expressions (`0` stands in for a missing lower bound), and the hulls'
/// constraints on the parameters alone. `analysis::footprint::is_box` builds its box from the same hulls, guard
/// included, so "the set equals its box" holds of the box the C code moves.
fn box_bounds(scop: &Scop, set: &Set) -> BoxBounds {
    let params = param_c_names(scop, set);
    let mut guard = Vec::new();
    let dims = (0..set.dim(DimType::Set))
        .map(|k| {
            let b = hull_bounds(set, k);
            let lower: Vec<String> = b
                .lower
                .iter()
                .map(|(coeffs, c, d)| floor_div(&params, coeffs, *c, *d, true))
                .collect();
            let upper: Vec<String> = b
                .upper
                .iter()
                .map(|(coeffs, c, d)| floor_div(&params, coeffs, *c, *d, false))
                .collect();
            for (coeffs, c) in &b.params_only {
                let cond = format!("{} >= 0", c_linear(&params, coeffs, *c));
                if !guard.contains(&cond) {
                    guard.push(cond);
                }
            }
            (
                fold("polyc_lmax", lower).unwrap_or_else(|| "0".into()),
                fold("polyc_lmin", upper),
            )
        })
        .collect();
    BoxBounds { dims, guard }
}

/// The C names of `set`'s parameters, in its order (which projections keep).
fn param_c_names(scop: &Scop, set: &Set) -> Vec<String> {
    (0..set.dim(DimType::Param))
        .map(|i| {
            let isl = set.dim_name(DimType::Param, i).unwrap_or_default();
            scop.params
                .iter()
                .find(|p| scop.names.get(p) == isl)
                .cloned()
                .unwrap_or(isl)
        })
        .collect()
}

/// `Σ coeffs·params + constant` in C (`long` arithmetic).
fn c_linear(params: &[String], coeffs: &[i64], constant: i64) -> String {
    let mut out = String::new();
    for (p, &c) in params.iter().zip(coeffs) {
        if c == 0 {
            continue;
        }
        let sign = if c < 0 { " - " } else { " + " };
        let mag = c.unsigned_abs();
        if out.is_empty() {
            out.push_str(if c < 0 { "-" } else { "" });
        } else {
            out.push_str(sign);
        }
        let p = crate::names::user(p);
        if mag == 1 {
            let _ = write!(out, "(long)({p})");
        } else {
            let _ = write!(out, "{mag}L * (long)({p})");
        }
    }
    if out.is_empty() {
        return format!("{constant}L");
    }
    if constant != 0 {
        let _ = write!(
            out,
            " {} {}L",
            if constant < 0 { '-' } else { '+' },
            constant.unsigned_abs()
        );
    }
    out
}

/// `floor((coeffs·params + c) / d)` for `d > 0`, or `ceil` of it when `ceil`, in C.
fn floor_div(params: &[String], coeffs: &[i64], c: i64, d: i64, ceil: bool) -> String {
    if coeffs.iter().all(|&x| x == 0) {
        let q = if ceil {
            -(-c).div_euclid(d)
        } else {
            c.div_euclid(d)
        };
        return format!("{q}L");
    }
    if d == 1 {
        return format!("({})", c_linear(params, coeffs, c));
    }
    if ceil {
        // ceil(e / d) = -floor(-e / d).
        let neg: Vec<i64> = coeffs.iter().map(|x| -x).collect();
        format!("-polyc_lfloord({}, {d}L)", c_linear(params, &neg, -c))
    } else {
        format!("polyc_lfloord({}, {d}L)", c_linear(params, coeffs, c))
    }
}

fn fold(f: &str, terms: Vec<String>) -> Option<String> {
    terms.into_iter().reduce(|a, b| format!("{f}({a}, {b})"))
}

impl Footprint {
    /// A C expression for how many rows (indices of the first dimension) the device buffer
    /// needs, for an array whose declaration does not give its first extent (`double *p`,
    /// `double a[][N]`): one past the last row either box reaches. `None` when a box has no
    /// upper bound there.
    pub fn rows_c(&self) -> Option<String> {
        let mut ends = Vec::new();
        for b in [&self.live_in, &self.written].into_iter().flatten() {
            ends.push(format!("({}) + 1", b.dims.first()?.1.as_ref()?));
        }
        Some(format!("polyc_lmax(1L, {})", fold("polyc_lmax", ends)?))
    }
}

/// Host helpers the transfers call, once per file.
pub const SUPPORT: &str = r#"#ifndef POLYC_TRANSFER_SUPPORT
#define POLYC_TRANSFER_SUPPORT
/* The row-major element range [r[0], r[1]) from the first to the last element of the box
   lo..hi of an array with extents ext, clipped to the array; r[0] == r[1] when it is empty. */
static inline __attribute__((unused)) void polyc_span(int dims, const long *ext, const long *lo, const long *hi, long *r) {
  long a = 0, b = 0;
  for (int k = 0; k < dims; k++) {
    long l = polyc_lmax(lo[k], 0), h = polyc_lmin(hi[k], ext[k] - 1);
    if (l > h) { r[0] = r[1] = 0; return; }
    a = a * ext[k] + l;
    b = b * ext[k] + h;
  }
  r[0] = a;
  r[1] = b + 1;
}
/* r := the smallest range holding r and s. */
static inline __attribute__((unused)) void polyc_span_join(long *r, const long *s) {
  if (s[0] == s[1]) return;
  if (r[0] == r[1]) { r[0] = s[0]; r[1] = s[1]; return; }
  r[0] = polyc_lmin(r[0], s[0]);
  r[1] = polyc_lmax(r[1], s[1]);
}
/* Whether the box lo..hi spans every index of each dimension after the first, so that the
   range from its first to its last element holds nothing outside it. */
static inline __attribute__((unused)) int polyc_whole_rows(int dims, const long *ext, const long *lo, const long *hi) {
  for (int k = 1; k < dims; k++)
    if (lo[k] > 0 || hi[k] < ext[k] - 1) return 0;
  return 1;
}
/* Whether the element ranges ra of a and rb of b (elements of sa and sb bytes) share no byte. */
static inline __attribute__((unused)) int polyc_apart(const void *a, const long *ra, long sa, const void *b, const long *rb, long sb) {
  if (ra[0] == ra[1] || rb[0] == rb[1]) return 1;
  unsigned long a0 = (unsigned long)a + (unsigned long)(ra[0] * sa), a1 = (unsigned long)a + (unsigned long)(ra[1] * sa);
  unsigned long b0 = (unsigned long)b + (unsigned long)(rb[0] * sb), b1 = (unsigned long)b + (unsigned long)(rb[1] * sb);
  return a1 <= b0 || b1 <= a0;
}
#endif
"#;

/// C statements that set `in_range` and `out_range` (arrays of two `long`s, declared by the
/// caller) to the element ranges to copy in and out, given the array's extents (`None` for a
/// first extent the declaration does not give: the range arithmetic does not need it).
pub fn ranges_c(
    fp: &Footprint,
    extents: &[Option<String>],
    in_range: &str,
    out_range: &str,
) -> String {
    let d = extents.len();
    let extents: Vec<&str> = extents
        .iter()
        .map(|e| e.as_deref().unwrap_or(UNBOUNDED))
        .collect();
    let mut s = String::from("{\n");
    let _ = writeln!(
        s,
        "  const long polyc_ext[{d}] = {{{}}};",
        extents.join(", ")
    );
    let box_c = |b: &BoxBounds, lo: &str, hi: &str, out: &str| {
        let (mut l, h): (Vec<String>, Vec<&str>) = b
            .dims
            .iter()
            .map(|(l, h)| (l.clone(), h.as_deref().unwrap_or(UNBOUNDED)))
            .unzip();
        // Where the guard fails the box is empty: a first lower bound above every index.
        if !b.guard.is_empty() {
            l[0] = format!("({}) ? {} : {UNBOUNDED}", b.guard.join(" && "), l[0]);
        }
        format!(
            "  const long {lo}[{d}] = {{{}}}, {hi}[{d}] = {{{}}};\n  polyc_span({d}, polyc_ext, {lo}, {hi}, {out});\n",
            l.join(", "),
            h.join(", ")
        )
    };
    match &fp.live_in {
        Some(b) => s.push_str(&box_c(b, "polyc_rlo", "polyc_rhi", in_range)),
        None => {
            let _ = writeln!(s, "  {in_range}[0] = {in_range}[1] = 0;");
        }
    }
    match &fp.written {
        Some(b) => {
            s.push_str(&box_c(b, "polyc_wlo", "polyc_whi", out_range));
            if fp.written_is_box {
                let _ = writeln!(
                    s,
                    "  if (!polyc_whole_rows({d}, polyc_ext, polyc_wlo, polyc_whi)) polyc_span_join({in_range}, {out_range});"
                );
            } else {
                let _ = writeln!(s, "  polyc_span_join({in_range}, {out_range});");
            }
        }
        None => {
            let _ = writeln!(s, "  {out_range}[0] = {out_range}[1] = 0;");
        }
    }
    s.push_str("}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_terms_print_as_long_arithmetic() {
        let p = vec!["n".to_string(), "m".to_string()];
        assert_eq!(
            c_linear(&p, &[1, -2], -1),
            "(long)(n) - 2L * (long)(m) - 1L"
        );
        assert_eq!(c_linear(&p, &[0, 0], 5), "5L");
        assert_eq!(c_linear(&p, &[-1, 0], 0), "-(long)(n)");
        assert_eq!(floor_div(&p, &[0, 0], -7, 2, false), "-4L");
        assert_eq!(floor_div(&p, &[0, 0], -7, 2, true), "-3L");
        assert_eq!(floor_div(&p, &[2, 0], 1, 1, false), "(2L * (long)(n) + 1L)");
        assert_eq!(
            floor_div(&p, &[1, 0], 1, 3, true),
            "-polyc_lfloord(-(long)(n) - 1L, 3L)"
        );
    }
}
