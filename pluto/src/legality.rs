//! An independent legality check: for every dependence, the sink instance's schedule vector is
//! lexicographically after the source instance's.
//!
//! It looks only at the dependences and the finished schedule (composed as isl relations), not
//! at how the scheduler reasoned. The tests add a second, brute-force check on enumerated
//! instances.

use rosepolly::math::isl::{Ctx, Map};
use rosepolly::model::Scop;

use crate::schedule::Schedule;

/// `{ [a] -> [b] : a ≺ b }` over `n` dimensions, as isl text.
fn lex_lt(n: usize) -> String {
    let a: Vec<String> = (0..n).map(|k| format!("a{k}")).collect();
    let b: Vec<String> = (0..n).map(|k| format!("b{k}")).collect();
    let cases: Vec<String> = (0..n)
        .map(|k| {
            let mut c: Vec<String> = (0..k).map(|j| format!("b{j} = a{j}")).collect();
            c.push(format!("b{k} > a{k}"));
            c.join(" and ")
        })
        .collect();
    let cond = if cases.is_empty() {
        "false".to_string()
    } else {
        cases.join(" or ")
    };
    format!("{{ [{}] -> [{}] : {cond} }}", a.join(", "), b.join(", "))
}

/// The dependences (by index) whose instances the schedule does not order source-first.
pub fn violations(ctx: &Ctx, scop: &Scop, schedule: &Schedule) -> Vec<usize> {
    let maps: Vec<Map> = (0..scop.statements.len())
        .map(|s| Map::parse(ctx, &schedule.isl_text(scop, s)).expect("schedule text parses"))
        .collect();
    let ordered = Map::parse(ctx, &lex_lt(schedule.n_dims())).expect("lex order parses");
    scop.dependences
        .iter()
        .enumerate()
        .filter(|(_, d)| {
            let times = d
                .relation
                .map()
                .apply_domain(maps[d.source].clone())
                .apply_range(maps[d.sink].clone());
            !times.is_subset(&ordered)
        })
        .map(|(i, _)| i)
        .collect()
}

/// `Ok` when every dependence is respected; otherwise the offending dependences, described.
pub fn check(ctx: &Ctx, scop: &Scop, schedule: &Schedule) -> Result<(), String> {
    let v = violations(ctx, scop, schedule);
    if v.is_empty() {
        return Ok(());
    }
    Err(v
        .iter()
        .map(|&i| {
            let d = &scop.dependences[i];
            format!(
                "{:?} {} -> {} on {} is violated",
                d.kind, scop.statements[d.source].name, scop.statements[d.sink].name, d.datum
            )
        })
        .collect::<Vec<_>>()
        .join("\n"))
}

/// The brute-force counterpart of [`check`], at concrete parameter values: enumerate the
/// instances, derive every dependent pair by brute force
/// ([`rosepolly::enumerate::brute_force_dependences`]) and check on each pair, with the
/// schedule rows evaluated on the instances, that
/// - the sink's time vector is lexicographically after the source's;
/// - the first dimension where they differ is not marked parallel, for the whole dimension
///   or for the loop the two statements share there;
/// - inside every permutable band the pair is not yet ordered by, every band dimension moves
///   forward or stays (so rectangular tiles of the band are legal), and so does the band's
///   diamond tiling row, if it has one.
///
/// Returns the number of pairs checked.
pub fn brute_force_check(
    scop: &Scop,
    schedule: &Schedule,
    params: &[(String, i64)],
    limit: usize,
) -> Result<usize, String> {
    let deps = rosepolly::enumerate::brute_force_dependences(scop, params, limit)
        .map_err(|e| e.to_string())?;
    let time = |s: usize, iters: &[i64]| -> Vec<i64> {
        schedule.rows[s].iter().map(|r| r.eval(iters)).collect()
    };
    let mut checked = 0;
    for ((kind, src, sink, datum), pairs) in &deps {
        for (a, b) in pairs {
            checked += 1;
            let (ta, tb) = (time(*src, a), time(*sink, b));
            let what = || {
                format!(
                    "{kind:?} dependence on {datum} from {}{a:?} (time {ta:?}) to {}{b:?} (time {tb:?})",
                    scop.statements[*src].name, scop.statements[*sink].name
                )
            };
            let Some(first) = (0..ta.len()).find(|&k| ta[k] != tb[k]) else {
                return Err(format!("{} happen at the same time", what()));
            };
            if ta[first] > tb[first] {
                return Err(format!("{} is reversed at dimension {first}", what()));
            }
            if schedule.parallel_loop(first, &[*src, *sink]) {
                return Err(format!(
                    "{} is carried by dimension {first}, whose loop around both is marked parallel",
                    what()
                ));
            }
            for band in schedule
                .bands
                .iter()
                .filter(|b| b.permutable && b.start <= first)
            {
                let end = band.start + band.depth;
                if let Some(k) = (band.start..end.min(ta.len())).find(|&k| tb[k] < ta[k]) {
                    return Err(format!(
                        "{} goes backwards at dimension {k} inside permutable band {band:?}",
                        what()
                    ));
                }
                if band.diamond.is_some() {
                    let h = |s: usize, x: &[i64]| schedule.tiling_row(s, band.start).eval(x);
                    if h(*sink, b) < h(*src, a) {
                        return Err(format!(
                            "{} goes backwards along the diamond tiling row of band {band:?}",
                            what()
                        ));
                    }
                }
            }
        }
    }
    Ok(checked)
}
