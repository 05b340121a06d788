//! `inline-loop-condition`: moves each pre-SSA loop's condition block into place, after
//! PyTorch's `torch/csrc/jit/frontend/inline_loop_condition.cpp`.
//!
//! The emitter builds `prim::Loop(%max_trip_count)` with a body `block0(%i)` and a condition
//! `block1() -> (%cond)`. The condition is evaluated once before the loop (a copy inserted
//! before the node, its result the loop's start condition, input 1) and once at the end of
//! each iteration (the block's nodes moved to the end of the body, its result the body's first
//! output, the continue condition). The loop is left with its body block only.

use hashbrown::HashMap;

use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node};

use super::convert_to_ssa::{sub_block, SsaError};
use crate::passes::PassContext;

/// Moves every node of `b`, in order, to just before `before` (PyTorch's
/// `InlineBlockBeforeNode`). `b`'s outputs are left as they are.
pub fn inline_block_before_node(g: &mut Graph, before: Node, b: Block) {
    let nodes: Vec<Node> = g.block_nodes(b).collect();
    for n in nodes {
        g.move_before(n, before);
    }
}

/// Inlines the condition block of every loop of the graph, inner loops first.
pub fn inline_loop_condition(g: &mut Graph) -> Result<(), SsaError> {
    inline_in_block(g, g.block())
}

/// The `inline-loop-condition` pass of `ember-opt`.
pub fn run(g: &mut Graph, _cx: &mut PassContext) -> Result<bool, String> {
    // Only loops straight from the emitter still have their condition block.
    let had_loops = g
        .nodes()
        .into_iter()
        .any(|n| g.kind(n) == sym::loop_() && g.node_blocks(n).len() == 2);
    if !had_loops {
        return Ok(false);
    }
    inline_loop_condition(g).map_err(|e| e.to_string())?;
    Ok(had_loops)
}

fn inline_in_block(g: &mut Graph, b: Block) -> Result<(), SsaError> {
    let mut cur = g.first_node(b);
    while let Some(n) = cur {
        for sub in g.node_blocks(n).to_vec() {
            inline_in_block(g, sub)?;
        }
        if g.kind(n) == sym::loop_() {
            inline_one(g, n)?;
        }
        // The copy of the condition went before `n`; the next node is unchanged.
        cur = g.next_node(n);
    }
    Ok(())
}

fn inline_one(g: &mut Graph, n: Node) -> Result<(), SsaError> {
    let body = sub_block(g, n, 0, 2)?;
    let pre_header = sub_block(g, n, 1, 2)?;
    if g.block_outputs(pre_header).len() != 1 {
        return Err(SsaError::at(
            g,
            n,
            "the condition block of a prim::Loop must return one value",
        ));
    }
    // The start condition: a copy of the condition block before the loop.
    let temp = g.add_block(n);
    g.clone_block_into(None, pre_header, temp, &mut HashMap::new());
    inline_block_before_node(g, n, temp);
    let start = g.block_outputs(temp)[0];
    g.insert_node_input(n, 1, start);
    g.erase_block(n, 2);
    // The continue condition: the block itself at the end of the body.
    let ret = g.return_node(body);
    inline_block_before_node(g, ret, pre_header);
    let next = g.block_outputs(pre_header)[0];
    g.block_insert_output(body, 0, next);
    g.erase_block(n, 1);
    Ok(())
}
