//! Quasi-affine expressions and conditions over loop iterators and parameters.
//!
//! Loop bounds, `if` conditions and array subscripts of a SCoP are kept as these trees. They
//! have exact integer semantics (C's truncating `/` and `%` are lowered to floors and a
//! selection on the sign at extraction), are evaluated directly by the instance enumerator, and
//! are written in isl's notation for the polyhedral model. isl's parser knows `min`, `max`,
//! `floor` and `mod` but not a ternary inside a constraint, so selections are lowered to a case
//! split there ([`AffineCond::to_isl`]).

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use super::ctype::IntType;

/// A quasi-affine integer expression.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum Affine {
    Const(i64),
    Var(String),
    Add(Box<Affine>, Box<Affine>),
    /// Multiplication by a constant.
    Mul(i64, Box<Affine>),
    /// `floor(e / d)` with `d > 0`.
    FloorDiv(Box<Affine>, i64),
    Min(Box<Affine>, Box<Affine>),
    Max(Box<Affine>, Box<Affine>),
    /// `c ? a : b`.
    Select(Box<AffineCond>, Box<Affine>, Box<Affine>),
    /// C's conversion of the value of `inner` to the integer type `ty` (modulo 2^N), where
    /// that may change the value. Model extraction decides each one (identified by `id`): it
    /// is dropped where isl proves the value fits, replaced by its exact quasi-affine form
    /// where that is allowed, or dropped under a run-time assumption; no `Wrap` survives
    /// extraction.
    Wrap {
        id: usize,
        inner: Box<Affine>,
        ty: IntType,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CmpOp {
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
}

/// A condition built from affine comparisons.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub enum AffineCond {
    True,
    False,
    Cmp(CmpOp, Affine, Affine),
    And(Box<AffineCond>, Box<AffineCond>),
    Or(Box<AffineCond>, Box<AffineCond>),
    Not(Box<AffineCond>),
}

/// A variable had no value during evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unbound(pub String);

impl Affine {
    pub fn var(name: impl Into<String>) -> Affine {
        Affine::Var(name.into())
    }

    pub fn constant(&self) -> Option<i64> {
        match self {
            Affine::Const(c) => Some(*c),
            _ => None,
        }
    }

    /// `a + b`, folding constants.
    pub fn plus(a: Affine, b: Affine) -> Affine {
        match (&a, &b) {
            (Affine::Const(x), Affine::Const(y)) => Affine::Const(x + y),
            (Affine::Const(0), _) => b,
            (_, Affine::Const(0)) => a,
            _ => Affine::Add(Box::new(a), Box::new(b)),
        }
    }

    pub fn minus(a: Affine, b: Affine) -> Affine {
        Affine::plus(a, Affine::scale(-1, b))
    }

    /// `k * a`, folding constants.
    pub fn scale(k: i64, a: Affine) -> Affine {
        match a {
            Affine::Const(c) => Affine::Const(k * c),
            _ if k == 1 => a,
            _ if k == 0 => Affine::Const(0),
            Affine::Mul(k2, inner) => Affine::scale(k * k2, *inner),
            _ => Affine::Mul(k, Box::new(a)),
        }
    }

    /// `floor(a / d)` for `d > 0`.
    pub fn floor_div(a: Affine, d: i64) -> Affine {
        assert!(d > 0, "floor division by a non-positive constant");
        match a {
            Affine::Const(c) => Affine::Const(c.div_euclid(d)),
            _ if d == 1 => a,
            _ => Affine::FloorDiv(Box::new(a), d),
        }
    }

    /// `a mod d` (the non-negative remainder, d > 0).
    pub fn floor_mod(a: Affine, d: i64) -> Affine {
        Affine::minus(a.clone(), Affine::scale(d, Affine::floor_div(a, d)))
    }

