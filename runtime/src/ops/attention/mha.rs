//! The fused attention of `nn.MultiheadAttention`'s fast path (`_native_multi_head_attention`)
//! and its mask convention (`_masked_softmax`: `true` masks an element out; `mask_type` 0 is an
//! `[L, L]` attention mask, 1 a `[B, L]` key-padding mask, 2 a mask of the scores' shape).
//! Projections go through `linear` and the products through `matmul`.

use super::fused::{self, FusedMask};
use super::softmax::{softmax_rows, EmptyRow, Mask};
use crate::ops::linalg::matmul::matmul;
use crate::ops::linalg::products::{linear, linear_with};
use crate::ops::linalg::sgemm::PackCache;
use crate::ops::shape::join::cat_tensors;
use crate::tensor::{wrap_dim, DType, Tensor, TensorError, TensorResult};

fn fail<T>(message: impl Into<String>) -> TensorResult<T> {
    Err(TensorError::new(message))
}

/// `_masked_softmax(input, mask, dim, mask_type)`.
pub fn masked_softmax(
    input: &Tensor,
    mask: &Tensor,
    dim: Option<i64>,
    mask_type: Option<i64>,
) -> TensorResult<Tensor> {
    let keep = masked_keep(input, mask, dim, mask_type)?;
    let dtype = input.dtype();
    if !dtype.is_floating() {
        return fail(format!(
            "\"masked_softmax\" not implemented for '{}'",
            dtype.scalar_type_name()
        ));
    }
    let d = wrap_dim(dim.unwrap_or(input.dim() as i64 - 1), input.dim().max(1))?;
    // Softmax along `d`: move it last, normalize the rows, move it back.
    let last = input.dim().max(1) as i64 - 1;
    let x = if input.dim() == 0 {
        input.reshape(&[1])?
    } else {
        input.clone()
    };
    let moved = x.transpose(d as i64, last)?;
    let keep = Tensor::from_vec(keep, &x.sizes())?.transpose(d as i64, last)?;
    let out = softmax_rows(
        &moved,
        1.0,
        &Mask::Keep(keep.to_vec::<bool>()),
        EmptyRow::Nan,
        dtype,
    )?;
    let out = out.transpose(d as i64, last)?.contiguous()?;
    out.reshape(&input.sizes())
}

/// The keep-mask of `_masked_softmax`, one flag per input element, with its checks.
fn masked_keep(
    input: &Tensor,
    mask: &Tensor,
    dim: Option<i64>,
    mask_type: Option<i64>,
) -> TensorResult<Vec<bool>> {
    if mask.dtype() != DType::Bool {
        return fail("Mask should be a boolean tensor");
    }
    let sizes = input.sizes();
    let mut kind = mask_type;
    if mask.dim() != 2 || input.dim() != 4 {
        kind = Some(2);
    }
    let _ = dim;
    let masked =
        match kind {
            None => return fail("Mask Type should be defined"),
            Some(2) => {
                if mask.sizes() != sizes {
                    return fail("For mask_type == 2 mask shape should match input shape");
                }
                mask.clone()
            }
            Some(1) => {
                let m = mask.sizes();
                if sizes[0] != m[0] || sizes[2] != m[1] {
                    return fail("For mask_type == 1 mask shape should be (B, L)");
                }
                // [B, L] masks the keys of every head and query: [B, 1, 1, L].
                mask.view(&[sizes[0], 1, 1, sizes[2]])?.expand(&sizes)?
            }
            Some(0) => {
                let m = mask.sizes();
                if sizes[2] != m[0] || sizes[2] != m[1] {
                    return fail("For mask_type == 0 mask shape should be (L, L)");
                }
                mask.expand(&sizes)?
            }
            Some(_) => return fail(
                "Mask Type should be 0 (src_mask) or 1 (src_key_padding_mask), or 2 (default_mask)",
            ),
        };
    Ok(masked.to_vec::<bool>().into_iter().map(|m| !m).collect())
}

/// The weights and options of `_native_multi_head_attention`.
pub struct Mha<'a> {
    pub embed_dim: i64,
    pub num_head: i64,
    pub qkv_weight: &'a Tensor,
    pub qkv_bias: &'a Tensor,
    pub proj_weight: &'a Tensor,
    pub proj_bias: &'a Tensor,
    pub mask: Option<&'a Tensor>,
    pub need_weights: bool,
    pub average_attn_weights: bool,
    pub mask_type: Option<i64>,
    /// Packed constant weights kept across calls (frozen graphs): `[qkv, proj]`.
    pub(crate) packs: [Option<&'a PackCache>; 2],
}

