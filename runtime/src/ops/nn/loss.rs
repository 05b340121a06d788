//! Loss functions: `l1_loss`, `mse_loss`, `smooth_l1_loss`, `huber_loss`,
//! `binary_cross_entropy`, `binary_cross_entropy_with_logits`, `nll_loss` /
//! `nll_loss2d` / `nll_loss_nd` and `cross_entropy_loss` (class indices, probabilities,
//! label smoothing), with PyTorch's compositions and checks. Values are computed in float64
//! and rounded once to the result dtype; reductions are 0 none, 1 mean, 2 sum.

use crate::bail;
use crate::ivalue::IValue;
use crate::ops::args::sizes_str;
use crate::ops::nn::work::to_contiguous;
use crate::ops::registry::Registry;
use crate::ops::shape::call::{kernels, Call};
use crate::tensor::{broadcast_shapes, promote_types, DType, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::l1_loss", |o| pick(o, l1));
    kernels!(r, "aten::mse_loss", |o| pick(o, mse));
    kernels!(r, "aten::smooth_l1_loss", |o| pick(o, smooth_l1));
    kernels!(r, "aten::huber_loss", |o| pick(o, huber));
    kernels!(r, "aten::binary_cross_entropy", |o| pick(o, bce));
    kernels!(r, "aten::binary_cross_entropy_with_logits", |o| pick(
        o, bce_logits
    ));
    kernels!(r, "aten::nll_loss", |o| pick(o, nll));
    kernels!(r, "aten::nll_loss2d", |o| pick(o, nll));
    kernels!(r, "aten::nll_loss_nd", |o| pick(o, nll));
    kernels!(r, "aten::nll_loss_forward", |o| pick(o, nll_forward));
    kernels!(r, "aten::cross_entropy_loss", |o| pick(o, cross_entropy));
}

type Kernel = fn(&Call) -> TensorResult<IValue>;

fn pick(overload: &str, k: Kernel) -> Option<Kernel> {
    matches!(overload, "" | "output" | "out").then_some(k)
}

const NONE: i64 = 0;
const MEAN: i64 = 1;
const SUM: i64 = 2;

/// Two operands broadcast together: the shape, both as float64, the promoted dtype.
type Pair = (Vec<i64>, Vec<f64>, Vec<f64>, DType);

fn pair(a: &Tensor, b: &Tensor) -> TensorResult<Pair> {
    let shape = broadcast_shapes(&a.sizes(), &b.sizes())?.to_vec();
    let read = |t: &Tensor| -> TensorResult<Vec<f64>> {
        Ok(to_contiguous(&t.expand(&shape)?, DType::F64)?.to_vec::<f64>())
    };
    Ok((
        shape.clone(),
        read(a)?,
        read(b)?,
        promote_types(a.dtype(), b.dtype()),
    ))
}

/// A float64 tensor's values rounded into `dtype`.
fn tensor_of(values: Vec<f64>, shape: &[i64], dtype: DType) -> TensorResult<Tensor> {
    let t = Tensor::from_vec(values, shape)?;
    if dtype == DType::F64 {
        return Ok(t);
    }
    to_contiguous(&t, dtype)
}

/// PyTorch's `apply_loss_reduction` of elementwise losses.
fn reduce(values: Vec<f64>, shape: &[i64], reduction: i64, dtype: DType) -> TensorResult<IValue> {
    let r = match reduction {
        NONE => tensor_of(values, shape, dtype)?,
        MEAN => {
            let n = values.len() as f64;
            tensor_of(vec![values.iter().sum::<f64>() / n], &[], dtype)?
        }
        SUM => tensor_of(vec![values.iter().sum::<f64>()], &[], dtype)?,
        other => bail!("invalid loss reduction {other}: expected 0 (none), 1 (mean) or 2 (sum)"),
    };
    Ok(IValue::Tensor(r))
}

