//! `var`/`std` (with `unbiased` or `correction`), `var_mean`/`std_mean`, vector norms
//! (`norm` and `linalg_vector_norm`: p = 2, 1, inf, -inf, 0 and any other p) and
//! `logsumexp`. Two passes in f64: the mean (or max) of each group, then the deviations.

use super::args::{build, Args, Scalar};
use super::output::{check_out_dtype, finish, finish2, st_name};
use super::plan::{
    fold, fold_indexed, fold_runs, from_f64, pairwise_sum, reduce_mask, trailing_runs, Plan,
};
use crate::ivalue::IValue;
use crate::ops::args::err;
use crate::ops::registry::{has_tensor_input, Registry};
use crate::tensor::elementwise::{can_cast, DEFAULT_FLOAT};
use crate::tensor::{promote_types, wrap_dim, Tensor};

pub fn register(r: &mut Registry) {
    r.add_if("aten::var", has_tensor_input, |g, n| build(g, n, var));
    r.add_if("aten::std", has_tensor_input, |g, n| build(g, n, std));
    r.add_if("aten::var_mean", has_tensor_input, |g, n| {
        build(g, n, var_mean)
    });
    r.add_if("aten::std_mean", has_tensor_input, |g, n| {
        build(g, n, std_mean)
    });
    r.add_if("aten::norm", has_tensor_input, |g, n| build(g, n, norm));
    r.add_if("aten::linalg_vector_norm", has_tensor_input, |g, n| {
        build(g, n, norm)
    });
    r.add_if("aten::logsumexp", has_tensor_input, |g, n| {
        build(g, n, logsumexp)
    });
}

/// Per group: the variance with `correction` and the mean.
fn moments(x: &Tensor, plan: &Plan, mask: &[bool], correction: f64) -> (Vec<f64>, Vec<f64>) {
    if let Some(found) = run_moments(x, mask, correction) {
        return found;
    }
    let n = plan.group_len as f64;
    let sums = fold(x, plan, None, |c, _| pairwise_sum(c), |a, b| a + b);
    let means: Vec<f64> = sums.iter().map(|s| s / n).collect();
    let m2 = fold_indexed(
        x,
        plan,
        None,
        |g, c: &[f64], _| {
            let m = means[g];
            let d: Vec<f64> = c.iter().map(|&v| (v - m) * (v - m)).collect();
            pairwise_sum(&d)
        },
        |a, b| a + b,
    );
    let divisor = (n - correction).max(0.0);
    (m2.iter().map(|s| s / divisor).collect(), means)
}

/// Count, mean and sum of squared deviations of one piece of a run.
#[derive(Copy, Clone)]
struct Piece {
    n: f64,
    mean: f64,
    m2: f64,
}

/// Two passes over one contiguous piece, in eight f64 lanes (vectorized).
fn piece<T: crate::tensor::Element>(s: &[T]) -> Piece {
    fn lanes<T: crate::tensor::Element>(s: &[T], f: impl Fn(f64) -> f64) -> f64 {
        let mut acc = [0f64; 8];
        let mut chunks = s.chunks_exact(8);
        for c in &mut chunks {
            for k in 0..8 {
                acc[k] += f(c[k].to_f64());
            }
        }
        let tail: f64 = chunks.remainder().iter().map(|v| f(v.to_f64())).sum();
        ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])) + tail
    }
    let n = s.len() as f64;
    if s.is_empty() {
        return Piece {
            n,
            mean: 0.0,
            m2: 0.0,
        };
    }
    let mean = lanes(s, |v| v) / n;
    let m2 = lanes(s, |v| (v - mean) * (v - mean));
    Piece { n, mean, m2 }
}

/// Chan et al.'s merge of two pieces' moments (stable: no large-value cancellation).
fn merge(a: Piece, b: Piece) -> Piece {
    let n = a.n + b.n;
    if a.n == 0.0 || b.n == 0.0 {
        return if a.n == 0.0 { b } else { a };
    }
    let delta = b.mean - a.mean;
    Piece {
        n,
        mean: a.mean + delta * (b.n / n),
        m2: a.m2 + b.m2 + delta * delta * (a.n * b.n / n),
    }
}

