//! Writing the user's file back with each SCoP replaced by generated code.
//!
//! Splicing is by whole lines of the original file (columns inside macro expansions cannot be
//! mapped back). A region's lines, pragmas included, are replaced; a `#line` directive after
//! each region keeps the compiler's messages about the rest of the file pointing at the
//! user's lines.

/// A replaced range of lines (1-based, inclusive) and its new text.
#[derive(Debug, Clone)]
pub struct Region {
    pub first_line: u32,
    pub last_line: u32,
    pub code: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SpliceError {
    #[error("SCoP regions overlap at line {0}")]
    Overlap(u32),
    #[error("line {0} is past the end of the file")]
    OutOfRange(u32),
}

/// The lines of `text` with their ends: a line ends at `\n`, `\r\n` or a `\r` alone (old Mac
/// files), as the preprocessor counts them.
pub(crate) fn lines_inclusive(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let end = b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n'));
        if end {
            lines.push(&text[start..=i]);
            start = i + 1;
        }
    }
    if start < text.len() {
        lines.push(&text[start..]);
    }
    lines
}

/// The new file: `original` with `regions` replaced and `preamble` on top.
pub fn splice(
    original: &str,
    file_name: &str,
    preamble: &str,
    regions: &[Region],
) -> Result<String, SpliceError> {
    let lines = lines_inclusive(original);
    let mut regions: Vec<&Region> = regions.iter().collect();
    regions.sort_by_key(|r| r.first_line);
    let lead = feature_lines(&lines);
    let mut out = String::new();
    if lead > 0 {
        out.push_str(&format!("#line 1 \"{}\"\n", escape(file_name)));
        out.extend(lines[..lead].iter().copied());
        if !out.ends_with('\n') {
            out.push('\n');
        }
    }
    out.push_str(preamble);
    out.push_str(&format!("#line {} \"{}\"\n", lead + 1, escape(file_name)));
    let mut next = lead as u32 + 1;
    for r in regions {
        if r.first_line < next {
            return Err(SpliceError::Overlap(r.first_line));
        }
        if r.last_line as usize > lines.len() {
            return Err(SpliceError::OutOfRange(r.last_line));
        }
        for l in next..r.first_line {
            out.push_str(lines[l as usize - 1]);
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&r.code);
        if !out.ends_with('\n') {
            out.push('\n');
        }
        next = r.last_line + 1;
        out.push_str(&format!("#line {next} \"{}\"\n", escape(file_name)));
    }
    for l in next as usize..=lines.len() {
        out.push_str(lines[l - 1]);
    }
    Ok(out)
}

/// How many of the file's first lines go above polyc's preamble: the comments, blank lines and
/// `#define`/`#undef` lines that open the file, up to the last that names a feature-test macro
/// (an identifier reserved to the implementation, `_` and a capital letter: `_GNU_SOURCE`,
/// `_POSIX_C_SOURCE`, `_FILE_OFFSET_BITS`). The system headers the preamble includes read such
/// macros once, at their first inclusion: below the preamble, a user's `#define _GNU_SOURCE`
/// came too late for the `<sched.h>` the file included after it. 0 where there is none, or
/// where anything else (another directive, code) comes first.
fn feature_lines(lines: &[&str]) -> usize {
    let mut in_comment = false;
    // A feature-test macro defined since `last`, to move once no comment is open.
    let mut pending = false;
    let mut last = 0;
    let mut k = 0;
    while k < lines.len() {
        let code = strip_comments(lines[k], &mut in_comment);
        let code = code.trim();
        if !code.is_empty() {
            let Some(name) = defined_name(code) else {
                break;
            };
            pending |=
                name.starts_with('_') && name[1..].starts_with(|c: char| c.is_ascii_uppercase());
            // A definition continues on the next line after a backslash.
            while lines[k].trim_end_matches(['\n', '\r']).ends_with('\\') && k + 1 < lines.len() {
                k += 1;
                strip_comments(lines[k], &mut in_comment);
            }
        }
        k += 1;
        if pending && !in_comment {
            last = k;
            pending = false;
        }
    }
    last
}

/// The name a `#define` or `#undef` line (without comments) defines or undefines; None for any
/// other line.
fn defined_name(code: &str) -> Option<&str> {
    let directive = code.strip_prefix('#')?.trim_start();
    directive
        .strip_prefix("define")
        .or_else(|| directive.strip_prefix("undef"))
        .filter(|rest| rest.starts_with([' ', '\t']))
        .map(str::trim_start)
}

