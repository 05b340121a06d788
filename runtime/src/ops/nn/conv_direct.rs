//! Direct float32 2-d convolution on AVX-512 and AVX2, without im2col.
//!
//! The input of one sample is copied once into a zero-padded "plane" layout in which every
//! kernel tap `(c, ki, kj)` is a plain shift: output pixel `(oh, ow)` sits at flat position
//! `q = oh * wq + ow`, and tap `k` reads the layout at `q + offs[k]`. Stride `s > 1` splits
//! the padded input into `s x s` phase planes so the shift stays contiguous; with stride 1 in
//! width, one run of zero columns serves as the right padding of a row and the left padding of
//! the next (`wq = w + max(pad_left, pad_right)`), so few lanes fall on padding.
//!
//! A micro-kernel keeps an `MR x LANES*NZ` tile (output channels x flat positions) in
//! registers and, for each tap, multiplies one broadcast weight per row by `NZ` vectors loaded
//! straight from the layout, so neither the patches nor the weights are ever copied: 8 x 48 on
//! AVX-512 (24 of 32 registers), 4 x 24 on AVX2 (12 of 16). Small output planes take a tile
//! of another width where that computes fewer lanes (a 7x7 plane is 56 flat positions: two
//! panels of 48, half of them wasted, or one of 64 as 6 x 64). Lanes on padding columns are
//! dropped at the store, each run of valid lanes written with a masked store. A block with
//! fewer output channels than MR repeats its last row's weights (the extra rows are not
//! stored), and the last panel computes whole vectors over the layout's zeroed slack.
//!
//! Each output element is one sum over the taps in order, then the bias, then the fused
//! epilogue (residual, activation) while the tile is in cache: the result does not depend on
//! how the work is split over threads.

use super::epilogue::Epilogue;
use crate::ops::cpu::{self, Isa, TileForm};
use crate::ops::simd::{Avx2, Avx512, F32x};

/// The most vectors per micro-kernel tile row.
const MAX_NZ: usize = 4;
/// The widest panel (AVX-512's 4 x 16 positions): the layout's slack covers it.
const MAX_PANEL: usize = MAX_NZ * 16;
/// Layout floats one group of panels should touch, so it stays in a core's L2 cache while
/// every output-channel block of the group runs over it.
const GROUP_ELEMS: usize = 1 << 16;
/// Multiply-adds below which the convolution stays on the calling thread.
const PARALLEL_FMAS: usize = 1 << 18;
/// Tasks per thread, taken as threads free up: a thread the system holds up no longer keeps
/// the other waiting for its fixed half. On a busy 2-core VM, resnet18's median call was
/// 7-16% faster with 4 tasks per thread than with 1 in three of four alternated runs (means of
/// 8-10 medians of 40 calls) and level in the fourth; on a quiet machine one static share per
/// thread is a few percent faster (BENCHMARKS.md, 2026-11-29).
const TASKS_PER_THREAD: usize = 4;

