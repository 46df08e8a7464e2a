//! Tidy checks (in the spirit of rust-analyzer's): the layering ARCHITECTURE.md states is the
//! one the code has, and its code map names every module and test file.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir` (relative to `base`), recursively.
fn rust_files_in(base: &Path, dir: &str) -> Vec<PathBuf> {
    fn walk(d: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(d) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(&base.join(dir), &mut out);
    out.sort();
    out
}

fn rust_files(dir: &str) -> Vec<PathBuf> {
    rust_files_in(&root(), dir)
}

/// The code of a file without its comments (a doc comment may name what the code must not use).
fn code(p: &Path) -> String {
    std::fs::read_to_string(p)
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// One layering rule: no file under `dir` mentions any of `forbidden` in its code.
struct Rule {
    dir: &'static str,
    forbidden: &'static [&'static str],
    why: &'static str,
}

const RULES: &[Rule] = &[
    Rule {
        dir: "rosepolly/src/math",
        forbidden: &["crate::model", "crate::compilation", "crate::syntax"],
        why: "math is rosepolly's lowest layer",
    },
    Rule {
        dir: "rosepolly/src/model",
        forbidden: &["crate::compilation", "crate::syntax", "crate::enumerate"],
        why: "the model is below model extraction",
    },
    Rule {
        dir: "rosepolly/src/analysis",
        forbidden: &["crate::compilation", "crate::syntax", "crate::enumerate"],
        why: "analyses read a built model; extraction calls them, not the reverse",
    },
    Rule {
        dir: "pluto/src",
        forbidden: &["ptile::", "codegen::", "avelas_rt::", "compilation::"],
        why: "scheduling knows no tiling and no target, and reads analyses, not extraction",
    },
    Rule {
        dir: "ptile/src",
        forbidden: &["codegen::", "avelas_rt::", "compilation::"],
        why: "ptile prints nothing; codegen prints its formulas",
    },
    Rule {
        dir: "avelas-rt/src",
        forbidden: &["rosepolly::", "pluto::", "ptile::", "codegen::"],
        why: "the run-time is independent of the compiler",
    },
    Rule {
        dir: "avelas-contract/src",
        forbidden: &[
            "rosepolly::",
            "pluto::",
            "ptile::",
            "codegen::",
            "avelas_rt::",
            "isl_rs::",
        ],
        why: "the run-time contract depends on nothing, so both sides can use it",
    },
    Rule {
        dir: "codegen/src",
        forbidden: &[
            "avelas_rt::",
            "isl_rs::",
            "compilation::deps",
            "compilation::param_box",
            "compilation::assumed_box",
        ],
        why: "codegen prints code for the run-time; isl only through rosepolly::math",
    },
];

/// Files allowed to touch isl-rs directly.
const ISL_RS_USERS: &[&str] = &["rosepolly/src/math/isl.rs"];

/// The breaches of `rule` in the tree at `base`.
fn violations(base: &Path, rule: &Rule) -> Vec<String> {
    let mut out = Vec::new();
    for f in rust_files_in(base, rule.dir) {
        let text = code(&f);
        for bad in rule.forbidden {
            if text.contains(bad) {
                let rel = f.strip_prefix(base).unwrap().display().to_string();
                out.push(format!("{rel} uses `{bad}` ({})", rule.why));
            }
        }
    }
    out
}

#[test]
fn layers_import_only_what_architecture_md_allows() {
    let mut bad: Vec<String> = RULES.iter().flat_map(|r| violations(&root(), r)).collect();
    for dir in [
        "rosepolly/src",
        "pluto/src",
        "ptile/src",
        "codegen/src",
        "src",
    ] {
        for f in rust_files(dir) {
            let rel = f.strip_prefix(root()).unwrap().display().to_string();
            if code(&f).contains("isl_rs") && !ISL_RS_USERS.contains(&rel.as_str()) {
                bad.push(format!("{rel} uses isl_rs (only rosepolly::math::isl may)"));
            }
        }
    }
    assert!(bad.is_empty(), "forbidden imports:\n{}", bad.join("\n"));
}

#[test]
fn a_forbidden_import_is_caught() {
    // The check itself, on a copy of one rule's directory: a model file that imports
    // compilation breaks it; the same words in a comment do not.
    let base = polybench::harness::scratch_dir("tidy");
    let model = base.join("rosepolly/src/model");
    std::fs::create_dir_all(&model).unwrap();
    let rule = RULES
        .iter()
        .find(|r| r.dir == "rosepolly/src/model")
        .unwrap();
    std::fs::write(
        model.join("ok.rs"),
        "//! Not `crate::compilation`.\nfn f() {}\n",
    )
    .unwrap();
    assert!(violations(&base, rule).is_empty());
    std::fs::write(model.join("bad.rs"), "use crate::compilation::deps;\n").unwrap();
    let found = violations(&base, rule);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].contains("bad.rs") && found[0].contains("crate::compilation"));
}

#[test]
fn architecture_md_names_every_module_and_test() {
    let map = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let mut missing = Vec::new();
    let crates = [
        "src",
        "rosepolly/src",
        "pluto/src",
        "ptile/src",
        "codegen/src",
        "avelas-contract/src",
        "avelas-rt/src",
        "polybench/src",
        "fuzz/src",
    ];
    for dir in crates {
        for f in rust_files(dir) {
            let stem = f.file_stem().unwrap().to_string_lossy().to_string();
            if ["lib", "main", "mod"].contains(&stem.as_str()) {
                continue;
            }
            // Named as `stem`, `path::stem`, `stem.rs` or `stem(...)`.
            let named = map.match_indices(&stem).any(|(i, _)| {
                let before = map[..i].chars().next_back();
                let after = map[i + stem.len()..].chars().next();
                matches!(before, Some('`' | ':')) && matches!(after, Some('`' | '.' | ':' | '('))
            });
            if !named {
                missing.push(f.strip_prefix(root()).unwrap().display().to_string());
            }
        }
    }
    for dir in ["tests", "pluto/tests"] {
        for f in std::fs::read_dir(root().join(dir)).unwrap().flatten() {
            let name = f.file_name().to_string_lossy().to_string();
            if name.ends_with(".rs") && !map.contains(&format!("`{name}`")) {
                missing.push(format!("{dir}/{name}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not name:\n{}",
        missing.join("\n")
    );
}
