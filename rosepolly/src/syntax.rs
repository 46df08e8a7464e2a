//! Syntax recovery: loops from a schedule (the role CLooG plays in the thesis, §3.7 and §6.2).
//!
//! isl's AST generator scans the scheduled statement instances; its AST is turned into our own
//! [`Node`] tree, whose expressions are the statement-expression IR, so that the code
//! generators print it and later passes (tiling, the GPU mapping) can rewrite it. Statement
//! instances appear as [`Node::User`] with the values of the statement's original iterators.
//!
//! Optionally, one-time loops (OTLs, thesis §6.2.1 step 4) are inserted so that every statement
//! is surrounded by a loop for every non-scalar schedule dimension, as in Figure 6.5(a).

use std::collections::{BTreeSet, HashMap};

use crate::math::isl::{
    self, AstExpr, AstExprView, AstFailure, AstNode, AstNodeView, AstOp, Ctx, PwAff, Set, UnionMap,
};
use crate::model::affine::{Affine, AffineCond, CmpOp};
use crate::model::expr::{BinaryOp, Expr, UnaryOp};
use crate::model::user_names::user;
use crate::model::Scop;

/// Helper functions generated code must define (C semantics of isl's operations).
pub const MIN: &str = "polyc_min";
pub const MAX: &str = "polyc_max";
pub const FLOORD: &str = "polyc_floord";

/// A loop of the recovered program.
#[derive(Debug, Clone, PartialEq)]
pub struct Loop {
    pub iterator: String,
    /// The schedule dimension the loop scans.
    pub dim: usize,
    pub init: Expr,
    /// Loop while this holds (over the iterator).
    pub cond: Expr,
    pub step: i64,
    pub body: Box<Node>,
    /// Set by the caller (the schedule says which dimensions are parallel).
    pub parallel: bool,
    /// A one-time loop inserted for a dimension isl did not need a loop for.
    pub otl: bool,
}

/// The recovered program.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Block(Vec<Node>),
    For(Loop),
    If {
        cond: Expr,
        then: Box<Node>,
        other: Option<Box<Node>>,
    },
    /// An instance of statement `stmt`, its original iterators equal to `args`.
    User {
        stmt: usize,
        args: Vec<Expr>,
    },
}

/// `(statement, dimension)` → the dimension's linear function of the statement's iterators,
/// `(coefficients, constant)`, or `None` for a scalar dimension.
pub type RowFn<'a> = &'a dyn Fn(usize, usize) -> Option<(Vec<i64>, i64)>;

/// What recovery needs besides the schedule.
pub struct RecoveryOptions<'a> {
    /// Iterator names for the schedule dimensions (`c0`, `c1`...).
    pub iterators: &'a [String],
    /// For OTLs: the value of dimension `dim` for statement `stmt` as a linear function
    /// `(coefficients over the statement's iterators, constant)`; `None` for scalar dimensions.
    /// Without this function no OTL is inserted.
    pub row: Option<RowFn<'a>>,
    /// Parameters of the schedule besides the SCoP's (tile origins and sizes), in the order
    /// the schedule's text names them after the SCoP's.
    pub extra_params: &'a [String],
    /// Constraints on the parameters that hold where the code runs (isl syntax, may be empty).
    pub context: &'a str,
    /// When not empty, the schedule's domain tuples are these names instead of the SCoP's
    /// statements, and [`Node::User::stmt`] is the index of the name here.
    pub virtual_statements: &'a [String],
}

