//! Where tiles do not pay, the C target calls the SCoP's own lines in a function of their own
//! (`codegen/src/outline.rs`), except where the lines could mean something else there; its
//! tiled path then goes in a function of its own too. That
//! the programs still compute what the originals compute is `tests/semantics.rs`'s and
//! `tests/tiled_c.rs`'s job; this test checks which SCoPs move, so that a change that quietly
//! stops outlining (and brings back the slower untiled code) fails.

mod common;

use polybench::harness::{scratch_dir, Build};

/// The functions `polyc_scop<N>_lines` that `text` defines.
fn outlined(text: &str) -> Vec<usize> {
    defined(text, "_lines(")
}

/// The SCoPs `N` whose function `polyc_scop<N><suffix>` `text` defines.
fn defined(text: &str, suffix: &str) -> Vec<usize> {
    text.lines()
        .filter_map(|l| l.strip_prefix("void polyc_scop"))
        .filter_map(|rest| rest.split_once(suffix)?.0.parse().ok())
        .collect()
}

#[test]
fn the_lines_move_where_they_mean_the_same() {
    let work = scratch_dir("outlined-lines");
    let input = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/inputs/semantics/outlined-lines.c");
    let out = work.join("outlined-lines.c");
    let (code, err) = common::polyc_to(&input, "c", &out);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    // SCoP 3's local array goes by pointer; 4 has a local enum, 5 a head after a comment's
    // end, 6 a `register` iterator.
    assert_eq!(outlined(&text), [0, 1, 2, 3], "{text}");
    // The tiled paths of the same SCoPs go in functions of their own.
    assert_eq!(defined(&text, "_tiled("), [0, 1, 2, 3], "{text}");
    // Each lines' function is called twice: by the tiled path's function after the run-time
    // decision, and where nothing but the cost model decides, before any set-up, by the
    // user's function, which calls the tiled path's function otherwise. Each definition lies
    // before its calls.
    for id in [0, 1, 2, 3] {
        let at = |name: &str| -> Vec<usize> { text.match_indices(name).map(|(i, _)| i).collect() };
        let lines = at(&format!("polyc_scop{id}_lines("));
        let tiled = at(&format!("polyc_scop{id}_tiled("));
        assert_eq!((lines.len(), tiled.len()), (3, 2), "SCoP {id}");
        // Definitions, the tiled path's call of the lines, the user's function's two calls.
        let order = [lines[0], tiled[0], lines[1], lines[2], tiled[1]];
        assert!(
            order.windows(2).all(|w| w[0] < w[1]),
            "SCoP {id}: {order:?}"
        );
    }
}

#[test]
fn every_suite_kernel_moves_its_lines() {
    let work = scratch_dir("outlined-suite");
    let build = Build::new("MINI", true);
    let mut kept = Vec::new();
    for k in polybench::kernels() {
        let out = work.join(format!("{}.c", k.name));
        common::polyc_kernel(&k, &build, &["--target", "c"], &out).unwrap();
        let text = std::fs::read_to_string(&out).unwrap();
        if outlined(&text).is_empty() || defined(&text, "_tiled(").is_empty() {
            kept.push(k.name.clone());
        }
    }
    // durbin's too, whose SCoP writes a local array (`z`), by pointer.
    assert!(kept.is_empty(), "{kept:?}");
}

/// Arrays whose extents are parameters (C99's variably modified types, which the CUDA host
/// compiler, C++, rejects, hence not among the semantics inputs): the function declares them
/// over its own parameters, and the program prints what the original prints.
#[test]
fn arrays_with_parameter_extents_keep_their_shape() {
    let work = scratch_dir("outlined-vla");
    let src = work.join("vla.c");
    std::fs::write(
        &src,
        r#"#include <stdio.h>
static void k(int n, int m, double A[n][m]) {
  int i, j;
#pragma scop
  for (i = 0; i < n; i++)
    for (j = 1; j < m; j++)
      A[i][j] += A[i][j - 1] * 0.5 + i;
#pragma endscop
}
int main(void) {
  double A[9][13];
  for (int i = 0; i < 9; i++)
    for (int j = 0; j < 13; j++)
      A[i][j] = i * 13 + j;
  k(9, 13, A);
  k(4, 13, A);
  for (int i = 0; i < 9; i++)
    printf("%.3f %.3f\n", A[i][0], A[i][12]);
  return 0;
}
"#,
    )
    .unwrap();
    let out = work.join("vla-c.c");
    let (code, err) = common::polyc_to(&src, "c", &out);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    assert_eq!(outlined(&text), [0], "{text}");
    assert!(text.contains("double (*A)[m]"), "{text}");
    let (reference, generated) = (work.join("vla-ref"), work.join("vla-c"));
    common::gcc(&src, &reference, &[]);
    common::gcc(&out, &generated, &["-fopenmp".into()]);
    let expected = common::run_stdout(&reference, &[]).unwrap();
    for env in [
        &[][..],
        &[("POLYC_MIN_POINTS", "0"), ("POLYC_TILE_SIZES", "3")][..],
    ] {
        assert_eq!(
            common::run_stdout(&generated, env).unwrap(),
            expected,
            "{env:?}"
        );
    }
}
