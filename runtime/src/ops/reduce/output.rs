//! Results of the reductions: returned as they are or written through the `out=` tensors
//! (with `ops::args`'s `out=` helper), and the dtype spellings PyTorch's checks print.

use crate::ivalue::IValue;
use crate::ops::args::copy_out;
pub use crate::ops::args::{check_out_dtype, resize_output};
use crate::tensor::{DType, Tensor, TensorResult};

/// Writes `result` into `out` (resized to its shape, converted to its dtype) and returns
/// `out` as the op's output.
pub fn write_out(out: &Tensor, result: &Tensor) -> TensorResult<IValue> {
    copy_out(out, result).map(IValue::Tensor)
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
