//! Neural-network operators: convolution, pooling, normalization and embedding.

pub mod conv;
pub mod conv3d;
#[cfg(target_arch = "x86_64")]
mod conv_direct;
mod depthwise;
#[cfg(target_arch = "x86_64")]
mod depthwise_lanes;
pub mod embedding;
pub mod epilogue;
pub mod fold;
mod fused;
pub mod glu;
pub mod grid_sample;
mod grid_simd;
pub mod loss;
pub mod norm;
pub mod pixel_shuffle;
pub mod pool;
pub mod pool3d;
mod pool_fast;
pub mod upsample;
pub mod winograd;
pub mod work;

use ember_dialects::{Graph, Node};

use self::conv::{conv_functional, convolution, string_padding, ConvParams};
use self::norm::BatchNorm;
use self::pool::{AvgOptions, Pool2d};
use super::args::{
    boolean, err, int, int_list, number, op_multi, op_n, opt_int, opt_tensor, tensor,
};
use super::registry::Registry;
use super::Operation;
use crate::ivalue::IValue;

pub fn register(r: &mut Registry) {
    fused::register(r);
    r.add("aten::conv1d", |g, n| conv_op(g, n, "conv1d", 3));
    r.add("aten::conv2d", |g, n| conv_op(g, n, "conv2d", 4));
    r.add("aten::conv3d", |g, n| conv_op(g, n, "conv3d", 5));
    r.add("aten::conv_transpose1d", |g, n| {
        conv_transpose_op(g, n, "conv_transpose1d", 3)
    });
    r.add("aten::conv_transpose2d", |g, n| {
        conv_transpose_op(g, n, "conv_transpose2d", 4)
    });
    r.add("aten::conv_transpose3d", |g, n| {
        conv_transpose_op(g, n, "conv_transpose3d", 5)
    });
    r.add("aten::_convolution", convolution_op);
    r.add("aten::convolution", convolution_op);
    r.add("aten::max_pool2d", |g, n| max_pool2d_op(g, n, false));
    r.add("aten::max_pool2d_with_indices", |g, n| {
        max_pool2d_op(g, n, true)
    });
    r.add("aten::avg_pool2d", avg_pool2d_op);
    r.add("aten::adaptive_avg_pool2d", adaptive_avg_pool2d_op);
    r.add("aten::_adaptive_avg_pool2d", adaptive_avg_pool2d_op);
    r.add("aten::adaptive_max_pool2d", adaptive_max_pool2d_op);
    r.add("aten::max_pool1d", |g, n| max_pool1d_op(g, n, false));
    r.add("aten::max_pool1d_with_indices", |g, n| {
        max_pool1d_op(g, n, true)
    });
    r.add("aten::avg_pool1d", avg_pool1d_op);
    r.add("aten::adaptive_avg_pool1d", |g, n| {
        adaptive_1d_op(g, n, "adaptive_avg_pool1d")
    });
    r.add("aten::adaptive_max_pool1d", |g, n| {
        adaptive_1d_op(g, n, "adaptive_max_pool1d")
    });
    r.add("aten::batch_norm", |g, n| {
        batch_norm_op(g, n, BnForm::Functional)
    });
    r.add("aten::native_batch_norm", |g, n| {
        batch_norm_op(g, n, BnForm::Native)
    });
    r.add("aten::_native_batch_norm_legit", |g, n| {
        let form = if inputs(g, n) == 6 {
            BnForm::LegitNoStats
        } else {
            BnForm::Native
        };
        batch_norm_op(g, n, form)
    });
    r.add("aten::_native_batch_norm_legit_no_training", |g, n| {
        batch_norm_op(g, n, BnForm::NoTraining)
    });
    r.add("aten::instance_norm", instance_norm_op);
    r.add("aten::layer_norm", |g, n| layer_norm_op(g, n, false));
    r.add("aten::native_layer_norm", |g, n| layer_norm_op(g, n, true));
    r.add("aten::group_norm", group_norm_op);
    r.add("aten::native_group_norm", native_group_norm_op);
    r.add("aten::embedding", embedding_op);
    pool3d::register(r);
    glu::register(r);
    pixel_shuffle::register(r);
    fold::register(r);
    grid_sample::register(r);
    loss::register(r);
    upsample::register(r);
}

fn inputs(g: &Graph, n: Node) -> usize {
    g.node_inputs(n).len()
}

/// A cache of transformed weights for convolution node `n`, where its weights are a graph
/// constant.
pub(crate) fn weight_cache(g: &Graph, n: Node) -> Option<std::sync::Arc<winograd::WeightCache>> {
    crate::ops::linalg::is_constant(g, n, 1).then(Default::default)
}

