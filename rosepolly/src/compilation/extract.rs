//! Model extraction (thesis Figure 5.3): FlowGraph + policy → [`Scop`].
//!
//! A visitor walks the FlowGraph in program order, asks the [`RosePollyCustom`] policy about
//! every loop, conditional and access, and builds each statement's domain, original schedule
//! and access relations; then the symbol table and the dependences.

use std::collections::{BTreeMap, BTreeSet};

use super::affine::{AffineContext, WrapLog};
use super::custom::{AccessCandidate, Branch, DomainBuilder, RosePollyCustom};
use super::symbols::{Extent, Scope, Symbol};
use crate::diag::{Diagnostic, Diagnostics};
use crate::math::isl::Ctx;
use crate::math::{Domain, Relation};
use crate::model::affine::{Affine, AffineCond, CmpOp};
use crate::model::ctype::{same_values, CType, IntType, Typing};
use crate::model::expr::{AssignOp, Expr};
use crate::model::flow::{
    CondId, Conditional, FlowGraph, FlowVisitor, ForLoop, LoopId, StatementNode, StmtId,
};
use crate::model::{
    AccessKind, AccessPattern, AffineLoop, Casts, Datum, IslNames, Region, Scop, Statement,
    SymbolTable,
};

/// Everything model extraction needs about one region.
pub struct RegionInput {
    pub function: String,
    pub region: Region,
    pub flow: FlowGraph,
    pub scope: Scope,
    /// Variables that code outside the region may read (globals, and names the function uses
    /// outside it).
    pub live: BTreeSet<String>,
    /// Every identifier and macro name of the translation unit (names polyc makes avoid them).
    pub taken: std::rc::Rc<BTreeSet<String>>,
}

/// A statement's accesses before they become isl relations.
pub(crate) struct Draft {
    pub flow_id: StmtId,
    pub iterators: Vec<String>,
    pub types: Vec<IntType>,
    pub loops: Vec<LoopId>,
    pub domain: AffineCond,
    pub beta: Vec<usize>,
    /// Sign of each iterator in the original schedule (−1 for loops counting down).
    pub signs: Vec<i64>,
    pub accesses: Vec<(String, AccessKind, Vec<Affine>)>,
}

/// Where a loop or a conditional stands: the enclosing iterators and the condition their
/// values satisfy there, and (for loops) the textual positions that place it in the original
/// schedule.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    pub iterators: Vec<String>,
    pub domain: AffineCond,
    pub signs: Vec<i64>,
    /// Textual positions at each depth, the construct's own last.
    pub beta: Vec<usize>,
}

/// What the policy made of a region, before any isl object exists.
pub struct Analysis {
    pub(crate) loops: Vec<AffineLoop>,
    pub(crate) conditions: Vec<AffineCond>,
    pub(crate) drafts: Vec<Draft>,
    pub(crate) params: Vec<String>,
    pub(crate) loop_sites: Vec<Site>,
    pub(crate) cond_sites: Vec<Site>,
    pub(crate) wraps: WrapLog,
}

/// Check a region against the SCoP rules of a policy.
pub fn analyze(
    flow: &FlowGraph,
    scope: &Scope,
    custom: &mut dyn RosePollyCustom,
) -> Result<Analysis, Diagnostics> {
    let written = written_scalars(flow);
    let wraps = WrapLog::default();
    let mut ex = Extractor {
        custom,
        scope,
        written: &written,
        wraps: &wraps,
        stack: vec![Frame::default()],
        loops: vec![None; flow.loops.len()],
        conditions: vec![None; flow.conditionals.len()],
        loop_sites: vec![None; flow.loops.len()],
        cond_sites: vec![None; flow.conditionals.len()],
        drafts: Vec::new(),
        params: Vec::new(),
        errors: Diagnostics::default(),
        position: vec![0],
    };
    flow.walk(&mut ex);
    let Extractor {
        loops,
        conditions,
        loop_sites,
        cond_sites,
        drafts,
        params,
        errors,
        ..
    } = ex;
    if !errors.is_empty() {
        return Err(errors.normalize());
    }
    Ok(Analysis {
        loops: all(loops, "loop"),
        conditions: all(conditions, "condition"),
        loop_sites: all(loop_sites, "loop"),
        cond_sites: all(cond_sites, "condition"),
        drafts,
        params,
        wraps,
    })
}

