//! Normalization: batch norm (running statistics in evaluation, batch statistics and the
//! running-stat update in training), layer norm, group norm and instance norm, with the
//! `native_*` forms that return the saved statistics. Statistics are computed in float64
//! and the result rounded once to the input's dtype.

use super::work::{slice, slice_mut, sum_f64_of, to_contiguous, Work};
use crate::bail;
use crate::ops::args::sizes_str;
use crate::ops::cpu;
use crate::tensor::{DType, Tensor, TensorResult};

const PARALLEL_ELEMS: usize = 1 << 15;

/// Floating inputs only, with PyTorch's "not implemented" message naming its kernel.
fn check_floating(kernel: &str, t: &Tensor) -> TensorResult<()> {
    if !t.dtype().is_floating() {
        bail!(
            "\"{kernel}\" not implemented for '{}'",
            t.dtype().scalar_type_name()
        );
    }
    Ok(())
}

fn values(t: &Tensor) -> Vec<f64> {
    t.to_vec::<f64>()
}

/// A tensor of `dtype` holding `v` with shape `sizes`.
fn tensor_of(v: Vec<f64>, sizes: &[i64], dtype: DType) -> TensorResult<Tensor> {
    let t = Tensor::from_vec(v, sizes)?;
    if dtype == DType::F64 {
        return Ok(t);
    }
    to_contiguous(&t, dtype)
}

/// The dtype the saved statistics of a reduced-precision input have (float32, as PyTorch's
/// mixed-precision CPU kernels keep them).
fn stat_dtype(d: DType) -> DType {
    match d {
        DType::F16 | DType::BF16 => DType::F32,
        other => other,
    }
}

/// Mean and biased variance of each of `groups` consecutive runs of `len` values.
fn moments(x: &[f64], groups: usize, len: usize) -> Vec<(f64, f64)> {
    let one = |g: usize| {
        let run = &x[g * len..(g + 1) * len];
        if len == 0 {
            return (f64::NAN, f64::NAN);
        }
        let mean = run.iter().sum::<f64>() / len as f64;
        let var = run.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / len as f64;
        (mean, var)
    };
    if x.len() >= PARALLEL_ELEMS {
        crate::parallel::map(groups, one)
    } else {
        (0..groups).map(one).collect()
    }
}

/// Per-channel statistics of `[n, c, s]` values: (mean, biased var).
fn channel_moments(x: &[f64], n: usize, c: usize, s: usize) -> Vec<(f64, f64)> {
    let one = |ch: usize| {
        let count = (n * s) as f64;
        let mut sum = 0.0;
        for b in 0..n {
            sum += x[(b * c + ch) * s..(b * c + ch + 1) * s]
                .iter()
                .sum::<f64>();
        }
        let mean = sum / count;
        let mut sq = 0.0;
        for b in 0..n {
            sq += x[(b * c + ch) * s..(b * c + ch + 1) * s]
                .iter()
                .map(|v| (v - mean) * (v - mean))
                .sum::<f64>();
        }
        (mean, sq / count)
    };
    if x.len() >= PARALLEL_ELEMS {
        crate::parallel::map(c, one)
    } else {
        (0..c).map(one).collect()
    }
}

/// Optional per-channel parameter values (None: `default`).
fn param(t: Option<&Tensor>, c: usize, default: f64) -> Vec<f64> {
    t.map_or_else(|| vec![default; c], values)
}

fn check_count(name: &str, t: Option<&Tensor>, c: i64) -> TensorResult<()> {
    if let Some(t) = t {
        if t.numel() as i64 != c {
            bail!("{name} should contain {c} elements not {}", t.numel());
        }
    }
    Ok(())
}

/// Inputs and parameters of one dtype, except float32 parameters for a reduced-precision
/// input (PyTorch's mixed-type CPU kernels).
fn check_mixed(input: &Tensor, params: &[Option<&Tensor>]) -> TensorResult<()> {
    let d = input.dtype();
    for p in params.iter().flatten() {
        let pd = p.dtype();
        let mixed_ok = matches!(d, DType::F16 | DType::BF16) && pd == DType::F32;
        if pd != d && !mixed_ok {
            bail!("mixed dtype (CPU): all inputs must share same datatype.");
        }
    }
    Ok(())
}

