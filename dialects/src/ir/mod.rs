//! Graphs, blocks, nodes and values — TorchScript's IR — as typed ids into arenas owned by the
//! [`Graph`]. Node order inside a block is a doubly linked list over ids, so inserting and
//! removing never invalidates an id. Every block has a `prim::Param` node whose outputs are the
//! block's inputs and a `prim::Return` node whose inputs are its outputs; neither is in the list.
//!
//! The API follows PyTorch's `torch/csrc/jit/ir/ir.h` with Rust names.

use cranelift_entity::{entity_impl, PrimaryMap};
use hashbrown::HashMap;

use crate::attr::AttrValue;
use crate::source::SourceRange;
use crate::symbol::{sym, Symbol};
use crate::types::Type;

mod copy;
#[cfg(test)]
mod test_hooks;

/// A node (an operation) of a graph.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Node(u32);
entity_impl!(Node, "node");

/// An SSA value of a graph.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "value");

/// A block: a list of nodes with inputs and outputs, owned by a node (or the graph's top block).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// One use of a value: input number `offset` of node `user`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Use {
    pub user: Node,
    pub offset: usize,
}

/// Where a value is defined.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ValueDef {
    /// Output `usize` of a node.
    Output(Node, usize),
    /// Input `usize` of a block (an output of its `prim::Param` node).
    Param(Block, usize),
}

#[derive(Clone, Debug)]
pub struct NodeData {
    kind: Symbol,
    inputs: Vec<Value>,
    outputs: Vec<Value>,
    blocks: Vec<Block>,
    attrs: Vec<(Symbol, AttrValue)>,
    owning_block: Option<Block>,
    prev: Option<Node>,
    next: Option<Node>,
    in_list: bool,
    alive: bool,
    source: Option<SourceRange>,
    scope: Option<String>,
}

#[derive(Clone, Debug)]
pub struct ValueData {
    ty: Type,
    node: Node,
    offset: usize,
    uses: Vec<Use>,
    debug_name: Option<String>,
    unique: u64,
}

#[derive(Clone, Debug)]
pub struct BlockData {
    param: Node,
    ret: Node,
    owning_node: Option<Node>,
    first: Option<Node>,
    last: Option<Node>,
    alive: bool,
}

/// A TorchScript graph: the arenas of its nodes, values and blocks, its top block, the
/// insertion point and the table of value names.
#[derive(Clone, Debug)]
pub struct Graph {
    nodes: PrimaryMap<Node, NodeData>,
    values: PrimaryMap<Value, ValueData>,
    blocks: PrimaryMap<Block, BlockData>,
    top: Block,
    /// New nodes are inserted before this node.
    insert_point: Node,
    names: HashMap<String, Value>,
    name_base_suffix: HashMap<String, u64>,
    next_unique: u64,
}

impl Default for Graph {
    fn default() -> Self {
        Graph::new()
    }
}

impl Graph {
    pub fn new() -> Graph {
        let mut g = Graph {
            nodes: PrimaryMap::new(),
            values: PrimaryMap::new(),
            blocks: PrimaryMap::new(),
            top: Block(0),
            insert_point: Node(0),
            names: HashMap::new(),
            name_base_suffix: HashMap::new(),
            next_unique: 0,
        };
        g.top = g.new_block(None);
        g.insert_point = g.blocks[g.top].ret;
        g
    }

    fn new_block(&mut self, owning_node: Option<Node>) -> Block {
        let param = self.nodes.push(NodeData::new(sym::param()));
        let ret = self.nodes.push(NodeData::new(sym::ret()));
        let b = self.blocks.push(BlockData {
            param,
            ret,
            owning_node,
            first: None,
            last: None,
            alive: true,
        });
        self.nodes[param].owning_block = Some(b);
        self.nodes[ret].owning_block = Some(b);
        b
    }

    // ----- graph-level inputs and outputs (those of the top block) -----

    /// The top-level block.
    pub fn block(&self) -> Block {
        self.top
    }

