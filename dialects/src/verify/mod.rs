//! The IR verifier: checks the invariants every pass may assume and every pass must keep, the
//! way PyTorch's `Graph::lint` does (torch/csrc/jit/ir/ir.cpp), with messages a user can act on.
//!
//! - layout: each block's node list is well linked, holds live nodes that record the block,
//!   and every sub-block is live and owned by its node ([`order`]);
//! - SSA: each value is defined once, and each use sees its definition: earlier in the same
//!   block or in an enclosing one, never inside a block that does not enclose the use
//!   ([`uses`]);
//! - use lists: every input has exactly its matching use and every use its matching input, and
//!   no node outside the graph uses a value of it ([`uses`]);
//! - structure: `prim::Param`/`prim::Return` only at block boundaries, the shapes of
//!   `prim::If`, `prim::Loop`, `prim::With`, `prim::Constant` and of fusion groups ([`rules`]);
//! - schemas: a node whose kind has schemas in the operator catalogue matches one of them
//!   ([`schema`]);
//! - graphs held in attributes (the `Subgraph` of a fusion group) verify the same way.

mod describe;
mod order;
mod rules;
mod schema;
mod uses;

#[cfg(test)]
mod tests;

use std::fmt;

use crate::attr::AttrValue;
use crate::ir::{Graph, Node};
use crate::source::SourceRange;

/// One broken invariant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyError {
    /// The offending node of the verified graph. For an error inside a graph attribute, the
    /// node of the verified graph that holds the attribute.
    pub node: Node,
    /// Where the offending node came from, when known (for an error inside a graph attribute,
    /// the inner node's range if it has one, else the holder's).
    pub source: Option<SourceRange>,
    /// What is wrong, e.g. `value %x.1 used by aten::add is not defined before it`.
    pub message: String,
}

impl fmt::Display for VerifyError {
    /// `file:line:col: error: message`, or `error: message` without a source range.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.source {
            Some(src) => write!(f, "{src}: error: {}", self.message),
            None => write!(f, "error: {}", self.message),
        }
    }
}

impl std::error::Error for VerifyError {}

/// Checks every invariant of `g` (and of the graphs in its nodes' attributes) and returns all
/// the violations found, in program order.
pub fn verify(g: &Graph) -> Result<(), Vec<VerifyError>> {
    let mut errors = Vec::new();
    // Graphs held in attributes are verified from a work list rather than by recursion, so
    // deeply nested subgraphs cannot exhaust the stack.
    let mut work = vec![Pending {
        graph: g,
        prefix: String::new(),
        holder: None,
    }];
    while let Some(p) = work.pop() {
        let found = verify_one(p.graph);
        for (n, message) in found.errors {
            let (node, source) = match &p.holder {
                Some((h, hsrc)) => (
                    *h,
                    p.graph.source_range(n).cloned().or_else(|| hsrc.clone()),
                ),
                None => (n, p.graph.source_range(n).cloned()),
            };
            errors.push(VerifyError {
                node,
                source,
                message: format!("{}{message}", p.prefix),
            });
        }
        // Push in reverse so subgraphs are reported in program order.
        let mut nested = Vec::new();
        for &n in &found.reached {
            for (name, value) in p.graph.attrs(n) {
                let subs: &[Graph] = match value {
                    AttrValue::Graph(sub) => std::slice::from_ref(&**sub),
                    AttrValue::Graphs(subs) => subs,
                    _ => continue,
                };
                let holder = p
                    .holder
                    .clone()
                    .unwrap_or_else(|| (n, p.graph.source_range(n).cloned()));
                let what = format!(
                    "the {} attribute of {}",
                    name.unqualified(),
                    p.graph.kind(n)
                );
                for (i, sub) in subs.iter().enumerate() {
                    let prefix = match value {
                        AttrValue::Graph(_) => format!("{}in {what}: ", p.prefix),
                        _ => format!("{}in graph {i} of {what}: ", p.prefix),
                    };
                    nested.push(Pending {
                        graph: sub,
                        prefix,
                        holder: Some(holder.clone()),
                    });
                }
            }
        }
        work.extend(nested.into_iter().rev());
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// A graph waiting to be verified: messages get `prefix`, and errors are pinned on `holder`
/// (the node of the outermost graph that holds it) when it is an attribute.
struct Pending<'g> {
    graph: &'g Graph,
    prefix: String,
    holder: Option<(Node, Option<SourceRange>)>,
}

/// The findings on one graph, without looking into its attributes.
struct Found {
    errors: Vec<(Node, String)>,
    /// The nodes of the graph's blocks in program order (boundary nodes included).
    reached: Vec<Node>,
}

fn verify_one(g: &Graph) -> Found {
    let mut errors = Vec::new();
    let order = order::Order::walk(g, &mut errors);
    let mut counts = uses::UseCounts::default();
    for &n in &order.nodes {
        rules::check_node(g, n, &mut errors);
        schema::check_node(g, n, &mut errors);
        uses::check_node(g, &order, &mut counts, n, &mut errors);
    }
    uses::check_names(g, &order, &mut errors);
    Found {
        errors,
        reached: order.nodes,
    }
}
