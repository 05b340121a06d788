//! `sum`, `nansum`, `mean` and `prod` over dim lists, with keepdim, `dtype=` and `out=`.
//! Integral and bool inputs sum and multiply into int64 unless a dtype is given; floating
//! sums use pairwise summation in f64, as accurate as PyTorch's cascade sum.

use super::args::{build, Args};
use super::output::{check_out_dtype, finish, st_name};
use super::plan::{fold, fold_runs, from_f64, from_i64, pairwise_sum, reduce_mask, trailing_runs};
use super::plan::{Plan, PAR_THRESHOLD};
use crate::ivalue::IValue;
use crate::ops::registry::{has_tensor_input, Registry};
use crate::tensor::elementwise::can_cast;
use crate::tensor::{DType, Tensor};

pub fn register(r: &mut Registry) {
    r.add_if("aten::sum", has_tensor_input, |g, n| build(g, n, sum));
    r.add_if("aten::nansum", has_tensor_input, |g, n| build(g, n, nansum));
    r.add_if("aten::mean", has_tensor_input, |g, n| build(g, n, mean));
    r.add_if("aten::prod", has_tensor_input, |g, n| build(g, n, prod));
}

#[derive(Copy, Clone, PartialEq)]
enum Kind {
    Sum,
    NanSum,
    Prod,
}

/// The dtype a sum or product produces: `dtype=`, else the out tensor's dtype, else the
/// input's with integral and bool inputs widened to int64.
fn accumulate_dtype(a: &Args, input: DType, outs: &[Tensor]) -> Result<DType, String> {
    let dtype = a.dtype("dtype")?;
    if let (Some(d), Some(out)) = (dtype, outs.first()) {
        check_out_dtype(out, d)?;
    }
    Ok(dtype
        .or_else(|| outs.first().map(|o| o.dtype()))
        .unwrap_or(if input.is_floating() {
            input
        } else {
            DType::I64
        }))
}

/// Sums or multiplies `x` over `dims` into a tensor of `dtype`.
fn accumulate(
    x: &Tensor,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: DType,
    kind: Kind,
) -> Result<Tensor, String> {
    let mask = reduce_mask(dims, x.dim()).map_err(|e| e.message)?;
    let plan = Plan::new(x, &mask, keepdim).map_err(|e| e.message)?;
    let t = if dtype.is_floating() {
        let vals = match kind {
            Kind::Sum => float_sums(x, &mask, &plan, dtype),
            Kind::NanSum => fold(
                x,
                &plan,
                Some(dtype),
                |c: &[f64], _| {
                    let clean: Vec<f64> = c
                        .iter()
                        .map(|&v| if v.is_nan() { 0.0 } else { v })
                        .collect();
                    pairwise_sum(&clean)
                },
                |a, b| a + b,
            ),
            Kind::Prod => fold(
                x,
                &plan,
                Some(dtype),
                |c: &[f64], _| c.iter().product(),
                |a, b| a * b,
            ),
        };
        from_f64(&vals, &plan.out_sizes, dtype)
    } else {
        let cast = (dtype == DType::Bool).then_some(DType::Bool);
        let vals = match kind {
            Kind::Sum | Kind::NanSum => fold(
                x,
                &plan,
                cast,
                |c: &[i64], _| c.iter().fold(0i64, |a, &b| a.wrapping_add(b)),
                i64::wrapping_add,
            ),
            Kind::Prod => fold(
                x,
                &plan,
                cast,
                |c: &[i64], _| c.iter().fold(1i64, |a, &b| a.wrapping_mul(b)),
                i64::wrapping_mul,
            ),
        };
        from_i64(&vals, &plan.out_sizes, dtype)
    };
    t.map_err(|e| e.message)
}

fn sum_like(a: &Args, kind: Kind) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let dtype = accumulate_dtype(a, x.dtype(), &outs)?;
    let dims = a.dims("dim");
    let r = accumulate(&x, dims.as_deref(), a.bool("keepdim", false), dtype, kind)?;
    finish(r, &outs)
}

