//! `polyc --target cuda` run without a GPU: every kernel's generated CUDA, built with g++ for
//! polyc's CUDA emulator (`polybench::cuda_emu`: each block's threads as fibers, barriers,
//! warp shuffles, atomics, the runtime API; avelas-rt opening a stand-in driver), prints the
//! original program's array dumps at tile sizes of one, odd mixes, sizes larger than the
//! problem, every local-memory window that selects another kernel version, with and without
//! batches of wavefronts, and with the threads and blocks run in the opposite order. The
//! emulator also ends a program that breaks CUDA's rules its GPU would forgive (a barrier or a
//! shuffle some threads never reach, shared memory over the kernel's limit, a copy outside an
//! allocation); small programs of its own check that, and its portable fiber switch.
//! What it cannot show (speed, the memory model, lockstep warps) is `scripts/gpu-check.sh`'s,
//! on a GPU.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{check_kernels, runtime_ldflags, Variant};
use polybench::harness::{scratch_dir, Build};
use polybench::{cuda_emu, Kernel};

/// As `tests/opencl.rs`'s runs; the windows are those of a GPU's shared memory (48 KiB
/// without opting in, 227 KiB with).
const RUNS: &[&[(&str, &str)]] = &[
    &[("POLYC_TILE_SIZES", "1")],
    &[("POLYC_TILE_SIZES", "3,5,7"), ("POLYC_LOCAL_MEM", "0")],
    &[("POLYC_TILE_SIZES", "3,5,7"), ("POLYC_LOCAL_MEM", "2048")],
    &[
        ("POLYC_TILE_SIZES", "3,5,7"),
        ("POLYC_EMU_ORDER", "reverse"),
    ],
    &[("POLYC_TILE_SIZES", "32")],
    &[("POLYC_TILE_SIZES", "32"), ("POLYC_LOCAL_MEM", "2048")],
    &[
        ("POLYC_TILE_SIZES", "16,8,64"),
        ("POLYC_EMU_ORDER", "reverse"),
    ],
    &[("POLYC_TILE_SIZES", "1000")],
    &[
        ("POLYC_TILE_SIZES", "3,5,7"),
        ("POLYC_BATCH_TILES", "1000000"),
    ],
];

/// The CUDA variants with `runs`: the defaults (lane groups on) and without lane groups, at
/// -O0 (g++ takes 4x as long at -O2, adi: 16.6 s against 3.8 s, the test's main cost; the runs
/// take milliseconds either way).
fn variants(runs: &'static [&'static [(&'static str, &'static str)]]) -> Vec<Variant<'static>> {
    let variant = |name, polyc_flags| Variant {
        name,
        polyc_flags,
        openmp: false,
        cflags: &["-O0"],
        runs,
        ldflags: runtime_ldflags(),
    };
    vec![
        variant("cuda", &["--target", "cuda"]),
        variant(
            "cuda-nolanes",
            &["--target", "cuda", "--lane-groups", "off"],
        ),
    ]
}

/// The runs at SMALL: odd sizes with a small window, the default size, wide tiles in reverse.
const SMALL_RUNS: &[&[(&str, &str)]] = &[
    &[("POLYC_TILE_SIZES", "3,5,7"), ("POLYC_LOCAL_MEM", "2048")],
    &[],
    &[
        ("POLYC_TILE_SIZES", "16,8,64"),
        ("POLYC_EMU_ORDER", "reverse"),
    ],
];

/// The kernels CI runs at SMALL too: those whose CUDA has lane groups. `POLYC_SWEEP=1`
/// (`scripts/sweep.sh`) runs all of them.
const SMALL_SAMPLE: [&str; 4] = ["atax", "bicg", "gesummv", "gemver"];

/// Every kernel at MINI, the sample (or with `POLYC_SWEEP=1` all) at SMALL.
fn check_suite(kernels: &[Kernel], tag: &str) {
    check_kernels(kernels, &["MINI"], &variants(RUNS), &format!("{tag}-mini"));
    let small: Vec<Kernel> = kernels
        .iter()
        .filter(|k| common::sweep() || SMALL_SAMPLE.contains(&k.name.as_str()))
        .cloned()
        .collect();
    check_kernels(
        &small,
        &["SMALL"],
        &variants(SMALL_RUNS),
        &format!("{tag}-small"),
    );
}

