//! Copying nodes and blocks, within one graph or from another, with a value map: the tool of
//! inlining (`insert_graph`) and of building subgraphs.

use hashbrown::HashMap;

use super::{Block, Graph, Node, Value};
use crate::attr::AttrValue;
use crate::source::SourceRange;
use crate::symbol::Symbol;
use crate::types::Type;

/// What a copy needs of a node, read out before the target graph is written.
struct NodeSnapshot {
    kind: Symbol,
    attrs: Vec<(Symbol, AttrValue)>,
    inputs: Vec<Value>,
    outputs: Vec<(Value, Type, Option<String>)>,
    blocks: Vec<Block>,
    source: Option<SourceRange>,
    scope: Option<String>,
}

fn snapshot(g: &Graph, n: Node) -> NodeSnapshot {
    let d = &g.nodes[n];
    NodeSnapshot {
        kind: d.kind,
        attrs: d.attrs.clone(),
        inputs: d.inputs.clone(),
        outputs: d
            .outputs
            .iter()
            .map(|&o| (o, g.values[o].ty.clone(), g.values[o].debug_name.clone()))
            .collect(),
        blocks: d.blocks.clone(),
        source: d.source.clone(),
        scope: d.scope.clone(),
    }
}

/// Maps a source value through `map`; within one graph, values defined outside what is being
/// copied map to themselves.
fn lookup(map: &HashMap<Value, Value>, v: Value, same_graph: bool) -> Value {
    match map.get(&v) {
        Some(&m) => m,
        None if same_graph => v,
        None => panic!("copying from another graph: value {v} has no mapping"),
    }
}

impl Graph {
    /// Copies node `n` of this graph (with its blocks) into a new free node; inputs go through
    /// `map` (unmapped ones stay), and each output's copy is added to `map`.
    pub fn clone_node(&mut self, n: Node, map: &mut HashMap<Value, Value>) -> Node {
        self.clone_node_impl(None, n, map)
    }

    /// Copies node `n` of `src` into a new free node of this graph. Every value `n` uses that
    /// is defined outside it must be in `map`.
    pub fn clone_node_from(
        &mut self,
        src: &Graph,
        n: Node,
        map: &mut HashMap<Value, Value>,
    ) -> Node {
        self.clone_node_impl(Some(src), n, map)
    }

    /// Copies the inputs, nodes and outputs of block `from` (of `src`, or of this graph when
    /// `src` is `None`) into the empty block `to` of this graph.
    pub fn clone_block_into(
        &mut self,
        src: Option<&Graph>,
        from: Block,
        to: Block,
        map: &mut HashMap<Value, Value>,
    ) {
        let same = src.is_none();
        let (inputs, nodes, outputs) = {
            let g = src.unwrap_or(self);
            let inputs: Vec<(Value, Type, Option<String>)> = g
                .block_inputs(from)
                .iter()
                .map(|&v| (v, g.values[v].ty.clone(), g.values[v].debug_name.clone()))
                .collect();
            let nodes: Vec<Node> = g.block_nodes(from).collect();
            (inputs, nodes, g.block_outputs(from).to_vec())
        };
        for (v, ty, name) in inputs {
            let nv = self.block_add_input(to, ty);
            if let Some(name) = name {
                self.set_debug_name(nv, &name);
            }
            map.insert(v, nv);
        }
        for n in nodes {
            let c = self.clone_node_impl(src, n, map);
            self.block_append(to, c);
        }
        for o in outputs {
            let m = lookup(map, o, same);
            self.block_register_output(to, m);
        }
    }

    fn clone_node_impl(
        &mut self,
        src: Option<&Graph>,
        n: Node,
        map: &mut HashMap<Value, Value>,
    ) -> Node {
        let same = src.is_none();
        let snap = snapshot(src.unwrap_or(self), n);
        let c = self.create(snap.kind, &[], 0);
        for v in &snap.inputs {
            let m = lookup(map, *v, same);
            self.add_node_input(c, m);
        }
        for (v, ty, name) in snap.outputs {
            let nv = self.add_node_output(c, ty);
            if let Some(name) = name {
                self.set_debug_name(nv, &name);
            }
            map.insert(v, nv);
        }
        self.nodes[c].attrs = snap.attrs;
        self.nodes[c].source = snap.source;
        self.nodes[c].scope = snap.scope;
        for b in snap.blocks {
            let nb = self.add_block(c);
            self.clone_block_into(src, b, nb, map);
        }
        c
    }

    /// Inlines `callee`'s top block at the insertion point with `inputs` for its inputs and
    /// returns the values that stand for its outputs (PyTorch's `insertGraph`).
    pub fn insert_graph(&mut self, callee: &Graph, inputs: &[Value]) -> Vec<Value> {
        assert_eq!(
            callee.inputs().len(),
            inputs.len(),
            "insert_graph: wrong number of inputs"
        );
        let mut map: HashMap<Value, Value> = callee
            .inputs()
            .iter()
            .copied()
            .zip(inputs.iter().copied())
            .collect();
        for n in callee.block_nodes(callee.block()).collect::<Vec<_>>() {
            let c = self.clone_node_from(callee, n, &mut map);
            self.insert_node(c);
        }
        callee
            .outputs()
            .iter()
            .map(|&o| lookup(&map, o, false))
            .collect()
    }
}
