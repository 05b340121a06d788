//! float32 depthwise convolution with a vector across channels, for the shapes where
//! depthwise.rs's flat planes waste their time: small planes (7x7, 14x14: a row is shorter
//! than a vector and each channel pays its own copies and loop set-up) and strides (a plane
//! per stride phase, filled element by element).
//!
//! A task takes one block of `LANES` channels of one sample. It transposes them, 8 channels
//! by 8 positions at a time, into a zero-padded buffer in which position `(ih, iw)` holds
//! the block's channels side by side; every tap of every output pixel is then one fused
//! multiply-add of whole vectors, whatever the stride, dilation or plane width. The outputs
//! are transposed back in the same way, and the fused epilogue runs over the block's
//! channels, which are contiguous in the output.
//!
//! Channels come in groups of 8 (one transpose); the last `c % 8` channels, convolutions
//! with a channel multiplier and planes larger than 56x56 stay with depthwise.rs. x86-64
//! only (AVX2 or AVX-512; mod.rs declares it there).

use std::arch::x86_64::*;
use std::cell::RefCell;

use super::depthwise::Shape;
use super::epilogue::Epilogue;
use crate::ops::cpu::Isa;
use crate::ops::simd::{line_aligned, F32x};
use crate::parallel::threads;

/// Channels one transpose moves: AVX-512's 16-lane blocks take two.
const GROUP: usize = 8;

/// The most channels a block holds: AVX-512's lanes.
const MAX_LANES: usize = 16;

/// Output pixels of a row computed together (accumulators in registers).
const PIXELS: usize = 8;

/// Output positions per channel at most for this kernel: larger planes amortize
/// depthwise.rs's per-channel costs, and its flat passes read each input row once.
const SMALL_PLANE: usize = 56 * 56;

thread_local! {
    /// This thread's padded input block, output block and transposed weights.
    static BUFS: RefCell<[Vec<f32>; 3]> = const { RefCell::new([Vec::new(), Vec::new(), Vec::new()]) };
}

/// The channels (from 0) this kernel computes for `s` at `level`: a multiple of 8, 0 when
/// depthwise.rs should take the whole convolution.
pub fn channels(s: &Shape, level: Isa) -> usize {
    let lanes = lanes(level);
    let done = s.c - s.c % GROUP;
    // A block is one task: fewer blocks than threads leave cores idle that depthwise.rs's
    // tasks of single channels would use.
    let tasks = s.n * done.div_ceil(lanes);
    if level < Isa::Avx2 || s.m != 1 || s.ho * s.wo > SMALL_PLANE || tasks < threads() {
        return 0;
    }
    done
}

/// Channels a block holds: one vector's lanes.
fn lanes(level: Isa) -> usize {
    match level {
        Isa::Avx512 => <crate::ops::simd::Avx512 as F32x>::LANES,
        _ => <crate::ops::simd::Avx2 as F32x>::LANES,
    }
}

/// The padded input block: `hp x wp` positions, each the block's channels side by side.
struct Padded {
    hp: usize,
    wp: usize,
}

impl Padded {
    fn new(s: &Shape) -> Padded {
        Padded {
            hp: (s.ho - 1) * s.sh + (s.kh - 1) * s.dh + 1,
            wp: (s.wo - 1) * s.sw + (s.kw - 1) * s.dw + 1,
        }
    }
}