    pub fn inputs(&self) -> &[Value] {
        self.block_inputs(self.top)
    }

    pub fn outputs(&self) -> &[Value] {
        self.block_outputs(self.top)
    }

    pub fn add_input(&mut self, ty: Type) -> Value {
        self.block_add_input(self.top, ty)
    }

    pub fn insert_input(&mut self, i: usize, ty: Type) -> Value {
        self.block_insert_input(self.top, i, ty)
    }

    pub fn erase_input(&mut self, i: usize) {
        self.block_erase_input(self.top, i)
    }

    /// Appends `v` to the graph's outputs and returns its index.
    pub fn register_output(&mut self, v: Value) -> usize {
        self.block_register_output(self.top, v)
    }

    pub fn erase_output(&mut self, i: usize) {
        self.block_erase_output(self.top, i)
    }

    // ----- nodes: creation and placement -----

    /// Creates a node of `kind` with `inputs` and `num_outputs` outputs typed `Tensor`, not yet
    /// in any block.
    pub fn create(&mut self, kind: Symbol, inputs: &[Value], num_outputs: usize) -> Node {
        let n = self.nodes.push(NodeData::new(kind));
        for &v in inputs {
            self.add_node_input(n, v);
        }
        for _ in 0..num_outputs {
            self.add_node_output(n, Type::tensor());
        }
        n
    }

    /// Inserts `n` at the insertion point and returns it.
    pub fn insert_node(&mut self, n: Node) -> Node {
        self.insert_before(n, self.insert_point);
        n
    }

    /// Creates and inserts a node at the insertion point.
    pub fn create_and_insert(
        &mut self,
        kind: Symbol,
        inputs: &[Value],
        num_outputs: usize,
    ) -> Node {
        let n = self.create(kind, inputs, num_outputs);
        self.insert_node(n)
    }

    /// Appends `n` to the end of the top block.
    pub fn append_node(&mut self, n: Node) -> Node {
        self.block_append(self.top, n)
    }

    /// Prepends `n` to the start of the top block.
    pub fn prepend_node(&mut self, n: Node) -> Node {
        self.block_prepend(self.top, n)
    }

    pub fn block_append(&mut self, b: Block, n: Node) -> Node {
        let ret = self.blocks[b].ret;
        self.insert_before(n, ret);
        n
    }

    pub fn block_prepend(&mut self, b: Block, n: Node) -> Node {
        let param = self.blocks[b].param;
        self.insert_after(n, param);
        n
    }

    /// Inserts the free node `n` just before `pos`. `pos` may be a block's return node (append).
    pub fn insert_before(&mut self, n: Node, pos: Node) {
        assert!(!self.nodes[n].in_list, "node is already in a block");
        let b = self.nodes[pos]
            .owning_block
            .expect("insertion point is not in a block");
        let prev = if pos == self.blocks[b].ret {
            self.blocks[b].last
        } else {
            assert!(
                pos != self.blocks[b].param,
                "cannot insert before a block's param node"
            );
            self.nodes[pos].prev
        };
        self.link_after(n, b, prev);
    }

    /// Inserts the free node `n` just after `pos`. `pos` may be a block's param node (prepend).
    pub fn insert_after(&mut self, n: Node, pos: Node) {
        assert!(!self.nodes[n].in_list, "node is already in a block");
        let b = self.nodes[pos]
            .owning_block
            .expect("insertion point is not in a block");
        let prev = if pos == self.blocks[b].param {
            None
        } else {
            assert!(
                pos != self.blocks[b].ret,
                "cannot insert after a block's return node"
            );
            Some(pos)
        };
        self.link_after(n, b, prev);
    }

    /// Links `n` into block `b` after `prev` (`None`: at the start).
    fn link_after(&mut self, n: Node, b: Block, prev: Option<Node>) {
        let next = match prev {
            Some(p) => self.nodes[p].next,
            None => self.blocks[b].first,
        };
        match prev {
            Some(p) => self.nodes[p].next = Some(n),
            None => self.blocks[b].first = Some(n),
        }
        match next {
            Some(x) => self.nodes[x].prev = Some(n),
            None => self.blocks[b].last = Some(n),
        }
        let d = &mut self.nodes[n];
        d.prev = prev;
        d.next = next;
        d.owning_block = Some(b);
        d.in_list = true;
    }

