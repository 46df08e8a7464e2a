//! One contract for the variables generated programs read, whatever the target: the C+OpenMP
//! program (its C parser, printed from `avelas_contract::c_config`) and the OpenCL program
//! (avelas-rt) accept and reject exactly the `POLYC_TILE_SIZES`, `POLYC_MIN_POINTS`,
//! `POLYC_PROFILE` and `POLYC_TRACE` values the contract's grammar (`avelas_contract::config`)
//! accepts.

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
        // Per-SCoP lists.
        t("0:8"),
        t("8;1:16,4;3:5"),
        t("1:16;8"),
        t("01:8"),
        t("9999:2"),
        t("10000:2"),
        t("99999999999999999999:2"),
        t(";"),
        t("8;"),
        t(";8"),
        t("8;9"),
        t("1:8;1:9"),
        t(":8"),
        t("1:"),
        t("a:8"),
        t("-1:8"),
        t("1:2:3"),
        t("1:0"),
        t("0:8;x"),
        t(&(0..64)
            .map(|i| format!("{i}:2"))
            .collect::<Vec<_>>()
            .join(";")),
        t(&(0..65)
            .map(|i| format!("{i}:2"))
            .collect::<Vec<_>>()
            .join(";")),
    ];
    for x in [
        "",
        "0",
        "7",
        "-1",
        "+1",
        " 1",
        "1k",
        "9223372036854775807",
        "9223372036854775808",
    ] {
        v.push(("POLYC_MIN_POINTS", OsString::from(x)));
    }
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

/// Does the contract's grammar accept `value` for `var`?
fn contract_accepts(var: &str, value: &OsString) -> bool {
    let Some(text) = value.to_str() else {
        return false; // not text: malformed, not unset
    };
    avelas_contract::config::Config::from_vars(|k| (k == var).then(|| text.to_string())).is_ok()
}

/// The test program compiled for `target` and built.
fn program(dir: &Path, target: &str) -> std::path::PathBuf {
    let src = dir.join("p.c");
    std::fs::write(&src, PROGRAM).unwrap();
    let out = dir.join(format!("p-{target}.c"));
    let (code, err) = common::polyc_to(&src, target, &out);
    assert_eq!(code, 0, "{err}");
    let exe = dir.join(format!("p-{target}"));
    let mut flags = vec!["-fopenmp".to_string()];
    if target == "opencl" {
        flags.extend(common::runtime_ldflags());
    }
    common::gcc(&out, &exe, &flags);
    exe
}

#[test]
fn programs_accept_what_the_contract_accepts() {
    let dir = polybench::harness::scratch_dir("contract");
    let mut targets = vec![("C target", program(&dir, "c"))];
    if common::opencl_present() {
        targets.push(("OpenCL", program(&dir, "opencl")));
    } else {
        println!("OpenCL part skipped: no OpenCL platform (scripts/setup.sh installs PoCL)");
    }
    let mut failures = Vec::new();
    for (var, value) in values() {
        let expected = contract_accepts(var, &value);
        for (name, exe) in &targets {
            let (accepted, named) = run(exe, var, &value);
            // Accepted as the contract says, or rejected with a message that names the variable.
            if accepted != expected || !(accepted || named) {
                failures.push(format!(
                    "{var}={value:?}: {name} accepted={accepted}, named it={named}; contract accepts={expected}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
