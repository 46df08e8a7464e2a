//! The tiled C+OpenMP target (thesis §6.2 on a multicore): the host's outer loops, and per group
//! the walk over its tiles, the tiles of one step in parallel with OpenMP, each tile's code
//! sequential (innermost loop along the most unit-stride parallel dimension, for the C
//! compiler's vectoriser).
//!
//! Tile sizes are run-time values (`polyc_T<k>`, read from `POLYC_TILE_SIZES` when the SCoP is
//! entered) unless `--fixed-tile-sizes` makes them constants; nothing else changes with them.

use std::fmt::Write;

use rosepolly::model::expr::Expr;

use avelas_contract::{ConfigFns, C_TARGET_FNS};

use crate::c::{self, COptions};
use crate::host::{group_opening, indent, points_range, Labels, TileWalk};
use crate::host_printer::{self, HostDialect};
use crate::ir::{
    size, GroupCode, KNode, OriginalOrder, ScopData, ScopIr, TiledGroup, WorkBox, MIN_FULL_SHARE,
};
use crate::registers;

/// Prints one lowered SCoP as C+OpenMP.
pub struct OpenMp<'a> {
    pub ir: &'a ScopIr,
    /// Emit OpenMP pragmas.
    pub openmp: bool,
    /// Tile sizes fixed at compile time (`--fixed-tile-sizes`), for comparison only.
    pub fixed_sizes: Option<&'a [i64]>,
    /// The SCoP's data as host code indexes them (expanded scalars flat).
    data: ScopData,
    labels: Labels,
    /// Run when tiles do not pay: the user's own lines of the SCoP (`fallback::user_lines`), or
    /// a call of the function that holds them (`crate::outline`).
    untiled: &'a str,
    /// The call of the function that runs the tiled path, past the test of `first`, where it
    /// runs from one ([`crate::outline::Outlined::tiled_call`]).
    rest_call: Option<&'a str>,
}

impl<'a> OpenMp<'a> {
    pub fn new(
        ir: &'a ScopIr,
        openmp: bool,
        fixed_sizes: Option<&'a [i64]>,
        untiled: &'a str,
        rest_call: Option<&'a str>,
    ) -> Self {
        OpenMp {
            ir,
            openmp,
            fixed_sizes,
            data: ir.data.flat_expanded(),
            labels: Labels::default(),
            untiled,
            rest_call,
        }
    }

    /// Whether some group sums floating-point values per row of tiles (a reassociation).
    fn reassociates(&self) -> bool {
        self.ir
            .tiled_groups()
            .flat_map(|t| &t.partials)
            .any(|p| matches!(p.update.elem.as_str(), "float" | "double"))
    }

    /// The C block that replaces the SCoP of the source file `program`, and the body of the
    /// tiled path's function where it has one.
    pub fn print(&self, program: &str) -> host_printer::HostBlock {
        host_printer::print(self, self.ir, program)
    }
}

