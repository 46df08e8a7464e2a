//! The `--dump fallbacks` report: per SCoP, where its compilation did less than it could and
//! went on ([`rosepolly::diag::Fallback`]). The fallbacks come from the model
//! ([`rosepolly::model::Scop::fallbacks`]), from the isl context every step is handed
//! ([`rosepolly::math::isl::Ctx::fell_back`]), and from the driver's own decisions (a SCoP kept
//! as written, a GPU target's SCoP run on the host).

use std::fmt::Write;

use rosepolly::diag::{Fallback, Loc};
use rosepolly::model::Scop;
use serde::Serialize;

/// The fallbacks of one SCoP's compilation, by phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScopFallbacks {
    pub scop: usize,
    pub function: String,
    /// Where the SCoP starts and ends.
    pub start: Loc,
    pub end_line: u32,
    pub fallbacks: Vec<Fallback>,
}

impl ScopFallbacks {
    pub fn new(scop: &Scop, fallbacks: Vec<Fallback>) -> ScopFallbacks {
        ScopFallbacks {
            scop: scop.id,
            function: scop.function.clone(),
            start: scop.region.start.clone(),
            end_line: scop.region.end.line,
            fallbacks,
        }
    }
}

/// The report as text: a header per SCoP (as `--dump schedule` writes it), then one line per
/// fallback, `phase: what`, or `none`.
pub fn text(scops: &[ScopFallbacks]) -> String {
    let mut out = String::new();
    for s in scops {
        let _ = writeln!(
            out,
            "SCoP {} in {}, {}:{}-{}",
            s.scop, s.function, s.start.file, s.start.line, s.end_line
        );
        if s.fallbacks.is_empty() {
            out.push_str("  none\n");
        }
        for f in &s.fallbacks {
            let _ = writeln!(out, "  {}: {}", f.phase, f.what);
        }
    }
    out
}

/// The report as JSON.
#[derive(Serialize)]
pub struct Report<'a> {
    pub file: &'a str,
    /// `c`, `opencl` or `cuda`: the fallbacks depend on the target.
    pub target: &'a str,
    pub scops: &'a [ScopFallbacks],
}

#[cfg(test)]
mod tests {
    use super::*;
    use rosepolly::diag::Phase;

    #[test]
    fn each_scop_lists_its_fallbacks_by_phase_or_none() {
        let at = |line| Loc::new("k.c", line, None);
        let scops = [
            ScopFallbacks {
                scop: 0,
                function: "main".into(),
                start: at(3),
                end_line: 9,
                fallbacks: vec![
                    Fallback::new(Phase::Tiling, "untiled"),
                    Fallback::new(Phase::CodeGeneration, "no separation"),
                ],
            },
            ScopFallbacks {
                scop: 1,
                function: "f".into(),
                start: at(12),
                end_line: 14,
                fallbacks: Vec::new(),
            },
        ];
        assert_eq!(
            text(&scops),
            "SCoP 0 in main, k.c:3-9\n  tiling: untiled\n  code generation: no separation\n\
             SCoP 1 in f, k.c:12-14\n  none\n"
        );
        let json = serde_json::to_value(Report {
            file: "k.c",
            target: "c",
            scops: &scops,
        })
        .unwrap();
        assert_eq!(json["scops"][0]["fallbacks"][1]["phase"], "code-generation");
    }
}
