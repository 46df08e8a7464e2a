//! Device code (thesis Fig. 6.12): one kernel per group of a lowered SCoP, printed as OpenCL C
//! or CUDA from the same [`ScopIr`]. The two dialects differ only in spelling: qualifiers,
//! work-item indices, the barrier.
//!
//! A kernel recovers its tile from the tile bucket (one entry per work-group), loops over the
//! tile dimensions the host left to it, and runs the tile's code, full-tile version or not;
//! its work-items take their points from the thread bucket. Arrays are flat device buffers
//! indexed row-major with their declared extents; scalars the SCoP writes are one-element
//! buffers.

use std::fmt::Write;

use avelas_contract::kernel_args::{self, ArgType, RUNTIME_ARGS};

use rosepolly::analysis::reductions::ReductionOp;
use rosepolly::math::isl::Ctx;
use rosepolly::model::expr::{BinaryOp, Expr};
use rosepolly::model::Scop;
use rosepolly::syntax::{FLOORD, MAX, MIN};

use crate::atomics::{self, Update};
use crate::c::{self, COptions, DeviceHooks};
use crate::flushes;
use crate::footprint;
use crate::group_sums;
use crate::host::{indent, tile_loop};
use crate::ir::{
    base, origin, size, GroupCode, GroupIr, KNode, Private, ScopData, ScopIr, TiledGroup,
};
use crate::names::{unmarked, user};
use crate::staging::{self, Stager};

/// Which language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    OpenCl,
    Cuda,
}

/// What a kernel takes besides the run-time's arguments, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KernelArg {
    /// A SCoP parameter (`long`).
    Param(String),
    /// Tile size `k` (`long`).
    TileSize(usize),
    /// An array, a device buffer of `elem` (written or only read).
    Array {
        name: String,
        elem: String,
        written: bool,
    },
    /// A scalar only read, by value.
    Scalar { name: String, elem: String },
    /// A scalar the SCoP writes: a one-element buffer.
    WrittenScalar { name: String, elem: String },
}

/// The data of a SCoP as kernel arguments: parameters, tile sizes, arrays, scalars. The same
/// for every group of the SCoP and every launch: the values of the host loops around a group
/// (`polyc_x<d>`) travel with each tile in the tile bucket, so that one launch may run tiles
/// of several iterations of them (a batch).
pub fn kernel_args(ir: &ScopIr) -> Vec<KernelArg> {
    let data = &ir.data;
    let mut args: Vec<KernelArg> = data
        .params
        .iter()
        .map(|p| KernelArg::Param(p.name.clone()))
        .collect();
    args.extend((0..ir.depth).map(KernelArg::TileSize));
    for d in &data.data {
        let (name, elem) = (d.name.clone(), d.elem.clone());
        args.push(if !d.extents.is_empty() {
            KernelArg::Array {
                name,
                elem,
                written: d.written,
            }
        } else if d.written {
            KernelArg::WrittenScalar { name, elem }
        } else {
            KernelArg::Scalar { name, elem }
        });
    }
    args
}

/// The name of group `g`'s kernel in SCoP `s`.
pub fn kernel_name(scop: usize, group: usize) -> String {
    format!("polyc_k{scop}_{group}")
}

/// The name of version `v` of a kernel: `v` local-memory buffers (version 0 has none).
pub fn version_name(kernel: &str, v: usize) -> String {
    match v {
        0 => kernel.to_string(),
        v => format!("{kernel}_b{v}"),
    }
}

/// Barriers in a group's OpenCL kernel past which each tile runs on one work-item, without
/// barriers ([`serial`]). The suite's kernels have at most 32 (fdtd-2d's staged versions).
pub const SERIAL_BARRIERS: usize = 48;

/// Barriers in one loop's body (not counting those of loops inside it) past which each tile
/// runs on one work-item too ([`serial`]). The suite's kernels have at most 4 (fdtd-2d, cholesky).
pub const SERIAL_LOOP_BARRIERS: usize = 4;

/// Loops holding barriers of their own past which each tile runs on one work-item too
/// ([`serial`]). The suite's kernels have at most 8.
pub const SERIAL_BARRIER_LOOPS: usize = 8;

