//! Layer 2 of RosePolly (thesis §5.5): the polyhedral model of a SCoP.
//!
//! A [`Scop`] holds its statements (each with domain, original schedule and access patterns),
//! the dependences between statement instances, and a symbol table of [`Datum`]s. Everything
//! polyhedral is a layer-3 object ([`Domain`], [`Relation`]) and borrows the isl context `'c`.

pub mod affine;
pub mod ctype;
pub mod expr;
pub mod flow;
pub mod user_names;

use std::collections::BTreeMap;

use serde::Serialize;

use crate::diag::Loc;
use crate::math::{Domain, Relation};
use affine::{Affine, AffineCond};
use expr::Expr;
use flow::{CondId, FlowGraph, LoopId, StmtId};

/// One SCoP: a `#pragma scop` region (or an automatically detected one).
pub struct Scop<'c> {
    /// Position among the SCoPs of the file, from 0.
    pub id: usize,
    /// The function that contains the region.
    pub function: String,
    pub region: Region,
    /// Problem-size parameters: integer symbols the region reads but never writes, in order of
    /// first use.
    pub params: Vec<String>,
    /// Their C types.
    pub param_types: Vec<ctype::IntType>,
    pub statements: Vec<Statement<'c>>,
    pub symbols: SymbolTable<'c>,
    pub dependences: Vec<Dependence<'c>>,
    /// The direct dependences ([`crate::analysis::deps::direct`]), computed with
    /// [`Scop::dependences`]: the scheduler, Algorithm 4 and the GPU code's barrier checks use
    /// them. `None` where extraction skipped the analysis or it ran over its budget.
    pub direct_dependences: Option<Vec<Dependence<'c>>>,
    /// The region's syntax, and what the extraction policy made of its loops and conditions.
    pub flow: FlowGraph,
    pub loops: Vec<AffineLoop>,
    pub conditions: Vec<AffineCond>,
    /// isl names of parameters, iterators and arrays (C names that collide with isl's keywords
    /// are renamed).
    pub names: IslNames,
    /// Where the model is C's meaning only for some parameter values (a conversion that the
    /// model takes as exact could change a value elsewhere): those values, and why. The
    /// generated code checks them when it runs and keeps the original code for the others.
    pub assumptions: Option<Assumptions<'c>>,
    /// The iterators declared outside the SCoP, and the values it leaves in them.
    pub exits: Vec<IteratorExit<'c>>,
    /// Parameters the SCoP defines itself (the last of [`Scop::params`]): a C conversion of
    /// other parameters' values that the model cannot follow, computed by the generated code.
    pub derived: Vec<Derived>,
    /// Why polyc must leave this SCoP as the user wrote it, if it must: an analysis ran over its
    /// budget ([`crate::analysis::deps::try_compute`]), so its dependences are unknown and
    /// [`Scop::dependences`] is empty; or isl could not compute the value an iterator that later
    /// code reads has after the SCoP. Schedulers and code generators check this first.
    pub untransformable: Option<String>,
    /// Where an analysis degraded instead of failing, what it did (`--dump schedule` lists
    /// them): the transformation stays correct, and may be less good.
    pub fallbacks: Vec<String>,
    /// The statements split at hyperplanes of their iteration space
    /// ([`crate::compilation::split`]).
    pub splits: Vec<Split>,
}

/// A statement split into pieces that are parallel where it was not.
#[derive(Debug, Clone, Serialize)]
pub struct Split {
    /// The statement's name (its first piece keeps it).
    pub statement: String,
    /// The hyperplanes, as equations in the statement's iterators and parameters (`j = k`).
    pub hyperplanes: Vec<String>,
    /// How many outer iterators, held fixed, leave every piece free of dependences on itself.
    pub outer: usize,
    /// The pieces' names, the original's first.
    pub pieces: Vec<String>,
}

impl std::fmt::Display for Split {
    /// `S0 at j = k and i = k into S0, S9, S10 (each parallel inside 1 outer loop)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} at {} into {} (each parallel inside {} outer loop{})",
            self.statement,
            self.hyperplanes.join(" and "),
            self.pieces.join(", "),
            self.outer,
            if self.outer == 1 { "" } else { "s" }
        )
    }
}

/// A parameter defined as `(ty)(value)`, `value` an expression of earlier parameters.
#[derive(Debug, Clone)]
pub struct Derived {
    pub name: String,
    pub value: Affine,
    pub ty: ctype::IntType,
}

/// An iterator declared outside the SCoP, which C's loops leave at their exit value.
pub struct IteratorExit<'c> {
    pub name: String,
    pub ty: ctype::IntType,
    /// `{ [v] }` over the parameters: the value the SCoP leaves (empty where it assigns the
    /// iterator no value); `None` when no code outside the SCoP reads the iterator.
    pub value: Option<Domain<'c>>,
}

