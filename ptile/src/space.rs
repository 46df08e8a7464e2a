//! The tile space of a scheduled SCoP (thesis §6.2.1): the tiled band, groups of statements,
//! and the symbolic bounds of every band dimension.
//!
//! The band tiled is the deepest permutable band of the schedule (the outermost of equal
//! depth). The schedule dimensions in front of it are *outer*: scalar ones split the statements
//! into groups, hyperplane ones become ordinary loops around the tile loops, and their values
//! (`polyc_x<d>`) are parameters of everything below, like the problem sizes.
//!
//! Bounds are kept per statement. The union of the statements' band images is generally not
//! convex with affine bounds (gemm's `C *= beta` sits at `k = 0` even when `nk = 0`), so the
//! range of a band dimension is the smallest lower bound and the largest upper bound over the
//! statements, each found by Fourier–Motzkin on the statement's own image: a relaxation, like
//! the one over the outer tile box, which the run-time emptiness probe makes exact.

use rosepolly::diag::Phase;
use rosepolly::math::isl::{Ctx, DimType, Map, Set};
use rosepolly::math::{fm, ConstraintMatrix};
use rosepolly::model::Scop;

use pluto::intratile::IntraTile;
use pluto::{DimKind, Schedule};

use crate::floord;

/// One bound of a band dimension `c_k`, from a row `a c_k + rest >= 0` where `rest` is
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

/// One statement's bounds, per band dimension.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StmtBounds {
    pub stmt: usize,
    pub dims: Vec<DimBounds>,
}

/// A facet `Σ band[k]·c_k + params·p + constant >= 0` of a statement's band image. A tile box
/// lies on its inner side when the facet holds at the box corner where it is smallest
/// ([`Facet::corner`]): that is the full-tile condition of Algorithm 5.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facet {
    pub band: Vec<i64>,
    pub params: Vec<i64>,
    pub constant: i64,
}

impl Facet {
    /// For band dimension `k`: whether the facet is smallest at the tile's last point
    /// (`o_k + T_k - 1`, negative coefficient) rather than at its origin `o_k`.
    pub fn corner(&self, k: usize) -> bool {
        self.band[k] < 0
    }

    /// Does the facet hold on the whole box `[o_k, o_k + T_k - 1]`?
    pub fn holds_on_box(&self, params: &[i64], origins: &[i64], sizes: &[i64]) -> bool {
        let band: i64 = (0..self.band.len())
            .map(|k| {
                let at = origins[k] + if self.corner(k) { sizes[k] - 1 } else { 0 };
                self.band[k] * at
            })
            .sum();
        let p: i64 = self.params.iter().zip(params).map(|(a, v)| a * v).sum();
        band + p + self.constant >= 0
    }
}

/// How the tiles of a group are run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TileMode {
    /// The outermost tile dimensions are parallel (Definition 4): their tiles run in parallel,
    /// the other tile dimensions in order inside each.
    Parallel,
    /// No outer parallel tile dimension and at least two tiled dimensions: wavefronts
    /// `w = t_0 + ... + t_{m-1}` in order, the tiles of one wavefront in parallel.
    Wavefront,
    /// One tiled dimension that carries dependences: tiles in order.
    Sequential,
}

/// Statements that share the scalar schedule values in front of the tiled band.
#[derive(Debug, Clone)]
pub struct TileGroup {
    /// Values of the scalar dimensions among `0..band_start`, in order.
    pub prefix: Vec<i64>,
    pub statements: Vec<usize>,
    /// First schedule dimension of the tiled band.
    pub band_start: usize,
    /// Number of tiled dimensions; 0 when the group is not tiled.
    pub depth: usize,
    pub mode: TileMode,
    /// How many leading tile dimensions are parallel (Definition 4).
    pub parallel_tiles: usize,
    /// Per statement: its bounds over the outer band dimensions.
    pub bounds: Vec<StmtBounds>,
    /// The full-tile condition: every facet holds on the tile box. Empty when the group has
    /// no full-tile version (no statement whose image is a full-dimensional polyhedron).
    pub full: Vec<Facet>,
}

