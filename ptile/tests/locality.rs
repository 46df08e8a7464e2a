//! Which original orders step across array rows (`ptile::locality`), on suite kernels whose
//! loops are known: the cost model tiles those for locality alone once their data exceed the
//! cache.

mod common;

use ptile::locality::strides_across_rows;

fn strided(name: &str) -> bool {
    common::with_kernel(name, |_, scop| strides_across_rows(scop))
}

#[test]
fn column_walks_are_strided_and_row_walks_are_not() {
    // `A[j][i]` under `j`; 2mm's `B[k][j]` under `k`.
    for name in ["mvt", "gemver", "2mm", "nussinov"] {
        assert!(strided(name), "{name}");
    }
    // Rows along the innermost loop; trisolv's `L[i][i]` is outside the deepest nest.
    for name in [
        "atax",
        "bicg",
        "gemm",
        "gesummv",
        "trisolv",
        "jacobi-2d",
        "cholesky",
    ] {
        assert!(!strided(name), "{name}");
    }
}
