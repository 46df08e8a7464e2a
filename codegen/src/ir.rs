//! The kernel IR: one description of a tiled SCoP that the C+OpenMP, OpenCL and CUDA printers
//! all print (thesis §6.3–6.5).
//!
//! A [`ScopIr`] is the host's outer structure ([`ScopIr::host`], loops over the dimensions in
//! front of the tiled band whose statement calls are groups) and, per group, either its plain
//! scheduled loops or a [`TiledGroup`]: how the host enumerates tiles (ranges, emptiness probe,
//! fullness test) and the code of one tile, as a [`KNode`] tree. On a CPU the tile code is
//! sequential loops; for a GPU the lowering has mapped band dimensions to work-items
//! ([`KNode::Points`]) and placed barriers ([`KNode::Barrier`]).

use std::collections::BTreeSet;

use rosepolly::model::ctype::IntType;
use rosepolly::model::expr::Expr;
use rosepolly::model::{Casts, Scop};
use rosepolly::syntax::{from_affine, Node};

use ptile::TileMode;

use crate::atomics::Update;

/// A statement tree of generated code.
#[derive(Debug, Clone, PartialEq)]
pub enum KNode {
    Block(Vec<KNode>),
    For(KLoop),
    If {
        cond: Expr,
        then: Box<KNode>,
        other: Option<Box<KNode>>,
    },
    /// An instance of SCoP statement `stmt`, its original iterators equal to `args`.
    Stmt {
        stmt: usize,
        args: Vec<Expr>,
    },
    /// Every work-item of a work-group waits here, and sees the others' writes.
    Barrier,
    /// The work-item's share of the thread bucket's entries for one wavefront (`wave`, an
    /// expression; 0 for a rectangular layout): for each entry `u`, the band iterators
    /// `vars[j]` are `origins[j] + u[j]`, then `body` runs (thesis Fig. 6.12, "recover
    /// intra-tile coordinates").
    /// `privates`: the reductions whose partial results the work-item keeps for each entry and
    /// adds to their accumulators atomically after `body` ([`KNode::Reduce`]).
    /// `lanes`: 0, or the width of the lane groups that share each entry ([`crate::lanes`]):
    /// the bucket's last coordinate is then the entry's lane, the work-items walk the entries
    /// uniformly, and each lane group combines its partial results before one atomic update.
    Points {
        wave: Expr,
        vars: Vec<String>,
        origins: Vec<String>,
        privates: Vec<Private>,
        lanes: usize,
        body: Box<KNode>,
    },
    /// Work-item 0 alone runs `body` (a statement instance no band dimension distributes).
    Single(Box<KNode>),
    /// An instance of reduction statement `stmt` that updates the private partial result of
    /// slot `slot` of the enclosing [`KNode::Points`] instead of its accumulator: tiles
    /// along the reduction's loop then run in parallel (issue 17).
    Reduce {
        stmt: usize,
        args: Vec<Expr>,
        slot: usize,
    },
    /// CPU, a full tile: a nest whose statement's elements stay in registers across its
    /// middle loop, by blocks ([`crate::registers`]).
    Registers(Box<crate::registers::RegisterTile>),
    /// CPU, the original order where tiles do not pay: a loop run by blocks of rows, its inner
    /// loops jammed ([`crate::jam`]).
    Jam(Box<crate::jam::JamLoop>),
}

/// A work-item's private partial result of a reduction statement: `polyc_acc<slot>` of the
/// accumulator's C type, starting at the operator's identity, added atomically to the accumulator element that statement `stmt`
/// updates at `args` once the work-item's entry is done, when some instance ran
/// (`polyc_hit<slot>`).
#[derive(Debug, Clone, PartialEq)]
pub struct Private {
    pub slot: usize,
    pub stmt: usize,
    pub args: Vec<Expr>,
    /// How partial results combine (`+` for sums, `min`, `*`, `&`...), and the accumulator's
    /// C type.
    pub update: Update,
}

