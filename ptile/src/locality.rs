//! How the original order of a SCoP walks its arrays: whether its innermost loops step across
//! rows. Such an order touches one element per cache line (and per page, for long rows) at each
//! step; once the arrays exceed the cache, tiles pay for their locality alone, without threads.
//! Measured on the 2-core development VM at LARGE (4 KiB pages): mvt ran 63 ms in its original
//! order and 12.6 ms tiled on one thread, gemver 73 against 19 ms; atax, whose loops walk rows,
//! ran 7.4 ms against 14 ms tiled.

use rosepolly::model::affine::Affine;
use rosepolly::model::expr::{AssignOp, BinaryOp, Expr};
use rosepolly::model::{AccessKind, AccessPattern, Scop, Storage};

/// Whether some statement of the deepest nests, where the work is, moves with its innermost
/// loop a subscript other than the last of an array it accesses (mvt's `A[j][i]` under `j`;
/// not trisolv's `L[i][i]` under `i` alone, outside the `j` loop). Arrays polyc made from
/// scalars do not count: where the original order runs, they are scalars again.
pub fn strides_across_rows(scop: &Scop) -> bool {
    deepest(scop).any(|s| {
        let s = &scop.statements[s];
        let Some(inner) = s.iterators.last() else {
            return false;
        };
        s.accesses.iter().any(|a| {
            let rows = a.subscripts.len().saturating_sub(1);
            !expanded(scop, &a.datum)
                && a.subscripts[..rows]
                    .iter()
                    .any(|e| !matches!(e.split_var(inner), Some((0, _))))
        })
    })
}

/// Whether the SCoP is one loop that repeats sweeps over its arrays, as a time-iterated stencil's
/// `t` does: every statement lies in that outermost loop, some in a loop inside it, and its
/// iterator indexes no access to an array the SCoP writes (fdtd-2d's `_fict_[t]` is read only;
/// floyd-warshall's `k` and lu's `k` index what they write, and do not count). Tiles of such a
/// SCoP run faster with long rows last, or a short first dimension where its points wait for
/// one another (`codegen::host_printer`, `SWEEP_ROW_TILE`, `TIME_TILE`). adi,
/// whose scalars are set before its `t` loop, does not count either: a first size of 8 made
/// it faster at LARGE (5.1 -> 4.6 s) but slower at MEDIUM (0.041 -> 0.047 ms, medians of 15).
pub fn repeats_sweeps(scop: &Scop) -> bool {
    let mut all = scop.statements.iter();
    let Some(first) = all.next().filter(|s| !s.loops.is_empty()) else {
        return false;
    };
    let outer = first.loops[0];
    let shared = all.all(|s| s.loops.first() == Some(&outer));
    let nested = scop.statements.iter().any(|s| s.loops.len() >= 2);
    if !shared || !nested {
        return false;
    }
    let t = &first.iterators[0];
    let written: Vec<&str> = scop
        .statements
        .iter()
        .flat_map(|s| &s.accesses)
        .filter(|a| a.kind == AccessKind::Write)
        .map(|a| a.datum.as_str())
        .collect();
    scop.statements
        .iter()
        .flat_map(|s| &s.accesses)
        .filter(|a| written.contains(&a.datum.as_str()))
        .all(|a| {
            a.subscripts.iter().all(|e| {
                let mut vars = Vec::new();
                e.vars(&mut vars);
                !vars.contains(t)
            })
        })
}

/// The statements of the deepest nests, where the work is.
pub fn deepest<'a>(scop: &'a Scop<'_>) -> impl Iterator<Item = usize> + 'a {
    let depth = scop.statements.iter().map(|s| s.iterators.len()).max();
    (0..scop.statements.len()).filter(move |&s| Some(scop.statements[s].iterators.len()) == depth)
}

/// Whether `datum` is an array polyc made from a scalar.
fn expanded(scop: &Scop, datum: &str) -> bool {
    scop.symbols
        .data
        .get(datum)
        .is_some_and(|d| d.storage == Storage::Expanded && d.expanded_dims == d.extents.len())
}

/// The leading subscripts of `datum` that index iterations of the loops it was expanded over.
fn expanded_dims(scop: &Scop, datum: &str) -> usize {
    scop.symbols.data.get(datum).map_or(0, |d| d.expanded_dims)
}

