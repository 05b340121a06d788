//! The cleanup PyTorch's script compiler runs on each function after SSA conversion
//! (`runCleanupPasses` in torch/csrc/jit/frontend/run_cleanup_passes.cpp), with Ember's
//! passes: tuple lowering, constant propagation (each followed by dead code elimination, as
//! PyTorch's versions end), constant pooling and the canonical order of control-flow outputs.
//!
//! Not here: closure lifting and forked-closure inlining (no closures yet) and `AnnotateWarns`.
//! Ember's constant propagation also folds lists nothing writes, where PyTorch's
//! `ConstantPropagationImmutableTypes` leaves every list alone.

use ember_dialects::Graph;

use crate::passes::{
    canonicalize_outputs, constant_pooling, constant_propagation, dce, lower_tuples,
};
use crate::passes::{PassContext, PassFn};

/// Runs the cleanup passes in PyTorch's order.
pub fn run_cleanup_passes(g: &mut Graph) -> Result<(), String> {
    let passes: [(&'static str, PassFn); 6] = [
        ("lower-tuples", lower_tuples::run),
        ("dce", dce::run),
        ("constant-propagation", constant_propagation::run),
        ("dce", dce::run),
        ("constant-pooling", constant_pooling::run),
        ("canonicalize-outputs", canonicalize_outputs::run),
    ];
    for (name, pass) in passes {
        let mut cx = PassContext::unlimited(name);
        pass(g, &mut cx)?;
    }
    Ok(())
}
