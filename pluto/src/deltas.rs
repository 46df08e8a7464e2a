//! Dependence distances along one schedule dimension, as isl relations.
//!
//! For a dependence piece from `S[x]` to `T[y]` and schedule rows `r_S`, `r_T`, the distance is
//! `δ = r_T(y) − r_S(x)`. Restricting a piece to `δ = 0` keeps the instances a dimension does
//! not order (what later dimensions must still respect); a piece with `δ ≠ 0` somewhere is
//! carried by the dimension.

use rosepolly::math::isl::Map;
use rosepolly::model::Scop;

use crate::schedule::Row;

/// `{ S[x] -> T[y] : r_T(y) <op> r_S(x) }` in the piece's spaces.
fn relation<'c>(scop: &Scop, piece: &Map<'c>, src: &Row, sink: &Row, op: &str) -> Map<'c> {
    let (tin, tout) = (
        piece.in_tuple_name().expect("named source"),
        piece.out_tuple_name().expect("named sink"),
    );
    let xs: Vec<String> = (0..src.coeffs.len()).map(|k| format!("_x{k}")).collect();
    let ys: Vec<String> = (0..sink.coeffs.len()).map(|k| format!("_y{k}")).collect();
    let (a, b) = (sink.expr(&ys), src.expr(&xs));
    let cond = if op == "!=" {
        format!("{a} < {b} or {a} > {b}")
    } else {
        format!("{a} {op} {b}")
    };
    let text = format!(
        "{}{{ {tin}[{}] -> {tout}[{}] : {cond} }}",
        scop.isl_params(),
        xs.join(", "),
        ys.join(", ")
    );
    piece
        .parse_sibling(&text)
        .expect("distance constraints are well-formed")
}

/// The instances of `piece` the dimension does not order (`δ = 0`).
pub fn unordered<'c>(scop: &Scop, piece: &Map<'c>, src: &Row, sink: &Row) -> Map<'c> {
    piece
        .clone()
        .intersect(relation(scop, piece, src, sink, "="))
}

/// Does the dimension order some instance of the piece (`δ ≠ 0` somewhere)?
pub fn carries(scop: &Scop, piece: &Map, src: &Row, sink: &Row) -> bool {
    !piece
        .clone()
        .intersect(relation(scop, piece, src, sink, "!="))
        .is_empty()
}

/// Does the dimension order some instance the wrong way (`δ < 0` somewhere)?
pub fn violates(scop: &Scop, piece: &Map, src: &Row, sink: &Row) -> bool {
    !piece
        .clone()
        .intersect(relation(scop, piece, src, sink, "<"))
        .is_empty()
}