/// `conv{1,2}d(input, weight, bias, stride, padding, dilation, groups)`; padding may be a
/// string (`"same"`, `"valid"`).
fn conv_op(g: &Graph, n: Node, name: &'static str, rank: usize) -> Result<Operation, String> {
    let cache = weight_cache(g, n);
    Ok(op_n(inputs(g, n), move |a| {
        let input = tensor(&a[0])?;
        let weight = tensor(&a[1])?;
        let bias = opt_tensor(&a[2])?;
        let mut p = ConvParams::new(int_list(&a[3])?, vec![0], int_list(&a[5])?, int(&a[6])?);
        p.weights = cache.clone();
        match &a[4] {
            IValue::Str(s) => string_padding(s, &weight, &mut p).map_err(err)?,
            other => p.padding = int_list(other)?,
        }
        let r = conv_functional(name, &input, &weight, bias.as_ref(), &p, rank).map_err(err)?;
        Ok(IValue::Tensor(r))
    }))
}

/// `conv_transpose{1,2}d(input, weight, bias, stride, padding, output_padding, groups,
/// dilation)`.
fn conv_transpose_op(
    g: &Graph,
    n: Node,
    name: &'static str,
    rank: usize,
) -> Result<Operation, String> {
    Ok(op_n(inputs(g, n), move |a| {
        let input = tensor(&a[0])?;
        let weight = tensor(&a[1])?;
        let bias = opt_tensor(&a[2])?;
        let mut p = ConvParams::new(
            int_list(&a[3])?,
            int_list(&a[4])?,
            int_list(&a[7])?,
            int(&a[6])?,
        );
        p.transposed = true;
        p.output_padding = int_list(&a[5])?;
        let r = conv_functional(name, &input, &weight, bias.as_ref(), &p, rank).map_err(err)?;
        Ok(IValue::Tensor(r))
    }))
}

/// `aten::convolution(input, weight, bias, stride, padding, dilation, transposed,
/// output_padding, groups)` and `aten::_convolution` (the same plus backend flags).
fn convolution_op(g: &Graph, n: Node) -> Result<Operation, String> {
    let cache = weight_cache(g, n);
    Ok(op_n(inputs(g, n), move |a| {
        let input = tensor(&a[0])?;
        let weight = tensor(&a[1])?;
        let bias = opt_tensor(&a[2])?;
        let mut p = ConvParams::new(
            int_list(&a[3])?,
            int_list(&a[4])?,
            int_list(&a[5])?,
            int(&a[8])?,
        );
        p.transposed = boolean(&a[6])?;
        p.output_padding = int_list(&a[7])?;
        p.weights = cache.clone();
        let r = convolution(&input, &weight, bias.as_ref(), &p).map_err(err)?;
        Ok(IValue::Tensor(r))
    }))
}

/// `max_pool2d(self, kernel_size, stride, padding, dilation, ceil_mode)`; the
/// `_with_indices` form also returns the indices.
fn max_pool2d_op(g: &Graph, n: Node, indices: bool) -> Result<Operation, String> {
    Ok(op_multi(inputs(g, n), move |a| {
        let x = tensor(&a[0])?;
        let (k, s, p, d) = (
            int_list(&a[1])?,
            int_list(&a[2])?,
            int_list(&a[3])?,
            int_list(&a[4])?,
        );
        let pool = Pool2d {
            name: "max_pool2d",
            kernel: &k,
            stride: &s,
            padding: &p,
            dilation: &d,
            ceil_mode: boolean(&a[5])?,
        };
        if !indices {
            if let Some(v) = pool_fast::max_pool2d_f32(&x, &pool).map_err(err)? {
                return Ok(vec![IValue::Tensor(v)]);
            }
        }
        let (v, i) = pool::max_pool2d_with_indices(&x, &pool).map_err(err)?;
        let mut out = vec![IValue::Tensor(v)];
        if indices {
            out.push(IValue::Tensor(i));
        }
        Ok(out)
    }))
}

/// `avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
/// divisor_override)`.
fn avg_pool2d_op(g: &Graph, n: Node) -> Result<Operation, String> {
    Ok(op_n(inputs(g, n), move |a| {
        let x = tensor(&a[0])?;
        let (k, s, p) = (int_list(&a[1])?, int_list(&a[2])?, int_list(&a[3])?);
        let pool = Pool2d {
            name: "avg_pool2d",
            kernel: &k,
            stride: &s,
            padding: &p,
            dilation: &[1],
            ceil_mode: boolean(&a[4])?,
        };
        let opts = AvgOptions {
            count_include_pad: boolean(&a[5])?,
            divisor_override: opt_int(&a[6])?,
        };
        Ok(IValue::Tensor(
            pool::avg_pool2d(&x, &pool, &opts).map_err(err)?,
        ))
    }))
}

