//! The elementwise engine every pointwise operator runs on, like PyTorch's TensorIterator:
//! operands broadcast to a common shape, the result dtype follows PyTorch's type promotion
//! (Python scalars rank below tensors), values are computed in the "opmath" type (f64 for
//! floating dtypes, i64 for integers and bools) and written to a fresh tensor, or through a
//! view into an existing one for in-place and `out=` forms.
//!
//! Computing float32 `+ - * /` in f64 and rounding once gives the correctly rounded float32
//! result, so these agree bit for bit with PyTorch; transcendental functions are more accurate
//! than float32 math and agree within the documented tolerances.

use super::promote::{result_type, Operand, ScalarKind};
use super::shape::broadcast_shapes;
use super::{DType, Element, Tensor, TensorResult};
use crate::bail;

/// One operand of an elementwise op.
#[derive(Clone, Debug)]
pub enum Arg {
    Tensor(Tensor),
    /// A Python `int` (or `bool`).
    Int(i64),
    /// A Python `bool`.
    Bool(bool),
    /// A Python `float`.
    Float(f64),
}

impl Arg {
    fn operand(&self) -> Operand {
        match self {
            Arg::Tensor(t) if t.dim() == 0 => Operand::ZeroDim(t.dtype()),
            Arg::Tensor(t) => Operand::Tensor(t.dtype()),
            Arg::Int(_) => Operand::Scalar(ScalarKind::Int),
            Arg::Bool(_) => Operand::Scalar(ScalarKind::Bool),
            Arg::Float(_) => Operand::Scalar(ScalarKind::Float),
        }
    }

    fn sizes(&self) -> Vec<i64> {
        match self {
            Arg::Tensor(t) => t.sizes().to_vec(),
            _ => Vec::new(),
        }
    }
}

/// The default floating dtype (`torch.get_default_dtype()`).
pub const DEFAULT_FLOAT: DType = DType::F32;

/// PyTorch's result dtype for these operands.
pub fn promoted_dtype(args: &[Arg]) -> DType {
    let ops: Vec<Operand> = args.iter().map(Arg::operand).collect();
    result_type(&ops, DEFAULT_FLOAT)
}

