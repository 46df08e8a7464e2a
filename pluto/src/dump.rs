//! `--dump schedule`, as text and as JSON (keys fixed by docs/interfaces.md).

use std::fmt::Write;

use rosepolly::analysis::reductions::{self, Reduction};
use rosepolly::model::Scop;
use serde::Serialize;

use crate::intratile::IntraTile;
use crate::schedule::{Band, DimKind};
use crate::Scheduled;

#[derive(Serialize)]
pub struct ScheduleJson {
    pub file: String,
    pub scops: Vec<ScopScheduleJson>,
    /// The SCoPs that keep their original code, and why (a budget ran out, the scheduler
    /// failed): what the compiler then does with them.
    pub kept_original: Vec<KeptJson>,
}

#[derive(Serialize)]
pub struct KeptJson {
    pub id: usize,
    pub function: String,
    pub why: String,
}

/// A SCoP's schedule, or why it has none and keeps its original code.
pub type Outcome = Result<Scheduled, String>;

#[derive(Serialize)]
pub struct ScopScheduleJson {
    pub id: usize,
    pub function: String,
    pub statements: Vec<StatementScheduleJson>,
    pub bands: Vec<Band>,
    /// Per schedule dimension: `hyperplane` or `scalar`.
    pub dims: Vec<&'static str>,
    /// Per schedule dimension: whether its loop carries no dependence.
    pub parallel: Vec<bool>,
    /// Set when the original execution order completes the schedule from this dimension.
    pub original_order_from: Option<usize>,
    pub intra_tile: Vec<IntraTile>,
    /// Per band: input dependences with both reads on one wavefront (thesis eq. 4.16).
    pub wavefront_reuse: Vec<usize>,
    /// Statements recognised as reductions ([`rosepolly::analysis::reductions`]).
    pub reductions: Vec<Reduction>,
    /// Scalars and arrays privatised by expansion: each became an array indexed by its loops
    /// (and its own subscripts).
    pub privatised: Vec<PrivatisedJson>,
    /// Statements split into pieces ([`rosepolly::compilation::split`]); left out when none was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub splits: Vec<rosepolly::model::Split>,
    /// Where the analysis or the scheduler degraded instead of failing
    /// ([`rosepolly::model::Scop::fallbacks`], [`crate::Scheduled::fallbacks`]); left out when
    /// none did.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fallbacks: Vec<String>,
}

#[derive(Serialize)]
pub struct PrivatisedJson {
    /// The scalar, or the array, that was expanded (the name predates array expansion).
    pub scalar: String,
    pub array: String,
    /// How many of its enclosing loops index the new array.
    pub dims: usize,
    /// The dimensions of the expanded variable itself: 0 for a scalar; an array's final values
    /// are copied back into it.
    pub own_dims: usize,
}

fn privatised(scop: &Scop) -> Vec<PrivatisedJson> {
    scop.symbols
        .data
        .values()
        .filter_map(|d| {
            Some(PrivatisedJson {
                scalar: d.expands.clone()?,
                array: d.name.clone(),
                dims: d.expanded_dims,
                own_dims: d.extents.len() - d.expanded_dims,
            })
        })
        .collect()
}

#[derive(Serialize)]
pub struct StatementScheduleJson {
    pub name: String,
    pub iterators: Vec<String>,
    pub schedule: Vec<String>,
}

fn dim_name(k: &DimKind) -> &'static str {
    match k {
        DimKind::Hyperplane { .. } => "hyperplane",
        DimKind::Scalar => "scalar",
    }
}

pub fn json(file: &str, scops: &[Scop], results: &[Outcome]) -> ScheduleJson {
    ScheduleJson {
        file: file.to_string(),
        kept_original: scops
            .iter()
            .zip(results)
            .filter_map(|(scop, r)| {
                r.as_ref().err().map(|why| KeptJson {
                    id: scop.id,
                    function: scop.function.clone(),
                    why: why.clone(),
                })
            })
            .collect(),
        scops: scops
            .iter()
            .zip(results)
            .filter_map(|(scop, r)| Some((scop, r.as_ref().ok()?)))
            .map(|(scop, r)| ScopScheduleJson {
                id: scop.id,
                function: scop.function.clone(),
                statements: scop
                    .statements
                    .iter()
                    .enumerate()
                    .map(|(s, st)| StatementScheduleJson {
                        name: st.name.clone(),
                        iterators: st.iterators.clone(),
                        schedule: r.schedule.rows[s]
                            .iter()
                            .map(|row| row.expr(&st.iterators))
                            .collect(),
                    })
                    .collect(),
                bands: r.schedule.bands.clone(),
                dims: r.schedule.kinds.iter().map(dim_name).collect(),
                parallel: r.schedule.parallel.clone(),
                original_order_from: r.schedule.original_order_from,
                intra_tile: r.intra_tile.clone(),
                wavefront_reuse: r.wavefront_reuse.clone(),
                reductions: reductions::find(scop),
                privatised: privatised(scop),
                splits: scop.splits.clone(),
                fallbacks: fallbacks(scop, r),
            })
            .collect(),
    }
}

