//! Layer 1 of RosePolly (thesis §5.3): the compilation interface.
//!
//! From a C file to models: [`source`] preprocesses and parses, [`regions`] finds the SCoP
//! regions, [`flowgraph`] builds each region's FlowGraph, [`extract`] turns it into a
//! [`Scop`] under a [`RosePollyCustom`] policy, and [`deps`] computes the dependences.

pub mod affine;
pub mod cexpr;
pub mod custom;
pub mod deps;
pub mod extract;
pub mod flowgraph;
pub mod regions;
pub mod source;
pub mod symbols;

use crate::diag::Diagnostics;
use crate::math::isl::Ctx;
use crate::model::Scop;
pub use custom::{DefaultCustom, RosePollyCustom};
pub use source::{SourceOptions, SourceUnit};

/// How SCoPs are found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Detection {
    /// `#pragma scop` … `#pragma endscop` regions.
    #[default]
    Pragmas,
    /// Maximal affine regions, pragmas ignored (`--auto-scop`).
    Automatic,
}

/// Build the model of every SCoP of a file with the default policy (the thesis'
/// `RosePollyBuildModel`).
pub fn build_models<'c>(
    ctx: &'c Ctx,
    src: &SourceUnit,
    detection: Detection,
) -> Result<Vec<Scop<'c>>, Diagnostics> {
    build_models_with(ctx, src, detection, &mut DefaultCustom::default())
}

/// Build the model of every SCoP of a file with a custom policy (the overloaded
/// `RosePollyBuildModel` of thesis Figure 5.5).
pub fn build_models_with<'c>(
    ctx: &'c Ctx,
    src: &SourceUnit,
    detection: Detection,
    custom: &mut dyn RosePollyCustom,
) -> Result<Vec<Scop<'c>>, Diagnostics> {
    let found = match detection {
        Detection::Pragmas => regions::marked(src)?,
        Detection::Automatic => regions::automatic(src, custom),
    };
    let mut errors = Diagnostics::default();
    let mut scops = Vec::new();
    for (id, r) in found.into_iter().enumerate() {
        let flow = match flowgraph::FlowGraph::build(src, &r.items) {
            Ok(f) => f,
            Err(e) => {
                errors.extend(e);
                continue;
            }
        };
        let input = extract::RegionInput {
            function: symbols::function_name(&r.function.node),
            scope: symbols::Scope::at(src, r.function, r.region.start_offset),
            region: r.region,
            flow,
        };
        match extract::build(ctx, id, input, custom) {
            Ok(s) => scops.push(s),
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(scops)
    } else {
        Err(errors.normalize())
    }
}
