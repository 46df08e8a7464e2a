//! The one safe layer over isl (through the `isl-rs` bindings).
//!
//! Nothing else in polyc touches `isl-rs`. This layer adds what the raw bindings lack:
//!
//! * **Lifetimes and threads.** Every object borrows its [`Ctx`] (`Set<'c>` cannot outlive the
//!   context that made it) and nothing here is `Send` or `Sync`: isl is not thread-safe, while
//!   the raw handles are plain integers that Rust would happily move between threads.
//! * **Strings that are freed.** `isl-rs`' `to_str` leaks the C string; our `Display` frees it.
//! * **Calls with callbacks** (`isl_set_foreach_point`) and the AST-generation calls, declared
//!   here as `extern "C"` against the static libisl that `isl-rs` links.
//!
//! Naming follows isl (`Set::lexmin` is `isl_set_lexmin`), with Rust ownership doing what isl's
//! `__isl_take` / `__isl_keep` annotations say: a method taking `self` consumes its operand, one
//! taking `&self` borrows it. isl errors on values this crate built itself are bugs, so such
//! calls panic with the isl message; operations whose input comes from users are fallible and
//! say so in their signature.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::fmt;
use std::marker::PhantomData;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use isl_rs as raw;

use crate::diag::{Fallback, Phase};
pub use isl_rs::DimType;
use libc_free::free_c_string;

/// An isl context. Every isl object made in it borrows it.
pub struct Ctx {
    // Dropped first: its thread is joined before the context it writes to is freed.
    watchdog: Watchdog,
    raw: raw::Context,
    /// Where the work done in this context degraded instead of failing ([`Ctx::fell_back`]).
    fallbacks: std::cell::RefCell<Vec<Fallback>>,
    _not_send: PhantomData<*mut ()>,
}

impl Default for Ctx {
    fn default() -> Self {
        Self::new()
    }
}

impl Ctx {
    /// A fresh context whose errors are reported to us (not printed by isl itself).
    pub fn new() -> Ctx {
        let raw = raw::Context::alloc();
        // ISL_ON_ERROR_CONTINUE = 1: isl records the error and returns NULL; isl-rs turns that
        // into an `Err` that this layer inspects.
        let _ = raw::Options::set_on_error(&raw, 1);
        Ctx {
            watchdog: Watchdog::default(),
            raw,
            fallbacks: Default::default(),
            _not_send: PhantomData,
        }
    }

    /// Bound the work of the following operations (0: unbounded); an operation that runs over
    /// it fails instead of running for ever.
    pub fn set_max_operations(&self, max: u64) {
        self.raw.reset_operations();
        self.raw.set_max_operations(max);
    }

    /// Run `f` under `ops` isl operations and `time` (both lifted again after it): `None` when
    /// isl ran out of either, else `f`'s result. For the steps whose cost isl cannot be made to
    /// bound otherwise (dataflow, coalescing, Farkas' lemma on pathological inputs). Only
    /// fallible calls may run inside `f`: every isl call fails once the budget is spent.
    ///
    /// isl counts operations unevenly, so a watchdog thread also lowers the limit to one when
    /// `time` has passed: the next operation isl counts then fails as over its quota
    /// (`isl_ctx_abort` would stop it too, but leaves no error message, which isl-rs
    /// dereferences).
    pub fn bounded<T>(
        &self,
        ops: u64,
        time: Duration,
        f: impl FnOnce() -> Result<T, IslError>,
    ) -> Option<Result<T, IslError>> {
        self.set_max_operations(ops);
        let outer = self.watchdog.arm(self.raw.ptr, time);
        let r = f();
        let late = self.watchdog.disarm(outer);
        self.set_max_operations(0);
        match r {
            Err(e) => {
                // isl-rs words some failures without isl's message ("Got isl_bool = -1"), so
                // the context's own record says whether the quota stopped it.
                let ptr = self.raw.ptr;
                let quota = e.is_quota() || unsafe { isl_ctx_last_error(ptr) } == ISL_ERROR_QUOTA;
                self.reset_error();
                (!quota && !late).then_some(Err(e))
            }
            _ if late => None,
            r => Some(r),
        }
    }

    /// Forget the last error isl recorded: isl-rs reports it after every later call, so an
    /// operation whose failure we recover from must not poison the next ones.
    pub fn reset_error(&self) {
        unsafe { isl_ctx_reset_error(self.raw.ptr) };
    }

    pub(crate) fn raw(&self) -> &raw::Context {
        &self.raw
    }

    /// Record that a step did less than it could (a budget ran out, isl failed, a size limit
    /// applied) and went on. The context is what every step of a compilation is handed, so it
    /// carries the record from deep inside scheduling, tiling and AST generation to the
    /// driver, which takes it per SCoP ([`Ctx::take_fallbacks`]).
    pub fn fell_back(&self, phase: Phase, what: impl Into<String>) {
        self.fallbacks.borrow_mut().push(Fallback::new(phase, what));
    }

    /// The fallbacks recorded so far, each once, in the order they first happened; the record
    /// is then empty.
    pub fn take_fallbacks(&self) -> Vec<Fallback> {
        let mut taken: Vec<Fallback> = Vec::new();
        for f in self.fallbacks.take() {
            if !taken.contains(&f) {
                taken.push(f);
            }
        }
        taken
    }

    /// How many fallbacks are recorded: a mark for [`Ctx::forget_fallbacks`] where the work
    /// that follows may be thrown away (a lowering tried and not used).
    pub fn fallback_mark(&self) -> usize {
        self.fallbacks.borrow().len()
    }

    /// Forget the fallbacks recorded between two marks ([`Ctx::fallback_mark`]): those of work
    /// whose result was not used.
    pub fn forget_fallbacks(&self, marks: std::ops::Range<usize>) {
        self.fallbacks.borrow_mut().drain(marks);
    }
}

/// The thread that stops isl when a step of [`Ctx::bounded`] runs past its time: one per
/// context, started by its first bounded step and joined when the context is dropped. (A thread
/// per step cost deriche's compilation 1,138 thread starts, a tenth of its time.)
#[derive(Default)]
struct Watchdog {
    alarm: Arc<(Mutex<Alarm>, Condvar)>,
    thread: std::cell::OnceCell<std::thread::JoinHandle<()>>,
}

/// What the watchdog thread and the computing thread share, under one lock: the watchdog lowers
/// isl's limit only while `deadline` is set, and the computing thread clears it before lifting
/// the limit, so a late alarm never reaches the next step.
#[derive(Default)]
struct Alarm {
    deadline: Option<Instant>,
    /// The watchdog lowered the limit since the step was armed.
    fired: bool,
    /// When the watchdog wakes by itself (`None`: when woken). A step whose deadline is later
    /// wakes nobody: the watchdog finds it then (a wake-up per step was a tenth of the cost).
    waking: Option<Instant>,
    closing: bool,
}

impl Watchdog {
    /// Set the alarm `time` from now (no later than an enclosing step's); returns the enclosing
    /// step's alarm, for [`Watchdog::disarm`].
    fn arm(&self, ctx: usize, time: Duration) -> (Option<Instant>, bool) {
        self.thread.get_or_init(|| {
            let alarm = self.alarm.clone();
            std::thread::spawn(move || watch(ctx, &alarm))
        });
        let (lock, wake) = &*self.alarm;
        let mut a = lock.lock().unwrap_or_else(|e| e.into_inner());
        let outer = (a.deadline, a.fired);
        let due = Instant::now() + time;
        a.deadline = Some(outer.0.map_or(due, |o| o.min(due)));
        a.fired = false;
        if a.waking.is_none_or(|w| w > due) {
            wake.notify_one();
        }
        outer
    }

    /// Clear this step's alarm (restoring the enclosing step's); whether it fired.
    fn disarm(&self, outer: (Option<Instant>, bool)) -> bool {
        let mut a = self.alarm.0.lock().unwrap_or_else(|e| e.into_inner());
        let fired = a.fired;
        // The enclosing step's deadline is no later than this one's: the watchdog is due by then.
        a.deadline = outer.0.filter(|_| !fired);
        a.fired = outer.1 || fired;
        fired
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            let (lock, wake) = &*self.alarm;
            lock.lock().unwrap_or_else(|e| e.into_inner()).closing = true;
            wake.notify_one();
            let _ = thread.join();
        }
    }
}

/// The watchdog thread: waits for a deadline and, past it, makes the next operation isl counts
/// in context `ctx` fail as over its quota.
fn watch(ctx: usize, alarm: &(Mutex<Alarm>, Condvar)) {
    let (lock, wake) = alarm;
    let mut a = lock.lock().unwrap_or_else(|e| e.into_inner());
    while !a.closing {
        a.waking = a.deadline;
        a = match a.deadline {
            None => wake.wait(a).unwrap_or_else(|e| e.into_inner()),
            Some(due) => match due.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => {
                    wake.wait_timeout(a, left)
                        .unwrap_or_else(|e| e.into_inner())
                        .0
                }
                _ => {
                    // SAFETY: the context outlives this thread (joined when it is dropped);
                    // this only stores the field that the computing thread compares its
                    // operation count with, and only while a step is armed (under the lock).
                    unsafe { isl_ctx_set_max_operations(ctx, 1) };
                    a.fired = true;
                    a.deadline = None;
                    a
                }
            },
        };
    }
}

/// An error isl reported for an operation on user-derived input.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("isl: {0}")]
pub struct IslError(pub String);

impl IslError {
    /// Whether isl stopped because the operation budget ([`Ctx::set_max_operations`]) ran out.
    pub fn is_quota(&self) -> bool {
        self.0.contains("maximal number of operations exceeded")
    }
}