/// [`moments`] of a contiguous float32/float64 tensor whose reduced dims are trailing: read
/// straight from its elements, in parallel pieces. `None` leaves it to the general path.
fn run_moments(x: &Tensor, mask: &[bool], correction: f64) -> Option<(Vec<f64>, Vec<f64>)> {
    let (groups, len) = trailing_runs(x, mask)?;
    if len == 0 {
        return None;
    }
    let pieces = match x.dtype() {
        crate::tensor::DType::F32 => fold_runs::<f32, Piece>(x, groups, len, piece, merge),
        crate::tensor::DType::F64 => fold_runs::<f64, Piece>(x, groups, len, piece, merge),
        _ => return None,
    };
    let divisor = (len as f64 - correction).max(0.0);
    Some((
        pieces.iter().map(|p| p.m2 / divisor).collect(),
        pieces.iter().map(|p| p.mean).collect(),
    ))
}

/// What a var/std family call asks for: the group plan and the correction.
fn var_setup(a: &Args, name: &str) -> Result<(Tensor, Plan, Vec<bool>, f64), String> {
    let x = a.tensor("self")?;
    if !x.dtype().is_floating() {
        return Err(format!(
            "{name} only support floating point and complex dtypes"
        ));
    }
    let correction = if a.has("correction") {
        match a.scalar("correction") {
            Some(s) => s.to_f64().unwrap_or(1.0),
            None => 1.0,
        }
    } else {
        a.bool("unbiased", true) as i64 as f64
    };
    let dims = a.dims("dim");
    let mask = reduce_mask(dims.as_deref(), x.dim()).map_err(err)?;
    let plan = Plan::new(&x, &mask, a.bool("keepdim", false)).map_err(err)?;
    Ok((x, plan, mask, correction))
}

fn var_std(a: &Args, sqrt: bool) -> Result<Vec<IValue>, String> {
    let (x, plan, mask, correction) = var_setup(a, "std and var")?;
    let outs = a.outs()?;
    if let Some(out) = outs.first() {
        if !can_cast(x.dtype(), out.dtype()) {
            return Err(format!(
                "result type {} can't be cast to the desired output type {}",
                st_name(x.dtype()),
                st_name(out.dtype())
            ));
        }
    }
    let (mut v, _) = moments(&x, &plan, &mask, correction);
    if sqrt {
        v.iter_mut().for_each(|s| *s = s.sqrt());
    }
    finish(
        from_f64(&v, &plan.out_sizes, x.dtype()).map_err(err)?,
        &outs,
    )
}

fn var(a: &Args) -> Result<Vec<IValue>, String> {
    var_std(a, false)
}

fn std(a: &Args) -> Result<Vec<IValue>, String> {
    var_std(a, true)
}

fn with_mean(a: &Args, sqrt: bool) -> Result<Vec<IValue>, String> {
    let name = if sqrt { "std_mean" } else { "var_mean" };
    let (x, plan, mask, correction) = var_setup(a, name)?;
    let outs = a.outs()?;
    let (mut v, means) = moments(&x, &plan, &mask, correction);
    if sqrt {
        v.iter_mut().for_each(|s| *s = s.sqrt());
    }
    let v = from_f64(&v, &plan.out_sizes, x.dtype()).map_err(err)?;
    let m = from_f64(&means, &plan.out_sizes, x.dtype()).map_err(err)?;
    finish2(v, m, &outs)
}

fn var_mean(a: &Args) -> Result<Vec<IValue>, String> {
    with_mean(a, false)
}

fn std_mean(a: &Args) -> Result<Vec<IValue>, String> {
    with_mean(a, true)
}