impl<'a> RecoveryOptions<'a> {
    /// Loops over `iterators` for the SCoP's statements: no OTLs, no extra parameters or
    /// context.
    pub fn new(iterators: &'a [String]) -> RecoveryOptions<'a> {
        RecoveryOptions {
            iterators,
            row: None,
            extra_params: &[],
            context: "",
            virtual_statements: &[],
        }
    }
}

/// Generate the loops scanning `schedule` (each statement's instances → time vectors, restricted
/// to its domain); an error when isl's AST generation fails or runs over its budget.
pub fn recover(
    ctx: &Ctx,
    scop: &Scop,
    schedule: UnionMap,
    opts: &RecoveryOptions,
) -> Result<Node, AstFailure> {
    let mut params: Vec<String> = scop.params.iter().map(|p| scop.names.get(p)).collect();
    params.extend(opts.extra_params.iter().cloned());
    let context = Set::parse(
        ctx,
        &format!("[{}] -> {{ : {} }}", params.join(", "), opts.context),
    )
    .expect("context parses");
    let ast = isl::ast_from_schedule(ctx, context, schedule, opts.iterators)?;
    let mut names: HashMap<String, String> = HashMap::new();
    for p in &scop.params {
        names.insert(scop.names.get(p), user(p));
    }
    let stmts: HashMap<String, usize> = if opts.virtual_statements.is_empty() {
        scop.statements
            .iter()
            .map(|s| (s.domain.isl().tuple_name().expect("named statements"), s.id))
            .collect()
    } else {
        opts.virtual_statements
            .iter()
            .enumerate()
            .map(|(i, n)| (n.clone(), i))
            .collect()
    };
    let r = Recover {
        names,
        stmts,
        iterators: opts.iterators,
    };
    let node = r.node(&ast);
    Ok(match opts.row {
        Some(row) => with_otls(node, opts.iterators, row),
        None => node,
    })
}

/// `node` (loops over `iterators`, as [`recover`] returns them without OTLs) with a one-time
/// loop wherever a dimension that `row` gives a value has no loop of its own: the loops
/// [`recover`] returns with [`RecoveryOptions::row`] set, without generating them again.
pub fn with_otls(node: Node, iterators: &[String], row: RowFn) -> Node {
    insert_otls(node, 0, iterators, row)
}

/// A C condition over the SCoP's parameters that holds exactly on `set` (a set over them),
/// in code that runs only for the parameter values of `context`
/// ([`crate::analysis::params::param_box`], or [`crate::analysis::params::assumed_box`] in the
/// transformed branch of a SCoP's guard).
///
/// `None` when isl's expression needs a constant beyond 64 bits.
pub fn condition<'c>(ctx: &'c Ctx, scop: &Scop, set: &Set<'c>, context: Set<'c>) -> Option<Expr> {
    let e = isl::ast_expr_from_set(ctx, context, set.clone());
    e.constants_fit()
        .then(|| Recover::params_only(scop).expr(&e))
}

/// A C expression over the SCoP's parameters computing `pa` where it is defined, in code that
/// runs only for the parameter values of `context` (as for [`condition`]).
///
/// `None` when isl's expression needs a constant beyond 64 bits.
pub fn value<'c>(ctx: &'c Ctx, scop: &Scop, pa: PwAff<'c>, context: Set<'c>) -> Option<Expr> {
    let e = isl::ast_expr_from_pw_aff(ctx, context, pa);
    e.constants_fit()
        .then(|| Recover::params_only(scop).expr(&e))
}

struct Recover<'a> {
    /// isl parameter names → C names.
    names: HashMap<String, String>,
    stmts: HashMap<String, usize>,
    iterators: &'a [String],
}