#[test]
fn bundled_suite_emulated_cuda_matches_original() {
    if !polybench::cuda_emu::available() {
        println!("skipped: no C++ compiler to build the CUDA emulator's programs (g++)");
        return;
    }
    let kernels = polybench::kernels();
    let sampled = kernels
        .iter()
        .filter(|k| SMALL_SAMPLE.contains(&k.name.as_str()));
    assert_eq!(
        sampled.count(),
        SMALL_SAMPLE.len(),
        "the sample names suite kernels"
    );
    check_suite(&kernels, "cuda-emulated-suite");
}

#[test]
fn external_polybench_emulated_cuda_matches_original() {
    let Some(root) = polybench::external_suite() else {
        println!("skipped: set POLYBENCH_DIR to a PolyBench/C 4.2.1 checkout to run this test");
        return;
    };
    if !polybench::cuda_emu::available() {
        println!("skipped: no C++ compiler to build the CUDA emulator's programs (g++)");
        return;
    }
    check_suite(
        &polybench::kernels_in(&root).unwrap(),
        "cuda-emulated-external",
    );
}

/// The emulator's x86-64 fiber switch and its portable ucontext fallback run the same
/// programs the same way: atax (warp shuffles) and jacobi-2d (barriers, shared memory).
#[test]
fn ucontext_fallback_prints_the_same_dumps() {
    if !polybench::cuda_emu::available() {
        println!("skipped: no C++ compiler to build the CUDA emulator's programs (g++)");
        return;
    }
    let kernels: Vec<Kernel> = ["atax", "jacobi-2d"]
        .iter()
        .map(|n| polybench::kernel(n).unwrap())
        .collect();
    let ucontext = Variant {
        name: "cuda-ucontext",
        polyc_flags: &["--target", "cuda"],
        openmp: false,
        cflags: &["-O0", "-DPOLYC_EMU_UCONTEXT"],
        runs: &[
            &[("POLYC_TILE_SIZES", "3,5,7")],
            &[("POLYC_TILE_SIZES", "32")],
        ],
        ldflags: runtime_ldflags(),
    };
    check_kernels(&kernels, &["MINI"], &[ucontext], "cuda-emulated-ucontext");
}

/// A small CUDA program for the emulator's own checks: `body` is `main`'s.
fn emulated(work: &Path, name: &str, kernels: &str, body: &str) -> std::process::Output {
    emulated_with(work, name, kernels, body, &[])
}

/// [`emulated`] run in the environment `env`.
fn emulated_with(
    work: &Path,
    name: &str,
    kernels: &str,
    body: &str,
    env: &[(&str, &str)],
) -> std::process::Output {
    let cu = work.join(format!("{name}.cu"));
    let text =
        format!("#include <stdio.h>\n{kernels}\nint main(void) {{\n{body}\n  return 0;\n}}\n");
    std::fs::write(&cu, text).unwrap();
    let exe = work.join(name);
    cuda_emu::compile(&cu, &["-O0".into()], &[], &[], &exe).unwrap();
    std::process::Command::new(&exe)
        .envs(env.iter().copied())
        .output()
        .unwrap()
}

/// That `o` ended with the emulator's status 3 and `message` on stderr.
fn assert_refused(o: &std::process::Output, message: &str) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(3), "{err}");
    assert!(err.contains(message), "{err}");
}

const SUM_KERNEL: &str = r#"
__global__ void sum(const int *in, int *out) {
  int v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
  if (threadIdx.x % 32 == 0) atomicAdd(out, v);
}"#;

