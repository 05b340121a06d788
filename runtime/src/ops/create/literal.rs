//! Tensors from Python values: `torch.tensor` (numbers and nested lists, PyTorch's dtype
//! inference), `scalar_tensor`, `as_tensor`.

use std::sync::Arc;

use ember_dialects::types::Type;
use ember_dialects::{Graph, Node};

use super::factory::check_options;
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::ops::shape::call::{
    check_device, dtype_of, kernels, scalar_of, tensor_value, Call, Kernel, Scalar,
};
use crate::ops::shape::elements::cast_copy;
use crate::ops::Operation;
use crate::tensor::{elementwise::DEFAULT_FLOAT, DType, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    r.add("aten::tensor", tensor_builder);
    r.add_if("aten::as_tensor", data_is_not_tensor, tensor_builder);
    kernels!(r, "aten::as_tensor", |o| (o.is_empty())
        .then_some(as_tensor as Kernel));
    kernels!(r, "aten::scalar_tensor", |_| Some(scalar_tensor as Kernel));
}

fn data_is_not_tensor(g: &Graph, n: Node) -> bool {
    g.node_inputs(n)
        .first()
        .is_some_and(|&v| !g.ty(v).is_tensor())
}

/// The dtype the static element type of `data` gives (`List[List[int]]` -> int64), if the
/// graph says.
fn static_dtype(ty: &Type) -> Option<DType> {
    match ty {
        Type::List(e) => static_dtype(e),
        Type::Int => Some(DType::I64),
        Type::Float => Some(DEFAULT_FLOAT),
        Type::Bool => Some(DType::Bool),
        _ => None,
    }
}

/// `aten::tensor(data, dtype, device, requires_grad)` / `aten::as_tensor(data, dtype, device)`
/// for numbers and (nested) lists.
fn tensor_builder(g: &Graph, n: Node) -> Result<Operation, String> {
    let inputs = g.node_inputs(n).len();
    let fallback = g
        .node_inputs(n)
        .first()
        .and_then(|&v| static_dtype(g.ty(v)));
    Ok(Arc::new(move |s: &mut Vec<IValue>| {
        let at = s.len().checked_sub(inputs).ok_or("stack underflow")?;
        let args: Vec<IValue> = s.split_off(at);
        let dtype = dtype_of(args.get(1).unwrap_or(&IValue::None)).map_err(|e| e.message)?;
        check_device(args.get(2).unwrap_or(&IValue::None)).map_err(|e| e.message)?;
        let t = tensor_from_data(&args[0], dtype, fallback).map_err(|e| e.message)?;
        s.push(IValue::Tensor(t));
        Ok(())
    }))
}

/// The shape of nested lists, checking that they are rectangular.
fn shape_of(v: &IValue, dim: usize, shape: &mut Vec<i64>) -> TensorResult<()> {
    if let IValue::List(l) = v {
        let items = l.to_vec();
        if shape.len() == dim {
            shape.push(items.len() as i64);
        } else if shape[dim] != items.len() as i64 {
            bail!(
                "Expected sequence of length {} at dim {dim} (got {})",
                shape[dim],
                items.len()
            );
        }
        for item in &items {
            shape_of(item, dim + 1, shape)?;
        }
    } else if shape.len() > dim {
        bail!(
            "Expected sequence of length {} at dim {dim} (got a number)",
            shape[dim]
        );
    }
    Ok(())
}

fn leaves(v: &IValue, out: &mut Vec<Scalar>) -> TensorResult<()> {
    match v {
        IValue::List(l) => {
            for item in l.to_vec() {
                leaves(&item, out)?;
            }
        }
        IValue::Tensor(t) => {
            if t.dim() != 0 {
                bail!("only one element tensors can be converted to Python scalars");
            }
            out.push(crate::ops::shape::query::item_scalar(t)?);
        }
        other => match scalar_of(other) {
            Some(s) => out.push(s),
            None => bail!("Could not infer dtype of {}", other.kind_name()),
        },
    }
    Ok(())
}

/// A tensor holding `data` (a number or nested lists of numbers).
pub fn tensor_from_data(
    data: &IValue,
    dtype: Option<DType>,
    fallback: Option<DType>,
) -> TensorResult<Tensor> {
    let mut shape = Vec::new();
    shape_of(data, 0, &mut shape)?;
    let mut values = Vec::new();
    leaves(data, &mut values)?;
    let inferred = if values.iter().any(|v| v.is_float()) {
        DEFAULT_FLOAT
    } else if !values.is_empty() && values.iter().all(|v| matches!(v, Scalar::Bool(_))) {
        DType::Bool
    } else if values.is_empty() {
        fallback.unwrap_or(DEFAULT_FLOAT)
    } else {
        DType::I64
    };
    let dtype = dtype.unwrap_or(inferred);
    let t = Tensor::zeros(&shape, dtype)?;
    crate::dispatch_dtype!(dtype, T => {
        let p = t.data_ptr() as *mut T;
        for (i, v) in values.iter().enumerate() {
            // SAFETY: `t` holds one element per leaf (its shape was taken from the lists).
            unsafe { *p.add(i) = v.to_element::<T>() };
        }
    });
    Ok(t)
}

/// `as_tensor(t, dtype, device)`: `t` itself unless a conversion is needed.
fn as_tensor(c: &Call) -> TensorResult<IValue> {
    c.check_device()?;
    let t = c.tensor("data")?;
    match c.opt_dtype("dtype")? {
        Some(d) if d != t.dtype() => Ok(tensor_value(cast_copy(&t, d)?)),
        _ => Ok(tensor_value(t)),
    }
}

/// `scalar_tensor(s)`: a 0-dim tensor of the default float dtype unless `dtype=` says.
fn scalar_tensor(c: &Call) -> TensorResult<IValue> {
    check_options(c)?;
    let s = c.scalar("s")?;
    let dtype = super::factory::dtype_or(c, DEFAULT_FLOAT)?;
    let t = Tensor::zeros(&[], dtype)?;
    crate::dispatch_dtype!(dtype, T => {
        // SAFETY: one element.
        unsafe { *(t.data_ptr() as *mut T) = s.to_element::<T>() };
    });
    Ok(tensor_value(t))
}