/// Every entry, which the walk has filled.
fn all<T>(v: Vec<Option<T>>, what: &str) -> Vec<T> {
    v.into_iter()
        .map(|x| x.unwrap_or_else(|| panic!("every {what} evaluated")))
        .collect()
}

/// Build the polyhedral model of a region with a policy.
pub fn build<'c>(
    ctx: &'c Ctx,
    id: usize,
    input: RegionInput,
    custom: &mut dyn RosePollyCustom,
) -> Result<Scop<'c>, Diagnostics> {
    let mut analysis = analyze(&input.flow, &input.scope, custom)?;
    custom.add_params(&analysis.params);
    let param_types = analysis
        .params
        .iter()
        .map(|p| input.scope.int_type(p).unwrap_or(IntType::LONG))
        .collect();
    let mut scop = Scop {
        id,
        function: input.function,
        region: input.region,
        params: std::mem::take(&mut analysis.params),
        param_types,
        statements: Vec::new(),
        symbols: SymbolTable::default(),
        dependences: Vec::new(),
        direct_dependences: None,
        flow: input.flow,
        loops: Vec::new(),
        conditions: Vec::new(),
        names: IslNames::default(),
        assumptions: None,
        exits: Vec::new(),
        derived: Vec::new(),
        untransformable: None,
        fallbacks: Vec::new(),
        splits: Vec::new(),
    };
    for p in &scop.params {
        scop.names.name(p);
    }
    let resolved = super::wraps::resolve(ctx, &mut scop, &analysis, &|n| input.taken.contains(n))?;
    resolved.apply(&mut analysis);
    scop.assumptions = resolved.assumptions;
    scop.exits = super::exits::exits(ctx, &mut scop, &analysis, &input.live);
    let Analysis {
        loops,
        conditions,
        drafts,
        ..
    } = analysis;
    scop.loops = loops;
    scop.conditions = conditions;
    build_isl(ctx, &mut scop, drafts, &input.scope)?;
    if custom.expand_scalars() {
        super::expand::expand_scalars(ctx, &mut scop, &input.live, &|n| input.taken.contains(n));
        super::expand::expand_arrays(ctx, &mut scop, &|n| input.taken.contains(n));
    }
    // The statements whole are analysed, and their dependences divided among the pieces of a
    // split (the same instance pairs): nine pieces of floyd-warshall's statement took isl's
    // dataflow 0.6 s, where the whole statement takes a tenth of that. Where the analysis
    // failed, the statements stay whole.
    let analysed = custom
        .analyse_dependences()
        .then(|| crate::analysis::deps::try_compute_both(ctx, &scop));
    if custom.split_index_sets() && !matches!(analysed, Some(Err(_))) {
        super::split::split_index_sets(ctx, &mut scop);
    }
    match analysed {
        None => {}
        Some(Ok(deps)) => {
            scop.dependences = super::split::divide(&scop, deps.complete);
            scop.direct_dependences = Some(super::split::divide(&scop, deps.direct));
            scop.fallbacks.extend(deps.approximated.iter().map(|d| {
                format!(
                    "the dependences on `{d}` count every earlier write as a source (isl's exact dataflow failed on them, or its answer could not be checked)"
                )
            }));
        }
        // A reason found before (an iterator's exit value) stays.
        Some(Err(e)) => {
            scop.untransformable.get_or_insert(e.to_string());
        }
    }
    Ok(scop)
}

