//! Host code of the GPU targets (thesis Fig. 6.11): the SCoP replaced by array transfers, the
//! walk over each group's tiles filling a tile bucket, and one launch per wavefront (or one
//! for a parallel tile space), through avelas-rt. Printed by `host_printer`; what OpenCL and
//! CUDA do differently is their [`GpuApi`].

use std::fmt::Write;

use avelas_contract::{ConfigFns, AVELAS_FNS};
use rosepolly::model::expr::Expr;
use rosepolly::syntax::{Node, FLOORD};

use crate::device::{kernel_args, kernel_name, mix_serial, serial, versions, Dialect, KernelArg};
use crate::flushes::{self, Flush};
use crate::footprint::{self, Footprint};
use crate::gpu_api::{self, GpuApi, Transfer};
use crate::host::{group_opening, indent, Labels, TileWalk};
use crate::host_printer::{self, HostDialect};
use crate::ir::{origin, size, tile, DatumData, GroupCode, GroupIr, ScopIr, ThreadLayout};
use crate::names::user;

/// Prints the host side of one lowered SCoP.
pub struct GpuHost<'a> {
    pub ir: &'a ScopIr,
    api: &'static dyn GpuApi,
    dialect: Dialect,
    /// The name of the static string holding the OpenCL kernels' source.
    pub source: String,
    /// What moves of each array, by name.
    pub footprints: Vec<(String, Footprint)>,
    labels: Labels,
    /// The groups of each mix ([`flushes::mixes`]).
    mixes: Vec<Vec<usize>>,
}

/// `name`'s size in bytes on the device: its declared extents, with `rows` standing for a
/// first extent the declaration does not give.
fn bytes(d: &DatumData, rows: Option<&str>) -> String {
    let mut parts: Vec<String> = d
        .extents
        .iter()
        .map(|e| match (e, rows) {
            (Some(e), _) => format!("(size_t)({e})"),
            (None, Some(r)) => format!("(size_t)({r})"),
            (None, None) => unreachable!("device::unsupported checks inner extents"),
        })
        .collect();
    parts.push(format!("sizeof({})", d.elem));
    parts.join(" * ")
}

impl<'a> GpuHost<'a> {
    pub fn new(
        ir: &'a ScopIr,
        dialect: Dialect,
        source: String,
        footprints: Vec<(String, Footprint)>,
    ) -> Self {
        GpuHost {
            ir,
            api: gpu_api::api(dialect),
            dialect,
            source,
            footprints,
            labels: Labels::default(),
            mixes: flushes::mixes(ir),
        }
    }

    fn data(&self) -> Vec<KernelArg> {
        kernel_args(self.ir)
            .into_iter()
            .filter(|a| matches!(a, KernelArg::Array { .. } | KernelArg::WrittenScalar { .. }))
            .collect()
    }

    /// The C block that replaces the SCoP.
    pub fn print(&self, program: &str) -> String {
        host_printer::print(self, self.ir, program).code
    }

