//! Jammed rows of the original order: where tiles do not pay, the C target runs the SCoP in its
//! original order, and a loop of it whose rows each fold values along an inner loop
//! (`tmp[i] += A[i][j] * x[j]`, `j` innermost) runs by blocks of [`ROWS`] rows, each inner loop
//! once around the block's rows (unroll and jam).
//!
//! In the original order every addition of such a chain waits for the one before it; in a
//! block, the rows' chains are independent and held in a local array the C compiler keeps in
//! registers. Where the rows also update a shared vector along the inner loop (atax's
//! `y[j] += A[i][j] * tmp[i]`, bicg's `s[j]`), each element is loaded and stored once per
//! block instead of once per row, and the rows' shared data (`A[i][j]`) are read once, where
//! tiles distribute the nests and read them twice (`docs/results/fused-row-blocks-atax.md`:
//! by hand, atax LARGE 5.89 -> 3.21 ms, MEDIUM 112 -> 59 us, on one thread).
//!
//! The rewrite keeps every element's updates in their original order, so it computes the same
//! values to the last bit, by the shape of the loop's body alone:
//! - the body is statements and loops of statements (the *inner* loops), whose bounds do not
//!   depend on the row;
//! - every array the body writes is either *row-private*, its accesses in the body all sharing
//!   one subscript that is affine in the row with a nonzero coefficient and free of the inner
//!   loops' variables (two rows never touch one element; the instances of one row keep their
//!   order), or a *column*, accessed in the body by one statement alone, in an inner loop, at
//!   one element that does not depend on the row and is injective in that loop's variable (its
//!   updates stay in the rows' order);
//! - no scalar is written.
//!
//! An inner loop's upper bound may grow with the row (`for (j = 0; j < i; j++)`, trisolv's):
//! a block then runs the range of its first row jammed and each row's rest (its *tail*) after,
//! row by row, which keeps every element's order. Such a loop may also read elements of a
//! row-private array that earlier rows wrote (trisolv's `x[j]`, `j < i`): its jammed range
//! reads only rows before the block, and from its tails on the block's rows run one by one,
//! as written, so that each reads rows already done.
//!
//! A body that fails those rules may still jam as a *folded* body (`Accesses::folded`):
//! every statement updates the row's one element with an operator whose updates give the same
//! value in any order (integer `min`, `max`, bitwise: nussinov's `table[i][j] =
//! max_score(table[i][j], ...)`), and reads, of that array, only rows before its own or
//! elements of its own row that no row writes. A block then runs each inner loop's jammed
//! range first (for nussinov `table[i][k] + table[k + 1][j]` for the block's eight `j` at
//! once, a vector of the row `k + 1`, where the original walks a column), then each row's
//! statements and tails as written, row by row, so that reads of earlier rows (`table[i][j -
//! 1]`) find them done. The element's updates change order; its value, to the bit, does not.
//!
//! It pays where some inner loop's statement is a chain (it writes a row-private element that
//! does not change along the inner loop) and every statement of an inner loop is a chain or a
//! column: an inner statement whose element moves with the inner loop (gemver's
//! `A[i][j] = A[i][j] + ...`) is vectorised along it as written, and would step across rows.

use std::collections::{BTreeMap, BTreeSet};

use rosepolly::analysis::reductions::{self, ReductionOp};
use rosepolly::math::isl::{Ctx, UnionMap};
use rosepolly::model::affine::Affine;
use rosepolly::model::expr::{BinaryOp, Expr};
use rosepolly::model::Scop;
use rosepolly::syntax::{self, to_affine, RecoveryOptions};

use crate::c::{host_control, loop_header, print_k, statement_instance, COptions};
use crate::ir::{KLoop, KNode, ScopData};
use crate::registers::{coefficients, literal};

/// The rows of a block: as many independent chains as [`crate::registers::ROW_BLOCK`], whose
/// measurements hold here too.
pub const ROWS: i64 = crate::registers::ROW_BLOCK;

/// A loop of the original order run by blocks of [`ROWS`] rows.
#[derive(Debug, Clone, PartialEq)]
pub struct JamLoop {
    /// The loop as written, which runs the rows after the last whole block.
    pub rows: KLoop,
    /// Its body, one item per statement or inner loop.
    pub items: Vec<Item>,
    /// The item whose loop reads elements earlier rows wrote: from its tails on, the block's
    /// rows run one by one, as written.
    pub serial_from: Option<usize>,
    /// Every statement folds the row's one element with an exact operator
    /// (`Accesses::folded`): a block runs its inner loops' jammed ranges first, then each
    /// row's statements and tails, row by row.
    pub folded: bool,
}

/// What a block runs of one item of the rows' body.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// A statement of the row: its instances for the block's rows, in order.
    Row { stmt: usize, args: Vec<Expr> },
    /// An inner loop, run once around the block's rows.
    Inner(Box<Inner>),
}

/// An inner loop of the rows' body in a block.
#[derive(Debug, Clone, PartialEq)]
pub struct Inner {
    /// The loop's header (its body is `stmts`).
    pub header: KLoop,
    /// Its upper bound grows with the row: the block's first row's range runs jammed, each
    /// row's tail after it.
    pub grows: bool,
    pub stmts: Vec<(usize, Vec<Expr>)>,
    /// The row-private elements its chains fold into, held in a local array per block
    /// across the loop: each element (over the row variable) and its C type.
    pub chains: Vec<(Expr, String)>,
    /// The columns' elements, held in a local scalar across the block's rows.
    pub columns: Vec<(Expr, String)>,
    /// Elements of the row the loop reads and nothing in it writes (atax's `tmp[i]` beside
    /// `y[j]`), held like the chains: the C compiler cannot keep them in registers across a
    /// loop that stores to another array through a pointer.
    pub reads: Vec<(Expr, String)>,
}

/// The SCoP's original order with jammed rows, as the untiled path runs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jammed {
    /// The code (indented by two).
    pub code: String,
    /// Whether its jammed rows run all of a matrix-vector SCoP's work: every statement of its
    /// deepest loops, which are two deep, is in an inner loop of a jammed one. The tiles'
    /// register rows (`crate::registers`) then gain nothing over it on one thread, and the
    /// original order, read once, is faster (one thread, rotated runs, medians; tiles as the
    /// cost model ran them before: bicg MEDIUM 0.094 -> 0.047 ms, LARGE 9.4 -> 2.4 ms; gesummv
    /// 0.066 -> 0.045 and 2.36 -> 2.03 ms; mvt 0.096 -> 0.081 and 10.4 -> 8.6 ms; trisolv,
    /// whose range grows with the row, 0.047 -> 0.029 and 3.3 -> 2.4 ms). Deeper nests reuse
    /// data across rows, which tiles keep in cache.
    pub covers_work: bool,
    /// The statements its jammed rows run in inner loops of a fixed range (which the cost
    /// model counts as vectorised, `inner_loops::reorder`). Not those of loops whose range grows
    /// with the row: cholesky's `A[i][j] -= A[i][k] * A[j][k]`, jammed, ran 2% slower than its
    /// tiles on one thread at SMALL (0.117 against 0.114 ms, medians of 61 rotated runs) and
    /// 1.5x slower at MEDIUM (4.2 against 2.8 ms).
    pub statements: BTreeSet<usize>,
    /// Whether folded jammed rows (`Accesses::folded`) run every statement of the SCoP's
    /// deepest loops: a block runs the deepest loop's updates of its eight rows as one vector,
    /// where the tiles run them one at a time (nussinov LARGE: 0.73 s on one thread, its tiles
    /// 1.8 s on two, its original 4.5 s). Tiles then pay only on many threads
    /// (`c::VECTOR_ROWS_THREADS`).
    pub vectorised: bool,
}