    /// Unlinks `n` from its block, leaving it free (its uses and blocks stay).
    pub fn remove_from_list(&mut self, n: Node) {
        if !self.nodes[n].in_list {
            return;
        }
        let b = self.nodes[n].owning_block.unwrap();
        let (prev, next) = (self.nodes[n].prev, self.nodes[n].next);
        match prev {
            Some(p) => self.nodes[p].next = next,
            None => self.blocks[b].first = next,
        }
        match next {
            Some(x) => self.nodes[x].prev = prev,
            None => self.blocks[b].last = prev,
        }
        let d = &mut self.nodes[n];
        d.prev = None;
        d.next = None;
        d.in_list = false;
    }

    /// Moves `n` (already in a block) to just before `pos`.
    pub fn move_before(&mut self, n: Node, pos: Node) {
        self.remove_from_list(n);
        self.insert_before(n, pos);
    }

    /// Moves `n` (already in a block) to just after `pos`.
    pub fn move_after(&mut self, n: Node, pos: Node) {
        self.remove_from_list(n);
        self.insert_after(n, pos);
    }

    /// Removes `n` from the graph. Its outputs must have no uses; its input uses and sub-blocks
    /// are dropped.
    pub fn destroy(&mut self, n: Node) {
        for &o in &self.nodes[n].outputs {
            assert!(
                self.values[o].uses.is_empty(),
                "destroying a node whose outputs are still used"
            );
        }
        while let Some(&b) = self.nodes[n].blocks.last() {
            let _ = b;
            self.erase_block(n, self.nodes[n].blocks.len() - 1);
        }
        self.remove_all_inputs(n);
        let outputs = std::mem::take(&mut self.nodes[n].outputs);
        for o in outputs {
            self.forget_value_name(o);
        }
        if self.insert_point == n {
            self.insert_point = self.blocks[self.top].ret;
        }
        self.remove_from_list(n);
        self.nodes[n].alive = false;
    }

    // ----- the insertion point -----

    pub fn insert_point(&self) -> Node {
        self.insert_point
    }

    /// New nodes will be inserted before `n`.
    pub fn set_insert_point(&mut self, n: Node) {
        assert!(
            self.nodes[n].owning_block.is_some(),
            "insertion point must be in a block"
        );
        self.insert_point = n;
    }

    /// New nodes will be appended to `b`.
    pub fn set_insert_point_to_end(&mut self, b: Block) {
        self.insert_point = self.blocks[b].ret;
    }

    // ----- node accessors -----

    pub fn kind(&self, n: Node) -> Symbol {
        self.nodes[n].kind
    }

    pub fn set_kind(&mut self, n: Node, kind: Symbol) {
        self.nodes[n].kind = kind;
    }

    pub fn node_inputs(&self, n: Node) -> &[Value] {
        &self.nodes[n].inputs
    }

    pub fn node_outputs(&self, n: Node) -> &[Value] {
        &self.nodes[n].outputs
    }

    pub fn input(&self, n: Node, i: usize) -> Value {
        self.nodes[n].inputs[i]
    }

    pub fn output(&self, n: Node, i: usize) -> Value {
        self.nodes[n].outputs[i]
    }

    pub fn node_blocks(&self, n: Node) -> &[Block] {
        &self.nodes[n].blocks
    }

    /// The block `n` sits in (`None` for a free node).
    pub fn owning_block(&self, n: Node) -> Option<Block> {
        if self.nodes[n].in_list || self.is_block_boundary(n) {
            self.nodes[n].owning_block
        } else {
            None
        }
    }

    pub fn is_alive(&self, n: Node) -> bool {
        self.nodes[n].alive
    }