/// `_native_multi_head_attention(query, key, value, ...)` on batch-first `[B, T, D]` inputs:
/// the output and, with `need_weights`, the attention weights (averaged over heads with
/// `average_attn_weights`).
pub fn native_multi_head_attention(
    query: &Tensor,
    key: &Tensor,
    value: &Tensor,
    p: &Mha,
) -> TensorResult<(Tensor, Option<Tensor>)> {
    check(query, key, value, p)?;
    let d = p.embed_dim;
    let (b, t) = (query.sizes()[0], query.sizes()[1]);
    if query.numel() == 0 {
        return Ok((Tensor::zeros(&query.sizes(), query.dtype())?, None));
    }
    // PyTorch projects q, k and v with one product when they are the same tensor; the rows of
    // the weight are the three projections either way.
    let qkv = if query.is_same(key) && key.is_same(value) {
        linear_with(query, p.qkv_weight, Some(p.qkv_bias), p.packs[0])?
    } else {
        let parts = [query, key, value]
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let w = p.qkv_weight.narrow(0, i as i64 * d, d)?;
                let bias = p.qkv_bias.narrow(0, i as i64 * d, d)?;
                linear(x, &w, Some(&bias))
            })
            .collect::<TensorResult<Vec<_>>>()?;
        cat_tensors(&parts, 2)?
    };
    let heads = p.num_head;
    let dh = d / heads;
    // [B, T, 3, H, dh] -> three [B, H, T, dh].
    let split = qkv.reshape(&[b, t, 3, heads, dh])?;
    let part = |i: i64| -> TensorResult<Tensor> { split.select(2, i)?.permute(&[0, 2, 1, 3]) };
    let (q, k, v) = (part(0)?, part(1)?, part(2)?);
    let scale = 1.0 / (dh as f64).sqrt();
    if p.mask.is_none() && !p.need_weights && fused::takes(&q, &k, &v, &FusedMask::None) {
        // No weights wanted and no mask: by blocks of queries, read from the projection in
        // place (no row is empty, so PyTorch's two paths agree).
        let ctx = fused::attention_f32(&q, &k, &v, scale as f32, &FusedMask::None)?;
        let merged = ctx.permute(&[0, 2, 1, 3])?.reshape(&[b, t, d])?;
        let out = linear_with(&merged, p.proj_weight, Some(p.proj_bias), p.packs[1])?;
        return Ok((out, None));
    }
    let scores = matmul(&q, &k.transpose(-2, -1)?)?;
    let keep = match p.mask {
        None => Mask::None,
        Some(m) => {
            let m = if m.dtype() == DType::Bool {
                m.clone()
            } else {
                nonzero(m)?
            };
            Mask::Keep(masked_keep(&scores, &m, Some(3), p.mask_type)?)
        }
    };
    // With q, k, v one tensor, heads a multiple of 8 wide and no weights wanted, PyTorch
    // runs SDPA, where a row with every key masked attends to nothing (zeros) instead of NaN.
    let sdpa_path = query.is_same(key) && key.is_same(value) && dh % 8 == 0 && !p.need_weights;
    let empty = if sdpa_path {
        EmptyRow::Zeros
    } else {
        EmptyRow::Nan
    };
    let attn = softmax_rows(&scores, scale, &keep, empty, scores.dtype())?;
    let ctx = matmul(&attn, &v)?; // [B, H, T, dh]
    let merged = ctx.permute(&[0, 2, 1, 3])?.reshape(&[b, t, d])?;
    let out = linear_with(&merged, p.proj_weight, Some(p.proj_bias), p.packs[1])?;
    if !p.need_weights {
        return Ok((out, None));
    }
    if !p.average_attn_weights {
        return Ok((out, Some(attn)));
    }
    let h = attn.sizes()[1];
    let mut avg = vec![0.0f64; (b * t * attn.sizes()[3]) as usize];
    let w = attn.to_vec::<f64>();
    let per_head = avg.len() / b.max(1) as usize;
    for (i, x) in w.iter().enumerate() {
        let batch = i / (per_head * h as usize);
        let within = i % per_head;
        avg[batch * per_head + within] += x;
    }
    avg.iter_mut().for_each(|x| *x /= h as f64);
    let avg = Tensor::from_vec(avg, &[b, t, attn.sizes()[3]])?;
    let cast = Tensor::zeros(&avg.sizes(), attn.dtype())?;
    cast.copy_from(&avg)?;
    Ok((out, Some(cast)))
}

/// A non-bool mask converted to bool (`mask.to(bool)`): nonzero masks out.
fn nonzero(m: &Tensor) -> TensorResult<Tensor> {
    let flags: Vec<bool> = m.to_vec::<f64>().into_iter().map(|x| x != 0.0).collect();
    Tensor::from_vec(flags, &m.sizes())
}

fn check(query: &Tensor, key: &Tensor, value: &Tensor, p: &Mha) -> TensorResult<()> {
    let d = p.embed_dim;
    if query.dim() != 3 {
        return fail(format!(
            "expected 3-D `query`, got {}-D tensor",
            query.dim()
        ));
    }
    if query.sizes()[2] != d {
        return fail(format!(
            "passed-in embed_dim {d} didn't match last dim of query {}",
            query.sizes()[2]
        ));
    }
    if key.dim() != 3 {
        return fail(format!("expected 3-D `key`, got {}-D tensor", key.dim()));
    }
    if value.dim() != 3 {
        return fail(format!(
            "expected 3-D `value`, got {}-D tensor",
            value.dim()
        ));
    }
    if query.sizes() != key.sizes() || key.sizes() != value.sizes() {
        return fail("expected `query`/`key`/`value` shapes to match");
    }
    let w = p.qkv_weight;
    if w.dim() != 2 {
        return fail(format!(
            "expected 2-D `qkv_weight`, got {}-D tensor",
            w.dim()
        ));
    }
    if d.checked_mul(3) != Some(w.sizes()[0]) {
        return fail("expected `qkv_weight` first dim to be 3x embed_dim");
    }
    if w.sizes()[1] != d {
        return fail("expected `qkv_weight` second dim to be embed_Dim");
    }
    if p.qkv_bias.dim() != 1 {
        return fail(format!(
            "expected 2-D `qkv_bias`, got {}-D tensor",
            p.qkv_bias.dim()
        ));
    }
    if p.qkv_bias.sizes()[0] != 3 * d {
        return fail("expected `qkv_bias` first dim and first dim of query to be equal");
    }
    if p.num_head <= 0 || d % p.num_head != 0 {
        return fail("`embed_dim` must divide evenly by `num_heads`");
    }
    Ok(())
}
