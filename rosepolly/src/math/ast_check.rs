//! A check that isl's AST follows the schedule it was generated from: at every point its loops
//! and guards reach a statement call, the call's instance is the one the schedule places at
//! that point, for the parameter values the AST build's context allows.
//!
//! This is the invariant the rest of polyc reads the AST by: a loop's iterator is its time
//! dimension. isl breaks it when it shifts statements along a strided dimension
//! (`generate_component` in `isl_ast_codegen.c`): for differential seed 21552 the shifted loop
//! ran `S3(-c0, c1, c3)` for the schedule `S3[i, j, k] -> [-i, 1 + j, 4, k, 6]` and another
//! statement one iteration late, and the program computed something else, even on one thread;
//! seed 21080's OpenCL code, built from shifted loops (a call `S3(c0, c1 + 1)` for time
//! `(c0, c1 + 1)`), computed other values too. polyc's AST options now keep isl
//! from shifting (`isl::ast_options`); [`check`] remains the guard, so that the caller can try
//! again or keep the SCoP's original code should isl break the invariant another way.
//!
//! For each call the check builds, in isl's notation, the loop points that reach it (the loops'
//! bounds and strides and the guards around it) mapped to the call's instance, applies the
//! schedule, and asks whether some reached point lands at another time on a dimension a loop
//! scans. Where an expression has no isl spelling (a conditional), that call is not checked.
//!
//! The check is bounded: calls under more than [`MAX_LOOPS`] loops are not checked (isl's
//! emptiness test on a 12-deep nest's guards did not finish in a minute:
//! `tests/inputs/hostile/twelve-deep-nest.c`), nor any call once the check has taken
//! [`MAX_TIME`]. An unchecked call is taken as isl generated it, as before the check existed.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::isl::{AstExpr, AstExprView, AstNode, AstNodeView, AstOp, Ctx, Map, Set, UnionMap};

/// The most loops around a call that the check examines.
pub const MAX_LOOPS: usize = 6;

/// How long one AST's check may take before the remaining calls go unchecked.
pub const MAX_TIME: Duration = Duration::from_secs(2);

/// What [`check`] found: whether the AST follows the schedule where checked, and which calls
/// it did not check.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Checked {
    pub follows: bool,
    pub unchecked: Unchecked,
}

/// Statement calls [`check`] left unchecked, by reason, out of all it reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Unchecked {
    /// Every call in the AST.
    pub calls: usize,
    /// Under more than [`MAX_LOOPS`] loops.
    pub deep: usize,
    /// Reached after the check had taken [`MAX_TIME`].
    pub late: usize,
    /// With a bound, guard or argument that has no isl spelling (a conditional expression).
    pub unspelled: usize,
}

impl Unchecked {
    /// A sentence for `--dump fallbacks`, or `None` when every call was checked.
    pub fn describe(&self) -> Option<String> {
        let reasons: Vec<String> = [
            (self.deep, format!("under more than {MAX_LOOPS} loops")),
            (
                self.late,
                format!("past the check's {} s", MAX_TIME.as_secs()),
            ),
            (self.unspelled, "with expressions isl cannot parse".into()),
        ]
        .into_iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, why)| format!("{n} {why}"))
        .collect();
        let unchecked = self.deep + self.late + self.unspelled;
        (unchecked > 0).then(|| {
            format!(
                "{unchecked} of the {} statement calls of an AST were not checked against the schedule ({}); they run as isl generated them",
                self.calls,
                reasons.join(", ")
            )
        })
    }
}

/// Whether every call of `ast` that can be checked runs, at each point that reaches it, the
/// instance `schedule` places there, for parameter values in `context` (the AST build's
/// context, which the AST may assume), and which calls it could not check. `iterators[k]`
/// names the loop of time dimension `k`.
pub fn check<'c>(
    ctx: &'c Ctx,
    ast: &AstNode<'c>,
    schedule: &UnionMap<'c>,
    context: &Set<'c>,
    iterators: &[String],
) -> Checked {
    let text = schedule.to_string();
    // The parameters, as isl prints them before the union map (`[m, n] -> { ... }`).
    let params = match text.find("->") {
        Some(at) if text.starts_with('[') && !text[..at].contains('{') => {
            format!("{} -> ", text[..at].trim())
        }
        _ => String::new(),
    };
    let dims = schedule
        .maps()
        .first()
        .map_or(0, |m| m.dim(super::isl::DimType::Out));
    let point = iterators[..dims.min(iterators.len())].join(", ");
    let scope = Scope {
        ctx,
        schedule,
        context,
        params: &params,
        iterators: &iterators[..dims.min(iterators.len())],
        start: Instant::now(),
        wrong: RefCell::new(HashMap::new()),
        unchecked: Cell::new(Unchecked::default()),
    };
    // Every loop point, before any loop or guard restricts it.
    let everywhere = Set::parse(ctx, &format!("{params}{{ [{point}] }}")).ok();
    let follows = scope.node(ast, &mut Vec::new(), everywhere);
    Checked {
        follows,
        unchecked: scope.unchecked.get(),
    }
}

