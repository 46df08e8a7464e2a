//! The `polyc` command line. It parses arguments, calls the crates that do the work, and turns
//! their errors into messages and exit statuses; it holds no compiler logic of its own.
//!
//! Exit status: 0 on success, 1 on an error in the user's input (with a diagnostic naming the
//! original file, line and construct), 2 on bad usage.

mod bench;
mod build;
mod output;
mod report;
mod tune;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use codegen::{CompileOptions, Target};
use pluto::{Fusion, PlutoOptions, Solver};
use rosepolly::compilation::{self, DefaultCustom, Detection, SourceOptions, SourceUnit};
use rosepolly::diag::{Diagnostic, Diagnostics, Loc};
use rosepolly::math::isl::Ctx;

/// polyc: a polyhedral source-to-source compiler for C loop nests.
///
/// Finds the affine loop nests (SCoPs) of a C file, between `#pragma scop` and
/// `#pragma endscop` (or automatically with --auto-scop), schedules them with Pluto's algorithm
/// and writes the file back with each SCoP replaced by the transformed code.
///
/// `polyc build FILE.c [MORE.c...] -o EXE` and `polyc run FILE.c [MORE.c...] [-- ARGS]`
/// compile with polyc, build with the target's compiler and (run) execute, on the best device
/// present unless --target says otherwise. `polyc tune PROGRAM|FILE.c [-- ARGS]` searches each
/// SCoP's tile sizes by running the program and writes the best into PROGRAM.tuning, which the
/// program reads when it runs (`polyc tune --help`). `polyc bench` verifies and times every kernel
/// of a PolyBench/C suite on every target against the original (`polyc bench --help`).
///
/// Generated programs read POLYC_TILE_SIZES (comma-separated positive integers, outermost
/// tiled dimension first, a shorter list repeating its last value; default 32 everywhere),
/// POLYC_PROFILE=1 (a profile line per SCoP execution on stderr), POLYC_TRACE=1,
/// POLYC_DEVICE (OpenCL: PLATFORM:DEVICE, a device number or part of its name; CUDA: the
/// device number), POLYC_LOCAL_MEM (bytes of local memory per work-group) and
/// POLYC_BATCH_TILES (GPU targets: wavefronts of at most this many tiles run as one launch).
#[derive(Parser, Debug)]
#[command(name = "polyc", version, about, long_about = None, after_help = "More: polyc build --help, and docs/interfaces.md.")]
struct Cli {
    /// The C file to compile.
    #[arg(required_unless_present_any = ["print_cflags", "print_libs"])]
    input: Option<PathBuf>,