/// The SCoP's original order with its loops that qualify run by jammed rows, or `None` where
/// no loop qualifies (the user's own lines serve better) or where the order's loops cannot be
/// generated. `prefix` names the loop variables (`driver::iterator_prefix`).
pub fn jammed(ctx: &Ctx, scop: &Scop, prefix: &str) -> Option<Jammed> {
    // Expanded data and derived parameters are the tiles' (the untiled path sees neither).
    let expands = scop.symbols.data.values().any(|d| d.expands.is_some());
    if expands || !scop.derived.is_empty() || scop.statements.is_empty() {
        return None;
    }
    let mut schedule = UnionMap::empty(ctx);
    for s in &scop.statements {
        schedule = schedule.add_map(s.domain.restrict(s.schedule.map()));
    }
    let depth = scop.statements[0].schedule.n_out();
    let iterators: Vec<String> = (0..depth).map(|d| format!("{prefix}{d}")).collect();
    let order = syntax::recover(ctx, scop, schedule, &RecoveryOptions::new(&iterators)).ok()?;
    let data = ScopData::of(scop);
    let folds: Folds = (0..scop.statements.len())
        .filter_map(|s| Some((s, reductions::exact_update(scop, s)?)))
        .collect();
    // Every jammed loop has a chain in an inner loop: none jammed, none here.
    let mut jammed = Vec::new();
    let code = rewrite(KNode::from_syntax(&order), &data, &folds, &mut jammed);
    if jammed.is_empty() {
        return None;
    }
    let fixed = jammed.iter().filter(|j| !j.grows).map(|j| j.stmt);
    let deepest = scop.statements.iter().map(|s| s.depth()).max().unwrap_or(0);
    let run_by = |folded_only: bool| {
        (0..scop.statements.len())
            .filter(|&s| scop.statements[s].depth() == deepest)
            .all(|s| {
                jammed
                    .iter()
                    .any(|j| j.stmt == s && (j.folded || !folded_only))
            })
    };
    let covers_work = deepest == 2 && run_by(false);
    let opts = COptions {
        openmp: false,
        index_type: "long".into(),
        ..COptions::default()
    };
    Some(Jammed {
        code: print_k(&data, &code, &opts, None),
        covers_work,
        statements: fixed.collect(),
        vectorised: run_by(true),
    })
}

/// The statements that update their accumulator with an exact operator, and the operator
/// (`reductions::exact_update`).
type Folds = BTreeMap<usize, ReductionOp>;

/// A statement of an inner loop of a jammed loop.
struct InnerStatement {
    stmt: usize,
    /// The inner loop's range grows with the row.
    grows: bool,
    /// The jammed loop's body is folded ([`JamLoop::folded`]).
    folded: bool,
}

/// `n` with every loop that qualifies, outermost first, run by jammed rows; `inner` gathers
/// the statements of their inner loops.
fn rewrite(n: KNode, data: &ScopData, folds: &Folds, inner: &mut Vec<InnerStatement>) -> KNode {
    if let KNode::For(l) = &n {
        if let Some(j) = jam(l, data, folds) {
            inner.extend(j.inner_statements());
            return KNode::Jam(Box::new(j));
        }
    }
    n.map_children(&mut |c| rewrite(c, data, folds, inner))
}

/// The loop `l` by jammed rows, when it qualifies (see the module's text).
fn jam(l: &KLoop, data: &ScopData, folds: &Folds) -> Option<JamLoop> {
    let v = l.var.as_str();
    if l.step != 1 || bound(l).is_none() {
        return None;
    }
    let mut items = Vec::new();
    for node in flat(&l.body) {
        match node {
            KNode::Stmt { stmt, args } => items.push(Item::Row {
                stmt: *stmt,
                args: args.clone(),
            }),
            KNode::For(w) => {
                let grows = mentions(&w.cond, v);
                let free = !mentions(&w.init, v) && (!grows || grows_with(w, v));
                let stmts = flat(&w.body)
                    .into_iter()
                    .map(|s| match s {
                        KNode::Stmt { stmt, args } => Some((*stmt, args.clone())),
                        _ => None,
                    })
                    .collect::<Option<Vec<_>>>()?;
                if !free || stmts.is_empty() {
                    return None;
                }
                items.push(Item::Inner(Box::new(Inner {
                    header: KLoop {
                        body: Box::new(KNode::Block(Vec::new())),
                        ..w.clone()
                    },
                    grows,
                    stmts,
                    chains: Vec::new(),
                    columns: Vec::new(),
                    reads: Vec::new(),
                })));
            }
            _ => return None,
        }
    }
    let (accesses, folded) = match Accesses::of(&items, data, v) {
        Some(a) => (a, false),
        None => (Accesses::folded(&items, data, v, folds)?, true),
    };
    for (k, item) in items.iter_mut().enumerate() {
        if let Item::Inner(inner) = item {
            accesses.hold(k, inner, data, v)?;
        }
    }
    let chains = items
        .iter()
        .any(|i| matches!(i, Item::Inner(inner) if !inner.chains.is_empty()));
    let serial_from = accesses
        .all
        .iter()
        .filter(|a| a.prior && !folded)
        .map(|a| a.item)
        .min();
    chains.then(|| JamLoop {
        rows: l.clone(),
        items,
        serial_from,
        folded,
    })
}

/// Whether the inner loop `w` runs `for (j = ...; j < e or j <= e; j++)` with `e` growing with
/// the row variable `v` (a positive multiple of it): each row's range holds the one before.
fn grows_with(w: &KLoop, v: &str) -> bool {
    w.step == 1
        && bound(w).is_some_and(|(_, e)| coefficients(e, [v, "", ""]).is_some_and(|c| c[0] > 0))
}

/// The value of `e` with `vars` at 0, when it is made of integer literals alone.
fn constant_at_zero(e: &Expr, vars: [&str; 2]) -> Option<i64> {
    let zeroed = e.substitute(&|name| vars.contains(&name).then(|| Expr::int(0)));
    evaluate(&zeroed)
}

/// `e` when it is the row variable `v` plus a constant: the constant.
fn row_offset(e: &Expr, v: &str) -> Option<i64> {
    let shape = coefficients(e, [v, "", ""]) == Some([1, 0, 0]);
    constant_at_zero(e, [v, v]).filter(|_| shape)
}

