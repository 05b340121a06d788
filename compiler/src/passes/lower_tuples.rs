//! `lower-tuples`: removes tuples that are built only to be taken apart, after PyTorch's
//! `passes/lower_tuples.cpp` (`LowerSimpleTuples`, and the control-flow part of
//! `LowerAllTuples` where it is safe).
//!
//! 1. Through control flow. A tuple output of a `prim::If` whose every branch returns a
//!    `prim::TupleConstruct` becomes one output per element; the tuple is rebuilt after the `If`
//!    for whatever still needs it. A tuple carried by a `prim::Loop` whose initial value and
//!    body result are both `prim::TupleConstruct`s becomes one carried value per element; the
//!    body rebuilds it from its new parameters and the loop rebuilds it after. Repeated until
//!    nothing changes, so nested tuples flatten level by level.
//! 2. Projections. `prim::TupleUnpack`, `prim::TupleIndex` with a constant in-range index
//!    (negative counts from the end) and `prim::TupleSlice[beg, end]` of a `prim::TupleConstruct`
//!    are replaced by the construct's inputs (a slice by a smaller construct). Projections, and
//!    the constructs that this leaves unused, are removed.
//!
//! Left alone: tuples that come from graph inputs, calls, constants or unknown ops; a
//! `TupleIndex` whose index is not a constant or out of range; the top block's inputs and
//! outputs (their number and types never change); constructs that were already unused (that
//! is `dce`'s job).

use hashbrown::HashSet;

use ember_dialects::attr::AttrValue;
use ember_dialects::symbol::sym;
use ember_dialects::types::TupleType;
use ember_dialects::{Block, Graph, Node, Symbol, Type, Value};

use super::{LogLevel, PassContext};
use crate::fold::constant_int;

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let mut changed = false;
    // Constructs this pass may leave unused.
    let mut emptied = HashSet::new();
    loop {
        let mut round = false;
        for n in g.nodes() {
            if !g.is_alive(n) {
                continue;
            }
            if g.kind(n) == sym::if_() {
                round |= flatten_if_outputs(g, n, &mut emptied, cx);
            } else if g.kind(n) == sym::loop_() {
                round |= flatten_loop_carried(g, n, &mut emptied, cx);
            }
        }
        changed |= round;
        if !round {
            break;
        }
    }
    let top = g.block();
    changed |= forward_projections(g, top, &mut emptied, cx);
    remove_unused(g, emptied, cx);
    Ok(changed)
}

/// Destroys the constructs in `candidates` that nothing uses any more (outer ones first, so
/// nested ones become unused in turn).
fn remove_unused(g: &mut Graph, mut candidates: HashSet<Node>, cx: &mut PassContext) {
    loop {
        let dead: Vec<Node> = candidates
            .iter()
            .copied()
            .filter(|&c| g.is_alive(c) && !g.node_outputs(c).iter().any(|&v| g.has_uses(v)))
            .collect();
        if dead.is_empty() {
            return;
        }
        for c in dead {
            cx.log(LogLevel::Debug, || {
                format!("removed unused %{}", g.value_name(g.output(c, 0)))
            });
            candidates.remove(&c);
            g.destroy(c);
        }
    }
}

/// The `prim::TupleConstruct` that produces `v` with one input per element of `v`'s type.
fn construct_of(g: &Graph, v: Value) -> Option<Node> {
    let p = g.producer(v);
    if g.kind(p) != sym::tuple_construct() || g.is_block_boundary(p) {
        return None;
    }
    match g.ty(v) {
        Type::Tuple(t) if t.elements.len() == g.node_inputs(p).len() => Some(p),
        _ => None,
    }
}

fn tuple_type(ty: &Type) -> Option<&TupleType> {
    match ty {
        Type::Tuple(t) => Some(t),
        _ => None,
    }
}

/// Builds a free `prim::TupleConstruct(elements)` typed `ty`.
fn make_tuple(g: &mut Graph, elements: &[Value], ty: Type) -> Node {
    let c = g.create(sym::tuple_construct(), elements, 1);
    g.set_ty(g.output(c, 0), ty);
    c
}

