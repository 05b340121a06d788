//! Typed fast paths for the hottest float32 ops on contiguous tensors: no f64 detour, no
//! per-element dispatch, and both cores (rayon) above [`PARALLEL_THRESHOLD`] elements.
//! Results equal the engine's within float32 rounding (the engine rounds once from f64).

use rayon::prelude::*;

use crate::tensor::elementwise::Arg;
use crate::tensor::{DType, Tensor};

/// Below this many elements a kernel stays on the calling thread.
pub const PARALLEL_THRESHOLD: usize = 1 << 15;

/// Elements per parallel task.
const CHUNK: usize = 1 << 13;

#[derive(Copy, Clone, Debug)]
pub(crate) enum Unary {
    Relu,
    Exp,
    Tanh,
    Sigmoid,
}

impl Unary {
    pub fn of(name: &str) -> Option<Unary> {
        Some(match name {
            "relu" => Unary::Relu,
            "exp" => Unary::Exp,
            "tanh" => Unary::Tanh,
            "sigmoid" => Unary::Sigmoid,
            _ => return None,
        })
    }

    #[inline(always)]
    fn apply(self, x: f32) -> f32 {
        match self {
            // NaN stays NaN, as PyTorch's relu (clamp_min) keeps it.
            Unary::Relu => {
                if x < 0.0 {
                    0.0
                } else {
                    x
                }
            }
            Unary::Exp => x.exp(),
            Unary::Tanh => x.tanh(),
            Unary::Sigmoid => 1.0 / (1.0 + (-x).exp()),
        }
    }
}

#[derive(Copy, Clone, Debug)]
pub(crate) enum Binary {
    /// `a + alpha * b`
    Add(f32),
    /// `a - alpha * b`
    Sub(f32),
    Mul,
    Div,
}

impl Binary {
    #[inline(always)]
    fn apply(self, a: f32, b: f32) -> f32 {
        match self {
            Binary::Add(alpha) if alpha == 1.0 => a + b,
            Binary::Add(alpha) => a + alpha * b,
            Binary::Sub(alpha) if alpha == 1.0 => a - b,
            Binary::Sub(alpha) => a - alpha * b,
            Binary::Mul => a * b,
            Binary::Div => a / b,
        }
    }
}

/// The address of a contiguous float32 tensor's elements. Inputs are read through raw
/// pointers, never slices, because the destination may be the same memory.
fn f32_ptr(t: &Tensor) -> Option<usize> {
    if t.dtype() != DType::F32 || !t.is_contiguous() {
        return None;
    }
    Some(t.data_ptr() as usize)
}

/// Reads element `i` at address `p`.
///
/// SAFETY: `p` is the address of a live f32 tensor with more than `i` elements.
#[inline(always)]
unsafe fn read(p: usize, i: usize) -> f32 {
    *(p as *const f32).add(i)
}

/// A fresh or given float32 destination of `n` elements, contiguous; `None` when `dst` is
/// not usable or overlaps the inputs in any way other than being one of them exactly.
fn destination(dst: Option<&Tensor>, sizes: &[i64], inputs: &[&Tensor]) -> Option<Tensor> {
    match dst {
        None => Tensor::zeros(sizes, DType::F32).ok(),
        Some(d) => {
            if d.dtype() != DType::F32 || !d.is_contiguous() || d.sizes().as_slice() != sizes {
                return None;
            }
            for x in inputs {
                if d.shares_storage(x) && d.data_ptr() != x.data_ptr() {
                    return None;
                }
            }
            Some(d.clone())
        }
    }
}

/// Runs `f(i)` for every output index, writing through `out`, in parallel when large.
fn fill(out: &Tensor, f: impl Fn(usize) -> f32 + Sync) {
    let n = out.numel();
    let ptr = out.data_ptr() as usize;
    // SAFETY: `out` is a contiguous f32 tensor of n elements; each index is written once,
    // and an input aliasing it exactly is read at the same index before that write.
    let write = |i: usize, v: f32| unsafe { *(ptr as *mut f32).add(i) = v };
    if n >= PARALLEL_THRESHOLD {
        (0..n.div_ceil(CHUNK)).into_par_iter().for_each(|c| {
            let end = ((c + 1) * CHUNK).min(n);
            for i in c * CHUNK..end {
                write(i, f(i));
            }
        });
    } else {
        for i in 0..n {
            write(i, f(i));
        }
    }
}

