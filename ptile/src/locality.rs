//! How the original order of a SCoP walks its arrays: whether its innermost loops step across
//! rows. Such an order touches one element per cache line (and per page, for long rows) at each
//! step; once the arrays exceed the cache, tiles pay for their locality alone, without threads.
//! Measured on the 2-core development VM at LARGE (4 KiB pages): mvt ran 63 ms in its original
//! order and 12.6 ms tiled on one thread, gemver 73 against 19 ms; atax, whose loops walk rows,
//! ran 7.4 ms against 14 ms tiled.

use rosepolly::model::affine::Affine;
use rosepolly::model::{AccessKind, Scop, Storage};

/// Whether some statement of the deepest nests, where the work is, moves with its innermost
/// loop a subscript other than the last of an array it accesses (mvt's `A[j][i]` under `j`;
/// not trisolv's `L[i][i]` under `i` alone, outside the `j` loop). Arrays polyc made from
/// scalars do not count: where the original order runs, they are scalars again.
pub fn strides_across_rows(scop: &Scop) -> bool {
    deepest(scop).any(|s| {
        let s = &scop.statements[s];
        let Some(inner) = s.iterators.last() else {
            return false;
        };
        s.accesses.iter().any(|a| {
            let rows = a.subscripts.len().saturating_sub(1);
            !expanded(scop, &a.datum)
                && a.subscripts[..rows]
                    .iter()
                    .any(|e| !matches!(e.split_var(inner), Some((0, _))))
        })
    })
}

/// The statements of the deepest nests, where the work is.
pub fn deepest<'a>(scop: &'a Scop<'_>) -> impl Iterator<Item = usize> + 'a {
    let depth = scop.statements.iter().map(|s| s.iterators.len()).max();
    (0..scop.statements.len()).filter(move |&s| Some(scop.statements[s].iterators.len()) == depth)
}

/// Whether `datum` is an array polyc made from a scalar.
fn expanded(scop: &Scop, datum: &str) -> bool {
    scop.symbols
        .data
        .get(datum)
        .is_some_and(|d| d.storage == Storage::Expanded && d.expanded_dims == d.extents.len())
}

/// The leading subscripts of `datum` that index iterations of the loops it was expanded over.
fn expanded_dims(scop: &Scop, datum: &str) -> usize {
    scop.symbols.data.get(datum).map_or(0, |d| d.expanded_dims)
}

/// What an order's innermost loop asks of the C compiler's vectoriser for one statement;
/// ordered by cost (`codegen::inner_loops` compares the original order with the tiles').
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Inner {
    /// Invariant or unit-stride references only: the loop vectorises.
    Contiguous,
    /// Some reference moves a subscript other than the last (or the last by more than one).
    Strided,
    /// A written element stays the same along the loop (or the loop is unknown): a
    /// floating-point reduction gcc keeps scalar without `-ffast-math`.
    Chain,
}

impl Inner {
    pub fn cost(self) -> u32 {
        self as u32
    }
}

/// The cost of the original order: the sum of [`Inner`] over the deepest statements, each
/// under its own innermost iterator. Arrays polyc made from scalars count as the scalars they
/// are in the original lines.
pub fn original_cost(scop: &Scop) -> u32 {
    deepest(scop)
        .map(|s| {
            let st = &scop.statements[s];
            let Some(inner) = st.iterators.last() else {
                return 0;
            };
            classify(scop, s, true, &|a| a.split_var(inner).map(|(c, _)| c)).cost()
        })
        .sum()
}

/// The class of statement `s` when `step` gives each subscript's change per step of the
/// innermost loop (`None`: unknown). `scalars`: expanded arrays count as scalars.
pub fn classify(
    scop: &Scop,
    s: usize,
    scalars: bool,
    step: &dyn Fn(&Affine) -> Option<i64>,
) -> Inner {
    let mut class = Inner::Contiguous;
    for a in &scop.statements[s].accesses {
        let subscripts: &[Affine] = match scalars {
            true => &a.subscripts[expanded_dims(scop, &a.datum)..],
            false => &a.subscripts,
        };
        let steps: Option<Vec<i64>> = subscripts.iter().map(step).collect();
        let this = match steps {
            None => Inner::Chain,
            Some(v) if v.iter().all(|&c| c == 0) => match a.kind {
                AccessKind::Write => Inner::Chain,
                AccessKind::Read => Inner::Contiguous,
            },
            Some(v) => {
                let rows = v.len() - 1;
                if v[..rows].iter().all(|&c| c == 0) && v[rows].abs() == 1 {
                    Inner::Contiguous
                } else {
                    Inner::Strided
                }
            }
        };
        class = class.max(this);
    }
    class
}
