//! Multi-dimensional affine schedules: one row per schedule dimension for every statement.
//!
//! All statements have the same number of rows. A dimension is either a *hyperplane* (a loop
//! in the transformed program; rows are affine in the statement's iterators) or a *scalar*
//! dimension (a constant per statement that orders fused groups, from an SCC cut). Consecutive
//! hyperplanes found together form a band, permutable when every dependence not satisfied
//! before the band has a non-negative distance along all of its rows.

use std::fmt;

use rosepolly::math::isl::{Ctx, UnionMap};
use rosepolly::model::Scop;
use serde::Serialize;

use crate::diamond::Diamond;

/// One row of one statement's schedule: `Σ coeffs[k]·iterator[k] + constant`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Row {
    /// One coefficient per iterator of the statement, outermost first.
    pub coeffs: Vec<i64>,
    pub constant: i64,
}

impl Row {
    pub fn constant(depth: usize, c: i64) -> Row {
        Row {
            coeffs: vec![0; depth],
            constant: c,
        }
    }

    pub fn is_constant(&self) -> bool {
        self.coeffs.iter().all(|c| *c == 0)
    }

    /// The row written over named iterators (`2*t + i + 1`).
    pub fn expr(&self, iterators: &[String]) -> String {
        let mut out = String::new();
        for (c, it) in self.coeffs.iter().zip(iterators) {
            if *c == 0 {
                continue;
            }
            let mag = c.abs();
            if out.is_empty() {
                if *c < 0 {
                    out.push('-');
                }
            } else {
                out.push_str(if *c < 0 { " - " } else { " + " });
            }
            if mag != 1 {
                out.push_str(&format!("{mag}*"));
            }
            out.push_str(it);
        }
        if out.is_empty() {
            return self.constant.to_string();
        }
        match self.constant {
            0 => {}
            c if c > 0 => out.push_str(&format!(" + {c}")),
            c => out.push_str(&format!(" - {}", -c)),
        }
        out
    }

    /// The value at a point.
    pub fn eval(&self, iters: &[i64]) -> i64 {
        self.coeffs
            .iter()
            .zip(iters)
            .map(|(c, x)| c * x)
            .sum::<i64>()
            + self.constant
    }
}

/// What a schedule dimension is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DimKind {
    /// A loop; the index of its band in [`Schedule::bands`].
    Hyperplane { band: usize },
    /// A constant per statement (fusion structure).
    Scalar,
}

/// Consecutive hyperplanes found together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Band {
    /// First schedule dimension of the band.
    pub start: usize,
    pub depth: usize,
    pub permutable: bool,
    /// One flag per band dimension: no dependence left at that dimension has a non-zero distance.
    pub parallel: Vec<bool>,
    /// Diamond tiling: the tiling hyperplane that replaces the band's first row for tiling
    /// (the points of a tile still run in the order of the rows).
    pub diamond: Option<Diamond>,
}

/// A complete schedule of a SCoP.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Schedule {
    /// `rows[s][d]`: statement `s`, dimension `d`.
    pub rows: Vec<Vec<Row>>,
    pub kinds: Vec<DimKind>,
    pub bands: Vec<Band>,
    /// Per dimension: whether the loop at that dimension carries no dependence.
    pub parallel: Vec<bool>,
    /// Per dimension and statement: whether the statement's loop at that dimension carries no
    /// dependence among the statements that share it (those with the same constants at the
    /// earlier scalar dimensions). `parallel[d]` holds when all of `loop_parallel[d]` do.
    pub loop_parallel: Vec<Vec<bool>>,
    /// When the scheduler got stuck (no legal hyperplane, no cut that helps), the dimension
    /// from which the original execution order completes the schedule, as Pluto falls back to
    /// the original order.
    pub original_order_from: Option<usize>,
}

impl Schedule {
    pub fn n_dims(&self) -> usize {
        self.kinds.len()
    }

    /// The row of statement `s` that tiles dimension `d`: the schedule's row, except at the
    /// first dimension of a band with a [`Diamond`].
    pub fn tiling_row(&self, s: usize, d: usize) -> Row {
        let diamond = self.bands.iter().find_map(|b| match &b.diamond {
            Some(dm) if b.start == d => Some(dm),
            _ => None,
        });
        match diamond {
            Some(dm) => dm.row(s, &self.rows[s][d], &self.rows[s][d + 1]),
            None => self.rows[s][d].clone(),
        }
    }

    /// Whether a loop at dimension `d` around the statements `stmts` carries no dependence.
    pub fn parallel_loop(&self, d: usize, stmts: &[usize]) -> bool {
        self.parallel[d] || stmts.iter().all(|&s| self.loop_parallel[d][s])
    }

