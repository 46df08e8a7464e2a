//! Fourier–Motzkin elimination on constraint rows.
//!
//! Eliminating a variable combines every lower bound with every upper bound on it. Over the
//! rationals the result is exactly the projection; over the integers it may contain points
//! whose preimage has no integer point (the "dark shadow" is not computed), which is the
//! over-approximation every caller here accepts. Use isl's projection for exact integer sets.

use super::matrix::{gcd, ConstraintMatrix};

/// The most rows one elimination may produce ([`try_eliminate`]). Each step can square the
/// number of rows (every lower bound times every upper bound); the suite's band images have
/// at most a few dozen.
pub const MAX_ROWS: usize = 4096;

/// Eliminate column `col` (its column is removed from the result).
pub fn eliminate(m: &ConstraintMatrix, col: usize) -> ConstraintMatrix {
    eliminate_within(m, col, usize::MAX).expect("no row limit")
}

/// [`eliminate`], or `None` when the result would have more than [`MAX_ROWS`] inequalities.
pub fn try_eliminate(m: &ConstraintMatrix, col: usize) -> Option<ConstraintMatrix> {
    eliminate_within(m, col, MAX_ROWS)
}

fn eliminate_within(m: &ConstraintMatrix, col: usize, max_rows: usize) -> Option<ConstraintMatrix> {
    let mut m = m.clone();
    // An equality with a non-zero coefficient on `col` can substitute exactly.
    if let Some(pos) = m.equalities.iter().position(|r| r[col] != 0) {
        let eq = m.equalities.remove(pos);
        let substitute = |r: &mut Vec<i64>| {
            if r[col] != 0 {
                let (a, b) = (eq[col], r[col]);
                let g = gcd(a, b);
                let (fa, fb) = (b / g, a / g);
                // fb*r - fa*eq eliminates col; keep the sign of r's multiplier positive.
                let s = if fb < 0 { -1 } else { 1 };
                for (x, e) in r.iter_mut().zip(&eq) {
                    *x = s * (fb * *x - fa * e);
                }
            }
        };
        m.equalities.iter_mut().for_each(substitute);
        m.inequalities.iter_mut().for_each(substitute);
    } else {
        let (lower, rest): (Vec<_>, Vec<_>) = m.inequalities.drain(..).partition(|r| r[col] > 0);
        let (upper, mut keep): (Vec<_>, Vec<_>) = rest.into_iter().partition(|r| r[col] < 0);
        if keep
            .len()
            .saturating_add(lower.len().saturating_mul(upper.len()))
            > max_rows
        {
            return None;
        }
        for l in &lower {
            for u in &upper {
                let (a, b) = (l[col], -u[col]);
                let g = gcd(a, b);
                keep.push(
                    l.iter()
                        .zip(u)
                        .map(|(x, y)| (b / g) * x + (a / g) * y)
                        .collect(),
                );
            }
        }
        m.inequalities = keep;
    }
    m.columns.remove(col);
    for r in m.equalities.iter_mut().chain(m.inequalities.iter_mut()) {
        debug_assert_eq!(r[col], 0);
        r.remove(col);
    }
    m.normalize();
    // Drop constant rows that hold trivially.
    m.inequalities
        .retain(|r| r[..r.len() - 1].iter().any(|c| *c != 0) || r[r.len() - 1] < 0);
    Some(m)
}

/// Eliminate every named column, in the order given.
pub fn eliminate_all(m: &ConstraintMatrix, names: &[&str]) -> ConstraintMatrix {
    names.iter().fold(m.clone(), |acc, n| {
        let col = acc
            .columns
            .iter()
            .position(|c| c == n)
            .unwrap_or_else(|| panic!("no column `{n}`"));
        eliminate(&acc, col)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_elimination_past_the_row_limit_is_refused() {
        // 65 lower and 65 upper bounds on x: 4,225 combinations.
        let mut t = ConstraintMatrix::new(vec!["x".into(), "y".into()]);
        for k in 1..=65 {
            t.add_inequality(vec![1, k, 0]);
            t.add_inequality(vec![-1, k, 100]);
        }
        assert!(try_eliminate(&t, 0).is_none());
        assert_eq!(eliminate(&t, 0).columns, vec!["y".to_string()]);
    }

    fn m(cols: &[&str], ineq: &[&[i64]]) -> ConstraintMatrix {
        let mut m = ConstraintMatrix::new(cols.iter().map(|s| s.to_string()).collect());
        for r in ineq {
            m.add_inequality(r.to_vec());
        }
        m
    }

    #[test]
    fn projects_a_triangle() {
        // 0 <= j <= i <= n - 1; eliminating j leaves 0 <= i <= n - 1.
        let t = m(
            &["i", "j", "n"],
            &[&[0, 1, 0, 0], &[1, -1, 0, 0], &[-1, 0, 1, -1]],
        );
        let p = eliminate_all(&t, &["j"]);
        assert_eq!(p.columns, vec!["i", "n"]);
        assert!(p.contains(&[0, 1]) && p.contains(&[3, 4]));
        assert!(!p.contains(&[-1, 4]) && !p.contains(&[4, 4]));
    }

    #[test]
    fn substitutes_equalities() {
        // x = 2y, 0 <= y <= 3: eliminating y gives 0 <= x <= 6 (rationally).
        let mut t = m(&["x", "y"], &[&[0, 1, 0], &[0, -1, 3]]);
        t.add_equality(vec![1, -2, 0]);
        let p = eliminate_all(&t, &["y"]);
        assert!(p.contains(&[0]) && p.contains(&[6]) && !p.contains(&[7]) && !p.contains(&[-1]));
    }
}
