//! The order of the band dimensions inside a tile (thesis §6.2.2).
//!
//! Inside a tile the band's dimensions may run in any order (the band is permutable), and
//! Algorithm 4 may separate the statements into components at some band dimension. The tile
//! body is generated from the band dimensions in an order chosen per target:
//!
//! - on a CPU, Algorithm 4's structure in band order, with the dimension whose accesses are
//!   most often unit-stride, among those parallel for the group's own statements, moved
//!   innermost, so that the C compiler vectorises the innermost loop;
//! - on a GPU, the sequential dimensions first (uniform loops every thread of a work-group
//!   runs, with barriers), then the cut, then the parallel dimensions (one point per
//!   work-item), the most unit-stride one last so that neighbouring work-items touch
//!   neighbouring elements (coalescing).
//!
//! Moving a parallel dimension inwards is legal: every dependence that reaches it unordered
//! has distance zero along it, so its first non-zero distance stays where it was.

use rosepolly::model::Scop;

use pluto::{DimKind, Schedule};

use crate::rational::{solve, Ratio};

use crate::space::TileSpace;

/// One dimension of the tile body's schedule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IntraDim {
    /// Band dimension `k` (relative to the band start).
    Band(usize),
    /// Algorithm 4's scalar dimension: the statement's component.
    Cut,
}

/// The tile body's dimension order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntraOrder {
    pub dims: Vec<IntraDim>,
    /// Per band dimension: parallel inside a tile (Algorithm 4).
    pub parallel: Vec<bool>,
    /// Per statement of the SCoP: its component at the cut.
    pub components: Vec<usize>,
}

impl IntraOrder {
    /// The band dimensions in order, without the cut.
    pub fn band_dims(&self) -> Vec<usize> {
        self.dims
            .iter()
            .filter_map(|d| match d {
                IntraDim::Band(k) => Some(*k),
                IntraDim::Cut => None,
            })
            .collect()
    }
}

/// Algorithm 4's structure in band order: `(dims, parallel, components)`.
fn algorithm4(scop: &Scop, space: &TileSpace) -> IntraOrder {
    let intra = space
        .intra
        .as_ref()
        .expect("a tiled space has Algorithm 4's result");
    let depth = intra.parallel.len();
    let mut dims: Vec<IntraDim> = (0..depth).map(IntraDim::Band).collect();
    if let Some(cut) = intra.cut {
        dims.insert(cut, IntraDim::Cut);
    }
    let mut components = intra.components.clone();
    components.resize(scop.statements.len(), 0);
    IntraOrder {
        dims,
        parallel: intra.parallel.clone(),
        components,
    }
}

/// The CPU order of a group's tile body.
pub fn cpu_order(
    scop: &Scop,
    schedule: &Schedule,
    space: &TileSpace,
    stmts: &[usize],
) -> IntraOrder {
    let mut order = algorithm4(scop, space);
    let start = space.band_start();
    group_parallel(&mut order, schedule, start, stmts);
    let innermost = *order.band_dims().last().expect("bands are not empty");
    let best = (0..order.parallel.len())
        .filter(|&k| order.parallel[k])
        .max_by_key(|&k| {
            (
                stride_score(scop, schedule, stmts, start + k),
                k == innermost,
            )
        });
    if let Some(k) = best {
        let gain = stride_score(scop, schedule, stmts, start + k)
            > stride_score(scop, schedule, stmts, start + innermost);
        if k != innermost && gain {
            order.dims.retain(|d| *d != IntraDim::Band(k));
            order.dims.push(IntraDim::Band(k));
        }
    }
    order
}

/// Marks parallel the band dimensions whose loops carry no dependence among the group's own
/// statements `stmts` ([`Schedule::parallel_loop`]), where Algorithm 4 over the whole band
/// found them sequential: a CPU tile runs one group's statements, and another group's
/// dependences do not order its points. gramschmidt's column update (`A[i][j] -= Q[i][k] *
/// R[k][j]`, band `(j, i)`) shares its band with the norm's reduction along `i`, which made
/// both dimensions sequential, so its tiles ran `i` innermost, striding across `A`'s rows.
fn group_parallel(order: &mut IntraOrder, schedule: &Schedule, start: usize, stmts: &[usize]) {
    for (k, parallel) in order.parallel.iter_mut().enumerate() {
        *parallel |= schedule.parallel_loop(start + k, stmts);
    }
}

