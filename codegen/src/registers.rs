//! Register tiles of full tiles on the C target: a block of instances of one statement keeps
//! the elements it assigns in a local array, which the C compiler holds in registers, for the
//! whole of the loop along which those elements stay the same.
//!
//! In a full tile of gemm, `for c0, for c2, for c1: C[c0][c1] += alpha * A[c0][c2] * B[c2][c1]`
//! loads and stores `C[c0][c1]` at every instance: a store per multiply-add, which bounds the
//! core at half its rate; in syr2k's, `c2` innermost, every instance waits for the previous
//! one's store. gcc does not keep the element in a register across `c2` itself, even with
//! `restrict`. Here the tile runs the two loops the element depends on by blocks; each block
//! loads its elements once, runs the whole `c2` loop on them, and stores them once. gemm's
//! blocks are two rows of vectors (`c1` innermost, unit-stride), syr2k's 4x2 scalars: gemm
//! 1.6x, syr2k 3x faster per core (LARGE; `docs/decisions.md`, "Register tiles").
//!
//! The rewrite is legal whatever the schedule, by the shape of the nest alone:
//! - the nest is three loops, each a tile dimension's whole range, around one statement,
//!   which writes one element of one array;
//! - that element does not depend on one of the loops (the reduction loop), and different
//!   points of a block assign different elements (its subscripts are affine and injective in
//!   the other two loop variables);
//! - the statement reads the array nowhere but at that element.
//!
//! The other data the statement reads, nothing in the nest writes. So each element sees
//! exactly its own updates, in the reduction loop's order (the same values to the last bit),
//! and nothing else reads it in between.

use std::collections::BTreeMap;

use rosepolly::model::expr::{BinaryOp, Expr, UnaryOp};
use rosepolly::syntax::to_affine;

use crate::c::statement_instance;
use crate::ir::{origin, size, KLoop, KNode, ScopData};

/// The shape of a register block: `rows` instances along its outer loop, `cols` along its
/// inner one.
///
/// Measured on gemm LARGE (one thread, gcc 12, `-O3 -march=native -ffp-contract=off`,
/// polyc's flags), where the block's rows are vectors: 170 ms without blocks; blocks of 2x16
/// doubles 110 ms, 4x16 116 ms, 1x16 122 ms, 2x8 127 ms, 4x4 162 ms, 3x8 184 ms, 4x8 211 ms
/// (gcc's SLP vectoriser leaves half of a 4x8 block scalar). On syr2k LARGE, whose element
/// is the same along the innermost loop and whose rows are scalars: 595 ms without blocks,
/// 4x2 188 ms, 2x2 198 ms, 8x2 199 ms, 1x1 265 ms, 4x4 243 ms.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub rows: i64,
    pub cols: i64,
}

/// Blocks whose rows the C compiler vectorises (the inner loop the innermost, every access
/// along it unit-stride): two rows of 128 bytes, eight AVX2 registers. None for an element
/// type this does not know.
pub fn vector_shape(elem: &str) -> Option<Shape> {
    let bytes = match elem {
        "double" | "long" | "long int" | "unsigned long" | "long long" => 8,
        "float" | "int" | "unsigned" | "unsigned int" => 4,
        _ => return None,
    };
    Some(Shape {
        rows: 2,
        cols: 128 / bytes,
    })
}

/// Blocks of scalars: eight independent chains of updates.
pub const SCALAR_SHAPE: Shape = Shape { rows: 4, cols: 2 };

/// The rows of a block of a two-loop nest (a matrix-vector product's `tmp[i] += A[i][j] *
/// x[j]`, `j` innermost): independent chains of updates, where the original order waits for
/// each addition before the next.
pub const ROW_BLOCK: i64 = 8;

/// The loop variable a two-loop nest lacks, where the matching takes three (no C name).
const NO_LOOP: &str = "";

/// A loop of a register tile: its variable runs over a tile dimension's points
/// (`origin .. origin + size`) by blocks of `block` (1 for the reduction loop).
#[derive(Debug, Clone, PartialEq)]
pub struct BlockLoop {
    /// The nest's loop variable (the statement's instance names it).
    pub var: String,
    /// The tile dimension.
    pub dim: usize,
    pub block: i64,
}

/// A nest of a full tile rewritten into register blocks (see the module's documentation):
/// the blocks walk the loops the assigned element depends on (`outer`, `inner`, in the
/// nest's order; a nest of two loops has no `inner`); in each block, `reduction`, the loop
/// the element does not depend on, runs around the block's instances.
#[derive(Debug, Clone, PartialEq)]
pub struct RegisterTile {
    pub outer: BlockLoop,
    /// The loop along which the block's elements stay, run whole inside each block.
    pub reduction: BlockLoop,
    pub inner: Option<BlockLoop>,
    pub stmt: usize,
    pub args: Vec<Expr>,
    /// The C type of the elements the block holds.
    pub elem: String,
    /// Conditions on the tile under which the statement's reads of other elements of the
    /// array miss every element the blocks hold (`apart`; none where it reads no other).
    pub apart: Vec<Expr>,
}

