//! `polyc bench` end to end on a small suite in PolyBench/C form (two kernels of the bundled
//! suite and a deliberately broken one, whose array dump depends on the process): the broken
//! kernel is reported as not verified and the command fails, the others are verified and
//! timed, and the CSV, JSON and SVG files are well-formed; short kernels get more rounds, and
//! with them a 95% interval of their speed-up.

use std::path::Path;
use std::process::Command;

/// A suite with atax, jacobi-1d and `broken` (jacobi-1d printing its process id in its dump).
fn suite(root: &Path) {
    let bundled = polybench::suite_dir();
    let utilities = root.join("utilities");
    std::fs::create_dir_all(&utilities).unwrap();
    for f in ["polybench.c", "polybench.h"] {
        std::fs::copy(bundled.join("utilities").join(f), utilities.join(f)).unwrap();
    }
    for (name, dir) in [
        ("atax", "linear-algebra/kernels/atax"),
        ("jacobi-1d", "stencils/jacobi-1d"),
    ] {
        let to = root.join(dir);
        std::fs::create_dir_all(&to).unwrap();
        for ext in ["c", "h"] {
            let f = format!("{name}.{ext}");
            std::fs::copy(bundled.join(dir).join(&f), to.join(&f)).unwrap();
        }
    }
    let broken = root.join("stencils/broken");
    std::fs::create_dir_all(&broken).unwrap();
    let jacobi = bundled.join("stencils/jacobi-1d");
    let source = std::fs::read_to_string(jacobi.join("jacobi-1d.c"))
        .unwrap()
        .replace("#include \"jacobi-1d.h\"", "#include <unistd.h>\n#include \"broken.h\"")
        .replace(
            "  POLYBENCH_DUMP_BEGIN(\"A\");",
            "  POLYBENCH_DUMP_BEGIN(\"A\");\n  fprintf(POLYBENCH_DUMP_TARGET, \"%d \", (int)getpid());",
        );
    assert!(source.contains("getpid"), "the fixture's edit applies");
    std::fs::write(broken.join("broken.c"), source).unwrap();
    std::fs::copy(jacobi.join("jacobi-1d.h"), broken.join("broken.h")).unwrap();
    std::fs::write(
        utilities.join("benchmark_list"),
        "./linear-algebra/kernels/atax/atax.c\n./stencils/broken/broken.c\n./stencils/jacobi-1d/jacobi-1d.c\n",
    )
    .unwrap();
}

#[test]
fn bench_verifies_times_and_reports_a_broken_kernel() {
    let dir = polybench::harness::scratch_dir("bench-e2e");
    let root = dir.join("suite");
    suite(&root);
    let out_dir = dir.join("out");
    let out = Command::new(env!("CARGO_BIN_EXE_polyc"))
        .args(["bench", "--polybench"])
        .arg(&root)
        .args([
            "--targets",
            "c",
            "--datasets",
            "SMALL",
            "--runs",
            "1",
            "--min-seconds",
            "0",
            "--tile-sizes",
            "4 8,16",
            "--out",
        ])
        .arg(&out_dir)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a kernel failed: {stdout}\n{stderr}"
    );
    let row = |k: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(&format!("{k} ")))
            .unwrap_or_else(|| panic!("no row for {k}:\n{stdout}"))
            .to_string()
    };
    assert!(row("broken").contains("FAILED at verify"), "{stdout}");
    for k in ["atax", "jacobi-1d"] {
        assert!(row(k).ends_with("yes"), "{stdout}");
    }
    assert!(
        stdout.contains("2 of 3 measurements verified and timed, 1 failed"),
        "{stdout}"
    );

    let csv = std::fs::read_to_string(out_dir.join("bench.csv")).unwrap();
    let records = csv_records(&csv);
    assert_eq!(records.len(), 4, "a header and a record per kernel:\n{csv}");
    assert!(records.iter().all(|r| r.len() == records[0].len()), "{csv}");
    let col = |name: &str| records[0].iter().position(|h| h == name).unwrap();
    let broken = records.iter().find(|r| r[0] == "broken").unwrap();
    assert_eq!(broken[col("verified")], "false");
    assert_eq!(broken[col("failed_step")], "verify");
    for r in records.iter().skip(1).filter(|r| r[0] != "broken") {
        assert_eq!(r[col("verified")], "true");
        for c in ["original_ms", "polyc_ms"] {
            let ms: f64 = r[col(c)].parse().unwrap();
            assert!(ms >= 0.0, "{r:?}");
        }
        // The fastest of the two configurations given.
        assert!(
            ["4", "8,16"].contains(&r[col("configuration")].as_str()),
            "{r:?}"
        );
    }

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("bench.json")).unwrap())
            .unwrap();
    assert_eq!(json["rows"].as_array().unwrap().len(), 3);
    // `--min-seconds 0`: exactly `--runs` rounds, too few for an interval.
    let atax = &json["rows"][0];
    assert_eq!(atax["polyc_runs"].as_array().unwrap().len(), 1, "{atax}");
    assert!(atax["interval"].is_null(), "{atax}");
    assert!(json["machine"]["cpu"].is_string());
    assert!(json["geomeans"].is_array());

    for svg in ["speedup.svg", "geomean.svg"] {
        let text = std::fs::read_to_string(out_dir.join(svg)).unwrap();
        well_formed_svg(&text).unwrap_or_else(|e| panic!("{svg}: {e}"));
    }
    let speedup = std::fs::read_to_string(out_dir.join("speedup.svg")).unwrap();
    assert!(speedup.contains("jacobi-1d"), "the kernels are named");
    let md = std::fs::read_to_string(out_dir.join("bench.md")).unwrap();
    assert!(
        md.contains("## Failures") && md.contains("broken c SMALL (verify)"),
        "{md}"
    );
}

