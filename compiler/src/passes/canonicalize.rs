//! `canonicalize`: simplifies scalar (int, float, bool) arithmetic and comparisons, then tensor
//! ops ([`tensors`]: views of views, no-op conversions, matrix products, shape queries), with
//! the egg rule sets of [`crate::rewrite`]. Each maximal run of scalar ops in a block (constants in
//! between do not break a run) becomes one e-graph, whose leaves are the values the run reads
//! and its constants; the runner saturates it under explicit iteration, node and time limits,
//! and the cheapest form (fewest op nodes, then fewest new constants) replaces the run when it
//! is cheaper. Only values of scalar type are replaced, each by one of the same type. Tensor
//! ops never enter the scalar e-graph: `aten::add(x, 0)` on a tensor is not `x`.

use std::time::Duration;

use egg::{Extractor, Id, Language, Runner};
use ember_dialects::attr::ConstValue;
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Value};
use hashbrown::HashMap;

use crate::fold::{constant_value, insert_constant_before};
use crate::passes::{LogLevel, PassContext};
use crate::rewrite::scalar::{
    FewestNodes, Leaf, Scalar, ScalarAnalysis, ScalarGraph, ScalarTy, LITERAL_COST, OP_COST,
};
use crate::rewrite::scalar_rules;

/// Limits of one run of the rules over one region.
const ITER_LIMIT: usize = 16;
const NODE_LIMIT: usize = 5_000;
const TIME_LIMIT: Duration = Duration::from_millis(200);

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let scalars = canonicalize_scalars(g, cx);
    let tensors = tensors::run(g, cx);
    Ok(scalars | tensors)
}

/// The scalar regions of every block through the scalar rule sets.
fn canonicalize_scalars(g: &mut Graph, cx: &mut PassContext) -> bool {
    let rules = scalar_rules();
    let mut changed = false;
    let mut blocks = vec![g.block()];
    while let Some(b) = blocks.pop() {
        for n in g.block_nodes(b).collect::<Vec<_>>() {
            blocks.extend(g.node_blocks(n).iter().copied());
        }
        for region in regions(g, b) {
            changed |= rewrite_region(g, cx, &rules, &region);
        }
    }
    changed
}

/// One run of scalar ops, in order, and the node after it (where new nodes go).
struct Region {
    nodes: Vec<Node>,
    end: Node,
}

/// The e-graph node for `n` (children not yet filled in), if `n` is a scalar op whose operand
/// and result types are a TorchScript overload the language models.
fn scalar_op(g: &Graph, n: Node) -> Option<Scalar> {
    let kind = g.kind(n);
    if !g.node_blocks(n).is_empty() || g.node_outputs(n).len() != 1 {
        return None;
    }
    let zero = Id::from(0usize);
    let op = match (kind.as_str(), g.node_inputs(n).len()) {
        ("aten::add", 2) => Scalar::Add([zero; 2]),
        ("aten::sub", 2) => Scalar::Sub([zero; 2]),
        ("aten::mul", 2) => Scalar::Mul([zero; 2]),
        ("aten::div", 2) => Scalar::Div([zero; 2]),
        ("aten::floordiv", 2) => Scalar::FloorDiv([zero; 2]),
        ("aten::remainder", 2) => Scalar::Remainder([zero; 2]),
        ("aten::neg", 1) => Scalar::Neg([zero; 1]),
        ("aten::__not__", 1) => Scalar::Not([zero; 1]),
        ("aten::__and__", 2) => Scalar::And([zero; 2]),
        ("aten::__or__", 2) => Scalar::Or([zero; 2]),
        ("aten::__xor__", 2) => Scalar::Xor([zero; 2]),
        ("aten::eq", 2) => Scalar::Eq([zero; 2]),
        ("aten::ne", 2) => Scalar::Ne([zero; 2]),
        ("aten::lt", 2) => Scalar::Lt([zero; 2]),
        ("aten::le", 2) => Scalar::Le([zero; 2]),
        ("aten::gt", 2) => Scalar::Gt([zero; 2]),
        ("aten::ge", 2) => Scalar::Ge([zero; 2]),
        _ => return None,
    };
    let args: Option<Vec<ScalarTy>> = g
        .node_inputs(n)
        .iter()
        .map(|&v| ScalarTy::of(g.ty(v)))
        .collect();
    let out = ScalarTy::of(g.ty(g.output(n, 0)))?;
    if op.result_type(&args?) != Some(out) {
        return None;
    }
    // Int `//` and `%` raise on a zero divisor (and trap on `INT64_MIN // -1`). The e-graph
    // treats ops as total and may drop a term (`x * 0`), so these stay outside, as leaves,
    // unless the divisor is a constant that makes them total.
    let partial = matches!(op, Scalar::FloorDiv(_) | Scalar::Remainder(_)) && out == ScalarTy::Int;
    if partial
        && !matches!(constant_value(g, g.input(n, 1)), Some(ConstValue::Int(d)) if d != 0 && d != -1)
    {
        return None;
    }
    Some(op)
}

