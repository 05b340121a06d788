//! `canonicalize-outputs`: orders the outputs of every `prim::If` and `prim::Loop` by where
//! each is first used, after `CanonicalizeOutputs` in PyTorch's
//! `torch/csrc/jit/passes/canonicalize.cpp`. The script compiler runs it last in its cleanup
//! (`runCleanupPasses`), so the order of control-flow outputs that SSA conversion and the exit
//! transform add does not depend on how they were added: graphs then compare equal to
//! PyTorch's.
//!
//! "First" is PyTorch's canonical order: in one block, program order; a node before what its
//! blocks hold; across the blocks of one node, the earlier block first. Outputs nobody uses
//! keep their relative order, after the used ones. An If's branches return in the new order;
//! a Loop's carried inputs, body inputs and body outputs are permuted to match.

use std::cmp::Ordering;

use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Use, Value};

use super::PassContext;

pub fn run(g: &mut Graph, _cx: &mut PassContext) -> Result<bool, String> {
    let mut changed = false;
    canonicalize_block(g, g.block(), &mut changed);
    Ok(changed)
}

fn canonicalize_block(g: &mut Graph, b: Block, changed: &mut bool) {
    // Reverse order: a node's output order depends on the uses after it, which are settled
    // first. A node's own outputs come before what its blocks return.
    let nodes: Vec<Node> = g.block_nodes(b).collect();
    for n in nodes.into_iter().rev() {
        let k = g.kind(n);
        if k == sym::if_() || k == sym::loop_() {
            let order = sort_indexes(g, g.node_outputs(n));
            if order.iter().enumerate().any(|(i, &j)| i != j) {
                *changed = true;
                if k == sym::if_() {
                    permute_if_outputs(g, n, &order);
                } else {
                    permute_loop_carried(g, n, &order);
                }
            }
        }
        for sub in g.node_blocks(n).to_vec() {
            canonicalize_block(g, sub, changed);
        }
    }
}

/// The permutation putting `values` in the order of their first uses.
fn sort_indexes(g: &Graph, values: &[Value]) -> Vec<usize> {
    let first_uses: Vec<Option<Use>> = values.iter().map(|&v| first_use(g, v)).collect();
    let mut idx: Vec<usize> = (0..values.len()).collect();
    idx.sort_by(|&i, &j| match (first_uses[i], first_uses[j]) {
        (None, None) => i.cmp(&j),
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(a), Some(b)) => {
            if use_before(g, a, b) {
                Ordering::Less
            } else if use_before(g, b, a) {
                Ordering::Greater
            } else {
                i.cmp(&j)
            }
        }
    });
    idx
}

fn first_use(g: &Graph, v: Value) -> Option<Use> {
    let uses = g.uses(v);
    let mut first = *uses.first()?;
    for &u in &uses[1..] {
        if !use_before(g, first, u) {
            first = u;
        }
    }
    Some(first)
}

fn use_before(g: &Graph, a: Use, b: Use) -> bool {
    if a.user == b.user {
        return a.offset < b.offset;
    }
    node_before(g, a.user, b.user)
}

/// The block holding `n` (the block of a param or return node included).
fn block_of(g: &Graph, n: Node) -> Block {
    g.owning_block(n).expect("a node in a block")
}

/// How many nodes enclose `n` (PyTorch's `blocksFromGraphBlock`).
fn depth(g: &Graph, mut n: Node) -> usize {
    let mut d = 0;
    while let Some(owner) = g.owning_node(block_of(g, n)) {
        n = owner;
        d += 1;
    }
    d
}

/// `n`'s place in its block: the param node first, the return node last.
fn position(g: &Graph, n: Node) -> usize {
    let b = block_of(g, n);
    if n == g.param_node(b) {
        return 0;
    }
    if n == g.return_node(b) {
        return usize::MAX;
    }
    1 + g
        .block_nodes(b)
        .position(|m| m == n)
        .expect("n is in its block")
}

/// PyTorch's canonical `isBefore` for two different nodes.
fn node_before(g: &Graph, mut n1: Node, mut n2: Node) -> bool {
    let (mut d1, mut d2) = (depth(g, n1), depth(g, n2));
    while d1 > d2 {
        n1 = g.owning_node(block_of(g, n1)).expect("enclosed");
        if n1 == n2 {
            return false; // n2 contains n1
        }
        d1 -= 1;
    }
    while d2 > d1 {
        n2 = g.owning_node(block_of(g, n2)).expect("enclosed");
        if n2 == n1 {
            return true; // n1 contains n2
        }
        d2 -= 1;
    }
    loop {
        let (b1, b2) = (block_of(g, n1), block_of(g, n2));
        if b1 == b2 {
            return position(g, n1) < position(g, n2);
        }
        let (Some(o1), Some(o2)) = (g.owning_node(b1), g.owning_node(b2)) else {
            return false;
        };
        if o1 == o2 {
            let blocks = g.node_blocks(o1);
            let index = |b| blocks.iter().position(|&x| x == b);
            return index(b1) < index(b2);
        }
        n1 = o1;
        n2 = o2;
    }
}

fn permute_if_outputs(g: &mut Graph, n: Node, order: &[usize]) {
    g.permute_node_outputs(n, order);
    for b in g.node_blocks(n).to_vec() {
        permute_block_outputs(g, b, order, 0);
    }
}

/// A Loop's outputs are its carried values: inputs (after the trip count and condition), body
/// inputs (after the iteration number) and body outputs (after the condition) follow.
fn permute_loop_carried(g: &mut Graph, n: Node, order: &[usize]) {
    g.permute_node_outputs(n, order);
    let inputs = g.node_inputs(n).to_vec();
    let mut new_inputs = inputs[..2].to_vec();
    new_inputs.extend(order.iter().map(|&i| inputs[2 + i]));
    g.remove_all_inputs(n);
    for v in new_inputs {
        g.add_node_input(n, v);
    }
    let body = g.node_blocks(n)[0];
    let shifted: Vec<usize> = std::iter::once(0)
        .chain(order.iter().map(|&i| i + 1))
        .collect();
    g.permute_node_outputs(g.param_node(body), &shifted);
    permute_block_outputs(g, body, order, 1);
}

/// Reorders `b`'s outputs after the first `skip` ones.
fn permute_block_outputs(g: &mut Graph, b: Block, order: &[usize], skip: usize) {
    let outs = g.block_outputs(b).to_vec();
    let mut new_outs = outs[..skip].to_vec();
    new_outs.extend(order.iter().map(|&i| outs[skip + i]));
    let ret = g.return_node(b);
    g.remove_all_inputs(ret);
    for v in new_outs {
        g.add_node_input(ret, v);
    }
}
