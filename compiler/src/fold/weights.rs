//! Constant weights of frozen graphs, for the inference rewrites that fold other ops into a
//! convolution's or a linear layer's weight and bias: reading a constant tensor, and making
//! the new weight (each output channel scaled) and bias in the weight's dtype. The arithmetic
//! is done in f64 and rounded once.

use ember_dialects::attr::AttrValue;
use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Type, Value, ValueDef};
use ember_runtime::tensor::{DType, Tensor};
use rayon::prelude::*;

use super::tensor::insert_tensor_constant;

/// The tensor a `prim::Constant` holds (a frozen weight), if `v` is one.
pub fn constant_tensor(g: &Graph, v: Value) -> Option<Tensor> {
    let ValueDef::Output(n, _) = g.value_def(v) else {
        return None;
    };
    if g.kind(n) != sym::constant() {
        return None;
    }
    match g.attr(n, sym::attr_value()) {
        Some(attr @ AttrValue::Tensor(_)) => {
            match ember_runtime::ops::prim::attr_to_ivalue(attr, g.ty(v)).ok()? {
                ember_runtime::ivalue::IValue::Tensor(t) => Some(t),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Whether `v` is the constant None.
pub fn is_none(g: &Graph, v: Value) -> bool {
    matches!(g.ty(v), Type::None)
        || matches!(
            super::constant_value(g, v),
            Some(ember_dialects::attr::ConstValue::None)
        )
}

/// A constant tensor's values as f64, when its dtype is a float one the folds handle.
pub fn float_values(t: &Tensor) -> Option<Vec<f64>> {
    matches!(t.dtype(), DType::F32 | DType::F64).then(|| t.to_vec::<f64>())
}

/// `values` (f64) as a tensor of `dtype` and `sizes`.
pub fn tensor_of(values: Vec<f64>, sizes: &[i64], dtype: DType) -> Option<Tensor> {
    match dtype {
        DType::F32 => Tensor::from_vec(values.into_iter().map(|v| v as f32).collect(), sizes).ok(),
        DType::F64 => Tensor::from_vec(values, sizes).ok(),
        _ => None,
    }
}

/// A weight `[out, ...]` with each output channel's values multiplied by `scale[out]` (in the
/// weight's own precision for float32, as PyTorch folds them).
pub fn scale_rows(weight: &Tensor, scale: &[f64]) -> Option<Tensor> {
    let rows = usize::try_from(*weight.sizes().first()?).ok()?;
    let numel = weight.numel();
    if rows != scale.len() || rows == 0 || !numel.is_multiple_of(rows) {
        return None;
    }
    let per_row = numel / rows;
    match weight.dtype() {
        DType::F32 => {
            let w = weight.contiguous().ok()?;
            let out = Tensor::zeros(&weight.sizes(), DType::F32).ok()?;
            // SAFETY: both are contiguous float32 tensors of `numel` elements; `out` is fresh.
            let (src, dst) = unsafe {
                (
                    std::slice::from_raw_parts(w.data_ptr() as *const f32, numel),
                    std::slice::from_raw_parts_mut(out.data_ptr() as *mut f32, numel),
                )
            };
            // Rows in parallel: a network's weights are tens of megabytes, and freezing is on
            // the path to the first call.
            dst.par_chunks_mut(per_row)
                .zip(src.par_chunks(per_row))
                .zip(scale.par_iter())
                .for_each(|((d_row, s_row), &k)| {
                    for (d, &x) in d_row.iter_mut().zip(s_row) {
                        *d = (f64::from(x) * k) as f32;
                    }
                });
            Some(out)
        }
        DType::F64 => {
            let w = weight.to_vec::<f64>();
            let scaled: Vec<f64> = w
                .chunks(per_row)
                .zip(scale)
                .flat_map(|(row, s)| row.iter().map(move |x| x * s))
                .collect();
            Tensor::from_vec(scaled, &weight.sizes()).ok()
        }
        _ => None,
    }
}

/// The bias values of a layer with `out` channels: the constant's, or zeros for None.
pub fn bias_values(g: &Graph, bias: Value, out: usize) -> Option<Vec<f64>> {
    if is_none(g, bias) {
        return Some(vec![0.0; out]);
    }
    let b = float_values(&constant_tensor(g, bias)?)?;
    (b.len() == out).then_some(b)
}

/// Replaces input `index` of `node` with a new constant holding `t` (inserted before it).
pub fn set_constant_input(g: &mut Graph, node: ember_dialects::Node, index: usize, t: &Tensor) {
    let c = insert_tensor_constant(g, node, t);
    g.replace_input(node, index, c);
}

/// Folds inference batch norm `bn` into `layer` (a convolution or linear layer whose output
/// only `bn` reads; input 1 its constant weight, input 2 its bias): with
/// `s = gamma / sqrt(running_var + eps)`, `W'[c] = W[c] * s[c]` and
/// `b'[c] = (b[c] - running_mean[c]) * s[c] + beta[c]`. `false` (the graph untouched) when a
/// statistic or parameter is not a constant of the layer's output width.
pub fn fold_batch_norm_into(
    g: &mut Graph,
    layer: ember_dialects::Node,
    bn: ember_dialects::Node,
) -> bool {
    let bn_in = g.node_inputs(bn).to_vec();
    let Some(weight) = constant_tensor(g, g.input(layer, 1)) else {
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
    let (Some(gamma), Some(beta), Some(bias)) = (
        gamma,
        bias_values(g, bn_in[2], out),
        bias_values(g, g.input(layer, 2), out),
    ) else {
        return false;
    };
    let Some(ember_dialects::attr::ConstValue::Float(eps)) =
        crate::fold::constant_value(g, bn_in[7])
    else {
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
    set_constant_input(g, layer, 1, &w);
    set_constant_input(g, layer, 2, &b);
    let (bn_out, layer_out) = (g.output(bn, 0), g.output(layer, 0));
    g.replace_all_uses_with(bn_out, layer_out);
    g.destroy(bn);
    true
}
