//! Where the host launches what it held back: after the loops that run a group alone (its
//! tile bucket's batch), and after the SCoP, or the loops, that mix several groups.
//!
//! A tile bucket batches the small wavefronts of one group only, and is flushed before any
//! other group launches, so a host loop that calls several groups per iteration (durbin's
//! `k`: seven, adi's `t`: fourteen; ludcmp's rows, gramschmidt's columns) launched once per
//! group and iteration, however little each launch did. Their groups' small wavefronts go to
//! one run-time *mix* instead, in the order the host ends them, and the mix kernel runs them
//! on one work-group; the mix is flushed after the part of the host tree it covers: the whole
//! SCoP where every group can join, else each outermost host loop whose groups can.

use rosepolly::syntax::Node;

use crate::ir::{GroupCode, ScopIr};

/// The groups of each mix of `ir`, each in the order the host first calls them: of the whole
/// host tree, or else of the outermost host loops, that call two groups or more, none of which
/// is called outside it or combines partial results per work-group or lane group (its local
/// arrays are sized for its own work-groups, and its lanes need whole lane groups).
pub fn mixes(ir: &ScopIr) -> Vec<Vec<usize>> {
    let eligible = |g: usize| !matches!(&ir.groups[g].code, GroupCode::Tiled(t) if !t.combined.is_empty() || t.lanes > 0);
    let mut out = Vec::new();
    find(&ir.host, &ir.host, &eligible, &mut out);
    out
}

fn find(n: &Node, root: &Node, eligible: &dyn Fn(usize) -> bool, out: &mut Vec<Vec<usize>>) {
    let groups = n.statements();
    let alone = groups.iter().all(|&g| calls(n, g) == calls(root, g));
    let mixable = matches!(n, Node::For(_)) || std::ptr::eq(n, root);
    if mixable && groups.len() >= 2 && alone && groups.iter().all(|&g| eligible(g)) {
        out.push(groups);
        return;
    }
    match n {
        Node::For(l) => find(&l.body, root, eligible, out),
        Node::Block(v) => v.iter().for_each(|c| find(c, root, eligible, out)),
        Node::If { then, other, .. } => {
            find(then, root, eligible, out);
            if let Some(o) = other {
                find(o, root, eligible, out);
            }
        }
        Node::User { .. } => {}
    }
}

/// How many calls of group `g` the tree `n` has.
fn calls(n: &Node, g: usize) -> usize {
    match n {
        Node::Block(v) => v.iter().map(|c| calls(c, g)).sum(),
        Node::For(l) => calls(&l.body, g),
        Node::If { then, other, .. } => calls(then, g) + other.as_ref().map_or(0, |o| calls(o, g)),
        Node::User { stmt, .. } => usize::from(*stmt == g),
    }
}

/// The mix group `g` belongs to, and its position there.
pub fn place(mixes: &[Vec<usize>], g: usize) -> Option<(usize, usize)> {
    mixes
        .iter()
        .enumerate()
        .find_map(|(m, groups)| groups.iter().position(|&x| x == g).map(|p| (m, p)))
}

/// The mix whose tree (a loop, or the whole host tree) `n` is, if it is one.
pub fn covered_by(mixes: &[Vec<usize>], n: &Node) -> Option<usize> {
    let groups = n.statements();
    mixes.iter().position(|m| *m == groups)
}

/// The name of mix `m`'s kernel in SCoP `scop`.
pub fn kernel_name(scop: usize, m: usize) -> String {
    format!("polyc_k{scop}_mix{m}")
}

/// A flush point in the host tree of a SCoP of `groups` groups: a call of `groups + g`
/// launches group `g`'s batch, of `2 * groups + m` mix `m`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flush {
    Batch(usize),
    Mix(usize),
}

impl Flush {
    /// The flush a call of `stmt` is, if it is one.
    pub fn of(stmt: usize, groups: usize) -> Option<Flush> {
        match stmt.checked_sub(groups) {
            None => None,
            Some(g) if g < groups => Some(Flush::Batch(g)),
            Some(m) => Some(Flush::Mix(m - groups)),
        }
    }

    fn call(self, groups: usize) -> Node {
        let stmt = match self {
            Flush::Batch(g) => groups + g,
            Flush::Mix(m) => 2 * groups + m,
        };
        Node::User {
            stmt,
            args: Vec::new(),
        }
    }
}

