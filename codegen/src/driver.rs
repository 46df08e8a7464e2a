//! From models to the generated file: schedule each SCoP, run its pipeline ([`crate::pipeline`]),
//! splice the results into the user's file.

use rosepolly::compilation::SourceUnit;
use rosepolly::diag::{Diagnostic, Diagnostics, Fallback, Loc, Phase};
use rosepolly::math::isl::Ctx;
use rosepolly::model::Scop;

use crate::c;
use crate::degraded::ScopFallbacks;
use crate::device::{self, Dialect};
use crate::exits;
use crate::fallback;
use crate::footprint;
use crate::gpu_host::CUDA_CHECK;
use crate::names::{self, Namespace};
use crate::outline;
use crate::pipeline::ScopJob;
use crate::splice::{self, Region};

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    C,
    OpenCl,
    Cuda,
}

/// Options of a compilation.
#[derive(Debug, Clone)]
pub struct CompileOptions {
    pub target: Target,
    /// Tile the bands (parametric tiling); `false` for `--no-tile`.
    pub tile: bool,
    pub pluto: pluto::PlutoOptions,
    /// Insert one-time loops (thesis §6.2.1, step 4).
    pub otl: bool,
    /// Emit OpenMP pragmas for the C target.
    pub openmp: bool,
    /// Tile sizes as compile-time constants (`--fixed-tile-sizes`), to measure what run-time
    /// sizes cost; `None`: sizes are read when the program runs.
    pub fixed_tile_sizes: Option<Vec<i64>>,
    /// GPU targets: run every tile by intra-tile wavefronts (`--intra-wavefront`).
    pub intra_wavefront: bool,
    /// GPU targets: run the tiles along a sum's loop in parallel, adding partial results
    /// atomically; `false` for `--no-reductions` (the original order of the additions).
    pub reductions: bool,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            target: Target::C,
            tile: true,
            pluto: pluto::PlutoOptions::default(),
            otl: false,
            openmp: true,
            fixed_tile_sizes: None,
            intra_wavefront: false,
            reductions: true,
        }
    }
}

/// The generated file, and what the user should know about it.
pub struct Output {
    pub text: String,
    pub warnings: Vec<Diagnostic>,
    /// Per SCoP, where the compilation did less than it could (`--dump fallbacks`).
    pub fallbacks: Vec<ScopFallbacks>,
}