/// The value of `e` when it is integer literals (as [`literal`] reads them: casts only to
/// types that hold them) combined by `+`, `-`, `*` and negation.
fn evaluate(e: &Expr) -> Option<i64> {
    if let Some(k) = literal(e) {
        return Some(k);
    }
    match e {
        Expr::Unary {
            op: rosepolly::model::expr::UnaryOp::Neg,
            operand,
        } => evaluate(operand)?.checked_neg(),
        Expr::Binary { op, lhs, rhs } => {
            let (a, b) = (evaluate(lhs)?, evaluate(rhs)?);
            match op {
                BinaryOp::Add => a.checked_add(b),
                BinaryOp::Sub => a.checked_sub(b),
                BinaryOp::Mul => a.checked_mul(b),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The last value of a loop `for (v = ...; v < e or v <= e; v++)` whose bound does not
/// depend on `v`, as the condition's operator and bound.
pub(crate) fn bound(l: &KLoop) -> Option<(BinaryOp, &Expr)> {
    let Expr::Binary { op, lhs, rhs } = &l.cond else {
        return None;
    };
    let ok = matches!(op, BinaryOp::Lt | BinaryOp::Le)
        && **lhs == Expr::var(&l.var)
        && !mentions(rhs, &l.var);
    ok.then_some((*op, rhs))
}

/// The nodes of a body, blocks flattened.
fn flat(n: &KNode) -> Vec<&KNode> {
    match n {
        KNode::Block(v) => v.iter().flat_map(flat).collect(),
        other => vec![other],
    }
}

fn mentions(e: &Expr, var: &str) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x, Expr::Var(n) if n == var));
    found
}

/// The variables of the body's inner loops.
fn inner_variables(items: &[Item]) -> Vec<&str> {
    items
        .iter()
        .filter_map(|i| match i {
            Item::Inner(i) => Some(i.header.var.as_str()),
            Item::Row { .. } => None,
        })
        .collect()
}

/// Whether the read `a`, whose row subscript `p` is the updated element's, reads another
/// element in every instance: some other subscript differs from the element's by a nonzero
/// constant, or by `c * w + r` for `a`'s inner loop `w` (counting up from its start `w0`) where
/// `c * w0 + r` is a constant of `c`'s sign (nussinov's `table[k + 1][j]` beside
/// `table[i][j]`, `k` from `i + 1`: 2 and up).
fn apart(a: &Access, element: &[Expr], p: usize, items: &[Item]) -> bool {
    let start = match (&a.inner, &items[a.item]) {
        (Some(w), Item::Inner(inner)) if inner.header.step > 0 => {
            to_affine(&inner.header.init).map(|w0| (w.as_str(), w0))
        }
        _ => None,
    };
    (0..element.len()).filter(|&q| q != p).any(|q| {
        let Some(diff) = to_affine(&a.subscripts[q])
            .zip(to_affine(&element[q]))
            .map(|(x, y)| Affine::minus(x, y))
        else {
            return false;
        };
        let Some(linear) = diff.linear() else {
            return false;
        };
        if linear.coeffs.is_empty() {
            return linear.constant != 0;
        }
        // `c * w + r`: at `w`'s start, a constant of `c`'s sign.
        let Some((w, w0)) = &start else {
            return false;
        };
        let Some(&c) = linear.coeffs.get(*w) else {
            return false;
        };
        let at_start = diff.rename(&|v| if v == *w { w0.clone() } else { Affine::var(v) });
        match at_start.linear() {
            Some(l) if l.coeffs.is_empty() => l.constant != 0 && (l.constant > 0) == (c > 0),
            _ => false,
        }
    })
}

/// One access of the rows' body to an array.
struct Access {
    array: String,
    subscripts: Vec<Expr>,
    /// The statement instance of the body (in order) it belongs to, and its statement.
    stmt: usize,
    statement: usize,
    /// The body's item, and the variable of the inner loop around the statement.
    item: usize,
    inner: Option<String>,
    write: bool,
    /// A read of an element an earlier row wrote, in an inner loop whose range grows with the
    /// row (trisolv's `x[j]`, `j < i`); in a folded body also in the row's own statements.
    prior: bool,
    /// In a folded body, a read of an element of the row's own that no row writes.
    other: bool,
}

/// A statement instance of the rows' body: its item, the variable of the inner loop around
/// it, the statement and its arguments.
type Instance<'a> = (usize, Option<String>, usize, &'a [Expr]);

/// The statement instances of the rows' body, in order.
fn instances(items: &[Item]) -> Vec<Instance<'_>> {
    items
        .iter()
        .enumerate()
        .flat_map(|(k, item)| match item {
            Item::Row { stmt, args } => vec![(k, None, *stmt, args.as_slice())],
            Item::Inner(i) => i
                .stmts
                .iter()
                .map(|(stmt, args)| (k, Some(i.header.var.clone()), *stmt, args.as_slice()))
                .collect(),
        })
        .collect()
}

/// Every access of the rows' body.
struct Accesses {
    all: Vec<Access>,
}

impl Accesses {
    /// The accesses of the items' statements, when no scalar is written.
    fn collect(items: &[Item], data: &ScopData) -> Option<Accesses> {
        let mut all = Vec::new();
        for (n, (item, inner, stmt, args)) in instances(items).into_iter().enumerate() {
            let e = statement_instance(data, stmt, args, false);
            let Expr::Assign { lhs, .. } = &e else {
                return None;
            };
            // A written scalar carries values from row to row.
            let Expr::Index { .. } = lhs.as_ref() else {
                return None;
            };
            e.walk(&mut |x| {
                if let Expr::Index { array, subscripts } = x {
                    all.push(Access {
                        array: array.clone(),
                        subscripts: subscripts.clone(),
                        stmt: n,
                        statement: stmt,
                        item,
                        inner: inner.clone(),
                        write: std::ptr::eq(x, lhs.as_ref()),
                        prior: false,
                        other: false,
                    });
                }
            });
        }
        Some(Accesses { all })
    }

    /// The accesses of the items' statements, when every written array is row-private or a
    /// column (`v`: the row variable) and no scalar is written.
    fn of(items: &[Item], data: &ScopData, v: &str) -> Option<Accesses> {
        let mut accesses = Accesses::collect(items, data)?;
        let written: BTreeSet<String> = accesses
            .all
            .iter()
            .filter(|a| a.write)
            .map(|a| a.array.clone())
            .collect();
        for x in &written {
            if accesses.column(x, v).is_some() {
                continue;
            }
            let prior = accesses.row_private(x, v, items)?;
            for (a, p) in accesses.all.iter_mut().zip(prior) {
                a.prior |= p;
            }
        }
        Some(accesses)
    }

