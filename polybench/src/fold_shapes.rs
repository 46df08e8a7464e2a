//! Random programs of *folded* jammed-rows shape (`codegen/src/jam.rs`, `Accesses::folded`),
//! for `tests/jammed_rows.rs` and `scripts/jam-shapes.sh`: nussinov's kind of loop nest, an
//! outer loop `i` and a loop over rows `j` whose body folds integers into `T[i][j]` with
//! `max`, `min`, `|` and `^`, from earlier rows (`T[i][j - 1]`, `T[i][k]` along `k < j`) and
//! from elements of the row no row writes (`T[i + 1][j]`, `T[k + 1][j]` along `k > i`), beside
//! statements the rule must refuse (integer sums, reads of later rows or of the updated element
//! itself, writes of other elements).
//!
//! Each program prints `T` and `S`; a folded block changes the order of an element's updates,
//! not its value, so the output must equal the original's byte for byte.

use crate::random::Rng;

/// What the row's statements fold into `T[i][j]`: earlier rows and the row's other elements.
const ROW_TERMS: [&str; 3] = ["T[i][j - 1]", "T[i + 1][j]", "T[i + 1][j - 1] + S[j]"];

/// Inner loops and what their statements fold into `T[i][j]` along `k`.
const LOOP_TERMS: [(&str, &str); 3] = [
    ("for (k = i + 1; k < j; k++)", "T[i][k] + T[k + 1][j]"),
    ("for (k = 0; k < j; k++)", "T[i][k] - S[k]"),
    ("for (k = 0; k < N; k++)", "S[k] + T[i + 1][j]"),
];

/// The operators: `max`, `min` (C's conditional operator), `|` and `^`.
const OPS: [&str; 4] = ["max", "min", "|", "^"];

/// Statements and loops the folded rule must refuse: run by blocks, each would compute other
/// values (or is not a fold at all).
const ODD: [&str; 8] = [
    "T[i][j] = T[i][j] + T[i][j - 1];",
    "T[i][j] = T[i][j] >= T[i][j + 1] ? T[i][j] : T[i][j + 1];",
    "for (k = i; k < j; k++)\n        T[i][j] = T[i][j] >= T[k][j] + 1 ? T[i][j] : T[k][j] + 1;",
    "for (k = i + 1; k <= j; k++)\n        T[i][j] = T[i][j] >= T[i][k] - 1 ? T[i][j] : T[i][k] - 1;",
    "T[i][j] = T[i][j] * 2 - T[i][j - 1];",
    "T[i][j] = T[i][j] >= T[i][j - 1] ? T[i][j] - 1 : T[i][j - 1];",
    "T[i + 1][j] = T[i + 1][j] | T[i][j];",
    "S[j] = S[j] >= T[i][j] ? S[j] : T[i][j];",
];

/// `T[i][j]` folded with `term` by `op` (bitwise operators take three bits of it, so that
/// values stay small).
fn fold(op: &str, term: &str) -> String {
    let t = "T[i][j]";
    match op {
        "max" => format!("{t} = {t} >= {term} ? {t} : {term};"),
        "min" => format!("{t} = {t} < {term} ? {t} : {term};"),
        _ => format!("{t} {op}= ({term}) & 6;"),
    }
}

const EXTENTS: [u32; 4] = [13, 29, 37, 40];

/// The program of `seed`: a `kernel` with one SCoP, and a `main` that fills the arrays, calls
/// it and prints them.
pub fn program(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let n = *rng.pick(&EXTENTS);
    let op = *rng.pick(&OPS);
    let items: Vec<String> = (0..1 + rng.below(4)).map(|_| item(&mut rng, op)).collect();
    let outer = if rng.chance(50) {
        "for (i = N - 2; i >= 0; i--)"
    } else {
        "for (i = 0; i < N - 1; i++)"
    };
    let first = *rng.pick(&["i + 1", "1"]);
    format!(
        "#include <stdio.h>
#define N {n}
static int T[N][N], S[N];
static void kernel(void) {{
  int i, j, k;
#pragma scop
  {outer}
    for (j = {first}; j < N - 1; j++) {{
{body}
    }}
#pragma endscop
}}
int main(void) {{
  for (int a = 0; a < N; a++) {{
    S[a] = (a * 7) % 5 - 2;
    for (int b = 0; b < N; b++) T[a][b] = (a * 13 + b * 7) % 23 - 11;
  }}
  kernel();
  for (int a = 0; a < N; a++) {{
    printf(\"%d:\", S[a]);
    for (int b = 0; b < N; b++) printf(\" %d\", T[a][b]);
    printf(\"\\n\");
  }}
  return 0;
}}
",
        body = items.join("\n")
    )
}

/// One item of the row loop's body: a fold by the program's operator `op` (of the row, or a
/// loop of them; 85 in 100), a fold by another operator (5 in 100), or one of the kinds the
/// rule must refuse.
fn item(rng: &mut Rng, op: &str) -> String {
    let op = match rng.below(100) {
        0..=84 => op,
        85..=89 => *rng.pick(&OPS),
        _ => return format!("      {}", rng.pick(&ODD)),
    };
    if rng.chance(50) {
        let term = *rng.pick(&ROW_TERMS);
        return format!("      {}", fold(op, term));
    }
    let (header, term) = rng.pick(&LOOP_TERMS);
    format!("      {header}\n        {}", fold(op, term))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_seeds_draw_every_kind_of_item() {
        let all: String = (0..300).map(program).collect();
        let folds = OPS.iter().flat_map(|op| {
            let terms = ROW_TERMS.iter().chain(LOOP_TERMS.iter().map(|(_, t)| t));
            terms.map(|t| fold(op, t))
        });
        for text in folds.chain(ODD.iter().map(|o| o.to_string())) {
            assert!(all.contains(&text), "{text}");
        }
        assert!(all.contains("i--") && all.contains("i++"));
        assert_eq!(program(3), program(3));
    }
}