/// A norm order as PyTorch's messages print a Scalar: `2`, `-0.5`, `inf`.
fn show_ord(p: f64) -> String {
    if p.is_infinite() {
        if p > 0.0 { "inf" } else { "-inf" }.to_string()
    } else if p.fract() == 0.0 && p.abs() < 1e15 {
        format!("{}", p as i64)
    } else {
        format!("{p}")
    }
}

/// `norm` and `linalg_vector_norm`.
fn norm(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let ord_name = if a.has("ord") { "ord" } else { "p" };
    let ord = match a.scalar(ord_name) {
        None => 2.0,
        Some(Scalar::Str(s)) => {
            return Err(format!("linalg.vector_norm: unsupported norm order '{s}'"))
        }
        Some(s) => s.to_f64().unwrap_or(2.0),
    };
    let who = if a.op_name() == "norm" {
        NormName::Norm
    } else {
        NormName::VectorNorm
    };
    let dims = a.dims("dim").filter(|d| !d.is_empty());
    let r = vector_norm(
        &x,
        ord,
        dims.as_deref(),
        a.bool("keepdim", false),
        a.dtype("dtype")?,
        who,
        outs.first(),
    )?;
    finish(r, &outs)
}

/// Which operator's messages a vector norm gives.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(super) enum NormName {
    Norm,
    VectorNorm,
}

/// The vector `ord`-norm of `x` over `dims` (all dims when `None`), in `dtype` (the input's
/// when `None`); `out`'s dtype is checked before anything is computed.
pub(super) fn vector_norm(
    x: &Tensor,
    ord: f64,
    dims: Option<&[i64]>,
    keepdim: bool,
    dtype: Option<crate::tensor::DType>,
    who: NormName,
    out: Option<&Tensor>,
) -> Result<Tensor, String> {
    let x = x.clone();
    let is_norm = who == NormName::Norm;
    if !x.dtype().is_floating() {
        return Err(if is_norm {
            format!(
                "norm(): input dtype should be either floating point or complex. Got {} instead.",
                st_name(x.dtype())
            )
        } else {
            format!(
                "linalg.vector_norm: Expected a floating point or complex tensor as input. Got {}",
                st_name(x.dtype())
            )
        });
    }
    let dtype = match dtype {
        None => x.dtype(),
        Some(d) if !d.is_floating() => {
            return Err(if is_norm {
                format!(
                    "norm(): the desired output dtype should be either floating point or complex. Got {} instead.",
                    st_name(d)
                )
            } else {
                format!(
                    "linalg.vector_norm: dtype should be floating point or complex, but got {}",
                    st_name(d)
                )
            })
        }
        Some(d) => {
            if promote_types(x.dtype(), d) != d {
                return Err(format!(
                    "linalg.vector_norm: the dtype of the input ({}) should be convertible without narrowing to the specified dtype ({})",
                    st_name(x.dtype()),
                    st_name(d)
                ));
            }
            d
        }
    };
    if let Some(out) = out {
        check_out_dtype(out, dtype)?;
    }
    let dims = dims.map(|d| d.to_vec());
    if x.numel() == 0 && (ord < 0.0 || ord == f64::INFINITY) {
        match &dims {
            None => {
                return Err(format!(
                    "linalg.vector_norm cannot compute the {} norm on an empty tensor because the operation does not have an identity",
                    show_ord(ord)
                ))
            }
            Some(ds) => {
                for &d in ds {
                    let w = wrap_dim(d, x.dim()).map_err(err)?;
                    if x.dim() > 0 && x.sizes()[w] == 0 {
                        return Err(format!(
                            "linalg.vector_norm cannot compute the {} norm on the dimension {d}because this dimension is empty and the operation does not have an identity",
                            show_ord(ord)
                        ));
                    }
                }
            }
        }
    }
    let mask = reduce_mask(dims.as_deref(), x.dim()).map_err(err)?;
    let plan = Plan::new(&x, &mask, keepdim).map_err(err)?;
    let cast = Some(dtype);
    let vals: Vec<f64> = if ord.is_infinite() {
        let is_max = ord > 0.0;
        fold(
            &x,
            &plan,
            cast,
            |c: &[f64], _| {
                let mut best = if is_max { 0.0 } else { f64::INFINITY };
                for &v in c {
                    let v = v.abs();
                    if v.is_nan() || best.is_nan() {
                        best = f64::NAN;
                    } else if (is_max && v > best) || (!is_max && v < best) {
                        best = v;
                    }
                }
                best
            },
            move |p, q| {
                if p.is_nan() || q.is_nan() {
                    f64::NAN
                } else if is_max {
                    p.max(q)
                } else {
                    p.min(q)
                }
            },
        )
    } else if ord == 0.0 {
        fold(
            &x,
            &plan,
            cast,
            |c: &[f64], _| c.iter().filter(|&&v| v != 0.0).count() as f64,
            |p, q| p + q,
        )
    } else if ord == 1.0 {
        fold(
            &x,
            &plan,
            cast,
            |c: &[f64], _| pairwise_sum(&c.iter().map(|v| v.abs()).collect::<Vec<_>>()),
            |p, q| p + q,
        )
    } else if ord == 2.0 {
        let s = fold(
            &x,
            &plan,
            cast,
            |c: &[f64], _| pairwise_sum(&c.iter().map(|v| v * v).collect::<Vec<_>>()),
            |p, q| p + q,
        );
        s.into_iter().map(f64::sqrt).collect()
    } else {
        let s = fold(
            &x,
            &plan,
            cast,
            |c: &[f64], _| pairwise_sum(&c.iter().map(|v| v.abs().powf(ord)).collect::<Vec<_>>()),
            |p, q| p + q,
        );
        s.into_iter().map(|v| v.powf(1.0 / ord)).collect()
    };
    from_f64(&vals, &plan.out_sizes, dtype).map_err(err)
}

