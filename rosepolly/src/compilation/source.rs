//! The user's C file: preprocessed by the system C preprocessor, parsed by lang-c, and mapped
//! back to original files and lines.
//!
//! lang-c's spans are byte offsets into the *preprocessed* text. The preprocessor's line markers
//! (`# 12 "file.c" 1`) say where each preprocessed line came from; a line map reads them once
//! so that every later diagnostic can name the file and line the user wrote.
//! `#pragma scop` / `#pragma endscop` survive preprocessing as text lines, not AST nodes, so
//! they are found here by offset.

use std::cell::RefCell;
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use lang_c::ast::TranslationUnit;
use lang_c::span::Span;

use crate::diag::{Diagnostic, Diagnostics, Loc};

/// How to preprocess: what a C compiler's `-I`, `-D` and `-U` would say.
#[derive(Debug, Clone)]
pub struct SourceOptions {
    pub include_dirs: Vec<PathBuf>,
    /// `NAME` or `NAME=VALUE`.
    pub defines: Vec<String>,
    pub undefines: Vec<String>,
    /// The preprocessor command (`gcc` by default; it is run with `-E`).
    pub cpp: String,
}

impl Default for SourceOptions {
    fn default() -> Self {
        SourceOptions {
            include_dirs: Vec::new(),
            defines: Vec::new(),
            undefines: Vec::new(),
            cpp: "gcc".to_string(),
        }
    }
}

impl SourceOptions {
    /// The arguments given to the preprocessor, in order.
    pub fn cpp_args(&self) -> Vec<String> {
        let mut args = vec!["-E".to_string(), "-x".to_string(), "c".to_string()];
        for d in &self.include_dirs {
            args.push(format!("-I{}", d.display()));
        }
        for d in &self.defines {
            args.push(format!("-D{d}"));
        }
        for u in &self.undefines {
            args.push(format!("-U{u}"));
        }
        args
    }
}

/// A `#pragma scop` or `#pragma endscop` line of the preprocessed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pragma {
    pub kind: PragmaKind,
    /// Byte offset of the line in the preprocessed text.
    pub offset: usize,
    pub loc: Loc,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PragmaKind {
    Scop,
    EndScop,
}

/// The identifiers and keywords of C text, in order (words of letters, digits and `_` that do
/// not start with a digit; a marked user name comes without its mark).
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_'))
}

/// A parsed C file.
pub struct SourceUnit {
    /// The path as the user gave it; diagnostics use the preprocessor's spelling of it.
    pub path: PathBuf,
    /// The preprocessed text lang-c parsed.
    pub text: String,
    pub unit: TranslationUnit,
    /// Every macro defined at the end of the translation unit (the preprocessor's `-dM`), the
    /// compiler's own included: generated code must not use their names.
    pub macros: BTreeSet<String>,
    /// Whether plain `char` is signed for the compiler (no `__CHAR_UNSIGNED__`).
    pub char_signed: bool,
    /// Whether identifiers with non-ASCII letters were respelt for the parser
    /// ([`super::ucn`]): `text` and the syntax tree hold them in ASCII, and generated code spells
    /// them back.
    pub ucns_respelt: bool,
    lines: LineMap,
    originals: RefCell<HashMap<String, Option<Vec<String>>>>,
}

