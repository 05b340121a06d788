//! Walks the block structure once, checking the layout (links, owners, liveness), and numbers
//! every reached node in program order. Scoping then reduces to comparing numbers: a block
//! covers the numbers `[start, end]` of its parameter node, its nodes (with their nested
//! blocks) and its return node, and a node `n` covers `[pre[n], end[n]]`, itself and all
//! that is nested in it.
//!
//! The walk keeps its own stack, so a deeply nested graph cannot overflow the native stack,
//! and stops a node list at the first node seen twice, so a corrupt list cannot loop forever.

use cranelift_entity::SecondaryMap;

use super::describe;
use crate::ir::{Block, Graph, Node};

pub(super) struct Order {
    /// Program-order number of each reached node, from 1; 0 for a node not in the graph.
    pub pre: SecondaryMap<Node, u32>,
    /// The last number used inside each reached node (its own number when it has no blocks).
    pub end: SecondaryMap<Node, u32>,
    /// The numbers `(start, end)` each reached block covers; `(0, 0)` if not reached.
    pub range: SecondaryMap<Block, (u32, u32)>,
    /// Every reached node in program order, parameter and return nodes included.
    pub nodes: Vec<Node>,
}

enum Frame {
    /// Walking the node list of a block; `prev` is the last node visited in it.
    List {
        b: Block,
        next: Option<Node>,
        prev: Option<Node>,
    },
    /// Entering the blocks of a node, `i` the next one.
    Blocks { n: Node, i: usize },
}

impl Order {
    /// Whether node `u` (reached) lies inside block `b` (reached).
    pub fn block_contains(&self, b: Block, u: Node) -> bool {
        let (start, end) = self.range[b];
        start <= self.pre[u] && self.pre[u] <= end
    }

    pub fn reached(&self, n: Node) -> bool {
        self.pre[n] != 0
    }

    pub fn walk(g: &Graph, errors: &mut Vec<(Node, String)>) -> Order {
        let mut o = Order {
            pre: SecondaryMap::new(),
            end: SecondaryMap::new(),
            range: SecondaryMap::new(),
            nodes: Vec::new(),
        };
        let mut counter: u32 = 0;
        let mut stack = vec![o.enter_block(g, g.block(), &mut counter)];
        while let Some(frame) = stack.last_mut() {
            match frame {
                Frame::List {
                    b,
                    next: Some(n),
                    prev,
                } => {
                    let (b, n, expected_prev) = (*b, *n, *prev);
                    if o.reached(n) {
                        errors.push((
                            n,
                            format!(
                                "the node list of {} is corrupt: it reaches {} a second time",
                                describe::block(g, b),
                                g.kind(n)
                            ),
                        ));
                        stack.pop();
                        o.leave_block(g, b, &mut counter);
                        continue;
                    }
                    check_listed_node(g, b, n, expected_prev, errors);
                    *frame = Frame::List {
                        b,
                        next: g.next_node(n),
                        prev: Some(n),
                    };
                    counter += 1;
                    o.pre[n] = counter;
                    o.nodes.push(n);
                    stack.push(Frame::Blocks { n, i: 0 });
                }
                Frame::List {
                    b,
                    next: None,
                    prev,
                } => {
                    let (b, prev) = (*b, *prev);
                    if g.last_node(b) != prev {
                        let at = prev.unwrap_or_else(|| g.return_node(b));
                        errors.push((
                            at,
                            format!(
                                "the node list of {} is corrupt: its last node is not where the \
                                 list ends",
                                describe::block(g, b)
                            ),
                        ));
                    }
                    stack.pop();
                    o.leave_block(g, b, &mut counter);
                }
                Frame::Blocks { n, i } => {
                    let (n, idx) = (*n, *i);
                    let Some(&sub) = g.node_blocks(n).get(idx) else {
                        o.end[n] = counter;
                        stack.pop();
                        continue;
                    };
                    *i += 1;
                    if let Some(msg) = sub_block_problem(g, &o, n, idx, sub) {
                        errors.push((n, msg));
                        continue;
                    }
                    let f = o.enter_block(g, sub, &mut counter);
                    stack.push(f);
                }
            }
        }
        o
    }

    fn enter_block(&mut self, g: &Graph, b: Block, counter: &mut u32) -> Frame {
        let param = g.param_node(b);
        *counter += 1;
        self.range[b] = (*counter, *counter);
        self.pre[param] = *counter;
        self.end[param] = *counter;
        self.nodes.push(param);
        Frame::List {
            b,
            next: g.first_node(b),
            prev: None,
        }
    }

    fn leave_block(&mut self, g: &Graph, b: Block, counter: &mut u32) {
        let ret = g.return_node(b);
        *counter += 1;
        self.pre[ret] = *counter;
        self.end[ret] = *counter;
        self.nodes.push(ret);
        self.range[b].1 = *counter;
    }
}

/// Layout checks of node `n` met in the list of block `b` just after `expected_prev`.
fn check_listed_node(
    g: &Graph,
    b: Block,
    n: Node,
    expected_prev: Option<Node>,
    errors: &mut Vec<(Node, String)>,
) {
    if !g.is_alive(n) {
        errors.push((
            n,
            format!(
                "{} was destroyed but is still in {}",
                g.kind(n),
                describe::block(g, b)
            ),
        ));
    }
    if g.owning_block(n) != Some(b) {
        errors.push((
            n,
            format!(
                "{} is in the node list of {} but does not record it as its block",
                g.kind(n),
                describe::block(g, b)
            ),
        ));
    }
    if g.prev_node(n) != expected_prev {
        errors.push((
            n,
            format!(
                "the node list of {} is corrupt: the link back from {} does not lead to the \
                 node before it",
                describe::block(g, b),
                g.kind(n)
            ),
        ));
    }
}

/// Why block `idx` of `n` cannot be entered, if it cannot.
fn sub_block_problem(g: &Graph, o: &Order, n: Node, idx: usize, sub: Block) -> Option<String> {
    let kind = g.kind(n);
    if !g.block_is_alive(sub) {
        Some(format!("block {idx} of {kind} was destroyed"))
    } else if g.owning_node(sub) != Some(n) {
        Some(format!("block {idx} of {kind} belongs to another node"))
    } else if o.range[sub] != (0, 0) {
        Some(format!("block {idx} of {kind} appears twice in the graph"))
    } else {
        None
    }
}
