//! Index-set splitting: a statement whose own dependences, at fixed outer iterators, all start
//! or end on a hyperplane becomes one statement per side of it.
//!
//! floyd-warshall's `path[i][j] = min(path[i][j], path[i][k] + path[k][j])` reads row `k` and
//! column `k`, which the same `k` iteration writes (at `i = k` and at `j = k`). As one
//! statement its `(i, j)` loops carry those dependences, so the scheduler finds no parallel loop
//! inside `k`: the GPU targets ran wavefronts of tiles, each tile a sequential sweep (490,000
//! launches at LARGE). Split at `i = k` and `j = k`, it becomes nine statements: every one has
//! no dependence on itself inside a `k` iteration, so each is parallel in both loops, and the
//! dependences left run between the pieces in one direction (the row and column `k` first, the
//! rest after), which the scheduler orders by distributing them.
//!
//! The hyperplanes come from the dependences themselves: the equalities of the affine hull of
//! their sources or of their sinks that the statement's domain does not imply (in the style of
//! Bondhugula et al.'s index-set splitting for parallelism). A split is kept only where it does
//! what it is for: every piece is free of dependences on itself at the outer iterators fixed.
//! The pieces are ordinary statements with the original's body, loops and line; their domains
//! partition the original's, so the scheduler and the code generators treat them like any
//! others (the brute-force enumerator runs the piece whose domain holds each instance). Their
//! dependences are the whole statement's, divided among them (`divide`): the same instance
//! pairs, at a fraction of the cost of analysing the pieces.

use crate::math::isl::{Ctx, DimType, Map, Set};
use crate::math::matrix::gcd;
use crate::math::{Domain, Relation};
use crate::model::affine::Affine;
use crate::model::{AccessKind, AccessPattern, Dependence, Scop, Split, Statement};

/// The most hyperplanes one statement is split at: each multiplies its pieces by three.
const MAX_HYPERPLANES: usize = 2;

/// Split the statements of `scop` that qualify (see the module's comment).
pub(crate) fn split_index_sets<'c>(ctx: &'c Ctx, scop: &mut Scop<'c>) {
    let n = scop.statements.len();
    for s in 0..n {
        if let Some(plan) = plan(ctx, scop, s) {
            apply(scop, s, plan);
        }
    }
}

/// A hyperplane `row · (params, iterators, 1) = 0` over a statement's domain.
type Hyperplane = Vec<i64>;

/// How statement `s` is split.
struct Plan<'c> {
    hyperplanes: Vec<Hyperplane>,
    /// The outer iterators held fixed: inside them each piece is parallel.
    prefix: usize,
    /// The pieces' domains, the original's first.
    pieces: Vec<Set<'c>>,
}

/// The split of statement `s` at the outermost prefix where one frees its inner loops.
fn plan<'c>(ctx: &'c Ctx, scop: &Scop<'c>, s: usize) -> Option<Plan<'c>> {
    let st = &scop.statements[s];
    let domain = st.domain.set();
    let writes = st.accesses.iter().any(|a| a.kind == AccessKind::Write);
    if st.depth() < 2 || !writes || domain.is_empty() || quasi_affine(st) {
        return None;
    }
    for prefix in 1..st.depth() {
        let deps = self_deps(ctx, scop, st, &domain, prefix)?;
        if deps.is_empty() {
            // Already free of dependences on itself inside these loops.
            return None;
        }
        let hyperplanes = hyperplanes(&deps, &domain, prefix);
        if hyperplanes.is_empty() || hyperplanes.len() > MAX_HYPERPLANES {
            continue;
        }
        let pieces = pieces(&domain, &hyperplanes)?;
        let free = pieces
            .iter()
            .all(|p| self_deps(ctx, scop, st, p, prefix).is_some_and(|d| d.is_empty()));
        if free && pieces.len() > 1 {
            return Some(Plan {
                hyperplanes,
                prefix,
                pieces,
            });
        }
    }
    None
}

/// Whether the statement's domain is more than one convex set or has integer divisions, or a
/// subscript is more than a sum of multiples (`(i + j) / 2`, `min`, `?:`): pieces of such a
/// statement multiply the disjunctions and existential variables that isl must handle (a random
/// program's, analysed piece by piece, took the dependence analysis past its budget).
fn quasi_affine(st: &Statement<'_>) -> bool {
    let convex = st.domain.set().basic_sets();
    convex.len() > 1
        || convex.iter().any(|b| b.dim(DimType::Div) > 0)
        || st
            .accesses
            .iter()
            .flat_map(|a| &a.subscripts)
            .any(|e| !linear(e))
}