/// The sizes of one 2-d convolution (one group's channels: `c` in, `o` out).
#[derive(Copy, Clone, Debug)]
pub struct Shape {
    pub n: usize,
    pub groups: usize,
    pub c: usize,
    pub h: usize,
    pub w: usize,
    pub o: usize,
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

/// Floats of layout scratch `forward` needs, or `None` when the layout's offsets would not fit
/// in 32 bits (then the caller takes another path).
pub fn layout_len(s: &Shape) -> Option<usize> {
    Layout::new(s)?.sample.checked_mul(s.n)
}

/// Whether the direct kernel has a form for this instruction-set level.
pub fn available(level: Isa) -> bool {
    level >= Isa::Avx2
}

/// Where the padded input lives in the layout and which offsets the taps read.
struct Layout {
    /// Row length of a plane (flat positions per output row).
    wq: usize,
    /// Rows of a plane.
    hq: usize,
    /// Floats per input channel (the phase planes some tap reads).
    chan: usize,
    /// The plane index of each phase `(a, b)` (at `a * sw + b`), `None` for phases no tap
    /// reads (a 1x1 kernel of stride 2 reads one phase of four: the rest is not copied).
    slots: Vec<Option<usize>>,
    /// Floats per sample.
    sample: usize,
    /// The layout read offset of each tap `(c, ki, kj)`, in the weights' order.
    offs: Vec<u32>,
}

impl Layout {
    fn new(s: &Shape) -> Option<Layout> {
        // Padding on the high side that the last output reads (zero when it reads less).
        let span_w = (s.wo - 1) * s.sw + (s.kw - 1) * s.dw + 1;
        let span_h = (s.ho - 1) * s.sh + (s.kh - 1) * s.dh + 1;
        let pr = (span_w).saturating_sub(s.pw + s.w);
        let pb = (span_h).saturating_sub(s.ph + s.h);
        let wq = if s.sw == 1 {
            // At least one output row wide (a kernel narrower than the padding).
            (s.w + s.pw.max(pr)).max(s.wo)
        } else {
            (s.pw + s.w + pr).div_ceil(s.sw)
        };
        let hq = (s.ph + s.h + pb).div_ceil(s.sh);
        let plane = hq.checked_mul(wq)?;
        let phase_of = |ki: usize, kj: usize| {
            let (ui, uj) = (ki * s.dh, kj * s.dw);
            (ui % s.sh) * s.sw + uj % s.sw
        };
        let mut slots = vec![None; s.sh * s.sw];
        let mut used = 0;
        for ki in 0..s.kh {
            for kj in 0..s.kw {
                let slot = &mut slots[phase_of(ki, kj)];
                if slot.is_none() {
                    *slot = Some(used);
                    used += 1;
                }
            }
        }
        let chan = plane.checked_mul(used)?;
        let cin = s.c.checked_mul(s.groups)?;
        // Whole vectors past the last output row read up to a panel and a kernel row beyond
        // the planes.
        let reach = (s.kw - 1) * s.dw / s.sw + wq + 2 * MAX_PANEL;
        let sample = cin.checked_mul(chan)?.checked_add(reach)?;
        let mut offs = Vec::with_capacity(s.c * s.kh * s.kw);
        for c in 0..s.c {
            for ki in 0..s.kh {
                for kj in 0..s.kw {
                    let (ui, uj) = (ki * s.dh, kj * s.dw);
                    let slot = slots[phase_of(ki, kj)].expect("every tap's phase has a slot");
                    let off = c * chan + slot * plane + (ui / s.sh) * wq + uj / s.sw;
                    offs.push(u32::try_from(off).ok()?);
                }
            }
        }
        u32::try_from(sample).ok()?;
        Some(Layout {
            wq,
            hq,
            chan,
            slots,
            sample,
            offs,
        })
    }