fn ok<T>(r: Result<T, raw::LibISLError>) -> T {
    r.unwrap_or_else(|e| panic!("internal error in polyc's use of isl: {e}"))
}

/// The result of a coalescing, `None` if isl failed. Coalescing only changes how a set is
/// written, so the set before it is as good an answer; isl 0.27 has failed inside it with
/// "total dimensionality changed unexpectedly" on dependences of unsigned iterators whose
/// bounds are derived parameters (random program 11 of `tests/random_programs.rs`).
fn coalesced<T>(r: Result<T, raw::LibISLError>) -> Option<T> {
    r.ok()
}

fn fallible<T>(r: Result<T, raw::LibISLError>) -> Result<T, IslError> {
    r.map_err(|e| IslError(e.to_string()))
}

mod libc_free {
    use std::ffi::{c_char, c_void, CStr};
    extern "C" {
        fn free(p: *mut c_void);
    }
    /// Copy a malloc'ed C string returned by isl and free it.
    pub(super) fn free_c_string(p: *mut c_char) -> String {
        if p.is_null() {
            return String::from("<null>");
        }
        let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        unsafe { free(p as *mut c_void) };
        s
    }
}

extern "C" {
    fn isl_set_to_str(p: usize) -> *mut c_char;
    fn isl_map_to_str(p: usize) -> *mut c_char;
    fn isl_basic_set_to_str(p: usize) -> *mut c_char;
    fn isl_basic_map_to_str(p: usize) -> *mut c_char;
    fn isl_union_set_to_str(p: usize) -> *mut c_char;
    fn isl_union_map_to_str(p: usize) -> *mut c_char;
    fn isl_val_to_str(p: usize) -> *mut c_char;
    fn isl_pw_aff_to_str(p: usize) -> *mut c_char;
    fn isl_aff_to_str(p: usize) -> *mut c_char;
    fn isl_set_foreach_point(
        set: usize,
        f: extern "C" fn(pnt: usize, user: *mut c_void) -> c_int,
        user: *mut c_void,
    ) -> c_int;
    fn isl_point_get_coordinate_val(pnt: usize, t: c_int, pos: c_int) -> usize;
    fn isl_point_free(pnt: usize) -> usize;
    fn isl_val_get_num_si(v: usize) -> i64;
    fn isl_val_get_den_si(v: usize) -> i64;
    fn isl_val_free(v: usize) -> usize;
    fn isl_set_dim(set: usize, t: c_int) -> c_int;
    fn isl_ast_node_to_str(p: usize) -> *mut c_char;
    fn isl_ast_expr_to_str(p: usize) -> *mut c_char;
    fn isl_ast_build_from_context(set: usize) -> usize;
    fn isl_ast_build_set_iterators(build: usize, iterators: usize) -> usize;
    fn isl_ast_build_set_options(build: usize, options: usize) -> usize;
    fn isl_ast_build_node_from_schedule_map(build: usize, schedule: usize) -> usize;
    fn isl_ast_build_free(build: usize) -> usize;
    fn isl_ctx_reset_error(ctx: usize);
    fn isl_ctx_last_error(ctx: usize) -> c_int;
    fn isl_ctx_last_error_msg(ctx: usize) -> *const c_char;
    fn isl_ctx_set_max_operations(ctx: usize, max: std::ffi::c_ulong);
    fn isl_ast_build_expr_from_set(build: usize, set: usize) -> usize;
    fn isl_ast_build_expr_from_pw_aff(build: usize, pa: usize) -> usize;
    // isl-rs 0.3.1 maps `isl_ast_node_type` off by one (it numbers `for` 0, isl numbers it 1),
    // so the node type is read directly.
    fn isl_ast_node_get_type(node: usize) -> c_int;
    fn isl_id_alloc(ctx: usize, name: *const c_char, user: *mut c_void) -> usize;
    fn isl_id_list_alloc(ctx: usize, n: c_int) -> usize;
    fn isl_id_list_add(list: usize, id: usize) -> usize;
}

/// `isl_error_quota` of isl's `enum isl_error`: an operation ran over
/// [`Ctx::set_max_operations`].
const ISL_ERROR_QUOTA: c_int = 6;

macro_rules! isl_object {
    ($(#[$doc:meta])* $name:ident, $raw:ident, $to_str:ident) => {
        $(#[$doc])*
        pub struct $name<'c> {
            raw: raw::$raw,
            _ctx: PhantomData<&'c Ctx>,
        }

        impl<'c> $name<'c> {
            fn wrap(raw: raw::$raw) -> Self {
                Self { raw, _ctx: PhantomData }
            }
            #[allow(dead_code)]
            pub(crate) fn raw(&self) -> &raw::$raw {
                &self.raw
            }
            #[allow(dead_code)]
            pub(crate) fn into_raw(self) -> raw::$raw {
                self.raw
            }
        }

        impl Clone for $name<'_> {
            fn clone(&self) -> Self {
                Self::wrap(ok(self.raw.copy()))
            }
        }

        impl fmt::Display for $name<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&free_c_string(unsafe { $to_str(self.raw.ptr) }))
            }
        }

        impl fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }
    };
}

isl_object!(
    /// `isl_set`: a finite union of integer polyhedra over one space.
    Set, Set, isl_set_to_str
);
isl_object!(
    /// `isl_map`: a finite union of relations over one pair of spaces.
    Map, Map, isl_map_to_str
);
isl_object!(
    /// `isl_basic_set`: one convex integer polyhedron (possibly with existential variables).
    BasicSet, BasicSet, isl_basic_set_to_str
);
isl_object!(
    /// `isl_basic_map`: one convex relation.
    BasicMap, BasicMap, isl_basic_map_to_str
);
isl_object!(
    /// `isl_union_set`: sets over different spaces (one per statement, say).
    UnionSet, UnionSet, isl_union_set_to_str
);
isl_object!(
    /// `isl_union_map`: relations over different pairs of spaces.
    UnionMap, UnionMap, isl_union_map_to_str
);
isl_object!(
    /// `isl_val`: an exact rational (or infinity, NaN).
    Val, Val, isl_val_to_str
);
isl_object!(
    /// `isl_pw_aff`: a piecewise quasi-affine expression.
    PwAff, PwAff, isl_pw_aff_to_str
);
isl_object!(
    /// `isl_aff`: one quasi-affine expression.
    Aff, Aff, isl_aff_to_str
);
isl_object!(
    /// `isl_ast_node`: a node of the loop AST isl generates from a schedule.
    AstNode, ASTNode, isl_ast_node_to_str
);
isl_object!(
    /// `isl_ast_expr`: an expression of that AST.
    AstExpr, ASTExpr, isl_ast_expr_to_str
);

/// What an [`AstNode`] is.
pub enum AstNodeView<'c> {
    For {
        iterator: String,
        init: AstExpr<'c>,
        cond: AstExpr<'c>,
        inc: AstExpr<'c>,
        body: AstNode<'c>,
    },
    If {
        cond: AstExpr<'c>,
        then: AstNode<'c>,
        otherwise: Option<AstNode<'c>>,
    },
    Block(Vec<AstNode<'c>>),
    /// A statement instance: a call `S(args)`.
    User(AstExpr<'c>),
    /// An annotation (polyc does not place marks; kept for completeness).
    Mark(AstNode<'c>),
}

/// Operators of [`AstExpr`], re-exported from isl-rs.
pub use isl_rs::ASTExprOpType as AstOp;

/// What an [`AstExpr`] is.
pub enum AstExprView<'c> {
    Int(i64),
    Id(String),
    Op(AstOp, Vec<AstExpr<'c>>),
}

impl<'c> AstNode<'c> {
    pub fn view(&self) -> AstNodeView<'c> {
        let n = &self.raw;
        // Values of isl's `enum isl_ast_node_type` (isl/ast_type.h).
        const FOR: c_int = 1;
        const IF: c_int = 2;
        const BLOCK: c_int = 3;
        const MARK: c_int = 4;
        const USER: c_int = 5;
        match unsafe { isl_ast_node_get_type(n.ptr) } {
            FOR => {
                let it = AstExpr::wrap(ok(n.for_get_iterator()));
                let iterator = match it.view() {
                    AstExprView::Id(name) => name,
                    _ => panic!("isl loop iterators are identifiers"),
                };
                AstNodeView::For {
                    iterator,
                    init: AstExpr::wrap(ok(n.for_get_init())),
                    cond: AstExpr::wrap(ok(n.for_get_cond())),
                    inc: AstExpr::wrap(ok(n.for_get_inc())),
                    body: AstNode::wrap(ok(n.for_get_body())),
                }
            }
            IF => AstNodeView::If {
                cond: AstExpr::wrap(ok(n.if_get_cond())),
                then: AstNode::wrap(ok(n.if_get_then_node())),
                otherwise: ok(n.if_has_else_node())
                    .then(|| AstNode::wrap(ok(n.if_get_else_node()))),
            },
            BLOCK => {
                let list = ok(n.block_get_children());
                AstNodeView::Block(
                    (0..ok(list.size()))
                        .map(|i| AstNode::wrap(ok(list.get_at(i))))
                        .collect(),
                )
            }
            USER => AstNodeView::User(AstExpr::wrap(ok(n.user_get_expr()))),
            MARK => AstNodeView::Mark(AstNode::wrap(ok(n.mark_get_node()))),
            other => panic!("isl returned an AST node of unknown type {other}"),
        }
    }
}

impl<'c> AstExpr<'c> {
    pub fn view(&self) -> AstExprView<'c> {
        use isl_rs::ASTExprType as T;
        let e = &self.raw;
        match ok(e.get_type()) {
            T::Int => AstExprView::Int(
                Val::wrap(ok(e.get_val()))
                    .to_i64()
                    .expect("AST constants fit in i64"),
            ),
            T::Id => AstExprView::Id(ok(ok(e.get_id()).get_name()).to_string()),
            T::Op => {
                let n = ok(e.get_op_n_arg());
                AstExprView::Op(
                    ok(e.get_op_type()),
                    (0..n).map(|i| AstExpr::wrap(ok(e.get_op_arg(i)))).collect(),
                )
            }
            T::Error => panic!("isl returned an erroneous AST expression"),
        }
    }

    /// Whether every integer constant in the expression fits in 64 bits, as [`view`](Self::view)
    /// requires. isl's expressions for iterators' final values under C's wrap-around can hold
    /// constants such as 2^64 - 2^32 (differential test, fuzzing): code with them cannot be
    /// printed as `long` arithmetic.
    pub fn constants_fit(&self) -> bool {
        use isl_rs::ASTExprType as T;
        let e = &self.raw;
        match ok(e.get_type()) {
            T::Int => Val::wrap(ok(e.get_val())).to_i64().is_some(),
            T::Op => (0..ok(e.get_op_n_arg()))
                .all(|i| AstExpr::wrap(ok(e.get_op_arg(i))).constants_fit()),
            _ => true,
        }
    }
}

