//! C's arithmetic types as the model needs them: integer widths and signedness, the integer
//! promotions and the usual arithmetic conversions (C11 §6.3.1), the types of integer
//! literals, and what a conversion does to a value.
//!
//! polyc targets LP64 (x86-64 and AArch64 Linux, the CUDA and OpenCL devices): `int` has 32
//! bits, `long` and `long long` 64, and plain `char` is signed unless the preprocessor defines
//! `__CHAR_UNSIGNED__`. Conversions to a signed type that cannot hold the value wrap modulo
//! 2^N, as gcc, clang and nvcc define them.

use std::collections::HashMap;
use std::fmt;

use serde::Serialize;

use super::expr::{BinaryOp, Expr, UnaryOp};

/// An integer type: its width, signedness and conversion rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct IntType {
    pub bits: u8,
    pub signed: bool,
    /// C's integer conversion rank: `_Bool` 0, `char` 1, `short` 2, `int` 3, `long` 4,
    /// `long long` 5.
    pub rank: u8,
}

/// The type of an expression, as far as the model cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CType {
    Int(IntType),
    /// `float`, `double`, `long double`.
    Float,
    /// Anything else (pointers, structs, arrays as values): never an operand of the model.
    Other,
}

impl IntType {
    pub const BOOL: IntType = IntType::new(1, false, 0);
    pub const SCHAR: IntType = IntType::new(8, true, 1);
    pub const UCHAR: IntType = IntType::new(8, false, 1);
    pub const SHORT: IntType = IntType::new(16, true, 2);
    pub const USHORT: IntType = IntType::new(16, false, 2);
    pub const INT: IntType = IntType::new(32, true, 3);
    pub const UINT: IntType = IntType::new(32, false, 3);
    pub const LONG: IntType = IntType::new(64, true, 4);
    pub const ULONG: IntType = IntType::new(64, false, 4);
    pub const LLONG: IntType = IntType::new(64, true, 5);
    pub const ULLONG: IntType = IntType::new(64, false, 5);

    const fn new(bits: u8, signed: bool, rank: u8) -> IntType {
        IntType { bits, signed, rank }
    }

    /// The type a normalised type name (see `compilation::symbols`) denotes; `char` is
    /// `char_signed`'s signedness.
    pub fn from_name(name: &str, char_signed: bool) -> Option<IntType> {
        Some(match name {
            "_Bool" => IntType::BOOL,
            "char" if char_signed => IntType::SCHAR,
            "char" => IntType::UCHAR,
            "signed char" => IntType::SCHAR,
            "unsigned char" => IntType::UCHAR,
            "short" => IntType::SHORT,
            "unsigned short" => IntType::USHORT,
            "int" => IntType::INT,
            "unsigned int" => IntType::UINT,
            "long" => IntType::LONG,
            "unsigned long" => IntType::ULONG,
            "long long" => IntType::LLONG,
            "unsigned long long" => IntType::ULLONG,
            _ => return None,
        })
    }

    /// The smallest value.
    pub fn min(self) -> i128 {
        if self.signed {
            -(1i128 << (self.bits - 1))
        } else {
            0
        }
    }

    /// The largest value.
    pub fn max(self) -> i128 {
        if self.signed {
            (1i128 << (self.bits - 1)) - 1
        } else {
            (1i128 << self.bits) - 1
        }
    }

    /// Every value of `other` is a value of `self`.
    pub fn holds(self, other: IntType) -> bool {
        self.min() <= other.min() && other.max() <= self.max()
    }

    /// The integer promotions: types of lower rank than `int` become `int` (every value fits).
    pub fn promote(self) -> IntType {
        if self.rank < IntType::INT.rank {
            IntType::INT
        } else {
            self
        }
    }

    /// The unsigned type of the same rank.
    fn unsigned(self) -> IntType {
        IntType {
            signed: false,
            ..self
        }
    }

    /// The common type of the usual arithmetic conversions (C11 §6.3.1.8), both operands
    /// already of integer type.
    pub fn common(a: IntType, b: IntType) -> IntType {
        let (a, b) = (a.promote(), b.promote());
        if a == b {
            return a;
        }
        if a.signed == b.signed {
            return if a.rank >= b.rank { a } else { b };
        }
        let (s, u) = if a.signed { (a, b) } else { (b, a) };
        if u.rank >= s.rank {
            u
        } else if s.holds(u) {
            s
        } else {
            s.unsigned()
        }
    }

    /// The value `v` has after conversion to this type: C's modular conversion (and `!= 0`
    /// for `_Bool`).
    pub fn convert(self, v: i128) -> i128 {
        if self == IntType::BOOL {
            return (v != 0) as i128;
        }
        let m = 1i128 << self.bits;
        let r = v.rem_euclid(m);
        if self.signed && r > self.max() {
            r - m
        } else {
            r
        }
    }

