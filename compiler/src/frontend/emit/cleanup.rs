//! What PyTorch runs on a def's graph after emitting it (`to_ir`'s constructor): SSA
//! conversion (with the exit transform, loop-condition inlining and modified-loop
//! canonicalization), `NormalizeOps`, then `runCleanupPasses`: `LowerSimpleTuples`,
//! `ConstantPropagationImmutableTypes`, `ConstantPooling` and `CanonicalizeOutputs`.
//! (frontend/cleanup.rs runs Ember's general passes for graphs that did not come from the
//! emitter; these are the narrower PyTorch ones, so emitted graphs match PyTorch's.)

use ember_dialects::attr::ConstValue;
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Symbol, Type};

use crate::analysis::alias::is_mutable_type;
use crate::fold::{constant_value, eval, identical, insert_constant_before};
use crate::frontend::convert_to_ssa::{convert_to_ssa_located, SsaError};
use crate::passes::{canonicalize_outputs, constant_pooling, PassContext};

pub fn run(g: &mut Graph) -> Result<(), SsaError> {
    convert_to_ssa_located(g)?;
    normalize_ops(g, g.block());
    lower_simple_tuples(g, g.block());
    let top = g.block();
    propagate_block(g, top);
    let mut cx = PassContext::unlimited("constant-pooling");
    let fail = |message| SsaError {
        message,
        range: None,
        used_at: None,
    };
    constant_pooling::run(g, &mut cx).map_err(fail)?;
    pool_unwritten_lists(g);
    reverse_leading_constants(g);
    let mut cx = PassContext::unlimited("canonicalize-outputs");
    canonicalize_outputs::run(g, &mut cx).map_err(fail)?;
    Ok(())
}

/// PyTorch's `ConstantPooling` moves each constant it keeps to the front of the graph, so they
/// end up in the reverse of the order met; Ember's pass keeps that order. Reversed here so
/// constants that are never merged (enum values) come in PyTorch's order.
fn reverse_leading_constants(g: &mut Graph) {
    let top = g.block();
    let leading: Vec<Node> = g
        .block_nodes(top)
        .take_while(|&n| g.kind(n) == sym::constant())
        .collect();
    let Some(&first) = leading.first() else {
        return;
    };
    for &n in leading.iter().skip(1) {
        let front = g.first_node(top).unwrap_or(first);
        g.move_before(n, front);
    }
}

/// PyTorch's `ConstantPooling` also merges equal constants of mutable types that nothing
/// writes (alias analysis proves it); Ember's pass merges immutable ones only. List constants
/// passed only to operators that do not write them are merged here.
fn pool_unwritten_lists(g: &mut Graph) {
    let top = g.block();
    let mut kept: Vec<(ember_dialects::Value, ConstValue)> = Vec::new();
    for n in g.block_nodes(top).collect::<Vec<_>>() {
        if g.kind(n) != sym::constant() || g.node_outputs(n).len() != 1 {
            continue;
        }
        let v = g.output(n, 0);
        if !matches!(g.ty(v), Type::List(_)) || !never_written(g, v) {
            continue;
        }
        let Some(c) = constant_value(g, v) else {
            continue;
        };
        match kept
            .iter()
            .find(|(k, kc)| g.ty(*k) == g.ty(v) && identical(kc, &c))
        {
            Some(&(k, _)) => {
                g.replace_all_uses_with(v, k);
                g.destroy(n);
            }
            None => kept.push((v, c)),
        }
    }
}

/// Whether every use of `v` is an operator argument its schema does not write.
fn never_written(g: &Graph, v: ember_dialects::Value) -> bool {
    g.uses(v).iter().all(|u| {
        ember_dialects::catalogue::resolve_node(g, u.user)
            .ok()
            .and_then(|s| s.arguments.get(u.offset).map(|a| !a.is_write()))
            .unwrap_or(false)
    })
}

