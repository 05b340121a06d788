//! Conversions: `to` (every overload: dtype, device, other, the prim forms; `copy=`),
//! type_as, clone and contiguous (with memory formats).

use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::ops::shape::call::{check_device, kernels, tensor_value, Call, Kernel};
use crate::ops::shape::elements::cast_copy;
use crate::tensor::{DType, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::to", |_| Some(to as Kernel));
    kernels!(r, "aten::type_as", |_| Some(type_as as Kernel));
    kernels!(r, "aten::clone", |_| Some(clone as Kernel));
    kernels!(r, "aten::contiguous", |_| Some(contiguous as Kernel));
    kernels!(r, "aten::_to_copy", |o| o
        .is_empty()
        .then_some(to_copy as Kernel));
}

/// PyTorch's `MemoryFormat` codes.
const CONTIGUOUS_FORMAT: i64 = 0;
const PRESERVE_FORMAT: i64 = 1;
const CHANNELS_LAST: i64 = 2;
const CHANNELS_LAST_3D: i64 = 3;

/// A copy of `t` laid out in `format` (values are the same in every format; the strides
/// differ, as `.contiguous(memory_format=torch.channels_last)` gives them).
fn copy_in_format(t: &Tensor, format: i64) -> TensorResult<Tensor> {
    let perm: &[i64] = match (format, t.dim()) {
        (CHANNELS_LAST, 4) => &[0, 2, 3, 1],
        (CHANNELS_LAST_3D, 5) => &[0, 2, 3, 4, 1],
        (CHANNELS_LAST, _) => bail!("required rank 4 tensor to use channels_last format"),
        (CHANNELS_LAST_3D, _) => bail!("required rank 5 tensor to use channels_last_3d format"),
        _ => return t.clone_contiguous(),
    };
    let inverse: Vec<i64> = (0..perm.len() as i64)
        .map(|i| perm.iter().position(|&p| p == i).unwrap_or(0) as i64)
        .collect();
    t.permute(perm)?.clone_contiguous()?.permute(&inverse)
}

/// Whether `t` is already laid out in `format`.
fn is_in_format(t: &Tensor, format: i64) -> bool {
    match format {
        CHANNELS_LAST | CHANNELS_LAST_3D => {
            let perm: &[i64] = if format == CHANNELS_LAST {
                &[0, 2, 3, 1]
            } else {
                &[0, 2, 3, 4, 1]
            };
            t.dim() == perm.len() && t.permute(perm).is_ok_and(|p| p.is_contiguous())
        }
        _ => t.is_contiguous(),
    }
}

/// `t` converted to `dtype` (None: keep), or `t` itself when nothing changes and no copy
/// is asked for.
fn convert(
    t: &Tensor,
    dtype: Option<DType>,
    copy: bool,
    format: Option<i64>,
) -> TensorResult<Tensor> {
    let target = dtype.unwrap_or(t.dtype());
    let format = format.unwrap_or(PRESERVE_FORMAT);
    let format_ok = format == PRESERVE_FORMAT || is_in_format(t, format);
    if target == t.dtype() && !copy && format_ok {
        return Ok(t.clone());
    }
    let fresh = if target == t.dtype() {
        t.clone_contiguous()?
    } else {
        cast_copy(t, target)?
    };
    match format {
        CHANNELS_LAST | CHANNELS_LAST_3D => copy_in_format(&fresh, format),
        _ => Ok(fresh),
    }
}

fn to(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let copy = c.boolean("copy")?;
    let format = c.opt_int("memory_format")?;
    let dtype = match c.overload() {
        "other" => {
            let other = c.tensor("other")?;
            check_device(&IValue::Device(other.device()))?;
            Some(other.dtype())
        }
        _ => {
            check_device(c.get("device"))?;
            c.opt_dtype("dtype")?
        }
    };
    Ok(tensor_value(convert(&t, dtype, copy, format)?))
}

/// `_to_copy`: always a fresh tensor.
fn to_copy(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    check_device(c.get("device"))?;
    let format = c.opt_int("memory_format")?;
    Ok(tensor_value(convert(
        &t,
        c.opt_dtype("dtype")?,
        true,
        format,
    )?))
}

fn type_as(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let other = c.tensor("other")?;
    Ok(tensor_value(convert(&t, Some(other.dtype()), false, None)?))
}

fn clone(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let format = c.opt_int("memory_format")?.unwrap_or(PRESERVE_FORMAT);
    Ok(tensor_value(copy_in_format(&t, format)?))
}

fn contiguous(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let format = c.opt_int("memory_format")?.unwrap_or(CONTIGUOUS_FORMAT);
    if format == PRESERVE_FORMAT {
        bail!("preserve memory format is unsupported by the contiguous operator");
    }
    if is_in_format(&t, format) {
        return Ok(tensor_value(t));
    }
    Ok(tensor_value(copy_in_format(&t, format)?))
}
