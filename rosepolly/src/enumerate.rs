//! The instance-level enumerator: run a SCoP's control flow at concrete parameter values,
//! statement instance by statement instance, in the original order, and record every memory
//! access.
//!
//! It shares nothing with the polyhedral machinery but the model's loop bounds, conditions and
//! subscripts (evaluated directly, with C's semantics), so it is an independent check of that
//! machinery: dependences here ([`brute_force_dependences`]), schedules and tilings in the
//! crates that produce them.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::model::flow::{FlowEdge, FlowNode};
use crate::model::{AccessKind, DepKind, Scop};
use petgraph::graph::NodeIndex;
use petgraph::visit::EdgeRef;

/// One execution of a statement.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Instance {
    /// Index into [`Scop::statements`].
    pub stmt: usize,
    /// Values of the statement's iterators, outermost first.
    pub iters: Vec<i64>,
}

/// One memory access of an instance.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Access {
    pub datum: String,
    /// The element (empty for scalars).
    pub cell: Vec<i64>,
    pub kind: AccessKind,
}

/// Why enumeration stopped.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnumError {
    #[error("parameter `{0}` has no value")]
    Unbound(String),
    #[error("more than {0} statement instances; use smaller parameter values")]
    TooMany(usize),
}

/// Visit every statement instance in original order, with its accesses (reads of an instance
/// come before its writes, as in C's evaluation of an assignment).
pub fn run(
    scop: &Scop,
    params: &[(String, i64)],
    limit: usize,
    visit: &mut dyn FnMut(&Instance, &[Access]),
) -> Result<usize, EnumError> {
    // The user's statement of each line, and the copy-out statements (array expansion) that
    // share its line and run right after it, at the instances their domains hold.
    let complete = scop.complete_params(params);
    let isl_params: Vec<(String, i64)> = complete
        .iter()
        .map(|(n, v)| (scop.names.get(n), *v))
        .collect();
    // The pieces of a split statement (crate::compilation::split) share its line and its place
    // in the text; each runs at the instances its domain holds.
    let mut by_flow: HashMap<usize, usize> = HashMap::new();
    let mut copies: HashMap<usize, Vec<CopyStatement>> = HashMap::new();
    let mut pieces: HashMap<usize, Vec<CopyStatement>> = HashMap::new();
    let points = |s: &crate::model::Statement| -> BTreeSet<Vec<i64>> {
        s.domain
            .instantiate(&isl_params)
            .points()
            .into_iter()
            .collect()
    };
    for s in &scop.statements {
        let Some(&first) = by_flow.get(&s.flow_id) else {
            by_flow.insert(s.flow_id, s.id);
            continue;
        };
        if scop.statements[first].beta != s.beta {
            copies.entry(s.flow_id).or_default().push((s.id, points(s)));
            continue;
        }
        let entry = pieces.entry(s.flow_id).or_default();
        if entry.is_empty() {
            entry.push((first, points(&scop.statements[first])));
        }
        entry.push((s.id, points(s)));
    }
    let mut ex = Executor {
        scop,
        env: complete.into_iter().collect(),
        by_flow,
        copies,
        pieces,
        count: 0,
        limit,
        visit,
    };
    let fg = &scop.flow;
    let first = successor(scop, fg.entry, FlowEdge::Next).expect("entry has a successor");
    ex.chain(first, fg.exit)?;
    Ok(ex.count)
}

/// All statement instances in original order.
pub fn instances(
    scop: &Scop,
    params: &[(String, i64)],
    limit: usize,
) -> Result<Vec<Instance>, EnumError> {
    let mut out = Vec::new();
    run(scop, params, limit, &mut |i, _| out.push(i.clone()))?;
    Ok(out)
}

fn successor(scop: &Scop, n: NodeIndex, kind: FlowEdge) -> Option<NodeIndex> {
    scop.flow
        .graph
        .edges(n)
        .find(|e| *e.weight() == kind)
        .map(|e| e.target())
}

/// A copy-out statement and the iterator values of its instances.
type CopyStatement = (usize, BTreeSet<Vec<i64>>);

struct Executor<'a, 'c> {
    scop: &'a Scop<'c>,
    env: HashMap<String, i64>,
    by_flow: HashMap<usize, usize>,
    /// Per line, its copy-out statements.
    copies: HashMap<usize, Vec<CopyStatement>>,
    /// Per line of a split statement, its pieces.
    pieces: HashMap<usize, Vec<CopyStatement>>,
    count: usize,
    limit: usize,
    visit: &'a mut dyn FnMut(&Instance, &[Access]),
}

fn lookup(env: &HashMap<String, i64>) -> impl Fn(&str) -> Option<i64> + '_ {
    |v| env.get(v).copied()
}