/// The parameter values for which a SCoP's model is exact.
pub struct Assumptions<'c> {
    /// A set over the SCoP's parameters (isl names).
    pub context: Domain<'c>,
    /// The conversions that need it, in words, each with where it is.
    pub reasons: Vec<(Loc, String)>,
}

/// Where a symbol was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Storage {
    Global,
    Parameter,
    Local,
    /// An array polyc made from a scalar or a smaller array ([`Datum::expands`]): the generated
    /// code allocates it when the SCoP starts and frees it at the end; no value enters or leaves
    /// through it (an expanded array's final values go back by copy-out statements).
    Expanded,
}

/// Where a SCoP is in the user's file.
#[derive(Debug, Clone, Serialize)]
pub struct Region {
    /// The `#pragma scop` line, or the first line of a detected region.
    pub start: Loc,
    /// The `#pragma endscop` line, or the last line of a detected region.
    pub end: Loc,
    /// Byte offsets of the region in the preprocessed text.
    pub start_offset: usize,
    pub end_offset: usize,
    /// Whether the region was marked with pragmas (false: found by `--auto-scop`).
    pub marked: bool,
}

/// A loop as the model sees it: `for (it = init; cond; it += stride)`.
#[derive(Debug, Clone, Serialize)]
pub struct AffineLoop {
    pub iterator: String,
    /// The iterator's C type.
    pub ty: ctype::IntType,
    pub init: Affine,
    /// The loop condition; a conjunction of bounds on the iterator in the loop's direction.
    pub cond: AffineCond,
    /// Non-zero; negative for loops counting down.
    pub stride: i64,
    pub loc: Loc,
}

/// A SCoP statement.
#[derive(Clone)]
pub struct Statement<'c> {
    pub id: usize,
    /// `S0`, `S1`... in textual order.
    pub name: String,
    pub loc: Loc,
    /// The statement as written (after preprocessing).
    pub text: String,
    /// What it computes.
    pub body: Expr,
    /// Enclosing loops' iterators, outermost first.
    pub iterators: Vec<String>,
    /// Their C types.
    pub iterator_types: Vec<ctype::IntType>,
    /// Whether generated code, whose counters are `long`, must convert values back to their C
    /// types to compute what the statement computes.
    pub casts: Casts,
    /// Enclosing loops (ids into [`Scop::loops`]), outermost first.
    pub loops: Vec<LoopId>,
    /// The FlowGraph node of the statement.
    pub flow_id: StmtId,
    pub domain: Domain<'c>,
    /// The original execution order: the statement instance → `(β0, i0, β1, i1, ..., βd)`,
    /// padded with zeros to the deepest statement (β are textual positions).
    pub schedule: Relation<'c>,
    /// Textual position at each depth (the β of the schedule).
    pub beta: Vec<usize>,
    pub accesses: Vec<AccessPattern<'c>>,
}

/// Which names a printed statement must convert to their C types (see
/// [`ctype::same_values`]): `int` iterators replaced by `long` expressions change, say,
/// `i - 5u` (an `unsigned int` in C, a `long` then).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Casts {
    /// The iterators, where the parameters keep their C types (host code).
    pub iterators: bool,
    /// The iterators and the parameters, where both are `long` (device code).
    pub iterators_and_params: bool,
}

impl Statement<'_> {
    pub fn depth(&self) -> usize {
        self.iterators.len()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AccessKind {
    Read,
    Write,
}

/// One array (or scalar) reference of a statement.
#[derive(Clone)]
pub struct AccessPattern<'c> {
    pub datum: String,
    pub kind: AccessKind,
    pub subscripts: Vec<Affine>,
    /// Statement instance → array element.
    pub relation: Relation<'c>,
}

/// Flow (read after write), anti (write after read) or output (write after write).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DepKind {
    Flow,
    Anti,
    Output,
}

/// Instances of `sink` that depend on instances of `source` through one datum.
#[derive(Clone)]
pub struct Dependence<'c> {
    pub kind: DepKind,
    pub source: usize,
    pub sink: usize,
    pub datum: String,
    /// Source instance → sink instance.
    pub relation: Relation<'c>,
}

/// The symbol table: every array and scalar the SCoP touches.
#[derive(Default)]
pub struct SymbolTable<'c> {
    pub data: BTreeMap<String, Datum<'c>>,
}

impl<'c> SymbolTable<'c> {
    pub fn get(&self, name: &str) -> Option<&Datum<'c>> {
        self.data.get(name)
    }
}

