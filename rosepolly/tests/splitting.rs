//! Index-set splitting ([`rosepolly::compilation::split`]) changes no instance and no dependence,
//! only which statement runs an instance: checked by brute-force enumeration against the model
//! left whole, on floyd-warshall and on small inputs, with the cases that must stay whole.

use std::collections::BTreeSet;
use std::path::Path;

use rosepolly::compilation::{self, DefaultCustom, Detection, SourceOptions, SourceUnit};
use rosepolly::enumerate::{brute_force_dependences, instances};
use rosepolly::math::isl::Ctx;
use rosepolly::model::{DepKind, Scop};

fn build<'c>(ctx: &'c Ctx, src: &SourceUnit, split: bool) -> Vec<Scop<'c>> {
    let mut policy = DefaultCustom {
        no_split: !split,
        ..DefaultCustom::default()
    };
    compilation::build_models_with(ctx, src, Detection::Pragmas, &mut policy)
        .unwrap_or_else(|e| panic!("{e}"))
}

fn kernel_source(k: &polybench::Kernel) -> SourceUnit {
    let opts = SourceOptions {
        include_dirs: vec![polybench::utilities_of(k)],
        defines: vec!["MINI_DATASET".into()],
        ..SourceOptions::default()
    };
    SourceUnit::load(&k.source, &opts).unwrap_or_else(|e| panic!("{}: {e}", k.name))
}

fn inline_source(body: &str) -> SourceUnit {
    let text = format!(
        "void f(int n, double A[100][100]) {{\n#pragma scop\n{body}\n#pragma endscop\n}}\n"
    );
    SourceUnit::from_preprocessed(Path::new("split.c"), text).unwrap_or_else(|e| panic!("{e}"))
}

fn params(scop: &Scop, v: i64) -> Vec<(String, i64)> {
    scop.params.iter().map(|p| (p.clone(), v)).collect()
}

/// The line each statement runs: a piece counts as the statement it was split from.
fn line(scop: &Scop, stmt: usize) -> usize {
    scop.statements[stmt].flow_id
}

/// Every instance in original order, as (line, iterators).
fn run(scop: &Scop, v: i64) -> Vec<(usize, Vec<i64>)> {
    instances(scop, &params(scop, v), 200_000)
        .unwrap()
        .into_iter()
        .map(|i| (line(scop, i.stmt), i.iters))
        .collect()
}

/// Every dependent pair, statements named by their lines.
type LinePairs = BTreeSet<(DepKind, usize, usize, String, Vec<i64>, Vec<i64>)>;

fn dependences(scop: &Scop, v: i64) -> LinePairs {
    let mut out = BTreeSet::new();
    for ((kind, a, b, d), pairs) in
        brute_force_dependences(scop, &params(scop, v), 200_000).unwrap()
    {
        for (x, y) in pairs {
            out.insert((kind, line(scop, a), line(scop, b), d.clone(), x, y));
        }
    }
    out
}

/// Whether a piece depends on itself between instances that share their first `outer` iterators.
fn self_dependent(scop: &Scop, v: i64, outer: usize) -> Vec<String> {
    let deps = brute_force_dependences(scop, &params(scop, v), 200_000).unwrap();
    deps.iter()
        .filter(|((_, a, b, _), pairs)| {
            a == b && pairs.iter().any(|(x, y)| x[..outer] == y[..outer])
        })
        .map(|((_, a, _, _), _)| scop.statements[*a].name.clone())
        .collect()
}

/// The split model runs the same instances in the same order with the same dependences as the
/// whole one, and none of its pieces depends on itself inside the outer loops.
fn check_equivalent(split: &Scop, whole: &Scop) {
    for v in [4, 7] {
        assert_eq!(run(split, v), run(whole, v), "instances at {v}");
        assert_eq!(
            dependences(split, v),
            dependences(whole, v),
            "dependences at {v}"
        );
        for s in &split.splits {
            assert_eq!(
                self_dependent(split, v, s.outer),
                Vec::<String>::new(),
                "{s}"
            );
        }
    }
}

#[test]
fn floyd_warshall_splits_at_row_and_column_k_into_nine_parallel_pieces() {
    let k = polybench::kernels()
        .into_iter()
        .find(|k| k.name == "floyd-warshall")
        .expect("floyd-warshall is in the suite");
    let src = kernel_source(&k);
    let ctx = Ctx::new();
    let (split, whole) = (build(&ctx, &src, true), build(&ctx, &src, false));
    let s = &split[0].splits;
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].hyperplanes, ["j = k", "i = k"]);
    assert_eq!(s[0].outer, 1);
    assert_eq!(s[0].pieces.len(), 9);
    assert_eq!(split[0].statements.len(), 9);
    assert_eq!(whole[0].statements.len(), 1);
    check_equivalent(&split[0], &whole[0]);
}

#[test]
fn of_the_suite_only_floyd_warshall_splits() {
    let mut split = Vec::new();
    for k in polybench::kernels() {
        let ctx = Ctx::new();
        let src = kernel_source(&k);
        if build(&ctx, &src, true).iter().any(|s| !s.splits.is_empty()) {
            split.push(k.name.clone());
        }
    }
    assert_eq!(split, ["floyd-warshall"]);
}

#[test]
fn a_diagonal_read_splits_a_row_into_three_pieces() {
    let src = inline_source(
        "for (int i = 0; i < n; i++)\n  for (int j = 0; j < n; j++)\n    A[i][j] = A[i][j] + A[i][i];",
    );
    let ctx = Ctx::new();
    let (split, whole) = (build(&ctx, &src, true), build(&ctx, &src, false));
    let s = &split[0].splits;
    assert_eq!(s.len(), 1, "{:?}", s);
    assert_eq!(s[0].hyperplanes, ["j = i"]);
    assert_eq!(s[0].pieces, ["S0", "S1", "S2"]);
    check_equivalent(&split[0], &whole[0]);
}

#[test]
fn statements_whose_pieces_would_still_depend_on_themselves_stay_whole() {
    let cases = [
        // A running sum along `j` stays in every piece of `j = k`.
        "for (int k = 0; k < n; k++)\n  for (int i = 0; i < n; i++)\n    for (int j = 1; j < n; j++)\n      A[i][j] = A[i][j - 1] + A[i][k];",
        // Already parallel inside `k`: nothing to gain.
        "for (int k = 0; k < n; k++)\n  for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++)\n      A[i][j] = A[i][j] + 1.0;",
        // A reduction: its dependences cover the whole loop, on no hyperplane.
        "for (int i = 0; i < n; i++)\n  for (int j = 0; j < n; j++)\n    A[i][0] = A[i][0] + A[j][i];",
    ];
    for body in cases {
        let ctx = Ctx::new();
        let scops = build(&ctx, &inline_source(body), true);
        assert!(scops[0].splits.is_empty(), "{body}: {:?}", scops[0].splits);
        assert_eq!(scops[0].statements.len(), 1, "{body}");
    }
}
