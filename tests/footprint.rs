//! The GPU targets move each array's footprint, not the whole array (thesis Fig. 6.11): a SCoP
//! touching parts of its arrays keeps the program's output on OpenCL, and the profile's
//! `transfer_bytes` is what the footprints add up to; arrays whose declarations do not give their
//! first extent get device buffers sized by their footprints.

mod common;

use std::path::Path;
use std::process::Command;

use common::{gcc, runtime_ldflags, succeeded};

/// Bytes the footprints of `tests/inputs/footprint/partial.c` come to (doubles, n = 50, m = 60,
/// rows of 100):
/// - A, read rows 9..=60, columns 5..=64, not written: in, (60·100+64) − (9·100+5) + 1 = 5160;
/// - B, written rows 10..=59, columns 5..=64, not whole rows: in and out, 2 · 4960;
/// - P, written whole: out only, 200·100 = 20000;
/// - V, V[0], V[2], ..., V[98] read and written, not a box: in and out, 2 · 99.
const EXPECTED_BYTES: usize = 8 * (5160 + 2 * 4960 + 20000 + 2 * 99);

/// The OpenCL build of `input` (under tests/inputs/footprint) and gcc's build of the original;
/// `None` (with the reason printed) without an OpenCL platform.
fn builds(input: &str, work: &Path) -> Option<(std::process::Output, std::path::PathBuf)> {
    if !common::opencl_present() {
        println!("skipped: no OpenCL platform is installed (scripts/setup.sh installs PoCL)");
        return None;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/inputs/footprint")
        .join(input);
    let orig = work.join("orig");
    gcc(&src, &orig, &[]);
    let expected = succeeded(Command::new(&orig).output().unwrap());
    let out = work.join("opencl.c");
    let (code, err) = common::polyc_to(&src, "opencl", &out);
    assert_eq!(code, 0, "{err}");
    let exe = work.join("opencl");
    gcc(&out, &exe, &runtime_ldflags());
    Some((expected, exe))
}

/// Run `exe` at each of `sizes`: its output must be `expected`'s and each profile line's
/// transfer_bytes `bytes`.
fn check_runs(exe: &Path, expected: &std::process::Output, sizes: &[&str], bytes: &[usize]) {
    for sizes in sizes {
        let (stdout, moved) = run(exe, sizes);
        assert!(
            stdout == expected.stdout,
            "tile sizes {sizes}: the output differs from the original's"
        );
        assert_eq!(moved, bytes, "tile sizes {sizes}");
    }
}

/// Run `exe` with tile sizes `sizes` and the profile on; (stdout, the transfer_bytes of each
/// profile line).
fn run(exe: &Path, sizes: &str) -> (Vec<u8>, Vec<usize>) {
    let got = succeeded(
        Command::new(exe)
            .env("POLYC_TILE_SIZES", sizes)
            .env("POLYC_PROFILE", "1")
            .output()
            .unwrap(),
    );
    let stderr = String::from_utf8_lossy(&got.stderr);
    let bytes: Vec<usize> = stderr
        .split_whitespace()
        .filter_map(|w| w.strip_prefix("transfer_bytes="))
        .map(|b| b.parse().unwrap())
        .collect();
    assert!(
        !bytes.is_empty(),
        "no transfer_bytes in the profile: {stderr}"
    );
    (got.stdout, bytes)
}

#[test]
fn footprints_move_only_what_the_scop_touches() {
    let work = polybench::harness::scratch_dir("footprint");
    let Some((expected, exe)) = builds("partial.c", &work) else {
        return;
    };
    check_runs(
        &exe,
        &expected,
        &["1", "3,5,7", "32", "1000"],
        &[EXPECTED_BYTES],
    );
}

/// A pointer (`double *v`, `const double *w`) and a pointer to rows (`double (*rows)[64]`), with
/// n = 300, m = 40: v[1..=298] written whole (out only), w[0..=299] read (in only); `rows` read
/// from row 1, column 0 to row 41, column 63 before being written (in), written rows 2..=41,
/// columns 1..=62 (out; not whole rows, so its range is inside the range in).
#[test]
fn arrays_without_a_first_extent_get_buffers_from_their_footprints() {
    let work = polybench::harness::scratch_dir("footprint-pointers");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/footprint/pointers.c");
    let (code, model, err) = common::polyc(&[src.to_str().unwrap(), "--dump", "model", "--json"]);
    assert_eq!(code, 0, "{err}");
    let model: serde_json::Value = serde_json::from_str(&model).unwrap();
    let extents: Vec<String> = model["scops"][0]["arrays"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| format!("{} {}", a["name"], a["extents"]))
        .collect();
    assert_eq!(
        extents,
        [r#""rows" [null,"64"]"#, r#""v" [null]"#, r#""w" [null]"#],
        "a pointer to rows is an array of unknown first extent"
    );
    let Some((expected, exe)) = builds("pointers.c", &work) else {
        return;
    };
    let rows_in = (41 * 64 + 63) - 64 + 1;
    let rows_out = (41 * 64 + 62) - (2 * 64 + 1) + 1;
    let expected_bytes = 8 * (298 + 300 + rows_in + rows_out);
    check_runs(&exe, &expected, &["1", "3,5,7", "32"], &[expected_bytes]);
}

/// A write box that depends on a parameter no subscript mentions (`t < T` around `B[i] = ...`):
/// with T = 0 nothing is written, nothing may come back (the device buffer holds garbage), and
/// B keeps its values; with T = 3 B is written whole and never copied in.
#[test]
fn boxes_empty_for_some_parameters_move_nothing() {
    let work = polybench::harness::scratch_dir("footprint-guarded");
    let Some((expected, exe)) = builds("guarded.c", &work) else {
        return;
    };
    // T = 0: nothing read or written; T = 3: A in, B out (written whole), 100 doubles each.
    check_runs(&exe, &expected, &["16"], &[0, 8 * 200]);
}

/// Arrays the GPU targets cannot lay out are errors naming the line, with exit status 1 and no
/// output file, never a panic: rows of unknown length (`double **`), `long double`.
#[test]
fn arrays_a_gpu_cannot_lay_out_are_reported() {
    let work = polybench::harness::scratch_dir("footprint-errors");
    let cases = [
        (
            "void f(int n, double **a) {\n#pragma scop\n  for (int i = 0; i < n; i++)\n    for (int j = 0; j < n; j++)\n      a[i][j] = 0.0;\n#pragma endscop\n}\n",
            "a.c:5:",
        ),
        (
            "void f(int n, long double a[100]) {\n#pragma scop\n  for (int i = 0; i < n; i++)\n    a[i] = 1.0;\n#pragma endscop\n}\n",
            "long double",
        ),
    ];
    for (k, (text, expected)) in cases.iter().enumerate() {
        let src = work.join(if k == 0 { "a.c" } else { "b.c" });
        std::fs::write(&src, text).unwrap();
        for target in ["opencl", "cuda"] {
            let out = work.join(format!("out-{k}-{target}.c"));
            let (code, err) = common::polyc_to(&src, target, &out);
            assert_eq!(code, 1, "{target}: {err}");
            assert!(err.contains(expected), "{target}: {err}");
            assert!(!out.exists(), "{target}: no output file on an error");
        }
    }
}
