//! Layer 3 of RosePolly (thesis §5.6): the math interface.
//!
//! [`isl`] is the one safe layer over isl; [`Domain`] and [`Relation`] are the polyhedral objects
//! the other layers use; [`ConstraintMatrix`] is the plain integer view of their constraints,
//! with [`fm`] (Fourier–Motzkin elimination) on it.

pub mod ast_check;
pub mod domain;
pub mod fm;
pub mod isl;
pub mod matrix;

pub use domain::{Domain, Relation};
pub use matrix::ConstraintMatrix;
