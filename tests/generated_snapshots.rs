//! Snapshots of the generated text: three suite kernels (a wavefront stencil, a parallel
//! product, a triangular factorisation) on every target. A change to generated code shows up
//! here as a diff to review (`cargo insta review`, or `INSTA_UPDATE=always`); the end-to-end
//! tests show whether it still computes what the original does.
//! `scripts/snapshot-generated.sh` writes the same text for all 30 kernels.

use std::path::Path;
use std::process::Command;

const KERNELS: &[&str] = &["jacobi-2d", "gemm", "lu"];
const TARGETS: &[&str] = &["c", "opencl", "cuda"];

#[test]
fn generated_text_of_sample_kernels() {
    // Paths relative to the repository, so that the text (which names its source) is the
    // same in every checkout.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = tempfile::tempdir().unwrap();
    for name in KERNELS {
        let k = polybench::kernel(name).expect("suite kernel");
        let source = k.source.strip_prefix(root).unwrap();
        let utilities = polybench::utilities_of(&k);
        let utilities = utilities.strip_prefix(root).unwrap();
        for target in TARGETS {
            let out = work.path().join(format!("{name}.{target}.c"));
            let r = Command::new(env!("CARGO_BIN_EXE_polyc"))
                .current_dir(root)
                .arg(source)
                .arg("-I")
                .arg(utilities)
                .args(["--target", target, "-o"])
                .arg(&out)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&r.stderr);
            assert!(r.status.success(), "{name} {target}: {err}");
            let text = std::fs::read_to_string(&out).unwrap();
            insta::assert_snapshot!(format!("{name}_{target}"), text);
        }
    }
}
