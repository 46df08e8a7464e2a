//! Candidate local-memory buffers of a tiled group (thesis §6.4.1): for each array a tile
//! touches, the box of elements it may access, parametric in the tile's origin and sizes, and
//! a ranking of the arrays by the reuse a buffer would capture.
//!
//! A reference's subscripts are affine in the statement's iterators. Inside a group the
//! statement's rows over the outer dimensions (fixed for one execution of the group) and over
//! the band (a tile is the box `o_k <= c_k <= o_k + T_k - 1` of the band's tiling rows)
//! determine the iterators the subscript needs when the subscript's linear part is an integer
//! combination `Σ λ_r row_r` of those rows. The subscript is then
//! `Σ_k λ_k c_k + Σ_d λ_d x_d + (parameters) + constant`, and over the tile box it ranges over
//! an interval whose lower end is the *origin* `O_i(t, T)` and whose length is the *extent*
//! `E_i(T) = 1 + Σ_k |λ_k| (T_k - 1)`: it depends on the tile sizes only, so the buffer's size
//! is known when the program chooses them.
//!
//! References of one array whose subscripts differ only in their constant terms (a stencil's
//! neighbours: *uniformly generated*) form a class and share a buffer; the spread `C_i` of
//! their constants widens the extent. An array read through several classes (gemm's `A[i][k]`
//! is one, lu's `A[i][k]` and `A[k][j]` are two) gets one buffer per class: copies of the same
//! elements are harmless while nothing writes them. A written array whose references form one
//! class gets one buffer, so that every element has one copy; one with several classes gets a
//! buffer per class marked [`Candidate::exclusive`]: they are staged together, and only in
//! tiles where their boxes are apart (lu's diagonal tiles are not). Arrays whose subscripts
//! the band and the outer dimensions do not determine (an iterator of a loop inside the band,
//! non-affine subscripts) get none: their footprint grows with the problem, not the tile.

use pluto::Schedule;
use rosepolly::model::{AccessKind, Scop};

use crate::rational;
use crate::space::{TileGroup, TileSpace};

/// The tile size at which buffers are compared when they are ranked (the run-time default).
pub const RANKING_TILE_SIZE: i64 = 32;

/// `floor((Σ origins[k]·o_k + Σ sizes[k]·(T_k − 1) + Σ params[p]·p + constant) / divisor)`,
/// where `p` runs over [`TileSpace::params`] (the SCoP's parameters, then the outer dimensions'
/// values). The divisor is 1 unless the rows determine a subscript with fractions (a diamond's
/// tiling row `2t - i` beside `2t + i` gives `i` as half their difference).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileExpr {
    pub origins: Vec<i64>,
    pub sizes: Vec<i64>,
    pub params: Vec<i64>,
    pub constant: i64,
    pub divisor: i64,
}

impl TileExpr {
    /// The value for given parameters, origins and sizes.
    pub fn eval(&self, params: &[i64], origins: &[i64], sizes: &[i64]) -> i64 {
        let dot = |a: &[i64], b: &[i64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<i64>();
        let minus_one: Vec<i64> = sizes.iter().map(|t| t - 1).collect();
        (dot(&self.origins, origins)
            + dot(&self.sizes, &minus_one)
            + dot(&self.params, params)
            + self.constant)
            .div_euclid(self.divisor)
    }

    /// The expression over named terms (`origin(k)`, `size(k)`, the parameters' names).
    pub fn render(
        &self,
        origin: impl Fn(usize) -> String,
        size: impl Fn(usize) -> String,
        params: &[String],
    ) -> String {
        self.render_with(origin, size, params, "floord")
    }

    /// As [`TileExpr::render`], dividing with the function `floor` (C code has its own).
    pub fn render_with(
        &self,
        origin: impl Fn(usize) -> String,
        size: impl Fn(usize) -> String,
        params: &[String],
        floor: &str,
    ) -> String {
        let mut terms: Vec<(i64, String)> = Vec::new();
        for (k, &a) in self.origins.iter().enumerate() {
            terms.push((a, origin(k)));
        }
        for (k, &a) in self.sizes.iter().enumerate() {
            terms.push((a, format!("({} - 1)", size(k))));
        }
        for (p, &a) in self.params.iter().enumerate() {
            terms.push((a, params[p].clone()));
        }
        let mut out = String::new();
        for (a, t) in terms.into_iter().filter(|(a, _)| *a != 0) {
            let sign = if a < 0 { "-" } else { "+" };
            if out.is_empty() {
                out.push_str(if a < 0 { "-" } else { "" });
            } else {
                out.push_str(&format!(" {sign} "));
            }
            if a.abs() != 1 {
                out.push_str(&format!("{}*", a.abs()));
            }
            out.push_str(&t);
        }
        let sum = match (out.is_empty(), self.constant) {
            (true, c) => c.to_string(),
            (false, 0) => out,
            (false, c) if c > 0 => format!("{out} + {c}"),
            (false, c) => format!("{out} - {}", -c),
        };
        match self.divisor {
            1 => sum,
            d => format!("{floor}({sum}, {d})"),
        }
    }
}

/// One dimension of a buffer: the box's first element `O_i` and its length `E_i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BufferDim {
    pub origin: TileExpr,
    /// Depends on the tile sizes only (`origins` and `params` are zero).
    pub extent: TileExpr,
}

