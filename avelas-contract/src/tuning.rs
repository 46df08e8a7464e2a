//! The tuning file: the best known configuration of each SCoP, which `polyc tune` writes and a
//! generated program reads when a SCoP starts (`docs/interfaces.md`, "Tuning files").
//!
//! Text, one entry per line, so that the C target's parser ([`crate::c_tuning`]) stays small:
//!
//! ```text
//! polyc-tuning 1
//! # comments and blank lines are ignored
//! program=gemm.c scop=0 id=5be1d2f1a0c3e977 target=c device=openmp-2 params=ni=1000,nj=1100,nk=1200 sizes=64,32,32
//! program=gemm.c scop=1 id=0a0c3e9775be1d2f target=c device=openmp-2 params=n=40 sizes=untiled
//! program=gemm.c scop=0 id=77a0c3e9775be1d2 target=opencl device=pthread-cpu params=n=4000 sizes=16,32 local_mem=0
//! ```
//!
//! An entry applies to a SCoP when everything before ` sizes=` equals the SCoP's key: the
//! source file, the SCoP's number, a fingerprint of the code polyc generated for it (another
//! schedule or another polyc makes another code), the target, the device (the C target: its
//! OpenMP threads), and the parameter values. So sizes found for one problem size, device or
//! build are never used for another. The fields come in this order, separated by one space.

use std::fmt;

use crate::config::{tile_sizes, MAX_SCOP_NUMBER};

/// The first line of every tuning file.
pub const HEADER: &str = "polyc-tuning 1";
/// A program finds its tuning file beside its executable: the executable's path and this.
pub const SUFFIX: &str = ".tuning";
/// The variable that names another tuning file.
pub const VARIABLE: &str = "POLYC_TUNING";
/// The variable with which `polyc tune` asks a C-target program for in-process trials: a file
/// of lines `SCOP SIZES` (SIZES as in an entry), tried one after another in one process.
pub const TRIALS: &str = "POLYC_TUNE_TRIALS";
/// The word of a trials file's line `SCOP cutoff FACTOR MS`: the SCoP's trials that run FACTOR
/// times as long as its fastest whole run so far in the process, and at least MS milliseconds,
/// are stopped.
pub const CUTOFF: &str = "cutoff";
/// The `sizes=` of an entry that runs the SCoP in its original order (the C target).
pub const UNTILED: &str = "untiled";
/// The fields of a key, in order.
pub const KEY_FIELDS: [&str; 6] = ["program", "scop", "id", "target", "device", "params"];
/// The targets an entry may name.
pub const TARGETS: [&str; 3] = ["c", "opencl", "cuda"];
/// The longest line a tuning file may hold (the C parser's buffer).
pub const MAX_LINE: usize = 4095;
/// The most entries a tuning file may hold.
pub const MAX_ENTRIES: usize = 4096;
/// The profile's `sizes_from=` value for sizes from a tuning file.
pub const SIZES_FROM_TUNED: &str = "tuned";

/// What an entry says to run.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Tuned {
    /// The original order, untiled.
    Untiled,
    /// These tile sizes, outermost tiled dimension first (a shorter list repeats its last).
    Sizes(Vec<i64>),
}

impl fmt::Display for Tuned {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Tuned::Untiled => f.write_str(UNTILED),
            Tuned::Sizes(s) => {
                let s: Vec<String> = s.iter().map(i64::to_string).collect();
                f.write_str(&s.join(","))
            }
        }
    }
}

/// One line of a tuning file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `program=... params=...`, as [`key`] prints it.
    pub key: String,
    pub tuned: Tuned,
    /// The local-memory window (GPU targets), unless the device's.
    pub local_mem: Option<u64>,
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} sizes={}", self.key, self.tuned)?;
        if let Some(l) = self.local_mem {
            write!(f, " local_mem={l}")?;
        }
        Ok(())
    }
}

/// A SCoP's key: its fields in [`KEY_FIELDS`] order, each value made a [`word`].
pub fn key(
    program: &str,
    scop: usize,
    id: &str,
    target: &str,
    device: &str,
    params: &str,
) -> String {
    let scop = scop.to_string();
    let values = [program, &scop, id, target, device, params];
    let fields: Vec<String> = KEY_FIELDS
        .iter()
        .zip(values)
        .map(|(k, v)| format!("{k}={}", word(v)))
        .collect();
    fields.join(" ")
}

/// The `params=` value of a key: `n=40,m=30` from the parameters' names and values (the
/// programs pass them apart and format only when they look an entry up), `-` when there are
/// none.
pub fn params_text<'a, V: fmt::Display>(
    names: impl IntoIterator<Item = &'a str>,
    values: &[V],
) -> String {
    let pairs: Vec<String> = names
        .into_iter()
        .zip(values)
        .map(|(name, v)| format!("{name}={v}"))
        .collect();
    if pairs.is_empty() {
        "-".into()
    } else {
        pairs.join(",")
    }
}