/// Whether group `g`'s OpenCL kernels run each tile on a work-group of one work-item, printed
/// without barriers. PoCL's work-group compiler takes exponential time on some kernels with
/// many barrier regions (BarrierTailReplication, pocl issue #205): differential seed 6400,
/// 66 barriers, did not build in 120 s, and builds in 4 s without them. One work-item runs
/// the tile's points in the order its barriers kept, so the results are the same; tiles
/// still run in parallel. CUDA keeps its barriers (nvcc has no such pass).
///
/// Fewer barriers cost as much where loops hold several: differential seed 47800, 26 barriers
/// in eleven loops of which two hold 7 and 6, took 56 s to build on its first run (its first
/// three loops, with 1, 4 and 7, took 4 s; the first six 25 s), where fdtd-2d's kernel, 26
/// barriers in eight loops of at most 4, builds in about a second.
///
/// And so do many loops with few barriers each: differential seed 62160, 24 barriers in twelve
/// loops of at most 4, took 130 s to build for one work-group size (PoCL builds again for each):
/// its first 4, 6, 8, 10 loops 0.6, 1.4, 2.7 and 17 s.
pub fn serial(g: &GroupIr, dialect: Dialect) -> bool {
    serial_why(g, dialect).is_some()
}

/// Why group `g`'s kernels are [`serial`], for `--dump fallbacks`; `None` where they are not.
pub fn serial_why(g: &GroupIr, dialect: Dialect) -> Option<String> {
    let is_barrier = |n: &KNode| *n == KNode::Barrier;
    let codes: Vec<&KNode> = match &g.code {
        GroupCode::Untiled(code) => vec![code],
        GroupCode::Tiled(t) => std::iter::once(&t.body).chain(&t.full_body).collect(),
    };
    let barriers: usize = codes.iter().map(|c| c.count(&is_barrier)).sum();
    let in_one_loop = codes.iter().map(|c| loop_barriers(c)).max().unwrap_or(0);
    let loops: usize = codes.iter().map(|c| barrier_loops(c)).sum();
    let why = if barriers > SERIAL_BARRIERS {
        format!("{barriers} barriers, over {SERIAL_BARRIERS}")
    } else if in_one_loop > SERIAL_LOOP_BARRIERS {
        format!("{in_one_loop} barriers in one loop, over {SERIAL_LOOP_BARRIERS}")
    } else if loops > SERIAL_BARRIER_LOOPS {
        format!("{loops} loops holding barriers, over {SERIAL_BARRIER_LOOPS}")
    } else {
        return None;
    };
    (dialect == Dialect::OpenCl).then(|| {
        format!(
            "the OpenCL kernels of group {} ({}) run each tile on one work-item, without barriers ({why}): PoCL's kernel compiler takes minutes on such kernels",
            g.index,
            g.names.join(", ")
        )
    })
}

/// The barriers of `n` outside the loops inside it.
fn own_barriers(n: &KNode) -> usize {
    match n {
        KNode::Barrier => 1,
        KNode::For(_) => 0,
        other => other.children().into_iter().map(own_barriers).sum(),
    }
}

/// The loops inside `n` (itself included) that hold barriers of their own.
fn barrier_loops(n: &KNode) -> usize {
    let here = match n {
        KNode::For(l) => usize::from(own_barriers(&l.body) > 0),
        _ => 0,
    };
    here + n.children().into_iter().map(barrier_loops).sum::<usize>()
}

/// The most barriers one loop inside `n` holds outside the loops inside it.
fn loop_barriers(n: &KNode) -> usize {
    let here = match n {
        KNode::For(l) => own_barriers(&l.body),
        _ => 0,
    };
    n.children()
        .into_iter()
        .map(loop_barriers)
        .max()
        .unwrap_or(0)
        .max(here)
}

/// The name of the batch twin of kernel version `name` (one work-group runs a whole bucket).
pub fn batch_name(name: &str) -> String {
    format!("{name}_seq")
}

/// Whether mix kernels run on one work-item, printed without barriers: on OpenCL, where a
/// mix's barriers would sit in loops of every group's code (adi's fourteen), past what PoCL's
/// work-group compiler builds in reasonable time ([`serial`]); a mix runs on one work-group,
/// which PoCL runs on one core anyway. CUDA keeps its barriers.
pub fn mix_serial(dialect: Dialect) -> bool {
    dialect == Dialect::OpenCl
}

/// How many versions beyond version 0 a group's kernel has.
pub fn versions(g: &GroupIr) -> usize {
    match &g.code {
        GroupCode::Tiled(t) => t.staging.versions(),
        GroupCode::Untiled(_) => 0,
    }
}

/// Prints the kernels of one SCoP.
pub struct DeviceCode<'a> {
    pub ir: &'a ScopIr,
    pub dialect: Dialect,
}

