//! Lowering a scheduled SCoP and its tile space to the kernel IR ([`crate::ir`]).
//!
//! Everything here is target-neutral except the choice the [`Device`] makes: the order of the
//! band dimensions inside a tile ([`ptile::intra`]), and for a GPU, which of them the
//! work-items of a work-group share out and where they must wait for each other.

use std::collections::BTreeSet;
use std::fmt::Write;

use rosepolly::math::isl::{Ctx, Map, UnionMap};
use rosepolly::model::expr::{BinaryOp, Expr};
use rosepolly::model::Scop;
use rosepolly::syntax::{self, Node, RecoveryOptions};

use pluto::{DimKind, Schedule};
use ptile::{outer_param, Bound, IntraDim, IntraOrder, Term, TileGroup, TileMode, TileSpace};

use crate::ir::{base, origin, size, GroupCode, GroupIr, KNode, ScopIr, ThreadLayout, TiledGroup};

/// What runs the tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Device {
    /// Threads of a multicore: one tile per thread at a time, its code sequential.
    Cpu,
    /// Work-groups of a GPU (or any OpenCL device): one tile per work-group, its points
    /// shared out among the work-items.
    Gpu,
}

/// One dimension of a recovered schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OutDim {
    /// Schedule dimension `d`.
    Sched(usize),
    /// Algorithm 4's component number.
    Cut,
}

/// Everything the lowering reads.
pub struct Lowering<'a, 'c> {
    pub ctx: &'c Ctx,
    pub scop: &'a Scop<'c>,
    pub schedule: &'a Schedule,
    pub space: &'a TileSpace,
    /// Prefix of the schedule-dimension iterators (`c` → `c0`, `c1`...).
    pub prefix: &'a str,
    pub device: Device,
    /// GPU: share out every tile by intra-tile wavefronts, even where band dimensions are
    /// parallel (to exercise the wavefront layout; slower).
    pub force_wavefront: bool,
}

impl Lowering<'_, '_> {
    pub fn lower(&self) -> ScopIr {
        ScopIr {
            id: self.scop.id,
            depth: self.space.depth(),
            params: self.scop.params.clone(),
            host: self.host(),
            groups: (0..self.space.groups.len())
                .map(|g| self.group(g))
                .collect(),
            original: self.original_and_work(),
        }
    }

    /// On a CPU without outer loops: the SCoP in its original order, and C code computing
    /// `polyc_points`, the number of statement instances the bounding boxes of the domains
    /// hold (the estimate of the work that decides whether tiles pay).
    fn original_and_work(&self) -> Option<(KNode, String)> {
        if self.device != Device::Cpu || !self.space.outer_dims.is_empty() {
            return None;
        }
        let boxes = ptile::instance_boxes(self.ctx, self.scop, self.space)?;
        let mut work = String::from("double polyc_points = 0;\n");
        for b in &boxes {
            work.push_str("{\n  double polyc_v = 1;\n");
            for k in 0..b.dims.len() {
                let lo: Vec<String> = (0..k).map(|j| format!("polyc_plo{j}")).collect();
                let hi: Vec<String> = (0..k).map(|j| format!("polyc_phi{j}")).collect();
                let (l, h) = self.union_range_expr(&[&b.dims[k]], &lo, &hi);
                let _ = writeln!(work, "  const long polyc_plo{k} = {l}, polyc_phi{k} = {h};");
                let _ = writeln!(
                    work,
                    "  polyc_v *= (double)polyc_lmax(0, polyc_phi{k} - polyc_plo{k} + 1);"
                );
            }
            work.push_str("  polyc_points += polyc_v;\n}\n");
        }
        Some((self.original(), work))
    }

    /// The SCoP in its original execution order (for problems too small to tile).
    fn original(&self) -> KNode {
        let schedule = pluto::original_schedule(self.ctx, self.scop);
        let iterators: Vec<String> = (0..schedule.n_dims())
            .map(|d| format!("{}{d}", self.prefix))
            .collect();
        let rec = RecoveryOptions::new(&iterators);
        let program = syntax::recover(
            self.ctx,
            self.scop,
            schedule.union_map(self.ctx, self.scop),
            &rec,
        );
        KNode::from_syntax(&program)
    }

