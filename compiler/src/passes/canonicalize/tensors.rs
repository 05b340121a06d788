//! The tensor half of `canonicalize`: each block's pure tensor ops go into one e-graph of the
//! tensor language ([`crate::rewrite::tensor`]) with the values they read as leaves, the
//! tensor rule sets saturate it under explicit limits, and each op's value is replaced by the
//! cheapest equal form when that form is cheaper: an existing value, a constant, or new ops
//! built before the op.
//!
//! An op enters only when it writes nothing, has no side effects, is deterministic and no
//! node writes its inputs or outputs (alias analysis): then it and any expression equal to it
//! are interchangeable wherever it is used.

use std::time::Duration;

use egg::{Extractor, Id, Runner};
use hashbrown::HashMap;

use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Symbol, Type, Value, ValueDef};

use crate::analysis::alias::{self, AliasDb};
use crate::fold::{constant_value, insert_constant_before};
use crate::passes::{LogLevel, PassContext};
use crate::rewrite::tensor::{
    ClassFacts, FewestOps, Lit, TensorFacts, TensorGraph, TensorLang, TensorLeaf, RANK_PRESERVING,
};
use crate::rewrite::tensor_rules;

const ITER_LIMIT: usize = 8;
const NODE_LIMIT: usize = 20_000;
const TIME_LIMIT: Duration = Duration::from_millis(200);

/// Ops the rules speak of (besides the rank-preserving ones, whose rank they use).
const MODELED: &[&str] = &[
    "aten::t",
    "aten::transpose",
    "aten::reshape",
    "aten::contiguous",
    "aten::to",
    "aten::expand",
    "aten::matmul",
    "aten::mm",
    "aten::linear",
    "aten::addmm",
    "aten::dim",
];

pub fn run(g: &mut Graph, cx: &mut PassContext) -> bool {
    let db = AliasDb::new(g);
    let mut blocks = vec![g.block()];
    let mut changed = false;
    while let Some(b) = blocks.pop() {
        for n in g.block_nodes(b).collect::<Vec<_>>() {
            blocks.extend(g.node_blocks(n).iter().copied());
        }
        changed |= rewrite_block(g, &db, b, cx);
    }
    changed
}

/// Whether `n` may enter the e-graph.
fn modeled(g: &Graph, db: &AliasDb, n: Node) -> bool {
    let kind = g.kind(n).as_str();
    (MODELED.contains(&kind) || RANK_PRESERVING.contains(&kind))
        && g.node_inputs(n)
            .first()
            .is_some_and(|&v| g.ty(v).is_tensor())
        && g.node_blocks(n).is_empty()
        && g.node_outputs(n).len() == 1
        && !alias::has_side_effects(g, n)
        && !alias::is_nondeterministic(g, n)
        && !db.node_has_writers(g, n)
        && !db.writes_to_inputs(g, n)
}

struct Translation {
    egraph: Option<TensorGraph>,
    class_of: HashMap<Value, Id>,
    leaves: Vec<Value>,
    /// The modeled nodes, in order.
    nodes: Vec<Node>,
}

fn literal(g: &Graph, v: Value) -> Option<Lit> {
    Some(match constant_value(g, v)? {
        ConstValue::Int(i) => Lit::Int(i),
        ConstValue::Bool(b) => Lit::Bool(b),
        ConstValue::None => Lit::None,
        ConstValue::List(items) => Lit::Ints(
            items
                .iter()
                .map(|c| match c {
                    ConstValue::Int(i) => Some(*i),
                    _ => None,
                })
                .collect::<Option<_>>()?,
        ),
        _ => return None,
    })
}

fn is_constant_tensor(g: &Graph, v: Value) -> bool {
    let ValueDef::Output(n, _) = g.value_def(v) else {
        return false;
    };
    g.kind(n) == sym::constant()
        && matches!(g.attr(n, sym::attr_value()), Some(AttrValue::Tensor(_)))
}

fn translate(g: &Graph, db: &AliasDb, b: Block) -> Translation {
    let mut egraph = TensorGraph::default();
    let mut t = Translation {
        egraph: None,
        class_of: HashMap::new(),
        leaves: Vec::new(),
        nodes: Vec::new(),
    };
    for n in g.block_nodes(b) {
        if !modeled(g, db, n) {
            continue;
        }
        let mut children = Vec::new();
        for &v in g.node_inputs(n) {
            let id = match t.class_of.get(&v) {
                Some(&id) => id,
                None => {
                    let node = match literal(g, v) {
                        Some(l) => TensorLang::Lit(l),
                        None => {
                            egraph.analysis.leaves.push(ClassFacts {
                                tensor: TensorFacts::of_type(g.ty(v)),
                                lit: None,
                                constant_tensor: is_constant_tensor(g, v),
                            });
                            t.leaves.push(v);
                            TensorLang::Leaf(TensorLeaf(t.leaves.len() as u32 - 1))
                        }
                    };
                    let id = egraph.add(node);
                    t.class_of.insert(v, id);
                    id
                }
            };
            children.push(id);
        }
        let op = TensorLang::Op(egg::Symbol::from(g.kind(n).as_str()), children);
        let id = egraph.add(op);
        // What the output's own type says adds to what the op says.
        let out = g.output(n, 0);
        if let Some(facts) = TensorFacts::of_type(g.ty(out)) {
            let data = &mut egraph[id].data;
            if data.tensor.is_none() {
                data.tensor = Some(facts);
            }
        }
        t.class_of.insert(out, id);
        t.nodes.push(n);
    }
    t.egraph = Some(egraph);
    t
}

