//! Atomic updates that combine work-items' private partial results into accumulators
//! ([`crate::ir::Private`], reductions split across tiles: [`crate::lower`]'s `reductions`).
//!
//! Sums have the helpers `polyc_atomic_add_<type>` (native atomic additions where the device
//! has them). The other operators of [`ReductionOp`] (`*`, `min`, `max`, `&`, `|`, `^`) get a
//! compare-and-swap loop on the accumulator's bits, `polyc_atomic_<op>_<type>`, which combines
//! exactly as the statement does (`min` and `max` pick the smaller or larger as a C `?:`
//! would): an accumulator is updated once per work-item and entry of its points, so a loop
//! costs little. Only the helpers a SCoP's kernels use are printed.

use std::collections::BTreeSet;
use std::fmt::Write;

use rosepolly::analysis::reductions::{Pick, ReductionOp};

use crate::device::Dialect;

/// The C types of accumulators whose partial results kernels combine atomically.
pub const ATOMIC_TYPES: &[&str] = &["double", "float", "int", "long"];

/// Whether kernels can combine partial results of `op` into an accumulator of C type `elem`.
pub fn supported(op: ReductionOp, elem: &str) -> bool {
    let bitwise = matches!(
        op,
        ReductionOp::BitAnd | ReductionOp::BitOr | ReductionOp::BitXor
    );
    ATOMIC_TYPES.contains(&elem) && (!bitwise || matches!(elem, "int" | "long"))
}

/// The value a private partial result of `op` starts from: the operator's identity. Kernels
/// come before the user's headers, so infinity is written without `<math.h>`: OpenCL C has
/// `INFINITY` built in, CUDA gets it from the bits.
pub fn identity(dialect: Dialect, op: ReductionOp, elem: &str) -> &'static str {
    match (op, elem) {
        (ReductionOp::Add | ReductionOp::BitOr | ReductionOp::BitXor, _) => "0",
        (ReductionOp::Mul, _) => "1",
        (ReductionOp::BitAnd, _) => "-1",
        (ReductionOp::Min, "int") => "2147483647",
        (ReductionOp::Max, "int") => "(-2147483647 - 1)",
        (ReductionOp::Min, "long") => "9223372036854775807L",
        (ReductionOp::Max, "long") => "(-9223372036854775807L - 1)",
        (ReductionOp::Min | ReductionOp::Max, _) => match (dialect, op, elem) {
            (Dialect::OpenCl, ReductionOp::Min, _) => "INFINITY",
            (Dialect::OpenCl, _, _) => "-INFINITY",
            (Dialect::Cuda, ReductionOp::Min, "float") => "__int_as_float(0x7f800000)",
            (Dialect::Cuda, _, "float") => "__int_as_float((int)0xff800000u)",
            (Dialect::Cuda, ReductionOp::Min, _) => "__longlong_as_double(0x7ff0000000000000LL)",
            (Dialect::Cuda, _, _) => "__longlong_as_double((long long)0xfff0000000000000ULL)",
        },
    }
}

/// [`identity`] in host C code, exact for every value it is combined with: `-0.0` for
/// floating-point sums (`x + -0.0` is `x`, `-0.0` included, where `+0.0` would turn `-0.0` into
/// `+0.0`), and gcc's and clang's built-in infinities (the user's file may not include
/// `<math.h>`).
pub fn host_identity(op: ReductionOp, elem: &str) -> &'static str {
    match (op, elem) {
        (ReductionOp::Add, "float") => "-0.0f",
        (ReductionOp::Add, "double") => "-0.0",
        (ReductionOp::Min, "float") => "__builtin_inff()",
        (ReductionOp::Max, "float") => "(-__builtin_inff())",
        (ReductionOp::Min, "double") => "__builtin_inf()",
        (ReductionOp::Max, "double") => "(-__builtin_inf())",
        _ => identity(Dialect::OpenCl, op, elem),
    }
}

/// How one reduction's partial results combine into its accumulator: the operator, what a
/// `min` or `max` keeps on a tie or a NaN (as the statement does), the accumulator's C type.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Update {
    pub op: ReductionOp,
    pub pick: Pick,
    pub elem: String,
}

/// The pick of `v > old ? v : old` (`max`) and `v < old ? v : old` (`min`).
const KEEPS_OLD: Pick = Pick::Select {
    tie_takes_operand: false,
    nan_takes_operand: false,
};