/// Whether `e` is a sum of multiples of variables and constants.
fn linear(e: &Affine) -> bool {
    match e {
        Affine::Const(_) | Affine::Var(_) => true,
        Affine::Add(a, b) => linear(a) && linear(b),
        Affine::Mul(_, a) => linear(a),
        _ => false,
    }
}

/// The dependences of statement `st` on itself between instances of `piece` that share their
/// first `prefix` iterators: memory-based (flow, anti and output), in the original order.
fn self_deps<'c>(
    ctx: &'c Ctx,
    scop: &Scop<'c>,
    st: &Statement<'c>,
    piece: &Set<'c>,
    prefix: usize,
) -> Option<Map<'c>> {
    let schedule = st.schedule.map().intersect_domain(piece.clone());
    let earlier = schedule
        .clone()
        .apply_range(lex_lt(ctx, schedule.dim(DimType::Out))?)
        .apply_range(schedule.reverse());
    let same_outer = same_prefix(ctx, scop, st, prefix)?;
    let order = earlier.intersect(same_outer);
    let mut deps: Option<Map<'c>> = None;
    for w in st.accesses.iter().filter(|a| a.kind == AccessKind::Write) {
        for a in st.accesses.iter().filter(|a| a.datum == w.datum) {
            let w_rel = w.relation.map();
            let a_rel = a.relation.map();
            // W(x) = A(y): flow and output; A(x) = W(y): anti.
            let pair = w_rel
                .clone()
                .apply_range(a_rel.clone().reverse())
                .union(a_rel.apply_range(w_rel.reverse()))
                .intersect(order.clone());
            deps = Some(match deps {
                Some(d) => d.union(pair),
                None => pair,
            });
        }
    }
    deps.map(|d| d.coalesce())
}

/// `{ [x] -> [y] : x ≺ y }` over `n` dimensions.
fn lex_lt(ctx: &Ctx, n: usize) -> Option<Map<'_>> {
    let xs: Vec<String> = (0..n).map(|k| format!("x{k}")).collect();
    let ys: Vec<String> = (0..n).map(|k| format!("y{k}")).collect();
    let cases: Vec<String> = (0..n)
        .map(|k| {
            let equal = (0..k).map(|e| format!("x{e} = y{e} and "));
            format!("({}x{k} < y{k})", equal.collect::<String>())
        })
        .collect();
    let text = format!(
        "{{ [{}] -> [{}] : {} }}",
        xs.join(", "),
        ys.join(", "),
        cases.join(" or ")
    );
    Map::parse(ctx, &text).ok()
}

/// `{ S[x] -> S[y] : x_k = y_k for k < prefix }` in the statement's space.
fn same_prefix<'c>(
    ctx: &'c Ctx,
    scop: &Scop<'c>,
    st: &Statement<'c>,
    prefix: usize,
) -> Option<Map<'c>> {
    let tuple = st.domain.tuple_name()?;
    let n = st.depth();
    let xs: Vec<String> = (0..n).map(|k| format!("x{k}")).collect();
    let ys: Vec<String> = (0..n).map(|k| format!("y{k}")).collect();
    let eqs: Vec<String> = (0..prefix).map(|k| format!("x{k} = y{k}")).collect();
    let text = format!(
        "{}{{ {tuple}[{}] -> {tuple}[{}] : {} }}",
        scop.isl_params(),
        xs.join(", "),
        ys.join(", "),
        eqs.join(" and ")
    );
    Map::parse(ctx, &text).ok()
}