/// The full tile's code with each nest that qualifies run by register blocks, under a test
/// that the sizes of the tile dimensions it blocks are multiples of the block's (the nest as
/// it was otherwise). `inner`: the tile dimension of the innermost loops; `inner_size`: its
/// size where it is a constant in this copy of the code (the test is then made here).
pub fn apply(code: KNode, data: &ScopData, inner: usize, inner_size: Option<i64>) -> KNode {
    if let Some(tile) = register_tile(&code, data, inner, inner_size) {
        let multiple = |b: &BlockLoop| {
            Expr::binary(
                BinaryOp::Eq,
                Expr::binary(BinaryOp::Mod, Expr::var(size(b.dim)), Expr::int(b.block)),
                Expr::int(0),
            )
        };
        // The constant size was checked here.
        let tests = [Some(&tile.outer), tile.inner.as_ref()]
            .into_iter()
            .flatten()
            .filter(|b| b.dim != inner || inner_size.is_none())
            .map(multiple)
            .chain(tile.apart.iter().cloned());
        return KNode::If {
            cond: Expr::all(tests),
            then: Box::new(KNode::Registers(Box::new(tile))),
            other: Some(Box::new(code)),
        };
    }
    code.map_children(&mut |c| apply(c, data, inner, inner_size))
}

/// The statements whose nests in a full tile's `code` run by register blocks (at some
/// sizes), each with whether its blocks are rows of a two-loop nest.
pub fn blocked(code: &KNode, data: &ScopData, inner: usize) -> Vec<(usize, bool)> {
    fn note(n: &KNode, out: &mut Vec<(usize, bool)>) {
        if let KNode::Registers(t) = n {
            out.push((t.stmt, t.inner.is_none()));
        }
        n.children().into_iter().for_each(|c| note(c, out));
    }
    let mut out = Vec::new();
    note(&apply(code.clone(), data, inner, None), &mut out);
    out
}

/// `n` as a register tile, when it is a nest that qualifies.
fn register_tile(
    n: &KNode,
    data: &ScopData,
    inner: usize,
    inner_size: Option<i64>,
) -> Option<RegisterTile> {
    let KNode::For(l0) = n else { return None };
    let KNode::For(l1) = single(&l0.body) else {
        return None;
    };
    let l2 = match single(&l1.body) {
        KNode::For(l2) => l2,
        KNode::Stmt { stmt, args } => {
            return row_tile([l0, l1], (*stmt, args), data, inner, inner_size)
        }
        _ => return None,
    };
    let KNode::Stmt { stmt, args } = single(&l2.body) else {
        return None;
    };
    // Every loop a tile dimension's whole range: the reduction loop runs (a block that
    // loaded and stored its elements without updating them could undo another thread's
    // update), and no loop's bounds depend on another's variable.
    let loops = [l0, l1, l2];
    let dims: Vec<usize> = loops
        .iter()
        .map(|l| tile_dimension(l))
        .collect::<Option<_>>()?;
    let vars = loops.map(|l| l.var.as_str());
    let held = held_element(data, *stmt, args, vars)?;
    let r = held.reduction;
    let (a, b) = match r {
        0 => (1, 2),
        1 => (0, 2),
        _ => (0, 1),
    };
    // Vector rows where they fit, else scalars; a shape whose points would share an element
    // (a flat subscript whose rows a block overlaps) is not one.
    let vector = vector_shape(&held.elem)
        .filter(|v| b == 2 && held.unit_stride && inner_size.is_none_or(|n| n % v.cols == 0));
    let shape = vector
        .into_iter()
        .chain([SCALAR_SHAPE])
        .find(|&shape| injective(&held.coeffs, (a, b), shape))?;
    let block = |k: usize, block: i64| BlockLoop {
        var: vars[k].to_string(),
        dim: dims[k],
        block,
    };
    let (outer, inner_block) = (block(a, shape.rows), block(b, shape.cols));
    if [&outer, &inner_block]
        .iter()
        .any(|x| x.dim == inner && inner_size.is_some_and(|n| n % x.block != 0))
    {
        return None;
    }
    Some(RegisterTile {
        outer,
        reduction: block(r, 1),
        inner: Some(inner_block),
        stmt: *stmt,
        args: args.clone(),
        apart: apart(&held, vars, &dims),
        elem: held.elem,
    })
}