    /// Whether `n` is a block's `prim::Param` or `prim::Return` node.
    pub fn is_block_boundary(&self, n: Node) -> bool {
        match self.nodes[n].owning_block {
            Some(b) => self.blocks[b].param == n || self.blocks[b].ret == n,
            None => false,
        }
    }

    /// The node after `n` in its block, `None` at the end.
    pub fn next_node(&self, n: Node) -> Option<Node> {
        self.nodes[n].next
    }

    /// The node before `n` in its block, `None` at the start.
    pub fn prev_node(&self, n: Node) -> Option<Node> {
        self.nodes[n].prev
    }

    pub fn source_range(&self, n: Node) -> Option<&SourceRange> {
        self.nodes[n].source.as_ref()
    }

    pub fn set_source_range(&mut self, n: Node, r: Option<SourceRange>) {
        self.nodes[n].source = r;
    }

    /// The scope a traced node was recorded in (`__module.fc`), printed `, scope: ...`.
    pub fn scope(&self, n: Node) -> Option<&str> {
        self.nodes[n].scope.as_deref()
    }

    pub fn set_scope(&mut self, n: Node, scope: Option<String>) {
        self.nodes[n].scope = scope;
    }

    // ----- node inputs -----

    pub fn add_node_input(&mut self, n: Node, v: Value) -> usize {
        let offset = self.nodes[n].inputs.len();
        self.nodes[n].inputs.push(v);
        self.values[v].uses.push(Use { user: n, offset });
        offset
    }

    pub fn insert_node_input(&mut self, n: Node, i: usize, v: Value) {
        // Uses after `i` shift by one.
        for j in i..self.nodes[n].inputs.len() {
            let w = self.nodes[n].inputs[j];
            self.use_mut(w, n, j).offset += 1;
        }
        self.nodes[n].inputs.insert(i, v);
        self.values[v].uses.push(Use { user: n, offset: i });
    }

    /// Replaces input `i` of `n` with `v`, returning the old value.
    pub fn replace_input(&mut self, n: Node, i: usize, v: Value) -> Value {
        let old = self.nodes[n].inputs[i];
        self.drop_use(old, n, i);
        self.nodes[n].inputs[i] = v;
        self.values[v].uses.push(Use { user: n, offset: i });
        old
    }

    /// Replaces every input of `n` that is `from` with `to`.
    pub fn replace_input_with(&mut self, n: Node, from: Value, to: Value) {
        for i in 0..self.nodes[n].inputs.len() {
            if self.nodes[n].inputs[i] == from {
                self.replace_input(n, i, to);
            }
        }
    }

    pub fn remove_node_input(&mut self, n: Node, i: usize) {
        let old = self.nodes[n].inputs[i];
        self.drop_use(old, n, i);
        for j in i + 1..self.nodes[n].inputs.len() {
            let w = self.nodes[n].inputs[j];
            self.use_mut(w, n, j).offset -= 1;
        }
        self.nodes[n].inputs.remove(i);
    }

    pub fn remove_all_inputs(&mut self, n: Node) {
        while !self.nodes[n].inputs.is_empty() {
            let last = self.nodes[n].inputs.len() - 1;
            self.remove_node_input(n, last);
        }
    }

    fn drop_use(&mut self, v: Value, n: Node, offset: usize) {
        let uses = &mut self.values[v].uses;
        let at = uses
            .iter()
            .position(|u| u.user == n && u.offset == offset)
            .expect("use list out of sync with node inputs");
        uses.remove(at);
    }

    fn use_mut(&mut self, v: Value, n: Node, offset: usize) -> &mut Use {
        self.values[v]
            .uses
            .iter_mut()
            .find(|u| u.user == n && u.offset == offset)
            .expect("use list out of sync with node inputs")
    }

    // ----- node outputs -----

    pub fn add_node_output(&mut self, n: Node, ty: Type) -> Value {
        let offset = self.nodes[n].outputs.len();
        let v = self.new_value(n, offset, ty);
        self.nodes[n].outputs.push(v);
        v
    }

