//! Reductions across tiles (issue 17, item 1): on a GPU, partial results per work-item combined
//! atomically (below), or per work-group where nothing else is parallel
//! (`Lowering::group_sums`); on a CPU, a reduction into one element (a scalar, `s[0]`) keeps a
//! partial result per row of tiles (`Lowering::partial_sums`), combined in the rows' order by
//! the host's walk.
//!
//! A group whose tiles run in parallel along their first dimensions but not along the next,
//! because only sums carry dependences there (bicg's `q[i] += A[i][j] * p[j]` along `j`), runs
//! one work-group per row of tiles and each work-item sums its whole row alone: a few
//! thousand work-items for a matrix of millions of elements. Here such a group's tiles run in
//! parallel along the reduction's dimensions too: each work-item sums its share of a tile in
//! a private partial result ([`KNode::Reduce`]) and adds it to the accumulator atomically once
//! per entry of its points ([`crate::ir::Private`]).
//!
//! Only where one tile dimension alone runs in parallel (matrix-vector products, column
//! sums), in no outer sequential loop (whose later iterations would compound the sums' new
//! rounding), and where that is exact up to the order of the additions:
//! - the statement is a reduction ([`rosepolly::analysis::reductions`]: `+=`, `*=`, `min` and
//!   `max` as `?:` or `fmin`/`fmax`, `&=`, `|=`, `^=`) on an accumulator of a type kernels can
//!   update atomically with its operator ([`crate::atomics::supported`]), and no other
//!   statement of the group touches its array or scalar (it would see partial results);
//! - with its self-dependences on the accumulator relaxed, the tile dimensions carry no
//!   dependence ([`pluto::deltas::parallel_relaxing`]);
//! - every instance of the statement runs inside a work-item's points, and the element it
//!   updates depends only on the points' mapped iterators and what is fixed around them, not
//!   on a loop inside (else the partial result would mix elements).
//!
//! Floating-point sums and products then combine in another order than the original's, so
//! their last bits may differ (`min`, `max` and the bitwise operators are exact);
//! `--no-reductions` keeps the original order.

use std::collections::BTreeMap;

use rosepolly::analysis::reductions;
use rosepolly::model::expr::Expr;
use rosepolly::model::{AccessKind, Dependence, Scop};

use ptile::{TileGroup, TileMode};

use super::Lowering;
use crate::atomics::{self, Update};
use crate::ir::{KNode, Private};

/// The reductions that let a group's tiles run in parallel along more dimensions.
pub(super) struct Split {
    /// How many leading tile dimensions then run in parallel (the host enumerates them).
    pub dims: usize,
    /// Per reduction statement: its accumulator's datum and how partial results combine.
    pub stmts: Reductions,
}

impl Split {
    /// Is `datum` the accumulator of one of the reductions?
    pub fn accumulates(&self, datum: &str) -> bool {
        self.stmts.values().any(|(d, _)| d == datum)
    }
}

impl Lowering<'_, '_> {
    /// `group`'s tile code (`body` and its full-tile version) with its sums split across tiles
    /// where they can be: the tile dimensions the host then enumerates (`host_dims` where they
    /// cannot), the code, and the split.
    pub(super) fn split_sums(
        &self,
        group: &TileGroup,
        host_dims: usize,
        body: KNode,
        full: Option<KNode>,
    ) -> (usize, KNode, Option<KNode>, Option<Split>) {
        let Some(split) = self.reduction_split(group, host_dims) else {
            return (host_dims, body, full, None);
        };
        let private_full = match &full {
            Some(f) => privatise(f.clone(), &split, self.scop).map(Some),
            None => Some(None),
        };
        match (privatise(body.clone(), &split, self.scop), private_full) {
            (Some(b), Some(f)) => (split.dims, b, f, Some(split)),
            _ => (host_dims, body, full, None),
        }
    }

