//! `dce`: dead code elimination, after PyTorch's `passes/dead_code_elimination.cpp`.
//!
//! An inverse mark-and-sweep. Marked live: the graph's outputs, every node with side effects
//! (prints, raises, attribute stores, calls, unknown ops, and nodes whose blocks hold any of
//! these) or that writes to memory alias analysis cannot follow (a graph input, a wildcard),
//! every node one of whose outputs is live or that writes to memory a live value may be, the
//! nodes that own a live node, and the inputs of live nodes. Blocks are walked last node
//! first, so a write after the last read of what it writes is dead. Loop bodies are marked
//! until nothing new is marked, since a value used in one iteration feeds the next.
//!
//! A block's return only keeps the values whose outer counterparts are live, so the sweep can
//! also drop `prim::If` outputs nobody uses (with the matching output of every branch) and
//! loop-carried values that are unused both after the loop and inside the body (with their
//! initial input, body parameter and body output). Unused inputs of `prim::fork` subgraphs go
//! too. Unmarked nodes without uses are destroyed, innermost first.

use hashbrown::{HashMap, HashSet};

use ember_dialects::attr::AttrValue;
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Symbol, Value};

use super::{LogLevel, PassContext};
use crate::analysis::alias::{self, AliasDb, LiveLocations};

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let top = g.block();
    let db = AliasDb::new(g);
    let mut dce = DeadCodeEliminator {
        db: &db,
        marked: HashSet::new(),
        live: HashSet::new(),
        live_locations: LiveLocations::default(),
        side_effects: HashMap::new(),
    };
    let mut changed = eliminate_dead_fork_inputs(g, top, cx);
    let ret = g.return_node(top);
    dce.mark_node(g, ret);
    dce.mark_block(g, top);
    changed |= dce.sweep(g, top, cx);
    Ok(changed)
}

struct DeadCodeEliminator<'a> {
    db: &'a AliasDb,
    marked: HashSet<Node>,
    live: HashSet<Value>,
    /// The memory the live values may be.
    live_locations: LiveLocations,
    side_effects: HashMap<Node, bool>,
}

impl DeadCodeEliminator<'_> {
    /// Side effects, or a write to memory the analysis cannot follow (PyTorch's
    /// `hasUntrackedMutation`), in `n` or its blocks.
    fn has_side_effects(&mut self, g: &Graph, n: Node) -> bool {
        if let Some(&known) = self.side_effects.get(&n) {
            return known;
        }
        let nested = g.node_blocks(n).to_vec().into_iter().any(|b| {
            g.block_nodes(b)
                .collect::<Vec<_>>()
                .into_iter()
                .any(|m| self.has_side_effects(g, m))
        });
        let effects = nested || alias::own_side_effects(g, n) || self.db.writes_to_wildcard(n);
        self.side_effects.insert(n, effects);
        effects
    }

    fn make_live(&mut self, v: Value) {
        if self.live.insert(v) {
            self.live_locations.add(self.db, v);
        }
    }

    /// Marks `n` and the nodes that own it live, and its inputs. True if `n` was new.
    fn mark_node(&mut self, g: &Graph, n: Node) -> bool {
        if !self.marked.insert(n) {
            return false;
        }
        let mut owner = g.owning_block(n).and_then(|b| g.owning_node(b));
        while let Some(o) = owner {
            self.mark_node(g, o);
            owner = g.owning_block(o).and_then(|b| g.owning_node(b));
        }
        for &v in g.node_inputs(n) {
            self.make_live(v);
        }
        true
    }

    /// Marks the return of a nested block: only the values whose outer counterparts are live.
    fn mark_return_node(&mut self, g: &Graph, ret: Node) -> bool {
        if self.marked.contains(&ret) {
            return false;
        }
        let block = g.owning_block(ret).expect("a return node is in its block");
        let Some(outer) = g.owning_node(block) else {
            return self.mark_node(g, ret);
        };
        let inner_outputs = g.node_inputs(ret).to_vec();
        if g.kind(outer) == sym::loop_() {
            let body_inputs = g.block_inputs(block);
            for (i, &outer_output) in g.node_outputs(outer).iter().enumerate() {
                let (Some(&inner_input), Some(&inner_output)) =
                    (body_inputs.get(1 + i), inner_outputs.get(1 + i))
                else {
                    continue;
                };
                if self.live.contains(&outer_output) || g.has_uses(inner_input) {
                    self.make_live(inner_output);
                }
            }
            // The next-iteration condition is always needed.
            if let Some(&cond) = inner_outputs.first() {
                self.make_live(cond);
            }
        } else if g.node_outputs(outer).len() == inner_outputs.len() {
            for (&outer_output, &inner_output) in g.node_outputs(outer).iter().zip(&inner_outputs) {
                if self.live.contains(&outer_output) {
                    self.make_live(inner_output);
                }
            }
        } else {
            // A block whose outputs do not match its node's: keep them all.
            for v in inner_outputs {
                self.make_live(v);
            }
        }
        self.marked.insert(ret);
        true
    }

    /// Loops are marked until nothing new is marked: a value live in one iteration may make
    /// more of the body live in the previous one.
    fn mark_loop(&mut self, g: &Graph, n: Node) -> bool {
        let body = g.node_blocks(n)[0];
        let mut any = false;
        while self.mark_block(g, body) {
            any = true;
        }
        any
    }

    fn mark_block(&mut self, g: &Graph, b: Block) -> bool {
        let mut any = false;
        let nodes: Vec<Node> = g.block_nodes(b).collect();
        for &n in &nodes {
            if self.has_side_effects(g, n) {
                any |= self.mark_node(g, n);
            }
        }
        any |= self.mark_return_node(g, g.return_node(b));
        for &n in nodes.iter().rev() {
            if g.kind(n) == sym::loop_() && !g.node_blocks(n).is_empty() {
                any |= self.mark_loop(g, n);
            } else {
                for &sub in g.node_blocks(n) {
                    any |= self.mark_block(g, sub);
                }
            }
            let live_output = g.node_outputs(n).iter().any(|v| self.live.contains(v));
            if live_output || self.live_locations.written_by(self.db, g, n) {
                any |= self.mark_node(g, n);
            }
        }
        any
    }

    /// Destroys unmarked nodes without uses, last to first, after dropping dead outputs of
    /// `prim::If` and `prim::Loop` and sweeping nested blocks.
    fn sweep(&mut self, g: &mut Graph, b: Block, cx: &mut PassContext) -> bool {
        let mut changed = false;
        let nodes: Vec<Node> = g.block_nodes(b).collect();
        for &n in nodes.iter().rev() {
            changed |= remove_dead_if_outputs(g, n, cx);
            changed |= remove_dead_loop_outputs(g, n, cx);
            for sub in g.node_blocks(n).to_vec() {
                changed |= self.sweep(g, sub, cx);
            }
            let used = g.node_outputs(n).iter().any(|&v| g.has_uses(v));
            if self.marked.contains(&n) || used || !cx.may_rewrite() {
                continue;
            }
            cx.log(LogLevel::Update, || {
                let first = g
                    .node_outputs(n)
                    .first()
                    .map(|&v| format!("%{}", g.value_name(v)));
                format!(
                    "removed {} (output {})",
                    g.kind(n),
                    first.unwrap_or_else(|| "n/a".into())
                )
            });
            g.destroy(n);
            changed = true;
        }
        changed
    }
}

