//! How a search walks a SCoP's [`Space`]: every configuration, a random sample, or guided (a
//! coarse grid of powers of four, then steps to better neighbours until none is better).
//! A strategy proposes one configuration at a time and sees every measurement before the next.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use avelas_contract::tuning::Tuned;

use super::space::{Candidate, Space};

/// What is known of a SCoP's configurations: the median time of each one measured (`None`:
/// rejected, never to be chosen).
pub type Measured = BTreeMap<Candidate, Option<f64>>;

/// The best configuration measured, and its time.
pub fn best(measured: &Measured) -> Option<(&Candidate, f64)> {
    measured
        .iter()
        .filter_map(|(c, t)| t.map(|t| (c, t)))
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// How many of the best configurations the guided search descends from, at least.
const DESCENTS: usize = 2;

/// The guided search also descends from configurations within this factor of the best.
const NEAR_TIE: f64 = 1.05;

/// Without `--budget`, the guided search measures at most this share of its space, and at least
/// [`GUIDED_MIN`] configurations: its descents' last steps find a few percent at most, less than
/// the noise of one measurement (docs/results/tune-c-5edcfff.md), at the price of a third of the
/// search.
const GUIDED_SHARE: f64 = 0.15;
const GUIDED_MIN: usize = 16;

/// A search's strategy.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Kind {
    /// Every configuration of the space.
    Exhaustive,
    /// Configurations drawn at random, as many as the budget allows.
    Random,
    /// A coarse grid, then steps to better neighbours (coordinate descent).
    Guided,
}

/// One SCoP's search in progress.
pub struct Search {
    kind: Kind,
    pub space: Space,
    /// Exhaustive: the next index. Random: the draws so far.
    next: usize,
    queue: VecDeque<Candidate>,
    /// Guided: the grid is queued; the best whose neighbours were queued.
    seeded: bool,
    expanded: BTreeSet<Candidate>,
    rng: u64,
}

impl Search {
    pub fn new(kind: Kind, space: Space, seed: u64) -> Search {
        Search {
            kind,
            space,
            next: 0,
            queue: VecDeque::new(),
            seeded: false,
            expanded: BTreeSet::new(),
            rng: seed ^ 0x9e37_79b9_7f4a_7c15,
        }
    }

    /// The most configurations the strategy measures of its own accord, when no budget is given
    /// (`None`: every one it proposes).
    pub fn cap(&self) -> Option<usize> {
        match self.kind {
            Kind::Guided => {
                Some(((self.space.len() as f64 * GUIDED_SHARE) as usize).max(GUIDED_MIN))
            }
            Kind::Exhaustive | Kind::Random => None,
        }
    }

    /// The most configurations to measure: `budget` (`--budget`), else [`Search::cap`].
    pub fn limit(&self, budget: Option<usize>) -> Option<usize> {
        budget.or(self.cap())
    }

    /// The next configuration to measure, or `None` when the search is over.
    pub fn propose(&mut self, measured: &Measured) -> Option<Candidate> {
        match self.kind {
            Kind::Exhaustive => {
                while self.next < self.space.len() {
                    let c = self.space.get(self.next);
                    self.next += 1;
                    if !measured.contains_key(&c) {
                        return Some(c);
                    }
                }
                None
            }
            Kind::Random => {
                let n = self.space.len();
                if measured.len() >= n {
                    return None;
                }
                // Draw until an unmeasured one comes (the space is larger than what is measured).
                for _ in 0..64 * n.min(1 << 16) {
                    let i = (self.draw() % n as u64) as usize;
                    let c = self.space.get(i);
                    if !measured.contains_key(&c) {
                        return Some(c);
                    }
                }
                None
            }
            Kind::Guided => self.guided(measured),
        }
    }

    /// Up to `max` configurations to measure next: what the strategy proposes without knowing
    /// their times (guided: the grid, or the neighbours of the best so far).
    pub fn propose_batch(&mut self, measured: &Measured, max: usize) -> Vec<Candidate> {
        let mut seen = measured.clone();
        let mut out = Vec::new();
        while out.len() < max {
            match self.propose(&seen) {
                Some(c) => {
                    seen.insert(c.clone(), None);
                    out.push(c);
                }
                None => break,
            }
        }
        out
    }