/// Scalars assigned anywhere in the region, loop iterators included.
fn written_scalars(flow: &FlowGraph) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut note = |e: &Expr| {
        e.walk(&mut |n| {
            if let Expr::Assign { lhs, .. } = n {
                if let Expr::Var(v) = &**lhs {
                    out.insert(v.clone());
                }
            }
        })
    };
    for l in &flow.loops {
        if let Some(i) = &l.init {
            note(i);
        }
        if let Some(s) = &l.step {
            note(s);
        }
    }
    for s in &flow.statements {
        note(&s.expr);
    }
    out
}

#[derive(Default, Clone)]
struct Frame {
    domain: DomainBuilder,
    loops: Vec<LoopId>,
    signs: Vec<i64>,
    /// An enclosing construct was rejected: keep checking, but build nothing.
    poisoned: bool,
}

struct Extractor<'a> {
    custom: &'a mut dyn RosePollyCustom,
    scope: &'a Scope,
    written: &'a BTreeSet<String>,
    wraps: &'a WrapLog,
    stack: Vec<Frame>,
    loops: Vec<Option<AffineLoop>>,
    conditions: Vec<Option<AffineCond>>,
    loop_sites: Vec<Option<Site>>,
    cond_sites: Vec<Option<Site>>,
    drafts: Vec<Draft>,
    params: Vec<String>,
    errors: Diagnostics,
    /// Textual position counters, one per depth (the β of the original schedule).
    position: Vec<usize>,
}

