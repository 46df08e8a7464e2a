//! The tile space of a scheduled SCoP (thesis §6.2.1): groups of statements, their tiled band,
//! and the symbolic bounds of every band dimension.

use rosepolly::math::isl::{Ctx, DimType, Map, Set};
use rosepolly::math::{fm, ConstraintMatrix};
use rosepolly::model::Scop;

use pluto::{DimKind, Schedule};

use crate::floord;

/// One bound of a band dimension `c_k`, from a hull row `a c_k + rest >= 0` where `rest` is
/// `row · (params, c_0..c_{k-1}) + constant`: a lower bound when `a > 0`
/// (`c_k >= ceil(-rest / a)`), an upper bound when `a < 0` (`c_k <= floor(rest / -a)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// The coefficient of `c_k`.
    pub a: i64,
    /// Coefficients of the parameters (in [`TileSpace::params`] order).
    pub params: Vec<i64>,
    /// Coefficients of the outer band dimensions `c_0..c_{k-1}`.
    pub outer: Vec<i64>,
    pub constant: i64,
}

/// The bounds of one band dimension.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DimBounds {
    pub lower: Vec<Bound>,
    pub upper: Vec<Bound>,
}

/// How the tiles of a group are run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileMode {
    /// The outermost tile dimension is parallel (Definition 4): its tiles run in parallel, the
    /// inner tile dimensions sequentially inside each.
    Parallel,
    /// No outer parallel tile dimension and at least two tiled dimensions: wavefronts
    /// `w = t_0 + t_1` in order, the tile columns `(t_0, t_1)` of one wavefront in parallel, the
    /// inner tile dimensions sequentially inside each.
    Wavefront,
    /// One tiled dimension that carries dependences: tiles in order.
    Sequential,
}

/// Statements that share the scalar schedule values in front of the tiled band, and the band.
#[derive(Debug, Clone)]
pub struct TileGroup {
    /// Values of the scalar dimensions `0..band_start` shared by the group's statements.
    pub prefix: Vec<i64>,
    pub statements: Vec<usize>,
    /// First schedule dimension of the tiled band.
    pub band_start: usize,
    /// Number of tiled dimensions; 0 when the group is not tiled.
    pub depth: usize,
    pub mode: TileMode,
    /// Per band dimension: its bounds over the outer band dimensions.
    pub bounds: Vec<DimBounds>,
}

/// The tile space of a SCoP: its groups in execution order.
#[derive(Debug, Clone)]
pub struct TileSpace {
    /// C names of the parameters, the columns of [`Bound::params`].
    pub params: Vec<String>,
    pub groups: Vec<TileGroup>,
}

impl TileSpace {
    /// The largest tiled depth of any group (how many tile sizes the SCoP uses).
    pub fn depth(&self) -> usize {
        self.groups.iter().map(|g| g.depth).max().unwrap_or(0)
    }
}

/// Derive the tile space of `scop` under `schedule`.
pub fn tile_space(ctx: &Ctx, scop: &Scop, schedule: &Schedule) -> TileSpace {
    let start = schedule
        .kinds
        .iter()
        .take_while(|k| **k == DimKind::Scalar)
        .count();
    let band = schedule
        .bands
        .iter()
        .find(|b| b.start == start && b.permutable);
    let mut groups: Vec<TileGroup> = Vec::new();
    let mut order: Vec<usize> = (0..scop.statements.len()).collect();
    let prefix_of = |s: usize| -> Vec<i64> {
        schedule.rows[s][..start]
            .iter()
            .map(|r| r.constant)
            .collect()
    };
    order.sort_by_key(|&s| prefix_of(s));
    for s in order {
        match groups.last_mut() {
            Some(g) if g.prefix == prefix_of(s) => g.statements.push(s),
            _ => groups.push(TileGroup {
                prefix: prefix_of(s),
                statements: vec![s],
                band_start: start,
                depth: 0,
                mode: TileMode::Sequential,
                bounds: Vec::new(),
            }),
        }
    }
    if let Some(band) = band {
        for g in &mut groups {
            if let Some(bounds) = band_bounds(ctx, scop, schedule, &g.statements, start, band.depth)
            {
                g.depth = band.depth;
                g.bounds = bounds;
                g.mode = if band.parallel[0] {
                    TileMode::Parallel
                } else if band.depth >= 2 {
                    TileMode::Wavefront
                } else {
                    TileMode::Sequential
                };
            }
        }
    }
    TileSpace {
        params: scop.params.clone(),
        groups,
    }
}

