//! Unusual and hostile inputs (issue 19, item 6) get their expected outcome and nothing else:
//! every file under `tests/inputs/hostile/` states it in its first line, `// expect: output`
//! (polyc exits 0 and gcc compiles what it wrote; `// expect: output under N bytes` bounds
//! what it wrote too) or `// expect: LINE: TEXT` (exit status 1, a
//! message located at that line, no output file). Inputs that cannot carry such a line (an empty
//! file, binary bytes, a directory, a missing file, an output in a missing directory) are made
//! here. `tests/inputs/invalid/` holds the inputs outside the SCoP rules.
//!
//! An input that makes polyc degrade instead of fail says so in a line `// fallback: TEXT` (or
//! `// fallback opencl: TEXT` for that target): `polyc --dump fallbacks` must list TEXT, so that
//! the input keeps exercising the bound it was written for. `// fallback: none` says that no
//! SCoP of the input has any.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

enum Expect {
    Output { max_bytes: Option<u64> },
    Error { line: u32, text: String },
}

fn expectation(path: &Path) -> Expect {
    let text = std::fs::read_to_string(path).unwrap();
    let first = text.lines().next().unwrap_or_default();
    let rest = first
        .strip_prefix("// expect: ")
        .unwrap_or_else(|| panic!("{}: no `// expect:` line", path.display()));
    if let Some(bound) = rest.trim().strip_prefix("output") {
        let max_bytes = bound
            .trim()
            .strip_prefix("under ")
            .and_then(|b| b.strip_suffix(" bytes"))
            .map(|n| n.parse().unwrap());
        assert!(
            max_bytes.is_some() || bound.trim().is_empty(),
            "{}: `// expect: output` or `// expect: output under N bytes`",
            path.display()
        );
        return Expect::Output { max_bytes };
    }
    let (line, text) = rest.split_once(": ").unwrap();
    Expect::Error {
        line: line.parse().unwrap(),
        text: text.trim().to_string(),
    }
}

/// polyc under issue 19's bounds: 60 s and 4 GB of address space (a run past them fails the
/// test instead of taking the machine).
fn polyc(input: &Path, out: &Path) -> Output {
    Command::new("timeout")
        .args(["60", "prlimit", "--as=4294967296", "--"])
        .arg(env!("CARGO_BIN_EXE_polyc"))
        .arg(input)
        .arg("-o")
        .arg(out)
        .output()
        .unwrap()
}

/// What is wrong with the outcome of `input` against `expect`, if anything.
fn check(input: &Path, out: &Path, expect: &Expect) -> Option<String> {
    let r = polyc(input, out);
    let stderr = String::from_utf8_lossy(&r.stderr);
    let name = input.file_name().unwrap().to_str().unwrap();
    match expect {
        Expect::Output { max_bytes } => {
            if r.status.code() != Some(0) || !out.exists() {
                return Some(format!("{name}: status {:?}\n{stderr}", r.status.code()));
            }
            let size = std::fs::metadata(out).unwrap().len();
            if let Some(max) = max_bytes.filter(|&m| size > m) {
                return Some(format!("{name}: {size} bytes of output, over {max}"));
            }
            let obj = out.with_extension("o");
            let gcc = Command::new("gcc")
                .args(["-c", "-fopenmp", "-o"])
                .arg(&obj)
                .arg(out)
                .output()
                .unwrap();
            (!gcc.status.success()).then(|| {
                format!(
                    "{name}: gcc rejects the output\n{}",
                    String::from_utf8_lossy(&gcc.stderr)
                )
            })
        }
        Expect::Error { line, text } => {
            let located = stderr.contains(&format!("{name}:{line}:"))
                || stderr.contains(&format!("{name}:{line}\n"));
            (r.status.code() != Some(1)
                || !located
                || !stderr.contains(text.as_str())
                || out.exists())
            .then(|| {
                format!(
                    "{name}: status {:?}, expected `{name}:{line}` and `{text}`{}\n{stderr}",
                    r.status.code(),
                    if out.exists() {
                        ", and an output file was left"
                    } else {
                        ""
                    }
                )
            })
        }
    }
}