/// The tile space of a SCoP: its groups in execution order.
#[derive(Debug, Clone)]
pub struct TileSpace {
    /// C names of the parameters, the columns of [`Bound::params`]: the SCoP's parameters,
    /// then the values of the outer hyperplane dimensions ([`outer_param`]).
    pub params: Vec<String>,
    /// How many of [`TileSpace::params`] are the SCoP's own.
    pub scop_params: usize,
    /// The tiled band (index into the schedule's bands), if any.
    pub band: Option<usize>,
    /// Hyperplane dimensions in front of the band: loops around the tile loops.
    pub outer_dims: Vec<usize>,
    pub groups: Vec<TileGroup>,
    /// Algorithm 4 on the tiled band: the intra-tile structure.
    pub intra: Option<IntraTile>,
}

/// The name of the parameter that holds outer dimension `d`'s value.
pub fn outer_param(d: usize) -> String {
    format!("polyc_x{d}")
}

impl TileSpace {
    /// The largest tiled depth of any group (how many tile sizes the SCoP uses).
    pub fn depth(&self) -> usize {
        self.groups.iter().map(|g| g.depth).max().unwrap_or(0)
    }

    /// First schedule dimension of the tiled band (the number of outer dimensions), or the
    /// schedule's scalar prefix when nothing is tiled.
    pub fn band_start(&self) -> usize {
        self.groups.first().map(|g| g.band_start).unwrap_or(0)
    }
}

/// Which groups to tile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TilePolicy {
    /// Tile only bands of at least this depth (a band of one sequential dimension gains
    /// nothing from tiles on a CPU; a GPU needs tiles for every band).
    pub min_depth: usize,
}

impl TilePolicy {
    /// The C target's policy.
    pub const CPU: TilePolicy = TilePolicy { min_depth: 2 };
    /// The GPU targets' policy.
    pub const GPU: TilePolicy = TilePolicy { min_depth: 1 };
}

impl Default for TilePolicy {
    fn default() -> Self {
        TilePolicy::GPU
    }
}

/// The band to tile: the deepest permutable one with parallelism (a parallel dimension, or
/// two dimensions for wavefronts), the outermost among equals; else the deepest permutable one.
/// (adi: its time band is one sequential dimension, its `i` band one parallel dimension; the
/// latter is tiled, inside a loop over time.) A dimension counts as parallel when it is for
/// all statements, or for some statement's own loop there (durbin: of the three `i` loops
/// distributed inside the `k` loop, two are parallel and the sum is not).
pub fn tiled_band(schedule: &Schedule) -> Option<usize> {
    let some_loop_parallel = |d: usize| {
        schedule.loop_parallel[d]
            .iter()
            .enumerate()
            .any(|(s, &p)| p && !schedule.rows[s][d].is_constant())
    };
    let key = |b: &pluto::Band| {
        let parallel =
            b.parallel.iter().any(|p| *p) || (b.start..b.start + b.depth).any(some_loop_parallel);
        (b.depth >= 2 || parallel, b.depth)
    };
    let mut best: Option<usize> = None;
    for (i, b) in schedule.bands.iter().enumerate() {
        if b.permutable && best.is_none_or(|j| key(b) > key(&schedule.bands[j])) {
            best = Some(i);
        }
    }
    best
}