/// `getOperatorAliasMap` of PyTorch's normalize_ops.cpp.
fn alias_of(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "aten::absolute" => "aten::abs",
        "aten::absolute_" => "aten::abs_",
        "aten::clip" => "aten::clamp",
        "aten::clip_" => "aten::clamp_",
        "aten::det" => "aten::linalg_det",
        "aten::matrix_power" => "aten::linalg_matrix_power",
        "aten::matrix_exp" => "aten::linalg_matrix_exp",
        "aten::ger" => "aten::outer",
        "aten::arccos" => "aten::acos",
        "aten::arccos_" => "aten::acos_",
        "aten::arcsin" => "aten::asin",
        "aten::arcsin_" => "aten::asin_",
        "aten::arctan" => "aten::atan",
        "aten::arctan_" => "aten::atan_",
        "aten::arctan2" => "aten::atan2",
        "aten::arctan2_" => "aten::atan2_",
        "aten::arccosh" => "aten::acosh",
        "aten::arccosh_" => "aten::acosh_",
        "aten::arcsinh" => "aten::asinh",
        "aten::arcsinh_" => "aten::asinh_",
        "aten::arctanh" => "aten::atanh",
        "aten::arctanh_" => "aten::atanh_",
        "aten::fix" => "aten::trunc",
        "aten::fix_" => "aten::trunc_",
        "aten::negative" => "aten::neg",
        "aten::negative_" => "aten::neg_",
        "aten::subtract" => "aten::sub",
        "aten::subtract_" => "aten::sub_",
        "aten::greater_equal" => "aten::ge",
        "aten::greater_equal_" => "aten::ge_",
        "aten::greater" => "aten::gt",
        "aten::greater_" => "aten::gt_",
        "aten::less_equal" => "aten::le",
        "aten::less_equal_" => "aten::le_",
        "aten::less" => "aten::lt",
        "aten::less_" => "aten::lt_",
        "aten::not_equal" => "aten::ne",
        "aten::not_equal_" => "aten::ne_",
        "aten::divide" => "aten::div",
        "aten::divide_" => "aten::div_",
        "aten::multiply" => "aten::mul",
        "aten::multiply_" => "aten::mul_",
        "aten::linalg_matmul" => "aten::matmul",
        "aten::inverse" => "aten::linalg_inv",
        "aten::true_divide" => "aten::div",
        "aten::true_divide_" => "aten::div_",
        "aten::concat" => "aten::cat",
        "aten::concatenate" => "aten::cat",
        "aten::row_stack" => "aten::vstack",
        "aten::swapdims" => "aten::transpose",
        "aten::swapdims_" => "aten::transpose_",
        "aten::swapaxes" => "aten::transpose",
        "aten::swapaxes_" => "aten::transpose_",
        "aten::moveaxis" => "aten::movedim",
        "aten::special_erf" => "aten::erf",
        "aten::special_erfc" => "aten::erfc",
        "aten::special_erfinv" => "aten::erfinv",
        "aten::special_expit" => "aten::sigmoid",
        "aten::special_exp2" => "aten::exp2",
        "aten::special_expm1" => "aten::expm1",
        "aten::special_logit" => "aten::logit",
        "aten::special_logsumexp" => "aten::logsumexp",
        "aten::special_round" => "aten::round",
        "aten::special_log1p" => "aten::log1p",
        "aten::special_sinc" => "aten::sinc",
        "aten::special_digamma" => "aten::digamma",
        "aten::special_psi" => "aten::digamma",
        "aten::special_i0" => "aten::i0",
        "aten::special_xlogy" => "aten::xlogy",
        "aten::special_log_softmax" => "aten::log_softmax",
        "aten::orgqr" => "aten::linalg_householder_product",
        "aten::adjoint" => "aten::mH",
        "aten::special_multigammaln" => "aten::mvlgamma",
        "aten::special_polygamma" => "aten::polygamma",
        "aten::special_softmax" => "aten::softmax",
        "aten::special_gammainc" => "aten::igamma",
        "aten::special_gammaincc" => "aten::igammac",
        "aten::special_gammaln" => "aten::lgamma",
        _ => return None,
    })
}

/// `NormalizeOps`: operator aliases to their canonical names, `rsub` to `sub` with swapped
/// operands, `is`/`is not` on bools to `eq`/`ne`.
fn normalize_ops(g: &mut Graph, b: Block) {
    for n in g.block_nodes(b).collect::<Vec<_>>() {
        for sub in g.node_blocks(n).to_vec() {
            normalize_ops(g, sub);
        }
        let kind = g.kind(n);
        if let Some(alias) = alias_of(kind.as_str()) {
            g.set_kind(n, Symbol::new(alias));
            continue;
        }
        let inputs = g.node_inputs(n).to_vec();
        if kind == Symbol::aten("rsub")
            && inputs.len() == 3
            && g.ty(inputs[0]).is_tensor()
            && g.ty(inputs[1]).is_tensor()
        {
            g.set_kind(n, Symbol::aten("sub"));
            g.replace_input(n, 0, inputs[1]);
            g.replace_input(n, 1, inputs[0]);
            continue;
        }
        if inputs.len() == 2 && *g.ty(inputs[0]) == Type::Bool && *g.ty(inputs[1]) == Type::Bool {
            if kind == Symbol::aten("__is__") {
                g.set_kind(n, Symbol::aten("eq"));
            } else if kind == Symbol::aten("__isnot__") {
                g.set_kind(n, Symbol::aten("ne"));
            }
        }
    }
}

