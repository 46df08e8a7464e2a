//! The model-extraction policy: the thesis' `RosePollyCustom` interface (§5.3).
//!
//! Model extraction walks the [`FlowGraph`](crate::model::flow::FlowGraph) and asks the policy,
//! for every loop, conditional and access, whether it belongs in the model (`evaluate_*`) and
//! how it constrains the statement's domain (`add_*`). [`DefaultCustom`] implements the SCoP
//! rules polyc documents; a user can override any method (accept only unit strides, reject
//! conditionals, allow more pure functions...) and pass the policy to
//! [`build_models_with`](super::build_models_with).

use super::affine::{AffineContext, NotAffine};
use crate::diag::{Diagnostic, Loc};
use crate::model::affine::{Affine, AffineCond, CmpOp, WrapForm};
use crate::model::ctype::{CType, IntType};
use crate::model::expr::{AssignOp, BinaryOp, Expr};
use crate::model::flow::{Conditional, ForLoop};
use crate::model::AffineLoop;

/// The constraints of a statement's domain, gathered on the way down the FlowGraph.
#[derive(Debug, Clone, Default)]
pub struct DomainBuilder {
    /// Enclosing iterators, outermost first.
    pub iterators: Vec<String>,
    /// Their C types.
    pub iterator_types: Vec<IntType>,
    /// A conjunction of conditions on iterators and parameters.
    pub constraints: Vec<AffineCond>,
}

impl DomainBuilder {
    pub fn push(&mut self, c: AffineCond) {
        if c != AffineCond::True {
            self.constraints.push(c);
        }
    }

    /// All constraints as one condition.
    pub fn condition(&self) -> AffineCond {
        self.constraints
            .iter()
            .cloned()
            .fold(AffineCond::True, AffineCond::and)
    }
}

/// Which branch of a conditional a statement is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Branch {
    Then,
    Else,
}

/// An array or scalar reference found in a statement, before the policy has judged it.
#[derive(Debug, Clone)]
pub struct AccessCandidate<'e> {
    pub datum: &'e str,
    pub subscripts: &'e [Expr],
    pub is_write: bool,
    /// The statement's location (the IR has no finer positions).
    pub loc: &'e Loc,
}

/// See the module documentation. Methods take the policy by `&self` except
/// [`add_params`](RosePollyCustom::add_params), which lets a policy record the parameters it saw.
pub trait RosePollyCustom {
    /// Is this loop part of the model? Returns the loop in normal form.
    fn evaluate_loop(&self, lp: &ForLoop, cx: &AffineContext) -> Result<AffineLoop, Diagnostic> {
        default_evaluate_loop(lp, cx)
    }

    /// Constrain the domain of the statements inside the loop.
    fn add_loop(&self, d: &mut DomainBuilder, lp: &AffineLoop) {
        default_add_loop(d, lp)
    }

    /// Is this conditional part of the model? Returns its condition.
    fn evaluate_conditional(
        &self,
        c: &Conditional,
        cx: &AffineContext,
    ) -> Result<AffineCond, Diagnostic> {
        cx.cond(&c.cond)
            .map_err(|e| to_diag(&c.loc, &c.text, e, "condition"))
    }

    /// Constrain the domain of the statements on one branch.
    fn add_conditional(&self, d: &mut DomainBuilder, cond: &AffineCond, branch: Branch) {
        d.push(match branch {
            Branch::Then => cond.clone(),
            Branch::Else => AffineCond::negate(cond.clone()),
        })
    }

    /// Is this reference part of the model? Returns its subscripts as affine expressions.
    fn evaluate_access(
        &self,
        a: &AccessCandidate,
        cx: &AffineContext,
    ) -> Result<Vec<Affine>, Diagnostic> {
        a.subscripts
            .iter()
            .map(|s| {
                cx.expr(s).map_err(|e| {
                    let snippet = format!(
                        "{}[{}]",
                        a.datum,
                        a.subscripts
                            .iter()
                            .map(|x| x.to_string())
                            .collect::<Vec<_>>()
                            .join("][")
                    );
                    to_diag(a.loc, &snippet, e, "subscript")
                })
            })
            .collect()
    }

    /// Called once with the SCoP's parameters.
    fn add_params(&mut self, _params: &[String]) {}

    /// May a statement call this function? (It must be free of side effects.)
    fn is_pure_function(&self, name: &str) -> bool {
        PURE_FUNCTIONS.contains(&name)
    }

    /// Expand scalars that each iteration of their loops writes before reading into arrays
    /// indexed by those loops ([`super::expand`]), so that only their true dependences remain.
    fn expand_scalars(&self) -> bool {
        true
    }

    /// Split statements whose own dependences inside their outer loops all start or end on a
    /// hyperplane into one statement per side of it ([`super::split`]), so that each is parallel.
    fn split_index_sets(&self) -> bool {
        true
    }

    /// Compute the SCoP's dependences ([`crate::analysis::deps`]), the costliest step of
    /// building a model (tens to hundreds of milliseconds for a suite kernel, against well
    /// under one for the rest). A flow that only reads domains and accesses may skip it; its
    /// models then have no dependences, and nothing may schedule them.
    fn analyse_dependences(&self) -> bool {
        true
    }
}