    /// Where to write the generated program (no file is written on failure), or the dump
    /// with --dump (standard output without -o).
    #[arg(
        short = 'o',
        value_name = "OUT",
        required_unless_present_any = ["dump", "print_cflags", "print_libs"]
    )]
    output: Option<PathBuf>,

    /// Print the compiler flags a generated file of --target (default c) needs, and exit.
    #[arg(long)]
    print_cflags: bool,

    /// Print the linker flags a generated program of --target (default c) needs, and exit.
    #[arg(long)]
    print_libs: bool,

    /// GPU targets: run every tile by intra-tile wavefronts, even where band dimensions are
    /// parallel (slower; exercises the wavefront thread layout).
    #[arg(long)]
    intra_wavefront: bool,

    /// Keep the original order of every reduction's updates. By default, on the GPU targets
    /// the tiles along a reduction's loop (`+=`, `*=`, min, max, `&=`...) run in parallel and
    /// combine their partial results into the accumulator atomically (the schedule runs the
    /// initialisations of such accumulators first, in loop nests of their own); on the C target a scalar
    /// reduction whose loops have no other parallelism sums per row of tiles, the rows in
    /// parallel, combined in their order. Floating-point sums and products may then differ in
    /// their last bits (on the C target the same bits for the same tile sizes, whatever the
    /// threads).
    #[arg(long)]
    no_reductions: bool,

    /// GPU targets: map work-items for a GPU's memory, so that neighbouring work-items read
    /// neighbouring elements: lane groups of 32 work-items share each row of a tile where split
    /// sums read their matrix along the summed loop (atax's `tmp[i] += A[i][j] * x[j]`), and a
    /// statement group's own parallel loops become work-item dimensions where other groups of
    /// its band leave them sequential (gemver's `A[i][j] += ...`, one work-item per element, not
    /// per row). Default: on for cuda, off for opencl (PoCL, OpenCL on a CPU, ran those kernels
    /// slower); `on` suits OpenCL on a GPU.
    #[arg(long, value_enum)]
    lane_groups: Option<OnOff>,

    /// The target language; without it, an output ending in `.cu` means cuda, otherwise c.
    #[arg(long, value_enum)]
    target: Option<TargetArg>,

    /// Keep the scheduled loops untiled.
    #[arg(long)]
    no_tile: bool,

    /// Add a directory to the preprocessor's include path (as a C compiler's -I).
    #[arg(short = 'I', value_name = "DIR")]
    include: Vec<PathBuf>,

    /// Define a preprocessor macro, NAME or NAME=VALUE (as a C compiler's -D).
    #[arg(short = 'D', value_name = "NAME[=VALUE]")]
    define: Vec<String>,

    /// Undefine a preprocessor macro (as a C compiler's -U).
    #[arg(short = 'U', value_name = "NAME")]
    undefine: Vec<String>,

    /// Print a stage of the compilation instead of generating code.
    #[arg(long, value_enum, value_name = "STAGE")]
    dump: Option<Stage>,

    /// Print --dump output as JSON.
    #[arg(long, requires = "dump")]
    json: bool,

    /// Find maximal affine regions without pragmas (pragmas are then ignored).
    #[arg(long)]
    auto_scop: bool,

    /// How much the scheduler fuses loop nests.
    #[arg(long, value_enum, default_value = "smart")]
    fusion: FusionArg,

    /// Turn off the dependence-direction ordering of schedule coefficients (thesis §4.2), for
    /// comparison.
    #[arg(long)]
    no_direction_order: bool,

    /// Tile time-iterated stencils with skewed tiles (a pipelined start) instead of diamond
    /// tiles, whose first wavefront holds a whole row of tiles (concurrent start).
    #[arg(long)]
    no_diamond: bool,

    /// Keep every scalar a scalar and every array as declared. By default a scalar that each
    /// iteration of its loops writes before reading (ludcmp's `w`, symm's `temp2`) becomes an
    /// array indexed by those loops, so that its false dependences no longer serialise them; an
    /// array likewise (doitgen's `sum[p]`), with its last values copied back, where that frees a
    /// loop.
    #[arg(long)]
    no_expansion: bool,

    /// Keep every statement whole. By default a statement whose own dependences inside its
    /// outer loops all start or end on a hyperplane (floyd-warshall's row and column `k`) is
    /// split into one statement per side of it, each parallel where the whole was not.
    #[arg(long)]
    no_split: bool,

    /// The solver of the scheduler's lexicographic minimum.
    #[arg(long, value_enum, default_value = "good-lp", hide = true)]
    solver: SolverArg,

    /// Insert one-time loops so that every statement has a loop for every schedule dimension
    /// (thesis §6.2.1).
    #[arg(long)]
    otl: bool,

    /// Do not mark parallel loops with OpenMP pragmas.
    #[arg(long)]
    no_openmp: bool,

    /// Fix the tile sizes at compile time (comma-separated, outermost first; a shorter list
    /// repeats its last value) instead of reading POLYC_TILE_SIZES when the program runs. For
    /// measuring what run-time tile sizes cost; the program then ignores POLYC_TILE_SIZES.
    #[arg(long, value_name = "SIZES", value_parser = parse_sizes, conflicts_with = "no_tile")]
    fixed_tile_sizes: Option<Sizes>,
}

/// Tile sizes, outermost first.
#[derive(Debug, Clone)]
struct Sizes(Vec<i64>);

