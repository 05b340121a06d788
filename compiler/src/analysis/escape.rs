//! Which values may be (or be contained in, or alias) a graph output: the caller receives them
//! and may mutate them, so two distinct ones must stay distinct (PyTorch's CSE asks
//! `mayContainAlias(node->outputs(), graph->outputs())`).
//!
//! Without alias analysis the search walks backwards from the top block's outputs through every
//! op that may return an alias of an input (all but [`effects::returns_fresh`] ones), through
//! block outputs of `prim::If`/`prim::Loop`, and through loop-carried values.

use hashbrown::HashSet;

use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Value, ValueDef};

use super::effects;

/// The values that may reach the graph's outputs.
pub fn values_reaching_outputs(g: &Graph) -> HashSet<Value> {
    let mut seen: HashSet<Value> = HashSet::new();
    let mut work: Vec<Value> = g.outputs().to_vec();
    while let Some(v) = work.pop() {
        if !seen.insert(v) {
            continue;
        }
        match g.value_def(v) {
            ValueDef::Output(n, i) => {
                let kind = g.kind(n);
                if kind == sym::if_() {
                    for &b in g.node_blocks(n) {
                        work.extend(g.block_outputs(b).get(i).copied());
                    }
                } else if kind == sym::loop_() {
                    work.extend(g.node_inputs(n).get(2 + i).copied());
                    if let Some(&body) = g.node_blocks(n).first() {
                        work.extend(g.block_outputs(body).get(1 + i).copied());
                    }
                } else if !g.node_blocks(n).is_empty() {
                    work.extend(g.node_inputs(n).iter().copied());
                    for &b in g.node_blocks(n) {
                        work.extend(g.block_outputs(b).iter().copied());
                    }
                } else if !effects::returns_fresh(g, n) {
                    work.extend(g.node_inputs(n).iter().copied());
                }
            }
            ValueDef::Param(b, i) => {
                let Some(owner) = g.owning_node(b) else {
                    continue;
                };
                if g.kind(owner) == sym::loop_() {
                    if i >= 1 {
                        work.extend(g.node_inputs(owner).get(1 + i).copied());
                        work.extend(g.block_outputs(b).get(i).copied());
                    }
                } else {
                    work.extend(g.node_inputs(owner).iter().copied());
                }
            }
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;
    use ember_dialects::{Symbol, Type};

    #[test]
    fn fresh_ops_stop_the_search_and_views_do_not() {
        let mut g = Graph::new();
        let x = g.add_input(Type::tensor());
        let add = g.create_and_insert(Symbol::aten("add"), &[x, x], 1);
        let a = g.output(add, 0);
        let view = g.create_and_insert(Symbol::aten("view"), &[a, x], 1);
        let v = g.output(view, 0);
        let mul = g.create_and_insert(Symbol::aten("mul"), &[a, a], 1);
        let m = g.output(mul, 0);
        let t = g.create_and_insert(sym::tuple_construct(), &[v, m], 1);
        let out = g.output(t, 0);
        g.register_output(out);
        let reach = values_reaching_outputs(&g);
        assert!(reach.contains(&v) && reach.contains(&m) && reach.contains(&a));
        assert!(reach.contains(&x));
        let mut g2 = Graph::new();
        let x = g2.add_input(Type::tensor());
        let add = g2.create_and_insert(Symbol::aten("add"), &[x, x], 1);
        let a = g2.output(add, 0);
        let mul = g2.create_and_insert(Symbol::aten("mul"), &[a, a], 1);
        let m = g2.output(mul, 0);
        g2.register_output(m);
        let reach = values_reaching_outputs(&g2);
        assert!(reach.contains(&m) && !reach.contains(&a) && !reach.contains(&x));
    }
}
