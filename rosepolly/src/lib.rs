//! RosePolly: polyc's polyhedral front end and model (thesis Chapters 3 and 5).
//!
//! Four layers, each usable on its own:
//!
//! * [`compilation`] (layer 1): from a C file to [`model::Scop`]s — preprocessing and parsing
//!   (lang-c), the FlowGraph of each SCoP region, model extraction through a policy the user
//!   can override ([`compilation::RosePollyCustom`]).
//! * [`analysis`] (layer 2): exact dependence analysis, footprint sets, parameter boxes.
//! * [`model`] (layer 3): statements with domain, schedule and accesses; dependences; the
//!   symbol table of [`model::Datum`]s.
//! * [`math`] (layer 4): [`math::Domain`] and [`math::Relation`] over isl through one safe layer,
//!   constraint matrices, Fourier–Motzkin, convex hull, lexmin.
//!
//! [`enumerate`] executes a SCoP instance by instance at given parameter values; it is the
//! independent check of everything polyhedral (dependences here, schedules and tilings in
//! later crates).
//!
//! # Example: a custom flow (thesis §5.4)
//!
//! A policy that rejects conditionals, then a look at every SCoP's dependences:
//!
//! ```
//! use rosepolly::compilation::{self, affine::AffineContext};
//! use rosepolly::model::flow::Conditional;
//! use rosepolly::compilation::{Detection, RosePollyCustom, SourceOptions, SourceUnit};
//! use rosepolly::diag::Diagnostic;
//! use rosepolly::math::isl::Ctx;
//! use rosepolly::model::affine::AffineCond;
//!
//! /// Only loop nests without `if`s are SCoPs here.
//! struct NoConditionals;
//! impl RosePollyCustom for NoConditionals {
//!     fn evaluate_conditional(&self, c: &Conditional, _: &AffineContext) -> Result<AffineCond, Diagnostic> {
//!         Err(Diagnostic::new(c.loc.clone(), "conditionals are not allowed by this flow"))
//!     }
//! }
//!
//! let dir = std::env::temp_dir().join(format!("rosepolly-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir).unwrap();
//! let file = dir.join("k.c");
//! std::fs::write(&file, "void k(int n, double A[100]) {\n#pragma scop\n\
//!     for (int i = 1; i < n; i++)\n    A[i] = A[i - 1] + 1.0;\n#pragma endscop\n}\n").unwrap();
//!
//! let src = SourceUnit::load(&file, &SourceOptions::default()).unwrap();
//! let ctx = Ctx::new();
//! let scops = compilation::build_models_with(&ctx, &src, Detection::Pragmas, &mut NoConditionals).unwrap();
//! let scop = &scops[0];
//! assert_eq!(scop.params, vec!["n"]);
//! // A[i] is read by the next iteration: one flow dependence S0 -> S0.
//! let flow: Vec<_> = scop.dependences.iter().filter(|d| d.kind == rosepolly::model::DepKind::Flow).collect();
//! assert_eq!(flow.len(), 1);
//! println!("{}", flow[0].relation); // [n] -> { S0[i] -> S0[i' = 1 + i] : 0 < i <= -2 + n }
//! ```

pub mod analysis;
pub mod compilation;
pub mod diag;
pub mod dump;
pub mod enumerate;
pub mod math;
pub mod model;
pub mod openscop;
pub mod syntax;
