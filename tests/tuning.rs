//! Tuning files and `polyc tune`, end to end: generated programs (C target, and OpenCL where a
//! platform is installed) read tuning files as the contract's parser does, apply an entry only
//! to its own key (another problem size is not served), let the environment override the file
//! and find the file beside themselves; `polyc tune` writes a tuning file, measurements and a
//! plot, the tuned program computes what the original computes, and a configuration whose
//! output disagrees (the test hook `POLYC_TUNE_CORRUPT`) is rejected.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use avelas_contract::tuning::{self, Tuned, TuningFile};

/// `n` comes from the command line, so that a second problem size needs no rebuild.
const PROGRAM: &str = r#"
#include <stdio.h>
#include <stdlib.h>
double A[130][130];
int main(int argc, char **argv) {
  int i, j, t, n = argc > 1 ? atoi(argv[1]) : 120;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (i * 7 + j * 3) % 11;
#pragma scop
  for (t = 0; t < 4; t++)
    for (i = 1; i < n; i++)
      for (j = 1; j < n; j++)
        A[i][j] = 0.5 * A[i - 1][j] + 0.25 * A[i][j - 1] + 0.125 * A[i][j] + t;
#pragma endscop
  for (i = 0; i < n; i += 7)
    printf("%.17g\n", A[i][n - 1 - i]);
  return 0;
}
"#;

