//! Host code of the GPU targets (thesis Fig. 6.11): the SCoP replaced by array transfers, the
//! walk over each group's tiles filling a tile bucket, and one launch per wavefront (or one
//! for a parallel tile space), through avelas-rt. The OpenCL host is C calling avelas-rt for
//! everything; the CUDA host moves its arrays and launches its kernels with the CUDA runtime
//! API, checking every call, and asks avelas-rt for the buckets' device copies.

use std::fmt::Write;

use rosepolly::model::expr::Expr;
use rosepolly::model::Scop;
use rosepolly::syntax::from_affine;

use crate::c::{self, COptions};
use avelas_contract::kernel_args as arg;

use crate::device::{kernel_args, kernel_name, Dialect, KernelArg};
use crate::footprint::{self, Footprint};
use crate::host::{group_opening, indent, Labels, TileWalk};
use crate::ir::{size, tile, GroupCode, GroupIr, ScopIr, ThreadLayout};
use crate::names::{user, user_expr};
use crate::openmp::{epilogue, prologue};

/// Prints the host side of one lowered SCoP.
pub struct GpuHost<'a> {
    pub scop: &'a Scop<'a>,
    pub ir: &'a ScopIr,
    pub dialect: Dialect,
    /// The name of the static string holding the OpenCL kernels' source.
    pub source: String,
    /// What moves of each array, by name.
    pub footprints: Vec<(String, Footprint)>,
    labels: Labels,
}

/// `name`'s size in bytes on the device: its declared extents, with `rows` standing for a
/// first extent the declaration does not give.
fn bytes(scop: &Scop, name: &str, rows: Option<&str>) -> String {
    let d = scop.symbols.get(name).expect("kernel arguments are data");
    let mut parts: Vec<String> = d
        .extents
        .iter()
        .map(|e| match (e, rows) {
            (Some(e), _) => format!("(size_t)({})", user_expr(&from_affine(e))),
            (None, Some(r)) => format!("(size_t)({r})"),
            (None, None) => unreachable!("device::unsupported checks inner extents"),
        })
        .collect();
    parts.push(format!("sizeof({})", d.elem_type));
    parts.join(" * ")
}

impl<'a> GpuHost<'a> {
    pub fn new(
        scop: &'a Scop<'a>,
        ir: &'a ScopIr,
        dialect: Dialect,
        source: String,
        footprints: Vec<(String, Footprint)>,
    ) -> Self {
        GpuHost {
            scop,
            ir,
            dialect,
            source,
            footprints,
            labels: Labels::default(),
        }
    }

    fn cuda(&self) -> bool {
        self.dialect == Dialect::Cuda
    }

    fn data(&self) -> Vec<KernelArg> {
        kernel_args(self.scop, self.ir, &[])
            .into_iter()
            .filter(|a| matches!(a, KernelArg::Array { .. } | KernelArg::WrittenScalar { .. }))
            .collect()
    }

