//! The GPU targets move each array's footprint, not the whole array (thesis Fig. 6.11): a SCoP
//! touching parts of its arrays keeps the program's output on OpenCL, and the profile's
//! `transfer_bytes` is what the footprints add up to.

mod common;

use std::path::Path;
use std::process::Command;

use common::{gcc, runtime_ldflags};

/// Bytes the footprints of `tests/inputs/footprint/partial.c` come to (doubles, n = 50, m = 60,
/// rows of 100):
/// - A, read rows 9..=60, columns 5..=64, not written: in, (60·100+64) − (9·100+5) + 1 = 5160;
/// - B, written rows 10..=59, columns 5..=64, not whole rows: in and out, 2 · 4960;
/// - P, written whole: out only, 200·100 = 20000;
/// - V, V[0], V[2], ..., V[98] read and written, not a box: in and out, 2 · 99.
const EXPECTED_BYTES: usize = 8 * (5160 + 2 * 4960 + 20000 + 2 * 99);

#[test]
fn footprints_move_only_what_the_scop_touches() {
    if !std::fs::read_dir("/etc/OpenCL/vendors").is_ok_and(|mut d| d.next().is_some()) {
        println!("skipped: no OpenCL platform is installed (scripts/setup.sh installs PoCL)");
        return;
    }
    let work = polybench::harness::scratch_dir("footprint");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/footprint/partial.c");
    let orig = work.join("orig");
    gcc(&src, &orig, &[]);
    let expected = Command::new(&orig).output().unwrap();
    assert!(expected.status.success());
    let out = work.join("partial-opencl.c");
    let (code, _, err) = common::polyc(&[
        src.to_str().unwrap(),
        "--target",
        "opencl",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let exe = work.join("partial-opencl");
    gcc(&out, &exe, &runtime_ldflags());
    for sizes in ["1", "3,5,7", "32", "1000"] {
        let got = Command::new(&exe)
            .env("POLYC_TILE_SIZES", sizes)
            .env("POLYC_PROFILE", "1")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&got.stderr);
        assert!(got.status.success(), "{stderr}");
        assert!(
            got.stdout == expected.stdout,
            "tile sizes {sizes}: the output differs from the original's"
        );
        let bytes: usize = stderr
            .split_whitespace()
            .find_map(|w| w.strip_prefix("transfer_bytes="))
            .unwrap_or_else(|| panic!("no transfer_bytes in the profile: {stderr}"))
            .parse()
            .unwrap();
        assert_eq!(bytes, EXPECTED_BYTES, "tile sizes {sizes}: {stderr}");
    }
}