fn logsumexp(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    let dtype = if x.dtype().is_floating() {
        x.dtype()
    } else {
        DEFAULT_FLOAT
    };
    if let Some(out) = outs.first() {
        if !out.dtype().is_floating() {
            return Err(format!(
                "logsumexp(): Expected floating point type for result tensor, but got: {}",
                st_name(out.dtype())
            ));
        }
    }
    let dims = a.dims("dim").unwrap_or_default();
    if dims.is_empty() && x.dim() > 0 {
        // PyTorch reduces everything into a 0-dim result and then fails writing it back.
        let ones = vec!["1"; x.dim()].join(", ");
        return Err(format!(
            "output with shape [] doesn't match the broadcast shape [{ones}]"
        ));
    }
    let mask = reduce_mask(Some(&dims), x.dim()).map_err(err)?;
    let plan = Plan::new(&x, &mask, a.bool("keepdim", false)).map_err(err)?;
    let cast = Some(dtype);
    let maxes = fold(
        &x,
        &plan,
        cast,
        |c: &[f64], _| {
            c.iter().fold(f64::NEG_INFINITY, |m, &v| {
                if m.is_nan() || v.is_nan() {
                    f64::NAN
                } else {
                    m.max(v)
                }
            })
        },
        |p, q| {
            if p.is_nan() || q.is_nan() {
                f64::NAN
            } else {
                p.max(q)
            }
        },
    );
    // An infinite max would turn x - max into NaN; PyTorch shifts by 0 instead.
    let shift: Vec<f64> = maxes
        .iter()
        .map(|&m| if m.is_infinite() { 0.0 } else { m })
        .collect();
    let sums = fold_indexed(
        &x,
        &plan,
        cast,
        |g, c: &[f64], _| {
            let m = shift[g];
            pairwise_sum(&c.iter().map(|&v| (v - m).exp()).collect::<Vec<_>>())
        },
        |p, q| p + q,
    );
    let vals: Vec<f64> = sums.iter().zip(&shift).map(|(s, m)| s.ln() + m).collect();
    finish(from_f64(&vals, &plan.out_sizes, dtype).map_err(err)?, &outs)
}