    /// The C block that replaces the SCoP.
    pub fn print(&self) -> String {
        // The device is opened (once per process) before the SCoP's clock starts.
        let mut out = if self.cuda() {
            "  avelas_cuda_open();\n".to_string()
        } else {
            "  void *polyc_cl = avelas_cl_open();\n".to_string()
        };
        out.push_str(&prologue(self.ir, None).replace("polyc_tile_size(", "avelas_tile_size("));
        let mut setup = String::new();
        let mut teardown = String::new();
        if self.cuda() {
            let _ = writeln!(setup, "double polyc_kernel_ms = 0;");
            let _ = writeln!(setup, "cudaEvent_t polyc_ev0, polyc_ev1;");
            let _ = writeln!(setup, "POLYC_CUDA(cudaEventCreate(&polyc_ev0));");
            let _ = writeln!(setup, "POLYC_CUDA(cudaEventCreate(&polyc_ev1));");
            let _ = writeln!(teardown, "POLYC_CUDA(cudaEventDestroy(polyc_ev0));");
            let _ = writeln!(teardown, "POLYC_CUDA(cudaEventDestroy(polyc_ev1));");
        }
        // Arrays (their footprints) and written scalars to the device, and back.
        let _ = writeln!(setup, "long polyc_transfer_bytes = 0;");
        for a in self.data() {
            let (t_in, t_out) = self.transfer(&a);
            setup.push_str(&t_in);
            teardown.push_str(&t_out);
        }
        // Per group: kernel, buckets.
        for g in &self.ir.groups {
            setup.push_str(&self.group_setup(g));
            let i = g.index;
            let _ = writeln!(teardown, "avelas_tile_bucket_free(polyc_tb{i});");
            let _ = writeln!(teardown, "avelas_thread_bucket_free(polyc_th{i});");
        }
        out.push_str(&indent(&setup, 2));
        let host = COptions {
            openmp: false,
            index_type: "long".into(),
            indent: 2,
            probe: None,
        };
        out.push_str(&c::print_calls(
            self.scop,
            &self.ir.host,
            &host,
            &|g, args| self.group(g, args),
        ));
        if self.cuda() {
            let _ = writeln!(out, "  POLYC_CUDA(cudaDeviceSynchronize());");
        } else {
            let _ = writeln!(out, "  avelas_cl_finish(polyc_cl);");
        }
        out.push_str(&indent(&teardown, 2));
        let kernel_ms = if self.cuda() {
            "polyc_kernel_ms"
        } else {
            "avelas_cl_kernel_ms(polyc_cl)"
        };
        out.push_str(
            &epilogue(
                self.ir,
                &[
                    ("kernel_ms=%.3f", kernel_ms),
                    ("transfer_bytes=%ld", "polyc_transfer_bytes"),
                ],
            )
            .replace("polyc_profile()", "avelas_profile()"),
        );
        out.replace("polyc_trace()", "avelas_trace()")
    }

    /// Allocation and copy-in of one array or written scalar, and its copy-out and release.
    fn transfer(&self, a: &KernelArg) -> (String, String) {
        let (name, written) = match a {
            KernelArg::Array { name, written, .. } => (name.as_str(), *written),
            KernelArg::WrittenScalar { name, .. } => (name.as_str(), true),
            _ => unreachable!("only data move"),
        };
        let d = self
            .scop
            .symbols
            .get(name)
            .expect("kernel arguments are data");
        let dev = format!("polyc_d_{name}");
        let (mut set, mut tear) = (String::new(), String::new());
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
            let elem = format!("sizeof({})", d.elem_type);
            let range = |r: &str| {
                (
                    format!("(size_t){r}[0] * {elem}"),
                    format!("(size_t)({r}[1] - {r}[0]) * {elem}"),
                )
            };
            (
                user(name),
                bytes(self.scop, name, rows.as_deref()),
                range(&r_in),
                written.then(|| range(&r_out)),
            )
        };
        if self.cuda() {
            let _ = writeln!(set, "void *{dev} = 0;");
            let _ = writeln!(set, "POLYC_CUDA(cudaMalloc(&{dev}, {whole}));");
            let copy = |(off, len): &(String, String), to_device: bool| {
                if to_device {
                    format!("POLYC_CUDA(cudaMemcpy((char *){dev} + {off}, (const char *)({host}) + {off}, {len}, cudaMemcpyHostToDevice));")
                } else {
                    format!("POLYC_CUDA(cudaMemcpy((char *)({host}) + {off}, (const char *){dev} + {off}, {len}, cudaMemcpyDeviceToHost));")
                }
            };
            let _ = writeln!(set, "{}", copy(&moved_in, true));
            if let Some(out) = &moved_out {
                let _ = writeln!(tear, "{}", copy(out, false));
            }
            let _ = writeln!(tear, "POLYC_CUDA(cudaFree({dev}));");
        } else {
            let _ = writeln!(
                set,
                "avelas_buffer *{dev} = avelas_cl_buffer(polyc_cl, {whole});"
            );
            let (off, len) = &moved_in;
            let _ = writeln!(
                set,
                "avelas_cl_write({dev}, (const void *)({host}), {off}, {len});"
            );
            if let Some((off, len)) = &moved_out {
                let _ = writeln!(
                    tear,
                    "avelas_cl_read({dev}, (void *)({host}), {off}, {len});"
                );
            }
            let _ = writeln!(tear, "avelas_cl_buffer_free({dev});");
        }
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
        let (host_dims, layout) = match &g.code {
            GroupCode::Tiled(t) => (t.host_dims, t.threads.clone()),
            GroupCode::Untiled(_) => (0, None),
        };
        let (max_wg, padding) = if self.cuda() {
            ("avelas_cuda_max_threads()".to_string(), "32".to_string())
        } else {
            let _ = writeln!(
                s,
                "avelas_kernel *polyc_k{i} = avelas_cl_kernel(polyc_cl, {}, \"{name}\");",
                self.source
            );
            (
                format!("avelas_cl_max_work_group(polyc_k{i})"),
                "avelas_cl_padding(polyc_cl)".to_string(),
            )
        };
        let _ = writeln!(
            s,
            "avelas_tile_bucket *polyc_tb{i} = avelas_tile_bucket_alloc({host_dims});"
        );
        let (kind, extents): (&str, Vec<String>) = match &layout {
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
        let pad = if layout.is_none() {
            "1".to_string()
        } else {
            padding
        };
        let _ = writeln!(
            s,
            "avelas_thread_bucket *polyc_th{i} = avelas_thread_bucket_new({kind}, {}, polyc_ext{i}, {pad}, {max_wg});",
            extents.len()
        );
        if self.cuda() {
            let _ = writeln!(s, "long polyc_th_stride{i} = 0;");
            let _ = writeln!(s, "const void *polyc_th_off{i} = 0;");
            let _ = writeln!(
                s,
                "const void *polyc_th_coords{i} = avelas_cuda_thread_bucket(polyc_th{i}, &polyc_th_stride{i}, &polyc_th_off{i});"
            );
        }
        s
    }