impl Recover<'_> {
    /// A recovery of expressions over the SCoP's parameters alone.
    fn params_only(scop: &Scop) -> Recover<'static> {
        Recover {
            names: scop
                .params
                .iter()
                .map(|p| (scop.names.get(p), user(p)))
                .collect(),
            stmts: HashMap::new(),
            iterators: &[],
        }
    }

    fn node(&self, n: &AstNode) -> Node {
        match n.view() {
            AstNodeView::For {
                iterator,
                init,
                cond,
                inc,
                body,
            } => {
                let step = match self.expr(&inc) {
                    Expr::Int { value, .. } => value,
                    other => panic!("isl loop increments are constants, got {other}"),
                };
                let dim = self
                    .iterators
                    .iter()
                    .position(|i| *i == iterator)
                    .expect("loops scan schedule dimensions");
                Node::For(Loop {
                    iterator,
                    dim,
                    init: self.expr(&init),
                    cond: self.expr(&cond),
                    step,
                    body: Box::new(self.node(&body)),
                    parallel: false,
                    otl: false,
                })
            }
            AstNodeView::If {
                cond,
                then,
                otherwise,
            } => Node::If {
                cond: self.expr(&cond),
                then: Box::new(self.node(&then)),
                other: otherwise.map(|o| Box::new(self.node(&o))),
            },
            AstNodeView::Block(children) => {
                Node::Block(children.iter().map(|c| self.node(c)).collect())
            }
            AstNodeView::Mark(inner) => self.node(&inner),
            AstNodeView::User(call) => match call.view() {
                AstExprView::Op(AstOp::Call, args) => {
                    let name = match args[0].view() {
                        AstExprView::Id(n) => n,
                        _ => panic!("statement calls name the statement"),
                    };
                    Node::User {
                        stmt: self.stmts[&name],
                        args: args[1..].iter().map(|a| self.expr(a)).collect(),
                    }
                }
                _ => panic!("user nodes are statement calls"),
            },
        }
    }

    fn expr(&self, e: &AstExpr) -> Expr {
        let bin = |op, a: &AstExpr, b: &AstExpr| Expr::Binary {
            op,
            lhs: Box::new(self.expr(a)),
            rhs: Box::new(self.expr(b)),
        };
        let call = |f: &str, args: &[AstExpr]| Expr::Call {
            func: f.to_string(),
            args: args.iter().map(|a| self.expr(a)).collect(),
        };
        match e.view() {
            AstExprView::Int(v) => Expr::int(v),
            AstExprView::Id(name) => Expr::Var(self.names.get(&name).cloned().unwrap_or(name)),
            AstExprView::Op(op, args) => match op {
                AstOp::And | AstOp::AndThen => bin(BinaryOp::And, &args[0], &args[1]),
                AstOp::Or | AstOp::OrElse => bin(BinaryOp::Or, &args[0], &args[1]),
                AstOp::Max | AstOp::Min => {
                    let f = if op == AstOp::Max { MAX } else { MIN };
                    args[1..]
                        .iter()
                        .fold(self.expr(&args[0]), |acc, a| Expr::Call {
                            func: f.into(),
                            args: vec![acc, self.expr(a)],
                        })
                }
                AstOp::Minus => Expr::Unary {
                    op: UnaryOp::Neg,
                    operand: Box::new(self.expr(&args[0])),
                },
                AstOp::Add => bin(BinaryOp::Add, &args[0], &args[1]),
                AstOp::Sub => bin(BinaryOp::Sub, &args[0], &args[1]),
                AstOp::Mul => bin(BinaryOp::Mul, &args[0], &args[1]),
                // Exact division, or a quotient of non-negative values: C's `/` is right.
                AstOp::Div | AstOp::PdivQ => bin(BinaryOp::Div, &args[0], &args[1]),
                AstOp::FdivQ => call(FLOORD, &args),
                AstOp::PdivR | AstOp::ZdivR => bin(BinaryOp::Mod, &args[0], &args[1]),
                AstOp::Cond | AstOp::Select => Expr::Ternary {
                    cond: Box::new(self.expr(&args[0])),
                    then: Box::new(self.expr(&args[1])),
                    other: Box::new(self.expr(&args[2])),
                },
                AstOp::Eq => bin(BinaryOp::Eq, &args[0], &args[1]),
                AstOp::Le => bin(BinaryOp::Le, &args[0], &args[1]),
                AstOp::Lt => bin(BinaryOp::Lt, &args[0], &args[1]),
                AstOp::Ge => bin(BinaryOp::Ge, &args[0], &args[1]),
                AstOp::Gt => bin(BinaryOp::Gt, &args[0], &args[1]),
                other => panic!("isl generated an unexpected AST operation {other:?}"),
            },
        }
    }
}