struct Scope<'a, 'c> {
    ctx: &'c Ctx,
    schedule: &'a UnionMap<'c>,
    context: &'a Set<'c>,
    params: &'a str,
    iterators: &'a [String],
    start: Instant,
    /// Per set of scanned time dimensions, the times apart from the loop point on one of them.
    wrong: RefCell<HashMap<Vec<usize>, UnionMap<'c>>>,
    unchecked: Cell<Unchecked>,
}

impl<'c> Scope<'_, 'c> {
    /// `loops`: the iterators of the loops around `node`; `reached`: the loop points that reach
    /// it, as an isl set (its loops' bounds and guards intersected on the way down, each
    /// parsed once for every call below it); `None` where one of them has no isl spelling:
    /// calls below are not checked.
    fn node(&self, node: &AstNode<'c>, loops: &mut Vec<String>, reached: Option<Set<'c>>) -> bool {
        match node.view() {
            AstNodeView::For {
                iterator,
                init,
                cond,
                inc,
                body,
            } => {
                let bounds = match (isl(&init), isl(&cond), isl(&inc)) {
                    // A step of 1 needs no `mod`, which isl parses into an existential
                    // variable (most of the check's time on deriche).
                    (Some(_), Some(cond), Some(inc)) if inc == "1" => {
                        sides(&init, AstOp::Max).map(|from| {
                            format!(
                                "{} and {cond}",
                                conjunction(std::slice::from_ref(&iterator), ">=", &from)
                            )
                        })
                    }
                    (Some(init), Some(cond), Some(inc)) => Some(format!(
                        "{iterator} >= {init} and {cond} and ({iterator} - {init}) mod {inc} = 0"
                    )),
                    _ => None,
                };
                loops.push(iterator);
                let inside = match loops.len() > MAX_LOOPS {
                    true => None,
                    false => self.restrict(reached, bounds.as_deref()),
                };
                let ok = self.node(&body, loops, inside);
                loops.pop();
                ok
            }
            AstNodeView::If {
                cond,
                then,
                otherwise,
            } => {
                let c = isl(&cond);
                let mut ok = self.node(&then, loops, self.restrict(reached.clone(), c.as_deref()));
                if let Some(o) = otherwise {
                    let not = c.map(|c| format!("not ({c})"));
                    ok &= self.node(&o, loops, self.restrict(reached, not.as_deref()));
                }
                ok
            }
            AstNodeView::Block(nodes) => nodes.iter().all(|n| self.node(n, loops, reached.clone())),
            AstNodeView::Mark(n) => self.node(&n, loops, reached),
            AstNodeView::User(call) => {
                self.count(|u| &mut u.calls);
                match reached {
                    Some(reached) => self.call(&call, loops, reached),
                    None => self.skip(loops),
                }
            }
        }
    }

    /// Count a call left unchecked, by the first limit that applies to it (time only grows, so
    /// a call reached past [`MAX_TIME`] was reached past it wherever its checking stopped), and
    /// take it as isl generated it.
    fn skip(&self, loops: &[String]) -> bool {
        if loops.len() > MAX_LOOPS {
            self.count(|u| &mut u.deep);
        } else if self.start.elapsed() > MAX_TIME {
            self.count(|u| &mut u.late);
        } else {
            self.count(|u| &mut u.unspelled);
        }
        true
    }

    fn count(&self, field: impl FnOnce(&mut Unchecked) -> &mut usize) {
        let mut u = self.unchecked.get();
        *field(&mut u) += 1;
        self.unchecked.set(u);
    }

    /// The points of `reached` where `guard` (isl constraints over the loop point) holds; `None`
    /// when either is unknown or the guard does not parse.
    fn restrict(&self, reached: Option<Set<'c>>, guard: Option<&str>) -> Option<Set<'c>> {
        // Past the check's limits nothing below is checked: no need to build their sets.
        if self.start.elapsed() > MAX_TIME {
            return None;
        }
        let point = self.iterators.join(", ");
        let guard = Set::parse(
            self.ctx,
            &format!("{}{{ [{point}] : {} }}", self.params, guard?),
        )
        .ok()?;
        Some(reached?.intersect(guard))
    }

    /// Whether one call runs the scheduled instance at every point of `reached`.
    fn call(&self, call: &AstExpr<'c>, loops: &[String], reached: Set<'c>) -> bool {
        if loops.len() > MAX_LOOPS || self.start.elapsed() > MAX_TIME {
            return self.skip(loops);
        }
        let AstExprView::Op(AstOp::Call, parts) = call.view() else {
            return self.skip(loops);
        };
        let Some((name, args)) = parts.split_first() else {
            return self.skip(loops);
        };
        let AstExprView::Id(name) = name.view() else {
            return self.skip(loops);
        };
        let args: Option<Vec<String>> = args.iter().map(isl).collect();
        let Some(args) = args else {
            return self.skip(loops);
        };
        let point = self.iterators.join(", ");
        let text = format!(
            "{}{{ [{point}] -> {name}[{}] }}",
            self.params,
            args.join(", ")
        );
        let Ok(runs) = Map::parse(self.ctx, &text) else {
            return self.skip(loops);
        };
        // Loop point -> time: the time must equal the point on every dimension a loop scans.
        // Parameter values outside the context never run this AST (a tile origin that is not a
        // multiple of its size, say): points reached only there do not count.
        let runs = runs
            .intersect_domain(reached)
            .to_union_map()
            .intersect_params(self.context.clone());
        let times = runs.apply_range(self.schedule.clone());
        let scanned: Vec<usize> = loops
            .iter()
            .filter_map(|l| self.iterators.iter().position(|i| i == l))
            .collect();
        if scanned.is_empty() {
            return true;
        }
        match self.wrong(scanned) {
            Some(wrong) => times.intersect(wrong).is_empty(),
            None => self.skip(loops),
        }
    }

    /// Loop point -> time, where the time differs from the point on a dimension of `scanned`.
    fn wrong(&self, scanned: Vec<usize>) -> Option<UnionMap<'c>> {
        if let Some(w) = self.wrong.borrow().get(&scanned) {
            return Some(w.clone());
        }
        let point = self.iterators.join(", ");
        let ts: Vec<String> = (0..self.iterators.len()).map(|k| format!("t{k}")).collect();
        let apart: Vec<String> = scanned
            .iter()
            .map(|&k| format!("t{k} < {0} or t{k} > {0}", self.iterators[k]))
            .collect();
        let text = format!(
            "{}{{ [{point}] -> [{}] : {} }}",
            self.params,
            ts.join(", "),
            apart.join(" or ")
        );
        let wrong = UnionMap::parse(self.ctx, &text).ok()?;
        self.wrong.borrow_mut().insert(scanned, wrong.clone());
        Some(wrong)
    }
}