    /// Allocation and copy-in of one array or written scalar, and its copy-out and release.
    fn transfer(&self, a: &KernelArg) -> (String, String) {
        let (name, written) = match a {
            KernelArg::Array { name, written, .. } => (name.as_str(), *written),
            KernelArg::WrittenScalar { name, .. } => (name.as_str(), true),
            _ => unreachable!("only data move"),
        };
        let d = self.ir.data.datum(name).expect("kernel arguments are data");
        let dev = format!("polyc_d_{name}");
        let (mut set, mut tear) = (String::new(), String::new());
        if d.expands.is_some() {
            // Made from a scalar: it lives on the device alone, and nothing moves.
            let (alloc, free) = self.api.alloc(&dev, &bytes(d, None));
            set.push_str(&alloc);
            tear.push_str(&free);
            return (set, tear);
        }
        // Byte offset and length of what moves in and out.
        let (host, whole, moved_in, moved_out) = if d.is_scalar() {
            let n = format!("sizeof({})", user(name));
            let both = ("0".to_string(), n.clone());
            (
                format!("&{}", user(name)),
                n,
                both.clone(),
                written.then_some(both),
            )
        } else {
            let fp = self
                .footprints
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, f)| f)
                .expect("every array has a footprint");
            let extents = footprint::extents_c(d);
            let rows = fp.rows_c();
            let (r_in, r_out) = (format!("polyc_in_{name}"), format!("polyc_out_{name}"));
            let _ = writeln!(set, "long {r_in}[2], {r_out}[2];");
            set.push_str(&footprint::ranges_c(fp, &extents, &r_in, &r_out));
            let elem = format!("sizeof({})", d.elem);
            let range = |r: &str| {
                (
                    format!("(size_t){r}[0] * {elem}"),
                    format!("(size_t)({r}[1] - {r}[0]) * {elem}"),
                )
            };
            (
                user(name),
                bytes(d, rows.as_deref()),
                range(&r_in),
                written.then(|| range(&r_out)),
            )
        };
        let (alloc, free) = self.api.alloc(&dev, &whole);
        set.push_str(&alloc);
        let copy = |range, to_device| {
            let c = Transfer {
                dev: &dev,
                host: &host,
                range,
                to_device,
            };
            format!("{}\n", self.api.copy(c))
        };
        set.push_str(&copy(&moved_in, true));
        if let Some(out) = &moved_out {
            tear.push_str(&copy(out, false));
        }
        tear.push_str(&free);
        let _ = writeln!(set, "polyc_transfer_bytes += (long)({});", moved_in.1);
        if let Some((_, len)) = &moved_out {
            let _ = writeln!(tear, "polyc_transfer_bytes += (long)({len});");
        }
        (set, tear)
    }

    /// A group's kernel and buckets, made once per SCoP execution.
    fn group_setup(&self, g: &GroupIr) -> String {
        let i = g.index;
        let mut s = String::new();
        let name = kernel_name(self.ir.id, i);
        let (host_dims, layout, lanes) = match &g.code {
            GroupCode::Tiled(t) => (t.host_dims, t.threads.clone(), t.lanes),
            GroupCode::Untiled(_) => (0, None, 0),
        };
        let (kernel, mut max_wg, padding) =
            self.api
                .kernel(i, &name, &self.source, crate::device::versions(g));
        s.push_str(&kernel);
        let serial = serial(g, self.dialect);
        if serial {
            // The kernel has no barriers: one work-item per work-group.
            max_wg = "1".into();
        } else if matches!(&g.code, GroupCode::Tiled(t) if !t.combined.is_empty()) {
            // Its local arrays hold a partial result per work-item.
            let _ = writeln!(
                s,
                "{max_wg} = (int)polyc_lmin({max_wg}, {});",
                crate::group_sums::ITEMS
            );
        } else if lanes > 0 {
            // Its local arrays hold a partial result per work-item, and its lane groups
            // combine only in work-groups of whole lane groups.
            let _ = writeln!(
                s,
                "{max_wg} = (int)polyc_lmin({max_wg}, {items});\nif ({max_wg} >= {lanes}) {max_wg} = {max_wg} / {lanes} * {lanes};",
                items = crate::group_sums::ITEMS
            );
        }
        let _ = writeln!(
            s,
            "avelas_tile_bucket *polyc_tb{i} = avelas_tile_bucket_alloc({host_dims}, {});",
            g.outer.len()
        );
        let (kind, mut extents): (&str, Vec<String>) = match &layout {
            Some(ThreadLayout::Rectangular { dims }) => (
                "AVELAS_RECTANGULAR",
                dims.iter().map(|&k| size(k)).collect(),
            ),
            Some(ThreadLayout::Wavefront { dims }) => {
                ("AVELAS_WAVEFRONT", dims.iter().map(|&k| size(k)).collect())
            }
            // One work-item runs a group without tiles.
            None => ("AVELAS_RECTANGULAR", vec!["1".into()]),
        };
        if lanes > 0 {
            // Each entry's lanes: the bucket's last coordinate ([`crate::lanes`]).
            extents.push(lanes.to_string());
        }
        let _ = writeln!(s, "long polyc_ext{i}[] = {{{}}};", extents.join(", "));
        // Without outer loops the host knows the band's extent: tiles larger than the problem
        // need no more thread-bucket entries than it has points.
        if let (GroupCode::Tiled(t), Some(l), true) = (&g.code, &layout, g.outer.is_empty()) {
            let _ = writeln!(s, "{{");
            for (k, (lo, hi)) in t.points.iter().enumerate() {
                let _ = writeln!(s, "  const long polyc_plo{k} = {lo}, polyc_phi{k} = {hi};");
                let _ = writeln!(s, "  (void)polyc_plo{k}; (void)polyc_phi{k};");
            }
            for (j, &k) in l.dims().iter().enumerate() {
                let _ = writeln!(
                    s,
                    "  polyc_ext{i}[{j}] = polyc_lmax(1, polyc_lmin(polyc_ext{i}[{j}], polyc_phi{k} - polyc_plo{k} + 1));"
                );
            }
            let _ = writeln!(s, "}}");
        }
        let pad = if layout.is_none() || serial {
            "1".to_string()
        } else {
            padding
        };
        let _ = writeln!(
            s,
            "avelas_thread_bucket *polyc_th{i} = avelas_thread_bucket_new({kind}, {}, polyc_ext{i}, {pad}, {max_wg});",
            extents.len()
        );
        s.push_str(&self.api.thread_bucket(i));
        s.push_str(&self.buffer_bucket(g, &name));
        s
    }

    /// Group `g`'s buffer bucket (Algorithm 6): its candidate buffers offered in rank order
    /// against the window; the kernel version it accepts (`polyc_v<i>`) and the local memory
    /// that needs (`polyc_lm<i>`), made the one launched.
    fn buffer_bucket(&self, g: &GroupIr, name: &str) -> String {
        let i = g.index;
        let mut s = format!("int polyc_v{i} = 0;\nlong polyc_lm{i} = 0;\n");
        let staging = match &g.code {
            GroupCode::Tiled(t) if t.staging.versions() > 0 => &t.staging,
            _ => {
                let _ = writeln!(s, "(void)polyc_v{i}; (void)polyc_lm{i};");
                return s;
            }
        };
        let _ = writeln!(s, "{{");
        let _ = writeln!(
            s,
            "  polyc_local_window = avelas_tuned_window(polyc_tuned, {});",
            self.api.window()
        );
        let _ = writeln!(
            s,
            "  avelas_buffer_bucket *polyc_bb = avelas_buffer_bucket_alloc(polyc_local_window);"
        );
        let _ = writeln!(
            s,
            "  const long polyc_wi = avelas_thread_bucket_work_group(polyc_th{i});"
        );
        for (b, c) in staging.buffers.iter().enumerate() {
            let elem = &self
                .ir
                .data
                .datum(&c.datum)
                .expect("buffers are of data")
                .elem;
            let extents: Vec<String> = c
                .dims
                .iter()
                .map(|d| d.extent.render_with(origin, size, &staging.params, FLOORD))
                .collect();
            let ones = vec!["1"; extents.len()].join(", ");
            let _ = writeln!(
                s,
                "  {{ const long polyc_e[] = {{{}}}, polyc_p[] = {{{ones}}}; avelas_buffer_bucket_submit(polyc_bb, (long)sizeof({elem}), {}, polyc_e, polyc_p, polyc_wi, {}, {}); }}",
                extents.join(", "),
                extents.len(),
                staging.version_of(b),
                i32::from(c.written)
            );
        }
        let _ = writeln!(s, "  polyc_v{i} = avelas_buffer_bucket_kernel(polyc_bb);");
        let _ = writeln!(s, "  polyc_lm{i} = avelas_buffer_bucket_bytes(polyc_bb);");
        let _ = writeln!(s, "  avelas_buffer_bucket_free(polyc_bb);");
        let _ = writeln!(s, "}}");
        let _ = writeln!(s, "polyc_buffers += polyc_v{i};");
        let _ = writeln!(
            s,
            "if (polyc_lm{i} > polyc_local_bytes) polyc_local_bytes = polyc_lm{i};"
        );
        s.push_str(&self.api.select(i, name, &self.source, staging.versions()));
        s
    }

    /// The code at a group's call: the walk filling its tile bucket, a launch per step.
    fn group_call(&self, g: usize, args: &[Expr]) -> String {
        let group = &self.ir.groups[g];
        let mut out = group_opening(group, args);
        let launch = match flushes::place(&self.mixes, g) {
            Some((m, p)) => self.mixed_launch(group, m, p),
            None => self.launch(group, "polyc_batch"),
        };
        match &group.code {
            GroupCode::Untiled(_) => {
                let _ = writeln!(out, "  /* group {g}: {:?}, one work-item */", group.names);
                let values = if group.outer.is_empty() {
                    "0".to_string()
                } else {
                    group.outer.join(", ")
                };
                let _ = writeln!(out, "  long polyc_c[] = {{{values}}};");
                let _ = writeln!(out, "  avelas_tile_bucket_push(polyc_tb{g}, 0, polyc_c);");
                out.push_str(&indent(&launch, 2));
            }
            GroupCode::Tiled(t) => {
                let _ = writeln!(
                    out,
                    "  /* group {g}: {:?}, {} tiled dimension(s), {:?}, {} in the tile bucket */",
                    group.names, t.depth, t.mode, t.host_dims
                );
                let coords: Vec<String> = (0..t.host_dims)
                    .map(tile)
                    .chain(group.outer.iter().cloned())
                    .collect();
                let coords = if coords.is_empty() {
                    "0".to_string()
                } else {
                    coords.join(", ")
                };
                let visit = format!(
                    "long polyc_c[] = {{{coords}}};\navelas_tile_bucket_push(polyc_tb{g}, polyc_full, polyc_c);\n"
                );
                let walk = TileWalk {
                    ir: self.ir,
                    group,
                    tiles: t,
                    openmp: false,
                    visit,
                    flush: launch,
                    label: self.labels.next(self.ir.id),
                    trace: AVELAS_FNS.trace,
                    stoppable: false,
                };
                out.push_str(&indent(&walk.print(), 2));
            }
        }
        out.push_str("}\n");
        out
    }

    /// The end of a wavefront of group `g` (`batch`: the C expression of the batch limit; -1
    /// flushes the batch): launch the parts of the tile bucket that are ready, if any.
    fn launch(&self, g: &GroupIr, batch: &str) -> String {
        let i = g.index;
        let args = kernel_args(self.ir);
        let part = self.api.launch(
            i,
            &kernel_name(self.ir.id, i),
            &self.source,
            &args,
            versions(g),
        );
        format!(
            "avelas_tile_bucket_wave(polyc_tb{i}, {batch});
{{
  int polyc_seq;
  while ((polyc_seq = avelas_tile_bucket_part(polyc_tb{i})) >= 0) {{
    (void)polyc_seq;
{}  }}
}}
",
            indent(&part, 4)
        )
    }

    /// The end of a wavefront of group `g`, at position `p` of mix `m`: the wavefront joins
    /// the mix, or the mix launches and then the wavefront.
    fn mixed_launch(&self, g: &GroupIr, m: usize, p: usize) -> String {
        format!(
            "if (!avelas_mix_wave(polyc_mx{m}, {p}, polyc_tb{}, polyc_batch)) {{\n{}{}}}\n",
            g.index,
            indent(&self.mix_flush(m), 2),
            indent(&self.launch(g, "0"), 2)
        )
    }

    /// Each mix, its groups' thread buckets and its kernel; its release (before the buckets').
    fn mix_setup(&self) -> (String, String) {
        let (mut setup, mut teardown) = (String::new(), String::new());
        for (m, groups) in self.mixes.iter().enumerate() {
            let _ = writeln!(
                setup,
                "avelas_mix *polyc_mx{m} = avelas_mix_new({});",
                groups.len()
            );
            for (p, g) in groups.iter().enumerate() {
                let _ = writeln!(setup, "avelas_mix_group(polyc_mx{m}, {p}, polyc_th{g});");
            }
            setup.push_str(&self.api.mix_kernel(m, &flushes::kernel_name(self.ir.id, m)));
            let _ = writeln!(teardown, "avelas_mix_free(polyc_mx{m});");
        }
        (setup, teardown)
    }

    /// Launches what mix `m` holds, if anything.
    fn mix_flush(&self, m: usize) -> String {
        let launch = self.api.launch_mix(
            m,
            &flushes::kernel_name(self.ir.id, m),
            &self.source,
            &kernel_args(self.ir),
            mix_serial(self.dialect),
        );
        format!(
            "if (avelas_mix_pending(polyc_mx{m})) {{\n{}}}\n",
            indent(&launch, 2)
        )
    }
}

