//! Scalar expansion (privatisation by expansion): a scalar that carries no value from one
//! iteration of its loops to the next is given one element per iteration.
//!
//! A scalar such as ludcmp's `w` or symm's `temp2` is written at the start of every iteration
//! of its loops and read only later in the same iteration: its true dependences stay inside an
//! iteration, but as one memory cell it also carries anti and output dependences from each
//! iteration to the next, which serialise every loop around it. Expanding it to an array
//! indexed by those loops (`w` becomes `polyc_exp0_w[i][j]`) removes exactly those false
//! dependences: each read still reads the value of the same write, and the scheduler is free
//! to reorder, parallelise and tile the iterations.
//!
//! The scalar's uses split into *webs*: the statements linked by its value flow (a read and the
//! last write before it are in one web). Each web is expanded on its own, over the loops all its
//! statements share, as deep as every flow in the web stays within one iteration of them
//! (checked with isl's dataflow analysis). A web is left alone when a read in it may see the
//! value from before the SCoP, or when a loop's iterator could be negative or unbounded there.
//! The scalar must be local to the function and unread outside the SCoP, so no code sees the
//! value the SCoP leaves in it (the expanded arrays are never copied back).
//!
//! Arrays are expanded the same way where that frees a loop (`expand_arrays`), with their
//! final values copied back.

use std::collections::{BTreeMap, BTreeSet};

use crate::analysis::deps;
use crate::analysis::footprint::hull_bounds;
use crate::math::isl::{Ctx, DimType, Map, Set};
use crate::math::{Domain, Relation};
use crate::model::affine::Affine;
use crate::model::expr::{BinaryOp, Expr};
use crate::model::{AccessKind, AccessPattern, Datum, Scop, Storage};

/// The most loops a scalar is expanded over. Each one multiplies the memory: a temporary of a
/// 3-deep nest expanded over all three takes as much as a 3-D array, where two already free the
/// outer loops, which are the ones tiles and threads use (no suite kernel needs more).
const MAX_DIMS: usize = 2;

/// The multiple of elements the rows of an expanded array are padded to.
const ROW_MULTIPLE: i64 = 16;

/// Expand the scalars of `scop` that qualify. `live`: names code outside the SCoP uses;
/// `taken`: whether a name is used anywhere in the translation unit.
pub(crate) fn expand_scalars<'c>(
    ctx: &'c Ctx,
    scop: &mut Scop<'c>,
    live: &BTreeSet<String>,
    taken: &dyn Fn(&str) -> bool,
) {
    let candidates: Vec<String> = scop
        .symbols
        .data
        .values()
        .filter(|d| d.is_scalar() && d.written && !live.contains(&d.name))
        .filter(|d| matches!(d.storage, Storage::Local | Storage::Parameter))
        .map(|d| d.name.clone())
        .collect();
    let mut serial = 0;
    for scalar in candidates {
        for web in webs(ctx, scop, &scalar) {
            let Some(plan) = plan(ctx, scop, &web) else {
                continue;
            };
            let name = fresh_name(scop, &scalar, &mut serial, taken);
            rewrite(scop, &scalar, &name, &web, &plan);
        }
        refresh(scop, &scalar);
    }
}