/// What an order's innermost loop asks of the C compiler's vectoriser for one statement;
/// ordered by cost (`codegen::inner_loops` compares the original order with the tiles').
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Inner {
    /// Invariant or unit-stride references only: the loop vectorises.
    Contiguous,
    /// Some reference moves a subscript other than the last (or the last by more than one).
    Strided,
    /// An element the statement reads at every step is one it writes at some step
    /// (floyd-warshall's `path[i][k]` under `j`, written at `j = k`): gcc versions the loop on a
    /// test that the written elements do not overlap the read one, which fails, and the loop
    /// runs scalar. At MEDIUM on the 2-core Intel Xeon VM the original ran 46-49 ms, Pluto's
    /// order, whose pieces keep `j = k` apart (`rosepolly::compilation::split`), 16 ms as one
    /// tile on one thread.
    Written,
    /// A written element stays the same along the loop (or the loop is unknown): a
    /// floating-point reduction gcc keeps scalar without `-ffast-math`.
    Chain,
}

impl Inner {
    /// Neither a chain nor a loop that runs scalar vectorises: both cost the same.
    pub fn cost(self) -> u32 {
        match self {
            Inner::Contiguous => 0,
            Inner::Strided => 1,
            Inner::Written | Inner::Chain => 2,
        }
    }
}

/// The cost of the original order: the sum of [`Inner`] over the deepest statements, each
/// under its own innermost iterator. Arrays polyc made from scalars count as the scalars they
/// are in the original lines.
pub fn original_cost(scop: &Scop) -> u32 {
    deepest(scop).map(|s| statement_cost(scop, s)).sum()
}

/// The cost of deepest statement `s` in the original order (see [`original_cost`]).
pub fn statement_cost(scop: &Scop, s: usize) -> u32 {
    let st = &scop.statements[s];
    let Some(inner) = st.iterators.last() else {
        return 0;
    };
    let pieces = pieces(scop, s);
    classify(scop, s, true, &pieces, &|a| {
        a.split_var(inner).map(|(c, _)| c)
    })
    .cost()
}

/// The statements whose domains make up the instances the original's lines run for statement
/// `s`: all pieces of the statement it was split from (`Scop::splits`), else `s` alone.
pub fn pieces(scop: &Scop, s: usize) -> Vec<usize> {
    let name = &scop.statements[s].name;
    let by_name = |n: &String| scop.statements.iter().position(|t| &t.name == n);
    match scop.splits.iter().find(|p| p.pieces.contains(name)) {
        Some(split) => split.pieces.iter().filter_map(by_name).collect(),
        None => vec![s],
    }
}

/// Whether some instance of a statement of `domains` (`s`'s pieces, whose accesses are `s`'s
/// in the same order) reads with its access `read` the element it writes with `write`: the
/// two access relations meet on its domain.
fn meets(scop: &Scop, domains: &[usize], read: usize, write: usize) -> bool {
    domains.iter().any(|&t| {
        let st = &scop.statements[t];
        let (r, w) = (&st.accesses[read].relation, &st.accesses[write].relation);
        !st.domain.restrict(r.map().intersect(w.map())).is_empty()
    })
}

/// The class of statement `s` when `step` gives each subscript's change per step of the
/// innermost loop (`None`: unknown). `scalars`: expanded arrays count as scalars. `domains`:
/// the statements whose domains hold the instances the loop runs (`s`'s pieces in the
/// original's lines, [`pieces`]).
pub fn classify(
    scop: &Scop,
    s: usize,
    scalars: bool,
    domains: &[usize],
    step: &dyn Fn(&Affine) -> Option<i64>,
) -> Inner {
    let st = &scop.statements[s];
    let moves = |a: &AccessPattern| a.subscripts.iter().any(|e| step(e) != Some(0));
    // Writes along the loop, which may reach an element the loop reads without moving.
    let moving_writes: Vec<usize> = (0..st.accesses.len())
        .filter(|&w| st.accesses[w].kind == AccessKind::Write && moves(&st.accesses[w]))
        .collect();
    let mut class = Inner::Contiguous;
    for (r, a) in st.accesses.iter().enumerate() {
        let subscripts: &[Affine] = match scalars {
            true => &a.subscripts[expanded_dims(scop, &a.datum)..],
            false => &a.subscripts,
        };
        let steps: Option<Vec<i64>> = subscripts.iter().map(step).collect();
        let this = match steps {
            None => Inner::Chain,
            Some(v) if v.iter().all(|&c| c == 0) => match a.kind {
                AccessKind::Write => Inner::Chain,
                AccessKind::Read
                    if !expanded(scop, &a.datum)
                        && moving_writes.iter().any(|&w| {
                            st.accesses[w].datum == a.datum && meets(scop, domains, r, w)
                        }) =>
                {
                    Inner::Written
                }
                AccessKind::Read => Inner::Contiguous,
            },
            Some(v) => {
                let rows = v.len() - 1;
                if v[..rows].iter().all(|&c| c == 0) && v[rows].abs() == 1 {
                    Inner::Contiguous
                } else {
                    Inner::Strided
                }
            }
        };
        class = class.max(this);
    }
    class
}

