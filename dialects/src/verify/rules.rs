//! Structural rules by node kind: block boundaries, the control-flow nodes `prim::If`,
//! `prim::Loop` and `prim::With`, `prim::Constant`, and the fusion groups whose `Subgraph`
//! stands for the node. The shapes are those PyTorch's IR emitter and fusers build.

use super::describe::{self, count};
use crate::attr::AttrValue;
use crate::ir::{Block, Graph, Node, Value};
use crate::symbol::{sym, Symbol};
use crate::types::Type;

type Errors = Vec<(Node, String)>;

pub(super) fn check_node(g: &Graph, n: Node, errors: &mut Errors) {
    if g.is_block_boundary(n) {
        check_boundary(g, n, errors);
        return;
    }
    let kind = g.kind(n);
    if kind == sym::param() {
        errors.push((
            n,
            "prim::Param may only be the parameter node of a block".to_string(),
        ));
    } else if kind == sym::ret() {
        errors.push((
            n,
            "prim::Return may only be the return node of a block".to_string(),
        ));
    } else if kind == sym::if_() {
        check_if(g, n, errors);
    } else if kind == sym::loop_() {
        check_loop(g, n, errors);
    } else if kind == sym::with() {
        check_with(g, n, errors);
    } else if kind == sym::constant() {
        check_constant(g, n, errors);
    } else if is_subgraph_group(kind) {
        check_group(g, n, errors);
    }
}

/// A block's parameter node defines its inputs and nothing else; its return node uses its
/// outputs and defines nothing.
fn check_boundary(g: &Graph, n: Node, errors: &mut Errors) {
    let Some(b) = g.owning_block(n) else { return };
    let (want, forbidden, found) = if g.param_node(b) == n {
        (sym::param(), "input", g.node_inputs(n).len())
    } else {
        (sym::ret(), "output", g.node_outputs(n).len())
    };
    // `the parameter node of block 0 of prim::If`, built only when there is an error.
    let subject = || describe::node(g, n);
    if g.kind(n) != want {
        let msg = format!("{} has kind {} instead of {want}", subject(), g.kind(n));
        errors.push((n, msg));
    }
    if found != 0 {
        let msg = format!(
            "{} has {}; it must have none",
            subject(),
            count(found, forbidden)
        );
        errors.push((n, msg));
    }
    if !g.node_blocks(n).is_empty() {
        errors.push((n, format!("{} has blocks; it must have none", subject())));
    }
}

/// `%y = prim::If(%cond)` with a then and an else block, each taking nothing and returning
/// one value per output.
fn check_if(g: &Graph, n: Node, errors: &mut Errors) {
    let inputs = g.node_inputs(n);
    if inputs.len() != 1 {
        errors.push((
            n,
            format!(
                "prim::If must have 1 input (the condition), found {}",
                inputs.len()
            ),
        ));
    } else {
        expect_type(
            g,
            n,
            inputs[0],
            &Type::Bool,
            "the condition of prim::If",
            "a bool",
            errors,
        );
    }
    let blocks = g.node_blocks(n);
    if blocks.len() != 2 {
        errors.push((
            n,
            format!("prim::If must have 2 blocks, found {}", blocks.len()),
        ));
        return;
    }
    for &b in blocks {
        no_block_inputs(g, n, b, errors);
        returns_node_outputs(g, n, b, errors);
    }
}

/// `%carried_out = prim::Loop(%max_trip_count, %initial_condition, %carried_in)` whose body
/// takes `(%iteration, %carried)` and returns `(%condition, %carried_next)`.
fn check_loop(g: &Graph, n: Node, errors: &mut Errors) {
    let inputs = g.node_inputs(n);
    if inputs.len() < 2 {
        errors.push((
            n,
            format!(
                "prim::Loop must have at least 2 inputs (the max trip count and the initial \
                 condition), found {}",
                inputs.len()
            ),
        ));
    } else {
        expect_type(
            g,
            n,
            inputs[0],
            &Type::Int,
            "the max trip count of prim::Loop",
            "an int",
            errors,
        );
        expect_type(
            g,
            n,
            inputs[1],
            &Type::Bool,
            "the initial condition of prim::Loop",
            "a bool",
            errors,
        );
    }
    let carried = inputs.len().checked_sub(2);
    let outputs = g.node_outputs(n).len();
    if let Some(carried) = carried.filter(|&c| c != outputs) {
        errors.push((
            n,
            format!(
                "prim::Loop has {} but {}",
                count(outputs, "output"),
                count(carried, "loop-carried value")
            ),
        ));
    }
    let blocks = g.node_blocks(n);
    if blocks.len() != 1 {
        errors.push((
            n,
            format!("prim::Loop must have 1 block, found {}", blocks.len()),
        ));
        return;
    }
    let body = blocks[0];
    let Some(carried) = carried else { return };
    let params = g.block_inputs(body);
    if params.len() != 1 + carried {
        errors.push((
            n,
            format!(
                "the body of prim::Loop takes {}, expected {} (the iteration number and {})",
                count(params.len(), "input"),
                1 + carried,
                count(carried, "loop-carried value")
            ),
        ));
    } else {
        let what = "the iteration number of prim::Loop's body";
        expect_type(g, n, params[0], &Type::Int, what, "an int", errors);
    }
    let returned = g.block_outputs(body);
    if returned.len() != 1 + carried {
        errors.push((
            n,
            format!(
                "the body of prim::Loop returns {}, expected {} (the continue condition and {})",
                count(returned.len(), "value"),
                1 + carried,
                count(carried, "loop-carried value")
            ),
        ));
    } else {
        let what = "the continue condition returned by prim::Loop's body";
        expect_type(g, n, returned[0], &Type::Bool, what, "a bool", errors);
    }
}