/// An AST expression in isl's notation, if it has one.
fn isl(e: &AstExpr) -> Option<String> {
    Some(match e.view() {
        AstExprView::Int(v) if v < 0 => format!("({v})"),
        AstExprView::Int(v) => v.to_string(),
        AstExprView::Id(name) => name,
        AstExprView::Op(op, args) => {
            let a: Vec<String> = args.iter().map(isl).collect::<Option<_>>()?;
            let bin = |s: &str| format!("({} {s} {})", a[0], a[1]);
            match op {
                AstOp::And | AstOp::AndThen => bin("and"),
                AstOp::Or | AstOp::OrElse => bin("or"),
                AstOp::Max => format!("max({})", a.join(", ")),
                AstOp::Min => format!("min({})", a.join(", ")),
                AstOp::Minus => format!("(-{})", a[0]),
                AstOp::Add => bin("+"),
                AstOp::Sub => bin("-"),
                // isl reads `(-2) * c0` as a product of two expressions, which it refuses
                // (not affine); `-2 * c0` is a constant factor.
                AstOp::Mul => match (args[0].view(), args[1].view()) {
                    (AstExprView::Int(v), _) => format!("({v} * {})", a[1]),
                    (_, AstExprView::Int(v)) => format!("({v} * {})", a[0]),
                    _ => bin("*"),
                },
                AstOp::Div | AstOp::PdivQ | AstOp::FdivQ => format!("floor({} / {})", a[0], a[1]),
                // Remainders: isl's `mod` is never negative; isl compares C's `%` (`zdiv_r`) with
                // zero only, where the two agree.
                AstOp::PdivR | AstOp::ZdivR => bin("mod"),
                AstOp::Eq => bin("="),
                // At most (below) a `min`, at least (above) a `max`: one comparison per term.
                AstOp::Le | AstOp::Lt => {
                    let sign = if op == AstOp::Le { "<=" } else { "<" };
                    let (small, large) =
                        (sides(&args[0], AstOp::Max)?, sides(&args[1], AstOp::Min)?);
                    conjunction(&small, sign, &large)
                }
                AstOp::Ge | AstOp::Gt => {
                    let sign = if op == AstOp::Ge { ">=" } else { ">" };
                    let (large, small) =
                        (sides(&args[0], AstOp::Min)?, sides(&args[1], AstOp::Max)?);
                    conjunction(&large, sign, &small)
                }
                _ => return None,
            }
        }
    })
}

