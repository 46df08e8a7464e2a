//! `--dump model` and `--dump deps`, as text for people and as JSON for scripts.
//!
//! The JSON shapes are part of polyc's interface (docs/interfaces.md); extend them, don't
//! rename keys.

use std::fmt::Write;

use serde::Serialize;

use crate::model::{AccessKind, DepKind, Scop};

#[derive(Serialize)]
pub struct ModelJson {
    pub file: String,
    pub scops: Vec<ScopJson>,
}

#[derive(Serialize)]
pub struct ScopJson {
    pub id: usize,
    pub function: String,
    pub start_line: u32,
    pub end_line: u32,
    pub marked: bool,
    pub params: Vec<String>,
    pub statements: Vec<StatementJson>,
    pub arrays: Vec<ArrayJson>,
    /// Why the SCoP keeps its original code (an analysis over its budget), or `null`.
    pub untransformable: Option<String>,
    /// The statements split into pieces ([`crate::compilation::split`]); left out when none
    /// was.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub splits: Vec<crate::model::Split>,
}

#[derive(Serialize)]
pub struct StatementJson {
    pub name: String,
    pub line: u32,
    pub text: String,
    pub depth: usize,
    pub iterators: Vec<String>,
    pub domain: String,
    pub schedule: String,
    pub accesses: Vec<AccessJson>,
}

#[derive(Serialize)]
pub struct AccessJson {
    pub array: String,
    pub kind: AccessKind,
    pub subscripts: Vec<String>,
    pub relation: String,
}

#[derive(Serialize)]
pub struct ArrayJson {
    pub name: String,
    #[serde(rename = "type")]
    pub elem_type: String,
    /// One entry per dimension; `null` where the declaration does not say.
    pub extents: Vec<Option<String>>,
    pub read: bool,
    pub written: bool,
    pub storage: crate::model::Storage,
    /// The scalar an expanded array replaces (storage `expanded`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expands: Option<String>,
    pub footprint: String,
}

#[derive(Serialize)]
pub struct DepsJson {
    pub file: String,
    pub scops: Vec<ScopDepsJson>,
}

#[derive(Serialize)]
pub struct ScopDepsJson {
    pub id: usize,
    pub function: String,
    pub dependences: Vec<DepJson>,
    /// Why the dependences are unknown and the SCoP keeps its original code, or `null`.
    pub untransformable: Option<String>,
}

#[derive(Serialize)]
pub struct DepJson {
    pub kind: DepKind,
    pub source: String,
    pub sink: String,
    pub array: String,
    pub relation: String,
}

pub fn model_json(file: &str, scops: &[Scop]) -> ModelJson {
    ModelJson {
        file: file.to_string(),
        scops: scops.iter().map(scop_json).collect(),
    }
}

fn scop_json(s: &Scop) -> ScopJson {
    ScopJson {
        id: s.id,
        function: s.function.clone(),
        start_line: s.region.start.line,
        end_line: s.region.end.line,
        marked: s.region.marked,
        params: s.params.clone(),
        statements: s
            .statements
            .iter()
            .map(|st| StatementJson {
                name: st.name.clone(),
                line: st.loc.line,
                text: st.body.to_string(),
                depth: st.depth(),
                iterators: st.iterators.clone(),
                domain: st.domain.to_string(),
                schedule: st.schedule.to_string(),
                accesses: st
                    .accesses
                    .iter()
                    .map(|a| AccessJson {
                        array: a.datum.clone(),
                        kind: a.kind,
                        subscripts: a.subscripts.iter().map(|x| x.to_string()).collect(),
                        relation: a.relation.to_string(),
                    })
                    .collect(),
            })
            .collect(),
        arrays: s
            .symbols
            .data
            .values()
            .map(|d| ArrayJson {
                name: d.name.clone(),
                elem_type: d.elem_type.clone(),
                extents: d
                    .extents
                    .iter()
                    .map(|e| e.as_ref().map(|x| x.to_string()))
                    .collect(),
                read: d.read,
                written: d.written,
                storage: d.storage,
                expands: d.expands.clone(),
                footprint: d.footprint.to_string(),
            })
            .collect(),
        untransformable: s.untransformable.clone(),
        splits: s.splits.clone(),
    }
}

