//! Random programs of jammed-rows shape (`codegen/src/jam.rs`), for `tests/jammed_rows.rs` and
//! `scripts/jam-shapes.sh`: one loop over rows whose body draws row statements and inner loops
//! of chains (`tmp[i] = tmp[i] + A[i][j] * x[j]`), columns (`y[j] = y[j] + A[i][j] * tmp[i]`)
//! and statements the shape rule must refuse (cross-row reads, one element shared by all rows,
//! elements that move along the inner loop, written arrays read across rows), one inner loop in
//! four triangular (`j < i`, `j <= i`, `j < i - 1`, `j < i + 1`). Extents of 13, 29, 37 and 40 rows leave rows after the last block of eight.
//!
//! Each program prints every array in C's `%a` (exact), so its output must equal the
//! original's byte for byte: jammed rows keep each element's updates in their order.
//! The generic generator ([`crate::random`]) takes this shape about once in 250 programs.

use crate::random::Rng;

/// Statements that fold values into the row's element along the inner loop `j`.
const CHAINS: [&str; 4] = [
    "tmp[i] = tmp[i] + A[i][j] * x[j];",
    "q[i] = q[i] + A[j][i] * y[j];",
    "q[i] = q[i] * 0.5 + B[i][j];",
    "tmp[i] = tmp[i] - A[i][j] * q[i];",
];

/// Statements that update one element per inner iteration across the rows.
const COLUMNS: [&str; 3] = [
    "y[j] = y[j] + A[i][j] * tmp[i];",
    "s[j] = s[j] + B[i][j] * x[i];",
    "s[j] = s[j] * 0.75 + A[j][i];",
];

/// Statements the shape rule must refuse, each of which would change an element's order of
/// updates, or read a value another row writes, if its rows ran by blocks; but for reads of
/// earlier rows (`x[j]`), which it takes in a loop whose range stops before the row (`j < i`).
const ODD: [&str; 10] = [
    "y[0] = y[0] + A[i][j];",
    "x[i] = x[i] + A[i][j] * x[j];",
    "tmp[i] = tmp[i] + A[i][j] * tmp[j];",
    "q[i] = q[i] - B[i][j] * q[j + 1];",
    "tmp[i + 1] = tmp[i] + A[i][j];",
    "y[j] = y[j] + y[j + 1] * 0.5;",
    "A[i][j] = A[i][j] + x[j];",
    "tmp[j] = tmp[j] + x[i];",
    "s[j] = tmp[i] + s[j];",
    "q[i] = q[i] + s[j];",
];

/// Statements of the row loop's body outside any inner loop.
const ROW_STATEMENTS: [&str; 5] = [
    "tmp[i] = 0.0;",
    "q[i] = x[i] * 0.5;",
    "tmp[i] = tmp[i] * 0.5 + q[i];",
    "x[i] = tmp[i] + 1.0;",
    "y[i] = 0.25 * y[i];",
];

const EXTENTS: [u32; 4] = [13, 29, 37, 40];

/// The program of `seed`: a `kernel` with one SCoP, and a `main` that fills the arrays, calls
/// it and prints them.
pub fn program(seed: u64) -> String {
    let mut rng = Rng::new(seed);
    let n = *rng.pick(&EXTENTS);
    let items: Vec<String> = (0..1 + rng.below(3)).map(|_| item(&mut rng)).collect();
    // A row that reads or writes one row or column further stops a row short of the edge.
    let last = if items.iter().any(|it| it.contains(" + 1]")) {
        "N - 1"
    } else {
        "N"
    };
    format!(
        "#include <stdio.h>
#define N {n}
static double A[N][N], B[N][N], x[N], y[N], tmp[N], q[N], s[N];
static void kernel(void) {{
  int i, j;
#pragma scop
  for (i = 0; i < {last}; i++) {{
{body}
  }}
#pragma endscop
}}
int main(void) {{
  for (int a = 0; a < N; a++) {{
    x[a] = (a % 7) * 0.3 + 0.1; y[a] = (a % 5) * 0.2; tmp[a] = a * 0.01; q[a] = 1.0 / (a + 1); s[a] = (a % 3) * 0.7;
    for (int b = 0; b < N; b++) {{ A[a][b] = ((a * b) % 11) * 0.1 + 0.05; B[a][b] = ((a + 2 * b) % 13) * 0.07; }}
  }}
  kernel();
  for (int a = 0; a < N; a++) {{
    printf(\"%a %a %a %a %a\\n\", x[a], y[a], tmp[a], q[a], s[a]);
    for (int b = 0; b < N; b++) printf(\"%a %a\\n\", A[a][b], B[a][b]);
  }}
  return 0;
}}
",
        body = items.join("\n")
    )
}

/// One item of the row loop's body: a row statement (one in three), else an inner loop of one
/// or two statements (one in four triangular).
fn item(rng: &mut Rng) -> String {
    if rng.chance(35) {
        return format!("    {}", rng.pick(&ROW_STATEMENTS));
    }
    let bound = if rng.chance(25) {
        rng.pick(&["j < i", "j <= i", "j < i - 1", "j < i + 1"])
    } else {
        "j < N - 1"
    };
    let statements: Vec<&str> = (0..1 + rng.below(2))
        .map(|_| match rng.below(100) {
            0..=49 => *rng.pick(&CHAINS),
            50..=84 => *rng.pick(&COLUMNS),
            _ => *rng.pick(&ODD),
        })
        .collect();
    format!(
        "    for (j = 0; {bound}; j++) {{\n      {}\n    }}",
        statements.join("\n      ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_one_program() {
        assert_eq!(program(7), program(7));
        assert!(program(7).contains("#pragma scop"));
    }

    #[test]
    fn the_seeds_draw_every_kind_of_item() {
        let all: String = (0..200).map(program).collect();
        for text in CHAINS.iter().chain(&COLUMNS).chain(&ODD) {
            assert!(all.contains(text), "{text}");
        }
        for bound in ["j < i;", "j <= i;", "j < i - 1;", "j < i + 1;"] {
            assert!(all.contains(bound), "{bound}");
        }
        assert!(all.contains("i < N - 1;"));
    }
}