/// The host tree `host` of a SCoP of `groups` groups with its flush points: after each mix's
/// loop, and after each largest subtree outside them that calls group `g` alone, so that no
/// other group's launch comes between a batch's tiles and their launch, and a batch spans the
/// iterations of the host loops that run that group alone (floyd-warshall's `k`, a triangular
/// solve's rows).
pub fn with_flushes(host: &Node, groups: usize, mixes: &[Vec<usize>]) -> Node {
    let after = |f: Flush| Node::Block(vec![host.clone(), f.call(groups)]);
    if let Some(m) = covered_by(mixes, host) {
        return after(Flush::Mix(m));
    }
    if let [g] = host.statements()[..] {
        return after(Flush::Batch(g));
    }
    let inner = |n: &Node| Box::new(with_flushes(n, groups, mixes));
    match host {
        Node::Block(v) => Node::Block(v.iter().map(|n| *inner(n)).collect()),
        Node::For(l) => {
            let mut l = l.clone();
            l.body = inner(&l.body);
            Node::For(l)
        }
        Node::If { cond, then, other } => Node::If {
            cond: cond.clone(),
            then: inner(then),
            other: other.as_ref().map(|o| inner(o)),
        },
        Node::User { .. } => host.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rosepolly::model::expr::Expr;
    use rosepolly::syntax::Loop;

    fn call(g: usize) -> Node {
        Node::User {
            stmt: g,
            args: Vec::new(),
        }
    }

    fn for_(body: Node) -> Node {
        Node::For(Loop {
            iterator: "c0".into(),
            dim: 0,
            init: Expr::int(0),
            cond: Expr::int(1),
            step: 1,
            body: Box::new(body),
            parallel: false,
            otl: false,
        })
    }

    fn found(host: &Node, eligible: &dyn Fn(usize) -> bool) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        find(host, host, eligible, &mut out);
        out
    }

    #[test]
    fn the_whole_scop_is_one_mix_where_every_group_can_join() {
        let all = |_| true;
        // { for { 0; for { 1; 2 } } ; 1 }: the root, group 1 being called twice.
        let host = Node::Block(vec![
            for_(Node::Block(vec![
                call(0),
                for_(Node::Block(vec![call(1), call(2)])),
            ])),
            call(1),
        ]);
        assert_eq!(found(&host, &all), vec![vec![0, 1, 2]]);
        assert_eq!(covered_by(&[vec![0, 1, 2]], &host), Some(0));
        assert_eq!(place(&[vec![0, 1, 2]], 2), Some((0, 2)));
        // A SCoP of one group has a tile bucket's batch, not a mix.
        assert!(found(&for_(call(0)), &all).is_empty());
        assert!(found(&Node::Block(vec![call(0), call(0)]), &all).is_empty());
    }

    #[test]
    fn else_the_outermost_loops_whose_groups_all_join() {
        // Group 4 combines partial results: the root cannot mix. Group 1 is called in and
        // after the first loop, so the first loop's inner loop of 2 and 3 is the mix; the
        // second loop (5, 6) is another.
        let host = Node::Block(vec![
            call(4),
            for_(Node::Block(vec![
                call(1),
                for_(Node::Block(vec![call(2), call(3)])),
            ])),
            call(1),
            for_(Node::Block(vec![call(5), call(6)])),
        ]);
        assert_eq!(found(&host, &|g| g != 4), vec![vec![2, 3], vec![5, 6]]);
        // Group 3 cannot join either: its loop does not mix.
        assert_eq!(found(&host, &|g| g != 4 && g != 3), vec![vec![5, 6]]);
    }

    /// The calls of `n` in order, flush points as `F<g>` and `M<m>`.
    fn flushed(n: &Node, groups: usize) -> String {
        match n {
            Node::Block(v) => v.iter().map(|c| flushed(c, groups)).collect(),
            Node::For(l) => format!("for({})", flushed(&l.body, groups)),
            Node::If { then, .. } => format!("if({})", flushed(then, groups)),
            Node::User { stmt, .. } => match Flush::of(*stmt, groups) {
                Some(Flush::Batch(g)) => format!("F{g} "),
                Some(Flush::Mix(m)) => format!("M{m} "),
                None => format!("{stmt} "),
            },
        }
    }

    #[test]
    fn a_batch_is_flushed_after_the_loops_that_run_its_group_alone() {
        // { 0 ; for { 1 } ; for { for { 1 } } } ; for { 2 }
        let host = Node::Block(vec![
            Node::Block(vec![call(0), for_(call(1)), for_(for_(call(1)))]),
            for_(call(2)),
        ]);
        assert_eq!(
            flushed(&with_flushes(&host, 3, &[]), 3),
            "0 F0 for(1 )F1 for(for(1 ))F1 for(2 )F2 "
        );
        // A SCoP of one group: one flush, at the end.
        assert_eq!(
            flushed(&with_flushes(&for_(call(0)), 1, &[]), 1),
            "for(0 )F0 "
        );
    }

    #[test]
    fn a_mix_is_flushed_after_its_tree_and_its_groups_batch_nothing() {
        // for { 0; for { 1 } } ; for { 2 }, group 2 unable to join: the first loop is mix 0.
        let host = Node::Block(vec![
            for_(Node::Block(vec![call(0), for_(call(1))])),
            for_(call(2)),
        ]);
        let mixes = found(&host, &|g| g != 2);
        assert_eq!(mixes, vec![vec![0, 1]]);
        assert_eq!(
            flushed(&with_flushes(&host, 3, &mixes), 3),
            "for(0 for(1 ))M0 for(2 )F2 "
        );
        // Every group able to join: one mix, flushed at the end.
        let mixes = found(&host, &|_| true);
        assert_eq!(
            flushed(&with_flushes(&host, 3, &mixes), 3),
            "for(0 for(1 ))for(2 )M0 "
        );
    }
}