fn adaptive_avg_pool2d_op(g: &Graph, n: Node) -> Result<Operation, String> {
    Ok(op_n(inputs(g, n), move |a| {
        let r = pool::adaptive_avg_pool2d(&tensor(&a[0])?, &int_list(&a[1])?).map_err(err)?;
        Ok(IValue::Tensor(r))
    }))
}

fn adaptive_max_pool2d_op(g: &Graph, n: Node) -> Result<Operation, String> {
    Ok(op_multi(inputs(g, n), move |a| {
        let (v, i) = pool::adaptive_max_pool2d(&tensor(&a[0])?, &int_list(&a[1])?).map_err(err)?;
        Ok(vec![IValue::Tensor(v), IValue::Tensor(i)])
    }))
}

/// `max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode)` and its
/// `_with_indices` form.
fn max_pool1d_op(g: &Graph, n: Node, indices: bool) -> Result<Operation, String> {
    Ok(op_multi(inputs(g, n), move |a| {
        let (v, i) = pool::max_pool1d_with_indices(
            &tensor(&a[0])?,
            &int_list(&a[1])?,
            &int_list(&a[2])?,
            &int_list(&a[3])?,
            &int_list(&a[4])?,
            boolean(&a[5])?,
        )
        .map_err(err)?;
        let mut out = vec![IValue::Tensor(v)];
        if indices {
            out.push(IValue::Tensor(i));
        }
        Ok(out)
    }))
}

/// `avg_pool1d(self, kernel_size, stride, padding, ceil_mode, count_include_pad)`.
fn avg_pool1d_op(g: &Graph, n: Node) -> Result<Operation, String> {
    Ok(op_n(inputs(g, n), move |a| {
        let r = pool::avg_pool1d(
            &tensor(&a[0])?,
            &int_list(&a[1])?,
            &int_list(&a[2])?,
            &int_list(&a[3])?,
            boolean(&a[4])?,
            boolean(&a[5])?,
        )
        .map_err(err)?;
        Ok(IValue::Tensor(r))
    }))
}

fn adaptive_1d_op(g: &Graph, n: Node, name: &'static str) -> Result<Operation, String> {
    Ok(op_multi(inputs(g, n), move |a| {
        let (v, i) =
            pool::adaptive_pool1d(name, &tensor(&a[0])?, &int_list(&a[1])?).map_err(err)?;
        let mut out = vec![IValue::Tensor(v)];
        out.extend(i.map(IValue::Tensor));
        Ok(out)
    }))
}

/// The argument layouts of the batch-norm operators.
#[derive(Copy, Clone)]
enum BnForm {
    /// `batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
    /// cudnn_enabled) -> Tensor`
    Functional,
    /// `native_batch_norm(input, weight, bias, running_mean, running_var, training,
    /// momentum, eps) -> (Tensor, Tensor, Tensor)` (also `_native_batch_norm_legit`)
    Native,
    /// `_native_batch_norm_legit.no_stats(input, weight, bias, training, momentum, eps)`
    LegitNoStats,
    /// `_native_batch_norm_legit_no_training(input, weight, bias, running_mean,
    /// running_var, momentum, eps)`
    NoTraining,
}

fn batch_norm_op(g: &Graph, n: Node, form: BnForm) -> Result<Operation, String> {
    Ok(op_multi(inputs(g, n), move |a| {
        let x = tensor(&a[0])?;
        let (w, b) = (opt_tensor(&a[1])?, opt_tensor(&a[2])?);
        let (rm, rv, training, momentum, eps) = match form {
            BnForm::Functional | BnForm::Native => (
                opt_tensor(&a[3])?,
                opt_tensor(&a[4])?,
                boolean(&a[5])?,
                number(&a[6])?,
                number(&a[7])?,
            ),
            BnForm::LegitNoStats => (None, None, boolean(&a[3])?, number(&a[4])?, number(&a[5])?),
            BnForm::NoTraining => (
                opt_tensor(&a[3])?,
                opt_tensor(&a[4])?,
                false,
                number(&a[5])?,
                number(&a[6])?,
            ),
        };
        let p = BatchNorm {
            weight: w.as_ref(),
            bias: b.as_ref(),
            running_mean: rm.as_ref(),
            running_var: rv.as_ref(),
            training,
            momentum,
            eps,
        };
        let (y, mean, invstd) = norm::batch_norm(&x, &p).map_err(err)?;
        Ok(match form {
            BnForm::Functional => vec![IValue::Tensor(y)],
            _ => vec![
                IValue::Tensor(y),
                IValue::Tensor(mean),
                IValue::Tensor(invstd),
            ],
        })
    }))
}

