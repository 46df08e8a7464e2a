//! Diamond tiling: tiling hyperplanes that let the tiles of a time-iterated stencil start
//! concurrently (Bondhugula, Bandishti and Pananilath, "Diamond tiling", IEEE TPDS 2017).
//!
//! Pluto's band for a stencil is skewed: `(t, 2t + i, 2t + j)`. Its tiles can only start in a
//! pipeline, because the face `t = 0` of the iteration space is the band's first hyperplane,
//! on the edge of the cone the tiling hyperplanes span: the first wavefront of tiles holds one
//! tile, the second two, and so on. A face allows concurrent start when it lies strictly inside
//! that cone. As Pluto does by default, the first hyperplane `h1` is replaced, for tiling only,
//! by its *cone complement* with another of the band's hyperplanes, `h2`, which moves to the
//! band's second place (a permutable band's rows may be reordered):
//!
//! ```text
//! h' = mu * h1 - h2 + c_S        (so that  h1 = (h' + h2 - c_S) / mu)
//! ```
//!
//! with the smallest `mu >= 1` and per-statement shifts `c_S` that keep `h'` legal (every
//! dependence the band must respect has a non-negative distance along it). `h1` then lies
//! strictly inside the cone of `h'` and `h2`: along the first space dimension every tile of the
//! first wavefront starts at once (jacobi-1d: `h' = t - i` beside `2t + i`).
//!
//! Only the tiles change. The schedule's rows stay as they are, and the points of a tile still
//! run in the order of the band's rows, which is legal inside any tile; between tiles, every
//! dependence goes to a tile whose coordinates along `h'`, `h2`, ... are not smaller, which is
//! what the wavefront walk needs. The shape is a parallelogram in `(h1, h2)`, not a true
//! diamond, but it has the property that matters: concurrent start.
//!
//! The shifts `c_S` are a system of difference constraints `c_T - c_S >= w(S, T)` with `w`
//! the largest `delta2 - mu * delta1` over the dependences from `S` to `T`, solved by longest
//! paths; `w` exists only when those distances are bounded (uniform dependences: stencils).
//! Non-uniform dependences (lu, cholesky) or dependences inside one time step that `h2` orders
//! (seidel-2d) leave the band as it is.

use std::collections::HashMap;

use rosepolly::diag::Phase;
use rosepolly::math::isl::{Ctx, DimType, Map};
use rosepolly::model::Scop;
use serde::Serialize;

use crate::deltas::{self, Piece};
use crate::schedule::{Row, Schedule};

/// The largest `mu` tried: steeper cone complements make tiles too thin to be useful.
const MAX_MU: i64 = 8;

/// The most distance vectors a dependence may have for the search (bounded sets only).
const MAX_DISTANCES: u64 = 4096;

/// A band's cone-complement tiling hyperplane, replacing its first row for tiling: with `h1`
/// and `h2` the band's first two rows, `mu * h1 - h2 + shifts[s]` for statement `s`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Diamond {
    /// The multiple of the band's first row.
    pub mu: i64,
    /// Per statement, the constant added.
    pub shifts: Vec<i64>,
}

impl Diamond {
    /// The tiling row of statement `s` from its first two band rows `h1` and `h2`.
    pub fn row(&self, s: usize, h1: &Row, h2: &Row) -> Row {
        Row {
            coeffs: h1
                .coeffs
                .iter()
                .zip(&h2.coeffs)
                .map(|(a, b)| self.mu * a - b)
                .collect(),
            constant: self.mu * h1.constant - h2.constant + self.shifts[s],
        }
    }

    /// The tiling row over the band's rows `c0, c1` (for reports): `4*c0 - c1`.
    pub fn describe(&self) -> String {
        let shifts = if self.shifts.iter().all(|&c| c == 0) {
            String::new()
        } else {
            format!(" + shifts {:?}", self.shifts)
        };
        format!("{}*c0 - c1{shifts}", self.mu)
    }
}

/// Give every band that qualifies its diamond (see `find`); the band's rows after the first may
/// be reordered for it (the band is permutable), and its parallel marks follow.
pub fn apply<'c>(ctx: &'c Ctx, scop: &Scop<'c>, schedule: &mut Schedule) {
    for b in 0..schedule.bands.len() {
        let Some((partner, diamond, pieces)) = find(ctx, scop, schedule, b) else {
            continue;
        };
        let start = schedule.bands[b].start;
        if partner != 1 {
            for rows in &mut schedule.rows {
                let row = rows.remove(start + partner);
                rows.insert(start + 1, row);
            }
            remark_band(schedule, b, pieces);
        }
        schedule.bands[b].diamond = Some(diamond);
    }
}

