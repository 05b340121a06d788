//! SSA and use lists: every input sees its definition, every input has exactly its matching
//! `Use` and every `Use` its matching input, each value is defined where it says it is, and no
//! two values print under the same name.

use hashbrown::{HashMap, HashSet};

use super::describe::{self, count};
use super::order::Order;
use crate::ir::{Graph, Node, Use, Value};

type Errors = Vec<(Node, String)>;

/// How many times each use appears in its value's use list, indexed one value at a time as
/// inputs refer to it, so a value with many uses costs its use count once, not per use.
#[derive(Default)]
pub(super) struct UseCounts {
    counts: HashMap<(Value, Use), usize>,
    indexed: HashSet<Value>,
}

impl UseCounts {
    fn get(&mut self, g: &Graph, v: Value, u: Use) -> usize {
        if self.indexed.insert(v) {
            for &x in g.uses(v) {
                *self.counts.entry((v, x)).or_default() += 1;
            }
        }
        self.counts.get(&(v, u)).copied().unwrap_or(0)
    }
}

pub(super) fn check_node(
    g: &Graph,
    order: &Order,
    counts: &mut UseCounts,
    n: Node,
    errors: &mut Errors,
) {
    for (i, &v) in g.node_inputs(n).iter().enumerate() {
        if let Some(problem) = scope_problem(g, order, n, v) {
            let msg = format!(
                "value {} {} {problem}",
                describe::value(g, v),
                describe::used_by(g, n)
            );
            errors.push((n, msg));
        }
        let times = counts.get(g, v, Use { user: n, offset: i });
        check_input_use(g, n, i, v, times, errors);
    }
    for (i, &v) in g.node_outputs(n).iter().enumerate() {
        check_definition(g, n, i, v, errors);
        for &u in g.uses(v) {
            check_use(g, order, v, u, n, errors);
        }
    }
}

/// Why node `u` may not use `v`, if it may not. A definition is visible after it in its own
/// block and in the blocks nested there, never outside its block nor inside itself.
fn scope_problem(g: &Graph, order: &Order, u: Node, v: Value) -> Option<String> {
    let d = g.producer(v);
    if !g.is_alive(d) {
        return Some(if g.is_block_boundary(d) {
            "is an input of a destroyed block".to_string()
        } else {
            format!("is an output of destroyed node {}", g.kind(d))
        });
    }
    if !order.reached(d) {
        return Some(format!(
            "is defined by {}, which is not in the graph",
            g.kind(d)
        ));
    }
    if g.node_outputs(d).get(g.offset(v)) != Some(&v) {
        return Some(format!("is no longer defined by {}", describe::node(g, d)));
    }
    let def_block = g.owning_block(d)?;
    if !order.block_contains(def_block, u) {
        return Some(format!(
            "is out of scope: it is defined in {}, which does not enclose this use",
            describe::block(g, def_block)
        ));
    }
    // Same or enclosing block: the definition must end before the use starts (this also
    // rules out a node using its own outputs, in its blocks or as its inputs).
    if order.end[d] >= order.pre[u] {
        return Some("is not defined before it".to_string());
    }
    None
}

/// Input `i` of `u` is `v`: `v`'s use list must hold `Use { u, i }` exactly once (it holds it
/// `times` times).
fn check_input_use(g: &Graph, u: Node, i: usize, v: Value, times: usize, errors: &mut Errors) {
    let slot = describe::input_slot(g, u, i);
    let name = describe::value(g, v);
    if times == 0 {
        errors.push((
            u,
            format!("{slot} ({name}) is missing from the use list of {name}"),
        ));
    } else if times > 1 {
        errors.push((
            u,
            format!("the use list of {name} records {slot} {times} times"),
        ));
    }
}

/// Output `i` of `d` is `v`: `v` must say so.
fn check_definition(g: &Graph, d: Node, i: usize, v: Value, errors: &mut Errors) {
    let (p, off) = (g.producer(v), g.offset(v));
    if p != d || off != i {
        errors.push((
            d,
            format!(
                "{} is {}, but {} records {} as its definition",
                describe::output_slot(g, d, i),
                describe::value(g, v),
                describe::value(g, v),
                describe::output_slot(g, p, off)
            ),
        ));
    }
}

/// `u` is in the use list of `v` (an output of `d`): its user must be in the graph and have
/// `v` at that input.
fn check_use(g: &Graph, order: &Order, v: Value, u: Use, d: Node, errors: &mut Errors) {
    let name = describe::value(g, v);
    let user = u.user;
    let msg = if !g.is_alive(user) {
        format!(
            "value {name} has a dangling use by destroyed node {}",
            g.kind(user)
        )
    } else if !order.reached(user) {
        format!(
            "value {name} is used by {}, which is not in the graph",
            g.kind(user)
        )
    } else {
        let inputs = g.node_inputs(user);
        match inputs.get(u.offset) {
            Some(&w) if w == v => return,
            Some(&w) => format!(
                "value {name} records a use as {}, but that input is {}",
                describe::input_slot(g, user, u.offset),
                describe::value(g, w)
            ),
            None => format!(
                "value {name} records a use as {}, but {} has only {}",
                describe::input_slot(g, user, u.offset),
                describe::node(g, user),
                count(inputs.len(), "input")
            ),
        }
    };
    errors.push((d, msg));
}

/// Values print as `%name`; two values with one name would make the text ambiguous.
pub(super) fn check_names(g: &Graph, order: &Order, errors: &mut Errors) {
    let mut seen: HashMap<String, (Node, Value)> = HashMap::new();
    for &n in &order.nodes {
        for &v in g.node_outputs(n) {
            let name = g.value_name(v);
            match seen.get(&name) {
                Some(&(first, w)) if w != v => errors.push((
                    n,
                    format!(
                        "two values are named %{name}: one defined by {}, one by {}",
                        describe::node(g, first),
                        describe::node(g, n)
                    ),
                )),
                Some(_) => {}
                None => {
                    seen.insert(name, (n, v));
                }
            }
        }
    }
}