/// isl operations one AST generation may take ([`ast_from_schedule`]). The suite's largest
/// tiled SCoPs take a few hundred thousand; deep nests with many statements and `separate`
/// grow exponentially in the number of loops.
pub const AST_BUDGET: u64 = 20_000_000;

/// The time one AST generation may take, on top of [`AST_BUDGET`].
pub const AST_TIME: std::time::Duration = std::time::Duration::from_secs(8);

/// isl's AST generator gave no AST.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AstFailure {
    #[error(
        "isl's AST generation ran over its budget ({} operations or {} s)",
        AST_BUDGET,
        AST_TIME.as_secs()
    )]
    OverBudget,
    #[error("isl could not generate an AST: {0}")]
    Isl(String),
}

/// Generate a loop AST that scans `schedule` (statement instances → time vectors) in time
/// order, with loop iterators named `iterators[k]` for time dimension `k`, under the
/// parameter constraints `context` (isl's AST generator, `isl_ast_build_node_from_schedule_map`),
/// within [`AST_BUDGET`] and [`AST_TIME`].
pub fn ast_from_schedule<'c>(
    ctx: &'c Ctx,
    context: Set<'c>,
    schedule: UnionMap<'c>,
    iterators: &[String],
) -> Result<AstNode<'c>, AstFailure> {
    ast_within(ctx, context, schedule, iterators, AST_BUDGET)
}

fn ast_within<'c>(
    ctx: &'c Ctx,
    context: Set<'c>,
    schedule: UnionMap<'c>,
    iterators: &[String],
    ops: u64,
) -> Result<AstNode<'c>, AstFailure> {
    // isl 0.27 fails inside `separate` on some schedules ("total dimensionality changed
    // unexpectedly", random programs with strides and conditions), and `separate` is what
    // can grow exponentially: the same schedule without the option is the same code with
    // guards inside loops instead of peeled iterations.
    let build = |separate: bool| {
        let (context, schedule) = (context.clone(), schedule.clone());
        // Parsed before the budget starts: every isl call counts against it.
        let options = ast_options(ctx, iterators.len(), separate);
        ctx.bounded(ops, AST_TIME, || {
            build_ast(ctx, context, schedule, iterators, options)
                .ok_or_else(|| IslError(last_error_message(ctx)))
        })
    };
    // An AST that does not follow the schedule (isl 0.27 on differential seed 21552) is never
    // used: the other build is tried, and failing that the caller keeps the SCoP's code.
    // Where the check left calls unchecked, the AST taken says so ([`Ctx::fell_back`]).
    let checked = |ast: AstNode<'c>| {
        let c = super::ast_check::check(ctx, &ast, &schedule, &context, iterators);
        c.follows.then_some((ast, c.unchecked))
    };
    let take = |(ast, unchecked): (AstNode<'c>, super::ast_check::Unchecked),
                plain: Option<String>| {
        if let Some(why) = plain {
            ctx.fell_back(Phase::CodeGeneration, format!("an AST built without isl's `separate` option (statements guarded inside loops instead of loops split where they change): {why}"));
        }
        if let Some(what) = unchecked.describe() {
            ctx.fell_back(Phase::CodeGeneration, what);
        }
        ast
    };
    let separated = match build(true) {
        // Separation peels and splits loops; where that multiplies the code, the guarded
        // loops are better: each call becomes a GPU thread loop and a barrier, and PoCL's
        // kernel compiler took over 8 minutes on 158 barriers (differential seed 4850).
        Some(Ok(ast)) if calls(&ast) > SEPARATE_CALLS => {
            let split = calls(&ast);
            match build(false) {
                Some(Ok(plain)) if 2 * split > 3 * calls(&plain) => {
                    let fewer = calls(&plain);
                    if let Some(plain) = checked(plain) {
                        let why =
                            format!("separation made {split} statement calls where {fewer} do");
                        return Ok(take(plain, Some(why)));
                    }
                    Some(Ok(ast))
                }
                _ => Some(Ok(ast)),
            }
        }
        other => other,
    };
    let why = match separated {
        Some(Ok(ast)) => match checked(ast) {
            Some(ast) => return Ok(take(ast, None)),
            None => {
                "the AST built with it does not run the statements where the schedule places them"
                    .to_string()
            }
        },
        Some(Err(e)) => format!("isl failed with it ({})", e.0),
        None => format!(
            "with it the build ran over its budget ({AST_BUDGET} operations or {} s)",
            AST_TIME.as_secs()
        ),
    };
    match build(false) {
        Some(Ok(ast)) => match checked(ast) {
            Some(ast) => Ok(take(ast, Some(why))),
            None => Err(AstFailure::Isl(
                "the loops isl generated do not run the statements where the schedule places them"
                    .into(),
            )),
        },
        Some(Err(e)) => Err(AstFailure::Isl(e.0)),
        None => Err(AstFailure::OverBudget),
    }
}

/// Past this many statement calls in an AST built with `separate`, polyc compares it with the
/// AST built without, and takes that one if separation made half as many calls again. In the
/// suite only deriche's C code passes 32 calls, and separation adds none there.
pub const SEPARATE_CALLS: usize = 32;

/// The statement calls in an AST: how much code it becomes.
fn calls(node: &AstNode) -> usize {
    match node.view() {
        AstNodeView::For { body, .. } => calls(&body),
        AstNodeView::If {
            then, otherwise, ..
        } => calls(&then) + otherwise.map_or(0, |o| calls(&o)),
        AstNodeView::Block(nodes) => nodes.iter().map(calls).sum(),
        AstNodeView::User(_) => 1,
        AstNodeView::Mark(n) => calls(&n),
    }
}

/// The AST build's options: `separate` on every dimension when asked, and always an option
/// that keeps isl from shifting statements within a loop.
///
/// isl shifts the domains of statements whose times along a dimension are strided with
/// different offsets (`A[i] -> [2i]`, `B[i] -> [2i + 1]`), so that one loop scans both: the
/// loop's iterator is then the time minus each statement's offset. polyc reads a loop's
/// iterator as its time dimension (parallel loops, tiles, GPU threads), so a shifted loop
/// marked parallel could run dependent instances at once. isl skips the shift where an option
/// involves the dimension (`generate_component` in `isl_ast_codegen.c`, schedule-map input): the
/// `atomic` option below names level -1, which no loop has, under a constraint that involves
/// every dimension.
fn ast_options(ctx: &Ctx, depth: usize, separate: bool) -> Option<UnionMap<'_>> {
    if depth == 0 {
        return None;
    }
    let vars: Vec<String> = (0..depth).map(|k| format!("i{k}")).collect();
    let point = vars.join(", ");
    let mut text = format!(
        "[{point}] -> atomic[x] : x = -1 and {} >= 0",
        vars.join(" + ")
    );
    if separate {
        text.push_str(&format!("; [{point}] -> separate[x]"));
    }
    Some(UnionMap::parse(ctx, &format!("{{ {text} }}")).expect("AST options parse"))
}

fn build_ast<'c>(
    ctx: &'c Ctx,
    context: Set<'c>,
    schedule: UnionMap<'c>,
    iterators: &[String],
    options: Option<UnionMap<'c>>,
) -> Option<AstNode<'c>> {
    unsafe {
        let raw_ctx = ctx.raw().ptr;
        let mut list = isl_id_list_alloc(raw_ctx, iterators.len() as c_int);
        for name in iterators {
            let c = c_string(name);
            let id = isl_id_alloc(raw_ctx, c.as_ptr(), std::ptr::null_mut());
            list = isl_id_list_add(list, id);
        }
        let context = context.into_raw();
        let build = isl_ast_build_from_context(context.ptr);
        std::mem::forget(context);
        let mut build = isl_ast_build_set_iterators(build, list);
        // `separate` on every dimension: a loop is split where the statements it runs change
        // (a statement placed at the first iteration of another's loop gets that iteration
        // peeled) instead of guarding them with conditions inside it. The conditions kept
        // gemm's and symm's inner loops from vectorising (symm LARGE 0.81x the original, 0.99x
        // separated); the suite's code grows by at most 8% (trisolv).
        if let Some(options) = options {
            let options = options.into_raw();
            build = isl_ast_build_set_options(build, options.ptr);
            std::mem::forget(options);
        }
        let schedule = schedule.into_raw();
        let node = isl_ast_build_node_from_schedule_map(build, schedule.ptr);
        std::mem::forget(schedule);
        isl_ast_build_free(build);
        (node != 0).then(|| {
            AstNode::wrap(raw::ASTNode {
                ptr: node,
                should_free_on_drop: true,
            })
        })
    }
}

