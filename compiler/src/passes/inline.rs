//! `inline`: replaces calls to known functions, and subgraph nodes, by the graphs they run
//! (PyTorch's `passes/inliner.cpp` and `SubgraphUtils::unmergeSubgraph`).
//!
//! How Ember knows a callee: TorchScript prints a function value as
//! `%f : Function = prim::Constant[name="foo"]()`, and the function's body lives elsewhere (in
//! the compilation unit). In Ember the producer of a known function carries its body as a graph
//! attribute, [`CALLEE_ATTR`]: `attr::Subgraph`, the attribute PyTorch's subgraph nodes use.
//! Whoever resolves the call (the frontend, the `.pt` importer) attaches it; a constant without
//! it is an unknown callee and its calls stay. Being `attr::Subgraph`, the body prints and parses
//! as subgraph nodes' do, so a known callee round-trips through graph text:
//!
//! ```text
//! graph(%x : Tensor):
//!   %f : Function = prim::Constant_0[name="foo"]()
//!   %r : Tensor = prim::CallFunction(%f, %x)
//!   return (%r)
//! with prim::Constant_0 = graph(%a : Tensor):
//!   %b : Tensor = aten::relu(%a)
//!   return (%b)
//! ```
//!
//! Rewrites:
//! - `prim::CallFunction(%f, args…)` whose `%f` is such a constant: the callee's body is copied
//!   in place of the call (`Graph::insert_graph`) with `args…` for its inputs, and the call's
//!   outputs are replaced by the copied return values. The function constant goes once unused.
//! - `prim::FusionGroup`, `prim::TensorExprGroup`, `prim::CudaFusionGroup`,
//!   `prim::oneDNNFusionGroup` and `prim::DifferentiableGraph` nodes: their `attr::Subgraph` is copied into the parent with the
//!   node's inputs, and the node goes.
//!
//! Copied bodies are searched again, so calls inside an inlined function are inlined too (a
//! graph attribute holds its own copy of each callee, so this ends). Calls whose argument or
//! result counts do not match the callee are left alone. `prim::CallMethod` needs the class's
//! method table, which graphs do not carry yet; it is left alone.

use ember_dialects::attr::AttrValue;
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Symbol, Value};

use super::{LogLevel, PassContext};

/// The attribute of a function constant that holds the function's graph.
pub const CALLEE_ATTR: &str = "attr::Subgraph";

/// Subgraph nodes whose `attr::Subgraph` is inlined back into the parent.
const SUBGRAPH_KINDS: &[&str] = &[
    "prim::FusionGroup",
    "prim::TensorExprGroup",
    "prim::CudaFusionGroup",
    "prim::oneDNNFusionGroup",
    "prim::DifferentiableGraph",
];

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let top = g.block();
    let saved = g.insert_point();
    let changed = inline_block(g, top, cx);
    if g.is_alive(saved) && g.owning_block(saved).is_some() {
        g.set_insert_point(saved);
    } else {
        g.set_insert_point_to_end(top);
    }
    Ok(changed)
}

/// A node that can be replaced by a graph: the graph and the values for its inputs.
struct Inlinable {
    body: Graph,
    args: Vec<Value>,
    /// The function constant, removed once unused.
    function: Option<Node>,
    what: String,
}

fn inline_block(g: &mut Graph, b: Block, cx: &mut PassContext) -> bool {
    let mut changed = false;
    let mut cursor = g.block_nodes(b).next();
    while let Some(n) = cursor {
        let next = g.next_node(n);
        let Some(target) = inlinable(g, n, cx) else {
            for sub in g.node_blocks(n).to_vec() {
                changed |= inline_block(g, sub, cx);
            }
            cursor = next;
            continue;
        };
        if !cx.may_rewrite() {
            cursor = next;
            continue;
        }
        cx.log(LogLevel::Update, || format!("inlined {}", target.what));
        let before = g.prev_node(n);
        g.set_insert_point(n);
        let results = g.insert_graph(&target.body, &target.args);
        let first_copied = match before {
            Some(p) => g.next_node(p),
            None => g.block_nodes(b).next(),
        };
        for (i, r) in results.into_iter().enumerate() {
            g.replace_all_uses_with(g.output(n, i), r);
        }
        g.destroy(n);
        if let Some(f) = target.function {
            if g.node_outputs(f).iter().all(|&v| !g.has_uses(v)) {
                g.destroy(f);
            }
        }
        changed = true;
        // Continue with the first copied node, so calls in the body are inlined as well.
        cursor = if first_copied == Some(n) {
            next
        } else {
            first_copied
        };
    }
    changed
}

fn inlinable(g: &Graph, n: Node, cx: &PassContext) -> Option<Inlinable> {
    let kind = g.kind(n);
    if kind == sym::call_function() {
        let (&callee, args) = g.node_inputs(n).split_first()?;
        let f = g.producer(callee);
        if g.kind(f) != sym::constant() {
            return None;
        }
        let Some(AttrValue::Graph(body)) = g.attr(f, Symbol::new(CALLEE_ATTR)) else {
            cx.log(LogLevel::Debug, || {
                "left a call to an unknown function".to_string()
            });
            return None;
        };
        if !arity_matches(g, n, body, args.len()) {
            return None;
        }
        let name = match g.attr(f, Symbol::attr("name")) {
            Some(AttrValue::Str(s)) => s.clone(),
            _ => format!("%{}", g.value_name(callee)),
        };
        return Some(Inlinable {
            body: (**body).clone(),
            args: args.to_vec(),
            function: Some(f),
            what: format!("call to function {name}"),
        });
    }
    if SUBGRAPH_KINDS.contains(&kind.as_str()) {
        let Some(AttrValue::Graph(body)) = g.attr(n, sym::attr_subgraph()) else {
            return None;
        };
        if !arity_matches(g, n, body, g.node_inputs(n).len()) {
            return None;
        }
        return Some(Inlinable {
            body: (**body).clone(),
            args: g.node_inputs(n).to_vec(),
            function: None,
            what: kind.to_string(),
        });
    }
    None
}

fn arity_matches(g: &Graph, n: Node, body: &Graph, args: usize) -> bool {
    body.inputs().len() == args && body.outputs().len() == g.node_outputs(n).len()
}

#[cfg(test)]
mod tests;