impl DeviceCode<'_> {
    /// Helpers the kernels call, once per file.
    pub fn helpers(dialect: Dialect) -> String {
        let q = match dialect {
            Dialect::OpenCl => "inline",
            Dialect::Cuda => "static __device__ __forceinline__",
        };
        let mut s = String::new();
        if dialect == Dialect::OpenCl {
            s.push_str(
                "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n#pragma OPENCL FP_CONTRACT OFF\n",
            );
        }
        let _ = writeln!(s, "#define {MIN}(a, b) ((a) < (b) ? (a) : (b))");
        let _ = writeln!(s, "#define {MAX}(a, b) ((a) > (b) ? (a) : (b))");
        let _ = writeln!(
            s,
            "#define {FLOORD}(n, d) (((n) < 0) ? -((-(n) + (d) - 1) / (d)) : (n) / (d))"
        );
        let _ = writeln!(
            s,
            "{q} long polyc_lmin(long a, long b) {{ return a < b ? a : b; }}"
        );
        let _ = writeln!(
            s,
            "{q} long polyc_lmax(long a, long b) {{ return a > b ? a : b; }}"
        );
        let _ = writeln!(
            s,
            "{q} long polyc_lfloord(long n, long d) {{ return n >= 0 ? n / d : -((-n + d - 1) / d); }}"
        );
        s.push_str(&staging::helper(dialect));
        s
    }

    /// Every group's kernel.
    pub fn kernels(&self) -> String {
        self.of(false)
    }

    /// Every kernel version's batch twin ([`batch_name`]).
    pub fn batch_kernels(&self) -> String {
        self.of(true)
    }

    fn of(&self, batch: bool) -> String {
        self.ir
            .groups
            .iter()
            .flat_map(|g| (0..=versions(g)).map(move |v| self.kernel(g, v, batch)))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Version `version` of group `g`'s kernel: it stages the `version` best buffers. Its
    /// `batch` twin ([`batch_name`]) runs every tile of the bucket on one work-group, in order.
    fn kernel(&self, g: &GroupIr, version: usize, batch: bool) -> String {
        let mut params = self.params(&|a| a.name.to_string());
        if version > 0 {
            params.extend(staging::parameter(self.dialect).map(String::from));
        }
        let serial = serial(g, self.dialect);
        let mut name = version_name(&kernel_name(self.ir.id, g.index), version);
        if batch {
            name = batch_name(&name);
        }
        let mut out = String::new();
        let _ = writeln!(
            out,
            "/* group {}: {:?}{}{} */\n{} {}(\n    {})\n{{",
            g.index,
            g.names,
            if serial {
                ", one work-item per tile (too many barriers for PoCL)"
            } else {
                ""
            },
            match &g.code {
                GroupCode::Tiled(t) if !t.combined.is_empty() => {
                    ", each work-group combines its work-items' partial results and adds them once"
                }
                GroupCode::Tiled(t) if t.lanes > 0 => {
                    ", lane groups sum each entry's points and add them once"
                }
                _ => "",
            },
            self.head(),
            name,
            params.join(",\n    ")
        );
        if let GroupCode::Tiled(t) = &g.code {
            out.push_str(&indent(
                &group_sums::local_arrays(self.dialect, &t.combined),
                2,
            ));
            out.push_str(&indent(
                &crate::lanes::local_arrays(self.dialect, &t.lane_privates()),
                2,
            ));
        }
        if !batch {
            let _ = writeln!(out, "  const long polyc_e = {};", self.ids().0);
            let _ = writeln!(out, "  if (polyc_e >= polyc_tb_n) return;");
        }
        out.push_str(&self.prologue(&params));
        let (declarations, body) = self.body(g, version, serial);
        out.push_str(&declarations);
        if batch {
            // A batch of small wavefronts: this work-group runs every tile, in the bucket's
            // order. A twin rather than a loop in every kernel: PoCL builds a kernel whose
            // barriers sit in one more loop 20-25% slower (adi's first run 2.9 -> 3.6 s), and
            // builds a twin only when a batch launches it.
            out.push_str(&self.tile_loop("polyc_tb_n", &body, serial));
        } else {
            out.push_str(&body);
        }
        out.push_str("}\n");
        out
    }

    /// The kernel's head, before its name.
    fn head(&self) -> &'static str {
        match self.dialect {
            Dialect::Cuda => "extern \"C\" __global__ void",
            Dialect::OpenCl => "__kernel void",
        }
    }

    /// The qualifier of a pointer to device memory.
    fn global(&self) -> &'static str {
        match self.dialect {
            Dialect::Cuda => "",
            Dialect::OpenCl => "__global ",
        }
    }

    /// The work-group's index, the work-item's and the work-group's size, as C expressions.
    fn ids(&self) -> (&'static str, &'static str, &'static str) {
        match self.dialect {
            Dialect::Cuda => (
                "(long)blockIdx.x + (long)gridDim.x * (long)blockIdx.y",
                "(long)threadIdx.x",
                "(long)blockDim.x",
            ),
            Dialect::OpenCl => (
                "(long)get_group_id(0) + (long)get_num_groups(0) * (long)get_group_id(1)",
                "(long)get_local_id(0)",
                "(long)get_local_size(0)",
            ),
        }
    }

    /// A kernel's parameters: the run-time's, named by `name`, then the SCoP's data.
    fn params(&self, name: &dyn Fn(&kernel_args::RuntimeArg) -> String) -> Vec<String> {
        let glob = self.global();
        // Each array and written scalar has a device buffer of its own (the host runs the SCoP
        // on the device only where the user's arrays are apart), so no two pointers alias:
        // the compiler may keep an element in a register across a loop and read what no
        // work-item writes through the read-only cache.
        let restrict = match self.dialect {
            Dialect::Cuda => "__restrict__ ",
            Dialect::OpenCl => "restrict ",
        };
        // The run-time's arguments first, as the contract orders them.
        let mut params: Vec<String> = RUNTIME_ARGS
            .iter()
            .map(|a| match a.ty {
                ArgType::Longs => format!("{glob}const long *{}", name(a)),
                ArgType::Ints => format!("{glob}const int *{}", name(a)),
                ArgType::Long => format!("const long {}", name(a)),
            })
            .collect();
        for a in kernel_args(self.ir) {
            params.push(match a {
                KernelArg::Param(n) => format!("const long {}", user(&n)),
                KernelArg::TileSize(k) => format!("const long {}", size(k)),
                KernelArg::Array {
                    name,
                    elem,
                    written,
                } => {
                    let c = if written { "" } else { "const " };
                    format!("{glob}{c}{elem} *{restrict}{}", user(&name))
                }
                KernelArg::Scalar { name, elem } => format!("const {elem} {}", user(&name)),
                KernelArg::WrittenScalar { name, elem } => {
                    format!("{glob}{elem} *{restrict}{}", user(&name))
                }
            });
        }
        params
    }

    /// The work-item's index and the work-group's size, and every parameter marked used.
    fn prologue(&self, params: &[String]) -> String {
        let (_, lid, wg) = self.ids();
        let mut out = format!("  const long polyc_lid = {lid};\n  const long polyc_wg = {wg};\n");
        let _ = writeln!(
            out,
            "  (void)polyc_lid; (void)polyc_wg; (void)polyc_th; (void)polyc_th_off; (void)polyc_th_stride; (void)polyc_nwaves;"
        );
        // Every kernel receives all the SCoP's data; the ones it does not touch are used here.
        let unused: Vec<String> = params[kernel_args::COUNT..]
            .iter()
            .filter(|p| !p.contains("polyc_lm"))
            .map(|p| format!("(void){};", p.rsplit([' ', '*']).next().unwrap_or(p)))
            .collect();
        let _ = writeln!(out, "  {}", unused.join(" "));
        out
    }

    /// Group `g`'s code for the bucket entry `polyc_e`, staging version `version`'s buffers:
    /// the declarations it needs once per kernel, and the code.
    fn body(&self, g: &GroupIr, version: usize, serial: bool) -> (String, String) {
        let mut declarations = String::new();
        let mut body = String::new();
        // The bucket's rows after the tags hold the outer values.
        let tag_row = match &g.code {
            GroupCode::Tiled(t) => t.host_dims,
            GroupCode::Untiled(_) => 0,
        };
        for (j, x) in g.outer.iter().enumerate() {
            let _ = writeln!(
                body,
                "  const long {x} = polyc_tb[{} * polyc_tb_stride + polyc_e]; (void){x};",
                tag_row + 1 + j
            );
        }
        body.push_str(&match &g.code {
            GroupCode::Untiled(code) => self.print(code, 2, None, serial),
            GroupCode::Tiled(t) => {
                let linearize = |a: &str, s: &[Expr]| linearize(&self.ir.data, a, s.to_vec());
                let stager = Stager {
                    staging: &t.staging,
                    data: &self.ir.data,
                    dialect: self.dialect,
                    version,
                    linearize: &linearize,
                };
                if version > 0 {
                    declarations = indent(&stager.declarations(), 2);
                }
                self.tiled(t, &stager, serial)
            }
        });
        (declarations, body)
    }

    /// `body` for each bucket entry `polyc_e` below `count`, one after the other, a barrier
    /// after each (none where `serial`).
    fn tile_loop(&self, count: &str, body: &str, serial: bool) -> String {
        let mut out = format!("  for (long polyc_e = 0; polyc_e < {count}; polyc_e++) {{\n");
        out.push_str(&indent(body, 2));
        let wait = barrier(self.dialect, serial);
        if !wait.is_empty() {
            let _ = writeln!(out, "    {wait}");
        }
        out.push_str("  }\n");
        out
    }

    /// Every mix's kernel ([`flushes::mixes`]).
    pub fn mix_kernels(&self) -> String {
        flushes::mixes(self.ir)
            .iter()
            .enumerate()
            .map(|(m, groups)| self.mix_kernel(m, groups))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Mix `m`'s kernel: for each wavefront the mix holds (a *run*: its group's position,
    /// where its entries start, how many, their stride), the group's code (version 0) on each
    /// entry, with the group's thread bucket; a barrier after each entry, none where the
    /// kernel is [`mix_serial`]. The layout is avelas-rt's `mix`.
    fn mix_kernel(&self, m: usize, groups: &[usize]) -> String {
        let serial = mix_serial(self.dialect);
        let glob = self.global();
        let mix_name = |a: &kernel_args::RuntimeArg| match a.name {
            "polyc_tb" => "polyc_mx".to_string(),
            "polyc_tb_n" => "polyc_mx_n".to_string(),
            "polyc_th" => "polyc_mth".to_string(),
            "polyc_th_off" => "polyc_mth_off".to_string(),
            other => format!("{other}_mix"),
        };
        let params = self.params(&mix_name);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "/* mix {m}: the small wavefronts of groups {groups:?}, in the host's order{} */\n{} {}(\n    {})\n{{",
            if serial { ", on one work-item" } else { "" },
            self.head(),
            flushes::kernel_name(self.ir.id, m),
            params.join(",\n    ")
        );
        let (_, lid, wg) = self.ids();
        let _ = writeln!(
            out,
            "  const long polyc_lid = {lid};\n  const long polyc_wg = {wg};"
        );
        let unused: Vec<String> = params
            .iter()
            .map(|p| format!("(void){};", p.rsplit([' ', '*']).next().unwrap_or(p)))
            .collect();
        let _ = writeln!(
            out,
            "  (void)polyc_lid; (void)polyc_wg; {}",
            unused.join(" ")
        );
        // The layout's head: MIX_HEAD values per group, then per run.
        let head = kernel_args::MIX_HEAD;
        let runs = head * groups.len();
        let _ = writeln!(
            out,
            "  for (long polyc_m = 0; polyc_m < polyc_mx_n; polyc_m++) {{\n    \
             const long polyc_mg = polyc_mx[{runs} + {head} * polyc_m], polyc_mb = polyc_mx[{runs} + {head} * polyc_m + 1];\n    \
             const long polyc_mn = polyc_mx[{runs} + {head} * polyc_m + 2], polyc_ms = polyc_mx[{runs} + {head} * polyc_m + 3];"
        );
        for (p, &g) in groups.iter().enumerate() {
            let group = &self.ir.groups[g];
            let (declarations, body) = self.body(group, 0, serial);
            debug_assert!(declarations.is_empty(), "version 0 declares nothing");
            let h = head * p;
            let block = format!(
                "/* group {g}: {:?} */\n\
                 {glob}const long *polyc_tb = polyc_mx + polyc_mb;\n\
                 const long polyc_tb_stride = polyc_ms;\n\
                 {glob}const int *polyc_th = polyc_mth + polyc_mx[{h}];\n\
                 {glob}const int *polyc_th_off = polyc_mth_off + polyc_mx[{}];\n\
                 const long polyc_th_stride = polyc_mx[{}];\n\
                 const long polyc_nwaves = polyc_mx[{}];\n\
                 (void)polyc_tb; (void)polyc_tb_stride; (void)polyc_th; (void)polyc_th_off; (void)polyc_th_stride; (void)polyc_nwaves;\n",
                group.names,
                h + 1,
                h + 2,
                h + 3
            );
            let _ = writeln!(
                out,
                "    if (polyc_mg == {p}) {{\n{}{}    }}",
                indent(&block, 6),
                indent(&self.tile_loop("polyc_mn", &body, serial), 4)
            );
        }
        out.push_str("  }\n}\n");
        out
    }

    /// A tiled group's kernel body: its tile from the bucket, inner tile loops, the tile code
    /// (between the moves of its buffers when the version has some).
    fn tiled(&self, t: &TiledGroup, stager: &Stager, serial: bool) -> String {
        let stage = Some(stager);
        let mut out = String::new();
        for (k, (lo, hi)) in t.points.iter().enumerate() {
            let _ = writeln!(
                out,
                "  const long polyc_plo{k} = {lo}, polyc_phi{k} = {hi};"
            );
            let _ = writeln!(out, "  (void)polyc_plo{k}; (void)polyc_phi{k};");
        }
        for k in 0..t.host_dims {
            let _ = writeln!(
                out,
                "  const long polyc_t{k} = polyc_tb[{k} * polyc_tb_stride + polyc_e];"
            );
            let _ = writeln!(out, "  const long polyc_o{k} = polyc_t{k} * {};", size(k));
        }
        if t.host_dims == 0 {
            // A group whose tiles one work-group walks by itself reads no tile bucket.
            let _ = writeln!(out, "  (void)polyc_tb; (void)polyc_tb_stride;");
        }
        let from_bucket = t.host_dims == t.depth;
        if from_bucket {
            let _ = writeln!(
                out,
                "  const int polyc_full = (int)polyc_tb[{} * polyc_tb_stride + polyc_e];",
                t.host_dims
            );
        }
        // With buffers, each branch of the full-tile switch moves them in and out itself:
        // PoCL's work-group compiler fails an assertion ("Incoming edges to non-entry block")
        // on a switch with barriers inside that follows the move-in's barrier (trmm).
        // A version staging an exclusive array runs a tile whose boxes of it overlap (lu's
        // diagonal tiles) from global memory.
        let stage_tile = |body: &KNode| {
            let staged = self.print(body, 0, stage, serial);
            if stager.version == 0 {
                return staged;
            }
            let moved = stager.moves(&staged, &barrier(self.dialect, serial));
            let tile = match stager.apart() {
                Some(apart) => format!(
                    "const int polyc_apart = {apart};\nif (polyc_apart) {{\n{}}} else {{\n{}}}\n",
                    indent(&moved, 2),
                    indent(&self.print(body, 0, None, serial), 2)
                ),
                None => moved,
            };
            format!("{}{tile}", stager.origins())
        };
        let mut code = match &t.full_body {
            Some(full) => format!(
                "if (polyc_full) {{\n{}}} else {{\n{}}}\n",
                indent(&stage_tile(full), 2),
                indent(&stage_tile(&t.body), 2)
            ),
            None => stage_tile(&t.body),
        };
        let bases: String = (0..t.depth)
            .map(|k| {
                format!(
                    "const long {b} = polyc_lmax({}, polyc_plo{k}); (void){b};\n",
                    origin(k),
                    b = base(k)
                )
            })
            .collect();
        if !from_bucket {
            let full = t.full_test.as_ref().map_or("0".into(), |e| e.to_string());
            code = format!("const int polyc_full = {full};\n(void)polyc_full;\n{bases}{code}");
        } else {
            code = format!("(void)polyc_full;\n{bases}{code}");
        }
        for k in (t.host_dims..t.depth).rev() {
            let (lo, hi) = &t.ranges[k];
            code = tile_loop(k, &lo.to_string(), &hi.to_string(), &code, false);
        }
        if !t.combined.is_empty() {
            code = format!(
                "{}{code}{}",
                group_sums::partial_results(self.dialect, &t.combined),
                self.combination(&t.combined, serial)
            );
        }
        out.push_str(&indent(&code, 2));
        out
    }

    /// The work-group's combination of `privates` after its tile ([`group_sums`]).
    fn combination(&self, privates: &[Private], serial: bool) -> String {
        let hooks = Hooks {
            data: &self.ir.data,
            dialect: self.dialect,
            stager: None,
            serial,
        };
        let targets: Vec<String> = privates
            .iter()
            .map(|p| c::device_accumulator(&self.ir.data, &hooks, p.stmt, &p.args).to_string())
            .collect();
        group_sums::combination(
            self.dialect,
            privates,
            &targets,
            &barrier(self.dialect, serial),
        )
    }

    fn print(&self, code: &KNode, extra: usize, stager: Option<&Stager>, serial: bool) -> String {
        let opts = COptions {
            openmp: false,
            index_type: "long".into(),
            indent: 2 + extra,
            probe: None,
            clauses: "",
        };
        let hooks = Hooks {
            data: &self.ir.data,
            dialect: self.dialect,
            stager: stager.filter(|s| s.version > 0),
            serial,
        };
        c::print_k(&self.ir.data, code, &opts, Some(&hooks))
    }
}