/// A condition that holds exactly for the points of `set` among those of `context` (isl's
/// `isl_ast_build_expr_from_set`): a guard over parameters, say.
pub fn ast_expr_from_set<'c>(ctx: &'c Ctx, context: Set<'c>, set: Set<'c>) -> AstExpr<'c> {
    let set = set.into_raw();
    let expr = with_build(context, |build| unsafe {
        isl_ast_build_expr_from_set(build, set.ptr)
    });
    std::mem::forget(set);
    ast_expr(ctx, expr)
}

/// An expression computing `pa` where it is defined, within `context`
/// (`isl_ast_build_expr_from_pw_aff`).
pub fn ast_expr_from_pw_aff<'c>(ctx: &'c Ctx, context: Set<'c>, pa: PwAff<'c>) -> AstExpr<'c> {
    let pa = pa.into_raw();
    let expr = with_build(context, |build| unsafe {
        isl_ast_build_expr_from_pw_aff(build, pa.ptr)
    });
    std::mem::forget(pa);
    ast_expr(ctx, expr)
}

/// isl's message for its last error. isl-rs reads it with `CStr::from_ptr`, which crashes
/// where isl set none (a null pointer: an AST build that failed without a message, differential
/// seed 41700 made polyc die of SIGSEGV).
fn last_error_message(ctx: &Ctx) -> String {
    let msg = unsafe { isl_ctx_last_error_msg(ctx.raw().ptr) };
    if msg.is_null() {
        return "isl failed without a message".into();
    }
    unsafe { std::ffi::CStr::from_ptr(msg) }
        .to_string_lossy()
        .into_owned()
}

/// Run `f` with an AST build over `context`, then free the build.
fn with_build(context: Set, f: impl FnOnce(usize) -> usize) -> usize {
    let context = context.into_raw();
    let build = unsafe { isl_ast_build_from_context(context.ptr) };
    std::mem::forget(context);
    let r = f(build);
    unsafe { isl_ast_build_free(build) };
    r
}

fn ast_expr<'c>(ctx: &'c Ctx, expr: usize) -> AstExpr<'c> {
    assert!(
        expr != 0,
        "isl could not build an expression: {}",
        last_error_message(ctx)
    );
    AstExpr::wrap(raw::ASTExpr {
        ptr: expr,
        should_free_on_drop: true,
    })
}

/// Convert an isl-rs `i32` dimension count.
fn count(n: i32) -> usize {
    usize::try_from(n).expect("isl returned a negative count")
}

impl<'c> Val<'c> {
    pub fn int(ctx: &'c Ctx, v: i64) -> Val<'c> {
        Val::wrap(ok(raw::Val::int_from_si(ctx.raw(), v)))
    }
    /// The value as an integer; `None` when it is not one (a rational, infinity, NaN) or does
    /// not fit.
    pub fn to_i64(&self) -> Option<i64> {
        if !ok(self.raw.is_int()) {
            return None;
        }
        let s = self.to_string();
        s.parse().ok()
    }
    /// Numerator and denominator of a rational value.
    pub fn to_ratio(&self) -> Option<(i64, i64)> {
        if ok(self.raw.is_nan()) || ok(self.raw.is_infty()) || ok(self.raw.is_neginfty()) {
            return None;
        }
        let s = self.to_string();
        match s.split_once('/') {
            Some((n, d)) => Some((n.parse().ok()?, d.parse().ok()?)),
            None => Some((s.parse().ok()?, 1)),
        }
    }
    pub fn is_infinite(&self) -> bool {
        ok(self.raw.is_infty()) || ok(self.raw.is_neginfty())
    }
}

impl<'c> Set<'c> {
    /// Parse isl's textual notation. Fails (with isl's message) on malformed text.
    pub fn parse(ctx: &'c Ctx, text: &str) -> Result<Set<'c>, IslError> {
        let r = fallible(raw::Set::read_from_str(ctx.raw(), text))?;
        if r.ptr == 0 {
            return Err(IslError(format!("cannot parse set `{text}`")));
        }
        Ok(Set::wrap(r))
    }
    /// Parse isl notation in this set's context.
    pub fn parse_sibling(&self, text: &str) -> Result<Set<'c>, IslError> {
        let r = fallible(raw::Set::read_from_str(&self.raw.get_ctx(), text))?;
        if r.ptr == 0 {
            return Err(IslError(format!("cannot parse set `{text}`")));
        }
        Ok(Set::wrap(r))
    }
    pub fn from_basic_set(b: BasicSet<'c>) -> Set<'c> {
        Set::wrap(ok(raw::Set::from_basic_set(b.raw)))
    }
    pub fn intersect(self, other: Set<'c>) -> Set<'c> {
        Set::wrap(ok(self.raw.intersect(other.raw)))
    }
    pub fn intersect_params(self, params: Set<'c>) -> Set<'c> {
        Set::wrap(ok(self.raw.intersect_params(params.raw)))
    }
    pub fn union(self, other: Set<'c>) -> Set<'c> {
        Set::wrap(ok(self.raw.union(other.raw)))
    }
    pub fn subtract(self, other: Set<'c>) -> Set<'c> {
        Set::wrap(ok(self.raw.subtract(other.raw)))
    }
    pub fn complement(self) -> Set<'c> {
        Set::wrap(ok(self.raw.complement()))
    }
    pub fn apply(self, map: Map<'c>) -> Set<'c> {
        Set::wrap(ok(self.raw.apply(map.raw)))
    }
    /// Simplify the representation; this object itself if isl fails inside (an isl bug seen on
    /// sets with 2^32 moduli).
    pub fn coalesce(self) -> Set<'c> {
        let before = self.clone();
        coalesced(self.raw.coalesce()).map_or(before, Set::wrap)
    }
    /// Drop existentially quantified variables and the constraints on them (a superset).
    pub fn remove_divs(self) -> Set<'c> {
        Set::wrap(ok(self.raw.remove_divs()))
    }
    pub fn detect_equalities(self) -> Set<'c> {
        Set::wrap(ok(self.raw.detect_equalities()))
    }
    pub fn remove_redundancies(self) -> Set<'c> {
        Set::wrap(ok(self.raw.remove_redundancies()))
    }
    pub fn params(self) -> Set<'c> {
        Set::wrap(ok(self.raw.params()))
    }
    pub fn gist_params(self, context: Set<'c>) -> Set<'c> {
        Set::wrap(ok(self.raw.gist_params(context.raw)))
    }
    pub fn gist(self, context: Set<'c>) -> Set<'c> {
        Set::wrap(ok(self.raw.gist(context.raw)))
    }
    pub fn is_empty(&self) -> bool {
        ok(self.raw.is_empty())
    }
    pub fn is_subset(&self, other: &Set<'c>) -> bool {
        ok(self.raw.is_subset(&other.raw))
    }
    pub fn is_equal(&self, other: &Set<'c>) -> bool {
        ok(self.raw.is_equal(&other.raw))
    }
    pub fn is_bounded(&self) -> bool {
        ok(self.raw.is_bounded())
    }
    /// Number of dimensions of the given kind (`Param`, `Set`, `Div`).
    pub fn dim(&self, t: DimType) -> usize {
        // isl_set_dim takes `enum isl_dim_type`; isl-rs maps `DimType` to the same integers.
        count(unsafe { isl_set_dim(self.raw.ptr, t.to_i32()) })
    }
    /// The dimension's name; `None` for an unnamed one (isl-rs would read its NULL name).
    pub fn dim_name(&self, t: DimType, pos: usize) -> Option<String> {
        if !self.raw.has_dim_name(t, pos as u32).unwrap_or(false) {
            return None;
        }
        self.raw.get_dim_name(t, pos as u32).ok().map(str::to_owned)
    }
    pub fn tuple_name(&self) -> Option<String> {
        if !ok(self.raw.has_tuple_name()) {
            return None;
        }
        self.raw.get_tuple_name().ok().map(str::to_owned)
    }
    pub fn set_tuple_name(self, name: &str) -> Set<'c> {
        Set::wrap(ok(self.raw.set_tuple_name(name)))
    }
    pub fn set_dim_name(self, t: DimType, pos: usize, name: &str) -> Set<'c> {
        Set::wrap(ok(self.raw.set_dim_name(t, pos as u32, name)))
    }
    pub fn find_dim_by_name(&self, t: DimType, name: &str) -> Option<usize> {
        let p = ok(self.raw.find_dim_by_name(t, name));
        usize::try_from(p).ok()
    }
    /// Fix dimension `pos` of kind `t` to `v`.
    pub fn fix(self, t: DimType, pos: usize, v: i64) -> Set<'c> {
        let val = ok(raw::Val::int_from_si(&self.raw.get_ctx(), v));
        Set::wrap(ok(self.raw.fix_val(t, pos as u32, val)))
    }
    pub fn project_out(self, t: DimType, first: usize, n: usize) -> Set<'c> {
        Set::wrap(ok(self.raw.project_out(t, first as u32, n as u32)))
    }
    pub fn insert_dims(self, t: DimType, pos: usize, n: usize) -> Set<'c> {
        Set::wrap(ok(self.raw.insert_dims(t, pos as u32, n as u32)))
    }
    pub fn add_dims(self, t: DimType, n: usize) -> Set<'c> {
        Set::wrap(ok(self.raw.add_dims(t, n as u32)))
    }
    pub fn lexmin(self) -> Set<'c> {
        Set::wrap(ok(self.raw.lexmin()))
    }
    pub fn lexmax(self) -> Set<'c> {
        Set::wrap(ok(self.raw.lexmax()))
    }
    /// Lexicographic maximum, failing instead of panicking. isl 0.27 has failed inside it with
    /// "affine expression involves some of the domain dimensions" on a set (differential seed
    /// 46641's exit events) whose printed form it maximises: the failure depends on how the set
    /// happens to be stored, so an equivalent rewriting of the set is tried before giving up.
    pub fn try_lexmax(self) -> Result<Set<'c>, IslError> {
        let ctx = self.raw.get_ctx();
        let text = self.to_string();
        let first = match fallible(self.clone().raw.lexmax()) {
            Ok(r) => return Ok(Set::wrap(r)),
            Err(e) => e,
        };
        let rewritten = [
            fallible(self.clone().raw.coalesce()),
            fallible(
                self.raw
                    .detect_equalities()
                    .and_then(|s| s.remove_redundancies()),
            ),
            fallible(raw::Set::read_from_str(&ctx, &text)),
        ];
        for set in rewritten.into_iter().flatten().filter(|s| s.ptr != 0) {
            if let Ok(r) = fallible(set.lexmax()) {
                return Ok(Set::wrap(r));
            }
        }
        Err(first)
    }
    /// Lexicographic minimum, failing instead of panicking when isl runs out of its operation
    /// budget ([`Ctx::set_max_operations`]).
    pub fn try_lexmin(self) -> Result<Set<'c>, IslError> {
        Ok(Set::wrap(fallible(self.raw.lexmin())?))
    }
    pub fn convex_hull(self) -> BasicSet<'c> {
        BasicSet::wrap(ok(self.raw.convex_hull()))
    }
    pub fn simple_hull(self) -> BasicSet<'c> {
        BasicSet::wrap(ok(self.raw.simple_hull()))
    }
    pub fn polyhedral_hull(self) -> BasicSet<'c> {
        BasicSet::wrap(ok(self.raw.polyhedral_hull()))
    }
    pub fn affine_hull(self) -> BasicSet<'c> {
        BasicSet::wrap(ok(self.raw.affine_hull()))
    }
    /// The set of coefficients `(c0, c_params, c_dims)` of every affine form that is
    /// non-negative on the whole set (Farkas' lemma, computed by isl).
    pub fn coefficients(self) -> BasicSet<'c> {
        BasicSet::wrap(ok(self.raw.coefficients()))
    }
    /// [`coefficients`](Self::coefficients), failing instead of panicking (under a budget:
    /// [`Ctx::bounded`]).
    pub fn try_coefficients(self) -> Result<BasicSet<'c>, IslError> {
        Ok(BasicSet::wrap(fallible(self.raw.coefficients())?))
    }
    /// Smallest value of dimension `pos` over the set, as a piecewise expression of the
    /// parameters.
    pub fn dim_min(self, pos: usize) -> PwAff<'c> {
        PwAff::wrap(ok(self.raw.dim_min(pos as i32)))
    }
    pub fn dim_max(self, pos: usize) -> PwAff<'c> {
        PwAff::wrap(ok(self.raw.dim_max(pos as i32)))
    }
    pub fn unwrap(self) -> Map<'c> {
        Map::wrap(ok(self.raw.unwrap()))
    }
    pub fn identity(self) -> Map<'c> {
        Map::wrap(ok(self.raw.identity()))
    }
    /// The number of points of a bounded set without parameters.
    pub fn count(&self) -> Option<u64> {
        let v = Val::wrap(ok(self.raw.count_val()));
        v.to_i64().and_then(|n| u64::try_from(n).ok())
    }
    pub fn basic_sets(&self) -> Vec<BasicSet<'c>> {
        let list = ok(self.raw.get_basic_set_list());
        (0..ok(list.size()))
            .map(|i| BasicSet::wrap(ok(list.get_at(i))))
            .collect()
    }
    pub fn to_union_set(self) -> UnionSet<'c> {
        UnionSet::wrap(ok(self.raw.to_union_set()))
    }
    /// Every integer point of a bounded, parameter-free set, as coordinates of its set
    /// dimensions, in lexicographic order.
    pub fn points(&self) -> Vec<Vec<i64>> {
        let n = self.dim(DimType::Set);
        let mut out: Vec<Vec<i64>> = Vec::new();
        let mut state = (n, &mut out);
        extern "C" fn visit(pnt: usize, user: *mut c_void) -> c_int {
            let (n, out) = unsafe { &mut *(user as *mut (usize, &mut Vec<Vec<i64>>)) };
            let mut coords = Vec::with_capacity(*n);
            for i in 0..*n {
                // isl_dim_set == 3
                let v = unsafe { isl_point_get_coordinate_val(pnt, 3, i as c_int) };
                let (num, den) = unsafe { (isl_val_get_num_si(v), isl_val_get_den_si(v)) };
                unsafe { isl_val_free(v) };
                debug_assert_eq!(den, 1);
                coords.push(num);
            }
            out.push(coords);
            unsafe { isl_point_free(pnt) };
            0
        }
        let copy = ok(self.raw.copy());
        let r =
            unsafe { isl_set_foreach_point(copy.ptr, visit, &mut state as *mut _ as *mut c_void) };
        drop(copy);
        assert!(r == 0, "isl_set_foreach_point failed (unbounded set?)");
        out.sort_unstable();
        out
    }
}

