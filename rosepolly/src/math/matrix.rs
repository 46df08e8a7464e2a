//! The small integer matrix of constraint rows (the thesis' `simple_matrix`, §5.6).
//!
//! A [`ConstraintMatrix`] holds equalities `row · (x, 1) = 0` and inequalities
//! `row · (x, 1) ≥ 0` over named columns; the last column is the constant. It is how the
//! polyhedral layers look at constraints without touching isl.

use std::fmt;

/// Greatest common divisor (non-negative).
pub fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Constraint rows over named columns; the constant is the last entry of each row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConstraintMatrix {
    /// Names of the variable columns (the constant column is implicit and last).
    pub columns: Vec<String>,
    pub equalities: Vec<Vec<i64>>,
    pub inequalities: Vec<Vec<i64>>,
}

impl ConstraintMatrix {
    pub fn new(columns: Vec<String>) -> ConstraintMatrix {
        ConstraintMatrix {
            columns,
            equalities: Vec::new(),
            inequalities: Vec::new(),
        }
    }

    /// Number of variable columns.
    pub fn n_vars(&self) -> usize {
        self.columns.len()
    }

    pub fn add_inequality(&mut self, row: Vec<i64>) {
        assert_eq!(row.len(), self.n_vars() + 1, "row length");
        self.inequalities.push(row);
    }

    pub fn add_equality(&mut self, row: Vec<i64>) {
        assert_eq!(row.len(), self.n_vars() + 1, "row length");
        self.equalities.push(row);
    }

    /// Does the integer point `x` satisfy every constraint?
    pub fn contains(&self, x: &[i64]) -> bool {
        let eval = |r: &Vec<i64>| {
            r.iter()
                .zip(x.iter().chain(std::iter::once(&1)))
                .map(|(a, b)| a * b)
                .sum::<i64>()
        };
        self.equalities.iter().all(|r| eval(r) == 0)
            && self.inequalities.iter().all(|r| eval(r) >= 0)
    }

    /// Divide each row by the gcd of its variable coefficients; for inequalities the constant
    /// is rounded down (a valid tightening over the integers).
    pub fn normalize(&mut self) {
        for r in &mut self.inequalities {
            let n = r.len() - 1;
            let g = r[..n].iter().fold(0, |g, &c| gcd(g, c));
            if g > 1 {
                for c in &mut r[..n] {
                    *c /= g;
                }
                r[n] = r[n].div_euclid(g);
            }
        }
        for r in &mut self.equalities {
            let g = r.iter().fold(0, |g, &c| gcd(g, c));
            if g > 1 {
                r.iter_mut().for_each(|c| *c /= g);
            }
        }
        // Rows without variables are either trivially true (dropped) or contradictions (kept).
        self.inequalities
            .retain(|r| r[..r.len() - 1].iter().any(|c| *c != 0) || r[r.len() - 1] < 0);
        self.equalities.retain(|r| r.iter().any(|c| *c != 0));
        self.inequalities.sort();
        self.inequalities.dedup();
        self.equalities.sort();
        self.equalities.dedup();
    }

    /// Replace every equality `e = 0` by the pair `e ≥ 0`, `-e ≥ 0`.
    pub fn equalities_as_inequalities(&mut self) {
        for e in std::mem::take(&mut self.equalities) {
            self.inequalities.push(e.iter().map(|c| -c).collect());
            self.inequalities.push(e);
        }
    }

    fn write_row(&self, f: &mut fmt::Formatter<'_>, r: &[i64]) -> fmt::Result {
        let mut first = true;
        for (c, name) in r.iter().zip(
            self.columns
                .iter()
                .map(String::as_str)
                .chain(std::iter::once("")),
        ) {
            if *c == 0 {
                continue;
            }
            let mag = c.abs();
            let sign = if *c < 0 { "-" } else { "+" };
            if first {
                if *c < 0 {
                    f.write_str("-")?;
                }
            } else {
                write!(f, " {sign} ")?;
            }
            if name.is_empty() {
                write!(f, "{mag}")?;
            } else if mag == 1 {
                f.write_str(name)?;
            } else {
                write!(f, "{mag}{name}")?;
            }
            first = false;
        }
        if first {
            f.write_str("0")?;
        }
        Ok(())
    }
}

impl fmt::Display for ConstraintMatrix {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.equalities {
            self.write_row(f, r)?;
            writeln!(f, " = 0")?;
        }
        for r in &self.inequalities {
            self.write_row(f, r)?;
            writeln!(f, " >= 0")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_and_prints() {
        let mut m = ConstraintMatrix::new(vec!["i".into(), "n".into()]);
        m.add_inequality(vec![2, 0, 1]); // 2i + 1 >= 0  →  i >= 0 over the integers
        m.add_inequality(vec![-1, 1, -1]);
        m.normalize();
        assert_eq!(m.inequalities, vec![vec![-1, 1, -1], vec![1, 0, 0]]);
        assert_eq!(m.to_string(), "-i + n - 1 >= 0\ni >= 0\n");
        assert!(m.contains(&[0, 1]));
        assert!(!m.contains(&[1, 1]));
    }
}
