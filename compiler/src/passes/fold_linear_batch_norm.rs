//! `fold-linear-batch-norm`: a frozen linear layer whose only user is an inference batch norm
//! over its features becomes one linear layer (PyTorch's `FoldFrozenLinearBatchnorm`):
//! with `s = bn_weight / sqrt(running_var + eps)`, `W'[o] = W[o] * s[o]` and
//! `b'[o] = (b[o] - running_mean[o]) * s[o] + bn_bias[o]`.
//!
//! Batch norm normalizes dimension 1; that is the linear layer's features only when its
//! result is 2-d, so the input must be known to be a matrix (its type says so).

use ember_dialects::types::Type;
use ember_dialects::{Graph, Node, Symbol};

use super::{LogLevel, PassContext};
use crate::fold::constant_bool;
use crate::fold::weights::fold_batch_norm_into;

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
        if fold_batch_norm_into(g, linear, bn) {
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