/// `instance_norm(input, weight, bias, running_mean, running_var, use_input_stats,
/// momentum, eps, cudnn_enabled)`.
fn instance_norm_op(g: &Graph, n: Node) -> Result<Operation, String> {
    Ok(op_n(inputs(g, n), move |a| {
        let x = tensor(&a[0])?;
        let (w, b) = (opt_tensor(&a[1])?, opt_tensor(&a[2])?);
        let (rm, rv) = (opt_tensor(&a[3])?, opt_tensor(&a[4])?);
        let p = BatchNorm {
            weight: w.as_ref(),
            bias: b.as_ref(),
            running_mean: rm.as_ref(),
            running_var: rv.as_ref(),
            training: boolean(&a[5])?,
            momentum: number(&a[6])?,
            eps: number(&a[7])?,
        };
        Ok(IValue::Tensor(norm::instance_norm(&x, &p).map_err(err)?))
    }))
}

/// `layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable)`, or
/// `native_layer_norm(input, normalized_shape, weight, bias, eps)` with the statistics.
fn layer_norm_op(g: &Graph, n: Node, native: bool) -> Result<Operation, String> {
    Ok(op_multi(inputs(g, n), move |a| {
        let x = tensor(&a[0])?;
        let shape = int_list(&a[1])?;
        let (w, b) = (opt_tensor(&a[2])?, opt_tensor(&a[3])?);
        let eps = a.get(4).map_or(Ok(1e-5), number)?;
        let (y, mean, rstd) =
            norm::layer_norm(&x, &shape, w.as_ref(), b.as_ref(), eps).map_err(err)?;
        Ok(if native {
            vec![
                IValue::Tensor(y),
                IValue::Tensor(mean),
                IValue::Tensor(rstd),
            ]
        } else {
            vec![IValue::Tensor(y)]
        })
    }))
}

/// `group_norm(input, num_groups, weight, bias, eps, cudnn_enabled)`.
fn group_norm_op(g: &Graph, n: Node) -> Result<Operation, String> {
    Ok(op_n(inputs(g, n), move |a| {
        let x = tensor(&a[0])?;
        let (w, b) = (opt_tensor(&a[2])?, opt_tensor(&a[3])?);
        let eps = a.get(4).map_or(Ok(1e-5), number)?;
        let (y, _, _) =
            norm::group_norm(&x, int(&a[1])?, w.as_ref(), b.as_ref(), eps).map_err(err)?;
        Ok(IValue::Tensor(y))
    }))
}

/// `native_group_norm(input, weight, bias, N, C, HxW, group, eps)`.
fn native_group_norm_op(g: &Graph, n: Node) -> Result<Operation, String> {
    Ok(op_multi(inputs(g, n), move |a| {
        let x = tensor(&a[0])?;
        let (w, b) = (opt_tensor(&a[1])?, opt_tensor(&a[2])?);
        let (nn, c, hw) = (int(&a[3])?, int(&a[4])?, int(&a[5])?);
        let sizes = x.sizes();
        if x.numel() as i64 != nn * c * hw || sizes.len() < 2 || sizes[0] != nn || sizes[1] != c {
            return Err(format!(
                "Expected input of shape [{nn}, {c}, *] with {hw} elements per channel, but got input of shape {}",
                super::args::sizes_str(&sizes)
            ));
        }
        let (y, mean, rstd) =
            norm::group_norm(&x, int(&a[6])?, w.as_ref(), b.as_ref(), number(&a[7])?)
                .map_err(err)?;
        Ok(vec![
            IValue::Tensor(y),
            IValue::Tensor(mean),
            IValue::Tensor(rstd),
        ])
    }))
}

/// `embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse)`.
fn embedding_op(g: &Graph, n: Node) -> Result<Operation, String> {
    Ok(op_n(inputs(g, n), move |a| {
        let r = embedding::embedding(&tensor(&a[0])?, &tensor(&a[1])?).map_err(err)?;
        Ok(IValue::Tensor(r))
    }))
}

#[cfg(test)]
mod tests;