/// An elementwise loss `f(input, target)` with its reduction.
fn elementwise(c: &Call, f: impl Fn(f64, f64) -> f64) -> TensorResult<IValue> {
    let (shape, x, y, dtype) = pair(&c.tensor("self")?, &c.tensor("target")?)?;
    let v = x.iter().zip(&y).map(|(&a, &b)| f(a, b)).collect();
    reduce(v, &shape, c.int("reduction")?, dtype)
}

fn l1(c: &Call) -> TensorResult<IValue> {
    elementwise(c, |a, b| (a - b).abs())
}

fn mse(c: &Call) -> TensorResult<IValue> {
    elementwise(c, |a, b| (a - b) * (a - b))
}

fn smooth_l1(c: &Call) -> TensorResult<IValue> {
    let beta = c.float("beta")?;
    if beta < 0.0 {
        bail!("smooth_l1_loss does not support negative values for beta.");
    }
    if beta == 0.0 {
        return l1(c);
    }
    elementwise(c, |a, b| {
        let z = (a - b).abs();
        if z < beta {
            0.5 * z * z / beta
        } else {
            z - 0.5 * beta
        }
    })
}

fn huber(c: &Call) -> TensorResult<IValue> {
    let delta = c.float("delta")?;
    if delta <= 0.0 {
        bail!("huber_loss does not support non-positive values for delta.");
    }
    elementwise(c, |a, b| {
        let z = (a - b).abs();
        if z < delta {
            0.5 * z * z
        } else {
            delta * (z - 0.5 * delta)
        }
    })
}

/// `losses * weight` (broadcast) when a weight is given.
fn weighted(
    shape: Vec<i64>,
    losses: Vec<f64>,
    weight: Option<Tensor>,
) -> TensorResult<(Vec<i64>, Vec<f64>)> {
    let Some(w) = weight else {
        return Ok((shape, losses));
    };
    let l = Tensor::from_vec(losses, &shape)?;
    let (shape, l, w, _) = pair(&l, &w)?;
    Ok((shape, l.iter().zip(&w).map(|(a, b)| a * b).collect()))
}

fn bce(c: &Call) -> TensorResult<IValue> {
    let (shape, x, y, dtype) = pair(&c.tensor("self")?, &c.tensor("target")?)?;
    let mut losses = Vec::with_capacity(x.len());
    for (&p, &t) in x.iter().zip(&y) {
        if !(0.0..=1.0).contains(&p) {
            bail!("all elements of input should be between 0 and 1");
        }
        if !(0.0..=1.0).contains(&t) {
            bail!("all elements of target should be between 0 and 1");
        }
        losses.push((t - 1.0) * (-p).ln_1p().max(-100.0) - t * p.ln().max(-100.0));
    }
    let (shape, losses) = weighted(shape, losses, c.opt_tensor("weight")?)?;
    reduce(losses, &shape, c.int("reduction")?, dtype)
}

/// `log(sigmoid(x))` without overflow.
fn log_sigmoid(x: f64) -> f64 {
    x.min(0.0) - (-x.abs()).exp().ln_1p()
}

fn bce_logits(c: &Call) -> TensorResult<IValue> {
    let (x, t) = (c.tensor("self")?, c.tensor("target")?);
    // `(1 - target) * input` broadcasts to the target's shape first.
    let (shape, tv, xv, dtype) = pair(&t, &x)?;
    if shape.as_slice() != t.sizes().as_slice() {
        bail!(
            "output with shape {} doesn't match the broadcast shape {}",
            sizes_str(&t.sizes()),
            sizes_str(&shape)
        );
    }
    let mut log_weight = vec![1.0; tv.len()];
    if let Some(pw) = c.opt_tensor("pos_weight")? {
        let tt = Tensor::from_vec(tv.clone(), &shape)?;
        let (s2, p, tb, _) = pair(&pw, &tt)?;
        if s2 != shape {
            bail!(
                "The size of tensor a ({}) must match the size of tensor b ({}) at non-singleton dimension 0",
                pw.sizes().first().copied().unwrap_or(1),
                shape.first().copied().unwrap_or(1)
            );
        }
        log_weight = p
            .iter()
            .zip(&tb)
            .map(|(p, t)| (p - 1.0) * t + 1.0)
            .collect();
    }
    let losses: Vec<f64> = xv
        .iter()
        .zip(&tv)
        .zip(&log_weight)
        .map(|((&x, &t), &lw)| (1.0 - t) * x - log_sigmoid(x) * lw)
        .collect();
    let (shape, losses) = weighted(shape, losses, c.opt_tensor("weight")?)?;
    reduce(losses, &shape, c.int("reduction")?, dtype)
}