/// `out[n, c, ho, wo] = epi(depthwise_conv(x, w) + bias)` for channels `[0, done)`.
///
/// # Safety
/// As depthwise::forward: slices of the shape's sizes, `level` at most the CPU's, and
/// `done` is `channels(s, level)`, not 0.
#[allow(clippy::too_many_arguments)]
pub unsafe fn forward(
    s: &Shape,
    done: usize,
    x: &[f32],
    w: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    level: Isa,
    epi: &Epilogue,
) {
    let lanes = lanes(level);
    let blocks = done.div_ceil(lanes);
    let padded = Padded::new(s);
    let out_addr = out.as_mut_ptr() as usize;
    let run = |task: usize| {
        let (smp, blk) = (task / blocks, task % blocks);
        let c0 = blk * lanes;
        let block = Block {
            s,
            padded: &padded,
            lanes,
            c0,
            groups: (done - c0).min(lanes) / GROUP,
            x: x.as_ptr().add(smp * s.c * s.h * s.w),
            out: (out_addr as *mut f32).add(smp * s.c * s.ho * s.wo),
        };
        BUFS.with(|cell| {
            let mut bufs = cell.borrow_mut();
            let [input, output, taps] = &mut *bufs;
            let input = line_aligned(input, padded.hp * padded.wp * lanes);
            let output = line_aligned(output, s.ho * s.wo * lanes);
            let taps = line_aligned(taps, s.kh * s.kw * lanes + lanes);
            taps.fill(0.0);
            block.weights(w, bias, taps);
            let at = (smp * s.c + c0) * s.ho * s.wo;
            match level {
                Isa::Avx512 => block_avx512(&block, input, output, taps, epi, at),
                _ => block_avx2(&block, input, output, taps, epi, at),
            }
        });
    };
    let tasks = s.n * blocks;
    let macs = s.n * done * s.ho * s.wo * s.kh * s.kw;
    if macs >= super::depthwise::PARALLEL_MACS && tasks > 1 && threads() > 1 {
        crate::parallel::for_each(tasks, run);
    } else {
        (0..tasks).for_each(run);
    }
}

#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
unsafe fn block_avx512(
    b: &Block,
    input: &mut [f32],
    output: &mut [f32],
    taps: &[f32],
    epi: &Epilogue,
    at: usize,
) {
    b.run::<crate::ops::simd::Avx512>(input, output, taps, epi, at)
}

#[target_feature(enable = "avx2,fma")]
unsafe fn block_avx2(
    b: &Block,
    input: &mut [f32],
    output: &mut [f32],
    taps: &[f32],
    epi: &Epilogue,
    at: usize,
) {
    b.run::<crate::ops::simd::Avx2>(input, output, taps, epi, at)
}

/// One task's channels: `groups` groups of 8 from channel `c0` of one sample.
struct Block<'a> {
    s: &'a Shape,
    padded: &'a Padded,
    lanes: usize,
    c0: usize,
    groups: usize,
    /// The sample's input and output.
    x: *const f32,
    out: *mut f32,
}

