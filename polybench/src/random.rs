//! Random small affine loop programs, for property tests of the dependence analysis, the
//! scheduler and the tiler, and for the differential test at scale (`scripts/differential.sh`):
//! a function with one `#pragma scop` region of one to three loop nests, up to three deep, with
//! rectangular, triangular, decreasing and strided loops, bounds with `min`/`max` (as C's `?:`),
//! statements at any depth (imperfect nests), some under affine conditions (`if`, `else`), and
//! uniform and non-uniform subscripts on two 2-D arrays, a 1-D array and a scalar (a reduction
//! when it is updated with `+=`). The iterators and the parameters get random C integer types
//! (`int`, `long`, `unsigned`, `short`; `size_t` parameters), and the iterators are read after
//! the region, so that C's conversions and the values loops leave behind are exercised. With
//! [`Features::temporaries`], a further nest rewrites a window of a global array in every
//! iteration and reads it back there (array expansion's pattern).
//!
//! Every array access stays inside the declared extents for parameter values up to
//! [`MAX_PARAM`], so the programs can also be compiled and run.

use std::fmt::Write;

/// The largest value the generated programs' parameters `n` and `m` may take.
pub const MAX_PARAM: i64 = 24;
/// Declared extent of every array dimension: indices are iterators (`< MAX_PARAM`) plus at
/// most 2, plus an offset of 2 that keeps `i - 1` and `i - 2` non-negative.
const EXTENT: i64 = MAX_PARAM + 6;

/// A xorshift64* generator: deterministic for a seed, no dependency needed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
    /// True with probability `p` percent.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const ITERS: [&str; 3] = ["i", "j", "k"];

/// The C types of a program's iterators and parameters.
/// The C types iterators and parameters are drawn from (`int` twice as likely).
const ITERATOR_TYPES: [&str; 5] = ["int", "int", "long", "unsigned", "short"];
const PARAM_TYPES: [&str; 5] = ["int", "int", "unsigned", "long", "size_t"];

#[derive(Debug, Clone, Copy)]
struct Types {
    iterator: &'static str,
    param: &'static str,
}

impl Types {
    fn draw(rng: &mut Rng) -> Types {
        Types {
            iterator: ITERATOR_TYPES[rng.below(ITERATOR_TYPES.len())],
            param: PARAM_TYPES[rng.below(PARAM_TYPES.len())],
        }
    }
    fn unsigned_iterator(self) -> bool {
        self.iterator.starts_with("unsigned")
    }
}

/// The constructs beyond the base ones (loops of steps ±1 with rectangular and triangular
/// bounds, plain statements). [`program`] draws none of them, so that the property tests of the
/// scheduler and the tiler keep their programs; the differential test at scale draws all of them
/// ([`Features::ALL`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Features {
    /// Loops counting up by 2 or 3.
    pub strides: bool,
    /// Bounds with `min`/`max`, written as `?:`.
    pub min_max: bool,
    /// Statements under affine conditions, with `else` branches.
    pub conditions: bool,
    /// One more nest that rewrites a window of a global array `t` in each iteration of its outer
    /// loops and reads it there (doitgen's `sum[p]`): what array expansion and its copy-out
    /// statements are for. Separate from [`Features::ALL`], so that the seeds of earlier runs
    /// keep their programs.
    pub temporaries: bool,
}

impl Features {
    pub const BASE: Features = Features {
        strides: false,
        min_max: false,
        conditions: false,
        temporaries: false,
    };
    pub const ALL: Features = Features {
        strides: true,
        min_max: true,
        conditions: true,
        temporaries: false,
    };
    /// [`Features::ALL`] and the temporaries' nest.
    pub const TEMPORARIES: Features = Features {
        temporaries: true,
        ..Features::ALL
    };
}

/// A random program; the same seed always gives the same text. The kernel function is
/// `kernel(P n, P m, double A[..][..], double B[..][..], double x[..])` for an integer type P;
/// it returns a number made of its iterators' final values.
pub fn program(seed: u64) -> String {
    program_with(seed, Features::BASE)
}