/// The `// fallback [TARGET]: TEXT` lines of `path`, as (target, text).
fn fallbacks_expected(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter_map(|l| l.strip_prefix("// fallback"))
        .map(|rest| {
            let (target, text) = rest.split_once(": ").unwrap();
            let target = match target.trim() {
                "" => "c",
                t => t,
            };
            let text = text.trim();
            assert!(
                !text.is_empty(),
                "{}: an empty `// fallback` line",
                path.display()
            );
            (target.to_string(), text.to_string())
        })
        .collect()
}

/// What `--dump fallbacks` of `input` lacks of its `// fallback` lines, if anything.
fn check_fallbacks(input: &Path) -> Option<String> {
    let name = input.file_name().unwrap().to_str().unwrap();
    let missing: Vec<String> = fallbacks_expected(input)
        .into_iter()
        .filter_map(|(target, text)| {
            let r = Command::new("timeout")
                .args(["60", env!("CARGO_BIN_EXE_polyc"), "--dump", "fallbacks"])
                .args(["--target", &target])
                .arg(input)
                .output()
                .unwrap();
            let dump = String::from_utf8_lossy(&r.stdout);
            let listed = match text.as_str() {
                // Every line but the SCoPs' headers says so.
                "none" => dump
                    .lines()
                    .all(|l| l.starts_with("SCoP ") || l == "  none"),
                text => dump.contains(text),
            };
            (!r.status.success() || !listed)
                .then(|| format!("{name} ({target}): `{text}` not in\n{dump}"))
        })
        .collect();
    (!missing.is_empty()).then(|| missing.join("\n"))
}

#[test]
fn hostile_inputs_get_their_expected_outcome() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/hostile");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 15);
    let work = polybench::harness::scratch_dir("hostile");
    let failures: Vec<String> = polybench::harness::par_map(&inputs, |i| {
        let out = work.join(i.file_name().unwrap());
        check(i, &out, &expectation(i)).or_else(|| check_fallbacks(i))
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn files_that_are_not_c_get_a_located_error() {
    let work = polybench::harness::scratch_dir("hostile-made");
    let empty = work.join("empty.c");
    std::fs::write(&empty, b"").unwrap();
    let binary = work.join("binary.c");
    let bytes: Vec<u8> = (0..300u32).map(|k| (k * 151 % 256) as u8).collect();
    std::fs::write(&binary, bytes).unwrap();
    let mut failures = Vec::new();
    failures.extend(check(
        &empty,
        &work.join("empty-out.c"),
        &Expect::Output { max_bytes: None },
    ));
    let garbage = Expect::Error {
        line: 1,
        text: "error".into(),
    };
    failures.extend(check(&binary, &work.join("binary-out.c"), &garbage));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn missing_files_directories_and_output_directories_are_errors() {
    let work = polybench::harness::scratch_dir("hostile-paths");
    let input = work.join("k.c");
    std::fs::write(&input, "double a[4];\nvoid f(void) {\n  a[0] = 1.0;\n}\n").unwrap();
    let cases: [(&Path, PathBuf, &str); 3] = [
        (&work, work.join("o1.c"), "it is a directory"),
        (
            &work.join("missing.c"),
            work.join("o2.c"),
            "No such file or directory",
        ),
        (
            &input,
            work.join("no-such-dir/o3.c"),
            "cannot write the output",
        ),
    ];
    for (i, out, text) in cases {
        let r = polyc(i, &out);
        let stderr = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(1), "{}: {stderr}", i.display());
        assert!(stderr.contains(text), "{}: {stderr}", i.display());
        assert!(!out.exists());
    }
    assert!(!work.join("no-such-dir").exists());
    let leftovers: Vec<_> = std::fs::read_dir(&work)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n != "k.c")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}