/// How values are computed.
#[derive(Copy, Clone)]
pub enum Compute<'f> {
    /// In f64 (for floating results).
    Float(&'f (dyn Fn(&[f64]) -> f64 + Sync)),
    /// In i64 (for integral and bool results).
    Int(&'f (dyn Fn(&[i64]) -> i64 + Sync)),
    /// In f64, producing a bool (comparisons on float operands).
    FloatToBool(&'f (dyn Fn(&[f64]) -> bool + Sync)),
    /// In i64, producing a bool (comparisons on integral operands).
    IntToBool(&'f (dyn Fn(&[i64]) -> bool + Sync)),
}

/// Where the result goes.
pub enum Target<'t> {
    /// A fresh contiguous tensor of this dtype.
    New(DType),
    /// An existing tensor (in place or `out=`); the broadcast shape must equal its shape,
    /// and the computed dtype must be castable to its dtype as PyTorch allows.
    Into(&'t Tensor),
}

/// Runs `compute` over `args` broadcast together and writes the result to `target`.
pub fn map(args: &[Arg], compute: Compute<'_>, target: Target<'_>) -> TensorResult<Tensor> {
    let mut shape: Vec<i64> = Vec::new();
    for a in args {
        shape = broadcast_shapes(&shape, &a.sizes())?.to_vec();
    }
    let out = match target {
        Target::New(dtype) => Tensor::zeros(&shape, dtype)?,
        Target::Into(t) => {
            let sizes = t.sizes();
            if sizes.as_slice() != shape.as_slice() {
                // In place, the broadcast may not grow the destination.
                if broadcast_shapes(&sizes, &shape)?.as_slice() != sizes.as_slice() {
                    bail!(
                        "output with shape [{}] doesn't match the broadcast shape [{}]",
                        join(&sizes),
                        join(&shape)
                    );
                }
                shape = sizes.to_vec();
            }
            t.clone()
        }
    };
    let n = out.numel();
    if n == 0 {
        return Ok(out);
    }
    // Read every operand broadcast to the output shape, in the opmath type it needs.
    let float_inputs = matches!(compute, Compute::Float(_) | Compute::FloatToBool(_));
    let columns: Vec<Column> = args
        .iter()
        .map(|a| Column::read(a, &shape, float_inputs))
        .collect::<TensorResult<_>>()?;
    let out_dtype = out.dtype();
    let offsets = if out.is_contiguous() {
        None
    } else {
        Some(out.element_offsets())
    };
    let base = out.data_ptr();
    crate::dispatch_dtype!(out_dtype, T => {
        let write = |i: usize, v: T| {
            let o = offsets.as_ref().map_or(i as isize, |offs| offs[i] as isize);
            // SAFETY: `o` is an in-bounds element offset of `out`.
            unsafe { *(base as *mut T).offset(o) = v };
        };
        match compute {
            Compute::Float(f) => {
                let mut buf = vec![0f64; args.len()];
                for i in 0..n {
                    for (k, c) in columns.iter().enumerate() {
                        buf[k] = c.f64_at(i);
                    }
                    write(i, <T as Element>::from_f64(f(&buf)));
                }
            }
            Compute::Int(f) => {
                let mut buf = vec![0i64; args.len()];
                for i in 0..n {
                    for (k, c) in columns.iter().enumerate() {
                        buf[k] = c.i64_at(i);
                    }
                    write(i, <T as Element>::from_i64(f(&buf)));
                }
            }
            Compute::FloatToBool(f) => {
                let mut buf = vec![0f64; args.len()];
                for i in 0..n {
                    for (k, c) in columns.iter().enumerate() {
                        buf[k] = c.f64_at(i);
                    }
                    write(i, <T as Element>::from_bool(f(&buf)));
                }
            }
            Compute::IntToBool(f) => {
                let mut buf = vec![0i64; args.len()];
                for i in 0..n {
                    for (k, c) in columns.iter().enumerate() {
                        buf[k] = c.i64_at(i);
                    }
                    write(i, <T as Element>::from_bool(f(&buf)));
                }
            }
        }
    });
    Ok(out)
}

/// An operand's values in output order: a scalar, or a materialized broadcast column.
enum Column {
    F(f64),
    I(i64),
    Fs(Vec<f64>),
    Is(Vec<i64>),
}

impl Column {
    fn read(a: &Arg, shape: &[i64], float: bool) -> TensorResult<Column> {
        Ok(match a {
            Arg::Int(i) if float => Column::F(*i as f64),
            Arg::Int(i) => Column::I(*i),
            Arg::Bool(b) if float => Column::F(*b as i64 as f64),
            Arg::Bool(b) => Column::I(*b as i64),
            Arg::Float(f) if float => Column::F(*f),
            // A float scalar in an integer computation only happens for ops PyTorch defines
            // that way (e.g. int tensor compared with a float): truncate like C++.
            Arg::Float(f) => Column::I(*f as i64),
            Arg::Tensor(t) => {
                let e = t.expand(shape)?;
                if float {
                    Column::Fs(e.to_vec::<f64>())
                } else {
                    Column::Is(e.to_vec::<i64>())
                }
            }
        })
    }

    #[inline]
    fn f64_at(&self, i: usize) -> f64 {
        match self {
            Column::F(v) => *v,
            Column::Fs(v) => v[i],
            Column::I(v) => *v as f64,
            Column::Is(v) => v[i] as f64,
        }
    }

    #[inline]
    fn i64_at(&self, i: usize) -> i64 {
        match self {
            Column::I(v) => *v,
            Column::Is(v) => v[i],
            Column::F(v) => *v as i64,
            Column::Fs(v) => v[i] as i64,
        }
    }
}

/// Whether PyTorch lets a result of dtype `from` be written into a tensor of dtype `to`
/// (`canCast`: no float into integral, no non-bool into bool).
pub fn can_cast(from: DType, to: DType) -> bool {
    use super::Category::*;
    match (from.category(), to.category()) {
        (Floating, Integral) | (Floating, Bool) | (Integral, Bool) => false,
        _ => true,
    }
}

fn join(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t<T: Element>(v: Vec<T>, s: &[i64]) -> Arg {
        Arg::Tensor(Tensor::from_vec(v, s).unwrap())
    }

    #[test]
    fn broadcasting_and_promotion() {
        let a = t(vec![1i32, 2, 3], &[3, 1]);
        let b = Arg::Float(0.5);
        let dtype = promoted_dtype(&[a.clone(), b.clone()]);
        assert_eq!(dtype, DType::F32);
        let add = |x: &[f64]| x[0] + x[1];
        let out = map(&[a.clone(), b], Compute::Float(&add), Target::New(dtype)).unwrap();
        assert_eq!(out.sizes().as_slice(), &[3, 1]);
        assert_eq!(out.to_vec::<f32>(), vec![1.5, 2.5, 3.5]);
        let c = t(vec![10i64, 20], &[2]);
        let dtype = promoted_dtype(&[a.clone(), c.clone()]);
        assert_eq!(dtype, DType::I64);
        let addi = |x: &[i64]| x[0] + x[1];
        let out = map(&[a, c], Compute::Int(&addi), Target::New(dtype)).unwrap();
        assert_eq!(out.sizes().as_slice(), &[3, 2]);
        assert_eq!(out.to_vec::<i64>(), vec![11, 21, 12, 22, 13, 23]);
    }

    #[test]
    fn in_place_through_a_view() {
        let base = Tensor::from_vec(vec![1f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let col = base.select(1, 0).unwrap();
        let mul = |x: &[f64]| x[0] * x[1];
        map(
            &[Arg::Tensor(col.clone()), Arg::Int(10)],
            Compute::Float(&mul),
            Target::Into(&col),
        )
        .unwrap();
        assert_eq!(base.to_vec::<f32>(), vec![10.0, 2.0, 30.0, 4.0]);
        // The destination may not grow.
        let big = t(vec![1f32; 4], &[2, 2]);
        let err = map(
            &[big, Arg::Int(1)],
            Compute::Float(&mul),
            Target::Into(&col),
        )
        .unwrap_err();
        assert!(
            err.message.contains("doesn't match the broadcast shape"),
            "{}",
            err.message
        );
        assert!(!can_cast(DType::F32, DType::I64) && can_cast(DType::I64, DType::F32));
    }

    #[test]
    fn comparisons_produce_bools_and_empty_tensors_work() {
        let a = t(vec![1.0f64, f64::NAN, 3.0], &[3]);
        let lt = |x: &[f64]| x[0] < x[1];
        let out = map(
            &[a, Arg::Float(2.0)],
            Compute::FloatToBool(&lt),
            Target::New(DType::Bool),
        )
        .unwrap();
        assert_eq!(out.to_vec::<bool>(), vec![true, false, false]);
        let e = t(Vec::<f32>::new(), &[0, 3]);
        let id = |x: &[f64]| x[0];
        assert_eq!(
            map(&[e], Compute::Float(&id), Target::New(DType::F32))
                .unwrap()
                .sizes()
                .as_slice(),
            &[0, 3]
        );
    }
}