impl Block<'_> {
    /// `taps[t * lanes + l]` = weight of tap `t` of channel `c0 + l`, then the biases; lanes
    /// past the block's channels stay zero.
    fn weights(&self, w: &[f32], bias: Option<&[f32]>, taps: &mut [f32]) {
        let (kk, lanes) = (self.s.kh * self.s.kw, self.lanes);
        for l in 0..self.groups * GROUP {
            let c = self.c0 + l;
            for t in 0..kk {
                taps[t * lanes + l] = w[c * kk + t];
            }
            taps[kk * lanes + l] = bias.map_or(0.0, |b| b[c]);
        }
    }

    /// The block: its inputs packed, its outputs computed, written back and through the
    /// epilogue (`at`: the flat output position of its first channel).
    #[inline(always)]
    unsafe fn run<S: F32x>(
        &self,
        input: &mut [f32],
        output: &mut [f32],
        taps: &[f32],
        epi: &Epilogue,
        at: usize,
    ) {
        self.pack(input);
        self.compute::<S>(input, output, taps);
        self.unpack(output);
        if !epi.is_identity() {
            let n = self.groups * GROUP * self.s.ho * self.s.wo;
            epi.apply(self.out.add(self.c0 * self.s.ho * self.s.wo), at, n);
        }
    }

    /// The block's input channels into `input`, 8 channels by 8 positions per transpose,
    /// and zeros on its padding. Every position is written: the buffer may hold another
    /// shape's data.
    #[inline(always)]
    unsafe fn pack(&self, input: &mut [f32]) {
        let s = self.s;
        let (h, w, ph, pw) = (s.h, s.w, s.ph, s.pw);
        let (hp, wp, lanes) = (self.padded.hp, self.padded.wp, self.lanes);
        if self.groups * GROUP < lanes {
            // Lanes no channel fills: zeros, not stale data.
            input.fill(0.0);
        } else {
            // The padding: rows above and below the input, columns left and right of it.
            let inside_rows = ph.min(hp)..(ph + h).min(hp);
            input[..inside_rows.start * wp * lanes].fill(0.0);
            input[inside_rows.end * wp * lanes..].fill(0.0);
            let inside_cols = pw.min(wp)..(pw + w).min(wp);
            for i in inside_rows {
                let line = &mut input[i * wp * lanes..(i + 1) * wp * lanes];
                line[..inside_cols.start * lanes].fill(0.0);
                line[inside_cols.end * lanes..].fill(0.0);
            }
        }
        // The input rows and columns a tap reads.
        let (rows, cols) = (h.min(hp - ph.min(hp)), w.min(wp - pw.min(wp)));
        let plane = h * w;
        let dst = input.as_mut_ptr();
        // 8 channels by 8 positions per transpose, every group of the block for the same
        // positions one after another: together they fill whole cache lines of `input`
        // (group by group, each line was written in halves, evicted in between).
        let mut planes = [self.x; MAX_LANES];
        for (c, at) in planes.iter_mut().enumerate().take(self.groups * GROUP) {
            *at = self.x.add((self.c0 + c) * plane);
        }
        if cols >= GROUP {
            // Whole rows: 8 positions of a row per transpose, the last 8 overlapping.
            for ih in 0..rows {
                let line = (ih + ph) * wp + pw;
                let mut iw = 0;
                while iw < cols {
                    let at = iw.min(cols - GROUP);
                    let to = std::array::from_fn(|j| dst.add((line + at + j) * lanes));
                    self.transposed(&planes, ih * w + at, &to);
                    iw = at + GROUP;
                }
            }
            return;
        }
        // Rows narrower than 8 (7x7 planes): 8 positions of the plane per transpose, each
        // stored where its row puts it.
        let place = |p: usize| {
            let (ih, iw) = (p / w, p % w);
            (ih < rows && iw < cols).then(|| (ih + ph) * wp + iw + pw)
        };
        let mut p = 0;
        while p + GROUP <= plane {
            let to = std::array::from_fn(|j| {
                place(p + j).map_or(std::ptr::null_mut(), |q| dst.add(q * lanes))
            });
            self.transposed(&planes, p, &to);
            p += GROUP;
        }
        for p in p..plane {
            if let Some(q) = place(p) {
                for (c, src) in planes.iter().enumerate().take(self.groups * GROUP) {
                    *dst.add(q * lanes + c) = *src.add(p);
                }
            }
        }
    }

    /// Positions `p..p + 8` of every channel of the block (`planes`: their input planes),
    /// transposed: position `p + j`'s channels side by side at `to[j]` (none where null). A
    /// method, not a closure: a closure would not take the kernel's target features, and its
    /// intrinsics would be called out of line.
    #[inline(always)]
    unsafe fn transposed(
        &self,
        planes: &[*const f32; MAX_LANES],
        p: usize,
        to: &[*mut f32; GROUP],
    ) {
        for g in 0..self.groups {
            let channels: [__m256; GROUP] =
                std::array::from_fn(|c| _mm256_loadu_ps(planes[g * GROUP + c].add(p)));
            for (&d, v) in to.iter().zip(transpose(channels)) {
                if !d.is_null() {
                    _mm256_storeu_ps(d.add(g * GROUP), v);
                }
            }
        }
    }

    /// `output[(oh, ow)] = bias + sum over taps of weight * input[...]`, in vectors of the
    /// block's channels; 3x3 and 5x5 kernels with their loops unrolled.
    #[inline(always)]
    unsafe fn compute<S: F32x>(&self, input: &[f32], output: &mut [f32], taps: &[f32]) {
        match (self.s.kh, self.s.kw) {
            (3, 3) => self.compute_k::<S, 3>(input, output, taps),
            (5, 5) => self.compute_k::<S, 5>(input, output, taps),
            _ => self.compute_k::<S, 0>(input, output, taps),
        }
    }

    /// [`Self::compute`] for a `K x K` kernel (`K` = 0: the shape's kernel, loops not
    /// unrolled).
    #[inline(always)]
    unsafe fn compute_k<S: F32x, const K: usize>(
        &self,
        input: &[f32],
        output: &mut [f32],
        taps: &[f32],
    ) {
        let s = self.s;
        debug_assert_eq!(S::LANES, self.lanes);
        let (kh, kw) = if K > 0 { (K, K) } else { (s.kh, s.kw) };
        let k = taps.as_ptr();
        let at = Pixels::<S> {
            src: input.as_ptr(),
            dst: output.as_mut_ptr(),
            k,
            bias: S::load(k.add(kh * kw * S::LANES)),
            kh,
            kw,
            row: s.sh * self.padded.wp * S::LANES,
            tap_row: s.dh * self.padded.wp * S::LANES,
            tap_col: s.dw * S::LANES,
            step: s.sw * S::LANES,
        };
        let slide = K > 0 && s.sw == 1 && s.dw == 1;
        for oh in 0..s.ho {
            let mut ow = 0;
            while ow + PIXELS <= s.wo {
                if slide {
                    at.slide::<PIXELS, K>(oh, ow, s.wo);
                } else {
                    at.run::<PIXELS>(oh, ow, s.wo);
                }
                ow += PIXELS;
            }
            // The rest of the row in one pass too: single pixels would each be one
            // chain of dependent multiply-adds.
            match s.wo - ow {
                0 => {}
                1 => at.run::<1>(oh, ow, s.wo),
                2 => at.run::<2>(oh, ow, s.wo),
                3 => at.run::<3>(oh, ow, s.wo),
                4 => at.run::<4>(oh, ow, s.wo),
                5 => at.run::<5>(oh, ow, s.wo),
                6 => at.run::<6>(oh, ow, s.wo),
                _ => at.run::<7>(oh, ow, s.wo),
            }
        }
    }

    /// The block's outputs from `output` into the output tensor, transposed back.
    #[inline(always)]
    unsafe fn unpack(&self, output: &[f32]) {
        let s = self.s;
        let plane = s.ho * s.wo;
        let src = output.as_ptr();
        // Every group for the same positions one after another, as `pack` writes them.
        let mut p = 0;
        while p + GROUP <= plane {
            for g in 0..self.groups {
                let dst = self.out.add((self.c0 + g * GROUP) * plane + p);
                let cols: [__m256; GROUP] = std::array::from_fn(|j| {
                    _mm256_loadu_ps(src.add((p + j) * self.lanes + g * GROUP))
                });
                for (c, v) in transpose(cols).into_iter().enumerate() {
                    _mm256_storeu_ps(dst.add(c * plane), v);
                }
            }
            p += GROUP;
        }
        for p in p..plane {
            for c in 0..self.groups * GROUP {
                *self.out.add((self.c0 + c) * plane + p) = *src.add(p * self.lanes + c);
            }
        }
    }
}

