//! The one printer of host code: every target's C block replacing a SCoP has the same shape
//! (device opened, clock and tile sizes, setup, the host's outer loops with a call per group,
//! wait for the device, teardown, the `POLYC_PROFILE` line); a [`HostDialect`] says what each
//! target does at each step, as `c::DeviceHooks` does for kernels.

use std::fmt::Write;

use avelas_contract::{tuning, ConfigFns};
use rosepolly::model::expr::{BinaryOp, Expr};
use rosepolly::syntax::Node;

use crate::c::{self, COptions};
use crate::host::indent;
use crate::ir::{size, ScopIr};
use crate::names::user;

/// What one target's host code does at each step of [`print()`].
pub trait HostDialect {
    /// The functions that read the run-time configuration.
    fn config(&self) -> ConfigFns;
    /// The target's name in tuning keys (`c`, `opencl`, `cuda`).
    fn target(&self) -> &'static str;
    /// Tile sizes fixed at compile time (`--fixed-tile-sizes`), if any.
    fn fixed_sizes(&self) -> Option<&[i64]> {
        None
    }
    /// Before the SCoP's clock starts (opening the device).
    fn open(&self) -> String {
        String::new()
    }
    /// After the prologue, and its undoing after the SCoP: allocations, transfers, kernels,
    /// buckets.
    fn setup(&self) -> (String, String) {
        (String::new(), String::new())
    }
    /// The code at the host tree's call of group `g`, the outer dimensions' values `args`.
    fn group(&self, g: usize, args: &[Expr]) -> String;
    /// The host tree to print, from the SCoP's (the GPU targets add calls past the groups'
    /// numbers: their flush points).
    fn host_tree(&self, host: &Node) -> Node {
        host.clone()
    }
    /// The SCoP's body around `tiled`, the host tree's code (the C target may run the
    /// original order instead).
    fn body(&self, tiled: String) -> String {
        tiled
    }
    /// After the body: wait for the device.
    fn finish(&self) -> String {
        String::new()
    }
    /// The profile line's keys (` key=%fmt`) and C values after the common ones.
    fn profile(&self) -> Vec<(&'static str, String)>;
    /// Code before and after the block that runs it again for `polyc tune`'s in-process trials
    /// (the C target), if the target has them.
    fn trials(&self) -> Option<(String, String)> {
        None
    }
    /// Code before and after all the rest, trials included: the C target's test that runs the
    /// original's lines before any set-up where nothing else could run.
    fn first(&self) -> Option<(String, String)> {
        None
    }
    /// Where the path past [`HostDialect::first`]'s test runs from a function of its own (the
    /// C target, [`crate::outline`]): the statement that calls it, in its place.
    fn rest_call(&self) -> Option<&str> {
        None
    }
}

/// The C block that replaces a SCoP, and what goes in a function of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostBlock {
    /// The block.
    pub code: String,
    /// The body of the function that runs the path past [`HostDialect::first`]'s test, where
    /// the dialect moves it there ([`HostDialect::rest_call`]; the block calls it).
    pub rest: Option<String>,
}

impl HostBlock {
    /// A block that has no function of its own.
    pub fn inline(code: String) -> Self {
        HostBlock { code, rest: None }
    }
}

/// Stands for the SCoP's fingerprint in its tuning key until the block is printed.
const FINGERPRINT: &str = "@polyc-fingerprint@";

/// The C block that replaces a lowered SCoP of the source file `program`, for the target `d`
/// describes.
pub fn print(d: &impl HostDialect, ir: &ScopIr, program: &str) -> HostBlock {
    let config = d.config();
    let mut out = d.open();
    let key = tuning::key(program, ir.id, FINGERPRINT, d.target(), "", "");
    let key = key
        .split(" device=")
        .next()
        .expect("a key has a device field")
        .to_string();
    out.push_str(&prologue(ir, d.fixed_sizes(), &config, &key));
    let (setup, teardown) = d.setup();
    out.push_str(&indent(&setup, 2));
    let host = COptions {
        openmp: false,
        index_type: "long".into(),
        indent: 2,
        probe: None,
        clauses: "",
    };
    let tiled = c::print_calls(&ir.data, &d.host_tree(&ir.host), &host, &|g, args| {
        d.group(g, args)
    });
    out.push_str(&d.body(tiled));
    out.push_str(&d.finish());
    out.push_str(&indent(&teardown, 2));
    let from = match d.fixed_sizes() {
        Some(_) => "\"fixed\"".to_string(),
        None => format!("{}({}, polyc_tuned)", config.sizes_from, ir.id),
    };
    out.push_str(&epilogue(ir, &from, &d.profile(), &config));
    if let Some((head, tail)) = d.trials() {
        out = format!("{head}{}{tail}", indent(&out, 2));
    }
    let Some((head, tail)) = d.first() else {
        return HostBlock::inline(with_fingerprint(&out, &out));
    };
    let whole = format!("{head}{}{tail}", indent(&out, 2));
    match d.rest_call() {
        // The key is the one the block would have with the path in place: moving it to a
        // function changes nothing a tuning entry depends on.
        Some(call) => HostBlock {
            code: format!("{head}{call}{tail}"),
            rest: Some(with_fingerprint(&out, &whole)),
        },
        None => HostBlock::inline(with_fingerprint(&whole, &whole)),
    }
}

