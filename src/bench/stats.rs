//! How sure a speed-up is. The median ratio of two programs' times moves with the machine: on
//! the 2-core development VM a sub-millisecond kernel's runs scatter several-fold (the original
//! gesummv MEDIUM, 40 runs in a row: 0.14-0.69 ms), so a median below 1.0x there says little.
//! From all the runs of both programs this module estimates the ratio (Hodges-Lehmann: the
//! median of the ratios of every pair of runs) with a distribution-free 95% confidence interval
//! (the one the Mann-Whitney test inverts; Hollander and Wolfe, *Nonparametric Statistical
//! Methods*, ch. 4). An interval wholly below 1.0x is a loss the runs show; one that spans 1.0x
//! is no difference the runs can tell apart.

use serde::Serialize;

/// The normal quantile of a two-sided 95% interval.
const Z_95: f64 = 1.959_963_984_540_054;

/// A speed-up (`reference / measured`) with its 95% confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    /// The Hodges-Lehmann estimate.
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
}

/// What an interval shows against 1.0x.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Faster,
    Slower,
    /// The interval holds 1.0x.
    Unresolved,
}

impl Interval {
    pub fn verdict(&self) -> Verdict {
        if self.low > 1.0 {
            Verdict::Faster
        } else if self.high < 1.0 {
            Verdict::Slower
        } else {
            Verdict::Unresolved
        }
    }
}

/// The speed-up of `measured` over `reference` (times, any unit) with its 95% interval; None
/// where the runs are too few for one (fewer than four of each: three and three can never
/// reach 95%), or a time is not positive (below the timer's resolution).
pub fn speedup(reference: &[f64], measured: &[f64]) -> Option<Interval> {
    if reference
        .iter()
        .chain(measured)
        .any(|&t| t.is_nan() || t <= 0.0)
    {
        return None;
    }
    let (n, m) = (reference.len() as f64, measured.len() as f64);
    let pairs = n * m;
    // The rank of the interval's lower end among the sorted pairwise log-ratios (1-based), by
    // the normal approximation of the Mann-Whitney statistic, rounded down (the wider side).
    let c = (pairs / 2.0 - Z_95 * (pairs * (n + m + 1.0) / 12.0).sqrt()).floor();
    if c < 1.0 {
        return None;
    }
    let mut logs: Vec<f64> = reference
        .iter()
        .flat_map(|&r| measured.iter().map(move |&t| (r / t).ln()))
        .collect();
    logs.sort_by(f64::total_cmp);
    let c = c as usize;
    let median = if logs.len() % 2 == 1 {
        logs[logs.len() / 2]
    } else {
        (logs[logs.len() / 2 - 1] + logs[logs.len() / 2]) / 2.0
    };
    Some(Interval {
        estimate: median.exp(),
        low: logs[c - 1].exp(),
        high: logs[logs.len() - c].exp(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_few_runs_give_no_interval() {
        assert_eq!(speedup(&[1.0, 1.1, 1.2], &[2.0, 2.1, 2.2]), None);
        assert_eq!(speedup(&[1.0; 5], &[0.0, 1.0, 1.0, 1.0, 1.0]), None);
        assert!(speedup(&[1.0, 1.1, 1.2, 1.3], &[2.0, 2.1, 2.2, 2.3]).is_some());
    }

    #[test]
    fn the_rank_matches_the_exact_tables() {
        // Five and five runs: the exact Mann-Whitney table's 95% interval runs from the third
        // smallest of the 25 pairwise differences to the third largest.
        let reference = [10.0, 11.0, 12.0, 13.0, 14.0];
        let measured = [5.0, 5.5, 6.0, 6.5, 7.0];
        let i = speedup(&reference, &measured).unwrap();
        let mut ratios: Vec<f64> = reference
            .iter()
            .flat_map(|r| measured.iter().map(move |t| r / t))
            .collect();
        ratios.sort_by(f64::total_cmp);
        assert!((i.low - ratios[2]).abs() < 1e-12, "{i:?}");
        assert!((i.high - ratios[22]).abs() < 1e-12, "{i:?}");
        assert!((i.estimate - ratios[12]).abs() < 1e-12, "{i:?}");
        assert_eq!(i.verdict(), Verdict::Faster);
    }

    #[test]
    fn overlapping_runs_tell_nothing_and_separate_ones_a_loss() {
        let same = [1.0, 1.2, 0.9, 1.1, 1.3, 1.0, 0.95, 1.05];
        let shuffled = [1.1, 0.9, 1.3, 1.0, 1.2, 1.05, 1.0, 0.95];
        assert_eq!(
            speedup(&same, &shuffled).unwrap().verdict(),
            Verdict::Unresolved
        );
        // One slow run among fast ones moves a median of three, not the interval of many.
        let slower: Vec<f64> = same.iter().map(|t| t * 1.3).collect();
        let i = speedup(&same, &slower).unwrap();
        assert_eq!(i.verdict(), Verdict::Slower, "{i:?}");
        assert!(i.low < 1.0 / 1.3 && 1.0 / 1.3 < i.high, "{i:?}");
    }
}
