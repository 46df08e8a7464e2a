//! One contract for the variables generated programs read, whatever the target: the C+OpenMP
//! program (its own C parser) and the OpenCL program (avelas-rt) accept and reject the same
//! `POLYC_TILE_SIZES`, `POLYC_PROFILE` and `POLYC_TRACE` values.

mod common;

use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;
use std::path::Path;
use std::process::Command;

const PROGRAM: &str = r#"
#include <stdio.h>
double A[40][40];
int main(void) {
  int i, j, n = 40;
#pragma scop
  for (i = 1; i < n; i++)
    for (j = 1; j < n; j++)
      A[i][j] = A[i - 1][j] + A[i][j - 1] + 1.0;
#pragma endscop
  printf("%.1f\n", A[n - 1][n - 1]);
  return 0;
}
"#;

#[test]
fn limits_agree() {
    assert_eq!(ptile::MAX_TILE_SIZE, avelas_rt::config::MAX_TILE_SIZE);
    assert_eq!(ptile::MAX_TILE_SIZES, avelas_rt::config::MAX_TILE_SIZES);
    assert_eq!(
        ptile::DEFAULT_TILE_SIZE,
        avelas_rt::config::DEFAULT_TILE_SIZE
    );
}

fn values() -> Vec<(&'static str, OsString)> {
    let t = |v: &str| ("POLYC_TILE_SIZES", OsString::from(v));
    let mut v = vec![
        t(""),
        t("8"),
        t("3,5,7"),
        t("1000000000"),
        t("0"),
        t("-4"),
        t("+4"),
        t("16,"),
        t(",16"),
        t("16,,32"),
        t("abc"),
        t("1e3"),
        t("16 32"),
        t(" 16"),
        t("2000000000"),
        t("99999999999999999999999"),
        t(&vec!["2"; 64].join(",")),
        t(&vec!["2"; 65].join(",")),
        ("POLYC_TILE_SIZES", OsString::from_vec(vec![b'8', 0xff])),
    ];
    for var in ["POLYC_PROFILE", "POLYC_TRACE"] {
        for x in ["", "0", "1", "yes", "2"] {
            v.push((var, OsString::from(x)));
        }
        v.push((var, OsString::from_vec(vec![0xff])));
    }
    v
}

/// (accepted, message names the variable)
fn run(exe: &Path, var: &str, value: &OsString) -> (bool, bool) {
    let out = Command::new(exe)
        .env("POLYC_MIN_POINTS", "0")
        .env(var, value)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    (out.status.success(), err.contains(var))
}

#[test]
fn c_and_opencl_programs_accept_the_same_values() {
    if !common::opencl_present() {
        println!("skipped: no OpenCL platform (scripts/setup.sh installs PoCL)");
        return;
    }
    let dir = polybench::harness::scratch_dir("contract");
    let src = dir.join("p.c");
    std::fs::write(&src, PROGRAM).unwrap();
    let mut exes = Vec::new();
    for target in ["c", "opencl"] {
        let out = dir.join(format!("p-{target}.c"));
        let (code, err) = common::polyc_to(&src, target, &out);
        assert_eq!(code, 0, "{err}");
        let exe = dir.join(format!("p-{target}"));
        let mut flags = vec!["-fopenmp".to_string()];
        if target == "opencl" {
            flags.extend(common::runtime_ldflags());
        }
        common::gcc(&out, &exe, &flags);
        exes.push(exe);
    }
    let mut failures = Vec::new();
    for (var, value) in values() {
        let (c, cl) = (run(&exes[0], var, &value), run(&exes[1], var, &value));
        let (accepted, named) = (c.0 && cl.0, c.1 && cl.1);
        let agree = c.0 == cl.0;
        // Both accept the value, or both reject it with a message that names the variable.
        if !agree || !(accepted || named) {
            failures.push(format!(
                "{var}={value:?}: C target {c:?}, OpenCL {cl:?} (accepted, message names it)"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
