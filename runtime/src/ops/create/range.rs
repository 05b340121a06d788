//! Ranges: arange (every overload, PyTorch's dtype inference and length rule), linspace,
//! logspace and eye.

use super::factory::{check_options, dtype_or};
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::ops::shape::call::{kernels, scalar_of, tensor_value, Call, Kernel, Scalar};
use crate::tensor::{
    elementwise::DEFAULT_FLOAT, DType, Element, Tensor, TensorError, TensorResult,
};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::arange", |_| Some(arange as Kernel));
    kernels!(r, "aten::linspace", |_| Some(linspace as Kernel));
    kernels!(r, "aten::logspace", |_| Some(logspace as Kernel));
    kernels!(r, "aten::eye", |_| Some(eye as Kernel));
}

/// A `Scalar` argument, or the value of a 0-dim tensor passed for it (`linspace.Tensor_*`).
fn number(c: &Call, name: &str) -> TensorResult<Scalar> {
    match c.get(name) {
        IValue::Tensor(t) => {
            if t.dim() != 0 {
                bail!(
                    "linspace only supports 0-dimensional start and end tensors, but got tensors with {} dimension(s).",
                    t.dim()
                );
            }
            crate::ops::shape::query::item_scalar(t)
        }
        v => {
            scalar_of(v).ok_or_else(|| TensorError::new(format!("expected a number for '{name}'")))
        }
    }
}

/// `torch.arange(start, end, step, dtype)`: the length is `ceil((end - start) / step)`
/// computed as PyTorch does (exactly in int64 for int64 results, in double otherwise), and
/// values are `start + i * step` in the dtype's accumulation type.
pub fn arange_tensor(
    start: Scalar,
    end: Scalar,
    step: Scalar,
    dtype: DType,
) -> TensorResult<Tensor> {
    let len: i64;
    if dtype.is_floating() {
        let (xs, xe, xst) = (start.to_f64(), end.to_f64(), step.to_f64());
        check_range(xs, xe, xst)?;
        len = size_from_double((xe - xs) / xst)?;
        let t = Tensor::zeros(&[len], dtype)?;
        let half_acc = matches!(dtype, DType::F16 | DType::BF16);
        crate::dispatch_dtype!(dtype, T => {
            let p = t.data_ptr() as *mut T;
            for i in 0..len {
                let v = if half_acc {
                    (xs as f32 + xst as f32 * i as f32) as f64
                } else {
                    xs + xst * i as f64
                };
                // SAFETY: `t` holds len elements.
                unsafe { *p.add(i as usize) = T::from_f64(v) };
            }
        });
        return Ok(t);
    }
    if dtype == DType::Bool {
        bail!("\"arange_cpu\" not implemented for 'Bool'");
    }
    // Integer results accumulate in int64, from the arguments truncated toward zero.
    let (xs, xe, xst) = (start.to_i64(), end.to_i64(), step.to_i64());
    check_range(xs as f64, xe as f64, xst as f64)?;
    if xst == 0 {
        bail!("step must be nonzero");
    }
    let integral = |s: Scalar| !s.is_float();
    len = if dtype == DType::I64 && integral(start) && integral(end) && integral(step) {
        let sgn = xst.signum();
        let num = (xe as i128) - (xs as i128) + (xst as i128) - (sgn as i128);
        let q = num / xst as i128;
        i64::try_from(q).map_err(|_| TensorError::new("invalid size, possible overflow?"))?
    } else {
        size_from_double((end.to_f64() - start.to_f64()) / step.to_f64())?
    };
    let t = Tensor::zeros(&[len], dtype)?;
    crate::dispatch_dtype!(dtype, T => {
        let p = t.data_ptr() as *mut T;
        for i in 0..len {
            let v = xs.wrapping_add(xst.wrapping_mul(i));
            // SAFETY: `t` holds len elements.
            unsafe { *p.add(i as usize) = T::from_i64(v) };
        }
    });
    Ok(t)
}

fn check_range(xs: f64, xe: f64, xst: f64) -> TensorResult<()> {
    if xst.is_nan() || xst == 0.0 {
        bail!("step must be nonzero");
    }
    if !xs.is_finite() || !xe.is_finite() {
        bail!(
            "unsupported range: {} -> {}",
            cpp_double(xs),
            cpp_double(xe)
        );
    }
    if !((xst > 0.0 && xe >= xs) || (xst < 0.0 && xe <= xs)) {
        bail!("upper bound and lower bound inconsistent with step sign");
    }
    Ok(())
}

