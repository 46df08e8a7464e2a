//! Pluto's algorithm (thesis §4.1, Algorithm 1).
//!
//! Repeatedly find bands of linearly independent, permutable hyperplanes of minimum
//! communication cost by lexicographic minimisation; when none can be found, cut the graph of
//! the dependences still unsatisfied into strongly connected components with a scalar
//! dimension; stop when every statement has a full-rank schedule and every dependence is
//! satisfied.
//!
//! Dependences are tracked precisely: each convex piece of each dependence keeps the instances
//! that no dimension found so far orders (`δ = 0` on all of them); legality constraints of a
//! band apply to the pieces as they were at the band's start.

use std::time::{Duration, Instant};

use rosepolly::math::isl::Ctx;
use rosepolly::math::ConstraintMatrix;
use rosepolly::model::Scop;

use crate::deltas::{self, Piece};
use crate::farkas::{bounded_farkas_rows, DepForm, FarkasFailure};
use crate::ilp::{feasible, lexmin, IlpFailure, Layout};
use crate::order::{coefficient_order, direction, edges};
use crate::ortho::{orthogonal_basis, rank};
use crate::schedule::{Band, DimKind, Row, Schedule};
use crate::{Fusion, PlutoError, PlutoOptions};

#[derive(Clone)]
struct State<'a, 'c> {
    ctx: &'c Ctx,
    scop: &'a Scop<'c>,
    opts: &'a PlutoOptions,
    layout: Layout,
    /// Loop directions (±1) of each statement's iterators.
    sigma: Vec<Vec<i64>>,
    rows: Vec<Vec<Row>>,
    kinds: Vec<DimKind>,
    bands: Vec<Band>,
    /// Per dimension, per statement: see [`Schedule::loop_parallel`].
    parallel: Vec<Vec<bool>>,
    pieces: Vec<Piece<'c>>,
    original_from: Option<usize>,
    /// Whether a band of several unconnected components, whose distance bound grew with the
    /// parameters, ended with no parallel dimension: a cost bound per component
    /// ([`PlutoOptions::cost_per_component`]) might do better there.
    sequential_components: bool,
    /// When the run must end ([`SCHEDULE_TIME`] after it started).
    deadline: Instant,
}

/// The time one run of the scheduler may take. Each isl step in it is bounded on its own
/// ([`rosepolly::analysis::deps::STEP_TIME`]), but a SCoP with hundreds of dependence pieces
/// takes many steps. The suite's slowest, adi, schedules in about 3 s (both fusion runs).
pub const SCHEDULE_TIME: Duration = Duration::from_secs(20);

/// A scheduling ILP isl could not decide: no schedule but the original is known to be legal.
/// The largest iterator coefficient a hyperplane may have (skews in the suite's schedules are
/// at most 2).
pub const MAX_COEFFICIENT: i64 = 16;

/// The largest shift a hyperplane may give a statement: it offsets that statement's tiles
/// from the others', and the tile walk covers the gap.
pub const MAX_CONSTANT: i64 = 1024;

fn untransformable(e: IlpFailure) -> PlutoError {
    PlutoError::Untransformable(e.to_string())
}

