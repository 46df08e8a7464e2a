//! The statement-expression IR: what a SCoP statement computes, independent of lang-c.
//!
//! A statement's body is kept as this small tree so that later stages can print it again with
//! its iterators replaced by expressions of new loop counters (and its arrays by buffers). The
//! printer here prints C syntax, which is also valid OpenCL C and CUDA for these expressions.

use std::fmt;

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum UnaryOp {
    Neg,
    Plus,
    Not,
    BitNot,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum BinaryOp {
    Mul,
    Div,
    Mod,
    Add,
    Sub,
    Shl,
    Shr,
    Lt,
    Gt,
    Le,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum AssignOp {
    Assign,
    Mul,
    Div,
    Mod,
    Add,
    Sub,
    Shl,
    Shr,
    BitAnd,
    BitXor,
    BitOr,
}

/// An expression of a statement body.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Expr {
    /// An integer literal; `text` is its spelling (suffixes kept).
    Int {
        value: i64,
        text: String,
    },
    /// A floating literal exactly as written (`1.5`, `2.0f`, `1e-3`).
    Float(String),
    /// A character literal as written (`'a'`).
    Char(String),
    /// A scalar, a parameter or a loop iterator, by name.
    Var(String),
    /// `array[s0][s1]...`.
    Index {
        array: String,
        subscripts: Vec<Expr>,
    },
    /// A call of a pure function (math library).
    Call {
        func: String,
        args: Vec<Expr>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Ternary {
        cond: Box<Expr>,
        then: Box<Expr>,
        other: Box<Expr>,
    },
    /// `(type) expr`.
    Cast {
        ty: String,
        expr: Box<Expr>,
    },
    /// `lhs op= rhs` (the statement itself, usually).
    Assign {
        op: AssignOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
}

impl Expr {
    pub fn int(v: i64) -> Expr {
        Expr::Int {
            value: v,
            text: v.to_string(),
        }
    }

    pub fn var(name: impl Into<String>) -> Expr {
        Expr::Var(name.into())
    }

    /// `lhs op rhs`.
    pub fn binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        }
    }

    /// `func(args...)`.
    pub fn call(func: impl Into<String>, args: Vec<Expr>) -> Expr {
        Expr::Call {
            func: func.into(),
            args,
        }
    }

    /// `(ty)expr`.
    pub fn cast(ty: impl Into<String>, expr: Expr) -> Expr {
        Expr::Cast {
            ty: ty.into(),
            expr: Box::new(expr),
        }
    }

    /// `op operand`.
    pub fn unary(op: UnaryOp, operand: Expr) -> Expr {
        Expr::Unary {
            op,
            operand: Box::new(operand),
        }
    }

    /// The sum of `terms` (0 when there are none), left to right.
    pub fn sum(terms: impl IntoIterator<Item = Expr>) -> Expr {
        terms
            .into_iter()
            .reduce(|a, b| Expr::binary(BinaryOp::Add, a, b))
            .unwrap_or_else(|| Expr::int(0))
    }

    /// `a && b && ...` (`1` when there is nothing to test).
    pub fn all(conds: impl IntoIterator<Item = Expr>) -> Expr {
        conds
            .into_iter()
            .reduce(|a, b| Expr::binary(BinaryOp::And, a, b))
            .unwrap_or_else(|| Expr::int(1))
    }

    /// Visit every node, parents first.
    pub fn walk<'a>(&'a self, f: &mut impl FnMut(&'a Expr)) {
        f(self);
        match self {
            Expr::Int { .. } | Expr::Float(_) | Expr::Char(_) | Expr::Var(_) => {}
            Expr::Index { subscripts, .. } => subscripts.iter().for_each(|s| s.walk(f)),
            Expr::Call { args, .. } => args.iter().for_each(|a| a.walk(f)),
            Expr::Unary { operand, .. } => operand.walk(f),
            Expr::Binary { lhs, rhs, .. } | Expr::Assign { lhs, rhs, .. } => {
                lhs.walk(f);
                rhs.walk(f);
            }
            Expr::Ternary { cond, then, other } => {
                cond.walk(f);
                then.walk(f);
                other.walk(f);
            }
            Expr::Cast { expr, .. } => expr.walk(f),
        }
    }

    /// Rebuild the tree bottom-up, letting `f` replace any node (after its children).
    pub fn map(&self, f: &mut impl FnMut(Expr) -> Expr) -> Expr {
        let e = match self {
            Expr::Int { .. } | Expr::Float(_) | Expr::Char(_) | Expr::Var(_) => self.clone(),
            Expr::Index { array, subscripts } => Expr::Index {
                array: array.clone(),
                subscripts: subscripts.iter().map(|s| s.map(f)).collect(),
            },
            Expr::Call { func, args } => Expr::Call {
                func: func.clone(),
                args: args.iter().map(|a| a.map(f)).collect(),
            },
            Expr::Unary { op, operand } => Expr::Unary {
                op: *op,
                operand: Box::new(operand.map(f)),
            },
            Expr::Binary { op, lhs, rhs } => Expr::Binary {
                op: *op,
                lhs: Box::new(lhs.map(f)),
                rhs: Box::new(rhs.map(f)),
            },
            Expr::Assign { op, lhs, rhs } => Expr::Assign {
                op: *op,
                lhs: Box::new(lhs.map(f)),
                rhs: Box::new(rhs.map(f)),
            },
            Expr::Ternary { cond, then, other } => Expr::Ternary {
                cond: Box::new(cond.map(f)),
                then: Box::new(then.map(f)),
                other: Box::new(other.map(f)),
            },
            Expr::Cast { ty, expr } => Expr::Cast {
                ty: ty.clone(),
                expr: Box::new(expr.map(f)),
            },
        };
        f(e)
    }

    /// Replace variables by expressions (iterators by new-loop expressions, say).
    pub fn substitute(&self, lookup: &impl Fn(&str) -> Option<Expr>) -> Expr {
        self.map(&mut |e| match &e {
            Expr::Var(name) => lookup(name).unwrap_or(e),
            _ => e,
        })
    }

    fn precedence(&self) -> u8 {
        match self {
            Expr::Assign { .. } => 1,
            Expr::Ternary { .. } => 2,
            Expr::Binary { op, .. } => match op {
                BinaryOp::Or => 3,
                BinaryOp::And => 4,
                BinaryOp::BitOr => 5,
                BinaryOp::BitXor => 6,
                BinaryOp::BitAnd => 7,
                BinaryOp::Eq | BinaryOp::Ne => 8,
                BinaryOp::Lt | BinaryOp::Gt | BinaryOp::Le | BinaryOp::Ge => 9,
                BinaryOp::Shl | BinaryOp::Shr => 10,
                BinaryOp::Add | BinaryOp::Sub => 11,
                BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => 12,
            },
            Expr::Unary { .. } | Expr::Cast { .. } => 13,
            Expr::Int { value, .. } if *value < 0 => 13,
            _ => 15,
        }
    }
}

impl UnaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Plus => "+",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
        }
    }
}

