//! Lowering a scheduled SCoP and its tile space to the kernel IR ([`crate::ir`]).
//!
//! Everything here is target-neutral except the choice the [`Device`] makes: the order of the
//! band dimensions inside a tile ([`ptile::intra`]), and for a GPU, which of them the
//! work-items of a work-group share out and where they must wait for each other.
//!
//! This module drives the lowering (the host structure, then each group); its jobs live in
//! `recover` (loops from isl), `ranges` (bound and range expressions) and `threads`
//! (the GPU thread mapping).

mod lanes;
mod ranges;
mod recover;
mod reductions;
mod threads;

use std::collections::BTreeSet;

use rosepolly::math::isl::{AstFailure, Ctx};
use rosepolly::model::expr::{BinaryOp, Expr};
use rosepolly::model::Scop;
use rosepolly::syntax::Node;

use pluto::Schedule;
use ptile::{outer_param, IntraDim, TileGroup, TileMode, TileSpace};

use crate::inner_loops;
use crate::ir::{
    origin, size, GroupCode, GroupIr, KNode, OriginalOrder, ScopData, ScopIr, TiledGroup,
    MAX_TIME_TILE_DEPTH,
};
use crate::names::user;
use crate::staging::Staging;
use ranges::{clip_hi, clip_lo, named, tile_end, tile_range};
use threads::strip_parallel;

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
    /// GPU: run tiles along a reduction's loop in parallel, their partial results added
    /// atomically (`lower::reductions`); `--no-reductions` turns it off.
    pub reductions: bool,
    /// GPU: map work-items for a GPU's memory ([`crate::CompileOptions::lanes`]): lane groups
    /// share the rows of split sums that read their matrix along the summed loop
    /// (`lower::lanes`), and each group's own parallel loops are work-item dimensions
    /// (`ptile::gpu_order`).
    pub lanes: bool,
}

impl Lowering<'_, '_> {
    /// The SCoP's IR; an error when isl's AST generation gives no loops for some part of it.
    pub fn lower(&self) -> Result<ScopIr, AstFailure> {
        let groups: Vec<GroupIr> = (0..self.space.groups.len())
            .map(|g| self.group(g))
            .collect::<Result<_, _>>()?;
        let data = ScopData::of(self.scop);
        Ok(ScopIr {
            id: self.scop.id,
            depth: self.space.depth(),
            host: self.host()?,
            original: self.original_order(&groups, &data),
            data,
            groups,
        })
    }

    /// On a CPU: the boxes whose volume estimates the SCoP's work in its original order
    /// (which decides whether tiles pay; outer loops included, their instances count), and how
    /// that order walks the arrays.
    fn original_order(&self, groups: &[GroupIr], data: &ScopData) -> Option<OriginalOrder> {
        if self.device != Device::Cpu {
            return None;
        }
        let tiles = tile_bodies(groups);
        // As the C printer indexes them (`OpenMp::new`).
        let (registers, rows) = register_blocks(self.scop, groups, &data.flat_expanded());
        let sweeps = ptile::locality::repeats_sweeps(self.scop);
        Some(OriginalOrder {
            work: self.work_boxes()?,
            strided: ptile::locality::strides_across_rows(self.scop),
            reorder: inner_loops::reorder(self.scop, &tiles, &BTreeSet::new()),
            registers,
            rows,
            latency: ptile::locality::recurrence_latency(self.scop),
            sweeps,
            time_tiles: sweeps && self.space.depth() <= MAX_TIME_TILE_DEPTH,
            vectorised: false,
        })
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

    fn group(&self, g: usize) -> Result<GroupIr, AstFailure> {
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
            GroupCode::Untiled(self.untiled(group)?)
        } else {
            GroupCode::Tiled(Box::new(self.tiled(group)?))
        };
        Ok(GroupIr {
            index: g,
            names,
            outer,
            code,
        })
    }

    /// A group without tiles: its scheduled loops (parallel loops marked); on a GPU, run by a
    /// single work-item.
    fn untiled(&self, group: &TileGroup) -> Result<KNode, AstFailure> {
        let dims: Vec<OutDim> = (self.start()..self.schedule.n_dims())
            .map(OutDim::Sched)
            .collect();
        let node = self.recover(group, &dims, 0, &[], false, &[])?;
        let code = KNode::from_syntax(&node);
        Ok(match self.device {
            Device::Cpu => code,
            Device::Gpu => KNode::Single(Box::new(strip_parallel(code))),
        })
    }

    /// The band dimension of a tile's innermost loops: the last of the intra-tile order, when
    /// every schedule dimension after the band is scalar (no loop runs inside it).
    fn innermost_band_dim(&self, order: &[IntraDim], depth: usize) -> Option<usize> {
        let after = self.start() + depth..self.schedule.n_dims();
        if after
            .into_iter()
            .any(|d| self.schedule.kinds[d] != pluto::DimKind::Scalar)
        {
            return None;
        }
        order.iter().rev().find_map(|d| match d {
            IntraDim::Band(k) => Some(*k),
            IntraDim::Cut => None,
        })
    }