impl SourceUnit {
    /// Preprocess and parse `path`. Errors name the file and line (the preprocessor's own
    /// message for a missing header, lang-c's position for a syntax error).
    pub fn load(path: &Path, opts: &SourceOptions) -> Result<SourceUnit, Diagnostics> {
        let display = path.display().to_string();
        if !path.is_file() {
            let why = match std::fs::metadata(path) {
                Ok(m) if m.is_dir() => "it is a directory".to_string(),
                Ok(_) => "it is not a regular file".to_string(),
                Err(e) => e.to_string(),
            };
            return Err(Diagnostic::new(
                Loc::new(&display, 0, None),
                format!("cannot read input file: {why}"),
            )
            .into());
        }
        let output = Command::new(&opts.cpp)
            .args(opts.cpp_args())
            .arg(path)
            .output()
            .map_err(|e| {
                Diagnostics::one(Diagnostic::new(
                    Loc::new(&display, 0, None),
                    format!("cannot run the C preprocessor `{}`: {e}", opts.cpp),
                ))
            })?;
        if !output.status.success() {
            let msg = String::from_utf8_lossy(&output.stderr).trim().to_string();
            return Err(preprocessor_diagnostics(&display, &msg));
        }
        let text = String::from_utf8_lossy(&output.stdout).into_owned();
        let mut unit = Self::from_preprocessed(path, text)?;
        unit.macros = defined_macros(path, opts);
        unit.char_signed = !unit.macros.contains("__CHAR_UNSIGNED__");
        Ok(unit)
    }

    /// Parse text that is already preprocessed (line markers included, if any).
    pub fn from_preprocessed(path: &Path, text: String) -> Result<SourceUnit, Diagnostics> {
        let config = lang_c::driver::Config::with_gcc();
        let respelt = super::ucn::to_ascii(&text);
        let ucns_respelt = respelt.is_some();
        let text = respelt.unwrap_or(text);
        let lines = LineMap::new(&text, &path.display().to_string());
        if let Some(offset) = increment_run(&text) {
            return Err(Diagnostic::new(
                located(&lines, &text, offset),
                format!(
                    "a run of `+` and `-` signs with more than {MAX_INCREMENT_PAIRS} of them directly followed by another"
                ),
            )
            .with_note(
                "no valid C expression needs more than a few; polyc's C parser takes time exponential \
                 in their number",
            )
            .into());
        }
        if let Some(u) = unbalanced_bracket(&text) {
            let message = match u.opener {
                Some((o, at)) => format!(
                    "`{}` does not close the `{o}` opened on line {}",
                    u.found,
                    located(&lines, &text, at).line
                ),
                None if matches!(u.found, '(' | '[' | '{') => {
                    format!("this `{}` is never closed", u.found)
                }
                None => format!("`{}` closes nothing", u.found),
            };
            return Err(Diagnostic::new(located(&lines, &text, u.offset), message)
                .with_note(
                    "polyc checks brackets before parsing: its C parser takes time exponential in \
                     the number of unclosed brackets around some constructs",
                )
                .into());
        }
        match lang_c::driver::parse_preprocessed(&config, text) {
            Ok(parse) => Ok(SourceUnit {
                path: path.to_path_buf(),
                text: parse.source,
                unit: parse.unit,
                macros: BTreeSet::new(),
                char_signed: true,
                ucns_respelt,
                lines,
                originals: RefCell::new(HashMap::new()),
            }),
            Err(e) => {
                let mut expected: Vec<_> = e.expected.iter().copied().collect();
                expected.sort_unstable();
                let loc = located(&lines, &e.source, e.offset);
                let token: String = e.source[e.offset..]
                    .chars()
                    .take_while(|c| !c.is_whitespace())
                    .take(20)
                    .collect();
                // gcc -E writes a non-ASCII letter of an identifier as a universal character
                // name (`größe` as `gr\U000000f6\U000000dfe`), which lang-c does not read.
                let non_ascii = token.starts_with("\\u")
                    || token.starts_with("\\U")
                    || token.chars().next().is_some_and(|c| !c.is_ascii());
                if non_ascii {
                    return Err(Diagnostic::new(
                        loc,
                        format!("an identifier with a non-ASCII letter (`{token}` after preprocessing)"),
                    )
                    .with_note(
                        "polyc reads such identifiers in an ASCII spelling (`\\U000000f6` as `_U000000f6`), \
                         which it cannot use here: the file has an identifier spelt that way of its own; rename one of them",
                    )
                    .into());
                }
                Err(Diagnostic::new(loc, format!("syntax error at `{token}`"))
                    .with_note(format!("expected one of: {}", expected.join(" ")))
                    .into())
            }
        }
    }