    /// The split of `group` (on a GPU) whose tiles run in parallel along their first
    /// `host_dims` dimensions, when its reductions let more of them do so.
    fn reduction_split(&self, group: &TileGroup, host_dims: usize) -> Option<Split> {
        // With two tile dimensions in parallel already (2mm's `i` and `j`), the GPU has the
        // problem's square of work-items; splitting `k` too would cost one atomic addition per
        // tile and element (25 million for 2mm at LARGE) for parallelism it does not lack.
        if !self.reductions
            || group.mode != TileMode::Parallel
            || host_dims != 1
            || host_dims >= group.depth
        {
            return None;
        }
        let band = &self.schedule.bands[self.space.band?];
        // Inside an outer sequential loop, later iterations read what the sums computed, and
        // a change in their last bits can grow from one iteration to the next: gramschmidt's
        // `R[k][j]`, whose last columns are cancellation noise (the original built with gcc's
        // -ffast-math differs by 0.88 at MINI), changed by up to 0.06 split. Such sums keep
        // their order.
        if band.diamond.is_some() || !self.space.outer_dims.is_empty() {
            return None;
        }
        let (stmts, parallel) = self.relaxable(group, &|_| true)?;
        let dims = parallel.iter().take_while(|&&p| p).count();
        (dims > host_dims).then_some(Split { dims, stmts })
    }

    /// The reductions of `group` (on a GPU) whose work-groups combine partial results
    /// ([`crate::ir::TiledGroup::combined`]), when no tile dimension runs in parallel but
    /// every one would with their self-dependences relaxed: a dot product, a matrix's sum or
    /// maximum, which otherwise run on one work-group or on the host. Each updates one element
    /// whatever the iteration (a scalar, or an array element of constant subscripts), so a
    /// work-group's partial results all go to the same place. Not in an outer sequential loop
    /// or a diamond band, as for [`Lowering::split_sums`].
    pub(super) fn group_sums(&self, group: &TileGroup) -> Option<Reductions> {
        let band = &self.schedule.bands[self.space.band?];
        let intra = self.space.intra.as_ref()?;
        if !self.reductions
            || group.mode == TileMode::Parallel
            || group.depth == 0
            || group.depth != intra.parallel.len()
            || band.diamond.is_some()
            || !self.space.outer_dims.is_empty()
        {
            return None;
        }
        let scop = self.scop;
        let (stmts, parallel) = self.relaxable(group, &|r| one_element(scop, r))?;
        parallel.iter().all(|&p| p).then_some(stmts)
    }

    /// The reductions of `group` that `accept` takes, alone on their accumulators and of an
    /// operator and type partial results can combine, and per tile dimension whether it is
    /// parallel once their self-dependences on their accumulators are relaxed.
    fn relaxable(
        &self,
        group: &TileGroup,
        accept: &dyn Fn(&reductions::Reduction) -> bool,
    ) -> Option<(Reductions, Vec<bool>)> {
        let scop = self.scop;
        let stmts: Reductions = reductions::find(scop)
            .into_iter()
            .filter(|r| group.statements.contains(&r.statement))
            .filter(|r| r.alone_among(scop, &group.statements))
            .filter(|r| accept(r))
            .filter_map(|r| {
                let elem = &scop.symbols.get(&r.datum)?.elem_type;
                let pick = reductions::pick(&scop.statements[r.statement].body)?;
                let update = Update::new(r.op, pick, elem);
                atomics::supported(r.op, elem).then_some((r.statement, (r.datum, update)))
            })
            .collect();
        if stmts.is_empty() {
            return None;
        }
        let relaxed = |d: &Dependence| {
            d.source == d.sink
                && stmts
                    .get(&d.source)
                    .is_some_and(|(datum, _)| *datum == d.datum)
        };
        let parallel = pluto::deltas::parallel_relaxing(
            self.ctx,
            scop,
            self.schedule,
            (self.start(), group.depth),
            &group.statements,
            &relaxed,
        );
        Some((stmts, parallel))
    }