/// Drops each unused output of a `prim::If` together with the matching output of every branch.
fn remove_dead_if_outputs(g: &mut Graph, n: Node, cx: &mut PassContext) -> bool {
    if g.kind(n) != sym::if_() {
        return false;
    }
    let blocks = g.node_blocks(n).to_vec();
    if blocks
        .iter()
        .any(|&b| g.block_outputs(b).len() != g.node_outputs(n).len())
    {
        return false;
    }
    let mut changed = false;
    for i in (0..g.node_outputs(n).len()).rev() {
        if g.has_uses(g.output(n, i)) || !cx.may_rewrite() {
            continue;
        }
        cx.log(LogLevel::Update, || {
            format!(
                "removed output {i} (%{}) of prim::If",
                g.value_name(g.output(n, i))
            )
        });
        g.erase_node_output(n, i);
        for &b in &blocks {
            cx.log(LogLevel::Debug, || {
                format!(
                    "  and block output %{}",
                    g.value_name(g.block_outputs(b)[i])
                )
            });
            g.block_erase_output(b, i);
        }
        changed = true;
    }
    changed
}

/// Drops each loop-carried value that is unused after the loop and inside the body: its
/// initial value, body parameter, body output and loop output.
fn remove_dead_loop_outputs(g: &mut Graph, n: Node, cx: &mut PassContext) -> bool {
    if g.kind(n) != sym::loop_() || g.node_blocks(n).is_empty() {
        return false;
    }
    let body = g.node_blocks(n)[0];
    let carried = g.node_outputs(n).len();
    if g.node_inputs(n).len() != 2 + carried
        || g.block_inputs(body).len() != 1 + carried
        || g.block_outputs(body).len() != 1 + carried
    {
        return false;
    }
    let mut changed = false;
    for i in (0..carried).rev() {
        let dead = !g.has_uses(g.output(n, i)) && !g.has_uses(g.block_inputs(body)[1 + i]);
        if !dead || !cx.may_rewrite() {
            continue;
        }
        cx.log(LogLevel::Update, || {
            format!(
                "removed loop-carried value {i} (%{}) of prim::Loop",
                g.value_name(g.output(n, i))
            )
        });
        cx.log(LogLevel::Debug, || {
            format!(
                "  initial %{}, body input %{}, body output %{}",
                g.value_name(g.input(n, 2 + i)),
                g.value_name(g.block_inputs(body)[1 + i]),
                g.value_name(g.block_outputs(body)[1 + i])
            )
        });
        g.erase_node_output(n, i);
        g.remove_node_input(n, 2 + i);
        g.block_erase_input(body, 1 + i);
        g.block_erase_output(body, 1 + i);
        changed = true;
    }
    changed
}

/// Drops inputs of `prim::fork` nodes that their subgraph never uses.
fn eliminate_dead_fork_inputs(g: &mut Graph, b: Block, cx: &mut PassContext) -> bool {
    let fork = Symbol::prim("fork");
    let mut changed = false;
    for n in g.block_nodes(b).collect::<Vec<_>>() {
        for sub in g.node_blocks(n).to_vec() {
            changed |= eliminate_dead_fork_inputs(g, sub, cx);
        }
        if g.kind(n) != fork {
            continue;
        }
        let Some(AttrValue::Graph(sub)) = g.attr(n, sym::attr_subgraph()) else {
            continue;
        };
        if sub.inputs().len() != g.node_inputs(n).len() {
            continue;
        }
        let dead: Vec<usize> = (0..sub.inputs().len())
            .rev()
            .filter(|&i| !sub.has_uses(sub.inputs()[i]))
            .collect();
        for i in dead {
            if !cx.may_rewrite() {
                break;
            }
            cx.log(LogLevel::Update, || {
                format!("removed unused input {i} of prim::fork")
            });
            if let Some(AttrValue::Graph(sub)) = g.attr_mut(n, sym::attr_subgraph()) {
                sub.erase_input(i);
            }
            g.remove_node_input(n, i);
            changed = true;
        }
    }
    changed
}

#[cfg(test)]
mod tests;
