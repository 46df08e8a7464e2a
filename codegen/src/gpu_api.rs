//! How the GPU hosts talk to their device: the OpenCL host calls avelas-rt for everything; the
//! CUDA host moves its arrays and launches its kernels with the CUDA runtime API, checking
//! every call (`POLYC_CUDA`), and asks avelas-rt for the buckets' device copies. Everything
//! else about the GPU host (`gpu_host`) is the same for both.

use std::fmt::Write;

use avelas_contract::kernel_args as arg;
use avelas_contract::AVELAS_FNS;

use crate::device::{batch_name, version_name, Dialect, KernelArg};
use crate::host::indent;
use crate::ir::size;
use crate::names::user;

/// A copy of `range.1` bytes at byte `range.0` of `host` to the same bytes of `dev`
/// (`to_device`), or back.
#[derive(Clone, Copy)]
pub struct Transfer<'a> {
    pub dev: &'a str,
    pub host: &'a str,
    pub range: &'a (String, String),
    pub to_device: bool,
}

/// The device calls of one GPU host, as C text.
pub trait GpuApi {
    /// Open the device (once per process), before the SCoP's clock starts.
    fn open(&self) -> &'static str;
    /// The target's name in tuning keys.
    fn target(&self) -> &'static str;
    /// Made before the transfers, undone after them (timing events).
    fn events(&self) -> (String, String) {
        (String::new(), String::new())
    }
    /// Allocate `dev` with `bytes` bytes on the device; and free it.
    fn alloc(&self, dev: &str, bytes: &str) -> (String, String);
    /// One copy between host and device.
    fn copy(&self, c: Transfer) -> String;
    /// Group `i`'s kernel `name` (and its `versions` staging versions beyond version 0), built
    /// from the kernels' source `source` where the API needs it; and C expressions of the
    /// largest work-group every version can launch with (`polyc_mwg<i>`, declared by the code)
    /// and of the work-group padding. The largest work-group is the kernel's own, not the
    /// device's: a kernel whose registers do not fit the device's largest block fails its launch
    /// (CUDA's `cudaErrorLaunchOutOfResources`), and the thread bucket is made before the buffer
    /// bucket picks the version.
    fn kernel(
        &self,
        i: usize,
        name: &str,
        source: &str,
        versions: usize,
    ) -> (String, String, String);
    /// Group `i`'s thread bucket made available to its kernel.
    fn thread_bucket(&self, _i: usize) -> String {
        String::new()
    }
    /// The local-memory window `L_w` of a work-group, a C expression.
    fn window(&self) -> &'static str;
    /// After group `i`'s buffer bucket chose version `polyc_v<i>` of kernel `name` (of
    /// `versions` beyond version 0) needing `polyc_lm<i>` bytes: make that version the one
    /// launched.
    fn select(&self, i: usize, name: &str, source: &str, versions: usize) -> String;
    /// Launch group `i`'s kernel `name` (the version chosen of `versions`) over its tile
    /// bucket's current part, with its own arguments `args`; the part is sequential where the
    /// C variable `polyc_seq` is nonzero.
    fn launch(
        &self,
        i: usize,
        name: &str,
        source: &str,
        args: &[KernelArg],
        versions: usize,
    ) -> String;
    /// Mix `m`'s kernel `name` (`crate::flushes`), made ready before the SCoP runs.
    fn mix_kernel(&self, m: usize, name: &str) -> String;
    /// Launch what mix `m` (`polyc_mx<m>`) holds with its kernel `name`, from the kernels'
    /// source `source`, and the SCoP's arguments `args`; on one work-item where the kernel is
    /// `serial`.
    fn launch_mix(
        &self,
        m: usize,
        name: &str,
        source: &str,
        args: &[KernelArg],
        serial: bool,
    ) -> String;
    /// The C expression of the batch limit (`POLYC_BATCH_TILES` or the device's default).
    fn batch_tiles(&self) -> &'static str;
    /// Wait for the device.
    fn finish(&self) -> &'static str;
    /// The milliseconds the kernels ran.
    fn kernel_ms(&self) -> &'static str;
}

/// The API of `dialect`.
pub fn api(dialect: Dialect) -> &'static dyn GpuApi {
    match dialect {
        Dialect::OpenCl => &OpenCl,
        Dialect::Cuda => &Cuda,
    }
}

struct OpenCl;
struct Cuda;

