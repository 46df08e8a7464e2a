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
use crate::host_printer::HostBlock;
use crate::jam;
use crate::names::{self, Namespace};
use crate::outline;
use crate::pipeline::{ScopJob, Untiled};
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
    /// GPU targets: lane groups share the rows of split sums that read their matrix along the
    /// summed loop (`--lane-groups on|off`); `None`: the target's default, on for CUDA only
    /// ([`CompileOptions::lanes`]).
    pub lane_groups: Option<bool>,
}

impl CompileOptions {
    /// Are work-items mapped for a GPU's memory: lane groups sharing rows of split sums
    /// ([`crate::lanes`]), and each group's own parallel loops as work-item dimensions
    /// (`ptile::gpu_order`)? By default on CUDA, not on OpenCL: on PoCL (OpenCL on the CPU, the
    /// device this project measures OpenCL on) atax's, bicg's, gesummv's and gemver's kernels
    /// ran 2.5-6x slower with lane groups, and ludcmp's LARGE kernels 4.3x slower with the
    /// group's own loops shared out.
    pub fn lanes(&self) -> bool {
        self.lane_groups.unwrap_or(self.target == Target::Cuda)
    }
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
            lane_groups: None,
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
    let file = FileJob::new(ctx, src, opts)?;
    let mut out = Gathered::default();
    for scop in scops {
        file.check_placement(scop)?;
        // What was recorded before this SCoP belongs to no SCoP's code.
        ctx.take_fallbacks();
        file.transform(scop, &mut out);
        let mut fell: Vec<Fallback> = scop
            .fallbacks
            .iter()
            .map(|f| Fallback::new(Phase::Analysis, f.clone()))
            .chain(ctx.take_fallbacks())
            .collect();
        // Stable: within a phase, in the order they happened.
        fell.sort_by_key(|f| f.phase);
        out.fallbacks.push(ScopFallbacks::new(scop, fell));
    }
    let preamble = file.namespace.apply(&file.preamble(&out));
    let text = splice::splice(&file.original, &file.main, &preamble, &out.regions)
        .map_err(|e| file.error(e.to_string()))?;
    Ok(Output {
        text,
        warnings: out.warnings,
        fallbacks: out.fallbacks,
    })
}

/// What every SCoP of one file is compiled with.
struct FileJob<'a> {
    ctx: &'a Ctx,
    src: &'a SourceUnit,
    opts: &'a CompileOptions,
    gpu: Option<Dialect>,
    /// The file compiled, as its diagnostics name it, and its text.
    main: String,
    original: String,
    prefix: String,
    /// The program's name, for profile lines.
    program: String,
    namespace: Namespace,
}

/// What the SCoPs' compilations gather for the file as a whole.
#[derive(Default)]
struct Gathered {
    regions: Vec<Region>,
    warnings: Vec<Diagnostic>,
    fallbacks: Vec<ScopFallbacks>,
    /// The GPU targets' kernels (or their source), for the top of the file.
    kernels: String,
    /// A GPU target runs some SCoP on the host (it needs the C target's run-time too).
    host_fallback: bool,
    /// Some SCoP's guard checks arrays' ranges.
    needs_spans: bool,
    /// `polyc_alloc`, for expanded scalars in `--no-tile` code.
    needs_alloc: bool,
}