/// The name of slot `slot`'s partial result, and of its flag.
pub fn acc(slot: usize) -> String {
    format!("polyc_acc{slot}")
}
pub fn hit(slot: usize) -> String {
    format!("polyc_hit{slot}")
}

/// A loop of generated code: `for (var = init; cond; var += step) body`.
#[derive(Debug, Clone, PartialEq)]
pub struct KLoop {
    pub var: String,
    pub init: Expr,
    /// Loop while this holds.
    pub cond: Expr,
    pub step: i64,
    pub body: Box<KNode>,
    /// No dependence crosses its iterations (an OpenMP `parallel for` on a CPU).
    pub parallel: bool,
}

impl KLoop {
    /// A recovered loop's header around `body`, not parallel.
    pub fn like(l: &rosepolly::syntax::Loop, body: KNode) -> KLoop {
        KLoop {
            var: l.iterator.clone(),
            init: l.init.clone(),
            cond: l.cond.clone(),
            step: l.step,
            body: Box::new(body),
            parallel: false,
        }
    }
}

impl KNode {
    /// The recovered loop program as a statement tree (loops keep their parallel marks).
    pub fn from_syntax(n: &Node) -> KNode {
        match n {
            Node::Block(v) => KNode::Block(v.iter().map(KNode::from_syntax).collect()),
            Node::For(l) => KNode::For(KLoop {
                parallel: l.parallel && !l.otl,
                ..KLoop::like(l, KNode::from_syntax(&l.body))
            }),
            Node::If { cond, then, other } => KNode::If {
                cond: cond.clone(),
                then: Box::new(KNode::from_syntax(then)),
                other: other.as_ref().map(|o| Box::new(KNode::from_syntax(o))),
            },
            Node::User { stmt, args } => KNode::Stmt {
                stmt: *stmt,
                args: args.clone(),
            },
        }
    }

    /// The node with `f` applied to each of its direct children.
    pub fn map_children(self, f: &mut impl FnMut(KNode) -> KNode) -> KNode {
        match self {
            KNode::Block(v) => KNode::Block(v.into_iter().map(&mut *f).collect()),
            KNode::For(mut l) => {
                l.body = Box::new(f(*l.body));
                KNode::For(l)
            }
            KNode::If { cond, then, other } => KNode::If {
                cond,
                then: Box::new(f(*then)),
                other: other.map(|o| Box::new(f(*o))),
            },
            KNode::Points {
                wave,
                vars,
                origins,
                privates,
                lanes,
                body,
            } => KNode::Points {
                wave,
                vars,
                origins,
                privates,
                lanes,
                body: Box::new(f(*body)),
            },
            KNode::Single(body) => KNode::Single(Box::new(f(*body))),
            leaf @ (KNode::Stmt { .. }
            | KNode::Reduce { .. }
            | KNode::Barrier
            | KNode::Registers(_)
            | KNode::Jam(_)) => leaf,
        }
    }

    /// The nodes directly inside this one.
    pub fn children(&self) -> Vec<&KNode> {
        match self {
            KNode::Block(v) => v.iter().collect(),
            KNode::For(l) => vec![&l.body],
            KNode::If { then, other, .. } => std::iter::once(then.as_ref())
                .chain(other.as_deref())
                .collect(),
            KNode::Points { body, .. } | KNode::Single(body) => vec![body],
            KNode::Stmt { .. }
            | KNode::Reduce { .. }
            | KNode::Barrier
            | KNode::Registers(_)
            | KNode::Jam(_) => Vec::new(),
        }
    }

    /// How many nodes, this one and those inside it, `pred` holds for.
    pub fn count(&self, pred: &impl Fn(&KNode) -> bool) -> usize {
        usize::from(pred(self)) + self.children().iter().map(|c| c.count(pred)).sum::<usize>()
    }

    /// Does `pred` hold for this node or one inside it?
    pub fn any(&self, pred: &impl Fn(&KNode) -> bool) -> bool {
        pred(self) || self.children().iter().any(|c| c.any(pred))
    }
}

