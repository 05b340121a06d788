//! Last uses: where a value may be moved out of its register (so a tensor is freed as early
//! as PyTorch frees it) and which values to drop after a branch or loop that held their last
//! use.

use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Value};
use hashbrown::HashMap;

/// For each use that is a value's last: whether it moves, and which drops follow which nodes.
pub(super) struct Liveness {
    /// (user, input offset) pairs where the value is moved out of its register.
    pub(super) moves: hashbrown::HashSet<(Node, usize)>,
    /// Values to drop after a node (a branch or loop that held their last use).
    pub(super) drops_after: HashMap<Node, Vec<Value>>,
}

impl Liveness {
    pub(super) fn compute(g: &Graph) -> Liveness {
        // Number every use site in execution order: a node's inputs, then its blocks, each
        // block's nodes and finally its return node.
        let mut order: HashMap<(Node, usize), usize> = HashMap::new();
        let mut last: HashMap<Value, (Node, usize)> = HashMap::new();
        let mut counter = 0usize;
        type Sites = HashMap<(Node, usize), usize>;
        fn visit(
            g: &Graph,
            n: Node,
            counter: &mut usize,
            order: &mut Sites,
            last: &mut HashMap<Value, (Node, usize)>,
        ) {
            for (i, &v) in g.node_inputs(n).iter().enumerate() {
                *counter += 1;
                order.insert((n, i), *counter);
                last.insert(v, (n, i));
            }
        }
        fn walk(
            g: &Graph,
            b: Block,
            counter: &mut usize,
            order: &mut Sites,
            last: &mut HashMap<Value, (Node, usize)>,
        ) {
            for n in g.block_nodes(b) {
                visit(g, n, counter, order, last);
                for &sub in g.node_blocks(n) {
                    walk(g, sub, counter, order, last);
                }
            }
            visit(g, g.return_node(b), counter, order, last);
        }
        walk(g, g.block(), &mut counter, &mut order, &mut last);

        let mut moves = hashbrown::HashSet::new();
        let mut drops_after: HashMap<Node, Vec<Value>> = HashMap::new();
        let mut values: Vec<_> = last.into_iter().collect();
        values.sort_by_key(|(_, site)| order[site]);
        for (v, (user, offset)) in values {
            let def_block = match g.value_def(v) {
                ember_dialects::ValueDef::Param(b, _) => b,
                ember_dialects::ValueDef::Output(n, _) => g.owning_block(n).unwrap_or(g.block()),
            };
            // Walk from the use up to the defining block, noting the control nodes crossed.
            let mut outermost = None;
            let mut crosses_loop = false;
            let mut b = g.owning_block(user).unwrap_or(g.block());
            while b != def_block {
                let Some(owner) = g.owning_node(b) else { break };
                if g.kind(owner) == sym::loop_() {
                    crosses_loop = true;
                }
                outermost = Some(owner);
                b = g.owning_block(owner).unwrap_or(g.block());
            }
            if !crosses_loop {
                moves.insert((user, offset));
            }
            if let Some(node) = outermost {
                drops_after.entry(node).or_default().push(v);
            }
        }
        Liveness { moves, drops_after }
    }
}