/// `line` without its comments (`in_comment`: whether a `/* */` comment is open, before and
/// after), string and character literals kept whole; a comment that ends on the line leaves a
/// space. Scanned as `names` scans generated text (`names::lex_step`).
fn strip_comments(line: &str, in_comment: &mut bool) -> String {
    use crate::names::{lex_step, Lex};
    let mut state = if *in_comment { Lex::Block } else { Lex::Code };
    let mut out = String::new();
    let mut i = 0;
    while i < line.len() {
        let (next, len) = lex_step(state, &line[i..]);
        let comment = |l: Lex| matches!(l, Lex::Block | Lex::Line);
        if state == Lex::Block && next == Lex::Code {
            out.push(' ');
        } else if !comment(state) && !comment(next) {
            out.push_str(&line[i..i + len]);
        }
        state = next;
        i += len;
    }
    *in_comment = state == Lex::Block;
    out
}

/// `s` inside a C string literal (a `#line` file name).
pub fn escape(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\{:03o}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// `s` inside a `/* ... */` comment: it cannot end the comment or start a line (a file name
/// may hold `*/` or newlines).
pub fn comment_text(s: &str) -> String {
    s.replace("*/", "* /")
        .replace("/*", "/ *")
        .replace(['\n', '\r'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_at_lf_crlf_or_a_lone_cr() {
        assert_eq!(
            lines_inclusive("a\nb\r\nc\rd"),
            ["a\n", "b\r\n", "c\r", "d"]
        );
        assert_eq!(lines_inclusive(""), Vec::<&str>::new());
        // Old Mac line ends: the region's lines are found, the others kept as written.
        let original = "a\r#pragma scop\rx\r#pragma endscop\rb\r";
        let region = Region {
            first_line: 2,
            last_line: 4,
            code: "y\n".into(),
        };
        let out = splice(original, "f.c", "", &[region]).unwrap();
        assert!(out.contains("a\r"), "{out:?}");
        assert!(out.contains("y\n#line 5 \"f.c\"\nb\r"), "{out:?}");
        assert!(!out.contains("pragma"), "{out:?}");
    }

    #[test]
    fn feature_test_macros_stay_above_the_preamble() {
        let original = "/* a kernel\n   of mine */\n\n#define N 4\n#define _GNU_SOURCE \\\n  1\n// why\n#include <sched.h>\n#define _X 1\nint x;\n";
        let out = splice(original, "f.c", "/*h*/\n", &[]).unwrap();
        assert_eq!(
            out,
            "#line 1 \"f.c\"\n/* a kernel\n   of mine */\n\n#define N 4\n#define _GNU_SOURCE \\\n  1\n/*h*/\n#line 7 \"f.c\"\n// why\n#include <sched.h>\n#define _X 1\nint x;\n"
        );
        // None before the first include, or a comment that only looks like one: the preamble
        // comes first.
        for text in [
            "#define N 4\n#include <stdio.h>\n#define _GNU_SOURCE\n",
            "/* #define _GNU_SOURCE */\nint x;\n",
            "#if 1\n#define _GNU_SOURCE\n#endif\n",
            "#define Q \"/*\"\nint y;\n#define _GNU_SOURCE\n",
        ] {
            let out = splice(text, "f.c", "/*h*/\n", &[]).unwrap();
            assert!(out.starts_with("/*h*/\n#line 1 \"f.c\"\n"), "{out}");
        }
        assert_eq!(
            feature_lines(&lines_inclusive(
                "#define Q '\"' /* x\n y */\n#undef _POSIX_C_SOURCE\n"
            )),
            3
        );
        // A comment open after the definition moves with it, to its end.
        assert_eq!(
            feature_lines(&lines_inclusive(
                "#define _GNU_SOURCE /* for\n  CPU_ZERO */\n#include <sched.h>\n"
            )),
            2
        );
    }

    #[test]
    fn replaces_whole_lines_and_keeps_the_rest() {
        let original = "a\n#pragma scop\nx\n#pragma endscop\nb\n";
        let out = splice(
            original,
            "f.c",
            "/*h*/\n",
            &[Region {
                first_line: 2,
                last_line: 4,
                code: "NEW\n".into(),
            }],
        )
        .unwrap();
        assert_eq!(out, "/*h*/\n#line 1 \"f.c\"\na\nNEW\n#line 5 \"f.c\"\nb\n");
        assert!(splice(
            original,
            "f.c",
            "",
            &[Region {
                first_line: 2,
                last_line: 9,
                code: String::new()
            }]
        )
        .is_err());
    }
}
