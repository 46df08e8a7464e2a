//! Exact rational arithmetic for the small linear systems of tiling: which schedule rows move
//! an iterator (`intra`'s stride score), and subscripts as combinations of rows (`buffers`).

/// A rational number `num / den`, `den > 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Ratio {
    pub(crate) num: i128,
    pub(crate) den: i128,
}

impl Ratio {
    pub(crate) const ZERO: Ratio = Ratio { num: 0, den: 1 };

    pub(crate) fn new(num: i128, den: i128) -> Ratio {
        let g = gcd(num, den).max(1) * den.signum();
        Ratio {
            num: num / g,
            den: den / g,
        }
    }
    pub(crate) fn add(self, o: Ratio) -> Ratio {
        Ratio::new(self.num * o.den + o.num * self.den, self.den * o.den)
    }
    pub(crate) fn sub(self, o: Ratio) -> Ratio {
        self.add(Ratio::new(-o.num, o.den))
    }
    pub(crate) fn mul(self, o: Ratio) -> Ratio {
        Ratio::new(self.num * o.num, self.den * o.den)
    }
    pub(crate) fn div(self, o: Ratio) -> Ratio {
        Ratio::new(self.num * o.den, self.den * o.num)
    }
    pub(crate) fn scale(self, k: i64) -> Ratio {
        Ratio::new(self.num * i128::from(k), self.den)
    }
    pub(crate) fn is_zero(self) -> bool {
        self.num == 0
    }
    pub(crate) fn is_unit(self) -> bool {
        self.den == 1 && self.num.abs() == 1
    }
}

pub(crate) fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// A solution of `rows · v = rhs` over the rationals, when there is one (any one: the
/// statements' hyperplanes have full column rank, so it is unique where it exists).
pub(crate) fn solve(rows: &[Vec<i64>], rhs: &[i64]) -> Option<Vec<Ratio>> {
    let n = rows.first().map_or(0, Vec::len);
    let mut m: Vec<Vec<Ratio>> = rows
        .iter()
        .zip(rhs)
        .map(|(r, b)| {
            r.iter()
                .chain(std::iter::once(b))
                .map(|&x| Ratio::new(i128::from(x), 1))
                .collect()
        })
        .collect();
    let mut pivots = Vec::new();
    let mut row = 0;
    for col in 0..n {
        let Some(p) = (row..m.len()).find(|&r| !m[r][col].is_zero()) else {
            continue;
        };
        m.swap(row, p);
        let pivot = m[row].clone();
        for (r, line) in m.iter_mut().enumerate() {
            if r != row && !line[col].is_zero() {
                let f = line[col].div(pivot[col]);
                for (x, p) in line[col..].iter_mut().zip(&pivot[col..]) {
                    *x = x.sub(f.mul(*p));
                }
            }
        }
        pivots.push((row, col));
        row += 1;
    }
    // Inconsistent: a zero row with a non-zero right-hand side.
    if m[row..].iter().any(|r| !r[n].is_zero()) {
        return None;
    }
    let mut v = vec![Ratio::ZERO; n];
    for (r, c) in pivots {
        v[c] = m[r][n].div(m[r][c]);
    }
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skewed_rows_solve_to_unit_moves() {
        // jacobi-2d S0: (t, 2t + i, 2t + j); advancing dimension 2 alone moves j by one.
        let rows = vec![vec![1, 0, 0], vec![2, 1, 0], vec![2, 0, 1]];
        let v = solve(&rows, &[0, 0, 1]).unwrap();
        assert_eq!(v, vec![Ratio::ZERO, Ratio::ZERO, Ratio::new(1, 1)]);
        // gemm S0 (i, j, 0): dimension 2 cannot move alone.
        assert_eq!(
            solve(&[vec![1, 0], vec![0, 1], vec![0, 0]], &[0, 0, 1]),
            None
        );
    }
}
