//! The softmax rows of attention: scores scaled, masked (a boolean keep-mask or an additive
//! float mask, both already broadcast to the scores' shape) and normalized in f64 along the
//! last dim. A row with nothing to attend to is all zeros (SDPA's `_safe_softmax`) or all NaN
//! (`_masked_softmax`, which divides 0 by 0), as the caller asks.

use crate::tensor::{DType, Tensor, TensorResult};

/// Rows with at least this many elements in all are split over the cores.
const PARALLEL_ELEMENTS: usize = 1 << 15;

/// How masked elements are given.
pub enum Mask {
    None,
    /// `true` keeps the element (one per score).
    Keep(Vec<bool>),
    /// Added to the scores (one per score).
    Add(Vec<f64>),
}

/// What an all-masked row becomes.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum EmptyRow {
    Zeros,
    Nan,
}

/// `softmax(scores * scale + mask)` along the last dim of `scores` (any float dtype), as a new
/// contiguous tensor of `dtype`.
pub fn softmax_rows(
    scores: &Tensor,
    scale: f64,
    mask: &Mask,
    empty: EmptyRow,
    dtype: DType,
) -> TensorResult<Tensor> {
    let sizes = scores.sizes();
    let width = sizes.last().copied().unwrap_or(1).max(0) as usize;
    if scores.dtype() == DType::F32 && dtype == DType::F32 {
        return softmax_rows_f32(scores, scale as f32, mask, empty, width);
    }
    let mut v = scores.to_vec::<f64>();
    if width > 0 {
        let run = |(r, row): (usize, &mut [f64])| {
            let at = r * width;
            for (j, x) in row.iter_mut().enumerate() {
                *x *= scale;
                match mask {
                    Mask::None => {}
                    Mask::Keep(keep) => {
                        if !keep[at + j] {
                            *x = f64::NEG_INFINITY;
                        }
                    }
                    Mask::Add(add) => *x += add[at + j],
                }
            }
            normalize(row, empty);
        };
        if v.len() >= PARALLEL_ELEMENTS {
            crate::parallel::for_each_chunk_mut(&mut v, width, |i, c| run((i, c)));
        } else {
            v.chunks_mut(width).enumerate().for_each(run);
        }
    }
    let out = Tensor::from_vec(v, &sizes)?;
    if dtype == DType::F64 {
        return Ok(out);
    }
    let cast = Tensor::zeros(&sizes, dtype)?;
    cast.copy_from(&out)?;
    Ok(cast)
}

/// [`softmax_rows`] of float32 scores into float32, as PyTorch's vectorized softmax computes
/// it: in float32, `exp` vectorized, each row scaled by the reciprocal of its sum.
fn softmax_rows_f32(
    scores: &Tensor,
    scale: f32,
    mask: &Mask,
    empty: EmptyRow,
    width: usize,
) -> TensorResult<Tensor> {
    let sizes = scores.sizes();
    let mut v = scores.to_vec::<f32>();
    if width > 0 {
        let run = |(r, row): (usize, &mut [f32])| {
            let at = r * width;
            if scale != 1.0 {
                row.iter_mut().for_each(|x| *x *= scale);
            }
            match mask {
                Mask::None => {}
                Mask::Keep(keep) => {
                    for (x, &k) in row.iter_mut().zip(&keep[at..at + width]) {
                        if !k {
                            *x = f32::NEG_INFINITY;
                        }
                    }
                }
                Mask::Add(add) => {
                    for (x, &a) in row.iter_mut().zip(&add[at..at + width]) {
                        *x += a as f32;
                    }
                }
            }
            normalize_f32(row, empty);
        };
        if v.len() >= PARALLEL_ELEMENTS {
            crate::parallel::for_each_chunk_mut(&mut v, width, |i, c| run((i, c)));
        } else {
            v.chunks_mut(width).enumerate().for_each(run);
        }
    }
    Tensor::from_vec(v, &sizes)
}

/// Softmax of one float32 row in place; a row of nothing but -inf becomes `empty`'s fill.
pub(super) fn normalize_f32(row: &mut [f32], empty: EmptyRow) {
    let max = max_f32(row);
    if max == f32::NEG_INFINITY {
        let fill = match empty {
            EmptyRow::Zeros => 0.0,
            EmptyRow::Nan => f32::NAN,
        };
        row.iter_mut().for_each(|x| *x = fill);
        return;
    }
    // Two passes so each vectorizes: the exponentials, then a sum over eight lanes.
    exp_shifted(row, max);
    let mut lanes = [0.0f32; 8];
    let mut chunks = row.chunks_exact(8);
    for c in &mut chunks {
        for (l, &x) in lanes.iter_mut().zip(c) {
            *l += x;
        }
    }
    let sum = lanes.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>();
    let inv = 1.0 / sum;
    row.iter_mut().for_each(|x| *x *= inv);
}

/// The largest of `row`, NaN if any element is NaN: in eight lanes and a NaN flag, so the
/// loop vectorizes (a fold that tests for NaN at each step does not).
fn max_f32(row: &[f32]) -> f32 {
    let mut lanes = [f32::NEG_INFINITY; 8];
    let mut nan = false;
    let mut chunks = row.chunks_exact(8);
    for c in &mut chunks {
        for (l, &x) in lanes.iter_mut().zip(c) {
            nan |= x.is_nan();
            *l = if x > *l { x } else { *l };
        }
    }
    for &x in chunks.remainder() {
        nan |= x.is_nan();
        lanes[0] = if x > lanes[0] { x } else { lanes[0] };
    }
    if nan {
        return f32::NAN;
    }
    lanes
        .iter()
        .fold(f32::NEG_INFINITY, |m, &x| if x > m { x } else { m })
}

/// `row[i] = e^(row[i] - max)`, in the widest vectors the CPU has (the loop auto-vectorizes:
/// `vmath::exp` is branch-free and inlined).
fn exp_shifted(row: &mut [f32], max: f32) {
    #[inline(always)]
    fn body(row: &mut [f32], max: f32) {
        for x in row.iter_mut() {
            *x = crate::ops::pointwise::vmath::exp(*x - max);
        }
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        unsafe fn avx512(row: &mut [f32], max: f32) {
            body(row, max)
        }
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2(row: &mut [f32], max: f32) {
            body(row, max)
        }
        use crate::ops::cpu::{isa, Isa};
        match isa() {
            // SAFETY: isa() reports only features this CPU has.
            Isa::Avx512 => return unsafe { avx512(row, max) },
            Isa::Avx2 => return unsafe { avx2(row, max) },
            _ => {}
        }
    }
    body(row, max)
}

/// Softmax of one row in place.
fn normalize(row: &mut [f64], empty: EmptyRow) {
    let max = row.iter().fold(f64::NEG_INFINITY, |m, &x| {
        if m.is_nan() || x.is_nan() {
            f64::NAN
        } else {
            m.max(x)
        }
    });
    if max == f64::NEG_INFINITY {
        let fill = match empty {
            EmptyRow::Zeros => 0.0,
            EmptyRow::Nan => f64::NAN,
        };
        row.iter_mut().for_each(|x| *x = fill);
        return;
    }
    let mut sum = 0.0;
    for x in row.iter_mut() {
        *x = (*x - max).exp();
        sum += *x;
    }
    row.iter_mut().for_each(|x| *x /= sum);
}
