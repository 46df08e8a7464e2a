//! isl's dependences equal the brute-force ones (instance enumeration) for every kernel of the
//! suite, at two sets of small parameter values.

use rosepolly::compilation::{self, Detection, SourceOptions, SourceUnit};
use rosepolly::enumerate::check_dependences;
use rosepolly::math::isl::Ctx;

/// Two small, distinct assignments of the SCoP's parameters.
pub fn small_params(params: &[String]) -> [Vec<(String, i64)>; 2] {
    let a = params
        .iter()
        .enumerate()
        .map(|(k, p)| (p.clone(), 4 + (k as i64 % 3)))
        .collect();
    let b = params
        .iter()
        .enumerate()
        .map(|(k, p)| (p.clone(), 7 - (k as i64 % 2)))
        .collect();
    [a, b]
}

/// The models of kernel `k` at MINI.
fn models<'c>(ctx: &'c Ctx, k: &polybench::Kernel) -> Vec<rosepolly::model::Scop<'c>> {
    let opts = SourceOptions {
        include_dirs: vec![polybench::utilities_of(k)],
        defines: vec!["MINI_DATASET".into()],
        ..SourceOptions::default()
    };
    let src = SourceUnit::load(&k.source, &opts).unwrap_or_else(|e| panic!("{}: {e}", k.name));
    compilation::build_models(ctx, &src, Detection::Pragmas)
        .unwrap_or_else(|e| panic!("{}: {e}", k.name))
}

fn check_suite(kernels: &[polybench::Kernel]) {
    let mut failures = Vec::new();
    for k in kernels {
        let ctx = Ctx::new();
        let scops = models(&ctx, k);
        assert!(!scops.is_empty(), "{}: no SCoP", k.name);
        for scop in &scops {
            for params in small_params(&scop.params) {
                match check_dependences(scop, &params, 200_000) {
                    Ok(n) => println!("{:>16} {params:?}: {n} dependent pairs agree", k.name),
                    Err(e) => failures.push(format!("{} at {params:?}:\n{e}", k.name)),
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn bundled_suite_dependences_match_brute_force() {
    check_suite(&polybench::kernels());
}

#[test]
fn external_polybench_dependences_match_brute_force() {
    match polybench::external_suite() {
        Some(dir) => check_suite(&polybench::kernels_in(&dir).unwrap()),
        None => {
            println!("skipped: set POLYBENCH_DIR to a PolyBench/C 4.2.1 checkout to run this test")
        }
    }
}

/// What extraction stores as the direct dependences (computed beside the complete ones, sharing
/// the flow dependences) is what the direct analysis alone computes.
#[test]
fn stored_direct_dependences_equal_a_fresh_analysis() {
    // The same relations, as sets: a split statement's are divided from the whole statement's
    // (rosepolly::compilation::split::divide), so isl may write them otherwise.
    let key = |d: &rosepolly::model::Dependence| (d.kind, d.source, d.sink, d.datum.clone());
    for k in polybench::kernels() {
        let ctx = Ctx::new();
        for mut scop in models(&ctx, &k) {
            let stored = scop
                .direct_dependences
                .take()
                .expect("analysed at extraction");
            assert!(!stored.is_empty(), "{}: no direct dependence", k.name);
            let fresh = rosepolly::analysis::deps::direct(&ctx, &scop);
            let keys =
                |deps: &[rosepolly::model::Dependence]| deps.iter().map(key).collect::<Vec<_>>();
            assert_eq!(keys(&stored), keys(&fresh), "{}", k.name);
            for (a, b) in stored.iter().zip(&fresh) {
                assert!(
                    a.relation.map().is_equal(&b.relation.map()),
                    "{}: {:?}: {} against {}",
                    k.name,
                    key(a),
                    a.relation,
                    b.relation
                );
            }
        }
    }
}