#[test]
fn tuned_sizes_reach_the_timed_program() {
    let dir = polybench::harness::scratch_dir("bench-tune");
    let out = Command::new(env!("CARGO_BIN_EXE_polyc"))
        .args([
            "bench",
            "--kernels",
            "jacobi-2d",
            "--targets",
            "c",
            "--datasets",
            "SMALL",
        ])
        .args(["--runs", "1", "--tune", "--busy", "--out"])
        .arg(dir.as_ref())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("bench.json")).unwrap()).unwrap();
    let row = &json["rows"][0];
    assert_eq!(row["configuration"], "tuned");
    // A kernel of milliseconds gets more rounds than `--runs 1` within the default two
    // seconds, and with them an interval around the estimate.
    let runs = row["polyc_runs"].as_array().unwrap().len();
    assert!(runs >= 4, "{runs} rounds: {row}");
    let interval = &row["interval"];
    let (low, estimate, high) = (
        interval["low"].as_f64().unwrap(),
        interval["estimate"].as_f64().unwrap(),
        interval["high"].as_f64().unwrap(),
    );
    assert!(0.0 < low && low <= estimate && estimate <= high, "{row}");
    let profile = row["profile"][0].as_str().unwrap();
    assert!(profile.contains("sizes_from=tuned"), "{profile}");
    // `--busy`: the same program beside a busy core, a run in each round, with its ratio.
    assert_eq!(row["busy_runs"].as_array().unwrap().len(), runs, "{row}");
    let busy = &row["busy_over_quiet"];
    assert!(busy["low"].as_f64().unwrap() > 0.0, "{row}");
    let md = std::fs::read_to_string(dir.join("bench.md")).unwrap();
    assert!(
        md.contains("c at SMALL beside a busy core: busy ÷ quiet at most"),
        "{md}"
    );
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [
        &["bench", "--datasets", "HUGE"][..],
        &["bench", "--kernels", "gem"],
        &["bench", "--tile-sizes", "0"],
        &["bench", "--polybench", "/nonexistent"],
        &["bench", "--busy", "--tile-sizes", "16 32"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_polyc"))
            .args(args)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("polyc: error: "), "{args:?}: {err}");
    }
}

/// The records of a CSV text (RFC 4180 quoting).
fn csv_records(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let (mut record, mut field) = (Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', _) => quoted = !quoted,
            (',', false) => record.push(std::mem::take(&mut field)),
            ('\n', false) => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (c, _) => field.push(c),
        }
    }
    records
}

/// Whether every element of an SVG document is closed in order (and the root is `svg`).
fn well_formed_svg(text: &str) -> Result<(), String> {
    let mut open: Vec<String> = Vec::new();
    let mut rest = text;
    let mut root = None;
    while let Some(start) = rest.find('<') {
        let end = rest[start..].find('>').ok_or("a tag is not closed")? + start;
        let tag = &rest[start + 1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('?') || tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            match open.pop() {
                Some(o) if o == name.trim() => {}
                other => return Err(format!("</{name}> closes {other:?}")),
            }
            continue;
        }
        let name = tag
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_end_matches('/');
        root.get_or_insert_with(|| name.to_string());
        if !tag.ends_with('/') {
            open.push(name.to_string());
        }
    }
    if !open.is_empty() {
        return Err(format!("unclosed: {open:?}"));
    }
    (root.as_deref() == Some("svg"))
        .then_some(())
        .ok_or_else(|| format!("the root is {root:?}"))
}