/// The analysis's fallbacks ([`Scop::fallbacks`]) and the scheduler's
/// ([`crate::Scheduled::fallbacks`]), as sentences.
fn fallbacks(scop: &Scop, r: &crate::Scheduled) -> Vec<String> {
    let scheduling = r.fallbacks.iter().map(|f| f.what.clone());
    scop.fallbacks.iter().cloned().chain(scheduling).collect()
}

fn flags(v: &[bool]) -> String {
    v.iter()
        .map(|p| if *p { "par" } else { "seq" })
        .collect::<Vec<_>>()
        .join(" ")
}

pub fn text(scops: &[Scop], results: &[Outcome]) -> String {
    let mut out = String::new();
    for (scop, r) in scops.iter().zip(results) {
        let _ = writeln!(
            out,
            "SCoP {} in {}, {}:{}-{}",
            scop.id,
            scop.function,
            scop.region.start.file,
            scop.region.start.line,
            scop.region.end.line
        );
        let r = match r {
            Ok(r) => r,
            Err(why) => {
                for f in &scop.fallbacks {
                    let _ = writeln!(out, "  fallback: {f}");
                }
                let _ = writeln!(out, "  keeps its original code: {why}");
                continue;
            }
        };
        for f in fallbacks(scop, r) {
            let _ = writeln!(out, "  fallback: {f}");
        }
        for (s, st) in scop.statements.iter().enumerate() {
            let rows: Vec<String> = r.schedule.rows[s]
                .iter()
                .map(|row| row.expr(&st.iterators))
                .collect();
            let _ = writeln!(
                out,
                "  {}[{}] -> ({})",
                st.name,
                st.iterators.join(", "),
                rows.join(", ")
            );
        }
        for red in reductions::find(scop) {
            let st = &scop.statements[red.statement];
            let _ = writeln!(
                out,
                "  reduction: {} ({}) along {}, operator {}{}",
                st.name,
                st.text,
                red.loops.join(", "),
                red.op.symbol(),
                if red.floating { ", floating point" } else { "" }
            );
        }
        for split in &scop.splits {
            let _ = writeln!(out, "  split: {split}");
        }
        for p in privatised(scop) {
            let (what, unit, back) = match p.own_dims {
                0 => ("scalar", "element", ""),
                _ => ("array", "copy", ", last values copied back"),
            };
            let _ = writeln!(
                out,
                "  privatised: {what} {} as {} (one {unit} per iteration of {} loop{}{back})",
                p.scalar,
                p.array,
                p.dims,
                if p.dims == 1 { "" } else { "s" }
            );
        }
        let dims: Vec<&str> = r.schedule.kinds.iter().map(dim_name).collect();
        let _ = writeln!(out, "  dimensions: {}", dims.join(" "));
        if let Some(d) = r.schedule.original_order_from {
            let _ = writeln!(out, "  from dimension {d} on: the original execution order (no legal hyperplane was left)");
        }
        for (b, band) in r.schedule.bands.iter().enumerate() {
            let _ = writeln!(
                out,
                "  band {b}: dims {}..{}, {}, parallel [{}], wavefront reuse {}",
                band.start,
                band.start + band.depth,
                if band.permutable {
                    "permutable"
                } else {
                    "not permutable"
                },
                flags(&band.parallel),
                r.wavefront_reuse[b]
            );
            if let Some(d) = &band.diamond {
                let _ = writeln!(
                    out,
                    "    diamond tiling: tiles along {} instead of c0 (concurrent start)",
                    d.describe()
                );
            }
            let it = &r.intra_tile[b];
            match it.cut {
                Some(c) => {
                    let _ = writeln!(
                        out,
                        "    intra-tile (Algorithm 4): components {:?} separated before band dim {c}, parallel [{}]",
                        it.components,
                        flags(&it.parallel)
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "    intra-tile (Algorithm 4): no cut, parallel [{}]",
                        flags(&it.parallel)
                    );
                }
            }
        }
    }
    out
}
