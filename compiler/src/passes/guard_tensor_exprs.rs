//! `guard-tensor-exprs`: puts every `prim::TensorExprGroup` behind a check of the types it was
//! specialized for, after PyTorch's `insertTypeGuard` (`tensorexpr_fuser.cpp`) and
//! `replaceFallbackGraphWithFallbackFunction` (`profiling_graph_executor_impl.cpp`):
//!
//! ```text
//! %a.2 : Float(4, 1, ...), %b.2 : Float(1, 5, ...), %ok : bool = prim::TypeCheck[types=[...]](%a, %b)
//! %r : Tensor = prim::If(%ok)
//!   block0():
//!     %y : Float(4, 5, ...) = prim::TensorExprGroup_0(%a.2, %b.2)
//!     -> (%y)
//!   block1():
//!     %f : Function = prim::Constant[name="fallback_function", fallback=1]()
//!     %t : (Tensor) = prim::CallFunction(%f, %a, %b)
//!     %u : Tensor = prim::TupleUnpack(%t)
//!     -> (%u)
//! ```
//!
//! The fallback function is the group's body with plain `Tensor` types, returning a tuple as
//! a graph function does; Ember keeps it in the constant's `Subgraph` attribute, so it prints
//! as a numbered subgraph node (`prim::Constant_1`) and the interpreter runs it as is.
//!
//! Then, as PyTorch's `RemoveTensorTypeSpecializations`, every tensor value outside the groups
//! is a plain `Tensor` again, except the outputs of constants, type checks and groups: nothing
//! unguarded relies on what profiling saw.

use ember_dialects::attr::AttrValue;
use ember_dialects::symbol::{sym, Symbol};
use ember_dialects::types::Type;
use ember_dialects::{Block, Graph, Node, Value};

use super::{LogLevel, PassContext};

/// The name PyTorch gives every fallback function.
const FALLBACK_NAME: &str = "fallback_function";

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let mut changed = false;
    let groups: Vec<Node> = g
        .nodes()
        .into_iter()
        .filter(|&n| g.kind(n) == sym::tensor_expr_group())
        .collect();
    for group in groups {
        if !cx.may_rewrite() {
            continue;
        }
        changed |= insert_type_guard(g, group, cx)?;
    }
    let top = g.block();
    changed |= remove_tensor_type_specializations(g, top);
    Ok(changed)
}