impl Extractor<'_> {
    fn top(&self) -> &Frame {
        self.stack.last().expect("frame stack is never empty")
    }

    fn context<'s>(&'s self, role: &'s str) -> AffineContext<'s> {
        AffineContext {
            iterators: &self.top().domain.iterators,
            iterator_types: &self.top().domain.iterator_types,
            scope: self.scope,
            written: self.written,
            role,
            wraps: self.wraps,
        }
    }

    /// Where the next construct stands.
    fn site(&self) -> Site {
        let top = self.top();
        Site {
            iterators: top.domain.iterators.clone(),
            domain: top.domain.condition(),
            signs: top.signs.clone(),
            beta: self.position.clone(),
        }
    }

    fn note_params(&mut self, vars: Vec<String>) {
        let iters = self.top().domain.iterators.clone();
        for v in vars {
            if !iters.contains(&v) && !self.params.contains(&v) {
                self.params.push(v);
            }
        }
    }

    fn push_branch(&mut self, id: CondId, branch: Branch) {
        let mut f = self.top().clone();
        match &self.conditions[id] {
            Some(c) => self.custom.add_conditional(&mut f.domain, c, branch),
            None => f.poisoned = true,
        }
        self.stack.push(f);
    }

    fn statement_accesses(
        &mut self,
        s: &StatementNode,
    ) -> Option<Vec<(String, AccessKind, Vec<Affine>)>> {
        let Expr::Assign { .. } = &s.expr else {
            let msg = match &s.expr {
                Expr::Call { func, .. } => format!("call to `{func}` as a statement"),
                _ => "expression statement that assigns nothing".to_string(),
            };
            self.errors.push(
                Diagnostic::new(s.loc.clone(), msg)
                    .with_snippet(&s.text)
                    .with_note("SCoP statements are assignments to arrays or scalars"),
            );
            return None;
        };
        let mut found = Vec::new();
        collect_references(&s.expr, false, &mut found);
        let mut out = Vec::new();
        let mut ok = true;
        let mut unresolved = Vec::new();
        s.expr.walk(&mut |e| match e {
            Expr::Cast { ty, .. } if self.scope.resolved_type(ty).is_none() => {
                unresolved.push(ty.clone())
            }
            _ => {}
        });
        for ty in unresolved {
            self.errors.push(
                Diagnostic::new(s.loc.clone(), format!("cast to `{ty}`, a type polyc does not know here"))
                    .with_snippet(&s.text)
                    .with_note("casts in a SCoP name arithmetic types, or typedefs of them declared outside the function: GPU kernels and the generated code must spell the type without the function's own declarations"),
            );
            ok = false;
        }
        for r in found {
            match r {
                Reference::Call(func) => {
                    let refused = if self.scope.defines_function(&func) {
                        Some(("a function this program defines", "polyc cannot tell whether the program's own functions are free of side effects; statements may call the C library's math functions"))
                    } else if !self.custom.is_pure_function(&func) {
                        Some((
                            "which is not a known pure function",
                            "statements may call side-effect-free math functions only",
                        ))
                    } else {
                        None
                    };
                    if let Some((what, note)) = refused {
                        self.errors.push(
                            Diagnostic::new(s.loc.clone(), format!("call to `{func}`, {what}"))
                                .with_snippet(&s.text)
                                .with_note(note),
                        );
                        ok = false;
                    }
                }
                Reference::Data {
                    name,
                    subscripts,
                    kind,
                } => match self.access(s, &name, &subscripts, kind) {
                    Ok(Some(a)) => out.push(a),
                    Ok(None) => {}
                    Err(d) => {
                        self.errors.push(d);
                        ok = false;
                    }
                },
            }
        }
        ok.then_some(out)
    }

    /// Check one reference; `Ok(None)` for reads of iterators and parameters.
    fn access(
        &mut self,
        s: &StatementNode,
        name: &str,
        subscripts: &[Expr],
        kind: AccessKind,
    ) -> Result<Option<(String, AccessKind, Vec<Affine>)>, Diagnostic> {
        let err = |m: String| Diagnostic::new(s.loc.clone(), m).with_snippet(&s.text);
        let iters = &self.top().domain.iterators;
        if iters.iter().any(|i| i == name) {
            if kind == AccessKind::Write {
                return Err(err(format!("assignment to the loop iterator `{name}`")));
            }
            if !subscripts.is_empty() {
                return Err(err(format!("loop iterator `{name}` is subscripted")));
            }
            return Ok(None);
        }
        let Some(sym) = self.scope.get(name) else {
            return Err(err(format!(
                "`{name}` is not declared (or is not a variable)"
            )));
        };
        if !sym.is_arithmetic() {
            return Err(err(format!(
                "`{name}` has type `{}`, which a SCoP cannot model",
                sym.written_type
            )));
        }
        if sym.volatile {
            return Err(err(format!(
                "`{name}` is volatile: its accesses must happen as written, and a SCoP's run in another order"
            )));
        }
        if self.is_iterator_somewhere(name) {
            return Err(err(format!(
                "statement uses the loop iterator `{name}` outside its loop"
            )));
        }
        if subscripts.len() != sym.extents.len() {
            return Err(err(format!(
                "`{name}` has {} dimension(s) but is used with {} subscript(s)",
                sym.extents.len(),
                subscripts.len()
            ))
            .with_note("a SCoP accesses whole elements of arrays"));
        }
        if kind == AccessKind::Read && sym.is_integer() && !self.written.contains(name) {
            // A read-only integer scalar is a parameter of the SCoP.
            self.note_params(vec![name.to_string()]);
            return Ok(None);
        }
        let cand = AccessCandidate {
            datum: name,
            subscripts,
            is_write: kind == AccessKind::Write,
            loc: &s.loc,
        };
        let cx = self.context("subscript");
        let subs = self.custom.evaluate_access(&cand, &cx)?;
        let mut vars = Vec::new();
        subs.iter().for_each(|a| a.vars(&mut vars));
        self.note_params(vars);
        Ok(Some((name.to_string(), kind, subs)))
    }

    fn is_iterator_somewhere(&self, name: &str) -> bool {
        self.loops.iter().flatten().any(|l| l.iterator == name)
    }
}