/// The work-group's barrier; none for a work-group of one work-item ([`serial`]).
fn barrier(dialect: Dialect, serial: bool) -> String {
    match dialect {
        _ if serial => String::new(),
        Dialect::OpenCl => "barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);".into(),
        Dialect::Cuda => "__syncthreads();".into(),
    }
}

/// The flat, row-major index of `subscripts` in an array whose extents past the first are
/// `inner`: `((s_0 · E_1 + s_1) · E_2 + s_2) ...`.
pub fn row_major(subscripts: Vec<Expr>, inner: &[Expr]) -> Expr {
    let mut subs = subscripts.into_iter();
    let first = subs.next().unwrap_or(Expr::int(0));
    subs.zip(inner).fold(first, |lin, (s, ext)| {
        Expr::binary(
            BinaryOp::Add,
            Expr::binary(BinaryOp::Mul, lin, ext.clone()),
            s,
        )
    })
}

/// `array[subscripts]` on the device, where arrays are flat and row-major (the first extent,
/// which the declaration may not give, is not needed).
fn linearize(data: &ScopData, array: &str, subscripts: Vec<Expr>) -> Expr {
    let array = array.to_string();
    match data.datum(unmarked(&array)) {
        Some(d) if subscripts.len() == d.extents.len() && d.extents.len() > 1 => {
            let inner: Vec<Expr> = d.extents[1..]
                .iter()
                .map(|e| {
                    e.clone()
                        .expect("the GPU targets check inner extents first")
                })
                .collect();
            Expr::Index {
                array,
                subscripts: vec![row_major(subscripts, &inner)],
            }
        }
        _ => Expr::Index { array, subscripts },
    }
}