impl HostDialect for GpuHost<'_> {
    fn config(&self) -> ConfigFns {
        AVELAS_FNS
    }

    fn target(&self) -> &'static str {
        self.api.target()
    }

    fn open(&self) -> String {
        self.api.open().to_string()
    }

    /// Timing events, arrays (their footprints) and written scalars to the device, and per
    /// group its kernel and buckets; their release, and the arrays back.
    fn setup(&self) -> (String, String) {
        let (mut setup, mut teardown) = self.api.events();
        let _ = writeln!(setup, "long polyc_transfer_bytes = 0;");
        let _ = writeln!(
            setup,
            "const long polyc_batch = {}; (void)polyc_batch;",
            self.api.batch_tiles()
        );
        let _ = writeln!(
            setup,
            "long polyc_buffers = 0, polyc_local_bytes = 0, polyc_local_window = 0;"
        );
        for a in self.data() {
            let (t_in, t_out) = self.transfer(&a);
            setup.push_str(&t_in);
            teardown.push_str(&t_out);
        }
        for g in &self.ir.groups {
            setup.push_str(&self.group_setup(g));
        }
        let (mix_setup, mix_teardown) = self.mix_setup();
        setup.push_str(&mix_setup);
        teardown.push_str(&mix_teardown);
        for g in &self.ir.groups {
            let i = g.index;
            let _ = writeln!(teardown, "avelas_tile_bucket_free(polyc_tb{i});");
            let _ = writeln!(teardown, "avelas_thread_bucket_free(polyc_th{i});");
        }
        (setup, teardown)
    }

    fn group(&self, g: usize, args: &[Expr]) -> String {
        match Flush::of(g, self.ir.groups.len()) {
            Some(Flush::Batch(g)) => self.launch(&self.ir.groups[g], "-1"),
            Some(Flush::Mix(m)) => self.mix_flush(m),
            None => self.group_call(g, args),
        }
    }

    fn host_tree(&self, host: &Node) -> Node {
        flushes::with_flushes(host, self.ir.groups.len(), &self.mixes)
    }

    fn finish(&self) -> String {
        self.api.finish().to_string()
    }

    fn profile(&self) -> Vec<(&'static str, String)> {
        vec![
            ("kernel_ms=%.3f", self.api.kernel_ms().to_string()),
            ("transfer_bytes=%ld", "polyc_transfer_bytes".to_string()),
            ("buffers=%ld", "polyc_buffers".to_string()),
            ("local_bytes=%ld", "polyc_local_bytes".to_string()),
            ("local_window=%ld", "polyc_local_window".to_string()),
        ]
    }
}

/// The CUDA host's error check, defined once per file.
pub const CUDA_CHECK: &str = "#ifndef POLYC_CUDA\n#define POLYC_CUDA(call) do { cudaError_t polyc_err = (call); if (polyc_err != cudaSuccess) { fprintf(stderr, \"polyc: CUDA error %s at %s:%d: %s\\n\", cudaGetErrorName(polyc_err), __FILE__, __LINE__, cudaGetErrorString(polyc_err)); exit(1); } } while (0)\n#endif\n";

/// `text` as a C string literal, one source line per literal piece.
pub fn c_string(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let escaped = line.replace('\\', "\\\\").replace('"', "\\\"");
        let _ = writeln!(out, "  \"{escaped}\\n\"");
    }
    if out.is_empty() {
        out.push_str("  \"\"\n");
    }
    out
}