    /// Where a byte offset of the preprocessed text came from.
    pub fn loc(&self, offset: usize) -> Loc {
        let loc = self.lines.loc(offset, None);
        let column = self.exact_column(offset, &loc);
        Loc { column, ..loc }
    }

    /// The location of the start of a span.
    pub fn span_loc(&self, span: Span) -> Loc {
        self.loc(span.start)
    }

    /// The byte range, in the preprocessed text, of the function definition that holds the
    /// range `start..end`.
    pub fn function_around(&self, start: usize, end: usize) -> Option<(usize, usize)> {
        self.unit.0.iter().find_map(|e| match &e.node {
            lang_c::ast::ExternalDeclaration::FunctionDefinition(f)
                if f.span.start < start && end < f.span.end =>
            {
                Some((f.span.start, f.span.end))
            }
            _ => None,
        })
    }

    /// The preprocessed text of a span.
    pub fn snippet(&self, span: Span) -> &str {
        &self.text[span.start.min(self.text.len())..span.end.min(self.text.len())]
    }

    /// All `#pragma scop` / `#pragma endscop` lines, in order.
    pub fn pragmas(&self) -> Vec<Pragma> {
        let mut out = Vec::new();
        let mut offset = 0;
        for line in self.text.split_inclusive('\n') {
            let t = line.trim();
            if let Some(rest) = t.strip_prefix('#') {
                let words: Vec<&str> = rest.split_whitespace().collect();
                let kind = match words.as_slice() {
                    ["pragma", "scop", ..] => Some(PragmaKind::Scop),
                    ["pragma", "endscop", ..] => Some(PragmaKind::EndScop),
                    _ => None,
                };
                if let Some(kind) = kind {
                    out.push(Pragma {
                        kind,
                        offset,
                        loc: self.lines.loc(offset, None),
                    });
                }
            }
            offset += line.len();
        }
        out
    }

    /// The column is exact only if the preprocessed line equals the original one up to the
    /// offset (no macro was expanded before it on that line).
    fn exact_column(&self, offset: usize, loc: &Loc) -> Option<u32> {
        let mut originals = self.originals.borrow_mut();
        let lines = originals.entry(loc.file.clone()).or_insert_with(|| {
            std::fs::read_to_string(&loc.file)
                .ok()
                .map(|s| s.lines().map(str::to_owned).collect())
        });
        exact_column(&self.text, offset, loc, lines.as_deref())
    }

    /// Line of the original file where a preprocessed offset lies (for splicing output).
    pub fn original_line(&self, offset: usize) -> (String, u32) {
        let l = self.lines.loc(offset, None);
        (l.file, l.line)
    }

    /// Every identifier of the preprocessed text and every macro name.
    pub fn identifiers(&self) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = words(&self.text).map(str::to_string).collect();
        out.extend(self.macros.iter().cloned());
        out
    }

    /// The name the preprocessor gave the main file.
    pub fn main_file(&self) -> &str {
        &self.lines.main_file
    }
}

/// The names of the macros defined after preprocessing `path` (`-dM`); empty if the
/// preprocessor cannot say (it has just preprocessed the file, so it normally can).
fn defined_macros(path: &Path, opts: &SourceOptions) -> BTreeSet<String> {
    let Ok(out) = Command::new(&opts.cpp)
        .args(opts.cpp_args())
        .arg("-dM")
        .arg(path)
        .output()
    else {
        return BTreeSet::new();
    };
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let name = l.strip_prefix("#define ")?;
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(name.len());
            Some(name[..end].to_string())
        })
        .collect()
}

/// The column of `offset` in the original line, if the preprocessed line equals the original
/// one up to there.
fn exact_column(text: &str, offset: usize, loc: &Loc, original: Option<&[String]>) -> Option<u32> {
    let line_start = text[..offset].rfind('\n').map_or(0, |p| p + 1);
    let prefix = &text[line_start..offset];
    let line = original?.get((loc.line as usize).checked_sub(1)?)?;
    line.starts_with(prefix)
        .then(|| prefix.chars().count() as u32 + 1)
}

