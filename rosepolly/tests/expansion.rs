//! Scalar and array expansion remove exactly false dependences: on every kernel of the suite, at
//! small parameter values, the expanded model's flow dependences (by brute-force enumeration,
//! arrays made from a scalar or an array read as that one) are the original model's, and its anti and output
//! dependences a subset of the original's. The kernels the issue names get their arrays.

use std::collections::{BTreeMap, BTreeSet};

use rosepolly::compilation::{self, DefaultCustom, Detection, SourceOptions, SourceUnit};
use rosepolly::enumerate::{brute_force_dependences, DepKey, Pairs};
use rosepolly::math::isl::Ctx;
use rosepolly::model::{DepKind, Scop, Storage};

fn models<'c>(ctx: &'c Ctx, k: &polybench::Kernel, expand: bool) -> Vec<Scop<'c>> {
    let opts = SourceOptions {
        include_dirs: vec![polybench::utilities_of(k)],
        defines: vec!["MINI_DATASET".into()],
        ..SourceOptions::default()
    };
    let src = SourceUnit::load(&k.source, &opts).unwrap_or_else(|e| panic!("{}: {e}", k.name));
    let mut policy = DefaultCustom {
        no_expansion: !expand,
        ..DefaultCustom::default()
    };
    compilation::build_models_with(ctx, &src, Detection::Pragmas, &mut policy)
        .unwrap_or_else(|e| panic!("{}: {e}", k.name))
}

/// The brute-force dependences with every expanded array named as its scalar.
fn dependences(scop: &Scop, params: &[(String, i64)]) -> BTreeMap<DepKey, Pairs> {
    let scalar = |d: &str| match scop.symbols.get(d).and_then(|d| d.expands.clone()) {
        Some(s) => s,
        None => d.to_string(),
    };
    let mut out: BTreeMap<DepKey, Pairs> = BTreeMap::new();
    let params = scop.complete_params(params);
    for ((kind, a, b, d), pairs) in brute_force_dependences(scop, &params, 200_000).unwrap() {
        out.entry((kind, a, b, scalar(&d)))
            .or_default()
            .extend(pairs);
    }
    out
}

fn params(scop: &Scop, v: i64) -> Vec<(String, i64)> {
    scop.params.iter().map(|p| (p.clone(), v)).collect()
}

#[test]
fn expansion_removes_only_false_dependences() {
    let mut expanded_in = BTreeSet::new();
    for k in polybench::kernels() {
        let ctx = Ctx::new();
        let (plain, expanded) = (models(&ctx, &k, false), models(&ctx, &k, true));
        for (p, e) in plain.iter().zip(&expanded) {
            let arrays: Vec<&str> = e
                .symbols
                .data
                .values()
                .filter(|d| d.storage == Storage::Expanded)
                .map(|d| d.name.as_str())
                .collect();
            if arrays.is_empty() {
                continue;
            }
            expanded_in.insert(k.name.clone());
            for v in [4, 7] {
                // Copy-out statements (numbered after the user's) have no counterpart before.
                let users = p.statements.len();
                let mut after = dependences(e, &params(e, v));
                after.retain(|key, _| key.1 < users && key.2 < users);
                let before = dependences(p, &params(p, v));
                let of = |m: &BTreeMap<DepKey, Pairs>, kind: DepKind| -> BTreeSet<_> {
                    m.iter()
                        .filter(|(key, _)| key.0 == kind)
                        .flat_map(|(key, pairs)| {
                            pairs.iter().map(move |x| (key.clone(), x.clone()))
                        })
                        .collect()
                };
                assert_eq!(
                    of(&before, DepKind::Flow),
                    of(&after, DepKind::Flow),
                    "{}: flow dependences changed at {v}",
                    k.name
                );
                for kind in [DepKind::Anti, DepKind::Output] {
                    let (b, a) = (of(&before, kind), of(&after, kind));
                    assert!(
                        a.is_subset(&b),
                        "{}: new {kind:?} dependences at {v}",
                        k.name
                    );
                }
                let removed = of(&before, DepKind::Anti).len() + of(&before, DepKind::Output).len()
                    - of(&after, DepKind::Anti).len()
                    - of(&after, DepKind::Output).len();
                assert!(removed > 0, "{}: {arrays:?} removed nothing at {v}", k.name);
            }
        }
    }
    // doitgen's is an array (`sum[p]`); its copy statement has no counterpart to compare with
    // here (tests/dependences.rs checks its dependences, the semantics input runs it).
    for k in ["symm", "ludcmp", "deriche", "gramschmidt", "doitgen"] {
        assert!(
            expanded_in.contains(k),
            "{k} has no expanded scalar or array: {expanded_in:?}"
        );
    }
}

#[test]
fn scalars_with_values_across_iterations_or_after_the_scop_stay() {
    let ctx = Ctx::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/inputs/semantics");
    let src = SourceUnit::load(&dir.join("scalar-expansion.c"), &SourceOptions::default()).unwrap();
    let scops = compilation::build_models(&ctx, &src, Detection::Pragmas).unwrap();
    let expanded = |s: &Scop| -> Vec<(String, String)> {
        s.symbols
            .data
            .values()
            .filter_map(|d| Some((d.expands.clone()?, d.name.clone())))
            .collect()
    };
    let first = expanded(&scops[0]);
    let scalars: BTreeSet<&str> = first.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        scalars,
        BTreeSet::from(["neg", "s", "t", "u", "v"]),
        "{first:?}"
    );
    // `v` lives in one iteration of three loops: expanded over two.
    let v = first
        .iter()
        .find(|(s, _)| s == "v")
        .map(|(_, a)| a)
        .unwrap();
    assert_eq!(scops[0].symbols.get(v).unwrap().extents.len(), 2);
    assert_eq!(
        first.iter().filter(|(s, _)| s == "t").count(),
        2,
        "two webs of t"
    );
    assert!(scops[0].symbols.get("carried").is_some());
    assert!(
        expanded(&scops[1]).is_empty(),
        "`after` is read after the SCoP"
    );
    // `neg`'s loop starts at -3: its elements are offset.
    let neg = scops[0]
        .statements
        .iter()
        .flat_map(|s| s.accesses.iter())
        .find(|a| a.datum.ends_with("_neg"))
        .unwrap();
    assert_eq!(neg.subscripts[0].to_string(), "i + 3");
}

#[test]
fn arrays_are_expanded_where_that_frees_a_loop() {
    let ctx = Ctx::new();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/inputs/semantics");
    let src = SourceUnit::load(&dir.join("array-expansion.c"), &SourceOptions::default()).unwrap();
    let scops = compilation::build_models(&ctx, &src, Detection::Pragmas).unwrap();
    // Each expanded array: what it expands, over how many loops, of how many dimensions.
    let expanded: BTreeSet<(String, usize, usize)> = scops[0]
        .symbols
        .data
        .values()
        .filter_map(|d| Some((d.expands.clone()?, d.expanded_dims, d.extents.len())))
        .collect();
    let want = [("plane", 1, 3), ("sum", 2, 3), ("two", 1, 2), ("win", 1, 2)];
    assert_eq!(
        expanded,
        want.iter()
            .map(|&(a, l, d)| (a.to_string(), l, d))
            .collect(),
    );
    // Expanded arrays are still data of the SCoP: their copy statements write them.
    for (array, ..) in want {
        let d = scops[0].symbols.get(array).unwrap();
        assert!(d.written && !d.read, "{array}");
    }
}