    pub fn insert_node_output(&mut self, n: Node, i: usize, ty: Type) -> Value {
        let v = self.new_value(n, i, ty);
        self.nodes[n].outputs.insert(i, v);
        for j in i + 1..self.nodes[n].outputs.len() {
            let w = self.nodes[n].outputs[j];
            self.values[w].offset = j;
        }
        v
    }

    /// Erases output `i` of `n`; it must have no uses.
    pub fn erase_node_output(&mut self, n: Node, i: usize) {
        let v = self.nodes[n].outputs[i];
        assert!(
            self.values[v].uses.is_empty(),
            "erasing an output that is still used"
        );
        self.forget_value_name(v);
        self.nodes[n].outputs.remove(i);
        for j in i..self.nodes[n].outputs.len() {
            let w = self.nodes[n].outputs[j];
            self.values[w].offset = j;
        }
    }

    /// Reorders `n`'s outputs so that output `i` is the old output `order[i]` (PyTorch's
    /// `permuteOutputs`); a block's inputs are its param node's outputs. Uses follow their
    /// values.
    pub fn permute_node_outputs(&mut self, n: Node, order: &[usize]) {
        let old = self.nodes[n].outputs.clone();
        assert_eq!(order.len(), old.len(), "permutation of the wrong length");
        let new: Vec<Value> = order.iter().map(|&i| old[i]).collect();
        for (i, &v) in new.iter().enumerate() {
            self.values[v].offset = i;
        }
        self.nodes[n].outputs = new;
    }

    fn new_value(&mut self, node: Node, offset: usize, ty: Type) -> Value {
        let unique = self.next_unique;
        self.next_unique += 1;
        self.values.push(ValueData {
            ty,
            node,
            offset,
            uses: Vec::new(),
            debug_name: None,
            unique,
        })
    }

    // ----- sub-blocks -----

    /// Adds a new empty block to `n` and returns it.
    pub fn add_block(&mut self, n: Node) -> Block {
        let b = self.new_block(Some(n));
        self.nodes[n].blocks.push(b);
        b
    }

    /// Erases sub-block `i` of `n` with everything in it.
    pub fn erase_block(&mut self, n: Node, i: usize) {
        let b = self.nodes[n].blocks.remove(i);
        self.destroy_block_contents(b);
    }

    fn destroy_block_contents(&mut self, b: Block) {
        // Drop the uses of the return node first, then nodes from last to first, so every
        // node's outputs are unused when it is destroyed. Uses from outside the block are a
        // scoping error the verifier reports; here they are dropped with their users.
        let ret = self.blocks[b].ret;
        self.remove_all_inputs(ret);
        while let Some(n) = self.blocks[b].last {
            let outputs = self.nodes[n].outputs.clone();
            for o in outputs {
                self.drop_all_uses(o);
            }
            self.destroy(n);
        }
        let param = self.blocks[b].param;
        let params = self.nodes[param].outputs.clone();
        for p in params {
            self.drop_all_uses(p);
            self.forget_value_name(p);
        }
        self.nodes[param].alive = false;
        self.nodes[ret].alive = false;
        self.blocks[b].alive = false;
    }

    /// Removes every use of `v` by removing it from its users' inputs (for destroying
    /// regions whose values may still be referenced by dead code).
    fn drop_all_uses(&mut self, v: Value) {
        while let Some(u) = self.values[v].uses.last().copied() {
            self.remove_node_input(u.user, u.offset);
        }
    }

    // ----- blocks -----

    pub fn param_node(&self, b: Block) -> Node {
        self.blocks[b].param
    }

    pub fn return_node(&self, b: Block) -> Node {
        self.blocks[b].ret
    }

    /// The node a block belongs to (`None` for the top block).
    pub fn owning_node(&self, b: Block) -> Option<Node> {
        self.blocks[b].owning_node
    }

    pub fn block_is_alive(&self, b: Block) -> bool {
        self.blocks[b].alive
    }