/// The maximal runs of scalar ops in `b`; constants inside a run do not end it.
fn regions(g: &Graph, b: Block) -> Vec<Region> {
    let mut out = Vec::new();
    let mut current = Vec::new();
    for n in g.block_nodes(b) {
        if scalar_op(g, n).is_some() {
            current.push(n);
        } else if g.kind(n) != sym::constant() && !current.is_empty() {
            out.push(Region {
                nodes: std::mem::take(&mut current),
                end: n,
            });
        }
    }
    if !current.is_empty() {
        out.push(Region {
            nodes: current,
            end: g.return_node(b),
        });
    }
    out
}

/// The region as an e-graph: which class each value is, and the values behind the leaves.
struct Translation {
    egraph: ScalarGraph,
    class_of: HashMap<Value, Id>,
    leaves: Vec<Value>,
    /// The constants the region reads, by class: reused rather than made again.
    literals: Vec<(Id, Value)>,
    /// Values computed in the region and used outside it.
    roots: Vec<Value>,
    /// Cost of the region as it is: its op nodes and the distinct literals it reads.
    cost: usize,
}

fn translate(g: &Graph, region: &Region) -> Translation {
    let mut egraph = ScalarGraph::default();
    let mut class_of: HashMap<Value, Id> = HashMap::new();
    let mut leaves = Vec::new();
    let mut literals = Vec::new();
    for &n in &region.nodes {
        let mut op = scalar_op(g, n).expect("region nodes are scalar ops");
        let mut children = Vec::new();
        for &v in g.node_inputs(n) {
            let id = match class_of.get(&v) {
                Some(&id) => id,
                None => {
                    let node = match constant_value(g, v).as_ref().and_then(Scalar::literal) {
                        Some(lit) => lit,
                        None => {
                            let ty = ScalarTy::of(g.ty(v)).expect("scalar operand");
                            leaves.push(v);
                            Scalar::Leaf(Leaf {
                                ty,
                                index: leaves.len() as u32 - 1,
                            })
                        }
                    };
                    let is_literal = !matches!(node, Scalar::Leaf(_));
                    let id = egraph.add(node);
                    if is_literal {
                        literals.push((id, v));
                    }
                    class_of.insert(v, id);
                    id
                }
            };
            children.push(id);
        }
        for (slot, id) in op.children_mut().iter_mut().zip(children) {
            *slot = id;
        }
        class_of.insert(g.output(n, 0), egraph.add(op));
    }
    let inside: Vec<Node> = region.nodes.clone();
    let roots = region
        .nodes
        .iter()
        .map(|&n| g.output(n, 0))
        .filter(|&v| g.uses(v).iter().any(|u| !inside.contains(&u.user)))
        .collect();
    let cost = OP_COST * region.nodes.len() + LITERAL_COST * literals.len();
    Translation {
        egraph,
        class_of,
        leaves,
        literals,
        roots,
        cost,
    }
}