/// The C math library functions a statement may call.
pub const PURE_FUNCTIONS: &[&str] = &[
    "sqrt",
    "sqrtf",
    "exp",
    "expf",
    "exp2",
    "exp2f",
    "log",
    "logf",
    "log2",
    "log2f",
    "log10",
    "log10f",
    "pow",
    "powf",
    "fabs",
    "fabsf",
    "abs",
    "labs",
    "floor",
    "floorf",
    "ceil",
    "ceilf",
    "round",
    "roundf",
    "trunc",
    "truncf",
    "fmin",
    "fminf",
    "fmax",
    "fmaxf",
    "fmod",
    "fmodf",
    "sin",
    "sinf",
    "cos",
    "cosf",
    "tan",
    "tanf",
    "asin",
    "asinf",
    "acos",
    "acosf",
    "atan",
    "atanf",
    "atan2",
    "atan2f",
    "sinh",
    "sinhf",
    "cosh",
    "coshf",
    "tanh",
    "tanhf",
    "cbrt",
    "cbrtf",
    "hypot",
    "hypotf",
    "erf",
    "erff",
    "expm1",
    "expm1f",
    "log1p",
    "log1pf",
    "fma",
    "fmaf",
    "copysign",
    "copysignf",
];

/// The rules polyc documents; every method of [`RosePollyCustom`] has its default.
#[derive(Debug, Clone, Default)]
pub struct DefaultCustom {
    /// The parameters of the last SCoP built with this policy.
    pub params: Vec<String>,
    /// Leave scalars as they are (`polyc --no-expansion`).
    pub no_expansion: bool,
    /// Leave every statement whole (`polyc --no-split`).
    pub no_split: bool,
}

impl RosePollyCustom for DefaultCustom {
    fn add_params(&mut self, params: &[String]) {
        self.params = params.to_vec();
    }

    fn expand_scalars(&self) -> bool {
        !self.no_expansion
    }

    fn split_index_sets(&self) -> bool {
        !self.no_split
    }
}

pub(crate) fn to_diag(loc: &Loc, snippet: &str, e: NotAffine, _what: &str) -> Diagnostic {
    let d = Diagnostic::new(loc.clone(), e.message).with_snippet(snippet);
    match e.note {
        Some(n) => d.with_note(n),
        None => d,
    }
}

/// `for (i = lb; i < ub && i <= ub2; i += c)` and its mirror counting down.
pub fn default_evaluate_loop(lp: &ForLoop, cx: &AffineContext) -> Result<AffineLoop, Diagnostic> {
    let err = |msg: String| Diagnostic::new(lp.loc.clone(), msg).with_snippet(&lp.header);
    let Some(Expr::Assign {
        op: AssignOp::Assign,
        lhs,
        rhs,
    }) = &lp.init
    else {
        return Err(
            err("loop without an initial assignment to its iterator".into())
                .with_note("a SCoP loop has the form `for (i = lb; i < ub; i++)`"),
        );
    };
    let Expr::Var(it) = &**lhs else {
        return Err(err("loop iterator is not a scalar variable".into()));
    };
    if cx.iterators.contains(it) {
        return Err(err(format!(
            "loop iterator `{it}` is already the iterator of an enclosing loop"
        )));
    }
    let ty = iterator_type(lp, it, cx).map_err(err)?;
    let outer = AffineContext {
        role: "loop bound",
        ..*cx
    };
    let init = outer
        .assigned(rhs, ty)
        .map_err(|e| to_diag(&lp.loc, &lp.header, e, "loop bound"))?;
    let stride = loop_stride(it, lp.step.as_ref()).ok_or_else(|| {
        err(format!("unsupported loop step for `{it}`")).with_note(
            "the step must be `++`, `--`, `+= c` or `-= c` with a non-zero integer constant c",
        )
    })?;
    let Some(cond) = &lp.cond else {
        return Err(err(format!("loop over `{it}` has no condition")));
    };
    let mut with_it = cx.iterators.to_vec();
    with_it.push(it.clone());
    let mut with_ty = cx.iterator_types.to_vec();
    with_ty.push(ty);
    let inner = AffineContext {
        iterators: &with_it,
        iterator_types: &with_ty,
        role: "loop bound",
        ..*cx
    };
    let cond = inner
        .cond(cond)
        .map_err(|e| to_diag(&lp.loc, &lp.header, e, "loop bound"))?;
    // Directions are those of the values: a conversion either changes nothing there or is
    // assumed to (see `wraps`).
    check_bound_direction(it, &cond.resolve_wraps(&|_| Some(WrapForm::Value)), stride).map_err(|m| {
        err(m).with_note("the loop condition must be a conjunction of bounds on the iterator in the direction it moves")
    })?;
    Ok(AffineLoop {
        iterator: it.clone(),
        ty,
        init,
        cond,
        stride,
        loc: lp.loc.clone(),
    })
}