    pub fn block_inputs(&self, b: Block) -> &[Value] {
        &self.nodes[self.blocks[b].param].outputs
    }

    pub fn block_outputs(&self, b: Block) -> &[Value] {
        &self.nodes[self.blocks[b].ret].inputs
    }

    pub fn block_add_input(&mut self, b: Block, ty: Type) -> Value {
        let param = self.blocks[b].param;
        self.add_node_output(param, ty)
    }

    pub fn block_insert_input(&mut self, b: Block, i: usize, ty: Type) -> Value {
        let param = self.blocks[b].param;
        self.insert_node_output(param, i, ty)
    }

    pub fn block_erase_input(&mut self, b: Block, i: usize) {
        let param = self.blocks[b].param;
        self.erase_node_output(param, i)
    }

    pub fn block_register_output(&mut self, b: Block, v: Value) -> usize {
        let ret = self.blocks[b].ret;
        self.add_node_input(ret, v)
    }

    pub fn block_insert_output(&mut self, b: Block, i: usize, v: Value) {
        let ret = self.blocks[b].ret;
        self.insert_node_input(ret, i, v)
    }

    pub fn block_erase_output(&mut self, b: Block, i: usize) {
        let ret = self.blocks[b].ret;
        self.remove_node_input(ret, i)
    }