    /// C's `a / d` (truncation toward zero) for a non-zero constant `d`.
    pub fn c_div(a: Affine, d: i64) -> Affine {
        if d < 0 {
            return Affine::scale(-1, Affine::c_div(a, -d));
        }
        if let Affine::Const(c) = a {
            return Affine::Const(c / d);
        }
        if d == 1 {
            return a;
        }
        let nonneg = AffineCond::Cmp(CmpOp::Ge, a.clone(), Affine::Const(0));
        Affine::Select(
            Box::new(nonneg),
            Box::new(Affine::floor_div(a.clone(), d)),
            Box::new(Affine::scale(
                -1,
                Affine::floor_div(Affine::scale(-1, a), d),
            )),
        )
    }

    /// C's `a % d` = `a - d * (a / d)`.
    pub fn c_mod(a: Affine, d: i64) -> Affine {
        if let Affine::Const(c) = a {
            return Affine::Const(c % d);
        }
        Affine::minus(a.clone(), Affine::scale(d, Affine::c_div(a, d)))
    }

    pub fn min(a: Affine, b: Affine) -> Affine {
        match (&a, &b) {
            (Affine::Const(x), Affine::Const(y)) => Affine::Const(*x.min(y)),
            _ if a == b => a,
            _ => Affine::Min(Box::new(a), Box::new(b)),
        }
    }

    pub fn max(a: Affine, b: Affine) -> Affine {
        match (&a, &b) {
            (Affine::Const(x), Affine::Const(y)) => Affine::Const(*x.max(y)),
            _ if a == b => a,
            _ => Affine::Max(Box::new(a), Box::new(b)),
        }
    }

    pub fn select(c: AffineCond, a: Affine, b: Affine) -> Affine {
        match c {
            AffineCond::True => a,
            AffineCond::False => b,
            _ if a == b => a,
            c => Affine::Select(Box::new(c), Box::new(a), Box::new(b)),
        }
    }

    /// Evaluate with C integer semantics for the lowered operations.
    pub fn eval(&self, env: &impl Fn(&str) -> Option<i64>) -> Result<i64, Unbound> {
        Ok(match self {
            Affine::Const(c) => *c,
            Affine::Var(v) => env(v).ok_or_else(|| Unbound(v.clone()))?,
            Affine::Add(a, b) => a.eval(env)? + b.eval(env)?,
            Affine::Mul(k, a) => k * a.eval(env)?,
            Affine::FloorDiv(a, d) => a.eval(env)?.div_euclid(*d),
            Affine::Min(a, b) => a.eval(env)?.min(b.eval(env)?),
            Affine::Max(a, b) => a.eval(env)?.max(b.eval(env)?),
            Affine::Select(c, a, b) => {
                if c.eval(env)? {
                    a.eval(env)?
                } else {
                    b.eval(env)?
                }
            }
            // 64-bit unsigned values above i64::MAX read as their two's complement here; no
            // such conversion survives extraction.
            Affine::Wrap { inner, ty, .. } => ty.convert(inner.eval(env)? as i128) as i64,
        })
    }

    /// Every variable, in first-occurrence order.
    pub fn vars(&self, out: &mut Vec<String>) {
        match self {
            Affine::Const(_) => {}
            Affine::Var(v) => {
                if !out.contains(v) {
                    out.push(v.clone())
                }
            }
            Affine::Add(a, b) | Affine::Min(a, b) | Affine::Max(a, b) => {
                a.vars(out);
                b.vars(out);
            }
            Affine::Mul(_, a) | Affine::FloorDiv(a, _) => a.vars(out),
            Affine::Wrap { inner, .. } => inner.vars(out),
            Affine::Select(c, a, b) => {
                c.vars(out);
                a.vars(out);
                b.vars(out);
            }
        }
    }

    /// The expression as `Σ coeff·var + constant` when it is purely linear.
    pub fn linear(&self) -> Option<Linear> {
        match self {
            Affine::Const(c) => Some(Linear {
                coeffs: BTreeMap::new(),
                constant: *c,
            }),
            Affine::Var(v) => Some(Linear {
                coeffs: [(v.clone(), 1)].into(),
                constant: 0,
            }),
            Affine::Add(a, b) => {
                let (mut a, b) = (a.linear()?, b.linear()?);
                for (v, c) in b.coeffs {
                    *a.coeffs.entry(v).or_insert(0) += c;
                }
                a.coeffs.retain(|_, c| *c != 0);
                a.constant += b.constant;
                Some(a)
            }
            Affine::Mul(k, a) => {
                let mut a = a.linear()?;
                a.coeffs.values_mut().for_each(|c| *c *= k);
                a.coeffs.retain(|_, c| *c != 0);
                a.constant *= k;
                Some(a)
            }
            _ => None,
        }
    }

