//! float32 3x3 stride-1 convolution by Winograd's minimal filtering F(2x2, 3x3) (Lavin and
//! Gray, "Fast Algorithms for Convolutional Neural Networks", 2016), on the GEMM
//! micro-kernels.
//!
//! Each 2x2 block ("tile") of the output is computed from the 4x4 input patch under it as
//! `Y = A^T [(G g G^T) .* (B^T d B)] A`: the element-wise product of the transformed patch and
//! the transformed 3x3 kernel, summed over input channels, is 16 independent products
//! `M[xi] = U[xi] V[xi]` of `[o, c]` transformed weights by `[c, tiles]` transformed input,
//! one per position `xi` of the 4x4 transform. That is 16 multiply-adds per output tile and
//! channel pair where the direct kernel does 36: 2.25x fewer, for a pass over the input and
//! one over the output that cost a few additions per element. The transforms' coefficients
//! are 0, +-1 and +-1/2, so the result differs from the direct sum by a few rounding errors of
//! its terms (as cuDNN's and oneDNN's Winograd convolutions do).
//!
//! The weights' transform `U` is computed once per graph node ([`WeightCache`]): only nodes
//! whose weights are a graph constant take this kernel. Large planes run in blocks of tile
//! rows, so the transformed input and the products of a block stay in cache between passes.

use std::ops::Range;
use std::sync::Arc;

use super::epilogue::Epilogue;
use crate::ops::cpu::{self, Isa};
use crate::ops::linalg::sgemm;
use crate::ops::node_cache::NodeCache;
use crate::ops::simd::line_aligned;
use crate::tensor::Tensor;

/// Positions of the 4x4 transform: one product per position.
const POSITIONS: usize = 16;

/// The sizes of one convolution: `n` samples of `c` channels of `h x w`, `o` output channels,
/// padding `ph`, `pw` on the low sides, output `ho x wo`.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Shape {
    pub n: usize,
    pub c: usize,
    pub h: usize,
    pub w: usize,
    pub o: usize,
    pub ph: usize,
    pub pw: usize,
    pub ho: usize,
    pub wo: usize,
}

impl Shape {
    fn tiles_h(&self) -> usize {
        self.ho.div_ceil(2)
    }

    fn tiles_w(&self) -> usize {
        self.wo.div_ceil(2)
    }

    fn tiles(&self) -> usize {
        self.tiles_h() * self.tiles_w()
    }
}

/// Output tiles per sample below which the direct kernel stays faster: the 16 products then
/// have fewer columns than a panel or two of the micro-kernels (a 7x7 output is 16 tiles).
const MIN_TILES: usize = 48;
/// Channels below which the products are too short for the transforms to pay: on one
/// Sapphire Rapids core (`BENCH_SHAPE=CxHWxCx3x1 bench_linalg conv`), 64 channels on a 56x56
/// plane took 1.8 ms against the direct kernel's 1.55, 128 on 28x28 1.30-1.35 against
/// 1.46-1.49, 256 on 14x14 1.12-1.16 against 1.68-1.79.
const MIN_CHANNELS: usize = 128;
/// Bytes of transformed input and products one block of tile rows may take: larger planes
/// run in blocks, so the scratch stays bounded and in cache between the passes (2 MiB was
/// 5-25% slower than 4 on the shapes above).
const BLOCK_BYTES: usize = 4 << 20;

/// Tile rows per block for `s`.
fn block_rows(s: &Shape) -> usize {
    let per_tile = POSITIONS * (s.c + s.o) * 4;
    (BLOCK_BYTES / per_tile / s.tiles_w()).clamp(1, s.tiles_h())
}

/// Whether the Winograd kernel takes this convolution at `level` (the caller has checked that
/// it is a 3x3 kernel of stride 1 and dilation 1 in one group).
pub(crate) fn applies(s: &Shape, level: Isa) -> bool {
    sgemm::available(level) && s.c >= MIN_CHANNELS && s.o >= MIN_CHANNELS && s.tiles() >= MIN_TILES
}