impl BinaryOp {
    /// Whether the operator yields a truth value, 0 or 1, as an `int` (comparisons and the
    /// logical connectives).
    pub fn is_truth(self) -> bool {
        matches!(
            self,
            BinaryOp::Lt
                | BinaryOp::Gt
                | BinaryOp::Le
                | BinaryOp::Ge
                | BinaryOp::Eq
                | BinaryOp::Ne
                | BinaryOp::And
                | BinaryOp::Or
        )
    }

    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Mod => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Lt => "<",
            BinaryOp::Gt => ">",
            BinaryOp::Le => "<=",
            BinaryOp::Ge => ">=",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::BitAnd => "&",
            BinaryOp::BitXor => "^",
            BinaryOp::BitOr => "|",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
        }
    }
}

impl AssignOp {
    pub fn symbol(self) -> &'static str {
        match self {
            AssignOp::Assign => "=",
            AssignOp::Mul => "*=",
            AssignOp::Div => "/=",
            AssignOp::Mod => "%=",
            AssignOp::Add => "+=",
            AssignOp::Sub => "-=",
            AssignOp::Shl => "<<=",
            AssignOp::Shr => ">>=",
            AssignOp::BitAnd => "&=",
            AssignOp::BitXor => "^=",
            AssignOp::BitOr => "|=",
        }
    }

    /// The binary operator a compound assignment applies (`+=` → `+`).
    pub fn binary(self) -> Option<BinaryOp> {
        Some(match self {
            AssignOp::Assign => return None,
            AssignOp::Mul => BinaryOp::Mul,
            AssignOp::Div => BinaryOp::Div,
            AssignOp::Mod => BinaryOp::Mod,
            AssignOp::Add => BinaryOp::Add,
            AssignOp::Sub => BinaryOp::Sub,
            AssignOp::Shl => BinaryOp::Shl,
            AssignOp::Shr => BinaryOp::Shr,
            AssignOp::BitAnd => BinaryOp::BitAnd,
            AssignOp::BitXor => BinaryOp::BitXor,
            AssignOp::BitOr => BinaryOp::BitOr,
        })
    }
}

/// Whether `operand` of `op` gets parentheses that precedence alone does not need, where gcc's
/// `-Wparentheses` asks for them: `&&` inside `||`, another operator inside a bitwise one, `+`
/// or `-` inside a shift, a comparison inside a comparison.
fn unclear(op: BinaryOp, operand: &Expr) -> bool {
    use BinaryOp::*;
    let Expr::Binary { op: inner, .. } = operand else {
        return false;
    };
    let comparison = |o: BinaryOp| matches!(o, Lt | Gt | Le | Ge | Eq | Ne);
    match op {
        Or => *inner == And,
        BitAnd | BitOr | BitXor => *inner != op,
        Shl | Shr => matches!(inner, Add | Sub),
        o if comparison(o) => comparison(*inner),
        _ => false,
    }
}

