//! A work-group's combination of its work-items' partial results
//! ([`crate::ir::TiledGroup::combined`]; issue 17, item 1): each work-item folds its points'
//! updates into a private partial result, the work-group adds them pairwise in local memory (a
//! tree of [`STEPS`] halvings), and work-item 0 adds the total to the accumulator with one
//! atomic update per tile. A dot product of `n` elements then costs `n / T` atomic updates for
//! tiles of `T` points, where one per work-item would cost `n`.
//!
//! The tree's arrays are static local memory of [`ITEMS`] entries, so the host holds such a
//! kernel's work-groups to [`ITEMS`] work-items (`crate::gpu_host`). Every work-item reaches
//! every barrier: the tree's steps are written out, none in a conditional. A flag per entry
//! says whether the work-item's points held an instance at all (a `max` from `NAN` must not
//! meet a partial result of no instance).

use std::fmt::Write;

use rosepolly::analysis::reductions::ReductionOp;

use crate::atomics::{self, Update};
use crate::device::Dialect;
use crate::ir::{acc, hit, Private};

/// The most work-items in a work-group of a kernel that combines partial results.
pub const ITEMS: usize = 256;

/// The tree's halvings: `ITEMS / 2, ..., 1`.
pub const STEPS: u32 = ITEMS.trailing_zeros();

/// Slot `slot`'s local arrays: the work-items' partial results and their flags.
fn arrays(slot: usize) -> (String, String) {
    (format!("polyc_wr{slot}"), format!("polyc_wh{slot}"))
}

/// The local arrays of `privates`, declared at the kernel's scope (OpenCL C allows `__local`
/// variables nowhere else).
pub fn local_arrays(dialect: Dialect, privates: &[Private]) -> String {
    let local = match dialect {
        Dialect::OpenCl => "__local",
        Dialect::Cuda => "__shared__",
    };
    let mut out = String::new();
    for p in privates {
        let (values, flags) = arrays(p.slot);
        let _ = writeln!(
            out,
            "{local} {} {values}[{ITEMS}]; {local} int {flags}[{ITEMS}];",
            p.update.elem
        );
    }
    out
}

/// The work-item's partial results, from an identity that leaves every value as it is, and
/// their flags; before the tile's code.
pub fn partial_results(dialect: Dialect, privates: &[Private]) -> String {
    let mut out = String::new();
    for p in privates {
        let _ = writeln!(
            out,
            "{} {} = {}; int {} = 0;",
            p.update.elem,
            acc(p.slot),
            exact_identity(dialect, p),
            hit(p.slot)
        );
    }
    out
}

/// `+0.0` would turn a sum of `-0.0` into `+0.0`; `-0.0` leaves every value as it is.
fn exact_identity(dialect: Dialect, p: &Private) -> &'static str {
    let Update { op, elem, .. } = &p.update;
    match (op, elem.as_str()) {
        (ReductionOp::Add, "double") => "-0.0",
        (ReductionOp::Add, "float") => "-0.0f",
        _ => atomics::identity(dialect, *op, elem),
    }
}

/// One step of a tree over local arrays `values` and `flags` of `p`'s partial results: entry
/// `polyc_lid` takes in entry `polyc_lid + step`.
pub fn halving(dialect: Dialect, p: &Private, values: &str, flags: &str, step: usize) -> String {
    merge(
        dialect,
        p,
        (
            &format!("{values}[polyc_lid]"),
            &format!("{flags}[polyc_lid]"),
        ),
        (
            &format!("{values}[polyc_lid + {step}]"),
            &format!("{flags}[polyc_lid + {step}]"),
        ),
    )
}

/// The statement that combines partial result `theirs` (a value and its flag) into `mine`,
/// as `p`'s statement would: only where `theirs` holds an instance, and taking it as it is
/// where `mine` holds none (a `max` from `NAN` must not meet a result of no instance).
pub fn merge(dialect: Dialect, p: &Private, mine: (&str, &str), theirs: (&str, &str)) -> String {
    let ((value, flag), (other, other_flag)) = (mine, theirs);
    let both = p.update.combined(dialect, value, other);
    format!("if ({other_flag}) {{ {value} = {flag} ? {both} : {other}; {flag} = 1; }}")
}

