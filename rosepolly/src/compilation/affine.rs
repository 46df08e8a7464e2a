//! From statement-expression IR to quasi-affine trees, with the SCoP rules for what may
//! appear in a loop bound, a condition or a subscript.
//!
//! The trees keep C's meaning exactly: every operand gets its C type (the integer promotions,
//! the usual arithmetic conversions, the types of literals and casts), and wherever C's
//! arithmetic can change a value — an unsigned result that wraps, a negative value converted
//! to an unsigned type, a narrowing conversion — the tree holds an [`Affine::Wrap`] node. Model
//! extraction then decides each one with isl (the `wraps` module).

use std::cell::RefCell;
use std::collections::BTreeSet;

use super::symbols::Scope;
use crate::model::affine::{Affine, AffineCond, CmpOp};
use crate::model::ctype::{literal_type, CType, IntType};
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

/// The conversions created while reading a region: index = the [`Affine::Wrap`] id, value =
/// what the conversion is, for messages ("`i` converted to `unsigned int`").
#[derive(Debug, Default)]
pub struct WrapLog {
    notes: RefCell<Vec<String>>,
}

impl WrapLog {
    fn push(&self, what: String) -> usize {
        let mut n = self.notes.borrow_mut();
        n.push(what);
        n.len() - 1
    }

    /// How many conversions have been created so far.
    pub fn len(&self) -> usize {
        self.notes.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What conversion `id` is.
    pub fn what(&self, id: usize) -> String {
        self.notes.borrow().get(id).cloned().unwrap_or_default()
    }
}

/// An affine value and its C type.
#[derive(Debug, Clone, PartialEq)]
pub struct Typed {
    pub value: Affine,
    pub ty: IntType,
}

/// What an affine expression may refer to at one point of a SCoP.
pub struct AffineContext<'a> {
    /// Iterators of the enclosing loops.
    pub iterators: &'a [String],
    /// Their C types.
    pub iterator_types: &'a [IntType],
    pub scope: &'a Scope,
    /// Scalars written somewhere in the region (loop iterators included).
    pub written: &'a BTreeSet<String>,
    /// What the expression is, for messages: "loop bound", "subscript", "condition".
    pub role: &'a str,
    /// Where conversions that may change a value are recorded.
    pub wraps: &'a WrapLog,
}