/// The band's parallel marks, from the pieces left at its start, after its rows moved.
fn remark_band<'c>(schedule: &mut Schedule, b: usize, pieces: Vec<Piece<'c>>) {
    let (start, depth) = (schedule.bands[b].start, schedule.bands[b].depth);
    let (marks, _) = deltas::band_marks(pieces, &schedule.rows, &schedule.kinds, start, depth);
    for (k, loops) in marks.into_iter().enumerate() {
        let whole = loops.iter().all(|&p| p);
        schedule.bands[b].parallel[k] = whole;
        schedule.parallel[start + k] = whole;
        schedule.loop_parallel[start + k] = loops;
    }
}

/// The cone complement of band `b`'s first row, when the band is permutable, has at least two
/// dimensions, its first carries dependences (else its tiles start concurrently already) and
/// a legal `h'` exists with `mu <= MAX_MU`; with the partner row it was found with (its
/// position in the band) and the dependence pieces left at the band's start.
///
/// Among the rows that can be the partner, the one over the outermost loops of the original
/// nest is taken: the concurrent start is then along that dimension, and the innermost loop
/// (the unit-stride one in C's row-major arrays, which the tile's code runs innermost) keeps
/// a full tile's length instead of a diamond's varying one (fdtd-2d's band is `(t, t + j,
/// t + i)`: its diamond pairs `t + i` with `t`).
fn find<'c>(
    ctx: &'c Ctx,
    scop: &Scop<'c>,
    schedule: &Schedule,
    b: usize,
) -> Option<(usize, Diamond, Vec<Piece<'c>>)> {
    let band = &schedule.bands[b];
    if !band.permutable || band.depth < 2 || band.parallel[0] {
        return None;
    }
    // Every dependence the band's tiles must respect: those no dimension before it orders.
    let mut pieces = deltas::direct_pieces(ctx, scop);
    for d in 0..band.start {
        pieces = deltas::restrict(pieces, &schedule.rows, d);
    }
    if pieces.is_empty() {
        return None;
    }
    let mut partners: Vec<usize> = (1..band.depth).collect();
    partners.sort_by_key(|&k| loop_depth_key(scop, schedule, band.start + k));
    let n = scop.statements.len();
    let mut too_many = None;
    for partner in partners {
        let distances = match distances(scop, &pieces, &schedule.rows, band.start, partner) {
            Ok(distances) => distances,
            Err(Uncounted::Unbounded) => continue,
            Err(Uncounted::Past(count)) => {
                too_many = Some((partner, count));
                continue;
            }
        };
        let found = (1..=MAX_MU).find_map(|mu| {
            let edges: Vec<(usize, usize, i64)> = distances
                .iter()
                .map(|(&(s, t), ds)| {
                    let w = ds.iter().map(|(a, b)| b - mu * a).max().expect("non-empty");
                    (s, t, w)
                })
                .collect();
            longest_paths(n, &edges).map(|shifts| Diamond { mu, shifts })
        });
        if let Some(diamond) = found {
            return Some((partner, diamond, pieces));
        }
    }
    // The search was cut short, not proven empty: say so.
    if let Some((partner, count)) = too_many {
        let count = count.map_or("more than 2^63".to_string(), |c| c.to_string());
        ctx.fell_back(
            Phase::Scheduling,
            format!(
                "the band at dimensions {}-{} keeps skewed tiles (a pipelined start), not diamond tiles: its dependences have {count} distance vectors along its rows 0 and {partner}, past the {MAX_DISTANCES} the diamond search takes",
                band.start,
                band.start + band.depth - 1
            ),
        );
    }
    None
}

/// Why a dependence's distance vectors were not enumerated.
enum Uncounted {
    /// Some are unbounded: no diamond exists.
    Unbounded,
    /// More than [`MAX_DISTANCES`] (their count, where isl gave one): not searched.
    Past(Option<u64>),
}