/// Turn the preprocessor's `file:line:col: error: msg` lines into diagnostics.
fn preprocessor_diagnostics(display: &str, stderr: &str) -> Diagnostics {
    let mut out = Diagnostics::default();
    for line in stderr.lines() {
        let parts: Vec<&str> = line.splitn(4, ':').collect();
        if parts.len() == 4 && parts[3].trim_start().starts_with("error")
            || parts.len() == 4 && parts[3].contains("fatal error")
        {
            if let (Ok(l), Ok(c)) = (parts[1].trim().parse(), parts[2].trim().parse()) {
                let msg = parts[3]
                    .trim()
                    .trim_start_matches("fatal error:")
                    .trim_start_matches("error:")
                    .trim();
                out.push(Diagnostic::new(
                    Loc::new(parts[0], l, Some(c)),
                    format!("preprocessor: {msg}"),
                ));
            }
        }
    }
    if out.is_empty() {
        out.push(Diagnostic::new(
            Loc::new(display, 0, None),
            format!("the C preprocessor failed: {stderr}"),
        ));
    }
    out
}

/// Where `offset` of the preprocessed `text` came from, with its column in the original line
/// when that file can be read (before a [`SourceUnit`] exists to cache it).
fn located(lines: &LineMap, text: &str, offset: usize) -> Loc {
    let mut loc = lines.loc(offset, None);
    let original = std::fs::read_to_string(&loc.file)
        .ok()
        .map(|t| t.lines().map(str::to_owned).collect::<Vec<_>>());
    loc.column = exact_column(text, offset, &loc, original.as_deref());
    loc
}

/// The most adjacent `+`/`-` pairs a run of signs may hold (see `increment_run`).
pub const MAX_INCREMENT_PAIRS: usize = 16;