/// An expression of the recovered AST as a quasi-affine tree (for simplification).
pub fn to_affine(e: &Expr) -> Option<Affine> {
    Some(match e {
        Expr::Int { value, .. } => Affine::Const(*value),
        Expr::Var(v) => Affine::var(v),
        Expr::Unary {
            op: UnaryOp::Neg,
            operand,
        } => Affine::scale(-1, to_affine(operand)?),
        Expr::Binary { op, lhs, rhs } => {
            let (a, b) = (to_affine(lhs)?, to_affine(rhs)?);
            match op {
                BinaryOp::Add => Affine::plus(a, b),
                BinaryOp::Sub => Affine::minus(a, b),
                BinaryOp::Mul => match (a.constant(), b.constant()) {
                    (Some(k), _) => Affine::scale(k, b),
                    (_, Some(k)) => Affine::scale(k, a),
                    _ => return None,
                },
                BinaryOp::Div => Affine::floor_div(a, b.constant().filter(|d| *d > 0)?),
                _ => return None,
            }
        }
        Expr::Call { func, args } if func == FLOORD => Affine::floor_div(
            to_affine(&args[0])?,
            to_affine(&args[1])?.constant().filter(|d| *d > 0)?,
        ),
        Expr::Call { func, args } if func == MIN => {
            Affine::min(to_affine(&args[0])?, to_affine(&args[1])?)
        }
        Expr::Call { func, args } if func == MAX => {
            Affine::max(to_affine(&args[0])?, to_affine(&args[1])?)
        }
        _ => return None,
    })
}

/// A quasi-affine tree printed as an expression of the IR.
pub fn from_affine(a: &Affine) -> Expr {
    if let Some(l) = a.linear() {
        let mut terms: Vec<(i64, Expr)> =
            l.coeffs.iter().map(|(v, c)| (*c, Expr::var(v))).collect();
        if l.constant != 0 || terms.is_empty() {
            terms.push((l.constant, Expr::int(1)));
        }
        let mut out: Option<Expr> = None;
        for (c, t) in terms {
            let is_const = matches!(t, Expr::Int { .. });
            let mag = if is_const {
                Expr::int(c.abs())
            } else if c.abs() == 1 {
                t
            } else {
                Expr::Binary {
                    op: BinaryOp::Mul,
                    lhs: Box::new(Expr::int(c.abs())),
                    rhs: Box::new(t),
                }
            };
            out = Some(match out {
                None if c < 0 => Expr::Unary {
                    op: UnaryOp::Neg,
                    operand: Box::new(mag),
                },
                None => mag,
                Some(acc) => Expr::Binary {
                    op: if c < 0 { BinaryOp::Sub } else { BinaryOp::Add },
                    lhs: Box::new(acc),
                    rhs: Box::new(mag),
                },
            });
        }
        return out.unwrap_or_else(|| Expr::int(0));
    }
    let bin = |op, x: &Affine, y: &Affine| Expr::Binary {
        op,
        lhs: Box::new(from_affine(x)),
        rhs: Box::new(from_affine(y)),
    };
    match a {
        Affine::Add(x, y) => bin(BinaryOp::Add, x, y),
        Affine::Mul(k, x) => Expr::Binary {
            op: BinaryOp::Mul,
            lhs: Box::new(Expr::int(*k)),
            rhs: Box::new(from_affine(x)),
        },
        Affine::FloorDiv(x, d) => Expr::Call {
            func: FLOORD.into(),
            args: vec![from_affine(x), Expr::int(*d)],
        },
        Affine::Min(x, y) => Expr::Call {
            func: MIN.into(),
            args: vec![from_affine(x), from_affine(y)],
        },
        Affine::Max(x, y) => Expr::Call {
            func: MAX.into(),
            args: vec![from_affine(x), from_affine(y)],
        },
        Affine::Select(c, x, y) => Expr::Ternary {
            cond: Box::new(cond_expr(c)),
            then: Box::new(from_affine(x)),
            other: Box::new(from_affine(y)),
        },
        // Only during extraction; printed as its exact form should one ever reach here.
        Affine::Wrap { inner, ty, .. } => from_affine(&Affine::exact_wrap((**inner).clone(), *ty)),
        Affine::Const(_) | Affine::Var(_) => unreachable!("linear"),
    }
}