/// Derive the tile space of `scop` under `schedule`.
pub fn tile_space(ctx: &Ctx, scop: &Scop, schedule: &Schedule, policy: &TilePolicy) -> TileSpace {
    let band_index = tiled_band(schedule).filter(|&b| schedule.bands[b].depth >= policy.min_depth);
    let start = match band_index {
        Some(b) => schedule.bands[b].start,
        None => schedule
            .kinds
            .iter()
            .take_while(|k| **k == DimKind::Scalar)
            .count(),
    };
    let outer_dims: Vec<usize> = (0..start)
        .filter(|&d| schedule.kinds[d] != DimKind::Scalar)
        .collect();
    let mut params = scop.params.clone();
    params.extend(outer_dims.iter().map(|&d| outer_param(d)));
    let mut space = TileSpace {
        params,
        scop_params: scop.params.len(),
        band: band_index,
        outer_dims,
        groups: groups(schedule, scop.statements.len(), start),
        intra: None,
    };
    let Some(b) = band_index else {
        return space;
    };
    let band = &schedule.bands[b];
    let image = BandImage {
        ctx,
        scop,
        schedule,
        space: &space,
        start,
        depth: band.depth,
    };
    let tiles: Result<Vec<_>, NoBounds> = space
        .groups
        .iter()
        .map(|g| image.group(&g.statements))
        .collect();
    // A dimension without a bound (an unbounded domain), or bounds past Fourier–Motzkin's row
    // limit, leave the whole SCoP untiled.
    let tiles = match tiles {
        Ok(tiles) => tiles,
        Err(why) => {
            ctx.fell_back(Phase::Tiling, why.describe(start));
            return space;
        }
    };
    for (g, (bounds, full)) in space.groups.iter_mut().zip(tiles) {
        // A group's statements share its loops (the same constants before the band), so its
        // dimension is parallel when their loop is ([`Schedule::loop_parallel`]): with the
        // whole band's when one group has every statement, or for a group that a scalar
        // dimension separates from the sequential ones (gramschmidt's column updates beside
        // its norm's reduction: their tiles run in parallel, not by wavefronts).
        let parallel = |k: usize| {
            g.statements
                .iter()
                .all(|&s| schedule.loop_parallel[start + k][s])
        };
        let parallel_tiles = (0..band.depth).take_while(|&k| parallel(k)).count();
        g.depth = band.depth;
        g.mode = if parallel_tiles > 0 {
            TileMode::Parallel
        } else if band.depth >= 2 {
            TileMode::Wavefront
        } else {
            TileMode::Sequential
        };
        g.parallel_tiles = parallel_tiles;
        g.bounds = bounds;
        g.full = full;
    }
    space.intra = Some(pluto::intratile::eliminate_band(ctx, scop, schedule, b));
    space
}

/// Per statement, the bounds of its domain's dimensions (its iterators) over the SCoP's
/// parameters: the bounding box of its instances, for estimating the work. `None` when some
/// domain is unbounded.
pub fn instance_boxes(ctx: &Ctx, scop: &Scop, space: &TileSpace) -> Option<Vec<StmtBounds>> {
    scop.statements
        .iter()
        .enumerate()
        .map(|(s, st)| {
            let image = BandImage {
                ctx,
                scop,
                schedule: &Schedule {
                    rows: Vec::new(),
                    kinds: Vec::new(),
                    bands: Vec::new(),
                    parallel: Vec::new(),
                    loop_parallel: Vec::new(),
                    original_order_from: None,
                },
                space,
                start: 0,
                depth: st.depth(),
            };
            let domain = st.domain.set().remove_divs();
            image
                .bounds(&domain)
                .ok()
                .map(|(dims, _)| StmtBounds { stmt: s, dims })
        })
        .collect()
}

/// The instances of `domain` over the volume of their bounding box, with every parameter at
/// one sample value (so that about 2^18 points or fewer are counted); 1 where that gives no
/// instance. Triangular and tetrahedral loop nests fill a fraction of their box (about 1/6 for
/// ludcmp's `k < j < i < n`), which a work estimate from box volumes would otherwise count in
/// full.
pub fn density(domain: &Set) -> f64 {
    let depth = domain.dim(DimType::Set);
    if depth == 0 {
        return 1.0;
    }
    let sample = (2f64.powf(18.0 / depth as f64) as i64).clamp(4, 64);
    let mut set = domain.clone();
    for p in 0..set.dim(DimType::Param) {
        set = set.fix(DimType::Param, p, sample);
    }
    let Some(count) = set.is_bounded().then(|| set.count()).flatten() else {
        return 1.0;
    };
    let volume: f64 = (0..depth)
        .map(|k| {
            let dim = set
                .clone()
                .project_out(DimType::Set, k + 1, depth - k - 1)
                .project_out(DimType::Set, 0, k);
            match (
                dim.clone().lexmin().points().first(),
                dim.lexmax().points().first(),
            ) {
                (Some(lo), Some(hi)) => (hi[0] - lo[0] + 1) as f64,
                _ => 0.0,
            }
        })
        .product();
    if count == 0 || volume <= 0.0 {
        1.0
    } else {
        (count as f64 / volume).min(1.0)
    }
}

