//! Neural-network operators: convolution, pooling, normalization and embedding.

pub mod conv;
pub mod pool;
pub mod work;

use ember_dialects::{Graph, Node};

use self::conv::{conv_functional, convolution, string_padding, ConvParams};
use self::pool::{AvgOptions, Pool2d};
use super::linalg::args::{
    boolean, err, int, int_list, op_multi, op_n, opt_int, opt_tensor, tensor,
};
use super::registry::Registry;
use super::Operation;
use crate::ivalue::IValue;

pub fn register(r: &mut Registry) {
    r.add("aten::conv1d", |g, n| conv_op(g, n, "conv1d", 3));
    r.add("aten::conv2d", |g, n| conv_op(g, n, "conv2d", 4));
    r.add("aten::conv_transpose1d", |g, n| {
        conv_transpose_op(g, n, "conv_transpose1d", 3)
    });
    r.add("aten::conv_transpose2d", |g, n| {
        conv_transpose_op(g, n, "conv_transpose2d", 4)
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
}

fn inputs(g: &Graph, n: Node) -> usize {
    g.node_inputs(n).len()
}

/// `conv{1,2}d(input, weight, bias, stride, padding, dilation, groups)`; padding may be a
/// string (`"same"`, `"valid"`).
fn conv_op(g: &Graph, n: Node, name: &'static str, rank: usize) -> Result<Operation, String> {
    Ok(op_n(inputs(g, n), move |a| {
        let input = tensor(&a[0])?;
        let weight = tensor(&a[1])?;
        let bias = opt_tensor(&a[2])?;
        let mut p = ConvParams::new(int_list(&a[3])?, vec![0], int_list(&a[5])?, int(&a[6])?);
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