/// A reference: statement `stmt`'s access number `access`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct RefId {
    pub stmt: usize,
    pub access: usize,
}

/// What a buffer would save: the thesis' three criteria (after Aho, Lam, Sethi and Ullman), and the accesses
/// per element at [`RANKING_TILE_SIZE`] in every dimension that orders what they leave equal.
#[derive(Debug, Clone, PartialEq)]
pub struct Reuse {
    /// Temporal reuse: some reference's subscripts have a smaller rank than its statement's
    /// depth, so one element serves several instances (gemm's `A[i][k]` along `j`).
    pub temporal: bool,
    /// Group reuse: the references in the class (the neighbours of a stencil).
    pub references: usize,
    /// The last subscript moves by one element along the tile's last band dimension while
    /// the others stay (self-spatial reuse: neighbouring work-items, neighbouring addresses).
    pub spatial: bool,
    /// Accesses of the class in a full tile per element of the buffer.
    pub per_element: f64,
    /// Neither spatial nor the same element for neighbouring work-items: the subscripts move
    /// along the fastest dimension by more than one element (a column read by work-items
    /// along a row), so that a warp's read of global memory touches a sector per work-item,
    /// where the buffer's copy reads the same elements side by side. Among candidates equal
    /// otherwise, such a one gains most from a buffer; one whose work-items share an element
    /// (syr2k's `B[i][k]` with `j` fastest) gains least.
    pub strided: bool,
}

/// A candidate buffer: one class of references of one array in one group's tile.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The array's model name.
    pub datum: String,
    /// Which class of the array's references (0 when the array has one).
    pub class: usize,
    pub refs: Vec<RefId>,
    /// Some reference of the class writes.
    pub written: bool,
    /// The array is written and has other classes: its classes' buffers are staged together, in
    /// tiles where their boxes do not overlap (so that each element has one copy).
    pub exclusive: bool,
    pub dims: Vec<BufferDim>,
    pub reuse: Reuse,
}

impl Candidate {
    /// Elements of the buffer for tile sizes `sizes` (before padding).
    pub fn elements(&self, sizes: &[i64]) -> i64 {
        self.dims
            .iter()
            .map(|d| d.extent.eval(&[], &[], sizes).max(0))
            .product()
    }
}

