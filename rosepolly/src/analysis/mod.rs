//! Analyses of a built model, below model extraction (`compilation`) and above the model:
//! dependences ([`deps`], isl's dataflow analysis), footprint sets ([`footprint`]), the
//! parameter values code can meet ([`params`]) and the statements that are reductions
//! ([`reductions`]). pluto, ptile and codegen read them; none of
//! them reaches into `compilation` for an analysis.

pub mod deps;
pub mod footprint;
pub mod params;
pub mod reductions;
