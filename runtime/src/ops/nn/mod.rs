//! Neural-network operators: convolution, pooling, normalization and embedding.

pub mod conv;
pub mod work;

use ember_dialects::{Graph, Node};

use self::conv::{conv_functional, convolution, string_padding, ConvParams};
use super::linalg::args::{boolean, err, int, int_list, op_n, opt_tensor, tensor};
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
