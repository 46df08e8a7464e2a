//! Finding SCoP regions: between `#pragma scop` and `#pragma endscop`, or (with
//! `--auto-scop`) the maximal runs of statements that satisfy the SCoP rules.

use lang_c::ast::{BlockItem, ExternalDeclaration, FunctionDefinition, Statement};
use lang_c::span::Node;

use super::custom::RosePollyCustom;
use super::extract;
use super::source::{PragmaKind, SourceUnit};
use super::symbols::Scope;
use crate::diag::{Diagnostic, Diagnostics};
use crate::model::flow::FlowGraph;
use crate::model::Region;

/// A region and the function that contains it.
pub struct FoundRegion<'a> {
    pub function: &'a Node<FunctionDefinition>,
    pub items: Vec<&'a Node<BlockItem>>,
    pub region: Region,
}

fn functions(src: &SourceUnit) -> impl Iterator<Item = &Node<FunctionDefinition>> {
    src.unit.0.iter().filter_map(|e| match &e.node {
        ExternalDeclaration::FunctionDefinition(f) => Some(f),
        _ => None,
    })
}

/// Every `#pragma scop` … `#pragma endscop` region, in order.
pub fn marked(src: &SourceUnit) -> Result<Vec<FoundRegion<'_>>, Diagnostics> {
    let mut errors = Diagnostics::default();
    let mut out = Vec::new();
    let mut open = None;
    for p in src.pragmas() {
        match (p.kind, open.take()) {
            (PragmaKind::Scop, None) => open = Some(p),
            (PragmaKind::Scop, Some(prev)) => {
                errors.push(
                    Diagnostic::new(p.loc.clone(), "`#pragma scop` inside another SCoP")
                        .with_note(format!("the enclosing `#pragma scop` is at {}", prev.loc)),
                );
                open = Some(prev);
            }
            (PragmaKind::EndScop, None) => errors.push(Diagnostic::new(
                p.loc.clone(),
                "`#pragma endscop` without a matching `#pragma scop`",
            )),
            (PragmaKind::EndScop, Some(start)) => match region_between(src, start.offset, p.offset)
            {
                Ok((function, items)) => out.push(FoundRegion {
                    function,
                    items,
                    region: Region {
                        start: start.loc.clone(),
                        end: p.loc.clone(),
                        start_offset: start.offset,
                        end_offset: p.offset,
                        marked: true,
                    },
                }),
                Err(msg) => errors.push(Diagnostic::new(start.loc.clone(), msg)),
            },
        }
    }
    if let Some(p) = open {
        errors.push(Diagnostic::new(
            p.loc,
            "`#pragma scop` without a matching `#pragma endscop`",
        ));
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

type Items<'a> = Vec<&'a Node<BlockItem>>;

fn region_between(
    src: &SourceUnit,
    s: usize,
    e: usize,
) -> Result<(&Node<FunctionDefinition>, Items<'_>), String> {
    let f = functions(src)
        .find(|f| f.span.start < s && e < f.span.end)
        .ok_or("`#pragma scop` region is not inside a function body")?;
    let items = items_between(&f.node.statement, s, e)
        .ok_or("`#pragma scop` and `#pragma endscop` are not in the same block")??;
    if items.is_empty() {
        return Err("no statement between `#pragma scop` and `#pragma endscop`".into());
    }
    Ok((f, items))
}

/// Where a statement really ends. lang-c's span of an `if` without `else` (and of statements
/// ending in one) reaches past trailing directives while it looks for an `else`.
pub fn real_end(st: &Node<Statement>) -> usize {
    match &st.node {
        Statement::If(i) => match &i.node.else_statement {
            Some(e) => real_end(e),
            None => real_end(&i.node.then_statement),
        },
        Statement::For(f) => real_end(&f.node.statement),
        Statement::While(w) => real_end(&w.node.statement),
        Statement::Labeled(l) => real_end(&l.node.statement),
        _ => st.span.end,
    }
}

fn item_end(i: &Node<BlockItem>) -> usize {
    match &i.node {
        BlockItem::Statement(s) => real_end(s),
        _ => i.span.end,
    }
}

/// The items of the innermost block holding both offsets that lie between them.
fn items_between(st: &Node<Statement>, s: usize, e: usize) -> Option<Result<Items<'_>, String>> {
    let contains_both = |start: usize, end: usize| start < s && e < end;
    match &st.node {
        Statement::Compound(items) => {
            if let Some(inner) = items
                .iter()
                .find(|i| contains_both(i.span.start, item_end(i)))
            {
                return match &inner.node {
                    BlockItem::Statement(s2) => items_between(s2, s, e),
                    _ => Some(Err("`#pragma scop` region splits a declaration".into())),
                };
            }
            let straddles = |off: usize| {
                items
                    .iter()
                    .any(|i| i.span.start < off && off < item_end(i))
            };
            if straddles(s) || straddles(e) {
                return Some(Err(
                    "`#pragma scop` and `#pragma endscop` are not in the same block".into(),
                ));
            }
            Some(Ok(items
                .iter()
                .filter(|i| i.span.start > s && item_end(i) <= e)
                .collect()))
        }
        Statement::For(f) => items_between(&f.node.statement, s, e),
        Statement::While(w) => items_between(&w.node.statement, s, e),
        Statement::DoWhile(w) => items_between(&w.node.statement, s, e),
        Statement::If(i) => items_between(&i.node.then_statement, s, e).or_else(|| {
            i.node
                .else_statement
                .as_ref()
                .and_then(|x| items_between(x, s, e))
        }),
        Statement::Labeled(l) => items_between(&l.node.statement, s, e),
        _ => None,
    }
}

