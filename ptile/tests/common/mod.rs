//! What ptile's tests share: a suite kernel's first SCoP, modelled at MINI, or a SCoP of C text.

use rosepolly::compilation::{self, Detection, SourceOptions, SourceUnit};
use rosepolly::math::isl::Ctx;
use rosepolly::model::Scop;

/// `f` on the first SCoP of the bundled kernel `name` at the MINI dataset.
pub fn with_kernel<R>(name: &str, f: impl FnOnce(&Ctx, &Scop) -> R) -> R {
    let k = polybench::kernel(name).unwrap();
    let opts = SourceOptions {
        include_dirs: vec![polybench::utilities_of(&k)],
        defines: vec!["MINI_DATASET".into()],
        ..SourceOptions::default()
    };
    let src = SourceUnit::load(&k.source, &opts).unwrap();
    let ctx = Ctx::new();
    let scops = compilation::build_models(&ctx, &src, Detection::Pragmas).unwrap();
    f(&ctx, &scops[0])
}

/// `f` on the first SCoP of `text`, a preprocessed C file with `#pragma scop`.
#[allow(dead_code)] // Not every test file models its own text.
pub fn with_source<R>(text: &str, f: impl FnOnce(&Ctx, &Scop) -> R) -> R {
    let src = SourceUnit::from_preprocessed(std::path::Path::new("test.c"), text.into()).unwrap();
    let ctx = Ctx::new();
    let scops = compilation::build_models(&ctx, &src, Detection::Pragmas).unwrap();
    f(&ctx, &scops[0])
}
