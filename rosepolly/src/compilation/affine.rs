//! From statement-expression IR to quasi-affine trees, with the SCoP rules for what may
//! appear in a loop bound, a condition or a subscript.

use std::collections::BTreeSet;

use super::symbols::Scope;
use crate::model::affine::{Affine, AffineCond, CmpOp};
use crate::model::expr::{BinaryOp, Expr, UnaryOp};

/// Why an expression is not affine (the caller adds the location).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAffine {
    pub message: String,
    pub note: Option<String>,
}

impl NotAffine {
    fn new(message: impl Into<String>) -> NotAffine {
        NotAffine {
            message: message.into(),
            note: None,
        }
    }
    fn note(mut self, n: impl Into<String>) -> NotAffine {
        self.note = Some(n.into());
        self
    }
}

/// What an affine expression may refer to at one point of a SCoP.
pub struct AffineContext<'a> {
    /// Iterators of the enclosing loops.
    pub iterators: &'a [String],
    pub scope: &'a Scope,
    /// Scalars written somewhere in the region (loop iterators included).
    pub written: &'a BTreeSet<String>,
    /// What the expression is, for messages: "loop bound", "subscript", "condition".
    pub role: &'a str,
}

impl AffineContext<'_> {
    pub fn expr(&self, e: &Expr) -> Result<Affine, NotAffine> {
        match e {
            Expr::Int { value, .. } => Ok(Affine::Const(*value)),
            Expr::Char(c) => char_value(c).map(Affine::Const).ok_or_else(|| NotAffine::new("unsupported character constant")),
            Expr::Var(name) => self.variable(name),
            Expr::Unary { op: UnaryOp::Neg, operand } => Ok(Affine::scale(-1, self.expr(operand)?)),
            Expr::Unary { op: UnaryOp::Plus, operand } => self.expr(operand),
            Expr::Binary { op, lhs, rhs } => self.binary(e, *op, lhs, rhs),
            Expr::Ternary { cond, then, other } => Ok(Affine::select(self.cond(cond)?, self.expr(then)?, self.expr(other)?)),
            Expr::Cast { ty, expr } if super::symbols::is_integer_type(ty) => self.expr(expr),
            Expr::Call { func, args } if args.len() == 2 && matches!(func.as_str(), "min" | "max" | "MIN" | "MAX") => {
                let (a, b) = (self.expr(&args[0])?, self.expr(&args[1])?);
                Ok(if func.eq_ignore_ascii_case("min") { Affine::min(a, b) } else { Affine::max(a, b) })
            }
            Expr::Call { func, args } if args.len() == 2 && matches!(func.as_str(), "floord" | "ceild") => {
                let d = self.expr(&args[1])?.constant().filter(|d| *d > 0).ok_or_else(|| {
                    NotAffine::new(format!("non-affine {}: `{func}` by a non-constant", self.role))
                })?;
                let a = self.expr(&args[0])?;
                Ok(if func == "floord" {
                    Affine::floor_div(a, d)
                } else {
                    Affine::scale(-1, Affine::floor_div(Affine::scale(-1, a), d))
                })
            }
            Expr::Index { .. } => Err(NotAffine::new(format!("data-dependent {}: it reads an array", self.role))
                .note("a SCoP's loop bounds, conditions and subscripts may use only iterators, parameters and constants")),
            Expr::Call { func, .. } => Err(NotAffine::new(format!("function call `{func}` in a {}", self.role))
                .note("only affine expressions of iterators and parameters are allowed here")),
            Expr::Float(_) => Err(NotAffine::new(format!("floating-point constant in a {}", self.role))),
            _ => Err(NotAffine::new(format!("non-affine {}", self.role))),
        }
    }

    fn variable(&self, name: &str) -> Result<Affine, NotAffine> {
        if self.iterators.iter().any(|i| i == name) {
            return Ok(Affine::var(name));
        }
        let Some(sym) = self.scope.get(name) else {
            return Err(NotAffine::new(format!(
                "`{name}` is not declared (or is not a variable)"
            )));
        };
        if !sym.extents.is_empty() {
            return Err(NotAffine::new(format!(
                "array `{name}` used as a value in a {}",
                self.role
            )));
        }
        if !sym.is_integer() {
            return Err(NotAffine::new(format!(
                "`{name}` has type `{}`; a {} must be an integer expression",
                sym.written_type, self.role
            )));
        }
        if self.written.contains(name) {
            return Err(NotAffine::new(format!(
                "{} uses `{name}`, which is written inside the SCoP",
                self.role
            ))
            .note("parameters must keep their value through the whole region"));
        }
        Ok(Affine::var(name))
    }

    fn binary(&self, e: &Expr, op: BinaryOp, lhs: &Expr, rhs: &Expr) -> Result<Affine, NotAffine> {
        let nonaffine = || NotAffine::new(format!("non-affine {}: `{e}`", self.role));
        match op {
            BinaryOp::Add => Ok(Affine::plus(self.expr(lhs)?, self.expr(rhs)?)),
            BinaryOp::Sub => Ok(Affine::minus(self.expr(lhs)?, self.expr(rhs)?)),
            BinaryOp::Mul => {
                let (a, b) = (self.expr(lhs)?, self.expr(rhs)?);
                match (a.constant(), b.constant()) {
                    (Some(k), _) => Ok(Affine::scale(k, b)),
                    (_, Some(k)) => Ok(Affine::scale(k, a)),
                    _ => Err(nonaffine().note("a product of two variables is not affine")),
                }
            }
            BinaryOp::Div | BinaryOp::Mod => {
                let a = self.expr(lhs)?;
                let d = self.expr(rhs)?.constant().ok_or_else(|| {
                    nonaffine().note("division and modulo are affine only by an integer constant")
                })?;
                if d == 0 {
                    return Err(NotAffine::new(format!(
                        "division by zero in a {}",
                        self.role
                    )));
                }
                Ok(if op == BinaryOp::Div {
                    Affine::c_div(a, d)
                } else {
                    Affine::c_mod(a, d)
                })
            }
            _ => Err(nonaffine()),
        }
    }

    /// An affine condition (loop conditions, `if`s, ternary conditions).
    pub fn cond(&self, e: &Expr) -> Result<AffineCond, NotAffine> {
        let cmp = |op, l: &Expr, r: &Expr| -> Result<AffineCond, NotAffine> {
            Ok(AffineCond::cmp(op, self.expr(l)?, self.expr(r)?))
        };
        match e {
            Expr::Binary { op, lhs, rhs } => match op {
                BinaryOp::Lt => cmp(CmpOp::Lt, lhs, rhs),
                BinaryOp::Le => cmp(CmpOp::Le, lhs, rhs),
                BinaryOp::Gt => cmp(CmpOp::Gt, lhs, rhs),
                BinaryOp::Ge => cmp(CmpOp::Ge, lhs, rhs),
                BinaryOp::Eq => cmp(CmpOp::Eq, lhs, rhs),
                BinaryOp::Ne => cmp(CmpOp::Ne, lhs, rhs),
                BinaryOp::And => Ok(AffineCond::and(self.cond(lhs)?, self.cond(rhs)?)),
                BinaryOp::Or => Ok(AffineCond::or(self.cond(lhs)?, self.cond(rhs)?)),
                _ => Ok(AffineCond::cmp(CmpOp::Ne, self.expr(e)?, Affine::Const(0))),
            },
            Expr::Unary {
                op: UnaryOp::Not,
                operand,
            } => Ok(AffineCond::negate(self.cond(operand)?)),
            // Any other integer expression `e` means `e != 0`.
            _ => Ok(AffineCond::cmp(CmpOp::Ne, self.expr(e)?, Affine::Const(0))),
        }
    }
}

fn char_value(c: &str) -> Option<i64> {
    let inner = c.strip_prefix('\'')?.strip_suffix('\'')?;
    let mut chars = inner.chars();
    let v = match (chars.next()?, chars.next()) {
        (ch, None) => ch as i64,
        ('\\', Some(e)) => match e {
            'n' => 10,
            't' => 9,
            '0' => 0,
            '\\' => 92,
            '\'' => 39,
            _ => return None,
        },
        _ => return None,
    };
    Some(v)
}