struct Hooks<'a> {
    data: &'a ScopData,
    dialect: Dialect,
    /// The kernel version's buffers, when it has some.
    stager: Option<&'a Stager<'a>>,
    /// One work-item per work-group: no barriers ([`serial`]).
    serial: bool,
}

impl Hooks<'_> {
    /// Statement `stmt`'s references that a buffer of this version holds, redirected to it;
    /// a write also sets the element's flag.
    fn staged(&self, stmt: usize, e: Expr) -> Expr {
        let Some(stager) = self.stager else {
            return e;
        };
        let Some(refs) = stager.staging.refs.get(&stmt) else {
            return e;
        };
        let mut n = 0;
        let e = e.map(&mut |x| match x {
            Expr::Index { array, subscripts } => {
                let b = refs.get(n).copied().flatten();
                n += 1;
                match b {
                    Some(b) if b < stager.count() => stager.element(b, subscripts),
                    _ => Expr::Index { array, subscripts },
                }
            }
            other => other,
        });
        match e {
            Expr::Assign { op, lhs, rhs } => {
                let lhs = match *lhs {
                    Expr::Index { array, subscripts } => {
                        let flagged = (0..stager.count()).find(|&b| {
                            staging::bl(b) == array && stager.staging.buffers[b].written
                        });
                        match flagged {
                            Some(b) => Expr::Index {
                                array,
                                subscripts: vec![Expr::Call {
                                    func: staging::MARK.into(),
                                    args: vec![Expr::var(staging::bf(b)), subscripts[0].clone()],
                                }],
                            },
                            None => Expr::Index { array, subscripts },
                        }
                    }
                    other => other,
                };
                Expr::Assign {
                    op,
                    lhs: Box::new(lhs),
                    rhs,
                }
            }
            other => other,
        }
    }
}