pub fn deps_json(file: &str, scops: &[Scop]) -> DepsJson {
    DepsJson {
        file: file.to_string(),
        scops: scops
            .iter()
            .map(|s| ScopDepsJson {
                id: s.id,
                function: s.function.clone(),
                dependences: s
                    .dependences
                    .iter()
                    .map(|d| DepJson {
                        kind: d.kind,
                        source: s.statements[d.source].name.clone(),
                        sink: s.statements[d.sink].name.clone(),
                        array: d.datum.clone(),
                        relation: d.relation.to_string(),
                    })
                    .collect(),
                untransformable: s.untransformable.clone(),
            })
            .collect(),
    }
}

fn header(out: &mut String, s: &Scop) {
    let how = if s.region.marked { "" } else { " (detected)" };
    let _ = writeln!(
        out,
        "SCoP {} in {}, {}:{}-{}{how}",
        s.id, s.function, s.region.start.file, s.region.start.line, s.region.end.line
    );
    if let Some(why) = &s.untransformable {
        let _ = writeln!(out, "  keeps its original code: {why}");
    }
}

/// The model, for people.
pub fn model_text(scops: &[Scop]) -> String {
    let mut out = String::new();
    for s in scops {
        header(&mut out, s);
        let _ = writeln!(
            out,
            "  parameters: {}",
            if s.params.is_empty() {
                "(none)".into()
            } else {
                s.params.join(", ")
            }
        );
        for st in &s.statements {
            let _ = writeln!(
                out,
                "  {} (line {}, depth {}): {};",
                st.name,
                st.loc.line,
                st.depth(),
                st.body
            );
            let _ = writeln!(out, "      domain   {}", st.domain);
            let _ = writeln!(out, "      schedule {}", st.schedule);
            for a in &st.accesses {
                let subs: Vec<String> = a.subscripts.iter().map(|x| format!("[{x}]")).collect();
                let kind = match a.kind {
                    AccessKind::Read => "read ",
                    AccessKind::Write => "write",
                };
                let _ = writeln!(out, "      {kind}    {}{}", a.datum, subs.concat());
            }
        }
        for split in &s.splits {
            let _ = writeln!(out, "  split: {split}");
        }
        let _ = writeln!(out, "  data:");
        for d in s.symbols.data.values() {
            let ext: Vec<String> = d
                .extents
                .iter()
                .map(|e| format!("[{}]", e.as_ref().map_or("?".into(), |x| x.to_string())))
                .collect();
            let rw = match (d.read, d.written) {
                (true, true) => "read/written",
                (true, false) => "read-only",
                (false, true) => "write-only",
                (false, false) => "unused",
            };
            let expands = d.expands.as_ref().map_or(String::new(), |s| {
                match d.expanded_dims == d.extents.len() {
                    true => format!("  expands scalar {s}"),
                    false => format!("  expands array {s}"),
                }
            });
            let _ = writeln!(
                out,
                "    {} {}{}  {rw}{expands}  footprint {}",
                d.elem_type,
                d.name,
                ext.concat(),
                d.footprint
            );
        }
    }
    out
}

/// The dependences, for people.
pub fn deps_text(scops: &[Scop]) -> String {
    let mut out = String::new();
    for s in scops {
        header(&mut out, s);
        let _ = writeln!(out, "  {} dependences", s.dependences.len());
        for d in &s.dependences {
            let kind = match d.kind {
                DepKind::Flow => "flow  ",
                DepKind::Anti => "anti  ",
                DepKind::Output => "output",
            };
            let _ = writeln!(
                out,
                "  {kind} {} -> {} on {}: {}",
                s.statements[d.source].name, s.statements[d.sink].name, d.datum, d.relation
            );
        }
    }
    out
}