impl FlowVisitor for Extractor<'_> {
    fn enter_loop(&mut self, id: LoopId, lp: &ForLoop) {
        self.loop_sites[id] = Some(self.site());
        let cx = self.context("loop bound");
        let result = self.custom.evaluate_loop(lp, &cx);
        let mut f = self.top().clone();
        match result {
            Ok(l) => {
                let mut vars = Vec::new();
                l.init.vars(&mut vars);
                l.cond.vars(&mut vars);
                vars.retain(|v| *v != l.iterator);
                self.note_params(vars);
                self.custom.add_loop(&mut f.domain, &l);
                f.signs.push(l.stride.signum());
                self.loops[id] = Some(l);
            }
            Err(d) => {
                self.errors.push(d);
                f.poisoned = true;
                let it = match &lp.init {
                    Some(Expr::Assign { lhs, .. }) => match &**lhs {
                        Expr::Var(v) => v.clone(),
                        _ => "?".into(),
                    },
                    _ => "?".into(),
                };
                f.domain.iterators.push(it);
                f.domain.iterator_types.push(IntType::LONG);
                f.signs.push(1);
            }
        }
        f.loops.push(id);
        self.stack.push(f);
        self.position.push(0);
    }

    fn exit_loop(&mut self, _id: LoopId, _lp: &ForLoop) {
        self.stack.pop();
        self.position.pop();
        *self.position.last_mut().expect("position stack") += 1;
    }

    fn enter_then(&mut self, id: CondId, c: &Conditional) {
        self.cond_sites[id] = Some(self.site());
        let cx = self.context("condition");
        match self.custom.evaluate_conditional(c, &cx) {
            Ok(cond) => {
                let mut vars = Vec::new();
                cond.vars(&mut vars);
                self.note_params(vars);
                self.conditions[id] = Some(cond);
            }
            Err(d) => self.errors.push(d),
        }
        self.push_branch(id, Branch::Then);
    }

    fn enter_else(&mut self, id: CondId, _c: &Conditional) {
        self.stack.pop();
        self.push_branch(id, Branch::Else);
    }

    fn exit_conditional(&mut self, _id: CondId, _c: &Conditional) {
        self.stack.pop();
    }

    fn statement(&mut self, id: StmtId, s: &StatementNode) {
        let accesses = self.statement_accesses(s);
        let beta = self.position.clone();
        *self.position.last_mut().expect("position stack") += 1;
        let top = self.top();
        if let (Some(accesses), false) = (accesses, top.poisoned) {
            let draft = Draft {
                flow_id: id,
                iterators: top.domain.iterators.clone(),
                types: top.domain.iterator_types.clone(),
                loops: top.loops.clone(),
                domain: top.domain.condition(),
                beta,
                signs: top.signs.clone(),
                accesses,
            };
            self.drafts.push(draft);
        }
    }
}

enum Reference {
    Data {
        name: String,
        subscripts: Vec<Expr>,
        kind: AccessKind,
    },
    Call(String),
}

/// Every reference of a statement expression, reads before the writes they feed.
fn collect_references(e: &Expr, is_lhs: bool, out: &mut Vec<Reference>) {
    let kind = if is_lhs {
        AccessKind::Write
    } else {
        AccessKind::Read
    };
    match e {
        Expr::Var(v) => out.push(Reference::Data {
            name: v.clone(),
            subscripts: Vec::new(),
            kind,
        }),
        Expr::Index { array, subscripts } => {
            for s in subscripts {
                collect_references(s, false, out);
            }
            out.push(Reference::Data {
                name: array.clone(),
                subscripts: subscripts.clone(),
                kind,
            });
        }
        Expr::Assign { op, lhs, rhs } => {
            collect_references(rhs, false, out);
            if *op != AssignOp::Assign {
                collect_references(lhs, false, out);
            }
            collect_references(lhs, true, out);
        }
        Expr::Call { func, args } => {
            for a in args {
                collect_references(a, false, out);
            }
            out.push(Reference::Call(func.clone()));
        }
        Expr::Unary { operand, .. } => collect_references(operand, false, out),
        Expr::Binary { lhs, rhs, .. } => {
            collect_references(lhs, false, out);
            collect_references(rhs, false, out);
        }
        Expr::Ternary { cond, then, other } => {
            collect_references(cond, false, out);
            collect_references(then, false, out);
            collect_references(other, false, out);
        }
        Expr::Cast { expr, .. } => collect_references(expr, false, out),
        Expr::Int { .. } | Expr::Float(_) | Expr::Char(_) => {}
    }
}