/// Statements grouped by their values of the scalar dimensions in front of `start`, in
/// schedule order; nothing tiled yet.
fn groups(schedule: &Schedule, n: usize, start: usize) -> Vec<TileGroup> {
    let prefix_of = |s: usize| -> Vec<i64> {
        (0..start)
            .filter(|&d| schedule.kinds[d] == DimKind::Scalar)
            .map(|d| schedule.rows[s][d].constant)
            .collect()
    };
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|&s| prefix_of(s));
    let mut groups: Vec<TileGroup> = Vec::new();
    for s in order {
        match groups.last_mut() {
            Some(g) if g.prefix == prefix_of(s) => g.statements.push(s),
            _ => groups.push(TileGroup {
                prefix: prefix_of(s),
                statements: vec![s],
                band_start: start,
                depth: 0,
                mode: TileMode::Sequential,
                parallel_tiles: 0,
                bounds: Vec::new(),
                full: Vec::new(),
            }),
        }
    }
    groups
}

/// Band images of statements, with the outer dimensions as parameters.
struct BandImage<'a, 'c> {
    ctx: &'c Ctx,
    scop: &'a Scop<'c>,
    schedule: &'a Schedule,
    space: &'a TileSpace,
    start: usize,
    depth: usize,
}

impl<'c> BandImage<'_, 'c> {
    fn group(&self, statements: &[usize]) -> Result<(Vec<StmtBounds>, Vec<Facet>), NoBounds> {
        let mut bounds = Vec::new();
        let mut full = Vec::new();
        for &s in statements {
            let image = self.image(s);
            let (dims, facets) = self.bounds(&image)?;
            bounds.push(StmtBounds { stmt: s, dims });
            full.extend(facets);
        }
        Ok((bounds, full))
    }

    /// `{ [c_0..c_{depth-1}] }` of statement `s`'s instances, over the space's parameters.
    fn image(&self, s: usize) -> Set<'c> {
        let scop = self.scop;
        let st = &scop.statements[s];
        let names = st.domain.dim_names();
        let tuple = st.domain.tuple_name().expect("statements are named");
        let rows = &self.schedule.rows[s];
        let cs: Vec<String> = (0..self.depth).map(|k| format!("polyc_c{k}")).collect();
        // The tile coordinates: the band's tiling rows (a diamond's cone complement first).
        let mut eqs: Vec<String> = (0..self.depth)
            .map(|k| {
                let row = self.schedule.tiling_row(s, self.start + k);
                format!("{} = {}", cs[k], row.expr(&names))
            })
            .collect();
        eqs.extend(
            self.space
                .outer_dims
                .iter()
                .map(|&d| format!("{} = {}", outer_param(d), rows[d].expr(&names))),
        );
        let mut params: Vec<String> = scop.params.iter().map(|p| scop.names.get(p)).collect();
        params.extend(self.space.outer_dims.iter().map(|&d| outer_param(d)));
        let text = format!(
            "[{}] -> {{ {tuple}[{}] -> [{}] : {} }}",
            params.join(", "),
            names.join(", "),
            cs.join(", "),
            eqs.join(" and ")
        );
        let m = Map::parse(self.ctx, &text).expect("band images parse");
        st.domain.restrict(m).range().remove_divs()
    }

    /// Index in [`TileSpace::params`] of each parameter column of `set`.
    fn param_index(&self, set: &Set) -> Vec<usize> {
        let scop = self.scop;
        (0..set.dim(DimType::Param))
            .map(|i| {
                let name = set.dim_name(DimType::Param, i).unwrap_or_default();
                scop.params
                    .iter()
                    .position(|p| scop.names.get(p) == name)
                    .or_else(|| {
                        self.space
                            .outer_dims
                            .iter()
                            .position(|&d| outer_param(d) == name)
                            .map(|j| scop.params.len() + j)
                    })
                    .expect("image parameters are the space's")
            })
            .collect()
    }

    /// Bounds of every band dimension by Fourier–Motzkin from the innermost out, and the
    /// facets of the image when it is a full-dimensional polyhedron; an error when some
    /// dimension has no lower or no upper bound, or Fourier–Motzkin would pass
    /// [`fm::MAX_ROWS`].
    fn bounds(&self, image: &Set<'c>) -> Result<(Vec<DimBounds>, Vec<Facet>), NoBounds> {
        let param_index = self.param_index(image);
        let n_params = param_index.len();
        let n_space = self.space.params.len();
        let to_space = |r: &[i64]| {
            let mut params = vec![0; n_space];
            for (i, &pi) in param_index.iter().enumerate() {
                params[pi] = r[i];
            }
            params
        };
        let hull = image.clone().convex_hull();
        let (eqs, ineqs) = hull.constraint_rows();
        let exact = eqs.is_empty() && hull.clone().to_set().is_equal(image);
        let facets: Vec<Facet> = if exact {
            ineqs
                .iter()
                .map(|r| Facet {
                    band: r[n_params..n_params + self.depth].to_vec(),
                    params: to_space(r),
                    constant: r[r.len() - 1],
                })
                .collect()
        } else {
            Vec::new()
        };
        let mut columns: Vec<String> = (0..n_params).map(|i| format!("p{i}")).collect();
        columns.extend((0..self.depth).map(|k| format!("c{k}")));
        let mut m = ConstraintMatrix::new(columns);
        eqs.into_iter().for_each(|r| m.add_equality(r));
        ineqs.into_iter().for_each(|r| m.add_inequality(r));
        m.equalities_as_inequalities();
        let mut bounds = vec![DimBounds::default(); self.depth];
        for k in (0..self.depth).rev() {
            let col = n_params + k;
            for r in &m.inequalities {
                let a = r[col];
                if a == 0 {
                    continue;
                }
                let b = Bound {
                    a,
                    params: to_space(r),
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
                return Err(NoBounds::Unbounded(k));
            }
            // Past the row limit the band's bounds are not worth their cost: untiled.
            m = fm::try_eliminate(&m, col).ok_or(NoBounds::PastRowLimit(k))?;
        }
        Ok((bounds, facets))
    }
}

