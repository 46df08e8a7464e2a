//! A small deterministic mutator for the stable replay of the fuzz targets: libFuzzer's own
//! mutations need nightly, so CI runs a fixed sample of these instead (token-level edits of
//! the suite's kernels, which keep the text close enough to C to reach past the parser).

/// Tokens spliced into texts: the constructs the front end must refuse or handle (CR line
/// endings, huge and negative constants, pragmas out of place, non-affine operators).
const TOKENS: &[&str] = &[
    "for (i = 0; i < n; i++)",
    "#pragma scop\n",
    "#pragma endscop\n",
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    ";",
    ",",
    "+=",
    "-=",
    "*=",
    "?",
    ":",
    "%",
    "/",
    "*",
    "&",
    "-",
    "<<",
    ">=",
    "!=",
    "\r",
    "\n",
    "\r\n",
    "0",
    "-1",
    "2147483648",
    "9223372036854775807",
    "0x7fffffff",
    "1e308",
    "i",
    "j",
    "n",
    "A[i][j]",
    "x",
    "if (",
    "else",
    "while (",
    "goto L;",
    "L:",
    "break;",
    "continue;",
    "return",
    "int",
    "unsigned",
    "char",
    "long",
    "double",
    "static",
    "const",
    "*p",
    "->",
    ".",
    "sizeof",
    "/*",
    "*/",
    "//",
    "\"",
    "'",
    "\\",
    "#",
    "# 1 \"fuzz.c\"\n",
    "# 999999 \"x.h\" 1\n",
];

/// A xorshift generator: the same seed, the same mutants, on every machine.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// `text` with one to four random edits.
pub fn mutant(text: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = text.to_vec();
    for _ in 0..1 + rng.below(4) {
        edit(&mut out, rng);
    }
    out
}

fn edit(out: &mut Vec<u8>, rng: &mut Rng) {
    let len = out.len();
    let at = rng.below(len + 1);
    let span = 1 + rng.below(16).min(len.saturating_sub(at));
    match rng.below(5) {
        0 if at < len => {
            out.drain(at..(at + span).min(len));
        }
        1 if at < len => {
            let copy = out[at..(at + span).min(len)].to_vec();
            let to = rng.below(len + 1);
            out.splice(to..to, copy);
        }
        2 if at < len => out[at] = b" \n(){};+-*/%[]0123456789ijn#\r\\\"\x00\xff"[rng.below(33)],
        _ => {
            let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
            out.splice(at..at, token.iter().copied());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mutants_are_deterministic_and_differ() {
        let text = b"void f(int n, double A[10]) { for (int i = 0; i < n; i++) A[i] = 0; }";
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        let ma: Vec<_> = (0..20).map(|_| mutant(text, &mut a)).collect();
        let mb: Vec<_> = (0..20).map(|_| mutant(text, &mut b)).collect();
        assert_eq!(ma, mb);
        assert!(ma.iter().any(|m| m.as_slice() != text.as_slice()));
    }

    #[test]
    fn empty_text_gets_tokens() {
        let mut rng = Rng::new(1);
        assert!(!mutant(b"", &mut rng).is_empty());
    }
}
