//! Lane groups (issue 17, item 1): the rows of a matrix-vector product summed by [`WIDTH`]
//! work-items each, along the matrix's rows, so that neighbouring work-items read neighbouring
//! elements. With one work-item per row (`tmp[i] += A[i][j] * x[j]`, work-items along `i`),
//! neighbours read elements a row apart, one memory transaction each: on an H200 atax's,
//! bicg's, mvt's and gesummv's kernels took 15-76x one pass over the matrix at the copy
//! bandwidth.
//!
//! Each thread-bucket entry of such a tile (a row) has [`WIDTH`] lanes: the bucket's last
//! coordinate. The lane runs every [`WIDTH`]-th point of the summed loop inside the entry
//! (`crate::lower::lanes` strides the loop), into its private partial result; the lanes of an
//! entry then combine their results (CUDA: warp shuffles; OpenCL: a tree in local memory,
//! with barriers), and lane 0 alone adds the total to the accumulator, one atomic update per
//! row and tile as before.
//!
//! The combination needs the lanes of an entry on consecutive work-items of one lane group:
//! the host holds such a kernel's work-groups to a multiple of [`WIDTH`] (and to
//! [`crate::group_sums::ITEMS`] work-items, the local arrays' size), and every work-item walks
//! the entries in the same passes (`polyc_r0`), whether or not it has one, so that every
//! work-item reaches every barrier and shuffle. Where the work-group is not such a multiple
//! (a device allowing fewer work-items, a serial kernel), every lane adds its own partial
//! result atomically: the same sums, more atomic updates.

use std::fmt::Write;

use rosepolly::model::expr::Expr;

use crate::device::Dialect;
use crate::group_sums;
use crate::ir::{acc, hit, Private};

/// The lanes of an entry: a warp of an NVIDIA GPU.
pub const WIDTH: usize = 32;

/// The steps of the combination: `WIDTH / 2, ..., 1`.
fn steps() -> impl Iterator<Item = usize> {
    (0..WIDTH.trailing_zeros()).rev().map(|k| 1usize << k)
}

/// Lines at the top of a pass over the entries (inside the walk's loop, before the partial
/// results): the entry of this work-item, whether it has one (`polyc_in`), its lane and the
/// mapped iterators (`vars[j] = origins[j] + u[j]`), and whether the lane groups can combine.
pub fn head(wave: &Expr, vars: &[String], origins: &[String]) -> Vec<String> {
    let mut lines = vec![
        "const long polyc_r = polyc_r0 + polyc_lid;".to_string(),
        format!(
            "const int polyc_in = polyc_r < polyc_th_off[{wave} + 1] && polyc_th[polyc_r] >= 0;"
        ),
        format!(
            "const long polyc_lane = polyc_in ? polyc_th[{} * polyc_th_stride + polyc_r] : 0;",
            vars.len()
        ),
        format!("const int polyc_tree = polyc_wg % {WIDTH} == 0;"),
        "(void)polyc_lane; (void)polyc_tree;".to_string(),
    ];
    for (j, (v, o)) in vars.iter().zip(origins).enumerate() {
        lines.push(format!(
            "const long {v} = {o} + (polyc_in ? polyc_th[{j} * polyc_th_stride + polyc_r] : 0);"
        ));
    }
    lines
}

/// The local arrays of the lane groups' partial results of `privates` (OpenCL only; CUDA
/// shuffles registers), at the kernel's scope: one pair per slot and type.
pub fn local_arrays(dialect: Dialect, privates: &[Private]) -> String {
    if dialect != Dialect::OpenCl {
        return String::new();
    }
    let mut seen: Vec<(usize, &str)> = Vec::new();
    let mut out = String::new();
    for p in privates {
        let key = (p.slot, p.update.elem.as_str());
        if seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let (values, flags) = arrays(p);
        let _ = writeln!(
            out,
            "__local {} {values}[{}]; __local int {flags}[{}];",
            p.update.elem,
            crate::group_sums::ITEMS,
            crate::group_sums::ITEMS
        );
    }
    out
}

/// Slot `p.slot`'s local arrays for its type: the lanes' partial results and their flags.
fn arrays(p: &Private) -> (String, String) {
    let ty: String = p
        .update
        .elem
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    (
        format!("polyc_lr{}_{ty}", p.slot),
        format!("polyc_lh{}_{ty}", p.slot),
    )
}

