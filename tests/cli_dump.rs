//! `polyc FILE --dump model|deps|schedule|buffers|fallbacks [--json]` on a suite kernel: the documented JSON keys,
//! and the same facts in the text form.

mod common;

use std::path::Path;

use common::polyc;

/// A file under `tests/inputs`, as an argument.
fn input(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/inputs")
        .join(path)
        .display()
        .to_string()
}

fn gemm() -> (String, String) {
    let k = polybench::kernel("gemm").unwrap();
    (
        k.source.display().to_string(),
        format!("-I{}", polybench::utilities_of(&k).display()),
    )
}

#[test]
fn model_json_has_the_documented_keys() {
    let (file, inc) = gemm();
    let (code, out, err) = polyc(&[&file, &inc, "-DMINI_DATASET", "--dump", "model", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let scop = &v["scops"][0];
    assert_eq!(scop["function"], "kernel_gemm");
    assert_eq!(scop["params"], serde_json::json!(["ni", "nj", "nk"]));
    let s1 = &scop["statements"][1];
    assert_eq!(s1["name"], "S1");
    assert_eq!(s1["depth"], 3);
    assert_eq!(s1["iterators"], serde_json::json!(["i", "k", "j"]));
    assert!(s1["domain"].as_str().unwrap().contains("S1[i, k, j]"));
    let kinds: Vec<&str> = s1["accesses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.iter().filter(|k| **k == "write").count(), 1);
    let c = scop["arrays"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "C")
        .unwrap();
    assert_eq!(c["type"], "double");
    assert_eq!(c["extents"], serde_json::json!(["20", "25"]));
    assert_eq!(
        (c["read"].as_bool(), c["written"].as_bool()),
        (Some(true), Some(true))
    );
}

#[test]
fn deps_json_and_text_agree() {
    let (file, inc) = gemm();
    let (code, out, err) = polyc(&[&file, &inc, "--dump", "deps", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let deps = v["scops"][0]["dependences"].as_array().unwrap();
    // C[i][j] is scaled by S0, then accumulated by S1 along k.
    let flow: Vec<(&str, &str)> = deps
        .iter()
        .filter(|d| d["kind"] == "flow")
        .map(|d| (d["source"].as_str().unwrap(), d["sink"].as_str().unwrap()))
        .collect();
    assert_eq!(flow, vec![("S0", "S1"), ("S1", "S1")]);
    assert!(deps.iter().all(|d| d["array"] == "C"));
    let (code, text, _) = polyc(&[&file, &inc, "--dump", "deps"]);
    assert_eq!(code, 0);
    assert_eq!(
        text.lines()
            .filter(|l| l.trim_start().starts_with("flow"))
            .count(),
        2
    );
    assert!(text.contains(&format!("{} dependences", deps.len())));
}

/// A SCoP whose dependence analysis runs over its budget keeps its original code when compiled;
/// `--dump schedule` and `--dump buffers` say so (exit 0) instead of failing.
#[test]
fn schedule_dump_lists_scops_that_keep_their_original_code() {
    let src = input("hostile/hundred-parameters.c");
    let (code, out, err) = polyc(&[&src, "--dump", "schedule", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["scops"], serde_json::json!([]));
    let why = v["kept_original"][0]["why"].as_str().unwrap();
    assert!(why.contains("over its budget"), "{why}");
    let (code, text, _) = polyc(&[&src, "--dump", "schedule"]);
    assert_eq!(code, 0);
    assert!(text.contains("  keeps its original code: "), "{text}");
    let (code, out, err) = polyc(&[&src, "--dump", "buffers", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["scops"][0]["groups"], serde_json::json!([]));
    assert!(v["scops"][0]["kept_original"].is_string(), "{v}");
}

/// A degraded analysis is listed (issue 19: `--dump` shows which fallbacks fired): isl's exact
/// dataflow fails on `tests/inputs/semantics/dataflow-fallback.c`'s `s`, so every earlier write
/// stands as its source. gemm has none, and its JSON no `fallbacks` key.
#[test]
fn schedule_dump_lists_the_fallbacks_that_fired() {
    let src = input("semantics/dataflow-fallback.c");
    let (code, text, err) = polyc(&[&src, "--dump", "schedule"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("  fallback: the dependences on `s` count every earlier write as a source"),
        "{text}"
    );
    let (code, out, err) = polyc(&[&src, "--dump", "schedule", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let fallbacks = v["scops"][0]["fallbacks"].as_array().unwrap();
    assert_eq!(fallbacks.len(), 1, "{v}");
    // The scheduler's own: a diamond search cut short.
    let diamond = input("hostile/diamond-distances.c");
    let (code, text, err) = polyc(&[&diamond, "--dump", "schedule"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        text.contains("  fallback: the band at dimensions 0-1 keeps skewed tiles"),
        "{text}"
    );
    let (file, inc) = gemm();
    let (code, out, err) = polyc(&[&file, &inc, "--dump", "schedule", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["scops"][0].get("fallbacks").is_none(), "{v}");
}

#[test]
fn fallbacks_dump_lists_each_scops_degradations_for_its_target() {
    let hostile = |name: &str| input(&format!("hostile/{name}"));
    // The suite compiles without any (gemm stands for the 90 compilations, which were checked
    // by hand: docs/decisions.md).
    let (file, inc) = gemm();
    let (code, text, err) = polyc(&[&file, &inc, "--dump", "fallbacks", "--target", "cuda"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.len() == 2 && lines[0].starts_with("SCoP 0 in kernel_gemm, ") && lines[1] == "  none",
        "{text}"
    );
    // One phase each: tiling (the C target), code generation (OpenCL only).
    let fm = hostile("fm-row-limit.c");
    let (code, out, err) = polyc(&[&fm, "--dump", "fallbacks", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["target"], "c");
    let scop = &v["scops"][0];
    assert_eq!(scop["function"], "kernel");
    assert_eq!(scop["start"]["line"], 8);
    assert_eq!(scop["fallbacks"][0]["phase"], "tiling", "{v}");
    let barriers = hostile("pocl-barrier-regions.c");
    let (code, c, err) = polyc(&[&barriers, "--dump", "fallbacks"]);
    assert_eq!(code, 0, "{err}");
    let (code, opencl, err) = polyc(&[&barriers, "--dump", "fallbacks", "--target", "opencl"]);
    assert_eq!(code, 0, "{err}");
    let serial = "run each tile on one work-item, without barriers";
    assert!(
        !c.contains(serial) && opencl.contains(serial),
        "{c}\n{opencl}"
    );
    assert!(
        opencl.contains("\n  code generation: the OpenCL kernels of group 0"),
        "{opencl}"
    );
}

#[test]
fn schedule_dump_shows_reductions_and_privatised_scalars() {
    let (file, inc) = gemm();
    let (code, out, err) = polyc(&[&file, &inc, "--dump", "schedule", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // gemm's S1, `C[i][j] += alpha * A[i][k] * B[k][j]`, accumulates along k.
    assert_eq!(
        v["scops"][0]["reductions"],
        serde_json::json!([{ "statement": 1, "op": "add", "datum": "C", "loops": ["k"], "floating": true }])
    );
    assert_eq!(v["scops"][0]["privatised"], serde_json::json!([]));
    let (code, text, _) = polyc(&[&file, &inc, "--dump", "schedule"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("reduction: S1 (C[i][j] += alpha * A[i][k] * B[k][j];) along k, operator +, floating point"),
        "{text}"
    );
    // ludcmp's `w` is privatised (expanded); its updates are reductions.
    let k = polybench::kernel("ludcmp").unwrap();
    let inc = format!("-I{}", polybench::utilities_of(&k).display());
    let (code, out, err) = polyc(&[
        &k.source.display().to_string(),
        &inc,
        "--dump",
        "schedule",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let privatised = v["scops"][0]["privatised"].as_array().unwrap();
    assert!(!privatised.is_empty() && privatised.iter().all(|p| p["scalar"] == "w"));
    assert_eq!(v["scops"][0]["reductions"].as_array().unwrap().len(), 4);
}

#[test]
fn schedule_dump_shows_privatised_arrays() {
    // doitgen's `sum[p]` is rewritten in every iteration (r, q): one copy per iteration, its
    // last values copied back.
    let k = polybench::kernel("doitgen").unwrap();
    let inc = format!("-I{}", polybench::utilities_of(&k).display());
    let src = k.source.display().to_string();
    let (code, out, err) = polyc(&[&src, &inc, "--dump", "schedule", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        v["scops"][0]["privatised"],
        serde_json::json!([{ "scalar": "sum", "array": "polyc_exp0_sum", "dims": 2, "own_dims": 1 }])
    );
    let (code, text, _) = polyc(&[&src, &inc, "--dump", "schedule"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("privatised: array sum as polyc_exp0_sum (one copy per iteration of 2 loops, last values copied back)"),
        "{text}"
    );
    // `--no-expansion` keeps it an array of its own.
    let (code, out, _) = polyc(&[&src, &inc, "--dump", "schedule", "--json", "--no-expansion"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["scops"][0]["privatised"], serde_json::json!([]));
}

#[test]
fn buffers_json_and_text_agree() {
    let (file, inc) = gemm();
    let (code, out, err) = polyc(&[&file, &inc, "--dump", "buffers", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let group = &v["scops"][0]["groups"][0];
    assert_eq!(group["tiled_dims"], 3);
    let buffers = group["buffers"].as_array().unwrap();
    let arrays: Vec<&str> = buffers
        .iter()
        .map(|b| b["array"].as_str().unwrap())
        .collect();
    // C (four references) first; A and B, one reference each, after it.
    assert_eq!(arrays.len(), 3);
    assert_eq!(arrays[0], "C");
    let c = &buffers[0];
    assert_eq!(c["rank"], 1);
    assert_eq!(c["written"], true);
    assert_eq!(c["reuse"]["group"], 4);
    assert_eq!(c["origin"], serde_json::json!(["o0", "o1"]));
    assert_eq!(
        c["extent"],
        serde_json::json!(["(T0 - 1) + 1", "(T1 - 1) + 1"])
    );
    assert_eq!(c["elements_at_ranking_size"], 32 * 32);
    // The kernels stage all three, best first.
    let versions: Vec<u64> = buffers
        .iter()
        .map(|b| b["kernel_version"].as_u64().unwrap())
        .collect();
    assert_eq!(versions, [1, 2, 3]);
    let (code, text, _) = polyc(&[&file, &inc, "--dump", "buffers"]);
    assert_eq!(code, 0);
    assert!(text.contains("3 candidate buffer(s)"), "{text}");
    assert!(text.contains("1. C (written); 4 references"), "{text}");
    assert!(text.contains("staged from kernel version 3"), "{text}");
}

#[test]
fn json_requires_dump() {
    let (file, _) = gemm();
    let (code, _, err) = polyc(&[&file, "--json"]);
    assert_eq!(code, 2, "{err}");
}