/// Why a band image has no tile loop bounds: its dimension `k` has no lower or no upper bound,
/// or eliminating it by Fourier–Motzkin would pass [`fm::MAX_ROWS`] inequalities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NoBounds {
    Unbounded(usize),
    PastRowLimit(usize),
}

impl NoBounds {
    /// A sentence for `--dump fallbacks`, for the band starting at dimension `start`.
    fn describe(self, start: usize) -> String {
        match self {
            NoBounds::Unbounded(k) => format!(
                "the SCoP runs untiled: band dimension {} has no lower or no upper bound",
                start + k
            ),
            NoBounds::PastRowLimit(k) => format!(
                "the SCoP runs untiled: the tile loops' bounds of band dimension {} would take Fourier-Motzkin past {} inequalities",
                start + k,
                fm::MAX_ROWS
            ),
        }
    }
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

impl DimBounds {
    /// `(max of the loosest lower bounds, min of the loosest upper bounds)` over the box.
    fn range(&self, params: &[i64], outer_lo: &[i64], outer_hi: &[i64]) -> (i64, i64) {
        let lo = self
            .lower
            .iter()
            .map(|l| -floord(l.max_rest(params, outer_lo, outer_hi), l.a))
            .max();
        let hi = self
            .upper
            .iter()
            .map(|u| floord(u.max_rest(params, outer_lo, outer_hi), -u.a))
            .min();
        (
            lo.expect("lower bounds exist"),
            hi.expect("upper bounds exist"),
        )
    }
}

impl TileGroup {
    /// The range of `c_k` over the box of the outer band dimensions (relaxed bounds): the
    /// union of the statements' ranges.
    pub fn point_range(
        &self,
        k: usize,
        params: &[i64],
        outer_lo: &[i64],
        outer_hi: &[i64],
    ) -> (i64, i64) {
        self.bounds
            .iter()
            .map(|b| b.dims[k].range(params, outer_lo, outer_hi))
            .reduce(|(a, b), (c, d)| (a.min(c), b.max(d)))
            .expect("tiled groups have statements")
    }