/// `text` with the tuning key's fingerprint of `block`. The fingerprint covers the block as
/// printed: another schedule, tiling or target, or another polyc that prints differently, makes
/// another key.
fn with_fingerprint(text: &str, block: &str) -> String {
    text.replace(FINGERPRINT, &tuning::fingerprint(block))
}

/// Start of a SCoP's block: clock, counters, the tuning file's entry (`key`: its first fields),
/// tile sizes, the trace of the parameters.
fn prologue(ir: &ScopIr, fixed_sizes: Option<&[i64]>, config: &ConfigFns, key: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "  double polyc_start = polyc_now();");
    let _ = writeln!(
        out,
        "  long polyc_tiles = 0, polyc_waves = 0, polyc_launches = 0;"
    );
    let _ = writeln!(out, "  (void)polyc_launches;");
    match fixed_sizes {
        Some(_) => {
            let _ = writeln!(out, "  const int polyc_tuned = -1;");
        }
        None => out.push_str(&tuning_entry(ir, config, key)),
    }
    let _ = writeln!(out, "  (void)polyc_tuned;");
    for k in 0..ir.depth {
        let value = match fixed_sizes {
            Some(s) => s[k.min(s.len() - 1)].to_string(),
            None => match default_size(ir, k) {
                // The program's own default, where neither a tuning entry nor
                // POLYC_TILE_SIZES gives a size.
                Some(default) => format!(
                    "polyc_tuned < 0 && polyc_ts_list({id}) < 0 ? {default} : {}({id}, polyc_tuned, {k})",
                    config.tile_size,
                    id = ir.id
                ),
                None => format!("{}({}, polyc_tuned, {k})", config.tile_size, ir.id),
            },
        };
        let _ = writeln!(out, "  const long {} = {value};", size(k));
    }
    let params = &ir.data.params;
    let names: Vec<String> = params
        .iter()
        .map(|p| format!(" {}=%ld", user(&p.name)))
        .collect();
    let args: Vec<String> = params
        .iter()
        .map(|p| format!(", (long)({})", user(&p.name)))
        .collect();
    let _ = writeln!(
        out,
        "  if ({}()) fprintf(stderr, \"polyc-params: scop={}{}\\n\"{});",
        config.trace,
        ir.id,
        names.concat(),
        args.concat()
    );
    out
}

/// How many rows of tiles a SCoP with partial results per row runs by default.
const ROWS: i64 = 64;

/// The default size of the first tiled dimension of a SCoP whose outermost loop repeats sweeps
/// over its arrays ([`crate::ir::OriginalOrder::sweeps`]: a time-iterated stencil) where its
/// points wait for one another ([`crate::ir::OriginalOrder::latency`] over 1: seidel-2d), on
/// the C target; the other dimensions keep 32. Measured first on an earlier VM for every such
/// stencil (LARGE, three runs each, 2 threads: heat-3d 0.73 -> 0.64 s, fdtd-2d 0.34 -> 0.29 s,
/// jacobi-2d 0.39-0.43 -> 0.36 s, seidel-2d 4.4 -> 4.35 s; 16 gained less, 4 nothing);
/// floyd-warshall, whose `k` indexes what it writes, ran 2.6x slower with 8 and keeps 32. On
/// the AMD EPYC VM seidel-2d (2000 points a side, 100 steps, medians of 3) still runs fastest
/// with it: 1.88 s on 2 threads against 2.17 with 16,32,128 and 4.15 with 32,32,128; 3.58 s on
/// one thread against 4.14-4.20. The other stencils take [`SWEEP_ROW_TILE`].
pub const TIME_TILE: i64 = 8;

/// The default size of the last tiled dimension (the rows the point loops sweep along) of a
/// SCoP that repeats sweeps and whose points do not wait for one another (jacobi-1d,
/// jacobi-2d, fdtd-2d, heat-3d), on the C target; the other dimensions keep 32, time
/// included. On the 2-core AMD EPYC VM (32 MiB L3), LARGE, gcc -O3 -march=native, medians of 5
/// interleaved runs (3 for heat-3d), seconds, against 8,32,..,32 (`TIME_TILE`, which this
/// replaced for them): 2 threads, jacobi-2d 0.905 -> 0.588, fdtd-2d 0.586 -> 0.433, heat-3d
/// 1.69 -> 1.06; one thread, jacobi-2d 1.78 -> 1.08, fdtd-2d 1.43 -> 0.94. Around it the
/// times are flat (16, 64 for the first dimension, 64 for the middle ones, 256 for the last:
/// within 10%, 16 first 13% slower for jacobi-2d). Why, not measured: likely rows of 128
/// doubles keep the vectorised loops long and the prefetcher ahead, and 32 steps reuse each
/// row while the caches hold it.
pub const SWEEP_ROW_TILE: i64 = 128;