    /// The code at a group's call: the walk filling its tile bucket, a launch per step.
    fn group(&self, g: usize, args: &[Expr]) -> String {
        let group = &self.ir.groups[g];
        let mut out = group_opening(group, args);
        let launch = self.launch(group);
        match &group.code {
            GroupCode::Untiled(_) => {
                let _ = writeln!(out, "  /* group {g}: {:?}, one work-item */", group.names);
                let _ = writeln!(out, "  long polyc_c[1] = {{0}};");
                let _ = writeln!(out, "  avelas_tile_bucket_push(polyc_tb{g}, 0, polyc_c);");
                out.push_str(&indent(&launch, 2));
            }
            GroupCode::Tiled(t) => {
                let _ = writeln!(
                    out,
                    "  /* group {g}: {:?}, {} tiled dimension(s), {:?}, {} in the tile bucket */",
                    group.names, t.depth, t.mode, t.host_dims
                );
                let coords: Vec<String> = (0..t.host_dims).map(tile).collect();
                let coords = if coords.is_empty() {
                    "0".to_string()
                } else {
                    coords.join(", ")
                };
                let visit = format!(
                    "long polyc_c[] = {{{coords}}};\navelas_tile_bucket_push(polyc_tb{g}, polyc_full, polyc_c);\n"
                );
                let walk = TileWalk {
                    scop: self.scop,
                    group,
                    tiles: t,
                    openmp: false,
                    visit,
                    flush: launch,
                    label: self.labels.next(self.scop.id),
                };
                out.push_str(&indent(&walk.print(), 2));
            }
        }
        out.push_str("}\n");
        out
    }