/// [`program`] with the constructs `features` allows.
pub fn program_with(seed: u64, features: Features) -> String {
    let mut rng = Rng::new(seed);
    let types = Types::draw(&mut rng);
    let mut body = String::new();
    let nests = 1 + rng.below(3);
    for _ in 0..nests {
        let depth = 1 + rng.below(3);
        nest(&mut rng, types, features, &mut body, 0, depth, "  ");
    }
    let mut globals = String::new();
    if features.temporaries {
        // A stream of its own: the rest of the program is the one `Features::ALL` gives.
        temporaries(&mut Rng::new(seed ^ 0x7e3a_11a5), &mut body);
        globals = format!("double t[{EXTENT}];\n");
    }
    format!(
        "/* random affine program, seed {seed} */\n\
         #include <stddef.h>\n\
         {globals}\
         long kernel({p} n, {p} m, double A[{e}][{e}], double B[{e}][{e}], double x[{e}])\n{{\n\
         \x20 {t} i = 0, j = 0, k = 0;\n\
         \x20 double s = 0.0;\n\
         #pragma scop\n{body}#pragma endscop\n\
         \x20 x[0] += s;\n\
         \x20 return (long)i * 10000 + (long)j * 100 + (long)k;\n}}\n",
        e = EXTENT,
        p = types.param,
        t = types.iterator,
    )
}

/// [`program`] with a `main` that fills the arrays, calls the kernel with parameter values
/// drawn from the seed (1..=[`MAX_PARAM`]) and prints every array element and the kernel's
/// result: a whole program to compile, run and compare.
pub fn program_with_main(seed: u64) -> String {
    program_with_main_of(seed, Features::BASE)
}

/// [`program_with_main`] with the constructs `features` allows.
pub fn program_with_main_of(seed: u64, features: Features) -> String {
    let mut rng = Rng::new(seed ^ 0x5eed);
    let (n, m) = (
        1 + rng.below(MAX_PARAM as usize),
        1 + rng.below(MAX_PARAM as usize),
    );
    let (fill_t, print_t) = match features.temporaries {
        true => (
            "    t[a] = a * 0.125;\n",
            "    printf(\"%.17g\\n\", t[a]);\n",
        ),
        false => ("", ""),
    };
    format!(
        "{}\n#include <stdio.h>\n\
         static double A[{e}][{e}], B[{e}][{e}], x[{e}];\n\
         int main(void) {{\n\
         \x20 for (int a = 0; a < {e}; a++) {{\n\
         \x20   x[a] = a * 0.25;\n{fill_t}\
         \x20   for (int b = 0; b < {e}; b++) {{\n\
         \x20     A[a][b] = (a * 3 + b) % 7 * 0.5;\n\
         \x20     B[a][b] = (a + 2 * b) % 5 * 0.25;\n\
         \x20   }}\n\
         \x20 }}\n\
         \x20 long r = kernel({n}, {m}, A, B, x);\n\
         \x20 printf(\"%ld\\n\", r);\n\
         \x20 for (int a = 0; a < {e}; a++) {{\n\
         \x20   printf(\"%.17g\\n\", x[a]);\n{print_t}\
         \x20   for (int b = 0; b < {e}; b++) printf(\"%.17g %.17g\\n\", A[a][b], B[a][b]);\n\
         \x20 }}\n\
         \x20 return 0;\n}}\n",
        program_with(seed, features),
        e = EXTENT
    )
}