/// Statements, accesses and data as isl objects.
fn build_isl<'c>(
    ctx: &'c Ctx,
    scop: &mut Scop<'c>,
    drafts: Vec<Draft>,
    scope: &Scope,
) -> Result<(), Diagnostics> {
    let max_depth = drafts.iter().map(|d| d.iterators.len()).max().unwrap_or(0);
    let params = scop.isl_params();
    let mut stmt_names = Vec::new();
    for (k, _) in drafts.iter().enumerate() {
        stmt_names.push(
            scop.names
                .name_with_key(&format!("statement S{k}"), &format!("S{k}")),
        );
    }
    let mut statements = Vec::new();
    for (k, d) in drafts.into_iter().enumerate() {
        let iters: Vec<String> = d.iterators.iter().map(|i| scop.names.name(i)).collect();
        let names = &scop.names;
        let rename = |v: &str| names.get(v);
        let tuple = format!("{}[{}]", stmt_names[k], iters.join(", "));
        let domain_text = format!("{params}{{ {tuple} : {} }}", d.domain.to_isl(&rename));
        let domain = Domain::parse(ctx, &domain_text)
            .map_err(|e| internal(&scop.flow.statements[d.flow_id], &domain_text, e))?;
        let mut sched = Vec::new();
        for depth in 0..=max_depth {
            sched.push(d.beta.get(depth).copied().unwrap_or(0).to_string());
            if depth < max_depth {
                sched.push(match (iters.get(depth), d.signs.get(depth)) {
                    (Some(i), Some(-1)) => format!("-{i}"),
                    (Some(i), _) => i.clone(),
                    (None, _) => "0".into(),
                });
            }
        }
        let schedule_text = format!("{params}{{ {tuple} -> [{}] }}", sched.join(", "));
        let schedule = Relation::parse(ctx, &schedule_text)
            .map_err(|e| internal(&scop.flow.statements[d.flow_id], &schedule_text, e))?;
        let mut accesses = Vec::new();
        for (datum, kind, subs) in d.accesses {
            let array = scop.names.name_with_key(&format!("array {datum}"), &datum);
            let names = &scop.names;
            let rename = |v: &str| names.get(v);
            let outs: Vec<String> = (0..subs.len()).map(|i| format!("_a{i}")).collect();
            let cond = subs
                .iter()
                .enumerate()
                .map(|(i, s)| AffineCond::cmp(CmpOp::Eq, Affine::var(format!("_a{i}")), s.clone()))
                .fold(AffineCond::True, AffineCond::and);
            let text = format!(
                "{params}{{ {tuple} -> {array}[{}] : {} }}",
                outs.join(", "),
                cond.to_isl(&rename)
            );
            let rel = Relation::parse(ctx, &text)
                .map_err(|e| internal(&scop.flow.statements[d.flow_id], &text, e))?;
            let rel = Relation::new(
                rel.into_isl()
                    .intersect_domain(domain.isl().clone())
                    .coalesce(),
            );
            accesses.push(AccessPattern {
                datum,
                kind,
                subscripts: subs,
                relation: rel,
            });
        }
        let node = &scop.flow.statements[d.flow_id];
        let casts = casts(&node.expr, &d.iterators, &d.types, &scop.params, scope);
        statements.push(Statement {
            id: k,
            name: format!("S{k}"),
            loc: node.loc.clone(),
            text: node.text.clone(),
            body: resolved_casts(&node.expr, scope),
            iterators: d.iterators,
            iterator_types: d.types,
            casts,
            loops: d.loops,
            flow_id: d.flow_id,
            domain,
            schedule,
            beta: d.beta,
            accesses,
        });
    }
    scop.statements = statements;
    scop.symbols = symbol_table(ctx, scop, scope);
    Ok(())
}