/// `prim::With` holds the body of a `with` statement and the block that runs `__exit__`;
/// the exit transform may give it outputs, which the body returns.
fn check_with(g: &Graph, n: Node, errors: &mut Errors) {
    let blocks = g.node_blocks(n);
    if blocks.len() != 2 {
        errors.push((
            n,
            format!(
                "prim::With must have 2 blocks (body and exit), found {}",
                blocks.len()
            ),
        ));
        return;
    }
    no_block_inputs(g, n, blocks[0], errors);
    no_block_inputs(g, n, blocks[1], errors);
    returns_node_outputs(g, n, blocks[0], errors);
}

/// A constant takes nothing and defines one value (`None` included: `prim::Constant()`
/// typed `NoneType`).
fn check_constant(g: &Graph, n: Node, errors: &mut Errors) {
    let inputs = g.node_inputs(n).len();
    if inputs != 0 {
        errors.push((
            n,
            format!("prim::Constant must have no inputs, found {inputs}"),
        ));
    }
    let outputs = g.node_outputs(n).len();
    if outputs != 1 {
        errors.push((
            n,
            format!("prim::Constant must have 1 output, found {outputs}"),
        ));
    }
}

/// Node kinds that stand for the graph in their `Subgraph` attribute: inputs map to the
/// subgraph's inputs and outputs to its outputs.
fn is_subgraph_group(kind: Symbol) -> bool {
    [
        sym::fusion_group(),
        sym::tensor_expr_group(),
        sym::differentiable_graph(),
        sym::fallback_graph(),
        Symbol::prim("CudaFusionGroup"),
        Symbol::prim("oneDNNFusionGroup"),
    ]
    .contains(&kind)
}

fn check_group(g: &Graph, n: Node, errors: &mut Errors) {
    let kind = g.kind(n);
    let sub = match g.attr(n, sym::attr_subgraph()) {
        Some(AttrValue::Graph(sub)) => sub,
        Some(_) => {
            errors.push((
                n,
                format!("the Subgraph attribute of {kind} must be a graph"),
            ));
            return;
        }
        None => {
            errors.push((n, format!("{kind} must have a Subgraph attribute")));
            return;
        }
    };
    let (ins, sub_ins) = (g.node_inputs(n).len(), sub.inputs().len());
    if ins != sub_ins {
        errors.push((
            n,
            format!(
                "{kind} has {} but its subgraph takes {sub_ins}",
                count(ins, "input")
            ),
        ));
    }
    // Autodiff's forward graph also returns what the backward pass needs after the node's
    // real outputs, so a DifferentiableGraph's subgraph may return more than the node has.
    let (outs, sub_outs) = (g.node_outputs(n).len(), sub.outputs().len());
    let outputs = count(outs, "output");
    if kind == sym::differentiable_graph() {
        if outs > sub_outs {
            let msg = format!("{kind} has {outputs} but its subgraph returns only {sub_outs}");
            errors.push((n, msg));
        }
    } else if outs != sub_outs {
        errors.push((
            n,
            format!("{kind} has {outputs} but its subgraph returns {sub_outs}"),
        ));
    }
}

fn no_block_inputs(g: &Graph, n: Node, b: Block, errors: &mut Errors) {
    let k = g.block_inputs(b).len();
    if k != 0 {
        errors.push((
            n,
            format!("{} must have no inputs, found {k}", describe::block(g, b)),
        ));
    }
}

fn returns_node_outputs(g: &Graph, n: Node, b: Block, errors: &mut Errors) {
    let (returned, outputs) = (g.block_outputs(b).len(), g.node_outputs(n).len());
    if returned != outputs {
        errors.push((
            n,
            format!(
                "{} returns {} but {} has {}",
                describe::block(g, b),
                count(returned, "value"),
                g.kind(n),
                count(outputs, "output")
            ),
        ));
    }
}

fn expect_type(
    g: &Graph,
    n: Node,
    v: Value,
    want: &Type,
    what: &str,
    want_text: &str,
    errors: &mut Errors,
) {
    if g.ty(v) != want {
        errors.push((
            n,
            format!(
                "{what} must be {want_text}, found {} of type {}",
                describe::value(g, v),
                g.ty(v)
            ),
        ));
    }
}