/// Expand the arrays of `scop` that qualify: like a scalar, an array whose elements carry no
/// value from one iteration of its loops to the next (doitgen's `sum[p]`, rewritten in every
/// iteration `(r, q)`) gets one copy per iteration, `sum[p]` becoming `polyc_exp0_sum[r][q][p]`.
///
/// Unlike a scalar's, an array's values stay visible after the SCoP (a parameter, a global), so
/// each element's last value goes back by copy-out statements ([`super::copy_out`]). And an
/// array is expanded over a loop only where that frees the loop: where its iterations reuse the
/// array's elements and no other data is shared between them (no memory-based dependence of
/// other data is carried by it), as in doitgen. A stencil's second array (jacobi's `B`, rewritten in
/// every time step) would otherwise be copied per time step for nothing, the other array still
/// carrying the time loop. One web must hold every access of the array, so that the copy-out
/// restores all of it.
pub(crate) fn expand_arrays<'c>(ctx: &'c Ctx, scop: &mut Scop<'c>, taken: &dyn Fn(&str) -> bool) {
    let candidates: Vec<String> = scop
        .symbols
        .data
        .values()
        .filter(|d| !d.is_scalar() && d.written && d.expands.is_none())
        .filter(|d| d.extents.iter().all(Option::is_some))
        .filter(|d| !d.written_type.contains("volatile") && !d.written_type.contains("_Atomic"))
        .map(|d| d.name.clone())
        .collect();
    let mut serial = 0;
    for array in candidates {
        // Loops whose iterations share elements of the array (else a copy per iteration only
        // takes memory: 3mm's `G[i][j]`) and that nothing else serialises; the outermost is
        // asked first, before the array's dataflow is computed.
        let frees = |scop: &Scop, shared: &[usize], k: usize| {
            let by = |same: bool| conflicts(scop, |d| (d == array) == same, shared[k], k);
            by(true) && !by(false)
        };
        let users: Vec<usize> = (0..scop.statements.len())
            .filter(|&s| scop.statements[s].accesses.iter().any(|a| a.datum == array))
            .collect();
        let around = shared_loops_of(scop, &users);
        if around.is_empty() || !frees(scop, &around, 0) {
            continue;
        }
        let Some(web) = whole_web(ctx, scop, &array, users.len()) else {
            continue;
        };
        let within = within(scop, &web);
        if within == 0 || !super::copy_out::possible(scop, &array, &web.statements) {
            continue;
        }
        // No more dimensions than the SCoP's largest other array has: `T[j][k]` rewritten in
        // every `(t, i)` of an N^2 problem would otherwise take N^4 elements.
        let own = scop.symbols.get(&array).map_or(0, |d| d.extents.len());
        let room = largest_other(scop, &array).saturating_sub(own);
        let freed = (0..within.min(room))
            .take_while(|&k| frees(scop, &around, k))
            .count();
        let Some(plan) = plan_over(ctx, scop, &web, freed, false) else {
            continue;
        };
        let name = fresh_name(scop, &array, &mut serial, taken);
        let last = super::copy_out::last_writes(scop, &array, &web.statements);
        rewrite(scop, &array, &name, &web, &plan);
        super::copy_out::add(ctx, scop, &name, last);
        refresh(scop, &array);
    }
}

/// The most dimensions of an array of the SCoP other than `array` (expanded arrays included).
fn largest_other(scop: &Scop, array: &str) -> usize {
    scop.symbols
        .data
        .values()
        .filter(|d| d.name != array)
        .map(|d| d.extents.len())
        .max()
        .unwrap_or(0)
}

/// The one web of `array` if it holds every statement that accesses it (`users` of them).
fn whole_web<'c>(ctx: &'c Ctx, scop: &Scop<'c>, array: &str, users: usize) -> Option<Web<'c>> {
    let mut webs = webs(ctx, scop, array);
    (webs.len() == 1 && webs[0].statements.len() == users).then(|| webs.remove(0))
}

/// Whether two accesses to the same element of data that `which` selects, one of them a write,
/// lie in different iterations of loop `id`, the `k`-th around both statements: a memory-based
/// dependence carried by the loop. It decides only where expansion pays, so it may err towards
/// "carried" (no kills, unlike the dataflow analysis), and costs no dependence analysis (adi's and
/// jacobi-2d's compilations took 0.05-0.08 s longer with one).
fn conflicts(scop: &Scop, which: impl Fn(&str) -> bool, id: usize, k: usize) -> bool {
    let accesses: Vec<&AccessPattern> = scop
        .statements
        .iter()
        .filter(|s| s.loops.get(k) == Some(&id))
        .flat_map(|s| s.accesses.iter())
        .filter(|a| which(&a.datum))
        .collect();
    accesses.iter().any(|a| {
        a.kind == AccessKind::Write
            && accesses.iter().any(|b| {
                b.datum == a.datum && {
                    let pairs = a
                        .relation
                        .isl()
                        .clone()
                        .apply_range(b.relation.isl().clone().reverse());
                    !same_iteration(&pairs, k)
                }
            })
    })
}

/// The scalar's entry after some of its webs went to arrays: gone when none is left, its read
/// and written flags those of the accesses that are.
fn refresh(scop: &mut Scop, scalar: &str) {
    let kinds: BTreeSet<AccessKind> = scop
        .statements
        .iter()
        .flat_map(|s| s.accesses.iter())
        .filter(|a| a.datum == scalar)
        .map(|a| a.kind)
        .collect();
    if kinds.is_empty() {
        scop.symbols.data.remove(scalar);
    } else if let Some(d) = scop.symbols.data.get_mut(scalar) {
        d.read = kinds.contains(&AccessKind::Read);
        d.written = kinds.contains(&AccessKind::Write);
    }
}