    /// The spelling of the type in generated C, OpenCL C and CUDA (`long long` is printed as
    /// `long`, which has the same width and signedness here and exists in OpenCL C).
    pub fn spelling(self) -> &'static str {
        match (self.bits, self.signed) {
            (1, _) => "_Bool",
            (8, true) => "signed char",
            (8, false) => "unsigned char",
            (16, true) => "short",
            (16, false) => "unsigned short",
            (32, true) => "int",
            (32, false) => "unsigned int",
            (_, true) => "long",
            (_, false) => "unsigned long",
        }
    }
}

impl fmt::Display for IntType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match (self.rank, self.signed) {
            (5, true) => "long long",
            (5, false) => "unsigned long long",
            _ => self.spelling(),
        };
        f.write_str(s)
    }
}

impl CType {
    /// The type of a normalised type name.
    pub fn from_name(name: &str, char_signed: bool) -> CType {
        match name {
            "float" | "double" | "long double" => CType::Float,
            n => IntType::from_name(n, char_signed).map_or(CType::Other, CType::Int),
        }
    }

    pub fn int(self) -> Option<IntType> {
        match self {
            CType::Int(t) => Some(t),
            _ => None,
        }
    }

    /// The usual arithmetic conversions of two operand types.
    pub fn common(a: CType, b: CType) -> CType {
        match (a, b) {
            (CType::Int(x), CType::Int(y)) => CType::Int(IntType::common(x, y)),
            (CType::Other, _) | (_, CType::Other) => CType::Other,
            _ => CType::Float,
        }
    }

    /// The integer promotions (other types are unchanged).
    pub fn promote(self) -> CType {
        match self {
            CType::Int(t) => CType::Int(t.promote()),
            t => t,
        }
    }
}

/// The type of an integer literal from its spelling (C11 §6.4.4.1): the first of the
/// suffix's candidate types that holds the value; octal and hexadecimal literals may also be
/// unsigned.
pub fn literal_type(text: &str, value: i128) -> IntType {
    let lower = text.to_ascii_lowercase();
    let digits_end = lower.find(['u', 'l']).unwrap_or(lower.len());
    let suffix = &lower[digits_end..];
    let unsigned = suffix.contains('u');
    let longs = suffix.matches('l').count();
    let decimal = !(lower.starts_with('0') && lower.len() > 1 && digits_end > 1);
    let candidates: &[IntType] = match (unsigned, longs, decimal) {
        (false, 0, true) => &[IntType::INT, IntType::LONG, IntType::LLONG],
        (false, 0, false) => &[
            IntType::INT,
            IntType::UINT,
            IntType::LONG,
            IntType::ULONG,
            IntType::LLONG,
            IntType::ULLONG,
        ],
        (false, 1, true) => &[IntType::LONG, IntType::LLONG],
        (false, 1, false) => &[
            IntType::LONG,
            IntType::ULONG,
            IntType::LLONG,
            IntType::ULLONG,
        ],
        (false, _, true) => &[IntType::LLONG],
        (false, _, false) => &[IntType::LLONG, IntType::ULLONG],
        (true, 0, _) => &[IntType::UINT, IntType::ULONG, IntType::ULLONG],
        (true, 1, _) => &[IntType::ULONG, IntType::ULLONG],
        (true, _, _) => &[IntType::ULLONG],
    };
    candidates
        .iter()
        .copied()
        .find(|t| value <= t.max())
        .unwrap_or(IntType::ULLONG)
}

/// The C type of every node of an expression under one typing of its names.
pub struct Typing<'a> {
    /// The type of a variable's value (an array's element type for arrays).
    pub var: &'a dyn Fn(&str) -> CType,
    /// The type a cast's words name.
    pub cast: &'a dyn Fn(&str) -> CType,
}

impl Typing<'_> {
    /// The type of `e`.
    pub fn type_of(&self, e: &Expr) -> CType {
        self.type_with(e, &mut |x| self.type_of(x))
    }

    /// The type of `e`, with `sub` giving the types of its operands.
    fn type_with(&self, e: &Expr, sub: &mut dyn FnMut(&Expr) -> CType) -> CType {
        match e {
            Expr::Int { value, text } => CType::Int(literal_type(text, *value as i128)),
            Expr::Float(_) => CType::Float,
            Expr::Char(_) => CType::Int(IntType::INT),
            Expr::Var(v) => (self.var)(v),
            Expr::Index { array, .. } => (self.var)(array),
            Expr::Call { func, .. } => match func.as_str() {
                "abs" => CType::Int(IntType::INT),
                "labs" => CType::Int(IntType::LONG),
                "llabs" => CType::Int(IntType::LLONG),
                _ => CType::Float,
            },
            Expr::Unary { op, operand } => match op {
                UnaryOp::Not => CType::Int(IntType::INT),
                _ => sub(operand).promote(),
            },
            Expr::Binary { op, lhs, rhs } => match op {
                _ if op.is_truth() => CType::Int(IntType::INT),
                BinaryOp::Shl | BinaryOp::Shr => sub(lhs).promote(),
                _ => CType::common(sub(lhs), sub(rhs)),
            },
            Expr::Ternary { then, other, .. } => CType::common(sub(then), sub(other)),
            Expr::Cast { ty, .. } => (self.cast)(ty),
            Expr::Assign { lhs, .. } => sub(lhs),
        }
    }
}

