//! Test-only ways to break a graph's invariants on purpose, so the verifier's checks of things
//! the public API never produces (stale use lists, broken links, dead nodes left in a block)
//! can be tested.

use super::{Block, Graph, Node, Use, Value};

impl Graph {
    /// Sets input `i` of `n` to `v` without touching any use list.
    pub(crate) fn raw_set_input(&mut self, n: Node, i: usize, v: Value) {
        self.nodes[n].inputs[i] = v;
    }

    /// The use list of `v`, to edit directly.
    pub(crate) fn raw_uses_mut(&mut self, v: Value) -> &mut Vec<Use> {
        &mut self.values[v].uses
    }

    /// Points `v` at output `offset` of `n` as its definition.
    pub(crate) fn raw_set_value_def(&mut self, v: Value, n: Node, offset: usize) {
        self.values[v].node = n;
        self.values[v].offset = offset;
    }

    /// Removes output `i` from `n`'s list only; the value still names `n` as its producer.
    pub(crate) fn raw_remove_output(&mut self, n: Node, i: usize) -> Value {
        self.nodes[n].outputs.remove(i)
    }

    pub(crate) fn raw_set_next(&mut self, n: Node, next: Option<Node>) {
        self.nodes[n].next = next;
    }

    pub(crate) fn raw_set_prev(&mut self, n: Node, prev: Option<Node>) {
        self.nodes[n].prev = prev;
    }

    pub(crate) fn raw_set_last(&mut self, b: Block, last: Option<Node>) {
        self.blocks[b].last = last;
    }

    /// Makes `n` record `b` as its block without moving it.
    pub(crate) fn raw_set_owning_block(&mut self, n: Node, b: Block) {
        self.nodes[n].owning_block = Some(b);
    }

    pub(crate) fn raw_set_alive(&mut self, n: Node, alive: bool) {
        self.nodes[n].alive = alive;
    }

    /// Appends `b` to `n`'s blocks without changing `b`'s owner.
    pub(crate) fn raw_push_block(&mut self, n: Node, b: Block) {
        self.nodes[n].blocks.push(b);
    }
}