/// What the emulator computes and what it refuses: a warp-shuffle sum of 0..255 over two
/// blocks of four warps; a barrier after a thread has exited; a shuffle on a warp of 16
/// threads; dynamic shared memory over 48 KiB without opting in (the launch fails, as on a
/// GPU); a copy outside the allocation.
#[test]
fn the_emulator_runs_cuda_and_refuses_what_cuda_leaves_undefined() {
    if !polybench::cuda_emu::available() {
        println!("skipped: no C++ compiler to build the CUDA emulator's programs (g++)");
        return;
    }
    let work = scratch_dir("cuda-emulator-rules");
    let setup = r#"
  int h[256], s = 0, *in, *out;
  for (int i = 0; i < 256; i++) h[i] = i;
  cudaMalloc((void **)&in, sizeof h);
  cudaMalloc((void **)&out, sizeof s);
  cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice);
  cudaMemcpy(out, &s, sizeof s, cudaMemcpyHostToDevice);"#;
    let o = emulated(
        &work,
        "sum",
        SUM_KERNEL,
        &format!(
            "{setup}\n  sum<<<2, 128>>>(in, out);\n  printf(\"%s\\n\", cudaGetErrorName(cudaGetLastError()));\n  cudaMemcpy(&s, out, sizeof s, cudaMemcpyDeviceToHost);\n  printf(\"%d\\n\", s);"
        ),
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), "cudaSuccess\n32640\n");

    let o = emulated(
        &work,
        "exited",
        "__global__ void k(int *p) { if (threadIdx.x == 3) return; __syncthreads(); p[threadIdx.x] = 1; }",
        "  int *p; cudaMalloc((void **)&p, 64 * sizeof(int)); k<<<1, 64>>>(p);",
    );
    assert_refused(&o, "63 threads reached __syncthreads after 1 others");

    let o = emulated(
        &work,
        "narrow",
        SUM_KERNEL,
        &format!("{setup}\n  sum<<<1, 16>>>(in, out);"),
    );
    assert_refused(&o, "on a warp of 16 threads");

    let o = emulated(
        &work,
        "shared",
        "__global__ void k(int *p) { extern __shared__ __align__(16) unsigned char b[]; b[0] = 1; p[0] = b[0]; }",
        "  int *p; cudaMalloc((void **)&p, sizeof(int));\n  k<<<1, 32, 64 * 1024>>>(p);\n  printf(\"%s\\n\", cudaGetErrorName(cudaGetLastError()));\n  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 * 1024);\n  k<<<1, 32, 64 * 1024>>>(p);\n  printf(\"%s\\n\", cudaGetErrorName(cudaGetLastError()));",
    );
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        "cudaErrorInvalidValue\ncudaSuccess\n"
    );

    let o = emulated(
        &work,
        "copy",
        "",
        "  int h[8] = {0}, *d; cudaMalloc((void **)&d, 4 * sizeof(int));\n  cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);",
    );
    assert_refused(&o, "outside every cudaMalloc'd allocation");
}