/// The candidate buffers of `group`'s tiles, best first; `fastest` is the band dimension along
/// which neighbouring work-items lie (the last by default), which decides spatial reuse.
/// Ranked by temporal reuse, then group reuse,
/// then self-spatial reuse (thesis §6.4), then accesses per element, then strided references
/// ([`Reuse::strided`]) before the others, then the order the arrays first appear in.
pub fn candidates(
    scop: &Scop,
    schedule: &Schedule,
    space: &TileSpace,
    group: &TileGroup,
    fastest: Option<usize>,
) -> Vec<Candidate> {
    if group.depth == 0 {
        return Vec::new();
    }
    // Per array: its classes (by the subscripts' variable parts), in order of appearance.
    let mut arrays: Vec<(String, Vec<Class>)> = Vec::new();
    let mut excluded: Vec<String> = Vec::new();
    for &s in &group.statements {
        let st = &scop.statements[s];
        let inverse = RowSpace::of(schedule, space, group, s);
        for (a, acc) in st.accesses.iter().enumerate() {
            if acc.subscripts.is_empty() || excluded.contains(&acc.datum) {
                continue;
            }
            let Some(subs) = inverse.subscripts(scop, st, &acc.subscripts) else {
                excluded.push(acc.datum.clone());
                arrays.retain(|(d, _)| *d != acc.datum);
                continue;
            };
            let classes = match arrays.iter_mut().find(|(d, _)| *d == acc.datum) {
                Some((_, c)) => c,
                None => {
                    arrays.push((acc.datum.clone(), Vec::new()));
                    &mut arrays.last_mut().expect("just pushed").1
                }
            };
            let r = RefId { stmt: s, access: a };
            let write = acc.kind == AccessKind::Write;
            match classes.iter_mut().find(|c| c.same_shape(&subs)) {
                Some(c) => c.add(r, &subs, write, inverse.rank),
                None => classes.push(Class::new(r, subs, write, inverse.rank)),
            }
        }
    }
    let mut out: Vec<Candidate> = Vec::new();
    for (datum, classes) in arrays {
        let exclusive = classes.len() > 1 && classes.iter().any(|c| c.written);
        for (i, c) in classes.into_iter().enumerate() {
            let mut c = c.candidate(&datum, i, group.depth, fastest.unwrap_or(group.depth - 1));
            c.exclusive = exclusive;
            out.push(c);
        }
    }
    // A stable sort keeps the order of appearance among equals.
    out.sort_by(|a, b| {
        let (x, y) = (&a.reuse, &b.reuse);
        (y.temporal, y.references, y.spatial)
            .cmp(&(x.temporal, x.references, x.spatial))
            .then(y.per_element.total_cmp(&x.per_element))
            .then(y.strided.cmp(&x.strided))
    });
    out
}

/// A subscript over the tile: `(Σ band[k]·c_k + Σ params[p]·p + constant) / divisor`, exactly
/// (an integer at every instance).
#[derive(Debug, Clone, PartialEq, Eq)]
struct TileSubscript {
    band: Vec<i64>,
    params: Vec<i64>,
    constant: i64,
    divisor: i64,
}

/// References of one array whose subscripts differ in their constants only.
struct Class {
    refs: Vec<RefId>,
    written: bool,
    /// The first reference's subscripts; the others' constants widen `lo..=hi`.
    shape: Vec<TileSubscript>,
    lo: Vec<i64>,
    hi: Vec<i64>,
    /// Statement instances the class's references make in a full tile at the ranking size.
    accesses: f64,
    temporal: bool,
}

impl Class {
    fn new(r: RefId, subs: Vec<TileSubscript>, write: bool, rank: usize) -> Class {
        let consts: Vec<i64> = subs.iter().map(|s| s.constant).collect();
        Class {
            temporal: reused(&subs, rank),
            refs: vec![r],
            written: write,
            shape: subs,
            lo: consts.clone(),
            hi: consts,
            accesses: (RANKING_TILE_SIZE as f64).powi(rank as i32),
        }
    }

    fn same_shape(&self, subs: &[TileSubscript]) -> bool {
        self.shape.len() == subs.len()
            && self
                .shape
                .iter()
                .zip(subs)
                .all(|(a, b)| a.band == b.band && a.params == b.params && a.divisor == b.divisor)
    }

    fn add(&mut self, r: RefId, subs: &[TileSubscript], write: bool, rank: usize) {
        self.refs.push(r);
        self.written |= write;
        self.temporal |= reused(subs, rank);
        for (i, s) in subs.iter().enumerate() {
            self.lo[i] = self.lo[i].min(s.constant);
            self.hi[i] = self.hi[i].max(s.constant);
        }
        self.accesses += (RANKING_TILE_SIZE as f64).powi(rank as i32);
    }

