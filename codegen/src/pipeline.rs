//! One SCoP's pipeline after scheduling: its tile space, lowered to the kernel IR, printed
//! for a target (schedule → tile space → IR → text). The driver runs it per SCoP; nothing
//! else strings these steps together.

use std::fmt::Write;

use rosepolly::diag::Phase;
use rosepolly::math::isl::{AstFailure, Ctx};
use rosepolly::model::Scop;
use rosepolly::syntax::{self, RecoveryOptions};

use crate::c::{self, COptions};
use crate::device::{DeviceCode, Dialect};
use crate::driver::CompileOptions;
use crate::footprint;
use crate::gpu_api::{batch_source, mix_source};
use crate::gpu_host::{c_string, GpuHost};
use crate::host::indent;
use crate::host_printer::HostBlock;
use crate::inner_loops;
use crate::ir::{ScopData, ScopIr};
use crate::jam::Jammed;
use crate::lower::{tile_bodies, Device, Lowering};
use crate::openmp::OpenMp;

/// One scheduled SCoP and how to print it.
pub struct ScopJob<'a, 'c> {
    pub ctx: &'c Ctx,
    pub scop: &'a Scop<'c>,
    pub schedule: &'a pluto::Schedule,
    /// Prefix of the schedule-dimension iterators.
    pub prefix: &'a str,
    /// The source file's name, the `program=` of tuning keys.
    pub program: &'a str,
    pub opts: &'a CompileOptions,
}

/// What the C target runs where tiles do not pay.
pub struct Untiled<'a> {
    /// The SCoP's original order: the user's lines, or jammed rows ([`crate::jam`]), or a call
    /// of the function that holds them ([`crate::outline`]).
    pub code: &'a str,
    /// The original order's jammed rows, where a loop of it has them: what they run tells the
    /// cost model how fast that order is.
    pub jammed: Option<&'a Jammed>,
    /// The call of the function that runs the tiled path, where it runs from one
    /// ([`crate::outline::Outlined::tiled_call`]).
    pub tiled_call: Option<&'a str>,
}

impl ScopJob<'_, '_> {
    /// The host code replacing one SCoP on a GPU target, and what goes on top of the file: the
    /// kernels (CUDA) or a string with their source (OpenCL). `None` when the SCoP has no
    /// parallelism a GPU can use (every group would run on one work-item at a time): it is then
    /// better run on the host.
    pub fn gpu(&self, dialect: Dialect) -> Result<Option<(String, String)>, AstFailure> {
        let (ctx, scop) = (self.ctx, self.scop);
        let ir = self.lowered(Device::Gpu, self.opts.intra_wavefront)?;
        if !ir.has_device_parallelism() {
            return Ok(None);
        }
        for why in ir
            .groups
            .iter()
            .filter_map(|g| crate::device::serial_why(g, dialect))
        {
            ctx.fell_back(Phase::CodeGeneration, why);
        }
        let device = DeviceCode { ir: &ir, dialect };
        let source_name = format!("polyc_cl_source_{}", scop.id);
        // The atomic updates only where some kernel combines partial results.
        let atomics = crate::atomics::helpers(dialect, &ir.atomic_updates());
        let helpers = DeviceCode::helpers(dialect) + &atomics;
        let top = match dialect {
            Dialect::Cuda => format!(
                "\n/* Kernels of SCoP {} */\n{}{}\n/* Their batch twins: one block runs a bucket's tiles in order */\n{}{}",
                scop.id,
                atomics,
                device.kernels(),
                device.batch_kernels(),
                mix_kernels(&device)
            ),
            Dialect::OpenCl => {
                let mut top = format!(
                    "\n/* Kernels of SCoP {} (OpenCL C, built when the program runs) */\nstatic const char {source_name}[] =\n{};\n\
                     /* Their batch twins (one work-group runs a bucket's tiles in order), built when a batch first runs */\nstatic const char {}[] =\n{};\n",
                    scop.id,
                    c_string(&format!("{helpers}{}", device.kernels())),
                    batch_source(&source_name),
                    c_string(&format!("{helpers}{}", device.batch_kernels()))
                );
                let mixes = mix_kernels(&device);
                if !mixes.is_empty() {
                    let _ = write!(
                        top,
                        "static const char {}[] =\n{};\n",
                        mix_source(&source_name),
                        c_string(&format!("{helpers}{mixes}"))
                    );
                }
                top
            }
        };
        let footprints = scop
            .symbols
            .data
            .values()
            .filter(|d| !d.is_scalar())
            .map(|d| (d.name.clone(), footprint::footprint(ctx, scop, &d.name)))
            .collect();
        let body = GpuHost::new(&ir, dialect, source_name, footprints).print(self.program);
        let how = match dialect {
            Dialect::OpenCl => "scheduled with Pluto, tiled with run-time tile sizes, OpenCL",
            Dialect::Cuda => "scheduled with Pluto, tiled with run-time tile sizes, CUDA",
        };
        Ok(Some((scop_block(scop, how, &body), top)))
    }