    /// Set the kernel's arguments, launch it over the bucket, empty the bucket.
    fn launch(&self, g: &GroupIr) -> String {
        let i = g.index;
        let args = kernel_args(self.scop, self.ir, &g.outer);
        let mut s = String::new();
        if self.cuda() {
            let mut values: Vec<String> = (0..arg::COUNT)
                .map(|a| match a {
                    arg::TILES => "(const long *)polyc_dtb".to_string(),
                    arg::TILE_COUNT => "polyc_n".into(),
                    arg::TILE_STRIDE => "polyc_stride".into(),
                    arg::THREAD_COORDS => format!("(const int *)polyc_th_coords{i}"),
                    arg::THREAD_OFFSETS => format!("(const int *)polyc_th_off{i}"),
                    arg::THREAD_STRIDE => format!("polyc_th_stride{i}"),
                    arg::WAVES => format!("avelas_thread_bucket_waves(polyc_th{i})"),
                    _ => unreachable!("the contract has {} run-time arguments", arg::COUNT),
                })
                .collect();
            for a in &args {
                values.push(match a {
                    KernelArg::Param(n) => format!("(long)({})", user(n)),
                    KernelArg::Outer(n) => format!("(long)({n})"),
                    KernelArg::TileSize(k) => size(*k),
                    KernelArg::Array { name, elem, .. }
                    | KernelArg::WrittenScalar { name, elem } => {
                        format!("({elem} *)polyc_d_{name}")
                    }
                    KernelArg::Scalar { name, .. } => user(name),
                });
            }
            let _ = write!(
                s,
                r#"{{
  const long polyc_n = avelas_tile_bucket_size(polyc_tb{i});
  long polyc_stride = 0;
  const void *polyc_dtb = avelas_cuda_tile_bucket(polyc_tb{i}, &polyc_stride);
  unsigned polyc_gx = 1, polyc_gy = 1;
  avelas_cuda_grid(polyc_n, &polyc_gx, &polyc_gy);
  const int polyc_timed = avelas_profile();
  if (polyc_timed) POLYC_CUDA(cudaEventRecord(polyc_ev0, 0));
  {kernel}<<<dim3(polyc_gx, polyc_gy), dim3((unsigned)avelas_thread_bucket_work_group(polyc_th{i}))>>>({values});
  POLYC_CUDA(cudaGetLastError());
  if (polyc_timed) {{
    float polyc_ms = 0;
    POLYC_CUDA(cudaEventRecord(polyc_ev1, 0));
    POLYC_CUDA(cudaEventSynchronize(polyc_ev1));
    POLYC_CUDA(cudaEventElapsedTime(&polyc_ms, polyc_ev0, polyc_ev1));
    polyc_kernel_ms += polyc_ms;
  }}
  polyc_launches++;
}}
"#,
                kernel = kernel_name(self.ir.id, i),
                values = values.join(", ")
            );
        } else {
            for (j, a) in args.iter().enumerate() {
                let idx = arg::COUNT + j;
                let _ = match a {
                    KernelArg::Param(n) | KernelArg::Outer(n) => writeln!(
                        s,
                        "{{ const long polyc_v = (long)({}); avelas_cl_arg(polyc_k{i}, {idx}, &polyc_v, sizeof(long)); }}",
                        if matches!(a, KernelArg::Param(_)) { user(n) } else { n.clone() }
                    ),
                    KernelArg::TileSize(k) => writeln!(
                        s,
                        "avelas_cl_arg(polyc_k{i}, {idx}, &{}, sizeof(long));",
                        size(*k)
                    ),
                    KernelArg::Array { name, .. } | KernelArg::WrittenScalar { name, .. } => {
                        writeln!(s, "avelas_cl_arg_buffer(polyc_k{i}, {idx}, polyc_d_{name});")
                    }
                    KernelArg::Scalar { name, elem } => writeln!(
                        s,
                        "{{ const {elem} polyc_v = {}; avelas_cl_arg(polyc_k{i}, {idx}, &polyc_v, sizeof({elem})); }}",
                        user(name)
                    ),
                };
            }
            let _ = writeln!(
                s,
                "polyc_launches += avelas_cl_launch(polyc_k{i}, polyc_tb{i}, polyc_th{i});"
            );
        }
        let _ = writeln!(s, "avelas_tile_bucket_clear(polyc_tb{i});");
        s
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