/// `LowerSimpleTuples`: unpacks and constant-index accesses of a `prim::TupleConstruct` read
/// its inputs directly.
fn lower_simple_tuples(g: &mut Graph, b: Block) {
    for n in g.block_nodes(b).collect::<Vec<_>>() {
        let kind = g.kind(n);
        if kind == sym::tuple_unpack() || kind == sym::tuple_index() {
            let tup = g.input(n, 0);
            let producer = g.producer(tup);
            if g.kind(producer) == sym::tuple_construct() {
                let items = g.node_inputs(producer).to_vec();
                if kind == sym::tuple_unpack() {
                    if items.len() == g.node_outputs(n).len() {
                        for (o, i) in g.node_outputs(n).to_vec().into_iter().zip(items) {
                            g.replace_all_uses_with(o, i);
                        }
                        g.destroy(n);
                    }
                } else if let Some(ConstValue::Int(i)) = constant_value(g, g.input(n, 1)) {
                    let len = items.len() as i64;
                    let j = if i < 0 { i + len } else { i };
                    if (0..len).contains(&j) {
                        let o = g.output(n, 0);
                        g.replace_all_uses_with(o, items[j as usize]);
                        g.destroy(n);
                    }
                }
                continue;
            }
        }
        for sub in g.node_blocks(n).to_vec() {
            lower_simple_tuples(g, sub);
        }
    }
}

/// Nodes `ConstantPropagation` never runs.
fn skipped(kind: Symbol) -> bool {
    matches!(
        kind.as_str(),
        "prim::If"
            | "prim::Loop"
            | "prim::Closure"
            | "prim::Constant"
            | "prim::AutogradZero"
            | "prim::Uninitialized"
            | "prim::Guard"
            | "prim::profile"
            | "prim::profile_ivalue"
            | "prim::unchecked_unwrap_optional"
            | "prim::RaiseException"
            | "prim::Print"
            | "prim::CallFunction"
            | "prim::CallMethod"
            | "prim::SetAttr"
            | "prim::GetAttr"
            | "prim::CreateObject"
            | "prim::Enter"
            | "prim::Exit"
            | "aten::warn"
    )
}

/// `ConstantPropagationImmutableTypes` on one block.
fn propagate_block(g: &mut Graph, b: Block) {
    let mut next = g.block_nodes(b).next();
    while let Some(n) = next {
        next = g.next_node(n);
        propagate_node(g, n);
    }
}

fn propagate_node(g: &mut Graph, n: Node) {
    let kind = g.kind(n);
    let inputs = g.node_inputs(n).to_vec();
    let consts: Option<Vec<ConstValue>> = inputs.iter().map(|&v| constant_value(g, v)).collect();
    if kind == sym::if_() {
        if let Some([ConstValue::Bool(c)]) = consts.as_deref() {
            inline_if(g, n, *c);
        } else {
            for sub in g.node_blocks(n).to_vec() {
                propagate_block(g, sub);
            }
            remove_extra_if_outputs(g, n);
        }
        return;
    }
    if kind == sym::loop_() {
        if let Some(ConstValue::Int(t)) = inputs.first().and_then(|&v| constant_value(g, v)) {
            if t <= 0 {
                remove_loop(g, n);
                return;
            }
        }
        if let Some(ConstValue::Bool(false)) = inputs.get(1).and_then(|&v| constant_value(g, v)) {
            remove_loop(g, n);
            return;
        }
        for sub in g.node_blocks(n).to_vec() {
            propagate_block(g, sub);
        }
        remove_extra_loop_outputs(g, n);
        return;
    }
    let blocks = g.node_blocks(n).to_vec();
    if !blocks.is_empty() {
        for sub in blocks {
            propagate_block(g, sub);
        }
        return;
    }
    if kind == Symbol::prim("EnumName") {
        // An enum constant's member name (its value is printed `__torch__.Color.RED`).
        let p = g.producer(inputs[0]);
        if let Some(ember_dialects::AttrValue::IValue(ConstValue::Opaque(member))) =
            g.attr(p, sym::attr_value()).cloned()
        {
            if let Some(name) = member.rsplit('.').next() {
                let out = g.output(n, 0);
                let c = ConstValue::Str(name.to_string());
                if let Some(new) = insert_constant_before(g, n, &c, &Type::Str) {
                    g.replace_all_uses_with(out, new);
                }
            }
        }
        return;
    }
    let Some(consts) = consts else {
        return;
    };
    if skipped(kind) || inputs.is_empty() {
        return;
    }
    let outputs = g.node_outputs(n).to_vec();
    let immutable = inputs
        .iter()
        .chain(&outputs)
        .all(|&v| !is_mutable_type(g.ty(v)));
    if !immutable {
        return;
    }
    let out_types: Vec<Type> = outputs.iter().map(|&v| g.ty(v).clone()).collect();
    let results = match extra_eval(kind, &consts) {
        Some(c) if out_types.len() == 1 => vec![c],
        _ => match eval(kind, &consts, &out_types) {
            Some(r) => r,
            None => return,
        },
    };
    for (o, c) in outputs.into_iter().zip(results) {
        let like = g.ty(o).clone();
        if let Some(new) = insert_constant_before(g, n, &c, &like) {
            g.replace_all_uses_with(o, new);
        }
    }
}