/// The arguments of a batch norm.
pub struct BatchNorm<'a> {
    pub weight: Option<&'a Tensor>,
    pub bias: Option<&'a Tensor>,
    pub running_mean: Option<&'a Tensor>,
    pub running_var: Option<&'a Tensor>,
    pub training: bool,
    pub momentum: f64,
    pub eps: f64,
}

/// `native_batch_norm`: (output, save_mean, save_invstd); in evaluation the saved
/// statistics are empty, as PyTorch's. Training updates the running statistics in place.
pub fn batch_norm(x: &Tensor, p: &BatchNorm) -> TensorResult<(Tensor, Tensor, Tensor)> {
    let sizes = x.sizes();
    if sizes.len() < 2 {
        bail!(
            "running_mean should contain {} elements not {}",
            sizes.get(1).copied().unwrap_or(0),
            p.running_mean.map_or(0, |t| t.numel())
        );
    }
    let c = sizes[1];
    let dtype = x.dtype();
    let sd = stat_dtype(dtype);
    if x.numel() == 0 {
        let empty = Tensor::zeros(&[0], sd)?;
        return Ok((Tensor::zeros(&sizes, dtype)?, empty.clone(), empty));
    }
    check_count("running_mean", p.running_mean, c)?;
    if p.running_mean.is_none() && !p.training {
        bail!("running_mean must be defined in evaluation mode");
    }
    check_count("running_var", p.running_var, c)?;
    if p.running_var.is_none() && !p.training {
        bail!("running_var must be defined in evaluation mode");
    }
    check_count("weight", p.weight, c)?;
    check_count("bias", p.bias, c)?;
    check_floating("batch_norm", x)?;
    check_mixed(x, &[p.weight, p.bias, p.running_mean, p.running_var])?;
    let (n, cu) = (sizes[0] as usize, c as usize);
    let s = x.numel() / (n * cu);
    let w = param(p.weight, cu, 1.0);
    let b = param(p.bias, cu, 0.0);
    if !p.training && matches!(dtype, DType::F32 | DType::F64) {
        // Evaluation in the input's own type: one scale and shift per channel, as PyTorch's
        // CPU kernel applies them.
        let rm = values(p.running_mean.unwrap());
        let rv = values(p.running_var.unwrap());
        let scale: Vec<f64> = (0..cu).map(|i| w[i] / (rv[i] + p.eps).sqrt()).collect();
        let shift: Vec<f64> = (0..cu).map(|i| b[i] - rm[i] * scale[i]).collect();
        let xc = x.contiguous()?;
        // Every element is written below.
        let out = crate::ops::pointwise::output_for_overwrite(&sizes, dtype)?;
        crate::dispatch_work!(dtype, T => scale_planes::<T>(&xc, &out, s, &scale, &shift));
        let empty = Tensor::zeros(&[0], sd)?;
        return Ok((out, empty.clone(), empty));
    }
    let xv = values(x);
    let (mean, invstd): (Vec<f64>, Vec<f64>) = if p.training {
        let m = channel_moments(&xv, n, cu, s);
        let count = (n * s) as f64;
        if let Some(rm) = p.running_mean {
            let old = values(rm);
            let new: Vec<f64> = (0..cu)
                .map(|i| (1.0 - p.momentum) * old[i] + p.momentum * m[i].0)
                .collect();
            rm.copy_from(&Tensor::from_vec(new, &rm.sizes())?)?;
        }
        if let Some(rv) = p.running_var {
            let old = values(rv);
            let new: Vec<f64> = (0..cu)
                .map(|i| {
                    let unbiased = m[i].1 * count / (count - 1.0);
                    (1.0 - p.momentum) * old[i] + p.momentum * unbiased
                })
                .collect();
            rv.copy_from(&Tensor::from_vec(new, &rv.sizes())?)?;
        }
        m.iter()
            .map(|&(mu, var)| (mu, 1.0 / (var + p.eps).sqrt()))
            .unzip()
    } else {
        let rm = values(p.running_mean.unwrap());
        let rv = values(p.running_var.unwrap());
        (0..cu)
            .map(|i| (rm[i], 1.0 / (rv[i] + p.eps).sqrt()))
            .unzip()
    };
    let mut out = xv;
    let apply = |(plane, chunk): (usize, &mut [f64])| {
        let ch = plane % cu;
        let scale = invstd[ch] * w[ch];
        let shift = b[ch] - mean[ch] * scale;
        chunk.iter_mut().for_each(|v| *v = *v * scale + shift);
    };
    if s > 0 {
        if out.len() >= PARALLEL_ELEMS {
            crate::parallel::for_each_chunk_mut(&mut out, s, |i, c| apply((i, c)));
        } else {
            out.chunks_mut(s).enumerate().for_each(apply);
        }
    }
    let y = tensor_of(out, &sizes, dtype)?;
    if !p.training {
        let empty = Tensor::zeros(&[0], sd)?;
        return Ok((y, empty.clone(), empty));
    }
    Ok((y, tensor_of(mean, &[c], sd)?, tensor_of(invstd, &[c], sd)?))
}