/// Whether a statement computes the same with `long` iterators (and parameters).
fn casts(
    body: &Expr,
    iterators: &[String],
    types: &[IntType],
    params: &[String],
    scope: &Scope,
) -> Casts {
    let declared = |v: &str| match iterators.iter().position(|i| i == v) {
        Some(k) => CType::Int(types[k]),
        None => scope
            .get(v)
            .map_or(CType::Other, |s| s.elem_ctype(scope.char_signed)),
    };
    let cast = |w: &str| scope.type_of_words(w);
    let long_iters = |v: &str| match iterators.iter().any(|i| i == v) {
        true => CType::Int(IntType::LONG),
        false => declared(v),
    };
    let long_all = |v: &str| match params.iter().any(|p| p == v) {
        true => CType::Int(IntType::LONG),
        false => long_iters(v),
    };
    let typing = |var: &dyn Fn(&str) -> CType| !same_values_under(body, &declared, var, &cast);
    Casts {
        iterators: typing(&long_iters),
        iterators_and_params: typing(&long_all),
    }
}

fn same_values_under(
    e: &Expr,
    a: &dyn Fn(&str) -> CType,
    b: &dyn Fn(&str) -> CType,
    cast: &dyn Fn(&str) -> CType,
) -> bool {
    same_values(e, &Typing { var: a, cast }, &Typing { var: b, cast })
}

fn internal(s: &StatementNode, text: &str, e: crate::math::isl::IslError) -> Diagnostics {
    Diagnostic::new(
        s.loc.clone(),
        format!("internal error: isl rejected the model of this statement ({e})"),
    )
    .with_snippet(&s.text)
    .with_note(format!("isl text: {text}"))
    .into()
}

/// One [`Datum`] per array or scalar accessed.
/// `e` with its casts' types spelt without typedefs (checked resolvable by
/// `statement_accesses`): a GPU kernel does not see the program's typedefs.
fn resolved_casts(e: &Expr, scope: &Scope) -> Expr {
    e.map(&mut |e| match e {
        Expr::Cast { ty, expr } => Expr::Cast {
            ty: scope.resolved_type(&ty).unwrap_or(ty),
            expr,
        },
        e => e,
    })
}

fn symbol_table<'c>(ctx: &'c Ctx, scop: &Scop<'c>, scope: &Scope) -> SymbolTable<'c> {
    let mut uses: BTreeMap<&str, Vec<&AccessPattern<'c>>> = BTreeMap::new();
    for s in &scop.statements {
        for a in &s.accesses {
            uses.entry(a.datum.as_str()).or_default().push(a);
        }
    }
    let mut table = SymbolTable::default();
    for (name, accesses) in uses {
        let sym: &Symbol = scope.get(name).expect("accessed data are declared");
        let footprint = accesses
            .iter()
            .map(|a| a.relation.isl().clone().range())
            .reduce(|a, b| a.union(b))
            .expect("at least one access")
            .coalesce();
        let none = BTreeSet::new();
        let wraps = WrapLog::default();
        let cx = AffineContext {
            iterators: &[],
            iterator_types: &[],
            scope,
            written: &none,
            role: "array extent",
            wraps: &wraps,
        };
        // An extent C would compute with a conversion that may change it is not used.
        let extents = sym
            .extents
            .iter()
            .map(|e| match e {
                Extent::Sized(x) => cx.expr(x).ok().filter(|_| wraps.is_empty()),
                Extent::Unknown => None,
            })
            .collect();
        let _ = ctx;
        table.data.insert(
            name.to_string(),
            Datum {
                name: name.to_string(),
                elem_type: sym.elem_type.clone().unwrap_or_default(),
                written_type: sym.written_type.clone(),
                extents,
                read: accesses.iter().any(|a| a.kind == AccessKind::Read),
                written: accesses.iter().any(|a| a.kind == AccessKind::Write),
                footprint: Domain::new(footprint),
                storage: sym.storage,
                declared_at: sym.loc.clone(),
                expands: None,
                expanded_dims: 0,
            },
        );
    }
    table
}