fn flatten_if_outputs(
    g: &mut Graph,
    n: Node,
    emptied: &mut HashSet<Node>,
    cx: &mut PassContext,
) -> bool {
    let blocks = g.node_blocks(n).to_vec();
    let mut changed = false;
    let mut i = 0;
    while i < g.node_outputs(n).len() {
        let out = g.output(n, i);
        let flattenable = g.has_uses(out)
            && tuple_type(g.ty(out)).is_some()
            && blocks.iter().all(|&b| {
                g.block_outputs(b).len() == g.node_outputs(n).len()
                    && construct_of(g, g.block_outputs(b)[i])
                        .is_some_and(|c| g.node_inputs(c).len() == tuple_len(g, out))
            });
        if !flattenable || !cx.may_rewrite() {
            i += 1;
            continue;
        }
        cx.log(LogLevel::Update, || {
            format!(
                "split tuple output %{} of prim::If into its elements",
                g.value_name(out)
            )
        });
        let ty = g.ty(out).clone();
        let elements = tuple_type(&ty).unwrap().elements.clone();
        for &b in &blocks {
            let c = construct_of(g, g.block_outputs(b)[i]).unwrap();
            emptied.insert(c);
            let parts = g.node_inputs(c).to_vec();
            for (j, &p) in parts.iter().enumerate() {
                g.block_insert_output(b, i + 1 + j, p);
            }
            g.block_erase_output(b, i);
        }
        let mut parts = Vec::new();
        for (j, e) in elements.iter().enumerate() {
            parts.push(g.insert_node_output(n, i + 1 + j, e.clone()));
        }
        let rebuilt = make_tuple(g, &parts, ty);
        g.insert_after(rebuilt, n);
        emptied.insert(rebuilt);
        g.replace_all_uses_with(out, g.output(rebuilt, 0));
        g.erase_node_output(n, i);
        changed = true;
        // The elements now sit at `i..`; nested tuples among them are split on a later round.
        i += elements.len();
    }
    changed
}

fn tuple_len(g: &Graph, v: Value) -> usize {
    tuple_type(g.ty(v)).map_or(0, |t| t.elements.len())
}

fn flatten_loop_carried(
    g: &mut Graph,
    n: Node,
    emptied: &mut HashSet<Node>,
    cx: &mut PassContext,
) -> bool {
    let Some(&body) = g.node_blocks(n).first() else {
        return false;
    };
    let mut changed = false;
    let mut i = 0;
    while i < g.node_outputs(n).len() {
        let carried = g.node_outputs(n).len();
        if g.node_inputs(n).len() != 2 + carried
            || g.block_inputs(body).len() != 1 + carried
            || g.block_outputs(body).len() != 1 + carried
        {
            return changed;
        }
        let out = g.output(n, i);
        let len = tuple_len(g, out);
        let initial = construct_of(g, g.input(n, 2 + i));
        let next = construct_of(g, g.block_outputs(body)[1 + i]);
        let flattenable = tuple_type(g.ty(out)).is_some()
            && [initial, next]
                .iter()
                .all(|c| c.is_some_and(|c| g.node_inputs(c).len() == len));
        if !flattenable || !cx.may_rewrite() {
            i += 1;
            continue;
        }
        cx.log(LogLevel::Update, || {
            format!(
                "split loop-carried tuple %{} into its elements",
                g.value_name(out)
            )
        });
        let ty = g.ty(out).clone();
        let elements = tuple_type(&ty).unwrap().elements.clone();
        emptied.extend([initial.unwrap(), next.unwrap()]);
        // Initial values.
        let initial_parts = g.node_inputs(initial.unwrap()).to_vec();
        for (j, &p) in initial_parts.iter().enumerate() {
            g.insert_node_input(n, 2 + i + 1 + j, p);
        }
        g.remove_node_input(n, 2 + i);
        // Body parameters, rebuilt into the tuple at the start of the body.
        let param = g.block_inputs(body)[1 + i];
        let mut params = Vec::new();
        for (j, e) in elements.iter().enumerate() {
            params.push(g.block_insert_input(body, 1 + i + 1 + j, e.clone()));
        }
        let rebuilt_param = make_tuple(g, &params, ty.clone());
        g.block_prepend(body, rebuilt_param);
        emptied.insert(rebuilt_param);
        g.replace_all_uses_with(param, g.output(rebuilt_param, 0));
        g.block_erase_input(body, 1 + i);
        // Body results.
        let next_parts = g.node_inputs(next.unwrap()).to_vec();
        for (j, &p) in next_parts.iter().enumerate() {
            g.block_insert_output(body, 1 + i + 1 + j, p);
        }
        g.block_erase_output(body, 1 + i);
        // Loop results, rebuilt after the loop.
        let mut outs = Vec::new();
        for (j, e) in elements.iter().enumerate() {
            outs.push(g.insert_node_output(n, i + 1 + j, e.clone()));
        }
        let rebuilt = make_tuple(g, &outs, ty);
        g.insert_after(rebuilt, n);
        emptied.insert(rebuilt);
        g.replace_all_uses_with(out, g.output(rebuilt, 0));
        g.erase_node_output(n, i);
        changed = true;
        i += elements.len();
    }
    changed
}

