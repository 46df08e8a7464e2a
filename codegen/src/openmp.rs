//! The tiled C+OpenMP target (thesis §6.2 on a multicore): the host's outer loops, and per group
//! the walk over its tiles, the tiles of one step in parallel with OpenMP, each tile's code
//! sequential (innermost loop along the most unit-stride parallel dimension, for the C
//! compiler's vectoriser).
//!
//! Tile sizes are run-time values (`polyc_T<k>`, read from `POLYC_TILE_SIZES` when the SCoP is
//! entered) unless `--fixed-tile-sizes` makes them constants; nothing else changes with them.

use std::fmt::Write;

use rosepolly::model::expr::Expr;
use rosepolly::model::Scop;

use crate::c::{self, COptions};
use crate::host::{group_opening, indent, Labels, TileWalk};
use crate::ir::{size, GroupCode, ScopIr, WorkBox};
use crate::names::user;

/// Prints one lowered SCoP as C+OpenMP.
pub struct OpenMp<'a> {
    pub scop: &'a Scop<'a>,
    pub ir: &'a ScopIr,
    /// Emit OpenMP pragmas.
    pub openmp: bool,
    /// Tile sizes fixed at compile time (`--fixed-tile-sizes`), for comparison only.
    pub fixed_sizes: Option<&'a [i64]>,
    labels: Labels,
}

impl<'a> OpenMp<'a> {
    pub fn new(
        scop: &'a Scop<'a>,
        ir: &'a ScopIr,
        openmp: bool,
        fixed_sizes: Option<&'a [i64]>,
    ) -> Self {
        OpenMp {
            scop,
            ir,
            openmp,
            fixed_sizes,
            labels: Labels::default(),
        }
    }

    /// The C block that replaces the SCoP.
    pub fn print(&self) -> String {
        let mut out = String::new();
        out.push_str(&prologue(self.ir, self.fixed_sizes));
        let host = COptions {
            openmp: false,
            index_type: "long".into(),
            indent: 2,
            probe: None,
        };
        let tiled = c::print_calls(self.scop, &self.ir.host, &host, &|g, args| {
            self.group(g, args)
        });
        match &self.ir.original {
            Some(original) => {
                out.push_str(&indent(&work_estimate(&original.work), 2));
                let _ = writeln!(
                    out,
                    "  const int polyc_untiled = polyc_points < (double)polyc_min_points();"
                );
                let _ = writeln!(out, "  if (polyc_untiled) {{");
                let seq = COptions {
                    openmp: false,
                    index_type: "long".into(),
                    indent: 4,
                    probe: None,
                };
                out.push_str(&c::print_k(self.scop, &original.code, &seq, None));
                let _ = writeln!(out, "  }} else {{");
                out.push_str(&indent(&tiled, 2));
                let _ = writeln!(out, "  }}");
            }
            None => {
                let _ = writeln!(out, "  const int polyc_untiled = 0;");
                out.push_str(&tiled);
            }
        }
        out.push_str(&epilogue(self.ir, &[("untiled=%d", "polyc_untiled")]));
        out
    }

    fn group(&self, g: usize, args: &[Expr]) -> String {
        let group = &self.ir.groups[g];
        let mut out = group_opening(group, args);
        match &group.code {
            GroupCode::Untiled(code) => {
                let _ = writeln!(out, "  /* group {g}: {:?}, not tiled */", group.names);
                let opts = COptions {
                    openmp: self.openmp,
                    index_type: "long".into(),
                    indent: 2,
                    probe: None,
                };
                out.push_str(&c::print_k(self.scop, code, &opts, None));
            }
            GroupCode::Tiled(t) => {
                let _ = writeln!(
                    out,
                    "  /* group {g}: {:?}, {} tiled dimension(s), {:?} */",
                    group.names, t.depth, t.mode
                );
                let body = COptions {
                    openmp: false,
                    index_type: "long".into(),
                    indent: 0,
                    probe: None,
                };
                let partial = c::print_k(self.scop, &t.body, &body, None);
                let visit = match &t.full_body {
                    Some(full) => format!(
                        "if (polyc_full) {{\n{}}} else {{\n{}}}\n",
                        indent(&c::print_k(self.scop, full, &body, None), 2),
                        indent(&partial, 2)
                    ),
                    None => partial,
                };
                let walk = TileWalk {
                    scop: self.scop,
                    group,
                    tiles: t,
                    openmp: self.openmp,
                    visit,
                    flush: String::new(),
                    label: self.labels.next(self.scop.id),
                };
                out.push_str(&indent(&walk.print(), 2));
            }
        }
        out.push_str("}\n");
        out
    }
}

/// Start of a SCoP's block: clock, counters, tile sizes, the trace of the parameters.
pub fn prologue(ir: &ScopIr, fixed_sizes: Option<&[i64]>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "  double polyc_start = polyc_now();");
    let _ = writeln!(
        out,
        "  long polyc_tiles = 0, polyc_waves = 0, polyc_launches = 0;"
    );
    let _ = writeln!(out, "  (void)polyc_launches;");
    for k in 0..ir.depth {
        let value = match fixed_sizes {
            Some(s) => s[k.min(s.len() - 1)].to_string(),
            None => format!("polyc_tile_size({k})"),
        };
        let _ = writeln!(out, "  const long {} = {value};", size(k));
    }
    let names: Vec<String> = ir
        .params
        .iter()
        .map(|p| format!(" {}=%ld", user(p)))
        .collect();
    let args: Vec<String> = ir
        .params
        .iter()
        .map(|p| format!(", (long)({})", user(p)))
        .collect();
    let _ = writeln!(
        out,
        "  if (polyc_trace()) fprintf(stderr, \"polyc-params: scop={}{}\\n\"{});",
        ir.id,
        names.concat(),
        args.concat()
    );
    out
}

/// End of a SCoP's block: the `POLYC_PROFILE=1` line, with `extra` keys (` key=%fmt` each)
/// and their C arguments after the common ones.
pub fn epilogue(ir: &ScopIr, extra: &[(&str, &str)]) -> String {
    let depth = ir.depth;
    let sizes = if depth == 0 {
        "-".to_string()
    } else {
        vec!["%ld"; depth].join(",")
    };
    let size_args: Vec<String> = (0..depth).map(|k| format!(", {}", size(k))).collect();
    let extra_fmt: String = extra.iter().map(|(f, _)| format!(" {f}")).collect();
    let extra_args: String = extra.iter().map(|(_, a)| format!(", {a}")).collect();
    format!(
        "  if (polyc_profile()) fprintf(stderr, \"polyc: scop={} tile_sizes={sizes} tiled_depth={depth} wavefronts=%ld tiles=%ld launches=%ld time_ms=%.3f{extra_fmt}\\n\"{}, polyc_waves, polyc_tiles, polyc_launches, 1e3 * (polyc_now() - polyc_start){extra_args});\n",
        ir.id,
        size_args.concat()
    )
}

/// C code computing `polyc_points`, the volume of the boxes (the estimate of the work).
fn work_estimate(boxes: &[WorkBox]) -> String {
    let mut work = String::from("double polyc_points = 0;\n");
    for b in boxes {
        work.push_str("{\n  double polyc_v = 1;\n");
        for (k, (l, h)) in b.dims.iter().enumerate() {
            let _ = writeln!(work, "  const long polyc_plo{k} = {l}, polyc_phi{k} = {h};");
            let _ = writeln!(
                work,
                "  polyc_v *= (double)polyc_lmax(0, polyc_phi{k} - polyc_plo{k} + 1);"
            );
        }
        work.push_str("  polyc_points += polyc_v;\n}\n");
    }
    work
}
