//! Float arithmetic in the precision PyTorch's kernels compute in: float32 and float64
//! natively, float16/bfloat16 as float32 rounded back to the dtype after every operation
//! (what PyTorch's reduced-precision scalars and vectors do), with the fused multiply-add
//! its vectorized CPU kernels get from the compiler.

use std::marker::PhantomData;
use std::ops::{Add, AddAssign, Div, Mul, Sub};

use crate::tensor::Element;

pub trait Real:
    Copy
    + Send
    + Sync
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + AddAssign
    + 'static
{
    const ZERO: Self;
    const ONE: Self;
    /// `v` rounded to this type.
    fn of(v: f64) -> Self;
    fn f64(self) -> f64;
    /// `f` applied in double and rounded back (exact for floor, trunc, abs, rounding).
    fn map(self, f: impl Fn(f64) -> f64) -> Self {
        Self::of(f(self.f64()))
    }
    fn abs(self) -> Self {
        self.map(f64::abs)
    }
    fn is_nan(self) -> bool {
        self.f64().is_nan()
    }
    /// `self * b + c` as PyTorch's vectorized kernels compute it: fused (one rounding) in
    /// float32/float64, where the compiler contracts it; rounded twice in float16/bfloat16,
    /// whose every vector operation rounds.
    fn fma(self, b: Self, c: Self) -> Self;
}

impl Real for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    fn of(v: f64) -> f32 {
        v as f32
    }
    fn f64(self) -> f64 {
        self as f64
    }
    fn fma(self, b: f32, c: f32) -> f32 {
        // The product of two floats is exact in double; the sum rounds there once.
        (self as f64 * b as f64 + c as f64) as f32
    }
}

impl Real for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    fn of(v: f64) -> f64 {
        v
    }
    fn f64(self) -> f64 {
        self
    }
    fn fma(self, b: f64, c: f64) -> f64 {
        self.mul_add(b, c)
    }
}

/// A float32 value rounded to `T` after every operation.
#[derive(Copy, Clone)]
pub struct Rounded<T>(f32, PhantomData<T>);

impl<T: Element> Rounded<T> {
    fn new(v: f32) -> Self {
        Rounded(T::from_f64(v as f64).to_f64() as f32, PhantomData)
    }
}

impl<T> PartialEq for Rounded<T> {
    fn eq(&self, o: &Self) -> bool {
        self.0 == o.0
    }
}

impl<T> PartialOrd for Rounded<T> {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        self.0.partial_cmp(&o.0)
    }
}

macro_rules! rounded_op {
    ($tr:ident, $f:ident, $op:tt) => {
        impl<T: Element> $tr for Rounded<T> {
            type Output = Self;
            fn $f(self, o: Self) -> Self {
                Rounded::new(self.0 $op o.0)
            }
        }
    };
}
rounded_op!(Add, add, +);
rounded_op!(Sub, sub, -);
rounded_op!(Mul, mul, *);
rounded_op!(Div, div, /);

impl<T: Element> AddAssign for Rounded<T> {
    fn add_assign(&mut self, o: Self) {
        *self = *self + o;
    }
}

impl<T: Element> Real for Rounded<T> {
    const ZERO: Self = Rounded(0.0, PhantomData);
    const ONE: Self = Rounded(1.0, PhantomData);
    fn of(v: f64) -> Self {
        Rounded::new(v as f32)
    }
    fn f64(self) -> f64 {
        self.0 as f64
    }
    fn fma(self, b: Self, c: Self) -> Self {
        self * b + c
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::f16;

    #[test]
    fn float32_fma_is_fused() {
        // (1 + 2^-12)^2 - 1 = 2^-11 + 2^-24: the unfused product loses the 2^-24.
        let a = 1.0f32 + 1.0 / 4096.0;
        assert_eq!(Real::fma(a, a, -1.0f32), a.mul_add(a, -1.0));
        assert_ne!(a * a - 1.0, a.mul_add(a, -1.0));
    }

    #[test]
    fn rounded_rounds_every_operation() {
        let third = Rounded::<f16>::of(1.0) / Rounded::of(3.0);
        assert_eq!(third.f64(), f16::from_f64(1.0 / 3.0).to_f64());
        // float16 steps by 2 at 2048: each +1 rounds back (ties to even).
        let one = Rounded::<f16>::ONE;
        assert_eq!((Rounded::<f16>::of(2048.0) + one + one).f64(), 2048.0);
    }
}