impl AffineContext<'_> {
    /// The expression's value, with C's semantics.
    pub fn expr(&self, e: &Expr) -> Result<Affine, NotAffine> {
        self.typed(e).map(|t| t.value)
    }

    /// The value `e` gives a variable of type `to` it is assigned to.
    pub fn assigned(&self, e: &Expr, to: IntType) -> Result<Affine, NotAffine> {
        let v = self.typed(e)?;
        Ok(self.convert(v, to, e))
    }

    /// The expression's value and C type.
    pub fn typed(&self, e: &Expr) -> Result<Typed, NotAffine> {
        match e {
            Expr::Int { value, text } => Ok(Typed {
                value: Affine::Const(*value),
                ty: literal_type(text, *value as i128),
            }),
            Expr::Char(c) => char_value(c)
                .map(|v| int(Affine::Const(v)))
                .ok_or_else(|| NotAffine::new("unsupported character constant")),
            Expr::Var(name) => self.variable(name),
            Expr::Unary {
                op: UnaryOp::Neg,
                operand,
            } => {
                let a = self.promoted(operand)?;
                Ok(self.result(Affine::scale(-1, a.value), a.ty, || format!("-{operand}")))
            }
            Expr::Unary {
                op: UnaryOp::Plus,
                operand,
            } => self.promoted(operand),
            Expr::Unary {
                op: UnaryOp::Not, ..
            } => Ok(int(truth(self.cond(e)?))),
            Expr::Binary { op, lhs, rhs } => self.binary(e, *op, lhs, rhs),
            Expr::Ternary { cond, then, other } => {
                let (a, b) = (self.typed(then)?, self.typed(other)?);
                let ty = IntType::common(a.ty, b.ty);
                Ok(Typed {
                    value: Affine::select(
                        self.cond(cond)?,
                        self.convert(a, ty, then),
                        self.convert(b, ty, other),
                    ),
                    ty,
                })
            }
            Expr::Cast { ty, expr } => match self.scope.type_of_words(ty) {
                CType::Int(to) => {
                    let v = self.typed(expr)?;
                    Ok(Typed {
                        value: self.convert(v, to, expr),
                        ty: to,
                    })
                }
                _ => Err(NotAffine::new(format!(
                    "cast to `{ty}` in a {}: it must be an integer expression",
                    self.role
                ))),
            },
            Expr::Call { func, args } if args.len() == 2 && self.is_builtin(func) => {
                self.builtin(func, &args[0], &args[1])
            }
            Expr::Index { .. } => Err(NotAffine::new(format!("data-dependent {}: it reads an array", self.role))
                .note("a SCoP's loop bounds, conditions and subscripts may use only iterators, parameters and constants")),
            Expr::Call { func, .. } => Err(NotAffine::new(format!("function call `{func}` in a {}", self.role))
                .note(if self.scope.is_user_function(func) {
                    format!("`{func}` is a function of this program; only affine expressions of iterators and parameters are allowed here")
                } else {
                    "only affine expressions of iterators and parameters are allowed here".to_string()
                })),
            Expr::Float(_) => Err(NotAffine::new(format!("floating-point constant in a {}", self.role))),
            _ => Err(NotAffine::new(format!("non-affine {}: `{e}`", self.role))),
        }
    }

    /// `min`, `max`, `floord`, `ceild` written as calls (as code generated by other polyhedral
    /// tools has them) mean what their names say, unless the program has its own functions of
    /// these names.
    fn is_builtin(&self, func: &str) -> bool {
        matches!(func, "min" | "max" | "MIN" | "MAX" | "floord" | "ceild")
            && !self.scope.is_user_function(func)
    }

    fn builtin(&self, func: &str, x: &Expr, y: &Expr) -> Result<Typed, NotAffine> {
        let (a, b) = (self.typed(x)?, self.typed(y)?);
        let ty = IntType::common(a.ty, b.ty);
        let (a, b) = (self.convert(a, ty, x), self.convert(b, ty, y));
        let value = match func {
            "min" | "MIN" => Affine::min(a, b),
            "max" | "MAX" => Affine::max(a, b),
            _ => {
                let d = b.constant().filter(|d| *d > 0).ok_or_else(|| {
                    NotAffine::new(format!(
                        "non-affine {}: `{func}` by a non-constant",
                        self.role
                    ))
                })?;
                if func == "floord" {
                    Affine::floor_div(a, d)
                } else {
                    Affine::scale(-1, Affine::floor_div(Affine::scale(-1, a), d))
                }
            }
        };
        Ok(Typed { value, ty })
    }

    fn promoted(&self, e: &Expr) -> Result<Typed, NotAffine> {
        let t = self.typed(e)?;
        Ok(Typed {
            ty: t.ty.promote(),
            value: t.value,
        })
    }

    /// The value of an arithmetic result of type `ty`: unsigned arithmetic wraps (signed
    /// overflow is undefined, so a program that has a meaning never does it).
    fn result(&self, value: Affine, ty: IntType, what: impl Fn() -> String) -> Typed {
        let value = if ty.signed {
            value
        } else {
            self.wrap(value, ty, || format!("the `{ty}` result of `{}`", what()))
        };
        Typed { value, ty }
    }

    /// `v` converted to `to`.
    fn convert(&self, v: Typed, to: IntType, e: &Expr) -> Affine {
        if to.holds(v.ty) {
            return v.value;
        }
        self.wrap(v.value, to, || {
            format!("`{e}` (of type `{}`) converted to `{to}`", v.ty)
        })
    }

    /// A conversion of `value` to `ty` that may change it: folded for constants, an
    /// [`Affine::Wrap`] otherwise.
    fn wrap(&self, value: Affine, ty: IntType, what: impl Fn() -> String) -> Affine {
        if let Some(c) = value.constant() {
            let v = ty.convert(c as i128);
            if let Ok(v) = i64::try_from(v) {
                return Affine::Const(v);
            }
        }
        Affine::Wrap {
            id: self.wraps.push(what()),
            inner: Box::new(value.strip_wraps(ty.bits)),
            ty,
        }
    }

    fn variable(&self, name: &str) -> Result<Typed, NotAffine> {
        if let Some(k) = self.iterators.iter().position(|i| i == name) {
            return Ok(Typed {
                value: Affine::var(name),
                ty: self.iterator_types.get(k).copied().unwrap_or(IntType::LONG),
            });
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
        let Some(ty) = self.scope.int_type(name) else {
            return Err(NotAffine::new(format!(
                "`{name}` has type `{}`; a {} must be an integer expression",
                sym.written_type, self.role
            )));
        };
        if self.written.contains(name) {
            return Err(NotAffine::new(format!(
                "{} uses `{name}`, which is written inside the SCoP",
                self.role
            ))
            .note("parameters must keep their value through the whole region"));
        }
        Ok(Typed {
            value: Affine::var(name),
            ty,
        })
    }

    /// Both operands converted to their common type.
    fn operands(&self, lhs: &Expr, rhs: &Expr) -> Result<(Affine, Affine, IntType), NotAffine> {
        let (a, b) = (self.typed(lhs)?, self.typed(rhs)?);
        let ty = IntType::common(a.ty, b.ty);
        Ok((self.convert(a, ty, lhs), self.convert(b, ty, rhs), ty))
    }

    fn binary(&self, e: &Expr, op: BinaryOp, lhs: &Expr, rhs: &Expr) -> Result<Typed, NotAffine> {
        let nonaffine = || NotAffine::new(format!("non-affine {}: `{e}`", self.role));
        match op {
            BinaryOp::Add | BinaryOp::Sub => {
                let (a, b, ty) = self.operands(lhs, rhs)?;
                let v = if op == BinaryOp::Add {
                    Affine::plus(a, b)
                } else {
                    Affine::minus(a, b)
                };
                Ok(self.result(v, ty, || e.to_string()))
            }
            BinaryOp::Mul => {
                let (a, b, ty) = self.operands(lhs, rhs)?;
                let v = match (a.constant(), b.constant()) {
                    (Some(k), _) => Affine::scale(k, b),
                    (_, Some(k)) => Affine::scale(k, a),
                    _ => return Err(nonaffine().note("a product of two variables is not affine")),
                };
                Ok(self.result(v, ty, || e.to_string()))
            }
            BinaryOp::Div | BinaryOp::Mod => {
                let (a, b, ty) = self.operands(lhs, rhs)?;
                let d = b.constant().ok_or_else(|| {
                    nonaffine().note("division and modulo are affine only by an integer constant")
                })?;
                if d == 0 {
                    return Err(NotAffine::new(format!(
                        "division by zero in a {}",
                        self.role
                    )));
                }
                // Unsigned operands are never negative: C's division is the floor there.
                let value = match (ty.signed, op == BinaryOp::Div) {
                    (true, true) => Affine::c_div(a, d),
                    (true, false) => Affine::c_mod(a, d),
                    (false, true) => Affine::floor_div(a, d),
                    (false, false) => Affine::floor_mod(a, d),
                };
                Ok(Typed { value, ty })
            }
            BinaryOp::Lt
            | BinaryOp::Le
            | BinaryOp::Gt
            | BinaryOp::Ge
            | BinaryOp::Eq
            | BinaryOp::Ne
            | BinaryOp::And
            | BinaryOp::Or => Ok(int(truth(self.cond(e)?))),
            _ => Err(nonaffine()),
        }
    }

    /// An affine condition (loop conditions, `if`s, ternary conditions).
    pub fn cond(&self, e: &Expr) -> Result<AffineCond, NotAffine> {
        let cmp = |op, l: &Expr, r: &Expr| -> Result<AffineCond, NotAffine> {
            let (a, b, _) = self.operands(l, r)?;
            Ok(AffineCond::cmp(op, a, b))
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

fn int(value: Affine) -> Typed {
    Typed {
        value,
        ty: IntType::INT,
    }
}

/// A condition as C's `int` value 0 or 1.
fn truth(c: AffineCond) -> Affine {
    Affine::select(c, Affine::Const(1), Affine::Const(0))
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