/// Ops the interpreter folds that `fold::eval` does not know.
fn extra_eval(kind: Symbol, inputs: &[ConstValue]) -> Option<ConstValue> {
    use ConstValue as C;
    Some(match (kind.as_str(), inputs) {
        ("aten::Int", [C::Str(s)]) => C::Int(s.trim().parse().ok()?),
        ("prim::EnumName", [C::Opaque(member)]) => C::Str(member.rsplit('.').next()?.to_string()),
        ("aten::Float", [C::Str(s)]) => C::Float(s.trim().parse().ok()?),
        ("aten::str", [C::Float(f)]) => C::Str(ember_dialects::floatfmt::format_repr(*f)),
        ("aten::factorial", [C::Int(n)]) if (0..=20).contains(n) => C::Int((1..=*n).product()),
        ("aten::isinf", [C::Float(f)]) => C::Bool(f.is_infinite()),
        ("aten::isnan", [C::Float(f)]) => C::Bool(f.is_nan()),
        ("aten::isfinite", [C::Float(f)]) => C::Bool(f.is_finite()),
        ("aten::__range_length", [C::Int(lo), C::Int(hi), C::Int(step)]) => {
            if *step == 0 {
                return None;
            }
            let (lo, hi, step) = (*lo as i128, *hi as i128, *step as i128);
            let n = if step > 0 && lo < hi {
                1 + (hi - 1 - lo) / step
            } else if step < 0 && lo > hi {
                1 + (lo - 1 - hi) / (-step)
            } else {
                0
            };
            C::Int(i64::try_from(n).ok()?)
        }
        ("aten::__derive_index", [C::Int(i), C::Int(start), C::Int(step)]) => {
            C::Int(start.checked_add(i.checked_mul(*step)?)?)
        }
        _ => return None,
    })
}

fn inline_if(g: &mut Graph, n: Node, cond: bool) {
    let taken = g.node_blocks(n)[if cond { 0 } else { 1 }];
    propagate_block(g, taken);
    for m in g.block_nodes(taken).collect::<Vec<_>>() {
        g.move_before(m, n);
    }
    let outs = g.node_outputs(n).to_vec();
    let results = g.block_outputs(taken).to_vec();
    for (o, r) in outs.into_iter().zip(results) {
        g.replace_all_uses_with(o, r);
    }
    g.destroy(n);
}

fn remove_extra_if_outputs(g: &mut Graph, n: Node) {
    let [tb, fb] = g.node_blocks(n)[..] else {
        return;
    };
    let mut i = g.node_outputs(n).len();
    while i > 0 {
        i -= 1;
        let (t, f) = (g.block_outputs(tb)[i], g.block_outputs(fb)[i]);
        let replacement = if t == f {
            Some(t)
        } else {
            match (constant_value(g, t), constant_value(g, f)) {
                (Some(a), Some(b))
                    if identical(&a, &b) && g.ty(t) == g.ty(f) && !is_mutable_type(g.ty(t)) =>
                {
                    let like = g.ty(t).clone();
                    insert_constant_before(g, n, &a, &like)
                }
                _ => None,
            }
        };
        if let Some(r) = replacement {
            let out = g.output(n, i);
            g.replace_all_uses_with(out, r);
            g.erase_node_output(n, i);
            g.block_erase_output(tb, i);
            g.block_erase_output(fb, i);
        }
    }
}

fn remove_loop(g: &mut Graph, n: Node) {
    let outs = g.node_outputs(n).to_vec();
    for (i, o) in outs.into_iter().enumerate() {
        let init = g.input(n, i + 2);
        g.replace_all_uses_with(o, init);
    }
    g.destroy(n);
}

fn remove_extra_loop_outputs(g: &mut Graph, n: Node) {
    let Some(&body) = g.node_blocks(n).first() else {
        return;
    };
    for i in (0..g.node_outputs(n).len()).rev() {
        let carried_in = g.block_inputs(body)[i + 1];
        if carried_in != g.block_outputs(body)[i + 1] {
            continue;
        }
        let init = g.input(n, i + 2);
        let out = g.output(n, i);
        g.replace_all_uses_with(out, init);
        g.replace_all_uses_with(carried_in, init);
        g.erase_node_output(n, i);
        g.remove_node_input(n, i + 2);
        g.block_erase_output(body, i + 1);
        g.block_erase_input(body, i + 1);
    }
}