    fn start(&self) -> usize {
        self.space.band_start()
    }

    fn iterator(&self, d: OutDim) -> String {
        match d {
            OutDim::Sched(d) => format!("{}{d}", self.prefix),
            OutDim::Cut => "polyc_cut".into(),
        }
    }

    /// Parameters of group code besides the SCoP's: outer values, tile origins and sizes.
    fn extra_params(&self) -> Vec<String> {
        let mut extra: Vec<String> = self
            .space
            .outer_dims
            .iter()
            .map(|&d| outer_param(d))
            .collect();
        for k in 0..self.space.depth() {
            extra.push(origin(k));
            extra.push(size(k));
        }
        extra
    }

    fn isl_params(&self) -> Vec<String> {
        let scop = self.scop;
        let mut params: Vec<String> = scop.params.iter().map(|p| scop.names.get(p)).collect();
        params.extend(self.extra_params());
        params
    }

    /// The outer structure: loops over the hyperplane dimensions in front of the band, with one
    /// call per group, generated by isl from one virtual statement per group whose domain is
    /// the outer values the group's statements take.
    fn host(&self) -> Node {
        let start = self.start();
        if start == 0 {
            return Node::User {
                stmt: 0,
                args: vec![],
            };
        }
        let scop = self.scop;
        let params = format!(
            "[{}] -> ",
            scop.params
                .iter()
                .map(|p| scop.names.get(p))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let outer = &self.space.outer_dims;
        let ys: Vec<String> = (0..outer.len()).map(|j| format!("polyc_y{j}")).collect();
        let mut names = Vec::new();
        let mut u = UnionMap::empty(self.ctx);
        for (g, group) in self.space.groups.iter().enumerate() {
            let name = format!("polyc_G{g}");
            let mut scalars = group.prefix.iter();
            let dims: Vec<String> = (0..start)
                .map(|d| match self.schedule.kinds[d] {
                    DimKind::Scalar => scalars.next().expect("prefix values").to_string(),
                    DimKind::Hyperplane { .. } => {
                        ys[outer.iter().position(|&o| o == d).expect("outer dim")].clone()
                    }
                })
                .collect();
            let sched = Map::parse(
                self.ctx,
                &format!(
                    "{params}{{ {name}[{}] -> [{}] }}",
                    ys.join(", "),
                    dims.join(", ")
                ),
            )
            .expect("group schedules parse");
            let mut domain = None;
            for &s in &group.statements {
                let st = &scop.statements[s];
                let vars = st.domain.dim_names();
                let tuple = st.domain.isl().tuple_name().expect("named statements");
                let values: Vec<String> = outer
                    .iter()
                    .map(|&d| self.schedule.rows[s][d].expr(&vars))
                    .collect();
                let m = Map::parse(
                    self.ctx,
                    &format!(
                        "{params}{{ {tuple}[{}] -> {name}[{}] }}",
                        vars.join(", "),
                        values.join(", ")
                    ),
                )
                .expect("group calls parse");
                let image = m.intersect_domain(st.domain.isl().clone()).range();
                domain = Some(match domain {
                    None => image,
                    Some(d) => image.union(d),
                });
            }
            let domain = domain.expect("groups have statements").coalesce();
            u = u.add_map(sched.intersect_domain(domain));
            names.push(name);
        }
        let iterators: Vec<String> = (0..start)
            .map(|d| self.iterator(OutDim::Sched(d)))
            .collect();
        let rec = RecoveryOptions {
            virtual_statements: &names,
            ..RecoveryOptions::new(&iterators)
        };
        syntax::recover(self.ctx, scop, u, &rec)
    }

    fn group(&self, g: usize) -> GroupIr {
        let group = &self.space.groups[g];
        let names = group
            .statements
            .iter()
            .map(|&s| self.scop.statements[s].name.clone())
            .collect();
        let outer = self
            .space
            .outer_dims
            .iter()
            .map(|&d| outer_param(d))
            .collect();
        let code = if group.depth == 0 {
            GroupCode::Untiled(self.untiled(group))
        } else {
            GroupCode::Tiled(Box::new(self.tiled(group)))
        };
        GroupIr {
            index: g,
            names,
            outer,
            code,
        }
    }

    /// A group without tiles: its scheduled loops (parallel loops marked); on a GPU, run by a
    /// single work-item.
    fn untiled(&self, group: &TileGroup) -> KNode {
        let dims: Vec<OutDim> = (self.start()..self.schedule.n_dims())
            .map(OutDim::Sched)
            .collect();
        let node = self.recover(group, &dims, 0, &[], false);
        let code = KNode::from_syntax(&node);
        match self.device {
            Device::Cpu => code,
            Device::Gpu => KNode::Single(Box::new(strip_parallel(code))),
        }
    }

    fn tiled(&self, group: &TileGroup) -> TiledGroup {
        let (order, threads, host_dims, wave_dims) = match self.device {
            Device::Cpu => (
                ptile::cpu_order(self.scop, self.schedule, self.space, &group.statements),
                None,
                group.depth,
                2,
            ),
            Device::Gpu => self.gpu_mapping(group),
        };
        let start = self.start();
        let mut dims: Vec<OutDim> = order
            .dims
            .iter()
            .map(|d| match d {
                IntraDim::Band(k) => OutDim::Sched(start + k),
                IntraDim::Cut => OutDim::Cut,
            })
            .collect();
        dims.extend((start + group.depth..self.schedule.n_dims()).map(OutDim::Sched));
        let otl = self.device == Device::Gpu;
        let lower_body = |node: Node| -> KNode {
            match &threads {
                None => KNode::from_syntax(&node),
                Some((layout, sync)) => self.map_threads(&node, &dims, layout, *sync),
            }
        };
        let probe_order = ptile::cpu_order(self.scop, self.schedule, self.space, &group.statements);
        let probe_dims: Vec<OutDim> = probe_order
            .dims
            .iter()
            .map(|d| match d {
                IntraDim::Band(k) => OutDim::Sched(start + k),
                IntraDim::Cut => OutDim::Cut,
            })
            .chain((start + group.depth..self.schedule.n_dims()).map(OutDim::Sched))
            .collect();
        let probe = KNode::from_syntax(&self.recover_ordered(
            group,
            &probe_dims,
            host_dims,
            &[],
            false,
            &probe_order,
        ));
        let body = lower_body(self.recover_ordered(group, &dims, group.depth, &[], otl, &order));
        let (full_test, full_body) = if group.full.is_empty() {
            (None, None)
        } else {
            let context: Vec<String> = group.full.iter().map(|f| self.facet(f, true)).collect();
            let full = self.recover_ordered(group, &dims, group.depth, &context, otl, &order);
            let test: Vec<String> = group.full.iter().map(|f| self.facet(f, false)).collect();
            (Some(test.join(" && ")), Some(lower_body(full)))
        };
        TiledGroup {
            depth: group.depth,
            mode: group.mode,
            host_dims,
            wave_dims,
            ranges: (0..group.depth)
                .map(|k| {
                    let lo: Vec<String> = (0..k).map(origin).collect();
                    let hi: Vec<String> = (0..k)
                        .map(|j| format!("({} + {} - 1)", origin(j), size(j)))
                        .collect();
                    self.range_expr(group, k, &lo, &hi)
                })
                .collect(),
            global: (0..group.depth)
                .map(|k| {
                    let lo: Vec<String> = (0..k)
                        .map(|j| format!("(polyc_glo{j} * {})", size(j)))
                        .collect();
                    let hi: Vec<String> = (0..k)
                        .map(|j| format!("(polyc_ghi{j} * {t} + {t} - 1)", t = size(j)))
                        .collect();
                    self.range_expr(group, k, &lo, &hi)
                })
                .collect(),
            points: (0..group.depth)
                .map(|k| {
                    let lo: Vec<String> = (0..k).map(|j| format!("polyc_plo{j}")).collect();
                    let hi: Vec<String> = (0..k).map(|j| format!("polyc_phi{j}")).collect();
                    self.point_range_expr(group, k, &lo, &hi)
                })
                .collect(),
            probe,
            full_test,
            body,
            full_body,
            threads: threads.map(|(layout, _)| layout),
        }
    }

    /// [`Lowering::recover`] for a tile body in `order` (whose components the cut uses).
    fn recover_ordered(
        &self,
        group: &TileGroup,
        dims: &[OutDim],
        boxed: usize,
        context: &[String],
        otl: bool,
        order: &IntraOrder,
    ) -> Node {
        self.recover_with(group, dims, boxed, context, otl, &order.components)
    }

    fn recover(
        &self,
        group: &TileGroup,
        dims: &[OutDim],
        boxed: usize,
        context: &[String],
        otl: bool,
    ) -> Node {
        self.recover_with(group, dims, boxed, context, otl, &[])
    }

    /// The group's statements scheduled along `dims`, with the outer dimensions fixed to their
    /// parameters and the first `boxed` band dimensions restricted to the tile at
    /// `polyc_o<k>` of size `polyc_T<k>`; with one-time loops when `otl`.
    fn recover_with(
        &self,
        group: &TileGroup,
        dims: &[OutDim],
        boxed: usize,
        context: &[String],
        otl: bool,
        components: &[usize],
    ) -> Node {
        let scop = self.scop;
        let start = self.start();
        let params = self.isl_params();
        let mut u = UnionMap::empty(self.ctx);
        for &s in &group.statements {
            let st = &scop.statements[s];
            let names = st.domain.dim_names();
            let tuple = st.domain.isl().tuple_name().expect("named statements");
            let rows = &self.schedule.rows[s];
            let outs: Vec<String> = (0..dims.len()).map(|j| format!("polyc_d{j}")).collect();
            let mut cons: Vec<String> = dims
                .iter()
                .enumerate()
                .map(|(j, d)| match d {
                    OutDim::Sched(d) => format!("polyc_d{j} = {}", rows[*d].expr(&names)),
                    OutDim::Cut => {
                        format!("polyc_d{j} = {}", components.get(s).copied().unwrap_or(0))
                    }
                })
                .collect();
            cons.extend(
                self.space
                    .outer_dims
                    .iter()
                    .map(|&d| format!("{} = {}", outer_param(d), rows[d].expr(&names))),
            );
            for k in 0..boxed {
                cons.push(format!(
                    "{o} <= {} <= {o} + {t} - 1",
                    rows[start + k].expr(&names),
                    o = origin(k),
                    t = size(k)
                ));
            }
            if cons.is_empty() {
                cons.push("0 = 0".into());
            }
            let text = format!(
                "[{}] -> {{ {tuple}[{}] -> [{}] : {} }}",
                params.join(", "),
                names.join(", "),
                outs.join(", "),
                cons.join(" and ")
            );
            let m = Map::parse(self.ctx, &text).expect("group schedules parse");
            u = u.add_map(m.intersect_domain(st.domain.isl().clone()));
        }
        let iterators: Vec<String> = dims.iter().map(|&d| self.iterator(d)).collect();
        let row = |s: usize, j: usize| match dims[j] {
            OutDim::Sched(d) if self.schedule.kinds[d] != DimKind::Scalar => Some((
                self.schedule.rows[s][d].coeffs.clone(),
                self.schedule.rows[s][d].constant,
            )),
            _ => None,
        };
        let mut ctx_terms: Vec<String> = (0..self.space.depth())
            .map(|k| format!("{} >= 1", size(k)))
            .collect();
        ctx_terms.extend(context.iter().cloned());
        let context = ctx_terms.join(" and ");
        let extra = self.extra_params();
        let rec = RecoveryOptions {
            row: if otl { Some(&row) } else { None },
            extra_params: &extra,
            context: &context,
            ..RecoveryOptions::new(&iterators)
        };
        let mut program = syntax::recover(self.ctx, scop, u, &rec);
        let parallel = &self.schedule.parallel;
        program.loops_mut(&mut |l, _| {
            l.parallel = matches!(dims[l.dim], OutDim::Sched(d) if parallel[d]);
        });
        program
    }

    /// A facet as a condition on the tile: isl text (`isl`) or C.
    fn facet(&self, f: &ptile::Facet, isl: bool) -> String {
        let mut terms = Vec::new();
        for (k, &a) in f.band.iter().enumerate() {
            if a != 0 {
                let at = if f.corner(k) {
                    format!("({} + {} - 1)", origin(k), size(k))
                } else {
                    origin(k)
                };
                terms.push(format!("{a} * {at}"));
            }
        }
        let names = self.isl_params();
        for (i, &a) in f.params.iter().enumerate() {
            if a != 0 {
                let name = if isl {
                    names[i].clone()
                } else {
                    format!("(long)({})", crate::names::user(&self.space.params[i]))
                };
                terms.push(format!("{a} * {name}"));
            }
        }
        terms.push(f.constant.to_string());
        if isl {
            format!("{} >= 0", terms.join(" + "))
        } else {
            format!("({} >= 0)", terms.join(" + "))
        }
    }

    /// C expressions of the range of tile coordinate `t_k` with the outer band dimensions in
    /// the box `[lo, hi]` (`ptile::TileGroup::tile_range`, printed).
    fn range_expr(
        &self,
        group: &TileGroup,
        k: usize,
        lo: &[String],
        hi: &[String],
    ) -> (String, String) {
        let (a, b) = self.point_range_expr(group, k, lo, hi);
        (
            format!("polyc_lfloord({a}, {})", size(k)),
            format!("polyc_lfloord({b}, {})", size(k)),
        )
    }

    /// C expressions of the range of band dimension `c_k` with the outer band dimensions in
    /// the box `[lo, hi]`: the union of the statements' relaxed ranges.
    fn point_range_expr(
        &self,
        group: &TileGroup,
        k: usize,
        lo: &[String],
        hi: &[String],
    ) -> (String, String) {
        let dims: Vec<&ptile::DimBounds> = group.bounds.iter().map(|b| &b.dims[k]).collect();
        self.union_range_expr(&dims, lo, hi)
    }

    /// C expressions of the union of the ranges `dims` bound, with the dimensions before
    /// them in the box `[lo, hi]`.
    fn union_range_expr(
        &self,
        dims: &[&ptile::DimBounds],
        lo: &[String],
        hi: &[String],
    ) -> (String, String) {
        let fold = |f: &str, v: Vec<String>| {
            v.into_iter()
                .reduce(|a, b| format!("{f}({a}, {b})"))
                .expect("bounds exist")
        };
        let mut lowers = Vec::new();
        let mut uppers = Vec::new();
        for b in dims {
            let l: Vec<String> = b
                .lower
                .iter()
                .map(|l| format!("-polyc_lfloord({}, {})", self.max_rest(l, lo, hi), l.a))
                .collect();
            let u: Vec<String> = b
                .upper
                .iter()
                .map(|u| format!("polyc_lfloord({}, {})", self.max_rest(u, lo, hi), -u.a))
                .collect();
            lowers.push(fold("polyc_lmax", l));
            uppers.push(fold("polyc_lmin", u));
        }
        dedup(&mut lowers);
        dedup(&mut uppers);
        (fold("polyc_lmin", lowers), fold("polyc_lmax", uppers))
    }

    /// `rest` of a bound at its largest over the box (see `ptile::Bound`).
    fn max_rest(&self, b: &Bound, lo: &[String], hi: &[String]) -> String {
        let mut out = String::from("(");
        for (a, t) in b.loosest_rest() {
            let _ = match t {
                Term::Param(i) => write!(
                    out,
                    "{a} * (long)({}) + ",
                    crate::names::user(&self.space.params[i])
                ),
                Term::Lo(j) => write!(out, "{a} * ({}) + ", lo[j]),
                Term::Hi(j) => write!(out, "{a} * ({}) + ", hi[j]),
            };
        }
        let _ = write!(out, "{})", b.constant);
        out
    }

    /// The GPU mapping of a group: the tile body's order, its thread layout and whether its
    /// work-items must synchronise, the tile dimensions the host enumerates, the wavefront
    /// width.
    #[allow(clippy::type_complexity)]
    fn gpu_mapping(
        &self,
        group: &TileGroup,
    ) -> (IntraOrder, Option<(ThreadLayout, bool)>, usize, usize) {
        let start = self.start();
        let mut order = ptile::gpu_order(self.scop, self.schedule, self.space, &group.statements);
        let par: Vec<usize> = order
            .band_dims()
            .into_iter()
            .filter(|&k| order.parallel[k])
            .collect();
        let host_dims = match group.mode {
            TileMode::Parallel => group.parallel_tiles,
            TileMode::Wavefront => group.depth,
            TileMode::Sequential => 0,
        };
        if par.is_empty() || self.force_wavefront {
            let dims = order.band_dims();
            return (
                order,
                Some((ThreadLayout::Wavefront { dims }, true)),
                host_dims,
                group.depth,
            );
        }
        let par_dims: Vec<usize> = par.iter().map(|k| start + k).collect();
        let sync = pluto::intratile::crosses(
            self.ctx,
            self.scop,
            self.schedule,
            start,
            &group.statements,
            &par_dims,
        );
        if !sync {
            // Independent work-items: each runs the sequential dimensions of its own points.
            let seq: Vec<usize> = order
                .band_dims()
                .into_iter()
                .filter(|&k| !order.parallel[k])
                .collect();
            let cut = order.dims.contains(&IntraDim::Cut);
            order.dims = par.iter().chain(&seq).map(|&k| IntraDim::Band(k)).collect();
            if cut {
                order.dims.push(IntraDim::Cut);
            }
        }
        (
            order,
            Some((ThreadLayout::Rectangular { dims: par }, sync)),
            host_dims,
            group.depth,
        )
    }

    /// The tile body with the band dimensions of `layout` shared out among work-items.
    fn map_threads(
        &self,
        node: &Node,
        dims: &[OutDim],
        layout: &ThreadLayout,
        sync: bool,
    ) -> KNode {
        let start = self.start();
        let mapped: Vec<String> = layout
            .dims()
            .iter()
            .map(|&k| self.iterator(OutDim::Sched(start + k)))
            .collect();
        let mapper = ThreadMapper {
            mapped: &mapped,
            origins: layout.dims().iter().map(|&k| base(k)).collect(),
            mapped_dims: dims
                .iter()
                .enumerate()
                .filter(|(_, d)| {
                    matches!(d, OutDim::Sched(d) if *d >= start && layout.dims().contains(&(d - start)))
                })
                .map(|(j, _)| j)
                .collect(),
            wavefront: matches!(layout, ThreadLayout::Wavefront { .. }),
            sync,
        };
        dedup_barriers(mapper.uniform(node))
    }
}

fn dedup(v: &mut Vec<String>) {
    let mut seen = BTreeSet::new();
    v.retain(|x| seen.insert(x.clone()));
}

/// Loops of code one work-item runs are not parallel loops.
fn strip_parallel(n: KNode) -> KNode {
    match n.map_children(&mut strip_parallel) {
        KNode::For {
            var,
            init,
            cond,
            step,
            body,
            ..
        } => KNode::For {
            var,
            init,
            cond,
            step,
            body,
            parallel: false,
        },
        other => other,
    }
}

/// Turns the loops over mapped band dimensions into the work-items' points (thesis §6.2.2,
/// step 5: their loops become guards; the loops around them stay uniform).
struct ThreadMapper<'a> {
    /// Iterators of the mapped dimensions, in thread-bucket order.
    mapped: &'a [String],
    origins: Vec<String>,
    /// Positions of the mapped dimensions among the recovered schedule's dimensions.
    mapped_dims: Vec<usize>,
    /// Intra-tile wavefronts: a loop over the bucket's wavefronts around the points.
    wavefront: bool,
    /// Work-items depend on each other: barriers after the points.
    sync: bool,
}

