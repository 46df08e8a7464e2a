//! The `polyc` command line. It parses arguments, calls the crates that do the work, and turns
//! their errors into messages and exit statuses; it holds no compiler logic of its own.
//!
//! Exit status: 0 on success, 1 on an error in the user's input (with a diagnostic naming the
//! original file, line and construct), 2 on bad usage.

mod report;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use rosepolly::compilation::{self, Detection, SourceOptions, SourceUnit};
use rosepolly::diag::{Diagnostic, Diagnostics, Loc};
use rosepolly::math::isl::Ctx;

/// polyc: a polyhedral source-to-source compiler for C loop nests.
///
/// Finds the affine loop nests (SCoPs) of a C file, between `#pragma scop` and
/// `#pragma endscop` (or automatically with --auto-scop), models them polyhedrally and
/// computes their exact dependences.
#[derive(Parser, Debug)]
#[command(name = "polyc", version, about, long_about = None)]
struct Cli {
    /// The C file to compile.
    input: PathBuf,

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

    /// Where to write the generated program.
    #[arg(short = 'o', value_name = "OUT")]
    output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Stage {
    /// Statements, domains, original schedules, accesses and data of every SCoP.
    Model,
    /// The exact dependences of every SCoP.
    Deps,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(diags) => {
            report::print(&diags);
            ExitCode::from(1)
        }
    }
}

fn run(cli: &Cli) -> Result<(), Diagnostics> {
    let opts = SourceOptions {
        include_dirs: cli.include.clone(),
        defines: cli.define.clone(),
        undefines: cli.undefine.clone(),
        ..SourceOptions::default()
    };
    let src = SourceUnit::load(&cli.input, &opts)?;
    let ctx = Ctx::new();
    let detection = if cli.auto_scop {
        Detection::Automatic
    } else {
        Detection::Pragmas
    };
    let scops = compilation::build_models(&ctx, &src, detection)?;
    let file = cli.input.display().to_string();
    match cli.dump {
        Some(stage) => {
            let text = match (stage, cli.json) {
                (Stage::Model, false) => rosepolly::dump::model_text(&scops),
                (Stage::Deps, false) => rosepolly::dump::deps_text(&scops),
                (Stage::Model, true) => json(&rosepolly::dump::model_json(&file, &scops)),
                (Stage::Deps, true) => json(&rosepolly::dump::deps_json(&file, &scops)),
            };
            print!("{text}");
            Ok(())
        }
        None => Err(Diagnostics::one(Diagnostic::new(
            Loc::new(&file, 0, None),
            "code generation is not available in this version of polyc; use --dump model or --dump deps",
        ))),
    }
}

fn json(value: &impl serde::Serialize) -> String {
    let mut s = serde_json::to_string_pretty(value).expect("dump structures serialise");
    s.push('\n');
    s
}