/// `op(x)` when `x` is a contiguous float32 tensor; `None` leaves it to the engine.
pub(crate) fn unary(op: Unary, x: &Arg, dst: Option<&Tensor>) -> Option<Tensor> {
    let Arg::Tensor(x) = x else { return None };
    let xs = f32_ptr(x)?;
    let out = destination(dst, &x.sizes(), &[x])?;
    // SAFETY: i < numel of x (same sizes as out); `x` lives through the call.
    fill(&out, |i| op.apply(unsafe { read(xs, i) }));
    Some(out)
}

/// One side of a binary op: a whole contiguous tensor or one value.
enum Side {
    Full(usize),
    One(f32),
}

fn side(a: &Arg, sizes: &[i64]) -> Option<Side> {
    Some(match a {
        Arg::Tensor(t) if t.dim() == 0 && t.dtype() == DType::F32 => {
            Side::One(t.item_f64().ok()? as f32)
        }
        Arg::Tensor(t) if t.sizes().as_slice() == sizes => Side::Full(f32_ptr(t)?),
        Arg::Tensor(_) => return None,
        Arg::Float(v) => Side::One(*v as f32),
        Arg::Int(v) => Side::One(*v as f32),
        Arg::Bool(v) => Side::One(*v as u8 as f32),
    })
}

/// `op(a, b)` when the result is float32 and each side is a contiguous float32 tensor of
/// the result's shape or a single value; `None` leaves it to the engine.
pub(crate) fn binary(op: Binary, a: &Arg, b: &Arg, dst: Option<&Tensor>) -> Option<Tensor> {
    let sizes = match (a, b) {
        (Arg::Tensor(x), _) if x.dim() > 0 => x.sizes(),
        (_, Arg::Tensor(y)) if y.dim() > 0 => y.sizes(),
        _ => return None,
    };
    let sa = side(a, &sizes)?;
    let sb = side(b, &sizes)?;
    let tensors: Vec<&Tensor> = [a, b]
        .into_iter()
        .filter_map(|x| match x {
            Arg::Tensor(t) => Some(t),
            _ => None,
        })
        .collect();
    let out = destination(dst, &sizes, &tensors)?;
    let at = |s: &Side, i: usize| match s {
        // SAFETY: the tensor has the output's numel, i is below it, and it lives through
        // the call.
        Side::Full(p) => unsafe { read(*p, i) },
        Side::One(x) => *x,
    };
    fill(&out, |i| op.apply(at(&sa, i), at(&sb, i)));
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_scalar_math_on_both_sides_of_the_threshold() {
        for n in [5usize, PARALLEL_THRESHOLD + 3] {
            let v: Vec<f32> = (0..n).map(|i| (i as f32) * 0.001 - 3.0).collect();
            let x = Tensor::from_vec(v.clone(), &[n as i64]).unwrap();
            let out = unary(Unary::Sigmoid, &Arg::Tensor(x.clone()), None).unwrap();
            let got = out.to_vec::<f32>();
            for i in [0, n / 2, n - 1] {
                let want = 1.0 / (1.0 + (-(v[i] as f64)).exp());
                assert!((got[i] as f64 - want).abs() < 1e-6);
            }
            let out = binary(
                Binary::Add(2.0),
                &Arg::Tensor(x.clone()),
                &Arg::Float(1.5),
                None,
            )
            .unwrap();
            assert_eq!(out.to_vec::<f32>()[n - 1], v[n - 1] + 3.0);
            // In place on the same tensor.
            binary(Binary::Mul, &Arg::Tensor(x.clone()), &Arg::Int(2), Some(&x)).unwrap();
            assert_eq!(x.to_vec::<f32>()[n - 1], v[n - 1] * 2.0);
        }
    }

    #[test]
    fn declines_what_it_cannot_do() {
        let x = Tensor::from_vec(vec![1f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let t = x.t().unwrap();
        assert!(unary(Unary::Exp, &Arg::Tensor(t.clone()), None).is_none());
        let row = Tensor::from_vec(vec![1f32, 2.0], &[2]).unwrap();
        assert!(binary(
            Binary::Add(1.0),
            &Arg::Tensor(x.clone()),
            &Arg::Tensor(row),
            None
        )
        .is_none());
        let shifted = x.view(&[4]).unwrap().slice(0, Some(1), Some(4), 1).unwrap();
        let head = x.view(&[4]).unwrap().slice(0, Some(0), Some(3), 1).unwrap();
        assert!(unary(Unary::Relu, &Arg::Tensor(head), Some(&shifted)).is_none());
    }
}
