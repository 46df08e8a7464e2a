//! `--auto-scop`: maximal affine regions are found without pragmas.

use std::path::Path;

use rosepolly::compilation::{self, Detection, SourceOptions, SourceUnit};
use rosepolly::math::isl::Ctx;

/// `f` of the regions automatic detection finds in `tests/inputs/auto/<input>`.
fn with_automatic<R>(input: &str, f: impl FnOnce(&[rosepolly::model::Scop]) -> R) -> R {
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/inputs/auto")
        .join(input);
    let src = SourceUnit::load(&file, &SourceOptions::default()).unwrap();
    let ctx = Ctx::new();
    let scops = compilation::build_models(&ctx, &src, Detection::Automatic).unwrap();
    f(&scops)
}

#[test]
fn finds_maximal_regions_and_leaves_the_rest() {
    with_automatic("mixed.c", |scops| {
        let lines: Vec<(u32, u32, usize)> = scops
            .iter()
            .map(|s| (s.region.start.line, s.region.end.line, s.statements.len()))
            .collect();
        // The initialisation nest; the body of the `while` (the `while` itself is not affine, but
        // its body is: a loop nest and two scalar updates); the diagonal copy (the `printf` ends
        // the run); nothing for the last loop, whose `if` reads data.
        assert_eq!(lines, vec![(12, 14, 1), (17, 21, 3), (24, 25, 1)]);
        assert!(scops
            .iter()
            .all(|s| !s.region.marked && s.function == "main"));
    });
}

/// Each suite kernel, with its pragmas removed, yields a region in `kernel_<name>` with the
/// same statements as the marked one.
#[test]
fn suite_kernels_are_found_without_pragmas() {
    let tmp = std::env::temp_dir().join(format!("polyc-auto-{}", std::process::id()));
    for k in polybench::kernels() {
        let dir = tmp.join(&k.name);
        std::fs::create_dir_all(&dir).unwrap();
        let text = std::fs::read_to_string(&k.source).unwrap();
        let stripped: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("#pragma"))
            .map(|l| format!("{l}\n"))
            .collect();
        let copy = dir.join(k.source.file_name().unwrap());
        std::fs::write(&copy, stripped).unwrap();
        let header = k.source.with_extension("h");
        std::fs::copy(&header, dir.join(header.file_name().unwrap())).unwrap();
        let opts = SourceOptions {
            include_dirs: vec![polybench::utilities_of(&k)],
            defines: vec!["MINI_DATASET".into()],
            ..SourceOptions::default()
        };
        let ctx = Ctx::new();
        let marked_src = SourceUnit::load(&k.source, &opts).unwrap();
        let marked = compilation::build_models(&ctx, &marked_src, Detection::Pragmas).unwrap();
        let auto_src = SourceUnit::load(&copy, &opts).unwrap();
        let auto = compilation::build_models(&ctx, &auto_src, Detection::Automatic).unwrap();
        let kernel_fn = format!("kernel_{}", k.name.replace('-', "_"));
        let found: Vec<_> = auto.iter().filter(|s| s.function == kernel_fn).collect();
        assert_eq!(
            found.len(),
            1,
            "{}: regions in {kernel_fn}: {}",
            k.name,
            found.len()
        );
        let texts = |s: &rosepolly::model::Scop| {
            s.statements
                .iter()
                .map(|x| x.body.to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(texts(found[0]), texts(&marked[0]), "{}", k.name);
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

/// A loop in an included header is not a region: polyc rewrites only the file it compiles, so
/// automatic detection leaves the header's functions alone (marked ones are an error there).
#[test]
fn loops_in_included_headers_are_left_alone() {
    with_automatic("header/main.c", |scops| {
        assert_eq!(scops.len(), 1);
        assert!(scops[0].region.start.file.ends_with("main.c"));
        assert_eq!(scops[0].function, "f");
    });
}