/// Generate the transformed file.
pub fn compile(
    ctx: &Ctx,
    src: &SourceUnit,
    scops: &[Scop],
    opts: &CompileOptions,
) -> Result<Output, Diagnostics> {
    let main = src.main_file().to_string();
    let gpu = match opts.target {
        Target::C => None,
        Target::OpenCl => Some(Dialect::OpenCl),
        Target::Cuda => Some(Dialect::Cuda),
    };
    if gpu.is_some() && !opts.tile {
        return Err(Diagnostics::one(Diagnostic::new(
            Loc::new(&main, 0, None),
            "--no-tile applies to the C target only: OpenCL and CUDA kernels run tiles",
        )));
    }
    let prefix = iterator_prefix(src);
    let program = src
        .path
        .file_name()
        .map_or_else(|| main.clone(), |n| n.to_string_lossy().into_owned());
    let namespace = Namespace::choose(src);
    if let (Some(_), Some(clash)) = (gpu, names::runtime_conflict(src)) {
        return Err(Diagnostics::one(clash));
    }
    let original = std::fs::read_to_string(&src.path).map_err(|e| {
        Diagnostics::one(Diagnostic::new(
            Loc::new(&main, 0, None),
            format!("cannot read the input again: {e}"),
        ))
    })?;
    let mut regions = Vec::new();
    let mut warnings = Vec::new();
    let mut fallbacks = Vec::new();
    let mut kernels = String::new();
    let mut host_fallback = false;
    let mut needs_spans = false;
    // `polyc_alloc`, for expanded scalars in `--no-tile` code.
    let mut needs_alloc = false;
    for scop in scops {
        if scop.region.start.file != main {
            return Err(Diagnostics::one(Diagnostic::new(
                scop.region.start.clone(),
                "this SCoP is in an included file; polyc rewrites only the file it compiles",
            )));
        }
        if let Some(why) = gpu.and_then(|_| device::unsupported(ctx, scop)) {
            return Err(Diagnostics::one(Diagnostic::new(
                scop.region.start.clone(),
                format!("this SCoP cannot run on a GPU target: {why}"),
            )));
        }
        // What was recorded before this SCoP belongs to no SCoP's code.
        ctx.take_fallbacks();
        let mut fell: Vec<Fallback> = scop
            .fallbacks
            .iter()
            .map(|f| Fallback::new(Phase::Analysis, f.clone()))
            .collect();
        'scop: {
            let pluto_opts = pluto::PlutoOptions {
                distribute_inner: gpu.is_some(),
                ..opts.pluto
            };
            let schedule = match pluto::schedule_or_original(ctx, scop, &pluto_opts) {
                Ok((s, None)) => {
                    if let Some(d) = s.original_order_from {
                        fell.push(Fallback::new(
                            Phase::Scheduling,
                            format!("from dimension {d} on, the original execution order: Pluto found no further legal hyperplane"),
                        ));
                    }
                    s
                }
                Ok((s, Some(e))) => {
                    fell.push(Fallback::new(
                        Phase::Scheduling,
                        format!("scheduling failed ({e}); the original loop order"),
                    ));
                    warnings.push(
                        Diagnostic::new(
                            scop.region.start.clone(),
                            format!("scheduling failed ({e}); keeping the original loop order"),
                        )
                        .with_note("the generated code is correct but not transformed"),
                    );
                    s
                }
                Err(why) => {
                    fell.push(kept(Phase::Scheduling, &why));
                    warnings.push(kept_original(scop, &why, OVER_BUDGET));
                    break 'scop;
                }
            };
            // A SCoP whose dependences are unknown (the scheduler refuses it, above), or whose
            // iterators' final values or guard cannot be printed, keeps the user's lines as they are.
            let (exits, guard) = match exits::assignments(ctx, scop)
                .and_then(|e| Ok((e, fallback::guard(ctx, scop)?)))
            {
                Ok(printable) => printable,
                Err(why) => {
                    fell.push(kept(Phase::CodeGeneration, &why));
                    warnings.push(kept_original(scop, &why, WIDE_CONSTANTS));
                    break 'scop;
                }
            };
            let (first, last) = (scop.region.start.line, scop.region.end.line);
            let lines = if scop.region.marked {
                (first + 1, last - 1)
            } else {
                (first, last)
            };
            let user_lines = fallback::user_lines(&original, &main, lines);
            // The C target's untiled path calls the lines in a function of their own, where it can.
            let outlined = (gpu.is_none() && opts.tile)
                .then(|| outline::outline(src, scop, &original, &user_lines))
                .flatten();
            let untiled = outlined.as_ref().map_or(&user_lines, |o| &o.call);
            let job = ScopJob {
                ctx,
                scop,
                schedule: &schedule,
                prefix: &prefix,
                program: &program,
                opts,
            };
            let code = match generate(&job, gpu, untiled) {
                Ok(ScopCode::Host(code)) => code,
                Ok(ScopCode::Gpu { host, device }) => {
                    kernels.push_str(&device);
                    host
                }
                Ok(ScopCode::HostFallback(code, why)) => {
                    let (message, note) = match why {
                        HostWhy::NoParallelism => (
                            "this SCoP has no parallelism a GPU could use under its schedule; it runs on the host, as the C+OpenMP target's tiled code".to_string(),
                            "every loop carries a dependence (scalars reused across iterations are a common cause)",
                        ),
                        HostWhy::KernelSize(bytes) => (
                            format!("this SCoP's OpenCL kernels would take {} KB of source, over polyc's limit of {} KB; it runs on the host, as the C+OpenMP target's tiled code", bytes >> 10, MAX_OPENCL_KERNELS >> 10),
                            "OpenCL compiles kernels when the program runs: PoCL took minutes on 3 MB of them",
                        ),
                    };
                    fell.push(Fallback::new(Phase::CodeGeneration, message.clone()));
                    warnings
                        .push(Diagnostic::new(scop.region.start.clone(), message).with_note(note));
                    host_fallback = true;
                    code
                }
                Err(why) => {
                    fell.push(kept(Phase::CodeGeneration, &why));
                    warnings.push(kept_original(scop, &why, OVER_BUDGET));
                    break 'scop;
                }
            };
            warnings.extend(rosepolly::compilation::aliasing::overlapping_calls(
                src, scop,
            ));
            let code = code + &exits;
            needs_spans |= guard.as_ref().is_some_and(|(decls, _)| !decls.is_empty());
            needs_alloc |= scop.symbols.data.values().any(|d| d.expands.is_some());
            let code = match &guard {
                Some(guard) => fallback::wrap(scop, guard, &code, &user_lines),
                None => code,
            };
            let defs = c::derived_params(scop);
            // One block, so that the declarations stay local to the SCoP.
            let code = if defs.is_empty() && guard.is_none() {
                code
            } else {
                format!("  {{\n{defs}{code}  }}\n")
            };
            if let Some(o) = outlined.filter(|o| code.contains(&o.name)) {
                // An empty range before the enclosing function's head: an insertion.
                regions.push(Region {
                    first_line: o.before_line,
                    last_line: o.before_line - 1,
                    code: namespace.apply(&o.definition),
                });
            }
            regions.push(Region {
                first_line: scop.region.start.line,
                last_line: scop.region.end.line,
                code: namespace.apply(&code),
            });
        }
        fell.extend(ctx.take_fallbacks());
        // Stable: within a phase, in the order they happened.
        fell.sort_by_key(|f| f.phase);
        fallbacks.push(ScopFallbacks::new(scop, fell));
    }
    // The overlap checks' range arithmetic, on the C target.
    let spans = match (needs_spans, needs_alloc) {
        (true, _) => format!("{}{}", c::host_support(false), footprint::SUPPORT),
        (false, true) => c::host_support(false),
        (false, false) => String::new(),
    };
    let runtime = match gpu {
        None if opts.tile => c::runtime() + &spans,
        None => spans,
        Some(d) => format!(
            "{}{}{}{}{}",
            c::host_support(d == Dialect::Cuda),
            if host_fallback {
                c::runtime()
            } else {
                String::new()
            },
            avelas_header(),
            footprint::SUPPORT,
            if d == Dialect::Cuda { CUDA_CHECK } else { "" }
        ),
    };
    let preamble = format!(
        "/* Generated by polyc {} from {}. */\n{}{runtime}{kernels}",
        env!("CARGO_PKG_VERSION"),
        splice::comment_text(&main),
        c::helpers()
    );
    let preamble = namespace.apply(&preamble);
    let text = splice::splice(&original, &main, &preamble, &regions)
        .map_err(|e| Diagnostics::one(Diagnostic::new(Loc::new(&main, 0, None), e.to_string())))?;
    Ok(Output {
        text,
        warnings,
        fallbacks,
    })
}

