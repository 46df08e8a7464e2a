//! Building the FlowGraph ([`crate::model::flow`]) of a SCoP region from the parsed file.
//! Constructs that can never be part of a SCoP (`while`, `goto`, declarations...) are reported
//! here; whether the rest is affine is the model-extraction policy's decision
//! ([`super::custom::RosePollyCustom`]).

use lang_c::ast::{self, BlockItem, Statement as S};
use lang_c::span::Node;
use petgraph::graph::{DiGraph, NodeIndex};

use super::cexpr::{type_specifier_word, ExprConverter};
use super::source::SourceUnit;
use crate::diag::{Diagnostic, Diagnostics};
use crate::model::expr::Expr;
use crate::model::flow::{Conditional, FlowEdge, FlowGraph, FlowNode, ForLoop, StatementNode};

impl FlowGraph {
    /// Build the graph of a sequence of block items (a SCoP region). Constructs that can never
    /// be part of a SCoP (`while`, `goto`, declarations...) are reported, all of them.
    pub fn build(src: &SourceUnit, items: &[&Node<BlockItem>]) -> Result<FlowGraph, Diagnostics> {
        let mut graph = DiGraph::new();
        let entry = graph.add_node(FlowNode::Entry);
        let exit = graph.add_node(FlowNode::Exit);
        let mut b = Builder {
            conv: ExprConverter::new(src),
            src,
            fg: FlowGraph {
                graph,
                entry,
                exit,
                loops: Vec::new(),
                conditionals: Vec::new(),
                statements: Vec::new(),
            },
            errors: Diagnostics::default(),
        };
        let last = b.items(items.iter().copied(), entry, FlowEdge::Next);
        b.fg.graph.add_edge(last.0, exit, last.1);
        if b.errors.is_empty() {
            Ok(b.fg)
        } else {
            Err(b.errors.normalize())
        }
    }
}

struct Builder<'s> {
    conv: ExprConverter<'s>,
    src: &'s SourceUnit,
    fg: FlowGraph,
    errors: Diagnostics,
}

