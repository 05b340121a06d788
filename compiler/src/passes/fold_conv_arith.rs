//! `fold-conv-arith`: a frozen convolution whose only user adds, subtracts, multiplies or
//! divides it by a constant that is the same across each output channel takes the constant
//! into its weight and bias (PyTorch's `FoldFrozenConvAddOrSub` and `FoldFrozenConvMulOrDiv`):
//! `conv(x, W, b) * s` is `conv(x, W * s, b * s)` and `conv(x, W, b) + a` is
//! `conv(x, W, b + a)`, per channel.
//!
//! The constant must be a float tensor of the weight's dtype that broadcasts without growing
//! the result: one value, or `[C]`-shaped along the channel dimension followed by ones
//! (`[C, 1, 1]` for a 2-d convolution), so that it means the same whether the input is
//! batched or not.

use ember_dialects::{Graph, Node, Symbol, Value};
use ember_runtime::tensor::Tensor;

use super::{LogLevel, PassContext};
use crate::fold::constant_value;
use crate::fold::weights::{
    bias_values, constant_tensor, float_values, scale_rows, set_constant_input, tensor_of,
};

const CONVOLUTIONS: &[&str] = &["aten::conv1d", "aten::conv2d", "aten::conv3d"];

#[derive(Copy, Clone)]
enum Arith {
    Add,
    Sub,
    Mul,
    Div,
}

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let mut changed = false;
    for conv in g.nodes() {
        if !g.is_alive(conv) || !CONVOLUTIONS.contains(&g.kind(conv).as_str()) {
            continue;
        }
        let out = g.output(conv, 0);
        let uses = g.uses(out);
        if uses.len() != 1 {
            continue;
        }
        let user = uses[0].user;
        if g.owning_block(user) != g.owning_block(conv) {
            continue;
        }
        let Some((arith, other)) = arithmetic(g, user, out) else {
            continue;
        };
        if !cx.may_rewrite() {
            break;
        }
        if fold(g, conv, arith, &other) {
            cx.log(LogLevel::Update, || {
                format!("folded {} into {}", g.kind(user), g.kind(conv))
            });
            let result = g.output(user, 0);
            g.replace_all_uses_with(result, out);
            g.destroy(user);
            changed = true;
        }
    }
    Ok(changed)
}

/// What `user` does to `out` (the convolution's result) and the constant it uses.
fn arithmetic(g: &Graph, user: Node, out: Value) -> Option<(Arith, Tensor)> {
    let inputs = g.node_inputs(user);
    let kind = g.kind(user);
    let (arith, other) = match kind.as_str() {
        "aten::add" | "aten::sub" if inputs.len() == 3 => {
            // alpha must be 1: `x + alpha * c` with another alpha is rare; not folded.
            if !matches!(
                constant_value(g, inputs[2]),
                Some(ember_dialects::attr::ConstValue::Int(1))
            ) {
                return None;
            }
            let arith = if kind == Symbol::aten("add") {
                Arith::Add
            } else {
                Arith::Sub
            };
            // Addition commutes; subtraction only with the convolution first.
            if inputs[0] == out {
                (arith, inputs[1])
            } else if matches!(arith, Arith::Add) && inputs[1] == out {
                (arith, inputs[0])
            } else {
                return None;
            }
        }
        "aten::mul" if inputs.len() == 2 => {
            let other = if inputs[0] == out {
                inputs[1]
            } else {
                inputs[0]
            };
            (Arith::Mul, other)
        }
        "aten::div" if inputs.len() == 2 && inputs[0] == out => (Arith::Div, inputs[1]),
        _ => return None,
    };
    Some((arith, constant_tensor(g, other)?))
}

fn fold(g: &mut Graph, conv: Node, arith: Arith, other: &Tensor) -> bool {
    let Some(weight) = constant_tensor(g, g.input(conv, 1)) else {
        return false;
    };
    if other.dtype() != weight.dtype() {
        return false;
    }
    let out = weight.sizes()[0] as usize;
    let Some(per_channel) = per_channel(other, out, weight.dim()) else {
        return false;
    };
    let Some(bias) = bias_values(g, g.input(conv, 2), out) else {
        return false;
    };
    let (new_weight, new_bias) = match arith {
        Arith::Add => (None, (0..out).map(|c| bias[c] + per_channel[c]).collect()),
        Arith::Sub => (None, (0..out).map(|c| bias[c] - per_channel[c]).collect()),
        Arith::Mul | Arith::Div => {
            let scale: Vec<f64> = per_channel
                .iter()
                .map(|&v| {
                    if matches!(arith, Arith::Mul) {
                        v
                    } else {
                        1.0 / v
                    }
                })
                .collect();
            let Some(w) = scale_rows(&weight, &scale) else {
                return false;
            };
            (
                Some(w),
                (0..out).map(|c| bias[c] * scale[c]).collect::<Vec<f64>>(),
            )
        }
    };
    let Some(b) = tensor_of(new_bias, &[out as i64], weight.dtype()) else {
        return false;
    };
    if let Some(w) = new_weight {
        set_constant_input(g, conv, 1, &w);
    }
    set_constant_input(g, conv, 2, &b);
    true
}

/// The constant's value for each of `out` channels, when it is one value or `[out]` followed
/// by ones, with no more dimensions than the weight's (which is the input's, unbatched).
fn per_channel(t: &Tensor, out: usize, weight_dim: usize) -> Option<Vec<f64>> {
    let values = float_values(t)?;
    if values.len() == 1 {
        return Some(vec![values[0]; out]);
    }
    let sizes = t.sizes();
    let channel_first = sizes.first().is_some_and(|&c| c as usize == out)
        && sizes[1..].iter().all(|&s| s == 1)
        && sizes.len() < weight_dim;
    channel_first.then_some(values)
}
