//! Reductions: statements that fold values into one accumulator with an associative and
//! commutative operator (issue 17).
//!
//! `s += e`, `s = s + e`, `s -= e`, `s *= e`, `&=`, `|=`, `^=`, and `max`/`min` spelt with C's
//! conditional operator (`s = s < e ? e : s`) or `fmax`/`fmin`, on a scalar or an array element.
//! A loop of the statement whose iterator the accumulator's subscripts do not involve runs the
//! updates of one accumulator one after another; their order does not change the result (up to
//! rounding on floating point), so the dependences the accumulator carries along that loop may be
//! relaxed: the loop could run in parallel with partial results combined at its end.
//!
//! Recognised only where that is safe to claim:
//! - the operand `e` does not touch the accumulator's array or scalar at all (`s = s * s + e`
//!   and `s = e - s` are not reductions; neither is `A[i] += A[i - 1]`);
//! - no other statement inside the loop touches the accumulator's datum: a read there would see
//!   the partial values (`s += a[i]; b[i] = s;` is a scan, not a reduction over `i`).
//!
//! Nothing here changes a schedule yet: `--dump schedule` shows what was found.

use serde::Serialize;

use crate::model::expr::{AssignOp, BinaryOp, Expr, UnaryOp};
use crate::model::{AccessKind, Scop, Statement};

/// The operator an accumulator folds values with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReductionOp {
    Add,
    Mul,
    Min,
    Max,
    BitAnd,
    BitOr,
    BitXor,
}

impl ReductionOp {
    /// The operator as C writes it (`min` and `max` by name).
    pub fn symbol(self) -> &'static str {
        match self {
            ReductionOp::Add => "+",
            ReductionOp::Mul => "*",
            ReductionOp::Min => "min",
            ReductionOp::Max => "max",
            ReductionOp::BitAnd => "&",
            ReductionOp::BitOr => "|",
            ReductionOp::BitXor => "^",
        }
    }
}

/// One statement's reduction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reduction {
    /// Index of the statement in the SCoP.
    pub statement: usize,
    pub op: ReductionOp,
    /// The accumulator's array or scalar.
    pub datum: String,
    /// The iterators of the loops the statement reduces along, outermost first.
    pub loops: Vec<String>,
    /// Whether the accumulator is floating point: reassociating its updates changes the result
    /// in the last bits.
    pub floating: bool,
}

impl Reduction {
    /// Whether no statement of `stmts` but this one touches its accumulator: only then may
    /// its updates combine in another order (another statement would see partial results, or
    /// write the accumulator between them).
    pub fn alone_among(&self, scop: &Scop, stmts: &[usize]) -> bool {
        stmts
            .iter()
            .all(|&t| t == self.statement || !uses(&scop.statements[t], &self.datum))
    }
}

/// The reductions of `scop`'s statements, in statement order.
pub fn find(scop: &Scop) -> Vec<Reduction> {
    (0..scop.statements.len())
        .filter_map(|s| of_statement(scop, s))
        .collect()
}

fn of_statement(scop: &Scop, s: usize) -> Option<Reduction> {
    let st = &scop.statements[s];
    let (op, acc, operand) = update(&st.body)?;
    let datum = accumulator(acc)?;
    if touches(operand, datum) {
        return None;
    }
    let write = st
        .accesses
        .iter()
        .find(|a| a.kind == AccessKind::Write && a.datum == datum)?;
    let mut used = Vec::new();
    write.subscripts.iter().for_each(|a| a.vars(&mut used));
    let loops: Vec<String> = (0..st.iterators.len())
        .filter(|&k| !used.contains(&st.iterators[k]))
        .filter(|&k| alone_in_loop(scop, s, k, datum))
        .map(|k| st.iterators[k].clone())
        .collect();
    if loops.is_empty() {
        return None;
    }
    let floating = scop
        .symbols
        .get(datum)
        .is_some_and(|d| is_floating(&d.elem_type));
    // An integer accumulator of a floating-point operand converts after every update
    // (`int s; s += a[i]` truncates each sum): regrouped, it computes other integers.
    if !floating && !integral(scop, operand) {
        return None;
    }
    Some(Reduction {
        statement: s,
        op,
        datum: datum.to_string(),
        loops,
        floating,
    })
}

