//! float32 depthwise convolution (one input channel per group, any channel multiplier),
//! vectorized and spread over the cores.
//!
//! Each task takes one input channel of one sample: it copies the channel once into
//! zero-padded phase planes (one per stride phase a tap reads, as conv_direct.rs does), in
//! which output pixel `(oh, ow)` sits at flat position `q = oh * wq + ow` and tap `(ki, kj)`
//! reads the planes at `q + offset`. A block of output rows is then one pass over flat
//! positions (`acc[q] = bias + sum w * plane[q + offset]`, all taps of a 3x3 or 5x5 kernel at
//! once), whole vectors even where rows are narrower than a vector (7x7 and 14x14 planes),
//! compiled for AVX-512, AVX2 (with FMA) or SSE2 (`ops::cpu::dispatch`). The block's rows are
//! then copied out, through the fused epilogue, while they are in cache.
//!
//! Planes of up to 56x56 outputs go to depthwise_lanes.rs instead (a vector across
//! channels), except the last `c % 8` channels.

use std::cell::RefCell;

use super::epilogue::Epilogue;
use crate::ops::cpu::{self, Isa};
use crate::ops::simd::{line_aligned, F32x};

/// Multiply-adds below which the convolution stays on the calling thread.
pub(super) const PARALLEL_MACS: usize = 1 << 16;

/// Multiply-adds one task should hold at least (whole channels).
const TASK_MACS: usize = 1 << 14;

/// The sizes of a depthwise convolution: `c` input channels, `m` outputs per input channel.
#[derive(Copy, Clone, Debug)]
pub struct Shape {
    pub n: usize,
    pub c: usize,
    pub m: usize,
    pub h: usize,
    pub w: usize,
    pub kh: usize,
    pub kw: usize,
    pub sh: usize,
    pub sw: usize,
    pub ph: usize,
    pub pw: usize,
    pub dh: usize,
    pub dw: usize,
    pub ho: usize,
    pub wo: usize,
}

thread_local! {
    /// The phase planes of this thread's current channel and its block of accumulators.
    static PLANES: RefCell<[Vec<f32>; 3]> = const { RefCell::new([Vec::new(), Vec::new(), Vec::new()]) };
}

/// The phase planes of one channel: which phases taps read, their size.
pub(super) struct Planes {
    pub hq: usize,
    pub wq: usize,
    /// The plane index of phase `(a, b)` at `a * sw + b`.
    slots: Vec<Option<usize>>,
    pub used: usize,
}

impl Planes {
    pub fn new(s: &Shape) -> Planes {
        let hq = s.ho + (s.kh - 1) * s.dh / s.sh;
        let wq = s.wo + (s.kw - 1) * s.dw / s.sw;
        let mut slots = vec![None; s.sh * s.sw];
        let mut used = 0;
        for ki in 0..s.kh {
            for kj in 0..s.kw {
                let phase = (ki * s.dh % s.sh) * s.sw + kj * s.dw % s.sw;
                if slots[phase].is_none() {
                    slots[phase] = Some(used);
                    used += 1;
                }
            }
        }
        Planes {
            hq,
            wq,
            slots,
            used,
        }
    }

    /// Where tap `(ki, kj)` of output row 0, column 0 reads in the planes.
    pub fn tap(&self, s: &Shape, ki: usize, kj: usize) -> usize {
        let (u, v) = (ki * s.dh, kj * s.dw);
        let slot = self.slots[(u % s.sh) * s.sw + v % s.sw].expect("every tap has a plane");
        slot * self.hq * self.wq + (u / s.sh) * self.wq + v / s.sw
    }