/// Whether `e` computes the same values under typing `b` as under typing `a`, assuming it has
/// no undefined behaviour under `a`: every integer node is signed under both (signed
/// arithmetic on equal values gives equal values at any width) or has the same type under
/// both. Generated code replaces `int` iterators by `long` counters; this says whether a
/// statement can use them as they are or needs them converted back.
pub fn same_values(e: &Expr, a: &Typing, b: &Typing) -> bool {
    // Each node typed once: `type_of` on every node would type every subtree again, quadratic
    // in a sum of thousands of terms (10,000 took 17 s).
    let (mut a, mut b) = (Memo::new(a), Memo::new(b));
    let mut same = true;
    e.walk(&mut |n| {
        same &= match (a.type_of(n), b.type_of(n)) {
            (CType::Int(x), CType::Int(y)) => (x.signed && y.signed) || x == y,
            (x, y) => x == y,
        };
    });
    same
}

/// [`Typing::type_of`] remembering the type of every node it typed, by the node's address
/// (the expression stays borrowed meanwhile, so no address is reused).
struct Memo<'t, 'a> {
    typing: &'t Typing<'a>,
    known: HashMap<*const Expr, CType>,
}

impl<'t, 'a> Memo<'t, 'a> {
    fn new(typing: &'t Typing<'a>) -> Self {
        Memo {
            typing,
            known: HashMap::new(),
        }
    }

    fn type_of(&mut self, e: &Expr) -> CType {
        if let Some(&t) = self.known.get(&(e as *const Expr)) {
            return t;
        }
        let typing = self.typing;
        let t = typing.type_with(e, &mut |x| self.type_of(x));
        self.known.insert(e as *const Expr, t);
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usual_arithmetic_conversions() {
        use IntType as T;
        assert_eq!(T::common(T::INT, T::UINT), T::UINT);
        assert_eq!(T::common(T::LONG, T::UINT), T::LONG);
        assert_eq!(T::common(T::SHORT, T::USHORT), T::INT);
        assert_eq!(T::common(T::LLONG, T::ULONG), T::ULLONG);
        assert_eq!(T::common(T::INT, T::ULONG), T::ULONG);
        assert_eq!(T::common(T::SCHAR, T::BOOL), T::INT);
    }

    #[test]
    fn conversions_wrap() {
        assert_eq!(IntType::UINT.convert(-3), 4294967293);
        assert_eq!(IntType::SHORT.convert(65546), 10);
        assert_eq!(IntType::SHORT.convert(40000), 40000 - 65536);
        assert_eq!(IntType::INT.convert((1 << 32) + 10), 10);
        assert_eq!(IntType::BOOL.convert(-7), 1);
        assert_eq!(IntType::ULONG.convert(-1), u64::MAX as i128);
    }

    #[test]
    fn long_iterators_change_unsigned_arithmetic() {
        use crate::model::expr::Expr as E;
        let b = |op, l, r| E::Binary {
            op,
            lhs: Box::new(l),
            rhs: Box::new(r),
        };
        let int_i = |v: &str| match v {
            "i" => CType::Int(IntType::INT),
            _ => CType::Float,
        };
        let long_i = |v: &str| match v {
            "i" => CType::Int(IntType::LONG),
            _ => CType::Float,
        };
        let cast = |_: &str| CType::Other;
        let (orig, sub) = (
            Typing {
                var: &int_i,
                cast: &cast,
            },
            Typing {
                var: &long_i,
                cast: &cast,
            },
        );
        let five_u = E::Int {
            value: 5,
            text: "5u".into(),
        };
        assert!(!same_values(
            &b(BinaryOp::Sub, E::var("i"), five_u),
            &orig,
            &sub
        ));
        assert!(same_values(
            &b(BinaryOp::Sub, E::var("i"), E::int(5)),
            &orig,
            &sub
        ));
        assert!(same_values(
            &b(BinaryOp::Mul, E::var("i"), E::var("x")),
            &orig,
            &sub
        ));
        // Deep in a long sum (each node typed once, the innermost too).
        let sum = |first: E| (0..1000).fold(first, |acc, _| b(BinaryOp::Add, acc, E::var("x")));
        let five_u = E::Int {
            value: 5,
            text: "5u".into(),
        };
        assert!(!same_values(
            &sum(b(BinaryOp::Sub, E::var("i"), five_u)),
            &orig,
            &sub
        ));
        assert!(same_values(
            &sum(b(BinaryOp::Sub, E::var("i"), E::int(5))),
            &orig,
            &sub
        ));
    }

    #[test]
    fn literal_types() {
        assert_eq!(literal_type("5u", 5), IntType::UINT);
        assert_eq!(literal_type("5", 5), IntType::INT);
        assert_eq!(literal_type("3000000000", 3000000000), IntType::LONG);
        assert_eq!(literal_type("0xffffffff", 0xffffffff), IntType::UINT);
        assert_eq!(literal_type("10L", 10), IntType::LONG);
        assert_eq!(literal_type("10ull", 10), IntType::ULLONG);
        assert_eq!(literal_type("0", 0), IntType::INT);
    }
}