/// Log-probabilities `[N, C, S]` (S the spatial size, 1 without spatial dims), target
/// `[N, S]`, and the shape an unreduced loss has.
struct Classes {
    n: usize,
    c: usize,
    s: usize,
    logp: Vec<f64>,
    target: Vec<i64>,
    out_shape: Vec<i64>,
    dtype: DType,
}

/// PyTorch's `nll_loss_nd` checks and layout.
fn classes(x: &Tensor, t: &Tensor) -> TensorResult<Classes> {
    let (xs, ts) = (x.sizes(), t.sizes());
    if x.dim() < 1 {
        bail!("Expected 1 or more dimensions (got {})", x.dim());
    }
    if x.dim() != 1 && (ts.is_empty() || xs[0] != ts[0]) {
        bail!(
            "Expected input batch_size ({}) to match target batch_size ({}).",
            xs[0],
            ts.first().copied().unwrap_or(0)
        );
    }
    if !matches!(t.dtype(), DType::I64 | DType::U8) {
        bail!(
            "expected target dtype to be Long or Byte, but got {}",
            t.dtype().scalar_type_name()
        );
    }
    if !x.dtype().is_floating() {
        bail!(
            "\"nll_loss_out_frame\" not implemented for '{}'",
            x.dtype().scalar_type_name()
        );
    }
    let (n, c, s, out_shape) = match x.dim() {
        1 => {
            if t.dim() > 1 {
                bail!("0D or 1D target tensor expected, multi-target not supported");
            }
            (1, xs[0], 1, ts.to_vec())
        }
        2 => {
            if t.dim() != 1 {
                bail!("0D or 1D target tensor expected, multi-target not supported");
            }
            (xs[0], xs[1], 1, ts.to_vec())
        }
        _ => {
            let mut want = vec![xs[0]];
            want.extend_from_slice(&xs[2..]);
            if ts.as_slice() != want.as_slice() {
                bail!(
                    "Expected target size {}, got {}",
                    sizes_str(&want),
                    sizes_str(&ts)
                );
            }
            let s: i64 = xs[2..].iter().product();
            (xs[0], xs[1], s, want)
        }
    };
    Ok(Classes {
        n: n as usize,
        c: c as usize,
        s: s as usize,
        logp: to_contiguous(x, DType::F64)?.to_vec::<f64>(),
        target: to_contiguous(t, DType::I64)?.to_vec::<i64>(),
        out_shape,
        dtype: x.dtype(),
    })
}

fn class_weights(weight: Option<Tensor>, classes: usize) -> TensorResult<Option<Vec<f64>>> {
    let Some(w) = weight else { return Ok(None) };
    if w.dim() != 1 || w.numel() != classes {
        bail!(
            "weight tensor should be defined either for all {classes} classes or no classes but got weight tensor of shape: {}",
            sizes_str(&w.sizes())
        );
    }
    Ok(Some(to_contiguous(&w, DType::F64)?.to_vec::<f64>()))
}

/// Per position: the loss `-logp[target] * w[target]` and its weight (0 where ignored).
fn nll_terms(k: &Classes, weight: &Option<Vec<f64>>, ignore: i64) -> TensorResult<Vec<(f64, f64)>> {
    let mut terms = Vec::with_capacity(k.n * k.s);
    for b in 0..k.n {
        for p in 0..k.s {
            let t = k.target[b * k.s + p];
            if t == ignore {
                terms.push((0.0, 0.0));
                continue;
            }
            if t < 0 || t as usize >= k.c {
                bail!("Target {t} is out of bounds.");
            }
            let w = weight.as_ref().map_or(1.0, |w| w[t as usize]);
            terms.push((-k.logp[(b * k.c + t as usize) * k.s + p] * w, w));
        }
    }
    Ok(terms)
}