/// The operator of statement `s` where it updates its accumulator with one whose updates give
/// the same value in any order, to the bit: `min`, `max` and the bitwise operators on an
/// integer accumulator of at least an `int`, with an operand computed in integers no wider
/// than it (no NaN, no signed zeros, no rounding, no value stored cut short; integer `+` and
/// `*` are left out, as a reordered sum can overflow where the original did not). Unlike
/// [`find`], the operand may read the accumulator's array: whether it reads the updated element
/// itself is for the caller to rule out.
pub fn exact_update(scop: &Scop, s: usize) -> Option<ReductionOp> {
    let st = &scop.statements[s];
    let (op, acc, operand) = update(&st.body)?;
    let exact = matches!(
        op,
        ReductionOp::Min
            | ReductionOp::Max
            | ReductionOp::BitAnd
            | ReductionOp::BitOr
            | ReductionOp::BitXor
    );
    let datum = accumulator(acc)?;
    let bytes = scop
        .symbols
        .get(datum)
        .filter(|d| !is_floating(&d.elem_type))
        .and_then(|d| integer_bytes(&d.elem_type))?;
    let fits = bytes >= 4 && value_bytes(scop, operand).is_some_and(|b| b <= bytes);
    (exact && fits && integral(scop, operand)).then_some(op)
}

/// The size of the integer type `ty` (as the model spells it, typedefs resolved) on LP64.
fn integer_bytes(ty: &str) -> Option<u8> {
    let words: Vec<&str> = ty.split_whitespace().collect();
    let has = |w: &str| words.contains(&w);
    if has("char") || has("_Bool") {
        Some(1)
    } else if has("short") {
        Some(2)
    } else if has("long") {
        Some(8)
    } else if has("int") || has("unsigned") || has("signed") {
        Some(4)
    } else {
        None
    }
}

/// The size of the integer type `e` is computed in (C's promotions: at least an `int`), where
/// it is known: so that an update `acc = max(acc, e)` compares and stores the same value (an
/// `int` accumulator of a `long` operand compares in `long` and stores it cut short, and then
/// the order of the updates matters; so does a `char` accumulator of anything). Iterators and
/// parameters count as `long`; calls are unknown.
fn value_bytes(scop: &Scop, e: &Expr) -> Option<u8> {
    let datum = |name: &str| integer_bytes(&scop.symbols.get(name)?.elem_type);
    let size = match e {
        Expr::Int { value, text } => {
            let suffix = text.to_ascii_lowercase().contains('l');
            if suffix || i32::try_from(*value).is_err() {
                8
            } else {
                4
            }
        }
        Expr::Char(_) => 4,
        Expr::Var(name) => datum(name).unwrap_or(8),
        Expr::Index { array, .. } => datum(array)?,
        Expr::Unary {
            op: UnaryOp::Not, ..
        } => 4,
        Expr::Unary { operand, .. } => value_bytes(scop, operand)?,
        Expr::Binary { op, .. } if op.is_truth() => 4,
        Expr::Binary { op, lhs, rhs } => match op {
            BinaryOp::Shl | BinaryOp::Shr => value_bytes(scop, lhs)?,
            _ => value_bytes(scop, lhs)?.max(value_bytes(scop, rhs)?),
        },
        Expr::Ternary { then, other, .. } => {
            value_bytes(scop, then)?.max(value_bytes(scop, other)?)
        }
        Expr::Cast { ty, .. } => integer_bytes(ty.trim())?,
        Expr::Float(_) | Expr::Call { .. } | Expr::Assign { .. } => return None,
    };
    Some(size.max(4))
}

/// What a `min` or `max` statement keeps where its accumulator and operand compare neither
/// less nor greater: a tie (`-0.0` against `+0.0`) or a NaN. Partial results must combine the
/// way the statement does: `m = m > e ? m : e` from `m = NAN` takes its first operand, where
/// `v > m ? v : m` would keep the NaN.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Pick {
    /// No choice to make: `+`, `*` and the bitwise operators.
    Arithmetic,
    /// `fmax`/`fmin`: a NaN operand is dropped.
    Call,
    /// C's conditional operator: whether a tie, and whether a NaN, gives the operand.
    Select {
        tie_takes_operand: bool,
        nan_takes_operand: bool,
    },
}

