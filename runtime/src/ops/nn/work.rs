//! The arithmetic types the nn kernels compute in: float32 (also for float16/bfloat16, as
//! PyTorch's CPU kernels accumulate them), float64, and int64 for integer dtypes (wrapping,
//! which equals PyTorch's same-width wrapping once narrowed).

use crate::tensor::{DType, Element, Tensor, TensorResult};

/// The sum of `f(x)` over `row`, in f64, in eight independent chains (lanes of a vector where
/// the caller runs under `cpu::dispatch`) rather than one serial chain of adds.
#[inline(always)]
pub fn sum_f64_of<T: Element>(row: &[T], f: impl Fn(f64) -> f64) -> f64 {
    let mut acc = [0.0f64; 8];
    let chunks = row.chunks_exact(8);
    let tail: f64 = chunks.remainder().iter().map(|v| f(v.to_f64())).sum();
    for chunk in chunks {
        for (a, v) in acc.iter_mut().zip(chunk) {
            *a += f(v.to_f64());
        }
    }
    acc.iter().sum::<f64>() + tail
}

pub trait Work: Element + Default + PartialOrd {
    fn zero() -> Self {
        Self::default()
    }
    /// `self + other`, wrapping for integers.
    fn wadd(self, other: Self) -> Self;
    fn wmul(self, other: Self) -> Self;
}

impl Work for f32 {
    fn wadd(self, other: f32) -> f32 {
        self + other
    }
    fn wmul(self, other: f32) -> f32 {
        self * other
    }
}

impl Work for f64 {
    fn wadd(self, other: f64) -> f64 {
        self + other
    }
    fn wmul(self, other: f64) -> f64 {
        self * other
    }
}

impl Work for i64 {
    fn wadd(self, other: i64) -> i64 {
        self.wrapping_add(other)
    }
    fn wmul(self, other: i64) -> i64 {
        self.wrapping_mul(other)
    }
}

/// The dtype a kernel computes `d` in.
pub fn work_dtype(d: DType) -> DType {
    match d {
        DType::F64 => DType::F64,
        DType::F32 | DType::F16 | DType::BF16 => DType::F32,
        _ => DType::I64,
    }
}

/// `t` converted to `dtype` as a contiguous tensor (itself when it already is one).
pub fn to_contiguous(t: &Tensor, dtype: DType) -> TensorResult<Tensor> {
    if t.dtype() == dtype {
        return t.contiguous();
    }
    let out = Tensor::zeros(&t.sizes(), dtype)?;
    out.copy_from(t)?;
    Ok(out)
}

/// The elements of a contiguous tensor as a slice.
///
/// # Safety
/// `t` must be contiguous with elements of type `T`, and nobody may write it while the slice
/// lives.
pub unsafe fn slice<'a, T>(t: &Tensor) -> &'a [T] {
    std::slice::from_raw_parts(t.data_ptr() as *const T, t.numel())
}

/// The elements of a contiguous tensor as a mutable slice.
///
/// # Safety
/// `t` must be contiguous with elements of type `T`, freshly allocated by the caller and not
/// otherwise accessed while the slice lives.
pub unsafe fn slice_mut<'a, T>(t: &Tensor) -> &'a mut [T] {
    std::slice::from_raw_parts_mut(t.data_ptr() as *mut T, t.numel())
}