/// Maximal affine regions of every function (`--auto-scop`): runs of consecutive statements of
/// one block that together satisfy the SCoP rules and contain at least one loop. Statements
/// that do not qualify are searched for smaller regions inside them.
pub fn automatic<'a>(
    src: &'a SourceUnit,
    custom: &mut dyn RosePollyCustom,
) -> Vec<FoundRegion<'a>> {
    let mut out = Vec::new();
    // Only the functions of the file polyc rewrites: a loop in an included header is left
    // alone (its text is not polyc's to replace), where a marked one is an error.
    let main = src.main_file();
    for f in functions(src).filter(|f| src.loc(f.span.start).file == main) {
        scan_statement(src, f, &f.node.statement, custom, &mut out);
    }
    out
}

fn scan_statement<'a>(
    src: &'a SourceUnit,
    f: &'a Node<FunctionDefinition>,
    st: &'a Node<Statement>,
    custom: &mut dyn RosePollyCustom,
    out: &mut Vec<FoundRegion<'a>>,
) {
    match &st.node {
        Statement::Compound(items) => scan_block(src, f, items, custom, out),
        Statement::For(x) => scan_statement(src, f, &x.node.statement, custom, out),
        Statement::While(x) => scan_statement(src, f, &x.node.statement, custom, out),
        Statement::DoWhile(x) => scan_statement(src, f, &x.node.statement, custom, out),
        Statement::If(x) => {
            scan_statement(src, f, &x.node.then_statement, custom, out);
            if let Some(e) = &x.node.else_statement {
                scan_statement(src, f, e, custom, out);
            }
        }
        Statement::Labeled(x) => scan_statement(src, f, &x.node.statement, custom, out),
        _ => {}
    }
}

fn scan_block<'a>(
    src: &'a SourceUnit,
    f: &'a Node<FunctionDefinition>,
    items: &'a [Node<BlockItem>],
    custom: &mut dyn RosePollyCustom,
    out: &mut Vec<FoundRegion<'a>>,
) {
    let mut run: Items<'a> = Vec::new();
    for item in items {
        let mut candidate = run.clone();
        candidate.push(item);
        if qualifies(src, f, &candidate, custom) {
            run = candidate;
            continue;
        }
        flush(src, f, std::mem::take(&mut run), out);
        if qualifies(src, f, &[item], custom) {
            run.push(item);
        } else if let BlockItem::Statement(s) = &item.node {
            scan_statement(src, f, s, custom, out);
        }
    }
    flush(src, f, run, out);
}

fn has_loop(items: &[&Node<BlockItem>]) -> bool {
    fn stmt_has_loop(s: &Statement) -> bool {
        match s {
            Statement::For(_) => true,
            Statement::Compound(items) => items
                .iter()
                .any(|i| matches!(&i.node, BlockItem::Statement(s) if stmt_has_loop(&s.node))),
            Statement::If(i) => {
                stmt_has_loop(&i.node.then_statement.node)
                    || i.node
                        .else_statement
                        .as_ref()
                        .is_some_and(|e| stmt_has_loop(&e.node))
            }
            _ => false,
        }
    }
    items
        .iter()
        .any(|i| matches!(&i.node, BlockItem::Statement(s) if stmt_has_loop(&s.node)))
}

fn flush<'a>(
    src: &'a SourceUnit,
    f: &'a Node<FunctionDefinition>,
    run: Items<'a>,
    out: &mut Vec<FoundRegion<'a>>,
) {
    if run.is_empty() || !has_loop(&run) {
        return;
    }
    let (start, end) = (run[0].span.start, item_end(run[run.len() - 1]));
    out.push(FoundRegion {
        function: f,
        region: Region {
            start: src.loc(start),
            end: src.loc(end.saturating_sub(1)),
            start_offset: start,
            end_offset: end,
            marked: false,
        },
        items: run,
    });
}

/// Would these items form a SCoP? (The SCoP rules only; no isl work.)
fn qualifies(
    src: &SourceUnit,
    f: &Node<FunctionDefinition>,
    items: &[&Node<BlockItem>],
    custom: &mut dyn RosePollyCustom,
) -> bool {
    if items
        .iter()
        .any(|i| !matches!(i.node, BlockItem::Statement(_)))
    {
        return false;
    }
    let Ok(flow) = FlowGraph::build(src, items) else {
        return false;
    };
    let scope = Scope::at(src, f, items[0].span.start);
    extract::analyze(&flow, &scope, custom).is_ok()
}
