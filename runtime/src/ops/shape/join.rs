//! Joining tensors: cat (concat, concatenate), stack, hstack, vstack, dstack, column_stack.

use super::call::{kernels, tensor_value, Call, Kernel};
use super::elements::sizes_str;
use super::views::{atleast_1d_tensor, atleast_2d_tensor};
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::tensor::{promote_types, wrap_dim, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    for kind in ["aten::cat", "aten::concat", "aten::concatenate"] {
        kernels!(r, kind, |o| matches!(o, "" | "out")
            .then_some(cat as Kernel));
    }
    kernels!(r, "aten::stack", |o| matches!(o, "" | "out")
        .then_some(stack as Kernel));
    kernels!(r, "aten::hstack", |o| matches!(o, "" | "out")
        .then_some(hstack as Kernel));
    kernels!(r, "aten::vstack", |o| matches!(o, "" | "out")
        .then_some(vstack as Kernel));
    kernels!(r, "aten::dstack", |o| matches!(o, "" | "out")
        .then_some(dstack as Kernel));
    kernels!(r, "aten::column_stack", |o| matches!(o, "" | "out")
        .then_some(column_stack as Kernel));
}

/// `torch.cat(tensors, dim)` with PyTorch's checks: 1-dim empty tensors are skipped (legacy
/// behaviour), the result dtype is the promotion of all inputs.
pub fn cat_tensors(tensors: &[Tensor], dim: i64) -> TensorResult<Tensor> {
    if tensors.is_empty() {
        bail!("torch.cat(): expected a non-empty list of Tensors");
    }
    for (i, t) in tensors.iter().enumerate() {
        if t.dim() == 0 {
            bail!("zero-dimensional tensor (at position {i}) cannot be concatenated");
        }
    }
    let dtype = tensors
        .iter()
        .map(|t| t.dtype())
        .reduce(promote_types)
        .unwrap_or(crate::tensor::DType::F32);
    let skip = |t: &Tensor| t.dim() == 1 && t.sizes()[0] == 0;
    let Some(reference) = tensors.iter().position(|t| !skip(t)) else {
        return Tensor::zeros(&[0], dtype);
    };
    let ref_sizes = tensors[reference].sizes();
    let d = wrap_dim(dim, ref_sizes.len())?;
    let mut total: i64 = 0;
    for (i, t) in tensors.iter().enumerate() {
        if skip(t) {
            continue;
        }
        let s = t.sizes();
        if s.len() != ref_sizes.len() {
            bail!(
                "Tensors must have same number of dimensions: got {} and {}",
                ref_sizes.len(),
                s.len()
            );
        }
        for k in 0..s.len() {
            if k != d && s[k] != ref_sizes[k] {
                bail!(
                    "Sizes of tensors must match except in dimension {d}. Expected size {} but got size {} for tensor number {i} in the list.",
                    ref_sizes[k],
                    s[k]
                );
            }
        }
        total = total
            .checked_add(s[d])
            .ok_or_else(|| crate::tensor::TensorError::new("cat: result is too large"))?;
    }
    let mut out_sizes = ref_sizes.to_vec();
    out_sizes[d] = total;
    let out = Tensor::zeros(&out_sizes, dtype)?;
    let mut at = 0;
    for t in tensors.iter().filter(|t| !skip(t)) {
        let len = t.sizes()[d];
        if len > 0 {
            out.narrow(d as i64, at, len)?.copy_from(t)?;
        }
        at += len;
    }
    Ok(out)
}

fn cat(c: &Call) -> TensorResult<IValue> {
    Ok(tensor_value(cat_tensors(
        &c.tensors("tensors")?,
        c.int("dim")?,
    )?))
}

pub fn stack_tensors(tensors: &[Tensor], dim: i64) -> TensorResult<Tensor> {
    if tensors.is_empty() {
        bail!("stack expects a non-empty TensorList");
    }
    let first = tensors[0].sizes();
    for (i, t) in tensors.iter().enumerate().skip(1) {
        if t.sizes() != first {
            bail!(
                "stack expects each tensor to be equal size, but got {} at entry 0 and {} at entry {i}",
                sizes_str(&first),
                sizes_str(&t.sizes())
            );
        }
    }
    let d = wrap_dim(dim, first.len() + 1)? as i64;
    let parts = tensors
        .iter()
        .map(|t| t.unsqueeze(d))
        .collect::<TensorResult<Vec<_>>>()?;
    cat_tensors(&parts, d)
}

fn stack(c: &Call) -> TensorResult<IValue> {
    Ok(tensor_value(stack_tensors(
        &c.tensors("tensors")?,
        c.int("dim")?,
    )?))
}

fn hstack(c: &Call) -> TensorResult<IValue> {
    let ts = c.tensors("tensors")?;
    if ts.is_empty() {
        bail!("hstack expects a non-empty TensorList");
    }
    let ts = ts
        .iter()
        .map(atleast_1d_tensor)
        .collect::<TensorResult<Vec<_>>>()?;
    let dim = if ts[0].dim() == 1 { 0 } else { 1 };
    Ok(tensor_value(cat_tensors(&ts, dim)?))
}

fn vstack(c: &Call) -> TensorResult<IValue> {
    let ts = c.tensors("tensors")?;
    if ts.is_empty() {
        bail!("vstack expects a non-empty TensorList");
    }
    let ts = ts
        .iter()
        .map(atleast_2d_tensor)
        .collect::<TensorResult<Vec<_>>>()?;
    Ok(tensor_value(cat_tensors(&ts, 0)?))
}

fn dstack(c: &Call) -> TensorResult<IValue> {
    let ts = c.tensors("tensors")?;
    if ts.is_empty() {
        bail!("dstack expects a non-empty TensorList");
    }
    let ts = ts
        .iter()
        .map(|t| match t.dim() {
            0 => t.reshape(&[1, 1, 1]),
            1 => t.reshape(&[1, -1, 1]),
            2 => t.unsqueeze(-1),
            _ => Ok(t.clone()),
        })
        .collect::<TensorResult<Vec<_>>>()?;
    Ok(tensor_value(cat_tensors(&ts, 2)?))
}

fn column_stack(c: &Call) -> TensorResult<IValue> {
    let ts = c.tensors("tensors")?;
    if ts.is_empty() {
        bail!("column_stack expects a non-empty TensorList");
    }
    let ts = ts
        .iter()
        .map(|t| {
            if t.dim() <= 1 {
                t.reshape(&[t.numel() as i64, 1])
            } else {
                Ok(t.clone())
            }
        })
        .collect::<TensorResult<Vec<_>>>()?;
    Ok(tensor_value(cat_tensors(&ts, 1)?))
}
