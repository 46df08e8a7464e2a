//! Writing what polyc produces without harming anything else.
//!
//! * The input is never the output: the same file under another name, a hard link or a
//!   symbolic link to it included ([`same_file`]).
//! * A regular output (or a new one) is written to a fresh temporary file created exclusively
//!   (`O_EXCL`, so it never follows a planted symbolic link nor reuses an existing file) in
//!   the output's own directory, then renamed over the output: a failure leaves the old file
//!   as it was and no partial file behind. An output that is a symbolic link is replaced
//!   where it points, as a compiler writing through it would.
//! * An output that is not a regular file (a FIFO, a terminal, `/dev/stdout`) is written in
//!   place: it is never replaced by a regular file. A directory is an error.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Whether two paths name the same existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

/// Write `bytes` to `path` (see the module documentation); the error says why not.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let target = resolve(path);
    match fs::metadata(&target) {
        Ok(m) if m.is_dir() => return Err("it is a directory".into()),
        Ok(m) if !m.is_file() => return write_in_place(&target, bytes),
        _ => {}
    }
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    let mut tmp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".polyc-tmp")
        .permissions(permissions(&target))
        .tempfile_in(&dir)
        .map_err(|e| format!("cannot create a file in {}: {e}", dir.display()))?;
    tmp.write_all(bytes)
        .and_then(|_| tmp.as_file().sync_all())
        .map_err(|e| e.to_string())?;
    tmp.persist(&target)
        .map(|_| ())
        .map_err(|e| e.error.to_string())
}

/// The file a path names, through symbolic links (the path itself if it does not exist yet
/// or its link is dangling).
fn resolve(path: &Path) -> PathBuf {
    fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// The permissions a new file gets (`rw-rw-rw-` less the umask, as any compiler's output),
/// or those the file being replaced had.
fn permissions(target: &Path) -> fs::Permissions {
    use std::os::unix::fs::PermissionsExt;
    match fs::metadata(target) {
        Ok(m) => m.permissions(),
        Err(_) => fs::Permissions::from_mode(0o666),
    }
}

fn write_in_place(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut f = fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| e.to_string())?;
    f.write_all(bytes).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_a_file_and_follows_no_planted_link() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("k.out.c");
        let victim = dir.path().join("victim");
        fs::write(&victim, "keep").unwrap();
        // A link where an old polyc put its temporary file.
        std::os::unix::fs::symlink(&victim, dir.path().join("k.out.polyc-tmp")).unwrap();
        write(&out, b"new").unwrap();
        assert_eq!(fs::read_to_string(&out).unwrap(), "new");
        assert_eq!(fs::read_to_string(&victim).unwrap(), "keep");
        write(&out, b"newer").unwrap();
        assert_eq!(fs::read_to_string(&out).unwrap(), "newer");
        let left: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 3, "{left:?}");
    }

    #[test]
    fn same_file_sees_links() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.c");
        fs::write(&a, "x").unwrap();
        let l = dir.path().join("l.c");
        std::os::unix::fs::symlink(&a, &l).unwrap();
        let h = dir.path().join("h.c");
        fs::hard_link(&a, &h).unwrap();
        assert!(same_file(&a, &l) && same_file(&a, &h));
        assert!(!same_file(&a, &dir.path().join("missing.c")));
    }

    #[test]
    fn directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(write(dir.path(), b"x").is_err());
    }
}