/// The equalities that the sources, or the sinks, of a convex part of `deps` satisfy and
/// `domain` does not, over
/// an iterator at position `prefix` or deeper (splitting on outer iterators alone frees nothing
/// inside them); normalised and without repeats.
fn hyperplanes(deps: &Map<'_>, domain: &Set<'_>, prefix: usize) -> Vec<Hyperplane> {
    let nparams = domain.dim(DimType::Param);
    let ndims = domain.dim(DimType::Set);
    let mut out: Vec<Hyperplane> = Vec::new();
    let ends = deps.basic_maps().into_iter().flat_map(|b| {
        let m = b.to_map();
        [m.clone().domain(), m.range()]
    });
    for ends in ends {
        let hull = ends.affine_hull();
        if hull.dim(DimType::Div) > 0 {
            continue;
        }
        let Some((equalities, _)) = hull.try_constraint_rows() else {
            continue;
        };
        for row in equalities {
            let inner = row[nparams + prefix..nparams + ndims]
                .iter()
                .any(|&c| c != 0);
            let row = normalised(row);
            if !inner || out.contains(&row) || implied(domain, &row) {
                continue;
            }
            out.push(row);
        }
    }
    out
}

/// `row` divided by the gcd of its entries, its last non-zero iterator coefficient positive.
fn normalised(mut row: Vec<i64>) -> Vec<i64> {
    let g = row.iter().fold(0, |g, &c| gcd(g, c));
    if g > 1 {
        row.iter_mut().for_each(|c| *c /= g);
    }
    let last = row[..row.len() - 1].iter().rev().find(|&&c| c != 0);
    if last.is_some_and(|&c| c < 0) {
        row.iter_mut().for_each(|c| *c = -*c);
    }
    row
}

/// Whether every point of `domain` lies on the hyperplane.
fn implied(domain: &Set<'_>, row: &[i64]) -> bool {
    side(domain, row, Side::Equal).is_some_and(|on| domain.is_subset(&on))
}

#[derive(Clone, Copy)]
enum Side {
    Below,
    Equal,
    Above,
}

/// The points of `domain` on one side of the hyperplane `row`.
fn side<'c>(domain: &Set<'c>, row: &[i64], side: Side) -> Option<Set<'c>> {
    let params: Vec<String> = (0..domain.dim(DimType::Param))
        .map(|k| domain.dim_name(DimType::Param, k))
        .collect::<Option<_>>()?;
    let dims: Vec<String> = (0..domain.dim(DimType::Set))
        .map(|k| domain.dim_name(DimType::Set, k))
        .collect::<Option<_>>()?;
    let terms: Vec<String> = params
        .iter()
        .chain(&dims)
        .zip(row)
        .filter(|(_, &c)| c != 0)
        .map(|(v, c)| format!("{c}*{v}"))
        .chain(std::iter::once(row[row.len() - 1].to_string()))
        .collect();
    let op = match side {
        Side::Below => "<",
        Side::Equal => "=",
        Side::Above => ">",
    };
    let text = format!(
        "[{}] -> {{ {}[{}] : {} {op} 0 }}",
        params.join(", "),
        domain.tuple_name().unwrap_or_default(),
        dims.join(", "),
        terms.join(" + ")
    );
    Some(domain.parse_sibling(&text).ok()?.intersect(domain.clone()))
}

/// `domain` cut by every hyperplane into its non-empty pieces, in the order below, on, above
/// (the first hyperplane outermost).
fn pieces<'c>(domain: &Set<'c>, hyperplanes: &[Hyperplane]) -> Option<Vec<Set<'c>>> {
    let mut pieces = vec![domain.clone()];
    for row in hyperplanes {
        let mut next = Vec::new();
        for p in &pieces {
            for s in [Side::Below, Side::Equal, Side::Above] {
                let part = side(p, row, s)?;
                if !part.is_empty() {
                    next.push(part);
                }
            }
        }
        pieces = next;
    }
    Some(pieces)
}

/// Replace statement `s` by its pieces: the first keeps its name and place, the others are new
/// statements after the SCoP's last.
fn apply<'c>(scop: &mut Scop<'c>, s: usize, plan: Plan<'c>) {
    let original = scop.statements[s].name.clone();
    let mut names = vec![original.clone()];
    let mut pieces = plan.pieces.into_iter();
    let first = pieces.next().expect("a split has pieces");
    for domain in pieces {
        let n = scop.statements.len();
        let (name, tuple) = scop.next_statement_name();
        let piece = piece(&scop.statements[s], n, &name, &tuple, domain);
        scop.statements.push(piece);
        names.push(name);
    }
    let st = &mut scop.statements[s];
    let tuple = st.domain.tuple_name().unwrap_or_default();
    let kept = piece(st, s, &original, &tuple, first);
    *st = kept;
    let hyperplanes = plan
        .hyperplanes
        .iter()
        .map(|h| text_of(h, &scop.statements[s]))
        .collect();
    scop.splits.push(Split {
        statement: original,
        hyperplanes,
        outer: plan.prefix,
        pieces: names,
    });
}

