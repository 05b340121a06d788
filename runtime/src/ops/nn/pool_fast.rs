//! float32 `max_pool2d` without indices, vectorized and spread over the cores: each plane is
//! copied into padded phase planes (padding -inf, as depthwise.rs lays them out for a
//! convolution), where every window position `(ki, kj)` of output `(oh, ow)` is a plain shift
//! of the flat position `oh * wq + ow`, so the maximum is one vector pass per window position.
//! NaN wins, as in PyTorch's kernel (`val > max || isnan(val)`). Windows of dilation 1 and
//! column stride 1 or 2 (ResNet's 3x3 stride-2 pool) skip the copy: see [`by_rows`].

use std::cell::RefCell;

use super::depthwise::{Planes, Shape};
use super::pool::{for_planes, geometry, Pool2d};
use crate::ops::cpu;
use crate::tensor::{DType, Tensor, TensorResult};

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
    let level = cpu::isa();
    let (in_plane, out_plane) = (s.h * s.w, ho * wo);
    if s.dh == 1 && s.dw == 1 && s.sw <= 2 {
        for_planes(&x, &out, in_plane, out_plane, |_, src, dst| {
            by_rows(&s, src, dst, level)
        });
        return Ok(Some(out));
    }
    let planes = Planes::new(&s);
    let taps: Vec<usize> = (0..s.kh * s.kw)
        .map(|t| planes.tap(&s, t / s.kw, t % s.kw))
        .collect();
    let layout = planes.used * planes.hq * planes.wq + planes.wq;
    let run = |_, src: &[f32], dst: &mut [f32]| {
        BUFS.with(|cell| {
            let mut bufs = cell.borrow_mut();
            let [buf, acc, line] = &mut *bufs;
            buf.resize(layout, f32::NEG_INFINITY);
            acc.resize(ho * planes.wq, 0.0);
            buf[layout - planes.wq..].fill(f32::NEG_INFINITY);
            cpu::dispatch(
                level,
                #[inline(always)]
                || {
                    planes.fill(&s, src, buf, line, f32::NEG_INFINITY, false);
                    let n = ho * planes.wq;
                    acc[..n].fill(f32::NEG_INFINITY);
                    for &t in &taps {
                        max_into(&mut acc[..n], &buf[t..t + n]);
                    }
                    for (row, from) in dst.chunks_mut(wo).zip(acc.chunks(planes.wq)) {
                        row.copy_from_slice(&from[..wo]);
                    }
                },
            );
        });
    };
    for_planes(&x, &out, in_plane, out_plane, run);
    Ok(Some(out))
}

/// `m = max(m, v)` with NaN winning, PyTorch's comparison, elementwise (vectorized).
#[inline(always)]
fn max_into(acc: &mut [f32], from: &[f32]) {
    for (m, &v) in acc.iter_mut().zip(from) {
        *m = if v > *m || v.is_nan() { v } else { *m };
    }
}

/// The pooling of one plane `src` into `dst` (dilation 1, column stride 1 or 2) read straight
/// from the input: per output row, the maximum down the window's rows into one padded row
/// (whole vectors along the input's rows), then across each window's columns of that row, a
/// stride of 2 split into even and odd columns first. The phase planes copied every input plane first: for
/// ResNet's 3x3 stride-2 pool over 64 planes of 112x112 (3.2 MB, more than L2) the copy
/// doubled the time. Each window's maximum is over the same elements, rows first then
/// columns (equal values of either sign of zero may give the other sign).
fn by_rows(s: &Shape, src: &[f32], dst: &mut [f32], level: cpu::Isa) {
    // The padded row: left padding, the input row, and -inf out to the last window's end.
    let len = ((s.wo - 1) * s.sw + s.kw)
        .max(s.pw + s.w)
        .next_multiple_of(2);
    BUFS.with(|cell| {
        let mut bufs = cell.borrow_mut();
        let [row, even, odd] = &mut *bufs;
        row.resize(len, f32::NEG_INFINITY);
        even.resize(len / 2, f32::NEG_INFINITY);
        odd.resize(len / 2, f32::NEG_INFINITY);
        let line = |r: usize| &src[r * s.w..(r + 1) * s.w];
        cpu::dispatch(
            level,
            #[inline(always)]
            || {
                for (oh, out) in dst.chunks_mut(s.wo).enumerate() {
                    let top = (oh * s.sh) as isize - s.ph as isize;
                    let r0 = top.max(0) as usize;
                    let r1 = (top + s.kh as isize).clamp(0, s.h as isize) as usize;
                    row.fill(f32::NEG_INFINITY);
                    let body = &mut row[s.pw..s.pw + s.w];
                    if r0 < r1 {
                        body.copy_from_slice(line(r0));
                        for r in r0 + 1..r1 {
                            max_into(body, line(r));
                        }
                    }
                    out.fill(f32::NEG_INFINITY);
                    if s.sw == 1 {
                        for kj in 0..s.kw {
                            max_into(out, &row[kj..]);
                        }
                        continue;
                    }
                    for ((e, o), pair) in
                        even.iter_mut().zip(odd.iter_mut()).zip(row.chunks_exact(2))
                    {
                        *e = pair[0];
                        *o = pair[1];
                    }
                    for kj in 0..s.kw {
                        let half = if kj % 2 == 0 { &even[..] } else { &odd[..] };
                        max_into(out, &half[kj / 2..]);
                    }
                }
            },
        );
    });
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
        // Dilation 1 and column stride 1 or 2 read the rows (`by_rows`), the rest the
        // phase planes.
        let cases: [Case; 7] = [
            ([3, 3], [2, 2], [1, 1], [1, 1], false),
            ([2, 2], [2, 2], [0, 0], [1, 1], true),
            ([3, 2], [1, 2], [1, 0], [2, 1], false),
            ([3, 3], [2, 2], [1, 1], [1, 1], true),
            ([3, 3], [1, 1], [1, 1], [1, 1], false),
            ([2, 4], [3, 1], [1, 2], [1, 1], true),
            ([3, 3], [2, 3], [1, 1], [1, 1], false),
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
