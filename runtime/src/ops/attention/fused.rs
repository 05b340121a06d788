//! Scaled-dot-product attention in float32, fused by blocks of query rows: for each batch
//! index (heads included) and block of [`block_rows`] queries, the scores against every key go
//! into a buffer of the thread's, are scaled, masked and normalized in place, and multiply the
//! values straight into the output rows. The `[L, S]` scores exist one block per thread at a
//! time, and a mask is read through its broadcast strides, never expanded into a copy.

use super::softmax::{normalize_f32, EmptyRow};
use crate::ops::linalg::gemm::gemm_serial;
use crate::tensor::{DType, Tensor, TensorResult};

/// How scores are masked.
pub enum FusedMask<'a> {
    None,
    /// Key `j` is kept for query `i` when `j <= i` (`is_causal`).
    Causal,
    /// A boolean keep-mask or a float32 mask added to the scores, broadcastable to them.
    Keep(&'a Tensor),
    Add(&'a Tensor),
}

/// Queries per block: the block's scores (`rows x S` float32) stay within 256 KiB, at
/// most 64 rows.
fn block_rows(s: usize) -> usize {
    ((256 << 10) / 4 / s.max(1)).clamp(1, 64)
}

/// Whether [`attention_f32`] takes these float32 operands (any strides): one batch shape for
/// all three (no broadcasting between them), matching query and key widths, as many values as
/// keys, and a mask of bool or float32.
pub fn takes(q: &Tensor, k: &Tensor, v: &Tensor, mask: &FusedMask) -> bool {
    let (qs, ks, vs) = (q.sizes(), k.sizes(), v.sizes());
    let d = qs.len();
    let f32s = [q, k, v].iter().all(|t| t.dtype() == DType::F32);
    let mask_ok = match mask {
        FusedMask::Keep(m) => m.dtype() == DType::Bool,
        FusedMask::Add(m) => m.dtype() == DType::F32,
        _ => true,
    };
    f32s && mask_ok
        && d >= 2
        && ks.len() == d
        && vs.len() == d
        && qs[..d - 2] == ks[..d - 2]
        && qs[..d - 2] == vs[..d - 2]
        && qs[d - 1] == ks[d - 1]
        && ks[d - 2] == vs[d - 2]
}

/// `softmax(q @ k^T * scale + mask) @ v` for operands [`takes`] accepts; `mask` (if a tensor)
/// already expanded to the scores' shape `[..., L, S]` (a view).
pub fn attention_f32(
    q: &Tensor,
    k: &Tensor,
    v: &Tensor,
    scale: f32,
    mask: &FusedMask,
) -> TensorResult<Tensor> {
    let qs = q.sizes();
    let d = qs.len();
    let (l, e) = (qs[d - 2] as usize, qs[d - 1] as usize);
    let (s, ev) = (k.sizes()[d - 2] as usize, v.sizes()[d - 1] as usize);
    let batch_dims: Vec<i64> = qs[..d - 2].to_vec();
    let batches: usize = batch_dims.iter().product::<i64>() as usize;
    let mut out_shape = batch_dims.clone();
    out_shape.extend([l as i64, ev as i64]);
    let out = crate::ops::pointwise::fast::output_for_overwrite(&out_shape, DType::F32)?;
    if batches == 0 || l == 0 || ev == 0 {
        return Ok(out);
    }
    // Element (batch b, row r, column c) of an operand at base + offset(b) + r * rs + c * cs,
    // in elements.
    let offset = |st: &[i64], b: usize| -> isize {
        let mut rest = b;
        let mut off = 0isize;
        for (dim, &size) in batch_dims.iter().enumerate().rev() {
            let size = size as usize;
            off += (rest % size) as isize * st[dim] as isize;
            rest /= size;
        }
        off
    };
    let mask_view = match mask {
        FusedMask::Keep(m) | FusedMask::Add(m) => {
            Some((m.data_ptr() as usize, m.strides().to_vec(), m.dtype()))
        }
        _ => None,
    };
    let (qst, kst, vst) = (
        q.strides().to_vec(),
        k.strides().to_vec(),
        v.strides().to_vec(),
    );
    let (q_rs, q_cs) = (qst[d - 2] as usize, qst[d - 1] as usize);
    let (k_rs, k_cs) = (kst[d - 2] as usize, kst[d - 1] as usize);
    let (v_rs, v_cs) = (vst[d - 2] as usize, vst[d - 1] as usize);
    let rows = block_rows(s);
    let blocks = l.div_ceil(rows);
    let (qp, kp, vp, op) = (
        q.data_ptr() as usize,
        k.data_ptr() as usize,
        v.data_ptr() as usize,
        out.data_ptr() as usize,
    );
    crate::parallel::map_init(
        batches * blocks,
        1,
        || vec![0f32; rows * s],
        |scores, task| {
            let (b, i0) = (task / blocks, (task % blocks) * rows);
            let m = rows.min(l - i0);
            let scores = &mut scores[..m * s];
            // SAFETY: q, k and v are float32 views of the shapes read above with these
            // strides (non-negative: views of Ember's tensors); block (b, i0) reads rows
            // i0..i0+m of batch b and writes only those rows of `out`, which no other task
            // writes.
            unsafe {
                let qb = (qp as *const f32).offset(offset(&qst, b)).add(i0 * q_rs);
                let kb = (kp as *const f32).offset(offset(&kst, b));
                // scores[m, S] = q[i0.., :] @ k^T: column j of k^T is row j of k.
                let scores = scores.as_mut_ptr();
                gemm_serial(
                    m,
                    s,
                    e,
                    scores,
                    s,
                    false,
                    qb,
                    [q_rs, q_cs],
                    kb,
                    [k_cs, k_rs],
                );
            }
            let mask_at = mask_view.as_ref().map_or(0, |(_, st, _)| offset(st, b));
            for (r, row) in scores.chunks_exact_mut(s.max(1)).enumerate() {
                mask_row(row, scale, mask, &mask_view, mask_at, i0 + r);
                normalize_f32(row, EmptyRow::Zeros);
            }
            // SAFETY: as above; v's batch b is `S x Ev`, the output rows `m x Ev`.
            unsafe {
                let vb = (vp as *const f32).offset(offset(&vst, b));
                let ob = (op as *mut f32).add((b * l + i0) * ev);
                gemm_serial(
                    m,
                    ev,
                    s,
                    ob,
                    ev,
                    false,
                    scores.as_ptr(),
                    [s, 1],
                    vb,
                    [v_rs, v_cs],
                );
            }
        },
    );
    Ok(out)
}

/// Scales one row of scores (query `i`) and applies the mask: a masked key's score is -inf.
fn mask_row(
    row: &mut [f32],
    scale: f32,
    mask: &FusedMask,
    view: &Option<(usize, Vec<i64>, DType)>,
    batch_offset: isize,
    i: usize,
) {
    if scale != 1.0 {
        row.iter_mut().for_each(|x| *x *= scale);
    }
    match (mask, view) {
        (FusedMask::Causal, _) => row
            .iter_mut()
            .skip(i + 1)
            .for_each(|x| *x = f32::NEG_INFINITY),
        (FusedMask::Keep(_) | FusedMask::Add(_), Some((base, st, dtype))) => {
            let d = st.len();
            let (rs, cs) = (st[d - 2] as isize, st[d - 1] as isize);
            let at = batch_offset + i as isize * rs;
            for (j, x) in row.iter_mut().enumerate() {
                let o = at + j as isize * cs;
                // SAFETY: the mask view covers the scores' shape, so every (b, i, j) is inside.
                unsafe {
                    if *dtype == DType::Bool {
                        if *(*base as *const u8).offset(o) == 0 {
                            *x = f32::NEG_INFINITY;
                        }
                    } else {
                        *x += *(*base as *const f32).offset(o);
                    }
                }
            }
        }
        _ => {}
    }
}
