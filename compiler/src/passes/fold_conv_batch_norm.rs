//! `fold-conv-batch-norm`: a convolution whose only user is an inference batch norm becomes
//! one convolution with the normalization folded into its weight and bias (PyTorch's
//! `FoldFrozenConvBatchnorm`). With `s = bn_weight / sqrt(running_var + eps)`:
//! `W'[c] = W[c] * s[c]` and `b'[c] = (b[c] - running_mean[c]) * s[c] + bn_bias[c]`.
//!
//! It applies to frozen graphs, where the weights and statistics are constants: every one of
//! them must be a float constant (a missing bias or affine parameter is zero or one), the
//! batch norm must not train (`training` the constant False) and the convolution must not be
//! transposed.

use ember_dialects::{Graph, Node, Symbol};

use super::{LogLevel, PassContext};
use crate::fold::weights::{
    bias_values, constant_tensor, float_values, is_none, scale_rows, set_constant_input, tensor_of,
};
use crate::fold::{constant_bool, constant_value};

const CONVOLUTIONS: &[&str] = &[
    "aten::conv1d",
    "aten::conv2d",
    "aten::conv3d",
    "aten::_convolution",
];

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let mut changed = false;
    for bn in g.nodes() {
        if !g.is_alive(bn) || g.kind(bn) != Symbol::aten("batch_norm") {
            continue;
        }
        if let Some(conv) = foldable(g, bn) {
            if !cx.may_rewrite() {
                break;
            }
            if fold(g, conv, bn) {
                cx.log(LogLevel::Update, || {
                    format!("folded batch_norm into {}", g.kind(conv))
                });
                changed = true;
            }
        }
    }
    Ok(changed)
}

/// The convolution `bn` normalizes, when the pair can be folded.
fn foldable(g: &Graph, bn: Node) -> Option<Node> {
    let inputs = g.node_inputs(bn);
    if inputs.len() != 9 || constant_bool(g, inputs[5]) != Some(false) {
        return None;
    }
    let conv = g.producer(inputs[0]);
    let conv_out = g.output(conv, 0);
    let single_use = g.uses(conv_out).len() == 1 && g.node_outputs(conv).len() == 1;
    // `_convolution(input, weight, bias, stride, padding, dilation, transposed, ...)` (traced).
    let transposed = g.kind(conv) == Symbol::aten("_convolution")
        && g.node_inputs(conv)
            .get(6)
            .and_then(|&t| constant_bool(g, t))
            != Some(false);
    (CONVOLUTIONS.contains(&g.kind(conv).as_str())
        && !transposed
        && single_use
        && g.owning_block(conv) == g.owning_block(bn))
    .then_some(conv)
}

fn fold(g: &mut Graph, conv: Node, bn: Node) -> bool {
    let bn_in = g.node_inputs(bn).to_vec();
    let Some(weight) = constant_tensor(g, g.input(conv, 1)) else {
        return false;
    };
    let Some(&out) = weight.sizes().first() else {
        return false;
    };
    let out = out as usize;
    let stat = |i: usize| constant_tensor(g, bn_in[i]).and_then(|t| float_values(&t));
    let (Some(mean), Some(var)) = (stat(3), stat(4)) else {
        return false;
    };
    let gamma = if is_none(g, bn_in[1]) {
        Some(vec![1.0; out])
    } else {
        stat(1)
    };
    let beta = bias_values(g, bn_in[2], out);
    let eps = match constant_value(g, bn_in[7]) {
        Some(ember_dialects::attr::ConstValue::Float(e)) => e,
        _ => return false,
    };
    let bias = bias_values(g, g.input(conv, 2), out);
    let (Some(gamma), Some(beta), Some(bias)) = (gamma, beta, bias) else {
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
    set_constant_input(g, conv, 1, &w);
    set_constant_input(g, conv, 2, &b);
    let (bn_out, conv_out) = (g.output(bn, 0), g.output(conv, 0));
    g.replace_all_uses_with(bn_out, conv_out);
    g.destroy(bn);
    true
}