    /// Write the expression as `coeff·var + rest` where `rest` does not mention `var`; `None`
    /// when `var` occurs under a floor, min, max or selection.
    pub fn split_var(&self, var: &str) -> Option<(i64, Affine)> {
        let mut vs = Vec::new();
        self.vars(&mut vs);
        if !vs.iter().any(|v| v == var) {
            return Some((0, self.clone()));
        }
        match self {
            Affine::Var(v) if v == var => Some((1, Affine::Const(0))),
            Affine::Add(a, b) => {
                let ((ca, ra), (cb, rb)) = (a.split_var(var)?, b.split_var(var)?);
                Some((ca + cb, Affine::plus(ra, rb)))
            }
            Affine::Mul(k, a) => {
                let (c, r) = a.split_var(var)?;
                Some((k * c, Affine::scale(*k, r)))
            }
            _ => None,
        }
    }

    /// Rename variables.
    pub fn rename(&self, f: &impl Fn(&str) -> Affine) -> Affine {
        match self {
            Affine::Const(_) => self.clone(),
            Affine::Var(v) => f(v),
            Affine::Add(a, b) => Affine::plus(a.rename(f), b.rename(f)),
            Affine::Mul(k, a) => Affine::scale(*k, a.rename(f)),
            Affine::FloorDiv(a, d) => Affine::floor_div(a.rename(f), *d),
            Affine::Min(a, b) => Affine::min(a.rename(f), b.rename(f)),
            Affine::Max(a, b) => Affine::max(a.rename(f), b.rename(f)),
            Affine::Select(c, a, b) => Affine::select(c.rename(f), a.rename(f), b.rename(f)),
            Affine::Wrap { id, inner, ty } => Affine::Wrap {
                id: *id,
                inner: Box::new(inner.rename(f)),
                ty: *ty,
            },
        }
    }

    /// The conversion of `inner` to `ty` in exact quasi-affine form (for `ty` of at most 32
    /// bits, whose modulus the generated 64-bit arithmetic holds).
    pub fn exact_wrap(inner: Affine, ty: IntType) -> Affine {
        if ty == IntType::BOOL {
            return Affine::select(
                AffineCond::cmp(CmpOp::Ne, inner, Affine::Const(0)),
                Affine::Const(1),
                Affine::Const(0),
            );
        }
        assert!(
            ty.bits <= 32,
            "exact forms are for types of at most 32 bits"
        );
        let m = 1i64 << ty.bits;
        if ty.signed {
            let half = m / 2;
            let shifted = Affine::plus(inner, Affine::Const(half));
            Affine::minus(Affine::floor_mod(shifted, m), Affine::Const(half))
        } else {
            Affine::floor_mod(inner, m)
        }
    }

    /// `inner` without the conversions that a conversion to `bits` bits makes redundant:
    /// reducing modulo 2^N then 2^M gives the same residue as reducing modulo 2^M alone when
    /// M <= N, through sums and constant multiples.
    pub fn strip_wraps(self, bits: u8) -> Affine {
        match self {
            Affine::Wrap { inner, ty, .. } if ty.bits >= bits && ty != IntType::BOOL => {
                inner.strip_wraps(bits)
            }
            Affine::Add(a, b) => Affine::plus(a.strip_wraps(bits), b.strip_wraps(bits)),
            Affine::Mul(k, a) => Affine::scale(k, a.strip_wraps(bits)),
            e => e,
        }
    }