/// The reduced nll loss and the total weight.
fn nll_reduce(k: &Classes, terms: &[(f64, f64)], reduction: i64) -> TensorResult<(Tensor, f64)> {
    let total: f64 = terms.iter().map(|t| t.1).sum();
    let r = match reduction {
        NONE => tensor_of(terms.iter().map(|t| t.0).collect(), &k.out_shape, k.dtype)?,
        MEAN => tensor_of(
            vec![terms.iter().map(|t| t.0).sum::<f64>() / total],
            &[],
            k.dtype,
        )?,
        SUM => tensor_of(vec![terms.iter().map(|t| t.0).sum::<f64>()], &[], k.dtype)?,
        other => bail!("invalid loss reduction {other}: expected 0 (none), 1 (mean) or 2 (sum)"),
    };
    Ok((r, total))
}

fn nll(c: &Call) -> TensorResult<IValue> {
    let k = classes(&c.tensor("self")?, &c.tensor("target")?)?;
    let w = class_weights(c.opt_tensor("weight")?, k.c)?;
    let terms = nll_terms(&k, &w, c.int("ignore_index")?)?;
    Ok(IValue::Tensor(
        nll_reduce(&k, &terms, c.int("reduction")?)?.0,
    ))
}

/// `nll_loss_forward`: the loss and the total weight.
fn nll_forward(c: &Call) -> TensorResult<IValue> {
    let k = classes(&c.tensor("self")?, &c.tensor("target")?)?;
    let w = class_weights(c.opt_tensor("weight")?, k.c)?;
    let terms = nll_terms(&k, &w, c.int("ignore_index")?)?;
    let (loss, total) = nll_reduce(&k, &terms, c.int("reduction")?)?;
    Ok(IValue::tuple(vec![
        IValue::Tensor(loss),
        IValue::Tensor(tensor_of(vec![total], &[], k.dtype)?),
    ]))
}

/// `log_softmax` over the class dim of `[N, C, S]` float64 values.
fn log_softmax(v: &[f64], n: usize, c: usize, s: usize) -> Vec<f64> {
    let mut out = v.to_vec();
    for b in 0..n {
        for p in 0..s {
            let at = |k: usize| (b * c + k) * s + p;
            let m = (0..c).map(|k| v[at(k)]).fold(f64::NEG_INFINITY, f64::max);
            let lse = (0..c).map(|k| (v[at(k)] - m).exp()).sum::<f64>().ln() + m;
            for k in 0..c {
                out[at(k)] = v[at(k)] - lse;
            }
        }
    }
    out
}

