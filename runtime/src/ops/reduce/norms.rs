//! Matrix norms and the norm operators built on the vector norm: `linalg_matrix_norm`
//! (orders ±1, ±2, ±inf, 'fro', 'nuc'), `linalg_norm`, `frobenius_norm`, `nuclear_norm`,
//! `linalg_svdvals`, `renorm`, `dist`, and the weight-norm operators (`_weight_norm`,
//! `_weight_norm_interface`, `norm_except_dim`), following PyTorch's compositions and
//! checks. Singular values come from one-sided Jacobi rotations in float64.

use super::args::{build, Args, Scalar};
use super::output::{finish, st_name};
use super::stats::{vector_norm, NormName};
use crate::ivalue::IValue;
use crate::ops::args::{err, sizes_str};
use crate::ops::nn::work::to_contiguous;
use crate::ops::registry::{has_tensor_input, Registry};
use crate::tensor::{promote_types, wrap_dim, DType, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    r.add("aten::linalg_matrix_norm", |g, n| {
        build(g, n, matrix_norm_op)
    });
    r.add("aten::linalg_norm", |g, n| build(g, n, linalg_norm_op));
    r.add("aten::frobenius_norm", |g, n| build(g, n, frobenius_op));
    r.add("aten::nuclear_norm", |g, n| build(g, n, nuclear_op));
    r.add("aten::linalg_svdvals", |g, n| build(g, n, svdvals_op));
    r.add_if("aten::renorm", has_tensor_input, |g, n| {
        build(g, n, renorm_op)
    });
    r.add("aten::renorm_", |g, n| build(g, n, renorm_op));
    r.add("aten::dist", |g, n| build(g, n, dist_op));
    r.add("aten::_weight_norm", |g, n| build(g, n, weight_norm_op));
    r.add("aten::_weight_norm_interface", |g, n| {
        build(g, n, weight_norm_interface_op)
    });
    r.add("aten::norm_except_dim", |g, n| {
        build(g, n, norm_except_dim_op)
    });
}

/// A matrix norm order.
#[derive(Clone, Debug, PartialEq)]
enum Ord {
    Number(f64),
    Fro,
    Nuc,
}