/// A nest of two loops as a register tile, when its statement's element does not depend on
/// the inner loop: blocks of [`ROW_BLOCK`] rows along the outer one, the inner loop run whole
/// inside each. (An element that does not depend on the outer loop moves along the innermost,
/// which the C compiler vectorises as it is.)
fn row_tile(
    [l0, l1]: [&KLoop; 2],
    (stmt, args): (usize, &[Expr]),
    data: &ScopData,
    inner: usize,
    inner_size: Option<i64>,
) -> Option<RegisterTile> {
    let (d0, d1) = (tile_dimension(l0)?, tile_dimension(l1)?);
    let vars = [l0.var.as_str(), l1.var.as_str(), NO_LOOP];
    let held = held_element(data, stmt, args, vars)?;
    let rows = Shape {
        rows: ROW_BLOCK,
        cols: 1,
    };
    if held.reduction != 1 || !injective(&held.coeffs, (0, 2), rows) {
        return None;
    }
    if d0 == inner && inner_size.is_some_and(|n| n % ROW_BLOCK != 0) {
        return None;
    }
    Some(RegisterTile {
        outer: BlockLoop {
            var: l0.var.clone(),
            dim: d0,
            block: ROW_BLOCK,
        },
        reduction: BlockLoop {
            var: l1.var.clone(),
            dim: d1,
            block: 1,
        },
        inner: None,
        stmt,
        args: args.to_vec(),
        apart: apart(&held, vars, &[d0, d1]),
        elem: held.elem,
    })
}

/// A block's only node, or the node itself.
fn single(n: &KNode) -> &KNode {
    match n {
        KNode::Block(v) if v.len() == 1 => single(&v[0]),
        other => other,
    }
}

/// The tile dimension `k` a loop runs over whole, `for (v = o_k; v < o_k + T_k; v++)` (a
/// full tile's loop, at least one iteration).
fn tile_dimension(l: &KLoop) -> Option<usize> {
    let Expr::Var(init) = &l.init else {
        return None;
    };
    let k: usize = init.strip_prefix("polyc_o")?.parse().ok()?;
    let Expr::Binary {
        op: BinaryOp::Lt,
        lhs,
        rhs,
    } = &l.cond
    else {
        return None;
    };
    let bound = to_affine(rhs)?.linear()?;
    let expected = BTreeMap::from([(origin(k), 1), (size(k), 1)]);
    (l.step == 1 && **lhs == Expr::var(&l.var) && bound.constant == 0 && bound.coeffs == expected)
        .then_some(k)
}

/// What a register block holds of a nest's statement.
struct Held {
    /// The position in the nest of the loop the element does not depend on.
    reduction: usize,
    /// Per subscript of the element, the coefficients of the nest's loop variables.
    coeffs: Vec<[i64; 3]>,
    /// Its C type.
    elem: String,
    /// Whether every access walks memory by one element, or not at all, along the
    /// innermost loop.
    unit_stride: bool,
    /// The element's subscripts.
    element: Vec<Expr>,
    /// The subscripts of the statement's other accesses to the same array (reads of other
    /// elements), each affine in the nest's loop variables.
    others: Vec<Vec<Expr>>,
}

/// The element statement `stmt`'s instance at `args` assigns in a nest of loops over `vars`,
/// when a register block can hold it: the element does not depend on one of the loops, the
/// subscripts are affine in the loops' variables (a block's points must then assign
/// different elements, [`injective`]), and the statement's other accesses to the array have
/// affine subscripts too (the tile must then keep them apart from the elements it assigns,
/// [`apart`]).
fn held_element(data: &ScopData, stmt: usize, args: &[Expr], vars: [&str; 3]) -> Option<Held> {
    let instance = statement_instance(data, stmt, args, false);
    let Expr::Assign { lhs, .. } = &instance else {
        return None;
    };
    let Expr::Index { array, subscripts } = lhs.as_ref() else {
        return None;
    };
    let coeffs: Vec<[i64; 3]> = subscripts
        .iter()
        .map(|s| coefficients(s, vars))
        .collect::<Option<_>>()?;
    let reduction = (0..3).find(|&k| coeffs.iter().all(|c| c[k] == 0))?;
    let mut others = Vec::new();
    let mut unit_stride = true;
    instance.walk(&mut |e| {
        if let Expr::Index {
            array: name,
            subscripts,
        } = e
        {
            if name == array && e != lhs.as_ref() {
                others.push(subscripts.clone());
            }
            unit_stride &= walks_by_one(subscripts, vars);
        }
    });
    let affine = |s: &Vec<Expr>| s.iter().all(|x| coefficients(x, vars).is_some());
    if !others.iter().all(affine) || others.iter().any(|o| o.len() != subscripts.len()) {
        return None;
    }
    let elem = data.printed_datum(array)?.elem.clone();
    Some(Held {
        reduction,
        coeffs,
        elem,
        unit_stride,
        element: subscripts.clone(),
        others,
    })
}