/// A loop at `level` and everything inside it, down to `depth` loops.
fn nest(
    rng: &mut Rng,
    types: Types,
    features: Features,
    out: &mut String,
    level: usize,
    depth: usize,
    indent: &str,
) {
    let it = ITERS[level];
    let outer = (level > 0).then(|| ITERS[level - 1]);
    let bound = *rng.pick(&["n", "m"]);
    // The base forms are drawn as they always were, so that `program`'s texts do not change.
    let form = if features.min_max {
        rng.below(6)
    } else {
        [0, 1, 4, 5][rng.below(4)]
    };
    let (lower, upper) = match (outer, form) {
        (Some(o), 0) => ("0".to_string(), format!("{it} <= {o}")),
        (Some(o), 1) => (format!("{o} + 1"), format!("{it} < {bound}")),
        // min: no further than 4 past the outer iterator, nor than the bound.
        (Some(o), 2) => (
            "0".to_string(),
            format!("{it} < ({bound} < {o} + 4 ? {bound} : {o} + 4)"),
        ),
        // max: from 2 before the outer iterator (or 0).
        (Some(o), 3) => (
            format!("({o} > 2 ? {o} - 2 : 0)"),
            format!("{it} < {bound}"),
        ),
        (_, 4) => ("1".to_string(), format!("{it} < {bound} - 1")),
        _ => ("0".to_string(), format!("{it} < {bound}")),
    };
    // Decreasing loops only for the simple rectangular form, where the bounds swap cleanly.
    // An unsigned iterator stops at 1 rather than wrap below 0; strides only count up, so that
    // no iterator steps below 0.
    if lower == "0" && upper == format!("{it} < {bound}") && rng.chance(20) {
        let (from, to) = match types.unsigned_iterator() {
            true => (bound.to_string(), format!("{it} >= 1")),
            false => (format!("{bound} - 1"), format!("{it} >= 0")),
        };
        let _ = writeln!(out, "{indent}for ({it} = {from}; {to}; {it}--) {{");
    } else if features.strides && rng.chance(15) {
        let step = 2 + rng.below(2);
        let _ = writeln!(
            out,
            "{indent}for ({it} = {lower}; {upper}; {it} += {step}) {{"
        );
    } else {
        let _ = writeln!(out, "{indent}for ({it} = {lower}; {upper}; {it}++) {{");
    }
    let inner = format!("{indent}  ");
    let live = &ITERS[..=level];
    if level + 1 < depth {
        if rng.chance(30) {
            guarded_statement(rng, features, out, live, &inner);
        }
        nest(rng, types, features, out, level + 1, depth, &inner);
        if rng.chance(25) {
            guarded_statement(rng, features, out, live, &inner);
        }
    } else {
        for _ in 0..1 + rng.below(2) {
            guarded_statement(rng, features, out, live, &inner);
        }
    }
    let _ = writeln!(out, "{indent}}}");
}

/// The temporaries' nest ([`Features::temporaries`]): in each iteration of `i` (and of `j`, one
/// time in two), a loop writes a window of `t` (all of `[2, m + 2)`, or `[i + 2, i + 5)`) and a
/// second loop reads it back into `A`, `B` or `x`. Variations that must keep the array as it is
/// are drawn too: the window read before it is written (a value carried from the previous
/// iteration), results written to `x[k]` (shared by every iteration), a second, conditional write.
fn temporaries(rng: &mut Rng, out: &mut String) {
    let outer = *rng.pick(&["n", "m"]);
    let _ = writeln!(out, "  for (i = 0; i < {outer}; i++) {{");
    let two = rng.chance(50);
    let (live, indent): (&[&str], &str) = match two {
        true => {
            let _ = writeln!(
                out,
                "    for (j = 0; j < {}; j++) {{",
                rng.pick(&["n", "m"])
            );
            (&ITERS[..], "      ")
        }
        false => (&ITERS[..2], "    "),
    };
    let window = match rng.below(3) {
        0 => "for (k = i; k <= i + 2; k++)".to_string(),
        _ => format!("for (k = 0; k < {}; k++)", rng.pick(&["n", "m"])),
    };
    // `k` stands in for the last live iterator where the nest has no `j`.
    let live: Vec<&str> = live
        .iter()
        .map(|&v| if v == "j" && !two { "k" } else { v })
        .collect();
    let reads = |rng: &mut Rng| -> String {
        let r: Vec<String> = (0..1 + rng.below(2)).map(|_| access(rng, &live)).collect();
        r.join(" + ")
    };
    let _ = writeln!(out, "{indent}{window} {{");
    let carried = rng.chance(15);
    let first = match carried {
        true => format!("t[k + 2] = t[k + 2] * 0.5 + {};", reads(rng)),
        false => format!("t[k + 2] = {} * 0.5 + 1.0;", reads(rng)),
    };
    let _ = writeln!(out, "{indent}  {first}");
    if rng.chance(30) {
        let _ = writeln!(
            out,
            "{indent}  if (k % 2 == 0) t[k + 2] += {} * 0.25;",
            reads(rng)
        );
    }
    let _ = writeln!(out, "{indent}}}");
    let target = match rng.below(5) {
        0 => "x[k]".to_string(),
        1 => "B[i + 2][k + 2]".to_string(),
        2 if two => "A[j + 2][k + 2]".to_string(),
        _ => "A[i + 2][k + 2]".to_string(),
    };
    let _ = writeln!(out, "{indent}{window} {{");
    let _ = writeln!(
        out,
        "{indent}  {target} += t[k + 2] * 0.5 + {} * 0.25;",
        reads(rng)
    );
    let _ = writeln!(out, "{indent}}}");
    if two {
        let _ = writeln!(out, "    }}");
    }
    let _ = writeln!(out, "  }}");
}