    /// The SCoP lowered for a GPU target, and the names of the parameters of its groups'
    /// code: the SCoP's, then the outer dimensions' values.
    pub fn gpu_ir(&self) -> Result<(ScopIr, Vec<String>), AstFailure> {
        let ir = self.lowered(Device::Gpu, self.opts.intra_wavefront)?;
        let mut params: Vec<String> = ir.data.params.iter().map(|p| p.name.clone()).collect();
        params.extend(ir.groups.first().into_iter().flat_map(|g| g.outer.clone()));
        Ok((ir, params))
    }

    /// The C code replacing one SCoP.
    pub fn c(&self) -> Result<String, AstFailure> {
        let (ctx, scop, schedule, prefix, opts) =
            (self.ctx, self.scop, self.schedule, self.prefix, self.opts);
        let iterators: Vec<String> = (0..schedule.n_dims())
            .map(|d| format!("{prefix}{d}"))
            .collect();
        let row = |s: usize, d: usize| match schedule.kinds[d] {
            pluto::DimKind::Scalar => None,
            pluto::DimKind::Hyperplane { .. } => Some((
                schedule.rows[s][d].coeffs.clone(),
                schedule.rows[s][d].constant,
            )),
        };
        let rec = RecoveryOptions {
            row: if opts.otl { Some(&row) } else { None },
            ..RecoveryOptions::new(&iterators)
        };
        let mut program = syntax::recover(ctx, scop, schedule.union_map(ctx, scop), &rec)?;
        program.loops_mut(&mut |l, _| {
            l.parallel = schedule.parallel_loop(l.dim, &l.body.statements())
        });
        // `long` iterators: no overflow for any `int` or `long` problem size.
        let copts = COptions {
            openmp: opts.openmp,
            index_type: "long".into(),
            indent: 2,
            probe: None,
            clauses: "",
        };
        let data = ScopData::of(scop).flat_expanded();
        let (alloc, free) = c::expanded_arrays(&data);
        let body = format!(
            "{}{}{}",
            indent(&alloc, 2),
            c::print(&data, &program, &copts),
            indent(&free, 2)
        );
        Ok(scop_block(scop, "scheduled with Pluto", &body))
    }

    /// The SCoP's tile space for `device`, lowered to the kernel IR.
    ///
    /// A GPU layout that shares out the first dimension of a diamond-tiled band among
    /// work-items (intra-tile wavefronts over every band dimension) assumes that each point's
    /// row lies in its tile's box, which a diamond's first row does not (its tiles are cut
    /// along another row): such a SCoP is lowered again with skewed tiles.
    fn lowered(&self, device: Device, force_wavefront: bool) -> Result<ScopIr, AstFailure> {
        let mark = self.ctx.fallback_mark();
        let (ir, band) = self.lower_schedule(self.schedule, device, force_wavefront)?;
        let diamond = band.filter(|&b| self.schedule.bands[b].diamond.is_some());
        let Some(b) = diamond else {
            return Ok(ir);
        };
        let maps_first = ir
            .tiled_groups()
            .any(|t| t.threads.as_ref().is_some_and(|l| l.dims().contains(&0)));
        if !maps_first {
            return Ok(ir);
        }
        let mut skewed = self.schedule.clone();
        skewed.bands[b].diamond = None;
        // What the diamond's lowering gave up on does not apply to the code.
        self.ctx.forget_fallbacks(mark..self.ctx.fallback_mark());
        Ok(self.lower_schedule(&skewed, device, force_wavefront)?.0)
    }

