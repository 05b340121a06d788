//! `softmax` and `log_softmax` along a dim (with `dtype=`, `out=`) and their `_softmax` /
//! `_log_softmax` aten forms. Each line is shifted by its max and computed in f64.

use super::args::{build, Args};
use super::output::{check_out_dtype, finish, st_name};
use rayon::prelude::*;

use super::plan::{map_groups, pairwise_sum, reduce_mask, scatter, Plan, PAR_THRESHOLD};
use crate::ivalue::IValue;
use crate::ops::registry::{has_tensor_input, Registry};
use crate::tensor::{wrap_dim, DType, Tensor, TensorError};

pub fn register(r: &mut Registry) {
    r.add_if("aten::softmax", has_tensor_input, |g, n| {
        build(g, n, softmax)
    });
    r.add_if("aten::_softmax", has_tensor_input, |g, n| {
        build(g, n, softmax)
    });
    r.add_if("aten::log_softmax", has_tensor_input, |g, n| {
        build(g, n, softmax)
    });
    r.add_if("aten::_log_softmax", has_tensor_input, |g, n| {
        build(g, n, softmax)
    });
}

fn err(e: TensorError) -> String {
    e.message
}

/// Softmax (or log-softmax) of one line.
fn line(v: &[f64], log: bool) -> Vec<f64> {
    let m = v.iter().fold(f64::NEG_INFINITY, |m, &x| {
        if m.is_nan() || x.is_nan() {
            f64::NAN
        } else {
            m.max(x)
        }
    });
    let e: Vec<f64> = v.iter().map(|&x| (x - m).exp()).collect();
    let s = pairwise_sum(&e);
    if log {
        let ls = s.ln();
        v.iter().map(|&x| x - m - ls).collect()
    } else {
        e.iter().map(|&x| x / s).collect()
    }
}

fn softmax(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let op = a.op_name();
    let log = op.contains("log_softmax");
    let base = op.trim_start_matches('_');
    let dim = a.int("dim", -1);
    if a.bool("half_to_float", false) {
        return Err(format!(
            "{base} with half to float conversion is not supported on CPU"
        ));
    }
    let w = wrap_dim(dim, x.dim()).map_err(err)?;
    let dtype = a.dtype("dtype")?.unwrap_or(x.dtype());
    if !dtype.is_floating() {
        let last = x.dim() == 0 || w + 1 == x.dim();
        let kernel = if last {
            "lastdim_kernel_impl"
        } else {
            "kernel_impl"
        };
        return Err(format!(
            "\"{base}_{kernel}\" not implemented for '{}'",
            st_name(dtype)
        ));
    }
    if let Some(out) = outs.first() {
        check_out_dtype(out, dtype)?;
    }
    if dtype == DType::F32 && x.dtype() == DType::F32 && w + 1 == x.dim() && x.is_contiguous() {
        let r = last_dim_f32(&x, log).map_err(err)?;
        return finish(r, &outs);
    }
    let mask = reduce_mask(Some(&[dim]), x.dim()).map_err(err)?;
    let plan = Plan::new(&x, &mask, true).map_err(err)?;
    let lines = map_groups::<f64, _>(&x, &plan, Some(dtype), |v| line(v, log));
    let r = Tensor::zeros(&x.sizes(), dtype).map_err(err)?;
    let out_plan = Plan::new(&r, &mask, true).map_err(err)?;
    scatter(&r, &out_plan, &lines);
    finish(r, &outs)
}

/// The hot path: float32 rows along a contiguous last dim, computed in float32 (sums in
/// f64) straight from the input into the output, rows spread over the cores.
fn last_dim_f32(x: &Tensor, log: bool) -> Result<Tensor, TensorError> {
    let sizes = x.sizes();
    let out = Tensor::zeros(&sizes, DType::F32)?;
    let numel = x.numel();
    let n = sizes[sizes.len() - 1] as usize;
    if numel == 0 || n == 0 {
        return Ok(out);
    }
    // SAFETY: both tensors are contiguous float32 with `numel` elements; `out` is fresh.
    let src = unsafe { std::slice::from_raw_parts(x.data_ptr() as *const f32, numel) };
    let dst = unsafe { std::slice::from_raw_parts_mut(out.data_ptr() as *mut f32, numel) };
    let row = |(d, s): (&mut [f32], &[f32])| {
        let m = s.iter().fold(f32::NEG_INFINITY, |m, &v| {
            if m.is_nan() || v.is_nan() {
                f32::NAN
            } else {
                m.max(v)
            }
        });
        let mut sum = 0f64;
        for (o, &v) in d.iter_mut().zip(s) {
            let e = (v - m).exp();
            *o = e;
            sum += e as f64;
        }
        if log {
            let ls = sum.ln() as f32;
            for (o, &v) in d.iter_mut().zip(s) {
                *o = v - m - ls;
            }
        } else {
            let inv = 1.0 / sum;
            for o in d.iter_mut() {
                *o = (*o as f64 * inv) as f32;
            }
        }
    };
    if numel >= PAR_THRESHOLD && numel / n > 1 {
        dst.par_chunks_mut(n).zip(src.par_chunks(n)).for_each(row);
    } else {
        dst.chunks_mut(n).zip(src.chunks(n)).for_each(row);
    }
    Ok(out)
}