/// What one SCoP's code generation gives.
enum ScopCode {
    /// Host code (C+OpenMP, or the C target's).
    Host(String),
    /// Host code launching kernels, and the kernels (or their source) for the top of the file.
    Gpu { host: String, device: String },
    /// On a GPU target, tiled host code: the schedule leaves the GPU nothing parallel.
    HostFallback(String, HostWhy),
}

/// Why a GPU target runs a SCoP on the host.
enum HostWhy {
    /// The schedule leaves the GPU nothing parallel.
    NoParallelism,
    /// The SCoP's OpenCL kernels would take this many bytes of source ([`MAX_OPENCL_KERNELS`]).
    KernelSize(usize),
}

/// The most OpenCL kernel source one SCoP may have; past it the SCoP runs on the host. OpenCL
/// compiles kernels when the program runs: the 3.2 MB of serial kernels of
/// `tests/inputs/semantics/ast-error-without-message.c` kept PoCL busy for minutes on their
/// first run, where the suite's largest, deriche's 0.9 MB, build in seconds.
pub const MAX_OPENCL_KERNELS: usize = 2 << 20;

/// The largest code one SCoP may generate. The suite's largest generated file is deriche's
/// OpenCL program, 640 KiB for all its SCoPs; past this a SCoP's schedule and tiles have made
/// code no C compiler handles in reasonable time, and its original code serves better.
pub const MAX_SCOP_CODE: usize = 4 << 20;