/// Statement `st` restricted to `domain`, as statement `id` named `name` (isl tuple `tuple`).
fn piece<'c>(
    st: &Statement<'c>,
    id: usize,
    name: &str,
    tuple: &str,
    domain: Set<'c>,
) -> Statement<'c> {
    let restrict = |m: Map<'c>| {
        Relation::new(
            m.intersect_domain(domain.clone())
                .set_tuple_name(DimType::In, tuple)
                .coalesce(),
        )
    };
    Statement {
        id,
        name: name.to_string(),
        loc: st.loc.clone(),
        text: st.text.clone(),
        body: st.body.clone(),
        iterators: st.iterators.clone(),
        iterator_types: st.iterator_types.clone(),
        casts: st.casts,
        loops: st.loops.clone(),
        flow_id: st.flow_id,
        domain: Domain::new(domain.clone().set_tuple_name(tuple).coalesce()),
        schedule: restrict(st.schedule.map()),
        beta: st.beta.clone(),
        accesses: st
            .accesses
            .iter()
            .map(|a| AccessPattern {
                datum: a.datum.clone(),
                kind: a.kind,
                subscripts: a.subscripts.clone(),
                relation: restrict(a.relation.map()),
            })
            .collect(),
    }
}

/// `j = k`: the hyperplane in the statement's C names.
fn text_of(row: &[i64], st: &Statement<'_>) -> String {
    let dims = st.domain.dim_names();
    let params = st.domain.param_names();
    let names: Vec<&String> = params.iter().chain(&dims).collect();
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for (v, &c) in names.iter().zip(row) {
        let side = if c > 0 { &mut left } else { &mut right };
        match c.abs() {
            0 => {}
            1 => side.push(v.to_string()),
            m => side.push(format!("{m}*{v}")),
        }
    }
    let c = row[row.len() - 1];
    match c.signum() {
        1 => left.push(c.to_string()),
        -1 => right.push((-c).to_string()),
        _ => {}
    }
    let join = |v: Vec<String>| {
        if v.is_empty() {
            "0".to_string()
        } else {
            v.join(" + ")
        }
    };
    format!("{} = {}", join(left), join(right))
}

/// `deps`, computed on the statements before they were split, divided among the pieces: each
/// dependence of a split statement becomes one per pair of pieces its instance pairs fall in
/// (the same pairs, so what held of the whole relations holds of the parts).
pub(crate) fn divide<'c>(scop: &Scop<'c>, deps: Vec<Dependence<'c>>) -> Vec<Dependence<'c>> {
    if scop.splits.is_empty() {
        return deps;
    }
    let index = |name: &str| scop.statements.iter().position(|s| s.name == name);
    let pieces_of = |s: usize| -> Vec<usize> {
        let name = &scop.statements[s].name;
        match scop.splits.iter().find(|p| &p.statement == name) {
            Some(split) => split.pieces.iter().filter_map(|p| index(p)).collect(),
            None => vec![s],
        }
    };
    let tuple = |s: usize| scop.statements[s].domain.tuple_name().unwrap_or_default();
    let mut out = Vec::new();
    for d in deps {
        let (sources, sinks) = (pieces_of(d.source), pieces_of(d.sink));
        if sources.len() == 1 && sinks.len() == 1 {
            out.push(d);
            continue;
        }
        // The first piece of a statement kept its tuple, which the relation names.
        let (from, to) = (tuple(d.source), tuple(d.sink));
        for &a in &sources {
            for &b in &sinks {
                let part = d
                    .relation
                    .map()
                    .intersect_domain(scop.statements[a].domain.set().set_tuple_name(&from))
                    .intersect_range(scop.statements[b].domain.set().set_tuple_name(&to));
                if part.is_empty() {
                    continue;
                }
                let part = part
                    .set_tuple_name(DimType::In, &tuple(a))
                    .set_tuple_name(DimType::Out, &tuple(b))
                    .coalesce();
                out.push(Dependence {
                    kind: d.kind,
                    source: a,
                    sink: b,
                    datum: d.datum.clone(),
                    relation: Relation::new(part),
                });
            }
        }
    }
    out
}