impl ThreadMapper<'_> {
    fn is_mapped(&self, dim: usize) -> bool {
        self.mapped_dims.contains(&dim)
    }

    /// Code every work-item runs alike, as a block with its barriers.
    ///
    /// Barriers stand only at the top level of a block (the tile body or a uniform loop's
    /// body), never inside a conditional: a uniform condition is distributed over the
    /// statements it guards and folded into the conditions of the loops it encloses, which
    /// its values (loop iterators, tile origins, parameters; never memory) make equivalent.
    /// Some OpenCL implementations (PoCL) replicate code per conditional barrier, so this keeps
    /// kernels small.
    fn uniform(&self, n: &Node) -> KNode {
        let items = self.items(n, None);
        let mut out = Vec::new();
        for item in items {
            let single = matches!(strip_if(&item), KNode::Single(_));
            let work = has_work(&item);
            let is_loop = matches!(item, KNode::For { .. });
            if single {
                out.push(KNode::Barrier);
            }
            out.push(item);
            // A uniform loop ends each iteration with its own barrier.
            if work && !is_loop && (self.sync || single) {
                out.push(KNode::Barrier);
            }
        }
        KNode::Block(out)
    }

    /// The items of uniform code under `guard`: loops (conditions folded in), and guarded
    /// points or single statements.
    fn items(&self, n: &Node, guard: Option<&Expr>) -> Vec<KNode> {
        match n {
            Node::Block(v) => v.iter().flat_map(|c| self.items(c, guard)).collect(),
            Node::For(l) if self.is_mapped(l.dim) => vec![self.points(n, guard)],
            Node::For(l) => vec![KNode::For {
                var: l.iterator.clone(),
                init: l.init.clone(),
                cond: and(guard, l.cond.clone()),
                step: l.step,
                body: Box::new(self.uniform(&l.body)),
                parallel: false,
            }],
            Node::If { cond, then, other } => {
                let yes = and(guard, cond.clone());
                let mut v = self.items(then, Some(&yes));
                if let Some(o) = other {
                    let no = and(
                        guard,
                        Expr::Unary {
                            op: rosepolly::model::expr::UnaryOp::Not,
                            operand: Box::new(cond.clone()),
                        },
                    );
                    v.extend(self.items(o, Some(&no)));
                }
                v
            }
            Node::User { stmt, args } => vec![guarded_by(
                guard,
                KNode::Single(Box::new(KNode::Stmt {
                    stmt: *stmt,
                    args: args.clone(),
                })),
            )],
        }
    }

    /// The work-items' points, at the outermost mapped loop, under `guard`.
    fn points(&self, n: &Node, guard: Option<&Expr>) -> KNode {
        let wave = if self.wavefront {
            Expr::var("polyc_wi")
        } else {
            Expr::int(0)
        };
        let p = KNode::Points {
            wave,
            vars: self.mapped.to_vec(),
            origins: self.origins.clone(),
            body: Box::new(self.guarded(n)),
        };
        if self.wavefront {
            let more = Expr::Binary {
                op: BinaryOp::Lt,
                lhs: Box::new(Expr::var("polyc_wi")),
                rhs: Box::new(Expr::var("polyc_nwaves")),
            };
            KNode::For {
                var: "polyc_wi".into(),
                init: Expr::int(0),
                cond: and(guard, more),
                step: 1,
                body: Box::new(KNode::Block(vec![p, KNode::Barrier])),
                parallel: false,
            }
        } else {
            guarded_by(guard, p)
        }
    }

    /// Code inside a point: loops over mapped dimensions become guards on the point's value.
    fn guarded(&self, n: &Node) -> KNode {
        match n {
            Node::Block(v) => KNode::Block(v.iter().map(|c| self.guarded(c)).collect()),
            Node::For(l) if self.is_mapped(l.dim) => {
                let it = Expr::var(&l.iterator);
                let mut cond = Expr::Binary {
                    op: BinaryOp::And,
                    lhs: Box::new(Expr::Binary {
                        op: BinaryOp::Ge,
                        lhs: Box::new(it.clone()),
                        rhs: Box::new(l.init.clone()),
                    }),
                    rhs: Box::new(l.cond.clone()),
                };
                if l.step != 1 {
                    let offset = Expr::Binary {
                        op: BinaryOp::Sub,
                        lhs: Box::new(it),
                        rhs: Box::new(l.init.clone()),
                    };
                    cond = Expr::Binary {
                        op: BinaryOp::And,
                        lhs: Box::new(cond),
                        rhs: Box::new(Expr::Binary {
                            op: BinaryOp::Eq,
                            lhs: Box::new(Expr::Binary {
                                op: BinaryOp::Mod,
                                lhs: Box::new(offset),
                                rhs: Box::new(Expr::int(l.step)),
                            }),
                            rhs: Box::new(Expr::int(0)),
                        }),
                    };
                }
                KNode::If {
                    cond,
                    then: Box::new(self.guarded(&l.body)),
                    other: None,
                }
            }
            Node::For(l) => KNode::For {
                var: l.iterator.clone(),
                init: l.init.clone(),
                cond: l.cond.clone(),
                step: l.step,
                body: Box::new(self.guarded(&l.body)),
                parallel: false,
            },
            Node::If { cond, then, other } => KNode::If {
                cond: cond.clone(),
                then: Box::new(self.guarded(then)),
                other: other.as_ref().map(|o| Box::new(self.guarded(o))),
            },
            Node::User { stmt, args } => KNode::Stmt {
                stmt: *stmt,
                args: args.clone(),
            },
        }
    }
}

