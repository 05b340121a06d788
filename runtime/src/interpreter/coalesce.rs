//! Which values share a register, so that control flow needs no copies: a branch's result is
//! computed straight into the `prim::If` output it becomes, a loop's outputs are its carried
//! values' registers, and a scalar a loop carries to its next iteration is computed straight
//! into the block parameter that receives it, when nothing reads that parameter afterwards.
//!
//! The plan maps a value to the value whose register it takes (chains are followed by
//! [`Coalescing::root`]).

use ember_dialects::symbol::sym;
use ember_dialects::types::Type;
use ember_dialects::{Block, Graph, Node, Value, ValueDef};
use hashbrown::HashMap;

pub(super) struct Coalescing {
    alias: HashMap<Value, Value>,
}

/// Ints, floats, bools and None: values the interpreter copies freely, never moves out of
/// their registers nor drops early (there is nothing to free).
pub(super) fn is_plain_scalar(ty: &Type) -> bool {
    matches!(ty, Type::Int | Type::Float | Type::Bool | Type::None)
}

impl Coalescing {
    pub(super) fn plan(g: &Graph) -> Coalescing {
        let mut c = Coalescing {
            alias: HashMap::new(),
        };
        let mut ifs = Vec::new();
        let mut loops = Vec::new();
        collect(g, g.block(), &mut ifs, &mut loops);
        // A loop's outputs are the final values of its carried parameters.
        for &n in &loops {
            let body = g.node_blocks(n)[0];
            for (i, &out) in g.node_outputs(n).iter().enumerate() {
                if let Some(&p) = g.block_inputs(body).get(i + 1) {
                    c.join(out, p);
                }
            }
        }
        // A value a branch defines and returns is computed into the If's output. Outer Ifs
        // first, so a nested If's output joins its parent's class before its branches join it.
        for &n in &ifs {
            for (i, &out) in g.node_outputs(n).iter().enumerate() {
                if !g.has_uses(out) {
                    continue;
                }
                for &b in g.node_blocks(n) {
                    let v = g.block_outputs(b)[i];
                    if defined_in(g, v, b) && !returned_before(g, b, i) && !is_constant(g, v) {
                        c.join(v, out);
                    }
                }
            }
        }
        // A scalar carried to the next iteration is computed into its parameter when every
        // read of the parameter comes before the writes.
        for &n in &loops {
            let body = g.node_blocks(n)[0];
            let params = g.block_inputs(body);
            let returned = g.block_outputs(body);
            for j in 1..params.len().min(returned.len()) {
                let (p, v) = (params[j], returned[j]);
                let Some(m) = defining_node(g, v) else {
                    continue;
                };
                if g.owning_block(m) != Some(body)
                    || is_constant(g, v)
                    || c.alias.contains_key(&v)
                    || returned_before(g, body, j)
                    || !is_plain_scalar(g.ty(p))
                    || !is_plain_scalar(g.ty(v))
                {
                    continue;
                }
                let slot = g.node_outputs(m).iter().position(|&o| o == v).unwrap_or(0);
                if c.reads_precede_writes(g, p, body, m, slot) {
                    c.join(v, p);
                }
            }
        }
        c
    }

    /// The value whose register `v` uses.
    pub(super) fn root(&self, mut v: Value) -> Value {
        while let Some(&next) = self.alias.get(&v) {
            v = next;
        }
        v
    }

    /// Whether `v` takes another value's register.
    pub(super) fn is_joined(&self, v: Value) -> bool {
        self.alias.contains_key(&v)
    }

    fn join(&mut self, v: Value, into: Value) {
        if v != into && !self.alias.contains_key(&v) && self.root(into) != v {
            self.alias.insert(v, into);
        }
    }

    /// Whether every use of `p` inside block `b` comes before the register of class member
    /// output `slot` of node `m` (in `b`) is written: no use after `m` (the block's return
    /// node counts as last), and when `m` is an If, the same inside each branch that computes
    /// its result into the class. Branches that copy their result at their end are safe: the
    /// copies are a parallel move.
    fn reads_precede_writes(&self, g: &Graph, p: Value, b: Block, m: Node, slot: usize) -> bool {
        let position = |n: Node| -> usize {
            if n == g.return_node(b) {
                return usize::MAX;
            }
            g.block_nodes(b).position(|x| x == n).unwrap_or(usize::MAX)
        };
        let at = position(m);
        for u in g.uses(p) {
            let Some(a) = ancestor_in(g, u.user, b) else {
                continue;
            };
            if a != m && position(a) > at {
                return false;
            }
        }
        if g.kind(m) == sym::if_() {
            let out = g.output(m, slot);
            for &branch in g.node_blocks(m) {
                let w = g.block_outputs(branch)[slot];
                if self.alias.get(&w) != Some(&out) {
                    continue;
                }
                let Some(def) = defining_node(g, w) else {
                    return false;
                };
                let s = g
                    .node_outputs(def)
                    .iter()
                    .position(|&o| o == w)
                    .unwrap_or(0);
                if !self.reads_precede_writes(g, p, branch, def, s) {
                    return false;
                }
            }
        } else if !g.node_blocks(m).is_empty() {
            // Loops and other nodes with blocks write their outputs where this plan does
            // not look.
            return false;
        }
        true
    }
}

fn collect(g: &Graph, b: Block, ifs: &mut Vec<Node>, loops: &mut Vec<Node>) {
    for n in g.block_nodes(b) {
        let kind = g.kind(n);
        if kind == sym::if_() && g.node_blocks(n).len() == 2 {
            ifs.push(n);
        } else if kind == sym::loop_() && g.node_blocks(n).len() == 1 {
            loops.push(n);
        }
        for &sub in g.node_blocks(n) {
            collect(g, sub, ifs, loops);
        }
    }
}

fn defining_node(g: &Graph, v: Value) -> Option<Node> {
    match g.value_def(v) {
        ValueDef::Output(n, _) => Some(n),
        ValueDef::Param(..) => None,
    }
}

/// Whether `v` is an output of a node directly in block `b`.
fn defined_in(g: &Graph, v: Value, b: Block) -> bool {
    defining_node(g, v).is_some_and(|n| g.owning_block(n) == Some(b))
}

fn is_constant(g: &Graph, v: Value) -> bool {
    defining_node(g, v).is_some_and(|n| g.kind(n) == sym::constant())
}

/// Whether block `b` returns its output `i` also at an earlier position.
fn returned_before(g: &Graph, b: Block, i: usize) -> bool {
    let outs = g.block_outputs(b);
    outs[..i].contains(&outs[i])
}

/// The node of block `b` that is `n` or contains it; `None` when `n` is not inside `b`.
fn ancestor_in(g: &Graph, mut n: Node, b: Block) -> Option<Node> {
    loop {
        let owner = g.owning_block(n)?;
        if owner == b {
            return Some(n);
        }
        n = g.owning_node(owner)?;
    }
}
