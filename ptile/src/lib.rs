//! Parametric tiling (thesis §6.2): the tile space of a scheduled SCoP, with tile sizes that are
//! only known when the generated program runs.
//!
//! [`tile_space`] tiles the deepest permutable band of the schedule. The dimensions in front
//! of it split the statements into *groups* (scalar dimensions) and become loops around the
//! tile loops (hyperplane dimensions, whose values are then parameters of the tile space). For
//! each group it derives what the host code needs to walk the tiles of the band:
//!
//! - per statement, the bounds of every band dimension `c_k` in terms of the outer band
//!   dimensions and the parameters, by Fourier–Motzkin elimination of the inner dimensions;
//! - which tile dimensions are parallel (Definition 4) and therefore whether the tiles run as
//!   a parallel loop or as wavefronts;
//! - the facets of the statements' images, whose evaluation at a tile's corners is the
//!   full-tile test of Algorithm 5.
//!
//! The bounds are *relaxed* over a tile at run time ([`TileGroup::tile_range`]): with the outer
//! tile coordinates fixed, each outer `c_j` may lie anywhere in its tile
//! `[T_j t_j, T_j t_j + T_j - 1]`, and each bound is taken at its loosest over that box. The
//! result contains every non-empty tile and few empty ones; the generated code then drops the
//! empty ones exactly with a probe of the intra-tile loops. The same formulas are printed as C
//! by codegen and evaluated here for tests.
//!
//! [`buffers`] finds the candidate local-memory buffers of a group's tiles (thesis §6.4.1).
//!
//! [`intra`] chooses the order of the band dimensions inside a tile, per target.
//!
//! [`locality`] tells whether the original order walks arrays across their rows.

pub mod buffers;
pub mod intra;
pub mod locality;
mod rational;
pub mod space;

pub use intra::{cpu_order, gpu_order, IntraDim, IntraOrder};
pub use space::{
    density, instance_boxes, outer_param, tile_space, tiled_band, Bound, DimBounds, Facet,
    StmtBounds, Term, TileGroup, TileMode, TilePolicy, TileSpace,
};

/// `floor(a / b)` for `b > 0`, as the generated code's `polyc_floord`.
pub fn floord(a: i64, b: i64) -> i64 {
    debug_assert!(b > 0);
    a.div_euclid(b)
}
