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

/// Lanes of [`lane_sum`]: four AVX-512 vectors of eight f64, or eight AVX2 vectors of four,
/// held in registers (more would spill on AVX2's sixteen).
const LANES: usize = 32;

/// The sum of `s` in [`LANES`] f64 lanes: lane k adds the elements at k mod LANES in order,
/// then the lanes fold pairwise (k takes k + width for width = LANES/2, ..., 1). The same
/// bits on every path; the vector loops run the lanes as independent accumulators, so short
/// runs (a 7x7 plane) are a few vector adds, not a chain of scalar ones.
pub(crate) fn lane_sum<T: crate::tensor::Element>(s: &[T]) -> f64 {
    lane_sum_on(s, crate::ops::cpu::isa())
}

/// [`lane_sum`] of each run of `len` elements of `s` in turn (`len` at least 1; a partial
/// last run is left out), handed to `f` with the run's index: the vector loop is chosen once
/// and inlined, where small runs (a 7x7 plane) paid for a lookup and a call each.
pub(crate) fn lane_sums<T: crate::tensor::Element>(s: &[T], len: usize, f: impl FnMut(usize, f64)) {
    lane_sums_on(s, len, crate::ops::cpu::isa(), f)
}

/// [`lane_sums`] on the vector loop of `level`, as [`lane_sum_on`].
pub(super) fn lane_sums_on<T: crate::tensor::Element>(
    s: &[T],
    len: usize,
    level: crate::ops::cpu::Isa,
    mut f: impl FnMut(usize, f64),
) {
    use crate::ops::cpu::Isa;
    let runs = s.len() / len;
    #[cfg(target_arch = "x86_64")]
    if level > Isa::Baseline && matches!(T::DTYPE, DType::F32 | DType::F64) {
        let (p, f32) = (s.as_ptr() as *const u8, T::DTYPE == DType::F32);
        // SAFETY: `s` holds `runs * len` elements of float32 or float64 as T::DTYPE says,
        // and the CPU has the level's features.
        unsafe {
            match (level, f32) {
                (Isa::Avx512, true) => runs_avx512::<true>(p, runs, len, &mut f),
                (Isa::Avx512, false) => runs_avx512::<false>(p, runs, len, &mut f),
                (_, true) => runs_avx2::<true>(p, runs, len, &mut f),
                (_, false) => runs_avx2::<false>(p, runs, len, &mut f),
            }
        };
        return;
    }
    for (i, run) in s.chunks_exact(len).enumerate() {
        f(i, lane_sum_on(run, level));
    }
}

/// `$name`: `$lanes` of each of `runs` runs of `len` elements at `p`, handed to `f`, in a
/// function of `$lanes`' features so that the loop inlines it.
macro_rules! each_run {
    ($name:ident, $features:literal, $lanes:ident) => {
        /// # Safety
        /// As the lane loop's, for `runs * len` elements.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = $features)]
        unsafe fn $name<const F32: bool>(
            p: *const u8,
            runs: usize,
            len: usize,
            f: &mut impl FnMut(usize, f64),
        ) {
            let bytes = len * if F32 { 4 } else { 8 };
            for i in 0..runs {
                f(i, $lanes::<F32>(p.add(i * bytes), len));
            }
        }
    };
}
each_run!(runs_avx512, "avx512f,avx512vl", lanes_avx512);
each_run!(runs_avx2, "avx2", lanes_avx2);

/// [`lane_sum`] with the vector loop of `level` (float32/float64 only) or the scalar one.
pub(super) fn lane_sum_on<T: crate::tensor::Element>(s: &[T], level: crate::ops::cpu::Isa) -> f64 {
    use crate::ops::cpu::Isa;
    #[cfg(target_arch = "x86_64")]
    if level > Isa::Baseline && matches!(T::DTYPE, DType::F32 | DType::F64) {
        let (p, n, f32) = (s.as_ptr() as *const u8, s.len(), T::DTYPE == DType::F32);
        // SAFETY: `s` holds `n` elements of float32 or float64 as T::DTYPE says, and the
        // CPU has the level's features.
        return unsafe {
            match (level, f32) {
                (Isa::Avx512, true) => lanes_avx512::<true>(p, n),
                (Isa::Avx512, false) => lanes_avx512::<false>(p, n),
                (_, true) => lanes_avx2::<true>(p, n),
                (_, false) => lanes_avx2::<false>(p, n),
            }
        };
    }
    let _ = level;
    let mut acc = [0f64; LANES];
    for c in s.chunks(LANES) {
        for (a, v) in acc.iter_mut().zip(c) {
            *a += v.to_f64();
        }
    }
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            acc[k] += acc[k + width];
        }
    }
    acc[0]
}

