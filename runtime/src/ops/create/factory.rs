//! Filled tensors: zeros, ones, full, empty (zero-filled), their `_like` and `new_` forms.
//! `dtype=`, `layout=`, `device=` (CPU only) and `pin_memory=` are accepted as PyTorch
//! accepts them.

use crate::bail;
use crate::ivalue::IValue;
use crate::ops::index::fill::fill_tensor;
use crate::ops::registry::Registry;
use crate::ops::shape::call::{kernels, tensor_value, Call, Kernel, Scalar};
use crate::tensor::{DType, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::zeros", |o| matches!(o, "" | "out")
        .then_some(zeros as Kernel));
    kernels!(r, "aten::ones", |o| matches!(o, "" | "out")
        .then_some(ones as Kernel));
    kernels!(r, "aten::full", |o| matches!(o, "" | "out")
        .then_some(full as Kernel));
    kernels!(r, "aten::empty", |o| matches!(o, "memory_format" | "out")
        .then_some(zeros as Kernel));
    kernels!(r, "aten::zeros_like", |_| Some(zeros_like as Kernel));
    kernels!(r, "aten::empty_like", |_| Some(zeros_like as Kernel));
    kernels!(r, "aten::ones_like", |_| Some(ones_like as Kernel));
    kernels!(r, "aten::full_like", |_| Some(full_like as Kernel));
    kernels!(r, "aten::new_zeros", |_| Some(new_zeros as Kernel));
    kernels!(r, "aten::new_empty", |_| Some(new_zeros as Kernel));
    kernels!(r, "aten::new_ones", |_| Some(new_ones as Kernel));
    kernels!(r, "aten::new_full", |_| Some(new_full as Kernel));
}

/// A contiguous tensor of `sizes` with every element `value`.
pub fn full_tensor(sizes: &[i64], value: Scalar, dtype: DType) -> TensorResult<Tensor> {
    value.check_fits(dtype)?;
    let t = Tensor::zeros(sizes, dtype)?;
    let is_zero = match value {
        Scalar::Float(f) => f == 0.0 && f.is_sign_positive(),
        other => other.to_i64() == 0,
    };
    if !is_zero {
        fill_tensor(&t, value)?;
    }
    Ok(t)
}

/// Checks the factory keyword arguments every creation op shares.
pub fn check_options(c: &Call) -> TensorResult<()> {
    c.check_device()?;
    match c.get("layout") {
        IValue::None | IValue::Int(0) => {}
        IValue::Int(l) => bail!("Ember supports only the strided layout (got layout {l})"),
        _ => {}
    }
    Ok(())
}

/// `dtype=` or, without it, the default float dtype (the out tensor's dtype for out= forms).
pub fn dtype_or(c: &Call, default: DType) -> TensorResult<DType> {
    if let IValue::Tensor(out) = c.get("out") {
        return Ok(out.dtype());
    }
    Ok(c.opt_dtype("dtype")?.unwrap_or(default))
}

fn filled(c: &Call, value: Scalar) -> TensorResult<IValue> {
    check_options(c)?;
    let dtype = dtype_or(c, crate::tensor::elementwise::DEFAULT_FLOAT)?;
    Ok(tensor_value(full_tensor(&c.ints("size")?, value, dtype)?))
}

fn zeros(c: &Call) -> TensorResult<IValue> {
    // zeros checks sizes itself, with its own message; empty leaves it to the allocator.
    if c.op_name() == "aten::zeros" && c.ints("size")?.iter().any(|&s| s < 0) {
        bail!("zeros: Dimension size must be non-negative.");
    }
    filled(c, Scalar::Int(0))
}

fn ones(c: &Call) -> TensorResult<IValue> {
    filled(c, Scalar::Int(1))
}

fn full(c: &Call) -> TensorResult<IValue> {
    check_options(c)?;
    let value = c.scalar("fill_value")?;
    let dtype = dtype_or(c, value.default_dtype())?;
    Ok(tensor_value(full_tensor(&c.ints("size")?, value, dtype)?))
}

fn like(c: &Call, value: Scalar) -> TensorResult<IValue> {
    check_options(c)?;
    let t = c.tensor("self")?;
    let dtype = dtype_or(c, t.dtype())?;
    Ok(tensor_value(full_tensor(&t.sizes(), value, dtype)?))
}

fn zeros_like(c: &Call) -> TensorResult<IValue> {
    like(c, Scalar::Int(0))
}

fn ones_like(c: &Call) -> TensorResult<IValue> {
    like(c, Scalar::Int(1))
}

fn full_like(c: &Call) -> TensorResult<IValue> {
    like(c, c.scalar("fill_value")?)
}

fn new_filled(c: &Call, value: Scalar) -> TensorResult<IValue> {
    check_options(c)?;
    let t = c.tensor("self")?;
    let dtype = dtype_or(c, t.dtype())?;
    Ok(tensor_value(full_tensor(&c.ints("size")?, value, dtype)?))
}

fn new_zeros(c: &Call) -> TensorResult<IValue> {
    new_filled(c, Scalar::Int(0))
}

fn new_ones(c: &Call) -> TensorResult<IValue> {
    new_filled(c, Scalar::Int(1))
}

fn new_full(c: &Call) -> TensorResult<IValue> {
    new_filled(c, c.scalar("fill_value")?)
}
