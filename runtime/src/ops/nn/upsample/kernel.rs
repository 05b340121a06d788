//! The interpolation loops over contiguous `[planes, d, h, w]` data (a 1-d or 2-d input has
//! size-1 leading spatial dims): nearest gathers, the fixed-tap product of linear and cubic
//! interpolation in PyTorch's order of operations, and the one-axis passes of the separable
//! (antialiasing and uint8) kernels. Output rows are spread over the cores when the output is
//! large.

use super::tables::{Axis, Ranges, Real};

/// Outputs at least this large are computed in parallel.
const PARALLEL_ELEMS: usize = 1 << 15;
/// Output elements per parallel task, at least.
const TASK_ELEMS: usize = 1 << 12;

/// The sizes of contiguous `[planes, d, h, w]` data.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Dims {
    pub planes: usize,
    pub d: usize,
    pub h: usize,
    pub w: usize,
}

/// Runs `f(row_index, row, scratch)` over the rows of length `w` of `out`, in parallel for
/// large outputs; `scratch` is per-task state made by `init`.
fn for_rows<T: Send, S>(
    out: &mut [T],
    w: usize,
    init: impl Fn() -> S + Sync + Send,
    f: impl Fn(usize, &mut [T], &mut S) + Sync + Send,
) {
    if w == 0 || out.is_empty() {
        return;
    }
    let rows_per_task = (TASK_ELEMS / w).max(1);
    let run = |(t, chunk): (usize, &mut [T]), s: &mut S| {
        for (k, row) in chunk.chunks_mut(w).enumerate() {
            f(t * rows_per_task + k, row, s);
        }
    };
    if out.len() >= PARALLEL_ELEMS {
        crate::parallel::for_each_chunk_mut(out, rows_per_task * w, |t, chunk| {
            run((t, chunk), &mut init())
        });
    } else {
        let mut s = init();
        out.chunks_mut(rows_per_task * w)
            .enumerate()
            .for_each(|job| run(job, &mut s));
    }
}

/// Nearest interpolation: `out[p, a, b, c] = x[p, id[a], ih[b], iw[c]]`.
pub fn gather<T: Copy + Send + Sync>(x: &[T], input: Dims, out: &mut [T], index: [&[usize]; 3]) {
    let [id, ih, iw] = index;
    let (od, oh) = (id.len(), ih.len());
    let plane = input.d * input.h * input.w;
    for_rows(
        out,
        iw.len(),
        || (),
        |r, row, _| {
            let (p, a, b) = (r / (od * oh), (r / oh) % od, r % oh);
            let at = p * plane + (id[a] * input.h + ih[b]) * input.w;
            let src = &x[at..at + input.w];
            for (v, &i) in row.iter_mut().zip(iw) {
                *v = src[i];
            }
        },
    );
}

/// One row of the innermost axis: `out[o] = sum_k src[index[o, k]] * weight[o, k]`, the sum
/// started with the first product and accumulated in tap order.
fn taps_row<A: Real, const K: usize>(src: &[A], axis: &Axis<A>, out: &mut [A]) {
    let pairs = axis.index.chunks_exact(K).zip(axis.weight.chunks_exact(K));
    for (v, (idx, w)) in out.iter_mut().zip(pairs) {
        let mut acc = src[idx[0]] * w[0];
        for k in 1..K {
            acc += src[idx[k]] * w[k];
        }
        *v = acc;
    }
}

fn inner_row<A: Real>(src: &[A], axis: &Axis<A>, out: &mut [A]) {
    match axis.taps {
        1 => taps_row::<A, 1>(src, axis, out),
        2 => taps_row::<A, 2>(src, axis, out),
        4 => taps_row::<A, 4>(src, axis, out),
        _ => unreachable!("interpolation axes have 1, 2 or 4 taps"),
    }
}

/// `dst = src * w` for the first tap, `dst += src * w` after.
fn accumulate<A: Real>(dst: &mut [A], src: &[A], w: A, first: bool) {
    if first {
        for (d, &s) in dst.iter_mut().zip(src) {
            *d = s * w;
        }
    } else {
        for (d, &s) in dst.iter_mut().zip(src) {
            *d += s * w;
        }
    }
}

