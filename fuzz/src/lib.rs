//! polyc's fuzz targets: what each one feeds polyc, and what must hold for every input.
//!
//! Each target is a function from bytes to `()` that panics when polyc misbehaves; a panic
//! inside polyc is a finding by itself (bad input must give a diagnostic, never a panic).
//! `fuzz_targets/` wraps them for libFuzzer (`scripts/fuzz.sh`, nightly); `tests/replay.rs`
//! runs the same functions on stable over the regression inputs in `tests/inputs/fuzz` and a
//! fixed sample of mutated suite kernels, so CI checks the findings stay fixed.
//!
//! * [`syntax`]: C text in, syntax-level diagnostics or SCoP regions and their FlowGraphs out
//!   (no isl: the fast half of the front end).
//! * [`front_end`]: C text in, diagnostics or models out (parsing, SCoP detection under both
//!   detections, model extraction, dependence analysis).
//! * [`config_values`]: the `POLYC_*` value parsers and the tuning-file parser of
//!   avelas-contract, with their invariants.
//! * [`whole_compiler`]: a program of the random affine generator, drawn from the input bytes,
//!   through every stage to C+OpenMP, OpenCL and CUDA text.

pub mod mutate;

use avelas_contract::config::{self, Config, MAX_TILE_SIZE, MAX_TILE_SIZES};
use avelas_contract::tuning::{self, TuningFile};
use codegen::{CompileOptions, Target};
use polybench::random::{self, Features};
use rosepolly::compilation::{build_models, build_models_with, Detection, SourceUnit};
use rosepolly::compilation::{regions, DefaultCustom, RosePollyCustom};
use rosepolly::diag::Diagnostics;
use rosepolly::math::isl::Ctx;
use rosepolly::model::flow::FlowGraph;
use std::path::Path;

/// Inputs longer than this are cut: the front end's cost grows with the text, and libFuzzer
/// finds the same paths in short inputs faster. polyc's own bound on inputs is elsewhere.
pub const MAX_INPUT: usize = 16 * 1024;

/// The file name diagnostics carry.
const FILE: &str = "fuzz.c";

/// The front end on `data` as preprocessed C (the text `cpp` would give polyc: line markers
/// included, which the line map reads). Bytes that are not UTF-8 are replaced, as polyc's own
/// reader refuses such files before this point.
pub fn front_end(data: &[u8]) {
    let text = String::from_utf8_lossy(&data[..data.len().min(MAX_INPUT)]).into_owned();
    let src = match SourceUnit::from_preprocessed(Path::new(FILE), text) {
        Ok(src) => src,
        Err(d) => return check_diagnostics(&d),
    };
    // Dependence analysis and scalar expansion cost 50–200 ms on a suite kernel, the rest of
    // the front end about 1 ms: one input in 32 (by length) gets them, the others the
    // model without them, so that the parser and extraction see thousands of inputs a second.
    let full = data.len().is_multiple_of(32);
    for detection in [Detection::Pragmas, Detection::Automatic] {
        let ctx = Ctx::new();
        let mut policy = Policy {
            full,
            inner: DefaultCustom::default(),
        };
        match build_models_with(&ctx, &src, detection, &mut policy) {
            Ok(scops) => {
                for scop in &scops {
                    // Every statement the model holds has a domain isl can print.
                    for s in &scop.statements {
                        assert!(!s.domain.to_string().is_empty());
                    }
                }
            }
            Err(d) => check_diagnostics(&d),
        }
    }
}

/// The system headers the suite includes; [`suite_seeds`] gives them empty.
const SYSTEM_HEADERS: &[&str] = &[
    "math.h", "stdio.h", "stdlib.h", "string.h", "time.h", "unistd.h",
];

