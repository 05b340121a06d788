//! Schema conformance: a node whose kind has schemas in the operator catalogue must match one
//! of them, as PyTorch's `Node::getOperator` requires before it can run the node.

use crate::catalogue::{catalogue, resolve_node};
use crate::ir::{Graph, Node};

pub(super) fn check_node(g: &Graph, n: Node, errors: &mut Vec<(Node, String)>) {
    if g.is_block_boundary(n) || !catalogue().has_schemas(g.kind(n)) {
        return;
    }
    if let Err(message) = resolve_node(g, n) {
        errors.push((n, message.trim_end().to_string()));
    }
}