    /// The accesses of a *folded* body, whose rows' updates may run in any order: every
    /// statement (each of `folds`) updates one element of its row, the same for all of them,
    /// with one exact operator, the same for all of them (`max` after `min` is not `min` after
    /// `max`) (`reductions::exact_update`: integer `min`, `max`, bitwise), and
    /// its operand reads of that array, but for no instance that element, only
    /// - rows before its own: in a statement of the row, a subscript `v + d` where the
    ///   element's is `v + e`, `d < e`; in an inner loop whose range grows with the row, as
    ///   [`Accesses::earlier_row`] says (marked `prior`);
    /// - other elements of its own row, which no row writes ([`apart`]; marked `other`).
    ///
    /// `None` where the body is not so. nussinov's rows (`j`): `table[i][j] = max(table[i][j],
    /// e)` for `e` of `table[i][j - 1]`, `table[i + 1][j]`, `table[i + 1][j - 1] + ...` and,
    /// along `k < j`, `table[i][k] + table[k + 1][j]`.
    fn folded(items: &[Item], data: &ScopData, v: &str, folds: &Folds) -> Option<Accesses> {
        let mut accesses = Accesses::collect(items, data)?;
        let target = accesses.all.iter().find(|a| a.write)?;
        let (array, element) = (target.array.clone(), target.subscripts.clone());
        let op = folds.get(&target.statement);
        let one = accesses.all.iter().all(|a| {
            op.is_some()
                && folds.get(&a.statement) == op
                && (!a.write || (a.array == array && a.subscripts == element))
        });
        let inners = inner_variables(items);
        // The row's subscript, `v + e`.
        let p = (0..element.len()).find(|&p| {
            let s = &element[p];
            row_offset(s, v).is_some() && !inners.iter().any(|w| mentions(s, w))
        });
        let (true, Some(p)) = (one, p) else {
            return None;
        };
        let updated = Expr::Index {
            array: array.clone(),
            subscripts: element.clone(),
        };
        for (_, _, stmt, args) in instances(items) {
            let e = statement_instance(data, stmt, args, false);
            let mut reads_it = false;
            reductions::operand(&e)?.walk(&mut |x| reads_it |= *x == updated);
            if reads_it {
                return None;
            }
        }
        for k in 0..accesses.all.len() {
            let a = &accesses.all[k];
            if a.array != array || a.write || a.subscripts == element {
                continue;
            }
            if a.subscripts.len() != element.len() {
                return None;
            }
            let (prior, other) = if a.subscripts[p] == element[p] {
                (false, apart(a, &element, p, items))
            } else if a.inner.is_some() {
                (accesses.earlier_row(a, p, &element[p], v, items), false)
            } else {
                let offsets = (row_offset(&a.subscripts[p], v), row_offset(&element[p], v));
                (matches!(offsets, (Some(d), Some(e)) if d < e), false)
            };
            if !prior && !other {
                return None;
            }
            accesses.all[k].prior = prior;
            accesses.all[k].other = other;
        }
        Some(accesses)
    }

    fn of_array<'a>(&'a self, array: &'a str) -> impl Iterator<Item = &'a Access> + 'a {
        self.all.iter().filter(move |a| a.array == array)
    }

    /// When `array` is row-private: its writes share a subscript, affine in the row variable
    /// `v` with a nonzero coefficient and free of the inner loops' variables, and so do its
    /// reads, but for reads of rows before the reading one ([`Accesses::earlier_row`]). Which
    /// of all accesses are such reads, or `None` when it is not row-private.
    fn row_private(&self, array: &str, v: &str, items: &[Item]) -> Option<Vec<bool>> {
        let inners = inner_variables(items);
        let first = self.of_array(array).find(|a| a.write)?;
        let n = first.subscripts.len();
        (0..n).find_map(|p| {
            let s = &first.subscripts[p];
            let along = coefficients(s, [v, "", ""]).is_some_and(|c| c[0] != 0);
            if !along || inners.iter().any(|w| mentions(s, w)) {
                return None;
            }
            let mut prior = vec![false; self.all.len()];
            for (k, a) in self
                .all
                .iter()
                .enumerate()
                .filter(|(_, a)| a.array == array)
            {
                if a.subscripts.len() != n {
                    return None;
                }
                if a.subscripts[p] != *s {
                    prior[k] = !a.write && self.earlier_row(a, p, s, v, items);
                    if !prior[k] {
                        return None;
                    }
                }
            }
            Some(prior)
        })
    }

    /// Whether the read `a`, whose subscript `p` differs from the row's `s = v + e`, reads a
    /// row before its own in every instance: it lies in an inner loop `for (j = ...; j < v + c;
    /// j++)` (or `<=`) whose range grows with the row, and its subscript is `j + d` with
    /// `c - 1 + d < e`.
    fn earlier_row(&self, a: &Access, p: usize, s: &Expr, v: &str, items: &[Item]) -> bool {
        let (Some(w), Item::Inner(inner)) = (a.inner.as_deref(), &items[a.item]) else {
            return false;
        };
        let Some((op, bound)) = bound(&inner.header).filter(|_| inner.grows) else {
            return false;
        };
        let r = &a.subscripts[p];
        let shapes = coefficients(s, [v, w, ""]) == Some([1, 0, 0])
            && coefficients(r, [w, v, ""]) == Some([1, 0, 0])
            && coefficients(bound, [v, w, ""]) == Some([1, 0, 0]);
        let offsets = (
            constant_at_zero(s, [v, w]),
            constant_at_zero(r, [v, w]),
            constant_at_zero(bound, [v, w]),
        );
        let (true, (Some(e), Some(d), Some(c))) = (shapes, offsets) else {
            return false;
        };
        // The last `j`: `v + c - 1` under `<`, `v + c` under `<=`.
        let last = if op == BinaryOp::Le { c } else { c - 1 };
        last + d < e
    }

    /// The element of `array` when it is a column: one statement in an inner loop accesses
    /// it, at one element that does not mention `v` and that some subscript makes injective
    /// in the inner loop's variable.
    fn column<'a>(&'a self, array: &'a str, v: &str) -> Option<&'a [Expr]> {
        let first = self.of_array(array).next()?;
        let w = first.inner.as_deref()?;
        let one = self
            .of_array(array)
            .all(|a| a.stmt == first.stmt && a.subscripts == first.subscripts);
        let free = first.subscripts.iter().all(|s| !mentions(s, v));
        let injective = first
            .subscripts
            .iter()
            .any(|s| coefficients(s, [w, "", ""]).is_some_and(|c| c[0] != 0));
        (one && free && injective).then_some(&first.subscripts)
    }

    /// Sets which elements `inner` holds: each of its statements writes a chain's element
    /// (row-private, free of the inner variable, the only element of its array that the inner
    /// loop touches) or a column's; `None` otherwise.
    fn hold(&self, k: usize, inner: &mut Inner, data: &ScopData, v: &str) -> Option<()> {
        let w = inner.header.var.clone();
        for (stmt, args) in &inner.stmts {
            let e = statement_instance(data, *stmt, args, false);
            let target = crate::c::assigned(&e).clone();
            let Expr::Index { array, subscripts } = &target else {
                return None;
            };
            let elem = data.printed_datum(array)?.elem.clone();
            let held = (target.clone(), elem);
            if inner.chains.contains(&held) || inner.columns.contains(&held) {
                continue;
            }
            if self.column(array, v).is_some() {
                inner.columns.push(held);
                continue;
            }
            let in_loop = self
                .of_array(array)
                .filter(|a| a.item == k && !a.prior && !a.other)
                .all(|a| a.subscripts == *subscripts);
            if !in_loop || subscripts.iter().any(|s| mentions(s, &w)) {
                return None;
            }
            inner.chains.push(held);
        }
        let written: BTreeSet<&str> = self
            .all
            .iter()
            .filter(|a| a.item == k && a.write)
            .map(|a| a.array.as_str())
            .collect();
        for a in self.all.iter().filter(|a| a.item == k && !a.write) {
            let unwritten = !written.contains(a.array.as_str());
            let row = a.subscripts.iter().any(|s| mentions(s, v));
            let fixed = a.subscripts.iter().all(|s| !mentions(s, &w));
            let element = Expr::Index {
                array: a.array.clone(),
                subscripts: a.subscripts.clone(),
            };
            let Some(d) = data.printed_datum(&a.array) else {
                continue;
            };
            let held = (element, d.elem.clone());
            if unwritten && row && fixed && !inner.reads.contains(&held) {
                inner.reads.push(held);
            }
        }
        Some(())
    }
}

