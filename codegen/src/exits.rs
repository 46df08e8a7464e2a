//! After a transformed SCoP: the values C's loops would have left in the iterators declared
//! outside it ([`rosepolly::model::IteratorExit`]), for the code that reads them later.

use std::collections::HashMap;

use rosepolly::analysis::params::assumed_box;
use rosepolly::math::isl::Ctx;
use rosepolly::model::expr::{BinaryOp, Expr, UnaryOp};
use rosepolly::model::Scop;
use rosepolly::syntax;

use crate::c::host_control;
use crate::ir::ParamData;
use crate::names::user;

/// Assignments of the iterators' final values, one line each (indented by two); an iterator
/// nothing reads later is only mentioned (`(void)i;`), so that a compiler does not call the
/// user's declaration unused.
///
/// `Err` names an iterator whose final value needs a constant, or an intermediate value for
/// some parameter values of their C types, beyond 64 bits (C's wrap-around of a narrower
/// unsigned bound, seen through isl): the SCoP then keeps its original code. (Differential seed
/// 36000: isl wrote `3 * ceil(m / 3)` through the wrapped `m - 2`, a product past 2^63 for
/// `m = 1`.)
pub fn assignments(ctx: &Ctx, scop: &Scop) -> Result<String, String> {
    let mut out = String::new();
    let bounds: HashMap<String, (i128, i128)> = scop
        .params
        .iter()
        .zip(&scop.param_types)
        .map(|(p, t)| (user(p), (t.min(), t.max())))
        .collect();
    for e in &scop.exits {
        let Some(value) = &e.value else {
            out.push_str(&format!("  (void){};\n", user(&e.name)));
            continue;
        };
        let set = value.set();
        if set.is_empty() {
            continue;
        }
        let where_defined = set.clone().params();
        let pa = set.clone().dim_max(0);
        let assumed = assumed_box(ctx, scop);
        let wide = || {
            format!(
                "the final value of `{}` needs constants beyond 64 bits",
                e.name
            )
        };
        let v = syntax::value(ctx, scop, pa, assumed.clone()).ok_or_else(wide)?;
        if !fits_long(&v, &bounds) {
            return Err(format!(
                "the final value of `{}` needs intermediate values beyond 64 bits",
                e.name
            ));
        }
        let v = host_control(&ParamData::of(scop), &v);
        let assign = format!("{} = ({})({v});", user(&e.name), e.ty.spelling());
        let everywhere = assumed.is_subset(&where_defined);
        if everywhere {
            out.push_str(&format!("  {assign}\n"));
        } else {
            let c = syntax::condition(ctx, scop, &where_defined, assumed).ok_or_else(wide)?;
            if !fits_long(&c, &bounds) {
                return Err(wide());
            }
            let c = host_control(&ParamData::of(scop), &c);
            out.push_str(&format!("  if ({c}) {assign}\n"));
        }
    }
    Ok(out)
}

/// Whether `e` and each of its parts stay within a `long` for parameters within `bounds`
/// (interval arithmetic in 128 bits; a shape it does not know: no).
fn fits_long(e: &Expr, bounds: &HashMap<String, (i128, i128)>) -> bool {
    interval(e, bounds).is_some()
}

/// The values `e` can take, if every part of it fits in a `long`.
fn interval(e: &Expr, bounds: &HashMap<String, (i128, i128)>) -> Option<(i128, i128)> {
    let of = |x: &Expr| interval(x, bounds);
    let (lo, hi) = match e {
        Expr::Int { value, .. } => (i128::from(*value), i128::from(*value)),
        Expr::Var(n) => *bounds.get(n)?,
        Expr::Cast { expr, .. } => of(expr)?,
        Expr::Unary {
            op: UnaryOp::Neg,
            operand,
        } => {
            let (a, b) = of(operand)?;
            (-b, -a)
        }
        Expr::Unary {
            op: UnaryOp::Plus,
            operand,
        } => of(operand)?,
        Expr::Binary { op, lhs, rhs } => binary(*op, of(lhs)?, of(rhs)?)?,
        Expr::Call { func, args } if args.len() == 2 => {
            let ((a, b), (c, d)) = (of(&args[0])?, of(&args[1])?);
            match func.as_str() {
                syntax::MIN => (a.min(c), b.min(d)),
                syntax::MAX => (a.max(c), b.max(d)),
                syntax::FLOORD => binary(BinaryOp::Div, (a, b), (c, d))?,
                _ => return None,
            }
        }
        Expr::Ternary { then, other, .. } => {
            let ((a, b), (c, d)) = (of(then)?, of(other)?);
            (a.min(c), b.max(d))
        }
        _ => return None,
    };
    let long = i128::from(i64::MIN)..=i128::from(i64::MAX);
    (long.contains(&lo) && long.contains(&hi)).then_some((lo, hi))
}

fn binary(op: BinaryOp, (a, b): (i128, i128), (c, d): (i128, i128)) -> Option<(i128, i128)> {
    Some(match op {
        BinaryOp::Add => (a + c, b + d),
        BinaryOp::Sub => (a - d, b - c),
        BinaryOp::Mul => {
            let p = [a * c, a * d, b * c, b * d];
            (*p.iter().min()?, *p.iter().max()?)
        }
        // A positive divisor: truncated and floored quotients both lie within these.
        BinaryOp::Div if c > 0 => {
            let q = [a.div_euclid(c), a / c, b / c, a.div_euclid(d), a / d, b / d];
            (*q.iter().min()? - 1, *q.iter().max()? + 1)
        }
        BinaryOp::Mod if c > 0 => (-(d - 1), d - 1),
        _ if op.is_truth() => (0, 1),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn var(n: &str) -> Expr {
        Expr::Var(n.into())
    }

    fn bin(op: BinaryOp, l: Expr, r: Expr) -> Expr {
        Expr::Binary {
            op,
            lhs: Box::new(l),
            rhs: Box::new(r),
        }
    }

    #[test]
    fn products_past_a_long_do_not_fit() {
        let bounds: HashMap<String, (i128, i128)> =
            [("m".to_string(), (0, i128::from(u32::MAX)))].into();
        // Seed 36000's term: 2147483649 * p with p an unsigned int.
        let big = bin(BinaryOp::Mul, Expr::int(2147483649), var("m"));
        assert!(!fits_long(&big, &bounds));
        let ok = bin(
            BinaryOp::Div,
            bin(BinaryOp::Add, var("m"), Expr::int(2)),
            Expr::int(3),
        );
        let (lo, hi) = interval(&ok, &bounds).expect("fits");
        assert!(lo <= 0 && (1431655765..1 << 32).contains(&hi), "{lo}..{hi}");
        assert!(!fits_long(&var("n"), &bounds), "unknown names do not fit");
    }
}
