//! How the verifier names things in its messages: values as they print (`%x.1`), nodes by
//! their kind, blocks by their owner (`block 1 of prim::If`), boundary nodes by their role.

use crate::ir::{Block, Graph, Node, Value};

/// `%x.1`, or `%5` for an unnamed value.
pub(super) fn value(g: &Graph, v: Value) -> String {
    format!("%{}", g.value_name(v))
}

/// `the top block` or `block 1 of prim::If`.
pub(super) fn block(g: &Graph, b: Block) -> String {
    match g.owning_node(b) {
        None => "the top block".to_string(),
        Some(owner) => match g.node_blocks(owner).iter().position(|&x| x == b) {
            Some(i) => format!("block {i} of {}", g.kind(owner)),
            None => format!("a block of {}", g.kind(owner)),
        },
    }
}

/// The block whose parameter or return node `n` is.
fn boundary_of(g: &Graph, n: Node) -> Option<Block> {
    if g.is_block_boundary(n) {
        g.owning_block(n)
    } else {
        None
    }
}

fn is_return(g: &Graph, n: Node) -> Option<Block> {
    boundary_of(g, n).filter(|&b| g.return_node(b) == n)
}

fn is_param(g: &Graph, n: Node) -> Option<Block> {
    boundary_of(g, n).filter(|&b| g.param_node(b) == n)
}

/// A node as the subject of a sentence: its kind, or the role of a boundary node.
pub(super) fn node(g: &Graph, n: Node) -> String {
    if let Some(b) = is_return(g, n) {
        format!("the return node of {}", block(g, b))
    } else if let Some(b) = is_param(g, n) {
        format!("the parameter node of {}", block(g, b))
    } else {
        g.kind(n).to_string()
    }
}

/// How node `u` uses a value: `used by aten::add`, `returned by block 0 of prim::If`,
/// `returned by the graph`.
pub(super) fn used_by(g: &Graph, u: Node) -> String {
    match is_return(g, u) {
        Some(b) if g.owning_node(b).is_none() => "returned by the graph".to_string(),
        Some(b) => format!("returned by {}", block(g, b)),
        None => format!("used by {}", g.kind(u)),
    }
}

/// Input slot `i` of `u`: `input 1 of aten::add`, `graph output 0`, `output 0 of block 1 of
/// prim::If`.
pub(super) fn input_slot(g: &Graph, u: Node, i: usize) -> String {
    match is_return(g, u) {
        Some(b) if g.owning_node(b).is_none() => format!("graph output {i}"),
        Some(b) => format!("output {i} of {}", block(g, b)),
        None => format!("input {i} of {}", node(g, u)),
    }
}

/// Output slot `i` of `d`: `output 0 of aten::add`, `graph input 1`, `input 0 of block 0 of
/// prim::Loop`.
pub(super) fn output_slot(g: &Graph, d: Node, i: usize) -> String {
    match is_param(g, d) {
        Some(b) if g.owning_node(b).is_none() => format!("graph input {i}"),
        Some(b) => format!("input {i} of {}", block(g, b)),
        None => format!("output {i} of {}", node(g, d)),
    }
}

/// `1 input`, `2 inputs`, `0 inputs`.
pub(super) fn count(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