/// What printers need to know of the SCoP itself (its parameters, statements and data), so
/// that they take the IR alone.
#[derive(Debug, Clone)]
pub struct ScopData {
    pub params: Vec<ParamData>,
    pub statements: Vec<StatementData>,
    pub data: Vec<DatumData>,
}

/// A parameter: its model name (see `crate::names` for the C name) and C type.
#[derive(Debug, Clone)]
pub struct ParamData {
    pub name: String,
    pub ty: IntType,
}

/// A statement: its C expression over its iterators, and where its instances need casts.
#[derive(Debug, Clone)]
pub struct StatementData {
    pub body: Expr,
    pub iterators: Vec<String>,
    pub iterator_types: Vec<IntType>,
    pub casts: Casts,
}

/// An array or scalar of the SCoP.
#[derive(Debug, Clone)]
pub struct DatumData {
    pub name: String,
    /// C type of an element.
    pub elem: String,
    /// Extents as C expressions over the parameters' C names (`None`: not declared).
    pub extents: Vec<Option<Expr>>,
    pub written: bool,
    /// The scalar this array expands (`rosepolly::model::Storage::Expanded`): the generated
    /// code allocates it for the SCoP's run, and no value moves in or out of it.
    pub expands: Option<String>,
}

impl ScopData {
    pub fn of(scop: &Scop) -> ScopData {
        ScopData {
            params: ParamData::of(scop),
            statements: scop
                .statements
                .iter()
                .map(|st| StatementData {
                    body: st.body.clone(),
                    iterators: st.iterators.clone(),
                    iterator_types: st.iterator_types.clone(),
                    casts: st.casts,
                })
                .collect(),
            data: scop.symbols.data.values().map(DatumData::of).collect(),
        }
    }

    /// The datum named `name` (a model name).
    pub fn datum(&self, name: &str) -> Option<&DatumData> {
        self.data.iter().find(|d| d.name == name)
    }

    /// The datum a printed statement names `printed` ([`crate::names::user`]'s spelling, as
    /// [`crate::c::statement_instance`] writes it).
    pub fn printed_datum(&self, printed: &str) -> Option<&DatumData> {
        self.data
            .iter()
            .find(|d| crate::names::user(&d.name) == printed)
    }

    /// The arrays polyc made from scalars.
    pub fn expanded(&self) -> impl Iterator<Item = &DatumData> {
        self.data.iter().filter(|d| d.expands.is_some())
    }

    /// The statements with each expanded array indexed flat, row-major (`polyc_exp0_w[i * E1 +
    /// j]`), as host code declares them.
    pub fn flat_expanded(&self) -> ScopData {
        let mut out = self.clone();
        for st in &mut out.statements {
            st.body = st.body.map(&mut |e| match e {
                Expr::Index { array, subscripts } if subscripts.len() > 1 => {
                    match self.datum(crate::names::unmarked(&array)) {
                        Some(d) if d.expands.is_some() => {
                            let inner: Vec<Expr> = d.extents[1..]
                                .iter()
                                .map(|x| {
                                    Expr::cast(
                                        "long",
                                        x.clone().expect("expanded arrays have extents"),
                                    )
                                })
                                .collect();
                            Expr::Index {
                                array,
                                subscripts: vec![crate::device::row_major(subscripts, &inner)],
                            }
                        }
                        _ => Expr::Index { array, subscripts },
                    }
                }
                other => other,
            });
        }
        out
    }
}

impl ParamData {
    pub fn of(scop: &Scop) -> Vec<ParamData> {
        scop.params
            .iter()
            .zip(&scop.param_types)
            .map(|(p, &ty)| ParamData {
                name: p.clone(),
                ty,
            })
            .collect()
    }
}

impl DatumData {
    pub fn of(d: &rosepolly::model::Datum) -> DatumData {
        DatumData {
            name: d.name.clone(),
            elem: d.elem_type.clone(),
            extents: d
                .extents
                .iter()
                .map(|e| e.as_ref().map(|e| crate::names::user_expr(&from_affine(e))))
                .collect(),
            written: d.written,
            expands: d.expands.clone(),
        }
    }