fn rewrite_region(
    g: &mut Graph,
    cx: &mut PassContext,
    rules: &[egg::Rewrite<Scalar, ScalarAnalysis>],
    region: &Region,
) -> bool {
    let t = translate(g, region);
    if t.roots.is_empty() {
        return false;
    }
    let runner = Runner::default()
        .with_iter_limit(ITER_LIMIT)
        .with_node_limit(NODE_LIMIT)
        .with_time_limit(TIME_LIMIT)
        .with_egraph(t.egraph)
        .run(rules);
    cx.log(LogLevel::Debug, || {
        format!(
            "region of {} nodes: stopped after {} iterations ({:?}), {} e-nodes",
            region.nodes.len(),
            runner.iterations.len(),
            runner.stop_reason,
            runner.egraph.total_number_of_nodes()
        )
    });
    let egraph = &runner.egraph;
    let extractor = Extractor::new(egraph, FewestNodes);
    let root_classes: Vec<Id> = t.roots.iter().map(|v| egraph.find(t.class_of[v])).collect();

    // Cost of the extracted forms, each class counted once (the graph shares values).
    let mut seen = hashbrown::HashSet::new();
    let mut stack = root_classes.clone();
    let mut new_cost = 0;
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        if egraph[id].data.ty.is_none() {
            // An untyped class would mean an ill-typed rule: keep the region as it is.
            cx.log(LogLevel::Debug, || {
                format!("untyped e-class {id}; region left alone")
            });
            return false;
        }
        let best = extractor.find_best_node(id);
        new_cost += match best {
            Scalar::Leaf(_) => 0,
            Scalar::Int(_) | Scalar::Float(_) | Scalar::Bool(_) => LITERAL_COST,
            _ => OP_COST,
        };
        stack.extend(best.children().iter().map(|&c| egraph.find(c)));
    }
    // Every replacement keeps its value's type.
    let types_kept = t.roots.iter().zip(&root_classes).all(|(&v, &id)| {
        egraph[id]
            .data
            .ty
            .is_some_and(|ty| Some(ty) == ScalarTy::of(g.ty(v)))
    });
    if new_cost >= t.cost || !types_kept || !cx.may_rewrite() {
        return false;
    }
    cx.log(LogLevel::Update, || {
        format!(
            "rewriting a region of {} nodes: cost {} -> {}",
            region.nodes.len(),
            t.cost,
            new_cost
        )
    });

    let mut b = Builder {
        egraph,
        extractor: &extractor,
        leaves: &t.leaves,
        at: region.end,
        built: HashMap::new(),
        originals: HashMap::new(),
        names: Vec::new(),
    };
    for &(id, v) in &t.literals {
        let id = egraph.find(id);
        if egraph[id]
            .data
            .ty
            .is_some_and(|ty| Some(ty) == ScalarTy::of(g.ty(v)))
        {
            b.built.entry(id).or_insert(v);
        }
    }
    for &n in &region.nodes {
        let id = egraph.find(t.class_of[&g.output(n, 0)]);
        b.originals.entry(id).or_default().push(n);
    }
    // Build everything before replacing anything: an original node is kept only if its
    // inputs are still the original values, which all come before it.
    let replacements: Vec<(Value, Value)> = t
        .roots
        .iter()
        .zip(&root_classes)
        .map(|(&root, &id)| (root, b.build(g, id)))
        .collect();
    for (root, new) in replacements {
        if new != root {
            g.replace_all_uses_with(root, new);
        }
    }
    let names = std::mem::take(&mut b.names);
    // The old region, last to first so that each node is unused when it goes.
    for &n in region.nodes.iter().rev() {
        if g.is_alive(n) && g.node_outputs(n).iter().all(|&o| !g.has_uses(o)) {
            let inputs: Vec<Value> = g.node_inputs(n).to_vec();
            g.destroy(n);
            for v in inputs {
                let p = g.producer(v);
                if g.kind(p) == sym::constant() && !g.has_uses(v) && g.owning_block(p).is_some() {
                    g.destroy(p);
                }
            }
        }
    }
    // New nodes take the names of the values they stand for, now that those are gone.
    for (v, name) in names {
        if g.debug_name(v).is_none() {
            g.set_debug_name(v, &name);
        }
    }
    true
}

/// Materializes extracted forms before `at`, sharing what is built and keeping original
/// nodes whose form the extraction chose unchanged.
struct Builder<'a> {
    egraph: &'a ScalarGraph,
    extractor: &'a Extractor<'a, FewestNodes, Scalar, ScalarAnalysis>,
    leaves: &'a [Value],
    at: Node,
    built: HashMap<Id, Value>,
    /// The region's nodes by the class of their output.
    originals: HashMap<Id, Vec<Node>>,
    /// Debug names for new values, given once the old region is gone.
    names: Vec<(Value, String)>,
}

impl Builder<'_> {
    fn build(&mut self, g: &mut Graph, id: Id) -> Value {
        let id = self.egraph.find(id);
        if let Some(&v) = self.built.get(&id) {
            return v;
        }
        let best = self.extractor.find_best_node(id).clone();
        let ty = self.egraph[id].data.ty.expect("typed class").to_type();
        let v = match &best {
            Scalar::Leaf(leaf) => self.leaves[leaf.index as usize],
            Scalar::Int(_) | Scalar::Float(_) | Scalar::Bool(_) => {
                let c = best.literal_value().expect("literal");
                insert_constant_before(g, self.at, &c, &ty).expect("scalar constant")
            }
            op => {
                let inputs: Vec<Value> = op.children().iter().map(|&c| self.build(g, c)).collect();
                let kind = op.op_kind().expect("operator");
                let originals = self.originals.get(&id).cloned().unwrap_or_default();
                let same = originals
                    .iter()
                    .find(|&&n| g.kind(n) == kind && g.node_inputs(n) == inputs.as_slice());
                match same {
                    Some(&n) => g.output(n, 0),
                    None => {
                        let n = g.create(kind, &inputs, 0);
                        let out = g.add_node_output(n, ty);
                        g.insert_before(n, self.at);
                        if let Some(&old) = originals.first() {
                            let range = g.source_range(old).cloned();
                            g.set_source_range(n, range);
                            let name = originals.iter().find_map(|&o| g.debug_name(g.output(o, 0)));
                            if let Some(name) = name {
                                self.names.push((out, name.to_string()));
                            }
                        }
                        out
                    }
                }
            }
        };
        self.built.insert(id, v);
        v
    }
}

mod tensors;

#[cfg(test)]
mod tests;