    /// The range of tile coordinate `t_k` given the outer tile coordinates `tiles[..k]` and the
    /// tile sizes: the tiles that can hold a point.
    pub fn tile_range(&self, k: usize, params: &[i64], tiles: &[i64], sizes: &[i64]) -> (i64, i64) {
        let lo: Vec<i64> = (0..k).map(|j| tiles[j] * sizes[j]).collect();
        let hi: Vec<i64> = (0..k).map(|j| tiles[j] * sizes[j] + sizes[j] - 1).collect();
        let (a, b) = self.point_range(k, params, &lo, &hi);
        (floord(a, sizes[k]), floord(b, sizes[k]))
    }

    /// The range of `t_k` over every tile the space can hold (`ranges` of the outer
    /// dimensions, by the same relaxation): what bounds the wavefronts.
    pub fn global_ranges(&self, params: &[i64], sizes: &[i64]) -> Vec<(i64, i64)> {
        let mut out: Vec<(i64, i64)> = Vec::new();
        for k in 0..self.depth {
            let lo: Vec<i64> = out.iter().zip(sizes).map(|(r, t)| r.0 * t).collect();
            let hi: Vec<i64> = out
                .iter()
                .zip(sizes)
                .map(|(r, t)| r.1 * t + t - 1)
                .collect();
            let (a, b) = self.point_range(k, params, &lo, &hi);
            out.push((floord(a, sizes[k]), floord(b, sizes[k])));
        }
        out
    }

    /// Is the tile full: every facet holds on its box?
    pub fn is_full(&self, params: &[i64], tiles: &[i64], sizes: &[i64]) -> bool {
        let origins: Vec<i64> = tiles.iter().zip(sizes).map(|(t, s)| t * s).collect();
        !self.full.is_empty()
            && self
                .full
                .iter()
                .all(|f| f.holds_on_box(params, &origins, sizes))
    }

    /// How many leading tile dimensions a wavefront spans when `wave_dims` are asked for.
    pub fn wave_width(&self, wave_dims: usize) -> usize {
        match self.mode {
            TileMode::Wavefront => wave_dims.clamp(2, self.depth),
            TileMode::Parallel | TileMode::Sequential => 1,
        }
    }