impl HostDialect for OpenMp<'_> {
    fn config(&self) -> ConfigFns {
        C_TARGET_FNS
    }

    fn target(&self) -> &'static str {
        "c"
    }

    fn fixed_sizes(&self) -> Option<&[i64]> {
        self.fixed_sizes
    }

    /// Small problems run the original order instead of the tiles.
    fn body(&self, tiled: String) -> String {
        // The expanded scalars' arrays serve the tiles alone: the user's lines use the scalars
        // (an allocation and its first touch cost durbin MEDIUM, 0.17 ms in all, microseconds).
        let (alloc, free) = c::expanded_arrays(&self.ir.data);
        let tiled = format!("{alloc}{tiled}{free}");
        let mut out = String::new();
        match &self.ir.original {
            Some(original) => {
                // `polyc_points` and `polyc_bytes` come first (`first`).
                let reorder = if original.registers.is_empty() {
                    original.reorder_arg().to_string()
                } else {
                    out.push_str(&self.reorder_decl(original));
                    "polyc_reorder".into()
                };
                out.push_str(&self.sync_count(original.latency));
                let pay = format!(
                    "polyc_tiles_pay(polyc_points, polyc_bytes, {}, {reorder}, {}, polyc_syncs, polyc_tuned)",
                    i32::from(original.strided),
                    original.latency,
                );
                if self.reassociates() {
                    // Rows of partial results give other last bits than the original's lines,
                    // so which runs may not depend on the threads or on an earlier SCoP's start
                    // of them (as `polyc_tiles_pay` does): the work alone decides, against the
                    // threshold of a first start.
                    let _ = writeln!(
                        out,
                        "  const int polyc_plan = polyc_min_points() >= 0 || polyc_tuned >= 0 ? {pay}\n    : polyc_points >= {}.0 ? (polyc_threads = polyc_usable_threads(polyc_points), polyc_threads_started = 1, 1) : (polyc_threads = 1, 0);",
                        c::COLD_POINTS
                    );
                } else {
                    let _ = writeln!(out, "  const int polyc_plan = {pay};");
                }
                let _ = writeln!(out, "  const int polyc_untiled = polyc_plan == 0;");
                let _ = writeln!(out, "  const int polyc_whole_tile = polyc_plan == 2;");
                // The user's own lines, so that the SCoP runs exactly as the original program
                // compiles it: polyc's printing of the same order (`long` iterators, converted
                // bounds) ran gemm MEDIUM 1.35x slower than the original with gcc 12 (5.4
                // against 4.0 ms), in identical inner loops. Called in their own function where
                // possible (`crate::outline`).
                let _ = writeln!(out, "  int polyc_pins = 0;");
                let _ = writeln!(out, "  if (polyc_untiled) {{");
                out.push_str(self.untiled);
                let _ = writeln!(out, "  }} else {{");
                // One thread per CPU while a team of as many runs (`crate::placement`).
                let _ = writeln!(out, "  polyc_pins = polyc_place(polyc_threads);");
                out.push_str(&indent(&whole_tile(self.ir.depth, &tiled), 2));
                let _ = writeln!(out, "  polyc_unplace(polyc_pins);");
                let _ = writeln!(out, "  }}");
            }
            None => {
                let _ = writeln!(out, "  const int polyc_untiled = 0, polyc_whole_tile = 0;");
                out.push_str(&tiled);
            }
        }
        out
    }

    /// The work estimate, and where no tiles could pay and no variable or tuning file says
    /// otherwise, the original's lines before any set-up (`polyc_surely_untiled`).
    fn first(&self) -> Option<(String, String)> {
        let original = self.ir.original.as_ref()?;
        let mut head = indent(&work_estimate(&original.work), 2);
        head.push_str(&indent(&data_bytes(&self.ir.data), 2));
        let _ = writeln!(
            head,
            "  if (polyc_surely_untiled(polyc_points, {}, {})) {{",
            original.reorder_arg(),
            original.latency
        );
        head.push_str(self.untiled);
        let _ = writeln!(head, "  }} else {{");
        Some((head, "  }\n".into()))
    }

    fn rest_call(&self) -> Option<&str> {
        self.rest_call
    }

    fn profile(&self) -> Vec<(&'static str, String)> {
        let mut fields = vec![
            ("untiled=%d", "polyc_untiled".into()),
            ("whole_tile=%d", "polyc_whole_tile".into()),
        ];
        if self.ir.original.is_some() {
            fields.push(("threads=%d", "polyc_threads".into()));
            fields.push(("syncs=%ld", "polyc_syncs".into()));
            fields.push(("pinned=%d", "polyc_pins".into()));
        }
        // Other tile sizes, other last bits: `polyc tune` then compares within a tolerance.
        if self.reassociates() {
            fields.push(("reassociates=%d", "1".into()));
        }
        fields
    }

    /// The block in a loop over `polyc tune`'s trials, which saves the data the SCoP writes
    /// first (a null pointer for an array whose size the declaration does not give).
    fn trials(&self) -> Option<(String, String)> {
        if self.fixed_sizes.is_some() {
            return None;
        }
        let (ptrs, bytes): (Vec<String>, Vec<String>) = self
            .ir
            .data
            .data
            .iter()
            .filter(|d| d.written && d.expands.is_none())
            .map(|d| {
                let name = crate::names::user(&d.name);
                if d.extents.is_empty() {
                    return (format!("(void *)&{name}"), format!("sizeof({name})"));
                }
                let extents: Option<Vec<String>> = d
                    .extents
                    .iter()
                    .map(|e| e.as_ref().map(|e| format!("(size_t)(long)({e})")))
                    .collect();
                match extents {
                    Some(e) => (
                        format!("(void *)({name})"),
                        format!("{} * sizeof({})", e.join(" * "), d.elem),
                    ),
                    None => ("(void *)0".into(), "0".into()),
                }
            })
            .unzip();
        let id = self.ir.id;
        let n = ptrs.len();
        let head = format!(
            "  void *polyc_saved[{}] = {{{}}};
  const size_t polyc_saved_bytes[{}] = {{{}}};
  const int polyc_trials = polyc_trials_begin({id}, {n}, polyc_saved, polyc_saved_bytes);
  for (int polyc_trial = 0; polyc_trial <= polyc_trials; polyc_trial++) {{
  polyc_trial_start({id}, polyc_trial);
  {{
",
            n.max(1),
            if n == 0 { "0".into() } else { ptrs.join(", ") },
            n.max(1),
            if n == 0 { "0".into() } else { bytes.join(", ") },
        );
        let tail = format!(
            "  }}
  polyc_trial_done({id}, polyc_trial, polyc_trials);
  }}
"
        );
        Some((head, tail))
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
                    clauses: " num_threads(polyc_threads)",
                };
                out.push_str(&c::print_k(&self.data, code, &opts, None));
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
                    clauses: "",
                };
                let partial = c::print_k(&self.data, &t.body, &body, None);
                let visit = match &t.full_body {
                    Some(full) => format!(
                        "if (polyc_full) {{\n{}}} else {{\n{}}}\n",
                        indent(&self.specialised(t, full, &body), 2),
                        indent(&partial, 2)
                    ),
                    None => partial,
                };
                let walk = TileWalk {
                    ir: self.ir,
                    group,
                    tiles: t,
                    openmp: self.openmp,
                    visit,
                    flush: String::new(),
                    label: self.labels.next(self.ir.id),
                    trace: C_TARGET_FNS.trace,
                    // Trials run only where the sizes are the run's to choose.
                    stoppable: self.fixed_sizes.is_none(),
                };
                out.push_str(&indent(&walk.print(), 2));
            }
        }
        out.push_str("}\n");
        out
    }
}