impl Builder<'_> {
    fn node(&mut self, n: FlowNode) -> NodeIndex {
        self.fg.graph.add_node(n)
    }

    /// Chain `items` after `prev` (reached through `edge`); returns the last node and the edge
    /// kind the following construct must be linked with.
    fn items<'a>(
        &mut self,
        items: impl Iterator<Item = &'a Node<BlockItem>>,
        mut prev: NodeIndex,
        mut edge: FlowEdge,
    ) -> (NodeIndex, FlowEdge) {
        for item in items {
            match &item.node {
                BlockItem::Statement(s) => (prev, edge) = self.statement(s, prev, edge),
                BlockItem::Declaration(d) => self.errors.push(self.declaration_error(d)),
                BlockItem::StaticAssert(s) => self.errors.push(
                    Diagnostic::new(self.src.span_loc(s.span), "`_Static_assert` inside a SCoP")
                        .with_snippet(self.src.snippet(s.span)),
                ),
            }
        }
        (prev, edge)
    }

    fn declaration_error(&self, d: &Node<ast::Declaration>) -> Diagnostic {
        let names: Vec<String> = d
            .node
            .declarators
            .iter()
            .filter_map(|id| declarator_name(&id.node.declarator.node))
            .collect();
        Diagnostic::new(self.src.span_loc(d.span), "declaration inside a SCoP")
            .with_snippet(self.src.snippet(d.span))
            .with_note(format!(
                "declare `{}` before `#pragma scop`",
                names.join("`, `")
            ))
    }

    fn link(&mut self, from: NodeIndex, edge: FlowEdge, to: NodeIndex) {
        self.fg.graph.add_edge(from, to, edge);
    }

    fn statement(&mut self, s: &Node<S>, prev: NodeIndex, edge: FlowEdge) -> (NodeIndex, FlowEdge) {
        let unsupported = |what: &str| {
            Diagnostic::new(self.src.span_loc(s.span), format!("{what} inside a SCoP"))
                .with_snippet(first_line(self.src.snippet(s.span)))
        };
        match &s.node {
            S::Compound(items) => self.items(items.iter(), prev, edge),
            S::Expression(None) => (prev, edge),
            S::Expression(Some(e)) => match self.conv.statement(e) {
                Ok(expr) => {
                    let id = self.fg.statements.len();
                    self.fg.statements.push(StatementNode {
                        expr,
                        loc: self.src.span_loc(s.span),
                        text: self.src.snippet(s.span).trim().to_string(),
                        span: s.span,
                    });
                    let n = self.node(FlowNode::Statement(id));
                    self.link(prev, edge, n);
                    (n, FlowEdge::Next)
                }
                Err(d) => {
                    self.errors.push(d);
                    (prev, edge)
                }
            },
            S::For(f) => self.for_loop(s, f, prev, edge),
            S::If(i) => self.conditional(s, i, prev, edge),
            S::While(_) => {
                self.errors.push(
                    unsupported("`while` loop")
                        .with_note("only `for` loops with affine bounds form a SCoP"),
                );
                (prev, edge)
            }
            S::DoWhile(_) => {
                self.errors.push(
                    unsupported("`do`-`while` loop")
                        .with_note("only `for` loops with affine bounds form a SCoP"),
                );
                (prev, edge)
            }
            S::Goto(_) => {
                self.errors.push(unsupported("`goto`"));
                (prev, edge)
            }
            S::Labeled(_) => {
                self.errors.push(unsupported("labelled statement"));
                (prev, edge)
            }
            S::Switch(_) => {
                self.errors.push(unsupported("`switch`"));
                (prev, edge)
            }
            S::Continue => {
                self.errors.push(unsupported("`continue`"));
                (prev, edge)
            }
            S::Break => {
                self.errors.push(unsupported("`break`"));
                (prev, edge)
            }
            S::Return(_) => {
                self.errors.push(unsupported("`return`"));
                (prev, edge)
            }
            S::Asm(_) => {
                self.errors.push(unsupported("inline assembly"));
                (prev, edge)
            }
        }
    }

    fn for_loop(
        &mut self,
        s: &Node<S>,
        f: &Node<ast::ForStatement>,
        prev: NodeIndex,
        edge: FlowEdge,
    ) -> (NodeIndex, FlowEdge) {
        let (init, declared_type) = match &f.node.initializer.node {
            ast::ForInitializer::Empty => (Ok(None), None),
            ast::ForInitializer::Expression(e) => (self.conv.statement(e).map(Some), None),
            ast::ForInitializer::Declaration(d) => self.loop_declaration(d),
            ast::ForInitializer::StaticAssert(sa) => (
                Err(Diagnostic::new(
                    self.src.span_loc(sa.span),
                    "`_Static_assert` in a loop header",
                )),
                None,
            ),
        };
        let cond = f
            .node
            .condition
            .as_ref()
            .map(|c| self.conv.expr(c))
            .transpose();
        let step = f
            .node
            .step
            .as_ref()
            .map(|c| self.conv.statement(c))
            .transpose();
        let header_end = f.node.statement.span.start;
        let header = self.src.text[s.span.start..header_end].trim().to_string();
        let (init, cond, step) = match (init, cond, step) {
            (Ok(i), Ok(c), Ok(st)) => (i, c, st),
            (i, c, st) => {
                for e in [i.err(), c.err(), st.err()].into_iter().flatten() {
                    self.errors.push(e);
                }
                (None, None, None)
            }
        };
        let id = self.fg.loops.len();
        self.fg.loops.push(ForLoop {
            init,
            declared_type,
            cond,
            step,
            loc: self.src.span_loc(s.span),
            header: header.trim_end_matches('{').trim().to_string(),
            span: s.span,
        });
        let head = self.node(FlowNode::LoopHead(id));
        let tail = self.node(FlowNode::LoopTail(id));
        self.link(prev, edge, head);
        let (last, last_edge) = self.statement(&f.node.statement, head, FlowEdge::Body);
        self.link(last, last_edge, tail);
        self.link(tail, FlowEdge::Back, head);
        (tail, FlowEdge::Next)
    }

    /// `for (int i = 0; ...)`: the iterator's type and its initial assignment.
    fn loop_declaration(
        &self,
        d: &Node<ast::Declaration>,
    ) -> (Result<Option<Expr>, Diagnostic>, Option<String>) {
        let ty: Vec<String> = d
            .node
            .specifiers
            .iter()
            .filter_map(|s| match &s.node {
                ast::DeclarationSpecifier::TypeSpecifier(ts) => type_specifier_word(&ts.node),
                _ => None,
            })
            .collect();
        let err = || {
            Diagnostic::new(
                self.src.span_loc(d.span),
                "loop header must declare exactly one initialised iterator",
            )
            .with_snippet(self.src.snippet(d.span))
        };
        let [decl] = d.node.declarators.as_slice() else {
            return (Err(err()), None);
        };
        let (Some(name), Some(init)) = (
            declarator_name(&decl.node.declarator.node),
            &decl.node.initializer,
        ) else {
            return (Err(err()), None);
        };
        if !decl.node.declarator.node.derived.is_empty() {
            return (Err(err()), None);
        }
        let value = match &init.node {
            ast::Initializer::Expression(e) => self.conv.expr(e),
            ast::Initializer::List(_) => Err(err()),
        };
        let assign = value.map(|v| {
            Some(Expr::Assign {
                op: crate::model::expr::AssignOp::Assign,
                lhs: Box::new(Expr::Var(name)),
                rhs: Box::new(v),
            })
        });
        (assign, Some(ty.join(" ")))
    }

    fn conditional(
        &mut self,
        s: &Node<S>,
        i: &Node<ast::IfStatement>,
        prev: NodeIndex,
        edge: FlowEdge,
    ) -> (NodeIndex, FlowEdge) {
        let cond = match self.conv.expr(&i.node.condition) {
            Ok(c) => c,
            Err(d) => {
                self.errors.push(d);
                Expr::int(1)
            }
        };
        let id = self.fg.conditionals.len();
        let text_end = i.node.then_statement.span.start;
        self.fg.conditionals.push(Conditional {
            cond,
            has_else: i.node.else_statement.is_some(),
            loc: self.src.span_loc(s.span),
            text: self.src.text[s.span.start..text_end].trim().to_string(),
            span: s.span,
        });
        let head = self.node(FlowNode::CondHead(id));
        let tail = self.node(FlowNode::CondTail(id));
        self.link(prev, edge, head);
        let (last, e) = self.statement(&i.node.then_statement, head, FlowEdge::Then);
        self.link(last, e, tail);
        if let Some(els) = &i.node.else_statement {
            let (last, e) = self.statement(els, head, FlowEdge::Else);
            self.link(last, e, tail);
        }
        (tail, FlowEdge::Next)
    }
}

/// The identifier a declarator declares.
pub fn declarator_name(d: &ast::Declarator) -> Option<String> {
    match &d.kind.node {
        ast::DeclaratorKind::Identifier(id) => Some(id.node.name.clone()),
        ast::DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
        ast::DeclaratorKind::Abstract => None,
    }
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").trim().to_string()
}