/// The statements of one web of a scalar, and its value flow among them.
struct Web<'c> {
    statements: Vec<usize>,
    flow: Vec<Map<'c>>,
}

/// The webs of `scalar` whose reads all see values the SCoP wrote.
fn webs<'c>(ctx: &'c Ctx, scop: &Scop<'c>, scalar: &str) -> Vec<Web<'c>> {
    let (flow, unreached) = deps::value_flow(ctx, scop, scalar);
    let stmt_of = |tuple: &str| {
        scop.statements
            .iter()
            .position(|s| s.domain.tuple_name().as_deref() == Some(tuple))
            .expect("dependences join statements")
    };
    let users: Vec<usize> = (0..scop.statements.len())
        .filter(|&k| {
            scop.statements[k]
                .accesses
                .iter()
                .any(|a| a.datum == scalar)
        })
        .collect();
    // Union-find over the statements, joined by the flow.
    let mut root: BTreeMap<usize, usize> = users.iter().map(|&k| (k, k)).collect();
    fn find(root: &mut BTreeMap<usize, usize>, k: usize) -> usize {
        let r = root[&k];
        if r == k {
            return k;
        }
        let top = find(root, r);
        root.insert(k, top);
        top
    }
    let ends: Vec<(usize, usize)> = flow
        .iter()
        .map(|m| {
            let src = m.in_tuple_name().expect("named source");
            let sink = m.out_tuple_name().expect("named sink");
            (stmt_of(&src), stmt_of(&sink))
        })
        .collect();
    for &(a, b) in &ends {
        let (ra, rb) = (find(&mut root, a), find(&mut root, b));
        root.insert(ra.max(rb), ra.min(rb));
    }
    let unreached: BTreeSet<usize> = unreached.iter().map(|t| stmt_of(t)).collect();
    let mut groups: BTreeMap<usize, Web<'c>> = BTreeMap::new();
    for &k in &users {
        let r = find(&mut root, k);
        groups
            .entry(r)
            .or_insert_with(|| Web {
                statements: Vec::new(),
                flow: Vec::new(),
            })
            .statements
            .push(k);
    }
    for (m, (a, _)) in flow.into_iter().zip(ends) {
        let r = find(&mut root, a);
        groups.get_mut(&r).expect("a web per root").flow.push(m);
    }
    groups
        .into_values()
        .filter(|w| !w.statements.iter().any(|k| unreached.contains(k)))
        .collect()
}

/// How one web is expanded: over its first `extents.len()` shared loops, element
/// `[i0 - offsets[0]]..` of an array with these extents.
struct Plan {
    offsets: Vec<i64>,
    extents: Vec<Affine>,
}

/// The expansion of a web, if it has one: the shared loops every flow stays within, as far as
/// their iterators are non-negative and bounded.
fn plan<'c>(ctx: &'c Ctx, scop: &Scop<'c>, web: &Web<'c>) -> Option<Plan> {
    plan_over(ctx, scop, web, within(scop, web), true)
}

/// The loops of `web`'s statements, outermost first, that all of them share.
fn shared_loops(scop: &Scop, web: &Web) -> Vec<usize> {
    shared_loops_of(scop, &web.statements)
}

/// The loops, outermost first, that all of `statements` share.
fn shared_loops_of(scop: &Scop, statements: &[usize]) -> Vec<usize> {
    let loops: Vec<&[usize]> = statements
        .iter()
        .map(|&k| scop.statements[k].loops.as_slice())
        .collect();
    (0..)
        .take_while(|&d| loops.iter().all(|l| d < l.len() && l[d] == loops[0][d]))
        .map(|d| loops[0][d])
        .collect()
}

/// How many of the shared loops (at most [`MAX_DIMS`]) every flow of `web` stays within.
fn within(scop: &Scop, web: &Web) -> usize {
    (0..shared_loops(scop, web).len().min(MAX_DIMS))
        .take_while(|&k| web.flow.iter().all(|m| same_iteration(m, k)))
        .count()
}