/// `out[plane] = x[plane] * scale[c] + shift[c]` for contiguous `[n, c, s]` tensors of a
/// floating work type, planes spread over the cores when large.
fn scale_planes<T: Work>(x: &Tensor, out: &Tensor, s: usize, scale: &[f64], shift: &[f64]) {
    if s == 0 {
        return;
    }
    let c = scale.len();
    // SAFETY: `x` is contiguous of T; `out` is fresh and each plane is written by one task.
    let (xv, ov) = unsafe { (slice::<T>(x), slice_mut::<T>(out)) };
    let run = |(plane, dst): (usize, &mut [T])| {
        let (a, b) = (T::from_f64(scale[plane % c]), T::from_f64(shift[plane % c]));
        for (o, &v) in dst.iter_mut().zip(&xv[plane * s..(plane + 1) * s]) {
            *o = v.wmul(a).wadd(b);
        }
    };
    if ov.len() >= PARALLEL_ELEMS {
        crate::parallel::for_each_chunk_mut(ov, s, |i, c| run((i, c)));
    } else {
        ov.chunks_mut(s).enumerate().for_each(run);
    }
}

/// Normalizes each run of `len` values with its own statistics, then applies the per-element
/// affine `w[j % wlen]`, `b[..]` where `affine_index(run, j)` picks the parameter.
fn normalize_runs(
    xv: &mut [f64],
    stats: &[(f64, f64)],
    len: usize,
    eps: f64,
    affine: impl Fn(usize, usize) -> (f64, f64) + Sync,
) {
    if len == 0 {
        return;
    }
    let run = |(g, chunk): (usize, &mut [f64])| {
        let (mean, var) = stats[g];
        let rstd = 1.0 / (var + eps).sqrt();
        for (j, v) in chunk.iter_mut().enumerate() {
            let (w, b) = affine(g, j);
            *v = (*v - mean) * rstd * w + b;
        }
    };
    if xv.len() >= PARALLEL_ELEMS {
        crate::parallel::for_each_chunk_mut(xv, len, |i, c| run((i, c)));
    } else {
        xv.chunks_mut(len).enumerate().for_each(run);
    }
}