/// A double as C++'s `operator<<` prints it (6 significant digits, no trailing zeros).
fn cpp_double(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    if v == v.trunc() && v.abs() < 1e6 {
        return format!("{}", v as i64);
    }
    let s = format!("{:.5e}", v);
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = e.parse().unwrap_or(0);
    if (-5..6).contains(&exp) {
        let digits = (5 - exp).max(0) as usize;
        let f = format!("{v:.digits$}");
        let f = f.trim_end_matches('0').trim_end_matches('.');
        return f.to_string();
    }
    let m = m.trim_end_matches('0').trim_end_matches('.');
    format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

fn size_from_double(q: f64) -> TensorResult<i64> {
    let size = q.ceil();
    if !(size >= 0.0 && size <= i64::MAX as f64) {
        bail!("invalid size, possible overflow?");
    }
    Ok(size as i64)
}

fn arange(c: &Call) -> TensorResult<IValue> {
    check_options(c)?;
    let end = c.scalar("end")?;
    let start = if c.has("start") {
        c.scalar("start")?
    } else {
        Scalar::Int(0)
    };
    let step = if c.has("step") {
        c.scalar("step")?
    } else {
        Scalar::Int(1)
    };
    let inferred = if start.is_float() || end.is_float() || step.is_float() {
        DEFAULT_FLOAT
    } else {
        DType::I64
    };
    let dtype = dtype_or(c, inferred)?;
    Ok(tensor_value(arange_tensor(start, end, step, dtype)?))
}

fn steps_arg(c: &Call) -> TensorResult<i64> {
    let steps = c.int("steps")?;
    if steps < 0 {
        bail!("number of steps must be non-negative");
    }
    Ok(steps)
}

/// linspace's values as PyTorch's CPU kernel computes them: the first half counts up from
/// `start`, the second half down from `end`, in the dtype's own arithmetic (double steps
/// for integer dtypes).
fn linspace_values(start: Scalar, end: Scalar, steps: i64, dtype: DType) -> Vec<f64> {
    if steps == 1 {
        return vec![start.to_f64()];
    }
    let halfway = steps / 2;
    let n = steps as f64 - 1.0;
    match dtype {
        DType::F32 | DType::F16 | DType::BF16 => {
            let (s, e) = (start.to_f64() as f32, end.to_f64() as f32);
            let step = (e - s) / n as f32;
            (0..steps)
                .map(|i| {
                    if i < halfway {
                        (s + step * i as f32) as f64
                    } else {
                        (e - step * (steps - i - 1) as f32) as f64
                    }
                })
                .collect()
        }
        DType::F64 => {
            let (s, e) = (start.to_f64(), end.to_f64());
            let step = (e - s) / n;
            (0..steps)
                .map(|i| {
                    if i < halfway {
                        s + step * i as f64
                    } else {
                        e - step * (steps - i - 1) as f64
                    }
                })
                .collect()
        }
        _ => {
            let (s, e) = (start.to_i64() as f64, end.to_i64() as f64);
            let step = (e - s) / n;
            (0..steps)
                .map(|i| {
                    if i < halfway {
                        s + step * i as f64
                    } else {
                        e - step * (steps - i - 1) as f64
                    }
                })
                .collect()
        }
    }
}

fn from_values(values: &[f64], dtype: DType) -> TensorResult<Tensor> {
    let t = Tensor::zeros(&[values.len() as i64], dtype)?;
    crate::dispatch_dtype!(dtype, T => {
        let p = t.data_ptr() as *mut T;
        for (i, &v) in values.iter().enumerate() {
            // SAFETY: `t` holds values.len() elements.
            unsafe { *p.add(i) = T::from_f64(v) };
        }
    });
    Ok(t)
}

fn linspace(c: &Call) -> TensorResult<IValue> {
    check_options(c)?;
    let (start, end, steps) = (number(c, "start")?, number(c, "end")?, steps_arg(c)?);
    let dtype = dtype_or(c, DEFAULT_FLOAT)?;
    crate::tensor::checked_numel(&[steps])?;
    crate::ops::shape::elements::check_len(steps as usize)?;
    Ok(tensor_value(from_values(
        &linspace_values(start, end, steps, dtype),
        dtype,
    )?))
}

fn logspace(c: &Call) -> TensorResult<IValue> {
    check_options(c)?;
    let (start, end, steps) = (number(c, "start")?, number(c, "end")?, steps_arg(c)?);
    let base = c.float("base")?;
    let dtype = dtype_or(c, DEFAULT_FLOAT)?;
    crate::tensor::checked_numel(&[steps])?;
    crate::ops::shape::elements::check_len(steps as usize)?;
    let values: Vec<f64> = if steps == 1 {
        vec![base.powf(start.to_f64())]
    } else if dtype.is_floating() {
        let (s, e) = (start.to_f64(), end.to_f64());
        let (s, e) = match dtype {
            DType::F32 => (s as f32 as f64, e as f32 as f64),
            _ => (s, e),
        };
        let step = (e - s) / (steps - 1) as f64;
        let halfway = steps / 2;
        (0..steps)
            .map(|i| {
                let x = if i < halfway {
                    s + step * i as f64
                } else {
                    e - step * (steps - i - 1) as f64
                };
                base.powf(x)
            })
            .collect()
    } else {
        let (s, e) = (start.to_i64(), end.to_i64());
        let step = (e - s) as f64 / (steps - 1) as f64;
        let halfway = steps / 2;
        let b = base as f32 as f64;
        (0..steps)
            .map(|i| {
                let x = if i < halfway {
                    s as f64 + step * i as f64
                } else {
                    e as f64 - step * (steps - i - 1) as f64
                };
                b.powf(x)
            })
            .collect()
    };
    Ok(tensor_value(from_values(&values, dtype)?))
}

fn eye(c: &Call) -> TensorResult<IValue> {
    check_options(c)?;
    let n = c.int("n")?;
    let m = if c.has("m") { c.int("m")? } else { n };
    if n < 0 {
        bail!("n must be greater or equal to 0, got {n}");
    }
    if m < 0 {
        bail!("m must be greater or equal to 0, got {m}");
    }
    let dtype = dtype_or(c, DEFAULT_FLOAT)?;
    let t = Tensor::zeros(&[n, m], dtype)?;
    crate::dispatch_dtype!(dtype, T => {
        let p = t.data_ptr() as *mut T;
        for i in 0..n.min(m) {
            // SAFETY: (i, i) lies inside the n x m contiguous tensor.
            unsafe { *p.add((i * m + i) as usize) = T::from_i64(1) };
        }
    });
    Ok(tensor_value(t))
}
