//! `softmax` and `log_softmax` along a dim (with `dtype=`, `out=`) and their `_softmax` /
//! `_log_softmax` aten forms. Each line is shifted by its max and computed in f64.

use super::args::{build, Args};
use super::output::{check_out_dtype, finish, st_name};
use crate::ops::args::err;

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
    let numel = x.numel();
    let n = sizes[sizes.len() - 1] as usize;
    if numel == 0 || n == 0 {
        return Tensor::zeros(&sizes, DType::F32);
    }
    // Every element is written below: no zeroing pass.
    let out = crate::ops::pointwise::output_for_overwrite(&sizes, DType::F32)?;
    // SAFETY: both tensors are contiguous float32 with `numel` elements; `out` is fresh.
    let src = unsafe { std::slice::from_raw_parts(x.data_ptr() as *const f32, numel) };
    let dst = unsafe { std::slice::from_raw_parts_mut(out.data_ptr() as *mut f32, numel) };
    let row = |(d, s): (&mut [f32], &[f32])| row_vectorized(d, s, log);
    if numel >= PAR_THRESHOLD && numel / n > 1 {
        crate::parallel::for_each_chunk_mut(dst, n, |i, d| row((d, &src[i * n..(i + 1) * n])));
    } else {
        dst.chunks_mut(n).zip(src.chunks(n)).for_each(row);
    }
    Ok(out)
}

/// One row of [`last_dim_f32`], compiled for AVX-512 or AVX2 when the CPU has them (the
/// crate targets baseline x86-64's SSE2). Every copy computes the same values: the lanes
/// are explicit and nothing contracts into FMA.
fn row_vectorized(d: &mut [f32], s: &[f32], log: bool) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        unsafe fn avx512(d: &mut [f32], s: &[f32], log: bool) {
            row(d, s, log)
        }
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(d: &mut [f32], s: &[f32], log: bool) {
            row(d, s, log)
        }
        if crate::ops::has_avx512() {
            // SAFETY: the CPU has AVX-512F.
            return unsafe { avx512(d, s, log) };
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { avx2(d, s, log) };
        }
    }
    row(d, s, log)
}

/// Softmax (or log-softmax) of the float32 row `s` into `d`.
#[inline(always)]
fn row(d: &mut [f32], s: &[f32], log: bool) {
    // Max in sixteen lanes (vectorizes). A NaN is skipped here but still makes the whole
    // row NaN, as in PyTorch: its exp is NaN, and so is the sum every output depends on.
    let mut lanes = [f32::NEG_INFINITY; 16];
    let mut chunks = s.chunks_exact(16);
    for c in &mut chunks {
        for k in 0..16 {
            lanes[k] = if c[k] > lanes[k] { c[k] } else { lanes[k] };
        }
    }
    for &v in chunks.remainder() {
        lanes[0] = if v > lanes[0] { v } else { lanes[0] };
    }
    let m = lanes.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for (o, &v) in d.iter_mut().zip(s) {
        *o = exp_nonpositive(v - m);
    }
    // Sixteen independent f64 partial sums (no serial dependency on one accumulator).
    let mut acc = [0f64; 16];
    let mut chunks = d.chunks_exact(16);
    for c in &mut chunks {
        for k in 0..16 {
            acc[k] += c[k] as f64;
        }
    }
    let tail: f64 = chunks.remainder().iter().map(|&e| e as f64).sum();
    let sum = acc.iter().sum::<f64>() + tail;
    if log {
        let ls = sum.ln() as f32;
        for (o, &v) in d.iter_mut().zip(s) {
            *o = v - m - ls;
        }
    } else {
        let inv = (1.0 / sum) as f32;
        for o in d.iter_mut() {
            *o *= inv;
        }
    }
}

/// exp(x) in float32 for x <= 0 (and NaN), within a few ulp, written so loops vectorize:
/// x = n ln2 + r with |r| <= ln2/2, exp(r) by its degree-7 Taylor polynomial, times 2^n.
/// Results below float32's normal range flush to 0 (PyTorch keeps some subnormals; they
/// are far below every tolerance).
#[inline(always)]
fn exp_nonpositive(x: f32) -> f32 {
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // Round to nearest by adding and removing 1.5 * 2^23 (no libm call, vectorizes).
    const SHIFTER: f32 = 12_582_912.0;
    let t = x * std::f32::consts::LOG2_E + SHIFTER;
    let n = t - SHIFTER;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let mut p = 1.0 / 5040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    // 2^n from its exponent bits: the integer n sits in the low mantissa bits of t (read
    // as bits, not converted, so the loop stays vectorized; NaN and -inf inputs give
    // meaningless bits that the select below or the NaN in `p` overrides).
    let k = (t.to_bits() as i32).wrapping_sub(SHIFTER.to_bits() as i32);
    let scale = f32::from_bits((k.max(-126).wrapping_add(127) as u32) << 23);
    if x < -87.0 {
        0.0
    } else {
        p * scale
    }
}

#[cfg(test)]
mod tests {
    use super::exp_nonpositive;

    #[test]
    fn exp_is_accurate_on_the_softmax_range() {
        let mut x = 0.0f32;
        while x > -87.0 {
            let (got, want) = (exp_nonpositive(x) as f64, (x as f64).exp());
            assert!(
                (got - want).abs() <= 4e-7 * want,
                "exp({x}) = {got}, want {want}"
            );
            x -= 0.0137;
        }
        assert_eq!(exp_nonpositive(f32::NEG_INFINITY), 0.0);
        assert!(exp_nonpositive(f32::NAN).is_nan());
        assert_eq!(exp_nonpositive(0.0), 1.0);
    }
}