/// `text` as one field value: printable ASCII but spaces (device names have spaces), quotes and
/// backslashes (keys are C string literals in generated code), or `-` when empty.
pub fn word(text: &str) -> String {
    if text.is_empty() {
        return "-".into();
    }
    text.chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A key without its `id=` field: the same SCoP of the same program, target, device and
/// parameters, whatever code polyc generated for it.
pub fn without_id(key: &str) -> String {
    key.split(' ')
        .filter(|f| !f.starts_with("id="))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A parameter list's value: `n=40,m=30`, or `-` without parameters.
pub fn params(values: &[(&str, i64)]) -> String {
    let p: Vec<String> = values.iter().map(|(n, v)| format!("{n}={v}")).collect();
    word(&p.join(","))
}

/// A tuning file's entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TuningFile {
    pub entries: Vec<Entry>,
}

/// A malformed tuning file: the line (from 1) and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TuningError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for TuningError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for TuningError {}

impl TuningFile {
    /// The entry whose key is `key`.
    pub fn lookup(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }

    /// Adds `entry`, replacing the one with its key.
    pub fn set(&mut self, entry: Entry) {
        match self.entries.iter_mut().find(|e| e.key == entry.key) {
            Some(e) => *e = entry,
            None => self.entries.push(entry),
        }
    }

    /// The file's text: the header, a comment, the entries.
    pub fn render(&self, comment: &[String]) -> String {
        let mut out = format!("{HEADER}\n");
        for c in comment {
            out.push_str(&format!("# {c}\n"));
        }
        for e in &self.entries {
            out.push_str(&format!("{e}\n"));
        }
        out
    }

    /// Parses a tuning file's text.
    pub fn parse(text: &str) -> Result<TuningFile, TuningError> {
        let mut lines = text.split('\n').enumerate().map(|(i, l)| (i + 1, l));
        let err = |line, message: String| Err(TuningError { line, message });
        match lines.next() {
            Some((_, HEADER)) => {}
            _ => return err(1, format!("expected the first line \"{HEADER}\"")),
        }
        let mut file = TuningFile::default();
        let mut first_line: Vec<usize> = Vec::new();
        for (n, line) in lines {
            if line.len() > MAX_LINE {
                return err(n, format!("the line is longer than {MAX_LINE} bytes"));
            }
            if line.contains('\0') {
                return err(n, "the line holds a NUL byte".into());
            }
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let entry = parse_entry(line).map_err(|message| TuningError { line: n, message })?;
            if let Some(k) = file.entries.iter().position(|e| e.key == entry.key) {
                return err(
                    n,
                    format!("this key is already given on line {}", first_line[k]),
                );
            }
            if file.entries.len() == MAX_ENTRIES {
                return err(n, format!("more than {MAX_ENTRIES} entries"));
            }
            file.entries.push(entry);
            first_line.push(n);
        }
        Ok(file)
    }
}

/// One entry's line: the key's fields, `sizes=`, maybe `local_mem=`.
fn parse_entry(line: &str) -> Result<Entry, String> {
    let fields: Vec<&str> = line.split(' ').collect();
    let names = KEY_FIELDS.iter().chain(&["sizes", "local_mem"]);
    if fields.len() < KEY_FIELDS.len() + 1 || fields.len() > KEY_FIELDS.len() + 2 {
        return Err(format!(
            "expected the fields {}, sizes= and maybe local_mem=, separated by single spaces",
            KEY_FIELDS.map(|f| format!("{f}=")).join(" ")
        ));
    }
    let mut values = Vec::new();
    for (field, name) in fields.iter().zip(names) {
        match field.strip_prefix(name).and_then(|v| v.strip_prefix('=')) {
            Some(v) if !v.is_empty() && v.bytes().all(|b| b.is_ascii_graphic()) => values.push(v),
            _ => return Err(format!("expected {name}= and a value where \"{field}\" is")),
        }
    }
    let scop = values[1];
    if !scop.bytes().all(|b| b.is_ascii_digit())
        || scop.parse::<usize>().map_or(true, |s| s > MAX_SCOP_NUMBER)
    {
        return Err(format!(
            "scop={scop}: expected a SCoP number up to {MAX_SCOP_NUMBER}"
        ));
    }
    if values[2].len() != 16 || !values[2].bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(format!("id={}: expected 16 hexadecimal digits", values[2]));
    }
    if !TARGETS.contains(&values[3]) {
        return Err(format!("target={}: expected c, opencl or cuda", values[3]));
    }
    let tuned = match values[6] {
        UNTILED => Tuned::Untiled,
        s => match tile_sizes(Some(s)) {
            Ok(sizes) => Tuned::Sizes(sizes),
            Err(_) => {
                return Err(format!(
                    "sizes={s}: expected {UNTILED} or positive integers separated by commas"
                ))
            }
        },
    };
    let local_mem = match values.get(7) {
        None => None,
        Some(v) => match v.parse::<u64>() {
            Ok(n) if v.bytes().all(|b| b.is_ascii_digit()) && n <= i64::MAX as u64 => Some(n),
            _ => return Err(format!("local_mem={v}: expected a number of bytes")),
        },
    };
    let key_end = line.find(" sizes=").expect("the sizes field was found");
    Ok(Entry {
        key: line[..key_end].to_string(),
        tuned,
        local_mem,
    })
}

