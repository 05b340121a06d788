//! Linear algebra operators: matrix products (mm, bmm, addmm, addmv, mv, dot, outer,
//! baddbmm, linear, matmul) and einsum, all on one GEMM kernel.

pub mod einsum;
pub mod gemm;
pub mod matmul;
pub mod products;
pub mod sgemm;

use ember_dialects::{Graph, Node};

use super::args::{err, number, op_n, opt_tensor, sizes_str, tensor, tensor_list, write_out};
use super::registry::Registry;
use super::Operation;
use crate::ivalue::IValue;
use crate::tensor::{Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    r.add("aten::mm", |g, n| binary(g, n, products::mm));
    r.add("aten::bmm", |g, n| binary(g, n, products::bmm));
    r.add("aten::mv", |g, n| binary(g, n, products::mv));
    r.add("aten::dot", |g, n| product(g, n, products::dot, true));
    r.add("aten::vdot", |g, n| product(g, n, products::dot, true));
    r.add("aten::outer", |g, n| binary(g, n, products::outer));
    r.add("aten::ger", |g, n| binary(g, n, products::outer));
    r.add("aten::matmul", |g, n| binary(g, n, matmul::matmul));
    r.add("aten::addmm", |g, n| scaled(g, n, products::addmm, false));
    r.add("aten::addmm_", |g, n| scaled(g, n, products::addmm, true));
    r.add("aten::addmv", |g, n| scaled(g, n, products::addmv, false));
    r.add("aten::addmv_", |g, n| scaled(g, n, products::addmv, true));
    r.add("aten::baddbmm", |g, n| {
        scaled(g, n, products::baddbmm, false)
    });
    r.add("aten::baddbmm_", |g, n| {
        scaled(g, n, products::baddbmm, true)
    });
    r.add("aten::linear", linear);
    r.add("aten::einsum", einsum);
}

fn inputs(g: &Graph, n: Node) -> usize {
    g.node_inputs(n).len()
}

/// `op(a, b)`, or its `.out` form with the out tensor as a third input.
fn binary(
    g: &Graph,
    n: Node,
    f: fn(&Tensor, &Tensor) -> TensorResult<Tensor>,
) -> Result<Operation, String> {
    product(g, n, f, false)
}

/// `binary`; with `is_dot` the `out=` dtype is checked with `dot`'s own message.
fn product(
    g: &Graph,
    n: Node,
    f: fn(&Tensor, &Tensor) -> TensorResult<Tensor>,
    is_dot: bool,
) -> Result<Operation, String> {
    let count = inputs(g, n);
    Ok(op_n(count, move |a| {
        let r = f(&tensor(&a[0])?, &tensor(&a[1])?).map_err(err)?;
        if let (true, Some(o)) = (is_dot, a.get(2)) {
            let o = tensor(o)?;
            if o.dtype() != r.dtype() {
                return Err(format!(
                    "result dtype {} does not match input dtype {}",
                    o.dtype().scalar_type_name(),
                    r.dtype().scalar_type_name()
                ));
            }
        }
        finish(r, a.get(2))
    }))
}

/// `op(self, x, y, beta, alpha)`, its `.out` form, or the in-place form writing `self`.
fn scaled(
    g: &Graph,
    n: Node,
    f: fn(&Tensor, &Tensor, &Tensor, f64, f64) -> TensorResult<Tensor>,
    in_place: bool,
) -> Result<Operation, String> {
    let count = inputs(g, n);
    Ok(op_n(count, move |a| {
        let input = tensor(&a[0])?;
        let beta = a.get(3).map_or(Ok(1.0), number)?;
        let alpha = a.get(4).map_or(Ok(1.0), number)?;
        let r = f(&input, &tensor(&a[1])?, &tensor(&a[2])?, beta, alpha).map_err(err)?;
        if in_place {
            if input.sizes() != r.sizes() {
                return Err(format!(
                    "Bad in-place call: input tensor size {} and output tensor size {} should match",
                    sizes_str(&input.sizes()),
                    sizes_str(&r.sizes())
                ));
            }
            input.copy_from(&r).map_err(err)?;
            return Ok(IValue::Tensor(input));
        }
        finish(r, a.get(5))
    }))
}

/// Pushes the result, or writes it into the `out=` tensor and returns that.
fn finish(r: Tensor, out: Option<&IValue>) -> Result<IValue, String> {
    match out {
        Some(o) => {
            let o = tensor(o)?;
            write_out(&o, &r)?;
            Ok(IValue::Tensor(o))
        }
        None => Ok(IValue::Tensor(r)),
    }
}

fn linear(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = inputs(g, n);
    // Constant weights (frozen graphs) are packed once for this node.
    let cache = is_constant(g, n, 1).then(sgemm::PackCache::default);
    Ok(op_n(count, move |a| {
        let bias = match a.get(2) {
            Some(b) => opt_tensor(b)?,
            None => None,
        };
        let (x, w) = (tensor(&a[0])?, tensor(&a[1])?);
        let r = products::linear_with(&x, &w, bias.as_ref(), cache.as_ref()).map_err(err)?;
        finish(r, a.get(3))
    }))
}

/// Whether input `i` of node `n` is a graph constant.
pub(crate) fn is_constant(g: &Graph, n: Node, i: usize) -> bool {
    g.node_inputs(n)
        .get(i)
        .is_some_and(|&v| match g.value_def(v) {
            ember_dialects::ValueDef::Output(def, _) => g.kind(def).as_str() == "prim::Constant",
            _ => false,
        })
}

fn einsum(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = inputs(g, n);
    Ok(op_n(count, move |a| {
        let eq = a[0]
            .as_str()
            .ok_or_else(|| "einsum(): the equation must be a string".to_string())?;
        let ops = tensor_list(&a[1])?;
        Ok(IValue::Tensor(einsum::einsum(eq, &ops).map_err(err)?))
    }))
}

#[cfg(test)]
mod tests;
