//! `max`/`min` (whole tensor, along a dim with indices, and the elementwise `other` form),
//! `amax`/`amin`, `argmax`/`argmin` and `aminmax`. NaN wins and its first position is the
//! index; ties keep the first occurrence, as PyTorch.

use super::args::{build, Args};
use super::output::{check_out_dtype, finish, finish2, st_name};
use super::plan::{fold, fold_runs, from_f64, from_i64, reduce_mask, trailing_runs, Plan, Val};
use crate::ivalue::IValue;
use crate::ops::registry::{has_tensor_input, Registry};
use crate::tensor::elementwise::{can_cast, map, promoted_dtype, Arg, Compute, Target};
use crate::tensor::{wrap_dim, DType, Tensor};

pub fn register(r: &mut Registry) {
    r.add_if("aten::max", has_tensor_input, |g, n| build(g, n, max));
    r.add_if("aten::min", has_tensor_input, |g, n| build(g, n, min));
    r.add_if("aten::amax", has_tensor_input, |g, n| build(g, n, amax));
    r.add_if("aten::amin", has_tensor_input, |g, n| build(g, n, amin));
    r.add_if("aten::argmax", has_tensor_input, |g, n| build(g, n, argmax));
    r.add_if("aten::argmin", has_tensor_input, |g, n| build(g, n, argmin));
    r.add_if("aten::aminmax", has_tensor_input, |g, n| {
        build(g, n, aminmax)
    });
}

/// Whether `cand` replaces `cur` as the running max (or min): NaN beats everything, and
/// an equal value never replaces an earlier one.
#[inline]
fn better<V: Val + PartialOrd>(cand: V, cur: V, is_max: bool) -> bool {
    if cur.is_nan() {
        return false;
    }
    if cand.is_nan() {
        return true;
    }
    if is_max {
        cand > cur
    } else {
        cand < cur
    }
}

/// The extreme value of each group and its index within the group.
fn extremes<V: Val + PartialOrd>(x: &Tensor, plan: &Plan, is_max: bool) -> Vec<(V, i64)> {
    fold(
        x,
        plan,
        None,
        |c: &[V], start| {
            let mut best = (c.first().copied().unwrap_or_default(), start as i64);
            for (i, &v) in c.iter().enumerate().skip(1) {
                if better(v, best.0, is_max) {
                    best = (v, (start + i) as i64);
                }
            }
            best
        },
        |a, b| if better(b.0, a.0, is_max) { b } else { a },
    )
}

/// The max (or min) of contiguous float32 runs without their indices ([`lane_extreme`]);
/// NaN anywhere gives NaN. `None` when the layout or dtype does not fit.
fn run_extremes(x: &Tensor, mask: &[bool], is_max: bool) -> Option<Vec<f64>> {
    if x.dtype() != DType::F32 {
        return None;
    }
    let (groups, len) = trailing_runs(x, mask)?;
    if len == 0 {
        return None;
    }
    let fold = |s: &[f32]| lane_extreme(s, is_max);
    let combine = |a: f32, b: f32| {
        if a.is_nan() || b.is_nan() {
            f32::NAN
        } else if is_max {
            a.max(b)
        } else {
            a.min(b)
        }
    };
    let r = fold_runs::<f32, f32>(x, groups, len, fold, combine);
    Some(r.into_iter().map(|v| v as f64).collect())
}

/// Lanes of [`lane_extreme`]: four AVX-512 vectors of sixteen f32, or eight AVX2 vectors of
/// eight.
const LANES: usize = 64;

/// The max (or min) of a non-empty float32 run, NaN if it has one: [`LANES`] lanes start at
/// `s[0]` and lane k takes each element at k mod LANES that is greater (smaller); the tail
/// goes to lane 0, and the lanes fold in order. The same value on every path, AVX2 and
/// AVX-512 machines running the lanes as vector accumulators.
fn lane_extreme(s: &[f32], is_max: bool) -> f32 {
    lane_extreme_on(s, is_max, crate::ops::cpu::isa())
}