/// The transformed weights `U[xi][o][c] = (G g G^T)[xi]` of `w` (`[o, c, 3, 3]`, contiguous)
/// with `G = [[1, 0, 0], [1/2, 1/2, 1/2], [1/2, -1/2, 1/2], [0, 0, 1]]`.
pub(crate) fn transform_weights(w: &[f32], o: usize, c: usize) -> Vec<f32> {
    let mut u = vec![0f32; POSITIONS * o * c];
    let rows = |g: [f32; 3]| {
        [
            g[0],
            (g[0] + g[1] + g[2]) * 0.5,
            (g[0] - g[1] + g[2]) * 0.5,
            g[2],
        ]
    };
    for oc in 0..o * c {
        let g = &w[oc * 9..oc * 9 + 9];
        // G g: 4 rows of 3, then (G g) G^T: each row's 3 values to 4.
        let cols: [[f32; 4]; 3] = std::array::from_fn(|j| rows([g[j], g[3 + j], g[6 + j]]));
        for a in 0..4 {
            let t = rows([cols[0][a], cols[1][a], cols[2][a]]);
            for (b, &v) in t.iter().enumerate() {
                u[(a * 4 + b) * o * c + oc] = v;
            }
        }
    }
    u
}

/// The transformed weights of one graph node, kept across calls while its weights are the
/// same tensor.
pub type WeightCache = NodeCache<Vec<f32>>;

/// The transform of `w` (contiguous float32 `[o, c, 3, 3]`), from `cache`.
pub(crate) fn cached_weights(cache: &WeightCache, w: &Tensor, o: usize, c: usize) -> Arc<Vec<f32>> {
    cache.get(w, 0, || {
        // SAFETY: a contiguous float32 tensor of o * c * 9 elements (the caller's contract).
        let w = unsafe { std::slice::from_raw_parts(w.data_ptr() as *const f32, w.numel()) };
        transform_weights(w, o, c)
    })
}

thread_local! {
    /// The calling thread's transformed input `V` and products `M`.
    static SCRATCH: std::cell::RefCell<[Vec<f32>; 2]> =
        const { std::cell::RefCell::new([Vec::new(), Vec::new()]) };
}

/// The convolution of `x` (`[n, c, h, w]`) with the transformed weights `u`, plus `bias`, then
/// `epi` (its residual at the output's flat positions), into `out` (`[n, o, ho, wo]`).
///
/// # Safety
/// The slices have the shape's sizes; `level` is at most the CPU's and has the GEMM kernels.
pub(crate) unsafe fn forward(
    s: &Shape,
    x: &[f32],
    u: &[f32],
    bias: Option<&[f32]>,
    out: &mut [f32],
    level: Isa,
    epi: &Epilogue,
) {
    let (c, o, tw) = (s.c, s.o, s.tiles_w());
    debug_assert!(u.len() == POSITIONS * o * c);
    let block_rows = block_rows(s);
    let most = block_rows * tw;
    SCRATCH.with(|cell| {
        let mut bufs = cell.borrow_mut();
        let [vbuf, mbuf] = &mut *bufs;
        let v = line_aligned(vbuf, POSITIONS * c * most);
        let m = line_aligned(mbuf, POSITIONS * o * most);
        let (vp, mp, op) = (
            v.as_mut_ptr() as usize,
            m.as_mut_ptr() as usize,
            out.as_mut_ptr() as usize,
        );
        let blocks = (0..s.tiles_h()).step_by(block_rows);
        for (sample, th0) in (0..s.n).flat_map(|n| blocks.clone().map(move |b| (n, b))) {
            let rows = th0..(th0 + block_rows).min(s.tiles_h());
            let tiles = rows.len() * tw;
            let xs = &x[sample * c * s.h * s.w..(sample + 1) * c * s.h * s.w];
            crate::parallel::for_each(c, |ch| {
                let plane = &xs[ch * s.h * s.w..(ch + 1) * s.h * s.w];
                // SAFETY: each channel writes its own rows of V.
                unsafe { transform_input(s, rows.clone(), plane, vp as *mut f32, ch, level) };
            });
            crate::parallel::for_each(POSITIONS, |xi| {
                let p = sgemm::Product {
                    m: o,
                    n: tiles,
                    k: c,
                    a: u.as_ptr().wrapping_add(xi * o * c),
                    lda: c,
                    b: sgemm::BSource::Rows {
                        ptr: (vp as *const f32).wrapping_add(xi * c * tiles),
                        ld: tiles,
                    },
                    c: (mp as *mut f32).wrapping_add(xi * o * tiles),
                    ldc: tiles,
                    bias: sgemm::Bias::None,
                    epi: &Epilogue::NONE,
                    at: 0,
                };
                // SAFETY: U[xi] is [o, c], V[xi] [c, tiles], M[xi] [o, tiles], each position's
                // its own; the pool runs a nested product on this thread.
                unsafe { sgemm::run(level, &p) };
            });
            let plane = s.ho * s.wo;
            crate::parallel::for_each(o, |oc| {
                let at = (sample * o + oc) * plane;
                let b = bias.map_or(0.0, |b| b[oc]);
                // SAFETY: each output channel writes its own plane.
                unsafe {
                    let dst = std::slice::from_raw_parts_mut((op as *mut f32).add(at), plane);
                    transform_output(s, rows.clone(), mp as *const f32, oc, b, dst, level);
                    if !epi.is_identity() {
                        // The output rows of this block's tiles.
                        let (y0, y1) = (2 * rows.start * s.wo, (2 * rows.end).min(s.ho) * s.wo);
                        cpu::dispatch(
                            level,
                            #[inline(always)]
                            || epi.apply(dst.as_mut_ptr().add(y0), at + y0, y1 - y0),
                        );
                    }
                }
            });
        }
    });
}