/// The AVX-512 form of [`lane_sum_on`] over `n` float32 (`F32`) or float64 elements at `p`:
/// lane k of the four accumulators is lane k of the sum, the last partial group read with
/// masked loads (a lane past the end adds +0.0, which changes no lane: each starts at +0.0
/// and so never holds -0.0), the fold done in registers in the scalar fold's order.
///
/// # Safety
/// `p` addresses `n` elements of that type; the CPU has AVX-512F and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl")]
#[inline]
unsafe fn lanes_avx512<const F32: bool>(p: *const u8, n: usize) -> f64 {
    use std::arch::x86_64::*;
    let mut v = [_mm512_setzero_pd(); LANES / 8];
    let whole = n / LANES * LANES;
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
    if whole < n {
        for (j, v) in v.iter_mut().enumerate() {
            let at = whole + 8 * j;
            let take = (n - whole).saturating_sub(8 * j).min(8);
            let mask = ((1u32 << take) - 1) as __mmask8;
            let x = if F32 {
                _mm512_cvtps_pd(_mm256_maskz_loadu_ps(mask, (p as *const f32).add(at)))
            } else {
                _mm512_maskz_loadu_pd(mask, (p as *const f64).add(at))
            };
            *v = _mm512_add_pd(*v, x);
        }
    }
    let half = _mm512_add_pd(_mm512_add_pd(v[0], v[2]), _mm512_add_pd(v[1], v[3]));
    let quarter = _mm256_add_pd(
        _mm512_castpd512_pd256(half),
        _mm512_extractf64x4_pd::<1>(half),
    );
    fold_quarter(quarter)
}

/// Lanes 0..4 of a fold as one f64: lane k takes k + 2, then lane 0 takes lane 1.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn fold_quarter(q: std::arch::x86_64::__m256d) -> f64 {
    use std::arch::x86_64::*;
    let pair = _mm_add_pd(_mm256_castpd256_pd128(q), _mm256_extractf128_pd::<1>(q));
    _mm_cvtsd_f64(_mm_add_sd(pair, _mm_unpackhi_pd(pair, pair)))
}

/// The AVX2 form of [`lane_sum_on`], as [`lanes_avx512`] with eight accumulators of four.
///
/// # Safety
/// `p` addresses `n` elements of that type; the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn lanes_avx2<const F32: bool>(p: *const u8, n: usize) -> f64 {
    use std::arch::x86_64::*;
    let mut v = [_mm256_setzero_pd(); LANES / 4];
    let whole = n / LANES * LANES;
    let mut i = 0;
    while i < whole {
        for (j, v) in v.iter_mut().enumerate() {
            let at = i + 4 * j;
            let x = if F32 {
                _mm256_cvtps_pd(_mm_loadu_ps((p as *const f32).add(at)))
            } else {
                _mm256_loadu_pd((p as *const f64).add(at))
            };
            *v = _mm256_add_pd(*v, x);
        }
        i += LANES;
    }
    if whole < n {
        for (j, v) in v.iter_mut().enumerate() {
            let at = whole + 4 * j;
            let take = (n - whole).saturating_sub(4 * j).min(4) as i32;
            // Element e of the group is read where e < take (the sign bit of each mask lane).
            let x = if F32 {
                let mask = _mm_cmpgt_epi32(_mm_set1_epi32(take), _mm_setr_epi32(0, 1, 2, 3));
                _mm256_cvtps_pd(_mm_maskload_ps((p as *const f32).add(at), mask))
            } else {
                let index = _mm256_setr_epi64x(0, 1, 2, 3);
                let mask = _mm256_cmpgt_epi64(_mm256_set1_epi64x(take as i64), index);
                _mm256_maskload_pd((p as *const f64).add(at), mask)
            };
            *v = _mm256_add_pd(*v, x);
        }
    }
    let half = [
        _mm256_add_pd(v[0], v[4]),
        _mm256_add_pd(v[1], v[5]),
        _mm256_add_pd(v[2], v[6]),
        _mm256_add_pd(v[3], v[7]),
    ];
    let quarter = _mm256_add_pd(
        _mm256_add_pd(half[0], half[2]),
        _mm256_add_pd(half[1], half[3]),
    );
    fold_quarter(quarter)
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