/// The GPU order of a group's tile body: sequential dimensions, the cut, parallel dimensions
/// (the one to map to neighbouring work-items last). With `own_loops`, as on the CPU, the
/// dimensions parallel for the group's own statements count as parallel
/// (`group_parallel`): gemver's update `A[i][j] += ...` shares its band with sums sequential
/// along `j`, and without it one work-item ran each row, its neighbours a row apart (30
/// sectors a warp request on the CUDA emulator's memory trace, 7.5 with it). On PoCL the
/// extra work-items cost (ludcmp LARGE's kernels 2.1 -> 9.0 s), so the GPU targets take it
/// where they take lane groups (`codegen::CompileOptions::lanes`).
pub fn gpu_order(
    scop: &Scop,
    schedule: &Schedule,
    space: &TileSpace,
    stmts: &[usize],
    own_loops: bool,
) -> IntraOrder {
    let mut order = algorithm4(scop, space);
    let start = space.band_start();
    let algorithm4_parallel = order.parallel.clone();
    if own_loops {
        group_parallel(&mut order, schedule, start, stmts);
    }
    // A dimension no statement of the group loops along (a constant row, as an
    // initialisation's inner one) stays as it was: as a thread dimension it would only
    // add a coordinate of extent one to every work-item.
    for (k, parallel) in order.parallel.iter_mut().enumerate() {
        let looped = stmts
            .iter()
            .any(|&s| !schedule.rows[s][start + k].is_constant());
        *parallel = if looped {
            *parallel
        } else {
            algorithm4_parallel[k]
        };
    }
    let has_cut = order.dims.contains(&IntraDim::Cut);
    let (mut par, seq): (Vec<usize>, Vec<usize>) = order
        .band_dims()
        .into_iter()
        .partition(|&k| order.parallel[k]);
    if let Some(pos) = par
        .iter()
        .enumerate()
        .max_by_key(|(i, &k)| (stride_score(scop, schedule, stmts, start + k), *i))
        .map(|(i, _)| i)
    {
        let k = par.remove(pos);
        par.push(k);
    }
    order.dims = seq.into_iter().map(IntraDim::Band).collect();
    if has_cut {
        order.dims.push(IntraDim::Cut);
    }
    order.dims.extend(par.into_iter().map(IntraDim::Band));
    order
}

/// How well schedule dimension `d` suits the innermost position: over the statements'
/// accesses, +2 for each that moves by one element of the last array dimension when `d`
/// advances alone, −1 for each that moves along another array dimension.
pub fn stride_score(scop: &Scop, schedule: &Schedule, stmts: &[usize], d: usize) -> i64 {
    stride_score_of(scop, schedule, stmts, d, &|_| true)
}

/// [`stride_score`] over the accesses `counts` takes (a GPU's lane groups leave out the
/// accumulators of reductions, which they update in registers).
pub fn stride_score_of(
    scop: &Scop,
    schedule: &Schedule,
    stmts: &[usize],
    d: usize,
    counts: &dyn Fn(&rosepolly::model::AccessPattern) -> bool,
) -> i64 {
    let mut score = 0;
    for &s in stmts {
        let st = &scop.statements[s];
        let hyperplanes: Vec<usize> = (0..schedule.n_dims())
            .filter(|&e| schedule.kinds[e] != DimKind::Scalar)
            .collect();
        let rows: Vec<Vec<i64>> = hyperplanes
            .iter()
            .map(|&e| schedule.rows[s][e].coeffs.clone())
            .collect();
        let rhs: Vec<i64> = hyperplanes.iter().map(|&e| i64::from(e == d)).collect();
        let Some(v) = solve(&rows, &rhs) else {
            continue;
        };
        for a in st.accesses.iter().filter(|a| counts(a)) {
            let moves: Option<Vec<Ratio>> = a
                .subscripts
                .iter()
                .map(|sub| {
                    let l = sub.linear()?;
                    Some(
                        st.iterators
                            .iter()
                            .zip(&v)
                            .fold(Ratio::ZERO, |acc, (it, x)| {
                                let c = l.coeffs.get(it).copied().unwrap_or(0);
                                acc.add(x.scale(c))
                            }),
                    )
                })
                .collect();
            let Some(moves) = moves else { continue };
            let Some((last, rest)) = moves.split_last() else {
                continue;
            };
            if rest.iter().any(|m| !m.is_zero()) {
                score -= 1;
            } else if last.is_unit() {
                score += 2;
            }
        }
    }
    score
}