/// `guard && cond`.
fn and(guard: Option<&Expr>, cond: Expr) -> Expr {
    match guard {
        None => cond,
        Some(g) => Expr::Binary {
            op: BinaryOp::And,
            lhs: Box::new(g.clone()),
            rhs: Box::new(cond),
        },
    }
}

/// `n` under `guard`.
fn guarded_by(guard: Option<&Expr>, n: KNode) -> KNode {
    match guard {
        None => n,
        Some(g) => KNode::If {
            cond: g.clone(),
            then: Box::new(n),
            other: None,
        },
    }
}

/// What a guard wraps.
fn strip_if(n: &KNode) -> &KNode {
    match n {
        KNode::If { then, .. } => strip_if(then),
        other => other,
    }
}

/// Does uniform code contain work shared out among the work-items?
fn has_work(n: &KNode) -> bool {
    match n {
        KNode::Points { .. } | KNode::Single(_) => true,
        KNode::Block(v) => v.iter().any(has_work),
        KNode::For { body, .. } => has_work(body),
        KNode::If { then, other, .. } => {
            has_work(then) || other.as_ref().is_some_and(|o| has_work(o))
        }
        KNode::Stmt { .. } | KNode::Barrier => false,
    }
}

/// Remove a barrier that directly follows another one in a block.
fn dedup_barriers(n: KNode) -> KNode {
    match n.map_children(&mut dedup_barriers) {
        KNode::Block(v) => {
            let mut out: Vec<KNode> = Vec::new();
            for c in v {
                let flat = match c {
                    KNode::Block(inner) => inner,
                    other => vec![other],
                };
                for c in flat {
                    if c == KNode::Barrier && out.last() == Some(&KNode::Barrier) {
                        continue;
                    }
                    out.push(c);
                }
            }
            KNode::Block(out)
        }
        other => other,
    }
}