/// The suite's kernels as the front end receives them (`cc -E` at MINI, line markers kept):
/// the seeds of [`front_end`]'s corpus. Only the kernel function is kept, and the system
/// headers are left empty (`-nostdinc` and empty files): with glibc's, a seed is 30–60 KB of
/// declarations that every run parses again (140 runs a second instead of thousands), and
/// none of them is in a SCoP. A kernel the C compiler cannot preprocess is left out.
pub fn suite_seeds() -> Vec<(String, Vec<u8>)> {
    // One directory per call: tests call this from several threads.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let stubs =
        std::env::temp_dir().join(format!("polyc-fuzz-headers-{}-{call}", std::process::id()));
    std::fs::create_dir_all(&stubs).expect("the temporary directory is writable");
    for h in SYSTEM_HEADERS {
        std::fs::write(stubs.join(h), "").expect("the temporary directory is writable");
    }
    let seeds = polybench::kernels()
        .into_iter()
        .filter_map(|k| {
            let dir = k.source.parent()?.to_path_buf();
            let out = std::process::Command::new(polybench::harness::cc())
                .args(["-E", "-nostdinc", "-DMINI_DATASET", "-I"])
                .arg(&stubs)
                .arg("-I")
                .arg(polybench::utilities_of(&k))
                .arg("-I")
                .arg(dir)
                .arg(&k.source)
                .output()
                .ok()?;
            // The same seeds on every machine and run: no temporary or checkout paths.
            let text = String::from_utf8(out.stdout)
                .ok()?
                .replace(&stubs.display().to_string(), "/usr/include")
                .replace(&polybench::suite_dir().display().to_string(), "suite");
            (out.status.success()).then(|| (k.name.clone(), kernel_function(&k.name, &text)))
        })
        .collect();
    let _ = std::fs::remove_dir_all(&stubs);
    seeds
}

/// The syntactic half of [`front_end`], without isl: parsing and line markers, both SCoP
/// detections and each region's FlowGraph. About a hundred times faster than [`front_end`],
/// so the parser sees millions of inputs in a run.
pub fn syntax(data: &[u8]) {
    let text = String::from_utf8_lossy(&data[..data.len().min(MAX_INPUT)]).into_owned();
    let src = match SourceUnit::from_preprocessed(Path::new(FILE), text) {
        Ok(src) => src,
        Err(d) => return check_diagnostics(&d),
    };
    let marked = regions::marked(&src).unwrap_or_else(|d| {
        check_diagnostics(&d);
        Vec::new()
    });
    let automatic = regions::automatic(&src, &mut DefaultCustom::default());
    for r in marked.iter().chain(&automatic) {
        if let Err(d) = FlowGraph::build(&src, &r.items) {
            check_diagnostics(&d);
        }
    }
}

/// polyc's rules, with the costly analyses on or off.
struct Policy {
    full: bool,
    inner: DefaultCustom,
}

impl RosePollyCustom for Policy {
    fn add_params(&mut self, params: &[String]) {
        self.inner.add_params(params)
    }

    fn expand_scalars(&self) -> bool {
        self.full
    }

    fn analyse_dependences(&self) -> bool {
        self.full
    }
}

/// The kernel's own function of a preprocessed kernel file, behind the file's line markers
/// (`main` and the declarations before it are cut: the parser's cost grows with the text and
/// they hold no SCoP); the whole text if the function is not found.
fn kernel_function(name: &str, text: &str) -> Vec<u8> {
    let def = format!("kernel_{}(", name.replace('-', "_"));
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let start = lines.iter().position(|l| l.contains(&def));
    let end = lines.iter().position(|l| l.starts_with("int main("));
    match (start, end) {
        (Some(s), Some(e)) if s < e => {
            let markers = lines[..s].iter().filter(|l| l.starts_with("# "));
            markers
                .chain(&lines[s..e])
                .copied()
                .collect::<String>()
                .into_bytes()
        }
        _ => text.as_bytes().to_vec(),
    }
}

/// A failure must say something, somewhere.
fn check_diagnostics(d: &Diagnostics) {
    assert!(!d.is_empty(), "an error without a diagnostic");
    for diag in &d.0 {
        assert!(
            !diag.message.trim().is_empty(),
            "an empty diagnostic at {}",
            diag.loc
        );
        assert!(
            !diag.loc.file.is_empty(),
            "a diagnostic without a file: {}",
            diag.message
        );
    }
}

