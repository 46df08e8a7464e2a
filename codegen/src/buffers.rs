//! `--dump buffers`: the candidate local-memory buffers of every tiled group as the GPU
//! targets lower it (thesis §6.4.1; geometry and ranking in [`ptile::buffers`]), as text or
//! JSON.
//!
//! Expressions are written over `o<k>` (the tile's origin along band dimension `k`, a multiple
//! of its size), `T<k>` (the tile size) and the parameters (the SCoP's, and `polyc_x<d>`, the
//! value of an outer dimension `d`).

use serde_json::{json, Value};

use rosepolly::diag::{Diagnostic, Diagnostics};
use rosepolly::math::isl::Ctx;
use rosepolly::model::Scop;

use ptile::buffers::{Candidate, TileExpr, RANKING_TILE_SIZE};

use crate::driver::CompileOptions;
use crate::ir::GroupCode;
use crate::pipeline::ScopJob;

/// One tiled group's buffers.
pub struct GroupBuffers {
    pub group: usize,
    pub statements: Vec<String>,
    pub depth: usize,
    pub candidates: Vec<Candidate>,
    /// Per candidate, the kernel version that first stages it (`None`: no version does).
    pub staged: Vec<Option<usize>>,
}

/// One SCoP's tiled groups.
pub struct ScopBuffers {
    pub scop: usize,
    pub lines: (u32, u32),
    /// The parameters' names, the columns of the buffers' expressions.
    pub params: Vec<String>,
    pub groups: Vec<GroupBuffers>,
    /// Why the SCoP keeps its original code (no groups then), as compiling does.
    pub kept_original: Option<String>,
}

/// The buffers of every SCoP, scheduled as `opts` say and lowered for a GPU.
pub fn report(
    ctx: &Ctx,
    scops: &[Scop],
    opts: &CompileOptions,
) -> Result<Vec<ScopBuffers>, Diagnostics> {
    scops
        .iter()
        .map(|scop| {
            // The GPU targets' schedule (as the driver schedules for them).
            let pluto_opts = opts.pluto.for_gpu(opts.reductions);
            let schedule = match pluto::schedule_or_original(ctx, scop, &pluto_opts) {
                Ok((s, _)) => s,
                Err(why) => {
                    return Ok(ScopBuffers {
                        scop: scop.id,
                        lines: (scop.region.start.line, scop.region.end.line),
                        params: Vec::new(),
                        groups: Vec::new(),
                        kept_original: Some(why),
                    })
                }
            };
            let job = ScopJob {
                ctx,
                scop,
                schedule: &schedule,
                prefix: "c",
                program: "",
                opts,
            };
            let (ir, params) = job.gpu_ir().map_err(|e| {
                Diagnostics::one(Diagnostic::new(scop.region.start.clone(), e.to_string()))
            })?;
            let groups = ir
                .groups
                .into_iter()
                .filter_map(|g| match g.code {
                    GroupCode::Tiled(t) => Some(GroupBuffers {
                        group: g.index,
                        statements: g.names,
                        depth: t.depth,
                        staged: t
                            .buffers
                            .iter()
                            .map(|c| {
                                let same = |s: &Candidate| s.datum == c.datum && s.class == c.class;
                                let b = t.staging.buffers.iter().position(same)?;
                                Some(t.staging.version_of(b))
                            })
                            .collect(),
                        candidates: t.buffers,
                    }),
                    GroupCode::Untiled(_) => None,
                })
                .collect();
            Ok(ScopBuffers {
                scop: scop.id,
                lines: (scop.region.start.line, scop.region.end.line),
                params,
                groups,
                kept_original: None,
            })
        })
        .collect()
}

fn render(e: &TileExpr, params: &[String]) -> String {
    e.render(|k| format!("o{k}"), |k| format!("T{k}"), params)
}

/// The reuse a buffer captures, in words.
fn reuse_words(c: &Candidate) -> String {
    let r = &c.reuse;
    let mut kinds = Vec::new();
    if r.temporal {
        kinds.push("temporal");
    }
    if r.references > 1 {
        kinds.push("group");
    }
    if r.spatial {
        kinds.push("spatial");
    }
    let kinds = if kinds.is_empty() {
        "no reuse".to_string()
    } else {
        format!("{} reuse", kinds.join(", "))
    };
    let kinds = if r.strided {
        format!("{kinds}, read apart by neighbouring work-items")
    } else {
        kinds
    };
    format!(
        "{}{}{}; {} reference{}; {kinds}; {:.1} accesses per element at T = {RANKING_TILE_SIZE}",
        c.datum,
        if c.written { " (written)" } else { "" },
        if c.exclusive {
            " (exclusive: its array's classes staged together, where apart)"
        } else {
            ""
        },
        r.references,
        if r.references == 1 { "" } else { "s" },
        r.per_element
    )
}