/// The expansion of `web` over its first `within` loops; `pad`: the last loop's extent is
/// rounded up to whole cache lines (where it is the innermost dimension).
fn plan_over<'c>(
    ctx: &'c Ctx,
    scop: &Scop<'c>,
    web: &Web<'c>,
    within: usize,
    pad: bool,
) -> Option<Plan> {
    if within == 0 {
        return None;
    }
    let points = web
        .statements
        .iter()
        .map(|&k| {
            let s = &scop.statements[k];
            s.domain
                .set()
                .project_out(DimType::Set, within, s.depth() - within)
                .set_tuple_name("polyc_iteration")
        })
        .reduce(Set::union)
        .expect("a web has statements")
        .coalesce();
    let (offsets, mut extents): (Vec<i64>, Vec<Affine>) = (0..within)
        .map_while(|k| extent(ctx, scop, &points, k))
        .unzip();
    // Rows a multiple of 16 elements long (64 bytes or more), so that every row starts on a
    // cache line as the first does (the generated code aligns it): ludcmp's `w` over `j < i`
    // had rows of n - 1 doubles, and ran 1.5x slower than with rows of n.
    if pad && extents.len() > 1 {
        let last = extents.pop().expect("two or more");
        let padded = Affine::Mul(
            ROW_MULTIPLE,
            Box::new(Affine::floor_div(
                Affine::plus(last, Affine::Const(ROW_MULTIPLE - 1)),
                ROW_MULTIPLE,
            )),
        );
        extents.push(padded);
    }
    (!extents.is_empty()).then_some(Plan { offsets, extents })
}

/// Whether every pair of `flow` has the same value of iterator `k` at source and sink.
fn same_iteration(flow: &Map, k: usize) -> bool {
    let (n_in, n_out) = (flow.dim(DimType::In), flow.dim(DimType::Out));
    let xs: Vec<String> = (0..n_in).map(|i| format!("x{i}")).collect();
    let ys: Vec<String> = (0..n_out).map(|i| format!("y{i}")).collect();
    let text = format!(
        "{{ {}[{}] -> {}[{}] : x{k} < y{k} or x{k} > y{k} }}",
        flow.in_tuple_name().unwrap_or_default(),
        xs.join(", "),
        flow.out_tuple_name().unwrap_or_default(),
        ys.join(", "),
    );
    let apart = flow.parse_sibling(&text).expect("generated map parses");
    flow.clone().intersect(apart).is_empty()
}

/// The range of dimension `k` of `points`, in the parameters: the offset that makes its
/// least value 0 or more (`0` unless that value is a negative constant, as for a loop from
/// `-3`), and `1 +` its greatest value after the offset. `None` where the dimension has no
/// upper bound, or a lower bound that depends on the parameters and may be negative.
fn extent<'c>(ctx: &'c Ctx, scop: &Scop<'c>, points: &Set<'c>, k: usize) -> Option<(i64, Affine)> {
    let d = points.dim(DimType::Set);
    let vars: Vec<String> = (0..d).map(|i| format!("v{i}")).collect();
    let negative = Set::parse(
        ctx,
        &format!("{{ polyc_iteration[{}] : v{k} < 0 }}", vars.join(", ")),
    )
    .expect("generated set parses");
    let params: Vec<Option<String>> = (0..points.dim(DimType::Param))
        .map(|i| {
            let isl = points.dim_name(DimType::Param, i)?;
            scop.params
                .iter()
                .find(|p| scop.names.get(p) == isl)
                .cloned()
        })
        .collect();
    let bounds = hull_bounds(points, k);
    let offset = if points.clone().intersect(negative).is_empty() {
        0
    } else {
        // The greatest constant lower bound `ceil(c / d)`.
        bounds
            .lower
            .iter()
            .filter(|(coeffs, _, _)| coeffs.iter().all(|&x| x == 0))
            .map(|(_, c, d)| -(-c).div_euclid(*d))
            .max()?
    };
    // Upper bounds `floor((coeffs·params + c) / d)`, less the offset, plus one.
    let uppers: Vec<Affine> = bounds
        .upper
        .iter()
        .map(|(coeffs, c, d)| {
            let mut sum = Affine::Const(*c);
            for (x, p) in coeffs.iter().zip(&params) {
                if *x != 0 {
                    let p = p.clone()?;
                    sum = Affine::plus(sum, Affine::Mul(*x, Box::new(Affine::var(p))));
                }
            }
            Some(Affine::plus(
                Affine::floor_div(sum, *d),
                Affine::Const(1 - offset),
            ))
        })
        .collect::<Option<Vec<_>>>()?;
    let least = uppers.into_iter().reduce(Affine::min)?;
    // An empty loop gives an extent below one: allocate one element all the same.
    Some((offset, Affine::max(Affine::Const(1), least)))
}