/// An array or scalar of the SCoP (thesis §5.5).
pub struct Datum<'c> {
    pub name: String,
    /// Arithmetic element type with typedefs resolved (`double`, `int`, `char`...).
    pub elem_type: String,
    /// The type as the user wrote it (typedef names kept).
    pub written_type: String,
    /// One entry per dimension; `None` where the declaration does not say (`double *p`).
    /// Scalars have none.
    pub extents: Vec<Option<Affine>>,
    pub read: bool,
    pub written: bool,
    /// Every element the SCoP accesses (union of the access images), as a set over the array's
    /// dimensions and the parameters.
    pub footprint: Domain<'c>,
    pub storage: Storage,
    pub declared_at: Loc,
    /// The scalar or array this array replaces (storage [`Storage::Expanded`]): element `[i0]..[id-1]`
    /// holds the scalar's value in the iteration `(i0, .., id-1)` of its enclosing loops.
    pub expands: Option<String>,
    /// How many leading dimensions index iterations of the loops it was expanded over (the
    /// rest are the original array's): all of a scalar's expansion, none where `expands` is
    /// `None`.
    pub expanded_dims: usize,
}

impl Datum<'_> {
    pub fn is_scalar(&self) -> bool {
        self.extents.is_empty()
    }
}

/// C names → names safe in isl's textual notation.
#[derive(Debug, Clone, Default)]
pub struct IslNames {
    map: BTreeMap<String, String>,
}

/// The prefix of the names polyc generates, in isl text and in C.
pub const GENERATED_PREFIX: &str = "polyc_";

/// Words isl's parser reserves (case-insensitively).
const ISL_KEYWORDS: &[&str] = &[
    "exists", "and", "or", "implies", "not", "infty", "nan", "min", "max", "rat", "true", "false",
    "floord", "mod", "ceil", "floor", "ceild", "domain", "range", "params", "mode",
];

impl IslNames {
    /// The isl name of a C name, allocated on first use.
    pub fn name(&mut self, c_name: &str) -> String {
        self.name_with_key(c_name, c_name)
    }

    /// A name for something that is not a C variable (a statement, an array tuple), under its
    /// own key so that it cannot be confused with a variable of the same spelling.
    pub fn name_with_key(&mut self, key: &str, preferred: &str) -> String {
        if let Some(n) = self.map.get(key) {
            return n.clone();
        }
        let mut candidate = preferred.to_string();
        // Generated isl names (tile sizes `polyc_T0`, outer values `polyc_x0`...) start with
        // `polyc_`: a C name that does too is given another.
        if candidate.to_ascii_lowercase().starts_with(GENERATED_PREFIX) {
            candidate.insert_str(0, "u_");
        }
        while ISL_KEYWORDS.contains(&candidate.to_ascii_lowercase().as_str())
            || self.map.values().any(|v| *v == candidate)
        {
            candidate.push('_');
        }
        self.map.insert(key.to_string(), candidate.clone());
        candidate
    }

    /// The isl name of a C name already allocated (the C name itself otherwise).
    pub fn get(&self, c_name: &str) -> String {
        self.map
            .get(c_name)
            .cloned()
            .unwrap_or_else(|| c_name.to_string())
    }
}

impl<'c> Scop<'c> {
    pub fn statement(&self, name: &str) -> Option<&Statement<'c>> {
        self.statements.iter().find(|s| s.name == name)
    }

    /// The deepest loop nesting of any statement.
    pub fn max_depth(&self) -> usize {
        self.statements
            .iter()
            .map(Statement::depth)
            .max()
            .unwrap_or(0)
    }

    /// The parameters the program gives (those the SCoP does not derive itself).
    pub fn user_params(&self) -> impl Iterator<Item = &String> {
        self.params
            .iter()
            .filter(|p| !self.derived.iter().any(|d| d.name == **p))
    }

    /// Values of every parameter from values of the program's: the derived ones computed as the
    /// generated code computes them (values given for them are replaced).
    pub fn complete_params(&self, given: &[(String, i64)]) -> Vec<(String, i64)> {
        let mut env: Vec<(String, i64)> = given
            .iter()
            .filter(|(p, _)| !self.derived.iter().any(|d| d.name == *p))
            .cloned()
            .collect();
        for d in &self.derived {
            let lookup = |v: &str| env.iter().find(|(p, _)| p == v).map(|(_, x)| *x);
            if let Ok(v) = d.value.eval(&lookup) {
                env.push((d.name.clone(), d.ty.convert(v as i128) as i64));
            }
        }
        env
    }

    /// The name (`S<n>`) and isl tuple of a statement added after the SCoP's last (a copy-out
    /// statement, a piece of a split one).
    pub fn next_statement_name(&mut self) -> (String, String) {
        let name = format!("S{}", self.statements.len());
        let tuple = self
            .names
            .name_with_key(&format!("statement {name}"), &name);
        (name, tuple)
    }

    /// The isl parameter prefix `[n, m] -> ` of this SCoP (empty without parameters).
    pub fn isl_params(&self) -> String {
        if self.params.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = self.params.iter().map(|p| self.names.get(p)).collect();
            format!("[{}] -> ", names.join(", "))
        }
    }
}

/// `CondId` is re-exported for users of [`Scop::conditions`].
pub type ConditionId = CondId;
