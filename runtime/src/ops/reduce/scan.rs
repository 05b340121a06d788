//! Scans along one dim: `cumsum`/`cumprod` (with `dtype=`, `out=` and in place) and
//! `cummax`/`cummin` with indices. Sums accumulate in f64 (PyTorch's CPU accumulate type for
//! float) or wrapping int64.

use super::args::{build, Args};
use super::output::{finish, finish2, st_name};
use super::plan::{map_groups, reduce_mask, scatter, Plan, Val};
use crate::ivalue::IValue;
use crate::ops::args::err;
use crate::ops::registry::{has_tensor_input, Registry};
use crate::tensor::{wrap_dim, DType, Tensor};

pub fn register(r: &mut Registry) {
    r.add_if("aten::cumsum", has_tensor_input, |g, n| build(g, n, cumsum));
    r.add_if("aten::cumsum_", has_tensor_input, |g, n| {
        build(g, n, cumsum)
    });
    r.add_if("aten::cumprod", has_tensor_input, |g, n| {
        build(g, n, cumprod)
    });
    r.add_if("aten::cumprod_", has_tensor_input, |g, n| {
        build(g, n, cumprod)
    });
    r.add_if("aten::cummax", has_tensor_input, |g, n| build(g, n, cummax));
    r.add_if("aten::cummin", has_tensor_input, |g, n| build(g, n, cummin));
}

/// The lines along `dim` of `x` (one line for a 0-dim tensor).
fn line_mask(x: &Tensor, dim: i64) -> Result<Vec<bool>, String> {
    wrap_dim(dim, x.dim()).map_err(err)?;
    reduce_mask(Some(&[dim]), x.dim()).map_err(err)
}

/// Runs `scan` over every line of `x` along `dim` into a new tensor of `dtype`.
fn scan_lines<V: Val>(
    x: &Tensor,
    mask: &[bool],
    dtype: DType,
    cast: Option<DType>,
    scan: impl Fn(&[V]) -> Vec<V> + Sync,
) -> Result<Tensor, String> {
    let plan = Plan::new(x, mask, true).map_err(err)?;
    let lines = map_groups(x, &plan, cast, scan);
    let out = Tensor::zeros(&x.sizes(), dtype).map_err(err)?;
    let out_plan = Plan::new(&out, mask, true).map_err(err)?;
    scatter(&out, &out_plan, &lines);
    Ok(out)
}

fn cumulative(a: &Args, is_sum: bool) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let in_place = a.op_name().ends_with('_');
    let dim = a.int("dim", 0);
    let dtype = a.dtype("dtype")?.unwrap_or_else(|| {
        if in_place {
            x.dtype()
        } else if let Some(out) = outs.first() {
            out.dtype()
        } else if x.dtype().is_floating() {
            x.dtype()
        } else {
            DType::I64
        }
    });
    let name = if is_sum { "cumsum" } else { "cumprod" };
    if dtype == DType::Bool {
        return Err(format!("\"{name}_out_cpu\" not implemented for 'Bool'"));
    }
    let mask = line_mask(&x, dim)?;
    let r = if dtype.is_floating() {
        scan_lines::<f64>(&x, &mask, dtype, Some(dtype), |line| {
            let mut acc = if is_sum { 0.0 } else { 1.0 };
            line.iter()
                .map(|&v| {
                    acc = if is_sum { acc + v } else { acc * v };
                    acc
                })
                .collect()
        })?
    } else {
        scan_lines::<i64>(&x, &mask, dtype, None, |line| {
            let mut acc: i64 = if is_sum { 0 } else { 1 };
            line.iter()
                .map(|&v| {
                    acc = if is_sum {
                        acc.wrapping_add(v)
                    } else {
                        acc.wrapping_mul(v)
                    };
                    acc
                })
                .collect()
        })?
    };
    if in_place {
        x.copy_from(&r).map_err(err)?;
        return Ok(vec![IValue::Tensor(x)]);
    }
    finish(r, &outs)
}

fn cumsum(a: &Args) -> Result<Vec<IValue>, String> {
    cumulative(a, true)
}

fn cumprod(a: &Args) -> Result<Vec<IValue>, String> {
    cumulative(a, false)
}

/// Running max (or min) and where it was found: NaN sticks, and an equal value moves the
/// index forward (PyTorch compares with >= and <=).
fn running<V: Val + PartialOrd>(line: &[V], is_max: bool) -> Vec<(V, i64)> {
    let mut out = Vec::with_capacity(line.len());
    let Some(&first) = line.first() else {
        return out;
    };
    let (mut best, mut at) = (first, 0i64);
    for (i, &v) in line.iter().enumerate() {
        let take = v.is_nan() || (!best.is_nan() && if is_max { v >= best } else { v <= best });
        if take {
            best = v;
            at = i as i64;
        }
        out.push((best, at));
    }
    out
}

fn cum_extreme(a: &Args, is_max: bool) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    if outs.len() == 2 {
        for (out, want) in [(&outs[0], x.dtype()), (&outs[1], DType::I64)] {
            if out.dtype() != want {
                return Err(format!(
                    "expected scalar_type {} but found {}",
                    st_name(want),
                    st_name(out.dtype())
                ));
            }
        }
    }
    let mask = line_mask(&x, a.int("dim", 0))?;
    let (values, indices) = if x.dtype().is_floating() {
        let v = scan_lines::<f64>(&x, &mask, x.dtype(), None, |l| {
            running(l, is_max).into_iter().map(|p| p.0).collect()
        })?;
        let i = scan_lines::<f64>(&x, &mask, DType::I64, None, |l| {
            running(l, is_max).into_iter().map(|p| p.1 as f64).collect()
        })?;
        (v, i)
    } else {
        let v = scan_lines::<i64>(&x, &mask, x.dtype(), None, |l| {
            running(l, is_max).into_iter().map(|p| p.0).collect()
        })?;
        let i = scan_lines::<i64>(&x, &mask, DType::I64, None, |l| {
            running(l, is_max).into_iter().map(|p| p.1).collect()
        })?;
        (v, i)
    };
    finish2(values, indices, &outs)
}

fn cummax(a: &Args) -> Result<Vec<IValue>, String> {
    cum_extreme(a, true)
}

fn cummin(a: &Args) -> Result<Vec<IValue>, String> {
    cum_extreme(a, false)
}