/// The `POLYC_*` variables' parsers and the tuning file's. The input's lines are the values
/// of [`config::VARIABLES`] in order (a missing line: unset); the whole input is also read as
/// a tuning file, behind the header when its first byte is even (else as it is, which mostly
/// tests the header check).
pub fn config_values(data: &[u8]) {
    let text = String::from_utf8_lossy(&data[..data.len().min(MAX_INPUT)]).into_owned();
    let values: Vec<&str> = text.split('\n').collect();
    let get = |name: &str| {
        let i = config::VARIABLES.iter().position(|v| *v == name)?;
        values.get(i).map(|v| v.to_string())
    };
    if let Ok(c) = Config::from_vars(get) {
        check_config(&c);
    }
    let tuning_text = match data.split_first() {
        Some((b, rest)) if b % 2 == 0 => {
            let rest = &rest[..rest.len().min(MAX_INPUT)];
            format!("{}\n{}", tuning::HEADER, String::from_utf8_lossy(rest))
        }
        _ => text.clone(),
    };
    if let Ok(file) = TuningFile::parse(&tuning_text) {
        // What polyc writes it reads back as the same entries.
        let again = TuningFile::parse(&file.render(&["replayed".into()]));
        assert_eq!(
            again.as_ref(),
            Ok(&file),
            "a rendered tuning file reads back differently"
        );
    }
}

/// Seeds of [`config_values`]: valid and malformed values of each variable, and tuning files
/// (an even first byte puts the header in front).
pub const CONFIG_SEEDS: &[&str] = &[
    "16,32,32\n1000\n1\n0\n0\n49152",
    "0:8,8;1:4;2,2\n-1\n\n1\nopencl:0\n0",
    "1:;2\n99999999999999999999\n2\nyes\ncuda\n-5",
    "1000000000,1\n0\n0\n0\n\n",
    "Hprogram=k.c scop=0 id=0 target=c device=openmp-2 params=n=10 sizes=8,8\n",
    "Hprogram=k.c scop=1 id=0 target=opencl device=x params= sizes=untiled local_mem=0\n# c\n",
    "Xpolyc-tuning 1\nprogram=a scop=0 sizes=1\nprogram=a scop=0 sizes=2\n",
];

/// Every size a valid configuration gives is a tile size a program can use.
fn check_config(c: &Config) {
    for scop in [0, 1, 7, 100] {
        if let Some(sizes) = c.sizes_of(scop) {
            assert!(sizes.len() <= MAX_TILE_SIZES);
        }
        for k in 0..MAX_TILE_SIZES + 2 {
            let t = c.tile_size(scop, k);
            assert!((1..=MAX_TILE_SIZE).contains(&t), "tile size {t}");
        }
    }
}

/// A random affine program (strides, min/max bounds, conditions, reductions as the input's
/// bits choose) through the whole compiler, for the three targets, tiled and not.
pub fn whole_compiler(data: &[u8]) {
    let mut seed = [0u8; 8];
    let n = data.len().min(8);
    seed[..n].copy_from_slice(&data[..n]);
    let bits = data.get(8).copied().unwrap_or(0);
    let features = Features {
        strides: bits & 1 != 0,
        min_max: bits & 2 != 0,
        conditions: bits & 4 != 0,
        temporaries: bits & 8 != 0,
    };
    // The text the front end receives is what cpp would give: no comment, and the one
    // definition the generator's `#include <stddef.h>` is there for.
    let text: String = random::program_with(u64::from_le_bytes(seed), features)
        .replace("#include <stddef.h>", "typedef unsigned long size_t;")
        .lines()
        .filter(|l| !l.starts_with("/*"))
        .map(|l| format!("{l}\n"))
        .collect();
    // The code generators splice into the original file, which they read again.
    let file = std::env::temp_dir().join(format!("polyc-fuzz-{}.c", std::process::id()));
    std::fs::write(&file, &text).expect("the temporary directory is writable");
    let src = SourceUnit::from_preprocessed(&file, text.clone())
        .unwrap_or_else(|d| panic!("a generated program does not parse: {d:?}\n{text}"));
    let ctx = Ctx::new();
    let scops = build_models(&ctx, &src, Detection::Pragmas)
        .unwrap_or_else(|d| panic!("a generated program has no model: {d:?}\n{text}"));
    let targets = [Target::C, Target::OpenCl, Target::Cuda];
    let target = targets[(bits >> 3) as usize % targets.len()];
    let untiled_too = target == Target::C && bits & 0x40 != 0;
    for tile in [true, false].into_iter().take(1 + untiled_too as usize) {
        let opts = CompileOptions {
            target,
            tile,
            fixed_tile_sizes: (bits & 0x80 != 0 && target == Target::C).then(|| vec![3, 5, 7]),
            ..CompileOptions::default()
        };
        match codegen::compile(&ctx, &src, &scops, &opts) {
            Ok(out) => assert!(out.text.contains("kernel("), "the kernel went missing"),
            Err(d) => panic!("a generated program fails to compile: {d:?}\n{text}"),
        }
    }
}