    /// Every conversion in the expression, inner ones first, with the condition under which C
    /// evaluates it (`when`, narrowed by the selections it lies in: `j > 2 ? j - 2 : 0`
    /// converts `j - 2` only where `j > 2`).
    pub fn wraps(&self, when: &AffineCond, out: &mut Vec<GuardedWrap>) {
        match self {
            Affine::Const(_) | Affine::Var(_) => {}
            Affine::Add(a, b) | Affine::Min(a, b) | Affine::Max(a, b) => {
                a.wraps(when, out);
                b.wraps(when, out);
            }
            Affine::Mul(_, a) | Affine::FloorDiv(a, _) => a.wraps(when, out),
            Affine::Select(c, a, b) => {
                c.wraps(when, out);
                a.wraps(&AffineCond::and(when.clone(), (**c).clone()), out);
                b.wraps(
                    &AffineCond::and(when.clone(), AffineCond::negate((**c).clone())),
                    out,
                );
            }
            Affine::Wrap { id, inner, ty } => {
                inner.wraps(when, out);
                out.push(GuardedWrap {
                    id: *id,
                    inner: (**inner).clone(),
                    ty: *ty,
                    when: when.clone(),
                });
            }
        }
    }

    /// Replace the conversions `decide` has decided (see [`WrapForm`]); `None` keeps one.
    pub fn resolve_wraps(&self, decide: &impl Fn(usize) -> Option<WrapForm>) -> Affine {
        let r = |a: &Affine| a.resolve_wraps(decide);
        match self {
            Affine::Const(_) | Affine::Var(_) => self.clone(),
            Affine::Add(a, b) => Affine::plus(r(a), r(b)),
            Affine::Mul(k, a) => Affine::scale(*k, r(a)),
            Affine::FloorDiv(a, d) => Affine::floor_div(r(a), *d),
            Affine::Min(a, b) => Affine::min(r(a), r(b)),
            Affine::Max(a, b) => Affine::max(r(a), r(b)),
            Affine::Select(c, a, b) => Affine::select(c.resolve_wraps(decide), r(a), r(b)),
            Affine::Wrap { id, inner, ty } => match decide(*id) {
                Some(WrapForm::Value) => r(inner),
                Some(WrapForm::Exact) => Affine::exact_wrap(r(inner), *ty),
                Some(WrapForm::Name(n)) => Affine::var(n),
                None => Affine::Wrap {
                    id: *id,
                    inner: Box::new(r(inner)),
                    ty: *ty,
                },
            },
        }
    }

    /// Split on the first selection: `(c, self[c := then], self[c := else])`.
    fn split(&self) -> Option<(AffineCond, Affine, Affine)> {
        let bin = |a: &Affine, b: &Affine, mk: &dyn Fn(Affine, Affine) -> Affine| {
            if let Some((c, a1, a2)) = a.split() {
                return Some((c, mk(a1, b.clone()), mk(a2, b.clone())));
            }
            b.split()
                .map(|(c, b1, b2)| (c, mk(a.clone(), b1), mk(a.clone(), b2)))
        };
        match self {
            Affine::Const(_) | Affine::Var(_) => None,
            Affine::Select(c, a, b) => Some(((**c).clone(), (**a).clone(), (**b).clone())),
            Affine::Add(a, b) => bin(a, b, &|x, y| Affine::Add(Box::new(x), Box::new(y))),
            Affine::Min(a, b) => bin(a, b, &|x, y| Affine::Min(Box::new(x), Box::new(y))),
            Affine::Max(a, b) => bin(a, b, &|x, y| Affine::Max(Box::new(x), Box::new(y))),
            Affine::Mul(k, a) => a.split().map(|(c, x, y)| {
                (
                    c,
                    Affine::Mul(*k, Box::new(x)),
                    Affine::Mul(*k, Box::new(y)),
                )
            }),
            Affine::FloorDiv(a, d) => a.split().map(|(c, x, y)| {
                (
                    c,
                    Affine::FloorDiv(Box::new(x), *d),
                    Affine::FloorDiv(Box::new(y), *d),
                )
            }),
            Affine::Wrap { id, inner, ty } => inner.split().map(|(c, x, y)| {
                let w = |e| Affine::Wrap {
                    id: *id,
                    inner: Box::new(e),
                    ty: *ty,
                };
                (c, w(x), w(y))
            }),
        }
    }

