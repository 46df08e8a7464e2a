//! Exact dependence analysis with isl's array dataflow analysis.
//!
//! Per datum: *flow* dependences are value-based (each read depends on the last write of the
//! same element before it); *anti* and *output* dependences are memory-based (every earlier
//! read, respectively write, of the element that a write overwrites). Scalars are
//! zero-dimensional arrays. Statement instances are ordered by the original schedule.
//!
//! [`direct`] gives the same order constraints with fewer pairs: each read to the *next* write
//! of its element, each write to the next write. Every memory-based pair is a chain of direct
//! pairs, so a schedule respects all of them exactly when it respects the direct ones; the
//! scheduler uses these (the memory-based relations of a stencil are large and make Farkas'
//! lemma expensive), the legality check uses the complete ones.

use std::collections::HashMap;

use crate::math::isl::{
    Ctx, Dataflow, DimType, FlowResult, IslError, Map as IslMap, Set as IslSet, UnionMap,
};
use crate::math::Relation;
use crate::model::{AccessKind, DepKind, Dependence, Scop};

/// The isl operations each step of a bounded analysis ([`try_compute`]) may take: one dataflow
/// computation or one coalescing. Every suite kernel compiles with a twentieth of it (100,000);
/// random program 9 of the rich generator, whose analysis took 21 s, stops after about 3 s
/// (docs/decisions.md, "Bounds").
pub const STEP_BUDGET: u64 = 2_000_000;

/// The time each step of a bounded analysis may take, on top of [`STEP_BUDGET`]: isl counts
/// operations unevenly (2,000,000 took 1 s on one random program, 47 s on another), so a step
/// is also stopped after this long. The suite's steps take under 0.1 s: only pathological inputs
/// can come out differently on a slower machine.
pub const STEP_TIME: std::time::Duration = std::time::Duration::from_secs(4);

/// The isl operations the check of isl's exact dataflow answer ([`holds`]) may take, always
/// (also in an unbounded analysis: a check that does not end keeps the larger answer instead).
const CHECK_BUDGET: u64 = STEP_BUDGET;

/// A bounded analysis ran over [`STEP_BUDGET`] or [`STEP_TIME`] in one of its steps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the dependence analysis ran over its budget ({STEP_BUDGET} isl operations or {} s in one step)", STEP_TIME.as_secs())]
pub struct OverBudget;

/// All dependences of a SCoP, sorted by kind, source, sink and datum.
pub fn compute<'c>(ctx: &'c Ctx, scop: &Scop<'c>) -> Vec<Dependence<'c>> {
    analyze(ctx, scop, Wanted::Complete, None)
        .expect("an unbounded analysis ends")
        .complete
}

/// [`compute`] with each step bounded by [`STEP_BUDGET`] isl operations and [`STEP_TIME`].
pub fn try_compute<'c>(ctx: &'c Ctx, scop: &Scop<'c>) -> Result<Vec<Dependence<'c>>, OverBudget> {
    Ok(analyze(ctx, scop, Wanted::Complete, Some(STEP_BUDGET))?.complete)
}

/// [`try_compute`] and [`try_direct`] at once, sharing the flow dependences: what extraction
/// stores in [`Scop::dependences`] and [`Scop::direct_dependences`].
pub fn try_compute_both<'c>(ctx: &'c Ctx, scop: &Scop<'c>) -> Result<Analysed<'c>, OverBudget> {
    analyze(ctx, scop, Wanted::Both, Some(STEP_BUDGET))
}

/// Flow dependences, and anti and output dependences between consecutive accesses only.
pub fn direct<'c>(ctx: &'c Ctx, scop: &Scop<'c>) -> Vec<Dependence<'c>> {
    match &scop.direct_dependences {
        Some(d) => d.clone(),
        None => {
            analyze(ctx, scop, Wanted::Direct, None)
                .expect("an unbounded analysis ends")
                .direct
        }
    }
}

/// [`direct`] with each step bounded like [`try_compute`]'s (the scheduler's). The scheduler,
/// Algorithm 4 and every GPU group's barrier check ask for these: the ones extraction stored
/// are reused (recomputing them was most of adi's GPU compile time).
pub fn try_direct<'c>(ctx: &'c Ctx, scop: &Scop<'c>) -> Result<Vec<Dependence<'c>>, OverBudget> {
    match &scop.direct_dependences {
        Some(d) => Ok(d.clone()),
        None => Ok(analyze(ctx, scop, Wanted::Direct, Some(STEP_BUDGET))?.direct),
    }
}