fn cond_expr(c: &AffineCond) -> Expr {
    let bin = |op, a: Expr, b: Expr| Expr::Binary {
        op,
        lhs: Box::new(a),
        rhs: Box::new(b),
    };
    match c {
        AffineCond::True => Expr::int(1),
        AffineCond::False => Expr::int(0),
        AffineCond::Cmp(op, a, b) => {
            let op = match op {
                CmpOp::Lt => BinaryOp::Lt,
                CmpOp::Le => BinaryOp::Le,
                CmpOp::Gt => BinaryOp::Gt,
                CmpOp::Ge => BinaryOp::Ge,
                CmpOp::Eq => BinaryOp::Eq,
                CmpOp::Ne => BinaryOp::Ne,
            };
            bin(op, from_affine(a), from_affine(b))
        }
        AffineCond::And(a, b) => bin(BinaryOp::And, cond_expr(a), cond_expr(b)),
        AffineCond::Or(a, b) => bin(BinaryOp::Or, cond_expr(a), cond_expr(b)),
        AffineCond::Not(a) => Expr::Unary {
            op: UnaryOp::Not,
            operand: Box::new(cond_expr(a)),
        },
    }
}

/// Statements below a node, with their arguments.
fn users(n: &Node, out: &mut Vec<(usize, Vec<Expr>)>) {
    match n {
        Node::Block(v) => v.iter().for_each(|c| users(c, out)),
        Node::For(l) => users(&l.body, out),
        Node::If { then, other, .. } => {
            users(then, out);
            if let Some(o) = other {
                users(o, out);
            }
        }
        Node::User { stmt, args } => out.push((*stmt, args.clone())),
    }
}

/// Iterators of loops below a node.
fn inner_iterators(n: &Node, out: &mut BTreeSet<String>) {
    match n {
        Node::Block(v) => v.iter().for_each(|c| inner_iterators(c, out)),
        Node::For(l) => {
            out.insert(l.iterator.clone());
            inner_iterators(&l.body, out);
        }
        Node::If { then, other, .. } => {
            inner_iterators(then, out);
            if let Some(o) = other {
                inner_iterators(o, out);
            }
        }
        Node::User { .. } => {}
    }
}

/// Wrap constructs in one-time loops for the hyperplane dimensions from `next` on that isl
/// resolved without a loop. A dimension's value is the statement's row applied to its
/// arguments; when that needs iterators of inner loops, no OTL is placed (it would not be a
/// one-time loop there).
fn insert_otls(n: Node, next: usize, iters: &[String], row: RowFn) -> Node {
    match n {
        Node::Block(v) => Node::Block(
            v.into_iter()
                .map(|c| insert_otls(c, next, iters, row))
                .collect(),
        ),
        Node::If { cond, then, other } => Node::If {
            cond,
            then: Box::new(insert_otls(*then, next, iters, row)),
            other: other.map(|o| Box::new(insert_otls(*o, next, iters, row))),
        },
        Node::For(l) => {
            let dim = l.dim;
            let inner = Node::For(Loop {
                body: Box::new(insert_otls(*l.body, dim + 1, iters, row)),
                ..l
            });
            wrap(inner, next, dim, iters, row)
        }
        user @ Node::User { .. } => wrap(user, next, iters.len(), iters, row),
    }
}

/// `constant + Σ coeffs[k] * args[k]`, as C: a schedule row's value at a statement instance
/// whose iterators' values are `args`.
pub fn linear_combination(coeffs: &[i64], args: &[Expr], constant: i64) -> Expr {
    let terms = coeffs
        .iter()
        .zip(args)
        .filter(|(c, _)| **c != 0)
        .map(|(&c, a)| match c {
            1 => a.clone(),
            c => Expr::binary(BinaryOp::Mul, Expr::int(c), a.clone()),
        });
    let sum = terms.reduce(|acc, t| Expr::binary(BinaryOp::Add, acc, t));
    match sum {
        None => Expr::int(constant),
        Some(s) if constant == 0 => s,
        Some(s) => Expr::binary(BinaryOp::Add, s, Expr::int(constant)),
    }
}