    /// isl notation of a selection-free expression.
    fn isl_text(&self, name: &impl Fn(&str) -> String) -> String {
        match self {
            Affine::Const(c) => {
                if *c < 0 {
                    format!("({c})")
                } else {
                    c.to_string()
                }
            }
            Affine::Var(v) => name(v),
            Affine::Add(a, b) => format!("({} + {})", a.isl_text(name), b.isl_text(name)),
            // isl reads `-3*i` but not `(-3)*i`.
            Affine::Mul(k, a) => format!("({k}*{})", a.isl_text(name)),
            Affine::FloorDiv(a, d) => format!("floor({}/{d})", a.isl_text(name)),
            Affine::Min(a, b) => format!("min({}, {})", a.isl_text(name), b.isl_text(name)),
            Affine::Max(a, b) => format!("max({}, {})", a.isl_text(name), b.isl_text(name)),
            Affine::Select(..) => unreachable!("selections are split before printing for isl"),
            Affine::Wrap { inner, ty, .. } => {
                let (m, half) = (1i128 << ty.bits, 1i128 << (ty.bits - 1));
                let e = inner.isl_text(name);
                if ty.signed {
                    format!("((({e}) + {half}) mod {m} - {half})")
                } else {
                    format!("(({e}) mod {m})")
                }
            }
        }
    }
}

/// A conversion ([`Affine::Wrap`]) found in an expression, and where C evaluates it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuardedWrap {
    pub id: usize,
    pub inner: Affine,
    pub ty: IntType,
    /// The condition under which the conversion is evaluated.
    pub when: AffineCond,
}

/// What a conversion ([`Affine::Wrap`]) becomes in the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WrapForm {
    /// Its operand: the value fits (or is assumed to).
    Value,
    /// Its exact quasi-affine form ([`Affine::exact_wrap`]).
    Exact,
    /// A parameter of this name, which the generated code computes with C's own conversion.
    Name(String),
}

/// `Σ coeff·var + constant`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Linear {
    pub coeffs: BTreeMap<String, i64>,
    pub constant: i64,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }

    fn isl_symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            op => op.symbol(),
        }
    }

    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
        }
    }

    /// The comparison that holds exactly when this one does not.
    pub fn negate(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
        }
    }
}

impl AffineCond {
    pub fn cmp(op: CmpOp, a: Affine, b: Affine) -> AffineCond {
        if let (Some(x), Some(y)) = (a.constant(), b.constant()) {
            return if op.holds(x, y) {
                AffineCond::True
            } else {
                AffineCond::False
            };
        }
        AffineCond::Cmp(op, a, b)
    }

    pub fn and(a: AffineCond, b: AffineCond) -> AffineCond {
        match (a, b) {
            (AffineCond::True, x) | (x, AffineCond::True) => x,
            (AffineCond::False, _) | (_, AffineCond::False) => AffineCond::False,
            (a, b) => AffineCond::And(Box::new(a), Box::new(b)),
        }
    }

    pub fn or(a: AffineCond, b: AffineCond) -> AffineCond {
        match (a, b) {
            (AffineCond::False, x) | (x, AffineCond::False) => x,
            (AffineCond::True, _) | (_, AffineCond::True) => AffineCond::True,
            (a, b) => AffineCond::Or(Box::new(a), Box::new(b)),
        }
    }

    pub fn negate(a: AffineCond) -> AffineCond {
        match a {
            AffineCond::True => AffineCond::False,
            AffineCond::False => AffineCond::True,
            AffineCond::Not(x) => *x,
            AffineCond::Cmp(op, x, y) => AffineCond::Cmp(op.negate(), x, y),
            a => AffineCond::Not(Box::new(a)),
        }
    }

    pub fn eval(&self, env: &impl Fn(&str) -> Option<i64>) -> Result<bool, Unbound> {
        Ok(match self {
            AffineCond::True => true,
            AffineCond::False => false,
            AffineCond::Cmp(op, a, b) => op.holds(a.eval(env)?, b.eval(env)?),
            AffineCond::And(a, b) => a.eval(env)? && b.eval(env)?,
            AffineCond::Or(a, b) => a.eval(env)? || b.eval(env)?,
            AffineCond::Not(a) => !a.eval(env)?,
        })
    }