    /// The C target's `group` with its reductions into one element each summed per row of tiles (a value of
    /// the first tile dimension), where that lets the rows run in parallel: the group's mode,
    /// its tile code (full-tile version too) and the partial results. Unchanged elsewhere.
    ///
    /// Only a walk that is not parallel already, in no outer sequential loop and no diamond
    /// band (as on a GPU: later iterations would compound the new rounding), and only
    /// accumulators of one element (a scalar, or an array element of constant subscripts: one
    /// partial result per row; an array's of varying elements would be the array again).
    pub(super) fn partial_sums(
        &self,
        group: &TileGroup,
        body: KNode,
        full: Option<KNode>,
    ) -> (TileMode, KNode, Option<KNode>, Vec<Private>) {
        let unchanged = |body, full| (group.mode, body, full, Vec::new());
        let band = self.space.band.map(|b| &self.schedule.bands[b]);
        if !self.reductions
            || group.mode == TileMode::Parallel
            || !self.space.outer_dims.is_empty()
            || band.is_none_or(|b| b.diamond.is_some())
        {
            return unchanged(body, full);
        }
        let scop = self.scop;
        let Some((stmts, parallel)) = self.relaxable(group, &|r| one_element(scop, r)) else {
            return unchanged(body, full);
        };
        if parallel.first() != Some(&true) {
            return unchanged(body, full);
        }
        let mut partials = Vec::new();
        let body = into_partials(body, &stmts, &mut partials);
        let full = full.map(|f| into_partials(f, &stmts, &mut partials));
        (TileMode::Parallel, body, full, partials)
    }
}

/// Whether reduction `r` updates one element whatever the iteration: a scalar, or an array
/// element whose subscripts hold no iterator (`s[0]`, `stats[n - 1]`). An array polyc expanded a
/// scalar into has the iterators of its loops.
fn one_element(scop: &Scop, r: &reductions::Reduction) -> bool {
    let st = &scop.statements[r.statement];
    st.accesses
        .iter()
        .filter(|a| a.kind == AccessKind::Write && a.datum == r.datum)
        .all(|a| {
            let mut used = Vec::new();
            a.subscripts.iter().for_each(|x| x.vars(&mut used));
            used.iter().all(|v| !st.iterators.contains(v))
        })
}

/// A reduction statement's accumulator and how its partial results combine, per statement.
pub(super) type Reductions = BTreeMap<usize, (String, Update)>;

/// `code` with every instance of `stmts` updating its statement's partial result
/// ([`KNode::Reduce`]); the slot of each statement is added to `partials` at its first instance.
pub(super) fn into_partials(code: KNode, stmts: &Reductions, partials: &mut Vec<Private>) -> KNode {
    match code {
        KNode::Stmt { stmt, args } if stmts.contains_key(&stmt) => {
            let slot = match partials.iter().find(|p| p.stmt == stmt) {
                Some(p) => p.slot,
                None => {
                    partials.push(private(partials.len(), stmt, &args, &stmts[&stmt].1));
                    partials.len() - 1
                }
            };
            KNode::Reduce { stmt, args, slot }
        }
        other => other.map_children(&mut |c| into_partials(c, stmts, partials)),
    }
}

/// Slot `slot`'s partial result of statement `stmt` (an instance at `args`).
fn private(slot: usize, stmt: usize, args: &[Expr], update: &Update) -> Private {
    Private {
        slot,
        stmt,
        args: args.to_vec(),
        update: update.clone(),
    }
}

/// `code` with every instance of `split`'s statements updating a private partial result of
/// its work-item's points; `None` where some instance is outside the points, or the element
/// it updates is not fixed for them.
fn privatise(code: KNode, split: &Split, scop: &Scop) -> Option<KNode> {
    let mut ok = true;
    let out = walk(code, split, scop, &mut ok);
    ok.then_some(out)
}