impl JamLoop {
    /// The statements of its inner loops.
    fn inner_statements(&self) -> impl Iterator<Item = InnerStatement> + '_ {
        self.items.iter().flat_map(|i| match i {
            Item::Inner(inner) => inner
                .stmts
                .iter()
                .map(|(s, _)| InnerStatement {
                    stmt: *s,
                    grows: inner.grows,
                    folded: self.folded,
                })
                .collect(),
            Item::Row { .. } => Vec::new(),
        })
    }

    /// The loop's C code, one line per item, indented from 0; `ty` is the type of loop
    /// variables, `data` the SCoP's as [`statement_instance`] takes them.
    pub fn lines(&self, data: &ScopData, ty: &str) -> Vec<String> {
        let l = &self.rows;
        let v = &l.var;
        let (start, count, block) = (
            format!("polyc_jb_{v}"),
            format!("polyc_jn_{v}"),
            format!("polyc_jk_{v}"),
        );
        let (op, last) = bound(l).expect("a jammed loop has a bound");
        let params = &data.params;
        let init = host_control(params, &l.init);
        // The rows, `last - init` or one more; a block counter and the rest's start from it:
        // gcc warned of undefined behaviour in the rest's loop after `for (; b + 7 < n; b += 8)`
        // (constant `n`, `-Waggressive-loop-optimizations`), which does not run it.
        let span = Expr::binary(BinaryOp::Sub, last.clone(), l.init.clone());
        let span = match op {
            BinaryOp::Le => Expr::binary(BinaryOp::Add, span, Expr::int(1)),
            _ => span,
        };
        let mut out = vec![
            "{".to_string(),
            format!(
                "  const {ty} {count} = ({}) / {ROWS};",
                host_control(params, &span)
            ),
            format!("  for ({ty} {block} = 0; {block} < {count}; {block}++) {{"),
            format!("    const {ty} {start} = {init} + {ROWS} * {block};"),
        ];
        let rows = format!("for ({ty} {v} = {start}; {v} < {start} + {ROWS}; {v}++)");
        if self.folded {
            out.extend(self.folded_block(data, ty, &rows, &start));
        } else {
            out.extend(self.ordered_block(data, ty, &rows, &start));
        }
        out.push("  }".into());
        // The rows after the last whole block, as written.
        let rest = KNode::For(KLoop {
            init: Expr::binary(
                BinaryOp::Add,
                l.init.clone(),
                Expr::binary(
                    BinaryOp::Mul,
                    Expr::int(ROWS),
                    Expr::Ternary {
                        cond: Box::new(Expr::binary(BinaryOp::Gt, Expr::var(&count), Expr::int(0))),
                        then: Box::new(Expr::var(&count)),
                        other: Box::new(Expr::int(0)),
                    },
                ),
            ),
            ..l.clone()
        });
        let opts = COptions {
            openmp: false,
            index_type: ty.into(),
            indent: 2,
            ..COptions::default()
        };
        out.extend(print_k(data, &rest, &opts, None).lines().map(String::from));
        out.push("}".into());
        out
    }

    /// A block's code, each element's updates in their written order (indented by four).
    fn ordered_block(&self, data: &ScopData, ty: &str, rows: &str, start: &str) -> Vec<String> {
        let v = &self.rows.var;
        let mut out = Vec::new();
        for (k, item) in self.items.iter().enumerate() {
            match item {
                Item::Row { stmt, args } => {
                    let e = statement_instance(data, *stmt, args, false);
                    out.push(format!("    {rows}"));
                    out.push(format!("      {e};"));
                }
                // In a block of its own: two inner loops' locals have the same names.
                Item::Inner(inner) => {
                    out.push("    {".into());
                    out.extend(
                        inner
                            .lines(data, ty, rows, start, v)
                            .into_iter()
                            .map(|l| format!("  {l}")),
                    );
                    out.push("    }".into());
                    if !inner.grows {
                        continue;
                    }
                    // Each row's tail; from the loop that reads earlier rows on, the rest of
                    // each row's body too, as written.
                    let serial = self.serial_from == Some(k);
                    out.push(format!("    {rows} {{"));
                    out.extend(inner.written(data, ty, Some(start), v));
                    if serial {
                        for later in &self.items[k + 1..] {
                            out.extend(later.written(data, ty, v));
                        }
                    }
                    out.push("    }".into());
                    if serial {
                        break;
                    }
                }
            }
        }
        out
    }

    /// A block's code where the row's updates are folds whose order does not matter: each
    /// inner loop's jammed range (its whole range where it does not grow with the row) first,
    /// then, row by row, the row's statements and tails as written, so that every read of an
    /// earlier row finds it done (indented by four).
    fn folded_block(&self, data: &ScopData, ty: &str, rows: &str, start: &str) -> Vec<String> {
        let v = &self.rows.var;
        let mut out = Vec::new();
        for item in &self.items {
            if let Item::Inner(inner) = item {
                // In a block of its own: two inner loops' locals have the same names.
                out.push("    {".into());
                let jammed = inner.lines(data, ty, rows, start, v);
                out.extend(jammed.into_iter().map(|l| format!("  {l}")));
                out.push("    }".into());
            }
        }
        out.push(format!("    {rows} {{"));
        for item in &self.items {
            match item {
                Item::Inner(inner) if inner.grows => {
                    out.extend(inner.written(data, ty, Some(start), v))
                }
                Item::Inner(_) => {}
                Item::Row { .. } => out.extend(item.written(data, ty, v)),
            }
        }
        out.push("    }".into());
        out
    }
}

impl Item {
    /// The item for one row, as written (indented by six).
    fn written(&self, data: &ScopData, ty: &str, v: &str) -> Vec<String> {
        match self {
            Item::Row { stmt, args } => {
                vec![format!(
                    "      {};",
                    statement_instance(data, *stmt, args, false)
                )]
            }
            Item::Inner(inner) => inner.written(data, ty, None, v),
        }
    }
}

impl Inner {
    /// The loop for one row as written (indented by six), or from `start`, the block's first
    /// row, its tail: the range past the first row's.
    fn written(&self, data: &ScopData, ty: &str, start: Option<&str>, v: &str) -> Vec<String> {
        let h = &self.header;
        let mut init = h.init.clone();
        if let Some(start) = start {
            let first = self.first_row_end(start, v);
            init = Expr::Ternary {
                cond: Box::new(Expr::binary(BinaryOp::Gt, init.clone(), first.clone())),
                then: Box::new(init),
                other: Box::new(first),
            };
        }
        let params = &data.params;
        let (init, cond) = (host_control(params, &init), host_control(params, &h.cond));
        let mut out = vec![format!(
            "      {}",
            loop_header(ty, &h.var, &init, &cond, h.step)
        )];
        for (stmt, args) in &self.stmts {
            out.push(format!(
                "        {};",
                statement_instance(data, *stmt, args, false)
            ));
        }
        out.push("      }".into());
        out
    }

