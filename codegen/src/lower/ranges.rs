//! Bound and range expressions: the ranges of tile coordinates and band points that the host
//! walks (ptile's relaxed bounds, printed as IR expressions), Algorithm 5's fullness test, and
//! the work estimate that decides whether tiles pay.

use rosepolly::model::expr::{BinaryOp, Expr, UnaryOp};

use ptile::{Bound, Term, TileGroup};

use super::Lowering;
use crate::ir::{origin, size, WorkBox};

/// The names `<pre><j>` for `j < k` (the ranges of the dimensions before `k`).
pub(super) fn named(pre: &str, k: usize) -> Vec<Expr> {
    (0..k).map(|j| Expr::var(format!("{pre}{j}"))).collect()
}

/// `e - 1`.
fn minus_one(e: Expr) -> Expr {
    Expr::binary(BinaryOp::Sub, e, Expr::int(1))
}

/// The last point of tile dimension `k`: `o_k + T_k - 1`.
pub(super) fn tile_end(k: usize) -> Expr {
    minus_one(Expr::binary(
        BinaryOp::Add,
        Expr::var(origin(k)),
        Expr::var(size(k)),
    ))
}

/// `first` raised to the first point of band dimension `j`'s bounding box (`polyc_plo<j>`):
/// a tile's start clipped to the points, so that tiles far larger than the problem span the
/// problem, not their size.
pub(super) fn clip_lo(j: usize, first: Expr) -> Expr {
    Expr::call(
        "polyc_lmax",
        vec![first, Expr::var(format!("polyc_plo{j}"))],
    )
}

/// `last` lowered to the last point of band dimension `j`'s bounding box (`polyc_phi<j>`).
pub(super) fn clip_hi(j: usize, last: Expr) -> Expr {
    Expr::call("polyc_lmin", vec![last, Expr::var(format!("polyc_phi{j}"))])
}

/// The range of tile coordinate `t_k` whose tiles cover the points `range` of band dimension
/// `k` (`ptile::TileGroup::tile_range`).
pub(super) fn tile_range(k: usize, (a, b): (Expr, Expr)) -> (Expr, Expr) {
    (floord(a, Expr::var(size(k))), floord(b, Expr::var(size(k))))
}

/// `floor(a / b)` on `long` values, as the run-time helper computes it.
fn floord(a: Expr, b: Expr) -> Expr {
    Expr::call("polyc_lfloord", vec![a, b])
}

impl Lowering<'_, '_> {
    /// The bounding boxes of the statements' domains, as ranges of each band dimension given
    /// those of the dimensions before it (`polyc_plo<j>`, `polyc_phi<j>`); None where ptile
    /// cannot bound them.
    pub(super) fn work_boxes(&self) -> Option<Vec<WorkBox>> {
        let boxes = ptile::instance_boxes(self.ctx, self.scop, self.space)?;
        Some(
            boxes
                .iter()
                .map(|b| WorkBox {
                    density: ptile::density(&self.scop.statements[b.stmt].domain.set()),
                    dims: (0..b.dims.len())
                        .map(|k| {
                            self.union_range(
                                &[&b.dims[k]],
                                &named("polyc_plo", k),
                                &named("polyc_phi", k),
                            )
                        })
                        .collect(),
                })
                .collect(),
        )
    }

    /// The affine form of a facet on the tile: `Σ a_k · corner_k + Σ a_i · p_i + c`, its tile
    /// corners written with `corner` and its parameters with `param`.
    fn facet_terms(
        &self,
        f: &ptile::Facet,
        corner: impl Fn(usize) -> Expr,
        param: impl Fn(usize) -> Expr,
    ) -> Expr {
        let mut terms = Vec::new();
        for (k, &a) in f.band.iter().enumerate() {
            if a != 0 {
                let at = if f.corner(k) {
                    corner(k)
                } else {
                    Expr::var(origin(k))
                };
                terms.push(Expr::binary(BinaryOp::Mul, Expr::int(a), at));
            }
        }
        for (i, &a) in f.params.iter().enumerate() {
            if a != 0 {
                terms.push(Expr::binary(BinaryOp::Mul, Expr::int(a), param(i)));
            }
        }
        terms.push(Expr::int(f.constant));
        Expr::binary(BinaryOp::Ge, Expr::sum(terms), Expr::int(0))
    }