fn sum(a: &Args) -> Result<Vec<IValue>, String> {
    sum_like(a, Kind::Sum)
}

fn nansum(a: &Args) -> Result<Vec<IValue>, String> {
    sum_like(a, Kind::NanSum)
}

fn prod(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let dtype = accumulate_dtype(a, x.dtype(), &outs)?;
    let dims = a.opt_int("dim").map(|d| vec![d]);
    let keepdim = a.bool("keepdim", false);
    let r = accumulate(&x, dims.as_deref(), keepdim, dtype, Kind::Prod)?;
    finish(r, &outs)
}

fn mean(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let dtype = match a.dtype("dtype")? {
        Some(d) if !d.is_floating() => {
            return Err(format!(
                "mean(): could not infer output dtype. Optional dtype must be either a floating point or complex dtype. Got: {}",
                st_name(d)
            ))
        }
        Some(d) => d,
        None if !x.dtype().is_floating() => {
            return Err(format!(
                "mean(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {}",
                st_name(x.dtype())
            ))
        }
        None => x.dtype(),
    };
    if let Some(out) = outs.first() {
        if !can_cast(dtype, out.dtype()) {
            return Err(format!(
                "result type {} can't be cast to the desired output type {}",
                st_name(dtype),
                st_name(out.dtype())
            ));
        }
    }
    let dims = a.dims("dim");
    let mask = reduce_mask(dims.as_deref(), x.dim()).map_err(|e| e.message)?;
    let plan = Plan::new(&x, &mask, a.bool("keepdim", false)).map_err(|e| e.message)?;
    let n = plan.group_len as f64;
    let sums = float_sums(&x, &mask, &plan, dtype);
    let means: Vec<f64> = sums.iter().map(|s| s / n).collect();
    let r = from_f64(&means, &plan.out_sizes, dtype).map_err(|e| e.message)?;
    finish(r, &outs)
}

/// Floating sums of every group (after casting to `dtype`).
fn float_sums(x: &Tensor, mask: &[bool], plan: &Plan, dtype: DType) -> Vec<f64> {
    leading_sums(x, mask, dtype)
        .or_else(|| trailing_sums(x, mask, dtype))
        .unwrap_or_else(|| fold(x, plan, Some(dtype), |c, _| pairwise_sum(c), |a, b| a + b))
}

/// Sums of contiguous runs of float32/float64 elements in f64 lanes ([`lane_sum`]; f64
/// accumulation of float32 is more accurate than PyTorch's float32 cascade).
fn trailing_sums(x: &Tensor, mask: &[bool], dtype: DType) -> Option<Vec<f64>> {
    if dtype != x.dtype() || !matches!(dtype, DType::F32 | DType::F64) {
        return None;
    }
    let (groups, len) = trailing_runs(x, mask)?;
    Some(if dtype == DType::F32 {
        fold_runs::<f32, f64>(x, groups, len, lane_sum, |a, b| a + b)
    } else {
        fold_runs::<f64, f64>(x, groups, len, lane_sum, |a, b| a + b)
    })
}

/// Lanes of [`lane_sum`]: eight AVX-512 vectors of eight f64.
const LANES: usize = 64;

/// The sum of `s` in [`LANES`] f64 lanes (lane k adds the elements at k mod LANES in
/// order), the lanes then folded pairwise and the tail added last: the same bits on every
/// path, AVX-512 machines running the lanes as independent vector accumulators.
fn lane_sum<T: crate::tensor::Element>(s: &[T]) -> f64 {
    lane_sum_on(s, crate::ops::has_avx512())
}