/// Schedule a SCoP.
/// Pluto's algorithm under `opts`: the schedule, and whether a band of several unconnected
/// components ended with no parallel dimension.
pub fn run<'c>(
    ctx: &'c Ctx,
    scop: &Scop<'c>,
    opts: &PlutoOptions,
) -> Result<(Schedule, bool), PlutoError> {
    let n = scop.statements.len();
    let depths: Vec<usize> = scop.statements.iter().map(|s| s.depth()).collect();
    // Direct dependences order instances exactly as the memory-based ones do, with far fewer
    // pairs (rosepolly::analysis::deps::direct). Bounded like the model's analysis: past the
    // budget no schedule is known legal.
    let deps = rosepolly::analysis::deps::try_direct(ctx, scop)
        .map_err(|e| PlutoError::Untransformable(e.to_string()))?;
    let directions: Vec<_> = deps
        .iter()
        .flat_map(|d| {
            edges(scop, d)
                .into_iter()
                .map(|e| (d.source, d.sink, direction(scop, &e, d.source, d.sink)))
        })
        .collect();
    let order = coefficient_order(&depths, &directions, opts.direction_ordering);
    let names: Vec<String> = scop.statements.iter().map(|s| s.name.clone()).collect();
    let iters: Vec<Vec<String>> = scop
        .statements
        .iter()
        .map(|s| s.iterators.clone())
        .collect();
    let layout = Layout::new(&scop.params, &names, &iters, &order);
    let sigma = scop
        .statements
        .iter()
        .map(|s| {
            s.loops
                .iter()
                .map(|&l| scop.loops[l].stride.signum())
                .collect()
        })
        .collect();
    let pieces = deltas::direct_pieces(ctx, scop);
    let mut st = State {
        ctx,
        scop,
        opts,
        layout,
        sigma,
        rows: vec![Vec::new(); n],
        kinds: Vec::new(),
        bands: Vec::new(),
        parallel: Vec::new(),
        pieces,
        original_from: None,
        sequential_components: false,
        deadline: Instant::now() + SCHEDULE_TIME,
    };
    if opts.fusion == Fusion::NoFuse {
        st.cut(Cut::All, false);
    }
    // Each round adds at least one dimension; this bound is never reached by a correct run.
    let limit = 4 * (scop.max_depth() + 1) + 2 * n + 8;
    while !(st.full_rank() && st.pieces.is_empty()) {
        st.check_time()?;
        if st.kinds.len() > limit {
            return Err(PlutoError::NoProgress {
                dims: st.kinds.len(),
            });
        }
        let found = if st.full_rank() {
            0
        } else {
            st.find_band_or_distribute()?
        };
        if std::env::var_os("POLYC_DEBUG_PLUTO").is_some() {
            eprintln!(
                "pluto: dims {} found {found} full {} pieces {}",
                st.kinds.len(),
                st.full_rank(),
                st.pieces.len()
            );
            for (k, r) in st.rows.iter().enumerate() {
                eprintln!(
                    "   S{k}: {:?}",
                    r.iter()
                        .map(|x| (x.coeffs.clone(), x.constant))
                        .collect::<Vec<_>>()
                );
            }
            for p in &st.pieces {
                eprintln!("   {} -> {}: {}", p.src, p.sink, p.remaining);
            }
        }
        if found == 0 && !st.cut_when_stuck() {
            st.complete_with_original();
        }
    }
    let schedule = Schedule {
        rows: st.rows,
        kinds: st.kinds,
        bands: st.bands,
        parallel: st.parallel.iter().map(|p| p.iter().all(|&x| x)).collect(),
        loop_parallel: st.parallel,
        original_order_from: st.original_from,
    };
    Ok((schedule, st.sequential_components))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cut {
    /// Every SCC its own value.
    All,
    /// A new value where the dimensionality of consecutive SCCs changes.
    DimBased,
    /// Two groups: the first half of the SCCs and the rest.
    Center,
}

impl<'c> State<'_, 'c> {
    /// An error once the run is past its deadline.
    fn check_time(&self) -> Result<(), PlutoError> {
        if Instant::now() > self.deadline {
            return Err(PlutoError::Untransformable(format!(
                "the scheduler ran past its time limit ({} s)",
                SCHEDULE_TIME.as_secs()
            )));
        }
        Ok(())
    }

    fn depth(&self, s: usize) -> usize {
        self.scop.statements[s].depth()
    }

    /// The rows of statement `s` found so far, in its loop-direction space (`a' = σ·a`).
    fn hyperplanes(&self, s: usize) -> Vec<Vec<i64>> {
        self.rows[s]
            .iter()
            .filter(|r| !r.is_constant())
            .map(|r| {
                r.coeffs
                    .iter()
                    .zip(&self.sigma[s])
                    .map(|(c, g)| c * g)
                    .collect()
            })
            .collect()
    }

    fn is_full_rank(&self, s: usize) -> bool {
        rank(&self.hyperplanes(s)) >= self.depth(s)
    }

    fn full_rank(&self) -> bool {
        (0..self.rows.len()).all(|s| self.is_full_rank(s))
    }

    /// [`State::find_band`], except that an inner band that fuses several SCCs into loops none of
    /// which is parallel may give way to the SCCs distributed. Fusing at an inner level buys
    /// locality inside one iteration of the outer loops, which is worth less than parallelism
    /// there.
    /// - With [`PlutoOptions::distribute_inner`], a band of one dimension gives way when one of
    ///   the SCCs then gets a parallel loop: durbin's three `i` loops fused with shifts (`i`,
    ///   `k + i`, `2k + i`) run as one sequential loop, where distributed, two of them are
    ///   parallel, and the GPU targets have a kernel to run instead of a host fallback.
    /// - A deeper band gives way when every loop of the SCCs is then parallel: floyd-warshall's
    ///   nine pieces (`rosepolly::compilation::split`) fused with skews run wavefronts of tiles
    ///   (on the C target, 1.33 s at `N = 1200` against 0.27 s distributed).
    fn find_band_or_distribute(&mut self) -> Result<usize, PlutoError> {
        let candidate = !self.kinds.is_empty()
            && self.opts.fusion == Fusion::SmartFuse
            && self.sccs().len() >= 2;
        let before = candidate.then(|| self.clone());
        let start = self.kinds.len();
        let found = self.find_band()?;
        let Some(mut distributed) = before else {
            return Ok(found);
        };
        // Only a band with no parallel loop at all; one of one dimension only with the option.
        let single = found == 1 && !self.opts.distribute_inner;
        if found == 0 || single || self.parallel_loops(start, found) > 0 {
            return Ok(found);
        }
        if !distributed.cut(Cut::All, false) {
            return Ok(found);
        }
        let band_start = distributed.kinds.len();
        let alt = distributed.find_band()?;
        let parallel = distributed.parallel_loops(band_start, alt);
        // A deeper band has wavefronts of tiles (and Algorithm 4 may find parallelism inside
        // them): it gives way only to SCCs whose loops are all parallel, as floyd-warshall's
        // pieces are once split (rosepolly::compilation::split).
        let better = match found {
            1 => parallel > 0,
            _ => parallel > 0 && parallel == distributed.band_loops(band_start, alt),
        };
        if alt > 0 && better {
            *self = distributed;
            return Ok(alt);
        }
        Ok(found)
    }

    /// How many statements' loops at dimensions `start..start + depth` are parallel (a
    /// statement with a constant row there has no loop).
    fn parallel_loops(&self, start: usize, depth: usize) -> usize {
        (start..start + depth)
            .map(|d| {
                (0..self.rows.len())
                    .filter(|&s| self.parallel[d][s] && !self.rows[s][d].is_constant())
                    .count()
            })
            .sum()
    }

    /// How many statements' loops dimensions `start..start + depth` hold (a statement with a
    /// constant row there has no loop).
    fn band_loops(&self, start: usize, depth: usize) -> usize {
        (start..start + depth)
            .map(|d| {
                (0..self.rows.len())
                    .filter(|&s| !self.rows[s][d].is_constant())
                    .count()
            })
            .sum()
    }

    /// Algorithm 1, lines 7–19: one band of permutable hyperplanes. Returns how many were found.
    fn find_band(&mut self) -> Result<usize, PlutoError> {
        let band_pieces = self.pieces.clone();
        let t0 = std::time::Instant::now();
        // With PlutoOptions::cost_per_component each component has its own bound on
        // dependence distances (Pluto's `--per-cc-obj`); else one bound covers them all.
        let linked = deltas::connected(self.rows.len(), &band_pieces);
        let components = if self.opts.cost_per_component {
            linked.clone()
        } else {
            vec![(0..self.rows.len()).collect()]
        };
        let mut bases = Vec::new();
        for component in &components {
            let pieces: Vec<&Piece<'c>> = band_pieces
                .iter()
                .filter(|p| component.contains(&p.src))
                .collect();
            bases.push(self.band_system(&pieces)?);
        }
        let debug = std::env::var_os("POLYC_DEBUG_PLUTO").is_some();
        if debug {
            eprintln!(
                "pluto: band systems of {} components, {} pieces, {:?}",
                components.len(),
                band_pieces.len(),
                t0.elapsed()
            );
        }
        let start = self.kinds.len();
        let mut found = 0;
        let mut unbounded = false;
        while !self.full_rank() {
            let Some((sol, grows)) = self.next_hyperplane(&components, &bases, debug)? else {
                break;
            };
            self.push_hyperplane(&sol);
            unbounded |= grows;
            found += 1;
        }
        // Only a bound that grows with the parameters can have let a component settle for
        // more than its own best (ludcmp's back substitution; adi's bands are bounded).
        let several = unbounded && linked.len() > 1;
        if found > 0 {
            let t3 = std::time::Instant::now();
            self.close_band(start, found, band_pieces);
            let band = self.bands.last().expect("close_band pushed it");
            self.sequential_components |= several && band.parallel.iter().all(|&p| !p);
            if debug {
                eprintln!("pluto: close band {:?}", t3.elapsed());
            }
        }
        Ok(found)
    }

    /// The legality and bounding constraints of `pieces`, with the coefficients' bounds.
    fn band_system(&self, pieces: &[&Piece<'c>]) -> Result<ConstraintMatrix, PlutoError> {
        let context = self.nonnegative_params();
        let mut base = self.layout.system();
        for p in pieces {
            self.check_time()?;
            let form = DepForm {
                layout: &self.layout,
                src: p.src,
                sink: p.sink,
                sigma_src: &self.sigma[p.src],
                sigma_sink: &self.sigma[p.sink],
            };
            // Legality holds for every parameter value; the communication bound is a cost, and
            // is measured for non-negative problem sizes only (without that context, a piece
            // that does not mention a parameter would force its bound coefficient to zero for
            // every other piece too).
            let legality = bounded_farkas_rows(self.ctx, &p.remaining).map_err(|e| match e {
                FarkasFailure::Overflow => PlutoError::CoefficientOverflow,
                FarkasFailure::OverBudget => PlutoError::Untransformable(
                    "Farkas' lemma on a dependence ran over the analysis budget".into(),
                ),
            })?;
            form.add_legality(&mut base, &legality);
            // The bound is a cost: a piece whose bound cannot be written (or computed within
            // the budget) leaves it out (the schedule stays legal, only the cost model weakens).
            let bounded = p.remaining.clone().intersect_params(context.clone());
            if let Ok(rows) = bounded_farkas_rows(self.ctx, &bounded) {
                form.add_bounding(&mut base, &rows);
            }
        }
        self.add_coefficient_bounds(&mut base);
        base.normalize();
        Ok(base)
    }

    /// The next hyperplane of every statement, each component's solved on its own (`bases`,
    /// from [`State::band_system`]): one solution vector holding every statement's
    /// coefficients, and whether a component's distance bound grows with the parameters
    /// (some `u_p > 0`); `None` when some component has none (the band ends for all).
    fn next_hyperplane(
        &self,
        components: &[Vec<usize>],
        bases: &[ConstraintMatrix],
        debug: bool,
    ) -> Result<Option<(Vec<i64>, bool)>, PlutoError> {
        let mut all = vec![0; self.layout.names.len()];
        let mut grows = false;
        for (component, base) in components.iter().zip(bases) {
            self.check_time()?;
            let mut sys = base.clone();
            self.add_non_trivial(&mut sys, component);
            let t1 = std::time::Instant::now();
            self.add_independence(&mut sys, component)
                .map_err(untransformable)?;
            let t2 = std::time::Instant::now();
            let sol = lexmin(self.ctx, &sys, self.opts.solver).map_err(untransformable)?;
            if debug {
                eprintln!(
                    "pluto: independence {:?} lexmin {:?}",
                    t2 - t1,
                    t2.elapsed()
                );
            }
            let Some(sol) = sol else {
                if debug {
                    eprintln!("pluto: infeasible system\n{sys}");
                }
                return Ok(None);
            };
            grows |= self.layout.u.iter().any(|&u| sol[u] > 0);
            for &s in component {
                let columns = self.layout.coeff[s]
                    .iter()
                    .chain([&self.layout.constant[s]]);
                for &c in columns {
                    all[c] = sol[c];
                }
            }
        }
        Ok(Some((all, grows)))
    }

    /// `{ : n >= 0 }` for every parameter.
    fn nonnegative_params(&self) -> rosepolly::math::isl::Set<'c> {
        let names: Vec<String> = self
            .scop
            .params
            .iter()
            .map(|p| self.scop.names.get(p))
            .collect();
        let cond: Vec<String> = names.iter().map(|n| format!("{n} >= 0")).collect();
        let text = if names.is_empty() {
            "{ : }".to_string()
        } else {
            format!("[{}] -> {{ : {} }}", names.join(", "), cond.join(" and "))
        };
        rosepolly::math::isl::Set::parse(self.ctx, &text).expect("parameter context parses")
    }

    /// `Σ a'_k ≥ 1` for every statement of `stmts` that still needs hyperplanes (Pluto's EAGER
    /// mode).
    fn add_non_trivial(&self, sys: &mut ConstraintMatrix, stmts: &[usize]) {
        for &s in stmts {
            if self.is_full_rank(s) {
                continue;
            }
            let mut r = vec![0; sys.n_vars() + 1];
            for &c in &self.layout.coeff[s] {
                r[c] = 1;
            }
            r[sys.n_vars()] = -1;
            sys.add_inequality(r);
        }
    }

    /// `coefficient <= MAX_COEFFICIENT` for every iterator coefficient and `constant <=
    /// MAX_CONSTANT` for every statement's shift. Without them the lexicographic minimum
    /// trades communication for coefficients of any size: a conversion modulo 2^32 in a domain
    /// made `715827882*k + 2147483646` cheaper than any skew, and the generated program then
    /// walked 10^9 empty tiles. A band that needs more ends, as when no hyperplane exists (the
    /// bounds play the part of isl's `schedule_max_coefficient`).
    fn add_coefficient_bounds(&self, sys: &mut ConstraintMatrix) {
        let coefficients = self.layout.coeff.iter().flatten();
        let bounded = coefficients
            .map(|&c| (c, MAX_COEFFICIENT))
            .chain(self.layout.constant.iter().map(|&c| (c, MAX_CONSTANT)));
        for (column, bound) in bounded {
            let mut r = vec![0; sys.n_vars() + 1];
            r[column] = -1;
            r[sys.n_vars()] = bound;
            sys.add_inequality(r);
        }
    }

    /// Orthogonality constraints (eq. 4.10) for the statements of `stmts` that are not full
    /// rank yet.
    fn add_independence(
        &self,
        sys: &mut ConstraintMatrix,
        stmts: &[usize],
    ) -> Result<(), IlpFailure> {
        let mut extra = Vec::new();
        for &s in stmts {
            let h = self.hyperplanes(s);
            if h.is_empty() || self.is_full_rank(s) {
                continue;
            }
            let cols = &self.layout.coeff[s];
            let mut sum = vec![0; sys.n_vars() + 1];
            for v in orthogonal_basis(&h, self.depth(s)) {
                let mut r = vec![0; sys.n_vars() + 1];
                for (k, &c) in cols.iter().enumerate() {
                    r[c] = v[k];
                }
                // Orient v so that v·a' ≥ 1 is possible at all (Pluto's implementation). With
                // a' ≥ 0 the sign pattern often decides: a non-negative v is kept, a
                // non-positive one negated; only mixed ones need the integer feasibility test.
                let negate = if v.iter().all(|x| *x >= 0) {
                    false
                } else if v.iter().all(|x| *x <= 0) {
                    true
                } else {
                    let mut test = sys.clone();
                    let mut one = r.clone();
                    one[sys.n_vars()] = -1;
                    test.add_inequality(one);
                    !feasible(self.ctx, &test)?
                };
                if negate {
                    r.iter_mut().for_each(|x| *x = -*x);
                }
                for (acc, x) in sum.iter_mut().zip(&r) {
                    *acc += x;
                }
                extra.push(r);
            }
            sum[sys.n_vars()] = -1;
            extra.push(sum);
        }
        for r in extra {
            sys.add_inequality(r);
        }
        Ok(())
    }

    fn push_hyperplane(&mut self, sol: &[i64]) {
        for s in 0..self.rows.len() {
            let coeffs = self.layout.coeff[s]
                .iter()
                .zip(&self.sigma[s])
                .map(|(&c, g)| g * sol[c])
                .collect();
            self.rows[s].push(Row {
                coeffs,
                constant: sol[self.layout.constant[s]],
            });
        }
        self.kinds.push(DimKind::Hyperplane {
            band: self.bands.len(),
        });
        self.parallel.push(vec![false; self.rows.len()]);
    }

    /// Record the band: parallel flags, then what its dimensions leave unordered.
    fn close_band(&mut self, start: usize, depth: usize, pieces: Vec<Piece<'c>>) {
        let (marks, remaining) = deltas::band_marks(pieces, &self.rows, &self.kinds, start, depth);
        let parallel = marks.iter().map(|l| l.iter().all(|&p| p)).collect();
        for (k, loops) in marks.into_iter().enumerate() {
            self.parallel[start + k] = loops;
        }
        self.pieces = remaining;
        self.bands.push(Band {
            start,
            depth,
            permutable: true,
            parallel,
            diamond: None,
        });
    }

    /// No hyperplane can be found (or every statement is full rank but dependences remain):
    /// distribute, as the fusion policy says.
    fn cut_when_stuck(&mut self) -> bool {
        let order: &[Cut] = match (self.opts.fusion, self.full_rank()) {
            (_, true) | (Fusion::NoFuse, _) => &[Cut::All],
            (Fusion::SmartFuse, false) => &[Cut::DimBased, Cut::All],
            (Fusion::MaxFuse, false) => &[Cut::DimBased, Cut::Center, Cut::All],
        };
        order.iter().any(|&c| self.cut(c, true))
    }

    /// Stuck: no legal hyperplane and no cut that orders anything. This happens when earlier
    /// hyperplanes (chosen for cost, with constant shifts) leave zero-distance dependences in
    /// both directions between statements of one component. The original execution order
    /// satisfies every dependence, so appending its dimensions (as Pluto falls back to the
    /// original order) completes a legal schedule while keeping the bands found so far.
    fn complete_with_original(&mut self) {
        let (rows, kinds) = Schedule::original(self.scop);
        self.original_from = Some(self.kinds.len());
        for (d, kind) in kinds.iter().enumerate() {
            if self.full_rank() && self.pieces.is_empty() {
                break;
            }
            let dim = self.kinds.len();
            for (s, r) in rows.iter().enumerate() {
                self.rows[s].push(r[d].clone());
            }
            self.parallel.push(vec![false; self.rows.len()]);
            let pieces = std::mem::take(&mut self.pieces);
            if *kind == DimKind::Scalar {
                self.kinds.push(DimKind::Scalar);
                self.pieces = pieces
                    .into_iter()
                    .filter(|p| rows[p.src][d].constant == rows[p.sink][d].constant)
                    .collect();
            } else {
                self.kinds.push(DimKind::Hyperplane {
                    band: self.bands.len(),
                });
                self.close_band(dim, 1, pieces);
            }
        }
    }

    /// Strongly connected components of the graph of unsatisfied dependences, in topological
    /// order.
    fn sccs(&self) -> Vec<Vec<usize>> {
        deltas::components(self.rows.len(), &self.pieces)
    }

    /// Add a scalar dimension separating SCCs. With `need_progress`, only when it orders some
    /// dependence. Returns whether a dimension was added.
    fn cut(&mut self, how: Cut, need_progress: bool) -> bool {
        let sccs = self.sccs();
        if sccs.len() < 2 {
            return false;
        }
        let mut value = vec![0i64; self.rows.len()];
        let mut v = 0;
        let mut prev_dim = None;
        for (k, comp) in sccs.iter().enumerate() {
            let dim = comp.iter().map(|&s| self.depth(s)).max().unwrap_or(0);
            match how {
                Cut::All => v = k as i64,
                Cut::DimBased => {
                    if prev_dim.is_some_and(|p| p != dim) {
                        v += 1;
                    }
                }
                Cut::Center => v = i64::from(k >= sccs.len().div_ceil(2)),
            }
            prev_dim = Some(dim);
            for &s in comp {
                value[s] = v;
            }
        }
        let separates = value.iter().any(|&x| x != value[0]);
        let orders = self.pieces.iter().any(|p| value[p.src] != value[p.sink]);
        if !separates || (need_progress && !orders) {
            return false;
        }
        for (s, v) in value.iter().enumerate() {
            let d = self.depth(s);
            self.rows[s].push(Row::constant(d, *v));
        }
        self.kinds.push(DimKind::Scalar);
        self.parallel.push(vec![false; self.rows.len()]);
        self.pieces.retain(|p| value[p.src] == value[p.sink]);
        true
    }
}