/// What the output pixels of a block read and write: the padded input `src`, the output
/// block `dst`, the transposed taps `k` (`kh x kw`) and bias; distances in floats between
/// output rows, kernel rows, kernel columns and neighbouring output pixels in `src`.
struct Pixels<S: F32x> {
    src: *const f32,
    dst: *mut f32,
    k: *const f32,
    bias: S::V,
    kh: usize,
    kw: usize,
    row: usize,
    tap_row: usize,
    tap_col: usize,
    step: usize,
}

impl<S: F32x> Pixels<S> {
    /// `R` output pixels from `(oh, ow)` along the row (`wo` pixels a row).
    #[inline(always)]
    unsafe fn run<const R: usize>(&self, oh: usize, ow: usize, wo: usize) {
        let mut acc = [self.bias; R];
        let first = self.src.add(oh * self.row + ow * self.step);
        for ki in 0..self.kh {
            let row = first.add(ki * self.tap_row);
            for kj in 0..self.kw {
                let wv = S::load(self.k.add((ki * self.kw + kj) * S::LANES));
                let p = row.add(kj * self.tap_col);
                for (r, a) in acc.iter_mut().enumerate() {
                    *a = S::fma(wv, S::load(p.add(r * self.step)), *a);
                }
            }
        }
        let at = self.dst.add((oh * wo + ow) * S::LANES);
        for (r, a) in acc.iter().enumerate() {
            S::store(at.add(r * S::LANES), *a);
        }
    }

