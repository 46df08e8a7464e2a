//! Generated names that cannot collide with the user's.
//!
//! Everything polyc generates is named with one prefix: `polyc_` for identifiers, `POLYC_` for
//! macros (`polyc_start`, `polyc_T0`, `POLYC_RUNTIME`...), and the printers write it so. Before
//! the text is written, [`Namespace::apply`] moves those names to a prefix no identifier or
//! macro of the translation unit starts with: `polyc_` itself almost always, `polyc2_`,
//! `polyc3_`... when the program has names of its own that start with `polyc_` (checked against
//! every identifier of the preprocessed file and every macro the preprocessor knows, not by
//! convention).
//!
//! The user's own names that start with the prefix appear in generated text too (a parameter
//! `polyc_T0` in a loop bound); the printers write them through [`user`], which marks them so
//! that the move leaves them alone. A user name printed without the mark would be moved and
//! fail to compile: never a silent wrong answer.
//!
//! The GPU run-time's C interface (`avelas_*`, `AVELAS_*`) is a library's: its names cannot
//! move, so a program that uses names with that prefix is told so ([`runtime_conflict`]).

use rosepolly::compilation::SourceUnit;
use rosepolly::diag::{Diagnostic, Loc};

use rosepolly::model::user_names::{starts_with_prefix, LOWER, MARK, UPPER};
pub use rosepolly::model::user_names::{unmarked, user, user_expr};

/// The prefix generated names get in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Namespace {
    lower: String,
    upper: String,
    /// The parser read identifiers with non-ASCII letters in an ASCII spelling
    /// ([`rosepolly::compilation::ucn`]): code spells them back.
    ucns: bool,
}

impl Namespace {
    /// The first of `polyc`, `polyc2`, `polyc3`... that no name of the translation unit starts
    /// with (followed by `_`, in either case).
    pub fn choose(src: &SourceUnit) -> Namespace {
        let names = src.identifiers();
        let taken = |p: &str| names.iter().any(|n| starts_with_prefix(n, p));
        let lower = (1..)
            .map(|k| match k {
                1 => LOWER.to_string(),
                k => format!("{LOWER}{k}"),
            })
            .find(|p| !taken(p))
            .expect("some prefix is free");
        Namespace {
            upper: lower.to_ascii_uppercase(),
            lower,
            ucns: src.ucns_respelt,
        }
    }

    /// Generated text with its names moved to this namespace and the user's names unmarked.
    /// Upper-case names inside string literals are environment variables (`POLYC_TILE_SIZES`)
    /// and stay; lower-case ones there are kernel names and move with the kernels. Names with
    /// non-ASCII letters get their universal character names back in code; inside string
    /// literals (OpenCL kernels' source) they keep their ASCII spelling, which names the same
    /// kernel parameter throughout.
    pub fn apply(&self, text: &str) -> String {
        let moved = self.lower != LOWER;
        if !moved && !self.ucns && !text.contains(MARK) {
            return text.to_string();
        }
        let mut out = String::with_capacity(text.len());
        let mut state = Lex::Code;
        let mut i = 0;
        while i < text.len() {
            let rest = &text[i..];
            let c = rest.chars().next().expect("in bounds");
            if c == MARK {
                let n = ident_len(&rest[1..]);
                out.push_str(&self.spelt(&rest[1..1 + n], state));
                i += 1 + n;
                continue;
            }
            if c.is_ascii_alphabetic() || c == '_' {
                let n = ident_len(rest);
                let word = self.moved(&rest[..n], moved, state == Lex::String);
                out.push_str(&self.spelt(&word, state));
                i += n;
                continue;
            }
            let (next, len) = lex_step(state, rest);
            out.push_str(&rest[..len]);
            state = next;
            i += len;
        }
        out
    }

    /// A user's name as code must spell it.
    fn spelt(&self, word: &str, state: Lex) -> String {
        match self.ucns && state == Lex::Code {
            true => rosepolly::compilation::ucn::from_ascii(word),
            false => word.to_string(),
        }
    }

