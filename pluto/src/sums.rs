//! Which reductions a GPU can sum across tiles under a schedule: the test behind
//! [`crate::PlutoOptions::sums_across_tiles`].
//!
//! On the GPU targets a group whose tiles run in parallel along one dimension only, and along
//! the next ones too once its sums' self-dependences are relaxed, runs those tiles in parallel
//! with partial results added atomically (codegen's `lower::reductions`). That needs the sum
//! alone on its accumulator in its group: a statement beside it that writes the accumulator
//! (its initialisation, bicg's `s[i] = 0` fused with `s[j] += r[i] * A[i][j]`) must run before
//! every addition, which tiles in parallel would not respect. Smart fusion keeps such a fused
//! band whenever its outer loop is parallel; distributed, the initialisations run first and the
//! sums split. This module counts the sums that split, so that [`crate::schedule()`] can
//! compare the fused schedule with the distributed one.
//!
//! The conditions follow codegen's (`Lowering::reduction_split`) closely enough to choose a
//! schedule; codegen checks them again, exactly, on the tiled groups.

use rosepolly::analysis::reductions::{self, Reduction};
use rosepolly::math::isl::Ctx;
use rosepolly::model::{Dependence, Scop};

use crate::{deltas, Band, Schedule};

/// How many of `scop`'s reductions a GPU sums across tiles under `schedule`.
pub(crate) fn splittable(ctx: &Ctx, scop: &Scop, schedule: &Schedule) -> usize {
    let found = reductions::find(scop);
    found
        .iter()
        .filter(|r| split(ctx, scop, schedule, &found, r))
        .count()
}

/// Whether some reduction under `schedule` would split across tiles but for another statement
/// of its group that touches its accumulator: only then can distributing help.
pub(crate) fn blocked(scop: &Scop, schedule: &Schedule) -> bool {
    reductions::find(scop).iter().any(|r| {
        shape(schedule, r.statement).is_some_and(|(band, group)| {
            let one_parallel = leading_parallel(schedule, band, &group) == 1;
            one_parallel && !r.alone_among(scop, &group)
        })
    })
}

/// Whether reduction `r` splits: its band is its outermost loop and no diamond, one band
/// dimension of its group runs in parallel, more do with the group's lone sums relaxed, and it
/// is alone on its accumulator.
fn split(ctx: &Ctx, scop: &Scop, schedule: &Schedule, found: &[Reduction], r: &Reduction) -> bool {
    let Some((band, group)) = shape(schedule, r.statement) else {
        return false;
    };
    if leading_parallel(schedule, band, &group) != 1 || !r.alone_among(scop, &group) {
        return false;
    }
    let sums: Vec<&Reduction> = found
        .iter()
        .filter(|f| group.contains(&f.statement) && f.alone_among(scop, &group))
        .collect();
    let relaxed = |d: &Dependence| {
        d.source == d.sink
            && sums
                .iter()
                .any(|f| f.statement == d.source && f.datum == d.datum)
    };
    let parallel = deltas::parallel_relaxing(
        ctx,
        scop,
        schedule,
        (band.start, band.depth),
        &group,
        &relaxed,
    );
    parallel.iter().take_while(|&&p| p).count() > 1
}

/// Statement `s`'s band, when it is the statement's outermost loop and no diamond, and the
/// statements of its group: those sharing the band after the same scalar dimensions.
fn shape(schedule: &Schedule, s: usize) -> Option<(&Band, Vec<usize>)> {
    let rows = &schedule.rows[s];
    let first = rows.iter().position(|r| !r.is_constant())?;
    let band = schedule.bands.iter().find(|b| b.start == first)?;
    if band.diamond.is_some() {
        return None;
    }
    let group = (0..schedule.rows.len())
        .filter(|&t| {
            let other = &schedule.rows[t];
            other[..first] == rows[..first]
                && other[first..first + band.depth]
                    .iter()
                    .any(|r| !r.is_constant())
        })
        .collect();
    Some((band, group))
}

/// How many leading dimensions of `band` carry no dependence among `group`'s loops.
fn leading_parallel(schedule: &Schedule, band: &Band, group: &[usize]) -> usize {
    (band.start..band.start + band.depth)
        .take_while(|&d| group.iter().all(|&s| schedule.loop_parallel[d][s]))
        .count()
}