impl<'c> Set<'c> {
    /// Some point of the set, with the values of its parameters: `(params, dims)` as decimal
    /// text (values may exceed 64 bits). `None` when the set is empty.
    pub fn sample_with_params(&self) -> Option<(Vec<String>, Vec<String>)> {
        if self.is_empty() {
            return None;
        }
        let copy = ok(self.raw.copy());
        let p = ok(copy.sample_point());
        let coords = |t: DimType, n: usize| -> Vec<String> {
            (0..n)
                .map(|i| Val::wrap(ok(p.get_coordinate_val(t, i as i32))).to_string())
                .collect()
        };
        let (np, nd) = (self.dim(DimType::Param), self.dim(DimType::Set));
        Some((coords(DimType::Param, np), coords(DimType::Set, nd)))
    }
}

/// isl's matrix of constraint `rows`, each `columns` integers (the layout
/// `isl_basic_*_from_constraint_matrices` reads).
fn constraint_matrix(ctx: &raw::Context, rows: &[Vec<i64>], columns: usize) -> raw::Mat {
    let mut m = ok(raw::Mat::alloc(ctx, rows.len() as u32, columns as u32));
    for (i, r) in rows.iter().enumerate() {
        for (j, &c) in r.iter().enumerate() {
            let v = ok(raw::Val::int_from_si(ctx, c));
            m = ok(m.set_element_val(i as i32, j as i32, v));
        }
    }
    m
}

impl<'c> BasicSet<'c> {
    pub fn parse(ctx: &'c Ctx, text: &str) -> Result<BasicSet<'c>, IslError> {
        let r = fallible(raw::BasicSet::read_from_str(ctx.raw(), text))?;
        if r.ptr == 0 {
            return Err(IslError(format!("cannot parse basic set `{text}`")));
        }
        Ok(BasicSet::wrap(r))
    }
    /// The basic set of `n` unnamed dimensions (no parameters) bounded by `eq` rows (`= 0`)
    /// and `ineq` rows (`>= 0`), each `n` coefficients then the constant: the inverse of
    /// [`BasicSet::constraint_rows`]. Built through isl's constraint matrices rather than its
    /// text parser, which dominated the scheduler's exact integer programs (a third of adi's
    /// compile time went into parsing them).
    pub fn from_rows(ctx: &'c Ctx, n: usize, eq: &[Vec<i64>], ineq: &[Vec<i64>]) -> BasicSet<'c> {
        for r in eq.iter().chain(ineq) {
            assert_eq!(
                r.len(),
                n + 1,
                "a constraint row has n coefficients and a constant"
            );
        }
        let mat = |rows: &[Vec<i64>]| constraint_matrix(ctx.raw(), rows, n + 1);
        let space = ok(raw::Space::set_alloc(ctx.raw(), 0, n as u32));
        BasicSet::wrap(ok(raw::BasicSet::from_constraint_matrices(
            space,
            mat(eq),
            mat(ineq),
            DimType::Set,
            DimType::Param,
            DimType::Div,
            DimType::Cst,
        )))
    }
    pub fn to_set(self) -> Set<'c> {
        Set::from_basic_set(self)
    }
    pub fn is_empty(&self) -> bool {
        ok(self.raw.is_empty())
    }
    /// [`is_empty`](Self::is_empty), failing instead of panicking (under a budget:
    /// [`Ctx::bounded`]).
    pub fn try_is_empty(&self) -> Result<bool, IslError> {
        fallible(self.raw.is_empty())
    }
    pub fn intersect(self, other: BasicSet<'c>) -> BasicSet<'c> {
        BasicSet::wrap(ok(self.raw.intersect(other.raw)))
    }
    pub fn dim(&self, t: DimType) -> usize {
        count(ok(self.raw.dim(t)))
    }
    /// The rows `[eq | ineq]` of the constraints in column order params, set dims, divs,
    /// constant (the "simple matrix" layout of the thesis, §5.6).
    pub fn constraint_rows(&self) -> ConstraintRows {
        self.try_constraint_rows()
            .expect("constraint coefficients fit in i64")
    }
    /// [`BasicSet::constraint_rows`], or `None` when a coefficient does not fit in an `i64`
    /// (user constants can be that large; printers report it instead of failing).
    pub fn try_constraint_rows(&self) -> Option<ConstraintRows> {
        let order = || (DimType::Param, DimType::Set, DimType::Div, DimType::Cst);
        let (a, b, c, d) = order();
        let eq = ok(self.raw.equalities_matrix(a, b, c, d));
        let (a, b, c, d) = order();
        let ineq = ok(self.raw.inequalities_matrix(a, b, c, d));
        Some((mat_rows(&eq)?, mat_rows(&ineq)?))
    }
    pub fn lexmin(self) -> Set<'c> {
        Set::wrap(ok(self.raw.lexmin()))
    }
    /// [`lexmin`](Self::lexmin), failing instead of panicking (under a budget:
    /// [`Ctx::bounded`]).
    pub fn try_lexmin(self) -> Result<Set<'c>, IslError> {
        Ok(Set::wrap(fallible(self.raw.lexmin())?))
    }
    pub fn sample_point(self) -> Option<Vec<i64>> {
        let s = self.to_set();
        if s.is_empty() {
            return None;
        }
        let p = ok(s.raw.sample_point());
        let n = count(ok(ok(p.get_space()).dim(DimType::Set)));
        Some(
            (0..n)
                .map(|i| {
                    let v = Val::wrap(ok(p.get_coordinate_val(DimType::Set, i as i32)));
                    v.to_i64().expect("integer point")
                })
                .collect(),
        )
    }
}

