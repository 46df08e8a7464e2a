//! polyc's own kernel suite in PolyBench/C form, and the harness that drives any suite of
//! that form (ours under `suite/`, or a user's PolyBench/C checkout).
//!
//! A suite is a directory with `utilities/polybench.h`, `utilities/polybench.c`,
//! `utilities/benchmark_list` (one kernel `.c` path per line, relative to the suite root), and
//! one directory per kernel holding `<name>.c` and `<name>.h`.

pub mod cuda_emu;
pub mod fold_shapes;
pub mod harness;
pub mod jam_shapes;
pub mod random;

use std::io;
use std::path::{Path, PathBuf};

/// One kernel of a suite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kernel {
    /// `gemm`, `jacobi-2d`...
    pub name: String,
    /// `linear-algebra/blas`, `stencils`...
    pub category: String,
    /// The kernel's `.c` file.
    pub source: PathBuf,
}

/// The datasets of PolyBench, smallest first.
pub const DATASETS: [&str; 5] = ["MINI", "SMALL", "MEDIUM", "LARGE", "EXTRALARGE"];

/// The root of polyc's own suite.
pub fn suite_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("suite")
}

/// The kernels of polyc's own suite.
pub fn kernels() -> Vec<Kernel> {
    kernels_in(&suite_dir()).expect("the bundled suite lists its kernels")
}

/// Find a kernel of polyc's own suite by name.
pub fn kernel(name: &str) -> Option<Kernel> {
    kernels().into_iter().find(|k| k.name == name)
}

/// The kernels of a PolyBench-form suite rooted at `root`, in `benchmark_list` order.
pub fn kernels_in(root: &Path) -> io::Result<Vec<Kernel>> {
    let list = std::fs::read_to_string(root.join("utilities").join("benchmark_list"))?;
    let mut out = Vec::new();
    for line in list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let rel = Path::new(line.trim_start_matches("./"));
        let name = rel
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let category = rel
            .parent()
            .and_then(Path::parent)
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        out.push(Kernel {
            name,
            category,
            source: root.join(rel),
        });
    }
    Ok(out)
}

/// The `utilities` directory of the suite a kernel belongs to.
pub fn utilities_of(k: &Kernel) -> PathBuf {
    let mut dir = k.source.parent().map(Path::to_path_buf).unwrap_or_default();
    while !dir.join("utilities").join("polybench.h").is_file() {
        if !dir.pop() {
            break;
        }
    }
    dir.join("utilities")
}

/// The problem sizes `dataset` gives kernel `k` (`("N", 30)`...), from the `#define`s of its
/// header's block for that dataset (the layout of PolyBench/C 4.2.1 and of our suite). Defining
/// all of them with `-D` sets any other sizes.
pub fn dataset_sizes(k: &Kernel, dataset: &str) -> io::Result<Vec<(String, i64)>> {
    let header = k.source.with_extension("h");
    let text = std::fs::read_to_string(&header)?;
    let mark = format!("{dataset}_DATASET");
    let mut sizes = Vec::new();
    // One entry per open conditional: whether it is the branch for `dataset`.
    let mut open: Vec<bool> = Vec::new();
    for line in text.lines() {
        let words: Vec<&str> = line.trim_start_matches('#').split_whitespace().collect();
        // `defined(MINI_DATASET)` or `MINI_DATASET`, the whole name (LARGE is not EXTRALARGE).
        let selects =
            |cond: &&str| cond.trim_start_matches("defined(").trim_end_matches(')') == mark;
        match words.as_slice() {
            [kw, cond, ..] if matches!(*kw, "if" | "ifdef") => open.push(selects(cond)),
            ["ifndef", ..] => open.push(false),
            [kw, cond, ..] if *kw == "elif" => {
                if let Some(top) = open.last_mut() {
                    *top = selects(cond);
                }
            }
            ["else", ..] => {
                if let Some(top) = open.last_mut() {
                    *top = false;
                }
            }
            ["endif", ..] => {
                open.pop();
            }
            ["define", name, value] if open.contains(&true) => {
                if let Ok(v) = value.parse() {
                    sizes.push((name.to_string(), v));
                }
            }
            _ => {}
        }
    }
    if sizes.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: no sizes for {dataset}", header.display()),
        ));
    }
    Ok(sizes)
}

/// A user's PolyBench/C checkout named by `POLYBENCH_DIR`, if set and well-formed.
pub fn external_suite() -> Option<PathBuf> {
    let dir = PathBuf::from(std::env::var_os("POLYBENCH_DIR")?);
    dir.join("utilities")
        .join("benchmark_list")
        .is_file()
        .then_some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dataset_sizes_come_from_the_header() {
        let k = kernel("jacobi-2d").unwrap();
        let sizes = dataset_sizes(&k, "MINI").unwrap();
        assert_eq!(sizes, vec![("TSTEPS".into(), 20), ("N".into(), 30)]);
        let gemm = dataset_sizes(&kernel("gemm").unwrap(), "SMALL").unwrap();
        assert_eq!(gemm.len(), 3);
        let large = dataset_sizes(&kernel("gemm").unwrap(), "LARGE").unwrap();
        assert_eq!(
            large.len(),
            3,
            "LARGE's sizes only, not EXTRALARGE's: {large:?}"
        );
        for k in kernels() {
            assert!(dataset_sizes(&k, "MINI").is_ok(), "{}", k.name);
        }
    }

    #[test]
    fn bundled_suite_has_thirty_kernels() {
        let ks = kernels();
        assert_eq!(ks.len(), 30);
        for k in &ks {
            assert!(k.source.is_file(), "{}", k.source.display());
            assert!(k.source.with_extension("h").is_file(), "{}", k.name);
            assert!(utilities_of(k).join("polybench.c").is_file());
        }
        assert!(kernel("jacobi-2d").is_some());
    }
}