/// FNV-1a, 64 bits, as 16 hexadecimal digits: the fingerprint `id=` of a SCoP's generated code.
pub fn fingerprint(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_are_formatted_like_the_programs_keys() {
        assert_eq!(params_text(["n", "m"], &[40i64, -3]), "n=40,m=-3");
        assert_eq!(params_text([""], &[] as &[i64]), "-");
    }

    const KEY: &str =
        "program=gemm.c scop=0 id=0123456789abcdef target=c device=openmp-2 params=n=40";

    fn file(lines: &[&str]) -> Result<TuningFile, TuningError> {
        TuningFile::parse(&format!("{HEADER}\n{}\n", lines.join("\n")))
    }

    #[test]
    fn entries_are_found_by_their_whole_key() {
        let f = file(&["# best of 40", "", &format!("{KEY} sizes=8,16")]).unwrap();
        assert_eq!(f.lookup(KEY).unwrap().tuned, Tuned::Sizes(vec![8, 16]));
        assert!(f.lookup(&KEY.replace("n=40", "n=41")).is_none());
        assert!(f.lookup(&KEY.replace("openmp-2", "openmp-1")).is_none());
        let f = file(&[&format!("{KEY} sizes=untiled local_mem=0")]).unwrap();
        assert_eq!(f.entries[0].tuned, Tuned::Untiled);
        assert_eq!(f.entries[0].local_mem, Some(0));
    }

    #[test]
    fn a_key_prints_its_fields_in_order() {
        let p = params(&[("n", 40)]);
        assert_eq!(
            key("gemm.c", 0, "0123456789abcdef", "c", "openmp-2", &p),
            KEY
        );
        assert_eq!(word("NVIDIA H100 80GB"), "NVIDIA_H100_80GB");
        assert_eq!(word("a\"b\\c.c"), "a_b_c.c");
        assert_eq!(without_id(KEY), KEY.replace(" id=0123456789abcdef", ""));
        assert_eq!(params(&[]), "-");
        assert_eq!(fingerprint("").len(), 16);
        assert_ne!(fingerprint("a"), fingerprint("b"));
    }

    #[test]
    fn rendering_reads_back() {
        let mut f = TuningFile::default();
        let e = |tuned| Entry {
            key: KEY.into(),
            tuned,
            local_mem: None,
        };
        f.set(e(Tuned::Sizes(vec![4])));
        f.set(e(Tuned::Untiled));
        assert_eq!(f.entries.len(), 1);
        let text = f.render(&["tuned by a test".into()]);
        assert_eq!(TuningFile::parse(&text).unwrap(), f);
    }

    #[test]
    fn malformed_files_name_the_line() {
        assert_eq!(TuningFile::parse("").unwrap_err().line, 1);
        assert_eq!(TuningFile::parse("polyc-tuning 2\n").unwrap_err().line, 1);
        for bad in [
            "program=gemm.c",
            KEY,
            &format!("{KEY} sizes="),
            &format!("{KEY} sizes=0"),
            &format!("{KEY} sizes=8,"),
            &format!("{KEY} sizes=tiled"),
            &format!("{KEY}  sizes=8"),
            &format!("{KEY} sizes=8 local_mem=-1"),
            &format!("{KEY} sizes=8 local_mem=1 x=2"),
            &format!("{KEY} local_mem=1 sizes=8"),
            &format!("{} sizes=8", KEY.replace("scop=0", "scop=10000")),
            &format!("{} sizes=8", KEY.replace("target=c", "target=fpga")),
            &format!("{} sizes=8", KEY.replace("id=0123456789abcdef", "id=xyz")),
            &format!("{} sizes=8", KEY.replace("scop=0", "scop=-1")),
        ] {
            let e = file(&[bad]).unwrap_err();
            assert_eq!(e.line, 2, "{bad}: {e}");
        }
        assert_eq!(file(&["# a\0b"]).unwrap_err().line, 2);
        let dup = format!("{KEY} sizes=8");
        let e = file(&[&dup, &dup]).unwrap_err();
        assert_eq!((e.line, e.message.contains("line 2")), (3, true), "{e}");
    }
}