impl<'a> FileJob<'a> {
    fn new(
        ctx: &'a Ctx,
        src: &'a SourceUnit,
        opts: &'a CompileOptions,
    ) -> Result<FileJob<'a>, Diagnostics> {
        let main = src.main_file().to_string();
        let error =
            |message: String| Diagnostics::one(Diagnostic::new(Loc::new(&main, 0, None), message));
        let gpu = match opts.target {
            Target::C => None,
            Target::OpenCl => Some(Dialect::OpenCl),
            Target::Cuda => Some(Dialect::Cuda),
        };
        if gpu.is_some() && !opts.tile {
            return Err(error(
                "--no-tile applies to the C target only: OpenCL and CUDA kernels run tiles".into(),
            ));
        }
        if let (Some(_), Some(clash)) = (gpu, names::runtime_conflict(src)) {
            return Err(Diagnostics::one(clash));
        }
        let original = std::fs::read_to_string(&src.path)
            .map_err(|e| error(format!("cannot read the input again: {e}")))?;
        Ok(FileJob {
            ctx,
            src,
            opts,
            gpu,
            prefix: iterator_prefix(src),
            program: src
                .path
                .file_name()
                .map_or_else(|| main.clone(), |n| n.to_string_lossy().into_owned()),
            namespace: Namespace::choose(src),
            main,
            original,
        })
    }

    /// An error about the file as a whole.
    fn error(&self, message: String) -> Diagnostics {
        Diagnostics::one(Diagnostic::new(Loc::new(&self.main, 0, None), message))
    }

    /// A SCoP polyc cannot compile for this target at all: one in an included file, or one a
    /// GPU target cannot run.
    fn check_placement(&self, scop: &Scop) -> Result<(), Diagnostics> {
        if scop.region.start.file != self.main {
            return Err(Diagnostics::one(Diagnostic::new(
                scop.region.start.clone(),
                "this SCoP is in an included file; polyc rewrites only the file it compiles",
            )));
        }
        if let Some(why) = self.gpu.and_then(|_| device::unsupported(self.ctx, scop)) {
            return Err(Diagnostics::one(Diagnostic::new(
                scop.region.start.clone(),
                format!("this SCoP cannot run on a GPU target: {why}"),
            )));
        }
        Ok(())
    }

    /// Schedule `scop` and replace its lines with its code in `out`, or leave them as they are
    /// with a warning. The driver's own decisions are recorded as fallbacks on the context,
    /// after those of the steps they follow.
    fn transform(&self, scop: &Scop, out: &mut Gathered) {
        let Some(schedule) = self.schedule(scop, out) else {
            return;
        };
        // A SCoP whose dependences are unknown (the scheduler refuses it, above), or whose
        // iterators' final values or guard cannot be printed, keeps the user's lines as they are.
        let ctx = self.ctx;
        let (exits, guard) = match exits::assignments(ctx, scop)
            .and_then(|e| Ok((e, fallback::guard(ctx, scop)?)))
        {
            Ok(printable) => printable,
            Err(why) => {
                self.kept(scop, Phase::CodeGeneration, &why, WIDE_CONSTANTS, out);
                return;
            }
        };
        let (first, last) = (scop.region.start.line, scop.region.end.line);
        let lines = if scop.region.marked {
            (first + 1, last - 1)
        } else {
            (first, last)
        };
        let user_lines = fallback::user_lines(&self.original, &self.main, lines);
        // The C target's untiled path runs the original order, by jammed rows where a loop of
        // it qualifies, else as the user's lines; in a function of its own, where it can.
        let c_tiles = self.gpu.is_none() && self.opts.tile;
        let jammed = c_tiles
            .then(|| jam::jammed(ctx, scop, &self.prefix))
            .flatten();
        let original_order = jammed.as_ref().map_or(&user_lines, |j| &j.code);
        let outlined = c_tiles
            .then(|| outline::outline(self.src, scop, &self.original, original_order))
            .flatten();
        let untiled = Untiled {
            code: outlined.as_ref().map_or(original_order, |o| &o.call),
            jammed: jammed.as_ref(),
            tiled_call: outlined.as_ref().map(|o| o.tiled_call.as_str()),
        };
        let job = ScopJob {
            ctx,
            scop,
            schedule: &schedule,
            prefix: &self.prefix,
            program: &self.program,
            opts: self.opts,
        };
        let Some(HostBlock { code, rest }) = self.code(&job, &untiled, out) else {
            return;
        };
        out.warnings
            .extend(rosepolly::compilation::aliasing::overlapping_calls(
                self.src, scop,
            ));
        let code = code + &exits;
        out.needs_spans |= guard.as_ref().is_some_and(|(decls, _)| !decls.is_empty());
        out.needs_alloc |= scop.symbols.data.values().any(|d| d.expands.is_some());
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
        // Where the tiled path has a function, the block calls it (and its test calls the lines).
        if let Some(o) = outlined.filter(|o| rest.is_some() || code.contains(&o.name)) {
            // The lines' function, which the tiled path's calls too, then that path's.
            let definitions = match &rest {
                Some(rest) => format!("{}{}", o.definition, o.tiled(rest)),
                None => o.definition.clone(),
            };
            // An empty range before the enclosing function's head: an insertion.
            out.regions.push(Region {
                first_line: o.before_line,
                last_line: o.before_line - 1,
                code: self.namespace.apply(&definitions),
            });
        }
        out.regions.push(Region {
            first_line: scop.region.start.line,
            last_line: scop.region.end.line,
            code: self.namespace.apply(&code),
        });
    }

    /// `scop`'s schedule: Pluto's, or the original order where scheduling failed (with a
    /// warning); `None` where the SCoP keeps its original code.
    fn schedule(&self, scop: &Scop, out: &mut Gathered) -> Option<pluto::Schedule> {
        let pluto_opts = match self.gpu {
            Some(_) => self.opts.pluto.for_gpu(self.opts.reductions),
            None => self.opts.pluto,
        };
        match pluto::schedule_or_original(self.ctx, scop, &pluto_opts) {
            Ok((s, None)) => {
                if let Some(d) = s.original_order_from {
                    self.ctx.fell_back(
                        Phase::Scheduling,
                        format!("from dimension {d} on, the original execution order: Pluto found no further legal hyperplane"),
                    );
                }
                Some(s)
            }
            Ok((s, Some(e))) => {
                self.ctx.fell_back(
                    Phase::Scheduling,
                    format!("scheduling failed ({e}); the original loop order"),
                );
                out.warnings.push(
                    Diagnostic::new(
                        scop.region.start.clone(),
                        format!("scheduling failed ({e}); keeping the original loop order"),
                    )
                    .with_note("the generated code is correct but not transformed"),
                );
                Some(s)
            }
            Err(why) => {
                self.kept(scop, Phase::Scheduling, &why, OVER_BUDGET, out);
                None
            }
        }
    }

    /// The code of `job`'s SCoP for the target (kernels go to `out`), or `None` where it keeps
    /// its original code (and nothing code generation recorded applies).
    /// With it, the body of the tiled path's function where the code calls one
    /// ([`Untiled::tiled_call`]).
    fn code(&self, job: &ScopJob, untiled: &Untiled, out: &mut Gathered) -> Option<HostBlock> {
        let scop = job.scop;
        let mark = self.ctx.fallback_mark();
        match generate(job, self.gpu, untiled) {
            Ok(ScopCode::Host(block)) => Some(block),
            Ok(ScopCode::Gpu { host, device }) => {
                out.kernels.push_str(&device);
                Some(HostBlock::inline(host))
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
                self.ctx.fell_back(Phase::CodeGeneration, message.clone());
                out.warnings
                    .push(Diagnostic::new(scop.region.start.clone(), message).with_note(note));
                out.host_fallback = true;
                Some(HostBlock::inline(code))
            }
            Err(why) => {
                self.ctx.forget_fallbacks(mark..self.ctx.fallback_mark());
                self.kept(scop, Phase::CodeGeneration, &why, OVER_BUDGET, out);
                None
            }
        }
    }

    /// `scop` keeps its original code: a fallback of `phase`, and a warning with `note`.
    fn kept(&self, scop: &Scop, phase: Phase, why: &str, note: &str, out: &mut Gathered) {
        self.ctx
            .fell_back(phase, format!("the SCoP keeps its original code: {why}"));
        out.warnings.push(kept_original(scop, why, note));
    }

    /// The top of the generated file: the helpers, the run-time support the SCoPs' code
    /// needs, and the kernels.
    fn preamble(&self, out: &Gathered) -> String {
        // The overlap checks' range arithmetic, on the C target.
        let spans = match (out.needs_spans, out.needs_alloc) {
            (true, _) => format!("{}{}", c::host_support(false), footprint::SUPPORT),
            (false, true) => c::host_support(false),
            (false, false) => String::new(),
        };
        let runtime = match self.gpu {
            None if self.opts.tile => c::runtime() + &spans,
            None => spans,
            Some(d) => format!(
                "{}{}{}{}{}",
                c::host_support(d == Dialect::Cuda),
                if out.host_fallback {
                    c::runtime()
                } else {
                    String::new()
                },
                avelas_header(),
                footprint::SUPPORT,
                if d == Dialect::Cuda { CUDA_CHECK } else { "" }
            ),
        };
        format!(
            "/* Generated by polyc {} from {}. */\n{}{runtime}{}",
            env!("CARGO_PKG_VERSION"),
            splice::comment_text(&self.main),
            c::helpers(),
            out.kernels
        )
    }
}