/// Equality rows and inequality rows of a basic set (see [`BasicSet::constraint_rows`]).
pub type ConstraintRows = (Vec<Vec<i64>>, Vec<Vec<i64>>);

/// The rows of an integer matrix; `None` if an entry does not fit in an `i64`.
fn mat_rows(m: &raw::Mat) -> Option<Vec<Vec<i64>>> {
    let (r, c) = (ok(m.rows()), ok(m.cols()));
    (0..r)
        .map(|i| {
            (0..c)
                .map(|j| Val::wrap(ok(m.get_element_val(i, j))).to_i64())
                .collect()
        })
        .collect()
}

impl<'c> Map<'c> {
    pub fn parse(ctx: &'c Ctx, text: &str) -> Result<Map<'c>, IslError> {
        let r = fallible(raw::Map::read_from_str(ctx.raw(), text))?;
        if r.ptr == 0 {
            return Err(IslError(format!("cannot parse map `{text}`")));
        }
        Ok(Map::wrap(r))
    }
    /// Parse isl notation in this map's context.
    pub fn parse_sibling(&self, text: &str) -> Result<Map<'c>, IslError> {
        let r = fallible(raw::Map::read_from_str(&self.raw.get_ctx(), text))?;
        if r.ptr == 0 {
            return Err(IslError(format!("cannot parse map `{text}`")));
        }
        Ok(Map::wrap(r))
    }
    pub fn from_basic_map(b: BasicMap<'c>) -> Map<'c> {
        Map::wrap(ok(raw::Map::from_basic_map(b.raw)))
    }
    pub fn from_domain_and_range(domain: Set<'c>, range: Set<'c>) -> Map<'c> {
        Map::wrap(ok(raw::Map::from_domain_and_range(domain.raw, range.raw)))
    }
    pub fn intersect(self, other: Map<'c>) -> Map<'c> {
        Map::wrap(ok(self.raw.intersect(other.raw)))
    }
    pub fn intersect_domain(self, set: Set<'c>) -> Map<'c> {
        Map::wrap(ok(self.raw.intersect_domain(set.raw)))
    }
    pub fn intersect_range(self, set: Set<'c>) -> Map<'c> {
        Map::wrap(ok(self.raw.intersect_range(set.raw)))
    }
    pub fn intersect_params(self, params: Set<'c>) -> Map<'c> {
        Map::wrap(ok(self.raw.intersect_params(params.raw)))
    }
    pub fn union(self, other: Map<'c>) -> Map<'c> {
        Map::wrap(ok(self.raw.union(other.raw)))
    }
    pub fn subtract(self, other: Map<'c>) -> Map<'c> {
        Map::wrap(ok(self.raw.subtract(other.raw)))
    }
    pub fn apply_range(self, other: Map<'c>) -> Map<'c> {
        Map::wrap(ok(self.raw.apply_range(other.raw)))
    }
    pub fn apply_domain(self, other: Map<'c>) -> Map<'c> {
        Map::wrap(ok(self.raw.apply_domain(other.raw)))
    }
    pub fn reverse(self) -> Map<'c> {
        Map::wrap(ok(self.raw.reverse()))
    }
    pub fn domain(self) -> Set<'c> {
        Set::wrap(ok(self.raw.domain()))
    }
    pub fn range(self) -> Set<'c> {
        Set::wrap(ok(self.raw.range()))
    }
    pub fn wrap_set(self) -> Set<'c> {
        Set::wrap(ok(self.raw.wrap()))
    }
    pub fn deltas(self) -> Set<'c> {
        Set::wrap(ok(self.raw.deltas()))
    }
    /// Simplify the representation; this object itself if isl fails inside (an isl bug seen on
    /// sets with 2^32 moduli).
    pub fn coalesce(self) -> Map<'c> {
        let before = self.clone();
        coalesced(self.raw.coalesce()).map_or(before, Map::wrap)
    }
    pub fn detect_equalities(self) -> Map<'c> {
        Map::wrap(ok(self.raw.detect_equalities()))
    }
    /// [`detect_equalities`](Self::detect_equalities) then [`coalesce`](Self::coalesce), failing
    /// when isl runs out of its operation budget instead of panicking.
    pub fn try_simplify(self) -> Result<Map<'c>, IslError> {
        let m = Map::wrap(fallible(self.raw.detect_equalities())?);
        let before = m.clone();
        match fallible(m.raw.coalesce()) {
            Ok(c) => Ok(Map::wrap(c)),
            Err(e) if e.is_quota() => Err(e),
            Err(_) => Ok(before),
        }
    }
    /// The map simplified for inputs in `context` (isl_map_gist_domain): equal to this one on
    /// `context`, without the constraints `context` implies.
    pub fn gist_domain(self, context: Set<'c>) -> Map<'c> {
        Map::wrap(ok(self.raw.gist_domain(context.raw)))
    }
    pub fn remove_redundancies(self) -> Map<'c> {
        Map::wrap(ok(self.raw.remove_redundancies()))
    }
    pub fn lexmin(self) -> Map<'c> {
        Map::wrap(ok(self.raw.lexmin()))
    }
    pub fn lexmax(self) -> Map<'c> {
        Map::wrap(ok(self.raw.lexmax()))
    }
    pub fn is_empty(&self) -> bool {
        ok(self.raw.is_empty())
    }
    pub fn is_subset(&self, other: &Map<'c>) -> bool {
        ok(self.raw.is_subset(&other.raw))
    }
    pub fn is_equal(&self, other: &Map<'c>) -> bool {
        ok(self.raw.is_equal(&other.raw))
    }
    pub fn dim(&self, t: DimType) -> usize {
        count(ok(self.raw.dim(t)))
    }
    /// The dimension's name; `None` for an unnamed one (isl-rs would read its NULL name).
    pub fn dim_name(&self, t: DimType, pos: usize) -> Option<String> {
        if !self.raw.has_dim_name(t, pos as u32).unwrap_or(false) {
            return None;
        }
        self.raw.get_dim_name(t, pos as u32).ok().map(str::to_owned)
    }
    pub fn in_tuple_name(&self) -> Option<String> {
        if !ok(self.raw.has_tuple_name(DimType::In)) {
            return None;
        }
        self.raw.get_tuple_name(DimType::In).ok().map(str::to_owned)
    }
    pub fn out_tuple_name(&self) -> Option<String> {
        if !ok(self.raw.has_tuple_name(DimType::Out)) {
            return None;
        }
        self.raw
            .get_tuple_name(DimType::Out)
            .ok()
            .map(str::to_owned)
    }
    pub fn set_tuple_name(self, t: DimType, name: &str) -> Map<'c> {
        Map::wrap(ok(self.raw.set_tuple_name(t, name)))
    }
    pub fn fix(self, t: DimType, pos: usize, v: i64) -> Map<'c> {
        let val = ok(raw::Val::int_from_si(&self.raw.get_ctx(), v));
        Map::wrap(ok(self.raw.fix_val(t, pos as u32, val)))
    }
    pub fn project_out(self, t: DimType, first: usize, n: usize) -> Map<'c> {
        Map::wrap(ok(self.raw.project_out(t, first as u32, n as u32)))
    }
    pub fn insert_dims(self, t: DimType, pos: usize, n: usize) -> Map<'c> {
        Map::wrap(ok(self.raw.insert_dims(t, pos as u32, n as u32)))
    }
    pub fn basic_maps(&self) -> Vec<BasicMap<'c>> {
        let list = ok(self.raw.get_basic_map_list());
        (0..ok(list.size()))
            .map(|i| BasicMap::wrap(ok(list.get_at(i))))
            .collect()
    }
    pub fn to_union_map(self) -> UnionMap<'c> {
        UnionMap::wrap(ok(self.raw.to_union_map()))
    }
    /// The map over this map's space (its parameters, input and output tuples) whose points
    /// satisfy `row · (x, y, 1) = 0` (`equality`) or `>= 0`, `row` holding the input then the
    /// output coefficients and the constant. Built through isl's constraint matrices: the
    /// scheduler's distance tests parsed one such map per test, a fifth of adi's compile time.
    pub fn constraint_like(&self, row: &[i64], equality: bool) -> Map<'c> {
        let (n_in, n_out) = (self.dim(DimType::In), self.dim(DimType::Out));
        let n_param = self.dim(DimType::Param);
        assert_eq!(
            row.len(),
            n_in + n_out + 1,
            "a row has a coefficient per input and output dimension, and a constant"
        );
        let ctx = self.raw.get_ctx();
        let columns = n_in + n_out + n_param + 1;
        // Columns: input, output, parameters (zero), constant.
        let (dims, constant) = row.split_at(n_in + n_out);
        let full: Vec<i64> = dims
            .iter()
            .copied()
            .chain(std::iter::repeat_n(0, n_param))
            .chain(constant.iter().copied())
            .collect();
        let (eq, ineq) = match equality {
            true => (vec![full], vec![]),
            false => (vec![], vec![full]),
        };
        let mat = |rows: &[Vec<i64>]| constraint_matrix(&ctx, rows, columns);
        let space = ok(self.raw.get_space());
        Map::from_basic_map(BasicMap::wrap(ok(raw::BasicMap::from_constraint_matrices(
            space,
            mat(&eq),
            mat(&ineq),
            DimType::In,
            DimType::Out,
            DimType::Param,
            DimType::Div,
            DimType::Cst,
        ))))
    }
    /// `{ x -> y : x ≺ y }` over this map's space, with the first `n` output dimensions
    /// compared (isl_map_lex_lt_first on a set space).
    pub fn lex_lt_first(space_of: &Set<'c>, n: usize) -> Map<'c> {
        let space = ok(space_of.raw.get_space());
        Map::wrap(ok(raw::Map::lex_lt_first(space, n as u32)))
    }
}