    /// The nodes of `b` in order (not including the param and return nodes, nor nested ones).
    pub fn block_nodes(&self, b: Block) -> BlockNodes<'_> {
        BlockNodes {
            graph: self,
            next: self.blocks[b].first,
        }
    }

    /// Every node in `b` and, recursively, in the blocks of its nodes, in pre-order.
    pub fn all_nodes(&self, b: Block) -> Vec<Node> {
        let mut out = Vec::new();
        self.collect_nodes(b, &mut out);
        out
    }

    fn collect_nodes(&self, b: Block, out: &mut Vec<Node>) {
        for n in self.block_nodes(b) {
            out.push(n);
            for &sub in &self.nodes[n].blocks {
                self.collect_nodes(sub, out);
            }
        }
    }

    /// All live nodes of the graph, pre-order from the top block.
    pub fn nodes(&self) -> Vec<Node> {
        self.all_nodes(self.top)
    }

    /// Whether `n` is (transitively) inside block `b`.
    pub fn is_in_block(&self, n: Node, b: Block) -> bool {
        let mut cur = self.nodes[n].owning_block;
        while let Some(cb) = cur {
            if cb == b {
                return true;
            }
            cur = self.blocks[cb]
                .owning_node
                .and_then(|o| self.nodes[o].owning_block);
        }
        false
    }

    /// Whether `a` comes before `b` in program order. Both must be in blocks of this graph.
    pub fn is_before(&self, a: Node, b: Node) -> bool {
        if a == b {
            return false;
        }
        // Walk `b` up to the block that also (transitively) contains `a`, and `a` up to it.
        let chain = |mut n: Node| {
            let mut chain = vec![n];
            while let Some(owner) = self.nodes[n]
                .owning_block
                .and_then(|blk| self.blocks[blk].owning_node)
            {
                chain.push(owner);
                n = owner;
            }
            chain
        };
        let (ca, cb) = (chain(a), chain(b));
        for &x in &ca {
            for &y in &cb {
                if self.nodes[x].owning_block == self.nodes[y].owning_block {
                    if x == y {
                        // One contains the other: the container comes first.
                        return x == a;
                    }
                    return self.position_in_block(x) < self.position_in_block(y);
                }
            }
        }
        false
    }

    /// Index of `n` in its block: the param node is first and the return node last.
    fn position_in_block(&self, n: Node) -> usize {
        let b = self.nodes[n].owning_block.unwrap();
        if n == self.blocks[b].param {
            return 0;
        }
        let mut i = 1;
        for m in self.block_nodes(b) {
            if m == n {
                return i;
            }
            i += 1;
        }
        i
    }

    // ----- attributes -----

    pub fn attrs(&self, n: Node) -> &[(Symbol, AttrValue)] {
        &self.nodes[n].attrs
    }

    pub fn attr(&self, n: Node, name: Symbol) -> Option<&AttrValue> {
        self.nodes[n]
            .attrs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
    }

    pub fn attr_mut(&mut self, n: Node, name: Symbol) -> Option<&mut AttrValue> {
        self.nodes[n]
            .attrs
            .iter_mut()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
    }

    pub fn has_attr(&self, n: Node, name: Symbol) -> bool {
        self.attr(n, name).is_some()
    }

    /// Sets attribute `name`, replacing a previous value in place (order is kept, as PyTorch).
    pub fn set_attr(&mut self, n: Node, name: Symbol, value: AttrValue) {
        match self.attr_mut(n, name) {
            Some(slot) => *slot = value,
            None => self.nodes[n].attrs.push((name, value)),
        }
    }

    pub fn remove_attr(&mut self, n: Node, name: Symbol) -> Option<AttrValue> {
        let at = self.nodes[n].attrs.iter().position(|(k, _)| *k == name)?;
        Some(self.nodes[n].attrs.remove(at).1)
    }

    // ----- values -----

    pub fn ty(&self, v: Value) -> &Type {
        &self.values[v].ty
    }

    pub fn set_ty(&mut self, v: Value, ty: Type) {
        self.values[v].ty = ty;
    }

    pub fn uses(&self, v: Value) -> &[Use] {
        &self.values[v].uses
    }

    pub fn has_uses(&self, v: Value) -> bool {
        !self.values[v].uses.is_empty()
    }

    /// The node that defines `v` (a `prim::Param` node for block inputs).
    pub fn producer(&self, v: Value) -> Node {
        self.values[v].node
    }

    /// Which output of its producer `v` is.
    pub fn offset(&self, v: Value) -> usize {
        self.values[v].offset
    }

    pub fn value_def(&self, v: Value) -> ValueDef {
        let d = &self.values[v];
        match self.nodes[d.node].owning_block {
            Some(b) if self.blocks[b].param == d.node => ValueDef::Param(b, d.offset),
            _ => ValueDef::Output(d.node, d.offset),
        }
    }

    /// The number printed for an unnamed value (`%5`).
    pub fn unique(&self, v: Value) -> u64 {
        self.values[v].unique
    }

    /// Sets the number printed for an unnamed value (the parser keeps `%5` as `%5`).
    pub fn set_unique(&mut self, v: Value, unique: u64) {
        self.values[v].unique = unique;
        self.next_unique = self.next_unique.max(unique + 1);
    }

    pub fn debug_name(&self, v: Value) -> Option<&str> {
        self.values[v].debug_name.as_deref()
    }

    /// The name `v` prints as, without the `%`: its debug name, or its unique number.
    pub fn value_name(&self, v: Value) -> String {
        match &self.values[v].debug_name {
            Some(n) => n.clone(),
            None => self.values[v].unique.to_string(),
        }
    }

    /// Whether `name` may be a debug name: PyTorch refuses purely numeric names.
    pub fn is_valid_name(name: &str) -> bool {
        name.is_empty() || !name.bytes().all(|c| c.is_ascii_digit())
    }

    /// Sets `v`'s debug name with PyTorch's rules: an empty name clears it, and if another value
    /// holds `name`, that value is renamed `base.N` with the next free suffix.
    /// Returns `false` (and changes nothing) for a purely numeric name.
    pub fn set_debug_name(&mut self, v: Value, name: &str) -> bool {
        if !Self::is_valid_name(name) {
            return false;
        }
        self.forget_value_name(v);
        if name.is_empty() {
            return true;
        }
        if let Some(&old_owner) = self.names.get(name) {
            let mut suffix: u64 = 1;
            let mut base = name;
            if let Some(dot) = name.rfind('.') {
                let tail = &name[dot + 1..];
                if !tail.is_empty() && tail.bytes().all(|c| c.is_ascii_digit()) {
                    if let Ok(s) = tail.parse::<u64>() {
                        suffix = s;
                        base = &name[..dot];
                    }
                }
            }
            if let Some(&last) = self.name_base_suffix.get(base) {
                suffix = suffix.max(last + 1);
            }
            let replacement = loop {
                let candidate = format!("{base}.{suffix}");
                suffix += 1;
                if !self.names.contains_key(&candidate) {
                    break candidate;
                }
            };
            self.name_base_suffix.insert(base.to_string(), suffix);
            self.set_debug_name(old_owner, &replacement);
        }
        self.names.insert(name.to_string(), v);
        self.values[v].debug_name = Some(name.to_string());
        true
    }

    fn forget_value_name(&mut self, v: Value) {
        if let Some(old) = self.values[v].debug_name.take() {
            if self.names.get(&old) == Some(&v) {
                self.names.remove(&old);
            }
        }
    }

    /// Copies `from`'s type and debug name onto `to` (PyTorch's `copyMetadata`).
    pub fn copy_metadata(&mut self, to: Value, from: Value) {
        self.values[to].ty = self.values[from].ty.clone();
        if let Some(name) = self.values[from].debug_name.clone() {
            self.set_debug_name(to, &name);
        }
    }

    /// Makes every use of `from` a use of `to`.
    pub fn replace_all_uses_with(&mut self, from: Value, to: Value) {
        assert!(from != to, "replacing a value with itself");
        let uses = std::mem::take(&mut self.values[from].uses);
        for u in &uses {
            self.nodes[u.user].inputs[u.offset] = to;
        }
        self.values[to].uses.extend(uses);
    }

    /// Makes every use of `from` that comes after node `after` a use of `to`.
    pub fn replace_all_uses_after_node_with(&mut self, after: Node, from: Value, to: Value) {
        let uses = self.values[from].uses.clone();
        for u in uses {
            if self.is_before(after, u.user) {
                self.replace_input(u.user, u.offset, to);
            }
        }
    }

    /// Makes every use of the outputs of `old` a use of the matching output of `new`.
    pub fn replace_all_uses_of_node_with(&mut self, old: Node, new: Node) {
        let (a, b) = (
            self.nodes[old].outputs.clone(),
            self.nodes[new].outputs.clone(),
        );
        assert_eq!(a.len(), b.len(), "nodes differ in output count");
        for (x, y) in a.into_iter().zip(b) {
            self.replace_all_uses_with(x, y);
        }
    }

    /// Number of value slots ever created (ids are below this).
    pub fn value_capacity(&self) -> usize {
        self.values.len()
    }

    /// Number of node slots ever created (ids are below this).
    pub fn node_capacity(&self) -> usize {
        self.nodes.len()
    }

    /// The first node of `b`'s list (`None` when empty); with [`Graph::last_node`], lets the
    /// verifier check the links [`Graph::block_nodes`] follows.
    pub fn first_node(&self, b: Block) -> Option<Node> {
        self.blocks[b].first
    }

    /// The last node of `b`'s list (`None` when empty).
    pub fn last_node(&self, b: Block) -> Option<Node> {
        self.blocks[b].last
    }
}

impl NodeData {
    fn new(kind: Symbol) -> NodeData {
        NodeData {
            kind,
            inputs: Vec::new(),
            outputs: Vec::new(),
            blocks: Vec::new(),
            attrs: Vec::new(),
            owning_block: None,
            prev: None,
            next: None,
            in_list: false,
            alive: true,
            source: None,
            scope: None,
        }
    }
}

/// Iterator over the nodes of one block, in order.
pub struct BlockNodes<'g> {
    graph: &'g Graph,
    next: Option<Node>,
}

impl Iterator for BlockNodes<'_> {
    type Item = Node;

    fn next(&mut self) -> Option<Node> {
        let n = self.next?;
        self.next = self.graph.nodes[n].next;
        Some(n)
    }
}

mod insert;
pub use insert::{InsertArg, InsertedCall};

#[cfg(test)]
mod tests;
