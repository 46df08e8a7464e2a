//! Identifiers with non-ASCII letters. gcc accepts them (`int größe;`), and its preprocessor
//! writes each such letter as a universal character name (`gr\U000000f6\U000000dfe`), which
//! lang-c does not read. Before parsing, every universal character name outside string and
//! character literals is spelt with `_` for its backslash (`gr_U000000f6_U000000dfe`): same
//! length, so every offset and span of the preprocessed text stays valid, and an ASCII
//! identifier for lang-c. Generated code spells such names back ([`from_ascii`]) where it
//! names the user's variables. Where the text already holds an identifier of that ASCII form,
//! the two could not be told apart, and nothing is respelt (the parser then reports the name).

/// The text with its universal character names spelt in ASCII, or `None` where it holds none
/// (or holds an identifier that looks like one respelt).
pub fn to_ascii(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' | b'\'' => i = literal_end(bytes, i),
            b'\\' if ucn_len(&bytes[i..]).is_some() => {
                found.push(i);
                i += ucn_len(&bytes[i..]).expect("checked");
            }
            b'_' if ucn_len(&bytes[i..]).is_some() => return None,
            _ => i += 1,
        }
    }
    if found.is_empty() {
        return None;
    }
    let mut out = bytes.to_vec();
    for at in found {
        out[at] = b'_';
    }
    Some(String::from_utf8(out).expect("one ASCII byte replaced by another"))
}

/// An identifier of respelt text with its universal character names spelt back
/// (`gr_U000000f6e` is `gr\U000000f6e`).
pub fn from_ascii(word: &str) -> String {
    let bytes = word.as_bytes();
    let mut out = String::with_capacity(word.len());
    let mut i = 0;
    while i < bytes.len() {
        match ucn_len(&bytes[i..]) {
            Some(n) if bytes[i] == b'_' => {
                out.push('\\');
                out.push_str(&word[i + 1..i + n]);
                i += n;
            }
            _ => {
                let c = word[i..].chars().next().expect("in bounds");
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// The length of a universal character name at the start of `b`, ignoring its first byte
/// (`\` or `_`): `u` and 4 hexadecimal digits, or `U` and 8.
fn ucn_len(b: &[u8]) -> Option<usize> {
    let digits = match b.get(1) {
        Some(b'u') => 4,
        Some(b'U') => 8,
        _ => return None,
    };
    let hex = b.get(2..2 + digits)?;
    hex.iter().all(u8::is_ascii_hexdigit).then_some(2 + digits)
}

/// The index after the string or character literal that opens at `start`.
fn literal_end(b: &[u8], start: usize) -> usize {
    let quote = b[start];
    let mut i = start + 1;
    while i < b.len() && b[i] != quote && b[i] != b'\n' {
        i += if b[i] == b'\\' { 2 } else { 1 };
    }
    (i + 1).min(b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_respelt_in_place_and_back() {
        let text = "int gr\\U000000f6\\U000000dfe = 3; char *s = \"\\u00e9\";";
        let ascii = to_ascii(text).unwrap();
        assert_eq!(
            ascii,
            "int gr_U000000f6_U000000dfe = 3; char *s = \"\\u00e9\";"
        );
        assert_eq!(ascii.len(), text.len());
        assert_eq!(
            from_ascii("gr_U000000f6_U000000dfe"),
            "gr\\U000000f6\\U000000dfe"
        );
        assert_eq!(from_ascii("x_u00e9"), "x\\u00e9");
    }

    #[test]
    fn text_without_them_or_with_look_alikes_is_left() {
        assert_eq!(to_ascii("int x; char c = '\\u0041';"), None);
        // A user's own `x_U000000f6` could not be told from a respelt `x\U000000f6`.
        assert_eq!(to_ascii("int x_U000000f6, y\\U000000f6;"), None);
        // Not universal character names: too few digits, or not hexadecimal.
        assert_eq!(to_ascii("int a_u12; int b_U0000zzzz;"), None);
        assert_eq!(from_ascii("a_u12"), "a_u12");
    }
}
