//! The generated C of every suite kernel runs clean under AddressSanitizer and
//! UndefinedBehaviorSanitizer (issue 19, item 5): built with `-fsanitize=address,undefined`
//! (every report fatal), at MINI, with tile sizes 1, `3,5,7` and 64 on one and two threads, and
//! with the default settings (the untiled original order). Out-of-bounds accesses of the tile
//! walk or of expanded scalars, overflowing bound arithmetic, leaks of the arrays polyc
//! allocates: any of them fails the run. The dumps must still equal the original program's.

mod common;

use common::{check_kernels, Variant};

const SANITIZE: &[&str] = &[
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
];

/// Tile sizes 1, `3,5,7` and 64 on one and two threads (tiled whatever the size), then the
/// defaults.
const RUNS: &[&[(&str, &str)]] = &[
    &[
        ("POLYC_TILE_SIZES", "1"),
        ("OMP_NUM_THREADS", "1"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "1"),
        ("OMP_NUM_THREADS", "2"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "3,5,7"),
        ("OMP_NUM_THREADS", "1"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "3,5,7"),
        ("OMP_NUM_THREADS", "2"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "64"),
        ("OMP_NUM_THREADS", "1"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[
        ("POLYC_TILE_SIZES", "64"),
        ("OMP_NUM_THREADS", "2"),
        ("POLYC_MIN_POINTS", "0"),
    ],
    &[("OMP_NUM_THREADS", "2")],
];

#[test]
fn generated_c_is_clean_under_address_and_undefined_behaviour_sanitizers() {
    let variants = [Variant {
        name: "sanitized",
        polyc_flags: &["--target", "c"],
        openmp: true,
        cflags: &[],
        runs: RUNS,
        ldflags: SANITIZE.iter().map(|s| s.to_string()).collect(),
    }];
    check_kernels(&polybench::kernels(), &["MINI"], &variants, "sanitizers");
}
