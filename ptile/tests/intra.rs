//! The order of the band dimensions inside a CPU tile (`ptile::cpu_order`): the parallel
//! dimension whose accesses are most often unit-stride runs innermost, parallel for the
//! group's own statements.

mod common;

use common::with_kernel;
use pluto::PlutoOptions;
use ptile::{cpu_order, tile_space, TilePolicy};

/// The band dimensions of the tile body of the group of `stmts` in `name`'s SCoP, in the order
/// the C target runs them.
fn order_of(name: &str, stmts: &[usize]) -> Vec<usize> {
    with_kernel(name, |ctx, scop| {
        let schedule = pluto::schedule(ctx, scop, &PlutoOptions::default()).unwrap();
        let space = tile_space(ctx, scop, &schedule, &TilePolicy::CPU);
        cpu_order(scop, &schedule, &space, stmts).band_dims()
    })
}

#[test]
fn a_group_runs_innermost_what_its_own_statements_leave_parallel() {
    // gramschmidt's band `(j, i)` holds the norm's reduction along `i` (S1) and the column sums
    // along `i` (S5): over the whole band both dimensions carry dependences. The column sums
    // (`R[k][j] += Q[i][k] * A[i][j]`) and updates (`A[i][j] -= Q[i][k] * R[k][j]`) run in groups
    // of their own, where `j` carries none: it runs innermost, along the rows of `A`.
    assert_eq!(order_of("gramschmidt", &[5]), [1, 0]);
    assert_eq!(order_of("gramschmidt", &[6]), [1, 0]);
    // gemm's product: `(i, k, j)`, `j` unit-stride, as before.
    assert_eq!(order_of("gemm", &[1]), [0, 2, 1]);
}
