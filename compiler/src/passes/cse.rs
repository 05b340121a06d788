//! `cse`: common subexpression elimination, after PyTorch's
//! `passes/common_subexpression_elimination.cpp`.
//!
//! Nodes are hash-consed by kind, inputs, attributes and output types. Each block is a scope:
//! a nested block sees the nodes of the blocks around it that come before it, never those of a
//! sibling block or of code after it. A node equal to one in scope is replaced by it.
//!
//! Never merged: `prim::profile`, nodes with side effects, random ops (`rand*`, dropout
//! unless `train=False`), nodes with blocks (their blocks are searched instead) or graph
//! attributes, unknown ops, and — by alias analysis — nodes whose inputs or outputs anything
//! writes (the value may change between the two), and two nodes whose results may both reach
//! the graph's outputs (the caller could write to one and see the other change).

use hashbrown::{HashMap, HashSet};

use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Value};

use super::{LogLevel, PassContext};
use crate::analysis::alias::{self, AliasDb};
use crate::analysis::node_eq::{node_key, nodes_equal, NodeKey};

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let db = AliasDb::new(g);
    let mut cse = Cse {
        db: &db,
        scopes: Vec::new(),
        now_escaping: HashSet::new(),
    };
    let top = g.block();
    Ok(cse.block(g, top, cx))
}

struct Cse<'a> {
    db: &'a AliasDb,
    /// The nodes available in each enclosing block, innermost last.
    scopes: Vec<HashMap<NodeKey, Vec<Node>>>,
    /// Values that reach the outputs since a node they replaced did (the db predates that).
    now_escaping: HashSet<Value>,
}

impl Cse<'_> {
    fn block(&mut self, g: &mut Graph, b: Block, cx: &mut PassContext) -> bool {
        self.scopes.push(HashMap::new());
        let mut changed = false;
        for n in g.block_nodes(b).collect::<Vec<_>>() {
            if let Some(why) = skip_reason(g, n) {
                cx.log(LogLevel::Debug, || format!("skipped {}: {why}", g.kind(n)));
                continue;
            }
            if !g.node_blocks(n).is_empty() {
                for sub in g.node_blocks(n).to_vec() {
                    changed |= self.block(g, sub, cx);
                }
                continue;
            }
            if self.db.node_has_writers(g, n) {
                cx.log(LogLevel::Debug, || {
                    format!("skipped {}: an input or output is written", g.kind(n))
                });
                continue;
            }
            let Some(existing) = self.lookup(g, n) else {
                self.scopes
                    .last_mut()
                    .unwrap()
                    .entry(node_key(g, n))
                    .or_default()
                    .push(n);
                continue;
            };
            if self.escapes(g, n) && self.escapes(g, existing) {
                cx.log(LogLevel::Debug, || {
                    format!(
                        "skipped {}: both results may reach the graph outputs",
                        g.kind(n)
                    )
                });
                continue;
            }
            if !cx.may_rewrite() {
                continue;
            }
            cx.log(LogLevel::Update, || {
                format!(
                    "replaced {} (%{}) with its equal (%{})",
                    g.kind(n),
                    outputs_text(g, n),
                    outputs_text(g, existing)
                )
            });
            if self.escapes(g, n) {
                self.now_escaping
                    .extend(g.node_outputs(existing).iter().copied());
            }
            g.replace_all_uses_of_node_with(n, existing);
            g.destroy(n);
            changed = true;
        }
        self.scopes.pop();
        changed
    }

    /// Whether a result of `n` may be, or be inside, a graph output.
    fn escapes(&self, g: &Graph, n: Node) -> bool {
        let outputs = g.node_outputs(n);
        outputs.iter().any(|v| self.now_escaping.contains(v))
            || self.db.may_contain_alias(outputs, g.outputs())
    }

    /// An earlier node in scope equal to `n`.
    fn lookup(&self, g: &Graph, n: Node) -> Option<Node> {
        let key = node_key(g, n);
        self.scopes
            .iter()
            .rev()
            .filter_map(|scope| scope.get(&key))
            .flatten()
            .copied()
            .find(|&m| nodes_equal(g, m, n))
    }
}

/// Why `n` is never merged, if it is not.
fn skip_reason(g: &Graph, n: Node) -> Option<&'static str> {
    if g.kind(n) == sym::profile() {
        return Some("profiling nodes are merged by their own pass");
    }
    if alias::has_side_effects(g, n) {
        return Some("side effects");
    }
    if alias::is_nondeterministic(g, n) {
        return Some("nondeterministic");
    }
    None
}

fn outputs_text(g: &Graph, n: Node) -> String {
    g.node_outputs(n)
        .iter()
        .map(|&v| g.value_name(v))
        .collect::<Vec<_>>()
        .join(", %")
}

#[cfg(test)]
mod tests;
