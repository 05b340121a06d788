//! `forward-object-attributes`: an object made in the graph and never seen elsewhere is only
//! its attributes. A read of an attribute after a store to it (same block, nothing between
//! that could store it) is the stored value; once nothing reads the object, its construction
//! and stores go.
//!
//! "Never seen elsewhere": every use of the object (directly, or through `unchecked_cast`) is
//! a `prim::SetAttr` on it, a `prim::GetAttr` of it or such a cast; so no call, method, list or
//! output can read or write its attributes behind the graph's back.

use hashbrown::{HashMap, HashSet};

use ember_dialects::attr::AttrValue;
use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Node, Symbol, Value};

use super::{LogLevel, PassContext};

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let mut changed = false;
    for n in g.nodes() {
        if g.is_alive(n) && g.kind(n) == Symbol::prim("CreateObject") {
            changed |= forward(g, n, cx);
        }
    }
    Ok(changed)
}

/// The object and its casts, if every use is a store, a read or a cast.
fn aliases(g: &Graph, object: Value) -> Option<HashSet<Value>> {
    let mut all = HashSet::new();
    let mut work = vec![object];
    while let Some(v) = work.pop() {
        if !all.insert(v) {
            continue;
        }
        for u in g.uses(v) {
            let kind = g.kind(u.user);
            if kind == Symbol::prim("unchecked_cast") {
                work.push(g.output(u.user, 0));
            } else if !((kind == sym::set_attr() && u.offset == 0) || kind == sym::get_attr()) {
                return None;
            }
        }
    }
    Some(all)
}

fn attr_name(g: &Graph, n: Node) -> Option<String> {
    match g.attr(n, Symbol::attr("name")) {
        Some(AttrValue::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

fn forward(g: &mut Graph, create: Node, cx: &mut PassContext) -> bool {
    let object = g.output(create, 0);
    let Some(aliases) = aliases(g, object) else {
        return false;
    };
    let Some(block) = g.owning_block(create) else {
        return false;
    };
    // Walk the object's block in order; stores and reads in nested blocks end what is known
    // of the attribute (a branch may or may not have run).
    let mut stored: HashMap<String, Value> = HashMap::new();
    let mut changed = false;
    for n in g.block_nodes(block).collect::<Vec<_>>() {
        let touches = |g: &Graph, m: Node| {
            g.node_inputs(m)
                .first()
                .is_some_and(|v| aliases.contains(v))
        };
        let kind = g.kind(n);
        if kind == sym::set_attr() && touches(g, n) {
            if let (Some(name), Some(&value)) = (attr_name(g, n), g.node_inputs(n).get(1)) {
                stored.insert(name, value);
            }
        } else if kind == sym::get_attr() && touches(g, n) {
            let Some(&value) = attr_name(g, n).and_then(|name| stored.get(&name)) else {
                continue;
            };
            let out = g.output(n, 0);
            if g.ty(value) != g.ty(out) || !cx.may_rewrite() {
                continue;
            }
            cx.log(LogLevel::Update, || {
                format!(
                    "forwarded %{} to a read of %{}",
                    g.value_name(value),
                    g.value_name(object)
                )
            });
            g.replace_all_uses_with(out, value);
            g.destroy(n);
            changed = true;
        } else if !g.node_blocks(n).is_empty() {
            let nested = g
                .all_nodes(block)
                .into_iter()
                .any(|m| g.owning_block(m) != Some(block) && touches(g, m));
            if nested {
                stored.clear();
            }
        }
    }
    // Nothing reads it any more: its stores and construction go.
    let reads = aliases
        .iter()
        .any(|&v| g.uses(v).iter().any(|u| g.kind(u.user) == sym::get_attr()));
    if !reads && cx.may_rewrite() {
        let mut doomed: Vec<Node> = aliases
            .iter()
            .flat_map(|&v| g.uses(v).iter().map(|u| u.user).collect::<Vec<_>>())
            .filter(|&m| g.kind(m) == sym::set_attr())
            .collect();
        doomed.sort_by_key(|m| m.as_u32());
        for m in doomed {
            g.destroy(m);
        }
        let mut casts: Vec<Node> = aliases
            .iter()
            .filter(|&&v| v != object)
            .map(|&v| g.producer(v))
            .collect();
        // Casts of casts go outermost first.
        while let Some(i) = casts.iter().position(|&c| !g.has_uses(g.output(c, 0))) {
            let c = casts.remove(i);
            g.destroy(c);
        }
        if casts.is_empty() && !g.has_uses(object) {
            g.destroy(create);
        }
        changed = true;
    }
    changed
}