impl GpuApi for OpenCl {
    fn target(&self) -> &'static str {
        "opencl"
    }

    fn open(&self) -> &'static str {
        "  void *polyc_cl = avelas_cl_open();\n"
    }

    fn alloc(&self, dev: &str, bytes: &str) -> (String, String) {
        (
            format!("avelas_buffer *{dev} = avelas_cl_buffer(polyc_cl, {bytes});\n"),
            format!("avelas_cl_buffer_free({dev});\n"),
        )
    }

    fn copy(&self, c: Transfer) -> String {
        let (Transfer { dev, host, .. }, (off, len)) = (c, c.range);
        let (f, ptr) = if c.to_device {
            ("avelas_cl_write", "const void *")
        } else {
            ("avelas_cl_read", "void *")
        };
        format!("{f}({dev}, ({ptr})({host}), {off}, {len});")
    }

    fn kernel(
        &self,
        i: usize,
        name: &str,
        source: &str,
        versions: usize,
    ) -> (String, String, String) {
        // The batch twins live in a program of their own, built when a batch first needs one
        // (`launch`): PoCL builds a program's every kernel, and twins in the same program made
        // adi's first run 3.2 -> 4.6 s.
        let mut code = format!(
            "avelas_kernel *polyc_k{i} = avelas_cl_kernel(polyc_cl, {source}, \"{name}\");\n\
             avelas_kernel *polyc_ks{i} = 0;\n\
             const char *polyc_ksn{i} = \"{}\";\n\
             int polyc_mwg{i} = avelas_cl_max_work_group(polyc_k{i});\n",
            batch_name(name)
        );
        for v in 1..=versions {
            let _ = writeln!(
                code,
                "polyc_mwg{i} = (int)polyc_lmin(polyc_mwg{i}, avelas_cl_max_work_group(avelas_cl_kernel(polyc_cl, {source}, \"{}\")));",
                version_name(name, v)
            );
        }
        (
            code,
            format!("polyc_mwg{i}"),
            "avelas_cl_padding(polyc_cl)".to_string(),
        )
    }

    fn window(&self) -> &'static str {
        "avelas_cl_local_mem(polyc_cl)"
    }

    fn select(&self, i: usize, name: &str, source: &str, versions: usize) -> String {
        if versions == 0 {
            return String::new();
        }
        let names = |batch: bool| {
            (0..=versions)
                .map(|v| {
                    let n = version_name(name, v);
                    format!("\"{}\"", if batch { batch_name(&n) } else { n })
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        format!(
            "if (polyc_v{i} > 0) {{
  static const char *const polyc_names[] = {{{}}};
  static const char *const polyc_batch_names[] = {{{}}};
  polyc_k{i} = avelas_cl_kernel(polyc_cl, {source}, polyc_names[polyc_v{i}]);
  polyc_ksn{i} = polyc_batch_names[polyc_v{i}];
}}
",
            names(false),
            names(true)
        )
    }

    fn launch(
        &self,
        i: usize,
        _name: &str,
        source: &str,
        args: &[KernelArg],
        versions: usize,
    ) -> String {
        let mut s = format!(
            "if (polyc_seq && !polyc_ks{i}) polyc_ks{i} = avelas_cl_kernel(polyc_cl, {}, polyc_ksn{i});\n\
             avelas_kernel *polyc_kl = polyc_seq ? polyc_ks{i} : polyc_k{i};\n",
            batch_source(source)
        );
        s.push_str(&cl_args(args));
        if versions > 0 {
            let _ = writeln!(
                s,
                "if (polyc_v{i} > 0) avelas_cl_arg_local(polyc_kl, {}, polyc_lm{i});",
                arg::COUNT + args.len()
            );
        }
        let _ = writeln!(
            s,
            "polyc_launches += avelas_cl_launch(polyc_kl, polyc_tb{i}, polyc_th{i});"
        );
        s
    }

    fn mix_kernel(&self, m: usize, _name: &str) -> String {
        // Built, in a program of its own, when the mix first launches.
        format!("avelas_kernel *polyc_km{m} = 0;\n")
    }

    fn launch_mix(
        &self,
        m: usize,
        name: &str,
        source: &str,
        args: &[KernelArg],
        serial: bool,
    ) -> String {
        format!(
            "if (!polyc_km{m}) polyc_km{m} = avelas_cl_kernel(polyc_cl, {}, \"{name}\");\n\
             {{\n  avelas_kernel *polyc_kl = polyc_km{m};\n{}  polyc_launches += avelas_cl_launch_mix(polyc_kl, polyc_mx{m}, {});\n}}\n",
            mix_source(source),
            indent(&cl_args(args), 2),
            i32::from(serial)
        )
    }

    fn batch_tiles(&self) -> &'static str {
        "avelas_cl_batch_tiles(polyc_cl)"
    }

    fn finish(&self) -> &'static str {
        "  avelas_cl_finish(polyc_cl);\n"
    }

    fn kernel_ms(&self) -> &'static str {
        "avelas_cl_kernel_ms(polyc_cl)"
    }
}