/// The dump as text.
pub fn text(scops: &[ScopBuffers]) -> String {
    let mut out = String::new();
    for s in scops {
        out.push_str(&format!(
            "SCoP {} (lines {}-{})\n",
            s.scop, s.lines.0, s.lines.1
        ));
        match &s.kept_original {
            Some(why) => out.push_str(&format!("  keeps its original code: {why}\n")),
            None if s.groups.is_empty() => out.push_str("  no tiled group\n"),
            None => {}
        }
        for g in &s.groups {
            out.push_str(&format!(
                "  group {} [{}], {} tiled dimension(s): {} candidate buffer(s)\n",
                g.group,
                g.statements.join(", "),
                g.depth,
                g.candidates.len()
            ));
            for (rank, c) in g.candidates.iter().enumerate() {
                let list = |f: &dyn Fn(&ptile::buffers::BufferDim) -> &TileExpr| {
                    c.dims
                        .iter()
                        .map(|d| render(f(d), &s.params))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let staged = match g.staged[rank] {
                    Some(v) => format!("; staged from kernel version {v}"),
                    None => "; not staged".into(),
                };
                out.push_str(&format!("    {}. {}{staged}\n", rank + 1, reuse_words(c)));
                out.push_str(&format!("       origin [{}]\n", list(&|d| &d.origin)));
                out.push_str(&format!("       extent [{}]\n", list(&|d| &d.extent)));
            }
        }
    }
    out
}

/// The dump as JSON (documented in docs/interfaces.md).
pub fn json(file: &str, scops: &[ScopBuffers]) -> Value {
    let scops: Vec<Value> = scops
        .iter()
        .map(|s| {
            let groups: Vec<Value> = s
                .groups
                .iter()
                .map(|g| {
                    let buffers: Vec<Value> = g
                        .candidates
                        .iter()
                        .enumerate()
                        .map(|(rank, c)| {
                            let mut v = candidate_json(c, rank + 1, g.depth, &s.params);
                            v["kernel_version"] = json!(g.staged[rank]);
                            v
                        })
                        .collect();
                    json!({
                        "group": g.group,
                        "statements": g.statements,
                        "tiled_dims": g.depth,
                        "buffers": buffers,
                    })
                })
                .collect();
            json!({
                "scop": s.scop,
                "lines": [s.lines.0, s.lines.1],
                "params": s.params,
                "groups": groups,
                "kept_original": s.kept_original,
            })
        })
        .collect();
    json!({ "file": file, "scops": scops })
}

fn candidate_json(c: &Candidate, rank: usize, depth: usize, params: &[String]) -> Value {
    let exprs = |f: &dyn Fn(&ptile::buffers::BufferDim) -> &TileExpr| -> Vec<String> {
        c.dims.iter().map(|d| render(f(d), params)).collect()
    };
    let coeffs = |e: &TileExpr| {
        json!({
            "origins": e.origins,
            "sizes_minus_one": e.sizes,
            "params": e.params,
            "constant": e.constant,
            "divisor": e.divisor,
        })
    };
    json!({
        "rank": rank,
        "array": c.datum,
        "class": c.class,
        "written": c.written,
        "exclusive": c.exclusive,
        "references": c.refs.iter().map(|r| json!({"statement": r.stmt, "access": r.access})).collect::<Vec<_>>(),
        "origin": exprs(&|d| &d.origin),
        "extent": exprs(&|d| &d.extent),
        "dims": c.dims.iter().map(|d| json!({"origin": coeffs(&d.origin), "extent": coeffs(&d.extent)})).collect::<Vec<_>>(),
        "reuse": {
            "temporal": c.reuse.temporal,
            "group": c.reuse.references,
            "spatial": c.reuse.spatial,
            "accesses_per_element": c.reuse.per_element,
            "strided": c.reuse.strided,
        },
        "elements_at_ranking_size": c.elements(&vec![RANKING_TILE_SIZE; depth]),
    })
}