    pub fn vars(&self, out: &mut Vec<String>) {
        match self {
            AffineCond::True | AffineCond::False => {}
            AffineCond::Cmp(_, a, b) => {
                a.vars(out);
                b.vars(out);
            }
            AffineCond::And(a, b) | AffineCond::Or(a, b) => {
                a.vars(out);
                b.vars(out);
            }
            AffineCond::Not(a) => a.vars(out),
        }
    }

    pub fn rename(&self, f: &impl Fn(&str) -> Affine) -> AffineCond {
        match self {
            AffineCond::True | AffineCond::False => self.clone(),
            AffineCond::Cmp(op, a, b) => AffineCond::cmp(*op, a.rename(f), b.rename(f)),
            AffineCond::And(a, b) => AffineCond::and(a.rename(f), b.rename(f)),
            AffineCond::Or(a, b) => AffineCond::or(a.rename(f), b.rename(f)),
            AffineCond::Not(a) => AffineCond::negate(a.rename(f)),
        }
    }

    /// Every conversion in the condition, inner ones first, with the condition under which C
    /// evaluates it: `&&` and `||` evaluate their right operand only where the left one does
    /// not decide.
    pub fn wraps(&self, when: &AffineCond, out: &mut Vec<GuardedWrap>) {
        match self {
            AffineCond::True | AffineCond::False => {}
            AffineCond::Cmp(_, a, b) => {
                a.wraps(when, out);
                b.wraps(when, out);
            }
            AffineCond::And(a, b) => {
                a.wraps(when, out);
                b.wraps(&AffineCond::and(when.clone(), (**a).clone()), out);
            }
            AffineCond::Or(a, b) => {
                a.wraps(when, out);
                let undecided = AffineCond::and(when.clone(), AffineCond::negate((**a).clone()));
                b.wraps(&undecided, out);
            }
            AffineCond::Not(a) => a.wraps(when, out),
        }
    }

    /// See [`Affine::resolve_wraps`].
    pub fn resolve_wraps(&self, decide: &impl Fn(usize) -> Option<WrapForm>) -> AffineCond {
        match self {
            AffineCond::True | AffineCond::False => self.clone(),
            AffineCond::Cmp(op, a, b) => {
                AffineCond::cmp(*op, a.resolve_wraps(decide), b.resolve_wraps(decide))
            }
            AffineCond::And(a, b) => {
                AffineCond::and(a.resolve_wraps(decide), b.resolve_wraps(decide))
            }
            AffineCond::Or(a, b) => {
                AffineCond::or(a.resolve_wraps(decide), b.resolve_wraps(decide))
            }
            AffineCond::Not(a) => AffineCond::negate(a.resolve_wraps(decide)),
        }
    }

    /// isl notation, with every selection inside a comparison lowered to a case split:
    /// `x <= (c ? a : b)` becomes `(c and x <= a) or (not c and x <= b)`.
    pub fn to_isl(&self, name: &impl Fn(&str) -> String) -> String {
        match self {
            AffineCond::True => "true".into(),
            AffineCond::False => "false".into(),
            AffineCond::And(a, b) => format!("({} and {})", a.to_isl(name), b.to_isl(name)),
            AffineCond::Or(a, b) => format!("({} or {})", a.to_isl(name), b.to_isl(name)),
            AffineCond::Not(a) => format!("(not {})", a.to_isl(name)),
            AffineCond::Cmp(op, a, b) => {
                let split = a
                    .split()
                    .map(|(c, a1, a2)| {
                        (
                            c,
                            AffineCond::Cmp(*op, a1, b.clone()),
                            AffineCond::Cmp(*op, a2, b.clone()),
                        )
                    })
                    .or_else(|| {
                        b.split().map(|(c, b1, b2)| {
                            (
                                c,
                                AffineCond::Cmp(*op, a.clone(), b1),
                                AffineCond::Cmp(*op, a.clone(), b2),
                            )
                        })
                    });
                match split {
                    Some((c, t, e)) => {
                        let c = c.to_isl(name);
                        format!(
                            "(({c} and {}) or ((not {c}) and {}))",
                            t.to_isl(name),
                            e.to_isl(name)
                        )
                    }
                    None => match op {
                        // isl has `!=` only in some contexts; spell it as a disjunction.
                        CmpOp::Ne => {
                            let (x, y) = (a.isl_text(name), b.isl_text(name));
                            format!("({x} < {y} or {x} > {y})")
                        }
                        _ => format!(
                            "{} {} {}",
                            a.isl_text(name),
                            op.isl_symbol(),
                            b.isl_text(name)
                        ),
                    },
                }
            }
        }
    }
}