impl GpuApi for Cuda {
    fn target(&self) -> &'static str {
        "cuda"
    }

    fn open(&self) -> &'static str {
        "  avelas_cuda_open();\n"
    }

    fn events(&self) -> (String, String) {
        (
            "double polyc_kernel_ms = 0;\n\
             cudaEvent_t polyc_ev0, polyc_ev1;\n\
             POLYC_CUDA(cudaEventCreate(&polyc_ev0));\n\
             POLYC_CUDA(cudaEventCreate(&polyc_ev1));\n"
                .to_string(),
            "POLYC_CUDA(cudaEventDestroy(polyc_ev0));\n\
             POLYC_CUDA(cudaEventDestroy(polyc_ev1));\n"
                .to_string(),
        )
    }

    fn alloc(&self, dev: &str, bytes: &str) -> (String, String) {
        (
            format!("void *{dev} = 0;\nPOLYC_CUDA(cudaMalloc(&{dev}, {bytes}));\n"),
            format!("POLYC_CUDA(cudaFree({dev}));\n"),
        )
    }

    fn copy(&self, c: Transfer) -> String {
        let (Transfer { dev, host, .. }, (off, len)) = (c, c.range);
        let (dev, host) = (format!("{dev} + {off}"), format!("({host}) + {off}"));
        let (to, from, kind) = if c.to_device {
            (dev, host, "HostToDevice")
        } else {
            (host, dev, "DeviceToHost")
        };
        format!(
            "POLYC_CUDA(cudaMemcpy((char *){to}, (const char *){from}, {len}, cudaMemcpy{kind}));"
        )
    }

    fn kernel(
        &self,
        i: usize,
        name: &str,
        _source: &str,
        versions: usize,
    ) -> (String, String, String) {
        // Kernels are compiled with the program; a warp is 32 threads. A block may hold no more
        // threads than the registers each needs allow (`maxThreadsPerBlock`).
        let mut code = format!("int polyc_mwg{i} = avelas_cuda_max_threads();\n");
        for v in 0..=versions {
            for k in [version_name(name, v), batch_name(&version_name(name, v))] {
                let _ = writeln!(
                    code,
                    "{{ struct cudaFuncAttributes polyc_fa; POLYC_CUDA(cudaFuncGetAttributes(&polyc_fa, (const void *){k})); polyc_mwg{i} = (int)polyc_lmin(polyc_mwg{i}, polyc_fa.maxThreadsPerBlock); }}"
                );
            }
        }
        (code, format!("polyc_mwg{i}"), "32".to_string())
    }

    fn thread_bucket(&self, i: usize) -> String {
        format!(
            "long polyc_th_stride{i} = 0;\n\
             const void *polyc_th_off{i} = 0;\n\
             const void *polyc_th_coords{i} = avelas_cuda_thread_bucket(polyc_th{i}, &polyc_th_stride{i}, &polyc_th_off{i});\n"
        )
    }

    fn window(&self) -> &'static str {
        "avelas_cuda_local_mem()"
    }

    fn select(&self, i: usize, name: &str, _source: &str, versions: usize) -> String {
        if versions == 0 {
            return String::new();
        }
        // Beyond 48 KiB of dynamic shared memory a kernel must opt in.
        let cases: String = (1..=versions)
            .map(|v| {
                let set = |k: String| {
                    format!("POLYC_CUDA(cudaFuncSetAttribute({k}, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)polyc_lm{i}));")
                };
                let n = version_name(name, v);
                format!("  case {v}: {} {} break;\n", set(batch_name(&n)), set(n))
            })
            .collect();
        format!(
            "if (polyc_lm{i} > 48 * 1024) switch (polyc_v{i}) {{\n{cases}  default: break;\n}}\n"
        )
    }

    fn launch(
        &self,
        i: usize,
        name: &str,
        _source: &str,
        args: &[KernelArg],
        versions: usize,
    ) -> String {
        let runtime = |a: usize| match a {
            arg::TILES => "(const long *)polyc_dtb".to_string(),
            arg::TILE_COUNT => "polyc_n".into(),
            arg::TILE_STRIDE => "polyc_stride".into(),
            arg::THREAD_COORDS => format!("(const int *)polyc_th_coords{i}"),
            arg::THREAD_OFFSETS => format!("(const int *)polyc_th_off{i}"),
            arg::THREAD_STRIDE => format!("polyc_th_stride{i}"),
            arg::WAVES => format!("avelas_thread_bucket_waves(polyc_th{i})"),
            _ => unreachable!("the contract has {} run-time arguments", arg::COUNT),
        };
        let values = cuda_values(&runtime, args);
        let prelude = format!(
            "const long polyc_n = avelas_tile_bucket_size(polyc_tb{i});
long polyc_stride = 0;
const void *polyc_dtb = avelas_cuda_tile_bucket(polyc_tb{i}, &polyc_stride);
unsigned polyc_gx = 1, polyc_gy = 1;
avelas_cuda_grid(polyc_seq ? 1 : polyc_n, &polyc_gx, &polyc_gy);
"
        );
        cuda_timed(&prelude, &cuda_calls(i, name, &values, versions))
    }

    fn mix_kernel(&self, m: usize, name: &str) -> String {
        format!(
            "int polyc_mmt{m} = avelas_cuda_max_threads();\n\
             {{ struct cudaFuncAttributes polyc_fa; POLYC_CUDA(cudaFuncGetAttributes(&polyc_fa, (const void *){name})); polyc_mmt{m} = (int)polyc_lmin(polyc_mmt{m}, polyc_fa.maxThreadsPerBlock); }}\n"
        )
    }

    fn launch_mix(
        &self,
        m: usize,
        name: &str,
        _source: &str,
        args: &[KernelArg],
        serial: bool,
    ) -> String {
        let runtime = |a: usize| match a {
            arg::TILES => "(const long *)polyc_dmx".to_string(),
            arg::TILE_COUNT => "polyc_mr".into(),
            arg::THREAD_COORDS => "(const int *)polyc_mc".into(),
            arg::THREAD_OFFSETS => "(const int *)polyc_mo".into(),
            _ => "0".into(),
        };
        let prelude = format!(
            "long polyc_mr = 0;
const void *polyc_mc = 0, *polyc_mo = 0;
unsigned polyc_mt = 1;
const void *polyc_dmx = avelas_cuda_mix(polyc_mx{m}, {}, polyc_mmt{m}, &polyc_mr, &polyc_mc, &polyc_mo, &polyc_mt);
",
            i32::from(serial)
        );
        let call = format!(
            "  {name}<<<1, polyc_mt>>>({});",
            cuda_values(&runtime, args)
        );
        cuda_timed(&prelude, &call)
    }

    fn batch_tiles(&self) -> &'static str {
        "avelas_cuda_batch_tiles()"
    }

    fn finish(&self) -> &'static str {
        "  POLYC_CUDA(cudaDeviceSynchronize());\n"
    }

    fn kernel_ms(&self) -> &'static str {
        "polyc_kernel_ms"
    }
}