    /// Copies input channel `src` (`[h, w]`) into its planes `dst` (`chan` floats),
    /// writing every float (zeros on padding).
    fn fill_channel(&self, s: &Shape, src: &[f32], dst: &mut [f32]) {
        let plane = self.hq * self.wq;
        for a in 0..s.sh {
            for b in 0..s.sw {
                let Some(slot) = self.slots[a * s.sw + b] else {
                    continue;
                };
                let planes = &mut dst[slot * plane..(slot + 1) * plane];
                for (i, row) in planes.chunks_mut(self.wq).enumerate() {
                    let ih = (s.sh * i + a) as isize - s.ph as isize;
                    if ih < 0 || ih >= s.h as isize {
                        row.fill(0.0);
                        continue;
                    }
                    let line = &src[ih as usize * s.w..(ih as usize + 1) * s.w];
                    if s.sw == 1 {
                        // Data at columns [pw, pw + w); the rest of the row is the shared gap.
                        let end = s.pw + s.w;
                        if end <= self.wq {
                            row[..s.pw].fill(0.0);
                            row[s.pw..end].copy_from_slice(line);
                            row[end..].fill(0.0);
                        } else {
                            row.fill(0.0);
                            row[s.pw..].copy_from_slice(&line[..self.wq - s.pw]);
                        }
                    } else {
                        // Columns j read input column sw * j + b - pw: zeros where that is
                        // outside the line, a strided copy between (which the compiler
                        // vectorizes for stride 2; a bounds check per element did not).
                        let j0 = s.pw.saturating_sub(b).div_ceil(s.sw).min(row.len());
                        let j1 = (s.pw + s.w)
                            .saturating_sub(b)
                            .div_ceil(s.sw)
                            .clamp(j0, row.len());
                        row[..j0].fill(0.0);
                        row[j1..].fill(0.0);
                        let src = &line[(s.sw * j0 + b).saturating_sub(s.pw)..];
                        let dst = &mut row[j0..j1];
                        if s.sw == 2 {
                            // Whole pairs (a shuffle of vectors), then an unpaired last column.
                            let pairs = dst.len().min(src.len() / 2);
                            let (body, tail) = dst.split_at_mut(pairs);
                            for (v, pair) in body.iter_mut().zip(src.chunks_exact(2)) {
                                *v = pair[0];
                            }
                            for (j, v) in tail.iter_mut().enumerate() {
                                *v = src[2 * (pairs + j)];
                            }
                        } else {
                            for (v, x) in dst.iter_mut().zip(src.iter().step_by(s.sw)) {
                                *v = *x;
                            }
                        }
                    }
                }
            }
        }
    }
}

/// One panel of `nz` vectors at flat position `q0`: per vector, the lanes that are output
/// pixels and the output index of the first of them; the panel's outputs are the run
/// `[out0, out0 + count)` of a channel's plane.
#[derive(Copy, Clone)]
struct Panel {
    q0: usize,
    masks: [u32; MAX_NZ],
    first: [usize; MAX_NZ],
    out0: usize,
    count: usize,
}

fn panels(s: &Shape, wq: usize, lanes: usize, nz: usize) -> Vec<Panel> {
    let total = s.ho * wq;
    let panel = nz * lanes;
    let mut out = Vec::with_capacity(total.div_ceil(panel));
    let mut q0 = 0;
    while q0 < total {
        let mut p = Panel {
            q0,
            masks: [0; MAX_NZ],
            first: [0; MAX_NZ],
            out0: usize::MAX,
            count: 0,
        };
        for v in 0..nz {
            // The vector's lanes in runs along output rows: `q % wq < wo` are pixels.
            let q1 = (q0 + (v + 1) * lanes).min(total);
            let mut q = q0 + v * lanes;
            let mut first = None;
            while q < q1 {
                let (row, col) = (q / wq, q % wq);
                if col >= s.wo {
                    q += wq - col;
                    continue;
                }
                let run = (s.wo - col).min(q1 - q);
                let lane = q - q0 - v * lanes;
                p.masks[v] |= (((1u64 << run) - 1) << lane) as u32;
                first.get_or_insert(row * s.wo + col);
                q += run;
            }
            p.first[v] = first.unwrap_or(0);
            p.count += p.masks[v].count_ones() as usize;
            if let Some(f) = first {
                p.out0 = p.out0.min(f);
            }
        }
        if p.count > 0 {
            out.push(p);
        }
        q0 += panel;
    }
    out
}

/// `out[n, groups * o, ho, wo] = epi(conv(x[n, groups * c, h, w], w[groups * o, c, kh, kw])
/// + bias)` on the instruction set `level`. Every output element is written.
///
/// # Safety
/// `available(level)` must hold and `level` be at most the CPU's; `layout_len(s)` must be
/// `Some` and `layout_buf` at least that long; the other slices must have the sizes the shape
/// gives, and the epilogue's residual the output's.
#[allow(clippy::too_many_arguments)]
pub unsafe fn forward(
    s: &Shape,
    x: &[f32],
    w: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    layout_buf: &mut [f32],
    level: Isa,
    epi: &Epilogue,
) {
    let lay = Layout::new(s).expect("layout_len checked by the caller");
    let cin = s.c * s.groups;
    let in_plane = s.h * s.w;
    let fmas = s.n * s.groups * s.o * s.ho * s.wo * s.c * s.kh * s.kw;
    let parallel = fmas >= PARALLEL_FMAS && crate::parallel::threads() > 1;
    let layout = &mut layout_buf[..s.n * lay.sample];
    // Per sample: each input channel's planes, then the slack after the last (zeroed).
    let layout_addr = layout.as_mut_ptr() as usize;
    let fill = |i: usize| {
        let (smp, c) = (i / (cin + 1), i % (cin + 1));
        let (start, len) = if c == cin {
            (cin * lay.chan, lay.sample - cin * lay.chan)
        } else {
            (c * lay.chan, lay.chan)
        };
        // SAFETY: the pieces of `layout` the indices name are disjoint, each written once.
        let dst = std::slice::from_raw_parts_mut(
            (layout_addr as *mut f32).add(smp * lay.sample + start),
            len,
        );
        if c == cin {
            dst.fill(0.0);
        } else {
            let src = &x[(smp * cin + c) * in_plane..(smp * cin + c + 1) * in_plane];
            lay.fill_channel(s, src, dst);
        }
    };
    let pieces = s.n * (cin + 1);
    if parallel {
        crate::parallel::for_each(pieces, fill);
    } else {
        (0..pieces).for_each(fill);
    }

    let form = choose_kernel(s, lay.wq, level);
    let (tile, lanes, mr, nz) = (form.tile, form.lanes, form.rows, form.width);
    let panels = panels(s, lay.wq, lanes, nz);
    if panels.is_empty() {
        return;
    }
    let k = s.c * s.kh * s.kw;
    let plane_out = s.ho * s.wo;
    // Panels per cache group: the share of the layout one group reads stays near GROUP_ELEMS.
    let per_panel = (s.c * lay.chan * nz * lanes) / (s.ho * lay.wq).max(1);
    let group = (GROUP_ELEMS / per_panel.max(1)).clamp(1, panels.len());
    // Tasks: (sample, group of channels, block of output channels, range of panels); per
    // sample and group, blocks of output channels first, then ranges of panels, until there
    // are TASKS_PER_THREAD per thread (or as many as there are blocks and panels).
    let oblocks = s.o.div_ceil(mr);
    let target = if parallel {
        crate::parallel::threads() * TASKS_PER_THREAD
    } else {
        1
    };
    let blocks_per_task = oblocks.div_ceil(target.min(oblocks));
    let ochunks = oblocks.div_ceil(blocks_per_task);
    let per_o = blocks_per_task * mr;
    let per_p = panels
        .len()
        .div_ceil(target.div_ceil(ochunks).min(panels.len()));
    let pchunks = panels.len().div_ceil(per_p);
    let tasks = s.n * s.groups * ochunks * pchunks;
    let (lay_addr, out_addr) = (layout.as_ptr() as usize, out.as_mut_ptr() as usize);
    let run = |t: usize| {
        let pc = t % pchunks;
        let oc = (t / pchunks) % ochunks;
        let grp = (t / (pchunks * ochunks)) % s.groups;
        let smp = t / (pchunks * ochunks * s.groups);
        let (o0, o1) = (oc * per_o, ((oc + 1) * per_o).min(s.o));
        let (p0, p1) = (pc * per_p, ((pc + 1) * per_p).min(panels.len()));
        let base = (lay_addr as *const f32).add(smp * lay.sample + grp * s.c * lay.chan);
        for gp in (p0..p1).step_by(group) {
            let mine = &panels[gp..(gp + group).min(p1)];
            for ob in (o0..o1).step_by(mr) {
                let rows = (o1 - ob).min(mr);
                let oc_abs = grp * s.o + ob;
                let at = (smp * s.groups * s.o + oc_abs) * plane_out;
                let t = Tile {
                    rows,
                    k,
                    offs: &lay.offs,
                    w: w.as_ptr().add(oc_abs * k),
                    dst: (out_addr as *mut f32).add(at),
                    at,
                    ld: plane_out,
                    bias: bias.map(|b| &b[oc_abs..oc_abs + rows]),
                    epi,
                };
                for p in mine {
                    tile(&t, p, base.add(p.q0));
                }
            }
        }
    };
    if parallel && tasks > 1 {
        crate::parallel::for_each(tasks, run);
    } else {
        (0..tasks).for_each(run);
    }
}

/// One block of output channels against the panels: what a tile needs besides its panel.
struct Tile<'a> {
    /// Output channels in the block (at most MR).
    rows: usize,
    /// Taps per output channel (the weights' row length).
    k: usize,
    offs: &'a [u32],
    /// The block's first weight row.
    w: *const f32,
    /// The block's first output plane, at flat position `at` of the output.
    dst: *mut f32,
    at: usize,
    /// Floats between output planes.
    ld: usize,
    bias: Option<&'a [f32]>,
    epi: &'a Epilogue,
}

