//! lang-c expressions → the statement-expression IR ([`crate::model::expr::Expr`]).
//!
//! Only syntax is checked here (no pointers, no comma operator, no side effects inside
//! expressions); whether an expression is affine, pure or data-dependent is the model
//! extraction policy's business.

use lang_c::ast::{self, BinaryOperator as B, Expression as E, UnaryOperator as U};
use lang_c::span::Node;

use super::source::SourceUnit;
use crate::diag::Diagnostic;
use crate::model::expr::{AssignOp, BinaryOp, Expr, UnaryOp};

/// Converts lang-c expressions, producing diagnostics that point into the source.
pub struct ExprConverter<'s> {
    pub src: &'s SourceUnit,
}

impl<'s> ExprConverter<'s> {
    pub fn new(src: &'s SourceUnit) -> Self {
        ExprConverter { src }
    }

    fn error(&self, node_span: lang_c::span::Span, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.src.span_loc(node_span), msg).with_snippet(self.src.snippet(node_span))
    }

    /// Convert an expression used as a statement or a `for` header part: `x++`, `--x` become
    /// `x += 1`, `x -= 1`.
    pub fn statement(&self, e: &Node<E>) -> Result<Expr, Diagnostic> {
        if let E::UnaryOperator(u) = &e.node {
            let op = match u.node.operator.node {
                U::PostIncrement | U::PreIncrement => Some(AssignOp::Add),
                U::PostDecrement | U::PreDecrement => Some(AssignOp::Sub),
                _ => None,
            };
            if let Some(op) = op {
                let lhs = self.expr(&u.node.operand)?;
                return Ok(Expr::Assign {
                    op,
                    lhs: Box::new(lhs),
                    rhs: Box::new(Expr::int(1)),
                });
            }
        }
        self.expr(e)
    }

    /// Convert a general expression.
    pub fn expr(&self, e: &Node<E>) -> Result<Expr, Diagnostic> {
        match &e.node {
            E::Identifier(id) => Ok(Expr::Var(id.node.name.clone())),
            E::Constant(c) => self.constant(c),
            E::UnaryOperator(u) => {
                let op = match u.node.operator.node {
                    U::Minus => UnaryOp::Neg,
                    U::Plus => UnaryOp::Plus,
                    U::Negate => UnaryOp::Not,
                    U::Complement => UnaryOp::BitNot,
                    U::Address => return Err(self.error(e.span, "taking an address (`&`) is not allowed in a SCoP")),
                    U::Indirection => {
                        return Err(self.error(e.span, "pointer dereference (`*`) is not allowed in a SCoP")
                            .with_note("pointer arithmetic cannot be modelled; use array subscripts"))
                    }
                    U::PostIncrement | U::PreIncrement | U::PostDecrement | U::PreDecrement => {
                        return Err(self.error(e.span, "increment or decrement inside an expression is not allowed in a SCoP")
                            .with_note("write it as a statement of its own"))
                    }
                };
                Ok(Expr::Unary {
                    op,
                    operand: Box::new(self.expr(&u.node.operand)?),
                })
            }
            E::BinaryOperator(b) => self.binary(e, b),
            E::Conditional(c) => Ok(Expr::Ternary {
                cond: Box::new(self.expr(&c.node.condition)?),
                then: Box::new(self.expr(&c.node.then_expression)?),
                other: Box::new(self.expr(&c.node.else_expression)?),
            }),
            E::Call(call) => {
                let func = match &call.node.callee.node {
                    E::Identifier(id) => id.node.name.clone(),
                    _ => {
                        return Err(self.error(
                            e.span,
                            "call through a function pointer is not allowed in a SCoP",
                        ))
                    }
                };
                let args = call
                    .node
                    .arguments
                    .iter()
                    .map(|a| self.expr(a))
                    .collect::<Result<_, _>>()?;
                Ok(Expr::Call { func, args })
            }
            E::Cast(c) => {
                let ty = self.type_name(&c.node.type_name).ok_or_else(|| {
                    self.error(e.span, "cast to a type other than a scalar arithmetic type is not allowed in a SCoP")
                })?;
                Ok(Expr::Cast {
                    ty,
                    expr: Box::new(self.expr(&c.node.expression)?),
                })
            }
            E::Comma(_) => Err(self.error(e.span, "the comma operator is not allowed in a SCoP")),
            E::Member(_) => {
                Err(self.error(e.span, "struct member access is not allowed in a SCoP"))
            }
            E::StringLiteral(_) => Err(self.error(e.span, "string literal in a SCoP")),
            E::SizeOfTy(_) | E::SizeOfVal(_) | E::AlignOf(_) => {
                Err(self.error(e.span, "`sizeof`/`_Alignof` is not allowed in a SCoP"))
            }
            E::CompoundLiteral(_) => Err(self.error(e.span, "compound literal in a SCoP")),
            E::Statement(_) => Err(self.error(e.span, "statement expression in a SCoP")),
            E::GenericSelection(_) | E::OffsetOf(_) | E::VaArg(_) => {
                Err(self.error(e.span, "unsupported expression in a SCoP"))
            }
        }
    }

    fn constant(&self, c: &Node<ast::Constant>) -> Result<Expr, Diagnostic> {
        let text = self.src.snippet(c.span).trim().to_string();
        match &c.node {
            ast::Constant::Integer(i) => {
                let digits: &str = &i.number;
                let radix = match i.base {
                    ast::IntegerBase::Decimal => 10,
                    ast::IntegerBase::Octal => 8,
                    ast::IntegerBase::Hexadecimal => 16,
                    ast::IntegerBase::Binary => 2,
                };
                let value = i64::from_str_radix(digits, radix)
                    .map_err(|_| self.error(c.span, "integer constant does not fit in 64 bits"))?;
                Ok(Expr::Int { value, text })
            }
            ast::Constant::Float(_) => Ok(Expr::Float(text)),
            ast::Constant::Character(ch) => Ok(Expr::Char(ch.clone())),
        }
    }

    fn binary(
        &self,
        e: &Node<E>,
        b: &Node<ast::BinaryOperatorExpression>,
    ) -> Result<Expr, Diagnostic> {
        let (lhs, rhs) = (&b.node.lhs, &b.node.rhs);
        let bin = |op| -> Result<Expr, Diagnostic> {
            Ok(Expr::Binary {
                op,
                lhs: Box::new(self.expr(lhs)?),
                rhs: Box::new(self.expr(rhs)?),
            })
        };
        let assign = |op| -> Result<Expr, Diagnostic> {
            Ok(Expr::Assign {
                op,
                lhs: Box::new(self.expr(lhs)?),
                rhs: Box::new(self.expr(rhs)?),
            })
        };
        match b.node.operator.node {
            B::Index => self.index(e),
            B::Multiply => bin(BinaryOp::Mul),
            B::Divide => bin(BinaryOp::Div),
            B::Modulo => bin(BinaryOp::Mod),
            B::Plus => bin(BinaryOp::Add),
            B::Minus => bin(BinaryOp::Sub),
            B::ShiftLeft => bin(BinaryOp::Shl),
            B::ShiftRight => bin(BinaryOp::Shr),
            B::Less => bin(BinaryOp::Lt),
            B::Greater => bin(BinaryOp::Gt),
            B::LessOrEqual => bin(BinaryOp::Le),
            B::GreaterOrEqual => bin(BinaryOp::Ge),
            B::Equals => bin(BinaryOp::Eq),
            B::NotEquals => bin(BinaryOp::Ne),
            B::BitwiseAnd => bin(BinaryOp::BitAnd),
            B::BitwiseXor => bin(BinaryOp::BitXor),
            B::BitwiseOr => bin(BinaryOp::BitOr),
            B::LogicalAnd => bin(BinaryOp::And),
            B::LogicalOr => bin(BinaryOp::Or),
            B::Assign => assign(AssignOp::Assign),
            B::AssignMultiply => assign(AssignOp::Mul),
            B::AssignDivide => assign(AssignOp::Div),
            B::AssignModulo => assign(AssignOp::Mod),
            B::AssignPlus => assign(AssignOp::Add),
            B::AssignMinus => assign(AssignOp::Sub),
            B::AssignShiftLeft => assign(AssignOp::Shl),
            B::AssignShiftRight => assign(AssignOp::Shr),
            B::AssignBitwiseAnd => assign(AssignOp::BitAnd),
            B::AssignBitwiseXor => assign(AssignOp::BitXor),
            B::AssignBitwiseOr => assign(AssignOp::BitOr),
        }
    }

    /// `A[i][j]` is `Index(Index(A, i), j)` in lang-c; flatten it.
    fn index(&self, e: &Node<E>) -> Result<Expr, Diagnostic> {
        let mut subscripts = Vec::new();
        let mut cur = e;
        loop {
            match &cur.node {
                E::BinaryOperator(b) if b.node.operator.node == B::Index => {
                    subscripts.push(self.expr(&b.node.rhs)?);
                    cur = &b.node.lhs;
                }
                E::Identifier(id) => {
                    subscripts.reverse();
                    return Ok(Expr::Index {
                        array: id.node.name.clone(),
                        subscripts,
                    });
                }
                _ => {
                    return Err(self
                        .error(e.span, "subscripted expression is not an array variable")
                        .with_note("pointer arithmetic cannot be modelled in a SCoP"))
                }
            }
        }
    }

    /// A cast's type when it is a plain arithmetic type (`int`, `double`, `unsigned long`...).
    fn type_name(&self, t: &Node<ast::TypeName>) -> Option<String> {
        if t.node.declarator.is_some() {
            return None;
        }
        let mut words = Vec::new();
        for s in &t.node.specifiers {
            match &s.node {
                ast::SpecifierQualifier::TypeSpecifier(ts) => {
                    words.push(type_specifier_word(&ts.node)?)
                }
                ast::SpecifierQualifier::TypeQualifier(_) => {}
                ast::SpecifierQualifier::Extension(_) => {}
            }
        }
        (!words.is_empty()).then(|| words.join(" "))
    }
}

/// The spelling of a basic type specifier; typedef names are returned as written.
pub fn type_specifier_word(ts: &ast::TypeSpecifier) -> Option<String> {
    Some(
        match ts {
            ast::TypeSpecifier::Void => "void",
            ast::TypeSpecifier::Char => "char",
            ast::TypeSpecifier::Short => "short",
            ast::TypeSpecifier::Int => "int",
            ast::TypeSpecifier::Long => "long",
            ast::TypeSpecifier::Float => "float",
            ast::TypeSpecifier::Double => "double",
            ast::TypeSpecifier::Signed => "signed",
            ast::TypeSpecifier::Unsigned => "unsigned",
            ast::TypeSpecifier::Bool => "_Bool",
            ast::TypeSpecifier::TypedefName(id) => return Some(id.node.name.clone()),
            _ => return None,
        }
        .to_string(),
    )
}
