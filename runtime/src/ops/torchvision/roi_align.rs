//! `torchvision::roi_align` and `ps_roi_align`: average of bilinear samples on a regular grid
//! inside each bin of each region (Mask R-CNN's RoIAlign), and its position-sensitive form
//! (bin `(ph, pw)` of output channel `c` reads input channel `(c * PH + ph) * PW + pw`).

use super::{batch_index, check_regions, dispatch_real, tensor_of, values, Pooling};
use crate::bail;
use crate::ops::real::Real;
use crate::tensor::{Element, Tensor, TensorResult};

/// The four taps and weights of a bilinear sample at `(y, x)` of an `h x w` plane, or `None`
/// outside the plane's one-pixel margin (the sample counts as 0), as torchvision computes
/// them.
fn bilinear<C: Real>(y: C, x: C, h: i64, w: i64) -> Option<([usize; 4], [C; 4])> {
    let (yf, xf) = (y.f64(), x.f64());
    if yf < -1.0 || yf > h as f64 || xf < -1.0 || xf > w as f64 {
        return None;
    }
    let mut y = if yf <= 0.0 { C::ZERO } else { y };
    let mut x = if xf <= 0.0 { C::ZERO } else { x };
    let (mut y_low, mut x_low) = (y.f64() as i64, x.f64() as i64);
    let y_high = if y_low >= h - 1 {
        y_low = h - 1;
        y = C::of(y_low as f64);
        y_low
    } else {
        y_low + 1
    };
    let x_high = if x_low >= w - 1 {
        x_low = w - 1;
        x = C::of(x_low as f64);
        x_low
    } else {
        x_low + 1
    };
    let ly = y - C::of(y_low as f64);
    let lx = x - C::of(x_low as f64);
    let (hy, hx) = (C::ONE - ly, C::ONE - lx);
    let at = |r: i64, c: i64| (r * w + c) as usize;
    Some((
        [
            at(y_low, x_low),
            at(y_low, x_high),
            at(y_high, x_low),
            at(y_high, x_high),
        ],
        [hy * hx, hy * lx, ly * hx, ly * lx],
    ))
}

/// `w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4` of one sample.
fn sample<C: Real>(plane: &[C], tap: &Option<([usize; 4], [C; 4])>) -> C {
    match tap {
        None => C::ZERO,
        Some((i, w)) => {
            w[0] * plane[i[0]] + w[1] * plane[i[1]] + w[2] * plane[i[2]] + w[3] * plane[i[3]]
        }
    }
}

/// The sampling grid of a region: per axis, the count of samples per bin.
fn grid<C: Real>(sampling: i64, extent: C, pooled: i64) -> i64 {
    if sampling > 0 {
        sampling
    } else {
        (extent / C::of(pooled as f64)).f64().ceil() as i64
    }
}

/// The position of sample `i` of `n` in bin `p` of size `bin` starting at `start`.
fn position<C: Real>(start: C, p: i64, bin: C, i: i64, n: i64) -> C {
    start + C::of(p as f64) * bin + C::of(i as f64 + 0.5) * bin / C::of(n as f64)
}

pub fn roi_align(
    x: &Tensor,
    rois: &Tensor,
    p: &Pooling,
    sampling: i64,
    aligned: bool,
) -> TensorResult<Tensor> {
    let (x, rois) = check_regions(
        x,
        rois,
        "rois must have shape as Tensor[K, 5]",
        "roi_align_forward_kernel",
    )?;
    dispatch_real!(x.dtype(), T, C => align::<T, C>(&x, &rois, p, sampling, aligned))
}