/// [`lane_extreme`] with the vector loop of `level` or the scalar one.
pub(super) fn lane_extreme_on(s: &[f32], is_max: bool, level: crate::ops::cpu::Isa) -> f32 {
    use crate::ops::cpu::Isa;
    let take = |v: f32, cur: f32| if is_max { v > cur } else { v < cur };
    let whole = s.len() / LANES * LANES;
    let mut acc = [s[0]; LANES];
    let mut nan = false;
    match level {
        // SAFETY: the CPU has the level's features; `s` holds `whole` elements.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => nan = unsafe { lanes_avx512(s.as_ptr(), whole, is_max, &mut acc) },
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => nan = unsafe { lanes_avx2(s.as_ptr(), whole, is_max, &mut acc) },
        _ => {
            for c in s[..whole].chunks_exact(LANES) {
                for k in 0..LANES {
                    nan |= c[k].is_nan();
                    acc[k] = if take(c[k], acc[k]) { c[k] } else { acc[k] };
                }
            }
        }
    }
    for &v in &s[whole..] {
        nan |= v.is_nan();
        acc[0] = if take(v, acc[0]) { v } else { acc[0] };
    }
    if nan {
        return f32::NAN;
    }
    acc.iter()
        .copied()
        .fold(acc[0], |m, v| if take(v, m) { v } else { m })
}

/// The AVX-512 loop of [`lane_extreme`] over `whole` elements at `p` into `acc`; whether a
/// NaN was seen. `max_ps(v, a)` is `v > a ? v : a`, the scalar loop's choice.
///
/// # Safety
/// `p` addresses `whole` f32s, a multiple of LANES; the CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn lanes_avx512(p: *const f32, whole: usize, is_max: bool, acc: &mut [f32; LANES]) -> bool {
    use std::arch::x86_64::*;
    let mut v = [_mm512_setzero_ps(); LANES / 16];
    for (j, v) in v.iter_mut().enumerate() {
        *v = _mm512_loadu_ps(acc.as_ptr().add(16 * j));
    }
    let mut nan: __mmask16 = 0;
    let mut i = 0;
    while i < whole {
        for (j, v) in v.iter_mut().enumerate() {
            let x = _mm512_loadu_ps(p.add(i + 16 * j));
            nan |= _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
            *v = if is_max {
                _mm512_max_ps(x, *v)
            } else {
                _mm512_min_ps(x, *v)
            };
        }
        i += LANES;
    }
    for (j, v) in v.iter().enumerate() {
        _mm512_storeu_ps(acc.as_mut_ptr().add(16 * j), *v);
    }
    nan != 0
}

/// The AVX2 loop of [`lane_extreme`], as [`lanes_avx512`] with eight vectors of eight.
///
/// # Safety
/// `p` addresses `whole` f32s, a multiple of LANES; the CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn lanes_avx2(p: *const f32, whole: usize, is_max: bool, acc: &mut [f32; LANES]) -> bool {
    use std::arch::x86_64::*;
    let mut v = [_mm256_setzero_ps(); LANES / 8];
    for (j, v) in v.iter_mut().enumerate() {
        *v = _mm256_loadu_ps(acc.as_ptr().add(8 * j));
    }
    let mut nan = _mm256_setzero_ps();
    let mut i = 0;
    while i < whole {
        for (j, v) in v.iter_mut().enumerate() {
            let x = _mm256_loadu_ps(p.add(i + 8 * j));
            nan = _mm256_or_ps(nan, _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x));
            *v = if is_max {
                _mm256_max_ps(x, *v)
            } else {
                _mm256_min_ps(x, *v)
            };
        }
        i += LANES;
    }
    for (j, v) in v.iter().enumerate() {
        _mm256_storeu_ps(acc.as_mut_ptr().add(8 * j), *v);
    }
    _mm256_movemask_ps(nan) != 0
}

/// Values only (in `x`'s dtype) of each group's max or min.
fn values_only(x: &Tensor, mask: &[bool], plan: &Plan, is_max: bool) -> Result<Tensor, String> {
    if let Some(v) = run_extremes(x, mask, is_max) {
        return from_f64(&v, &plan.out_sizes, x.dtype()).map_err(|e| e.message);
    }
    Ok(values_indices(x, plan, is_max)?.0)
}