impl Update {
    /// The update of a statement of `op` and `pick` on an `elem` accumulator. Integers have
    /// no NaN and their ties are the same value, so every `min` (`max`) of theirs is one.
    pub fn new(op: ReductionOp, pick: Pick, elem: &str) -> Update {
        let choice = matches!(op, ReductionOp::Min | ReductionOp::Max);
        let pick = match pick {
            _ if !choice => Pick::Arithmetic,
            _ if matches!(elem, "int" | "long") => KEEPS_OLD,
            Pick::Arithmetic => KEEPS_OLD,
            other => other,
        };
        Update {
            op,
            pick,
            elem: elem.to_string(),
        }
    }

    /// The name of the helper that combines a partial result into an accumulator:
    /// `polyc_atomic_<op>_<type>`, for a `min` or `max` that does not keep the accumulator
    /// on ties and NaNs with `_ties` (a tie takes the operand), `_nans` (so does a NaN) or
    /// `_call` (`fmin`/`fmax`).
    pub fn helper(&self) -> String {
        let suffix = match self.pick {
            Pick::Arithmetic => "",
            Pick::Call => "_call",
            Pick::Select {
                tie_takes_operand,
                nan_takes_operand,
            } => match (tie_takes_operand, nan_takes_operand) {
                (false, false) => "",
                (true, false) => "_ties",
                (false, true) => "_nans",
                (true, true) => "_ties_nans",
            },
        };
        format!("polyc_atomic_{}_{}{suffix}", name(self.op), self.elem)
    }

    /// `old` and `v` combined as the reduction's statement combines its accumulator and
    /// operand.
    pub fn combined(&self, dialect: Dialect, old: &str, v: &str) -> String {
        let max = self.op == ReductionOp::Max;
        match self.pick {
            Pick::Arithmetic => arithmetic(self.op, old, v),
            Pick::Call => {
                let f = if max { "fmax" } else { "fmin" };
                // OpenCL C overloads fmax; CUDA's float version is fmaxf.
                let float = dialect == Dialect::Cuda && self.elem == "float";
                format!("{f}{}({old}, {v})", if float { "f" } else { "" })
            }
            Pick::Select {
                tie_takes_operand: tie,
                nan_takes_operand: nan,
            } => {
                // `a cmp b ? a : b` gives `b` where the comparison fails, as with a NaN; a tie
                // passes `>=` and fails `>`.
                let cmp = if max { ">" } else { "<" };
                let (a, b, tie_gives_a) = if nan { (old, v, !tie) } else { (v, old, tie) };
                let eq = if tie_gives_a { "=" } else { "" };
                format!("{a} {cmp}{eq} {b} ? {a} : {b}")
            }
        }
    }
}

fn name(op: ReductionOp) -> &'static str {
    match op {
        ReductionOp::Add => "add",
        ReductionOp::Mul => "mul",
        ReductionOp::Min => "min",
        ReductionOp::Max => "max",
        ReductionOp::BitAnd => "and",
        ReductionOp::BitOr => "or",
        ReductionOp::BitXor => "xor",
    }
}

/// `old` and `v` combined by `op`, where it is an arithmetic or bitwise operator (`min` and
/// `max` as `v < old ? v : old` and `v > old ? v : old`).
pub fn arithmetic(op: ReductionOp, old: &str, v: &str) -> String {
    match op {
        ReductionOp::Add => format!("{old} + {v}"),
        ReductionOp::Mul => format!("{old} * {v}"),
        ReductionOp::Min => format!("{v} < {old} ? {v} : {old}"),
        ReductionOp::Max => format!("{v} > {old} ? {v} : {old}"),
        ReductionOp::BitAnd => format!("{old} & {v}"),
        ReductionOp::BitOr => format!("{old} | {v}"),
        ReductionOp::BitXor => format!("{old} ^ {v}"),
    }
}

