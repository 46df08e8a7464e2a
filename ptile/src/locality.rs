//! How the original order of a SCoP walks its arrays: whether its innermost loops step across
//! rows. Such an order touches one element per cache line (and per page, for long rows) at each
//! step; once the arrays exceed the cache, tiles pay for their locality alone, without threads.
//! Measured on the 2-core development VM at LARGE (4 KiB pages): mvt ran 63 ms in its original
//! order and 12.6 ms tiled on one thread, gemver 73 against 19 ms; atax, whose loops walk rows,
//! ran 7.4 ms against 14 ms tiled.

use rosepolly::model::{Scop, Storage};

/// Whether some statement of the deepest nests, where the work is, moves with its innermost
/// loop a subscript other than the last of an array it accesses (mvt's `A[j][i]` under `j`;
/// not trisolv's `L[i][i]` under `i` alone, outside the `j` loop). Arrays polyc made from
/// scalars do not count: where the original order runs, they are scalars again.
pub fn strides_across_rows(scop: &Scop) -> bool {
    let deepest = scop.statements.iter().map(|s| s.iterators.len()).max();
    scop.statements.iter().any(|s| {
        let Some(inner) = s.iterators.last() else {
            return false;
        };
        if Some(s.iterators.len()) != deepest {
            return false;
        }
        s.accesses.iter().any(|a| {
            let expanded = scop
                .symbols
                .data
                .get(&a.datum)
                .is_some_and(|d| d.storage == Storage::Expanded);
            let rows = a.subscripts.len().saturating_sub(1);
            !expanded
                && a.subscripts[..rows]
                    .iter()
                    .any(|e| !matches!(e.split_var(inner), Some((0, _))))
        })
    })
}