/// Wrap `n` in OTLs for dimensions `from..to`. Where the statements inside `n` take different
/// values at one of those dimensions (a guarded statement of another row beside them), a block's
/// or conditional's parts are wrapped one by one instead: one OTL around all of them would give
/// every statement the first one's value (differential seed 43970: `S4` ran at `c4 = m - 1`, the
/// value of an `S2` beside it under its own guard `x0 + 1 = m`, instead of at `c4 = x0`, and
/// the GPU kernel skipped it).
fn wrap(n: Node, from: usize, to: usize, iters: &[String], row: RowFn) -> Node {
    let mut stmts = Vec::new();
    users(&n, &mut stmts);
    let disagree = stmts.len() > 1 && (from..to).any(|d| common_value(&stmts, d, row).is_none());
    match n {
        Node::Block(v) if disagree => Node::Block(
            v.into_iter()
                .map(|c| wrap(c, from, to, iters, row))
                .collect(),
        ),
        Node::If { cond, then, other } if disagree => Node::If {
            cond,
            then: Box::new(wrap(*then, from, to, iters, row)),
            other: other.map(|o| Box::new(wrap(*o, from, to, iters, row))),
        },
        n => wrap_agreed(n, &stmts, from, to, iters, row),
    }
}

/// The value at dimension `d` of statement `stmt`'s instance at `args`, if it is affine.
fn one_value(stmt: usize, args: &[Expr], d: usize, row: RowFn) -> Option<Affine> {
    let (coeffs, constant) = row(stmt, d)?;
    coeffs
        .iter()
        .zip(args)
        .try_fold(Affine::Const(constant), |acc, (c, a)| {
            Some(Affine::plus(acc, Affine::scale(*c, to_affine(a)?)))
        })
}

/// `Some(value)` when every statement instance of `stmts` has that value at dimension `d`;
/// `Some(None)` when the first has none; `None` when they differ.
fn common_value(stmts: &[(usize, Vec<Expr>)], d: usize, row: RowFn) -> Option<Option<Affine>> {
    let (first, rest) = stmts.split_first()?;
    let v = one_value(first.0, &first.1, d, row);
    rest.iter()
        .all(|(s, a)| one_value(*s, a, d, row) == v)
        .then_some(v)
}

/// Wrap `n` in OTLs for those of dimensions `from..to` where its statements agree.
fn wrap_agreed(
    n: Node,
    stmts: &[(usize, Vec<Expr>)],
    from: usize,
    to: usize,
    iters: &[String],
    row: RowFn,
) -> Node {
    let mut inner = BTreeSet::new();
    inner_iterators(&n, &mut inner);
    let mut out = n;
    for d in (from..to).rev() {
        let Some(Some(value)) = common_value(stmts, d, row) else {
            continue;
        };
        let mut used = Vec::new();
        value.vars(&mut used);
        if used
            .iter()
            .any(|v| inner.contains(v) || iters[d..].contains(v))
        {
            continue;
        }
        let e = from_affine(&value);
        out = Node::For(Loop {
            iterator: iters[d].clone(),
            dim: d,
            init: e.clone(),
            cond: Expr::Binary {
                op: BinaryOp::Le,
                lhs: Box::new(Expr::var(&iters[d])),
                rhs: Box::new(e),
            },
            step: 1,
            body: Box::new(out),
            parallel: false,
            otl: true,
        });
    }
    out
}

impl Node {
    /// The statements with an instance in this tree (indices as in [`Node::User`]), each once.
    pub fn statements(&self) -> Vec<usize> {
        fn go(n: &Node, out: &mut Vec<usize>) {
            match n {
                Node::Block(v) => v.iter().for_each(|c| go(c, out)),
                Node::For(l) => go(&l.body, out),
                Node::If { then, other, .. } => {
                    go(then, out);
                    if let Some(o) = other {
                        go(o, out);
                    }
                }
                Node::User { stmt, .. } => {
                    if !out.contains(stmt) {
                        out.push(*stmt);
                    }
                }
            }
        }
        let mut out = Vec::new();
        go(self, &mut out);
        out
    }

    /// Visit every loop, outermost first, with mutable access.
    pub fn loops_mut(&mut self, f: &mut impl FnMut(&mut Loop, usize)) {
        fn go(n: &mut Node, f: &mut impl FnMut(&mut Loop, usize), depth: usize) {
            match n {
                Node::Block(v) => v.iter_mut().for_each(|c| go(c, f, depth)),
                Node::For(l) => {
                    f(l, depth);
                    go(&mut l.body, f, depth + 1);
                }
                Node::If { then, other, .. } => {
                    go(then, f, depth);
                    if let Some(o) = other {
                        go(o, f, depth);
                    }
                }
                Node::User { .. } => {}
            }
        }
        go(self, f, 0)
    }
}