fn walk(node: KNode, split: &Split, scop: &Scop, ok: &mut bool) -> KNode {
    match node {
        KNode::Points {
            wave,
            vars,
            origins,
            privates,
            lanes,
            body,
        } => {
            let mut points = Points {
                split,
                scop,
                inner: Vec::new(),
                privates,
                targets: Vec::new(),
                ok: true,
            };
            collect_loops(&body, &mut points.inner);
            let body = points.rewrite(*body);
            *ok &= points.ok;
            KNode::Points {
                wave,
                vars,
                origins,
                privates: points.privates,
                lanes,
                body: Box::new(body),
            }
        }
        KNode::Stmt { stmt, .. } if split.stmts.contains_key(&stmt) => {
            *ok = false;
            node
        }
        other => other.map_children(&mut |c| walk(c, split, scop, ok)),
    }
}

/// The rewrite of one work-item's points.
struct Points<'a> {
    split: &'a Split,
    scop: &'a Scop<'a>,
    /// The iterators of the loops inside the points.
    inner: Vec<String>,
    privates: Vec<Private>,
    /// Per private slot, the element it adds to.
    targets: Vec<Expr>,
    ok: bool,
}

impl Points<'_> {
    fn rewrite(&mut self, n: KNode) -> KNode {
        match n {
            KNode::Stmt { stmt, args } if self.split.stmts.contains_key(&stmt) => {
                match self.slot(stmt, &args) {
                    Some(slot) => KNode::Reduce { stmt, args, slot },
                    None => {
                        self.ok = false;
                        KNode::Stmt { stmt, args }
                    }
                }
            }
            KNode::Points { .. } | KNode::Single(_) => {
                // Work-item constructs inside points: not a layout this knows.
                self.ok = false;
                n
            }
            other => other.map_children(&mut |c| self.rewrite(c)),
        }
    }

    /// The private slot of statement `stmt`'s instance at `args`: a new one for its first
    /// instance, the same for every other that updates the same element.
    fn slot(&mut self, stmt: usize, args: &[Expr]) -> Option<usize> {
        let target = updated(self.scop, stmt, args)?;
        let mut used = Vec::new();
        target.walk(&mut |e| {
            if let Expr::Var(v) = e {
                used.push(v.clone());
            }
        });
        if used.iter().any(|v| self.inner.contains(v)) {
            return None;
        }
        if let Some(p) = self.privates.iter().position(|p| p.stmt == stmt) {
            return (self.targets[p] == target).then_some(self.privates[p].slot);
        }
        let slot = self.privates.len();
        let update = &self.split.stmts[&stmt].1;
        self.privates.push(private(slot, stmt, args, update));
        self.targets.push(target);
        Some(slot)
    }
}

/// The iterators of the loops in `n`.
fn collect_loops(n: &KNode, out: &mut Vec<String>) {
    match n {
        KNode::For(l) => {
            out.push(l.var.clone());
            collect_loops(&l.body, out);
        }
        KNode::Block(v) => v.iter().for_each(|c| collect_loops(c, out)),
        KNode::If { then, other, .. } => {
            collect_loops(then, out);
            if let Some(o) = other {
                collect_loops(o, out);
            }
        }
        KNode::Points { body, .. } | KNode::Single(body) => collect_loops(body, out),
        KNode::Stmt { .. }
        | KNode::Reduce { .. }
        | KNode::Barrier
        | KNode::Registers(_)
        | KNode::Jam(_) => {}
    }
}

/// The element statement `stmt` assigns at `args` (its iterators replaced), when it is an
/// assignment.
fn updated(scop: &Scop, stmt: usize, args: &[Expr]) -> Option<Expr> {
    let st = &scop.statements[stmt];
    let Expr::Assign { lhs, .. } = &st.body else {
        return None;
    };
    Some(lhs.substitute(&|name| {
        st.iterators
            .iter()
            .position(|i| i == name)
            .map(|k| args[k].clone())
    }))
}