/// Lines after a pass's entry: the lane groups' combination of `privates`, then lane 0's
/// atomic update of each accumulator (`targets`, device lvalues in `privates`' order).
/// `barrier`: the work-group's (empty for a kernel of one work-item per work-group, which
/// combines nothing).
pub fn close(
    dialect: Dialect,
    privates: &[Private],
    targets: &[Expr],
    barrier: &str,
) -> Vec<String> {
    let mut lines = Vec::new();
    if !barrier.is_empty() {
        match dialect {
            Dialect::Cuda => shuffles(privates, &mut lines),
            Dialect::OpenCl => tree(privates, barrier, &mut lines),
        }
    }
    let combined = !barrier.is_empty();
    for (p, target) in privates.iter().zip(targets) {
        let (mine, flag) = match (dialect, combined) {
            (Dialect::OpenCl, true) => {
                let (values, flags) = arrays(p);
                (
                    format!("(polyc_tree ? {values}[polyc_lid] : {})", acc(p.slot)),
                    format!("(polyc_tree ? {flags}[polyc_lid] : {})", hit(p.slot)),
                )
            }
            _ => (acc(p.slot), hit(p.slot)),
        };
        // Lane 0 alone adds a combined row; without the combination, every lane its own.
        let lane = if combined {
            " && (!polyc_tree || polyc_lane == 0)"
        } else {
            ""
        };
        // One condition per update (see `crate::group_sums`: PoCL ran two compare-and-swap
        // loops in one conditional after a barrier forever).
        lines.push(format!(
            "if (polyc_in{lane} && {flag}) {}(&{target}, {mine});",
            p.update.helper()
        ));
    }
    lines
}

/// CUDA: each step adds the partial result `step` lanes up; lane 0 ends with the entry's.
/// Lanes past the warp's end read their own value, which lane 0's sum never takes.
fn shuffles(privates: &[Private], lines: &mut Vec<String>) {
    lines.push("if (polyc_tree) {".into());
    for p in privates {
        let (mine, flag) = (acc(p.slot), hit(p.slot));
        let merge = group_sums::merge(Dialect::Cuda, p, (&mine, &flag), ("polyc_v", "polyc_h"));
        for step in steps() {
            lines.push(format!(
                "  {{ const {} polyc_v = __shfl_down_sync(0xffffffffu, {mine}, {step}); const int polyc_h = __shfl_down_sync(0xffffffffu, {flag}, {step}); {merge} }}",
                p.update.elem
            ));
        }
    }
    lines.push("}".into());
}

/// OpenCL: the lanes' results in local memory, halved pairwise within each lane group, a
/// barrier after every step (outside any conditional: every work-item reaches it).
fn tree(privates: &[Private], barrier: &str, lines: &mut Vec<String>) {
    for p in privates {
        let (values, flags) = arrays(p);
        lines.push(group_sums::store(p, &values, &flags));
    }
    lines.push(barrier.to_string());
    for step in steps() {
        lines.push(format!(
            "if (polyc_tree && polyc_lid % {WIDTH} < {step}) {{"
        ));
        for p in privates {
            let (values, flags) = arrays(p);
            let step = group_sums::halving(Dialect::OpenCl, p, &values, &flags, step);
            lines.push(format!("  {step}"));
        }
        lines.push("}".into());
        lines.push(barrier.to_string());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::group_sums::tests::dot as row_sum;

    #[test]
    fn lane_groups_combine_in_five_steps_then_lane_zero_adds() {
        let target = [Expr::var("tmp[c1]")];
        let cl = close(Dialect::OpenCl, &[row_sum()], &target, "BARRIER;");
        assert_eq!(cl.iter().filter(|l| *l == "BARRIER;").count(), 6);
        assert!(cl.contains(&"if (polyc_tree && polyc_lid % 32 < 16) {".to_string()));
        assert!(cl.contains(&"if (polyc_tree && polyc_lid % 32 < 1) {".to_string()));
        assert_eq!(
            cl.last().unwrap(),
            "if (polyc_in && (!polyc_tree || polyc_lane == 0) && (polyc_tree ? polyc_lh0_double[polyc_lid] : polyc_hit0)) polyc_atomic_add_double(&tmp[c1], (polyc_tree ? polyc_lr0_double[polyc_lid] : polyc_acc0));"
        );
        let cuda = close(Dialect::Cuda, &[row_sum()], &target, "__syncthreads();");
        assert!(!cuda.iter().any(|l| l.contains("__syncthreads")));
        assert_eq!(
            cuda.iter()
                .filter(|l| l.contains("__shfl_down_sync"))
                .count(),
            5
        );
        assert!(cuda[1].contains("__shfl_down_sync(0xffffffffu, polyc_acc0, 16)"));
        // A kernel of one work-item per work-group: every lane adds its own result.
        let serial = close(Dialect::OpenCl, &[row_sum()], &target, "");
        assert_eq!(
            serial,
            vec!["if (polyc_in && polyc_hit0) polyc_atomic_add_double(&tmp[c1], polyc_acc0);"]
        );
        assert_eq!(
            local_arrays(Dialect::OpenCl, &[row_sum(), row_sum()]),
            "__local double polyc_lr0_double[256]; __local int polyc_lh0_double[256];\n"
        );
        assert_eq!(local_arrays(Dialect::Cuda, &[row_sum()]), "");
    }

    #[test]
    fn the_head_reads_the_lane_from_the_buckets_last_row() {
        let h = head(&Expr::int(0), &["c1".into()], &["polyc_b0".into()]);
        assert!(h.contains(
            &"const long polyc_lane = polyc_in ? polyc_th[1 * polyc_th_stride + polyc_r] : 0;"
                .to_string()
        ));
        assert!(h.contains(
            &"const long c1 = polyc_b0 + (polyc_in ? polyc_th[0 * polyc_th_stride + polyc_r] : 0);"
                .to_string()
        ));
    }
}