    pub fn is_scalar(&self) -> bool {
        self.extents.is_empty()
    }
}

/// A SCoP lowered for tiled execution.
pub struct ScopIr {
    pub id: usize,
    /// How many tile sizes the SCoP reads.
    pub depth: usize,
    /// The SCoP's parameters, statements and data.
    pub data: ScopData,
    /// The outer structure: its [`Node::User`] nodes are groups (`stmt` indexes
    /// [`ScopIr::groups`]), with the values of the outer dimensions as arguments.
    pub host: Node,
    pub groups: Vec<GroupIr>,
    /// What decides whether the SCoP runs in its original order (the user's own lines) instead
    /// of the tiles, where the problem is too small for them to pay (C target).
    pub original: Option<OriginalOrder>,
}

/// What the tiles' order offers a problem too small for tiles to pay (the argument `reorder`
/// of the C target's `polyc_tiles_pay`, its value the discriminant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reorder {
    /// The original's innermost loops are as good: the original's lines run.
    No = 0,
    /// The tiles' are better: the whole band runs as one tile.
    WholeTile = 1,
    /// The tiles' are better but stride across rows: one tile spanning the band would step
    /// across every row of an array at each point (bicg LARGE, 1,900 rows of 16.8 KB: a page
    /// per point, 13-14 ms against the original's 12.6 ms on an Intel Xeon VM), so the tiles
    /// run, on one thread (7.9 ms).
    Tiles = 2,
}

impl OriginalOrder {
    /// The original order runs all of the work by jammed rows ([`crate::jam`]): the tiles'
    /// order and register rows no longer gain on one thread, and its innermost loops no longer
    /// step across rows one element at a time (a block reads a row's [`crate::jam::ROWS`]
    /// elements together).
    pub fn jammed(&mut self) {
        self.reorder = Reorder::No;
        self.registers.clear();
        self.rows = false;
        self.strided = false;
    }

    /// The argument `reorder` of `polyc_tiles_pay`: the [`Reorder`], plus 4 where full tiles
    /// hold register blocks, and 8 more where those are rows (`rows`), plus 16 where the
    /// original order runs as vectors (`vectorised`), plus 32 where its time tiles pay on one
    /// thread once its arrays outgrow part of the cache (`time_tiles`). This is its value before
    /// the tile sizes are known: the SCoP's code clears the 4 and 8 where too few points lie
    /// in full tiles ([`MIN_FULL_SHARE`]).
    pub fn reorder_arg(&self) -> i32 {
        let registers = if self.registers.is_empty() {
            0
        } else if self.rows {
            4 | 8
        } else {
            4
        };
        let vectors = if self.vectorised { 16 } else { 0 };
        let time_tiles = if self.time_tiles { 32 } else { 0 };
        self.reorder as i32 | registers | vectors | time_tiles
    }
}