fn cross_entropy(c: &Call) -> TensorResult<IValue> {
    let (x, t) = (c.tensor("self")?, c.tensor("target")?);
    let reduction = c.int("reduction")?;
    let ignore = c.int("ignore_index")?;
    let smoothing = c.float("label_smoothing")?;
    let weight = c.opt_tensor("weight")?;
    if x.sizes() == t.sizes() {
        return probability_targets(&x, &t, weight, reduction, ignore, smoothing);
    }
    if smoothing > 1.0 {
        bail!("label_smoothing must be between 0.0 and 1.0. Got: {smoothing}");
    }
    let mut k = classes(&x, &t)?;
    k.logp = log_softmax(&k.logp, k.n, k.c, k.s);
    let w = class_weights(weight, k.c)?;
    let terms = nll_terms(&k, &w, ignore)?;
    let (nll, _) = nll_reduce(&k, &terms, reduction)?;
    if smoothing <= 0.0 {
        return Ok(IValue::Tensor(nll));
    }
    // Label smoothing: the mean over classes of -logp (weighted), zero where ignored.
    let mut smooth = Vec::with_capacity(k.n * k.s);
    let mut kept_weight = 0.0;
    let mut kept = 0usize;
    for b in 0..k.n {
        for p in 0..k.s {
            let tgt = k.target[b * k.s + p];
            if tgt == ignore {
                smooth.push(0.0);
                continue;
            }
            kept += 1;
            kept_weight += w.as_ref().map_or(1.0, |w| w[tgt as usize]);
            smooth.push(
                -(0..k.c)
                    .map(|cl| k.logp[(b * k.c + cl) * k.s + p] * w.as_ref().map_or(1.0, |w| w[cl]))
                    .sum::<f64>(),
            );
        }
    }
    let smooth_reduced: Vec<f64> = match reduction {
        NONE => smooth,
        MEAN => {
            let denominator = if w.is_some() {
                kept_weight
            } else {
                kept as f64
            };
            vec![smooth.iter().sum::<f64>() / denominator]
        }
        _ => vec![smooth.iter().sum::<f64>()],
    };
    let nll_v = to_contiguous(&nll, DType::F64)?.to_vec::<f64>();
    let classes_f = k.c as f64;
    let combined: Vec<f64> = nll_v
        .iter()
        .zip(&smooth_reduced)
        .map(|(l, s)| (1.0 - smoothing) * l + s * (smoothing / classes_f))
        .collect();
    Ok(IValue::Tensor(tensor_of(combined, &nll.sizes(), k.dtype)?))
}

/// Class probabilities as targets (same shape as the input).
fn probability_targets(
    x: &Tensor,
    t: &Tensor,
    weight: Option<Tensor>,
    reduction: i64,
    ignore: i64,
    smoothing: f64,
) -> TensorResult<IValue> {
    if !t.dtype().is_floating() {
        bail!(
            "Expected floating point type for target with class probabilities, got {}",
            t.dtype().scalar_type_name()
        );
    }
    if ignore >= 0 {
        bail!("ignore_index is not supported for floating point target");
    }
    let xs = x.sizes();
    let class_dim = if x.dim() == 1 { 0 } else { 1 };
    let c = xs[class_dim] as usize;
    if let Some(w) = &weight {
        if w.dim() != 1 || w.numel() != c {
            bail!(
                "cross_entropy: weight tensor should be defined either for all {c} classes or no classes but got weight tensor of shape: {}",
                sizes_str(&w.sizes())
            );
        }
    }
    if smoothing > 1.0 {
        bail!("label_smoothing must be between 0.0 and 1.0. Got: {smoothing}");
    }
    let n = if x.dim() == 1 { 1 } else { xs[0] as usize };
    let s = if x.dim() <= 2 {
        1
    } else {
        xs[2..].iter().product::<i64>() as usize
    };
    let logp = log_softmax(&to_contiguous(x, DType::F64)?.to_vec::<f64>(), n, c, s);
    let mut tv = to_contiguous(t, DType::F64)?.to_vec::<f64>();
    if smoothing > 0.0 {
        tv.iter_mut()
            .for_each(|v| *v = *v * (1.0 - smoothing) + smoothing / c as f64);
    }
    let w = class_weights(weight, c)?;
    let mut per = Vec::with_capacity(n * s);
    for b in 0..n {
        for p in 0..s {
            per.push(
                -(0..c)
                    .map(|cl| {
                        let at = (b * c + cl) * s + p;
                        logp[at] * tv[at] * w.as_ref().map_or(1.0, |w| w[cl])
                    })
                    .sum::<f64>(),
            );
        }
    }
    let mut out_shape: Vec<i64> = xs.to_vec();
    out_shape.remove(class_dim);
    let r = match reduction {
        NONE => tensor_of(per, &out_shape, x.dtype())?,
        MEAN => {
            let total = x.numel() / c.max(1);
            tensor_of(vec![per.iter().sum::<f64>() / total as f64], &[], x.dtype())?
        }
        SUM => tensor_of(vec![per.iter().sum::<f64>()], &[], x.dtype())?,
        other => bail!("Invalid reduction type encountered in cross_entropy: {other}"),
    };
    Ok(IValue::Tensor(r))
}
