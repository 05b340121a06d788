//! `fold-linear-batch-norm`: a frozen linear layer whose only user is an inference batch norm
//! over its features becomes one linear layer (PyTorch's `FoldFrozenLinearBatchnorm`):
//! with `s = bn_weight / sqrt(running_var + eps)`, `W'[o] = W[o] * s[o]` and
//! `b'[o] = (b[o] - running_mean[o]) * s[o] + bn_bias[o]`.
//!
//! Batch norm normalizes dimension 1; that is the linear layer's features only when its
//! result is 2-d, so the input must be known to be a matrix (its type says so).

use ember_dialects::attr::ConstValue;
use ember_dialects::types::Type;
use ember_dialects::{Graph, Node, Symbol};

use super::{LogLevel, PassContext};
use crate::fold::weights::{
    bias_values, constant_tensor, float_values, is_none, scale_rows, set_constant_input, tensor_of,
};
use crate::fold::{constant_bool, constant_value};

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let mut changed = false;
    for bn in g.nodes() {
        if !g.is_alive(bn) || g.kind(bn) != Symbol::aten("batch_norm") {
            continue;
        }
        let Some(linear) = foldable(g, bn) else {
            continue;
        };
        if !cx.may_rewrite() {
            break;
        }
        if fold(g, linear, bn) {
            cx.log(LogLevel::Update, || {
                "folded batch_norm into aten::linear".to_string()
            });
            changed = true;
        }
    }
    Ok(changed)
}

fn foldable(g: &Graph, bn: Node) -> Option<Node> {
    let inputs = g.node_inputs(bn);
    if inputs.len() != 9 || constant_bool(g, inputs[5]) != Some(false) {
        return None;
    }
    let linear = g.producer(inputs[0]);
    let is_matrix =
        |v| matches!(g.ty(v), Type::Tensor(t) if t.sizes.as_ref().is_some_and(|s| s.len() == 2));
    (g.kind(linear) == Symbol::aten("linear")
        && g.uses(inputs[0]).len() == 1
        && g.owning_block(linear) == g.owning_block(bn)
        && is_matrix(g.input(linear, 0)))
    .then_some(linear)
}

fn fold(g: &mut Graph, linear: Node, bn: Node) -> bool {
    let bn_in = g.node_inputs(bn).to_vec();
    let Some(weight) = constant_tensor(g, g.input(linear, 1)) else {
        return false;
    };
    if weight.dim() != 2 {
        return false;
    }
    let out = weight.sizes()[0] as usize;
    let stat = |i: usize| constant_tensor(g, bn_in[i]).and_then(|t| float_values(&t));
    let (Some(mean), Some(var)) = (stat(3), stat(4)) else {
        return false;
    };
    let gamma = if is_none(g, bn_in[1]) {
        Some(vec![1.0; out])
    } else {
        stat(1)
    };
    let (Some(gamma), Some(beta), Some(bias)) = (
        gamma,
        bias_values(g, bn_in[2], out),
        bias_values(g, g.input(linear, 2), out),
    ) else {
        return false;
    };
    let Some(ConstValue::Float(eps)) = constant_value(g, bn_in[7]) else {
        return false;
    };
    if [mean.len(), var.len(), gamma.len(), beta.len()] != [out; 4] {
        return false;
    }
    let scale: Vec<f64> = (0..out).map(|c| gamma[c] / (var[c] + eps).sqrt()).collect();
    let new_bias: Vec<f64> = (0..out)
        .map(|c| (bias[c] - mean[c]) * scale[c] + beta[c])
        .collect();
    let (Some(w), Some(b)) = (
        scale_rows(&weight, &scale),
        tensor_of(new_bias, &[out as i64], weight.dtype()),
    ) else {
        return false;
    };
    set_constant_input(g, linear, 1, &w);
    set_constant_input(g, linear, 2, &b);
    let (bn_out, lin_out) = (g.output(bn, 0), g.output(linear, 0));
    g.replace_all_uses_with(bn_out, lin_out);
    g.destroy(bn);
    true
}