    /// A facet as isl constraint text (the context of a full tile's code).
    pub(super) fn facet_isl(&self, f: &ptile::Facet) -> String {
        let names = self.isl_params();
        self.facet_terms(f, tile_end, |i| Expr::var(&names[i]))
            .to_string()
    }

    /// Algorithm 5's fullness test of a tile: every facet holds at its corner.
    pub(super) fn full_test(&self, facets: &[ptile::Facet]) -> Expr {
        Expr::all(
            facets
                .iter()
                .map(|f| self.facet_terms(f, tile_end, |i| self.param(i))),
        )
    }

    /// Parameter `i` of the tile space as a `long` (the bounds' arithmetic is 64-bit).
    fn param(&self, i: usize) -> Expr {
        Expr::cast("long", Expr::var(crate::names::user(&self.space.params[i])))
    }

    /// The range of band dimension `c_k` with the outer band dimensions in the box
    /// `[lo, hi]`: the union of the statements' relaxed ranges.
    pub(super) fn point_range(
        &self,
        group: &TileGroup,
        k: usize,
        lo: &[Expr],
        hi: &[Expr],
    ) -> (Expr, Expr) {
        let dims: Vec<&ptile::DimBounds> = group.bounds.iter().map(|b| &b.dims[k]).collect();
        self.union_range(&dims, lo, hi)
    }

    /// The union of the ranges `dims` bound, with the dimensions before them in the box
    /// `[lo, hi]`.
    fn union_range(&self, dims: &[&ptile::DimBounds], lo: &[Expr], hi: &[Expr]) -> (Expr, Expr) {
        let fold = |f: &str, v: Vec<Expr>| {
            v.into_iter()
                .reduce(|a, b| Expr::call(f, vec![a, b]))
                .expect("bounds exist")
        };
        let mut lowers = Vec::new();
        let mut uppers = Vec::new();
        for b in dims {
            let l: Vec<Expr> = b
                .lower
                .iter()
                .map(|l| {
                    Expr::unary(
                        UnaryOp::Neg,
                        floord(self.max_rest(l, lo, hi), Expr::int(l.a)),
                    )
                })
                .collect();
            let u: Vec<Expr> = b
                .upper
                .iter()
                .map(|u| floord(self.max_rest(u, lo, hi), Expr::int(-u.a)))
                .collect();
            lowers.push(fold("polyc_lmax", l));
            uppers.push(fold("polyc_lmin", u));
        }
        dedup(&mut lowers);
        dedup(&mut uppers);
        (fold("polyc_lmin", lowers), fold("polyc_lmax", uppers))
    }

    /// `rest` of a bound at its largest over the box (see `ptile::Bound`).
    fn max_rest(&self, b: &Bound, lo: &[Expr], hi: &[Expr]) -> Expr {
        let terms = b.loosest_rest().into_iter().map(|(a, t)| {
            let value = match t {
                Term::Param(i) => self.param(i),
                Term::Lo(j) => lo[j].clone(),
                Term::Hi(j) => hi[j].clone(),
            };
            Expr::binary(BinaryOp::Mul, Expr::int(a), value)
        });
        Expr::sum(terms.chain([Expr::int(b.constant)]))
    }
}

/// Keep the first of equal expressions.
fn dedup(v: &mut Vec<Expr>) {
    let mut seen: Vec<Expr> = Vec::new();
    v.retain(|x| {
        let new = !seen.contains(x);
        if new {
            seen.push(x.clone());
        }
        new
    });
}