/// The offset of the first run of `+`, `-` and white space, outside literals and directives,
/// with more than [`MAX_INCREMENT_PAIRS`] signs directly followed by another.
///
/// lang-c's PEG grammar reads each such pair as `++` or as two signs and backtracks through every
/// split when the expression fails: 32 `+` before a syntax error take a second, 40 hang polyc
/// (found by fuzzing). Valid C holds two or three such pairs at most (`a+++b`, `i++ + ++j`):
/// longer runs are never well-formed expressions.
fn increment_run(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let (mut i, mut line_start) = (0, true);
    let (mut run_start, mut pairs) = (0, 0usize);
    while i < b.len() {
        let c = b[i];
        match c {
            b'#' if line_start => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'"' | b'\'' => {
                // A literal: skip to its closing quote (escapes included) or the line's end.
                i += 1;
                while i < b.len() && b[i] != c && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'+' | b'-' => {
                if pairs == 0 && !matches!(b.get(i.wrapping_sub(1)), Some(b'+' | b'-')) {
                    run_start = i;
                }
                if matches!(b.get(i + 1), Some(b'+' | b'-')) {
                    pairs += 1;
                    if pairs > MAX_INCREMENT_PAIRS {
                        return Some(run_start);
                    }
                }
            }
            c if c.is_ascii_whitespace() => {}
            _ => pairs = 0,
        }
        line_start = c == b'\n' || (line_start && (c == b' ' || c == b'\t'));
        i += 1;
    }
    None
}

/// A bracket that does not balance: at `offset`, the bracket `found`; `opener` is the open
/// bracket it fails to close and where (`None`: it closes nothing), or, when `found` is an open
/// bracket, `None` too (it is never closed).
struct Unbalanced {
    offset: usize,
    found: char,
    opener: Option<(char, usize)>,
}

/// The first bracket that is unbalanced, outside literals, comments and directives: a closing
/// one that closes nothing or does not match the innermost open one, or else the innermost one
/// left open.
///
/// lang-c's PEG grammar backtracks through every reading of the text inside unclosed brackets:
/// three nested `[++++++++++++++(float(` (found by fuzzing, 320 bytes) took over two minutes,
/// ten nested `[++++(float(` over a minute. Valid C has its brackets balanced, so refusing the
/// rest before parsing loses nothing and names the real problem.
fn unbalanced_bracket(text: &str) -> Option<Unbalanced> {
    let b = text.as_bytes();
    let (mut i, mut line_start) = (0, true);
    let mut open: Vec<(u8, usize)> = Vec::new();
    while i < b.len() {
        let c = b[i];
        match (c, b.get(i + 1)) {
            (b'#', _) if line_start => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            (b'"' | b'\'', _) => {
                i += 1;
                while i < b.len() && b[i] != c && b[i] != b'\n' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            (b'/', Some(b'/')) => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            (b'/', Some(b'*')) => {
                // To the comment's closing `/`.
                i = text[i + 2..].find("*/").map_or(b.len(), |k| i + 3 + k);
            }
            (b'(' | b'[' | b'{', _) => open.push((c, i)),
            (b')' | b']' | b'}', _) => {
                let want = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                match open.pop() {
                    Some((o, _)) if o == want => {}
                    opener => {
                        return Some(Unbalanced {
                            offset: i,
                            found: c as char,
                            opener: opener.map(|(o, at)| (o as char, at)),
                        })
                    }
                }
            }
            _ => {}
        }
        line_start = c == b'\n' || (line_start && (c == b' ' || c == b'\t'));
        i += 1;
    }
    open.pop().map(|(o, at)| Unbalanced {
        offset: at,
        found: o as char,
        opener: None,
    })
}

/// Preprocessed line → (original file, line), read from the line markers.
struct LineMap {
    /// Start offset of each preprocessed line.
    starts: Vec<usize>,
    /// For each preprocessed line: index into `files` and the original line number.
    origin: Vec<(usize, u32)>,
    files: Vec<String>,
    main_file: String,
}

impl LineMap {
    fn new(text: &str, fallback_file: &str) -> LineMap {
        let mut map = LineMap {
            starts: Vec::new(),
            origin: Vec::new(),
            files: vec![fallback_file.to_string()],
            main_file: String::new(),
        };
        let mut file = 0usize;
        let mut line = 1u32;
        let mut offset = 0usize;
        for raw_line in text.split_inclusive('\n') {
            map.starts.push(offset);
            offset += raw_line.len();
            if let Some((l, f)) = parse_line_marker(raw_line) {
                // `#line 1 ""` is legal C; its lines are said to be in the file polyc reads,
                // so that every diagnostic names a file.
                let f = if f.is_empty() {
                    fallback_file.to_string()
                } else {
                    f
                };
                file = match map.files.iter().position(|x| *x == f) {
                    Some(i) => i,
                    None => {
                        map.files.push(f.clone());
                        map.files.len() - 1
                    }
                };
                if map.main_file.is_empty() {
                    map.main_file = f;
                }
                map.origin.push((file, l));
                line = l;
                continue;
            }
            map.origin.push((file, line));
            line += 1;
        }
        if map.main_file.is_empty() {
            map.main_file = fallback_file.to_string();
        }
        map
    }

    fn loc(&self, offset: usize, column: Option<u32>) -> Loc {
        let idx = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let (file, line) = self.origin.get(idx).copied().unwrap_or((0, 0));
        Loc::new(self.files[file].clone(), line, column)
    }
}

/// `# 12 "file.c" 1 3` → (12, "file.c"); also `#line 12 "file.c"`.
fn parse_line_marker(line: &str) -> Option<(u32, String)> {
    let rest = line.trim_start().strip_prefix('#')?;
    let rest = rest.trim_start();
    let rest = rest.strip_prefix("line").unwrap_or(rest).trim_start();
    let digits: String = rest.chars().take_while(|c| c.is_ascii_digit()).collect();
    if digits.is_empty() {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    let rest = rest[digits.len()..].trim_start();
    let quoted = rest.strip_prefix('"')?;
    let mut name = String::new();
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => name.push(chars.next()?),
            '"' => return Some((n, name)),
            c => name.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_identifiers_and_keywords() {
        let w: Vec<&str> = words("A[i][j] += sizeof(x) * 2.5e3 + \u{1}polyc_n;").collect();
        assert_eq!(w, ["A", "i", "j", "sizeof", "x", "polyc_n"]);
    }

    #[test]
    fn line_markers() {
        assert_eq!(
            parse_line_marker("# 12 \"a.c\" 1 3\n"),
            Some((12, "a.c".into()))
        );
        assert_eq!(
            parse_line_marker("#line 7 \"x\\\"y.c\""),
            Some((7, "x\"y.c".into()))
        );
        assert_eq!(parse_line_marker("#pragma scop"), None);
        let text = "# 1 \"main.c\"\nint a;\n# 1 \"h.h\" 1\nint b;\n# 3 \"main.c\" 2\nint c;\n";
        let m = LineMap::new(text, "main.c");
        let off = text.find("int c").unwrap();
        assert_eq!(m.loc(off, None), Loc::new("main.c", 3, None));
        let off = text.find("int b").unwrap();
        assert_eq!(m.loc(off, None), Loc::new("h.h", 1, None));
        let off = text.find("int a").unwrap();
        assert_eq!(m.loc(off, None), Loc::new("main.c", 1, None));
    }

    #[test]
    fn unbalanced_brackets_are_refused_before_parsing() {
        let at = |t: &str| unbalanced_bracket(t).map(|u| (u.offset, u.found, u.opener));
        assert_eq!(at("int f(int a[2]) { return (a[0]); }"), None);
        // In literals, comments and directives, brackets are text.
        assert_eq!(
            at("s = \"(\"; c = ')'; /* [ */ x = 1; // {\n#pragma scop (\n"),
            None
        );
        assert_eq!(at("a[(1]"), Some((4, ']', Some(('(', 2)))));
        assert_eq!(at("f(1));"), Some((4, ')', None)));
        assert_eq!(at("g { h(1;"), Some((5, '(', None)));
        let err = SourceUnit::from_preprocessed(Path::new("k.c"), "int x = (1;\n".into())
            .err()
            .expect("refused");
        assert_eq!(err.0[0].message, "this `(` is never closed");
    }

    #[test]
    fn long_runs_of_signs_are_refused_before_parsing() {
        assert_eq!(increment_run("x = a+++b - --c + ++d;"), None);
        assert_eq!(
            increment_run("x = - - - - - - - - - - - - - - - - - - - - y;"),
            None
        );
        // In literals and directives, signs are text.
        let dashes = "-".repeat(80);
        assert_eq!(
            increment_run(&format!("s = \"{dashes}\"; c = '-';\n#pragma {dashes}\n")),
            None
        );
        let text = format!("x = 1;\ny = {}@;", "++ ".repeat(20));
        assert_eq!(increment_run(&text), Some(11));
        let text = format!("y = {}z;", "+".repeat(40));
        assert_eq!(increment_run(&text), Some(4));
        let err = SourceUnit::from_preprocessed(
            Path::new("k.c"),
            format!("int f() {{ return {}1; }}", "-".repeat(90)),
        )
        .err()
        .expect("refused");
        assert!(
            err.0[0].message.contains("a run of `+` and `-` signs"),
            "{:?}",
            err
        );
    }

    #[test]
    fn an_empty_marker_name_is_the_file_read() {
        let text = "# 1 \"main.c\"\nint a;\n#line 9 \"\"\nint b;\n";
        let m = LineMap::new(text, "main.c");
        let off = text.find("int b").unwrap();
        assert_eq!(m.loc(off, None), Loc::new("main.c", 9, None));
    }
}