    fn candidate(self, datum: &str, class: usize, depth: usize, fastest: usize) -> Candidate {
        let dims: Vec<BufferDim> = self
            .shape
            .iter()
            .zip(self.lo.iter().zip(&self.hi))
            // Over the box the numerator runs from its value at the corner where it is least,
            // `low`, to `low + Σ |band[k]| (T_k - 1)`; the smallest subscript is
            // `ceil((low + lo) / q)`, and the largest minus it at most
            // `floor((Σ |band[k]| (T_k - 1) + hi - lo) / q)`.
            .map(|(s, (&lo, &hi))| BufferDim {
                origin: TileExpr {
                    origins: s.band.clone(),
                    sizes: s.band.iter().map(|&a| a.min(0)).collect(),
                    params: s.params.clone(),
                    constant: lo + s.divisor - 1,
                    divisor: s.divisor,
                },
                extent: TileExpr {
                    origins: vec![0; depth],
                    sizes: s.band.iter().map(|a| a.abs()).collect(),
                    params: Vec::new(),
                    constant: hi - lo + s.divisor,
                    divisor: s.divisor,
                },
            })
            .collect();
        let spatial = self.shape.split_last().is_some_and(|(inner, outer)| {
            inner.band[fastest].abs() == inner.divisor && outer.iter().all(|s| s.band[fastest] == 0)
        });
        let strided = !spatial && self.shape.iter().any(|s| s.band[fastest] != 0);
        let mut c = Candidate {
            datum: datum.to_string(),
            class,
            refs: self.refs,
            written: self.written,
            exclusive: false,
            dims,
            reuse: Reuse {
                temporal: self.temporal,
                references: 0,
                spatial,
                per_element: 0.0,
                strided,
            },
        };
        let elements = c.elements(&vec![RANKING_TILE_SIZE; depth]).max(1) as f64;
        c.reuse.per_element = self.accesses / elements;
        c.reuse.references = c.refs.len();
        c
    }
}

/// Whether a reference's subscripts, over a statement whose band rows have rank `rank`, have
/// a smaller rank: tile points that differ along the rest touch the same element.
fn reused(subs: &[TileSubscript], rank: usize) -> bool {
    let rows: Vec<Vec<i64>> = subs.iter().map(|s| s.band.clone()).collect();
    pluto::ortho::rank(&rows) < rank
}

/// One statement's rows inside a group, and how to write its subscripts over the tile.
struct RowSpace {
    /// Per row: its coefficients over the statement's iterators, and what it is.
    rows: Vec<(Vec<i64>, i64, RowVar)>,
    params: usize,
    depth: usize,
    /// How many band rows are independent (the tile's instances grow as `T^rank`).
    rank: usize,
}

#[derive(Debug, Clone, Copy)]
enum RowVar {
    /// Band dimension `k`.
    Band(usize),
    /// The value of the outer dimension `j` of the space (parameter `scop_params + j`).
    Outer(usize),
}

impl RowSpace {
    fn of(schedule: &Schedule, space: &TileSpace, group: &TileGroup, s: usize) -> RowSpace {
        let mut rows = Vec::new();
        for (j, &d) in space.outer_dims.iter().enumerate() {
            let r = &schedule.rows[s][d];
            rows.push((
                r.coeffs.clone(),
                r.constant,
                RowVar::Outer(space.scop_params + j),
            ));
        }
        for k in 0..group.depth {
            let r = schedule.tiling_row(s, group.band_start + k);
            rows.push((r.coeffs, r.constant, RowVar::Band(k)));
        }
        let band: Vec<Vec<i64>> = rows
            .iter()
            .filter(|(_, _, v)| matches!(v, RowVar::Band(_)))
            .map(|(c, _, _)| c.clone())
            .collect();
        RowSpace {
            rank: pluto::ortho::rank(&band),
            rows,
            params: space.params.len(),
            depth: group.depth,
        }
    }