    /// [`Self::run`] for a `K x K` kernel of stride and dilation 1: neighbouring pixels
    /// read overlapping inputs, so each kernel row loads its `R + K - 1` input vectors once
    /// (not `R * K` times: the loads, not the multiply-adds, bounded the loop).
    #[inline(always)]
    unsafe fn slide<const R: usize, const K: usize>(&self, oh: usize, ow: usize, wo: usize) {
        debug_assert!(R + K - 1 <= SLIDE_MAX);
        let mut acc = [self.bias; R];
        let first = self.src.add(oh * self.row + ow * self.step);
        for ki in 0..K {
            let row = first.add(ki * self.tap_row);
            let mut x = [S::zero(); SLIDE_MAX];
            for (i, v) in x.iter_mut().enumerate().take(R + K - 1) {
                *v = S::load(row.add(i * S::LANES));
            }
            for kj in 0..K {
                let wv = S::load(self.k.add((ki * K + kj) * S::LANES));
                for (r, a) in acc.iter_mut().enumerate() {
                    *a = S::fma(wv, x[r + kj], *a);
                }
            }
        }
        let at = self.dst.add((oh * wo + ow) * S::LANES);
        for (r, a) in acc.iter().enumerate() {
            S::store(at.add(r * S::LANES), *a);
        }
    }
}

/// Input vectors a row of [`Pixels::slide`] holds at most: `PIXELS` pixels of a 5x5 kernel.
const SLIDE_MAX: usize = PIXELS + 4;

/// The 8x8 transpose: lane `j` of result `i` is lane `i` of row `j`.
#[inline(always)]
unsafe fn transpose(r: [__m256; 8]) -> [__m256; 8] {
    let t0 = _mm256_unpacklo_ps(r[0], r[1]);
    let t1 = _mm256_unpackhi_ps(r[0], r[1]);
    let t2 = _mm256_unpacklo_ps(r[2], r[3]);
    let t3 = _mm256_unpackhi_ps(r[2], r[3]);
    let t4 = _mm256_unpacklo_ps(r[4], r[5]);
    let t5 = _mm256_unpackhi_ps(r[4], r[5]);
    let t6 = _mm256_unpacklo_ps(r[6], r[7]);
    let t7 = _mm256_unpackhi_ps(r[6], r[7]);
    let s0 = _mm256_shuffle_ps::<0x44>(t0, t2);
    let s1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
    let s2 = _mm256_shuffle_ps::<0x44>(t1, t3);
    let s3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
    let s4 = _mm256_shuffle_ps::<0x44>(t4, t6);
    let s5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
    let s6 = _mm256_shuffle_ps::<0x44>(t5, t7);
    let s7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
    [
        _mm256_permute2f128_ps::<0x20>(s0, s4),
        _mm256_permute2f128_ps::<0x20>(s1, s5),
        _mm256_permute2f128_ps::<0x20>(s2, s6),
        _mm256_permute2f128_ps::<0x20>(s3, s7),
        _mm256_permute2f128_ps::<0x31>(s0, s4),
        _mm256_permute2f128_ps::<0x31>(s1, s5),
        _mm256_permute2f128_ps::<0x31>(s2, s6),
        _mm256_permute2f128_ps::<0x31>(s3, s7),
    ]
}