impl fmt::Display for Affine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(l) = self.linear() {
            return write!(f, "{l}");
        }
        match self {
            Affine::Const(c) => write!(f, "{c}"),
            Affine::Var(v) => f.write_str(v),
            Affine::Add(a, b) => write!(f, "{a} + {b}"),
            Affine::Mul(k, a) => write!(f, "{k}*({a})"),
            Affine::FloorDiv(a, d) => write!(f, "floord({a}, {d})"),
            Affine::Min(a, b) => write!(f, "min({a}, {b})"),
            Affine::Max(a, b) => write!(f, "max({a}, {b})"),
            Affine::Select(c, a, b) => write!(f, "({c} ? {a} : {b})"),
            Affine::Wrap { inner, ty, .. } => write!(f, "({ty})({inner})"),
        }
    }
}

impl fmt::Display for Linear {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for (v, c) in &self.coeffs {
            let (sign, mag) = if *c < 0 { ("-", -c) } else { ("+", *c) };
            if first {
                if sign == "-" {
                    f.write_str("-")?;
                }
            } else {
                write!(f, " {sign} ")?;
            }
            if mag != 1 {
                write!(f, "{mag}*")?;
            }
            f.write_str(v)?;
            first = false;
        }
        if first {
            write!(f, "{}", self.constant)
        } else if self.constant > 0 {
            write!(f, " + {}", self.constant)
        } else if self.constant < 0 {
            write!(f, " - {}", -self.constant)
        } else {
            Ok(())
        }
    }
}

impl fmt::Display for AffineCond {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AffineCond::True => f.write_str("1"),
            AffineCond::False => f.write_str("0"),
            AffineCond::Cmp(op, a, b) => write!(f, "{a} {} {b}", op.symbol()),
            AffineCond::And(a, b) => write!(f, "({a} && {b})"),
            AffineCond::Or(a, b) => write!(f, "({a} || {b})"),
            AffineCond::Not(a) => write!(f, "!({a})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vals: &'a [(&'a str, i64)]) -> impl Fn(&str) -> Option<i64> + 'a {
        move |n| vals.iter().find(|(k, _)| *k == n).map(|(_, v)| *v)
    }

    #[test]
    fn c_division_truncates() {
        let a = Affine::var("a");
        for v in -7..=7 {
            let vals = [("a", v)];
            let e = env(&vals);
            assert_eq!(
                Affine::c_div(a.clone(), 3).eval(&e).unwrap(),
                v / 3,
                "{v} / 3"
            );
            assert_eq!(
                Affine::c_mod(a.clone(), 3).eval(&e).unwrap(),
                v % 3,
                "{v} % 3"
            );
            assert_eq!(
                Affine::c_div(a.clone(), -2).eval(&e).unwrap(),
                v / -2,
                "{v} / -2"
            );
            assert_eq!(
                Affine::floor_mod(a.clone(), 4).eval(&e).unwrap(),
                v.rem_euclid(4)
            );
        }
    }

    #[test]
    fn linear_forms_print_simply() {
        let e = Affine::plus(
            Affine::scale(2, Affine::var("t")),
            Affine::minus(Affine::var("i"), Affine::Const(1)),
        );
        assert_eq!(e.to_string(), "i + 2*t - 1");
    }

    #[test]
    fn selections_are_split_for_isl() {
        let sel = Affine::select(
            AffineCond::cmp(CmpOp::Gt, Affine::var("i"), Affine::Const(3)),
            Affine::var("i"),
            Affine::Const(3),
        );
        let c = AffineCond::cmp(CmpOp::Le, Affine::var("j"), sel);
        let text = c.to_isl(&|v| v.to_string());
        assert!(!text.contains('?'), "{text}");
        assert!(text.contains("not"), "{text}");
    }
}