/// The name of the string holding the mix kernels of the SCoP whose kernels are in the OpenCL
/// source `source`: a program of their own, since a mix's groups launch no batch twins.
pub fn mix_source(source: &str) -> String {
    format!("{source}_mix")
}

/// The name of the string holding the batch twins of the kernels in the OpenCL source `source`.
pub fn batch_source(source: &str) -> String {
    format!("{source}_batch")
}

/// The statements that set an OpenCL kernel's (`polyc_kl`) own arguments `args`, after the
/// run-time's.
fn cl_args(args: &[KernelArg]) -> String {
    let mut s = String::new();
    for (j, a) in args.iter().enumerate() {
        let idx = arg::COUNT + j;
        let _ = match a {
            KernelArg::Param(n) => writeln!(
                s,
                "{{ const long polyc_v = (long)({}); avelas_cl_arg(polyc_kl, {idx}, &polyc_v, sizeof(long)); }}",
                user(n)
            ),
            KernelArg::TileSize(k) => writeln!(
                s,
                "avelas_cl_arg(polyc_kl, {idx}, &{}, sizeof(long));",
                size(*k)
            ),
            KernelArg::Array { name, .. } | KernelArg::WrittenScalar { name, .. } => {
                writeln!(s, "avelas_cl_arg_buffer(polyc_kl, {idx}, polyc_d_{name});")
            }
            KernelArg::Scalar { name, elem } => writeln!(
                s,
                "{{ const {elem} polyc_v = {}; avelas_cl_arg(polyc_kl, {idx}, &polyc_v, sizeof({elem})); }}",
                user(name)
            ),
        };
    }
    s
}

