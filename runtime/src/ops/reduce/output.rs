//! Results and `out=` tensors: resizing an out tensor as PyTorch's `resize_output` does,
//! writing a computed result through it, and the dtype spellings PyTorch's checks print.

use crate::ivalue::IValue;
use crate::tensor::{checked_numel, contiguous_strides, DType, Meta, Storage, Tensor};
use crate::tensor::{TensorError, TensorResult};

/// Resizes `out` to `sizes` unless it already has them (PyTorch warns when a non-empty out
/// changes shape; the resize is the same). The storage grows when it is too small.
pub fn resize_output(out: &Tensor, sizes: &[i64]) -> TensorResult<()> {
    if out.sizes().as_slice() == sizes {
        return Ok(());
    }
    let m = out.meta().clone();
    let numel = checked_numel(sizes)?;
    let need = (m.offset as usize)
        .checked_add(numel)
        .and_then(|n| n.checked_mul(m.dtype.size()))
        .ok_or_else(|| TensorError::new(format!("tensor of sizes {sizes:?} is too large")))?;
    let storage = if m.storage.nbytes() >= need {
        m.storage.clone()
    } else {
        let s = Storage::zeroed(need)?;
        // SAFETY: both buffers hold at least the old storage's bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(m.storage.as_ptr(), s.as_ptr(), m.storage.nbytes())
        };
        s
    };
    out.set_meta(Meta {
        storage,
        sizes: sizes.into(),
        strides: contiguous_strides(sizes),
        ..m
    })
}

/// Writes `result` into `out` (resized to its shape, converted to its dtype) and returns
/// `out` as the op's output.
pub fn write_out(out: &Tensor, result: &Tensor) -> TensorResult<IValue> {
    resize_output(out, &result.sizes())?;
    out.copy_from(result)?;
    Ok(IValue::Tensor(out.clone()))
}

/// Returns `result`, or writes it into the first out tensor when the overload has one.
pub fn finish(result: Tensor, outs: &[Tensor]) -> Result<Vec<IValue>, String> {
    match outs.first() {
        Some(out) => Ok(vec![write_out(out, &result).map_err(|e| e.message)?]),
        None => Ok(vec![IValue::Tensor(result)]),
    }
}

/// Returns a (values, indices) pair, or writes them into the two out tensors.
pub fn finish2(a: Tensor, b: Tensor, outs: &[Tensor]) -> Result<Vec<IValue>, String> {
    if outs.len() >= 2 {
        let a = write_out(&outs[0], &a).map_err(|e| e.message)?;
        let b = write_out(&outs[1], &b).map_err(|e| e.message)?;
        return Ok(vec![a, b]);
    }
    Ok(vec![IValue::Tensor(a), IValue::Tensor(b)])
}

/// PyTorch's `toString(ScalarType)`: `Float`, `Long`, ...
pub fn st_name(d: DType) -> &'static str {
    d.scalar_type().name()
}

/// PyTorch's check that an out tensor has exactly the result dtype.
pub fn check_out_dtype(out: &Tensor, want: DType) -> Result<(), String> {
    if out.dtype() != want {
        return Err(format!(
            "Expected out tensor to have dtype {}, but got {} instead",
            want.cpp_type_name(),
            out.dtype().cpp_type_name()
        ));
    }
    Ok(())
}