/// How deep in the original nests the loops a row moves along are: per statement, the
/// position of the innermost loop whose iterator the row uses, summed.
fn loop_depth_key(scop: &Scop, schedule: &Schedule, d: usize) -> usize {
    (0..scop.statements.len())
        .map(|s| {
            schedule.rows[s][d]
                .coeffs
                .iter()
                .rposition(|&c| c != 0)
                .unwrap_or(0)
        })
        .sum()
}

/// Per statement pair `(source, sink)`, distance vectors `(delta1, delta2)`.
type Distances = HashMap<(usize, usize), Vec<(i64, i64)>>;

/// Per statement pair, the distance vectors of every piece along the band's first row and
/// its row `partner`; an error when some are unbounded or too many.
fn distances(
    scop: &Scop,
    pieces: &[Piece],
    rows: &[Vec<Row>],
    start: usize,
    partner: usize,
) -> Result<Distances, Uncounted> {
    let mut out = Distances::new();
    for p in pieces {
        let points = distance_vectors(scop, p, rows, start, start + partner)?;
        out.entry((p.src, p.sink)).or_default().extend(points);
    }
    Ok(out)
}

/// The distance vectors `(r1_T(y) - r1_S(x), r2_T(y) - r2_S(x))` of a piece along dimensions
/// `d1` and `d2`, for any parameter values; an error when they are unbounded or too many.
fn distance_vectors(
    scop: &Scop,
    piece: &Piece,
    rows: &[Vec<Row>],
    d1: usize,
    d2: usize,
) -> Result<Vec<(i64, i64)>, Uncounted> {
    let to_times = |s: usize| -> Map {
        let st = &scop.statements[s];
        let names = st.domain.dim_names();
        let tuple = st.domain.tuple_name().expect("named statements");
        let text = format!(
            "{}{{ {tuple}[{}] -> [{}, {}] }}",
            scop.isl_params(),
            names.join(", "),
            rows[s][d1].expr(&names),
            rows[s][d2].expr(&names)
        );
        piece
            .remaining
            .parse_sibling(&text)
            .expect("schedule rows parse")
    };
    let times = piece
        .remaining
        .clone()
        .apply_domain(to_times(piece.src))
        .apply_range(to_times(piece.sink))
        .deltas();
    let n_params = times.dim(DimType::Param);
    let set = times.project_out(DimType::Param, 0, n_params).coalesce();
    if !set.is_bounded() {
        return Err(Uncounted::Unbounded);
    }
    match set.count() {
        Some(c) if c <= MAX_DISTANCES => {
            Ok(set.points().into_iter().map(|p| (p[0], p[1])).collect())
        }
        count => Err(Uncounted::Past(count)),
    }
}

/// The smallest non-negative `c` with `c[t] - c[s] >= w` for every edge `(s, t, w)`; `None`
/// when a cycle has a positive weight (no such `c`).
fn longest_paths(n: usize, edges: &[(usize, usize, i64)]) -> Option<Vec<i64>> {
    let mut c = vec![0i64; n];
    for _ in 0..=n {
        let mut changed = false;
        for &(s, t, w) in edges {
            if c[s] + w > c[t] {
                c[t] = c[s] + w;
                changed = true;
            }
        }
        if !changed {
            let low = c.iter().copied().min().unwrap_or(0);
            return Some(c.into_iter().map(|x| x - low).collect());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn difference_constraints_are_solved_by_longest_paths() {
        // c1 - c0 >= 1, c0 - c1 >= -1: c = (0, 1).
        assert_eq!(longest_paths(2, &[(0, 1, 1), (1, 0, -1)]), Some(vec![0, 1]));
        // A positive cycle: c1 - c0 >= 1, c0 - c1 >= 0.
        assert_eq!(longest_paths(2, &[(0, 1, 1), (1, 0, 0)]), None);
        // A self-dependence needs w <= 0.
        assert_eq!(longest_paths(1, &[(0, 0, 1)]), None);
        assert_eq!(longest_paths(1, &[(0, 0, -2)]), Some(vec![0]));
    }

    #[test]
    fn the_tiling_row_combines_the_first_two() {
        let d = Diamond {
            mu: 3,
            shifts: vec![0, 1],
        };
        let h1 = Row {
            coeffs: vec![1, 0],
            constant: 0,
        };
        let h2 = Row {
            coeffs: vec![2, 1],
            constant: 1,
        };
        assert_eq!(
            d.row(1, &h1, &h2),
            Row {
                coeffs: vec![1, -1],
                constant: 0
            }
        );
    }
}