/// The estimate of a SCoP's work in its original order, which the C target runs (as the
/// user's own lines) when tiles do not pay.
pub struct OriginalOrder {
    /// The bounding boxes of the statements' domains: the sum of their volumes estimates the
    /// number of statement instances (`polyc_points`).
    pub work: Vec<WorkBox>,
    /// Whether the order's innermost loops step across array rows
    /// ([`ptile::locality::strides_across_rows`]): then tiles pay for their locality alone
    /// once the data exceed the cache.
    pub strided: bool,
    /// Whether the tiles' innermost loops suit the vectoriser better than the original's
    /// ([`crate::inner_loops`]), and how a problem too small for tiles then runs.
    pub reorder: Reorder,
    /// The groups whose full tiles run nests by register blocks ([`crate::registers`]): then
    /// from 2^22 points (`c::WARM_POINTS`) the tiles pay on one thread where the problem is
    /// too small for threads (MEDIUM, medians of 7, against the polyc before: gemm 1.71 ->
    /// 1.13 ms, the original 1.47; 3mm 5.60 -> 3.35 ms as one tile, whose tiles are never
    /// full); below, their set-up costs more than they gain (gemm SMALL 0.087 ms tiled, 0.047
    /// ms its lines). Only where at least [`MIN_FULL_SHARE`] of each such group's points lie
    /// in full tiles at the sizes the SCoP runs with (doitgen MEDIUM, extents 50, 40, 60 and
    /// 60, a share of 0.15 at the default 32, ran 1.49 ms in tiles against 1.38 ms as one
    /// tile), and, for rows alone, where they hold the SCoP's work
    /// (`lower::register_blocks`).
    pub registers: Vec<usize>,
    /// Whether the register blocks are all rows of two-loop nests, whose element the original
    /// order updates along its innermost loop, each addition waiting for the one before: the
    /// blocks' independent chains pay from 2^16 points (`c::ROW_POINTS`; gesummv MEDIUM, 125,000
    /// points, 0.159 ms its lines, 0.067 ms tiles with blocks on one thread; SMALL, 16,000
    /// points, 0.019 against 0.023 ms).
    pub rows: bool,
    /// The latency of one of its points against a point that vectorises
    /// ([`ptile::locality::recurrence_latency`]): the factor that turns its points into work
    /// when deciding whether threads pay.
    pub latency: u32,
    /// Whether the SCoP's outermost loop repeats sweeps over its arrays
    /// ([`ptile::locality::repeats_sweeps`]): its tile sizes then default to
    /// [`crate::host_printer::TIME_TILE`] first where its points wait for one another, else to
    /// [`crate::host_printer::SWEEP_ROW_TILE`] last.
    pub sweeps: bool,
    /// Whether the SCoP repeats sweeps (`sweeps`) in a band of at most [`MAX_TIME_TILE_DEPTH`]
    /// dimensions: its time tiles then pay on one thread once its arrays exceed a third of the
    /// last-level cache (`reorder` + 32, `polyc_one_thread`), where the original's lines fetch
    /// each step's data from memory again.
    pub time_tiles: bool,
    /// Whether folded jammed rows run the deepest loops' work as vectors
    /// ([`crate::jam::Jammed::vectorised`]): `reorder` + 16, and tiles pay only on
    /// [`crate::c::VECTOR_ROWS_THREADS`] threads or more.
    pub vectorised: bool,
}

/// The deepest band whose time tiles pay on one thread ([`OriginalOrder::time_tiles`]).
/// Measured on the 2-core AMD EPYC VM (32 MiB L3), one thread, 100 steps, tiles at the
/// default sizes against the lines, medians of 5: jacobi-2d (a band of 3) 1.11x the lines' time
/// at 2.6 MB of arrays, 1.03x at 7.8 MB, 0.83x at 11.6, 0.51x at 16, 0.35x at 27; fdtd-2d 1.02x
/// at 8.6 MB, 0.54x at 19, 0.31x at 29. heat-3d (a band of 4: time and three dimensions of
/// space) lost at every size with the sizes of then (8,32,32,32: 1.87x at 3.5 MB, 2.29x at
/// 8.2, 1.42x at 16, 1.13x at 27.6), and the bound was 3; with rows of
/// [`crate::host_printer::SWEEP_ROW_TILE`] (32,32,32,128) it loses while the arrays fit a
/// third of the cache and wins beyond, as the others do: 1.20x at 1.0 MB, 1.27x at 3.5, 1.15x
/// at 8.2, 0.76x at 16, 0.55x at 27.6; at LARGE (500 steps) 2.2 s against its lines' 3.2-3.9
/// and the original's 4.0 (three runs each). jacobi-2d at those sizes: 1.05x at 2.6 MB, 1.01x
/// at 7.8, 0.48x at 16.
pub const MAX_TIME_TILE_DEPTH: usize = 4;

/// The share of a register-blocked group's points that must lie in full tiles for the tiles
/// to pay on one thread (`OriginalOrder::registers`): gemm MEDIUM at the default sizes, 0.78,
/// gains from them; doitgen MEDIUM, 0.15, loses.
pub const MIN_FULL_SHARE: f64 = 0.5;

