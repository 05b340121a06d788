//! float32 depthwise convolution (one input channel per group, any channel multiplier),
//! vectorized and spread over the cores.
//!
//! Each task takes one input channel of one sample: it copies the channel once into
//! zero-padded phase planes (one per stride phase a tap reads, as conv_direct.rs does), in
//! which every tap `(ki, kj)` of output row `oh` is a contiguous run. Each output row is then
//! one pass that sums its taps over whole vectors (`out[ow] = bias + sum w * plane[ow + off]`),
//! compiled for AVX-512, AVX2 or SSE2 (`ops::cpu::dispatch`), followed by the fused epilogue
//! while the row is in cache. The taps are summed in the same order at every width, without
//! FMA contraction, so every width gives the same bits.

use std::cell::RefCell;

use rayon::prelude::*;

use super::epilogue::Epilogue;
use crate::ops::cpu::{self, Isa};

/// Multiply-adds below which the convolution stays on the calling thread.
const PARALLEL_MACS: usize = 1 << 16;

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
    /// The phase planes of this thread's current channel.
    static PLANES: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// The phase planes of one channel: which phases taps read, their size.
struct Planes {
    hq: usize,
    wq: usize,
    /// The plane index of phase `(a, b)` at `a * sw + b`.
    slots: Vec<Option<usize>>,
    used: usize,
}

impl Planes {
    fn new(s: &Shape) -> Planes {
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
    fn tap(&self, s: &Shape, ki: usize, kj: usize) -> usize {
        let (u, v) = (ki * s.dh, kj * s.dw);
        let slot = self.slots[(u % s.sh) * s.sw + v % s.sw].expect("every tap has a plane");
        slot * self.hq * self.wq + (u / s.sh) * self.wq + v / s.sw
    }

    /// Copies channel `src` (`[h, w]`) into its planes `dst`, zeros on padding.
    fn fill(&self, s: &Shape, src: &[f32], dst: &mut [f32]) {
        let plane = self.hq * self.wq;
        for a in 0..s.sh {
            for b in 0..s.sw {
                let Some(slot) = self.slots[a * s.sw + b] else {
                    continue;
                };
                for (i, row) in dst[slot * plane..(slot + 1) * plane]
                    .chunks_mut(self.wq)
                    .enumerate()
                {
                    let ih = (i * s.sh + a) as isize - s.ph as isize;
                    if ih < 0 || ih >= s.h as isize {
                        row.fill(0.0);
                        continue;
                    }
                    let line = &src[ih as usize * s.w..(ih as usize + 1) * s.w];
                    for (j, v) in row.iter_mut().enumerate() {
                        let iw = (j * s.sw + b) as isize - s.pw as isize;
                        *v = if iw >= 0 && iw < s.w as isize {
                            line[iw as usize]
                        } else {
                            0.0
                        };
                    }
                }
            }
        }
    }
}

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
    let planes = Planes::new(s);
    let kk = s.kh * s.kw;
    let taps: Vec<usize> = (0..kk).map(|t| planes.tap(s, t / s.kw, t % s.kw)).collect();
    let plane_out = s.ho * s.wo;
    let in_plane = s.h * s.w;
    let out_addr = out.as_mut_ptr() as usize;
    let run = |task: usize| {
        let (smp, ic) = (task / s.c, task % s.c);
        PLANES.with(|cell| {
            let mut buf = cell.borrow_mut();
            buf.resize(planes.used * planes.hq * planes.wq, 0.0);
            let src = &x[(smp * s.c + ic) * in_plane..(smp * s.c + ic + 1) * in_plane];
            planes.fill(s, src, &mut buf);
            for j in 0..s.m {
                let oc = ic * s.m + j;
                let kern = &w[oc * kk..(oc + 1) * kk];
                let b = bias.map_or(0.0, |b| b[oc]);
                let at = (smp * s.c * s.m + oc) * plane_out;
                let dst = (out_addr as *mut f32).add(at);
                cpu::dispatch(level, || {
                    for oh in 0..s.ho {
                        let row = dst.add(oh * s.wo);
                        let base = buf.as_ptr().add(oh * planes.wq);
                        channel_row(row, s.wo, base, &taps, kern, b);
                        if !epi.is_identity() {
                            epi.apply(row, at + oh * s.wo, s.wo);
                        }
                    }
                });
            }
        });
    };
    let tasks = s.n * s.c;
    let macs = tasks * s.m * plane_out * kk;
    if macs >= PARALLEL_MACS && tasks > 1 && rayon::current_num_threads() > 1 {
        (0..tasks).into_par_iter().for_each(run);
    } else {
        (0..tasks).for_each(run);
    }
}

/// One output row: `row[i] = bias + sum_t kern[t] * base[taps[t] + i]` for `i < n`, the taps
/// summed in order, in passes of a kernel row (or all nine taps of a 3x3 kernel at once).
///
/// # Safety
/// `row` addresses `n` floats; every `base + taps[t]` addresses `n` floats.
#[inline(always)]
unsafe fn channel_row(
    row: *mut f32,
    n: usize,
    base: *const f32,
    taps: &[usize],
    kern: &[f32],
    bias: f32,
) {
    if taps.len() == 9 {
        return pass::<9>(row, n, base, &taps[..9], &kern[..9], Some(bias));
    }
    let mut init = Some(bias);
    let mut t = 0;
    while t < taps.len() {
        let left = taps.len() - t;
        let (ts, ks) = (&taps[t..], &kern[t..]);
        t += match left {
            l if l >= 5 => {
                pass::<5>(row, n, base, &ts[..5], &ks[..5], init);
                5
            }
            l if l >= 3 => {
                pass::<3>(row, n, base, &ts[..3], &ks[..3], init);
                3
            }
            _ => {
                pass::<1>(row, n, base, &ts[..1], &ks[..1], init);
                1
            }
        };
        init = None;
    }
}

/// `row[i] = (init or row[i]) + sum_{t < N} k[t] * base[taps[t] + i]`.
#[inline(always)]
unsafe fn pass<const N: usize>(
    row: *mut f32,
    n: usize,
    base: *const f32,
    taps: &[usize],
    k: &[f32],
    init: Option<f32>,
) {
    let mut src = [base; N];
    let mut wt = [0f32; N];
    for t in 0..N {
        src[t] = base.add(taps[t]);
        wt[t] = k[t];
    }
    let out = std::slice::from_raw_parts_mut(row, n);
    match init {
        Some(b) => {
            for (i, o) in out.iter_mut().enumerate() {
                let mut acc = b;
                for t in 0..N {
                    acc += wt[t] * *src[t].add(i);
                }
                *o = acc;
            }
        }
        None => {
            for (i, o) in out.iter_mut().enumerate() {
                let mut acc = *o;
                for t in 0..N {
                    acc += wt[t] * *src[t].add(i);
                }
                *o = acc;
            }
        }
    }
}
