//! `canonicalize-modified-loops`: rewrites loops that have both a trip count and a continue
//! condition (a `for` with a `break`, after the exit transform) into `while`-style loops that
//! count their own iterations, after PyTorch's
//! `torch/csrc/jit/frontend/canonicalize_modified_loop.cpp`. Such loops then print as Python
//! `while` loops, and PyTorch's graphs show them this way.
//!
//! `prim::Loop(%n, %cond)` with body `block0(%i) -> (%next)` becomes
//! `prim::Loop(INT64_MAX, %n > 0 and %cond, 0)` with body
//! `block0(%unused, %j) -> (%j + 1 < %n and %next, %j + 1)`, `%j` standing for `%i`.

use ember_dialects::attr::ConstValue;
use ember_dialects::ir::InsertArg;
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Symbol, Type, Value};

use super::convert_to_ssa::{sub_block, SsaError};
use crate::fold::constant::insert_constant_before;
use crate::fold::{constant_bool, constant_int};
use crate::passes::PassContext;

/// Canonicalizes every modified loop of the graph, inner loops first.
pub fn canonicalize_modified_loops(g: &mut Graph) -> Result<(), SsaError> {
    in_block(g, g.block())
}

/// The `canonicalize-modified-loops` pass of `ember-opt`.
pub fn run(g: &mut Graph, _cx: &mut PassContext) -> Result<bool, String> {
    let before = g.to_string();
    canonicalize_modified_loops(g).map_err(|e| e.to_string())?;
    Ok(g.to_string() != before)
}

fn in_block(g: &mut Graph, b: Block) -> Result<(), SsaError> {
    let mut cur = g.first_node(b);
    while let Some(n) = cur {
        for sub in g.node_blocks(n).to_vec() {
            in_block(g, sub)?;
        }
        if g.kind(n) == sym::loop_() {
            canonicalize(g, n)?;
        }
        cur = g.next_node(n);
    }
    Ok(())
}

/// PyTorch's `LoopView::loopType() == ModifiedLoop`: the condition is not always true and the
/// trip count matters (not the `while` default, or the iteration number is read).
fn is_modified_loop(g: &Graph, n: Node, body: Block) -> bool {
    let inputs = g.node_inputs(n);
    let outputs = g.block_outputs(body);
    let always_true =
        constant_bool(g, inputs[1]) == Some(true) && constant_bool(g, outputs[0]) == Some(true);
    let trip_count_specified =
        constant_int(g, inputs[0]) != Some(i64::MAX) || g.has_uses(g.block_inputs(body)[0]);
    !always_true && trip_count_specified
}

fn canonicalize(g: &mut Graph, n: Node) -> Result<(), SsaError> {
    let body = sub_block(g, n, 0, 1)?;
    if g.node_inputs(n).len() < 2
        || g.block_inputs(body).is_empty()
        || g.block_outputs(body).is_empty()
    {
        return Err(SsaError::at(g, n, "prim::Loop is not in SSA form"));
    }
    if !is_modified_loop(g, n, body) {
        return Ok(());
    }
    let saved = g.insert_point();
    let result = rewrite(g, n, body);
    g.set_insert_point(saved);
    result.map_err(|e| SsaError::at(g, n, e))
}

fn rewrite(g: &mut Graph, n: Node, body: Block) -> Result<(), String> {
    let int = |g: &mut Graph, v: i64| {
        insert_constant_before(g, n, &ConstValue::Int(v), &Type::Int).expect("int constant")
    };
    let zero = int(g, 0);
    let one = int(g, 1);
    let max_trip_count = g.input(n, 0);
    g.set_insert_point(n);
    let mut condition = call(g, "gt", max_trip_count, zero)?;
    let int_max = int(g, i64::MAX);
    g.replace_input(n, 0, int_max);
    let input_cond = g.input(n, 1);
    if constant_bool(g, input_cond) != Some(true) {
        condition = call(g, "__and__", condition, input_cond)?;
    }
    g.replace_input(n, 1, condition);
    g.add_node_output(n, Type::Int);
    g.add_node_input(n, zero);
    let new_iter = g.block_add_input(body, Type::Int);
    let old_iter = g.block_inputs(body)[0];
    g.set_debug_name(old_iter, "");
    if g.has_uses(old_iter) {
        g.replace_all_uses_with(old_iter, new_iter);
    }
    g.set_insert_point_to_end(body);
    let inc_iter = call(g, "add", new_iter, one)?;
    g.block_register_output(body, inc_iter);
    let less_than_max_trip = call(g, "lt", inc_iter, max_trip_count)?;
    let loop_continue = g.block_outputs(body)[0];
    let new_condition = call(g, "__and__", less_than_max_trip, loop_continue)?;
    g.block_erase_output(body, 0);
    g.block_insert_output(body, 0, new_condition);
    Ok(())
}

/// Inserts `aten::<op>(a, b)` at the insertion point, the overload chosen as PyTorch does.
fn call(g: &mut Graph, op: &str, a: Value, b: Value) -> Result<Value, String> {
    let outs = g.insert(
        Symbol::aten(op),
        &[InsertArg::Value(a), InsertArg::Value(b)],
    )?;
    outs.first()
        .copied()
        .ok_or_else(|| format!("aten::{op} has no output"))
}