/// The default size of band dimension `k`, as a C expression, where it is not the run-time's
/// 32: [`ROWS`] rows of partial results, or a stencil's (`sweep_size`).
fn default_size(ir: &ScopIr, k: usize) -> Option<String> {
    match rows_extent(ir) {
        Some(extent) => Some(format!(
            "polyc_lmax(32, (({extent}) + {ROWS} - 1) / {ROWS})"
        )),
        None => sweep_size(ir, k).map(|size| size.to_string()),
    }
}

/// The default size of band dimension `k` of a SCoP that repeats sweeps, where it is not 32
/// (`TIME_TILE`, `SWEEP_ROW_TILE`).
fn sweep_size(ir: &ScopIr, k: usize) -> Option<i64> {
    let original = ir.original.as_ref().filter(|o| o.sweeps)?;
    if original.latency > 1 {
        (k == 0).then_some(TIME_TILE)
    } else {
        (k + 1 == ir.depth).then_some(SWEEP_ROW_TILE)
    }
}

/// The extent of the band dimension along which a SCoP's rows of tiles hold partial results
/// ([`crate::ir::TiledGroup::partials`]; such a band has one dimension), if it has them. Its
/// default tile size makes [`ROWS`] rows whatever the threads, so that the sums, combined in
/// the rows' order, come out the same on any machine: 32 points a tile cost a dot product of 40
/// million elements twice its original time, a probe and a loop every 32 additions.
fn rows_extent(ir: &ScopIr) -> Option<Expr> {
    let t = ir
        .tiled_groups()
        .find(|t| !t.partials.is_empty() && t.depth == 1)?;
    // As a host control expression: `long` parameters (an unsigned `n` would make
    // `n - 1 - 0 + 1` unsigned).
    let (lo, hi) = &t.points[0];
    let extent = Expr::binary(
        BinaryOp::Add,
        Expr::binary(BinaryOp::Sub, hi.clone(), lo.clone()),
        Expr::int(1),
    );
    Some(c::host_control(&ir.data.params, &extent))
}

/// `polyc_tuned`, the tuning file's entry for the SCoP (or -1): its key's first fields `key`,
/// then the parameters' names and values, from which the lookup formats `n=40,m=30` only when
/// there is something to look up (formatting on every execution cost microseconds).
fn tuning_entry(ir: &ScopIr, config: &ConfigFns, key: &str) -> String {
    let params = &ir.data.params;
    let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
    let values: Vec<String> = params
        .iter()
        .map(|p| format!("(long)({})", user(&p.name)))
        .collect();
    let (array, values) = if params.is_empty() {
        (String::new(), "0")
    } else {
        (
            format!(
                "  const long polyc_param_values[{}] = {{{}}};\n",
                params.len(),
                values.join(", ")
            ),
            "polyc_param_values",
        )
    };
    format!(
        "{array}  const int polyc_tuned = {}({}, \"{key}\", \"{}\", {}, {values});\n",
        config.tuning,
        ir.id,
        names.join(","),
        params.len()
    )
}

/// End of a SCoP's block: the `POLYC_PROFILE=1` line, with where the sizes came from (`from`,
/// a C string expression) and `extra` keys (` key=%fmt` each) and their C arguments after the
/// common ones.
fn epilogue(ir: &ScopIr, from: &str, extra: &[(&str, String)], config: &ConfigFns) -> String {
    let depth = ir.depth;
    let sizes = if depth == 0 {
        "-".to_string()
    } else {
        vec!["%ld"; depth].join(",")
    };
    let size_args: Vec<String> = (0..depth).map(|k| format!(", {}", size(k))).collect();
    let extra_fmt: String = extra.iter().map(|(f, _)| format!(" {f}")).collect();
    let extra_args: String = extra.iter().map(|(_, a)| format!(", {a}")).collect();
    format!(
        "  if ({}()) fprintf(stderr, \"polyc: scop={} tile_sizes={sizes} sizes_from=%s tiled_depth={depth} wavefronts=%ld tiles=%ld launches=%ld time_ms=%.3f{extra_fmt}\\n\"{}, {from}, polyc_waves, polyc_tiles, polyc_launches, 1e3 * (polyc_now() - polyc_start){extra_args});\n",
        config.profile,
        ir.id,
        size_args.concat()
    )
}
