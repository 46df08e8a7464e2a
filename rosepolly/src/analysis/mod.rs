//! Analyses of a built model, below model extraction (`compilation`) and above the model:
//! dependences ([`deps`], isl's dataflow analysis), footprint sets ([`footprint`]) and the
//! parameter values code can meet ([`params`]). pluto, ptile and codegen read them; none of
//! them reaches into `compilation` for an analysis.

pub mod deps;
pub mod footprint;
pub mod params;
