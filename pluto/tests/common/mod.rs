//! Loading SCoPs for the scheduler's tests.

#![allow(dead_code)] // each test binary uses a part

use pluto::{Fusion, PlutoOptions};
use rosepolly::compilation::{self, Detection, SourceOptions, SourceUnit};
use rosepolly::math::isl::Ctx;
use rosepolly::model::Scop;
use std::path::Path;

pub const POLICIES: [Fusion; 3] = [Fusion::NoFuse, Fusion::SmartFuse, Fusion::MaxFuse];

/// Extract the SCoPs of a file and hand them to `f`.
pub fn with_scops<R>(path: &Path, opts: &SourceOptions, f: impl FnOnce(&Ctx, &[Scop]) -> R) -> R {
    let src = SourceUnit::load(path, opts).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ctx = Ctx::new();
    let scops = compilation::build_models(&ctx, &src, Detection::Pragmas)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    f(&ctx, &scops)
}

/// Extract a suite kernel at MINI.
pub fn with_kernel<R>(k: &polybench::Kernel, f: impl FnOnce(&Ctx, &[Scop]) -> R) -> R {
    let opts = SourceOptions {
        include_dirs: vec![polybench::utilities_of(k)],
        defines: vec!["MINI_DATASET".into()],
        ..SourceOptions::default()
    };
    with_scops(&k.source, &opts, f)
}

/// Extract C text written to a scratch file.
pub fn with_text<R>(name: &str, text: &str, f: impl FnOnce(&Ctx, &[Scop]) -> R) -> R {
    let dir = polybench::harness::scratch_dir(&format!("pluto-{name}"));
    let path = dir.join(format!("{name}.c"));
    std::fs::write(&path, text).unwrap();
    with_scops(&path, &SourceOptions::default(), f)
}

/// Small values for a SCoP's parameters.
pub fn small_params(scop: &Scop, base: i64) -> Vec<(String, i64)> {
    let given: Vec<(String, i64)> = scop
        .user_params()
        .enumerate()
        .map(|(k, p)| (p.clone(), base + k as i64 % 2))
        .collect();
    scop.complete_params(&given)
}

pub fn options(fusion: Fusion) -> PlutoOptions {
    PlutoOptions {
        fusion,
        ..PlutoOptions::default()
    }
}

/// Schedule `scop` under `opts` and run both legality checks; a description of what failed.
pub fn check_schedule(
    ctx: &Ctx,
    scop: &Scop,
    opts: &PlutoOptions,
    params: &[Vec<(String, i64)>],
) -> Result<(), String> {
    let s = pluto::schedule(ctx, scop, opts).map_err(|e| format!("no schedule: {e}"))?;
    pluto::legality::check(ctx, scop, &s)?;
    for p in params {
        pluto::legality::brute_force_check(scop, &s, p, 300_000)
            .map_err(|e| format!("at {p:?}: {e}"))?;
    }
    for st in 0..scop.statements.len() {
        let rank = full_rank(&s, st, scop.statements[st].iterators.len());
        if !rank {
            return Err(format!(
                "{} has no full-rank schedule",
                scop.statements[st].name
            ));
        }
    }
    Ok(())
}

/// Whether the schedule rows of statement `st` span its iteration space (the map from
/// instances to times is injective).
fn full_rank(s: &pluto::Schedule, st: usize, depth: usize) -> bool {
    let rows: Vec<Vec<i64>> = s.rows[st].iter().map(|r| r.coeffs.clone()).collect();
    pluto::ortho::rank(&rows) == depth
}