    fn guided(&mut self, measured: &Measured) -> Option<Candidate> {
        if !self.seeded {
            self.seeded = true;
            self.queue.extend(self.grid());
        }
        loop {
            while let Some(c) = self.queue.pop_front() {
                if !measured.contains_key(&c) {
                    return Some(c);
                }
            }
            // The grid and the last neighbours are measured: step from the best tiled one
            // (the original order, when it is the best, has no neighbours: the tiled
            // configurations near the best tiled one may still beat it).
            // From the best two: a second descent leaves the first's local minimum behind at
            // the price of a few neighbours (gemm LARGE: 23% slower from one).
            let mut tiled: Vec<(&Candidate, f64)> = measured
                .iter()
                .filter(|(c, _)| c.tuned != Tuned::Untiled)
                .filter_map(|(c, t)| t.map(|t| (c, t)))
                .collect();
            tiled.sort_by(|a, b| a.1.total_cmp(&b.1));
            // And from any other within the noise of one measurement of the best: which of
            // those is best, one run cannot tell (2mm LARGE stopped 13% above the exhaustive
            // choice with two descents).
            let fastest = tiled.first()?.1;
            let b = tiled
                .iter()
                .enumerate()
                .take_while(|(i, (_, t))| *i < DESCENTS || *t <= fastest * NEAR_TIE)
                .map(|(_, (c, _))| *c)
                .find(|c| !self.expanded.contains(*c))?
                .clone();
            self.expanded.insert(b.clone());
            self.queue.extend(self.space.neighbours(&b));
        }
    }

    /// The coarse grid: every dimension at every other power of two of the space (8, 32,
    /// 128...), or every third (8, 64, 512...) where that grid would exceed a sixteenth of the
    /// space (small spaces: the descent needs the rest); the default size 32 everywhere, and
    /// the original order.
    fn grid(&self) -> Vec<Candidate> {
        let sizes = &self.space.sizes;
        let powers = |step: u32| -> Vec<i64> {
            sizes
                .iter()
                .copied()
                .filter(|v| v.count_ones() == 1 && v.trailing_zeros() % step == 3 % step)
                .collect()
        };
        let mut coarse = powers(2);
        let depth = self.space.depth as u32;
        if coarse.len().saturating_pow(depth).saturating_mul(16) > self.space.len() {
            coarse = powers(3);
        }
        if coarse.is_empty() {
            coarse = vec![sizes[sizes.len() / 2]];
        }
        let mut out = vec![Candidate::sizes(vec![
            sizes[self.space.nearest(32)];
            self.space.depth
        ])];
        let n = coarse.len();
        let total = n.saturating_pow(self.space.depth as u32);
        for i in 0..total {
            let mut rest = i;
            let mut s = vec![0; self.space.depth];
            for k in (0..self.space.depth).rev() {
                s[k] = coarse[rest % n];
                rest /= n;
            }
            out.push(Candidate::sizes(s));
        }
        if self.space.untiled {
            out.push(Candidate {
                tuned: Tuned::Untiled,
                local_mem: None,
            });
        }
        out
    }

    /// splitmix64.
    fn draw(&mut self) -> u64 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::super::space::Values;
    use super::*;

    /// Runs a search against a cost function; the configurations it measured.
    fn walk(kind: Kind, space: Space, cost: impl Fn(&Candidate) -> f64) -> Measured {
        let mut s = Search::new(kind, space, 7);
        let mut m = Measured::new();
        while let Some(c) = s.propose(&m) {
            let t = cost(&c);
            m.insert(c, Some(t));
            assert!(m.len() <= 10_000);
        }
        m
    }

    fn bowl(c: &Candidate) -> f64 {
        match &c.tuned {
            Tuned::Untiled => 1e9,
            Tuned::Sizes(s) => s
                .iter()
                .zip([48.0, 12.0, 256.0])
                .map(|(&v, best): (&i64, f64)| ((v as f64).log2() - best.log2()).powi(2))
                .sum(),
        }
    }

    #[test]
    fn exhaustive_measures_everything_once() {
        let mut space = Space::new(2, 4, 64, 64, Values::Pow2);
        space.untiled = true;
        let m = walk(Kind::Exhaustive, space.clone(), bowl);
        assert_eq!(m.len(), space.len());
    }

