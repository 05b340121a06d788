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
use crate::fold::constant_bool;
use crate::fold::weights::fold_batch_norm_into;

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
            if fold_batch_norm_into(g, conv, bn) {
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
