//! Orthogonality constraints (thesis eqs. 4.9 and 4.10), in exact rational arithmetic.
//!
//! For a statement whose hyperplanes so far are the rows of `H`, the orthogonal sub-space is
//! `H⊥ = I − Hᵀ(H·Hᵀ)⁻¹H`. A new hyperplane `h` is linearly independent of `H` when it has a
//! non-zero component in `H⊥`; Pluto asks for a non-negative one: `H⊥ᵢ·h ≥ 0` for every row and
//! `Σᵢ H⊥ᵢ·h ≥ 1`. We keep a basis of `H⊥`'s rows, scaled to integers; the caller orients each
//! basis vector (negating it when `v·h ≥ 1` is infeasible, as Pluto's implementation does), so
//! that the positive-orthant restriction does not exclude every solution.

use rug::{Integer, Rational};

/// Rank of an integer matrix.
pub fn rank(rows: &[Vec<i64>]) -> usize {
    let m: Vec<Vec<Rational>> = rows
        .iter()
        .map(|r| r.iter().map(|&x| Rational::from(x)).collect())
        .collect();
    echelon(m).len()
}

/// Row echelon form (non-zero rows only).
fn echelon(mut m: Vec<Vec<Rational>>) -> Vec<Vec<Rational>> {
    let cols = m.first().map_or(0, Vec::len);
    let mut out: Vec<Vec<Rational>> = Vec::new();
    for c in 0..cols {
        let Some(p) = m.iter().position(|r| r[c] != 0) else {
            continue;
        };
        let pivot = m.remove(p);
        for r in m.iter_mut() {
            if r[c] != 0 {
                let f = Rational::from(&r[c] / &pivot[c]);
                for (x, y) in r.iter_mut().zip(&pivot) {
                    *x -= Rational::from(&f * y);
                }
            }
        }
        out.push(pivot);
    }
    out
}

/// A basis of the orthogonal sub-space of `h` (rows of length `d`), as integer vectors.
pub fn orthogonal_basis(h: &[Vec<i64>], d: usize) -> Vec<Vec<i64>> {
    let rows: Vec<Vec<Rational>> = echelon(
        h.iter()
            .map(|r| r.iter().map(|&x| Rational::from(x)).collect())
            .collect(),
    );
    let identity = |i: usize, j: usize| Rational::from(i64::from(i == j));
    if rows.is_empty() {
        return (0..d)
            .map(|i| (0..d).map(|j| i64::from(i == j)).collect())
            .collect();
    }
    // H·Hᵀ and its inverse (Gauss–Jordan).
    let k = rows.len();
    let hht: Vec<Vec<Rational>> = (0..k)
        .map(|a| (0..k).map(|b| dot(&rows[a], &rows[b])).collect())
        .collect();
    let inv = invert(hht);
    // P = I − Hᵀ (H Hᵀ)⁻¹ H
    let mut p = vec![vec![Rational::new(); d]; d];
    for i in 0..d {
        for j in 0..d {
            let mut s = Rational::new();
            for a in 0..k {
                for b in 0..k {
                    s += Rational::from(&rows[a][i] * &inv[a][b]) * &rows[b][j];
                }
            }
            p[i][j] = identity(i, j) - s;
        }
    }
    echelon(p).into_iter().map(|r| to_integers(&r)).collect()
}

fn dot(a: &[Rational], b: &[Rational]) -> Rational {
    a.iter().zip(b).map(|(x, y)| Rational::from(x * y)).sum()
}

fn invert(mut m: Vec<Vec<Rational>>) -> Vec<Vec<Rational>> {
    let n = m.len();
    let mut inv: Vec<Vec<Rational>> = (0..n)
        .map(|i| (0..n).map(|j| Rational::from(i64::from(i == j))).collect())
        .collect();
    for c in 0..n {
        let p = (c..n)
            .find(|&r| m[r][c] != 0)
            .expect("H·Hᵀ of independent rows is invertible");
        m.swap(c, p);
        inv.swap(c, p);
        let pivot = m[c][c].clone();
        for j in 0..n {
            m[c][j] /= &pivot;
            inv[c][j] /= &pivot;
        }
        for r in 0..n {
            if r != c && m[r][c] != 0 {
                let f = m[r][c].clone();
                for j in 0..n {
                    let (mc, ic) = (m[c][j].clone(), inv[c][j].clone());
                    m[r][j] -= Rational::from(&f * &mc);
                    inv[r][j] -= Rational::from(&f * &ic);
                }
            }
        }
    }
    inv
}

/// Scale a rational vector to coprime integers.
fn to_integers(r: &[Rational]) -> Vec<i64> {
    let lcm = r.iter().fold(Integer::from(1), |acc, x| acc.lcm(x.denom()));
    let ints: Vec<Integer> = r
        .iter()
        .map(|x| Integer::from(x.numer() * &lcm) / x.denom())
        .collect();
    let g = ints.iter().fold(Integer::new(), |acc, x| acc.gcd(x));
    ints.iter()
        .map(|x| {
            if g > 1 {
                Integer::from(x / &g)
            } else {
                x.clone()
            }
            .to_i64()
            .expect("small coefficients")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orthogonal_sub_space() {
        assert_eq!(rank(&[vec![1, 1], vec![2, 2]]), 1);
        // H = (1, 0): H⊥ is spanned by (0, 1).
        assert_eq!(orthogonal_basis(&[vec![1, 0]], 2), vec![vec![0, 1]]);
        // H = (1, 1) (a skewed hyperplane): H⊥ is spanned by (1, -1).
        assert_eq!(orthogonal_basis(&[vec![1, 1]], 2), vec![vec![1, -1]]);
        // Full rank: nothing is orthogonal.
        assert!(orthogonal_basis(&[vec![1, 0], vec![2, 1]], 2).is_empty());
        // Nothing yet: the whole space.
        assert_eq!(orthogonal_basis(&[], 2), vec![vec![1, 0], vec![0, 1]]);
    }
}
