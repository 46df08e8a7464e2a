//! Arrays of a SCoP that may overlap, as far as the file shows: calls of the SCoP's function
//! that pass pointers into the same object for two of its array parameters (`k(n, x, x + 1)`).
//! A SCoP's arrays must not overlap (docs/scop-rules.md); generated code checks it when it runs,
//! and these warnings say where the file itself breaks the rule.

use lang_c::ast::{self, BinaryOperator, Expression, UnaryOperator};
use lang_c::span::{Node, Span};
use lang_c::visit::{self, Visit};

use super::flowgraph::declarator_name;
use super::source::SourceUnit;
use super::symbols::{function_name, function_parameters};
use crate::diag::Diagnostic;
use crate::model::Scop;
use crate::model::Storage;

/// A warning per call of the SCoP's function that passes overlapping arrays.
pub fn overlapping_calls(src: &SourceUnit, scop: &Scop) -> Vec<Diagnostic> {
    let Some(params) = parameter_names(src, &scop.function) else {
        return Vec::new();
    };
    // Positions of the parameters that are arrays of the SCoP.
    let arrays: Vec<(usize, bool)> = params
        .iter()
        .enumerate()
        .filter_map(|(k, p)| {
            let d = scop.symbols.get(p.as_deref()?)?;
            (d.storage == Storage::Parameter && !d.is_scalar()).then_some((k, d.written))
        })
        .collect();
    let mut calls = Calls {
        function: &scop.function,
        found: Vec::new(),
    };
    calls.visit_translation_unit(&src.unit);
    let mut out = Vec::new();
    for (args, span) in calls.found {
        for (i, &(a, wa)) in arrays.iter().enumerate() {
            for &(b, wb) in &arrays[i + 1..] {
                let (Some(x), Some(y)) = (args.get(a), args.get(b)) else {
                    continue;
                };
                if (wa || wb) && base(&x.node).is_some() && base(&x.node) == base(&y.node) {
                    out.push(
                        Diagnostic::new(
                            src.span_loc(span),
                            format!(
                                "`{}` gets `{}` and `{}`, which may overlap; the arrays of its SCoP must not",
                                scop.function,
                                src.snippet(x.span).trim(),
                                src.snippet(y.span).trim()
                            ),
                        )
                        .with_note("the generated code checks this when it runs, and runs the original code where arrays overlap"),
                    );
                }
            }
        }
    }
    out
}

/// The names of a function's parameters, from its definition.
fn parameter_names(src: &SourceUnit, function: &str) -> Option<Vec<Option<String>>> {
    src.unit.0.iter().find_map(|e| match &e.node {
        ast::ExternalDeclaration::FunctionDefinition(f) if function_name(&f.node) == function => {
            Some(
                function_parameters(&f.node.declarator.node)
                    .iter()
                    .map(|p| {
                        p.node
                            .declarator
                            .as_ref()
                            .and_then(|d| declarator_name(&d.node))
                    })
                    .collect(),
            )
        }
        _ => None,
    })
}

/// The variable a pointer argument points into: `x`, `x + 1`, `&x[2]`, `x[1]` (a row),
/// `(double *)x`.
fn base(e: &Expression) -> Option<&str> {
    match e {
        Expression::Identifier(id) => Some(&id.node.name),
        Expression::Cast(c) => base(&c.node.expression.node),
        Expression::BinaryOperator(b) => match b.node.operator.node {
            BinaryOperator::Plus | BinaryOperator::Minus => {
                base(&b.node.lhs.node).or_else(|| base(&b.node.rhs.node))
            }
            BinaryOperator::Index => base(&b.node.lhs.node),
            _ => None,
        },
        Expression::UnaryOperator(u) if u.node.operator.node == UnaryOperator::Address => {
            base(&u.node.operand.node)
        }
        _ => None,
    }
}

struct Calls<'a, 'ast> {
    function: &'a str,
    found: Vec<(&'ast [Node<Expression>], Span)>,
}

impl<'ast> Visit<'ast> for Calls<'_, 'ast> {
    fn visit_call_expression(&mut self, call: &'ast ast::CallExpression, span: &'ast Span) {
        if let Expression::Identifier(id) = &call.callee.node {
            if id.node.name == self.function {
                self.found.push((&call.arguments, *span));
            }
        }
        visit::visit_call_expression(self, call, span);
    }
}