    #[test]
    fn guided_finds_the_bottom_of_a_bowl_cheaply() {
        let space = Space::new(3, 4, 1024, 1024, Values::Between);
        let m = walk(Kind::Guided, space.clone(), bowl);
        let (b, _) = best(&m).unwrap();
        assert_eq!(b, &Candidate::sizes(vec![48, 12, 256]));
        assert!(m.len() * 20 < space.len(), "{} of {}", m.len(), space.len());
    }

    #[test]
    fn guided_steps_from_the_best_tiled_one_when_untiled_is_best() {
        let mut space = Space::new(2, 4, 64, 64, Values::Pow2);
        space.untiled = true;
        let m = walk(Kind::Guided, space, |c| match &c.tuned {
            Tuned::Untiled => 0.5,
            Tuned::Sizes(s) => (s[0] + s[1]) as f64,
        });
        assert!(m.contains_key(&Candidate::sizes(vec![4, 4])), "{m:?}");
    }

    #[test]
    fn batches_propose_what_single_steps_do() {
        let space = Space::new(3, 4, 256, 256, Values::Pow2);
        let one = walk(Kind::Guided, space.clone(), bowl);
        let mut s = Search::new(Kind::Guided, space, 7);
        let mut m = Measured::new();
        loop {
            let batch = s.propose_batch(&m, 64);
            if batch.is_empty() {
                break;
            }
            for c in batch {
                let t = bowl(&c);
                m.insert(c, Some(t));
            }
        }
        assert_eq!(best(&m).map(|b| b.1), best(&one).map(|b| b.1));
    }

    #[test]
    fn small_spaces_get_a_coarser_grid() {
        let space = Space::new(3, 8, 256, 1024, Values::Pow2);
        let s = Search::new(Kind::Guided, space.clone(), 1);
        let grid = s.grid();
        assert!(
            grid.len() * 16 <= space.len() + 32,
            "{} of {}",
            grid.len(),
            space.len()
        );
        assert!(grid.contains(&Candidate::sizes(vec![64, 8, 64])));
        let m = walk(Kind::Guided, space.clone(), bowl);
        assert!(
            m.len() * 100 <= space.len() * 15,
            "{} of {}",
            m.len(),
            space.len()
        );
    }

    #[test]
    fn guided_descends_from_near_ties_of_the_best() {
        // The grid's two best lie in a shallow basin (tiles of 8 or 16 first); a grid point 4.5%
        // slower leads down to the deepest configuration, 256,256.
        let space = Space::new(2, 8, 256, 256, Values::Pow2);
        let cost = |c: &Candidate| match &c.tuned {
            Tuned::Sizes(s) => match (s[0], s[1]) {
                (8, 8) => 100.0,
                (8, 64) => 100.1,
                (a, _) if a <= 16 => 100.5,
                (a, b) if a >= 64 && b >= 64 => {
                    104.5 - 2.0 * ((a as f64).log2() + (b as f64).log2() - 12.0)
                }
                (32, 32) | (64, 8) => 104.5,
                _ => 110.0,
            },
            Tuned::Untiled => 1e9,
        };
        let m = walk(Kind::Guided, space, cost);
        let (b, t) = best(&m).unwrap();
        assert_eq!((b, t), (&Candidate::sizes(vec![256, 256]), 96.5), "{m:?}");
    }

    #[test]
    fn guided_stays_within_its_share_of_the_space() {
        let mut space = Space::new(3, 8, 256, 256, Values::Pow2);
        space.untiled = true;
        let s = Search::new(Kind::Guided, space.clone(), 1);
        assert_eq!(s.cap(), Some(32));
        assert_eq!(Search::new(Kind::Exhaustive, space, 1).cap(), None);
        let small = Space::new(1, 4, 64, 64, Values::Pow2);
        assert_eq!(Search::new(Kind::Guided, small, 1).cap(), Some(GUIDED_MIN));
    }

    #[test]
    fn random_draws_distinct_configurations() {
        let space = Space::new(1, 4, 64, 64, Values::Pow2);
        let m = walk(Kind::Random, space.clone(), bowl);
        assert_eq!(m.len(), space.len());
    }

    #[test]
    fn rejected_configurations_are_never_best() {
        let mut m = Measured::new();
        m.insert(Candidate::sizes(vec![4]), None);
        m.insert(Candidate::sizes(vec![8]), Some(2.0));
        assert_eq!(best(&m).unwrap().0, &Candidate::sizes(vec![8]));
    }
}