/// What one SCoP's code generation gives.
enum ScopCode {
    /// Host code (C+OpenMP, or the C target's), and the tiled path's function's body.
    Host(HostBlock),
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
/// `tests/inputs/hostile/ast-error-without-message.c` kept PoCL busy for minutes on their
/// first run, where the suite's largest, deriche's 0.9 MB, build in seconds.
pub const MAX_OPENCL_KERNELS: usize = 2 << 20;

/// The largest code one SCoP may generate. The suite's largest generated file is deriche's
/// OpenCL program, 640 KiB for all its SCoPs; past this a SCoP's schedule and tiles have made
/// code no C compiler handles in reasonable time, and its original code serves better.
pub const MAX_SCOP_CODE: usize = 4 << 20;

/// The code replacing one SCoP, or why it keeps its original code: isl's AST generation ran
/// over its budget, or the code would be larger than [`MAX_SCOP_CODE`].
/// `untiled`: what the C target's code runs where tiles do not pay (the SCoP's original order, or
/// a call of its function).
fn generate(job: &ScopJob, gpu: Option<Dialect>, untiled: &Untiled) -> Result<ScopCode, String> {
    let why = |e: rosepolly::math::isl::AstFailure| e.to_string();
    let ctx = job.ctx;
    let mark = ctx.fallback_mark();
    // On the host instead, what the GPU lowering recorded does not apply.
    let on_host = |why_host: HostWhy| -> Result<ScopCode, String> {
        ctx.forget_fallbacks(mark..ctx.fallback_mark());
        // A GPU target's untiled path is the user's lines in place (no function).
        Ok(ScopCode::HostFallback(
            job.tiled_c(untiled).map_err(why)?.code,
            why_host,
        ))
    };
    let code = match gpu {
        // Loops with no statement in them: nothing to tile or offload; the iterators' final
        // values are all the SCoP computes.
        _ if job.scop.statements.is_empty() => {
            ScopCode::Host(HostBlock::inline(job.c().map_err(why)?))
        }
        Some(dialect) => match job.gpu(dialect).map_err(why)? {
            Some((_, device))
                if dialect == Dialect::OpenCl && device.len() > MAX_OPENCL_KERNELS =>
            {
                on_host(HostWhy::KernelSize(device.len()))?
            }
            Some((host, device)) => ScopCode::Gpu { host, device },
            None => on_host(HostWhy::NoParallelism)?,
        },
        None if job.opts.tile => ScopCode::Host(job.tiled_c(untiled).map_err(why)?),
        None => ScopCode::Host(HostBlock::inline(job.c().map_err(why)?)),
    };
    let size = match &code {
        ScopCode::Host(HostBlock { code, rest }) => {
            code.len() + rest.as_ref().map_or(0, String::len)
        }
        ScopCode::HostFallback(c, _) => c.len(),
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