fn rewrite_block(g: &mut Graph, db: &AliasDb, b: Block, cx: &mut PassContext) -> bool {
    let mut t = translate(g, db, b);
    if t.nodes.is_empty() {
        return false;
    }
    let runner = Runner::default()
        .with_iter_limit(ITER_LIMIT)
        .with_node_limit(NODE_LIMIT)
        .with_time_limit(TIME_LIMIT)
        .with_egraph(t.egraph.take().expect("translated"))
        .run(&tensor_rules());
    cx.log(LogLevel::Debug, || {
        format!(
            "tensor e-graph of {} ops: {} iterations ({:?}), {} e-nodes",
            t.nodes.len(),
            runner.iterations.len(),
            runner.stop_reason,
            runner.egraph.total_number_of_nodes()
        )
    });
    let egraph = &runner.egraph;
    let extractor = Extractor::new(egraph, FewestOps);
    let mut changed = false;
    let mut built: HashMap<Id, Value> = HashMap::new();
    for &n in &t.nodes {
        if !g.is_alive(n) {
            continue;
        }
        let out = g.output(n, 0);
        if !g.has_uses(out) {
            continue;
        }
        let id = egraph.find(t.class_of[&out]);
        let (cost, _) = extractor.find_best(id);
        if cost >= original_cost(g, &t, n) || !cx.may_rewrite() {
            continue;
        }
        let mut builder = Builder {
            egraph,
            extractor: &extractor,
            leaves: &t.leaves,
            at: n,
            built: &mut built,
        };
        let Some(new) = builder.build(g, id, g.ty(out).clone()) else {
            continue;
        };
        if new == out {
            continue;
        }
        cx.log(LogLevel::Update, || {
            format!(
                "replaced %{} ({}) by %{}",
                g.value_name(out),
                g.kind(n),
                g.value_name(new)
            )
        });
        g.replace_all_uses_with(out, new);
        changed = true;
    }
    // The ops replaced, and what only they used, go.
    for &n in t.nodes.iter().rev() {
        if g.is_alive(n) && !g.has_uses(g.output(n, 0)) {
            g.destroy(n);
        }
    }
    changed
}

/// The cost of the expression `n` computes as the graph has it: its modeled ops and the
/// literals they read.
fn original_cost(g: &Graph, t: &Translation, n: Node) -> usize {
    let mut cost = crate::rewrite::tensor::OP_COST;
    for &v in g.node_inputs(n) {
        let ValueDef::Output(p, _) = g.value_def(v) else {
            continue;
        };
        if t.nodes.contains(&p) {
            cost += original_cost(g, t, p);
        } else if literal(g, v).is_some() {
            cost += crate::rewrite::tensor::LIT_COST;
        }
    }
    cost
}

/// Materializes an extracted form before `at`.
struct Builder<'a> {
    egraph: &'a TensorGraph,
    extractor: &'a Extractor<'a, FewestOps, TensorLang, crate::rewrite::tensor::TensorAnalysis>,
    leaves: &'a [Value],
    at: Node,
    built: &'a mut HashMap<Id, Value>,
}

impl Builder<'_> {
    /// The value of class `id` (of type `ty` for a new node), or `None` when a leaf it needs
    /// is not defined at `at`.
    fn build(&mut self, g: &mut Graph, id: Id, ty: Type) -> Option<Value> {
        let id = self.egraph.find(id);
        if let Some(&v) = self.built.get(&id) {
            if defined_before(g, v, self.at) {
                return Some(v);
            }
        }
        let best = self.extractor.find_best_node(id).clone();
        let v = match &best {
            TensorLang::Leaf(leaf) => {
                let v = self.leaves[leaf.0 as usize];
                defined_before(g, v, self.at).then_some(v)?
            }
            TensorLang::Lit(lit) => {
                let (c, like) = match lit {
                    Lit::Int(i) => (ConstValue::Int(*i), Type::Int),
                    Lit::Bool(b) => (ConstValue::Bool(*b), Type::Bool),
                    Lit::None => (ConstValue::None, Type::None),
                    Lit::Ints(v) => (
                        ConstValue::List(v.iter().map(|&i| ConstValue::Int(i)).collect()),
                        Type::list(Type::Int),
                    ),
                };
                insert_constant_before(g, self.at, &c, &like)?
            }
            TensorLang::Op(kind, children) => {
                let mut inputs = Vec::new();
                for &c in children {
                    inputs.push(self.build(g, c, Type::tensor())?);
                }
                let n = g.create(Symbol::new(kind.as_str()), &inputs, 0);
                let out = g.add_node_output(n, ty);
                g.insert_before(n, self.at);
                g.set_source_range(n, g.source_range(self.at).cloned());
                if ember_dialects::catalogue::resolve_node(g, n).is_err() {
                    g.destroy(n);
                    return None;
                }
                out
            }
        };
        self.built.insert(id, v);
        Some(v)
    }
}

/// Whether `v` can be used right before `at`: defined before it in its block, or before the
/// node holding it in a block around it.
fn defined_before(g: &Graph, v: Value, at: Node) -> bool {
    let mut node = at;
    loop {
        let Some(block) = g.owning_block(node) else {
            return false;
        };
        match g.value_def(v) {
            ValueDef::Param(b, _) if b == block => return true,
            ValueDef::Output(p, _) if g.owning_block(p) == Some(block) => {
                return g.is_before(p, node)
            }
            _ => {}
        }
        match g.owning_node(block) {
            Some(owner) => node = owner,
            None => return false,
        }
    }
}