/// The program as written (gcc) and as polyc compiles it for each target present.
struct Programs {
    dir: polybench::harness::Scratch,
    original: PathBuf,
    targets: Vec<(&'static str, PathBuf)>,
}

fn programs(tag: &str) -> Programs {
    let dir = polybench::harness::scratch_dir(tag);
    let src = dir.join("p.c");
    std::fs::write(&src, PROGRAM).unwrap();
    let original = dir.join("original");
    common::gcc(&src, &original, &[]);
    let mut names = vec!["c"];
    if common::opencl_present() {
        names.push("opencl");
    } else {
        println!("OpenCL part skipped: no OpenCL platform (scripts/setup.sh installs PoCL)");
    }
    let targets = names
        .into_iter()
        .map(|t| {
            let out = dir.join(format!("p-{t}.c"));
            let (code, err) = common::polyc_to(&src, t, &out);
            assert_eq!(code, 0, "{err}");
            let exe = dir.join(format!("p-{t}"));
            let mut flags = vec!["-fopenmp".to_string()];
            if t == "opencl" {
                flags.extend(common::runtime_ldflags());
            }
            common::gcc(&out, &exe, &flags);
            (t, exe)
        })
        .collect();
    Programs {
        dir,
        original,
        targets,
    }
}

/// Runs `exe` with `args` and `env` (POLYC_PROFILE on); (exit status, stdout, stderr).
fn run(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> (bool, String, String) {
    let out = Command::new(exe)
        .args(args)
        .env("POLYC_PROFILE", "1")
        .env_remove("POLYC_TILE_SIZES")
        .env_remove(tuning::VARIABLE)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The SCoP's key, as the program prints it.
fn key_of(exe: &Path, args: &[&str]) -> String {
    let (ok, _, err) = run(exe, args, &[]);
    assert!(ok, "{err}");
    err.lines()
        .find_map(|l| l.strip_prefix("polyc-key: "))
        .unwrap_or_else(|| panic!("no key printed: {err}"))
        .to_string()
}

/// The value of `field` in the profile line.
fn profile(err: &str, field: &str) -> String {
    let line = err
        .lines()
        .find(|l| l.starts_with("polyc: scop=0 "))
        .unwrap_or_else(|| panic!("no profile line: {err}"));
    line.split(' ')
        .find_map(|f| f.strip_prefix(&format!("{field}=")))
        .unwrap_or_else(|| panic!("no {field} in {line}"))
        .to_string()
}

/// Runs `exe` with the in-process trials `text` (a trials file); as [`run`].
fn run_trials(p: &Programs, exe: &Path, text: &str) -> (bool, String, String) {
    let trials = p.dir.join("trials");
    std::fs::write(&trials, text).unwrap();
    run(exe, &[], &[(tuning::TRIALS, trials.to_str().unwrap())])
}

/// The `polyc-trial:` lines of a run's stderr.
fn trial_lines(err: &str) -> Vec<&str> {
    err.lines()
        .filter(|l| l.starts_with("polyc-trial:"))
        .collect()
}

#[test]
fn programs_read_tuning_files_as_the_contract_does() {
    let p = programs("tuning-contract");
    for (target, exe) in &p.targets {
        let key = key_of(exe, &[]);
        let h = tuning::HEADER;
        let files: Vec<String> = vec![
            format!("{h}\n"),
            format!("{h}\n# a comment\n\n{key} sizes=8,16\n"),
            format!("{h}\n{key} sizes=untiled"),
            format!("{h}\n{key} sizes=8 local_mem=0\n"),
            format!("{h}\n{} sizes=8\n", key.replace("scop=0", "scop=3")),
            String::new(),
            "polyc-tuning 2\n".into(),
            format!("{key} sizes=8\n"),
            format!("{h}\n{key}\n"),
            format!("{h}\n{key} sizes=\n"),
            format!("{h}\n{key} sizes=0\n"),
            format!("{h}\n{key} sizes=8,\n"),
            format!("{h}\n{key} sizes=8,,16\n"),
            format!("{h}\n{key} sizes=tiled\n"),
            format!("{h}\n{key}  sizes=8\n"),
            format!("{h}\n{key} sizes=8 local_mem=-1\n"),
            format!("{h}\n{key} sizes=8 local_mem=1 x=2\n"),
            format!("{h}\n{key} local_mem=1 sizes=8\n"),
            format!("{h}\n{key} sizes=8\r\n"),
            format!("{h}\n{key} sizes=8\n{key} sizes=16\n"),
            format!("{h}\n{} sizes=8\n", key.replace("scop=0", "scop=10000")),
            format!("{h}\n{} sizes=8\n", key.replace("target=", "target=fpga")),
            format!("{h}\nprogram=p.c\n"),
            format!("{h}\n{key} sizes={}\n", vec!["2"; 65].join(",")),
            format!("{h}\n# {}\n", "x".repeat(5000)),
            format!("{h}\n# a\0b\n{key} sizes=8\n"),
        ];
        let mut failures = Vec::new();
        for (i, text) in files.iter().enumerate() {
            let path = p.dir.join(format!("f{i}.tuning"));
            std::fs::write(&path, text).unwrap();
            let expected = TuningFile::parse(text);
            let (ok, _, err) = run(exe, &[], &[(tuning::VARIABLE, path.to_str().unwrap())]);
            let named = match &expected {
                Ok(_) => true,
                Err(e) => err.contains(&format!("line {}:", e.line)) && err.contains("tuning file"),
            };
            if ok != expected.is_ok() || !named {
                failures.push(format!(
                    "{target}, file {i} {text:?}: accepted={ok}, contract: {expected:?}; stderr: {err}"
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
        let (ok, _, err) = run(exe, &[], &[(tuning::VARIABLE, "/nonexistent/x.tuning")]);
        assert!(!ok && err.contains("/nonexistent/x.tuning"), "{err}");
    }
}

#[test]
fn an_entry_serves_its_own_key_only() {
    let p = programs("tuning-keys");
    let (ok, reference, _) = run(&p.original, &[], &[]);
    assert!(ok);
    let (_, reference_small, _) = run(&p.original, &["60"], &[]);
    for (target, exe) in &p.targets {
        let key = key_of(exe, &[]);
        let file = p.dir.join(format!("{target}.tuning"));
        std::fs::write(&file, format!("{}\n{key} sizes=8,16\n", tuning::HEADER)).unwrap();
        let with = [(tuning::VARIABLE, file.to_str().unwrap())];
        let (ok, out, err) = run(exe, &[], &with);
        assert!(ok, "{err}");
        assert_eq!(profile(&err, "sizes_from"), "tuned", "{target}");
        assert!(
            profile(&err, "tile_sizes").starts_with("8,16"),
            "{target}: {err}"
        );
        assert_eq!(
            out, reference,
            "{target}: the tuned sizes compute something else"
        );
        // Another problem size is another key.
        let (ok, out, err) = run(exe, &["60"], &with);
        assert!(ok, "{err}");
        assert_eq!(profile(&err, "sizes_from"), "default", "{target}");
        assert_eq!(out, reference_small);
        // The environment overrides the file.
        let mut env = with.to_vec();
        env.push(("POLYC_TILE_SIZES", "4"));
        let (_, out, err) = run(exe, &[], &env);
        assert_eq!(
            (profile(&err, "sizes_from"), profile(&err, "tile_sizes")),
            ("env".to_string(), "4,4,4".to_string()),
            "{target}"
        );
        assert_eq!(out, reference);
        // Found beside the executable, without the variable.
        let beside = PathBuf::from(format!("{}{}", exe.display(), tuning::SUFFIX));
        std::fs::copy(&file, &beside).unwrap();
        let (_, out, err) = run(exe, &[], &[]);
        assert_eq!(profile(&err, "sizes_from"), "tuned", "{target}");
        assert_eq!(out, reference);
        std::fs::remove_file(&beside).unwrap();
    }
    // The C target: an entry may run the SCoP in its original order.
    let (_, exe) = &p.targets[0];
    let key = key_of(exe, &[]);
    let file = p.dir.join("untiled.tuning");
    std::fs::write(&file, format!("{}\n{key} sizes=untiled\n", tuning::HEADER)).unwrap();
    let (_, out, err) = run(exe, &[], &[(tuning::VARIABLE, file.to_str().unwrap())]);
    assert_eq!(profile(&err, "untiled"), "1", "{err}");
    assert_eq!(out, reference);
}

/// `polyc tune` on `exe`; (exit status, stdout, stderr).
fn tune(exe: &Path, out: &Path, env: &[(&str, &str)]) -> (i32, String, String) {
    let r = Command::new(env!("CARGO_BIN_EXE_polyc"))
        .args([
            "tune",
            exe.to_str().unwrap(),
            "--budget",
            "8",
            "--reps",
            "1",
            "--out",
        ])
        .arg(out)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (
        r.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&r.stdout).into_owned(),
        String::from_utf8_lossy(&r.stderr).into_owned(),
    )
}

#[test]
fn polyc_tune_writes_verified_sizes() {
    let p = programs("tuning-search");
    let (_, reference, _) = run(&p.original, &[], &[]);
    for (target, exe) in &p.targets {
        let (code, out, err) = tune(exe, &p.dir, &[]);
        assert_eq!(code, 0, "{target}: {out}{err}");
        let name = exe.file_name().unwrap().to_str().unwrap();
        let text =
            std::fs::read_to_string(p.dir.join(format!("{name}{}", tuning::SUFFIX))).unwrap();
        let file = TuningFile::parse(&text).unwrap();
        assert_eq!(file.entries.len(), 1, "{text}");
        assert_eq!(file.entries[0].key, key_of(exe, &[]));
        let json: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(p.dir.join(format!("{name}.tune.json"))).unwrap(),
        )
        .unwrap();
        let measured = json["scops"][0]["measurements"].as_array().unwrap();
        assert!(!measured.is_empty() && measured.len() <= 8, "{json}");
        let svg = std::fs::read_to_string(p.dir.join(format!("{name}.tune.svg"))).unwrap();
        assert!(
            svg.starts_with("<svg") && svg.contains("<circle"),
            "{target}"
        );
        // The tuned program finds its file beside it and computes what the original computes.
        let (ok, out, err) = run(exe, &[], &[]);
        assert!(ok, "{err}");
        assert_eq!(profile(&err, "sizes_from"), "tuned");
        assert_eq!(out, reference, "{target}");
    }
}

#[test]
fn a_configuration_that_disagrees_is_rejected() {
    let p = programs("tuning-reject");
    let (_, exe) = &p.targets[0];
    // 32,32,32 is the guided search's first configuration.
    let out_dir = p.dir.join("out");
    let (code, out, err) = tune(exe, &out_dir, &[("POLYC_TUNE_CORRUPT", "32,32,32")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("32,32,32: its output differs"), "{err}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("p-c.tune.json")).unwrap())
            .unwrap();
    let scop = &json["scops"][0];
    let rejected: Vec<&serde_json::Value> = scop["measurements"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["status"] == "mismatch")
        .collect();
    assert_eq!(rejected.len(), 1, "{scop}");
    assert_eq!(rejected[0]["config"], "32,32,32");
    assert_ne!(scop["best"]["config"], "32,32,32");
    let text = std::fs::read_to_string(out_dir.join("p-c.tuning")).unwrap();
    let file = TuningFile::parse(&text).unwrap();
    assert_ne!(file.entries[0].tuned, Tuned::Sizes(vec![32, 32, 32]));
}

#[test]
fn in_process_trials_restore_the_data_they_write() {
    let p = programs("tuning-trials");
    let (_, reference, _) = run(&p.original, &[], &[]);
    let (_, exe) = &p.targets[0];
    let (ok, out, err) = run_trials(&p, exe, "0 8,16\n0 untiled\n0 4\n");
    assert!(ok, "{err}");
    assert_eq!(
        out, reference,
        "the data after the trials are not the first run's"
    );
    assert_eq!(
        trial_lines(&err),
        [
            "polyc-trial: scop=0 trial=1 match=1",
            "polyc-trial: scop=0 trial=2 match=1",
            "polyc-trial: scop=0 trial=3 match=1"
        ],
        "{err}"
    );
    let sizes: Vec<String> = err
        .lines()
        .filter(|l| l.starts_with("polyc: scop=0 "))
        .map(|l| profile(l, "tile_sizes") + " " + &profile(l, "untiled"))
        .collect();
    // The first run's sizes are the program's defaults: a time-iterated stencil's time tile is
    // 8 (`host_printer::TIME_TILE`).
    assert_eq!(sizes, ["8,32,32 1", "8,16,16 0", "32,32,32 1", "4,4,4 0"]);
    // One process measured what one process per configuration measures, in fewer runs.
    let runs = |extra: &[&str]| {
        let out_dir = p.dir.join(format!("out{}", extra.len()));
        let r = Command::new(env!("CARGO_BIN_EXE_polyc"))
            .args([
                "tune",
                exe.to_str().unwrap(),
                "--budget",
                "12",
                "--reps",
                "1",
                "--out",
            ])
            .arg(&out_dir)
            .args(extra)
            .output()
            .unwrap();
        assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out_dir.join("p-c.tune.json")).unwrap())
                .unwrap();
        json["runs"].as_u64().unwrap()
    };
    let (one, each) = (runs(&[]), runs(&["--per-process"]));
    assert!(one * 3 <= each, "in-process {one} runs, per process {each}");
}

#[test]
fn a_trial_past_its_cutoff_is_stopped_and_its_data_restored() {
    let p = programs("tuning-cutoff");
    let (_, reference, _) = run(&p.original, &[], &[]);
    let (_, exe) = &p.targets[0];
    // Tiles of one point: thousands of tiles, far longer than a thousandth of the first run.
    let text = format!("0 {} 0.001 0\n0 1\n0 8,16\n", tuning::CUTOFF);
    let (ok, out, err) = run_trials(&p, exe, &text);
    assert!(ok, "{err}");
    assert_eq!(out, reference, "a stopped trial left its data behind");
    assert_eq!(
        trial_lines(&err),
        [
            "polyc-trial: scop=0 trial=1 late=1",
            "polyc-trial: scop=0 trial=2 late=1"
        ],
        "{err}"
    );
    let tiles: Vec<u64> = err
        .lines()
        .filter(|l| l.starts_with("polyc: scop=0 "))
        .map(|l| profile(l, "tiles").parse().unwrap())
        .collect();
    assert!(
        tiles[1] < 1000,
        "the stopped trial visited {} tiles",
        tiles[1]
    );
    // A limit that no trial reaches: every trial is compared.
    let text = format!("0 {} 1.5 1000000\n0 8,16\n0 4\n", tuning::CUTOFF);
    let (ok, out, err) = run_trials(&p, exe, &text);
    assert!(ok, "{err}");
    assert_eq!(out, reference);
    assert_eq!(err.matches("match=1").count(), 2, "{err}");
    // A malformed cutoff line is an error that names the file and the line.
    let (ok, _, err) = run_trials(&p, exe, &format!("0 8\n0 {} 1.5\n", tuning::CUTOFF));
    assert!(!ok);
    assert!(
        err.contains("line 2: expected SCOP cutoff FACTOR MS"),
        "{err}"
    );
}

#[test]
fn data_of_unknown_size_fall_back_to_one_process_each() {
    let dir = polybench::harness::scratch_dir("tuning-fallback");
    let src = dir.join("q.c");
    std::fs::write(
        &src,
        PROGRAM
            .replace("double A[130][130];\n", "")
            .replace(
                "int main(int argc, char **argv) {",
                "static void kernel(int n, double A[][130]) {\n  int i, j, t;\n#pragma scop\n  for (t = 0; t < 4; t++)\n    for (i = 1; i < n; i++)\n      for (j = 1; j < n; j++)\n        A[i][j] = 0.5 * A[i - 1][j] + 0.25 * A[i][j - 1] + 0.125 * A[i][j] + t;\n#pragma endscop\n}\ndouble A[130][130];\nint main(int argc, char **argv) {",
            )
            .replacen("#pragma scop\n  for (t = 0; t < 4; t++)\n    for (i = 1; i < n; i++)\n      for (j = 1; j < n; j++)\n        A[i][j] = 0.5 * A[i - 1][j] + 0.25 * A[i][j - 1] + 0.125 * A[i][j] + t;\n#pragma endscop\n  for (i = 0; i < n; i += 7)", "  kernel(n, A);\n  for (i = 0; i < n; i += 7)", 1),
    )
    .unwrap();
    let out = dir.join("q-c.c");
    let (code, err) = common::polyc_to(&src, "c", &out);
    assert_eq!(code, 0, "{err}");
    let exe = dir.join("q-c");
    common::gcc(&out, &exe, &["-fopenmp".to_string()]);
    let r = Command::new(env!("CARGO_BIN_EXE_polyc"))
        .args([
            "tune",
            exe.to_str().unwrap(),
            "--budget",
            "4",
            "--reps",
            "1",
            "--out",
        ])
        .arg(&*dir)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(r.status.success(), "{err}");
    assert!(err.contains("in-process trials are not available"), "{err}");
}

#[test]
fn compare_recompile_rebuilds_the_configurations_searched() {
    let dir = polybench::harness::scratch_dir("tuning-recompile");
    let src = dir.join("p.c");
    std::fs::write(&src, PROGRAM).unwrap();
    let r = Command::new(env!("CARGO_BIN_EXE_polyc"))
        .args([
            "tune",
            src.to_str().unwrap(),
            "--budget",
            "3",
            "--reps",
            "1",
        ])
        .args(["--compare-recompile", "--out"])
        .arg(&*dir)
        .output()
        .unwrap();
    let (out, err) = (
        String::from_utf8_lossy(&r.stdout),
        String::from_utf8_lossy(&r.stderr),
    );
    assert!(r.status.success(), "{out}{err}");
    assert!(
        out.contains("iterative compilation measured 3 configurations")
            && out.contains("this search measured 3 in"),
        "{out}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("p.tune.json")).unwrap()).unwrap();
    assert_eq!(json["recompile"]["configurations"], 3, "{json}");
    // Not for a built program, nor another target.
    let (code, _, err) = common::polyc(&[
        "tune",
        dir.join("p").to_str().unwrap(),
        "--compare-recompile",
    ]);
    assert_eq!(code, 2, "{err}");
}
