//! The softmax rows of attention: scores scaled, masked (a boolean keep-mask or an additive
//! float mask, both already broadcast to the scores' shape) and normalized in f64 along the
//! last dim. A row with nothing to attend to is all zeros (SDPA's `_safe_softmax`) or all NaN
//! (`_masked_softmax`, which divides 0 by 0), as the caller asks.

use rayon::prelude::*;

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
            v.par_chunks_mut(width).enumerate().for_each(run);
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
