//! `scaled_dot_product_attention`: `softmax(q @ k^T * scale + mask) @ v`, fused by blocks of
//! queries in float32 (fused.rs; query, key and value viewed with their common batch shape, a
//! half-precision mask widened), otherwise with the two products on the GEMM path (`matmul`,
//! batch dims broadcast) and the softmax rows in f64. float16 and
//! bfloat16 compute in float32 and round once, as PyTorch's CPU kernel does. Dropout is random,
//! so `dropout_p > 0` is refused rather than answered differently from PyTorch.

use super::fused::{self, FusedMask};
use super::softmax::{softmax_rows, EmptyRow, Mask};
use crate::ops::linalg::matmul::matmul;
use crate::ops::nn::work::{to_contiguous, work_dtype};
use crate::tensor::{broadcast_shapes, DType, Tensor, TensorError, TensorResult};

/// The optional arguments of `aten::scaled_dot_product_attention`.
pub struct Options<'a> {
    pub attn_mask: Option<&'a Tensor>,
    pub dropout_p: f64,
    pub is_causal: bool,
    pub scale: Option<f64>,
    pub enable_gqa: bool,
}

fn fail<T>(message: impl Into<String>) -> TensorResult<T> {
    Err(TensorError::new(message))
}

pub fn scaled_dot_product_attention(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    o: &Options,
) -> TensorResult<Tensor> {
    if q.dim() < 2 || k.dim() < 2 || v.dim() < 2 {
        return fail(format!(
            "Expected query, key, and value to all be  at least 2 dimensional, but got query.dim: {} key.dim: {} and value.dim: {} instead.",
            q.dim(),
            k.dim(),
            v.dim()
        ));
    }
    let dtype = q.dtype();
    if k.dtype() != dtype || v.dtype() != dtype {
        return fail(format!(
            "Expected query, key, and value to have the same dtype, but got query.dtype: {} key.dtype: {} and value.dtype: {} instead.",
            dtype.cpp_type_name(),
            k.dtype().cpp_type_name(),
            v.dtype().cpp_type_name()
        ));
    }
    if let Some(m) = o.attn_mask {
        if m.dtype() != DType::Bool && m.dtype() != dtype {
            return fail(format!(
                "Expected attn_mask dtype to be bool or float or to match query dtype, but got attn_mask.dtype: {} and  query.dtype: {} instead.",
                m.dtype().cpp_type_name(),
                dtype.cpp_type_name()
            ));
        }
    }
    if !dtype.is_floating() {
        return fail(format!(
            "expected scalar type Float but found {}",
            dtype.scalar_type_name()
        ));
    }
    if o.is_causal && o.attn_mask.is_some() {
        return fail(
            "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True",
        );
    }
    if o.dropout_p > 0.0 {
        return fail(format!(
            "scaled_dot_product_attention with dropout_p={} drops random elements; Ember runs it with dropout_p=0 only",
            o.dropout_p
        ));
    }
    let (k, v) = if o.enable_gqa {
        (repeat_heads(q, k)?, repeat_heads(q, v)?)
    } else {
        (k.clone(), v.clone())
    };
    let work = work_dtype(dtype);
    let (qw, kw, vw) = (
        to_contiguous(q, work)?,
        to_contiguous(&k, work)?,
        to_contiguous(&v, work)?,
    );
    let e = q.sizes()[q.dim() - 1];
    let scale = o.scale.unwrap_or(1.0 / (e as f64).sqrt());
    if let Some(out) = fused_f32(&qw, &kw, &vw, scale, o)? {
        return cast_to(out, dtype);
    }
    let scores = matmul(&qw, &kw.transpose(-2, -1)?)?;
    let shape = scores.sizes();
    let (l, s) = (shape[shape.len() - 2], shape[shape.len() - 1]);
    let mask = if o.is_causal {
        let keep: Vec<bool> = (0..l).flat_map(|i| (0..s).map(move |j| j <= i)).collect();
        let causal = Tensor::from_vec(keep, &[l, s])?;
        Mask::Keep(causal.expand(&shape)?.to_vec::<bool>())
    } else {
        match o.attn_mask {
            None => Mask::None,
            Some(m) => {
                let (full, fits) = mask_broadcast(&shape, m)?;
                if !fits {
                    return fail(format!(
                        "output with shape {:?} doesn't match the broadcast shape {full:?}",
                        shape.as_slice()
                    ));
                }
                let m = m.expand(&shape)?;
                if m.dtype() == DType::Bool {
                    Mask::Keep(m.to_vec::<bool>())
                } else {
                    Mask::Add(m.to_vec::<f64>())
                }
            }
        }
    };
    let attn = softmax_rows(&scores, scale, &mask, EmptyRow::Zeros, work)?;
    cast_to(matmul(&attn, &vw)?, dtype)
}