type TileFn = unsafe fn(&Tile, &Panel, *const f32);

/// A micro-kernel form: `rows` output channels by `width` vectors of positions.
type Kernel = TileForm<TileFn>;

/// The forms of each instruction set, the one that suits most shapes first. The accumulators
/// take 24 of AVX-512's 32 registers and 12 of AVX2's 16 in every form.
const AVX512_KERNELS: [Kernel; 3] = [
    TileForm::new(tile_avx512::<8, 3>, Avx512::LANES, 8, 3),
    TileForm::new(tile_avx512::<6, 4>, Avx512::LANES, 6, 4),
    TileForm::new(tile_avx512::<12, 2>, Avx512::LANES, 12, 2),
];
const AVX2_KERNELS: [Kernel; 3] = [
    TileForm::new(tile_avx2::<4, 3>, Avx2::LANES, 4, 3),
    TileForm::new(tile_avx2::<6, 2>, Avx2::LANES, 6, 2),
    TileForm::new(tile_avx2::<12, 1>, Avx2::LANES, 12, 1),
];

fn kernels(level: Isa) -> &'static [Kernel] {
    match level {
        Isa::Avx512 => &AVX512_KERNELS,
        _ => &AVX2_KERNELS,
    }
}

/// The form that computes the fewest lanes (output channels rounded up to its rows times
/// positions rounded up to its panels; `cpu::pick_tile_form`).
fn choose_kernel(s: &Shape, wq: usize, level: Isa) -> Kernel {
    cpu::pick_tile_form(kernels(level), |k| {
        (s.ho * wq).div_ceil(k.span()) * k.span() * s.o.div_ceil(k.rows) * k.rows
    })
}

