//! How the CUDA target's kernels would use a GPU's memory, measured without a GPU: each kernel
//! of the suite is compiled by polyc for CUDA, built for polyc's CUDA emulator and run there
//! with its memory trace on (`POLYC_EMU_TRACE=1`, see `cuda-emu/polyc_cuda_emu.h`), and the
//! trace is summed per kernel into a Markdown table: warp requests to the program's arrays,
//! the 32-byte sectors they touch, the share of those bytes the lanes use, and the traffic
//! with no cache (every sector of every request) and with a cache as large as the data (the
//! distinct sectors of each launch). Coalesced code reads 8 sectors per request of doubles, all
//! of their bytes used; a warp reading one matrix row per lane reads 32, a quarter used.
//!
//!     cargo run --release -p polybench --example memory_trace -- \
//!         [--polyc target/release/polyc] [--dataset SMALL] [--kernels atax,bicg] \
//!         [--flag=--lane-groups --flag=off] [--env POLYC_TILE_SIZES=32] [--detail] [--out FILE]
//!
//! `--detail` adds a table per program: each GPU kernel function and array.
//!
//! The counts are of what the code asks of memory, not of time: latency, occupancy, caches
//! between the two bounds and launch costs need a GPU (`scripts/gpu-check.sh`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use polybench::cuda_emu::{self, KernelArray, Traffic};
use polybench::harness::{self, Build};
use polybench::Kernel;

struct Options {
    polyc: PathBuf,
    dataset: String,
    kernels: Option<Vec<String>>,
    flags: Vec<String>,
    env: Vec<(String, String)>,
    detail: bool,
    out: Option<PathBuf>,
}

fn options() -> Options {
    let mut o = Options {
        polyc: PathBuf::from("target/release/polyc"),
        dataset: "SMALL".into(),
        kernels: None,
        flags: Vec::new(),
        env: Vec::new(),
        detail: false,
        out: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--detail" {
            o.detail = true;
            continue;
        }
        if let Some(f) = arg.strip_prefix("--flag=") {
            o.flags.push(f.to_string());
            continue;
        }
        let value = args.next().unwrap_or_else(|| usage(&arg));
        match arg.as_str() {
            "--polyc" => o.polyc = PathBuf::from(value),
            "--dataset" => o.dataset = value,
            "--kernels" => o.kernels = Some(value.split(',').map(String::from).collect()),
            "--out" => o.out = Some(PathBuf::from(value)),
            "--env" => match value.split_once('=') {
                Some((k, v)) => o.env.push((k.into(), v.into())),
                None => usage(&value),
            },
            _ => usage(&arg),
        }
    }
    o
}

fn usage(flag: &str) -> ! {
    eprintln!("memory_trace: bad argument near '{flag}'\nusage: memory_trace [--polyc PATH] [--dataset MINI|SMALL|MEDIUM] [--kernels a,b] [--flag=POLYC_FLAG]... [--env VAR=VALUE]... [--detail] [--out FILE]");
    std::process::exit(2)
}

type Traced = BTreeMap<KernelArray, Traffic>;

/// Compile `k` with polyc for CUDA, build it for the emulator and run it with the trace on.
fn trace(o: &Options, k: &Kernel, work: &Path) -> Result<Traced, String> {
    let dir = work.join(&k.name);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let cu = dir.join(format!("{}.cu", k.name));
    let mut build = Build::new(&o.dataset, false);
    let out = Command::new(&o.polyc)
        .args(build.cpp_flags(k))
        .args(["--target", "cuda"])
        .args(&o.flags)
        .arg(&k.source)
        .arg("-o")
        .arg(&cu)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", o.polyc.display()))?;
    if !out.status.success() {
        return Err(format!(
            "polyc: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    let libs = Command::new(&o.polyc)
        .args(["--print-libs", "--target", "cuda"])
        .output()
        .map_err(|e| e.to_string())?;
    build.ldflags = String::from_utf8_lossy(&libs.stdout)
        .split_whitespace()
        .map(String::from)
        .collect();
    cuda_emu::trace_kernel(k, &cu, &build, &o.env, work)
}

fn mb(sectors: u64) -> f64 {
    sectors as f64 * 32.0 / 1e6
}

/// A table row of kernel `name`: its total, and the array with the most sectors.
fn row(name: &str, traced: &Traced) -> String {
    let mut total = Traffic::default();
    traced.values().for_each(|t| total.add(t));
    let arrays = cuda_emu::per_array(traced);
    let worst = arrays
        .iter()
        .max_by_key(|(_, t)| t.sectors)
        .map(|(a, t)| {
            format!(
                "{a}: {:.2}, {:.0} %, {:.2} MB",
                t.sectors_per_request(),
                t.used_percent(),
                mb(t.sectors)
            )
        })
        .unwrap_or_else(|| "(no array access on the GPU)".into());
    format!(
        "| {name} | {} | {:.2} | {:.0} % | {:.2} | {:.2} | {worst} |",
        total.requests,
        total.sectors_per_request(),
        total.used_percent(),
        mb(total.sectors),
        mb(total.distinct_sectors),
    )
}

/// The table of `name`'s kernel functions and arrays.
fn detail(name: &str, traced: &Traced) -> String {
    let mut text = format!(
        "\n## {name}\n\n| kernel function | array | launches | requests | sectors per request | bytes used | MB, no cache | MB, data-sized cache |\n|---|---|---|---|---|---|---|---|\n"
    );
    for ((function, array), t) in traced {
        text += &format!(
            "| {function} | {array} | {} | {} | {:.2} | {:.0} % | {:.3} | {:.3} |\n",
            t.launches,
            t.requests,
            t.sectors_per_request(),
            t.used_percent(),
            mb(t.sectors),
            mb(t.distinct_sectors)
        );
    }
    text
}

fn main() {
    let o = options();
    let kernels: Vec<Kernel> = match &o.kernels {
        None => polybench::kernels(),
        Some(names) => names
            .iter()
            .map(|n| polybench::kernel(n).unwrap_or_else(|| usage(n)))
            .collect(),
    };
    if !cuda_emu::available() {
        eprintln!("memory_trace: no C++ compiler for the CUDA emulator");
        std::process::exit(1);
    }
    let work = harness::scratch_dir("memory-trace");
    let start = Instant::now();
    let results = harness::par_map(&kernels, |k| (k.name.clone(), trace(&o, k, &work)));
    let mut text = format!(
        "# Memory trace of the CUDA target on polyc's CUDA emulator\n\n\
         Dataset {}, polyc flags `{}`, environment `{}`, {} kernels, {:.0} s.\n\n\
         | kernel | requests | sectors per request | bytes used | MB, no cache | MB, data-sized cache | array with most sectors: sectors per request, bytes used, MB |\n\
         |---|---|---|---|---|---|---|\n",
        o.dataset,
        o.flags.join(" "),
        o.env
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
        kernels.len(),
        start.elapsed().as_secs_f64()
    );
    let mut failed = 0;
    for (name, r) in &results {
        match r {
            Ok(traced) => text += &(row(name, traced) + "\n"),
            Err(e) => {
                failed += 1;
                text += &format!("| {name} | failed: {} |\n", e.lines().next().unwrap_or(""));
            }
        }
    }
    if o.detail {
        for (name, r) in &results {
            if let Ok(traced) = r {
                text += &detail(name, traced);
            }
        }
    }
    print!("{text}");
    if let Some(out) = &o.out {
        std::fs::write(out, &text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", out.display()));
    }
    std::process::exit(i32::from(failed > 0));
}
