//! Parametric tiling (thesis §6.2): the tile space of a scheduled SCoP, with tile sizes that are
//! only known when the generated program runs.
//!
//! [`tile_space`] splits a SCoP's statements into *groups* by the scalar dimensions in front of
//! its outermost permutable band, and for each group derives what the host code needs to walk
//! the tiles of that band:
//!
//! - the convex hull of the band dimensions of all the group's statements (parametric, by isl);
//! - for every band dimension `c_k`, the hull's bounds on `c_k` in terms of the outer band
//!   dimensions and the parameters, by Fourier–Motzkin elimination of the inner dimensions;
//! - which tile dimensions are parallel (Definition 4) and therefore whether the tiles run as
//!   a parallel loop or as wavefronts.
//!
//! The bounds are *relaxed* over a tile at run time ([`TileGroup::tile_range`]): with the outer
//! tile coordinates fixed, each outer `c_j` may lie anywhere in its tile
//! `[T_j t_j, T_j t_j + T_j - 1]`, and each bound is taken at its loosest over that box. The
//! result contains every non-empty tile and few empty ones; the generated code then drops the
//! empty ones exactly with a probe of the intra-tile loops. The same formulas are printed as C
//! by codegen and evaluated here for tests.

pub mod space;

pub use space::{tile_space, Bound, DimBounds, Term, TileGroup, TileMode, TileSpace};

/// The tile size of every tiled dimension when `POLYC_TILE_SIZES` is not set.
pub const DEFAULT_TILE_SIZE: i64 = 32;

/// `floor(a / b)` for `b > 0`, as the generated code's `polyc_floord`.
pub fn floord(a: i64, b: i64) -> i64 {
    debug_assert!(b > 0);
    a.div_euclid(b)
}