/// The run-time conditions under which the elements a tile's blocks assign are none of those
/// its other accesses to the array read: per other access, some subscript whose range over
/// the tile lies wholly before or after the element's. Each loop `vars[k]` runs over tile
/// dimension `dims[k]`'s whole range, so a subscript's least and greatest values are at the
/// range's ends. In a full tile of trisolv, `x[c0] -= L[c0][c1] * x[c1]` holds `c1 < c0`
/// at every point, so `c1`'s range ends before `c0`'s begins.
fn apart(held: &Held, vars: [&str; 3], dims: &[usize]) -> Vec<Expr> {
    let end = |e: &Expr, high: bool| {
        let c = coefficients(e, vars).expect("an affine subscript");
        e.map(&mut |x| match &x {
            Expr::Var(v) => match vars.iter().position(|w| w == v) {
                Some(k) if (c[k] >= 0) == high => Expr::binary(
                    BinaryOp::Sub,
                    Expr::binary(
                        BinaryOp::Add,
                        Expr::var(origin(dims[k])),
                        Expr::var(size(dims[k])),
                    ),
                    Expr::int(1),
                ),
                Some(k) => Expr::var(origin(dims[k])),
                None => x,
            },
            _ => x,
        })
    };
    let before = |a: &Expr, b: &Expr| Expr::binary(BinaryOp::Lt, end(a, true), end(b, false));
    held.others
        .iter()
        .map(|other| {
            let sides = other
                .iter()
                .zip(&held.element)
                .flat_map(|(o, e)| [before(o, e), before(e, o)]);
            sides
                .reduce(|a, b| Expr::binary(BinaryOp::Or, a, b))
                .expect("an element has subscripts")
        })
        .collect()
}