    /// `schedule`'s tile space for `device`, lowered, and the band it tiles.
    fn lower_schedule(
        &self,
        schedule: &pluto::Schedule,
        device: Device,
        force_wavefront: bool,
    ) -> Result<(ScopIr, Option<usize>), AstFailure> {
        let (ctx, scop) = (self.ctx, self.scop);
        let policy = match device {
            Device::Cpu => ptile::TilePolicy::CPU,
            Device::Gpu => ptile::TilePolicy::GPU,
        };
        let lower = |policy: &ptile::TilePolicy| -> Result<(ScopIr, Option<usize>), AstFailure> {
            let space = ptile::tile_space(ctx, scop, schedule, policy);
            let ir = Lowering {
                ctx,
                scop,
                schedule,
                space: &space,
                prefix: self.prefix,
                device,
                force_wavefront,
                reductions: self.opts.reductions,
                lanes: self.opts.lanes(),
            }
            .lower()?;
            Ok((ir, space.band))
        };
        let first = ctx.fallback_mark();
        let lowered = lower(&policy)?;
        // A band of one dimension is left untiled on a CPU, unless its tiles run in parallel
        // with a scalar reduction's partial results (a dot product, a norm).
        let scalar_reduction = || {
            rosepolly::analysis::reductions::find(scop)
                .iter()
                .any(|r| scop.symbols.get(&r.datum).is_some_and(|d| d.is_scalar()))
        };
        if device == Device::Cpu
            && lowered.1.is_none()
            && self.opts.reductions
            && scalar_reduction()
        {
            let one = ptile::TilePolicy { min_depth: 1 };
            // (Where that lowering fails, the first stands.) Only the fallbacks of the
            // lowering taken apply.
            let second = ctx.fallback_mark();
            if let Ok((ir, band)) = lower(&one) {
                if ir.tiled_groups().any(|t| !t.partials.is_empty()) {
                    ctx.forget_fallbacks(first..second);
                    return Ok((ir, band));
                }
            }
            ctx.forget_fallbacks(second..ctx.fallback_mark());
        }
        Ok(lowered)
    }

    /// The tiled C code replacing one SCoP (`--target c` without `--no-tile`); it runs
    /// `untiled` where tiles do not pay: the SCoP's own lines, or a call of their function
    /// ([`crate::outline`]). Where `untiled` has a call for the tiled path, the block calls it
    /// and the path is the result's `rest`.
    pub fn tiled_c(&self, untiled: &Untiled) -> Result<HostBlock, AstFailure> {
        let (scop, opts) = (self.scop, self.opts);
        let mut ir = self.lowered(Device::Cpu, false)?;
        if let (Some(jammed), Some(original)) = (untiled.jammed, ir.original.as_mut()) {
            if !jammed.statements.is_empty() {
                let bodies = tile_bodies(&ir.groups);
                original.reorder = inner_loops::reorder(scop, &bodies, &jammed.statements);
            }
            if jammed.covers_work || jammed.vectorised {
                original.jammed();
            }
            original.vectorised = jammed.vectorised;
        }
        let body = OpenMp::new(
            &ir,
            opts.openmp,
            opts.fixed_tile_sizes.as_deref(),
            untiled.code,
            untiled.tiled_call,
        )
        .print(self.program);
        let how = match &opts.fixed_tile_sizes {
            None => "scheduled with Pluto, tiled with run-time tile sizes",
            Some(_) => "scheduled with Pluto, tiled with tile sizes fixed at compile time",
        };
        Ok(HostBlock {
            code: scop_block(scop, how, &body.code),
            rest: body.rest,
        })
    }
}

/// The generated block for one SCoP, with a comment saying where it came from and how.
fn scop_block(scop: &Scop, how: &str, body: &str) -> String {
    let region = if scop.region.marked {
        "#pragma scop"
    } else {
        "an affine region"
    };
    format!(
        "  /* polyc: SCoP {} ({region}, lines {}-{}), {how} */\n  {{\n{body}  }}\n",
        scop.id, scop.region.start.line, scop.region.end.line
    )
}

/// The mix kernels of `device`'s SCoP after its batch twins, under a comment; nothing where
/// it has none.
fn mix_kernels(device: &DeviceCode) -> String {
    let kernels = device.mix_kernels();
    if kernels.is_empty() {
        return kernels;
    }
    format!("\n/* Mixes (one work-group runs the small wavefronts of a host loop's groups in order), built when a mix first runs */\n{kernels}")
}