    /// Every tile the relaxed bounds admit, in the order the generated host code visits them
    /// (before empty-tile elimination), with its step: the wavefront `t_0 + ... + t_{m-1}`
    /// (`m` = [`TileGroup::wave_width`]), `t_0` for sequential tiles, 0 for parallel ones.
    pub fn candidate_tiles(
        &self,
        params: &[i64],
        sizes: &[i64],
        wave_dims: usize,
    ) -> Vec<(i64, Vec<i64>)> {
        let mut out = Vec::new();
        self.walk(0, params, sizes, &mut Vec::new(), &mut out);
        let m = self.wave_width(wave_dims);
        match self.mode {
            TileMode::Wavefront => {
                out.iter_mut().for_each(|(w, t)| *w = t[..m].iter().sum());
                out.sort_by_key(|(w, _)| *w);
            }
            TileMode::Sequential => out.iter_mut().for_each(|(w, t)| *w = t[0]),
            TileMode::Parallel => {}
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

    #[test]
    fn density_is_the_share_of_the_box_a_domain_fills() {
        let ctx = Ctx::new();
        let d = |text: &str| density(&Set::parse(&ctx, text).unwrap());
        assert_eq!(d("[n] -> { S[i, j] : 0 <= i < n and 0 <= j < n }"), 1.0);
        // A triangle of 64 * 65 / 2 points in a 64 x 64 box.
        let tri = d("[n] -> { S[i, j] : 0 <= j <= i < n }");
        assert!((tri - 65.0 / 128.0).abs() < 1e-12, "{tri}");
        // ludcmp's tetrahedron `k < j < i < n` fills about a sixth of its box: at n = 64,
        // C(64, 3) points in the box 62 x 62 x 62 of the iterators' ranges.
        let tet = d("[n] -> { S[i, j, k] : 0 <= k < j < i < n }");
        assert!((tet - 41664.0 / 238328.0).abs() < 1e-12, "{tet}");
        // No point at the sample value: counted as a full box.
        assert_eq!(d("[n] -> { S[i] : n < 0 and 0 <= i }"), 1.0);
        assert_eq!(d("{ S[] }"), 1.0);
    }

    fn group(dims: Vec<DimBounds>) -> TileGroup {
        TileGroup {
            prefix: vec![],
            statements: vec![0],
            band_start: 0,
            depth: dims.len(),
            mode: TileMode::Wavefront,
            parallel_tiles: 0,
            bounds: vec![StmtBounds { stmt: 0, dims }],
            full: vec![],
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

    /// 0 <= c0 < n, 0 <= c1 <= c0.
    fn triangle() -> Vec<DimBounds> {
        vec![
            DimBounds {
                lower: vec![b(1, &[0], &[], 0)],
                upper: vec![b(-1, &[1], &[], -1)],
            },
            DimBounds {
                lower: vec![b(1, &[0], &[0], 0)],
                upper: vec![b(-1, &[0], &[1], 0)],
            },
        ]
    }

    #[test]
    fn triangle_tiles_are_relaxed_over_the_outer_tile() {
        // With T = 4 and n = 10, tile row t0 = 1 (c0 in 4..7) admits c1 in 0..7, i.e. t1 in
        // 0..1.
        let g = group(triangle());
        assert_eq!(g.tile_range(0, &[10], &[], &[4, 4]), (0, 2));
        assert_eq!(g.tile_range(1, &[10], &[1], &[4, 4]), (0, 1));
        assert_eq!(g.tile_range(1, &[10], &[0], &[4, 4]), (0, 0));
        let tiles = g.candidate_tiles(&[10], &[4, 4], 2);
        assert_eq!(tiles.len(), 1 + 2 + 3);
        assert!(tiles.windows(2).all(|w| w[0].0 <= w[1].0), "{tiles:?}");
        assert_eq!(g.global_ranges(&[10], &[4, 4]), vec![(0, 2), (0, 2)]);
    }

    #[test]
    fn statement_ranges_are_united() {
        // gemm: S0 at c1 = 0, S1 over 0 <= c1 < nk; with nk = 0 the range is S0's point.
        let mut g = group(vec![DimBounds {
            lower: vec![b(1, &[0], &[], 0)],
            upper: vec![b(-1, &[0], &[], 0)],
        }]);
        g.bounds.push(StmtBounds {
            stmt: 1,
            dims: vec![DimBounds {
                lower: vec![b(1, &[0], &[], 0)],
                upper: vec![b(-1, &[1], &[], -1)],
            }],
        });
        assert_eq!(g.point_range(0, &[0], &[], &[]), (0, 0));
        assert_eq!(g.point_range(0, &[7], &[], &[]), (0, 6));
    }

    #[test]
    fn facets_decide_full_tiles() {
        // 0 <= c0 <= 9 as two facets: a tile of 4 is full at t = 0, 1, not at t = 2.
        let mut g = group(triangle()[..1].to_vec());
        g.depth = 1;
        g.full = vec![
            Facet {
                band: vec![1],
                params: vec![0],
                constant: 0,
            },
            Facet {
                band: vec![-1],
                params: vec![0],
                constant: 9,
            },
        ];
        assert!(g.is_full(&[0], &[0], &[4]));
        assert!(g.is_full(&[0], &[1], &[4]));
        assert!(!g.is_full(&[0], &[2], &[4]));
        assert!(!g.is_full(&[0], &[-1], &[4]));
    }
}
