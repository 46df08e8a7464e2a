//! GPU thread mapping (thesis §6.2.2, §7.3): which band dimensions the work-items of a
//! work-group share out, and the tile body rewritten so that each work-item runs its points,
//! with barriers where work-items depend on each other.

use rosepolly::model::expr::{BinaryOp, Expr, UnaryOp};
use rosepolly::syntax::Node;

use ptile::{IntraDim, IntraOrder, TileGroup, TileMode};

use super::{Lowering, OutDim};
use crate::ir::{base, KLoop, KNode, ThreadLayout};

/// A group's GPU mapping: the tile body's order, its thread layout and whether its work-items
/// must synchronise, the tile dimensions the host enumerates, the wavefront width.
pub(super) type GpuMapping = (IntraOrder, Option<(ThreadLayout, bool)>, usize, usize);

impl Lowering<'_, '_> {
    /// The GPU order of a group's tile body, with its own parallel loops shared out where
    /// work-items are mapped for a GPU's memory ([`Lowering::lanes`]).
    fn gpu_order(&self, group: &TileGroup) -> IntraOrder {
        ptile::gpu_order(
            self.scop,
            self.schedule,
            self.space,
            &group.statements,
            self.lanes,
        )
    }

    /// The GPU mapping of a group ([`GpuMapping`]).
    pub(super) fn gpu_mapping(&self, group: &TileGroup) -> GpuMapping {
        let start = self.start();
        let mut order = self.gpu_order(group);
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

    /// The GPU mapping of a group whose work-groups combine its reductions' partial results
    /// ([`Lowering::group_sums`]): every tile runs in parallel (the host enumerates all tile
    /// dimensions), and every band dimension is shared out among the work-items, the most
    /// unit-stride one last. With the reductions' self-dependences relaxed no dependence
    /// crosses two points of the band, so the work-items need no barrier between them.
    pub(super) fn summing_mapping(&self, group: &TileGroup) -> GpuMapping {
        let start = self.start();
        let mut order = self.gpu_order(group);
        let mut dims = order.band_dims();
        let score = |k: usize| {
            ptile::intra::stride_score(self.scop, self.schedule, &group.statements, start + k)
        };
        if let Some(pos) = (0..dims.len()).max_by_key(|&i| (score(dims[i]), i)) {
            let k = dims.remove(pos);
            dims.push(k);
        }
        order.dims = dims.iter().map(|&k| IntraDim::Band(k)).collect();
        order.parallel = vec![true; dims.len()];
        order.components = vec![0; order.components.len()];
        (
            order,
            Some((ThreadLayout::Rectangular { dims }, false)),
            group.depth,
            group.depth,
        )
    }

    /// The tile body with the band dimensions of `layout` shared out among work-items.
    pub(super) fn map_threads(
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
        let value = |stmt: usize, j: usize| match dims[j] {
            OutDim::Sched(d) => {
                let row = &self.schedule.rows[stmt][d];
                Some((row.coeffs.clone(), row.constant))
            }
            OutDim::Cut => None,
        };
        let mapper = ThreadMapper {
            iterators: dims.iter().map(|&d| self.iterator(d)).collect(),
            value: &value,
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

/// Loops of code one work-item runs are not parallel loops.
pub(super) fn strip_parallel(n: KNode) -> KNode {
    match n.map_children(&mut strip_parallel) {
        KNode::For(l) => KNode::For(KLoop {
            parallel: false,
            ..l
        }),
        other => other,
    }
}

/// Turns the loops over mapped band dimensions into the work-items' points (thesis §6.2.2,
/// step 5: their loops become guards; the loops around them stay uniform).
struct ThreadMapper<'a> {
    /// Iterators of the recovered schedule's dimensions.
    iterators: Vec<String>,
    /// The value of the recovered schedule's dimension `j` at an instance of statement `stmt`:
    /// `(coefficients over its iterators, constant)`.
    value: &'a dyn Fn(usize, usize) -> Option<(Vec<i64>, i64)>,
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
            let is_loop = matches!(item, KNode::For(_));
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
            Node::For(l) => vec![KNode::For(KLoop {
                cond: and(guard, l.cond.clone()),
                ..KLoop::like(l, self.uniform(&l.body))
            })],
            Node::If { cond, then, other } => {
                let yes = and(guard, cond.clone());
                let mut v = self.items(then, Some(&yes));
                if let Some(o) = other {
                    let no = and(guard, Expr::unary(UnaryOp::Not, cond.clone()));
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
            privates: Vec::new(),
            lanes: 0,
            body: Box::new(self.guarded(n, &[])),
        };
        if self.wavefront {
            // The guard selects the trip count rather than joining the condition with `&&`:
            // PoCL's work-group compiler fails an assertion on a loop with barriers whose
            // condition short-circuits when a barrier precedes it (a kernel's move-in).
            let waves = match guard {
                Some(g) => Expr::Ternary {
                    cond: Box::new(g.clone()),
                    then: Box::new(Expr::var("polyc_nwaves")),
                    other: Box::new(Expr::int(0)),
                },
                None => Expr::var("polyc_nwaves"),
            };
            let more = Expr::binary(BinaryOp::Lt, Expr::var("polyc_wi"), waves);
            KNode::For(KLoop {
                var: "polyc_wi".into(),
                init: Expr::int(0),
                cond: more,
                step: 1,
                body: Box::new(KNode::Block(vec![p, KNode::Barrier])),
                parallel: false,
            })
        } else {
            guarded_by(guard, p)
        }
    }

    /// Code inside a point: loops over mapped dimensions become guards on the point's value.
    /// `bound`: the mapped dimensions whose loops enclose `n`.
    fn guarded(&self, n: &Node, bound: &[usize]) -> KNode {
        match n {
            Node::Block(v) => KNode::Block(v.iter().map(|c| self.guarded(c, bound)).collect()),
            Node::For(l) if self.is_mapped(l.dim) => {
                let it = Expr::var(&l.iterator);
                let first = Expr::binary(BinaryOp::Ge, it.clone(), l.init.clone());
                let mut cond = Expr::binary(BinaryOp::And, first, l.cond.clone());
                if l.step != 1 {
                    // Only the points the loop's stride visits.
                    let offset = Expr::binary(BinaryOp::Sub, it, l.init.clone());
                    let phase = Expr::binary(BinaryOp::Mod, offset, Expr::int(l.step));
                    let on_stride = Expr::binary(BinaryOp::Eq, phase, Expr::int(0));
                    cond = Expr::binary(BinaryOp::And, cond, on_stride);
                }
                let inner: Vec<usize> = bound.iter().copied().chain([l.dim]).collect();
                KNode::If {
                    cond,
                    then: Box::new(self.guarded(&l.body, &inner)),
                    other: None,
                }
            }
            Node::For(l) => KNode::For(KLoop::like(l, self.guarded(&l.body, bound))),
            Node::If { cond, then, other } => KNode::If {
                cond: cond.clone(),
                then: Box::new(self.guarded(then, bound)),
                other: other.as_ref().map(|o| Box::new(self.guarded(o, bound))),
            },
            Node::User { stmt, args } => {
                let call = KNode::Stmt {
                    stmt: *stmt,
                    args: args.clone(),
                };
                match self.unbound_guard(*stmt, args, bound) {
                    Some(cond) => KNode::If {
                        cond,
                        then: Box::new(call),
                        other: None,
                    },
                    None => call,
                }
            }
        }
    }

    /// The point's values of the mapped dimensions no loop binds around an instance: isl
    /// writes no loop for a dimension whose value it derives from others (`c1 = c2 / 3`) or
    /// fixes by an expression with `%` (a peeled last iteration), and where no one-time loop
    /// could stand for it, every work-item would run the instance (differential seeds 5680
    /// and 2910). `None` when every mapped dimension is bound.
    fn unbound_guard(&self, stmt: usize, args: &[Expr], bound: &[usize]) -> Option<Expr> {
        self.mapped_dims
            .iter()
            .filter(|j| !bound.contains(j))
            .filter_map(|&j| {
                let (coeffs, constant) = (self.value)(stmt, j)?;
                let at = rosepolly::syntax::linear_combination(&coeffs, args, constant);
                Some(Expr::binary(
                    BinaryOp::Eq,
                    Expr::var(&self.iterators[j]),
                    at,
                ))
            })
            .reduce(|a, b| Expr::binary(BinaryOp::And, a, b))
    }
}

/// `guard && cond`.
fn and(guard: Option<&Expr>, cond: Expr) -> Expr {
    match guard {
        None => cond,
        Some(g) => Expr::binary(BinaryOp::And, g.clone(), cond),
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
    n.any(&|k| matches!(k, KNode::Points { .. } | KNode::Single(_)))
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