/// The shape `m` and the scores broadcast to, as PyTorch's CPU kernel sees them (4-d scores:
/// its error message counts dims so), and whether that is the scores' own: the mask may not
/// grow them (PyTorch adds it in place).
fn mask_broadcast(scores: &[i64], m: &Tensor) -> TensorResult<(Vec<i64>, bool)> {
    let mut padded = vec![1i64; 4usize.saturating_sub(scores.len())];
    padded.extend_from_slice(scores);
    let full = broadcast_shapes(&padded, &m.sizes())?.to_vec();
    let fits = full == padded;
    Ok((full, fits))
}

fn cast_to(out: Tensor, dtype: DType) -> TensorResult<Tensor> {
    if out.dtype() == dtype {
        return Ok(out);
    }
    let cast = Tensor::zeros(&out.sizes(), dtype)?;
    cast.copy_from(&out)?;
    Ok(cast)
}

/// The float32 work by blocks of queries (fused.rs), on views of the operands expanded to
/// their common batch shape: None where it does not apply (a float64 mask, mismatched shapes,
/// whose errors the general path reports as PyTorch does).
pub(super) fn fused_f32(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    scale: f64,
    o: &Options,
) -> TensorResult<Option<Tensor>> {
    let Some((q, k, v)) = common_batch(q, k, v) else {
        return Ok(None);
    };
    let (q, k, v) = (&q, &k, &v);
    let d = q.dim();
    let scores_shape: Vec<i64> = q.sizes()[..d - 1]
        .iter()
        .copied()
        .chain([k.sizes()[k.dim() - 2]])
        .collect();
    let (expanded, widened);
    let mask = match o.attn_mask {
        _ if o.is_causal => FusedMask::Causal,
        None => FusedMask::None,
        Some(m) if m.dim() > scores_shape.len() => return Ok(None),
        Some(m) => {
            if !matches!(mask_broadcast(&scores_shape, m), Ok((_, true))) {
                return Ok(None);
            }
            // A half-precision mask holds float32 values exactly (the general path adds them
            // as they are, too).
            let m = if matches!(m.dtype(), DType::F16 | DType::BF16) {
                widened = to_contiguous(m, DType::F32)?;
                &widened
            } else {
                m
            };
            expanded = m.expand(&scores_shape)?;
            if m.dtype() == DType::Bool {
                FusedMask::Keep(&expanded)
            } else {
                FusedMask::Add(&expanded)
            }
        }
    };
    if !fused::takes(q, k, v, &mask) {
        return Ok(None);
    }
    fused::attention_f32(q, k, v, scale as f32, &mask).map(Some)
}

/// Views of `q`, `k` and `v` with their batch dimensions (all but the last two) expanded to
/// the shape they broadcast to, as `matmul` broadcasts them; None if they do not.
fn common_batch(q: &Tensor, k: &Tensor, v: &Tensor) -> Option<(Tensor, Tensor, Tensor)> {
    let batch = |t: &Tensor| {
        t.sizes()
            .get(..t.dim().checked_sub(2)?)
            .map(<[i64]>::to_vec)
    };
    let common = broadcast_shapes(&batch(q)?, &batch(k)?).ok()?;
    let common = broadcast_shapes(&common, &batch(v)?).ok()?;
    let grow = |t: &Tensor| {
        let mut sizes = common.to_vec();
        sizes.extend_from_slice(&t.sizes()[t.dim() - 2..]);
        t.expand(&sizes).ok()
    };
    Some((grow(q)?, grow(k)?, grow(v)?))
}

/// `enable_gqa`: key/value heads (dim -3) repeated to the query's head count.
fn repeat_heads(q: &Tensor, kv: &Tensor) -> TensorResult<Tensor> {
    if q.dim() < 3 || kv.dim() < 3 {
        return Ok(kv.clone());
    }
    let hq = q.sizes()[q.dim() - 3];
    let hk = kv.sizes()[kv.dim() - 3];
    if hk == hq {
        return Ok(kv.clone());
    }
    if hk == 0 || hq % hk != 0 {
        return fail("Number of heads in key and value must divide the number of heads in query");
    }
    let at = kv.dim() as i64 - 2;
    let grown = kv.unsqueeze(at)?;
    let mut sizes = grown.sizes().to_vec();
    sizes[at as usize] = hq / hk;
    let mut flat = kv.sizes().to_vec();
    flat[kv.dim() - 3] = hq;
    grown.expand(&sizes)?.reshape(&flat)
}