/// The store of `p`'s partial result and flag into work-item `polyc_lid`'s entries of local
/// arrays `values` and `flags`.
pub fn store(p: &Private, values: &str, flags: &str) -> String {
    format!(
        "{values}[polyc_lid] = {}; {flags}[polyc_lid] = {};",
        acc(p.slot),
        hit(p.slot)
    )
}

/// After the tile's code: the tree over the work-group's partial results, then work-item 0's
/// atomic update of each accumulator (`targets`, in `privates`' order, as device lvalues).
/// `barrier` is the work-group's (empty where it has one work-item).
pub fn combination(
    dialect: Dialect,
    privates: &[Private],
    targets: &[String],
    barrier: &str,
) -> String {
    let mut out = String::new();
    let wait = |out: &mut String| {
        if !barrier.is_empty() {
            let _ = writeln!(out, "{barrier}");
        }
    };
    for p in privates {
        let (values, flags) = arrays(p.slot);
        let _ = writeln!(out, "{}", store(p, &values, &flags));
    }
    wait(&mut out);
    for step in (0..STEPS).rev().map(|k| 1usize << k) {
        let _ = writeln!(
            out,
            "if (polyc_lid < {step} && polyc_lid + {step} < polyc_wg) {{"
        );
        for p in privates {
            let (values, flags) = arrays(p.slot);
            let _ = writeln!(out, "  {}", halving(dialect, p, &values, &flags, step));
        }
        let _ = writeln!(out, "}}");
        wait(&mut out);
    }
    // One condition per update, not one `if (polyc_lid == 0)` around them all: PoCL 3.1 ran
    // a kernel forever whose work-item 0 ran two compare-and-swap loops in one conditional
    // after a barrier (two sums of one group; one loop ran, and so do these).
    for (p, target) in privates.iter().zip(targets) {
        let (values, flags) = arrays(p.slot);
        let _ = writeln!(
            out,
            "if (polyc_lid == 0 && {flags}[0]) {}(&{target}, {values}[0]);",
            p.update.helper()
        );
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use rosepolly::analysis::reductions::Pick;

    /// A sum of `double`s' partial result, slot 0 (the lane groups' tests use it too).
    pub(crate) fn dot() -> Private {
        Private {
            slot: 0,
            stmt: 0,
            args: Vec::new(),
            update: Update::new(ReductionOp::Add, Pick::Arithmetic, "double"),
        }
    }

    #[test]
    fn the_tree_halves_down_to_one_work_item_then_adds_once() {
        assert_eq!(1 << STEPS, ITEMS);
        let code = combination(Dialect::OpenCl, &[dot()], &["dot[0]".into()], "BARRIER;");
        assert_eq!(code.matches("BARRIER;").count(), STEPS as usize + 1);
        assert!(code.contains("if (polyc_lid < 128 && polyc_lid + 128 < polyc_wg) {"));
        assert!(code.contains("if (polyc_lid < 1 && polyc_lid + 1 < polyc_wg) {"));
        assert!(code.contains(
            "polyc_wr0[polyc_lid] = polyc_wh0[polyc_lid] ? polyc_wr0[polyc_lid] + polyc_wr0[polyc_lid + 1] : polyc_wr0[polyc_lid + 1];"
        ));
        assert!(code.ends_with(
            "if (polyc_lid == 0 && polyc_wh0[0]) polyc_atomic_add_double(&dot[0], polyc_wr0[0]);\n"
        ));
        // One work-item per work-group: no barrier, the same steps (none runs).
        let serial = combination(Dialect::Cuda, &[dot()], &["dot[0]".into()], "");
        assert!(!serial.contains("BARRIER"));
        assert_eq!(
            local_arrays(Dialect::Cuda, &[dot()]),
            "__shared__ double polyc_wr0[256]; __shared__ int polyc_wh0[256];\n"
        );
        assert_eq!(
            partial_results(Dialect::OpenCl, &[dot()]),
            "double polyc_acc0 = -0.0; int polyc_hit0 = 0;\n"
        );
    }
}
