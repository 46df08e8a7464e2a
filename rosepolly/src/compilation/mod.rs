//! Layer 1 of RosePolly (thesis §5.3): the compilation interface.
//!
//! From a C file to models: [`source`] preprocesses and parses, [`regions`] finds the SCoP
//! regions, [`flowgraph`] builds each region's FlowGraph, [`extract`] turns it into a
//! [`Scop`] under a [`RosePollyCustom`] policy, and [`crate::analysis::deps`] computes the dependences.

pub mod affine;
pub mod aliasing;
pub mod cexpr;
mod copy_out;
pub mod custom;
mod exits;
pub mod expand;
pub mod extract;
pub mod flowgraph;
pub mod regions;
pub mod source;
pub mod split;
pub mod symbols;
pub mod ucn;
mod wraps;

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
    let taken = std::rc::Rc::new(src.identifiers());
    for (id, r) in found.into_iter().enumerate() {
        let flow = match crate::model::flow::FlowGraph::build(src, &r.items) {
            Ok(f) => f,
            Err(e) => {
                errors.extend(e);
                continue;
            }
        };
        let scope = symbols::Scope::at(src, r.function, r.region.start_offset);
        let input = extract::RegionInput {
            function: symbols::function_name(&r.function.node),
            live: live_outside(r.function, &r.region, &scope),
            taken: taken.clone(),
            scope,
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

/// The variables that code outside `region` may read: globals, and every variable the
/// function's expressions use outside the region (a later read, or an earlier one that a loop
/// around the region repeats).
fn live_outside(
    f: &lang_c::span::Node<lang_c::ast::FunctionDefinition>,
    region: &crate::model::Region,
    scope: &symbols::Scope,
) -> std::collections::BTreeSet<String> {
    use lang_c::visit::Visit;
    struct Uses {
        region: (usize, usize),
        names: std::collections::BTreeSet<String>,
    }
    impl<'ast> Visit<'ast> for Uses {
        fn visit_expression(
            &mut self,
            e: &'ast lang_c::ast::Expression,
            span: &'ast lang_c::span::Span,
        ) {
            let inside = span.start >= self.region.0 && span.end <= self.region.1;
            if let (lang_c::ast::Expression::Identifier(id), false) = (e, inside) {
                self.names.insert(id.node.name.clone());
            }
            lang_c::visit::visit_expression(self, e, span);
        }
    }
    let mut uses = Uses {
        region: (region.start_offset, region.end_offset),
        names: Default::default(),
    };
    uses.visit_statement(&f.node.statement.node, &f.node.statement.span);
    let mut live = uses.names;
    live.retain(|n| scope.get(n).is_some());
    live.extend(scope.globals());
    live
}
