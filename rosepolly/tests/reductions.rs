//! Reduction recognition (issue 17): every operator and spelling the model recognises, and the
//! updates that look like reductions but are not (the operand reads the accumulator, another
//! statement in the loop reads it, a non-associative or non-commutative update).

use std::path::Path;

use rosepolly::analysis::reductions::{self, Pick, ReductionOp};
use rosepolly::compilation::{self, DefaultCustom, Detection, SourceUnit};
use rosepolly::math::isl::Ctx;

/// `(statement text, operator, reduction loops, floating)` of every reduction found in `body`,
/// a SCoP of a function with arrays `A`, `C` (double, 2-D), `x`, `y` (double), `v` (int) and
/// scalars `s` (double) and `p` (int) that the caller reads afterwards.
fn found(body: &str) -> Vec<(String, ReductionOp, Vec<String>, bool)> {
    with_scop(body, &|scop| {
        reductions::find(scop)
            .into_iter()
            .map(|r| {
                (
                    scop.statements[r.statement].text.clone(),
                    r.op,
                    r.loops,
                    r.floating,
                )
            })
            .collect()
    })
}

/// `f` of the SCoP of `body` (in the function [`found`] describes).
fn with_scop<T>(body: &str, f: &dyn Fn(&rosepolly::model::Scop) -> T) -> T {
    let text = format!(
        "double fmax(double, double);\n\
         void use(double, int);\n\
         void f(int n, double A[100][100], double C[100][100], double x[100], double y[100], int v[100]) {{\n\
         double s = 0; int p = 1;\n\
         #pragma scop\n{body}\n#pragma endscop\n\
         use(s, p);\n}}\n"
    );
    with_text(text, f)
}

