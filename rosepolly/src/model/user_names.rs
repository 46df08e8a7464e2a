//! The user's names in generated text. Generated names all start with `polyc_` (`POLYC_`
//! for macros), and codegen moves them to a prefix the program does not use
//! (`codegen::names`); a user's own name with that prefix is written with a mark, so that the
//! move leaves it alone, and the mark is removed when the text is written.

use super::expr::Expr;

/// Marks a user's name in generated text (a character no C token contains).
pub const MARK: char = '\u{1}';

/// The prefix printers write.
pub const LOWER: &str = "polyc";
pub const UPPER: &str = "POLYC";

/// A user's name as printers must write it.
pub fn user(name: &str) -> String {
    if reserved(name) {
        format!("{MARK}{name}")
    } else {
        name.to_string()
    }
}

/// A name as the model knows it, without the mark [`user`] may have added.
pub fn unmarked(name: &str) -> &str {
    name.strip_prefix(MARK).unwrap_or(name)
}

/// An expression of the user's names (a statement, a bound over parameters) with the names
/// that need it marked.
pub fn user_expr(e: &Expr) -> Expr {
    e.map(&mut |n| match n {
        Expr::Var(v) => Expr::Var(user(&v)),
        Expr::Index { array, subscripts } => Expr::Index {
            array: user(&array),
            subscripts,
        },
        other => other,
    })
}

pub fn reserved(name: &str) -> bool {
    starts_with_prefix(name, LOWER) || starts_with_prefix(name, UPPER)
}

pub fn starts_with_prefix(name: &str, prefix: &str) -> bool {
    name.len() > prefix.len()
        && name[..prefix.len()].eq_ignore_ascii_case(prefix)
        && name.as_bytes()[prefix.len()] == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_names() {
        assert!(reserved("polyc_T0"));
        assert!(reserved("POLYC_X"));
        assert!(!reserved("polycx"));
        assert!(!reserved("polyc"));
        assert_eq!(user("n"), "n");
    }
}