/// Tile sizes a full tile's code is specialised for (its innermost loops' trip count).
const SPECIALISED_SIZES: [i64; 5] = [16, 32, 64, 128, 256];

/// Full-tile code longer than this (bytes of C) is not specialised: each copy adds to the
/// compile time and the size of the program.
const SPECIALISED_MAX_BYTES: usize = 6000;

impl OpenMp<'_> {
    /// `polyc_syncs`: how many times the tiled schedule would start OpenMP's threads (the
    /// executions of groups that fork, `GroupIr::forks`), counted by walking the host tree's
    /// loops without running any group. Each start ends at a join, which costs the threads
    /// microseconds (`c::SYNC_POINTS`). The walk stops once the count shows that threads cannot
    /// pay (`polyc_points * latency / SYNC_POINTS` starts), and is skipped where the work is too
    /// small for threads anyway (`polyc_small`).
    fn sync_count(&self, latency: u32) -> String {
        let mut out = String::from("  long polyc_syncs = 0;\n");
        if !self.ir.groups.iter().any(|g| g.forks()) {
            return out;
        }
        let done = format!("polyc_synced_{}", self.ir.id);
        let host = COptions {
            openmp: false,
            index_type: "long".into(),
            indent: 4,
            probe: None,
            clauses: "",
        };
        let walk = c::print_calls(
            &self.ir.data,
            &self.ir.host,
            &host,
            &|g, _| match self.ir.groups[g].forks() {
                true => format!("if (++polyc_syncs > polyc_sync_cap) goto {done};\n"),
                false => String::new(),
            },
        );
        let work = match latency {
            1 => "polyc_points".to_string(),
            l => format!("polyc_points * {l}"),
        };
        let _ = writeln!(
            out,
            "  if (!polyc_small(polyc_points, {latency})) {{\n    const double polyc_sync_cap = {work} / {}.0;\n{walk}  }}\n  {done}:;",
            c::SYNC_POINTS
        );
        out
    }

    /// `polyc_reorder`, the argument `reorder` of `polyc_tiles_pay` at the tile sizes the SCoP
    /// runs with: without the register blocks' 4 (and 8) where a register-blocked group holds
    /// less than [`MIN_FULL_SHARE`] of its points in full tiles (its points' bounding box
    /// against tiles aligned at multiples of their sizes, as the tile walk aligns them). A
    /// group under outer loops keeps the 4: its box depends on their values.
    fn reorder_decl(&self, original: &OriginalOrder) -> String {
        let mut out = format!("  int polyc_reorder = {};\n", original.reorder_arg());
        for &g in &original.registers {
            let (GroupCode::Tiled(t), true) =
                (&self.ir.groups[g].code, self.ir.groups[g].outer.is_empty())
            else {
                continue;
            };
            let mut test = String::from("{\n");
            for (k, range) in t.points.iter().enumerate() {
                let _ = writeln!(test, "  {}", points_range(k, range));
            }
            let list = |f: &dyn Fn(usize) -> String| {
                (0..t.points.len()).map(f).collect::<Vec<_>>().join(", ")
            };
            let _ = writeln!(
                test,
                "  const long polyc_blo[] = {{{}}}, polyc_bhi[] = {{{}}}, polyc_bsize[] = {{{}}};",
                list(&|k| format!("polyc_plo{k}")),
                list(&|k| format!("polyc_phi{k}")),
                list(&size)
            );
            let _ = writeln!(
                test,
                "  if (polyc_full_share({}, polyc_blo, polyc_bhi, polyc_bsize) < {MIN_FULL_SHARE:?}) polyc_reorder &= ~12;",
                t.points.len()
            );
            test.push_str("}\n");
            out.push_str(&indent(&test, 2));
        }
        out
    }

    /// The full tile's code, specialised on the size of the innermost loops' tile dimension
    /// for a few common sizes: with a constant trip count the C compiler's vectorised loop
    /// needs no remainder and its set-up is hoisted (jacobi-2d LARGE at 32,256,64: 0.21-0.25 s
    /// with the size a variable, 0.17-0.21 s specialised, as fast as `--fixed-tile-sizes`;
    /// docs/decisions.md). Inside each case a constant of the same name shadows the size.
    /// Every copy runs its nests by register blocks where they qualify (`crate::registers`),
    /// under a test of the sizes that are not constants; so does the code of
    /// `--fixed-tile-sizes`.
    fn specialised(&self, t: &TiledGroup, full: &KNode, opts: &COptions) -> String {
        let print = |code: &KNode| c::print_k(&self.data, code, opts, None);
        let Some(k) = t.inner else {
            return print(full);
        };
        let blocked = |v: Option<i64>| print(&registers::apply(full.clone(), &self.data, k, v));
        if let Some(sizes) = self.fixed_sizes {
            return blocked(Some(sizes[k.min(sizes.len() - 1)]));
        }
        if print(full).len() > SPECIALISED_MAX_BYTES {
            return blocked(None);
        }
        let name = size(k);
        // A case whose size exceeds an array's extent is never a full tile, but gcc proves
        // undefined behaviour in it and warns (on by default); the cases are otherwise the
        // default's code.
        let mut out = String::from(
            "#if defined(__GNUC__) && !defined(__clang__)\n\
             #pragma GCC diagnostic push\n\
             #pragma GCC diagnostic ignored \"-Waggressive-loop-optimizations\"\n\
             #endif\n",
        );
        let _ = writeln!(out, "switch ({name}) {{");
        for v in SPECIALISED_SIZES {
            let _ = writeln!(out, "case {v}: {{");
            let _ = writeln!(out, "  const long {name} = {v};");
            let _ = writeln!(out, "  (void){name};");
            out.push_str(&indent(&blocked(Some(v)), 2));
            let _ = writeln!(out, "}} break;");
        }
        let _ = writeln!(out, "default: {{");
        out.push_str(&indent(&blocked(None), 2));
        let _ = writeln!(out, "}}");
        out.push_str("}\n");
        out.push_str(
            "#if defined(__GNUC__) && !defined(__clang__)\n#pragma GCC diagnostic pop\n#endif\n",
        );
        out
    }
}