    /// Where the range of the block's first row `start` ends (past its last value), for a loop
    /// whose range grows with the row `v`.
    fn first_row_end(&self, start: &str, v: &str) -> Expr {
        let (op, last) = bound(&self.header).expect("a growing loop has a bound");
        let at_start = last.substitute(&|name| (name == v).then(|| Expr::var(start)));
        match op {
            BinaryOp::Le => Expr::binary(BinaryOp::Add, at_start, Expr::int(1)),
            _ => at_start,
        }
    }

    /// The inner loop around the block's rows (indented by four), its chains loaded before
    /// it and stored after it, its columns loaded and stored around the rows. A loop whose
    /// range grows with the row runs the block's first row's range.
    fn lines(&self, data: &ScopData, ty: &str, rows: &str, start: &str, v: &str) -> Vec<String> {
        let params = &data.params;
        // A row's slot of a block's local array.
        let local = |name: String| Expr::Index {
            array: name,
            subscripts: vec![Expr::binary(BinaryOp::Sub, Expr::var(v), Expr::var(start))],
        };
        let chain = |k: usize| local(format!("polyc_chain{k}"));
        let read = |k: usize| local(format!("polyc_read{k}"));
        let column = |k: usize| Expr::var(format!("polyc_column{k}"));
        let mut out = Vec::new();
        let held = self
            .chains
            .iter()
            .enumerate()
            .map(|(k, h)| (chain(k), h))
            .chain(self.reads.iter().enumerate().map(|(k, h)| (read(k), h)));
        for (local, (elem, t)) in held {
            let Expr::Index { array, .. } = &local else {
                unreachable!("held elements are array elements")
            };
            out.push(format!("    {t} {array}[{ROWS}];"));
            out.push(format!("    {rows}"));
            out.push(format!("      {local} = {elem};"));
        }
        let h = &self.header;
        let cond = if self.grows {
            Expr::binary(
                BinaryOp::Lt,
                Expr::var(&h.var),
                self.first_row_end(start, v),
            )
        } else {
            h.cond.clone()
        };
        let (init, cond) = (host_control(params, &h.init), host_control(params, &cond));
        out.push(format!(
            "    {}",
            loop_header(ty, &h.var, &init, &cond, h.step)
        ));
        for (k, (elem, t)) in self.columns.iter().enumerate() {
            out.push(format!("      {t} {} = {elem};", column(k)));
        }
        out.push(format!("      {rows} {{"));
        for (stmt, args) in &self.stmts {
            let e = statement_instance(data, *stmt, args, false).map(&mut |x| {
                if let Some(k) = self.chains.iter().position(|(c, _)| *c == x) {
                    return chain(k);
                }
                if let Some(k) = self.reads.iter().position(|(c, _)| *c == x) {
                    return read(k);
                }
                match self.columns.iter().position(|(c, _)| *c == x) {
                    Some(k) => column(k),
                    None => x,
                }
            });
            out.push(format!("        {e};"));
        }
        out.push("      }".into());
        for (k, (elem, _)) in self.columns.iter().enumerate() {
            out.push(format!("      {elem} = {};", column(k)));
        }
        out.push("    }".into());
        for (k, (elem, _)) in self.chains.iter().enumerate() {
            out.push(format!("    {rows}"));
            out.push(format!("      {elem} = {};", chain(k)));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{DatumData, StatementData};
    use rosepolly::model::ctype::IntType;
    use rosepolly::model::expr::AssignOp;
    use rosepolly::model::Casts;

    fn v(name: &str) -> Expr {
        Expr::var(name)
    }
    fn at(array: &str, subscripts: Vec<Expr>) -> Expr {
        Expr::Index {
            array: array.into(),
            subscripts,
        }
    }
    fn mul(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Mul, a, b)
    }
    fn add(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Add, a, b)
    }
    fn assign(lhs: Expr, rhs: Expr) -> Expr {
        Expr::Assign {
            op: AssignOp::Assign,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        }
    }

    /// Statements over iterators `i, j`, and arrays of doubles.
    fn scop(bodies: Vec<Expr>) -> ScopData {
        let datum = |name: &str| DatumData {
            name: name.into(),
            elem: "double".into(),
            extents: vec![None, None],
            written: true,
            expands: None,
        };
        ScopData {
            params: Vec::new(),
            statements: bodies
                .into_iter()
                .map(|body| StatementData {
                    body,
                    iterators: vec!["i".into(), "j".into()],
                    iterator_types: vec![IntType::INT; 2],
                    casts: Casts::default(),
                })
                .collect(),
            data: ["A", "x", "y", "tmp", "s"].into_iter().map(datum).collect(),
        }
    }

    fn for_loop(var: &str, bound: Expr, body: Vec<KNode>) -> KLoop {
        KLoop {
            var: var.into(),
            init: Expr::int(0),
            cond: Expr::binary(BinaryOp::Lt, v(var), bound),
            step: 1,
            body: Box::new(KNode::Block(body)),
            parallel: false,
        }
    }
    /// Rows over `c1` whose body is one inner loop over `c3` of `stmts` at `(c1, c3)`.
    fn one_inner(stmts: &[usize]) -> KLoop {
        let body = stmts.iter().map(|&s| stmt(s, &["c1", "c3"])).collect();
        for_loop("c1", v("n"), vec![KNode::For(for_loop("c3", v("n"), body))])
    }
    fn stmt(stmt: usize, args: &[&str]) -> KNode {
        KNode::Stmt {
            stmt,
            args: args.iter().map(|a| v(a)).collect(),
        }
    }

    /// A row's chain along `j`: `tmp[i] = tmp[i] + A[i][j] * x[j]`.
    fn chain() -> Expr {
        let (i, j) = (v("i"), v("j"));
        let sum = add(
            at("tmp", vec![i.clone()]),
            mul(at("A", vec![i.clone(), j.clone()]), at("x", vec![j])),
        );
        assign(at("tmp", vec![i]), sum)
    }

    /// atax's rows: `tmp[i] = 0`, `tmp[i] += A[i][j] * x[j]` along `j`, `y[j] += A[i][j] *
    /// tmp[i]` along `j`.
    fn atax() -> (KLoop, ScopData) {
        let (i, j) = (v("i"), v("j"));
        let data = scop(vec![
            assign(at("tmp", vec![i.clone()]), Expr::int(0)),
            chain(),
            assign(
                at("y", vec![j.clone()]),
                add(
                    at("y", vec![j.clone()]),
                    mul(at("A", vec![i.clone(), j.clone()]), at("tmp", vec![i])),
                ),
            ),
        ]);
        let inner = |s: usize| KNode::For(for_loop("c3", v("n"), vec![stmt(s, &["c1", "c3"])]));
        let rows = for_loop(
            "c1",
            v("m"),
            vec![stmt(0, &["c1", "c3"]), inner(1), inner(2)],
        );
        (rows, data)
    }