/// The latency of a point of the original order, relative to a point whose innermost loop
/// vectorises: 1, unless some statement of the deepest nests reads at every step what it wrote
/// a few steps before along its innermost loop (seidel-2d's `A[i][j]` from `A[i][j-1]`, adi's
/// `p[i][j]` from `p[i][j-1]`). Such a recurrence neither vectorises nor overlaps its steps:
/// each waits for the whole arithmetic of the one before, so a point costs about as many cycles
/// as its statement has operations (divisions four times as many). The largest such count.
/// Measured on the 2-core VM at MEDIUM: seidel-2d 8.7 ns and adi about 3 ns a point in the
/// original order, jacobi-2d 0.34 ns. Reductions (`s += ...` under the loop) do not count:
/// their chain is one addition long.
pub fn recurrence_latency(scop: &Scop) -> u32 {
    deepest(scop)
        .filter(|&s| recurs(scop, s))
        .map(|s| operations(&scop.statements[s].body).max(2))
        .max()
        .unwrap_or(1)
}

/// Whether statement `s` reads an element it wrote one to four steps of its innermost loop
/// before (in the loop's direction and by its stride: under `j += 2`, `A[j - 2]` but not
/// `A[j - 1]`).
fn recurs(scop: &Scop, s: usize) -> bool {
    let st = &scop.statements[s];
    let (Some(inner), Some(&l)) = (st.iterators.last(), st.loops.last()) else {
        return false;
    };
    // The change of each subscript from one step of the loop to the next (`j += 2` moves `A[j]`
    // by two elements; `j--` by minus one).
    let stride = scop.loops[l].stride;
    let accesses = |kind: AccessKind| {
        st.accesses
            .iter()
            .filter(move |a| a.kind == kind && !expanded(scop, &a.datum))
    };
    accesses(AccessKind::Write).any(|w| {
        let Some(step): Option<Vec<i64>> = w
            .subscripts
            .iter()
            .map(|e| e.split_var(inner).and_then(|(c, _)| c.checked_mul(stride)))
            .collect()
        else {
            return false;
        };
        step.iter().any(|&c| c != 0)
            && accesses(AccessKind::Read)
                .filter(|r| r.datum == w.datum && r.subscripts.len() == step.len())
                .any(|r| {
                    let gap: Option<Vec<i64>> = r
                        .subscripts
                        .iter()
                        .zip(&w.subscripts)
                        .map(|(r, w)| constant(&Affine::minus(r.clone(), w.clone())))
                        .collect();
                    gap.is_some_and(|gap| {
                        (1..=4).any(|m| {
                            gap.iter()
                                .zip(&step)
                                .all(|(&g, &c)| c.checked_mul(-m) == Some(g))
                        })
                    })
                })
    })
}

/// The value of `e` where it is a constant once its terms are collected (`(j - 1) - j`).
fn constant(e: &Affine) -> Option<i64> {
    e.linear()
        .filter(|l| l.coeffs.is_empty())
        .map(|l| l.constant)
}

/// The arithmetic operations of a statement's body outside its subscripts: one each, four for
/// a division, a remainder or a call of the math library.
fn operations(e: &Expr) -> u32 {
    match e {
        Expr::Binary { op, lhs, rhs } => {
            let own = match op {
                BinaryOp::Div | BinaryOp::Mod => 4,
                _ => 1,
            };
            own + operations(lhs) + operations(rhs)
        }
        Expr::Assign { op, lhs, rhs } => {
            let own = match op {
                AssignOp::Assign => 0,
                AssignOp::Div | AssignOp::Mod => 4,
                _ => 1,
            };
            own + operations(lhs) + operations(rhs)
        }
        Expr::Unary { operand, .. } => 1 + operations(operand),
        Expr::Cast { expr, .. } => operations(expr),
        Expr::Call { args, .. } => 4 + args.iter().map(operations).sum::<u32>(),
        Expr::Ternary { cond, then, other } => {
            1 + operations(cond) + operations(then).max(operations(other))
        }
        Expr::Int { .. } | Expr::Float(_) | Expr::Char(_) | Expr::Var(_) | Expr::Index { .. } => 0,
    }
}