/// The helpers for `updates`: the sums' block where there are sums, a compare-and-swap loop
/// for each other update.
pub fn helpers(dialect: Dialect, updates: &BTreeSet<Update>) -> String {
    let mut out = String::new();
    let sums = updates.iter().any(|u| u.op == ReductionOp::Add);
    match (dialect, sums) {
        (Dialect::OpenCl, true) => out.push_str(OPENCL_ADDS),
        (Dialect::Cuda, true) => out.push_str(CUDA_ADDS),
        // 64-bit compare-and-swap needs it; the sums' block enables it otherwise.
        (Dialect::OpenCl, false) if !updates.is_empty() => {
            out.push_str("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n")
        }
        _ => {}
    }
    for u in updates.iter().filter(|u| u.op != ReductionOp::Add) {
        let _ = match dialect {
            Dialect::OpenCl => write!(out, "{}", opencl_loop(u)),
            Dialect::Cuda => write!(out, "{}", cuda_loop(u)),
        };
    }
    out
}

/// The unsigned type of `elem`'s size, whose bits the compare-and-swap compares.
fn bits(elem: &str, dialect: Dialect) -> &'static str {
    let wide = matches!(elem, "double" | "long");
    match (dialect, wide) {
        (Dialect::OpenCl, true) => "ulong",
        (Dialect::OpenCl, false) => "uint",
        (Dialect::Cuda, true) => "unsigned long long",
        (Dialect::Cuda, false) => "unsigned int",
    }
}

fn opencl_loop(update: &Update) -> String {
    let elem = &update.elem;
    let u = bits(elem, Dialect::OpenCl);
    let cas = if u == "ulong" {
        "atom_cmpxchg"
    } else {
        "atomic_cmpxchg"
    };
    format!(
        "inline void {}(volatile __global {elem} *p, {elem} v) {{
  union {{ {elem} f; {u} u; }} seen, next;
  do {{ seen.f = *p; next.f = {}; }} while ({cas}((volatile __global {u} *)p, seen.u, next.u) != seen.u);
}}
",
        update.helper(),
        update.combined(Dialect::OpenCl, "seen.f", "v")
    )
}

fn cuda_loop(update: &Update) -> String {
    let elem = &update.elem;
    let u = bits(elem, Dialect::Cuda);
    let guard = update.helper().to_ascii_uppercase();
    format!(
        "#ifndef {guard}
#define {guard}
static inline __device__ __attribute__((unused)) void {}({elem} *p, {elem} v) {{
  union {{ {elem} f; {u} u; }} seen, next;
  {u} got = *({u} *)p;
  do {{ seen.u = got; next.f = {}; got = atomicCAS(({u} *)p, seen.u, next.u); }} while (got != seen.u);
}}
#endif
",
        update.helper(),
        update.combined(Dialect::Cuda, "seen.f", "v")
    )
}

const OPENCL_ADDS: &str = "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
inline void polyc_atomic_add_double(volatile __global double *p, double v) {
  union { double f; ulong u; } seen, sum;
  do { seen.f = *p; sum.f = seen.f + v; } while (atom_cmpxchg((volatile __global ulong *)p, seen.u, sum.u) != seen.u);
}
inline void polyc_atomic_add_float(volatile __global float *p, float v) {
  union { float f; uint u; } seen, sum;
  do { seen.f = *p; sum.f = seen.f + v; } while (atomic_cmpxchg((volatile __global uint *)p, seen.u, sum.u) != seen.u);
}
inline void polyc_atomic_add_int(volatile __global int *p, int v) { atomic_add(p, v); }
inline void polyc_atomic_add_long(volatile __global long *p, long v) { atom_add(p, v); }
";

const CUDA_ADDS: &str = "#ifndef POLYC_ATOMICS
#define POLYC_ATOMICS
static inline __device__ __attribute__((unused)) void polyc_atomic_add_double(double *p, double v) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600
  atomicAdd(p, v);
#else
  unsigned long long *u = (unsigned long long *)p, old = *u, seen;
  do { seen = old; old = atomicCAS(u, seen, __double_as_longlong(v + __longlong_as_double(seen))); } while (seen != old);
#endif
}
static inline __device__ __attribute__((unused)) void polyc_atomic_add_float(float *p, float v) { atomicAdd(p, v); }
static inline __device__ __attribute__((unused)) void polyc_atomic_add_int(int *p, int v) { atomicAdd(p, v); }
static inline __device__ __attribute__((unused)) void polyc_atomic_add_long(long *p, long v) {
  atomicAdd((unsigned long long *)p, (unsigned long long)v);
}
#endif
";