/// `16,32,32`: what `POLYC_TILE_SIZES` accepts at run time (the run-time contract's grammar:
/// at most `MAX_TILE_SIZES` values from 1 to `MAX_TILE_SIZE`), but not empty.
fn parse_sizes(text: &str) -> Result<Sizes, String> {
    use avelas_contract::config::{self, MAX_TILE_SIZE, MAX_TILE_SIZES};
    match config::tile_sizes(Some(text)) {
        Ok(sizes) if !sizes.is_empty() => Ok(Sizes(sizes)),
        _ => Err(format!(
            "expected {}, at most {MAX_TILE_SIZES} of them, each from 1 to {MAX_TILE_SIZE}",
            config::TILE_SIZES_EXPECTED
        )),
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Stage {
    /// Statements, domains, original schedules, accesses and data of every SCoP.
    Model,
    /// The exact dependences of every SCoP.
    Deps,
    /// The Pluto schedule: per statement rows, bands, parallel dimensions, intra-tile structure.
    Schedule,
    /// The candidate local-memory buffers of every tiled group on the GPU targets: origins,
    /// extents, reuse, in rank order.
    Buffers,
    /// Every SCoP in the OpenScop format (version 0.9: context, domains, original scattering,
    /// accesses, bodies, arrays), for Clan/Candl/Pluto-style tools; not with --json.
    Openscop,
    /// Where compiling each SCoP for --target did less than it could and went on: dataflow
    /// approximated, diamond tiling given up, a band left untiled, ASTs built without
    /// separation or left unchecked, serial OpenCL kernels, a SCoP run on the host or kept as
    /// written. Runs the whole compilation; writes no program.
    Fallbacks,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum TargetArg {
    C,
    Opencl,
    Cuda,
}

impl TargetArg {
    /// The `--target` value.
    fn flag(self) -> &'static str {
        match self {
            TargetArg::C => "c",
            TargetArg::Opencl => "opencl",
            TargetArg::Cuda => "cuda",
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum FusionArg {
    /// Distribute every strongly connected component.
    No,
    /// Pluto's default heuristic, distributing instead when that gives more statements parallel
    /// outer loops.
    Smart,
    /// Fuse as much as possible.
    Max,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum OnOff {
    On,
    Off,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum SolverArg {
    Isl,
    GoodLp,
}

/// The compiler thread's stack: reserved, and committed only as deep recursion uses it.
const STACK_BYTES: usize = 1 << 30;

fn main() -> ExitCode {
    // Deeply nested input (thousands of parentheses, sums of thousands of terms, which gcc
    // accepts) recurses as deeply in the C parser and in the expression code; the main
    // thread's 8 MiB would overflow and abort.
    match std::thread::Builder::new()
        .stack_size(STACK_BYTES)
        .spawn(compiler_main)
    {
        // A panic has printed its message already.
        Ok(thread) => thread.join().unwrap_or(ExitCode::from(101)),
        Err(_) => compiler_main(),
    }
}

fn compiler_main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if matches!(args.get(1).map(String::as_str), Some("build" | "run")) {
        let mut rest = vec!["polyc".to_string()];
        rest.extend(args[1..].iter().cloned());
        return ExitCode::from(build::main(rest).clamp(0, 255) as u8);
    }
    if args.get(1).map(String::as_str) == Some("bench") {
        let mut rest = vec!["polyc".to_string()];
        rest.extend(args[1..].iter().cloned());
        return ExitCode::from(bench::main(rest).clamp(0, 255) as u8);
    }
    if args.get(1).map(String::as_str) == Some("tune") {
        let mut rest = vec!["polyc".to_string()];
        rest.extend(args[1..].iter().cloned());
        return ExitCode::from(tune::main(rest).clamp(0, 255) as u8);
    }
    let cli = Cli::parse();
    if cli.print_cflags || cli.print_libs {
        let target = cli.target.unwrap_or(TargetArg::C);
        let flags = if cli.print_cflags {
            Ok(build::cflags(target))
        } else {
            build::libs(target)
        };
        return match flags {
            Ok(f) => {
                println!("{}", f.join(" "));
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("polyc: {e}");
                ExitCode::from(1)
            }
        };
    }
    if let Err(e) = check_usage(&cli) {
        return usage_error(&e);
    }
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(diags) => {
            report::print(&diags);
            ExitCode::from(1)
        }
    }
}

/// Bad usage: a message and exit status 2, as clap's own errors.
fn usage_error(message: &str) -> ExitCode {
    eprintln!("polyc: error: {message}");
    ExitCode::from(2)
}

/// Combinations of options that mean nothing, and an output that is the input.
fn check_usage(cli: &Cli) -> Result<(), String> {
    let target = cli
        .target
        .or(match cli.output.as_ref().and_then(|o| o.extension()) {
            Some(e) if e == "cu" => Some(TargetArg::Cuda),
            _ => None,
        });
    let gpu = matches!(target, Some(TargetArg::Opencl | TargetArg::Cuda));
    if cli.json && matches!(cli.dump, Some(Stage::Openscop)) {
        return Err("--dump openscop writes OpenScop; --json does not apply to it".into());
    }
    if gpu && matches!(cli.dump, None | Some(Stage::Fallbacks)) {
        if cli.no_tile {
            return Err(
                "--no-tile applies to --target c only: OpenCL and CUDA kernels run tiles".into(),
            );
        }
        if cli.fixed_tile_sizes.is_some() {
            return Err("--fixed-tile-sizes applies to --target c only".into());
        }
    }
    if cli.intra_wavefront && !gpu {
        return Err("--intra-wavefront applies to --target opencl and cuda only".into());
    }
    if cli.lane_groups.is_some() && !gpu && cli.dump.is_none() {
        return Err("--lane-groups applies to --target opencl and cuda only".into());
    }
    build::check_macros(&cli.define, &cli.undefine)?;
    if let (Some(input), Some(out)) = (&cli.input, &cli.output) {
        if output::same_file(input, out) {
            return Err(format!(
                "the output {} is the input file; polyc never overwrites its input",
                out.display()
            ));
        }
    }
    Ok(())
}

fn pluto_options(cli: &Cli) -> PlutoOptions {
    let opts = PlutoOptions {
        fusion: match cli.fusion {
            FusionArg::No => Fusion::NoFuse,
            FusionArg::Smart => Fusion::SmartFuse,
            FusionArg::Max => Fusion::MaxFuse,
        },
        direction_ordering: !cli.no_direction_order,
        diamond: !cli.no_diamond,
        solver: match cli.solver {
            SolverArg::Isl => Solver::Isl,
            SolverArg::GoodLp => Solver::GoodLp,
        },
        ..PlutoOptions::default()
    };
    // The GPU targets' schedule, for `--dump schedule --target opencl|cuda` too.
    match cli.target {
        Some(TargetArg::Opencl | TargetArg::Cuda) => opts.for_gpu(!cli.no_reductions),
        _ => opts,
    }
}

fn run(cli: &Cli) -> Result<(), Diagnostics> {
    let opts = SourceOptions {
        include_dirs: cli.include.clone(),
        defines: cli.define.clone(),
        undefines: cli.undefine.clone(),
        ..SourceOptions::default()
    };
    let input = cli.input.as_ref().expect("clap requires an input");
    let src = SourceUnit::load(input, &opts)?;
    let ctx = Ctx::new();
    let detection = if cli.auto_scop {
        Detection::Automatic
    } else {
        Detection::Pragmas
    };
    let mut policy = DefaultCustom {
        no_expansion: cli.no_expansion,
        no_split: cli.no_split,
        ..DefaultCustom::default()
    };
    let scops = compilation::build_models_with(&ctx, &src, detection, &mut policy)?;
    let file = input.display().to_string();
    if let Some(stage) = cli.dump {
        let text = match stage {
            Stage::Model if cli.json => json(&rosepolly::dump::model_json(&file, &scops)),
            Stage::Model => rosepolly::dump::model_text(&scops),
            Stage::Deps if cli.json => json(&rosepolly::dump::deps_json(&file, &scops)),
            Stage::Deps => rosepolly::dump::deps_text(&scops),
            Stage::Schedule => {
                // As the compiler does: a SCoP the scheduler refuses keeps its original code.
                let results: Vec<pluto::dump::Outcome> = scops
                    .iter()
                    .map(|s| {
                        pluto::analyze(&ctx, s, &pluto_options(cli)).map_err(|e| match e {
                            pluto::PlutoError::Untransformable(why) => why,
                            e => format!("scheduling failed ({e}); the original loop order"),
                        })
                    })
                    .collect();
                if cli.json {
                    json(&pluto::dump::json(&file, &scops, &results))
                } else {
                    pluto::dump::text(&scops, &results)
                }
            }
            Stage::Buffers => {
                let opts = codegen::CompileOptions {
                    pluto: pluto_options(cli),
                    intra_wavefront: cli.intra_wavefront,
                    lane_groups: cli.lane_groups.map(|s| s == OnOff::On),
                    ..codegen::CompileOptions::default()
                };
                let report = codegen::buffers::report(&ctx, &scops, &opts)?;
                if cli.json {
                    json(&codegen::buffers::json(&file, &report))
                } else {
                    codegen::buffers::text(&report)
                }
            }
            Stage::Openscop => rosepolly::openscop::text(&ctx, &file, &scops)?,
            Stage::Fallbacks => {
                let target = target(cli, None);
                let output = codegen::compile(&ctx, &src, &scops, &compile_options(cli, target))?;
                if cli.json {
                    json(&codegen::degraded::Report {
                        file: &file,
                        target: target_name(target),
                        scops: &output.fallbacks,
                    })
                } else {
                    codegen::degraded::text(&output.fallbacks)
                }
            }
        };
        return match &cli.output {
            Some(out) => write_output(out, &text),
            None => {
                print!("{text}");
                Ok(())
            }
        };
    }
    let out = cli
        .output
        .as_ref()
        .expect("clap requires -o without --dump");
    let copts = compile_options(cli, target(cli, Some(out)));
    let output = codegen::compile(&ctx, &src, &scops, &copts)?;
    for w in &output.warnings {
        eprintln!("{}: warning: {}", w.loc, w.message);
    }
    write_output(out, &output.text)
}

/// The target: `--target`, else CUDA for an output ending in `.cu`, else C.
fn target(cli: &Cli, out: Option<&Path>) -> Target {
    match (
        cli.target,
        out.and_then(|o| o.extension()).and_then(|e| e.to_str()),
    ) {
        (Some(TargetArg::C), _) => Target::C,
        (Some(TargetArg::Opencl), _) => Target::OpenCl,
        (Some(TargetArg::Cuda), _) | (None, Some("cu")) => Target::Cuda,
        (None, _) => Target::C,
    }
}

/// The `--target` value naming `target`.
fn target_name(target: Target) -> &'static str {
    match target {
        Target::C => TargetArg::C.flag(),
        Target::OpenCl => TargetArg::Opencl.flag(),
        Target::Cuda => TargetArg::Cuda.flag(),
    }
}

fn compile_options(cli: &Cli, target: Target) -> CompileOptions {
    CompileOptions {
        target,
        tile: !cli.no_tile,
        pluto: pluto_options(cli),
        otl: cli.otl,
        openmp: !cli.no_openmp,
        fixed_tile_sizes: cli.fixed_tile_sizes.as_ref().map(|s| s.0.clone()),
        intra_wavefront: cli.intra_wavefront,
        reductions: !cli.no_reductions,
        lane_groups: cli.lane_groups.map(|s| s == OnOff::On),
    }
}

/// Write the output safely (see [`output`]).
fn write_output(path: &Path, text: &str) -> Result<(), Diagnostics> {
    output::write(path, text.as_bytes()).map_err(|e| {
        Diagnostics::one(Diagnostic::new(
            Loc::new(path.display().to_string(), 0, None),
            format!("cannot write the output: {e}"),
        ))
    })
}

fn json(value: &impl serde::Serialize) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("dump structures serialise");
    s.push('\n');
    s
}
