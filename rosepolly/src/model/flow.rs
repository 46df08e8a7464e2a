//! The FlowGraph (thesis §5.3, Figure 5.4): the control-flow graph of one SCoP region.
//!
//! Nodes are `ForLoop` and `Conditional` nodes of kind *head* or *tail*, and `Statement`
//! nodes; edges say how control moves (`Body`, `Then`, `Else`, `Next`, and the loop's `Back`
//! edge from tail to head). Having both a head and a tail per construct lets a traversal move
//! through divergent paths in either direction. The graph is purely syntactic: it holds the
//! constructs as written (in the statement-expression IR); `compilation::flowgraph` builds it
//! from the parsed file, and the model-extraction policy decides whether they are affine.

use lang_c::span::Span;
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::EdgeRef;
use petgraph::Direction;

use crate::diag::Loc;
use crate::model::expr::Expr;

/// Index of a loop in [`FlowGraph::loops`].
pub type LoopId = usize;
/// Index of a conditional in [`FlowGraph::conditionals`].
pub type CondId = usize;
/// Index of a statement in [`FlowGraph::statements`].
pub type StmtId = usize;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowNode {
    Entry,
    Exit,
    LoopHead(LoopId),
    LoopTail(LoopId),
    CondHead(CondId),
    CondTail(CondId),
    Statement(StmtId),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowEdge {
    /// To the next construct at the same level.
    Next,
    /// Loop head to the first construct of its body (or to its tail if the body is empty).
    Body,
    /// Conditional head to the first construct of the `then` branch.
    Then,
    /// Conditional head to the first construct of the `else` branch.
    Else,
    /// Loop tail back to its head.
    Back,
}

/// A `for` loop as written.
#[derive(Debug, Clone)]
pub struct ForLoop {
    /// `i = 0` or `int i = 0` (declared in the header), as an assignment.
    pub init: Option<Expr>,
    /// Set when the header declares the iterator (`for (int i = ...)`).
    pub declared_type: Option<String>,
    pub cond: Option<Expr>,
    /// The step, with `i++` already written `i += 1`.
    pub step: Option<Expr>,
    pub loc: Loc,
    /// The header as written (after preprocessing).
    pub header: String,
    pub span: Span,
}

/// An `if` as written.
#[derive(Debug, Clone)]
pub struct Conditional {
    pub cond: Expr,
    pub has_else: bool,
    pub loc: Loc,
    pub text: String,
    pub span: Span,
}

/// An expression statement as written.
#[derive(Debug, Clone)]
pub struct StatementNode {
    pub expr: Expr,
    pub loc: Loc,
    pub text: String,
    pub span: Span,
}

/// See the module documentation.
#[derive(Debug, Clone)]
pub struct FlowGraph {
    pub graph: DiGraph<FlowNode, FlowEdge>,
    pub entry: NodeIndex,
    pub exit: NodeIndex,
    pub loops: Vec<ForLoop>,
    pub conditionals: Vec<Conditional>,
    pub statements: Vec<StatementNode>,
}

/// Callbacks of [`FlowGraph::walk`], in program order.
pub trait FlowVisitor {
    fn enter_loop(&mut self, _id: LoopId, _l: &ForLoop) {}
    fn exit_loop(&mut self, _id: LoopId, _l: &ForLoop) {}
    fn enter_then(&mut self, _id: CondId, _c: &Conditional) {}
    fn enter_else(&mut self, _id: CondId, _c: &Conditional) {}
    fn exit_conditional(&mut self, _id: CondId, _c: &Conditional) {}
    fn statement(&mut self, _id: StmtId, _s: &StatementNode) {}
}

impl FlowGraph {
    fn successor(&self, n: NodeIndex, kind: FlowEdge) -> Option<NodeIndex> {
        self.graph
            .edges_directed(n, Direction::Outgoing)
            .find(|e| *e.weight() == kind)
            .map(|e| e.target())
    }

    /// Visit every construct in program order.
    pub fn walk(&self, v: &mut impl FlowVisitor) {
        let first = self
            .successor(self.entry, FlowEdge::Next)
            .expect("entry has a successor");
        self.walk_chain(first, self.exit, v);
    }

    /// Walk from `n` along `Next` edges until reaching `stop`.
    fn walk_chain(&self, mut n: NodeIndex, stop: NodeIndex, v: &mut impl FlowVisitor) {
        while n != stop {
            n = match self.graph[n] {
                FlowNode::Statement(id) => {
                    v.statement(id, &self.statements[id]);
                    self.successor(n, FlowEdge::Next)
                        .expect("statement has a successor")
                }
                FlowNode::LoopHead(id) => {
                    let tail = self.tail_of(FlowNode::LoopTail(id));
                    v.enter_loop(id, &self.loops[id]);
                    let body = self
                        .successor(n, FlowEdge::Body)
                        .expect("loop has a body edge");
                    self.walk_chain(body, tail, v);
                    v.exit_loop(id, &self.loops[id]);
                    self.successor(tail, FlowEdge::Next)
                        .expect("loop tail has a successor")
                }
                FlowNode::CondHead(id) => {
                    let tail = self.tail_of(FlowNode::CondTail(id));
                    let c = &self.conditionals[id];
                    v.enter_then(id, c);
                    let then = self
                        .successor(n, FlowEdge::Then)
                        .expect("conditional has a then edge");
                    self.walk_chain(then, tail, v);
                    if let Some(e) = self.successor(n, FlowEdge::Else) {
                        v.enter_else(id, c);
                        self.walk_chain(e, tail, v);
                    }
                    v.exit_conditional(id, c);
                    self.successor(tail, FlowEdge::Next)
                        .expect("conditional tail has a successor")
                }
                other => unreachable!("walk reached {other:?}"),
            }
        }
    }

    fn tail_of(&self, tail: FlowNode) -> NodeIndex {
        self.graph
            .node_indices()
            .find(|&i| self.graph[i] == tail)
            .expect("every head has a tail")
    }

    /// Number of statements.
    pub fn n_statements(&self) -> usize {
        self.statements.len()
    }
}