#[cfg(test)]
mod tests {
    use super::*;

    fn set(updates: &[(ReductionOp, Pick, &str)]) -> BTreeSet<Update> {
        updates
            .iter()
            .map(|&(op, pick, elem)| Update::new(op, pick, elem))
            .collect()
    }

    #[test]
    fn only_the_helpers_used_are_printed() {
        let none = BTreeSet::new();
        assert_eq!(helpers(Dialect::OpenCl, &none), "");
        let min = set(&[(ReductionOp::Min, KEEPS_OLD, "double")]);
        let cl = helpers(Dialect::OpenCl, &min);
        assert!(cl.contains("cl_khr_int64_base_atomics"));
        assert!(cl.contains(
            "inline void polyc_atomic_min_double(volatile __global double *p, double v)"
        ));
        assert!(cl.contains("next.f = v < seen.f ? v : seen.f;"));
        assert!(!cl.contains("polyc_atomic_add_"));
        let cu = helpers(Dialect::Cuda, &min);
        assert!(cu.contains("#ifndef POLYC_ATOMIC_MIN_DOUBLE"));
        assert!(cu.contains("atomicCAS((unsigned long long *)p, seen.u, next.u)"));
        let sums = set(&[(ReductionOp::Add, Pick::Arithmetic, "int")]);
        assert_eq!(helpers(Dialect::Cuda, &sums), CUDA_ADDS);
    }

    /// `m = m > e ? m : e` from `m = NAN` takes its first operand; combined as
    /// `v > m ? v : m`, its partial results would keep the NaN.
    #[test]
    fn min_and_max_combine_as_their_statements_pick() {
        let max = |tie, nan| {
            let pick = Pick::Select {
                tie_takes_operand: tie,
                nan_takes_operand: nan,
            };
            Update::new(ReductionOp::Max, pick, "double")
        };
        let cl = |u: &Update| u.combined(Dialect::OpenCl, "old", "v");
        assert_eq!(cl(&max(false, false)), "v > old ? v : old");
        assert_eq!(cl(&max(true, false)), "v >= old ? v : old");
        assert_eq!(cl(&max(true, true)), "old > v ? old : v");
        assert_eq!(cl(&max(false, true)), "old >= v ? old : v");
        assert_eq!(
            max(true, true).helper(),
            "polyc_atomic_max_double_ties_nans"
        );
        let fmin = Update::new(ReductionOp::Min, Pick::Call, "float");
        assert_eq!(fmin.helper(), "polyc_atomic_min_float_call");
        assert_eq!(fmin.combined(Dialect::Cuda, "old", "v"), "fminf(old, v)");
        assert_eq!(fmin.combined(Dialect::OpenCl, "old", "v"), "fmin(old, v)");
        // Integers have one way to pick.
        assert_eq!(
            Update::new(ReductionOp::Max, Pick::Call, "int"),
            Update::new(ReductionOp::Max, KEEPS_OLD, "int")
        );
        let both = set(&[
            (ReductionOp::Max, KEEPS_OLD, "double"),
            (ReductionOp::Max, Pick::Call, "double"),
        ]);
        let cu = helpers(Dialect::Cuda, &both);
        assert!(cu.contains("#ifndef POLYC_ATOMIC_MAX_DOUBLE\n"));
        assert!(cu.contains("#ifndef POLYC_ATOMIC_MAX_DOUBLE_CALL\n"));
        assert!(cu.contains("next.f = fmax(seen.f, v);"));
    }

    #[test]
    fn bitwise_updates_only_on_integers() {
        assert!(supported(ReductionOp::BitXor, "long"));
        assert!(!supported(ReductionOp::BitXor, "double"));
        assert!(supported(ReductionOp::Min, "float"));
        assert!(!supported(ReductionOp::Add, "short"));
        let (cl, cu) = (Dialect::OpenCl, Dialect::Cuda);
        assert_eq!(
            identity(cl, ReductionOp::Max, "long"),
            "(-9223372036854775807L - 1)"
        );
        assert_eq!(identity(cu, ReductionOp::Add, "double"), "0");
        assert_eq!(identity(cl, ReductionOp::Min, "float"), "INFINITY");
        assert_eq!(
            identity(cu, ReductionOp::Max, "float"),
            "__int_as_float((int)0xff800000u)"
        );
    }
}