/// A box of band points: per dimension `k`, its range given the ranges of the dimensions
/// before it (`polyc_plo<j>`, `polyc_phi<j>`).
pub struct WorkBox {
    pub dims: Vec<(Expr, Expr)>,
    /// The share of the box the statement's instances fill (`ptile::density`).
    pub density: f64,
}

impl ScopIr {
    /// Its tiled groups' code, in order.
    pub fn tiled_groups(&self) -> impl Iterator<Item = &TiledGroup> {
        self.groups.iter().filter_map(|g| match &g.code {
            GroupCode::Tiled(t) => Some(&**t),
            GroupCode::Untiled(_) => None,
        })
    }

    /// The atomic updates its kernels combine private partial results with: operator and C
    /// type of each (none where no kernel has private partial results).
    pub fn atomic_updates(&self) -> BTreeSet<Update> {
        fn note(n: &KNode, out: &mut BTreeSet<Update>) {
            if let KNode::Points { privates, .. } = n {
                out.extend(privates.iter().map(|p| p.update.clone()));
            }
            n.children().into_iter().for_each(|c| note(c, out));
        }
        let mut out = BTreeSet::new();
        for t in self.tiled_groups() {
            out.extend(t.combined.iter().map(|p| p.update.clone()));
            note(&t.body, &mut out);
            if let Some(f) = &t.full_body {
                note(f, &mut out);
            }
        }
        out
    }

    /// Can more than one work-item of a GPU work at a time somewhere in this SCoP: a group
    /// whose tiles run in parallel, or whose tile points are shared out among work-items?
    pub fn has_device_parallelism(&self) -> bool {
        self.groups.iter().any(|g| match &g.code {
            GroupCode::Untiled(_) => false,
            GroupCode::Tiled(t) => {
                let tiles = t.host_dims > 0 && t.mode != TileMode::Sequential;
                let points = match &t.threads {
                    Some(ThreadLayout::Rectangular { .. }) => true,
                    Some(ThreadLayout::Wavefront { dims }) => dims.len() > 1,
                    None => false,
                };
                tiles || points
            }
        })
    }
}

/// One group of statements.
pub struct GroupIr {
    pub index: usize,
    /// Names of the group's statements (for comments).
    pub names: Vec<String>,
    /// The outer-dimension parameters the host sets from the group call's arguments
    /// (`polyc_x<d>`), in argument order.
    pub outer: Vec<String>,
    pub code: GroupCode,
}

impl GroupIr {
    /// Whether an execution of the group may start OpenMP's threads on a CPU: its tiles run
    /// in parallel (a `parallel for`) or by wavefronts (a parallel region), or its untiled
    /// loops hold a parallel loop. Sequential tiles never do.
    pub fn forks(&self) -> bool {
        fn parallel(n: &KNode) -> bool {
            matches!(n, KNode::For(l) if l.parallel) || n.children().into_iter().any(parallel)
        }
        match &self.code {
            GroupCode::Untiled(code) => parallel(code),
            GroupCode::Tiled(t) => t.mode != TileMode::Sequential,
        }
    }
}

/// What a group runs.
pub enum GroupCode {
    /// Its scheduled loops, not tiled.
    Untiled(KNode),
    Tiled(Box<TiledGroup>),
}