/// Tiles one pass of a transform handles: its buffers (32 rows of this many floats) stay in
/// L1, and the loops over them run whole vectors.
const CHUNK: usize = 128;

/// The chunks of the tile rows `block` a transform pass takes, `tw` tiles a row: the tile
/// rows, the first tile's index in the block and the chunk's tiles.
fn chunks(block: &Range<usize>, tw: usize) -> impl Iterator<Item = (Range<usize>, usize, usize)> {
    let (rows, start, end) = ((CHUNK / tw).max(1), block.start, block.end);
    (start..end).step_by(rows).map(move |th0| {
        let th1 = (th0 + rows).min(end);
        (th0..th1, (th0 - start) * tw, (th1 - th0) * tw)
    })
}

/// `V[xi][ch][tile] = (B^T d B)[xi]` for the tiles of the tile rows `block` of channel `ch`
/// (`plane`, `h x w`), with `B^T = [[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0,
/// -1]]`: each input row under a tile row split into its even and odd columns, so the
/// transform along the patch rows and then down the columns are passes over whole vectors
/// (a chunk of tile rows at a time).
///
/// # Safety
/// `v` addresses `POSITIONS * c * tiles` floats; no other thread writes channel `ch`'s.
unsafe fn transform_input(
    s: &Shape,
    block: Range<usize>,
    plane: &[f32],
    v: *mut f32,
    ch: usize,
    level: Isa,
) {
    let (tw, tiles) = (s.tiles_w(), block.len() * s.tiles_w());
    ROWS.with(|cell| {
        let mut buf = cell.borrow_mut();
        // Rows of at least a tile row's tiles; a padded input row.
        let cap = CHUNK.max(tw);
        let buf = line_aligned(&mut buf, POSITIONS * cap + 4 * (tw + 1));
        let (hz, line) = buf.split_at_mut(POSITIONS * cap);
        let (line, split) = line.split_at_mut(2 * tw + 2);
        cpu::dispatch(
            level,
            #[inline(always)]
            || {
                for (rows, q0, len) in chunks(&block, tw) {
                    for th in rows.clone() {
                        let q = (th - rows.start) * tw;
                        for i in 0..4 {
                            // The patch row i of every tile of row th: input columns
                            // 2t - pw .. 2t + 3 - pw, zeros on the padding.
                            let padded = &mut *line;
                            padded.fill(0.0);
                            if let Some(r) = (2 * th + i).checked_sub(s.ph).filter(|&r| r < s.h) {
                                let n = s.w.min(padded.len() - s.pw);
                                padded[s.pw..s.pw + n]
                                    .copy_from_slice(&plane[r * s.w..r * s.w + n]);
                            }
                            // Its even and odd columns: tile t's row is ev[t], od[t],
                            // ev[t + 1], od[t + 1].
                            let (ev, od) = split.split_at_mut(tw + 1);
                            for ((e, o), pair) in
                                ev.iter_mut().zip(od.iter_mut()).zip(padded.chunks_exact(2))
                            {
                                *e = pair[0];
                                *o = pair[1];
                            }
                            let (ev, od) = (&*ev, &*od);
                            // Along the patch row: hz[i * 4 + k] = (d_i B)[k].
                            let out = &mut hz[i * 4 * cap..(i + 1) * 4 * cap];
                            let (h0, o) = out.split_at_mut(cap);
                            let (h1, o) = o.split_at_mut(cap);
                            let (h2, h3) = o.split_at_mut(cap);
                            let d = [&ev[..tw], &od[..tw], &ev[1..=tw], &od[1..=tw]];
                            let at = q..q + tw;
                            input_rows(
                                d,
                                [
                                    &mut h0[at.clone()],
                                    &mut h1[at.clone()],
                                    &mut h2[at.clone()],
                                    &mut h3[at],
                                ],
                            );
                        }
                    }
                    // Down each column k: V[a * 4 + k] = (B^T hz_k)[a].
                    for k in 0..4 {
                        let e = [k, 4 + k, 8 + k, 12 + k].map(|r| part(hz, cap, r, len));
                        let dst = |a: usize| {
                            let at = ((a * 4 + k) * s.c + ch) * tiles + q0;
                            std::slice::from_raw_parts_mut(v.add(at), len)
                        };
                        input_rows(e, [dst(0), dst(1), dst(2), dst(3)]);
                    }
                }
            },
        )
    })
}