impl<'c> BasicMap<'c> {
    pub fn to_map(self) -> Map<'c> {
        Map::from_basic_map(self)
    }
    pub fn wrap_set(self) -> BasicSet<'c> {
        BasicSet::wrap(ok(self.raw.wrap()))
    }
    pub fn is_empty(&self) -> bool {
        ok(self.raw.is_empty())
    }
    pub fn dim(&self, t: DimType) -> usize {
        count(ok(self.raw.dim(t)))
    }
}

impl<'c> UnionSet<'c> {
    pub fn parse(ctx: &'c Ctx, text: &str) -> Result<UnionSet<'c>, IslError> {
        let r = fallible(raw::UnionSet::read_from_str(ctx.raw(), text))?;
        if r.ptr == 0 {
            return Err(IslError(format!("cannot parse union set `{text}`")));
        }
        Ok(UnionSet::wrap(r))
    }
    /// Whether `self` is a subset of `other`, failing instead of panicking (under a budget:
    /// [`Ctx::bounded`]).
    pub fn try_is_subset(&self, other: &UnionSet<'c>) -> Result<bool, IslError> {
        fallible(self.raw.is_subset(&other.raw))
    }
    pub fn empty(ctx: &'c Ctx) -> UnionSet<'c> {
        UnionSet::wrap(ok(raw::UnionSet::empty_ctx(ctx.raw())))
    }
    pub fn union(self, other: UnionSet<'c>) -> UnionSet<'c> {
        UnionSet::wrap(ok(self.raw.union(other.raw)))
    }
    pub fn add_set(self, set: Set<'c>) -> UnionSet<'c> {
        UnionSet::wrap(ok(self.raw.add_set(set.raw)))
    }
    pub fn is_empty(&self) -> bool {
        ok(self.raw.is_empty())
    }
    pub fn sets(&self) -> Vec<Set<'c>> {
        let list = ok(self.raw.get_set_list());
        (0..ok(list.size()))
            .map(|i| Set::wrap(ok(list.get_at(i))))
            .collect()
    }
}

impl<'c> UnionMap<'c> {
    pub fn parse(ctx: &'c Ctx, text: &str) -> Result<UnionMap<'c>, IslError> {
        let r = fallible(raw::UnionMap::read_from_str(ctx.raw(), text))?;
        if r.ptr == 0 {
            return Err(IslError(format!("cannot parse union map `{text}`")));
        }
        Ok(UnionMap::wrap(r))
    }
    pub fn empty(ctx: &'c Ctx) -> UnionMap<'c> {
        UnionMap::wrap(ok(raw::UnionMap::empty_ctx(ctx.raw())))
    }
    pub fn union(self, other: UnionMap<'c>) -> UnionMap<'c> {
        UnionMap::wrap(ok(self.raw.union(other.raw)))
    }
    pub fn add_map(self, map: Map<'c>) -> UnionMap<'c> {
        UnionMap::wrap(ok(self.raw.add_map(map.raw)))
    }
    pub fn subtract(self, other: UnionMap<'c>) -> UnionMap<'c> {
        UnionMap::wrap(ok(self.raw.subtract(other.raw)))
    }
    pub fn intersect(self, other: UnionMap<'c>) -> UnionMap<'c> {
        UnionMap::wrap(ok(self.raw.intersect(other.raw)))
    }
    pub fn apply_range(self, other: UnionMap<'c>) -> UnionMap<'c> {
        UnionMap::wrap(ok(self.raw.apply_range(other.raw)))
    }
    // The `try_` operations below fail instead of panicking, for computations under a budget
    // ([`Ctx::bounded`]), where every isl call fails once the budget is spent.
    pub fn try_range(self) -> Result<UnionSet<'c>, IslError> {
        fallible(self.raw.range()).map(UnionSet::wrap)
    }
    pub fn try_apply_range(self, other: UnionMap<'c>) -> Result<UnionMap<'c>, IslError> {
        fallible(self.raw.apply_range(other.raw)).map(UnionMap::wrap)
    }
    pub fn try_intersect(self, other: UnionMap<'c>) -> Result<UnionMap<'c>, IslError> {
        fallible(self.raw.intersect(other.raw)).map(UnionMap::wrap)
    }
    pub fn try_reverse(self) -> Result<UnionMap<'c>, IslError> {
        fallible(self.raw.reverse()).map(UnionMap::wrap)
    }
    pub fn try_is_empty(&self) -> Result<bool, IslError> {
        fallible(self.raw.is_empty())
    }
    /// `{ a -> [b -> c] : self(a) = b and other(a) = c }`.
    pub fn try_range_product(self, other: UnionMap<'c>) -> Result<UnionMap<'c>, IslError> {
        fallible(self.raw.range_product(other.raw)).map(UnionMap::wrap)
    }
    /// `{ a -> b : self(a) <lex other(b) }`.
    pub fn try_lex_lt_union_map(self, other: UnionMap<'c>) -> Result<UnionMap<'c>, IslError> {
        fallible(self.raw.lex_lt_union_map(other.raw)).map(UnionMap::wrap)
    }
    pub fn intersect_params(self, params: Set<'c>) -> UnionMap<'c> {
        UnionMap::wrap(ok(self.raw.intersect_params(params.raw)))
    }
    pub fn reverse(self) -> UnionMap<'c> {
        UnionMap::wrap(ok(self.raw.reverse()))
    }
    /// Simplify the representation; this object itself if isl fails inside (an isl bug seen on
    /// sets with 2^32 moduli).
    pub fn coalesce(self) -> UnionMap<'c> {
        let before = self.clone();
        coalesced(self.raw.coalesce()).map_or(before, UnionMap::wrap)
    }
    /// [`coalesce`](Self::coalesce), failing when isl runs out of its operation budget.
    pub fn try_coalesce(self) -> Result<UnionMap<'c>, IslError> {
        let before = self.clone();
        match fallible(self.raw.coalesce()) {
            Ok(c) => Ok(UnionMap::wrap(c)),
            Err(e) if e.is_quota() => Err(e),
            Err(_) => Ok(before),
        }
    }
    pub fn is_empty(&self) -> bool {
        ok(self.raw.is_empty())
    }
    pub fn maps(&self) -> Vec<Map<'c>> {
        let list = ok(self.raw.get_map_list());
        (0..ok(list.size()))
            .map(|i| Map::wrap(ok(list.get_at(i))))
            .collect()
    }
}

/// The inputs of isl's array dataflow analysis (`isl_union_access_info`).
pub struct Dataflow<'c> {
    /// Sink accesses: statement instance → array element.
    pub sink: UnionMap<'c>,
    /// Writes that certainly happen and kill older values.
    pub must_source: UnionMap<'c>,
    /// Accesses that may be sources but kill nothing.
    pub may_source: UnionMap<'c>,
    /// The original execution order: statement instance → time vector.
    pub schedule: UnionMap<'c>,
}

/// What `isl_union_access_info_compute_flow` found.
pub struct FlowResult<'c> {
    /// Source instance → sink instance, for sources that are certainly the last writer.
    pub must_dependence: UnionMap<'c>,
    /// All possible source → sink pairs (a superset of `must_dependence`).
    pub may_dependence: UnionMap<'c>,
    /// Sink accesses (instance → element) that no source precedes.
    pub must_no_source: UnionMap<'c>,
}

impl<'c> Dataflow<'c> {
    /// [`Dataflow::compute`], or the error isl reported (the context's error is cleared).
    pub fn try_compute(self, ctx: &'c Ctx) -> Result<FlowResult<'c>, IslError> {
        let result = self.flow();
        if result.is_err() {
            ctx.reset_error();
        }
        result
    }
    pub fn compute(self) -> FlowResult<'c> {
        self.flow()
            .unwrap_or_else(|e| panic!("internal error in polyc's use of isl: {e}"))
    }
    fn flow(self) -> Result<FlowResult<'c>, IslError> {
        let info = fallible(raw::UnionAccessInfo::from_sink(self.sink.raw))?;
        let info = fallible(info.set_must_source(self.must_source.raw))?;
        let info = fallible(info.set_may_source(self.may_source.raw))?;
        let info = fallible(info.set_schedule_map(self.schedule.raw))?;
        let flow = fallible(info.compute_flow())?;
        Ok(FlowResult {
            must_dependence: UnionMap::wrap(fallible(flow.get_must_dependence())?),
            may_dependence: UnionMap::wrap(fallible(flow.get_may_dependence())?),
            must_no_source: UnionMap::wrap(fallible(flow.get_must_no_source())?),
        })
    }
}

/// Build a C string for isl calls that take names; names with NUL bytes never reach here.
#[allow(dead_code)]
fn c_string(s: &str) -> CString {
    CString::new(s).expect("names never contain NUL")
}

#[allow(dead_code)]
fn c_str_to_string(p: *const c_char) -> String {
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fallible isl operation that counts: the emptiness of a small set.
    fn some_isl_work(ctx: &Ctx) -> Result<bool, IslError> {
        BasicSet::parse(ctx, "[n] -> { [i, j] : 0 <= i < n and 0 <= j < i }")?.try_is_empty()
    }

    #[test]
    fn a_step_past_its_time_is_stopped_and_the_next_step_runs() {
        let ctx = Ctx::new();
        let late = ctx.bounded(1_000_000, Duration::from_millis(5), || {
            std::thread::sleep(Duration::from_millis(100));
            some_isl_work(&ctx)
        });
        assert!(late.is_none(), "the watchdog stopped the step: {late:?}");
        // The alarm of the late step does not reach the next one, nor unbounded work.
        for _ in 0..3 {
            let next = ctx.bounded(1_000_000, Duration::from_secs(60), || some_isl_work(&ctx));
            assert!(matches!(next, Some(Ok(false))), "{next:?}");
        }
        assert!(!some_isl_work(&ctx).unwrap());
    }

    #[test]
    fn steps_within_their_time_share_one_watchdog_thread() {
        let ctx = Ctx::new();
        for _ in 0..200 {
            let r = ctx.bounded(1_000_000, Duration::from_secs(60), || some_isl_work(&ctx));
            assert!(matches!(r, Some(Ok(false))));
        }
        assert!(ctx.watchdog.thread.get().is_some());
        // An inner step keeps the outer step's earlier deadline, and restores it after.
        let outer = ctx.bounded(1_000_000, Duration::from_millis(50), || {
            let inner = ctx.bounded(1_000_000, Duration::from_secs(60), || some_isl_work(&ctx));
            assert!(matches!(inner, Some(Ok(false))));
            std::thread::sleep(Duration::from_millis(200));
            some_isl_work(&ctx)
        });
        assert!(outer.is_none(), "{outer:?}");
        drop(ctx); // joins the watchdog
    }

    #[test]
    fn a_constraint_row_is_the_map_isl_parses() {
        let ctx = Ctx::new();
        let piece =
            Map::parse(&ctx, "[n, m] -> { S[i, j] -> T[k] : 0 <= i < n and j = m }").unwrap();
        let eq = piece.constraint_like(&[1, -2, 3, 5], true);
        let want = Map::parse(&ctx, "[n, m] -> { S[i, j] -> T[k] : i - 2j + 3k + 5 = 0 }").unwrap();
        assert!(eq.is_equal(&want));
        let ge = piece.constraint_like(&[0, 1, -1, -1], false);
        let want = Map::parse(&ctx, "[n, m] -> { S[i, j] -> T[k] : j - k - 1 >= 0 }").unwrap();
        assert!(ge.is_equal(&want));
        // Same space as the piece: they intersect.
        assert!(!piece.intersect(ge).is_empty());
    }

    #[test]
    fn fallbacks_are_taken_once_each_and_forgotten_between_marks() {
        let ctx = Ctx::new();
        ctx.fell_back(Phase::Tiling, "untiled");
        let mark = ctx.fallback_mark();
        ctx.fell_back(Phase::CodeGeneration, "tried and dropped");
        ctx.forget_fallbacks(mark..ctx.fallback_mark());
        ctx.fell_back(Phase::Scheduling, "no diamond");
        ctx.fell_back(Phase::Tiling, "untiled");
        assert_eq!(
            ctx.take_fallbacks(),
            vec![
                Fallback::new(Phase::Tiling, "untiled"),
                Fallback::new(Phase::Scheduling, "no diamond")
            ]
        );
        assert!(ctx.take_fallbacks().is_empty());
    }

    #[test]
    fn parse_print_and_points() {
        let ctx = Ctx::new();
        let s = Set::parse(&ctx, "{ S[i, j] : 0 <= i < 3 and 0 <= j <= i }").unwrap();
        assert_eq!(s.count(), Some(6));
        let pts = s.points();
        assert_eq!(pts.len(), 6);
        assert!(pts.contains(&vec![2, 1]));
        assert!(s.to_string().contains("S[i, j]"));
    }

    #[test]
    fn basic_set_from_rows_is_the_inverse_of_constraint_rows() {
        let ctx = Ctx::new();
        // x0 = x1 + 1, 0 <= x1 <= 3.
        let eq = vec![vec![1, -1, -1]];
        let ineq = vec![vec![0, 1, 0], vec![0, -1, 3]];
        let b = BasicSet::from_rows(&ctx, 2, &eq, &ineq);
        assert_eq!(b.to_string(), "{ [i0, i1] : i1 = -1 + i0 and 0 < i0 <= 4 }");
        let (eqs, ineqs) = b.constraint_rows();
        assert_eq!(eqs.len(), 1);
        assert_eq!(ineqs.len(), 2);
        let s = b.to_set();
        assert_eq!(s.count(), Some(4));
        assert_eq!(s.lexmin().points(), vec![vec![1, 0]]);
    }

    #[test]
    fn loops_are_not_shifted_so_iterators_are_times() {
        // isl's own example of a shifted stride: A at even times, B at odd ones. Left to
        // itself isl scans both in one loop of step 2 and runs B at `c0` for its time `c0 + 1`.
        let ctx = Ctx::new();
        let context = || Set::parse(&ctx, "{ : }").unwrap();
        let schedule = || {
            UnionMap::parse(
                &ctx,
                "{ A[i] -> [2i] : 0 <= i < 10; B[i] -> [2i + 1] : 0 <= i < 10 }",
            )
            .unwrap()
        };
        let its = ["c0".to_string()];
        let shifted = build_ast(&ctx, context(), schedule(), &its, None).unwrap();
        let follows = |ast: &AstNode| {
            super::super::ast_check::check(&ctx, ast, &schedule(), &context(), &its).follows
        };
        assert!(!follows(&shifted));
        for separate in [false, true] {
            let options = ast_options(&ctx, its.len(), separate);
            let ast = build_ast(&ctx, context(), schedule(), &its, options).unwrap();
            assert!(follows(&ast));
        }
        assert!(ast_from_schedule(&ctx, context(), schedule(), &its).is_ok());
    }

    #[test]
    fn ast_generation_over_its_budget_fails_and_the_context_recovers() {
        let ctx = Ctx::new();
        let context = || Set::parse(&ctx, "[n] -> { : n >= 0 }").unwrap();
        let schedule = || {
            UnionMap::parse(
                &ctx,
                "[n] -> { S[i, j] -> [i, j] : 0 <= i < n and 0 <= j <= i; T[i] -> [i, n] : 0 <= i < n }",
            )
            .unwrap()
        };
        let its = ["c0".to_string(), "c1".to_string()];
        assert_eq!(
            ast_within(&ctx, context(), schedule(), &its, 1).err(),
            Some(AstFailure::OverBudget)
        );
        let ast = ast_from_schedule(&ctx, context(), schedule(), &its).unwrap();
        let text = ast.to_string();
        assert!(
            text.contains("{ id: S }") && text.contains("{ id: T }"),
            "{text}"
        );
    }

    #[test]
    fn parse_errors_are_values() {
        let ctx = Ctx::new();
        assert!(Set::parse(&ctx, "{ S[i] : i <= }").is_err());
    }

    #[test]
    fn extended_affine_syntax() {
        let ctx = Ctx::new();
        let s = Set::parse(
            &ctx,
            "[n] -> { S[i, j] : 0 <= i < n and max(0, i - 2) <= j <= min(n - 1, floor((i + 1)/2)) \
             and (i mod 2) = 0 and ((i > 3 and j <= i) or (not (i > 3) and j <= 3)) }",
        )
        .unwrap();
        let s = s.fix(DimType::Param, 0, 6);
        assert_eq!(
            s.points(),
            vec![vec![0, 0], vec![2, 0], vec![2, 1], vec![4, 2]]
        );
    }

    #[test]
    fn coefficients_is_farkas() {
        let ctx = Ctx::new();
        let s = Set::parse(&ctx, "{ [i] : 0 <= i <= 10 }").unwrap();
        let (eq, ineq) = s.coefficients().constraint_rows();
        // Columns: c_cst, c_i, constant. The affine form c_cst + c_i*i is valid on [0,10]
        // exactly when c_cst >= 0 and c_cst + 10 c_i >= 0.
        let holds = |c: [i64; 2]| {
            eq.iter().all(|r| r[0] * c[0] + r[1] * c[1] + r[2] == 0)
                && ineq.iter().all(|r| r[0] * c[0] + r[1] * c[1] + r[2] >= 0)
        };
        assert!(holds([0, 1]), "i >= 0");
        assert!(holds([10, -1]), "10 - i >= 0");
        assert!(!holds([-1, 1]), "i - 1 >= 0 is not valid at i = 0");
    }
}