/// A CUDA kernel's arguments: the run-time's (`runtime` of each index), then its own `args`.
fn cuda_values(runtime: &dyn Fn(usize) -> String, args: &[KernelArg]) -> String {
    let mut values: Vec<String> = (0..arg::COUNT).map(runtime).collect();
    for a in args {
        values.push(match a {
            KernelArg::Param(n) => format!("(long)({})", user(n)),
            KernelArg::TileSize(k) => size(*k),
            KernelArg::Array { name, elem, .. } | KernelArg::WrittenScalar { name, elem } => {
                format!("({elem} *)polyc_d_{name}")
            }
            KernelArg::Scalar { name, .. } => user(name),
        });
    }
    values.join(", ")
}

/// A CUDA launch (`calls`, after `prelude`), timed with `POLYC_PROFILE=1`, and counted.
fn cuda_timed(prelude: &str, calls: &str) -> String {
    format!(
        r#"{{
{}  const int polyc_timed = {profile}();
  if (polyc_timed) POLYC_CUDA(cudaEventRecord(polyc_ev0, 0));
{calls}
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
        indent(prelude, 2),
        profile = AVELAS_FNS.profile
    )
}

/// The launch of the version of group `i`'s kernel `name` its buffer bucket chose, with
/// `polyc_lm<i>` bytes of dynamic shared memory.
fn cuda_calls(i: usize, name: &str, values: &str, versions: usize) -> String {
    let call = |v: usize| {
        let shared = if v == 0 {
            String::new()
        } else {
            format!(", (size_t)polyc_lm{i}")
        };
        let n = version_name(name, v);
        let launch = |k: &str| {
            format!("{k}<<<dim3(polyc_gx, polyc_gy), dim3((unsigned)avelas_thread_bucket_work_group(polyc_th{i})){shared}>>>({values});")
        };
        format!(
            "if (polyc_seq) {} else {}",
            launch(&batch_name(&n)),
            launch(&n)
        )
    };
    if versions == 0 {
        return format!("  {}", call(0));
    }
    let cases: Vec<String> = (0..=versions)
        .map(|v| {
            let label = if v == versions {
                "default".to_string()
            } else {
                format!("case {v}")
            };
            format!("  {label}: {} break;", call(v))
        })
        .collect();
    format!("  switch (polyc_v{i}) {{\n{}\n  }}", cases.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest work-group is every version's own limit (registers), not the device's: on
    /// an H200, gemm's staged versions at 32x32 threads failed with
    /// `cudaErrorLaunchOutOfResources` while the device allows 1024 threads.
    #[test]
    fn largest_work_group_is_the_least_of_every_versions() {
        let (code, max_wg, _) = Cuda.kernel(3, "polyc_k3", "", 2);
        assert_eq!(max_wg, "polyc_mwg3");
        for v in ["polyc_k3)", "polyc_k3_b1)", "polyc_k3_b2)"] {
            assert!(
                code.contains(&format!(
                    "cudaFuncGetAttributes(&polyc_fa, (const void *){v}"
                )),
                "{v} not queried:\n{code}"
            );
        }
        assert!(!code.contains("polyc_k3_b3"));
        let (code, max_wg, _) = OpenCl.kernel(1, "polyc_k1", "src", 1);
        assert_eq!(max_wg, "polyc_mwg1");
        assert!(code.contains("avelas_cl_kernel(polyc_cl, src, \"polyc_k1_b1\")"));
        assert!(code.contains("polyc_mwg1 = avelas_cl_max_work_group(polyc_k1)"));
        assert!(code.contains("const char *polyc_ksn1 = \"polyc_k1_seq\""));
    }
}