/// `B^T d` for the four rows `d` (equal lengths), into `out`: the input transform along one
/// direction, a pass over whole vectors.
#[inline(always)]
fn input_rows([d0, d1, d2, d3]: [&[f32]; 4], [o0, o1, o2, o3]: [&mut [f32]; 4]) {
    let n = d0.len();
    let (d1, d2, d3) = (&d1[..n], &d2[..n], &d3[..n]);
    let (o0, o1, o2, o3) = (&mut o0[..n], &mut o1[..n], &mut o2[..n], &mut o3[..n]);
    for t in 0..n {
        o0[t] = d0[t] - d2[t];
        o1[t] = d1[t] + d2[t];
        o2[t] = d2[t] - d1[t];
        o3[t] = d1[t] - d3[t];
    }
}

/// Row `k` of a transform buffer (rows of `cap` floats), its first `len` floats.
#[inline(always)]
fn part(buf: &[f32], cap: usize, k: usize, len: usize) -> &[f32] {
    &buf[k * cap..k * cap + len]
}

thread_local! {
    /// Each thread's buffers of the input and output transforms.
    static ROWS: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Output channel `oc`'s plane `dst` (`ho x wo`) from its products `M[xi][oc][tile]` plus
/// `bias`: `Y = A^T m A` with `A^T = [[1, 1, 1, 0], [0, 1, -1, -1]]`, vectorized over a chunk
/// of tiles, then each tile's 2x2 block stored.
///
/// # Safety
/// `m` addresses `POSITIONS * o * tiles` floats.
unsafe fn transform_output(
    s: &Shape,
    block: Range<usize>,
    m: *const f32,
    oc: usize,
    bias: f32,
    dst: &mut [f32],
    level: Isa,
) {
    let (tw, tiles) = (s.tiles_w(), block.len() * s.tiles_w());
    ROWS.with(|cell| {
        let mut buf = cell.borrow_mut();
        let cap = CHUNK.max(tw);
        let buf = line_aligned(&mut buf, 12 * cap);
        let (vert, y) = buf.split_at_mut(8 * cap);
        cpu::dispatch(
            level,
            #[inline(always)]
            || {
                for (rows, q0, len) in chunks(&block, tw) {
                    let pos = |xi: usize| {
                        std::slice::from_raw_parts(m.add((xi * s.o + oc) * tiles + q0), len)
                    };
                    // Down each column b: vert[a * 4 + b] = (A^T m_b)[a].
                    for b in 0..4 {
                        let (m0, m1, m2, m3) = (pos(b), pos(4 + b), pos(8 + b), pos(12 + b));
                        let (r0, r1) = vert.split_at_mut(4 * cap);
                        let r0 = &mut r0[b * cap..b * cap + len];
                        let r1 = &mut r1[b * cap..b * cap + len];
                        for q in 0..len {
                            r0[q] = m0[q] + m1[q] + m2[q];
                            r1[q] = m1[q] - m2[q] - m3[q];
                        }
                    }
                    // Along each row a: y[a * 2 + e] = (vert_a A)[e] + bias.
                    for a in 0..2 {
                        let (w0, w1, w2, w3) = (
                            part(vert, cap, a * 4, len),
                            part(vert, cap, a * 4 + 1, len),
                            part(vert, cap, a * 4 + 2, len),
                            part(vert, cap, a * 4 + 3, len),
                        );
                        let (y0, y1) = y[a * 2 * cap..(a + 1) * 2 * cap].split_at_mut(cap);
                        for q in 0..len {
                            y0[q] = w0[q] + w1[q] + w2[q] + bias;
                            y1[q] = w1[q] - w2[q] - w3[q] + bias;
                        }
                    }
                    // Each tile's 2x2 block: row a of the tiles of row th interleaves
                    // y[a * 2] and y[a * 2 + 1].
                    for th in rows.clone() {
                        let q = (th - rows.start) * tw;
                        for a in 0..2 {
                            let r = 2 * th + a;
                            if r >= s.ho {
                                break;
                            }
                            let row = &mut dst[r * s.wo..(r + 1) * s.wo];
                            let ya = &y[a * 2 * cap + q..a * 2 * cap + q + tw];
                            let yb = &y[(a * 2 + 1) * cap + q..(a * 2 + 1) * cap + q + tw];
                            let (pairs, last) = row.split_at_mut(s.wo / 2 * 2);
                            for (t, pair) in pairs.chunks_exact_mut(2).enumerate() {
                                pair[0] = ya[t];
                                pair[1] = yb[t];
                            }
                            if let [x] = last {
                                *x = ya[tw - 1];
                            }
                        }
                    }
                }
            },
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(c: usize, hw: usize, o: usize) -> Shape {
        let (h, w, ho, wo) = (hw, hw, hw, hw);
        Shape {
            n: 1,
            c,
            h,
            w,
            o,
            ph: 1,
            pw: 1,
            ho,
            wo,
        }
    }

    /// The shapes the convolution tests use for this kernel take it; 7x7 planes and a few
    /// channels do not.
    #[test]
    fn takes_the_shapes_it_pays_for() {
        let level = Isa::Avx2;
        assert!(applies(&shape(128, 14, 128), level));
        assert!(applies(&shape(256, 14, 256), level));
        assert!(applies(&shape(128, 28, 128), level));
        assert!(!applies(&shape(512, 7, 512), level));
        assert!(!applies(&shape(64, 56, 64), level));
        assert!(!applies(&shape(128, 14, 64), level));
        assert!(!applies(&shape(128, 14, 128), Isa::Baseline));
        // In blocks of tile rows where the plane is large: the tests' 40x40 plane too.
        assert_eq!(block_rows(&shape(128, 28, 128)), 14);
        assert_eq!(block_rows(&shape(128, 56, 128)), 9);
        assert_eq!(block_rows(&shape(128, 40, 128)), 12);
    }

    /// `U = G g G^T` of a kernel with one 1 at (1, 1): `G`'s middle column times its
    /// transpose.
    #[test]
    fn transforms_a_kernel() {
        let mut g = [0f32; 9];
        g[4] = 1.0;
        let u = transform_weights(&g, 1, 1);
        let col = [0.0, 0.5, -0.5, 0.0];
        for a in 0..4 {
            for b in 0..4 {
                assert_eq!(u[a * 4 + b], col[a] * col[b]);
            }
        }
    }
}