/// The coefficients of `vars` in the subscript `e`, when it is affine in them: a sum of
/// multiples of them (by integer literals) and of terms without them (`c1 * nq`, an outer
/// loop's variable times a parameter, in an expanded array's flat subscript).
pub(crate) fn coefficients(e: &Expr, vars: [&str; 3]) -> Option<[i64; 3]> {
    let mut free = true;
    e.walk(&mut |x| free &= !matches!(x, Expr::Var(v) if vars.contains(&v.as_str())));
    if free {
        return Some([0; 3]);
    }
    let combine = |a: [i64; 3], b: [i64; 3], k: i64| {
        Some([
            a[0].checked_add(b[0].checked_mul(k)?)?,
            a[1].checked_add(b[1].checked_mul(k)?)?,
            a[2].checked_add(b[2].checked_mul(k)?)?,
        ])
    };
    match e {
        Expr::Var(v) => {
            let k = vars.iter().position(|x| x == v)?;
            let mut c = [0; 3];
            c[k] = 1;
            Some(c)
        }
        Expr::Unary {
            op: UnaryOp::Neg,
            operand,
        } => combine([0; 3], coefficients(operand, vars)?, -1),
        Expr::Binary { op, lhs, rhs } => match (op, lhs.as_ref(), rhs.as_ref()) {
            (BinaryOp::Add, l, r) => combine(coefficients(l, vars)?, coefficients(r, vars)?, 1),
            (BinaryOp::Sub, l, r) => combine(coefficients(l, vars)?, coefficients(r, vars)?, -1),
            (BinaryOp::Mul, l, r) => match (literal(l), literal(r)) {
                (Some(k), None) => combine([0; 3], coefficients(r, vars)?, k),
                (None, Some(k)) => combine([0; 3], coefficients(l, vars)?, k),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// The value of an integer literal, or of one cast to a type that holds it (`(long)160`).
pub(crate) fn literal(e: &Expr) -> Option<i64> {
    match e {
        Expr::Int { value, .. } => Some(*value),
        Expr::Cast { ty, expr } if matches!(ty.as_str(), "long" | "int") => {
            literal(expr).filter(|v| i32::try_from(*v).is_ok())
        }
        _ => None,
    }
}

/// Whether the points of a block of `rows` x `cols` along the nest's loops `a` and `b`
/// assign different elements: no nonzero step within the block leaves every subscript the
/// same.
fn injective(coeffs: &[[i64; 3]], (a, b): (usize, usize), shape: Shape) -> bool {
    let steps = |n: i64| -(n - 1)..n;
    steps(shape.rows).all(|da| {
        steps(shape.cols)
            .all(|db| (da, db) == (0, 0) || coeffs.iter().any(|c| c[a] * da + c[b] * db != 0))
    })
}

/// Whether an access with these subscripts walks memory by one element as `var` grows, or
/// not at all: `var` only in the last subscript, with coefficient 1. Otherwise the C compiler
/// gathers a vector block's row element by element, and it loses to a block of scalars
/// (syrk's `A[c1][c2]`, `c1` innermost, LARGE, one thread: 160 ms without blocks, 2x16
/// 243 ms, 4x2 scalars 123 ms).
fn walks_by_one(subscripts: &[Expr], vars: [&str; 3]) -> bool {
    let along = |s: &Expr| coefficients(s, vars).map(|c| c[2]);
    let Some((last, rest)) = subscripts.split_last() else {
        return true;
    };
    rest.iter().all(|s| along(s) == Some(0)) && matches!(along(last), Some(0 | 1))
}

impl RegisterTile {
    /// The tile's C code, one line per item, indented from 0 (host code; `ty` is the type of
    /// loop variables).
    pub fn lines(&self, scop: &ScopData, ty: &str) -> Vec<String> {
        let r = &self.reduction;
        // The blocked loops, outermost first, each with the variable of its block's start.
        let blocked: Vec<(&BlockLoop, String)> = [Some(&self.outer), self.inner.as_ref()]
            .into_iter()
            .flatten()
            .map(|l| (l, format!("polyc_rb{}", l.dim)))
            .collect();
        let n = blocked.len();
        let instance = statement_instance(scop, self.stmt, &self.args, false);
        let target = crate::c::assigned(&instance).clone();
        let reg = Expr::Index {
            array: "polyc_reg".into(),
            subscripts: blocked
                .iter()
                .map(|(l, b)| Expr::binary(BinaryOp::Sub, Expr::var(&l.var), Expr::var(b)))
                .collect(),
        };
        let update = instance.map(&mut |x| if x == target { reg.clone() } else { x });
        // `for (ty var = from; var < from + count; var += step)`
        let header = |var: &str, from: &str, count: &str, step: i64| {
            let step = if step == 1 {
                "++".to_string()
            } else {
                format!(" += {step}")
            };
            format!("for ({ty} {var} = {from}; {var} < {from} + {count}; {var}{step})")
        };
        let whole = |l: &BlockLoop, var: &str| header(var, &origin(l.dim), &size(l.dim), l.block);
        let pad = |d: usize| " ".repeat(2 * d);
        // The block's points around `body`, indented by `depth` levels.
        let points = |body: String, depth: usize| {
            let mut lines: Vec<String> = blocked
                .iter()
                .enumerate()
                .map(|(k, (l, b))| {
                    let head = header(&l.var, b, &l.block.to_string(), 1);
                    format!("{}{head}", pad(depth + k))
                })
                .collect();
            lines.push(format!("{}{body}", pad(depth + n)));
            lines
        };
        let mut out: Vec<String> = blocked
            .iter()
            .enumerate()
            .map(|(k, (l, b))| format!("{}{} {{", pad(k), whole(l, b)))
            .collect();
        let extents: String = blocked
            .iter()
            .map(|(l, _)| format!("[{}]", l.block))
            .collect();
        out.push(format!("{}{} polyc_reg{extents};", pad(n), self.elem));
        out.extend(points(format!("{reg} = {target};"), n));
        out.push(format!("{}{} {{", pad(n), whole(r, &r.var)));
        out.extend(points(format!("{update};"), n + 1));
        out.push(format!("{}}}", pad(n)));
        out.extend(points(format!("{target} = {reg};"), n));
        out.extend((0..n).rev().map(|k| format!("{}}}", pad(k))));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{DatumData, StatementData};
    use rosepolly::model::ctype::IntType;
    use rosepolly::model::expr::AssignOp;
    use rosepolly::model::Casts;

    fn v(name: &str) -> Expr {
        Expr::var(name)
    }
    fn at(array: &str, subscripts: &[&str]) -> Expr {
        Expr::Index {
            array: array.into(),
            subscripts: subscripts.iter().map(|s| v(s)).collect(),
        }
    }
    fn mul(a: Expr, b: Expr) -> Expr {
        Expr::binary(BinaryOp::Mul, a, b)
    }

    /// A SCoP of one statement `lhs += rhs` over iterators i, j, k, and its data.
    fn scop(lhs: Expr, rhs: Expr) -> ScopData {
        let datum = |name: &str| DatumData {
            name: name.into(),
            elem: "double".into(),
            extents: vec![None, None],
            written: name == "C",
            expands: None,
        };
        ScopData {
            params: Vec::new(),
            statements: vec![StatementData {
                body: Expr::Assign {
                    op: AssignOp::Add,
                    lhs: Box::new(lhs),
                    rhs: Box::new(rhs),
                },
                iterators: vec!["i".into(), "j".into(), "k".into()],
                iterator_types: vec![IntType::INT; 3],
                casts: Casts::default(),
            }],
            data: ["A", "B", "C"].into_iter().map(datum).collect(),
        }
    }

    /// `lhs += a * b`, each an array and its subscripts.
    fn product(lhs: (&str, &[&str]), a: (&str, &[&str]), b: (&str, &[&str])) -> ScopData {
        scop(at(lhs.0, lhs.1), mul(at(a.0, a.1), at(b.0, b.1)))
    }

    /// A full tile's loop over tile dimension `k` around `body`.
    fn tile_loop(var: &str, k: usize, body: KNode) -> KNode {
        KNode::For(KLoop {
            var: var.into(),
            init: v(&origin(k)),
            cond: Expr::binary(
                BinaryOp::Lt,
                v(var),
                Expr::binary(BinaryOp::Add, v(&origin(k)), v(&size(k))),
            ),
            step: 1,
            body: Box::new(body),
            parallel: false,
        })
    }

    /// gemm's full tile: c0 (i), c2 (k), c1 (j) innermost, tile dimension 1.
    fn nest() -> KNode {
        let stmt = KNode::Stmt {
            stmt: 0,
            args: vec![v("c0"), v("c1"), v("c2")],
        };
        tile_loop("c0", 0, tile_loop("c2", 2, tile_loop("c1", 1, stmt)))
    }

    fn blocked(data: &ScopData, inner_size: i64) -> bool {
        let code = apply(nest(), data, 1, Some(inner_size));
        code.any(&|n| matches!(n, KNode::Registers(_)))
    }

    /// The test of the sizes and the register tile that `nest()` became.
    fn tile_of(data: &ScopData, inner_size: Option<i64>) -> (String, RegisterTile) {
        match apply(nest(), data, 1, inner_size) {
            KNode::If { cond, then, .. } => match *then {
                KNode::Registers(t) => (cond.to_string(), *t),
                other => panic!("expected a register tile, got {other:?}"),
            },
            other => panic!("expected a test of the sizes, got {other:?}"),
        }
    }

    fn shape(t: &RegisterTile) -> (i64, i64) {
        (t.outer.block, t.inner.as_ref().map_or(1, |i| i.block))
    }

    /// The inner blocked loop of a three-loop register tile.
    fn inner(t: &RegisterTile) -> &BlockLoop {
        t.inner.as_ref().expect("a three-loop tile")
    }

    fn gemm() -> ScopData {
        product(("C", &["i", "j"]), ("A", &["i", "k"]), ("B", &["k", "j"]))
    }

    #[test]
    fn gemm_runs_by_blocks_of_two_rows_of_sixteen_doubles() {
        let data = gemm();
        let KNode::If { other, .. } = apply(nest(), &data, 1, Some(32)) else {
            panic!("expected a test of the sizes");
        };
        assert_eq!(
            other.as_deref(),
            Some(&nest()),
            "the nest as it was otherwise"
        );
        let (cond, tile) = tile_of(&data, Some(32));
        assert_eq!(cond, "polyc_T0 % 2 == 0");
        assert_eq!(shape(&tile), (2, 16));
        assert_eq!(
            (
                tile.outer.dim,
                inner(&tile).dim,
                tile.reduction.var.as_str()
            ),
            (0, 1, "c2")
        );
        let text = tile.lines(&data, "long").join("\n");
        assert!(text.contains("double polyc_reg[2][16];"), "{text}");
        assert!(
            text.contains("polyc_reg[c0 - polyc_rb0][c1 - polyc_rb1] += A[c0][c2] * B[c2][c1];"),
            "{text}"
        );
        assert!(
            text.contains("C[c0][c1] = polyc_reg[c0 - polyc_rb0][c1 - polyc_rb1];"),
            "{text}"
        );
    }

    #[test]
    fn a_size_that_is_not_a_multiple_of_a_vector_row_takes_scalars() {
        assert_eq!(shape(&tile_of(&gemm(), Some(64)).1), (2, 16));
        assert_eq!(shape(&tile_of(&gemm(), Some(24)).1), (4, 2));
        assert!(!blocked(&gemm(), 7));
    }

    #[test]
    fn an_element_every_loop_moves_is_not_held() {
        let data = product(
            ("C", &["i", "j", "k"]),
            ("A", &["i", "k"]),
            ("B", &["k", "j"]),
        );
        assert!(!blocked(&data, 32));
    }

    #[test]
    fn an_element_the_same_along_the_innermost_loop_is_held_by_scalars() {
        // syr2k's order: C[i][k] in the nest c0 (i), c2 (k), c1 (j) is the same along c1.
        let data = product(("C", &["i", "k"]), ("A", &["i", "j"]), ("B", &["k", "j"]));
        let (cond, tile) = tile_of(&data, Some(32));
        assert_eq!(cond, "polyc_T0 % 4 == 0 && polyc_T2 % 2 == 0");
        assert_eq!(tile.reduction.var, "c1");
        assert_eq!(
            (tile.outer.var.as_str(), inner(&tile).var.as_str()),
            ("c0", "c2")
        );
        assert_eq!(shape(&tile), (4, 2));
    }

    #[test]
    fn a_block_whose_points_share_an_element_is_not_held() {
        // C[i][i]: the two columns of a row would update one element in two registers.
        let data = product(("C", &["i", "i"]), ("A", &["i", "k"]), ("B", &["k", "j"]));
        assert!(!blocked(&data, 32));
    }

    #[test]
    fn a_read_of_the_array_elsewhere_is_held_only_where_the_tile_keeps_them_apart() {
        // lu's update: C[i][k] is an element a register holds where the ranges of k (c2, tile
        // dimension 2) and j (c1, 1) meet.
        let data = product(("C", &["i", "j"]), ("C", &["i", "k"]), ("B", &["k", "j"]));
        let (cond, _) = tile_of(&data, Some(32));
        assert_eq!(
            cond,
            "polyc_T0 % 2 == 0 && (polyc_o0 + polyc_T0 - 1 < polyc_o0 || polyc_o0 + polyc_T0 - 1 < polyc_o0 || polyc_o2 + polyc_T2 - 1 < polyc_o1 || polyc_o1 + polyc_T1 - 1 < polyc_o2)"
        );
        // The element itself read again is the register: no condition.
        let data = product(("C", &["i", "j"]), ("C", &["i", "j"]), ("B", &["k", "j"]));
        assert_eq!(tile_of(&data, Some(32)).0, "polyc_T0 % 2 == 0");
        // A read whose subscripts are not affine in the loops is never apart.
        let data = scop(
            at("C", &["i", "j"]),
            Expr::Index {
                array: "C".into(),
                subscripts: vec![mul(v("i"), v("i")), v("j")],
            },
        );
        assert!(!blocked(&data, 32));
    }

    #[test]
    fn rows_the_inner_loop_reads_across_are_blocks_of_scalars() {
        // syrk's A[j][k], j innermost: a vector would gather it element by element.
        let data = product(("C", &["i", "j"]), ("A", &["i", "k"]), ("A", &["j", "k"]));
        assert_eq!(shape(&tile_of(&data, Some(32)).1), (4, 2));
    }

    /// A full tile's two-loop nest, c0 (tile dimension 0) around c1 (1), of statement 0 at
    /// (c0, c1).
    fn two_loops() -> KNode {
        let stmt = KNode::Stmt {
            stmt: 0,
            args: vec![v("c0"), v("c1"), v("c1")],
        };
        tile_loop("c0", 0, tile_loop("c1", 1, stmt))
    }

    #[test]
    fn a_row_the_inner_loop_sums_into_runs_by_blocks_of_eight_rows() {
        // gesummv's tmp[i] += A[i][j] * x[j], j innermost.
        let data = product(("C", &["i"]), ("A", &["i", "j"]), ("B", &["j"]));
        let KNode::If { cond, then, other } = apply(two_loops(), &data, 1, Some(32)) else {
            panic!("expected a test of the sizes");
        };
        assert_eq!(cond.to_string(), "polyc_T0 % 8 == 0");
        assert_eq!(other.as_deref(), Some(&two_loops()));
        let KNode::Registers(tile) = *then else {
            panic!("expected a register tile");
        };
        assert_eq!(shape(&tile), (ROW_BLOCK, 1));
        assert_eq!(
            (tile.outer.var.as_str(), tile.reduction.var.as_str()),
            ("c0", "c1")
        );
        let text = tile.lines(&data, "long").join("\n");
        assert!(text.contains("double polyc_reg[8];"), "{text}");
        assert!(
            text.contains("polyc_reg[c0 - polyc_rb0] += A[c0][c1] * B[c1];"),
            "{text}"
        );
        assert!(
            text.contains("C[c0] = polyc_reg[c0 - polyc_rb0];"),
            "{text}"
        );
        assert_eq!(super::blocked(&two_loops(), &data, 1), vec![(0, true)]);
    }

    #[test]
    fn a_two_loop_nest_is_not_blocked_where_its_element_moves_innermost() {
        // atax's y[j] += A[i][j] * tmp[i]: the element moves along j (the C compiler
        // vectorises that).
        let moves = product(("C", &["j"]), ("A", &["i", "j"]), ("B", &["i"]));
        // An element that no loop moves: the rows of a block would share it.
        let shared = product(("C", &["k"]), ("A", &["i", "j"]), ("B", &["j"]));
        for data in [moves, shared] {
            assert_eq!(apply(two_loops(), &data, 1, Some(32)), two_loops());
        }
        // trisolv's x[i] -= L[i][j] * x[j]: blocked where the tile's ranges of j and i lie
        // apart (in its full tiles, j < i at every point).
        let read = product(("C", &["i"]), ("A", &["i", "j"]), ("C", &["j"]));
        let KNode::If { cond, .. } = apply(two_loops(), &read, 1, Some(32)) else {
            panic!("expected a test");
        };
        assert_eq!(
            cond.to_string(),
            "polyc_T0 % 8 == 0 && (polyc_o1 + polyc_T1 - 1 < polyc_o0 || polyc_o0 + polyc_T0 - 1 < polyc_o1)"
        );
        // A size the rows do not divide, where it is known: the nest as it was.
        let data = product(("C", &["i"]), ("A", &["i", "j"]), ("B", &["j"]));
        assert_eq!(apply(two_loops(), &data, 0, Some(12)), two_loops());
    }

    #[test]
    fn a_nest_with_two_statements_or_a_guard_is_not_blocked() {
        let data = gemm();
        let stmt = KNode::Stmt {
            stmt: 0,
            args: vec![v("c0"), v("c1"), v("c2")],
        };
        let two = KNode::Block(vec![stmt.clone(), stmt.clone()]);
        let guarded = KNode::If {
            cond: Expr::binary(BinaryOp::Ge, v("c1"), v("c0")),
            then: Box::new(stmt),
            other: None,
        };
        for body in [two, guarded] {
            let code = tile_loop("c0", 0, tile_loop("c2", 2, tile_loop("c1", 1, body)));
            let out = apply(code.clone(), &data, 1, Some(32));
            assert_eq!(out, code);
        }
    }

    /// `W[e]` with a flat subscript `e` over i, j.
    fn flat(e: Expr) -> ScopData {
        let mut data = scop(
            Expr::Index {
                array: "C".into(),
                subscripts: vec![e],
            },
            mul(at("A", &["i", "k"]), at("B", &["k", "j"])),
        );
        data.data[2].extents = vec![None];
        data
    }

    #[test]
    fn a_flat_subscript_is_held_where_the_block_tells_its_elements_apart() {
        // doitgen's expanded sum[(r * nq + q) * 160 + p]: rows 160 apart, a block's 16
        // columns in between.
        let row = Expr::binary(
            BinaryOp::Add,
            Expr::binary(BinaryOp::Mul, v("n"), v("k0")),
            v("i"),
        );
        let e = Expr::binary(
            BinaryOp::Add,
            mul(row, Expr::cast("long", Expr::int(160))),
            v("j"),
        );
        assert!(blocked(&flat(e), 32));
        // i + j: (i + 1, j - 1) is the same element as (i, j).
        let e = Expr::binary(BinaryOp::Add, v("i"), v("j"));
        assert!(!blocked(&flat(e), 32));
        // 8 * i + j: a vector row of 16 overlaps the next one; a scalar block's two do not.
        let e = Expr::binary(BinaryOp::Add, mul(Expr::int(8), v("i")), v("j"));
        assert_eq!(shape(&tile_of(&flat(e), Some(32)).1), (4, 2));
        // i + 2 * j: (i + 2, j - 1) is (i, j) in a scalar block too.
        let e = Expr::binary(BinaryOp::Add, v("i"), mul(Expr::int(2), v("j")));
        assert!(!blocked(&flat(e), 32));
        // i * n + j: not affine in the loops.
        let e = Expr::binary(BinaryOp::Add, mul(v("i"), v("n")), v("j"));
        assert!(!blocked(&flat(e), 32));
    }

    #[test]
    fn a_size_known_at_run_time_is_tested_there() {
        let (cond, _) = tile_of(&gemm(), None);
        assert_eq!(cond, "polyc_T0 % 2 == 0 && polyc_T1 % 16 == 0");
    }

    #[test]
    fn vector_rows_fill_eight_vector_registers() {
        assert_eq!(vector_shape("double"), Some(Shape { rows: 2, cols: 16 }));
        assert_eq!(vector_shape("float"), Some(Shape { rows: 2, cols: 32 }));
        assert_eq!(vector_shape("char"), None);
    }
}