/// A name for the array of one web: `polyc_exp<k>_<scalar>`, unused in the program and the SCoP.
fn fresh_name(
    scop: &Scop,
    scalar: &str,
    serial: &mut usize,
    taken: &dyn Fn(&str) -> bool,
) -> String {
    loop {
        let name = format!("polyc_exp{serial}_{scalar}");
        *serial += 1;
        if !taken(&name) && scop.symbols.get(&name).is_none() {
            return name;
        }
    }
}

/// Replace `scalar` (a scalar or an array) by `array` in the statements of `web`: accesses, relations and bodies; and
/// add the array to the symbol table.
fn rewrite<'c>(scop: &mut Scop<'c>, scalar: &str, array: &str, web: &Web<'c>, plan: &Plan) {
    let d = plan.extents.len();
    let isl_array = scop.names.name_with_key(&format!("array {array}"), array);
    let mut footprint: Option<Set<'c>> = None;
    let (mut read, mut written) = (false, false);
    for &k in &web.statements {
        let st = &mut scop.statements[k];
        let iterators: Vec<String> = st.iterators[..d].to_vec();
        let dims = st.domain.dim_names();
        let tuple = st.domain.tuple_name().expect("statement domains are named");
        for a in st.accesses.iter_mut().filter(|a| a.datum == scalar) {
            let relation = expanded_relation(a.relation.isl(), &tuple, &dims, plan, &isl_array)
                .intersect_domain(st.domain.set())
                .coalesce();
            let range = relation.clone().range();
            footprint = Some(match footprint {
                Some(f) => f.union(range),
                None => range,
            });
            a.datum = array.to_string();
            let rest = std::mem::take(&mut a.subscripts);
            a.subscripts = iterators
                .iter()
                .zip(&plan.offsets)
                .map(|(i, &o)| Affine::plus(Affine::var(i), Affine::Const(-o)))
                .chain(rest)
                .collect();
            a.relation = Relation::new(relation);
            read |= a.kind == AccessKind::Read;
            written |= a.kind == AccessKind::Write;
        }
        let prefix: Vec<Expr> = iterators
            .iter()
            .zip(&plan.offsets)
            .map(|(i, &o)| match o {
                0 => Expr::var(i),
                _ => Expr::binary(BinaryOp::Sub, Expr::var(i), Expr::int(o)),
            })
            .collect();
        st.body = st.body.map(&mut |e| match e {
            Expr::Var(v) if v == scalar => Expr::Index {
                array: array.to_string(),
                subscripts: prefix.clone(),
            },
            Expr::Index {
                array: a,
                subscripts,
            } if a == scalar => Expr::Index {
                array: array.to_string(),
                subscripts: prefix.iter().cloned().chain(subscripts).collect(),
            },
            other => other,
        });
    }
    let original = scop.symbols.get(scalar).expect("the scalar is a datum");
    let datum = Datum {
        name: array.to_string(),
        elem_type: original.elem_type.clone(),
        written_type: original.written_type.clone(),
        extents: plan
            .extents
            .iter()
            .cloned()
            .map(Some)
            .chain(original.extents.iter().cloned())
            .collect(),
        read,
        written,
        footprint: Domain::new(footprint.expect("a web has statements").coalesce()),
        storage: Storage::Expanded,
        declared_at: original.declared_at.clone(),
        expands: Some(scalar.to_string()),
        expanded_dims: d,
    };
    scop.symbols.data.insert(array.to_string(), datum);
}

/// `access` (instance -> element of the original) with the iteration of the plan's loops put in
/// front of the element, in the expanded array `isl_array`: `S[i, j] -> A[p]` becomes
/// `S[i, j] -> E[i - o0, p]`.
fn expanded_relation<'c>(
    access: &Map<'c>,
    tuple: &str,
    dims: &[String],
    plan: &Plan,
    isl_array: &str,
) -> Map<'c> {
    let d = plan.extents.len();
    let n = access.dim(DimType::Out);
    let outs: Vec<String> = (0..d + n).map(|k| format!("_e{k}")).collect();
    let prefix: Vec<String> = dims[..d]
        .iter()
        .zip(&plan.offsets)
        .enumerate()
        .map(|(k, (x, o))| format!("_e{k} = {x} - ({o})"))
        .collect();
    let text = format!(
        "{{ {tuple}[{}] -> {isl_array}[{}] : {} }}",
        dims.join(", "),
        outs.join(", "),
        prefix.join(" and ")
    );
    let iteration = access
        .parse_sibling(&text)
        .expect("generated access parses");
    access
        .clone()
        .insert_dims(DimType::Out, 0, d)
        .set_tuple_name(DimType::Out, isl_array)
        .intersect(iteration)
}
