//! Bad input never panics: every file under `tests/inputs/invalid/` makes polyc exit with
//! status 1, print a message naming the file, the line and the construct, and write no output.
//!
//! Each input states its expectation in its first line: `// expect: LINE: TEXT`.

use std::path::{Path, PathBuf};
use std::process::Command;

fn inputs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/invalid");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

fn expectation(path: &Path) -> (u32, String) {
    let text = std::fs::read_to_string(path).unwrap();
    let first = text.lines().next().unwrap();
    let rest = first
        .strip_prefix("// expect: ")
        .unwrap_or_else(|| panic!("{}: no `// expect:` line", path.display()));
    let (line, msg) = rest.split_once(": ").unwrap();
    (line.parse().unwrap(), msg.to_string())
}

#[test]
fn every_invalid_input_is_reported_with_its_line() {
    let out_dir = polybench::harness::scratch_dir("invalid");
    let inputs = inputs();
    assert!(inputs.len() >= 12, "at least a dozen invalid inputs");
    let mut failures = Vec::new();
    for input in &inputs {
        let (line, msg) = expectation(input);
        let out = out_dir.join(input.file_name().unwrap());
        for args in [vec!["--dump", "model"], vec!["-o", out.to_str().unwrap()]] {
            let r = Command::new(env!("CARGO_BIN_EXE_polyc"))
                .arg(input)
                .args(&args)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&r.stderr);
            let name = input.file_name().unwrap().to_str().unwrap();
            let located = stderr.contains(&format!("{name}:{line}:"))
                || stderr.contains(&format!("{name}:{line}\n"));
            if r.status.code() != Some(1) || !located || !stderr.contains(&msg) || out.exists() {
                failures.push(format!(
                    "{name} {args:?}: status {:?}, expected `{name}:{line}` and `{msg}`{}\n{stderr}",
                    r.status.code(),
                    if out.exists() { ", and an output file was left" } else { "" }
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