/// How reduction statement `body` (in any spelling [`find`] recognises) picks between its
/// accumulator and operand.
pub fn pick(body: &Expr) -> Option<Pick> {
    let (_, _, operand) = update(body)?;
    let Expr::Assign {
        op: AssignOp::Assign,
        rhs,
        ..
    } = body
    else {
        return Some(Pick::Arithmetic);
    };
    match &**rhs {
        Expr::Call { .. } => Some(Pick::Call),
        Expr::Ternary { cond, then, .. } => {
            let Expr::Binary { op, .. } = &**cond else {
                return None;
            };
            // A failed comparison (always, with a NaN) takes the other branch; a tie fails a
            // strict comparison and passes `<=` or `>=`.
            let picks_operand = **then == *operand;
            let strict = matches!(op, BinaryOp::Lt | BinaryOp::Gt);
            Some(Pick::Select {
                tie_takes_operand: picks_operand != strict,
                nan_takes_operand: !picks_operand,
            })
        }
        _ => Some(Pick::Arithmetic),
    }
}

/// The operand `e` of a reduction statement's update `acc = acc op e` (in any spelling
/// [`find`] recognises; on the statement's body or an instance of it).
pub fn operand(body: &Expr) -> Option<&Expr> {
    update(body).map(|(_, _, e)| e)
}

/// `(operator, accumulator, operand)` of an update `acc = acc op operand` in any of its
/// spellings.
fn update(body: &Expr) -> Option<(ReductionOp, &Expr, &Expr)> {
    let Expr::Assign { op, lhs, rhs } = body else {
        return None;
    };
    let compound = match op {
        AssignOp::Add | AssignOp::Sub => Some(ReductionOp::Add),
        AssignOp::Mul => Some(ReductionOp::Mul),
        AssignOp::BitAnd => Some(ReductionOp::BitAnd),
        AssignOp::BitOr => Some(ReductionOp::BitOr),
        AssignOp::BitXor => Some(ReductionOp::BitXor),
        AssignOp::Assign => None,
        AssignOp::Div | AssignOp::Mod | AssignOp::Shl | AssignOp::Shr => return None,
    };
    if let Some(op) = compound {
        return Some((op, lhs, rhs));
    }
    let (op, operand) = folded(lhs, rhs)?;
    Some((op, lhs, operand))
}

/// `rhs` as `acc op operand`: the operator and the operand.
fn folded<'e>(acc: &Expr, rhs: &'e Expr) -> Option<(ReductionOp, &'e Expr)> {
    match rhs {
        Expr::Binary { op, lhs, rhs } => {
            let op_kind = match op {
                BinaryOp::Add => ReductionOp::Add,
                BinaryOp::Mul => ReductionOp::Mul,
                BinaryOp::BitAnd => ReductionOp::BitAnd,
                BinaryOp::BitOr => ReductionOp::BitOr,
                BinaryOp::BitXor => ReductionOp::BitXor,
                // `acc - e` is `acc + (-e)`; `e - acc` is not an update of acc.
                BinaryOp::Sub if **lhs == *acc => return Some((ReductionOp::Add, rhs)),
                _ => return None,
            };
            other_operand(acc, lhs, rhs).map(|e| (op_kind, e))
        }
        Expr::Call { func, args } if args.len() == 2 => {
            let op = match func.as_str() {
                "fmax" | "fmaxf" | "fmaxl" => ReductionOp::Max,
                "fmin" | "fminf" | "fminl" => ReductionOp::Min,
                _ => return None,
            };
            other_operand(acc, &args[0], &args[1]).map(|e| (op, e))
        }
        Expr::Ternary { cond, then, other } => select(acc, cond, then, other),
        _ => None,
    }
}

/// Of `a` and `b`, the one that is not `acc`, when the other is.
fn other_operand<'e>(acc: &Expr, a: &'e Expr, b: &'e Expr) -> Option<&'e Expr> {
    if *a == *acc {
        Some(b)
    } else if *b == *acc {
        Some(a)
    } else {
        None
    }
}

