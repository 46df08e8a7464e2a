//! Which original orders step across array rows (`ptile::locality`), on suite kernels whose
//! loops are known: the cost model tiles those for locality alone once their data exceed the
//! cache.

use ptile::locality::strides_across_rows;
use rosepolly::compilation::{self, Detection, SourceOptions, SourceUnit};
use rosepolly::math::isl::Ctx;

fn strided(name: &str) -> bool {
    let k = polybench::kernel(name).unwrap();
    let opts = SourceOptions {
        include_dirs: vec![polybench::utilities_of(&k)],
        defines: vec!["MINI_DATASET".into()],
        ..SourceOptions::default()
    };
    let src = SourceUnit::load(&k.source, &opts).unwrap();
    let ctx = Ctx::new();
    let scops = compilation::build_models(&ctx, &src, Detection::Pragmas).unwrap();
    strides_across_rows(&scops[0])
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