fn show_number(v: f64) -> String {
    if v.is_infinite() {
        if v > 0.0 { "inf" } else { "-inf" }.to_string()
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

fn ord_of(s: Scalar) -> Result<Ord, String> {
    match s {
        Scalar::Str(t) if t == "fro" => Ok(Ord::Fro),
        Scalar::Str(t) if t == "nuc" => Ok(Ord::Nuc),
        Scalar::Str(t) => Err(format!("linalg.matrix_norm: Order {t} not supported.")),
        other => Ok(Ord::Number(other.to_f64().unwrap_or(2.0))),
    }
}

/// PyTorch's `_linalg_matrix_norm_checks`; returns the wrapped dims.
fn matrix_checks(
    x: &Tensor,
    dims: &[i64],
    dtype: Option<DType>,
    low_precision: bool,
) -> Result<[usize; 2], String> {
    if x.dim() < 2 {
        return Err(
            "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.".into(),
        );
    }
    if !x.dtype().is_floating() {
        return Err(format!(
            "linalg.matrix_norm: Expected a floating point or complex tensor as input. Got {}",
            st_name(x.dtype())
        ));
    }
    if !low_precision && matches!(x.dtype(), DType::F16 | DType::BF16) {
        return Err(format!(
            "linalg.matrix_norm: Low precision dtypes not supported. Got {}",
            st_name(x.dtype())
        ));
    }
    if dims.len() != 2 {
        return Err(format!(
            "linalg.matrix_norm: dim must be a 2-tuple. Got {}",
            dims.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    let d0 = wrap_dim(dims[0], x.dim()).map_err(err)?;
    let d1 = wrap_dim(dims[1], x.dim()).map_err(err)?;
    if d0 == d1 {
        return Err(format!(
            "linalg.matrix_norm: dims must be different. Got ({d0}, {d1})"
        ));
    }
    if let Some(d) = dtype {
        if !d.is_floating() {
            return Err(format!(
                "linalg.matrix_norm: dtype should be floating point or complex, but got {}",
                st_name(d)
            ));
        }
    }
    Ok([d0, d1])
}

/// `linalg_matrix_norm(A, ord, dim, keepdim, dtype)`.
fn matrix_norm(
    x: &Tensor,
    ord: &Ord,
    dims: &[i64],
    keepdim: bool,
    dtype: Option<DType>,
) -> Result<Tensor, String> {
    match ord {
        Ord::Number(o) => {
            let a = o.abs();
            if !(a == 2.0 || a == 1.0 || a == f64::INFINITY) {
                return Err(format!(
                    "linalg.matrix_norm: Order {} not supported.",
                    show_number(*o)
                ));
            }
        }
        Ord::Fro | Ord::Nuc => {}
    }
    let low_precision =
        !matches!(ord, Ord::Nuc) && *ord != Ord::Number(2.0) && *ord != Ord::Number(-2.0);
    let [d0, d1] = matrix_checks(x, dims, dtype, low_precision)?;
    match *ord {
        Ord::Fro => vector_norm(
            x,
            2.0,
            Some(&[d0 as i64, d1 as i64]),
            keepdim,
            dtype,
            NormName::VectorNorm,
            None,
        ),
        Ord::Nuc => singular_reduce(x, [d0, d1], keepdim, dtype, |s| s.iter().sum()),
        Ord::Number(o) if o.abs() == 2.0 => {
            singular_reduce(x, [d0, d1], keepdim, dtype, move |s| {
                let pick = if o > 0.0 { s.first() } else { s.last() };
                pick.copied().unwrap_or(f64::NAN)
            })
        }
        Ord::Number(o) => {
            // The inf norm is the 1 norm of the transpose: sums over one dim, then the
            // max (min for negative orders) over the other.
            let (mut first, mut second) = (d0, d1);
            if o.abs() == f64::INFINITY {
                std::mem::swap(&mut first, &mut second);
            }
            if !keepdim && first < second {
                second -= 1;
            }
            let sums = vector_norm(
                x,
                1.0,
                Some(&[first as i64]),
                keepdim,
                dtype,
                NormName::VectorNorm,
                None,
            )?;
            extreme(&sums, second, keepdim, o > 0.0)
        }
    }
}

/// The max (or min) of `t` over dim `d`, NaN propagating, as `amax`/`amin`.
fn extreme(t: &Tensor, d: usize, keepdim: bool, max: bool) -> Result<Tensor, String> {
    let sizes = t.sizes();
    let moved = move_last(t, d).map_err(err)?.contiguous().map_err(err)?;
    let len = sizes[d] as usize;
    if len == 0 {
        return Err(format!(
            "{}(): Expected reduction dim {d} to have non-zero size.",
            if max { "amax" } else { "amin" }
        ));
    }
    let v: Vec<f64> = moved.to_vec::<f64>();
    let vals: Vec<f64> = v
        .chunks(len)
        .map(|c| {
            c.iter().copied().fold(c[0], |m, x| {
                if m.is_nan() || x.is_nan() {
                    f64::NAN
                } else if (max && x > m) || (!max && x < m) {
                    x
                } else {
                    m
                }
            })
        })
        .collect();
    let mut shape: Vec<i64> = sizes.to_vec();
    if keepdim {
        shape[d] = 1;
    } else {
        shape.remove(d);
    }
    super::plan::from_f64(&vals, &shape, t.dtype()).map_err(err)
}

/// `t` with dim `d` moved last (a view).
fn move_last(t: &Tensor, d: usize) -> TensorResult<Tensor> {
    let nd = t.dim() as i64;
    let mut perm: Vec<i64> = (0..nd).filter(|&i| i != d as i64).collect();
    perm.push(d as i64);
    t.permute(&perm)
}

/// `f` of the singular values of each matrix over dims `dims`.
fn singular_reduce(
    x: &Tensor,
    dims: [usize; 2],
    keepdim: bool,
    dtype: Option<DType>,
    f: impl Fn(&[f64]) -> f64,
) -> Result<Tensor, String> {
    let x = match dtype {
        Some(d) => to_contiguous(x, d).map_err(err)?,
        None => x.clone(),
    };
    let nd = x.dim() as i64;
    let mut perm: Vec<i64> = (0..nd)
        .filter(|&i| i != dims[0] as i64 && i != dims[1] as i64)
        .collect();
    perm.extend([dims[0] as i64, dims[1] as i64]);
    let moved = x.permute(&perm).map_err(err)?;
    let sv = singular_values(&moved).map_err(err)?;
    let sizes = sv.sizes();
    let k = *sizes.last().unwrap_or(&0) as usize;
    let v = sv.to_vec::<f64>();
    let vals: Vec<f64> = if k == 0 {
        vec![f(&[]); sizes[..sizes.len() - 1].iter().product::<i64>() as usize]
    } else {
        v.chunks(k).map(&f).collect()
    };
    let mut shape: Vec<i64> = x.sizes().to_vec();
    if keepdim {
        shape[dims[0]] = 1;
        shape[dims[1]] = 1;
    } else {
        let (a, b) = (dims[0].max(dims[1]), dims[0].min(dims[1]));
        shape.remove(a);
        shape.remove(b);
    }
    super::plan::from_f64(&vals, &shape, x.dtype()).map_err(err)
}

/// The singular values (descending) of each matrix of `[..., m, n]`, in `x`'s dtype.
fn singular_values(x: &Tensor) -> TensorResult<Tensor> {
    let sizes = x.sizes();
    let nd = sizes.len();
    let (m, n) = (sizes[nd - 2] as usize, sizes[nd - 1] as usize);
    let k = m.min(n);
    let data = x.contiguous()?.to_vec::<f64>();
    // The matrix count (also when the matrices are empty).
    let count = sizes[..nd - 2].iter().product::<i64>() as usize;
    let mut out = Vec::with_capacity(count * k);
    for b in 0..count {
        let a = &data[b * m * n..(b + 1) * m * n];
        out.extend(jacobi_singular_values(a, m, n));
    }
    let mut shape = sizes[..nd - 2].to_vec();
    shape.push(k as i64);
    super::plan::from_f64(&out, &shape, x.dtype())
}

/// One-sided Jacobi: rotates pairs of columns of the (tall) matrix until they are
/// orthogonal; the singular values are then the column norms.
fn jacobi_singular_values(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    // Work on columns of the taller orientation: rows r, columns c with r >= c.
    let (r, c) = if m >= n { (m, n) } else { (n, m) };
    let mut cols: Vec<Vec<f64>> = (0..c)
        .map(|j| {
            (0..r)
                .map(|i| if m >= n { a[i * n + j] } else { a[j * n + i] })
                .collect()
        })
        .collect();
    if cols.iter().flatten().any(|v| !v.is_finite()) {
        return vec![f64::NAN; c];
    }
    for _sweep in 0..60 {
        let mut rotated = false;
        for p in 0..c {
            for q in p + 1..c {
                let (alpha, beta, gamma) = {
                    let (cp, cq) = (&cols[p], &cols[q]);
                    let mut s = (0.0, 0.0, 0.0);
                    for i in 0..r {
                        s.0 += cp[i] * cp[i];
                        s.1 += cq[i] * cq[i];
                        s.2 += cp[i] * cq[i];
                    }
                    s
                };
                if gamma == 0.0 || gamma.abs() <= 1e-15 * (alpha * beta).sqrt() {
                    continue;
                }
                rotated = true;
                let zeta = (beta - alpha) / (2.0 * gamma);
                let t = zeta.signum() / (zeta.abs() + (1.0 + zeta * zeta).sqrt());
                let t = if zeta == 0.0 { 1.0 } else { t };
                let cs = 1.0 / (1.0 + t * t).sqrt();
                let sn = cs * t;
                let (head, tail) = cols.split_at_mut(q);
                for (u, v) in head[p].iter_mut().zip(tail[0].iter_mut()) {
                    let (a, b) = (*u, *v);
                    *u = cs * a - sn * b;
                    *v = sn * a + cs * b;
                }
            }
        }
        if !rotated {
            break;
        }
    }
    let mut s: Vec<f64> = cols
        .iter()
        .map(|col| col.iter().map(|v| v * v).sum::<f64>().sqrt())
        .collect();
    s.sort_by(|a, b| b.partial_cmp(a).unwrap_or(std::cmp::Ordering::Equal));
    s
}

fn matrix_norm_op(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let ord = a.scalar("ord").map_or(Ok(Ord::Fro), ord_of)?;
    let dims = a.dims("dim").unwrap_or_else(|| vec![-2, -1]);
    let r = matrix_norm(&x, &ord, &dims, a.bool("keepdim", false), a.dtype("dtype")?)?;
    finish(r, &a.outs()?)
}

fn linalg_norm_op(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let dims = a.dims("dim");
    let keepdim = a.bool("keepdim", false);
    let dtype = a.dtype("dtype")?;
    let ord = a.scalar("ord");
    let string = matches!(ord, Some(Scalar::Str(_)));
    if let Some(d) = &dims {
        if d.len() != 1 && d.len() != 2 {
            return Err(format!(
                "linalg.norm: If dim is specified, it must be of length 1 or 2. Got {}",
                sizes_str(d)
            ));
        }
    } else if ord.is_some() && x.dim() != 1 && x.dim() != 2 {
        return Err(format!(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {}D.",
            x.dim()
        ));
    }
    let r = match ord {
        Some(o) if string || dims.as_ref().map_or(x.dim() == 2, |d| d.len() == 2) => {
            let d = dims.unwrap_or_else(|| vec![0, 1]);
            matrix_norm(&x, &ord_of(o)?, &d, keepdim, dtype)?
        }
        o => {
            let p = o.and_then(|s| s.to_f64()).unwrap_or(2.0);
            vector_norm(
                &x,
                p,
                dims.as_deref(),
                keepdim,
                dtype,
                NormName::VectorNorm,
                None,
            )?
        }
    };
    finish(r, &a.outs()?)
}

fn frobenius_op(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let dims = a.dims("dim").unwrap_or_default();
    if dims.len() > 2 {
        return Err(format!(
            "Expected at most 2 dimensions, but got {} dimensions instead.",
            dims.len()
        ));
    }
    let r = vector_norm(
        &x,
        2.0,
        Some(&dims),
        a.bool("keepdim", false),
        None,
        NormName::VectorNorm,
        None,
    )?;
    finish(r, &a.outs()?)
}

fn nuclear_op(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let dims = a.dims("dim").unwrap_or_else(|| vec![-2, -1]);
    let r = matrix_norm(&x, &Ord::Nuc, &dims, a.bool("keepdim", false), None)?;
    finish(r, &a.outs()?)
}

fn svdvals_op(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("A")?;
    if x.dim() < 2 {
        return Err("linalg.svd: The input tensor A must have at least 2 dimensions.".into());
    }
    if !x.dtype().is_floating() {
        return Err(format!(
            "linalg.svd: Expected a floating point or complex tensor as input. Got {}",
            st_name(x.dtype())
        ));
    }
    if matches!(x.dtype(), DType::F16 | DType::BF16) {
        return Err(format!(
            "linalg.svd: Low precision dtypes not supported. Got {}",
            st_name(x.dtype())
        ));
    }
    finish(singular_values(&x).map_err(err)?, &a.outs()?)
}

/// `renorm(self, p, dim, maxnorm)`: each slice along `dim` whose `p`-norm exceeds `maxnorm`
/// is scaled down to it.
fn renorm_op(a: &Args) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let p = a.scalar("p").and_then(|s| s.to_f64()).unwrap_or(2.0);
    let maxnorm = a.scalar("maxnorm").and_then(|s| s.to_f64()).unwrap_or(0.0);
    if p <= 0.0 || p.is_nan() {
        return Err("renorm: non-positive-norm not supported".into());
    }
    if maxnorm < 0.0 {
        return Err(format!(
            "renorm: expected maxnorm to be >= 0 but got {}",
            show_number(maxnorm)
        ));
    }
    if x.dim() <= 1 {
        return Err(format!(
            "renorm: input needs at least 2 dimensions, got {} dimensions",
            x.dim()
        ));
    }
    let d = wrap_dim(a.int("dim", 0), x.dim()).map_err(err)?;
    let others: Vec<i64> = (0..x.dim() as i64).filter(|&i| i != d as i64).collect();
    let norms = vector_norm(&x, p, Some(&others), true, None, NormName::VectorNorm, None)?;
    let factors: Vec<f64> = norms
        .to_vec::<f64>()
        .into_iter()
        .map(|n| {
            let m = x.dtype().round(maxnorm);
            if n > m {
                x.dtype().round(m / (n + 1e-7))
            } else {
                1.0
            }
        })
        .collect();
    let r = scale_along(&x, d, &factors).map_err(err)?;
    if a.op_name() == "renorm_" {
        x.copy_from(&r).map_err(err)?;
        return Ok(vec![IValue::Tensor(x)]);
    }
    finish(r, &a.outs()?)
}

/// `x * factor[i]` for the slices `i` along dim `d`, in `x`'s dtype.
fn scale_along(x: &Tensor, d: usize, factors: &[f64]) -> TensorResult<Tensor> {
    let sizes = x.sizes();
    let inner: usize = sizes[d + 1..].iter().product::<i64>() as usize;
    let len = sizes[d] as usize;
    let v = x.contiguous()?.to_vec::<f64>();
    let out: Vec<f64> = v
        .iter()
        .enumerate()
        .map(|(k, &e)| e * factors[(k / inner.max(1)) % len.max(1)])
        .collect();
    super::plan::from_f64(&out, &sizes, x.dtype())
}

/// `dist(self, other, p)`: the `p`-norm of `self - other` (broadcast).
fn dist_op(a: &Args) -> Result<Vec<IValue>, String> {
    let (x, y) = (a.tensor("self")?, a.tensor("other")?);
    let p = a.scalar("p").and_then(|s| s.to_f64()).unwrap_or(2.0);
    let dtype = promote_types(x.dtype(), y.dtype());
    let shape = crate::tensor::broadcast_shapes(&x.sizes(), &y.sizes()).map_err(err)?;
    let xe = to_contiguous(&x.expand(&shape).map_err(err)?, DType::F64).map_err(err)?;
    let ye = to_contiguous(&y.expand(&shape).map_err(err)?, DType::F64).map_err(err)?;
    let diff: Vec<f64> = xe
        .to_vec::<f64>()
        .iter()
        .zip(ye.to_vec::<f64>())
        .map(|(a, b)| dtype.round(a - b))
        .collect();
    let d = super::plan::from_f64(&diff, &shape, dtype).map_err(err)?;
    let r = vector_norm(&d, p, None, false, None, NormName::VectorNorm, None)?;
    finish(r, &a.outs()?)
}

/// `norm_except_dim(v, pow, dim)`: the norm over every dim but `dim`, kept as size-1 dims
/// (over everything for dim -1).
fn norm_except_dim(v: &Tensor, pow: f64, dim: i64) -> Result<Tensor, String> {
    if dim == -1 {
        return vector_norm(v, pow, None, false, None, NormName::Norm, None);
    }
    let d = wrap_dim(dim, v.dim()).map_err(err)?;
    let others: Vec<i64> = (0..v.dim() as i64).filter(|&i| i != d as i64).collect();
    vector_norm(v, pow, Some(&others), true, None, NormName::Norm, None)
}

fn norm_except_dim_op(a: &Args) -> Result<Vec<IValue>, String> {
    let v = a.tensor("v")?;
    let r = norm_except_dim(&v, a.int("pow", 2) as f64, a.int("dim", 0))?;
    Ok(vec![IValue::Tensor(r)])
}

/// `v * (g / norm_except_dim(v, 2, dim))`, and the norms.
fn weight_norm(v: &Tensor, g: &Tensor, dim: i64) -> Result<(Tensor, Tensor), String> {
    let norms = norm_except_dim(v, 2.0, dim)?;
    let dtype = promote_types(v.dtype(), g.dtype());
    if dtype == DType::F32 && norms.dtype() == DType::F32 {
        // The same two roundings (`g / norm`, then `v *` it) in the vectorized kernels.
        use crate::ops::pointwise::fast::{binary, Binary};
        use crate::tensor::elementwise::Arg;
        let scale = binary(
            Binary::Div,
            &Arg::Tensor(g.clone()),
            &Arg::Tensor(norms.clone()),
            None,
        );
        if let Some(w) =
            scale.and_then(|s| binary(Binary::Mul, &Arg::Tensor(v.clone()), &Arg::Tensor(s), None))
        {
            return Ok((w, norms));
        }
    }
    let shape = crate::tensor::broadcast_shapes(&v.sizes(), &g.sizes()).map_err(err)?;
    let shape = crate::tensor::broadcast_shapes(&shape, &norms.sizes()).map_err(err)?;
    let read = |t: &Tensor| -> Result<Vec<f64>, String> {
        Ok(to_contiguous(&t.expand(&shape).map_err(err)?, DType::F64)
            .map_err(err)?
            .to_vec::<f64>())
    };
    let (vv, gv, nv) = (read(v)?, read(g)?, read(&norms)?);
    let w: Vec<f64> = vv
        .iter()
        .zip(gv.iter().zip(&nv))
        .map(|(&x, (&gg, &n))| dtype.round(x * dtype.round(gg / n)))
        .collect();
    Ok((
        super::plan::from_f64(&w, &shape, dtype).map_err(err)?,
        norms,
    ))
}

fn weight_norm_op(a: &Args) -> Result<Vec<IValue>, String> {
    let (w, _) = weight_norm(&a.tensor("v")?, &a.tensor("g")?, a.int("dim", 0))?;
    Ok(vec![IValue::Tensor(w)])
}

fn weight_norm_interface_op(a: &Args) -> Result<Vec<IValue>, String> {
    let (w, n) = weight_norm(&a.tensor("v")?, &a.tensor("g")?, a.int("dim", 0))?;
    Ok(vec![IValue::Tensor(w), IValue::Tensor(n)])
}

/// Rounding a float64 to a dtype and back.
trait RoundTo {
    fn round(self, v: f64) -> f64;
}

impl RoundTo for DType {
    fn round(self, v: f64) -> f64 {
        use crate::tensor::Element;
        crate::dispatch_dtype!(self, T => T::from_f64(v).to_f64())
    }
}
