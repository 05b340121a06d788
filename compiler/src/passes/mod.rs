//! Graph passes, one per file, each named once in kebab-case; that name is its `ember-opt` flag.
//!
//! A pass takes a graph and its [`PassContext`] and returns whether it changed anything. A pass
//! never changes what the program computes: tensor ops that may alias or mutate are left alone
//! until alias analysis exists.

pub mod canonicalize;
pub mod canonicalize_outputs;
pub mod constant_pooling;
pub mod constant_propagation;
pub mod context;
pub mod cse;
pub mod dce;
pub mod fold_conv_arith;
pub mod fold_conv_batch_norm;
pub mod fold_linear_batch_norm;
pub mod forward_object_attributes;
pub mod fuse_epilogues;
pub mod fuse_tensor_exprs;
pub mod guard_tensor_exprs;
pub mod inline;
pub mod lower_tuples;
pub mod remove_dropout;
pub mod remove_mutation;
pub mod remove_repeated_checks;
pub mod specialize_profiled_types;
#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
pub(crate) mod testing_fold;
pub mod unroll_constant_loops;

pub use context::{LogLevel, PassConfig, PassContext};

use ember_dialects::Graph;

use crate::frontend::{
    canonicalize_modified_loop, convert_to_ssa, exit_transform, inline_loop_condition,
};

/// The signature every pass has. `Err` is for input the pass cannot handle, with a message.
pub type PassFn = fn(&mut Graph, &mut PassContext) -> Result<bool, String>;

/// One registered pass.
pub struct PassInfo {
    pub name: &'static str,
    pub description: &'static str,
    pub run: PassFn,
}

/// Every pass, in the order `--help` lists them.
pub static PASSES: &[PassInfo] = &[
    PassInfo {
        name: "canonicalize",
        description: "Simplify scalar arithmetic and comparisons with egg rewrite rules",
        run: canonicalize::run,
    },
    PassInfo {
        name: "canonicalize-modified-loops",
        description: "Turn loops with both a trip count and a condition into while-style loops",
        run: canonicalize_modified_loop::run,
    },
    PassInfo {
        name: "canonicalize-outputs",
        description: "Order the outputs of If and Loop nodes by their first use, as PyTorch does",
        run: canonicalize_outputs::run,
    },
    PassInfo {
        name: "constant-pooling",
        description: "Merge equal immutable constants and hoist them to the top of the graph",
        run: constant_pooling::run,
    },
    PassInfo {
        name: "constant-propagation",
        description: "Fold nodes whose inputs are all constants; inline Ifs on constant conditions",
        run: constant_propagation::run,
    },
    PassInfo {
        name: "convert-to-ssa",
        description:
            "Convert the emitter's Load/Store graph to SSA: If/Loop outputs, exits, loop conditions",
        run: convert_to_ssa::run,
    },
    PassInfo {
        name: "cse",
        description: "Eliminate common subexpressions within dominance scopes",
        run: cse::run,
    },
    PassInfo {
        name: "dce",
        description: "Remove nodes whose results are unused and that have no side effects",
        run: dce::run,
    },
    PassInfo {
        name: "exit-transform",
        description:
            "Remove LoopContinuation and ReturnStmt nodes by guarding what follows an exit",
        run: exit_transform::run,
    },
    PassInfo {
        name: "fold-conv-arith",
        description: "Fold a per-channel constant added to, subtracted from, multiplying or dividing a frozen convolution into its weight and bias",
        run: fold_conv_arith::run,
    },
    PassInfo {
        name: "fold-conv-batch-norm",
        description: "Fold an inference batch_norm into the frozen convolution before it",
        run: fold_conv_batch_norm::run,
    },
    PassInfo {
        name: "fold-linear-batch-norm",
        description: "Fold an inference batch_norm into the frozen linear layer before it",
        run: fold_linear_batch_norm::run,
    },
    PassInfo {
        name: "forward-object-attributes",
        description: "Forward stores to reads of attributes of objects made in the graph that nothing else sees",
        run: forward_object_attributes::run,
    },
    PassInfo {
        name: "fuse-epilogues",
        description: "Fuse a convolution or linear layer with the residual add and activation after it into one Ember op",
        run: fuse_epilogues::run,
    },
    PassInfo {
        name: "fuse-tensor-exprs",
        description: "Group fusible elementwise ops on profiled tensor types into prim::TensorExprGroup subgraphs",
        run: fuse_tensor_exprs::run,
    },
    PassInfo {
        name: "guard-tensor-exprs",
        description: "Guard each prim::TensorExprGroup with prim::TypeCheck and a fallback function; unspecialize types outside groups",
        run: guard_tensor_exprs::run,
    },
    PassInfo {
        name: "inline",
        description: "Inline calls to known functions and subgraph nodes into their parent",
        run: inline::run,
    },
    PassInfo {
        name: "inline-loop-condition",
        description: "Move a pre-SSA loop condition before the loop and to the end of its body",
        run: inline_loop_condition::run,
    },
    PassInfo {
        name: "lower-tuples",
        description:
            "Forward tuple elements to their unpacks, splitting tuples through If and Loop",
        run: lower_tuples::run,
    },
    PassInfo {
        name: "insert-profiles",
        description: "Instrument tensor uses with prim::profile nodes (the executor's profiling)",
        run: crate::executor::profile::run,
    },
    PassInfo {
        name: "remove-dropout",
        description: "Remove dropout that does not train (train is the constant False)",
        run: remove_dropout::run,
    },
    PassInfo {
        name: "remove-repeated-checks",
        description: "Remove a check that raises on a condition an earlier check already raised on",
        run: remove_repeated_checks::run,
    },
    PassInfo {
        name: "remove-mutation",
        description:
            "Turn in-place ops on values nothing else observes into functional ops; fold appends into list constructions",
        run: remove_mutation::run,
    },
    PassInfo {
        name: "specialize-profiled-types",
        description: "Remove prim::profile nodes, typing each profiled value with what profiling saw",
        run: specialize_profiled_types::run,
    },
    PassInfo {
        name: "unroll-constant-loops",
        description: "Replace for loops of fewer than 64 constant trips by copies of their body",
        run: unroll_constant_loops::run,
    },
];

/// The passes ember-run runs over every graph of a model before it runs, in order: calls
/// inlined, tuples taken apart, constants folded, scalar code simplified, in-place ops made
/// functional where nothing can tell, then duplicates merged and dead code removed.
pub const OPTIMIZATION_PIPELINE: &[&str] = &[
    "inline",
    "forward-object-attributes",
    "lower-tuples",
    "constant-propagation",
    "canonicalize",
    "remove-mutation",
    "cse",
    "remove-repeated-checks",
    "dce",
    "constant-pooling",
];

/// Runs pass `name` over `g` with the context `config` gives it (and its time on stderr when
/// `EMBER_TIME_PASSES=1`).
pub fn run_pass(config: &PassConfig, name: &str, g: &mut Graph) -> Result<bool, String> {
    let pass = lookup(name).ok_or_else(|| format!("no pass named '{name}'"))?;
    let started = std::time::Instant::now();
    let changed = (pass.run)(g, &mut config.context_for(pass.name))?;
    if config.time_passes {
        eprintln!(
            "[time] {}: {:.3} ms",
            pass.name,
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    Ok(changed)
}

/// The pass named `name`, if there is one.
pub fn lookup(name: &str) -> Option<&'static PassInfo> {
    PASSES.iter().find(|p| p.name == name)
}
