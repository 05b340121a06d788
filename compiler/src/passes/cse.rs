//! `cse`: common subexpression elimination, after PyTorch's
//! `passes/common_subexpression_elimination.cpp`.
//!
//! Nodes are hash-consed by kind, inputs, attributes and output types. Each block is a scope:
//! a nested block sees the nodes of the blocks around it that come before it, never those of a
//! sibling block or of code after it. A node equal to one in scope is replaced by it.
//!
//! Never merged: `prim::profile`, nodes with side effects or that may write (see
//! [`effects::has_side_effects`]), random ops (`rand*`, dropout unless `train=False`), nodes
//! with blocks (their blocks are searched instead) or graph attributes, and unknown ops.
//!
//! Without alias analysis the rule for the rest is conservative, by the types involved:
//! - A node whose outputs are all immutable (numbers, strings, None, devices, tuples of those)
//!   is merged, unless some input is mutable (a tensor, list, …) and the graph has a node that
//!   may write anywhere: then the input may change between the two nodes.
//! - Tuple construction and projection (`prim::TupleConstruct`, `TupleIndex`, `TupleUnpack`,
//!   `TupleSlice`) are merged whatever they hold: tuples are immutable and both nodes yield the
//!   same elements.
//! - `prim::GetAttr` is merged unless some node may store an attribute (`prim::SetAttr`, a
//!   call, an unknown op): two reads of one attribute yield the same object.
//! - Other nodes with mutable outputs are merged only if they are `aten` ops, their outputs are
//!   tensors (or optionals or tuples of tensors), they do not allocate fresh memory
//!   (`aten::zeros`, `clone`, …: two calls are two buffers), the graph has no node that may
//!   write at all, and not both nodes' outputs may reach the graph's outputs (the caller could
//!   mutate one and see the other change).
//! - Lists, dicts, objects and `Any` results are never merged: each creation is a new object.

use hashbrown::{HashMap, HashSet};

use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Symbol, Type, Value};

use super::{LogLevel, PassContext};
use crate::analysis::effects::{self, is_immutable_type};
use crate::analysis::escape;
use crate::analysis::node_eq::{node_key, nodes_equal, NodeKey};

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let mut cse = Cse {
        has_writers: effects::graph_has_writers(g),
        rebinds_attributes: effects::any_writer(g, |kind| !kind.is_aten()),
        escaping: escape::values_reaching_outputs(g),
        scopes: Vec::new(),
    };
    let top = g.block();
    Ok(cse.block(g, top, cx))
}

struct Cse {
    /// Some node of the graph may write to memory: mutable values may change.
    has_writers: bool,
    /// Some node may store an object attribute (`prim::SetAttr`, calls, unknown ops).
    rebinds_attributes: bool,
    /// Values that may reach the graph's outputs.
    escaping: HashSet<Value>,
    /// The nodes available in each enclosing block, innermost last.
    scopes: Vec<HashMap<NodeKey, Vec<Node>>>,
}

impl Cse {
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
            if let Some(why) = self.unsafe_reason(g, n) {
                cx.log(LogLevel::Debug, || format!("skipped {}: {why}", g.kind(n)));
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
            // Tuple ops and attribute reads yield the very same objects either way.
            let same_objects = is_tuple_op(g.kind(n)) || g.kind(n) == sym::get_attr();
            let escapes = |cse: &Self, m: Node| {
                g.node_outputs(m)
                    .iter()
                    .any(|v| cse.escaping.contains(v) && !is_immutable_type(g.ty(*v)))
            };
            if !same_objects && escapes(self, n) && escapes(self, existing) {
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
            if escapes(self, n) {
                self.escaping
                    .extend(g.node_outputs(existing).iter().copied());
            }
            g.replace_all_uses_of_node_with(n, existing);
            g.destroy(n);
            changed = true;
        }
        self.scopes.pop();
        changed
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

    /// Why merging `n` with an equal node could change the program, if it could.
    fn unsafe_reason(&self, g: &Graph, n: Node) -> Option<&'static str> {
        let kind = g.kind(n);
        if is_tuple_op(kind) {
            return None;
        }
        if kind == sym::get_attr() {
            return self
                .rebinds_attributes
                .then_some("an attribute may be stored in between");
        }
        let outputs_immutable = g
            .node_outputs(n)
            .iter()
            .all(|&v| is_immutable_type(g.ty(v)));
        let inputs_immutable = g.node_inputs(n).iter().all(|&v| is_immutable_type(g.ty(v)));
        if outputs_immutable {
            if self.has_writers && !inputs_immutable {
                return Some("a mutable input may be written in between");
            }
            return None;
        }
        if !kind.is_aten() {
            return Some("creates a mutable value");
        }
        if !g.node_outputs(n).iter().all(|&v| is_tensor_like(g.ty(v))) {
            return Some("creates a list, dict or object");
        }
        if effects::is_fresh_allocation(g, n) {
            return Some("allocates fresh memory");
        }
        if self.has_writers {
            return Some("the graph writes to mutable values");
        }
        None
    }
}

/// Why `n` is never merged, if it is not.
fn skip_reason(g: &Graph, n: Node) -> Option<&'static str> {
    if g.kind(n) == sym::profile() {
        return Some("profiling nodes are merged by their own pass");
    }
    if effects::has_side_effects(g, n) {
        return Some("side effects");
    }
    if effects::is_nondeterministic(g, n) {
        return Some("nondeterministic");
    }
    None
}

fn is_tuple_op(kind: Symbol) -> bool {
    kind == sym::tuple_construct()
        || kind == sym::tuple_index()
        || kind == sym::tuple_unpack()
        || kind == sym::tuple_slice()
}

/// Tensors, and optionals or tuples of them and of immutable values.
fn is_tensor_like(ty: &Type) -> bool {
    match ty {
        Type::Tensor(_) => true,
        Type::Optional(e) => is_tensor_like(e),
        Type::Tuple(t) => t
            .elements
            .iter()
            .all(|e| is_tensor_like(e) || is_immutable_type(e)),
        other => is_immutable_type(other),
    }
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