/// Which dependences [`analyze`] computes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Wanted {
    Complete,
    Direct,
    Both,
}

impl Wanted {
    fn complete(self) -> bool {
        self != Wanted::Direct
    }
    fn direct(self) -> bool {
        self != Wanted::Complete
    }
}

/// The complete and the direct dependences of a SCoP (each empty where not asked for), sorted
/// by kind, source, sink and datum.
pub struct Analysed<'c> {
    pub complete: Vec<Dependence<'c>>,
    pub direct: Vec<Dependence<'c>>,
    /// The data whose last writers isl could not give exactly (or whose answer could not be
    /// checked), so that every earlier write stands for them: more dependences than exist, a
    /// schedule legal for them is legal (a fallback `--dump schedule` lists).
    pub approximated: Vec<String>,
}

/// One expensive isl step of the analysis, under `budget` isl operations and [`STEP_TIME`] when
/// there is a budget (both lifted again after it, so that the cheap calls between never fail).
fn step<T>(
    ctx: &Ctx,
    budget: Option<u64>,
    f: impl FnOnce() -> Result<T, IslError>,
) -> Result<Result<T, IslError>, OverBudget> {
    match budget {
        None => Ok(f()),
        Some(b) => ctx.bounded(b, STEP_TIME, f).ok_or(OverBudget),
    }
}

fn analyze<'c>(
    ctx: &'c Ctx,
    scop: &Scop<'c>,
    wanted: Wanted,
    budget: Option<u64>,
) -> Result<Analysed<'c>, OverBudget> {
    let schedule = original_order(ctx, scop, false);
    let reversed = original_order(ctx, scop, true);
    let by_name: HashMap<String, usize> = scop
        .statements
        .iter()
        .map(|s| {
            (
                s.domain
                    .isl()
                    .tuple_name()
                    .expect("statement domains are named"),
                s.id,
            )
        })
        .collect();
    let mut out = Analysed {
        complete: Vec::new(),
        direct: Vec::new(),
        approximated: Vec::new(),
    };
    for datum in scop.symbols.data.keys() {
        let (reads, writes) = (
            accesses(ctx, scop, datum, AccessKind::Read),
            accesses(ctx, scop, datum, AccessKind::Write),
        );
        if writes.is_empty() {
            continue;
        }
        let (flow, exact) = last(ctx, budget, &reads, &writes, &schedule)?;
        let mut approximated = !exact;
        let push = |out: &mut Vec<Dependence<'c>>, kind, rel: UnionMap<'c>, simplify: bool| {
            for m in rel.maps() {
                if m.is_empty() {
                    continue;
                }
                let src = by_name[&m.in_tuple_name().expect("named source")];
                let sink = by_name[&m.out_tuple_name().expect("named sink")];
                let m = if simplify {
                    let whole = m.clone();
                    step(ctx, budget, || m.try_simplify())?.unwrap_or(whole)
                } else {
                    m
                };
                out.push(Dependence {
                    kind,
                    source: src,
                    sink,
                    datum: datum.clone(),
                    relation: Relation::new(m),
                });
            }
            Ok(())
        };
        if wanted.direct() {
            // The first write after each read: the last one before it in reversed time.
            let (next_write, exact_anti) = last(ctx, budget, &reads, &writes, &reversed)?;
            let (output, exact_output) = last(ctx, budget, &writes, &writes, &schedule)?;
            approximated |= !exact_anti || !exact_output;
            let next_write = next_write.reverse();
            for (kind, rel) in [
                (DepKind::Flow, flow.clone()),
                (DepKind::Anti, next_write),
                (DepKind::Output, output),
            ] {
                push(&mut out.direct, kind, rel, false)?;
            }
        }
        if wanted.complete() {
            let anti = all_earlier(ctx, budget, &writes, &reads, &schedule)?;
            let output = all_earlier(ctx, budget, &writes, &writes, &schedule)?;
            for (kind, rel) in [
                (DepKind::Flow, flow.clone()),
                (DepKind::Anti, anti),
                (DepKind::Output, output),
            ] {
                // Coalescing merges a stencil's uniform pieces into one polyhedron with many
                // faces: good to read, expensive for Farkas' lemma. The scheduler gets the
                // direct dependences' pieces.
                let whole = rel.clone();
                let rel = step(ctx, budget, || rel.try_coalesce())?.unwrap_or(whole);
                push(&mut out.complete, kind, rel, true)?;
            }
        }
        if approximated {
            out.approximated.push(datum.clone());
        }
    }
    for deps in [&mut out.complete, &mut out.direct] {
        deps.sort_by(|a, b| {
            (a.kind, a.source, a.sink, &a.datum).cmp(&(b.kind, b.source, b.sink, &b.datum))
        });
    }
    Ok(out)
}