/// The bounds of the band dimensions `start..start+depth` over the statements' instances:
/// convex hull, then Fourier–Motzkin from the innermost dimension out. `None` when some
/// dimension has no lower or no upper bound.
fn band_bounds(
    ctx: &Ctx,
    scop: &Scop,
    schedule: &Schedule,
    statements: &[usize],
    start: usize,
    depth: usize,
) -> Option<Vec<DimBounds>> {
    let cs: Vec<String> = (0..depth).map(|k| format!("polyc_c{k}")).collect();
    let mut image: Option<Set> = None;
    for &s in statements {
        let st = &scop.statements[s];
        let names = st.domain.dim_names();
        let tuple = st.domain.isl().tuple_name().expect("statements are named");
        let eqs: Vec<String> = (0..depth)
            .map(|k| format!("{} = {}", cs[k], schedule.rows[s][start + k].expr(&names)))
            .collect();
        let text = format!(
            "{}{{ {tuple}[{}] -> [{}] : {} }}",
            scop.isl_params(),
            names.join(", "),
            cs.join(", "),
            eqs.join(" and ")
        );
        let m = Map::parse(ctx, &text).expect("band images parse");
        let set = m.intersect_domain(st.domain.isl().clone()).range();
        image = Some(match image {
            None => set,
            Some(u) => u.union(set),
        });
    }
    let image = image?.remove_divs();
    // Parameter columns of the hull, mapped to the SCoP's parameter order.
    let n_params = image.dim(DimType::Param);
    let param_index: Vec<usize> = (0..n_params)
        .map(|i| {
            let name = image.dim_name(DimType::Param, i).unwrap_or_default();
            scop.params
                .iter()
                .position(|p| scop.names.get(p) == name)
                .expect("hull parameters are the SCoP's")
        })
        .collect();
    let hull = image.convex_hull();
    let (eqs, ineqs) = hull.constraint_rows();
    // Columns: params (isl order), c_0..c_{depth-1}, constant.
    let mut columns: Vec<String> = (0..n_params).map(|i| format!("p{i}")).collect();
    columns.extend(cs.iter().cloned());
    let mut m = ConstraintMatrix::new(columns);
    for r in eqs {
        m.add_equality(r);
    }
    for r in ineqs {
        m.add_inequality(r);
    }
    m.equalities_as_inequalities();
    let mut bounds = vec![DimBounds::default(); depth];
    for k in (0..depth).rev() {
        let col = n_params + k;
        for r in &m.inequalities {
            let a = r[col];
            if a == 0 {
                continue;
            }
            let mut params = vec![0; scop.params.len()];
            for (i, &pi) in param_index.iter().enumerate() {
                params[pi] = r[i];
            }
            let b = Bound {
                a,
                params,
                outer: r[n_params..col].to_vec(),
                constant: r[r.len() - 1],
            };
            if a > 0 {
                bounds[k].lower.push(b);
            } else {
                bounds[k].upper.push(b);
            }
        }
        if bounds[k].lower.is_empty() || bounds[k].upper.is_empty() {
            return None;
        }
        m = fm::eliminate(&m, col);
    }
    Some(bounds)
}

/// A term of a bound's `rest` taken at its loosest over the box of the outer band dimensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Term {
    /// Parameter `i`.
    Param(usize),
    /// The lower end of outer dimension `j`'s box.
    Lo(usize),
    /// The upper end of outer dimension `j`'s box.
    Hi(usize),
}

impl Bound {
    /// `rest` at its largest over the box `lo_j <= c_j <= hi_j` of the outer dimensions, which
    /// is the loosest the bound gets over a tile (lower and upper bounds alike): the non-zero
    /// terms with their coefficients; the constant is [`Bound::constant`]. The host code's C
    /// (codegen) and [`TileGroup::tile_range`] both evaluate these terms.
    pub fn loosest_rest(&self) -> Vec<(i64, Term)> {
        let params = self
            .params
            .iter()
            .enumerate()
            .map(|(i, &a)| (a, Term::Param(i)));
        let outer = self
            .outer
            .iter()
            .enumerate()
            .map(|(j, &a)| (a, if a > 0 { Term::Hi(j) } else { Term::Lo(j) }));
        params.chain(outer).filter(|(a, _)| *a != 0).collect()
    }

    fn max_rest(&self, params: &[i64], outer_lo: &[i64], outer_hi: &[i64]) -> i64 {
        let value = |t: Term| match t {
            Term::Param(i) => params[i],
            Term::Lo(j) => outer_lo[j],
            Term::Hi(j) => outer_hi[j],
        };
        self.loosest_rest()
            .into_iter()
            .map(|(a, t)| a * value(t))
            .sum::<i64>()
            + self.constant
    }
}