impl Executor<'_, '_> {
    fn chain(&mut self, mut n: NodeIndex, stop: NodeIndex) -> Result<(), EnumError> {
        let fg = &self.scop.flow;
        while n != stop {
            n = match fg.graph[n] {
                FlowNode::Statement(id) => {
                    self.statement(id)?;
                    successor(self.scop, n, FlowEdge::Next).expect("statement successor")
                }
                FlowNode::LoopHead(id) => {
                    let tail = fg
                        .graph
                        .node_indices()
                        .find(|&i| fg.graph[i] == FlowNode::LoopTail(id))
                        .expect("tail");
                    let body = successor(self.scop, n, FlowEdge::Body).expect("loop body");
                    let lp = &self.scop.loops[id];
                    let saved = self.env.get(&lp.iterator).copied();
                    let mut it = lp
                        .init
                        .eval(&lookup(&self.env))
                        .map_err(|u| EnumError::Unbound(u.0))?;
                    loop {
                        self.env.insert(lp.iterator.clone(), it);
                        if !lp
                            .cond
                            .eval(&lookup(&self.env))
                            .map_err(|u| EnumError::Unbound(u.0))?
                        {
                            break;
                        }
                        self.chain(body, tail)?;
                        it += lp.stride;
                    }
                    match saved {
                        Some(v) => self.env.insert(lp.iterator.clone(), v),
                        None => self.env.remove(&lp.iterator),
                    };
                    successor(self.scop, tail, FlowEdge::Next).expect("loop successor")
                }
                FlowNode::CondHead(id) => {
                    let tail = fg
                        .graph
                        .node_indices()
                        .find(|&i| fg.graph[i] == FlowNode::CondTail(id))
                        .expect("tail");
                    let holds = self.scop.conditions[id]
                        .eval(&lookup(&self.env))
                        .map_err(|u| EnumError::Unbound(u.0))?;
                    let branch = if holds {
                        successor(self.scop, n, FlowEdge::Then)
                    } else {
                        successor(self.scop, n, FlowEdge::Else)
                    };
                    if let Some(b) = branch {
                        self.chain(b, tail)?;
                    }
                    successor(self.scop, tail, FlowEdge::Next).expect("conditional successor")
                }
                other => unreachable!("enumeration reached {other:?}"),
            }
        }
        Ok(())
    }

    fn statement(&mut self, flow_id: usize) -> Result<(), EnumError> {
        // A statement the model dropped cannot exist: extraction rejects the whole region.
        // A copy statement's iterators are its original's.
        let iters = self.instance(self.piece(flow_id)?)?;
        let due: Vec<usize> = match self.copies.get(&flow_id) {
            Some(copies) => copies
                .iter()
                .filter(|(_, points)| points.contains(&iters))
                .map(|&(id, _)| id)
                .collect(),
            None => return Ok(()),
        };
        for copy in due {
            self.instance(copy)?;
        }
        Ok(())
    }

    /// The statement that runs line `flow_id` at the current iterator values: the line's
    /// statement, or the piece of it whose domain holds them.
    fn piece(&self, flow_id: usize) -> Result<usize, EnumError> {
        let first = self.by_flow[&flow_id];
        let Some(pieces) = self.pieces.get(&flow_id) else {
            return Ok(first);
        };
        let iters = self.iterators(first)?;
        Ok(pieces
            .iter()
            .find(|(_, points)| points.contains(&iters))
            .map_or(first, |&(id, _)| id))
    }

    /// The current values of statement `sid`'s iterators.
    fn iterators(&self, sid: usize) -> Result<Vec<i64>, EnumError> {
        let env = |v: &str| self.env.get(v).copied();
        self.scop.statements[sid]
            .iterators
            .iter()
            .map(|i| env(i).ok_or_else(|| EnumError::Unbound(i.clone())))
            .collect()
    }

    /// Visit one instance of statement `sid` at the current iterator values; its iterators.
    fn instance(&mut self, sid: usize) -> Result<Vec<i64>, EnumError> {
        let st = &self.scop.statements[sid];
        let env = |v: &str| self.env.get(v).copied();
        let iters = self.iterators(sid)?;
        let mut accesses = Vec::with_capacity(st.accesses.len());
        for a in &st.accesses {
            let cell = a
                .subscripts
                .iter()
                .map(|s| s.eval(&env))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|u| EnumError::Unbound(u.0))?;
            accesses.push(Access {
                datum: a.datum.clone(),
                cell,
                kind: a.kind,
            });
        }
        accesses.sort_by_key(|a| a.kind); // reads first
        let instance = Instance { stmt: sid, iters };
        self.count += 1;
        if self.count > self.limit {
            return Err(EnumError::TooMany(self.limit));
        }
        (self.visit)(&instance, &accesses);
        Ok(instance.iters)
    }
}