/// How the host walks the tiles of a group, and the code of one tile.
pub struct TiledGroup {
    pub depth: usize,
    pub mode: TileMode,
    /// Tile dimensions the host enumerates per tile (the rest loop inside the tile code, in
    /// order): all of them on a CPU; on a GPU those that index the tile bucket.
    pub host_dims: usize,
    /// Tile dimensions whose sum numbers the wavefronts (wavefront mode).
    pub wave_dims: usize,
    /// Per tile dimension `k`: its range given the origins of tiles `0..k`.
    pub ranges: Vec<(Expr, Expr)>,
    /// Per tile dimension: its range over the whole tile space, given the global ranges of the
    /// dimensions before it (`polyc_glo<k>`, `polyc_ghi<k>`).
    pub global: Vec<(Expr, Expr)>,
    /// Per band dimension: the range of its points over the whole space, given those of the
    /// dimensions before it (`polyc_plo<k>`, `polyc_phi<k>`): the bounding box whose volume
    /// estimates the work.
    pub points: Vec<(Expr, Expr)>,
    /// The emptiness probe: the tile's loops with every statement replaced by a jump out.
    pub probe: KNode,
    /// Algorithm 5's fullness test, when the group has a full-tile version.
    pub full_test: Option<Expr>,
    /// The tile code, and its full-tile version.
    pub body: KNode,
    pub full_body: Option<KNode>,
    /// GPU: the work-items' layout (None on a CPU).
    pub threads: Option<ThreadLayout>,
    /// CPU: the band dimension the tile's innermost loops run along, when no other loop runs
    /// inside them (their trip count in a full tile is its tile size).
    pub inner: Option<usize>,
    /// GPU: the candidate local-memory buffers of a tile, best first (thesis §6.4.1).
    pub buffers: Vec<ptile::buffers::Candidate>,
    /// GPU: the buffers its kernel versions stage, and where their references go.
    pub staging: crate::staging::Staging,
    /// CPU: the scalar reductions whose updates go to a partial result per value of the
    /// first tile dimension, combined in its order after the walk ([`KNode::Reduce`]); the
    /// tiles then run in parallel along that dimension.
    pub partials: Vec<Private>,
    /// GPU: the reductions whose updates go to a partial result per work-item; the
    /// work-group combines them (a tree in local memory) and adds the result to the
    /// accumulator once per tile ([`KNode::Reduce`]). Every band dimension's points are then
    /// shared out, and every tile runs in parallel (a dot product, a matrix's sum).
    pub combined: Vec<Private>,
    /// GPU: 0, or the width of the lane groups that share each thread-bucket entry of the
    /// tile's points along a summed dimension ([`crate::lanes`]); the bucket then has a last
    /// dimension of this extent.
    pub lanes: usize,
}

impl TiledGroup {
    /// GPU: the partial results of the points that lane groups share ([`crate::lanes`]), in
    /// the tile code and its full-tile version.
    pub fn lane_privates(&self) -> Vec<Private> {
        fn note(n: &KNode, out: &mut Vec<Private>) {
            if let KNode::Points {
                privates, lanes, ..
            } = n
            {
                if *lanes > 0 {
                    out.extend(privates.iter().cloned());
                }
            }
            n.children().into_iter().for_each(|c| note(c, out));
        }
        let mut out = Vec::new();
        note(&self.body, &mut out);
        if let Some(f) = &self.full_body {
            note(f, &mut out);
        }
        out
    }
}

/// The thread bucket a group's tiles use (thesis §7.3).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ThreadLayout {
    /// One entry per point of the box of these tile dimensions (the parallel band
    /// dimensions), the last varying fastest.
    Rectangular { dims: Vec<usize> },
    /// The points of the box of all band dimensions, by intra-tile wavefront `Σ u_k`.
    Wavefront { dims: Vec<usize> },
}

impl ThreadLayout {
    pub fn dims(&self) -> &[usize] {
        match self {
            ThreadLayout::Rectangular { dims } | ThreadLayout::Wavefront { dims } => dims,
        }
    }
}

/// The run-time names of tile dimension `k`.
pub fn size(k: usize) -> String {
    format!("polyc_T{k}")
}
pub fn tile(k: usize) -> String {
    format!("polyc_t{k}")
}
pub fn origin(k: usize) -> String {
    format!("polyc_o{k}")
}
/// The first point of tile dimension `k` that can hold an instance: `max(o_k, plo_k)`, the
/// origin of the thread bucket's offsets (so that a bucket of `min(T_k, extent)` entries per
/// dimension covers tiles larger than the problem).
pub fn base(k: usize) -> String {
    format!("polyc_b{k}")
}