    /// The subscripts of a reference of statement `st` over the tile, when its rows determine
    /// them with integer coefficients.
    fn subscripts(
        &self,
        scop: &Scop,
        st: &rosepolly::model::Statement,
        subscripts: &[rosepolly::model::affine::Affine],
    ) -> Option<Vec<TileSubscript>> {
        subscripts
            .iter()
            .map(|sub| {
                let lin = sub.linear()?;
                let mut iters = vec![0i64; st.iterators.len()];
                let mut params = vec![0i64; self.params];
                for (v, &c) in &lin.coeffs {
                    if let Some(i) = st.iterators.iter().position(|it| it == v) {
                        iters[i] = c;
                    } else {
                        params[scop.params.iter().position(|p| p == v)?] = c;
                    }
                }
                let coeffs: Vec<Vec<i64>> = self.rows.iter().map(|(c, _, _)| c.clone()).collect();
                let (lambda, q) = solve(&coeffs, &iters)?;
                let mut out = TileSubscript {
                    band: vec![0; self.depth],
                    params: params.iter().map(|p| p * q).collect(),
                    constant: lin.constant * q,
                    divisor: q,
                };
                for (l, (_, b, var)) in lambda.iter().zip(&self.rows) {
                    out.constant -= l * b;
                    match var {
                        RowVar::Band(k) => out.band[*k] += l,
                        RowVar::Outer(p) => out.params[*p] += l,
                    }
                }
                Some(out)
            })
            .collect()
    }
}

/// `λ` with `Σ_r λ_r rows[r] = target` (free ones zero), as integer numerators over a common
/// denominator; `None` when there is no solution.
fn solve(rows: &[Vec<i64>], target: &[i64]) -> Option<(Vec<i64>, i64)> {
    // One equation per iterator: Σ_r rows[r][i] λ_r = target[i].
    let equations: Vec<Vec<i64>> = (0..target.len())
        .map(|i| rows.iter().map(|r| r[i]).collect())
        .collect();
    let lambda = rational::solve(&equations, target)?;
    let q = lambda
        .iter()
        .fold(1i128, |q, l| q / rational::gcd(q, l.den) * l.den);
    let nums: Option<Vec<i64>> = lambda
        .iter()
        .map(|l| i64::try_from(l.num * (q / l.den)).ok())
        .collect();
    Some((nums?, i64::try_from(q).ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscripts_are_solved_over_the_rows_with_integer_coefficients() {
        // jacobi-2d's skewed band (t, 2t + i, 2t + j): i = c1 - 2 c0, j = c2 - 2 c0.
        let rows = vec![vec![1, 0, 0], vec![2, 1, 0], vec![2, 0, 1]];
        assert_eq!(solve(&rows, &[0, 1, 0]), Some((vec![-2, 1, 0], 1)));
        assert_eq!(solve(&rows, &[0, 0, 1]), Some((vec![-2, 0, 1], 1)));
        // A row the others do not reach: i of (t, t + j) is not determined.
        let rows = vec![vec![1, 0, 0], vec![1, 0, 1]];
        assert_eq!(solve(&rows, &[0, 1, 0]), None);
        // A diamond's rows (2t - i, 2t + i): i is half their difference.
        assert_eq!(
            solve(&[vec![2, -1], vec![2, 1]], &[0, 1]),
            Some((vec![-1, 1], 2))
        );
        assert_eq!(pluto::ortho::rank(&[vec![1, 0], vec![2, 0]]), 1);
    }

    #[test]
    fn extents_grow_with_the_tile_and_the_constant_spread() {
        // A[c1 - 2 c0 + {-1, 0, 1}] over a 2-deep band: extent (T1 - 1) + 2 (T0 - 1) + 3.
        let d = BufferDim {
            origin: TileExpr {
                origins: vec![-2, 1],
                sizes: vec![-2, 0],
                params: vec![],
                constant: -1,
                divisor: 1,
            },
            extent: TileExpr {
                origins: vec![0, 0],
                sizes: vec![2, 1],
                params: vec![],
                constant: 3,
                divisor: 1,
            },
        };
        assert_eq!(d.extent.eval(&[], &[0, 0], &[4, 8]), 2 * 3 + 7 + 3);
        // The tile (c0, c1) in [4, 7] x [16, 23]: i = c1 - 2 c0 spans 16 - 14 .. 23 - 8, ±1.
        assert_eq!(d.origin.eval(&[], &[4, 16], &[4, 8]), 16 - 2 * 7 - 1);
        let o = d
            .origin
            .render(|k| format!("o{k}"), |k| format!("T{k}"), &[]);
        assert_eq!(o, "-2*o0 + o1 - 2*(T0 - 1) - 1");
    }
}