/// Fixed-tap interpolation (linear, cubic) over three axes, computed as PyTorch's generic
/// kernel nests it: `sum_a wd[a] * (sum_b wh[b] * (sum_c ww[c] * x))`. An identity axis
/// (a dim the kernel lacks) costs nothing.
pub fn interpolate<A: Real>(x: &[A], input: Dims, out: &mut [A], axes: [&Axis<A>; 3]) {
    let [ad, ah, aw] = axes;
    let od = ad.index.len() / ad.taps;
    let oh = ah.index.len() / ah.taps;
    let ow = aw.index.len() / aw.taps;
    let (skip_d, skip_h) = (ad.is_identity(), ah.is_identity());
    let plane = input.d * input.h * input.w;
    for_rows(
        out,
        ow,
        || (vec![A::ZERO; ow], vec![A::ZERO; ow]),
        |r, row, (inner, mid)| {
            let (p, a, b) = (r / (od * oh), (r / oh) % od, r % oh);
            let src_row = |d: usize, h: usize| {
                let at = p * plane + (d * input.h + h) * input.w;
                &x[at..at + input.w]
            };
            for ka in 0..ad.taps {
                let (id, wd) = (ad.index[a * ad.taps + ka], ad.weight[a * ad.taps + ka]);
                {
                    let target: &mut [A] = if skip_d { &mut *row } else { &mut mid[..] };
                    for kb in 0..ah.taps {
                        let (ih, wh) = (ah.index[b * ah.taps + kb], ah.weight[b * ah.taps + kb]);
                        if skip_h {
                            inner_row(src_row(id, ih), aw, target);
                        } else {
                            inner_row(src_row(id, ih), aw, &mut inner[..]);
                            accumulate(target, &inner[..], wh, kb == 0);
                        }
                    }
                }
                if !skip_d {
                    accumulate(row, &mid[..], wd, ka == 0);
                }
            }
        },
    );
}

/// One pass of a separable kernel along the middle axis of `[outer, len, inner]` data (the
/// outer count is implied by the output's length):
/// `out[o, j, i] = sum_k w[j, k] * x[o, start[j] + k, i]`, in float.
pub fn resample_float<A: Real>(x: &[A], len: usize, inner: usize, r: &Ranges<A>, out: &mut [A]) {
    let olen = r.start.len();
    if inner == 1 {
        // Along the contiguous axis: one dot product per output.
        for_rows(
            out,
            olen,
            || (),
            |o, row, _| {
                let src = &x[o * len..(o + 1) * len];
                for (j, v) in row.iter_mut().enumerate() {
                    let w = &r.weight[j * r.stride..j * r.stride + r.size[j]];
                    let s = &src[r.start[j]..r.start[j] + r.size[j]];
                    let mut acc = A::ZERO;
                    for (k, (&t, &wk)) in s.iter().zip(w).enumerate() {
                        acc = if k == 0 { t * wk } else { acc + t * wk };
                    }
                    *v = acc;
                }
            },
        );
        return;
    }
    // Across rows: whole rows scaled and added, which vectorizes.
    for_rows(
        out,
        inner,
        || (),
        |row_index, row, _| {
            let (o, j) = (row_index / olen, row_index % olen);
            let w = &r.weight[j * r.stride..j * r.stride + r.size[j]];
            if w.is_empty() {
                row.fill(A::ZERO);
            }
            for (k, &wk) in w.iter().enumerate() {
                let at = (o * len + r.start[j] + k) * inner;
                accumulate(row, &x[at..at + inner], wk, k == 0);
            }
        },
    );
}

/// `resample_float` for uint8 with fixed-point weights: sums in int32 from the rounding
/// constant `2^(precision-1)`, shifted back and clamped to [0, 255].
pub fn resample_u8(
    x: &[u8],
    len: usize,
    inner: usize,
    r: &Ranges<i16>,
    precision: u32,
    out: &mut [u8],
) {
    let olen = r.start.len();
    let half = if precision > 0 {
        1i32 << (precision - 1)
    } else {
        0
    };
    let finish = |acc: i32| (acc >> precision).clamp(0, 255) as u8;
    if inner == 1 {
        for_rows(
            out,
            olen,
            || (),
            |o, row, _| {
                let src = &x[o * len..(o + 1) * len];
                for (j, v) in row.iter_mut().enumerate() {
                    let w = &r.weight[j * r.stride..j * r.stride + r.size[j]];
                    let s = &src[r.start[j]..r.start[j] + r.size[j]];
                    let acc = s
                        .iter()
                        .zip(w)
                        .fold(half, |acc, (&t, &wk)| acc + t as i32 * wk as i32);
                    *v = finish(acc);
                }
            },
        );
        return;
    }
    for_rows(out, inner, Vec::<i32>::new, |row_index, row, acc| {
        let (o, j) = (row_index / olen, row_index % olen);
        acc.clear();
        acc.resize(inner, half);
        let w = &r.weight[j * r.stride..j * r.stride + r.size[j]];
        for (k, &wk) in w.iter().enumerate() {
            let at = (o * len + r.start[j] + k) * inner;
            for (a, &t) in acc.iter_mut().zip(&x[at..at + inner]) {
                *a += t as i32 * wk as i32;
            }
        }
        for (v, &a) in row.iter_mut().zip(acc.iter()) {
            *v = finish(a);
        }
    });
}