    fn inners(j: &JamLoop) -> Vec<&Inner> {
        j.items
            .iter()
            .filter_map(|i| match i {
                Item::Inner(inner) => Some(inner.as_ref()),
                Item::Row { .. } => None,
            })
            .collect()
    }

    #[test]
    fn atax_rows_hold_their_chain_and_update_their_column_once_per_block() {
        let (rows, data) = atax();
        let j = jam(&rows, &data, &Folds::new()).expect("atax's rows jam");
        let inner = inners(&j);
        assert_eq!(inner.len(), 2);
        let tmp = at("tmp", vec![v("c1")]);
        let y = at("y", vec![v("c3")]);
        assert_eq!(inner[0].chains, [(tmp.clone(), "double".to_string())]);
        assert!(inner[0].columns.is_empty());
        assert_eq!(inner[1].columns, [(y, "double".to_string())]);
        assert_eq!(inner[1].reads, [(tmp, "double".to_string())]);
        let text = j.lines(&data, "long").join("\n");
        assert!(
            text.contains("const long polyc_jn_c1 = (m - 0) / 8;"),
            "{text}"
        );
        assert!(
            text.contains(
                "polyc_column0 = polyc_column0 + A[c1][c3] * polyc_read0[c1 - polyc_jb_c1];"
            ),
            "{text}"
        );
        // The rows after the last block run as written.
        assert!(
            text.contains(
                "for (long c1 = 0 + 8 * (polyc_jn_c1 > 0 ? polyc_jn_c1 : 0); c1 < m; c1++) {"
            ),
            "{text}"
        );
    }

    #[test]
    fn two_inner_loops_keep_their_locals_apart() {
        // Two chains of the row, each in an inner loop of its own: each loop's locals in a
        // block of their own (both are `polyc_chain0`).
        let data = scop(vec![chain(), chain()]);
        let inner = |s: usize| KNode::For(for_loop("c3", v("n"), vec![stmt(s, &["c1", "c3"])]));
        let rows = for_loop("c1", v("m"), vec![inner(0), inner(1)]);
        let text = jam(&rows, &data, &Folds::new())
            .expect("jams")
            .lines(&data, "long");
        let opened = text.iter().filter(|l| l.trim() == "{").count();
        let declared = text
            .iter()
            .filter(|l| l.trim() == "double polyc_chain0[8];")
            .count();
        assert_eq!((opened, declared), (3, 2), "{}", text.join("\n"));
    }

    #[test]
    fn a_column_alone_gains_nothing() {
        let (mut rows, data) = atax();
        let KNode::Block(body) = rows.body.as_mut() else {
            unreachable!()
        };
        body.remove(1);
        assert_eq!(jam(&rows, &data, &Folds::new()), None);
    }

    #[test]
    fn an_inner_loop_whose_range_grows_with_the_row_runs_the_first_rows_range_jammed() {
        let (mut rows, data) = atax();
        let KNode::Block(body) = rows.body.as_mut() else {
            unreachable!()
        };
        if let KNode::For(l) = &mut body[1] {
            l.cond = Expr::binary(BinaryOp::Lt, v("c3"), v("c1"));
        }
        let j = jam(&rows, &data, &Folds::new()).expect("jams");
        assert_eq!(j.serial_from, None);
        let text = j.lines(&data, "long").join("\n");
        // The first row's range jammed, each row's tail after it; the next loop jammed again.
        assert!(
            text.contains("for (long c3 = 0; c3 < polyc_jb_c1; c3++) {"),
            "{text}"
        );
        assert!(
            text.contains("for (long c3 = 0 > polyc_jb_c1 ? 0 : polyc_jb_c1; c3 < c1; c3++) {"),
            "{text}"
        );
        assert!(text.contains("polyc_column0 = polyc_column0 +"), "{text}");
    }

    #[test]
    fn an_inner_loop_whose_range_shrinks_or_starts_at_the_row_does_not_jam() {
        for (init, bound) in [
            (Expr::int(0), Expr::binary(BinaryOp::Sub, v("n"), v("c1"))),
            (v("c1"), v("n")),
        ] {
            let (mut rows, data) = atax();
            let KNode::Block(body) = rows.body.as_mut() else {
                unreachable!()
            };
            if let KNode::For(l) = &mut body[1] {
                l.init = init;
                l.cond = Expr::binary(BinaryOp::Lt, v("c3"), bound);
            }
            assert_eq!(jam(&rows, &data, &Folds::new()), None);
        }
    }

    /// trisolv's rows: `x[i] = b[i]`, `x[i] = x[i] - A[i][j] * x[j]` along `j` up to `last`
    /// (`j < i` in trisolv; `subscript` reads `x`), `x[i] = x[i] / A[i][i]`.
    fn trisolv(cond: Expr, subscript: Expr) -> (KLoop, ScopData) {
        let (i, j) = (v("i"), v("j"));
        let data = scop(vec![
            assign(at("x", vec![i.clone()]), at("y", vec![i.clone()])),
            assign(
                at("x", vec![i.clone()]),
                Expr::binary(
                    BinaryOp::Sub,
                    at("x", vec![i.clone()]),
                    mul(at("A", vec![i.clone(), j]), at("x", vec![subscript])),
                ),
            ),
            assign(
                at("x", vec![i.clone()]),
                Expr::binary(
                    BinaryOp::Div,
                    at("x", vec![i.clone()]),
                    at("A", vec![i.clone(), i]),
                ),
            ),
        ]);
        let mut inner = for_loop("c3", v("n"), vec![stmt(1, &["c1", "c3"])]);
        inner.cond = cond;
        let rows = for_loop(
            "c1",
            v("n"),
            vec![
                stmt(0, &["c1", "c3"]),
                KNode::For(inner),
                stmt(2, &["c1", "c3"]),
            ],
        );
        (rows, data)
    }

    #[test]
    fn rows_that_read_earlier_rows_run_their_tails_and_the_rest_row_by_row() {
        let below = Expr::binary(BinaryOp::Lt, v("c3"), v("c1"));
        let (rows, data) = trisolv(below, v("j"));
        let j = jam(&rows, &data, &Folds::new()).expect("trisolv's rows jam");
        assert_eq!(j.serial_from, Some(1));
        let text = j.lines(&data, "long").join("\n");
        assert!(
            text.contains("polyc_chain0[c1 - polyc_jb_c1] = polyc_chain0[c1 - polyc_jb_c1] - A[c1][c3] * x[c3];"),
            "{text}"
        );
        // After the jammed range, each row's tail and then its last statement, row by row.
        let tail = text.find("c3 < c1; c3++").expect("a tail");
        let last = text
            .find("x[c1] = x[c1] / A[c1][c1];")
            .expect("the last statement");
        assert!(tail < last, "{text}");
        assert_eq!(
            text.matches("x[c1] = x[c1] / A[c1][c1];").count(),
            2,
            "{text}"
        );
    }

    #[test]
    fn rows_that_read_their_own_row_or_a_later_one_do_not_jam() {
        let (i, j) = (v("c1"), v("j"));
        let cases = [
            // `j <= i` reads `x[i]` itself, mid-chain.
            (Expr::binary(BinaryOp::Le, v("c3"), i.clone()), j.clone()),
            // `x[j + 1]` with `j < i` reads `x[i]` too.
            (Expr::binary(BinaryOp::Lt, v("c3"), i), add(j, Expr::int(1))),
        ];
        for (cond, subscript) in cases {
            let (rows, data) = trisolv(cond, subscript);
            assert_eq!(jam(&rows, &data, &Folds::new()), None);
        }
    }

