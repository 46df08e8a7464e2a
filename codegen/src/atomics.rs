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

use rosepolly::analysis::reductions::ReductionOp;

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

/// The name of the helper that combines a partial result of `op` into an `elem` accumulator.
pub fn helper(op: ReductionOp, elem: &str) -> String {
    format!("polyc_atomic_{}_{elem}", name(op))
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

/// `old` and `v` combined as the reduction's statement combines them.
pub fn combined(op: ReductionOp, old: &str, v: &str) -> String {
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

/// The helpers for `updates` (operator and C type of each): the sums' block where there are
/// sums, a compare-and-swap loop for each other pair.
pub fn helpers(dialect: Dialect, updates: &BTreeSet<(ReductionOp, String)>) -> String {
    let mut out = String::new();
    let sums = updates.iter().any(|(op, _)| *op == ReductionOp::Add);
    match (dialect, sums) {
        (Dialect::OpenCl, true) => out.push_str(OPENCL_ADDS),
        (Dialect::Cuda, true) => out.push_str(CUDA_ADDS),
        // 64-bit compare-and-swap needs it; the sums' block enables it otherwise.
        (Dialect::OpenCl, false) if !updates.is_empty() => {
            out.push_str("#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n")
        }
        _ => {}
    }
    for (op, elem) in updates.iter().filter(|(op, _)| *op != ReductionOp::Add) {
        let _ = match dialect {
            Dialect::OpenCl => write!(out, "{}", opencl_loop(*op, elem)),
            Dialect::Cuda => write!(out, "{}", cuda_loop(*op, elem)),
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

fn opencl_loop(op: ReductionOp, elem: &str) -> String {
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
        helper(op, elem),
        combined(op, "seen.f", "v")
    )
}

fn cuda_loop(op: ReductionOp, elem: &str) -> String {
    let u = bits(elem, Dialect::Cuda);
    let guard = format!("POLYC_ATOMIC_{}_{}", name(op), elem).to_ascii_uppercase();
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
        helper(op, elem),
        combined(op, "seen.f", "v")
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

    #[test]
    fn only_the_helpers_used_are_printed() {
        let none = BTreeSet::new();
        assert_eq!(helpers(Dialect::OpenCl, &none), "");
        let min = BTreeSet::from([(ReductionOp::Min, "double".to_string())]);
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
        let sums = BTreeSet::from([(ReductionOp::Add, "int".to_string())]);
        assert_eq!(helpers(Dialect::Cuda, &sums), CUDA_ADDS);
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