/// The code replacing one SCoP, or why it keeps its original code: isl's AST generation ran
/// over its budget, or the code would be larger than [`MAX_SCOP_CODE`].
/// `untiled`: what the C target's code runs where tiles do not pay (the SCoP's lines, or a call
/// of their function).
fn generate(job: &ScopJob, gpu: Option<Dialect>, untiled: &str) -> Result<ScopCode, String> {
    let why = |e: rosepolly::math::isl::AstFailure| e.to_string();
    let code = match gpu {
        // Loops with no statement in them: nothing to tile or offload; the iterators' final
        // values are all the SCoP computes.
        _ if job.scop.statements.is_empty() => ScopCode::Host(job.c().map_err(why)?),
        Some(dialect) => match job.gpu(dialect).map_err(why)? {
            Some((_, device))
                if dialect == Dialect::OpenCl && device.len() > MAX_OPENCL_KERNELS =>
            {
                ScopCode::HostFallback(
                    job.tiled_c(untiled).map_err(why)?,
                    HostWhy::KernelSize(device.len()),
                )
            }
            Some((host, device)) => ScopCode::Gpu { host, device },
            None => {
                ScopCode::HostFallback(job.tiled_c(untiled).map_err(why)?, HostWhy::NoParallelism)
            }
        },
        None if job.opts.tile => ScopCode::Host(job.tiled_c(untiled).map_err(why)?),
        None => ScopCode::Host(job.c().map_err(why)?),
    };
    let size = match &code {
        ScopCode::Host(c) | ScopCode::HostFallback(c, _) => c.len(),
        ScopCode::Gpu { host, device } => host.len() + device.len(),
    };
    if size > MAX_SCOP_CODE {
        return Err(format!(
            "its generated code would take {} KB, over polyc's limit of {} KB per SCoP",
            size >> 10,
            MAX_SCOP_CODE >> 10
        ));
    }
    Ok(code)
}

const OVER_BUDGET: &str = "polyc bounds its analyses, its scheduler and its code generation so that it finishes on every input; this SCoP went past one of those bounds";
const WIDE_CONSTANTS: &str =
    "C's wrap-around of unsigned bounds gives isl's formulas constants that 64-bit code cannot hold";

/// The fallback of a SCoP left as the user wrote it.
fn kept(phase: Phase, why: &str) -> Fallback {
    Fallback::new(phase, format!("the SCoP keeps its original code: {why}"))
}

/// The warning for a SCoP left as the user wrote it.
fn kept_original(scop: &Scop, why: &str, note: &str) -> Diagnostic {
    Diagnostic::new(
        scop.region.start.clone(),
        format!("this SCoP keeps its original code: {why}"),
    )
    .with_note(note)
}

/// The declarations of avelas-rt's C interface, guarded like the other helpers.
fn avelas_header() -> &'static str {
    avelas_contract::HEADER
}

/// A prefix `p` such that no identifier or macro `p<digits>` occurs in the source.
pub fn iterator_prefix(src: &SourceUnit) -> String {
    let mut idents: std::collections::HashSet<&str> =
        rosepolly::compilation::source::words(&src.text).collect();
    idents.extend(src.macros.iter().map(String::as_str));
    for p in ["c", "pc", "polyc_c"] {
        let clash = idents.iter().any(|w| {
            w.strip_prefix(p)
                .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
        });
        if !clash {
            return p.to_string();
        }
    }
    "polyc_it_".to_string()
}