/// [`lane_sum`] with the AVX-512 loop (`vector`, float32/float64 only) or the scalar one.
pub(super) fn lane_sum_on<T: crate::tensor::Element>(s: &[T], vector: bool) -> f64 {
    let whole = s.len() / LANES * LANES;
    let mut acc = [0f64; LANES];
    if vector && matches!(T::DTYPE, DType::F32 | DType::F64) {
        let p = s.as_ptr() as *const u8;
        // SAFETY: the elements are float32 or float64 as T::DTYPE says, `s` holds `whole`
        // of them, and the CPU has AVX-512F (`vector`).
        #[cfg(target_arch = "x86_64")]
        unsafe {
            if T::DTYPE == DType::F32 {
                lanes_avx512::<true>(p, whole, &mut acc)
            } else {
                lanes_avx512::<false>(p, whole, &mut acc)
            }
        }
    } else {
        for c in s[..whole].chunks_exact(LANES) {
            for k in 0..LANES {
                acc[k] += c[k].to_f64();
            }
        }
    }
    let tail: f64 = s[whole..].iter().map(|v| v.to_f64()).sum();
    fold_lanes(acc) + tail
}

/// Folds the lanes pairwise: lane k takes lane k + width for width = LANES/2, ..., 1.
fn fold_lanes(mut acc: [f64; LANES]) -> f64 {
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            acc[k] += acc[k + width];
        }
    }
    acc[0]
}

/// The vector loop of [`lane_sum_on`]: `whole` float32 (`F32`) or float64 elements at `p`
/// added into `acc`.
///
/// # Safety
/// `p` addresses `whole` elements of that type, a multiple of LANES; the CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn lanes_avx512<const F32: bool>(p: *const u8, whole: usize, acc: &mut [f64; LANES]) {
    use std::arch::x86_64::*;
    let mut v = [_mm512_setzero_pd(); LANES / 8];
    let mut i = 0;
    while i < whole {
        for (j, v) in v.iter_mut().enumerate() {
            let at = i + 8 * j;
            let x = if F32 {
                _mm512_cvtps_pd(_mm256_loadu_ps((p as *const f32).add(at)))
            } else {
                _mm512_loadu_pd((p as *const f64).add(at))
            };
            *v = _mm512_add_pd(*v, x);
        }
        i += LANES;
    }
    for (j, v) in v.iter().enumerate() {
        _mm512_storeu_pd(acc.as_mut_ptr().add(8 * j), *v);
    }
}

/// Sums over the leading dims of a contiguous float32/float64 tensor (a column sum), done
/// row by row into f64 accumulators so the reads stay sequential; columns are split over
/// the cores. `None` when the reduction has another shape.
fn leading_sums(x: &Tensor, mask: &[bool], dtype: DType) -> Option<Vec<f64>> {
    let k = mask.iter().take_while(|&&m| m).count();
    if k == 0 || k == mask.len() || mask[k..].iter().any(|&m| m) || dtype != x.dtype() {
        return None;
    }
    if !matches!(dtype, DType::F32 | DType::F64) || !x.is_contiguous() {
        return None;
    }
    let sizes = x.sizes();
    let rows: usize = sizes[..k].iter().map(|&s| s as usize).product();
    let cols: usize = sizes[k..].iter().map(|&s| s as usize).product();
    let mut acc = vec![0f64; cols];
    if rows == 0 || cols == 0 {
        return Some(acc);
    }
    let block = if rows * cols >= PAR_THRESHOLD {
        cols.div_ceil(4 * crate::parallel::threads()).max(256)
    } else {
        cols
    };
    crate::dispatch_dtype!(dtype, T => {
        // SAFETY: a contiguous tensor of rows * cols elements of T.
        let src = unsafe {
            std::slice::from_raw_parts(x.data_ptr() as *const T, rows * cols)
        };
        let add = |b: usize, a: &mut [f64]| {
            let start = b * block;
            for r in 0..rows {
                let row = &src[r * cols + start..r * cols + start + a.len()];
                for (s, &v) in a.iter_mut().zip(row) {
                    *s += crate::tensor::Element::to_f64(v);
                }
            }
        };
        if block < cols {
            crate::parallel::for_each_chunk_mut(&mut acc, block, add);
        } else {
            add(0, &mut acc);
        }
    });
    Some(acc)
}