/// Guards `group` with a `prim::TypeCheck` of its tensor inputs and a `prim::If` whose else
/// branch calls the fallback; false when the group has no tensor input to check.
fn insert_type_guard(g: &mut Graph, group: Node, cx: &mut PassContext) -> Result<bool, String> {
    let Some(AttrValue::Graph(sub)) = g.attr(group, sym::attr_subgraph()) else {
        return Err("prim::TensorExprGroup must have a Subgraph attribute".into());
    };
    let fallback = fallback_body(sub);
    let inputs = g.node_inputs(group).to_vec();
    let checked: Vec<Value> = inputs
        .iter()
        .copied()
        .filter(|&v| g.ty(v).is_tensor() && g.kind(g.producer(v)) != sym::constant())
        .collect();
    // Nothing to check, or checked already (the pass ran before).
    if checked.is_empty()
        || checked
            .iter()
            .all(|&v| g.kind(g.producer(v)) == sym::type_check())
    {
        return Ok(false);
    }
    let types: Vec<Type> = checked.iter().map(|&v| g.ty(v).clone()).collect();
    let check = g.create(sym::type_check(), &checked, checked.len() + 1);
    g.insert_before(check, group);
    g.set_attr(
        check,
        Symbol::attr("types"),
        AttrValue::Types(types.clone()),
    );
    for (i, ty) in types.into_iter().enumerate() {
        let out = g.output(check, i);
        g.set_ty(out, ty);
    }
    let ok = g.output(check, checked.len());
    g.set_ty(ok, Type::Bool);

    let outputs = g.node_outputs(group).to_vec();
    let versioning = g.create(sym::if_(), &[ok], outputs.len());
    g.insert_after(versioning, check);
    for (i, &out) in outputs.iter().enumerate() {
        let result = g.output(versioning, i);
        g.set_ty(result, g.ty(out).clone());
        g.replace_all_uses_with(out, result);
    }
    let then_block = g.add_block(versioning);
    let else_block = g.add_block(versioning);

    // The else branch: the unspecialized body, called as PyTorch calls a fallback function.
    let result_types: Vec<Type> = outputs.iter().map(|_| Type::tensor()).collect();
    let function = g.create(sym::constant(), &[], 1);
    g.set_attr(
        function,
        Symbol::attr("name"),
        AttrValue::Str(FALLBACK_NAME.into()),
    );
    g.set_attr(function, Symbol::attr("fallback"), AttrValue::Int(1));
    g.set_attr(
        function,
        sym::attr_subgraph(),
        AttrValue::Graph(Box::new(fallback)),
    );
    g.set_ty(g.output(function, 0), Type::Function(String::new()));
    g.block_append(else_block, function);
    let mut call_inputs = vec![g.output(function, 0)];
    call_inputs.extend(&inputs);
    let call = g.create(sym::call_function(), &call_inputs, 1);
    g.set_ty(g.output(call, 0), Type::tuple(result_types.clone()));
    g.block_append(else_block, call);
    let unpack = g.create(sym::tuple_unpack(), &[g.output(call, 0)], outputs.len());
    g.block_append(else_block, unpack);
    for i in 0..outputs.len() {
        let v = g.output(unpack, i);
        g.block_register_output(else_block, v);
    }

    // The then branch: the group on the checked values.
    g.remove_from_list(group);
    g.block_append(then_block, group);
    for (i, &v) in checked.iter().enumerate() {
        let checked_value = g.output(check, i);
        g.replace_input_with(group, v, checked_value);
    }
    for &out in &outputs {
        g.block_register_output(then_block, out);
    }
    cx.log(LogLevel::Update, || {
        format!("guarded a group on {} tensor inputs", checked.len())
    });
    Ok(true)
}

/// The group's body as a fallback function: plain tensor types, results packed in a tuple.
fn fallback_body(sub: &Graph) -> Graph {
    let mut body = sub.clone();
    let top = body.block();
    remove_all_tensor_specializations(&mut body, top);
    let results = body.outputs().to_vec();
    let tuple = body.create(sym::tuple_construct(), &results, 1);
    body.block_append(top, tuple);
    let ty = Type::tuple(results.iter().map(|&v| body.ty(v).clone()).collect());
    body.set_ty(body.output(tuple, 0), ty);
    for i in (0..results.len()).rev() {
        body.erase_output(i);
    }
    body.register_output(body.output(tuple, 0));
    body
}

/// Every tensor value of `b` (nested blocks included) typed plain `Tensor`.
fn remove_all_tensor_specializations(g: &mut Graph, b: Block) {
    for v in block_values(g, b) {
        if g.ty(v).is_tensor() {
            g.set_ty(v, Type::tensor());
        }
    }
}

/// PyTorch's `removeTensorTypeSpecializations`: tensors outside groups become plain `Tensor`,
/// except what constants, type checks and groups produce.
fn remove_tensor_type_specializations(g: &mut Graph, b: Block) -> bool {
    let mut changed = false;
    for v in block_values(g, b) {
        let keeps = matches!(g.value_def(v), ember_dialects::ValueDef::Output(n, _)
            if [sym::constant(), sym::type_check(), sym::tensor_expr_group()].contains(&g.kind(n)));
        if !keeps && g.ty(v).is_tensor() && *g.ty(v) != Type::tensor() {
            g.set_ty(v, Type::tensor());
            changed = true;
        }
    }
    changed
}

/// The inputs of `b` and the outputs and block inputs of its nodes, recursively.
fn block_values(g: &Graph, b: Block) -> Vec<Value> {
    let mut out = g.block_inputs(b).to_vec();
    for n in g.all_nodes(b) {
        out.extend(g.node_outputs(n));
        for &nb in g.node_blocks(n) {
            out.extend(g.block_inputs(nb));
        }
    }
    out
}

#[cfg(test)]
#[path = "guard_tensor_exprs_tests.rs"]
mod tests;