/// Print `e`, parenthesised if its precedence is below `min`.
fn write_prec(f: &mut fmt::Formatter<'_>, e: &Expr, min: u8) -> fmt::Result {
    if e.precedence() < min {
        write!(f, "({e})")
    } else {
        write!(f, "{e}")
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int { text, .. } => f.write_str(text),
            Expr::Float(t) | Expr::Char(t) | Expr::Var(t) => f.write_str(t),
            Expr::Index { array, subscripts } => {
                f.write_str(array)?;
                for s in subscripts {
                    write!(f, "[{s}]")?;
                }
                Ok(())
            }
            Expr::Call { func, args } => {
                write!(f, "{func}(")?;
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write_prec(f, a, 2)?;
                }
                f.write_str(")")
            }
            Expr::Unary { op, operand } => {
                f.write_str(op.symbol())?;
                // `- -x` must not print as `--x`.
                let nested_sign = matches!(
                    **operand,
                    Expr::Unary {
                        op: UnaryOp::Neg | UnaryOp::Plus,
                        ..
                    }
                ) || matches!(&**operand, Expr::Int { value, .. } if *value < 0);
                if nested_sign {
                    write!(f, "({operand})")
                } else {
                    write_prec(f, operand, 13)
                }
            }
            Expr::Binary { op, lhs, rhs } => {
                let p = self.precedence();
                let min = |e: &Expr, min: u8| if unclear(*op, e) { u8::MAX } else { min };
                write_prec(f, lhs, min(lhs, p))?;
                write!(f, " {} ", op.symbol())?;
                // Left-associative: the right operand needs parentheses at equal precedence.
                write_prec(f, rhs, min(rhs, p + 1))
            }
            Expr::Ternary { cond, then, other } => {
                write_prec(f, cond, 3)?;
                f.write_str(" ? ")?;
                write_prec(f, then, 2)?;
                f.write_str(" : ")?;
                write_prec(f, other, 2)
            }
            Expr::Cast { ty, expr } => {
                write!(f, "({ty})")?;
                write_prec(f, expr, 13)
            }
            Expr::Assign { op, lhs, rhs } => {
                write_prec(f, lhs, 13)?;
                write!(f, " {} ", op.symbol())?;
                write_prec(f, rhs, 1)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(op: BinaryOp, l: Expr, r: Expr) -> Expr {
        Expr::Binary {
            op,
            lhs: Box::new(l),
            rhs: Box::new(r),
        }
    }

    #[test]
    fn prints_minimal_parentheses() {
        let a = Expr::var("a");
        let e = b(
            BinaryOp::Mul,
            b(BinaryOp::Add, a.clone(), Expr::int(1)),
            Expr::var("b"),
        );
        assert_eq!(e.to_string(), "(a + 1) * b");
        let e = b(
            BinaryOp::Sub,
            a.clone(),
            b(BinaryOp::Sub, Expr::var("b"), Expr::var("c")),
        );
        assert_eq!(e.to_string(), "a - (b - c)");
        let e = Expr::Unary {
            op: UnaryOp::Neg,
            operand: Box::new(Expr::Unary {
                op: UnaryOp::Neg,
                operand: Box::new(a),
            }),
        };
        assert_eq!(e.to_string(), "-(-a)");
    }

    #[test]
    fn parenthesises_where_gcc_asks() {
        let v = Expr::var;
        let and = b(BinaryOp::And, v("a"), v("b"));
        let e = b(BinaryOp::Or, and.clone(), v("c"));
        assert_eq!(e.to_string(), "(a && b) || c");
        let e = b(BinaryOp::BitOr, b(BinaryOp::Add, v("a"), v("b")), v("c"));
        assert_eq!(e.to_string(), "(a + b) | c");
        let e = b(
            BinaryOp::BitAnd,
            b(BinaryOp::BitAnd, v("a"), v("b")),
            v("c"),
        );
        assert_eq!(e.to_string(), "a & b & c");
        let e = b(BinaryOp::Shl, v("a"), b(BinaryOp::Sub, v("b"), v("c")));
        assert_eq!(e.to_string(), "a << (b - c)");
        let e = b(BinaryOp::Eq, b(BinaryOp::Lt, v("a"), v("b")), v("c"));
        assert_eq!(e.to_string(), "(a < b) == c");
        let e = b(BinaryOp::And, and, v("c"));
        assert_eq!(e.to_string(), "a && b && c");
    }

    #[test]
    fn substitutes_variables() {
        let e = Expr::Index {
            array: "A".into(),
            subscripts: vec![Expr::var("i"), Expr::var("j")],
        };
        let s =
            e.substitute(&|n| (n == "i").then(|| b(BinaryOp::Add, Expr::var("c0"), Expr::int(1))));
        assert_eq!(s.to_string(), "A[c0 + 1][j]");
    }
}
