//! Every kernel of the suite, under every fusion policy, gets a legal, full-rank schedule whose
//! parallel marks and permutable bands hold: checked by isl (dependences composed with the
//! schedule) and by brute force on enumerated instances at two parameter sets.

mod common;

use common::{check_schedule, options, small_params, with_kernel, POLICIES};

#[test]
fn every_suite_kernel_every_fusion_policy_is_legal() {
    let kernels = polybench::kernels();
    let failures: Vec<String> = polybench::harness::par_map(&kernels, |k| {
        with_kernel(k, |ctx, scops| {
            let mut out = Vec::new();
            for scop in scops {
                let params = [small_params(scop, 4), small_params(scop, 6)];
                for fusion in POLICIES {
                    if let Err(e) = check_schedule(ctx, scop, &options(fusion), &params) {
                        out.push(format!("{} {fusion:?}: {e}", k.name));
                    }
                }
            }
            out
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every suite kernel's SCoPs get a legal schedule under `opts` (at one parameter set).
fn every_kernel_legal_under(opts: &pluto::PlutoOptions) {
    let kernels = polybench::kernels();
    let failures: Vec<String> = polybench::harness::par_map(&kernels, |k| {
        with_kernel(k, |ctx, scops| {
            scops
                .iter()
                .filter_map(|scop| check_schedule(ctx, scop, opts, &[small_params(scop, 5)]).err())
                .map(|e| format!("{}: {e}", k.name))
                .collect::<Vec<_>>()
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn without_direction_ordering_schedules_stay_legal() {
    every_kernel_legal_under(&pluto::PlutoOptions {
        direction_ordering: false,
        ..Default::default()
    });
}

/// The GPU targets' schedules (inner bands distributed for parallelism, bands distributed for
/// sums across tiles, a cost bound per component where that gives more parallel loops) are
/// legal too.
#[test]
fn gpu_schedules_stay_legal() {
    every_kernel_legal_under(&pluto::PlutoOptions::default().for_gpu(true));
}

/// A bound on dependence distances per connected component, on every kernel (the GPU targets
/// keep such a schedule only where it has more parallel loops).
#[test]
fn with_a_cost_per_component_schedules_stay_legal() {
    every_kernel_legal_under(&pluto::PlutoOptions {
        cost_per_component: true,
        ..Default::default()
    });
}