/// Values (in `x`'s dtype) and indices of each group's max or min.
fn values_indices(x: &Tensor, plan: &Plan, is_max: bool) -> Result<(Tensor, Tensor), String> {
    let sizes = &plan.out_sizes;
    let (values, indices) = if x.dtype().is_floating() {
        let r = extremes::<f64>(x, plan, is_max);
        let v: Vec<f64> = r.iter().map(|p| p.0).collect();
        (
            from_f64(&v, sizes, x.dtype()),
            r.into_iter().map(|p| p.1).collect::<Vec<_>>(),
        )
    } else {
        let r = extremes::<i64>(x, plan, is_max);
        let v: Vec<i64> = r.iter().map(|p| p.0).collect();
        (
            from_i64(&v, sizes, x.dtype()),
            r.into_iter().map(|p| p.1).collect(),
        )
    };
    let values = values.map_err(|e| e.message)?;
    let indices = from_i64(&indices, sizes, DType::I64).map_err(|e| e.message)?;
    Ok((values, indices))
}

/// PyTorch's check that the dim being reduced is not empty (`zero_numel_check_dims`).
fn check_dim_nonempty(x: &Tensor, dim: i64, shown: i64, name: &str) -> Result<(), String> {
    if x.dim() > 0 && x.numel() == 0 {
        let w = wrap_dim(dim, x.dim()).map_err(|e| e.message)?;
        if x.sizes()[w] == 0 {
            return Err(format!(
                "{name}: Expected reduction dim {shown} to have non-zero size."
            ));
        }
    }
    Ok(())
}

fn max(a: &Args) -> Result<Vec<IValue>, String> {
    max_min(a, true)
}

fn min(a: &Args) -> Result<Vec<IValue>, String> {
    max_min(a, false)
}

fn max_min(a: &Args, is_max: bool) -> Result<Vec<IValue>, String> {
    let name = a.op_name().to_string();
    if a.has("other") {
        return elementwise(a, is_max);
    }
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    match a.opt_int("dim") {
        None => {
            if x.numel() == 0 {
                return Err(format!(
                    "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
                ));
            }
            let mask = reduce_mask(None, x.dim()).map_err(|e| e.message)?;
            let plan = Plan::new(&x, &mask, false).map_err(|e| e.message)?;
            finish(values_only(&x, &mask, &plan, is_max)?, &outs)
        }
        Some(dim) => {
            let w = wrap_dim(dim, x.dim()).map_err(|e| e.message)? as i64;
            check_dim_nonempty(&x, dim, w, &format!("{name}()"))?;
            if outs.len() == 2 {
                check_out_dtype(&outs[0], x.dtype())?;
                check_out_dtype(&outs[1], DType::I64)?;
            }
            let mask = reduce_mask(Some(&[dim]), x.dim()).map_err(|e| e.message)?;
            let plan = Plan::new(&x, &mask, a.bool("keepdim", false)).map_err(|e| e.message)?;
            let (values, indices) = values_indices(&x, &plan, is_max)?;
            finish2(values, indices, &outs)
        }
    }
}

/// `max(self, other)`: the elementwise maximum (NaN propagates), with type promotion.
fn elementwise(a: &Args, is_max: bool) -> Result<Vec<IValue>, String> {
    let x = Arg::Tensor(a.tensor("self")?);
    let y = Arg::Tensor(a.tensor("other")?);
    let outs = a.outs()?;
    let dtype = promoted_dtype(&[x.clone(), y.clone()]);
    let fmax = |v: &[f64]| {
        if v[0].is_nan() || v[1].is_nan() {
            f64::NAN
        } else if is_max {
            v[0].max(v[1])
        } else {
            v[0].min(v[1])
        }
    };
    let imax = |v: &[i64]| {
        if is_max {
            v[0].max(v[1])
        } else {
            v[0].min(v[1])
        }
    };
    let compute = if dtype.is_floating() {
        Compute::Float(&fmax)
    } else {
        Compute::Int(&imax)
    };
    let target = match outs.first() {
        Some(out) => {
            if !can_cast(dtype, out.dtype()) {
                return Err(format!(
                    "result type {} can't be cast to the desired output type {}",
                    st_name(dtype),
                    st_name(out.dtype())
                ));
            }
            let shape = crate::tensor::broadcast_shapes(
                &a.tensor("self")?.sizes(),
                &a.tensor("other")?.sizes(),
            )
            .map_err(|e| e.message)?;
            super::output::resize_output(out, &shape).map_err(|e| e.message)?;
            Target::Into(out)
        }
        None => Target::New(dtype),
    };
    let r = map(&[x, y], compute, target).map_err(|e| e.message)?;
    Ok(vec![IValue::Tensor(r)])
}