/// A dependence relation as explicit instance pairs.
pub type Pairs = BTreeSet<(Vec<i64>, Vec<i64>)>;

/// Key of a dependence: kind, source statement, sink statement, datum.
pub type DepKey = (DepKind, usize, usize, String);

/// The dependences by brute force, with the same definitions as
/// [`crate::analysis::deps`]: flow from the last earlier write of the element (value-based);
/// anti from every earlier read, output from every earlier write (memory-based). An instance
/// never depends on itself.
pub fn brute_force_dependences(
    scop: &Scop,
    params: &[(String, i64)],
    limit: usize,
) -> Result<BTreeMap<DepKey, Pairs>, EnumError> {
    type Cell = (String, Vec<i64>);
    let mut last_write: HashMap<Cell, usize> = HashMap::new();
    let mut reads: HashMap<Cell, Vec<usize>> = HashMap::new();
    let mut writes: HashMap<Cell, Vec<usize>> = HashMap::new();
    let mut seen: Vec<Instance> = Vec::new();
    let mut out: BTreeMap<DepKey, Pairs> = BTreeMap::new();
    run(scop, params, limit, &mut |inst, accesses| {
        let me = seen.len();
        seen.push(inst.clone());
        let mut add = |kind, src: usize, datum: &str| {
            if src != me {
                let s = &seen[src];
                out.entry((kind, s.stmt, inst.stmt, datum.to_string()))
                    .or_default()
                    .insert((s.iters.clone(), inst.iters.clone()));
            }
        };
        for a in accesses.iter().filter(|a| a.kind == AccessKind::Read) {
            if let Some(&w) = last_write.get(&(a.datum.clone(), a.cell.clone())) {
                add(DepKind::Flow, w, &a.datum);
            }
        }
        for a in accesses.iter().filter(|a| a.kind == AccessKind::Write) {
            let cell = (a.datum.clone(), a.cell.clone());
            for &r in reads.get(&cell).into_iter().flatten() {
                add(DepKind::Anti, r, &a.datum);
            }
            for &w in writes.get(&cell).into_iter().flatten() {
                add(DepKind::Output, w, &a.datum);
            }
        }
        for a in accesses {
            let cell = (a.datum.clone(), a.cell.clone());
            match a.kind {
                AccessKind::Read => reads.entry(cell).or_default().push(me),
                AccessKind::Write => {
                    last_write.insert(cell.clone(), me);
                    writes.entry(cell).or_default().push(me);
                }
            }
        }
    })?;
    out.retain(|_, p| !p.is_empty());
    Ok(out)
}

/// isl's dependences of a SCoP at concrete parameter values, as explicit pairs.
pub fn polyhedral_dependences(scop: &Scop, params: &[(String, i64)]) -> BTreeMap<DepKey, Pairs> {
    let isl_params: Vec<(String, i64)> = params
        .iter()
        .map(|(n, v)| (scop.names.get(n), *v))
        .collect();
    let mut out: BTreeMap<DepKey, Pairs> = BTreeMap::new();
    for d in &scop.dependences {
        let pairs = d.relation.instantiate(&isl_params).pairs();
        out.entry((d.kind, d.source, d.sink, d.datum.clone()))
            .or_default()
            .extend(pairs);
    }
    out.retain(|_, p| !p.is_empty());
    out
}

/// Compare isl's dependences with the brute-force ones; describe the first differences.
pub fn check_dependences(
    scop: &Scop,
    params: &[(String, i64)],
    limit: usize,
) -> Result<usize, String> {
    let params = &scop.complete_params(params);
    let brute = brute_force_dependences(scop, params, limit).map_err(|e| e.to_string())?;
    let poly = polyhedral_dependences(scop, params);
    let mut problems = Vec::new();
    let keys: BTreeSet<&DepKey> = brute.keys().chain(poly.keys()).collect();
    let name = |i: usize| scop.statements[i].name.clone();
    for k in keys {
        let (b, p) = (brute.get(k), poly.get(k));
        if b != p {
            let empty = Pairs::new();
            let (b, p) = (b.unwrap_or(&empty), p.unwrap_or(&empty));
            let missing: Vec<_> = b.difference(p).take(3).collect();
            let extra: Vec<_> = p.difference(b).take(3).collect();
            problems.push(format!(
                "{:?} {} -> {} on {}: brute force {} pairs, isl {} (missing in isl: {missing:?}; extra in isl: {extra:?})",
                k.0,
                name(k.1),
                name(k.2),
                k.3,
                b.len(),
                p.len()
            ));
        }
    }
    if problems.is_empty() {
        Ok(brute.values().map(BTreeSet::len).sum())
    } else {
        Err(problems.join("\n"))
    }
}