    fn tiled(&self, group: &TileGroup) -> Result<TiledGroup, AstFailure> {
        let sums = match self.device {
            Device::Gpu => self.group_sums(group),
            Device::Cpu => None,
        };
        let (order, threads, host_dims, wave_dims) = match (self.device, &sums) {
            (Device::Cpu, _) => (
                ptile::cpu_order(self.scop, self.schedule, self.space, &group.statements),
                None,
                group.depth,
                2,
            ),
            (Device::Gpu, Some(_)) => self.summing_mapping(group),
            (Device::Gpu, None) => self.gpu_mapping(group),
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
        let lower_body = |node: &Node| -> KNode {
            match &threads {
                None => KNode::from_syntax(node),
                Some((layout, sync)) => self.map_threads(node, &dims, layout, *sync),
            }
        };
        let body_loops = self.recover_loops(group, &dims, group.depth, &[], &order.components)?;
        let body = lower_body(&self.finish_loops(body_loops.clone(), &dims, otl));
        let (full_test, full_body) = if group.full.is_empty() {
            (None, None)
        } else {
            let context: Vec<String> = group.full.iter().map(|f| self.facet_isl(f)).collect();
            let full = self.recover(group, &dims, group.depth, &context, otl, &order.components)?;
            (Some(self.full_test(&group.full)), Some(lower_body(&full)))
        };
        let (host_dims, body, full_body, split) = match self.device {
            Device::Gpu if sums.is_none() => self.split_sums(group, host_dims, body, full_body),
            _ => (host_dims, body, full_body, None),
        };
        let (body, full_body, lanes) =
            self.lanes(group, threads.as_ref(), split.as_ref(), body, full_body);
        let (mode, body, full_body, partials) = match self.device {
            Device::Cpu => self.partial_sums(group, body, full_body),
            Device::Gpu => (group.mode, body, full_body, Vec::new()),
        };
        let mut combined = Vec::new();
        let (mode, body, full_body) = match &sums {
            Some(stmts) => (
                TileMode::Parallel,
                reductions::into_partials(body, stmts, &mut combined),
                full_body.map(|f| reductions::into_partials(f, stmts, &mut combined)),
            ),
            None => (mode, body, full_body),
        };
        let probe_order = match self.device {
            Device::Cpu => order.clone(),
            Device::Gpu => {
                ptile::cpu_order(self.scop, self.schedule, self.space, &group.statements)
            }
        };
        let probe_dims: Vec<OutDim> = probe_order
            .dims
            .iter()
            .map(|d| match d {
                IntraDim::Band(k) => OutDim::Sched(start + k),
                IntraDim::Cut => OutDim::Cut,
            })
            .chain((start + group.depth..self.schedule.n_dims()).map(OutDim::Sched))
            .collect();
        // Where the probe scans the body's loops (the C target's always; a GPU group's where
        // its thread mapping keeps the CPU order and the host walks every band dimension),
        // isl's AST is generated once for both: a third of deriche's AST generations.
        let probe_loops = if probe_dims == dims
            && host_dims == group.depth
            && probe_order.components == order.components
        {
            body_loops
        } else {
            self.recover_loops(group, &probe_dims, host_dims, &[], &probe_order.components)?
        };
        let probe = KNode::from_syntax(&self.finish_loops(probe_loops, &probe_dims, false));
        let buffers = match self.device {
            Device::Cpu => Vec::new(),
            Device::Gpu => {
                // Neighbouring work-items differ in the layout's last dimension.
                let fastest = threads
                    .as_ref()
                    .and_then(|(layout, _)| layout.dims().last().copied());
                let mut all = ptile::buffers::candidates(
                    self.scop,
                    self.schedule,
                    self.space,
                    group,
                    fastest,
                );
                // An accumulator's element is updated atomically, not staged. A kernel whose
                // work-groups combine partial results stages nothing: its local memory holds
                // them (`crate::device`), beside a window the buffer bucket fills alone. Nor
                // does a kernel whose lane groups share rows (`crate::lanes`): its reads are
                // coalesced already, and on OpenCL its local arrays would share the window.
                all.retain(|c| !split.as_ref().is_some_and(|s| s.accumulates(&c.datum)));
                if sums.is_some() || lanes > 0 {
                    all.clear();
                }
                all
            }
        };
        let staging = match self.device {
            Device::Cpu => Staging::default(),
            Device::Gpu => {
                let scop = self.scop;
                let params = scop
                    .params
                    .iter()
                    .map(|p| user(p))
                    .chain(self.space.outer_dims.iter().map(|&d| outer_param(d)))
                    .collect();
                Staging::new(scop, &buffers, &group.statements, params)
            }
        };
        Ok(TiledGroup {
            depth: group.depth,
            mode,
            host_dims,
            wave_dims,
            // The tiles before `k` clipped to the points' bounding box: walking the next
            // dimension then costs the problem's extent, whatever the tile sizes.
            ranges: (0..group.depth)
                .map(|k| {
                    let lo: Vec<Expr> = (0..k).map(|j| clip_lo(j, Expr::var(origin(j)))).collect();
                    let hi: Vec<Expr> = (0..k).map(|j| clip_hi(j, tile_end(j))).collect();
                    tile_range(k, self.point_range(group, k, &lo, &hi))
                })
                .collect(),
            global: (0..group.depth)
                .map(|k| {
                    let t = |j: usize| Expr::var(size(j));
                    // Clipped to the points' bounding box, as `ranges` are.
                    let lo: Vec<Expr> = named("polyc_glo", k)
                        .into_iter()
                        .enumerate()
                        .map(|(j, g)| clip_lo(j, Expr::binary(BinaryOp::Mul, g, t(j))))
                        .collect();
                    let hi: Vec<Expr> = named("polyc_ghi", k)
                        .into_iter()
                        .enumerate()
                        .map(|(j, g)| {
                            let end = Expr::binary(
                                BinaryOp::Add,
                                Expr::binary(BinaryOp::Mul, g, t(j)),
                                t(j),
                            );
                            clip_hi(j, Expr::binary(BinaryOp::Sub, end, Expr::int(1)))
                        })
                        .collect();
                    tile_range(k, self.point_range(group, k, &lo, &hi))
                })
                .collect(),
            points: (0..group.depth)
                .map(|k| self.point_range(group, k, &named("polyc_plo", k), &named("polyc_phi", k)))
                .collect(),
            probe,
            full_test,
            body,
            full_body,
            threads: threads.map(|(layout, _)| layout),
            inner: match self.device {
                Device::Cpu => self.innermost_band_dim(&order.dims, group.depth),
                Device::Gpu => None,
            },
            buffers,
            staging,
            partials,
            combined,
            lanes,
        })
    }
}

/// The code of a tile of each tiled group, or a group's untiled loops.
pub fn tile_bodies(groups: &[GroupIr]) -> Vec<&KNode> {
    groups
        .iter()
        .map(|g| match &g.code {
            GroupCode::Untiled(code) => code,
            GroupCode::Tiled(t) => &t.body,
        })
        .collect()
}

/// The groups whose full tiles run nests by register blocks (`crate::registers`) where the
/// blocks decide how the SCoP runs, and whether they are all rows of two-loop nests. Row
/// blocks alone decide as rows (from 2^16 points) only where they hold every statement of the
/// SCoP's greatest depth (its work): trisolv, whose tiles need wavefronts, walked on one thread
/// in lexicographic order (LARGE, rotated rounds on the Intel Xeon VM: 3.1 -> 1.9 ms, its lines
/// before). Otherwise they decide as other blocks do (from 2^22 points), and only where the
/// original's innermost loops stride across rows: there the tiles' order gains besides the
/// blocks (one thread: gramschmidt MEDIUM, its lines 8.8 ms, tiles 4.8; gemver LARGE, one tile
/// 12.6 ms, tiles 9.7). atax's lines walk rows: its `tmp[i]` nest has row blocks, its `y[j]`
/// nest none, and its tiles distribute the two nests its original fuses (at LARGE, tiles on one
/// thread ran 5.3 ms against its lines' 4.9).
fn register_blocks(scop: &Scop, groups: &[GroupIr], data: &ScopData) -> (Vec<usize>, bool) {
    let blocked = |g: &GroupIr| match &g.code {
        GroupCode::Tiled(t) => match (&t.full_body, t.inner) {
            (Some(full), Some(inner)) => crate::registers::blocked(full, data, inner),
            _ => Vec::new(),
        },
        GroupCode::Untiled(_) => Vec::new(),
    };
    let per_group: Vec<Vec<(usize, bool)>> = groups.iter().map(blocked).collect();
    let all: Vec<(usize, bool)> = per_group.iter().flatten().copied().collect();
    let depth = scop.statements.iter().map(|s| s.depth()).max().unwrap_or(0);
    let work_blocked = (0..scop.statements.len())
        .filter(|&s| scop.statements[s].depth() == depth)
        .all(|s| all.iter().any(|&(b, _)| b == s));
    let rows = all.iter().all(|&(_, rows)| rows);
    if all.is_empty() {
        return (Vec::new(), false);
    }
    let holding = (0..groups.len())
        .filter(|&g| !per_group[g].is_empty())
        .collect();
    if rows && work_blocked {
        return (holding, true);
    }
    if rows && !ptile::locality::strides_across_rows(scop) {
        return (Vec::new(), false);
    }
    (holding, false)
}