fn amax(a: &Args) -> Result<Vec<IValue>, String> {
    amax_amin(a, true)
}

fn amin(a: &Args) -> Result<Vec<IValue>, String> {
    amax_amin(a, false)
}

fn amax_amin(a: &Args, is_max: bool) -> Result<Vec<IValue>, String> {
    let name = a.op_name().to_string();
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let dims = a.dims("dim").unwrap_or_default();
    let mask = reduce_mask(Some(&dims), x.dim()).map_err(|e| e.message)?;
    if x.numel() == 0 {
        if dims.is_empty() {
            return Err(format!(
                "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            ));
        }
        for &d in &dims {
            check_dim_nonempty(&x, d, d, &format!("{name}()"))?;
        }
    }
    if let Some(out) = outs.first() {
        if out.dtype() != x.dtype() {
            return Err(format!(
                "Expected the dtype for input and out to match, but got {} for input's dtype and {} for out's dtype.",
                st_name(x.dtype()),
                st_name(out.dtype())
            ));
        }
    }
    let plan = Plan::new(&x, &mask, a.bool("keepdim", false)).map_err(|e| e.message)?;
    finish(values_only(&x, &mask, &plan, is_max)?, &outs)
}

fn argmax(a: &Args) -> Result<Vec<IValue>, String> {
    arg_extreme(a, true)
}

fn argmin(a: &Args) -> Result<Vec<IValue>, String> {
    arg_extreme(a, false)
}

fn arg_extreme(a: &Args, is_max: bool) -> Result<Vec<IValue>, String> {
    let name = a.op_name().to_string();
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    if x.dtype() == DType::Bool {
        return Err(format!("{name}(): does not support bool input"));
    }
    if let Some(out) = outs.first() {
        check_out_dtype(out, DType::I64)?;
    }
    let keepdim = a.bool("keepdim", false);
    let plan = match a.opt_int("dim") {
        None => {
            if x.numel() == 0 {
                return Err(format!(
                    "{name}(): Expected reduction dim to be specified for input.numel() == 0."
                ));
            }
            // The flattened input; keepdim keeps every dim as size 1.
            let mask = reduce_mask(None, x.dim()).map_err(|e| e.message)?;
            Plan::new(&x, &mask, keepdim).map_err(|e| e.message)?
        }
        Some(dim) => {
            let w = wrap_dim(dim, x.dim()).map_err(|e| e.message)? as i64;
            check_dim_nonempty(&x, dim, w, &format!("{name}()"))?;
            let mask = reduce_mask(Some(&[dim]), x.dim()).map_err(|e| e.message)?;
            Plan::new(&x, &mask, keepdim).map_err(|e| e.message)?
        }
    };
    let (_, indices) = values_indices(&x, &plan, is_max)?;
    finish(indices, &outs)
}

fn aminmax(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let keepdim = a.bool("keepdim", false);
    let plan = match a.opt_int("dim") {
        None => {
            if x.numel() == 0 {
                return Err("aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity.".into());
            }
            let mask = reduce_mask(None, x.dim()).map_err(|e| e.message)?;
            Plan::new(&x, &mask, keepdim).map_err(|e| e.message)?
        }
        Some(dim) => {
            let w = wrap_dim(dim, x.dim()).map_err(|e| e.message)? as i64;
            check_dim_nonempty(&x, dim, w, "aminmax")?;
            let mask = reduce_mask(Some(&[dim]), x.dim()).map_err(|e| e.message)?;
            Plan::new(&x, &mask, keepdim).map_err(|e| e.message)?
        }
    };
    for out in &outs {
        check_out_dtype(out, x.dtype())?;
    }
    let (lo, _) = values_indices(&x, &plan, false)?;
    let (hi, _) = values_indices(&x, &plan, true)?;
    finish2(lo, hi, &outs)
}
