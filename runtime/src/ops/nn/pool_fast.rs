//! float32 `max_pool2d` without indices, vectorized and spread over the cores: each plane is
//! copied into padded phase planes (padding -inf, as depthwise.rs lays them out for a
//! convolution), where every window position `(ki, kj)` of output `(oh, ow)` is a plain shift
//! of the flat position `oh * wq + ow`, so the maximum is one vector pass per window position.
//! NaN wins, as in PyTorch's kernel (`val > max || isnan(val)`).

use std::cell::RefCell;

use super::depthwise::{Planes, Shape};
use super::pool::{geometry, Pool2d};
use super::work::{slice, slice_mut};
use crate::ops::cpu;
use crate::tensor::{DType, Tensor, TensorResult};

/// Input elements below which pooling stays on the calling thread.
const PARALLEL_ELEMS: usize = 1 << 15;

thread_local! {
    /// Phase planes, the accumulators of one plane, and a padded-row scratch.
    static BUFS: RefCell<[Vec<f32>; 3]> = const { RefCell::new([Vec::new(), Vec::new(), Vec::new()]) };
}

/// `max_pool2d(x)` for a float32 `x` (`None` for other dtypes: the general kernel runs).
pub fn max_pool2d_f32(x: &Tensor, p: &Pool2d) -> TensorResult<Option<Tensor>> {
    if x.dtype() != DType::F32 {
        return Ok(None);
    }
    let sizes = x.sizes();
    let [ah, aw] = geometry(p, &sizes, false)?;
    let x = x.contiguous()?;
    let mut shape = sizes[..sizes.len() - 2].to_vec();
    shape.extend([ah.output, aw.output]);
    let out = crate::ops::pointwise::output_for_overwrite(&shape, DType::F32)?;
    let (ho, wo) = (ah.output as usize, aw.output as usize);
    let planes_n: usize = sizes[..sizes.len() - 2]
        .iter()
        .map(|&v| v as usize)
        .product();
    if ho == 0 || wo == 0 || planes_n == 0 {
        return Ok(Some(out));
    }
    let u = |v: i64| v as usize;
    let s = Shape {
        n: 1,
        c: planes_n,
        m: 1,
        h: u(ah.input),
        w: u(aw.input),
        kh: u(ah.kernel),
        kw: u(aw.kernel),
        sh: u(ah.stride),
        sw: u(aw.stride),
        ph: u(ah.pad),
        pw: u(aw.pad),
        dh: u(ah.dilation),
        dw: u(aw.dilation),
        ho,
        wo,
    };
    let planes = Planes::new(&s);
    let taps: Vec<usize> = (0..s.kh * s.kw)
        .map(|t| planes.tap(&s, t / s.kw, t % s.kw))
        .collect();
    let layout = planes.used * planes.hq * planes.wq + planes.wq;
    let (in_plane, out_plane) = (s.h * s.w, ho * wo);
    let level = cpu::isa();
    // SAFETY: `x` is contiguous float32; `out` is our fresh output, one plane per task.
    let (xv, ov) = unsafe { (slice::<f32>(&x), slice_mut::<f32>(&out)) };
    let run = |(c, dst): (usize, &mut [f32])| {
        BUFS.with(|cell| {
            let mut bufs = cell.borrow_mut();
            let [buf, acc, line] = &mut *bufs;
            buf.resize(layout, f32::NEG_INFINITY);
            acc.resize(ho * planes.wq, 0.0);
            buf[layout - planes.wq..].fill(f32::NEG_INFINITY);
            let src = &xv[c * in_plane..(c + 1) * in_plane];
            cpu::dispatch(
                level,
                #[inline(always)]
                || {
                    planes.fill(&s, src, buf, line, f32::NEG_INFINITY, false);
                    let n = ho * planes.wq;
                    acc[..n].fill(f32::NEG_INFINITY);
                    for &t in &taps {
                        let window = &buf[t..t + n];
                        for (m, &v) in acc[..n].iter_mut().zip(window) {
                            *m = if v > *m || v.is_nan() { v } else { *m };
                        }
                    }
                    for (row, from) in dst.chunks_mut(wo).zip(acc.chunks(planes.wq)) {
                        row.copy_from_slice(&from[..wo]);
                    }
                },
            );
        });
    };
    if xv.len() >= PARALLEL_ELEMS && planes_n > 1 {
        crate::parallel::for_each_chunk_mut(ov, out_plane, |i, c| run((i, c)));
    } else {
        ov.chunks_mut(out_plane).enumerate().for_each(run);
    }
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::nn::pool::max_pool2d_with_indices;

    /// The general kernel's maxima at every vector width, NaN and -inf included, strides,
    /// dilation, padding and ceil_mode.
    #[test]
    fn matches_the_general_kernel() {
        let n = 2 * 3 * 13 * 11;
        let mut v: Vec<f32> = (0..n).map(|i| ((i * 7919) % 211) as f32 - 100.0).collect();
        v[17] = f32::NAN;
        v[40] = f32::NEG_INFINITY;
        let x = Tensor::from_vec(v, &[2, 3, 13, 11]).unwrap();
        type Case = ([i64; 2], [i64; 2], [i64; 2], [i64; 2], bool);
        let cases: [Case; 4] = [
            ([3, 3], [2, 2], [1, 1], [1, 1], false),
            ([2, 2], [2, 2], [0, 0], [1, 1], true),
            ([3, 2], [1, 2], [1, 0], [2, 1], false),
            ([3, 3], [2, 2], [1, 1], [1, 1], true),
        ];
        for (k, st, pad, dil, ceil) in cases {
            let p = Pool2d {
                name: "max_pool2d",
                kernel: &k,
                stride: &st,
                padding: &pad,
                dilation: &dil,
                ceil_mode: ceil,
            };
            let want = max_pool2d_with_indices(&x, &p).unwrap().0.to_vec::<f32>();
            for level in cpu::available_levels() {
                let got = cpu::with_isa(level, || max_pool2d_f32(&x, &p).unwrap().unwrap());
                let got = got.to_vec::<f32>();
                assert_eq!(got.len(), want.len());
                for (g, w) in got.iter().zip(&want) {
                    assert!(
                        g == w || (g.is_nan() && w.is_nan()),
                        "{k:?} {level:?}: {g} vs {w}"
                    );
                }
            }
        }
    }
}
