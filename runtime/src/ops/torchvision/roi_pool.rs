//! `torchvision::roi_pool` (Fast R-CNN's RoIPool: the maximum over each bin of a region
//! rounded to the pixel grid, with its argmax) and `ps_roi_pool` (the position-sensitive
//! average).

use super::{batch_index, check_regions, dispatch_real, tensor_of, values, Pooling};
use crate::bail;
use crate::ops::real::Real;
use crate::tensor::{Element, Tensor, TensorResult};

/// C's `round`: half away from zero, then `static_cast<int>`.
fn round_int<C: Real>(v: C) -> i64 {
    let r = v.f64().round();
    if r.is_nan() {
        0
    } else {
        r as i64
    }
}

/// The pixel bounds `[start, end)` of bin `b` of `pooled` over `len` pixels from `offset`,
/// clamped to `[0, limit]`.
fn bin_bounds<C: Real>(b: i64, bin: C, offset: i64, limit: i64) -> (i64, i64) {
    let start = (C::of(b as f64) * bin).f64().floor() as i64;
    let end = (C::of((b + 1) as f64) * bin).f64().ceil() as i64;
    (
        (start + offset).clamp(0, limit),
        (end + offset).clamp(0, limit),
    )
}

/// The rounded region `[x1, y1, x2, y2]` of region `r` in feature-map pixels.
fn rounded_region<C: Real>(rois: &[C], r: usize, scale: C) -> [i64; 4] {
    std::array::from_fn(|i| round_int(rois[r * 5 + 1 + i] * scale))
}

pub fn roi_pool(x: &Tensor, rois: &Tensor, p: &Pooling) -> TensorResult<(Tensor, Tensor)> {
    let (x, rois) = check_regions(
        x,
        rois,
        "Tensor rois should have shape as Tensor[K, 5]",
        "roi_pool_forward_kernel",
    )?;
    dispatch_real!(x.dtype(), T, C => max_pool::<T, C>(&x, &rois, p))
}

fn max_pool<T: Element, C: Real>(
    x: &Tensor,
    rois: &Tensor,
    p: &Pooling,
) -> TensorResult<(Tensor, Tensor)> {
    let s = x.sizes();
    let (n, c, h, w) = (s[0], s[1], s[2], s[3]);
    let (ph, pw) = (p.pooled_height, p.pooled_width);
    let k = rois.sizes()[0];
    let shape = [k, c, ph, pw];
    let numel = crate::tensor::checked_numel(&shape)?;
    let (xv, rv): (Vec<C>, Vec<C>) = (values::<T, C>(x), values::<T, C>(rois));
    let scale = C::of(p.spatial_scale);
    let plane = (h * w) as usize;
    let mut out = vec![C::ZERO; numel];
    let mut arg = vec![-1i32; numel];
    for r in 0..k as usize {
        let b = batch_index(&rv, r, n)?;
        let [x1, y1, x2, y2] = rounded_region(&rv, r, scale);
        // Malformed regions are forced to 1x1.
        let roi_w = (x2 - x1 + 1).max(1);
        let roi_h = (y2 - y1 + 1).max(1);
        let bin_h = C::of(roi_h as f64) / C::of(ph as f64);
        let bin_w = C::of(roi_w as f64) / C::of(pw as f64);
        for by in 0..ph {
            for bx in 0..pw {
                let (h0, h1) = bin_bounds(by, bin_h, y1, h);
                let (w0, w1) = bin_bounds(bx, bin_w, x1, w);
                let empty = h1 <= h0 || w1 <= w0;
                for ch in 0..c as usize {
                    let src = &xv[(b * c as usize + ch) * plane..][..plane];
                    let mut best = if empty {
                        C::ZERO
                    } else {
                        C::of(-(f32::MAX as f64))
                    };
                    let mut at = -1i64;
                    for yy in h0..h1 {
                        for xx in w0..w1 {
                            let i = yy * w + xx;
                            if src[i as usize] > best {
                                best = src[i as usize];
                                at = i;
                            }
                        }
                    }
                    let o = (((r as i64 * c + ch as i64) * ph + by) * pw + bx) as usize;
                    out[o] = best;
                    arg[o] = at as i32;
                }
            }
        }
    }
    Ok((
        tensor_of::<T, C>(&out, &shape)?,
        Tensor::from_vec(arg, &shape)?,
    ))
}

pub fn ps_roi_pool(x: &Tensor, rois: &Tensor, p: &Pooling) -> TensorResult<(Tensor, Tensor)> {
    let (x, rois) = check_regions(
        x,
        rois,
        "rois must have shape as Tensor[K, 5]",
        "ps_roi_pool_forward_kernel",
    )?;
    let bins = p.pooled_height.checked_mul(p.pooled_width).unwrap_or(0);
    if bins <= 0 || x.sizes()[1] % bins != 0 {
        bail!("input channels must be a multiple of pooling height * pooling width");
    }
    dispatch_real!(x.dtype(), T, C => avg_pool::<T, C>(&x, &rois, p))
}

fn avg_pool<T: Element, C: Real>(
    x: &Tensor,
    rois: &Tensor,
    p: &Pooling,
) -> TensorResult<(Tensor, Tensor)> {
    let s = x.sizes();
    let (n, c, h, w) = (s[0], s[1], s[2], s[3]);
    let (ph, pw) = (p.pooled_height, p.pooled_width);
    let c_out = c / (ph * pw);
    let k = rois.sizes()[0];
    let shape = [k, c_out, ph, pw];
    let numel = crate::tensor::checked_numel(&shape)?;
    let (xv, rv): (Vec<C>, Vec<C>) = (values::<T, C>(x), values::<T, C>(rois));
    let scale = C::of(p.spatial_scale);
    let plane = (h * w) as usize;
    let mut out = vec![C::ZERO; numel];
    let mut map = vec![0i32; numel];
    for r in 0..k as usize {
        let b = batch_index(&rv, r, n)?;
        let [x1, y1, x2, y2] = rounded_region(&rv, r, scale);
        // Too small regions are forced to 1x1.
        let roi_w = (x2 - x1).max(1);
        let roi_h = (y2 - y1).max(1);
        let bin_h = C::of(roi_h as f64) / C::of(ph as f64);
        let bin_w = C::of(roi_w as f64) / C::of(pw as f64);
        for co in 0..c_out {
            for by in 0..ph {
                for bx in 0..pw {
                    let (h0, h1) = bin_bounds(by, bin_h, y1, h - 1);
                    let (w0, w1) = bin_bounds(bx, bin_w, x1, w - 1);
                    let empty = h1 <= h0 || w1 <= w0;
                    let c_in = (co * ph + by) * pw + bx;
                    let src = &xv[(b * c as usize + c_in as usize) * plane..][..plane];
                    let mut sum = C::ZERO;
                    for yy in h0..h1 {
                        for xx in w0..w1 {
                            sum += src[(yy * w + xx) as usize];
                        }
                    }
                    let area = C::of(((h1 - h0) * (w1 - w0)) as f64);
                    let o = (((r as i64 * c_out + co) * ph + by) * pw + bx) as usize;
                    out[o] = if empty { C::ZERO } else { sum / area };
                    map[o] = c_in as i32;
                }
            }
        }
    }
    Ok((
        tensor_of::<T, C>(&out, &shape)?,
        Tensor::from_vec(map, &shape)?,
    ))
}