    /// `word` in this namespace.
    fn moved(&self, word: &str, moved: bool, in_string: bool) -> String {
        if moved && starts_with(word, LOWER) {
            format!("{}{}", self.lower, &word[LOWER.len()..])
        } else if moved && !in_string && starts_with(word, UPPER) {
            format!("{}{}", self.upper, &word[UPPER.len()..])
        } else {
            word.to_string()
        }
    }
}

/// Where the scan of C text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lex {
    Code,
    String,
    Char,
    Block,
    Line,
}

/// One step of the scan of C text: from `state` at the start of `rest` (not empty), the state
/// after the step and the bytes it takes (a comment's or a literal's delimiter, an escape, or
/// one character).
pub(crate) fn lex_step(state: Lex, rest: &str) -> (Lex, usize) {
    let c = rest.chars().next().expect("not empty");
    let two = rest.get(..2).unwrap_or("");
    match (state, c, two) {
        (Lex::Code, _, "/*") => (Lex::Block, 2),
        (Lex::Code, _, "//") => (Lex::Line, 2),
        (Lex::Code, '"', _) => (Lex::String, 1),
        (Lex::Code, '\'', _) => (Lex::Char, 1),
        (Lex::Block, _, "*/") => (Lex::Code, 2),
        (Lex::Line, '\n', _) => (Lex::Code, 1),
        (Lex::String | Lex::Char, '\\', _) => (
            state,
            c.len_utf8() + rest[1..].chars().next().map_or(0, char::len_utf8),
        ),
        (Lex::String, '"', _) | (Lex::Char, '\'', _) => (Lex::Code, 1),
        _ => (state, c.len_utf8()),
    }
}

/// Length of the identifier `s` starts with.
fn ident_len(s: &str) -> usize {
    s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len())
}

/// `word` is `prefix_...` exactly (case-sensitive).
fn starts_with(word: &str, prefix: &str) -> bool {
    word.starts_with(prefix) && word[prefix.len()..].starts_with('_')
}

/// The user's lines (the original code of a fallback) with their reserved names marked.
pub fn user_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let c = rest.chars().next().expect("in bounds");
        if c.is_ascii_alphabetic() || c == '_' {
            let n = ident_len(rest);
            out.push_str(&user(&rest[..n]));
            i += n;
        } else {
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// A name of the translation unit that the GPU run-time's interface also uses.
pub fn runtime_conflict(src: &SourceUnit) -> Option<Diagnostic> {
    let clash = src
        .identifiers()
        .into_iter()
        .find(|n| starts_with_prefix(n, "avelas"))?;
    Some(
        Diagnostic::new(
            Loc::new(src.main_file(), 0, None),
            format!("`{clash}` is a name of this program, and names that start with `avelas_` belong to polyc's GPU run-time"),
        )
        .with_note("rename it, or use --target c"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(lower: &str) -> Namespace {
        Namespace {
            lower: lower.into(),
            upper: lower.to_ascii_uppercase(),
            ucns: false,
        }
    }

    #[test]
    fn moves_generated_names_and_keeps_marked_ones() {
        let text = format!(
            "#ifndef POLYC_RUNTIME\nlong polyc_start = {};\ngetenv(\"POLYC_TILE_SIZES\"); k(\"polyc_k0\"); mypolyc_x = 1;\n",
            user("polyc_start")
        );
        let out = ns("polyc2").apply(&text);
        assert_eq!(
            out,
            "#ifndef POLYC2_RUNTIME\nlong polyc2_start = polyc_start;\ngetenv(\"POLYC_TILE_SIZES\"); k(\"polyc2_k0\"); mypolyc_x = 1;\n"
        );
        assert_eq!(ns("polyc").apply(&text).matches("polyc_start").count(), 2);
    }

    #[test]
    fn names_with_non_ascii_letters_are_spelt_back_in_code_only() {
        let ucns = Namespace {
            ucns: true,
            ..ns("polyc")
        };
        let text = format!(
            "{}[i] = 1; k(\"x_U000000f6[0]\"); /* a_u00e9 */\n",
            user("gr_U000000f6e")
        );
        assert_eq!(
            ucns.apply(&text),
            "gr\\U000000f6e[i] = 1; k(\"x_U000000f6[0]\"); /* a_u00e9 */\n"
        );
    }
}
