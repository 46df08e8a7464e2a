//! Several SCoPs in one file, in two functions, with code between them: every target keeps the
//! program's results (issue 4's "several SCoPs per file"; issue 5's and 6's per-SCoP host code).

mod common;

use std::path::Path;
use std::process::Command;

use common::{gcc, runtime_ldflags, succeeded};

fn run(exe: &Path, env: &[(&str, &str)]) -> String {
    let out = succeeded(
        Command::new(exe)
            .envs(env.iter().copied())
            .output()
            .unwrap(),
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn three_scops_in_two_functions_keep_their_results() {
    let work = polybench::harness::scratch_dir("multi-scop");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/multi/three_scops.c");
    let orig = work.join("orig");
    gcc(&src, &orig, &[]);
    let expected = run(&orig, &[]);
    let mut targets = vec![("c", vec!["-fopenmp".to_string()])];
    if common::opencl_present() {
        targets.push(("opencl", runtime_ldflags()));
    } else {
        println!("skipped the OpenCL part: no OpenCL platform is installed");
    }
    for (target, flags) in targets {
        let out = work.join(format!("three-{target}.c"));
        let (code, err) = common::polyc_to(&src, target, &out);
        assert_eq!(code, 0, "{err}");
        let text = std::fs::read_to_string(&out).unwrap();
        assert_eq!(
            text.matches("polyc: SCoP").count(),
            3,
            "three SCoPs replaced"
        );
        assert!(text.contains("A[0][0] += 1.0; /* not in any SCoP */"));
        let exe = work.join(format!("three-{target}"));
        gcc(&out, &exe, &flags);
        for sizes in ["1", "3,5,7", "16", "1000", "0:3,5;2:1", "1:7,2;16"] {
            let got = run(
                &exe,
                &[
                    ("POLYC_TILE_SIZES", sizes),
                    ("POLYC_MIN_POINTS", "0"),
                    ("OMP_NUM_THREADS", "2"),
                ],
            );
            assert_eq!(got, expected, "{target} with tile sizes {sizes}");
        }
        // Each SCoP takes its own list, else the list for all, else the default; the profile
        // says which.
        let profile = profile_lines(&exe, "0:3,5;2:1");
        assert!(profile[0].contains("tile_sizes=3,5") && profile[0].contains("sizes_from=env"));
        assert!(profile[1].contains("tile_sizes=32") && profile[1].contains("sizes_from=default"));
        assert!(profile[2].contains("tile_sizes=1") && profile[2].contains("sizes_from=env"));
        let profile = profile_lines(&exe, "1:7,2;16");
        assert!(profile[0].contains("tile_sizes=16,") && profile[0].contains("sizes_from=env"));
        assert!(profile[1].contains("tile_sizes=7,2") && profile[1].contains("sizes_from=env"));
    }
}

/// The profile lines of one run of `exe` with `POLYC_TILE_SIZES=sizes`, by SCoP number.
fn profile_lines(exe: &Path, sizes: &str) -> Vec<String> {
    let out = succeeded(
        Command::new(exe)
            .env("POLYC_TILE_SIZES", sizes)
            .env("POLYC_MIN_POINTS", "0")
            .env("POLYC_PROFILE", "1")
            .output()
            .unwrap(),
    );
    let err = String::from_utf8_lossy(&out.stderr);
    let mut lines: Vec<String> = (0..3)
        .map(|s| {
            err.lines()
                .find(|l| l.starts_with(&format!("polyc: scop={s} ")))
                .unwrap_or_else(|| panic!("no profile line of SCoP {s} in {err}"))
                .to_string()
        })
        .collect();
    lines.truncate(3);
    lines
}