impl TileGroup {
    /// The range of `c_k` over the box of the outer band dimensions (relaxed bounds):
    /// `(max of the loosest lower bounds, min of the loosest upper bounds)`.
    pub fn point_range(
        &self,
        k: usize,
        params: &[i64],
        outer_lo: &[i64],
        outer_hi: &[i64],
    ) -> (i64, i64) {
        let b = &self.bounds[k];
        let lo = b
            .lower
            .iter()
            .map(|l| -floord(l.max_rest(params, outer_lo, outer_hi), l.a))
            .max();
        let hi = b
            .upper
            .iter()
            .map(|u| floord(u.max_rest(params, outer_lo, outer_hi), -u.a))
            .min();
        (
            lo.expect("lower bounds exist"),
            hi.expect("upper bounds exist"),
        )
    }

    /// The range of tile coordinate `t_k` given the outer tile coordinates `tiles[..k]` and the
    /// tile sizes: the tiles that can hold a point.
    pub fn tile_range(&self, k: usize, params: &[i64], tiles: &[i64], sizes: &[i64]) -> (i64, i64) {
        let lo: Vec<i64> = (0..k).map(|j| tiles[j] * sizes[j]).collect();
        let hi: Vec<i64> = (0..k).map(|j| tiles[j] * sizes[j] + sizes[j] - 1).collect();
        let (a, b) = self.point_range(k, params, &lo, &hi);
        (floord(a, sizes[k]), floord(b, sizes[k]))
    }

    /// Every tile the relaxed bounds admit, in the order the generated host code visits them
    /// (before empty-tile elimination), with its step (the wavefront, or 0) and its parallel
    /// unit (the tile coordinates one thread runs sequentially).
    pub fn candidate_tiles(&self, params: &[i64], sizes: &[i64]) -> Vec<(i64, Vec<i64>)> {
        let mut out = Vec::new();
        self.walk(0, params, sizes, &mut Vec::new(), &mut out);
        if self.mode == TileMode::Wavefront {
            out.iter_mut().for_each(|(w, t)| *w = t[0] + t[1]);
            out.sort_by_key(|(w, _)| *w);
        } else if self.mode == TileMode::Sequential {
            out.iter_mut().for_each(|(w, t)| *w = t[0]);
        }
        out
    }

    fn walk(
        &self,
        k: usize,
        params: &[i64],
        sizes: &[i64],
        tiles: &mut Vec<i64>,
        out: &mut Vec<(i64, Vec<i64>)>,
    ) {
        if k == self.depth {
            out.push((0, tiles.clone()));
            return;
        }
        let (lo, hi) = self.tile_range(k, params, tiles, sizes);
        for t in lo..=hi {
            tiles.push(t);
            self.walk(k + 1, params, sizes, tiles, out);
            tiles.pop();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(bounds: Vec<DimBounds>) -> TileGroup {
        TileGroup {
            prefix: vec![],
            statements: vec![0],
            band_start: 0,
            depth: bounds.len(),
            mode: TileMode::Wavefront,
            bounds,
        }
    }

    fn b(a: i64, params: &[i64], outer: &[i64], constant: i64) -> Bound {
        Bound {
            a,
            params: params.to_vec(),
            outer: outer.to_vec(),
            constant,
        }
    }

    #[test]
    fn triangle_tiles_are_relaxed_over_the_outer_tile() {
        // 0 <= c0 < n, 0 <= c1 <= c0: with T = 4 and n = 10, tile row t0 = 1 (c0 in 4..7)
        // admits c1 in 0..7, i.e. t1 in 0..1.
        let g = group(vec![
            DimBounds {
                lower: vec![b(1, &[0], &[], 0)],
                upper: vec![b(-1, &[1], &[], -1)],
            },
            DimBounds {
                lower: vec![b(1, &[0], &[0], 0)],
                upper: vec![b(-1, &[0], &[1], 0)],
            },
        ]);
        assert_eq!(g.tile_range(0, &[10], &[], &[4, 4]), (0, 2));
        assert_eq!(g.tile_range(1, &[10], &[1], &[4, 4]), (0, 1));
        assert_eq!(g.tile_range(1, &[10], &[0], &[4, 4]), (0, 0));
        let tiles = g.candidate_tiles(&[10], &[4, 4]);
        assert_eq!(tiles.len(), 1 + 2 + 3);
        assert!(tiles.windows(2).all(|w| w[0].0 <= w[1].0), "{tiles:?}");
    }
}