impl DeviceHooks for Hooks<'_> {
    fn statement(&self, stmt: usize, e: Expr) -> Expr {
        let data = self.data;
        let e = self.staged(stmt, e);
        e.map(&mut |n| match n {
            Expr::Index { array, subscripts } if !array.starts_with("polyc_bl") => {
                linearize(data, &array, subscripts)
            }
            // OpenCL C overloads its math functions on the argument type: `expf` is `exp`.
            Expr::Call { func, args } if self.dialect == Dialect::OpenCl => Expr::Call {
                func: opencl_math(&func),
                args,
            },
            Expr::Var(v) => match data.datum(unmarked(&v)) {
                Some(d) if d.extents.is_empty() && d.written => Expr::Index {
                    array: v,
                    subscripts: vec![Expr::int(0)],
                },
                _ => Expr::Var(v),
            },
            other => other,
        })
    }

    fn barrier(&self) -> String {
        barrier(self.dialect, self.serial)
    }

    fn points_open(&self, wave: &Expr, vars: &[String], origins: &[String]) -> Vec<String> {
        let mut lines = vec![format!(
            "for (long polyc_r = polyc_th_off[{wave}] + polyc_lid; polyc_r < polyc_th_off[{wave} + 1]; polyc_r += polyc_wg) {{"
        )];
        lines.push("if (polyc_th[polyc_r] < 0) continue;".into());
        for (j, (v, o)) in vars.iter().zip(origins).enumerate() {
            lines.push(format!(
                "const long {v} = {o} + polyc_th[{j} * polyc_th_stride + polyc_r];"
            ));
        }
        lines
    }

    fn single(&self) -> String {
        "polyc_lid == 0".into()
    }

    fn identity(&self, op: ReductionOp, elem: &str) -> &'static str {
        atomics::identity(self.dialect, op, elem)
    }

    fn atomic_update(&self, update: &Update, target: &Expr, value: &str) -> String {
        format!("{}(&{target}, {value});", update.helper())
    }
    fn lanes_close(&self, privates: &[Private], targets: &[Expr]) -> Vec<String> {
        crate::lanes::close(self.dialect, privates, targets, &self.barrier())
    }
    /// OpenCL only: PoCL needs it (see [`crate::c`]'s entered loops); CUDA's compiler does
    /// not, and the CUDA code measured on the H100 stays as it was.
    fn entered_barrier_loops(&self) -> bool {
        self.dialect == Dialect::OpenCl && !self.serial
    }
}