/// Replaces projections of `prim::TupleConstruct`s by its inputs, in program order so chains
/// of projections resolve in one sweep. Constructs that lose uses are collected in `emptied`.
fn forward_projections(
    g: &mut Graph,
    b: Block,
    emptied: &mut HashSet<Node>,
    cx: &mut PassContext,
) -> bool {
    let mut changed = false;
    for n in g.block_nodes(b).collect::<Vec<_>>() {
        for sub in g.node_blocks(n).to_vec() {
            changed |= forward_projections(g, sub, emptied, cx);
        }
        let kind = g.kind(n);
        let is_projection =
            kind == sym::tuple_unpack() || kind == sym::tuple_index() || kind == sym::tuple_slice();
        if !is_projection {
            continue;
        }
        let Some(&tuple) = g.node_inputs(n).first() else {
            continue;
        };
        let Some(c) = construct_of(g, tuple) else {
            continue;
        };
        let parts = g.node_inputs(c).to_vec();
        let Some(replacements) = projection(g, n, &parts) else {
            continue;
        };
        if !cx.may_rewrite() {
            continue;
        }
        cx.log(LogLevel::Update, || {
            format!("forwarded {} of %{}", kind, g.value_name(tuple))
        });
        let replacements = match replacements {
            Projected::Values(vs) => vs,
            Projected::Slice(vs) => {
                let ty = Type::tuple(vs.iter().map(|&v| g.ty(v).clone()).collect());
                let sliced = make_tuple(g, &vs, ty);
                g.insert_before(sliced, n);
                vec![g.output(sliced, 0)]
            }
        };
        for (i, r) in replacements.into_iter().enumerate() {
            g.replace_all_uses_with(g.output(n, i), r);
        }
        g.destroy(n);
        emptied.insert(c);
        changed = true;
    }
    changed
}

enum Projected {
    /// The node's outputs are these values.
    Values(Vec<Value>),
    /// The node's output is a tuple of these values.
    Slice(Vec<Value>),
}

/// What projection `n` of a tuple built from `parts` yields, if it can be worked out.
fn projection(g: &Graph, n: Node, parts: &[Value]) -> Option<Projected> {
    let kind = g.kind(n);
    let len = parts.len() as i64;
    if kind == sym::tuple_unpack() {
        return (g.node_outputs(n).len() == parts.len()).then(|| Projected::Values(parts.to_vec()));
    }
    if kind == sym::tuple_index() {
        let idx = constant_int(g, *g.node_inputs(n).get(1)?)?;
        let idx = if idx < 0 { idx + len } else { idx };
        if g.node_outputs(n).len() != 1 || !(0..len).contains(&idx) {
            return None;
        }
        return Some(Projected::Values(vec![parts[idx as usize]]));
    }
    // TupleSlice[beg, end]
    let int_attr = |name: &str| match g.attr(n, Symbol::attr(name)) {
        Some(AttrValue::Int(i)) => Some(*i),
        _ => None,
    };
    let (beg, end) = (int_attr("beg")?, int_attr("end")?);
    if g.node_outputs(n).len() != 1 || !(0 <= beg && beg <= end && end <= len) {
        return None;
    }
    Some(Projected::Slice(parts[beg as usize..end as usize].to_vec()))
}

#[cfg(test)]
mod tests;