/// A statement, under an affine condition one time in five (with an `else` branch sometimes).
fn guarded_statement(
    rng: &mut Rng,
    features: Features,
    out: &mut String,
    live: &[&str],
    indent: &str,
) {
    if !features.conditions || !rng.chance(20) {
        return statement(rng, out, live, indent);
    }
    let a = *rng.pick(live);
    let b = *rng.pick(live);
    let condition = match rng.below(4) {
        0 => format!("{a} >= {b} + 1"),
        1 => format!("{a} + {b} < n"),
        2 => format!("{a} % 2 == 0"),
        _ => format!("{a} <= m - 2 && {b} > 0"),
    };
    let inner = format!("{indent}  ");
    let _ = writeln!(out, "{indent}if ({condition}) {{");
    statement(rng, out, live, &inner);
    if rng.chance(40) {
        let _ = writeln!(out, "{indent}}} else {{");
        statement(rng, out, live, &inner);
    }
    let _ = writeln!(out, "{indent}}}");
}

/// One assignment over the live iterators.
fn statement(rng: &mut Rng, out: &mut String, live: &[&str], indent: &str) {
    let target = access(rng, live);
    let reads: Vec<String> = (0..1 + rng.below(3)).map(|_| access(rng, live)).collect();
    let op = *rng.pick(&["=", "+="]);
    let _ = writeln!(
        out,
        "{indent}{target} {op} {} * 0.5 + 1.0;",
        reads.join(" + ")
    );
}

/// A random access: `A[..][..]`, `B[..][..]`, `x[..]` or the scalar `s`.
fn access(rng: &mut Rng, live: &[&str]) -> String {
    match rng.below(7) {
        0 => "s".to_string(),
        1 | 2 => format!("x[{}]", subscript(rng, live)),
        3 | 4 => format!("A[{}][{}]", subscript(rng, live), subscript(rng, live)),
        _ => format!("B[{}][{}]", subscript(rng, live), subscript(rng, live)),
    }
}

/// `iterator + offset + 2` with an offset in -2..=2, a sum of two iterators when nested
/// (non-uniform), or a small constant.
fn subscript(rng: &mut Rng, live: &[&str]) -> String {
    let it = *rng.pick(live);
    match rng.below(8) {
        0 => format!("{}", rng.below(3)),
        1 if live.len() > 1 => {
            // Two iterators < MAX_PARAM each: their half-sum stays in range.
            let other = *rng.pick(live);
            format!("({it} + {other}) / 2 + 2")
        }
        _ => {
            let off = rng.below(5) as i64 - 2;
            format!("{it} + {}", off + 2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn programs_are_deterministic_and_varied() {
        assert_eq!(program(7), program(7));
        let distinct: std::collections::BTreeSet<String> = (0..20).map(program).collect();
        assert_eq!(distinct.len(), 20);
        assert!(program(3).contains("#pragma scop"));
        // Every construct appears somewhere in the first hundred programs.
        let all: String = (0..100).map(|s| program_with(s, Features::ALL)).collect();
        for construct in [" += 2)", " += 3)", " ? ", "if (", "} else {", "--)"] {
            assert!(all.contains(construct), "{construct}");
        }
    }

    #[test]
    fn temporaries_add_a_nest_and_keep_the_rest() {
        for seed in 0..20 {
            let (all, temp) = (
                program_with(seed, Features::ALL),
                program_with(seed, Features::TEMPORARIES),
            );
            assert!(!all.contains("t[") && temp.contains("t[k + 2] = "));
            // The same program with the global and the nest before the region's end.
            let scop = |p: &str| p[p.find("#pragma scop").unwrap()..].to_string();
            let (a, t) = (scop(&all), scop(&temp));
            let end = a.find("#pragma endscop").unwrap();
            assert!(t.starts_with(&a[..end]), "seed {seed}");
        }
        let many: String = (0..100)
            .map(|s| program_with(s, Features::TEMPORARIES))
            .collect();
        for variation in [
            "k <= i + 2",
            "for (j = 0;",
            "t[k + 2] * 0.5 +",
            "x[k] +=",
            "if (k % 2",
        ] {
            assert!(many.contains(variation), "{variation}");
        }
    }
}