/// The terms of `e` if it is a `split` (`min` or `max`, nested ones flattened), else `e` itself,
/// in isl's notation.
fn sides(e: &AstExpr, split: AstOp) -> Option<Vec<String>> {
    match e.view() {
        AstExprView::Op(op, args) if op == split => {
            let mut terms = Vec::new();
            for a in &args {
                terms.extend(sides(a, split)?);
            }
            Some(terms)
        }
        _ => Some(vec![isl(e)?]),
    }
}

/// `l sign r` for every term `l` of `left` and `r` of `right`: how a comparison with a `max`
/// on its larger side or a `min` on its smaller side reads without them. isl parses `min` and
/// `max` into piecewise expressions, which took most of the check's time (0.7 ms a call on
/// deriche's tiles).
fn conjunction(left: &[String], sign: &str, right: &[String]) -> String {
    let pairs: Vec<String> = left
        .iter()
        .flat_map(|l| right.iter().map(move |r| format!("{l} {sign} {r}")))
        .collect();
    format!("({})", pairs.join(" and "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::isl::ast_from_schedule;

    /// isl's AST for `schedule`, checked against `against`.
    fn check(schedule: &str, against: &str) -> bool {
        let ctx = Ctx::new();
        let context = Set::parse(&ctx, "[n, m] -> { : n > 0 }").unwrap();
        let its = ["c0".to_string(), "c1".to_string()];
        let s = UnionMap::parse(&ctx, schedule).unwrap();
        let ast = ast_from_schedule(&ctx, context.clone(), s, &its).unwrap();
        let against = UnionMap::parse(&ctx, against).unwrap();
        super::check(&ctx, &ast, &against, &context, &its).follows
    }

    #[test]
    fn loops_bounded_by_min_and_max_follow_their_schedule() {
        let s = "[n, m] -> { S[i, j] -> [i, j] : 0 <= i < n and i < 10 and m <= j < n and j >= i; \
                 T[i] -> [i, 3] : 0 <= i < n }";
        assert!(check(s, s));
    }

    #[test]
    fn a_call_off_its_schedule_is_found() {
        let s = "[n, m] -> { S[i, j] -> [i, j] : 0 <= i < n and i < 10 and m <= j < n and j >= i }";
        let late =
            "[n, m] -> { S[i, j] -> [i, j + 1] : 0 <= i < n and i < 10 and m <= j < n and j >= i }";
        assert!(!check(s, late));
    }

    /// isl's AST for `schedule` over `iterators` (no parameters), checked against itself.
    fn self_check(schedule: &str, iterators: usize) -> Checked {
        let ctx = Ctx::new();
        let context = Set::parse(&ctx, "{ : }").unwrap();
        let its: Vec<String> = (0..iterators).map(|k| format!("c{k}")).collect();
        let s = UnionMap::parse(&ctx, schedule).unwrap();
        let ast = ast_from_schedule(&ctx, context.clone(), s.clone(), &its).unwrap();
        super::check(&ctx, &ast, &s, &context, &its)
    }

    #[test]
    fn a_negative_factor_is_checked() {
        // Skewed loops call `S(c0, -2 * c0 + c1)`; isl refused `(-2) * c0` as a product of two
        // expressions, and the diamond-tiled stencils went unchecked.
        let checked = self_check("{ S[t, i] -> [t, 2t + i] : 0 <= t < 8 and 0 <= i < 20 }", 2);
        assert_eq!(
            checked,
            Checked {
                follows: true,
                unchecked: Unchecked {
                    calls: 1,
                    ..Unchecked::default()
                }
            }
        );
        assert_eq!(checked.unchecked.describe(), None);
    }

    #[test]
    fn calls_under_too_many_loops_are_counted_unchecked() {
        let deep = MAX_LOOPS + 1;
        let dims: Vec<String> = (0..deep).map(|k| format!("i{k}")).collect();
        let bounds: Vec<String> = dims.iter().map(|d| format!("0 <= {d} < 2")).collect();
        let schedule = format!(
            "{{ S[{0}] -> [{0}] : {1} }}",
            dims.join(", "),
            bounds.join(" and ")
        );
        let checked = self_check(&schedule, deep);
        assert!(checked.follows);
        assert_eq!(checked.unchecked.deep, 1);
        let text = checked.unchecked.describe().unwrap();
        assert!(
            text.starts_with("1 of the 1 statement calls of an AST were not checked")
                && text.contains(&format!("1 under more than {MAX_LOOPS} loops")),
            "{text}"
        );
    }
}