    #[test]
    fn rows_that_read_each_other_do_not_jam() {
        // trisolv: x[i] = x[i] - A[i][j] * x[j], j < i in the original; here over all j.
        let (i, j) = (v("i"), v("j"));
        let data = scop(vec![assign(
            at("x", vec![i.clone()]),
            add(
                at("x", vec![i.clone()]),
                mul(at("A", vec![i, j.clone()]), at("x", vec![j])),
            ),
        )]);
        let rows = one_inner(&[0]);
        assert_eq!(jam(&rows, &data, &Folds::new()), None);
    }

    #[test]
    fn a_column_that_is_one_element_or_an_element_moving_along_the_inner_loop_does_not_jam() {
        let (i, j) = (v("i"), v("j"));
        // `s[0] += A[i][j]`: every row's updates of one element, reordered by a block.
        let one = assign(
            at("s", vec![Expr::int(0)]),
            add(
                at("s", vec![Expr::int(0)]),
                at("A", vec![i.clone(), j.clone()]),
            ),
        );
        // gemver's `A[i][j] = A[i][j] + x[j]`: vectorised along `j` as written.
        let moving = assign(
            at("A", vec![i.clone(), j.clone()]),
            add(at("A", vec![i, j.clone()]), at("x", vec![j])),
        );
        for other in [one, moving] {
            let data = scop(vec![chain(), other]);
            let rows = one_inner(&[0, 1]);
            assert_eq!(jam(&rows, &data, &Folds::new()), None);
        }
    }

    fn sub(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Sub, a, b)
    }

    /// `T[i][j] = T[i][j] >= e ? T[i][j] : e` over iterators `i, j, k` of an `int` table.
    fn max_into_t(e: Expr) -> Expr {
        let t = at("T", vec![v("i"), v("j")]);
        let cond = Expr::binary(BinaryOp::Ge, t.clone(), e.clone());
        assign(
            t.clone(),
            Expr::Ternary {
                cond: Box::new(cond),
                then: Box::new(t),
                other: Box::new(e),
            },
        )
    }

    /// nussinov's rows `c1` under `c0`: `T[i][j] = max(T[i][j], row)`, then along `c2` from
    /// `c0 + start` below `c1`, `T[i][j] = max(T[i][j], inner)`; both statements folds.
    fn nussinov(row: Expr, start: i64, inner: Expr) -> (KLoop, ScopData, Folds) {
        let data = ScopData {
            params: Vec::new(),
            statements: [max_into_t(row), max_into_t(inner)]
                .into_iter()
                .map(|body| StatementData {
                    body,
                    iterators: vec!["i".into(), "j".into(), "k".into()],
                    iterator_types: vec![IntType::INT; 3],
                    casts: Casts::default(),
                })
                .collect(),
            data: vec![DatumData {
                name: "T".into(),
                elem: "int".into(),
                extents: vec![None, None],
                written: true,
                expands: None,
            }],
        };
        let mut inner = for_loop("c2", v("c1"), vec![stmt(1, &["c0", "c1", "c2"])]);
        inner.init = add(v("c0"), Expr::int(start));
        let mut rows = for_loop(
            "c1",
            v("n"),
            vec![stmt(0, &["c0", "c1", "c2"]), KNode::For(inner)],
        );
        rows.init = add(v("c0"), Expr::int(1));
        let max = ReductionOp::Max;
        (rows, data, Folds::from([(0, max), (1, max)]))
    }

    /// `T[i][k] + T[k + 1][j]`.
    fn split_sum() -> Expr {
        add(
            at("T", vec![v("i"), v("k")]),
            at("T", vec![add(v("k"), Expr::int(1)), v("j")]),
        )
    }

    #[test]
    fn folds_of_earlier_rows_and_of_the_rows_other_elements_jam_folded() {
        let before = at("T", vec![v("i"), sub(v("j"), Expr::int(1))]);
        let (rows, data, folds) = nussinov(before, 1, split_sum());
        assert_eq!(jam(&rows, &data, &Folds::new()), None);
        let j = jam(&rows, &data, &folds).expect("nussinov's rows jam folded");
        assert!(j.folded);
        let text = j.lines(&data, "long").join("\n");
        // The inner loop's range of the block's first row, jammed, on the row's element held
        // in a local array; then, row by row, the row's statement and its tail.
        let jammed = text
            .find("for (long c2 = c0 + 1; c2 < polyc_jb_c1; c2++) {")
            .expect("the jammed range");
        assert!(text.contains("int polyc_chain0[8];"), "{text}");
        assert!(
            text.contains("polyc_chain0[c1 - polyc_jb_c1] = polyc_chain0[c1 - polyc_jb_c1] >= T[c0][c2] + T[c2 + 1][c1] ? polyc_chain0[c1 - polyc_jb_c1] : T[c0][c2] + T[c2 + 1][c1];"),
            "{text}"
        );
        let row = text
            .find("T[c0][c1] = T[c0][c1] >= T[c0][c1 - 1] ?")
            .expect("the row's statement");
        let tail = text
            .find("for (long c2 = c0 + 1 > polyc_jb_c1 ? c0 + 1 : polyc_jb_c1; c2 < c1; c2++) {")
            .expect("a tail");
        assert!(jammed < row && row < tail, "{text}");
    }

    #[test]
    fn folds_that_read_the_updated_element_or_a_later_row_do_not_jam() {
        let before = || at("T", vec![v("i"), sub(v("j"), Expr::int(1))]);
        // `k` from `i`: `T[k][j]` is `T[i][j]` itself at the first `k`.
        let itself = at("T", vec![v("k"), v("j")]);
        // `T[i][j + 1]`: the next row, not yet done.
        let later = at("T", vec![v("i"), add(v("j"), Expr::int(1))]);
        for (row, start, inner) in [(before(), 0, itself), (later, 1, split_sum())] {
            let (rows, data, folds) = nussinov(row, start, inner);
            assert_eq!(jam(&rows, &data, &folds), None);
        }
        // Statements that are not folds: nothing reorders them.
        let (rows, data, _) = nussinov(before(), 1, split_sum());
        assert_eq!(
            jam(&rows, &data, &Folds::from([(1, ReductionOp::Max)])),
            None
        );
        // Two operators: `min` after `max` is not `max` after `min`.
        let (rows, data, mut folds) = nussinov(before(), 1, split_sum());
        folds.insert(0, ReductionOp::Min);
        assert_eq!(jam(&rows, &data, &folds), None);
    }

    #[test]
    fn a_written_scalar_does_not_jam() {
        let (i, j) = (v("i"), v("j"));
        let data = scop(vec![assign(
            v("acc"),
            add(v("acc"), mul(at("A", vec![i, j.clone()]), at("x", vec![j]))),
        )]);
        let rows = one_inner(&[0]);
        assert_eq!(jam(&rows, &data, &Folds::new()), None);
    }
}