/// The C type of a loop's iterator: declared in the header or before the SCoP.
fn iterator_type(lp: &ForLoop, it: &str, cx: &AffineContext) -> Result<IntType, String> {
    let (ty, written) = match &lp.declared_type {
        Some(words) => (cx.scope.type_of_words(words), words.clone()),
        None => match cx.scope.get(it) {
            Some(sym) if sym.extents.is_empty() => (
                sym.elem_ctype(cx.scope.char_signed),
                sym.written_type.clone(),
            ),
            Some(_) => return Err(format!("loop iterator `{it}` is an array")),
            None => return Err(format!("loop iterator `{it}` is not declared")),
        },
    };
    match ty {
        CType::Int(t) if t != IntType::BOOL => Ok(t),
        _ => Err(format!(
            "loop iterator `{it}` has type `{written}`; a SCoP's iterators are integers"
        )),
    }
}

/// `i += c`, `i -= c`, `i = i + c`, `i = c + i`, `i = i - c`.
fn loop_stride(it: &str, step: Option<&Expr>) -> Option<i64> {
    let is_it = |e: &Expr| matches!(e, Expr::Var(v) if v == it);
    let constant = |e: &Expr| match e {
        Expr::Int { value, .. } => Some(*value),
        Expr::Unary {
            op: crate::model::expr::UnaryOp::Neg,
            operand,
        } => match &**operand {
            Expr::Int { value, .. } => Some(-value),
            _ => None,
        },
        _ => None,
    };
    let s = match step? {
        Expr::Assign {
            op: AssignOp::Add,
            lhs,
            rhs,
        } if is_it(lhs) => constant(rhs)?,
        Expr::Assign {
            op: AssignOp::Sub,
            lhs,
            rhs,
        } if is_it(lhs) => -constant(rhs)?,
        Expr::Assign {
            op: AssignOp::Assign,
            lhs,
            rhs,
        } if is_it(lhs) => match &**rhs {
            Expr::Binary {
                op: BinaryOp::Add,
                lhs: a,
                rhs: b,
            } if is_it(a) => constant(b)?,
            Expr::Binary {
                op: BinaryOp::Add,
                lhs: a,
                rhs: b,
            } if is_it(b) => constant(a)?,
            Expr::Binary {
                op: BinaryOp::Sub,
                lhs: a,
                rhs: b,
            } if is_it(a) => -constant(b)?,
            _ => return None,
        },
        _ => return None,
    };
    (s != 0).then_some(s)
}

/// Every comparison of a loop condition must bound the iterator from above (counting up) or
/// from below (counting down), so that the C loop and its set of iterations agree.
fn check_bound_direction(it: &str, cond: &AffineCond, stride: i64) -> Result<(), String> {
    match cond {
        AffineCond::And(a, b) => {
            check_bound_direction(it, a, stride)?;
            check_bound_direction(it, b, stride)
        }
        AffineCond::Cmp(op, lhs, rhs) => {
            // Normalise to `c*it + r  (<|<=)  0`.
            let diff = match op {
                CmpOp::Lt | CmpOp::Le => Affine::minus(lhs.clone(), rhs.clone()),
                CmpOp::Gt | CmpOp::Ge => Affine::minus(rhs.clone(), lhs.clone()),
                CmpOp::Eq | CmpOp::Ne => {
                    return Err(format!("loop condition on `{it}` uses `==` or `!=`"))
                }
            };
            let (c, _) = diff.split_var(it).ok_or_else(|| {
                format!("`{it}` appears inside min/max/floor in its own loop condition")
            })?;
            if c == 0 {
                return Err(format!(
                    "a comparison in the loop condition does not involve the iterator `{it}`"
                ));
            }
            if (c > 0) != (stride > 0) {
                let dir = if stride > 0 { "up" } else { "down" };
                return Err(format!(
                    "the loop counts {dir} but its condition bounds `{it}` from the other side"
                ));
            }
            Ok(())
        }
        AffineCond::True => Err(format!("the loop over `{it}` has no bound")),
        _ => Err(format!(
            "the condition of the loop over `{it}` is not a conjunction of bounds"
        )),
    }
}

/// The iterations of a normal-form loop: from `init` in the direction of `stride`, while `cond`.
pub fn default_add_loop(d: &mut DomainBuilder, lp: &AffineLoop) {
    let it = Affine::var(&lp.iterator);
    let (first, dist) = if lp.stride > 0 {
        (
            AffineCond::cmp(CmpOp::Ge, it.clone(), lp.init.clone()),
            Affine::minus(it.clone(), lp.init.clone()),
        )
    } else {
        (
            AffineCond::cmp(CmpOp::Le, it.clone(), lp.init.clone()),
            Affine::minus(lp.init.clone(), it.clone()),
        )
    };
    d.iterators.push(lp.iterator.clone());
    d.iterator_types.push(lp.ty);
    d.push(first);
    d.push(lp.cond.clone());
    if lp.stride.abs() > 1 {
        d.push(AffineCond::cmp(
            CmpOp::Eq,
            Affine::floor_mod(dist, lp.stride.abs()),
            Affine::Const(0),
        ));
    }
}