/// The OpenCL C name of a C math function (`sqrtf`, `sqrtl` → `sqrt`).
fn opencl_math(func: &str) -> String {
    const OVERLOADED: &[&str] = &[
        "sqrt", "exp", "exp2", "log", "log2", "log10", "pow", "fabs", "floor", "ceil", "sin",
        "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "fmin", "fmax",
        "fmod", "round", "trunc", "cbrt", "hypot", "erf", "erfc", "tgamma", "lgamma", "expm1",
        "log1p", "copysign", "fma",
    ];
    match func.strip_suffix('f').or_else(|| func.strip_suffix('l')) {
        Some(base) if OVERLOADED.contains(&base) => base.to_string(),
        _ => func.to_string(),
    }
}

/// Why a SCoP cannot run on a GPU target, if it cannot: an array whose inner extents the
/// declaration does not give (kernels index arrays row-major), or whose first extent it does
/// not give and whose accesses do not bound it either (the device buffer holds the rows the
/// SCoP touches).
pub fn unsupported<'c>(ctx: &'c Ctx, scop: &Scop<'c>) -> Option<String> {
    for d in scop.symbols.data.values() {
        if d.extents.iter().skip(1).any(Option::is_none) {
            return Some(format!(
                "array '{}' has an inner dimension whose extent its declaration does not give; the OpenCL and CUDA kernels index arrays row-major and need every extent but the first",
                d.name
            ));
        }
        if d.extents.first().is_some_and(Option::is_none)
            && footprint::footprint(ctx, scop, &d.name).rows_c().is_none()
        {
            return Some(format!(
                "the declaration of array '{}' does not give its first extent, and its accesses do not bound it",
                d.name
            ));
        }
        if d.elem_type.contains("long double") {
            return Some(format!(
                "'{}' has type long double, which OpenCL and CUDA devices do not have",
                d.name
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group_with_barriers(n: usize) -> GroupIr {
        let inner = KNode::Block(vec![KNode::Barrier; n / 2]);
        let code = KNode::Block(vec![
            KNode::If {
                cond: Expr::var("c"),
                then: Box::new(inner),
                other: None,
            },
            KNode::Block(vec![KNode::Barrier; n - n / 2]),
        ]);
        GroupIr {
            index: 0,
            names: vec!["S0".into()],
            outer: Vec::new(),
            code: GroupCode::Untiled(code),
        }
    }

    #[test]
    fn only_opencl_kernels_past_the_limit_run_serially() {
        let at = group_with_barriers(SERIAL_BARRIERS);
        let past = group_with_barriers(SERIAL_BARRIERS + 1);
        assert!(!serial(&at, Dialect::OpenCl));
        assert!(serial(&past, Dialect::OpenCl));
        assert!(!serial(&past, Dialect::Cuda));
    }

    /// `loops` loops one after the other, each holding one barrier of its own.
    fn group_with_barrier_loops(loops: usize) -> GroupIr {
        let one = |k: usize| {
            KNode::For(crate::ir::KLoop {
                var: format!("c{k}"),
                init: Expr::int(0),
                cond: Expr::var("c"),
                step: 1,
                body: Box::new(KNode::Barrier),
                parallel: false,
            })
        };
        GroupIr {
            index: 0,
            names: vec!["S0".into()],
            outer: Vec::new(),
            code: GroupCode::Untiled(KNode::Block((0..loops).map(one).collect())),
        }
    }

    #[test]
    fn kernels_with_many_barrier_loops_run_serially_on_opencl() {
        let at = group_with_barrier_loops(SERIAL_BARRIER_LOOPS);
        let past = group_with_barrier_loops(SERIAL_BARRIER_LOOPS + 1);
        assert!(!serial(&at, Dialect::OpenCl));
        assert!(serial(&past, Dialect::OpenCl));
        assert!(!serial(&past, Dialect::Cuda));
    }

    #[test]
    fn a_serial_kernel_prints_no_barrier() {
        assert!(barrier(Dialect::OpenCl, true).is_empty());
        assert!(barrier(Dialect::OpenCl, false).starts_with("barrier("));
        assert_eq!(barrier(Dialect::Cuda, false), "__syncthreads();");
    }
}