/// The elements of `datum` whose values from before the SCoP are read (a read with no earlier
/// write of its element in the original order): what the device needs from the host. `None`
/// when there are none.
pub fn live_in<'c>(ctx: &'c Ctx, scop: &Scop<'c>, datum: &str) -> Option<IslSet<'c>> {
    // Where isl's analysis fails, every element read (more to copy in, never less).
    let unreached = match read_flow(ctx, scop, datum) {
        Some(flow) => flow.must_no_source,
        None => accesses(ctx, scop, datum, AccessKind::Read),
    };
    unreached
        .maps()
        .into_iter()
        .map(|m| m.range())
        .reduce(|a, b| a.union(b))
        .map(|s| s.coalesce())
        .filter(|s| !s.is_empty())
}

/// The value flow of one datum: each read's last write before it (source instance → sink
/// instance, one map per pair of statements), and the names of the statements with a read that
/// no write of the SCoP reaches (it reads the value from before the SCoP).
pub fn value_flow<'c>(
    ctx: &'c Ctx,
    scop: &Scop<'c>,
    datum: &str,
) -> (Vec<IslMap<'c>>, Vec<String>) {
    let Some(flow) = read_flow(ctx, scop, datum) else {
        // Where isl's analysis fails, every reading statement counts as reading the value from
        // before the SCoP: its scalar is then not expanded.
        let readers = accesses(ctx, scop, datum, AccessKind::Read)
            .maps()
            .into_iter()
            .filter_map(|m| m.in_tuple_name())
            .collect();
        return (Vec::new(), readers);
    };
    let pairs = flow
        .must_dependence
        .maps()
        .into_iter()
        .filter(|m| !m.is_empty())
        .collect();
    let unreached = flow
        .must_no_source
        .maps()
        .into_iter()
        .filter(|m| !m.is_empty())
        .filter_map(|m| m.in_tuple_name())
        .collect();
    (pairs, unreached)
}

/// isl's dataflow analysis of `datum`'s reads against its writes, in the original order; None
/// where isl fails on it (see [`last`]).
fn read_flow<'c>(ctx: &'c Ctx, scop: &Scop<'c>, datum: &str) -> Option<FlowResult<'c>> {
    Dataflow {
        sink: accesses(ctx, scop, datum, AccessKind::Read),
        must_source: accesses(ctx, scop, datum, AccessKind::Write),
        may_source: UnionMap::empty(ctx),
        schedule: original_order(ctx, scop, false),
    }
    .try_compute(ctx)
    .ok()
}

/// Every access of `kind` to `datum`: statement instance → element.
fn accesses<'c>(ctx: &'c Ctx, scop: &Scop<'c>, datum: &str, kind: AccessKind) -> UnionMap<'c> {
    scop.statements
        .iter()
        .flat_map(|s| s.accesses.iter())
        .filter(|a| a.datum == datum && a.kind == kind)
        .fold(UnionMap::empty(ctx), |u, a| {
            u.add_map(a.relation.isl().clone())
        })
}

/// The original schedules of all statements (negated to run time backwards).
fn original_order<'c>(ctx: &'c Ctx, scop: &Scop<'c>, reverse: bool) -> UnionMap<'c> {
    scop.statements.iter().fold(UnionMap::empty(ctx), |u, s| {
        let m = s.schedule.isl().clone();
        let m = if reverse {
            let n = s.schedule.n_out();
            let xs: Vec<String> = (0..n).map(|k| format!("x{k}")).collect();
            let neg: Vec<String> = xs.iter().map(|x| format!("-{x}")).collect();
            let text = format!("{{ [{}] -> [{}] }}", xs.join(", "), neg.join(", "));
            m.apply_range(IslMap::parse(ctx, &text).expect("negation parses"))
        } else {
            m
        };
        u.add_map(m)
    })
}

