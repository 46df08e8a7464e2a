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

#[test]
fn recurrences_along_the_innermost_loop_weigh_their_operations() {
    let latency =
        |name: &str| common::with_kernel(name, |_, scop| ptile::locality::recurrence_latency(scop));
    // seidel-2d: `A[i][j]` from `A[i][j-1]`, eight additions and a division; adi: `p[i][j]`
    // from `p[i][j-1]` (a division), and a loop counting down (`u[i][j]` from `u[i][j+1]`).
    assert_eq!(latency("seidel-2d"), 12);
    assert!(latency("adi") >= 6, "{}", latency("adi"));
    // No recurrence: the stencils that read another array, reductions (one addition long),
    // an update of the element itself (fdtd-2d's `ey[i][j]`), a row read at a varying gap
    // (floyd-warshall's `path[i][k]` under `j`).
    for name in [
        "jacobi-1d",
        "jacobi-2d",
        "heat-3d",
        "fdtd-2d",
        "gemm",
        "atax",
        "gesummv",
        "trisolv",
        "durbin",
        "nussinov",
        "floyd-warshall",
        "gramschmidt",
        "cholesky",
    ] {
        assert_eq!(latency(name), 1, "{name}");
    }
}

#[test]
fn a_recurrence_follows_the_loop_s_stride() {
    let latency = |update: &str| {
        let text = format!(
            "void f(int n, double A[100]) {{\n  int j;\n#pragma scop\n  for (j = 2; j < n; j += 2)\n    {update};\n#pragma endscop\n}}\n"
        );
        common::with_source(&text, |_, scop| ptile::locality::recurrence_latency(scop))
    };
    // Two steps of `j += 2` back: what the step before wrote. One element back: never written.
    assert_eq!(latency("A[j] = A[j - 2] * 0.5 + 1.0"), 2);
    assert_eq!(latency("A[j] = A[j - 1] * 0.5 + 1.0"), 1);
    // Forward in a loop that counts up: read before it is written.
    assert_eq!(latency("A[j] = A[j + 2] * 0.5 + 1.0"), 1);
}

#[test]
fn a_read_the_inner_loop_writes_at_some_step_keeps_the_loop_scalar() {
    use ptile::locality::{deepest, original_cost};
    // floyd-warshall's `path[i][k]` under `j`: the loop writes it at `j = k`, and gcc's vector
    // code, guarded by a test that the written row misses it, never runs. The statement is
    // split into pieces (`rosepolly::compilation::split`), some of which never meet `j = k`,
    // but the original's lines run them all in one loop: each costs as much as a chain.
    let (cost, statements) = common::with_kernel("floyd-warshall", |_, scop| {
        (original_cost(scop), deepest(scop).count() as u32)
    });
    assert!(statements > 1, "floyd-warshall is split");
    assert_eq!(cost, 2 * statements);
    // gemm's `A[i][k]` under `j` is read alone: its loop vectorises.
    assert_eq!(
        common::with_kernel("gemm", |_, scop| original_cost(scop)),
        0
    );
}