    /// Copies channel `src` (`[h, w]`) into its planes `dst`, `pad` on padding; `line` is
    /// scratch for one padded input row of a strided window. `padded`: `dst` holds planes
    /// of this shape filled before, so its padding already holds `pad` and only the input's
    /// own positions are written (a small plane's padding costs more calls than its data).
    #[inline(always)]
    pub fn fill(
        &self,
        s: &Shape,
        src: &[f32],
        dst: &mut [f32],
        line: &mut Vec<f32>,
        pad: f32,
        padded: bool,
    ) {
        let plane = self.hq * self.wq;
        let wq = self.wq;
        if s.sw > 1 {
            line.clear();
            line.resize(s.sw * wq + s.sw, pad);
        }
        for a in 0..s.sh {
            // Whether each column phase of this row phase has a plane, and where.
            let slot = |b: usize| self.slots[a * s.sw + b];
            if (0..s.sw).all(|b| slot(b).is_none()) {
                continue;
            }
            for i in 0..self.hq {
                let ih = (i * s.sh + a) as isize - s.ph as isize;
                let rows = |b: usize| slot(b).map(|sl| sl * plane + i * wq);
                if ih < 0 || ih >= s.h as isize {
                    if padded {
                        continue;
                    }
                    for b in 0..s.sw {
                        if let Some(r) = rows(b) {
                            dst[r..r + wq].fill(pad);
                        }
                    }
                    continue;
                }
                let src_row = &src[ih as usize * s.w..(ih as usize + 1) * s.w];
                if s.sw == 1 {
                    // Columns [pw, pw + w) hold the row (as far as the plane reaches).
                    let row = &mut dst[rows(0).expect("phase 0 has a plane")..][..wq];
                    let lo = s.pw.min(wq);
                    let hi = (s.pw + s.w).min(wq);
                    row[lo..hi].copy_from_slice(&src_row[..hi - lo]);
                    if !padded {
                        row[..lo].fill(pad);
                        row[hi..].fill(pad);
                    }
                    continue;
                }
                // The padded row, then every sw-th column of it per column phase.
                let n = (s.sw * wq + s.sw).saturating_sub(s.pw).min(s.w);
                line[s.pw..s.pw + n].copy_from_slice(&src_row[..n]);
                line[s.pw + n..].fill(pad);
                match (s.sw, rows(0), rows(1)) {
                    (2, Some(r0), Some(r1)) => {
                        let (lo, hi) = dst.split_at_mut(r0.max(r1));
                        let (even, odd) = if r0 < r1 {
                            (&mut lo[r0..r0 + wq], &mut hi[..wq])
                        } else {
                            (&mut hi[..wq], &mut lo[r1..r1 + wq])
                        };
                        for ((e, o), pair) in even.iter_mut().zip(odd).zip(line.chunks_exact(2)) {
                            *e = pair[0];
                            *o = pair[1];
                        }
                    }
                    _ => {
                        for b in 0..s.sw {
                            if let Some(r) = rows(b) {
                                let row = &mut dst[r..r + wq];
                                for (v, &x) in row.iter_mut().zip(line[b..].iter().step_by(s.sw)) {
                                    *v = x;
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Flat positions one block of output rows covers at most (its accumulators stay in L1).
const BLOCK_FLOATS: usize = 2048;

/// `out[n, c * m, ho, wo] = epi(depthwise_conv(x[n, c, h, w], w[c * m, 1, kh, kw]) + bias)`.
///
/// # Safety
/// The slices have the sizes the shape gives (the epilogue's residual the output's), and
/// `level` is at most the CPU's.
pub unsafe fn forward(
    s: &Shape,
    x: &[f32],
    w: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    level: Isa,
    epi: &Epilogue,
) {
    // Planes of up to 56x56 outputs: a vector across channels (depthwise_lanes.rs), for all
    // but the last c % 8 channels.
    #[cfg(target_arch = "x86_64")]
    let done = match super::depthwise_lanes::channels(s, level) {
        0 => 0,
        done => {
            super::depthwise_lanes::forward(s, done, x, w, bias, out, level, epi);
            done
        }
    };
    #[cfg(not(target_arch = "x86_64"))]
    let done = 0;
    if done == s.c {
        return;
    }
    let planes = Planes::new(s);
    let kk = s.kh * s.kw;
    let taps: Vec<usize> = (0..kk).map(|t| planes.tap(s, t / s.kw, t % s.kw)).collect();
    let plane_out = s.ho * s.wo;
    let in_plane = s.h * s.w;
    // Whole flat rows past the last output row read up to a row beyond the planes.
    let layout = planes.used * planes.hq * planes.wq + planes.wq;
    let rows_per_block = (BLOCK_FLOATS / planes.wq).clamp(1, s.ho);
    let taps_fn: TapsFn = match level {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => taps_avx512,
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => taps_avx2,
        _ => taps_baseline,
    };
    let out_addr = out.as_mut_ptr() as usize;
    // Tasks of whole input channels, enough work each that small planes (7x7) do not pay a
    // task per channel.
    let per_channel = s.m * plane_out * kk;
    let rest = s.c - done;
    let per_task = (TASK_MACS / per_channel.max(1)).clamp(1, rest);
    let chunks = rest.div_ceil(per_task);
    let run = |task: usize| {
        let (smp, chunk) = (task / chunks, task % chunks);
        let channels = done + chunk * per_task..done + ((chunk + 1) * per_task).min(rest);
        PLANES.with(|cell| {
            let mut bufs = cell.borrow_mut();
            let [buf, acc, line] = &mut *bufs;
            let buf = line_aligned(buf, layout);
            let acc = line_aligned(acc, rows_per_block * planes.wq);
            buf[layout - planes.wq..].fill(0.0);
            let mut padded = false;
            cpu::dispatch(
                level,
                #[inline(always)]
                || {
                    for ic in channels {
                        let src = &x[(smp * s.c + ic) * in_plane..(smp * s.c + ic + 1) * in_plane];
                        planes.fill(s, src, buf, line, 0.0, padded);
                        padded = true;
                        for j in 0..s.m {
                            let oc = ic * s.m + j;
                            let kern = &w[oc * kk..(oc + 1) * kk];
                            let b = bias.map_or(0.0, |b| b[oc]);
                            let at = (smp * s.c * s.m + oc) * plane_out;
                            let dst = (out_addr as *mut f32).add(at);
                            for r0 in (0..s.ho).step_by(rows_per_block) {
                                let rows = rows_per_block.min(s.ho - r0);
                                let len = rows * planes.wq;
                                let base = buf.as_ptr().add(r0 * planes.wq);
                                taps_fn(acc.as_mut_ptr(), len, base, &taps, kern, b);
                                for r in 0..rows {
                                    let row = dst.add((r0 + r) * s.wo);
                                    let from = acc.as_ptr().add(r * planes.wq);
                                    // A loop, not memcpy: rows are often shorter than a call.
                                    for i in 0..s.wo {
                                        *row.add(i) = *from.add(i);
                                    }
                                }
                                // The block's rows are contiguous in the output: one pass
                                // in whole vectors (rows of a 7x7 plane are shorter than one).
                                if !epi.is_identity() {
                                    let first = dst.add(r0 * s.wo);
                                    epi.apply(first, at + r0 * s.wo, rows * s.wo);
                                }
                            }
                        }
                    }
                },
            );
        });
    };
    let tasks = s.n * chunks;
    let macs = s.n * rest * per_channel;
    if macs >= PARALLEL_MACS && tasks > 1 && crate::parallel::threads() > 1 {
        crate::parallel::for_each(tasks, run);
    } else {
        (0..tasks).for_each(run);
    }
}

/// `acc[q] = bias + sum_t kern[t] * base[taps[t] + q]` for `q < n`, the taps summed in
/// order.
///
/// # Safety
/// `acc` addresses `n` floats; every `base + taps[t]` addresses `n` floats; the CPU runs the
/// function's instruction set.
type TapsFn = unsafe fn(*mut f32, usize, *const f32, &[usize], &[f32], f32);

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
unsafe fn taps_avx512(
    acc: *mut f32,
    n: usize,
    base: *const f32,
    taps: &[usize],
    k: &[f32],
    b: f32,
) {
    flat_taps::<crate::ops::simd::Avx512>(acc, n, base, taps, k, b)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn taps_avx2(acc: *mut f32, n: usize, base: *const f32, taps: &[usize], k: &[f32], b: f32) {
    flat_taps::<crate::ops::simd::Avx2>(acc, n, base, taps, k, b)
}

/// Baseline x86-64: the same sums as plain loops (SSE2 by auto-vectorization, no FMA).
unsafe fn taps_baseline(
    acc: *mut f32,
    n: usize,
    base: *const f32,
    taps: &[usize],
    k: &[f32],
    b: f32,
) {
    let out = std::slice::from_raw_parts_mut(acc, n);
    out.fill(b);
    for (&t, &w) in taps.iter().zip(k) {
        let src = base.add(t);
        for (q, o) in out.iter_mut().enumerate() {
            *o += w * *src.add(q);
        }
    }
}

/// [`TapsFn`] in vectors of `S`: 3x3 and 5x5 kernels whose taps are consecutive along each
/// kernel row (stride 1, no dilation) through one row pointer per kernel row; other kernels
/// all taps at once (9 or 25) or in passes of up to five taps.
#[inline(always)]
unsafe fn flat_taps<S: F32x>(
    acc: *mut f32,
    n: usize,
    base: *const f32,
    taps: &[usize],
    kern: &[f32],
    bias: f32,
) {
    let unit_rows =
        |k: usize| taps.len() == k * k && (0..k * k).all(|t| taps[t] == taps[t - t % k] + t % k);
    if unit_rows(3) {
        return rows_pass::<S, 3, 9>(acc, n, base, taps, kern, bias);
    }
    if unit_rows(5) {
        return rows_pass::<S, 5, 25>(acc, n, base, taps, kern, bias);
    }
    match taps.len() {
        9 => return pass::<S, 9>(acc, n, base, taps, kern, Some(bias)),
        25 => return pass::<S, 25>(acc, n, base, taps, kern, Some(bias)),
        _ => {}
    }
    let mut init = Some(bias);
    let mut t = 0;
    while t < taps.len() {
        let (ts, ks) = (&taps[t..], &kern[t..]);
        t += match taps.len() - t {
            l if l >= 5 => {
                pass::<S, 5>(acc, n, base, ts, ks, init);
                5
            }
            l if l >= 3 => {
                pass::<S, 3>(acc, n, base, ts, ks, init);
                3
            }
            _ => {
                pass::<S, 1>(acc, n, base, ts, ks, init);
                1
            }
        };
        init = None;
    }
}

/// `acc[q] = bias + sum_{ki, kj < K} k[ki * K + kj] * rows[ki][q + kj]` for a `K x K`
/// kernel whose row `ki` starts at `base + taps[ki * K]` (`KK = K * K`): the loads of a
/// kernel row share one pointer and differ by constant displacements. Four vectors at a
/// time, then single vectors (a masked one last) in four chains over the taps.
#[inline(always)]
unsafe fn rows_pass<S: F32x, const K: usize, const KK: usize>(
    acc: *mut f32,
    n: usize,
    base: *const f32,
    taps: &[usize],
    k: &[f32],
    bias: f32,
) {
    let lanes = S::LANES;
    let mut rows = [base; K];
    for (ki, r) in rows.iter_mut().enumerate() {
        *r = base.add(taps[ki * K]);
    }
    let k = &k[..KK];
    let mut q = 0;
    while q + 4 * lanes <= n {
        let mut a = [S::splat(bias); 4];
        for ki in 0..K {
            let p = rows[ki].add(q);
            for kj in 0..K {
                let w = S::splat(k[ki * K + kj]);
                for (i, v) in a.iter_mut().enumerate() {
                    *v = S::fma(w, S::load(p.add(i * lanes + kj)), *v);
                }
            }
        }
        for (i, v) in a.iter().enumerate() {
            S::store(acc.add(q + i * lanes), *v);
        }
        q += 4 * lanes;
    }
    while q < n {
        let m = (n - q).min(lanes);
        let sum = four_chains::<S, KK>(S::splat(bias), |t| {
            let p = rows[t / K].add(q + t % K);
            (S::splat(k[t]), S::load_first(p, m))
        });
        S::store_mask(acc.add(q), sum, (1u32 << m) - 1);
        q += m;
    }
}

/// `init` in every lane, or the first `m` floats at `p`.
#[inline(always)]
unsafe fn start<S: F32x>(init: Option<f32>, p: *const f32, m: usize) -> S::V {
    match init {
        Some(b) => S::splat(b),
        None => S::load_first(p, m),
    }
}

/// `acc[q] = (init or acc[q]) + sum_{t < N} k[t] * base[taps[t] + q]` in fused
/// multiply-adds, four vectors at a time (independent chains), then single vectors (a
/// masked one last) in four chains over the taps.
#[inline(always)]
unsafe fn pass<S: F32x, const N: usize>(
    acc: *mut f32,
    n: usize,
    base: *const f32,
    taps: &[usize],
    k: &[f32],
    init: Option<f32>,
) {
    let lanes = S::LANES;
    let mut src = [base; N];
    for t in 0..N {
        src[t] = base.add(taps[t]);
    }
    let k = &k[..N];
    let mut q = 0;
    while q + 4 * lanes <= n {
        let mut a = [S::zero(); 4];
        for (i, v) in a.iter_mut().enumerate() {
            *v = start::<S>(init, acc.add(q + i * lanes), lanes);
        }
        for t in 0..N {
            let w = S::splat(k[t]);
            for (i, v) in a.iter_mut().enumerate() {
                *v = S::fma(w, S::load(src[t].add(q + i * lanes)), *v);
            }
        }
        for (i, v) in a.iter().enumerate() {
            S::store(acc.add(q + i * lanes), *v);
        }
        q += 4 * lanes;
    }
    while q < n {
        let m = (n - q).min(lanes);
        let sum = four_chains::<S, N>(start::<S>(init, acc.add(q), m), |t| {
            (S::splat(k[t]), S::load_first(src[t].add(q), m))
        });
        S::store_mask(acc.add(q), sum, (1u32 << m) - 1);
        q += m;
    }
}

/// `init + sum_{t < N} w_t * x_t` for `(w_t, x_t) = tap(t)`, tap `t` in chain `t % 4` (chain 0
/// starts at `init`), then `(c0 + c1) + (c2 + c3)`: independent chains held in registers
/// (an array indexed by `t % 4` would live on the stack, one store-to-load per tap).
#[inline(always)]
unsafe fn four_chains<S: F32x, const N: usize>(
    init: S::V,
    tap: impl Fn(usize) -> (S::V, S::V),
) -> S::V {
    let (mut c0, mut c1, mut c2, mut c3) = (init, S::zero(), S::zero(), S::zero());
    let mut t = 0;
    while t + 4 <= N {
        let (w, x) = tap(t);
        c0 = S::fma(w, x, c0);
        let (w, x) = tap(t + 1);
        c1 = S::fma(w, x, c1);
        let (w, x) = tap(t + 2);
        c2 = S::fma(w, x, c2);
        let (w, x) = tap(t + 3);
        c3 = S::fma(w, x, c3);
        t += 4;
    }
    // The last N % 4 taps, each in its own chain (N is a constant: no branches remain).
    if t < N {
        let (w, x) = tap(t);
        c0 = S::fma(w, x, c0);
    }
    if t + 1 < N {
        let (w, x) = tap(t + 1);
        c1 = S::fma(w, x, c1);
    }
    if t + 2 < N {
        let (w, x) = tap(t + 2);
        c2 = S::fma(w, x, c2);
    }
    S::add(S::add(c0, c1), S::add(c2, c3))
}