/// Source → sink for the last source access before each sink access (sources kill), and whether
/// that is exact. Where isl fails on it (isl 0.27 reports "affine expression involves some of the domain dimensions" on
/// some strided nests with conditions: `tests/inputs/semantics/dataflow-fallback.c`), every
/// earlier source instead: more dependences, so a schedule legal for them is legal.
fn last<'c>(
    ctx: &'c Ctx,
    budget: Option<u64>,
    sinks: &UnionMap<'c>,
    sources: &UnionMap<'c>,
    schedule: &UnionMap<'c>,
) -> Result<(UnionMap<'c>, bool), OverBudget> {
    let exact = step(ctx, budget, || {
        Dataflow {
            sink: sinks.clone(),
            must_source: sources.clone(),
            may_source: UnionMap::empty(ctx),
            schedule: schedule.clone(),
        }
        .try_compute(ctx)
    })?;
    match exact {
        // Checked only where an access or the order has existential variables (strides,
        // `mod`): both wrong answers below had them, and the check costs a second dataflow
        // analysis, which made deriche's compilation five times slower.
        Ok(flow) if !(has_divs(sinks) || has_divs(sources) || has_divs(schedule)) => {
            Ok((flow.must_dependence, true))
        }
        Ok(flow) => {
            let every = all_earlier(ctx, budget, sinks, sources, schedule)?;
            // A check over its budget keeps `every` too (differential seed 29033's ran for
            // minutes in isl's subset test before it was bounded).
            let checked = ctx
                .bounded(CHECK_BUDGET, STEP_TIME, || {
                    holds(&flow.must_dependence, &every, sources, schedule)
                })
                .and_then(Result::ok);
            Ok(if checked == Some(true) {
                (flow.must_dependence, true)
            } else {
                (every, false)
            })
        }
        Err(_) => Ok((all_earlier(ctx, budget, sinks, sources, schedule)?, false)),
    }
}

/// Whether isl's exact answer `exact` (last source -> sink) agrees with `every` (each earlier
/// source -> sink, `sources` tagged with the elements they write).
///
/// isl 0.27 can name a source that a later write overwrote before the sink read it: for
/// `for (j = 0; j <= i; j += 2) for (k = j + 1; k < n; k++) s = ...;` it gave `j = 0` as the last
/// writer of `s` in every iteration `i` (differential seed 26387,
/// `tests/inputs/semantics/dataflow-stale-source.c`). It can also give a read no source though an
/// earlier write wrote its element (seed 28744, most reads of `x` in a second nest:
/// `tests/inputs/semantics/dataflow-missing-source.c`).
fn holds<'c>(
    exact: &UnionMap<'c>,
    every: &UnionMap<'c>,
    sources: &UnionMap<'c>,
    schedule: &UnionMap<'c>,
) -> Result<bool, IslError> {
    // Source -> [sink -> element], so that a source and a later write meet only through the
    // same sink instance reading the same element.
    let tagged = |deps: &UnionMap<'c>| deps.clone().try_range_product(sources.clone());
    let later = tagged(exact)?
        .try_apply_range(tagged(every)?.try_reverse()?)?
        .try_intersect(schedule.clone().try_lex_lt_union_map(schedule.clone())?)?;
    Ok(later.try_is_empty()?
        && tagged(every)?
            .try_range()?
            .try_is_subset(&tagged(exact)?.try_range()?)?)
}

/// Whether some piece of `u` has existentially quantified variables.
fn has_divs(u: &UnionMap) -> bool {
    u.maps()
        .iter()
        .any(|m| m.basic_maps().iter().any(|b| b.dim(DimType::Div) > 0))
}

/// Source → sink for every source access before each sink access (nothing kills).
fn all_earlier<'c>(
    ctx: &'c Ctx,
    budget: Option<u64>,
    sinks: &UnionMap<'c>,
    sources: &UnionMap<'c>,
    schedule: &UnionMap<'c>,
) -> Result<UnionMap<'c>, OverBudget> {
    let flow = step(ctx, budget, || {
        Dataflow {
            sink: sinks.clone(),
            must_source: UnionMap::empty(ctx),
            may_source: sources.clone(),
            schedule: schedule.clone(),
        }
        .try_compute(ctx)
    })?;
    Ok(flow
        .unwrap_or_else(|e| panic!("internal error in polyc's use of isl: {e}"))
        .may_dependence)
}
