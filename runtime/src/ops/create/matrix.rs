//! Structured tensors built from others or from sizes: diag, one_hot, tril_indices and
//! triu_indices.

use super::factory::{check_options, dtype_or};
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::ops::shape::call::{kernels, tensor_value, Call, Kernel};
use crate::tensor::{DType, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::diag", |o| matches!(o, "" | "out")
        .then_some(diag as Kernel));
    kernels!(r, "aten::one_hot", |_| Some(one_hot as Kernel));
    kernels!(r, "aten::diag_embed", |o| matches!(o, "" | "out")
        .then_some(diag_embed as Kernel));
    kernels!(r, "aten::tril_indices", |o| matches!(o, "" | "out")
        .then_some(tril_indices as Kernel));
    kernels!(r, "aten::triu_indices", |o| matches!(o, "" | "out")
        .then_some(triu_indices as Kernel));
}

/// `diag(v, k)`: a matrix with `v` on its k-th diagonal, or the k-th diagonal of a matrix.
fn diag(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let k = c.int("diagonal")?;
    match t.dim() {
        1 => {
            let n = t.sizes()[0];
            let side = n
                .checked_add(k.checked_abs().unwrap_or(i64::MAX))
                .ok_or_else(|| crate::tensor::TensorError::new("diag: size is too large"))?;
            let out = Tensor::zeros(&[side, side], t.dtype())?;
            if n > 0 {
                out.diagonal(k, 0, 1)?.copy_from(&t)?;
            }
            Ok(tensor_value(out))
        }
        2 => Ok(tensor_value(t.diagonal(k, 0, 1)?.clone_contiguous()?)),
        d => bail!("diag(): Supports 1D or 2D tensors. Got {d}D"),
    }
}

/// `diag_embed(t, offset, dim1, dim2)`: the last dim of `t` placed on the diagonals of new
/// matrices spanning `dim1` and `dim2`.
fn diag_embed(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let (offset, dim1, dim2) = (c.int("offset")?, c.int("dim1")?, c.int("dim2")?);
    let nd = t.dim() + 1;
    let (a, b) = (
        crate::tensor::wrap_dim(dim1, nd)?,
        crate::tensor::wrap_dim(dim2, nd)?,
    );
    if a == b {
        bail!("diagonal dimensions cannot be identical {dim1}, {dim2}");
    }
    let sizes = t.sizes();
    let last = sizes.last().copied().unwrap_or(1);
    let n = last
        .checked_add(offset.checked_abs().unwrap_or(i64::MAX))
        .ok_or_else(|| crate::tensor::TensorError::new("diag_embed: size is too large"))?;
    let mut rest: Vec<i64> = if sizes.is_empty() {
        Vec::new()
    } else {
        sizes[..sizes.len() - 1].to_vec()
    };
    let (lo, hi) = (a.min(b), a.max(b));
    rest.insert(lo.min(rest.len()), n);
    rest.insert(hi.min(rest.len()), n);
    let out = Tensor::zeros(&rest, t.dtype())?;
    if out.numel() > 0 {
        out.diagonal(offset, a as i64, b as i64)?.copy_from(&t)?;
    }
    Ok(tensor_value(out))
}

fn one_hot(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    if t.dtype() != DType::I64 {
        bail!("one_hot is only applicable to index tensor of type LongTensor.");
    }
    let values = t.to_vec::<i64>();
    let mut classes = c.int("num_classes")?;
    if classes == -1 {
        if values.is_empty() {
            bail!("Can not infer total number of classes from empty tensor.");
        }
        classes = values.iter().copied().max().unwrap_or(0).saturating_add(1);
    }
    if values.iter().any(|&v| v < 0) {
        bail!("Class values must be non-negative.");
    }
    if values.iter().any(|&v| v >= classes) {
        bail!("Class values must be smaller than num_classes.");
    }
    let mut shape = t.sizes().to_vec();
    shape.push(classes);
    let out = Tensor::zeros(&shape, DType::I64)?;
    let p = out.data_ptr() as *mut i64;
    for (i, &v) in values.iter().enumerate() {
        // SAFETY: row i of the contiguous [numel, classes] result, column v < classes.
        unsafe { *p.add(i * classes as usize + v as usize) = 1 };
    }
    Ok(tensor_value(out))
}

/// The coordinates (row-major) of a `row x col` matrix's lower or upper triangle.
fn triangle_indices(c: &Call, lower: bool) -> TensorResult<IValue> {
    check_options(c)?;
    let (row, col, offset) = (c.int("row")?, c.int("col")?, c.int("offset")?);
    if row < 0 {
        bail!("row must be non-negative, got{row}");
    }
    if col < 0 {
        bail!("col must be non-negative, got{col}");
    }
    if row.checked_mul(col).is_none_or(|n| n > 1 << 32) {
        bail!(
            "{}_indices: a {row} x {col} matrix is too large",
            if lower { "tril" } else { "triu" }
        );
    }
    let mut rows = Vec::new();
    let mut cols = Vec::new();
    // An empty side means an empty triangle (and no loop over the other side).
    let rows_to_visit = if col == 0 { 0 } else { row };
    for r in 0..rows_to_visit {
        for k in 0..col {
            let keep = if lower {
                k - r <= offset
            } else {
                k - r >= offset
            };
            if keep {
                rows.push(r);
                cols.push(k);
            }
        }
    }
    let n = rows.len() as i64;
    rows.extend(cols);
    let t = Tensor::from_vec(rows, &[2, n])?;
    let dtype = dtype_or(c, DType::I64)?;
    Ok(tensor_value(crate::ops::shape::elements::cast(&t, dtype)?))
}

fn tril_indices(c: &Call) -> TensorResult<IValue> {
    triangle_indices(c, true)
}

fn triu_indices(c: &Call) -> TensorResult<IValue> {
    triangle_indices(c, false)
}