/// `native_layer_norm`: (output, mean, rstd), the statistics shaped
/// `input.shape[:axis] + [1] * len(normalized_shape)`.
pub fn layer_norm(
    x: &Tensor,
    normalized: &[i64],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> TensorResult<(Tensor, Tensor, Tensor)> {
    let sizes = x.sizes();
    if normalized.is_empty() {
        bail!("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one element, but got normalized_shape = []");
    }
    for (name, t) in [("weight", weight), ("bias", bias)] {
        if let Some(t) = t {
            if t.sizes().as_slice() != normalized {
                bail!(
                    "Expected {name} to be of same shape as normalized_shape, but got {name} of shape {} and normalized_shape = {}",
                    sizes_str(&t.sizes()),
                    sizes_str(normalized)
                );
            }
        }
    }
    let nd = sizes.len();
    let k = normalized.len();
    if nd < k || sizes[nd - k..] != *normalized {
        bail!(
            "Given normalized_shape={}, expected input with shape [*{}], but got input of size{}",
            sizes_str(normalized),
            normalized
                .iter()
                .map(|s| format!(", {s}"))
                .collect::<String>(),
            sizes_str(&sizes)
        );
    }
    check_floating("LayerNormKernelImpl", x)?;
    check_mixed(x, &[weight, bias])?;
    let len: usize = normalized.iter().product::<i64>() as usize;
    let rows = x.numel().checked_div(len).unwrap_or(0);
    let w = weight.map(values);
    let b = bias.map(values);
    let dtype = x.dtype();
    let sd = stat_dtype(dtype);
    let mut stat_shape = sizes[..nd - k].to_vec();
    stat_shape.extend(std::iter::repeat_n(1, k));
    if matches!(dtype, DType::F32 | DType::F64) && len > 0 {
        // Rows read and written in the input's type, statistics in float64.
        let xc = x.contiguous()?;
        let out = Tensor::zeros(&sizes, dtype)?;
        let stats = crate::dispatch_work!(dtype, T => {
            layer_norm_rows::<T>(&xc, &out, len, eps, w.as_deref(), b.as_deref())
        });
        let (mean, rstd): (Vec<f64>, Vec<f64>) = stats.into_iter().unzip();
        return Ok((
            out,
            tensor_of(mean, &stat_shape, sd)?,
            tensor_of(rstd, &stat_shape, sd)?,
        ));
    }
    let mut xv = values(x);
    let stats = moments(&xv, rows, len);
    normalize_runs(&mut xv, &stats, len, eps, |_, j| {
        (
            w.as_ref().map_or(1.0, |w| w[j]),
            b.as_ref().map_or(0.0, |b| b[j]),
        )
    });
    let (mean, rstd): (Vec<f64>, Vec<f64>) = stats
        .iter()
        .map(|&(m, v)| (m, 1.0 / (v + eps).sqrt()))
        .unzip();
    Ok((
        tensor_of(xv, &sizes, dtype)?,
        tensor_of(mean, &stat_shape, sd)?,
        tensor_of(rstd, &stat_shape, sd)?,
    ))
}

/// Layer norm of each run of `len` values of contiguous `x` into `out`; returns each row's
/// (mean, rstd).
fn layer_norm_rows<T: Work>(
    x: &Tensor,
    out: &Tensor,
    len: usize,
    eps: f64,
    w: Option<&[f64]>,
    b: Option<&[f64]>,
) -> Vec<(f64, f64)> {
    // SAFETY: `x` is contiguous of T; `out` is fresh and each row is written by one task.
    let (xv, ov) = unsafe { (slice::<T>(x), slice_mut::<T>(out)) };
    let level = cpu::isa();
    // In f64 as before, but in loops that vectorize (compiled for the CPU's widest vectors):
    // a transformer's layer norms ran as serial f64 chains.
    let row = |(r, dst): (usize, &mut [T])| {
        let src = &xv[r * len..(r + 1) * len];
        cpu::dispatch(
            level,
            #[inline(always)]
            || {
                let mean = sum_f64_of(src, |v| v) / len as f64;
                let var = sum_f64_of(src, |v| (v - mean) * (v - mean)) / len as f64;
                let rstd = 1.0 / (var + eps).sqrt();
                let norm = |v: &T| (v.to_f64() - mean) * rstd;
                let out = dst.iter_mut().zip(src);
                match (w, b) {
                    (Some(w), Some(b)) => {
                        for ((o, v), (w, b)) in out.zip(w.iter().zip(b)) {
                            *o = T::from_f64(norm(v) * w + b);
                        }
                    }
                    (Some(w), None) => {
                        for ((o, v), w) in out.zip(w) {
                            *o = T::from_f64(norm(v) * w);
                        }
                    }
                    (None, Some(b)) => {
                        for ((o, v), b) in out.zip(b) {
                            *o = T::from_f64(norm(v) + b);
                        }
                    }
                    (None, None) => {
                        for (o, v) in out {
                            *o = T::from_f64(norm(v));
                        }
                    }
                }
                (mean, rstd)
            },
        )
    };
    if ov.len() >= PARALLEL_ELEMS {
        crate::parallel::map_chunks_mut(ov, len, |r, d| row((r, d)))
    } else {
        ov.chunks_mut(len).enumerate().map(row).collect()
    }
}

/// `native_group_norm`: (output, mean `[N, G]`, rstd `[N, G]`).
pub fn group_norm(
    x: &Tensor,
    groups: i64,
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    eps: f64,
) -> TensorResult<(Tensor, Tensor, Tensor)> {
    let sizes = x.sizes();
    // aten::group_norm reads the channel count first, as `input.size(1)`.
    crate::tensor::wrap_dim(1, sizes.len())?;
    let (n, c) = (sizes[0], sizes[1]);
    if groups <= 0 || c % groups != 0 {
        bail!(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape {} and num_groups={groups}",
            sizes_str(&sizes)
        );
    }
    for (name, t) in [("weight", weight), ("bias", bias)] {
        if let Some(t) = t {
            if t.dim() != 1 || t.numel() as i64 != c {
                bail!(
                    "Expected {name} to be a vector of size equal to the number of channels in input, but got {name} of shape {} and input of shape {}",
                    sizes_str(&t.sizes()),
                    sizes_str(&sizes)
                );
            }
        }
    }
    check_floating("GroupNormKernelImpl", x)?;
    check_mixed(x, &[weight, bias])?;
    let hw = if n * c == 0 {
        0
    } else {
        x.numel() / (n * c) as usize
    };
    let per_group = (c / groups) as usize;
    let len = per_group * hw;
    let mut xv = values(x);
    let stats = moments(&xv, (n * groups) as usize, len);
    let w = weight.map(values);
    let b = bias.map(values);
    normalize_runs(&mut xv, &stats, len, eps, |g, j| {
        let ch = (g % groups as usize) * per_group + j / hw.max(1);
        (
            w.as_ref().map_or(1.0, |w| w[ch]),
            b.as_ref().map_or(0.0, |b| b[ch]),
        )
    });
    let dtype = x.dtype();
    let sd = stat_dtype(dtype);
    let (mean, rstd): (Vec<f64>, Vec<f64>) = stats
        .iter()
        .map(|&(m, v)| (m, 1.0 / (v + eps).sqrt()))
        .unzip();
    Ok((
        tensor_of(xv, &sizes, dtype)?,
        tensor_of(mean, &[n, groups], sd)?,
        tensor_of(rstd, &[n, groups], sd)?,
    ))
}

/// `instance_norm`: each (sample, channel) plane normalized by its own statistics (or by
/// the running ones when `use_input_stats` is false); running statistics are updated with
/// the mean over samples of the per-plane statistics, as PyTorch's batch-norm reduction does.
pub fn instance_norm(x: &Tensor, p: &BatchNorm) -> TensorResult<Tensor> {
    let sizes = x.sizes();
    if sizes.len() < 2 {
        bail!(
            "Expected at least 2 dimensions for input tensor but received {}",
            sizes.len()
        );
    }
    let (n, c) = (sizes[0] as usize, sizes[1] as usize);
    check_count("weight", p.weight, c as i64)?;
    check_count("bias", p.bias, c as i64)?;
    check_count("running_mean", p.running_mean, c as i64)?;
    check_count("running_var", p.running_var, c as i64)?;
    if !p.training && (p.running_mean.is_none() || p.running_var.is_none()) {
        bail!("Expected running_mean and running_var to be defined when use_input_stats is false");
    }
    check_floating("batch_norm", x)?;
    check_mixed(x, &[p.weight, p.bias, p.running_mean, p.running_var])?;
    if x.numel() == 0 {
        return Tensor::zeros(&sizes, x.dtype());
    }
    let s = x.numel() / (n * c);
    let mut xv = values(x);
    let w = param(p.weight, c, 1.0);
    let b = param(p.bias, c, 0.0);
    let stats: Vec<(f64, f64)> = if p.training {
        let m = moments(&xv, n * c, s);
        let count = s as f64;
        for (which, t) in [(0, p.running_mean), (1, p.running_var)] {
            if let Some(t) = t {
                let old = values(t);
                let new: Vec<f64> = (0..c)
                    .map(|ch| {
                        let avg = (0..n)
                            .map(|i| {
                                let (mu, var) = m[i * c + ch];
                                if which == 0 {
                                    mu
                                } else {
                                    var * count / (count - 1.0)
                                }
                            })
                            .sum::<f64>()
                            / n as f64;
                        (1.0 - p.momentum) * old[ch] + p.momentum * avg
                    })
                    .collect();
                t.copy_from(&Tensor::from_vec(new, &t.sizes())?)?;
            }
        }
        m
    } else {
        let rm = values(p.running_mean.unwrap());
        let rv = values(p.running_var.unwrap());
        (0..n * c).map(|g| (rm[g % c], rv[g % c])).collect()
    };
    normalize_runs(&mut xv, &stats, s, p.eps, |g, _| (w[g % c], b[g % c]));
    tensor_of(xv, &sizes, x.dtype())
}