/// `tiled`, the tiles' code, in a block where each tile size is [`c::WHOLE_TILE`] when the
/// SCoP runs as one tile (`polyc_whole_tile`). The sizes are constants of the same names as
/// the ones read, shadowing them, through temporaries: in C a declaration's scope begins
/// before its initialiser.
fn whole_tile(depth: usize, tiled: &str) -> String {
    if depth == 0 {
        return tiled.to_string();
    }
    let mut out = String::from("{\n");
    for k in 0..depth {
        let _ = writeln!(
            out,
            "  const long polyc_W{k} = polyc_whole_tile ? {}L : {};",
            c::WHOLE_TILE,
            size(k)
        );
    }
    out.push_str("  {\n");
    for k in 0..depth {
        let _ = writeln!(
            out,
            "    const long {0} = polyc_W{k};\n    (void){0};",
            size(k)
        );
    }
    out.push_str(&indent(tiled, 4));
    out.push_str("  }\n}\n");
    out
}

/// C code computing `polyc_bytes`, the bytes of the SCoP's arrays whose extents are known.
fn data_bytes(data: &ScopData) -> String {
    let mut out = String::from("double polyc_bytes = 0;\n");
    // Expanded scalars are left out: the original program keeps them in registers.
    for d in data
        .data
        .iter()
        .filter(|d| !d.is_scalar() && d.expands.is_none())
    {
        let extents: Option<Vec<String>> = d
            .extents
            .iter()
            .map(|e| e.as_ref().map(|e| format!("(double)({e})")))
            .collect();
        if let Some(extents) = extents {
            let _ = writeln!(
                out,
                "polyc_bytes += {} * (double)sizeof({});",
                extents.join(" * "),
                d.elem
            );
        }
    }
    out
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
        let _ = writeln!(work, "  polyc_points += {:?} * polyc_v;", b.density);
        work.push_str("}\n");
    }
    work
}