/// The memory trace (`POLYC_EMU_TRACE=1`) counts what a GPU's memory would serve: 64 threads
/// (two warps) reading neighbouring doubles make two requests of 8 sectors each, every byte
/// used; reading every fourth double (one sector per lane), 32 sectors a request, a quarter
/// of each used; all lanes reading one double, one sector a request, and one for the launch.
#[test]
fn the_memory_trace_counts_the_sectors_of_each_warp_request() {
    if !cuda_emu::available() {
        println!("skipped: no C++ compiler to build the CUDA emulator's programs (g++)");
        return;
    }
    let work = scratch_dir("cuda-emulator-trace");
    let kernels = r#"
__global__ void along(const double *__restrict__ a, double *__restrict__ b) {
  b[threadIdx.x] = a[threadIdx.x];
}
__global__ void across(const double *__restrict__ a, double *__restrict__ b) {
  b[threadIdx.x] = a[4 * threadIdx.x];
}
__global__ void one(const double *__restrict__ a, double *__restrict__ b) {
  b[threadIdx.x] = a[0];
}"#;
    let body = "  double *a, *b;\n  cudaMalloc((void **)&a, 256 * sizeof(double));\n  cudaMalloc((void **)&b, 64 * sizeof(double));\n  along<<<1, 64>>>(a, b);\n  across<<<1, 64>>>(a, b);\n  one<<<1, 64>>>(a, b);";
    let o = emulated_with(&work, "trace", kernels, body, &[("POLYC_EMU_TRACE", "1")]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let t = cuda_emu::traffic(&err);
    let of = |k: &str, a: &str| {
        let t = t[&(k.to_string(), a.to_string())];
        (
            t.launches,
            t.requests,
            t.sectors,
            t.bytes,
            t.distinct_sectors,
        )
    };
    assert_eq!(of("along", "a"), (1, 2, 16, 512, 16), "{err}");
    assert_eq!(of("along", "b"), (1, 2, 16, 512, 16), "{err}");
    assert_eq!(of("across", "a"), (1, 2, 64, 512, 64), "{err}");
    assert_eq!(of("one", "a"), (1, 2, 2, 16, 1), "{err}");
    assert_eq!(t.len(), 6, "{err}");
    assert!(
        err.contains("polyc-cuda-emu: trace total requests=12 sectors=130"),
        "{err}"
    );
}

/// Kernel `name` at SMALL compiled with polyc's `flags` for CUDA and run on the emulator in
/// the environment `env` with the memory trace on: its traffic per array.
fn traced(name: &str, flags: &[&str], env: &[(&str, &str)]) -> BTreeMap<String, cuda_emu::Traffic> {
    let work = scratch_dir(&format!("cuda-emulated-trace-{name}"));
    let k = polybench::kernel(name).unwrap();
    let mut build = Build::new("SMALL", false);
    build.ldflags = runtime_ldflags();
    let cu = work.join(format!("{name}.cu"));
    let flags: Vec<&str> = ["--target", "cuda"].iter().chain(flags).copied().collect();
    common::polyc_kernel(&k, &build, &flags, &cu).unwrap();
    let env: Vec<(String, String)> = env
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let traced = cuda_emu::trace_kernel(&k, &cu, &build, &env, &work)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    cuda_emu::per_array(&traced)
}

/// Work-items next to each other read neighbouring elements of the matrices: at most 8
/// sectors per request of doubles, on average over every kernel of the program. gemver's
/// update `A[i][j] += u1[i] * v1[j] + ...` had its `j` loop inside one work-item (the band
/// is sequential along `j` for the other statements' sums), 30 sectors a request, until the
/// GPU mapping looked at each group's own dependences (`ptile::intra::gpu_order`). And the
/// trace sees the opposite: atax's rows, one per work-item without lane groups and without
/// local memory to stage them, cost more than 16 sectors a request; so do gemver's rows with
/// `--lane-groups off`, which keeps the band's parallelism as OpenCL does by default.
#[test]
fn neighbouring_work_items_read_neighbouring_matrix_elements() {
    if !cuda_emu::available() {
        println!("skipped: no C++ compiler to build the CUDA emulator's programs (g++)");
        return;
    }
    for (name, matrices) in [
        ("gemver", &["A"][..]),
        ("atax", &["A"]),
        ("bicg", &["A"]),
        ("mvt", &["A"]),
        ("gesummv", &["A", "B"]),
        ("syr2k", &["A", "B", "C"]),
    ] {
        let t = traced(name, &[], &[]);
        for m in matrices {
            let per = t[*m].sectors_per_request();
            assert!(
                per <= 8.0,
                "{name}: {m}: {per:.2} sectors per request: {t:?}"
            );
        }
    }
    let t = traced(
        "atax",
        &["--lane-groups", "off"],
        &[("POLYC_LOCAL_MEM", "0")],
    );
    let per = t["A"].sectors_per_request();
    assert!(
        per > 16.0,
        "atax without lanes and local memory: {per:.2} sectors per request"
    );
    // `--lane-groups off` (OpenCL's default, for PoCL) also keeps the band's parallelism:
    // gemver's update runs one work-item per row again.
    let t = traced("gemver", &["--lane-groups", "off"], &[]);
    let per = t["A"].sectors_per_request();
    assert!(
        per > 16.0,
        "gemver with --lane-groups off: {per:.2} sectors per request"
    );
}