/// Asserts that the forms of `level` are the widths `cpu::tile_widths` names.
#[cfg(test)]
pub(crate) fn check_forms(level: Isa) {
    cpu::check_tile_forms(level, kernels(level));
}

#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
unsafe fn tile_avx512<const MR: usize, const NZ: usize>(t: &Tile, p: &Panel, b: *const f32) {
    tile::<Avx512, MR, NZ>(t, p, b)
}

#[target_feature(enable = "avx2,fma")]
unsafe fn tile_avx2<const MR: usize, const NZ: usize>(t: &Tile, p: &Panel, b: *const f32) {
    tile::<Avx2, MR, NZ>(t, p, b)
}

/// One tile: the block's output channels by one panel whose layout starts at `b`.
#[inline(always)]
unsafe fn tile<S: F32x, const MR: usize, const NZ: usize>(t: &Tile, p: &Panel, b: *const f32) {
    let mut rows = [t.w; MR];
    for (r, row) in rows.iter_mut().enumerate() {
        *row = t.w.add(r.min(t.rows - 1) * t.k);
    }
    let acc = micro::<S, MR, NZ>(t.k, t.offs, b, &rows);
    for (r, row) in acc.iter().enumerate().take(t.rows) {
        let add = S::splat(t.bias.map_or(0.0, |b| b[r]));
        let dst = t.dst.add(r * t.ld);
        for ((&vector, &mask), &first) in row.iter().zip(&p.masks).zip(&p.first) {
            if mask == 0 {
                continue;
            }
            let sum = S::add(vector, add);
            if mask == (1u32 << S::LANES) - 1 {
                S::store(dst.add(first), sum);
                continue;
            }
            // Each run of valid lanes to its outputs: lane l of a run starting at lane l0
            // (the j0-th valid lane) goes to output first + j0 + (l - l0).
            let (mut m, mut j) = (mask, 0usize);
            while m != 0 {
                let l0 = m.trailing_zeros() as usize;
                let len = (!(m >> l0)).trailing_zeros() as usize;
                let run = ((1u32 << len) - 1) << l0;
                S::store_mask(dst.add(first + j).wrapping_sub(l0), sum, run);
                j += len;
                m &= !run;
            }
        }
        if !t.epi.is_identity() {
            t.epi
                .apply(dst.add(p.out0), t.at + r * t.ld + p.out0, p.count);
        }
    }
}

/// `sum_k w_r[k] * layout[offs[k] + LANES v ..]` for the `MR` weight rows `w`, `NZ` vectors.
#[inline(always)]
unsafe fn micro<S: F32x, const MR: usize, const NZ: usize>(
    k: usize,
    offs: &[u32],
    b: *const f32,
    w: &[*const f32; MR],
) -> [[S::V; NZ]; MR] {
    let mut a = [[S::zero(); NZ]; MR];
    for (t, &off) in offs.iter().enumerate().take(k) {
        let src = b.add(off as usize);
        let mut vec = [S::zero(); NZ];
        for (v, x) in vec.iter_mut().enumerate() {
            *x = S::load(src.add(v * S::LANES));
        }
        for r in 0..MR {
            let wr = S::splat(*w[r].add(t));
            for v in 0..NZ {
                a[r][v] = S::fma(wr, vec[v], a[r][v]);
            }
        }
    }
    a
}