/// `f` of the one SCoP of the C source `text`.
fn with_text<T>(text: String, f: &dyn Fn(&rosepolly::model::Scop) -> T) -> T {
    let shown = text.clone();
    let src = SourceUnit::from_preprocessed(Path::new("reductions.c"), text)
        .unwrap_or_else(|e| panic!("{e}"));
    let ctx = Ctx::new();
    let scops = compilation::build_models_with(
        &ctx,
        &src,
        Detection::Pragmas,
        &mut DefaultCustom::default(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(scops.len(), 1, "one SCoP in {shown}");
    f(&scops[0])
}

fn one(body: &str) -> (ReductionOp, Vec<String>, bool) {
    let mut all = found(body);
    assert_eq!(all.len(), 1, "{body}: {all:?}");
    let (_, op, loops, floating) = all.remove(0);
    (op, loops, floating)
}

fn loops(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn sums_in_every_spelling() {
    let sum = (ReductionOp::Add, loops(&["i"]), true);
    for update in [
        "s += x[i];",
        "s -= x[i];",
        "s = s + x[i];",
        "s = x[i] + s;",
        "s = s - x[i];",
        "s = s + 2.0 * x[i] * y[i];",
    ] {
        assert_eq!(
            one(&format!("for (int i = 0; i < n; i++) {update}")),
            sum,
            "{update}"
        );
    }
}

#[test]
fn products_bit_operations_and_integer_accumulators() {
    assert_eq!(
        one("for (int i = 0; i < n; i++) p *= v[i];"),
        (ReductionOp::Mul, loops(&["i"]), false)
    );
    assert_eq!(
        one("for (int i = 0; i < n; i++) p = v[i] * p;"),
        (ReductionOp::Mul, loops(&["i"]), false)
    );
    for (update, op) in [
        ("p |= v[i];", ReductionOp::BitOr),
        ("p &= v[i];", ReductionOp::BitAnd),
        ("p ^= v[i];", ReductionOp::BitXor),
        ("p = p | v[i];", ReductionOp::BitOr),
        // Integer values of floating-point data: comparisons and casts.
        ("p += x[i] > 0.0;", ReductionOp::Add),
        ("p += (int)x[i];", ReductionOp::Add),
        ("p += v[i] * 2 + (i % 3);", ReductionOp::Add),
    ] {
        assert_eq!(
            one(&format!("for (int i = 0; i < n; i++) {update}")),
            (op, loops(&["i"]), false),
            "{update}"
        );
    }
}

/// An integer accumulator of a floating-point operand converts after each update (`p += x[i]`
/// truncates every sum): its updates do not regroup.
#[test]
fn an_integer_accumulator_of_floating_point_values_is_not_a_reduction() {
    for body in [
        "for (int i = 0; i < n; i++) p += x[i];",
        "for (int i = 0; i < n; i++) p = p + v[i] * 0.5;",
        "for (int i = 0; i < n; i++) p *= fmax(x[i], 1.0);",
        "for (int i = 0; i < n; i++) p = p < x[i] ? x[i] : p;",
        "for (int i = 0; i < n; i++) p += (double)v[i];",
    ] {
        assert_eq!(found(body), vec![], "{body}");
    }
}

#[test]
fn maxima_and_minima_through_the_conditional_operator_and_fmax() {
    for (update, op) in [
        ("s = s < x[i] ? x[i] : s;", ReductionOp::Max),
        ("s = s <= x[i] ? x[i] : s;", ReductionOp::Max),
        ("s = x[i] > s ? x[i] : s;", ReductionOp::Max),
        ("s = s > x[i] ? s : x[i];", ReductionOp::Max),
        ("s = s > x[i] ? x[i] : s;", ReductionOp::Min),
        ("s = x[i] < s ? x[i] : s;", ReductionOp::Min),
        ("s = s < x[i] ? s : x[i];", ReductionOp::Min),
        ("s = fmax(s, x[i]);", ReductionOp::Max),
        ("s = fmax(x[i], s);", ReductionOp::Max),
    ] {
        assert_eq!(
            one(&format!("for (int i = 0; i < n; i++) {update}")),
            (op, loops(&["i"]), true),
            "{update}"
        );
    }
}

#[test]
fn what_min_and_max_keep_on_a_tie_and_a_nan() {
    let select = |tie, nan| Pick::Select {
        tie_takes_operand: tie,
        nan_takes_operand: nan,
    };
    for (update, pick) in [
        ("s = s < x[i] ? x[i] : s;", select(false, false)),
        ("s = s <= x[i] ? x[i] : s;", select(true, false)),
        ("s = x[i] >= s ? x[i] : s;", select(true, false)),
        ("s = s > x[i] ? s : x[i];", select(true, true)),
        ("s = s >= x[i] ? s : x[i];", select(false, true)),
        ("s = x[i] < s ? x[i] : s;", select(false, false)),
        ("s = s < x[i] ? s : x[i];", select(true, true)),
        ("s = fmax(s, x[i]);", Pick::Call),
        ("s += x[i];", Pick::Arithmetic),
        ("s = s * x[i];", Pick::Arithmetic),
    ] {
        let got = with_scop(&format!("for (int i = 0; i < n; i++) {update}"), &|scop| {
            reductions::pick(&scop.statements[0].body)
        });
        assert_eq!(got, Some(pick), "{update}");
    }
}

#[test]
fn array_accumulators_reduce_along_the_loops_their_subscripts_leave_out() {
    // gemm's product: C[i][j] accumulates along k.
    let gemm = "for (int i = 0; i < n; i++)\n\
                  for (int j = 0; j < n; j++) {\n\
                    C[i][j] *= 2.0;\n\
                    for (int k = 0; k < n; k++)\n\
                      C[i][j] += A[i][k] * A[k][j];\n\
                  }";
    let all = found(gemm);
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!(all[0].0, "C[i][j] += A[i][k] * A[k][j];");
    assert_eq!((all[0].1, &all[0].2), (ReductionOp::Add, &loops(&["k"])));
    // A row sum accumulates along j; along both loops when the element is fixed.
    assert_eq!(
        one("for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) y[i] += A[i][j];"),
        (ReductionOp::Add, loops(&["j"]), true)
    );
    assert_eq!(
        one("for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) y[0] += A[i][j];"),
        (ReductionOp::Add, loops(&["i", "j"]), true)
    );
}

#[test]
fn updates_that_are_not_reductions() {
    for body in [
        // Not associative, or not an update of the accumulator alone.
        "for (int i = 0; i < n; i++) s = x[i] - s;",
        "for (int i = 0; i < n; i++) s = s * s + x[i];",
        "for (int i = 0; i < n; i++) s = 2.0 * s + x[i];",
        "for (int i = 0; i < n; i++) s /= x[i];",
        "for (int i = 0; i < n; i++) s = x[i];",
        // The operand reads the accumulator's array (a recurrence).
        "for (int i = 1; i < n; i++) y[i] += y[i - 1];",
        "for (int i = 1; i < n; i++) y[0] += y[i];",
        // Every loop indexes the accumulator: one update per element.
        "for (int i = 0; i < n; i++) y[i] += x[i];",
        // A conditional that does not compare the accumulator with the operand.
        "for (int i = 0; i < n; i++) s = x[i] < y[i] ? x[i] : s;",
    ] {
        assert_eq!(found(body), vec![], "{body}");
    }
}

#[test]
fn a_read_of_the_accumulator_inside_the_loop_makes_it_a_scan() {
    // `y[i] = s` sees every partial sum: not a reduction along i.
    assert_eq!(
        found("for (int i = 0; i < n; i++) { s += x[i]; y[i] = s; }"),
        vec![]
    );
    // Outside the loop it is fine: the sum along j is read once per i.
    let all = found(
        "for (int i = 0; i < n; i++) {\n\
           y[i] = 0.0;\n\
           for (int j = 0; j < n; j++) y[i] += A[i][j];\n\
           x[i] = y[i] * 0.5;\n\
         }",
    );
    assert_eq!(all.len(), 1, "{all:?}");
    assert_eq!((all[0].1, &all[0].2), (ReductionOp::Add, &loops(&["j"])));
}

/// The suite's reductions, one line per statement: what `--dump schedule` shows, reviewed by
/// hand in the snapshot (each line names the statement's text).
#[test]
fn the_suites_reductions() {
    let mut lines = Vec::new();
    for k in polybench::kernels() {
        let ctx = Ctx::new();
        let opts = rosepolly::compilation::SourceOptions {
            include_dirs: vec![polybench::utilities_of(&k)],
            defines: vec!["MINI_DATASET".into()],
            ..Default::default()
        };
        let src = SourceUnit::load(&k.source, &opts).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        let scops = compilation::build_models(&ctx, &src, Detection::Pragmas)
            .unwrap_or_else(|e| panic!("{}: {e}", k.name));
        for scop in &scops {
            for r in reductions::find(scop) {
                lines.push(format!(
                    "{}: {} along {} ({}{})",
                    k.name,
                    scop.statements[r.statement].text,
                    r.loops.join(", "),
                    r.op.symbol(),
                    if r.floating { ", floating point" } else { "" }
                ));
            }
        }
    }
    insta::assert_snapshot!(lines.join("\n"));
}

/// The updates whose order never changes the value (`exact_update`, for the C target's folded
/// rows): integer `min`, `max` and bitwise operators, whatever the operand reads of the
/// accumulator's array; not sums, products or floating point.
#[test]
fn exact_updates_are_integer_min_max_and_bitwise_folds() {
    let exact = |body: &str| with_scop(body, &|scop| reductions::exact_update(scop, 0));
    for (body, op) in [
        (
            "for (int i = 1; i < n; i++) v[i] = v[i] < v[i - 1] ? v[i - 1] : v[i];",
            ReductionOp::Max,
        ),
        (
            "for (int i = 0; i < n; i++) v[i] = v[i] <= v[0] + 2 ? v[i] : v[0] + 2;",
            ReductionOp::Min,
        ),
        (
            "for (int i = 0; i < n; i++) v[i] |= v[n - 1 - i] & 6;",
            ReductionOp::BitOr,
        ),
        (
            "for (int i = 0; i < n; i++) p ^= v[i];",
            ReductionOp::BitXor,
        ),
    ] {
        assert_eq!(exact(body), Some(op), "{body}");
    }
    for body in [
        // Integer sums and products: reordered, they may overflow where the original did not.
        "for (int i = 0; i < n; i++) p += v[i];",
        "for (int i = 0; i < n; i++) p *= v[i];",
        // Floating point: ties of signed zeros, NaNs.
        "for (int i = 0; i < n; i++) s = s < x[i] ? x[i] : s;",
        // An integer accumulator of a floating-point operand.
        "for (int i = 0; i < n; i++) p = p < x[i] ? x[i] : p;",
        // Not an update of the accumulator.
        "for (int i = 1; i < n; i++) v[i] = v[i - 1] < v[i] ? v[i - 1] - 1 : v[i];",
    ] {
        assert_eq!(exact(body), None, "{body}");
    }
}

/// An update that stores its operand cut short (a `char` accumulator, a `long` operand of an
/// `int` one) compares one value and stores another: its order matters.
#[test]
fn exact_updates_store_what_they_compare() {
    let run = |params: &str, body: &str| {
        let text =
            format!("void f(int n, {params}) {{\n#pragma scop\n{body}\n#pragma endscop\n}}\n");
        with_text(text, &|scop| reductions::exact_update(scop, 0))
    };
    let max = Some(ReductionOp::Max);
    let loop_max = "for (int i = 0; i < n; i++) a[0] = a[0] >= b[i] ? a[0] : b[i];";
    assert_eq!(run("int a[1], int b[100]", loop_max), max);
    assert_eq!(run("long a[1], int b[100]", loop_max), max);
    assert_eq!(run("int a[1], unsigned char b[100]", loop_max), max);
    assert_eq!(run("int a[1], long b[100]", loop_max), None);
    assert_eq!(run("char a[1], char b[100]", loop_max), None);
    let literal = "for (int i = 0; i < n; i++) a[0] = a[0] >= b[i] + 5000000000L ? a[0] : b[i] + 5000000000L;";
    assert_eq!(run("int a[1], int b[100]", literal), None);
    assert_eq!(run("long a[1], int b[100]", literal), max);
}
