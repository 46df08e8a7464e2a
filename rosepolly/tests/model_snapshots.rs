//! Every kernel of the suite extracts; its model's shape is recorded as a snapshot (statement
//! count, loop depth, parameters, arrays, and each statement's domain), so that changes to
//! model extraction show up in review.

use std::fmt::Write;

use rosepolly::compilation::{self, Detection, SourceOptions, SourceUnit};
use rosepolly::math::isl::Ctx;
use rosepolly::model::Scop;

fn summary(scops: &[Scop]) -> String {
    let mut out = String::new();
    for s in scops {
        let _ = writeln!(
            out,
            "scop {} in {}: params [{}]",
            s.id,
            s.function,
            s.params.join(", ")
        );
        let _ = writeln!(
            out,
            "  statements: {}, max loop depth: {}",
            s.statements.len(),
            s.max_depth()
        );
        for st in &s.statements {
            let _ = writeln!(out, "  {} (depth {}): {}", st.name, st.depth(), st.body);
            let _ = writeln!(out, "      {}", st.domain);
        }
        for d in s.symbols.data.values() {
            let ext: String = d
                .extents
                .iter()
                .map(|e| format!("[{}]", e.as_ref().map_or("?".into(), |x| x.to_string())))
                .collect();
            let rw = if d.written { "written" } else { "read-only" };
            let kind = if d.is_scalar() { "scalar" } else { "array" };
            let _ = writeln!(out, "  {kind} {} {}{ext} {rw}", d.elem_type, d.name);
        }
    }
    out
}

#[test]
fn suite_models() {
    for k in polybench::kernels() {
        let opts = SourceOptions {
            include_dirs: vec![polybench::utilities_of(&k)],
            defines: vec!["MINI_DATASET".into()],
            ..SourceOptions::default()
        };
        let src = SourceUnit::load(&k.source, &opts).unwrap_or_else(|e| panic!("{}: {e}", k.name));
        let ctx = Ctx::new();
        let scops = compilation::build_models(&ctx, &src, Detection::Pragmas)
            .unwrap_or_else(|e| panic!("{}: {e}", k.name));
        assert_eq!(scops.len(), 1, "{}: one SCoP per kernel", k.name);
        insta::assert_snapshot!(format!("model_{}", k.name), summary(&scops));
    }
}