    /// How well the schedule suits tiled parallel code, as
    /// `(parallel, tiled, deepest, wavefront)`,
    /// compared lexicographically; each sums, over the statements whose outermost band (the
    /// first holding one of their loops) qualifies, a measure of the statement:
    /// - `parallel`: its loop depth (`depths[s]`), when the band has a parallel dimension;
    /// - `tiled`: the band dimensions that scan its loops (what tiling that band covers);
    /// - `deepest`: the same count in whichever band has the most (adi's inner band of two);
    /// - `wavefront`: its loop depth, when the band has a parallel dimension or at least two
    ///   dimensions for wavefronts.
    pub fn outer_parallelism(&self, depths: &[usize]) -> (usize, usize, usize, usize) {
        let scanned = |s: usize, b: &Band| {
            (b.start..b.start + b.depth)
                .filter(|&k| !self.rows[s][k].is_constant())
                .count()
        };
        let mut score = (0, 0, 0, 0);
        for (s, depth) in depths.iter().enumerate() {
            let Some(d) = (0..self.n_dims()).find(|&d| !self.rows[s][d].is_constant()) else {
                continue;
            };
            let Some(band) = self
                .bands
                .iter()
                .find(|b| (b.start..b.start + b.depth).contains(&d))
            else {
                continue;
            };
            let parallel = band.parallel.iter().any(|&p| p);
            if parallel {
                score.0 += depth;
            }
            score.1 += scanned(s, band);
            score.2 += self.bands.iter().map(|b| scanned(s, b)).max().unwrap_or(0);
            if parallel || band.depth >= 2 {
                score.3 += depth;
            }
        }
        score
    }

    /// How many loops of the statements' bands carry no dependence: per statement, its band
    /// dimensions with a loop (a non-constant row) marked parallel.
    pub fn parallel_band_loops(&self) -> usize {
        self.bands
            .iter()
            .flat_map(|b| b.start..b.start + b.depth)
            .map(|d| {
                (0..self.rows.len())
                    .filter(|&s| !self.rows[s][d].is_constant() && self.loop_parallel[d][s])
                    .count()
            })
            .sum()
    }

    /// Statement `s`'s schedule as isl text `{ S[i, j] -> [rows] }` (parameters included).
    pub fn isl_text(&self, scop: &Scop, s: usize) -> String {
        let st = &scop.statements[s];
        let names = st.domain.dim_names();
        let tuple = st.domain.tuple_name().expect("statement domains are named");
        let rows: Vec<String> = self.rows[s].iter().map(|r| r.expr(&names)).collect();
        format!(
            "{}{{ {tuple}[{}] -> [{}] }}",
            scop.isl_params(),
            names.join(", "),
            rows.join(", ")
        )
    }

    /// All statements' schedules, restricted to their domains.
    pub fn union_map<'c>(&self, ctx: &'c Ctx, scop: &Scop<'c>) -> UnionMap<'c> {
        scop.statements
            .iter()
            .enumerate()
            .fold(UnionMap::empty(ctx), |u, (s, st)| {
                let m = rosepolly::math::isl::Map::parse(ctx, &self.isl_text(scop, s))
                    .expect("schedule text parses");
                u.add_map(st.domain.restrict(m))
            })
    }

    /// The original execution order as a schedule: textual positions as scalar dimensions and
    /// each loop as a band of its own (iterators negated for loops counting down).
    pub fn original(scop: &Scop) -> (Vec<Vec<Row>>, Vec<DimKind>) {
        let depth = scop.max_depth();
        let mut rows = Vec::new();
        for st in &scop.statements {
            let d = st.depth();
            let mut r = Vec::new();
            for level in 0..=depth {
                r.push(Row::constant(
                    d,
                    st.beta.get(level).copied().unwrap_or(0) as i64,
                ));
                if level < depth {
                    let mut coeffs = vec![0; d];
                    if level < d {
                        coeffs[level] = scop.loops[st.loops[level]].stride.signum();
                    }
                    r.push(Row {
                        coeffs,
                        constant: 0,
                    });
                }
            }
            rows.push(r);
        }
        let kinds = (0..2 * depth + 1)
            .map(|k| {
                if k % 2 == 0 {
                    DimKind::Scalar
                } else {
                    DimKind::Hyperplane { band: k / 2 }
                }
            })
            .collect();
        (rows, kinds)
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (s, rows) in self.rows.iter().enumerate() {
            let r: Vec<String> = rows.iter().map(|r| format!("{:?}", r.coeffs)).collect();
            writeln!(f, "S{s}: {}", r.join(" "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_print_as_expressions() {
        let it = ["t".to_string(), "i".to_string()];
        assert_eq!(
            Row {
                coeffs: vec![2, 1],
                constant: 1
            }
            .expr(&it),
            "2*t + i + 1"
        );
        assert_eq!(
            Row {
                coeffs: vec![0, -1],
                constant: 0
            }
            .expr(&it),
            "-i"
        );
        assert_eq!(Row::constant(2, 3).expr(&it), "3");
        assert_eq!(
            Row {
                coeffs: vec![1, -2],
                constant: -4
            }
            .eval(&[3, 1]),
            -3
        );
    }
}