/// `cond ? then : other` as `max(acc, e)` or `min(acc, e)`: `cond` compares `acc` with `e`, and
/// the branches are `acc` and `e`.
fn select<'e>(
    acc: &Expr,
    cond: &'e Expr,
    then: &'e Expr,
    other: &'e Expr,
) -> Option<(ReductionOp, &'e Expr)> {
    let Expr::Binary { op, lhs, rhs } = cond else {
        return None;
    };
    let e = other_operand(acc, then, other)?;
    // Whether `cond` holds when `e` is the larger: `acc < e`, `e > acc` and their `<=`, `>=`.
    let e_larger = match op {
        BinaryOp::Lt | BinaryOp::Le if **lhs == *acc && **rhs == *e => true,
        BinaryOp::Gt | BinaryOp::Ge if **lhs == *e && **rhs == *acc => true,
        BinaryOp::Gt | BinaryOp::Ge if **lhs == *acc && **rhs == *e => false,
        BinaryOp::Lt | BinaryOp::Le if **lhs == *e && **rhs == *acc => false,
        _ => return None,
    };
    // Picking `e` when it is the larger (or `acc` when `e` is the smaller) keeps the maximum.
    let picks_e = *then == *e;
    Some((
        if e_larger == picks_e {
            ReductionOp::Max
        } else {
            ReductionOp::Min
        },
        e,
    ))
}

fn is_floating(ty: &str) -> bool {
    matches!(
        ty,
        "float" | "double" | "long double" | "_Float16" | "_Float32" | "_Float64"
    )
}

/// Whether `e` has an integer value computed in integers all the way (a comparison of
/// floating-point values counts: it is an `int`); calls do not count.
fn integral(scop: &Scop, e: &Expr) -> bool {
    let datum_is_integer = |name: &str| {
        scop.symbols
            .get(name)
            .is_none_or(|d| !is_floating(&d.elem_type))
    };
    match e {
        Expr::Int { .. } | Expr::Char(_) => true,
        Expr::Float(_) | Expr::Call { .. } | Expr::Assign { .. } => false,
        // Iterators and parameters are integers; a datum has its element type.
        Expr::Var(name) => datum_is_integer(name),
        Expr::Index { array, .. } => datum_is_integer(array),
        Expr::Unary {
            op: UnaryOp::Not, ..
        } => true,
        Expr::Unary { operand, .. } => integral(scop, operand),
        Expr::Binary { op, lhs, rhs } => {
            op.is_truth() || (integral(scop, lhs) && integral(scop, rhs))
        }
        Expr::Ternary { then, other, .. } => integral(scop, then) && integral(scop, other),
        Expr::Cast { ty, .. } => !is_floating(ty.trim()),
    }
}

/// The datum an accumulator expression names (a scalar or an array element).
fn accumulator(e: &Expr) -> Option<&str> {
    match e {
        Expr::Var(name) => Some(name),
        Expr::Index { array, .. } => Some(array),
        _ => None,
    }
}

/// Whether `e` reads `datum` anywhere (its value or any element of it).
fn touches(e: &Expr, datum: &str) -> bool {
    match e {
        Expr::Var(name) => name == datum,
        Expr::Index { array, subscripts } => {
            array == datum || subscripts.iter().any(|x| touches(x, datum))
        }
        Expr::Call { args, .. } => args.iter().any(|x| touches(x, datum)),
        Expr::Unary { operand, .. } => touches(operand, datum),
        Expr::Binary { lhs, rhs, .. } | Expr::Assign { lhs, rhs, .. } => {
            touches(lhs, datum) || touches(rhs, datum)
        }
        Expr::Ternary { cond, then, other } => {
            touches(cond, datum) || touches(then, datum) || touches(other, datum)
        }
        Expr::Cast { expr, .. } => touches(expr, datum),
        Expr::Int { .. } | Expr::Float(_) | Expr::Char(_) => false,
    }
}

/// Whether statement `s` is the only one inside its `k`-th loop that touches `datum`.
fn alone_in_loop(scop: &Scop, s: usize, k: usize, datum: &str) -> bool {
    let l = scop.statements[s].loops[k];
    scop.statements
        .iter()
        .enumerate()
        .filter(|(t, _)| *t != s)
        .filter(|(_, other)| other.loops.contains(&l))
        .all(|(_, other)| !uses(other, datum))
}

fn uses(st: &Statement, datum: &str) -> bool {
    st.accesses.iter().any(|a| a.datum == datum)
}