fn align<T: Element, C: Real>(
    x: &Tensor,
    rois: &Tensor,
    p: &Pooling,
    sampling: i64,
    aligned: bool,
) -> TensorResult<Tensor> {
    let s = x.sizes();
    let (n, c, h, w) = (s[0], s[1], s[2], s[3]);
    let (ph, pw) = (p.pooled_height, p.pooled_width);
    let k = rois.sizes()[0];
    let shape = [k, c, ph, pw];
    let numel = crate::tensor::checked_numel(&shape)?;
    if numel == 0 {
        return Tensor::zeros(&shape, T::DTYPE);
    }
    let (xv, rv): (Vec<C>, Vec<C>) = (values::<T, C>(x), values::<T, C>(rois));
    let batches = (0..k as usize)
        .map(|r| batch_index(&rv, r, n))
        .collect::<TensorResult<Vec<_>>>()?;
    if h * w > u32::MAX as i64 {
        bail!("roi_align: feature maps of more than 2^32 elements per channel are not supported");
    }
    let scale = C::of(p.spatial_scale);
    let offset = C::of(if aligned { 0.5 } else { 0.0 });
    let plane = (h * w) as usize;
    let bins = (ph * pw) as usize;
    let mut out = vec![C::ZERO; numel];
    crate::parallel::for_each_chunk_mut(&mut out, c as usize * bins, |r, dst| {
        let roi = &rv[r * 5..r * 5 + 5];
        let start_w = roi[1] * scale - offset;
        let start_h = roi[2] * scale - offset;
        let (mut roi_w, mut roi_h) = (
            roi[3] * scale - offset - start_w,
            roi[4] * scale - offset - start_h,
        );
        if !aligned {
            // Malformed regions are forced to 1x1.
            if roi_w < C::ONE {
                roi_w = C::ONE;
            }
            if roi_h < C::ONE {
                roi_h = C::ONE;
            }
        }
        let bin_h = roi_h / C::of(ph as f64);
        let bin_w = roi_w / C::of(pw as f64);
        let (gh, gw) = (grid(sampling, roi_h, ph), grid(sampling, roi_w, pw));
        let count = C::of((gh * gw).max(1) as f64);
        // The taps are shared by every channel; a sample outside the map reads element
        // 0 with zero weights, as torchvision's pre-computation stores it.
        let mut pos: Vec<[u32; 4]> = Vec::new();
        let mut wts: Vec<[C; 4]> = Vec::new();
        for by in 0..ph {
            for bx in 0..pw {
                for iy in 0..gh {
                    let y = position(start_h, by, bin_h, iy, gh);
                    for ix in 0..gw {
                        let x = position(start_w, bx, bin_w, ix, gw);
                        let (p, w) = bilinear(y, x, h, w).unwrap_or(([0; 4], [C::ZERO; 4]));
                        // Offsets inside an h x w plane: they fit u32 (checked below).
                        pos.push(p.map(|o| o as u32));
                        wts.push(w);
                    }
                }
            }
        }
        let per_bin = (gh.max(0) * gw.max(0)) as usize;
        for (ch, bins_out) in dst.chunks_mut(bins).enumerate() {
            let src = &xv[(batches[r] * c as usize + ch) * plane..][..plane];
            for (b, v) in bins_out.iter_mut().enumerate() {
                let range = b * per_bin..(b + 1) * per_bin;
                let mut acc = C::ZERO;
                for (p, w) in pos[range.clone()].iter().zip(&wts[range]) {
                    let v = |k: usize| src[p[k] as usize];
                    acc += w[0] * v(0) + w[1] * v(1) + w[2] * v(2) + w[3] * v(3);
                }
                *v = acc / count;
            }
        }
    });
    tensor_of::<T, C>(&out, &shape)
}

pub fn ps_roi_align(
    x: &Tensor,
    rois: &Tensor,
    p: &Pooling,
    sampling: i64,
) -> TensorResult<(Tensor, Tensor)> {
    let (x, rois) = check_regions(
        x,
        rois,
        "rois must have shape as Tensor[K, 5]",
        "ps_roi_align_forward_kernel",
    )?;
    let bins = p.pooled_height.checked_mul(p.pooled_width).unwrap_or(0);
    if bins <= 0 || x.sizes()[1] % bins != 0 {
        bail!("input channels must be a multiple of pooling height * pooling width");
    }
    dispatch_real!(x.dtype(), T, C => ps_align::<T, C>(&x, &rois, p, sampling))
}

fn ps_align<T: Element, C: Real>(
    x: &Tensor,
    rois: &Tensor,
    p: &Pooling,
    sampling: i64,
) -> TensorResult<(Tensor, Tensor)> {
    let s = x.sizes();
    let (n, c, h, w) = (s[0], s[1], s[2], s[3]);
    let (ph, pw) = (p.pooled_height, p.pooled_width);
    let c_out = c / (ph * pw);
    let k = rois.sizes()[0];
    let shape = [k, c_out, ph, pw];
    let numel = crate::tensor::checked_numel(&shape)?;
    let (xv, rv): (Vec<C>, Vec<C>) = (values::<T, C>(x), values::<T, C>(rois));
    let batches = (0..k as usize)
        .map(|r| batch_index(&rv, r, n))
        .collect::<TensorResult<Vec<_>>>()?;
    let scale = C::of(p.spatial_scale);
    let half = C::of(0.5);
    let plane = (h * w) as usize;
    let mut out = vec![C::ZERO; numel];
    let mut map = vec![0i32; numel];
    for r in 0..k as usize {
        let roi = &rv[r * 5..r * 5 + 5];
        let start_w = roi[1] * scale - half;
        let start_h = roi[2] * scale - half;
        let roi_w = roi[3] * scale - half - start_w;
        let roi_h = roi[4] * scale - half - start_h;
        let bin_h = roi_h / C::of(ph as f64);
        let bin_w = roi_w / C::of(pw as f64);
        let (gh, gw) = (grid(sampling, roi_h, ph), grid(sampling, roi_w, pw));
        let count = C::of((gh * gw) as f64);
        for co in 0..c_out {
            for by in 0..ph {
                for bx in 0..pw {
                    let index = (((r as i64 * c_out + co) * ph + by) * pw + bx) as usize;
                    let c_in = (co * ph + by) * pw + bx;
                    let src = &xv[(batches[r] * c as usize + c_in as usize) * plane..][..plane];
                    let mut acc = C::ZERO;
                    for iy in 0..gh {
                        let y = position(start_h, by, bin_h, iy, gh);
                        for ix in 0..gw {
                            let x = position(start_w, bx, bin_w, ix, gw);
                            acc += sample(src, &bilinear(y, x, h, w));
                        }
                    }
                    out[index] = acc / count;
                    map[index] = c_in as i32;
                }
            }
        }
    }
    Ok((
        tensor_of::<T, C>(&out, &shape)?,
        Tensor::from_vec(map, &shape)?,
    ))
}
