//! float32 matrix products on hand-written AVX-512 and AVX2 micro-kernels, for the shapes
//! models run most: linear layers (any batch, small ones included) and 1x1 convolutions.
//! Everything else (other dtypes, strided operands, machines without AVX2) takes the `gemm`
//! crate through `gemm::bgemm`.
//!
//! `C[m, n] = A[m, k] B[k, n] + bias`, then the fused epilogue (residual, activation) of
//! `ember::linear_fused` / `ember::conv2d_fused` on each tile while it is in cache. A is read
//! in place (rows with unit stride along k). B is either read in place (rows with unit stride
//! along n: the input of a 1x1 convolution) or packed into panels of `NR` columns (the
//! transposed weights of a linear layer), once per call or once per graph node for
//! constant weights ([`PackCache`]).
//!
//! The micro-kernel keeps an `MR x NR` tile in registers and, per step of k, multiplies `MR`
//! broadcast elements of A by a few vectors of B: 8 x 48 on AVX-512 (24 accumulators of 32
//! registers), 6 x 16 on AVX2 (12 of 16). B read in place with few columns (the 7x7 and
//! 14x14 planes of 1x1 convolutions) takes a tile of another width where that computes fewer
//! lanes. Products with few rows (batch-1 linear layers) are
//! dot products instead: four weight rows against each input row along k, so the weights are
//! read once, in place, with no packing.

use std::sync::Arc;

use crate::ops::cpu::{self, Isa, TileForm};
use crate::ops::nn::epilogue::Epilogue;
use crate::ops::node_cache::NodeCache;
use crate::ops::simd::{first_products, line_aligned, load_vectors, Avx2, Avx512, F32x};
use crate::tensor::{DType, Tensor, TensorResult};

/// Multiply-adds below which a product stays on the calling thread.
const PARALLEL_MACS: usize = 1 << 16;

/// Rows up to which a product with B given as transposed rows (weights) runs as dot products.
pub(crate) const DOT_ROWS: usize = 4;
/// The same for weights that are not packed once for all calls (not graph constants): packing
/// 3072 x 768 weights costs about what 30 rows of dot products do (`linear` of [m, 768] by
/// [3072, 768] on 2 threads: 32 rows 0.41 ms as dot products, 33 rows 0.85 ms packed; 65 rows
/// 0.91 against 1.11; 197 rows 2.73 against 2.30).
const UNPACKED_DOT_ROWS: usize = 96;
/// Weights of fewer elements are packed anyway: it costs next to nothing, and the tiles keep
/// the summation order of every other product.
const UNPACKED_DOT_MIN_WEIGHTS: usize = 1 << 16;

/// Whether the kernels here have a form for `level`.
pub(crate) fn available(level: Isa) -> bool {
    level >= Isa::Avx2
}

/// Columns per panel of packed B at `level` (its first form's).
pub(crate) fn panel_width(level: Isa) -> usize {
    forms(level)[0].span()
}

/// B packed for the micro-kernels: panels of `nr` columns, each `k` rows of `nr` floats,
/// columns past `n` zero.
pub(crate) struct PackedB {
    data: Vec<f32>,
    k: usize,
    n: usize,
    nr: usize,
}

impl PackedB {
    /// Packs `B[r][j] = *src.offset(r * sk + j * sn)` for `r < k`, `j < n`.
    ///
    /// # Safety
    /// Those elements are readable.
    pub unsafe fn pack(
        k: usize,
        n: usize,
        nr: usize,
        src: *const f32,
        sk: isize,
        sn: isize,
    ) -> PackedB {
        let panels = n.div_ceil(nr);
        let mut data = vec![0f32; panels * k * nr];
        let src = src as usize;
        crate::parallel::for_each_chunk_mut(&mut data, k * nr, |p, panel| {
            let j0 = p * nr;
            let cols = nr.min(n - j0);
            for r in 0..k {
                let dst = &mut panel[r * nr..r * nr + cols];
                let row = (src as *const f32).offset(r as isize * sk + j0 as isize * sn);
                if sn == 1 {
                    dst.copy_from_slice(std::slice::from_raw_parts(row, cols));
                } else {
                    for (j, v) in dst.iter_mut().enumerate() {
                        *v = *row.offset(j as isize * sn);
                    }
                }
            }
        });
        PackedB { data, k, n, nr }
    }

    fn panel(&self, p: usize) -> *const f32 {
        self.data.as_ptr().wrapping_add(p * self.k * self.nr)
    }
}

/// The packed transposed weights of one graph node (by panel width), kept across calls
/// while its weights are the same tensor.
pub(crate) type PackCache = NodeCache<PackedB>;

/// Where B comes from.
#[derive(Copy, Clone)]
pub(crate) enum BSource<'a> {
    /// Row-major `[k, n]` read in place: row stride `ld`, unit column stride.
    Rows {
        ptr: *const f32,
        ld: usize,
    },
    Packed(&'a PackedB),
    /// One chunk of one panel, `[k1 - k0, nr]`, packed by `run`.
    Chunk(*const f32),
}

/// A bias added to every row (one value per column) or to every column (one per row).
#[derive(Copy, Clone)]
pub(crate) enum Bias {
    None,
    PerColumn(*const f32),
    PerRow(*const f32),
}

/// One product `C = A B + bias`, then the epilogue, whose residual is read at flat position
/// `at + i * ldc + j` for `C[i, j]`.
#[derive(Copy, Clone)]
pub(crate) struct Product<'a> {
    pub m: usize,
    pub n: usize,
    pub k: usize,
    pub a: *const f32,
    pub lda: usize,
    pub b: BSource<'a>,
    pub c: *mut f32,
    pub ldc: usize,
    pub bias: Bias,
    pub epi: &'a Epilogue,
    pub at: usize,
}

// SAFETY: a product only names memory its caller keeps alive for the call; tasks write
// disjoint tiles of C.
unsafe impl Send for Product<'_> {}
unsafe impl Sync for Product<'_> {}

/// A tile over steps `k0..k1` of k: `(product, panel, row block, k0, k1)`.
type TileFn = unsafe fn(&Product, usize, usize, usize, usize);

/// A micro-kernel form: `rows` rows of A by `width` vectors of B.
type Form = TileForm<TileFn>;

/// Each instruction set's forms, the one packed B is laid out for first; every form keeps 24
/// (AVX-512) or 12 (AVX2) accumulators.
const AVX512_FORMS: [Form; 3] = [
    TileForm::new(tile_avx512::<8, 3>, Avx512::LANES, 8, 3),
    TileForm::new(tile_avx512::<6, 4>, Avx512::LANES, 6, 4),
    TileForm::new(tile_avx512::<12, 2>, Avx512::LANES, 12, 2),
];
// AVX2's 6 x 2 tile first: with the 4 x 3 tile's 12 accumulators, 3 B vectors and the
// broadcast in all 16 registers, the loop spilled (52 GFLOP/s on a 64-row linear layer on one
// Zen 5 core, 94 with 6 x 2).
const AVX2_FORMS: [Form; 3] = [
    TileForm::new(tile_avx2::<6, 2>, Avx2::LANES, 6, 2),
    TileForm::new(tile_avx2::<4, 3>, Avx2::LANES, 4, 3),
    TileForm::new(tile_avx2::<12, 1>, Avx2::LANES, 12, 1),
];

fn forms(level: Isa) -> &'static [Form] {
    match level {
        Isa::Avx512 => &AVX512_FORMS,
        _ => &AVX2_FORMS,
    }
}

/// The form for `p` and the columns its tiles compute: packed B's form and every column, or
/// for B read in place the form that computes the fewest lanes (`cpu::pick_tile_form`: rows
/// rounded up to its tile, columns to its panel), where the last few columns (at most
/// `DOT_ROWS`) run as dot products instead ([`dot_tail`]) when that costs less than a masked
/// panel: a 7x7 plane is 49 columns, one panel of 48 and one column (a masked 6 x 64 panel
/// computed 64 lanes for them, 1x1 convolutions on 7x7 planes 16-40% slower).
fn plan(level: Isa, p: &Product) -> (Form, usize) {
    let forms = forms(level);
    if matches!(p.b, BSource::Packed(_)) {
        return (forms[0], p.n);
    }
    let rows = |f: &Form| p.m.div_ceil(f.rows) * f.rows;
    let tiled = |f: &Form| {
        let tail = p.n % f.span();
        let dots = tail <= DOT_ROWS && tail < p.n;
        if dots && DOT_TAIL_LANE_COST * p.m * tail < rows(f) * f.span() {
            p.n - tail
        } else {
            p.n
        }
    };
    let cost = |f: &Form| {
        let cols = tiled(f);
        rows(f) * cols.div_ceil(f.span()) * f.span() + DOT_TAIL_LANE_COST * p.m * (p.n - cols)
    };
    let form = cpu::pick_tile_form(forms, cost);
    (form, tiled(&form))
}

/// Asserts that the forms of `level` are the widths `cpu::tile_widths` names.
#[cfg(test)]
pub(crate) fn check_forms(level: Isa) {
    cpu::check_tile_forms(level, forms(level));
}

#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
unsafe fn tile_avx512<const MR: usize, const V: usize>(
    p: &Product,
    panel: usize,
    mb: usize,
    k0: usize,
    k1: usize,
) {
    tile::<Avx512, MR, V>(p, panel, mb, k0, k1)
}

#[target_feature(enable = "avx2,fma")]
unsafe fn tile_avx2<const MR: usize, const V: usize>(
    p: &Product,
    panel: usize,
    mb: usize,
    k0: usize,
    k1: usize,
) {
    tile::<Avx2, MR, V>(p, panel, mb, k0, k1)
}

/// Runs `p` on `level` (at least AVX2), spread over the cores when large.
///
/// # Safety
/// The pointers of `p` address the sizes and strides it gives (a residual the output's flat
/// positions); C does not overlap A, B or the residual; `level` is at most the CPU's.
pub(crate) unsafe fn run(level: Isa, p: &Product) {
    let (form, tiled) = plan(level, p);
    run_form(level, p, form, tiled);
}

/// Rows `r0..r1` of `p` as a product of their own.
fn rows_of<'a>(p: &Product<'a>, r0: usize, r1: usize) -> Product<'a> {
    Product {
        m: r1 - r0,
        a: p.a.wrapping_add(r0 * p.lda),
        c: p.c.wrapping_add(r0 * p.ldc),
        bias: match p.bias {
            Bias::PerRow(b) => Bias::PerRow(b.wrapping_add(r0)),
            other => other,
        },
        at: p.at + r0 * p.ldc,
        ..*p
    }
}

/// Bytes of A one task may cover when the product has a dot-product tail: the tail reads the
/// task's rows of A again, and should find them in L2 (a [2048, 512] weight read twice from
/// memory made ResNet-50's 1x1 convolutions on 7x7 planes a quarter slower).
const TAIL_TASK_A_BYTES: usize = 512 << 10;

/// Lanes a column of B's tail costs per row as a dot product, against one lane of a tile: a
/// dot product loads a vector of A for every multiply-add (from L2 when A is large), where a
/// tile loads one B vector for every `MR` of them.
const DOT_TAIL_LANE_COST: usize = 4;

/// Columns `j0..n` of `p` (B read in place, at most `DOT_ROWS` of them) as dot products of
/// A's rows with those columns, then the bias and the epilogue.
///
/// # Safety
/// As [`run`].
unsafe fn dot_tail(level: Isa, p: &Product, j0: usize) {
    let BSource::Rows { ptr, ld } = p.b else {
        unreachable!("plan leaves a tail for B read in place only")
    };
    let (t, m, k) = (p.n - j0, p.m, p.k);
    DOT_TAIL.with(|cell| {
        let mut bufs = cell.borrow_mut();
        let [cols, sums] = &mut *bufs;
        // The tail's columns as rows of k, and their dot products with A's rows, [t, m].
        let cols = line_aligned(cols, t * k);
        for r in 0..k {
            for j in 0..t {
                cols[j * k + r] = *ptr.add(r * ld + j0 + j);
            }
        }
        let sums = line_aligned(sums, t * m);
        run_dot(
            level,
            t,
            m,
            k,
            cols.as_ptr(),
            k,
            p.a,
            p.lda,
            sums.as_mut_ptr(),
            m,
            None,
            &Epilogue::NONE,
            0,
        );
        for i in 0..m {
            let dst = p.c.add(i * p.ldc + j0);
            for j in 0..t {
                let bias = match p.bias {
                    Bias::None => 0.0,
                    Bias::PerRow(b) => *b.add(i),
                    Bias::PerColumn(b) => *b.add(j0 + j),
                };
                *dst.add(j) = sums[j * m + i] + bias;
            }
        }
        if !p.epi.is_identity() {
            cpu::dispatch(
                level,
                #[inline(always)]
                || {
                    for i in 0..m {
                        let at = i * p.ldc + j0;
                        p.epi.apply(p.c.add(at), p.at + at, t);
                    }
                },
            );
        }
    });
}

thread_local! {
    /// The calling thread's gathered tail columns and their sums (`dot_tail`).
    static DOT_TAIL: std::cell::RefCell<[Vec<f32>; 2]> =
        const { std::cell::RefCell::new([Vec::new(), Vec::new()]) };
}

/// [`run`] on the tiles of `form` for columns `..tiled`, the rest as dot products
/// ([`dot_tail`]) after each task's tiles, on the rows of A those just read.
unsafe fn run_form(level: Isa, whole: &Product, form: Form, tiled: usize) {
    let p = &Product { n: tiled, ..*whole };
    let (tile_fn, mr, nr) = (form.tile, form.rows, form.span());
    if let BSource::Packed(pk) = p.b {
        debug_assert!(pk.nr == nr && pk.k == p.k && pk.n == p.n);
    }
    if p.m == 0 || p.n == 0 {
        return;
    }
    let panels = p.n.div_ceil(nr);
    let mblocks = p.m.div_ceil(mr);
    let threads = crate::parallel::threads();
    let parallel = threads > 1 && p.m * p.n * p.k >= PARALLEL_MACS;
    // A task per panel, each split into row chunks where there are fewer panels than a few
    // per thread: the pool then balances uneven shares (a 14x14 plane is 4 panels and a bit,
    // which split by panels alone left one thread idle for a third of the product).
    let (pchunks, mut mchunks) = if parallel {
        (panels, (4 * threads).div_ceil(panels).min(mblocks))
    } else {
        (1, 1)
    };
    let tail = tiled < whole.n;
    if tail {
        mchunks = mchunks.max((p.m * p.k * 4).div_ceil(TAIL_TASK_A_BYTES).min(mblocks));
    }
    let (per_p, per_m) = (panels.div_ceil(pchunks), mblocks.div_ceil(mchunks));
    let kc = k_chunk(p, nr);
    let task = |t: usize| {
        let (pc, mc) = (t / mchunks, t % mchunks);
        for panel in pc * per_p..((pc + 1) * per_p).min(panels) {
            for k0 in (0..p.k.max(1)).step_by(kc) {
                let k1 = (k0 + kc).min(p.k);
                let row_blocks = |q: &Product| {
                    for mb in mc * per_m..((mc + 1) * per_m).min(mblocks) {
                        tile_fn(q, panel, mb, k0, k1);
                    }
                };
                match p.b {
                    BSource::Rows { ptr, ld } if kc < p.k => CHUNK.with(|buf| {
                        let mut buf = buf.borrow_mut();
                        let j0 = panel * nr;
                        pack_chunk(
                            &mut buf,
                            ptr.add(k0 * ld + j0),
                            ld,
                            k1 - k0,
                            nr.min(p.n - j0),
                            nr,
                        );
                        let q = Product {
                            b: BSource::Chunk(buf.as_ptr()),
                            ..*p
                        };
                        row_blocks(&q)
                    }),
                    _ => row_blocks(p),
                }
            }
        }
        if tail && pc == pchunks - 1 {
            let (r0, r1) = (mc * per_m * mr, ((mc + 1) * per_m * mr).min(p.m));
            if r0 < r1 {
                dot_tail(level, &rows_of(whole, r0, r1), tiled);
            }
        }
    };
    let tasks = pchunks * mchunks;
    if parallel && tasks > 1 {
        crate::parallel::for_each(tasks, task);
    } else {
        (0..tasks).for_each(task);
    }
}

/// Bytes of B's panel one chunk of k may span: B read in place, one cache line a row or less
/// (AVX2's panels), is split into chunks of k that stay in L1 while every row block of A runs
/// over them. Wider panels are not split: AVX-512's 3-line rows stream well from L2, and the
/// short runs of A's rows that chunks read made its large-k products slower.
const B_CHUNK_BYTES: usize = 16 << 10;

/// The steps of k per chunk for `p` at panel width `nr` (all of k where it is not split); the
/// chunks of one product are equal.
fn k_chunk(p: &Product, nr: usize) -> usize {
    let row_bytes = nr * 4;
    if !matches!(p.b, BSource::Rows { .. }) || row_bytes > 64 || p.k * row_bytes <= B_CHUNK_BYTES {
        return p.k.max(1);
    }
    let most = B_CHUNK_BYTES / row_bytes;
    p.k.div_ceil(p.k.div_ceil(most))
}

thread_local! {
    /// Each thread's packed chunk of B.
    static CHUNK: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Copies `k` rows of `cols` floats, `ld` apart from `src` on, into `buf` as rows of `nr`
/// (zeros past `cols`).
///
/// # Safety
/// Those elements are readable.
unsafe fn pack_chunk(
    buf: &mut Vec<f32>,
    src: *const f32,
    ld: usize,
    k: usize,
    cols: usize,
    nr: usize,
) {
    buf.clear();
    buf.resize(k * nr, 0.0);
    for (r, row) in buf.chunks_exact_mut(nr).enumerate() {
        row[..cols].copy_from_slice(std::slice::from_raw_parts(src.add(r * ld), cols));
    }
}

/// One `MR x NR` tile over steps `k0..k1` of k: row block `mb`, column panel `panel`. A chunk
/// after the first continues from the sums the one before stored in C, and only the last adds
/// the bias and runs the epilogue: each element is one sum over k in order however k is split.
#[inline(always)]
unsafe fn tile<S: F32x, const MR: usize, const V: usize>(
    p: &Product,
    panel: usize,
    mb: usize,
    k0: usize,
    k1: usize,
) {
    let nr = V * S::LANES;
    let (i0, j0) = (mb * MR, panel * nr);
    let (rows, cols) = ((p.m - i0).min(MR), (p.n - j0).min(nr));
    // A block with fewer rows repeats its last row (its results are not stored).
    let mut a = [p.a; MR];
    for (r, row) in a.iter_mut().enumerate() {
        *row = p.a.add((i0 + r.min(rows - 1)) * p.lda + k0);
    }
    // Not a closure: one would not take the kernel's target features, and its masked loads
    // would call their intrinsics out of line.
    let onto = if k0 > 0 {
        let mut acc = [[S::zero(); V]; MR];
        for (r, row) in acc.iter_mut().enumerate().take(rows) {
            *row = load_row::<S, V, true>(p.c.add((i0 + r) * p.ldc + j0), cols);
        }
        Some(acc)
    } else {
        None
    };
    let kn = k1 - k0;
    let last = k1 == p.k;
    // Each arm stores its own sums: joined into one value after the match, the 24
    // accumulators went through the stack, and the stores of a short-k product (a 1x1
    // convolution over 16 channels) took more time than its multiply-adds.
    let at = Stored {
        i0,
        j0,
        rows,
        cols,
        last,
    };
    match p.b {
        BSource::Packed(pk) => store_tile::<S, MR, V>(
            p,
            at,
            micro::<S, MR, V, false>(kn, &a, pk.panel(panel).add(k0 * nr), nr, nr, onto),
        ),
        BSource::Chunk(ptr) => {
            store_tile::<S, MR, V>(p, at, micro::<S, MR, V, false>(kn, &a, ptr, nr, nr, onto))
        }
        BSource::Rows { ptr, ld } if cols == nr => store_tile::<S, MR, V>(
            p,
            at,
            micro::<S, MR, V, false>(kn, &a, ptr.add(k0 * ld + j0), ld, nr, onto),
        ),
        BSource::Rows { ptr, ld } => store_tile::<S, MR, V>(
            p,
            at,
            micro::<S, MR, V, true>(kn, &a, ptr.add(k0 * ld + j0), ld, cols, onto),
        ),
    }
}

/// Where a tile's sums go: its first row and column, the rows and columns of it inside C,
/// and whether its chunk of k is the last (which adds the bias and runs the epilogue).
#[derive(Clone, Copy)]
struct Stored {
    i0: usize,
    j0: usize,
    rows: usize,
    cols: usize,
    last: bool,
}

/// Stores the sums `acc` of the tile at `at` into C. A whole tile stores every vector
/// unmasked, its bias read once; a partial one (the last rows or columns) checks each.
#[inline(always)]
unsafe fn store_tile<S: F32x, const MR: usize, const V: usize>(
    p: &Product,
    at: Stored,
    acc: [[S::V; V]; MR],
) {
    let Stored {
        i0,
        j0,
        rows,
        cols,
        last,
    } = at;
    if rows == MR && cols == V * S::LANES {
        let column_bias = match p.bias {
            Bias::PerColumn(b) if last => Some(load_vectors::<S, V>(b.add(j0))),
            _ => None,
        };
        for (r, row) in acc.iter().enumerate() {
            let dst = p.c.add((i0 + r) * p.ldc + j0);
            let row_bias = match p.bias {
                Bias::PerRow(b) if last => S::splat(*b.add(i0 + r)),
                _ => S::zero(),
            };
            for (v, &sum) in row.iter().enumerate() {
                let add = column_bias.map_or(row_bias, |c| c[v]);
                S::store(dst.add(v * S::LANES), S::add(sum, add));
            }
        }
        if last && !p.epi.is_identity() {
            for r in 0..MR {
                let at = (i0 + r) * p.ldc + j0;
                p.epi.apply(p.c.add(at), p.at + at, cols);
            }
        }
        return;
    }
    for (r, row) in acc.iter().enumerate().take(rows) {
        let i = i0 + r;
        let dst = p.c.add(i * p.ldc + j0);
        for (v, &sum) in row.iter().enumerate() {
            let lo = v * S::LANES;
            if lo >= cols {
                break;
            }
            let cnt = (cols - lo).min(S::LANES);
            let add = match p.bias {
                _ if !last => S::zero(),
                Bias::None => S::zero(),
                Bias::PerRow(b) => S::splat(*b.add(i)),
                Bias::PerColumn(b) => S::load_first(b.add(j0 + lo), cnt),
            };
            let out = S::add(sum, add);
            if cnt == S::LANES {
                S::store(dst.add(lo), out);
            } else {
                S::store_mask(dst.add(lo), out, (1u32 << cnt) - 1);
            }
        }
        if last && !p.epi.is_identity() {
            p.epi.apply(dst, p.at + i * p.ldc + j0, cols);
        }
    }
}

/// `onto + sum_t a_r[t] * B[t, 0..NR]` for the `MR` rows `a` (no `onto`: from zero), B's
/// rows `ldb` apart; `MASKED` reads only the first `cols` columns (the last panel of B read in
/// place).
#[inline(always)]
unsafe fn micro<S: F32x, const MR: usize, const V: usize, const MASKED: bool>(
    k: usize,
    a: &[*const f32; MR],
    b: *const f32,
    ldb: usize,
    cols: usize,
    onto: Option<[[S::V; V]; MR]>,
) -> [[S::V; V]; MR] {
    // Each start runs its own loop: joined into one value before a shared loop, the
    // accumulators were written to the stack and read back (a tenth of a 16-step tile).
    match onto {
        Some(acc) => steps::<S, MR, V, MASKED>(acc, 0..k, a, b, ldb, cols),
        None if k == 0 => [[S::zero(); V]; MR],
        None => {
            let w = a.map(|row| *row);
            let acc = first_products::<S, MR, V>(w, load_row::<S, V, MASKED>(b, cols));
            steps::<S, MR, V, MASKED>(acc, 1..k, a, b, ldb, cols)
        }
    }
}

/// `acc + sum_t a_r[t] * B[t, 0..NR]` over the steps `ts` (see [`micro`]).
#[inline(always)]
unsafe fn steps<S: F32x, const MR: usize, const V: usize, const MASKED: bool>(
    mut acc: [[S::V; V]; MR],
    ts: std::ops::Range<usize>,
    a: &[*const f32; MR],
    b: *const f32,
    ldb: usize,
    cols: usize,
) -> [[S::V; V]; MR] {
    for t in ts {
        let vb = load_row::<S, V, MASKED>(b.add(t * ldb), cols);
        for r in 0..MR {
            let w = S::splat(*a[r].add(t));
            for v in 0..V {
                acc[r][v] = S::fma(w, vb[v], acc[r][v]);
            }
        }
    }
    acc
}

/// The `V` vectors of a row at `bp` (`MASKED`: its first `cols` columns, zeros after).
#[inline(always)]
unsafe fn load_row<S: F32x, const V: usize, const MASKED: bool>(
    bp: *const f32,
    cols: usize,
) -> [S::V; V] {
    if !MASKED {
        return load_vectors::<S, V>(bp);
    }
    let mut vb = [S::zero(); V];
    for (v, x) in vb.iter_mut().enumerate() {
        let count = cols.saturating_sub(v * S::LANES).min(S::LANES);
        if count > 0 {
            *x = S::load_first(bp.add(v * S::LANES), count);
        }
    }
    vb
}

/// Weight rows per dot-product block.
const DOT_NB: usize = 4;

/// `C[i, j] = sum_t A[i, t] W[j, t] + bias[j]`, then the epilogue, for `m <= DOT_ROWS` rows:
/// dot products of each input row with four weight rows at a time, along k in vectors.
///
/// # Safety
/// As [`run`], with `w` addressing `n` rows of `k` floats, `ldw` apart; `bias` (if any) `n`
/// floats.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn run_dot(
    level: Isa,
    m: usize,
    n: usize,
    k: usize,
    a: *const f32,
    lda: usize,
    w: *const f32,
    ldw: usize,
    c: *mut f32,
    ldc: usize,
    bias: Option<*const f32>,
    epi: &Epilogue,
    at: usize,
) {
    debug_assert!((1..=DOT_ROWS).contains(&m));
    let dot = Dot {
        m,
        n,
        k,
        a,
        lda,
        w,
        ldw,
        c,
        ldc,
        bias,
    };
    let f: unsafe fn(&Dot, usize, usize) = match level {
        Isa::Avx512 => dot_avx512,
        _ => dot_avx2,
    };
    let blocks = n.div_ceil(DOT_NB);
    let threads = crate::parallel::threads();
    if threads > 1 && m * n * k >= PARALLEL_MACS && blocks > 1 {
        let per = blocks.div_ceil(threads);
        crate::parallel::for_each(blocks.div_ceil(per), |t| {
            f(&dot, t * per, ((t + 1) * per).min(blocks))
        });
    } else {
        f(&dot, 0, blocks);
    }
    // The epilogue over the finished rows (a few hundred floats).
    if !epi.is_identity() {
        cpu::dispatch(
            level,
            #[inline(always)]
            || {
                for i in 0..m {
                    epi.apply(c.add(i * ldc), at + i * ldc, n);
                }
            },
        );
    }
}

struct Dot {
    m: usize,
    n: usize,
    k: usize,
    a: *const f32,
    lda: usize,
    w: *const f32,
    ldw: usize,
    c: *mut f32,
    ldc: usize,
    bias: Option<*const f32>,
}

// SAFETY: as `Product`.
unsafe impl Sync for Dot {}

#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
unsafe fn dot_avx512(d: &Dot, b0: usize, b1: usize) {
    dot_blocks::<Avx512>(d, b0, b1)
}

#[target_feature(enable = "avx2,fma")]
unsafe fn dot_avx2(d: &Dot, b0: usize, b1: usize) {
    dot_blocks::<Avx2>(d, b0, b1)
}

/// Weight-row blocks `[b0, b1)` of a dot product.
#[inline(always)]
unsafe fn dot_blocks<S: F32x>(d: &Dot, b0: usize, b1: usize) {
    match d.m {
        1 => dot_rows::<S, 1>(d, b0, b1),
        2 => dot_rows::<S, 2>(d, b0, b1),
        3 => dot_rows::<S, 3>(d, b0, b1),
        _ => dot_rows::<S, 4>(d, b0, b1),
    }
}

#[inline(always)]
unsafe fn dot_rows<S: F32x, const M: usize>(d: &Dot, b0: usize, b1: usize) {
    let lanes = S::LANES;
    for blk in b0..b1 {
        let j0 = blk * DOT_NB;
        let cols = (d.n - j0).min(DOT_NB);
        let mut w = [d.w; DOT_NB];
        for (j, row) in w.iter_mut().enumerate() {
            *row = d.w.add((j0 + j.min(cols - 1)) * d.ldw);
        }
        let mut acc = [[S::zero(); DOT_NB]; M];
        let mut t = 0;
        while t < d.k {
            let cnt = (d.k - t).min(lanes);
            let mut xs = [S::zero(); M];
            for (i, x) in xs.iter_mut().enumerate() {
                let p = d.a.add(i * d.lda + t);
                *x = if cnt == lanes {
                    S::load(p)
                } else {
                    S::load_first(p, cnt)
                };
            }
            for j in 0..DOT_NB {
                let p = w[j].add(t);
                let wv = if cnt == lanes {
                    S::load(p)
                } else {
                    S::load_first(p, cnt)
                };
                for i in 0..M {
                    acc[i][j] = S::fma(xs[i], wv, acc[i][j]);
                }
            }
            t += cnt;
        }
        for (i, row) in acc.iter().enumerate() {
            for (j, &v) in row.iter().enumerate().take(cols) {
                let b = d.bias.map_or(0.0, |b| *b.add(j0 + j));
                *d.c.add(i * d.ldc + j0 + j) = S::sum(v) + b;
            }
        }
    }
}

/// Packs `w^T` for a weight `w` of `[n, k]` (any strides).
pub(crate) fn pack_transposed(w: &Tensor, nr: usize) -> PackedB {
    let (sz, st) = (w.sizes(), w.strides());
    // SAFETY: the tensor's elements at its own strides; B[t][j] = w[j][t].
    unsafe {
        PackedB::pack(
            sz[1] as usize,
            sz[0] as usize,
            nr,
            w.data_ptr() as *const f32,
            st[1] as isize,
            st[0] as isize,
        )
    }
}

/// `input @ weight.T + bias`, then `epi` (residual at the output's flat positions), for
/// float32 operands on AVX2 or AVX-512: dot products for up to [`DOT_ROWS`] rows, else the
/// micro-kernels over the packed transposed weights (from `cache` when given). `None` where
/// the general path must run: other dtypes or machines, a 1-d weight, shapes it reports.
pub(crate) fn linear_f32(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    epi: &Epilogue,
    cache: Option<&PackCache>,
) -> TensorResult<Option<Tensor>> {
    let level = cpu::isa();
    let f32s = input.dtype() == DType::F32 && weight.dtype() == DType::F32;
    if !available(level) || !f32s || weight.dim() != 2 || input.dim() == 0 {
        return Ok(None);
    }
    let (n, k) = (weight.sizes()[0], weight.sizes()[1]);
    if let Some(b) = bias {
        if b.dtype() != DType::F32 || b.sizes().as_slice() != [n] {
            return Ok(None);
        }
    }
    let is = input.sizes();
    if is[is.len() - 1] != k {
        return Ok(None);
    }
    let rows: i64 = is[..is.len() - 1].iter().product();
    let mut x = input.reshape(&[rows, k])?;
    if x.strides()[1] != 1 || x.strides()[0] < 0 {
        x = x.contiguous()?;
    }
    let mut shape = is[..is.len() - 1].to_vec();
    shape.push(n);
    let out = crate::ops::pointwise::output_for_overwrite(&shape, DType::F32)?;
    let b = bias.map(|b| b.contiguous()).transpose()?;
    let (m, n, k) = (rows as usize, n as usize, k as usize);
    let (a, lda) = (x.data_ptr() as *const f32, x.strides()[0] as usize);
    let c = out.data_ptr() as *mut f32;
    // Large weights packed on every call (not a graph constant) cost a pass over the weights
    // that a few rows do not win back: up to UNPACKED_DOT_ROWS rows run as dot products too, a
    // block of DOT_ROWS rows per pass over the weights.
    let dot_rows = if cache.is_none() && k * n >= UNPACKED_DOT_MIN_WEIGHTS {
        UNPACKED_DOT_ROWS
    } else {
        DOT_ROWS
    };
    if m <= dot_rows && m > 0 {
        let w = if weight.strides()[1] == 1 && weight.strides()[0] >= 0 {
            weight.clone()
        } else {
            weight.contiguous()?
        };
        for r0 in (0..m).step_by(DOT_ROWS) {
            // SAFETY: `x` is [m, k] with unit stride along k, `w` [n, k] likewise, `out` our
            // fresh [m, n]; rows r0.. of each; the residual (the epilogue's contract) has
            // m * n floats, these rows' from flat position r0 * n.
            unsafe {
                run_dot(
                    level,
                    DOT_ROWS.min(m - r0),
                    n,
                    k,
                    a.add(r0 * lda),
                    lda,
                    w.data_ptr() as *const f32,
                    w.strides()[0] as usize,
                    c.add(r0 * n),
                    n,
                    b.as_ref().map(|b| b.data_ptr() as *const f32),
                    epi,
                    r0 * n,
                )
            };
        }
        return Ok(Some(out));
    }
    let nr = panel_width(level);
    let packed = match cache {
        Some(cache) => cache.get(weight, nr, || pack_transposed(weight, nr)),
        None => Arc::new(pack_transposed(weight, nr)),
    };
    let p = Product {
        m,
        n,
        k,
        a,
        lda,
        b: BSource::Packed(&packed),
        c,
        ldc: n,
        bias: b
            .as_ref()
            .map_or(Bias::None, |b| Bias::PerColumn(b.data_ptr() as *const f32)),
        epi,
        at: 0,
    };
    // SAFETY: as above; `packed` holds the transposed weights at this level's panel width.
    unsafe { run(level, &p) };
    Ok(Some(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::nn::epilogue::Activation;

    fn seq(n: usize, salt: usize) -> Vec<f32> {
        (0..n)
            .map(|i| (((i * 7919 + salt * 104_729) % 1009) as f32) / 500.0 - 1.0)
            .collect()
    }

    /// Linear layers of every row count around the dot-product limits and the tile sizes,
    /// partial panels, strided inputs, with and without bias, residual and activation, at
    /// each vector width, against f64 sums.
    #[test]
    fn linear_matches_f64_at_every_width() {
        for &(m, k, n) in &[
            (1, 5, 3),
            (1, 784, 50),
            (3, 33, 49),
            (4, 64, 17),
            (5, 16, 24),
            (9, 40, 100),
            (64, 70, 97),
            (100, 24, 33),
            (40, 300, 256),
            (13, 0, 7),
        ] {
            let x = Tensor::from_vec(seq(m * k, 1), &[m as i64, k as i64]).unwrap();
            let w = Tensor::from_vec(seq(n * k, 2), &[n as i64, k as i64]).unwrap();
            let b = Tensor::from_vec(seq(n, 3), &[n as i64]).unwrap();
            let r = Tensor::from_vec(seq(m * n, 4), &[m as i64, n as i64]).unwrap();
            let (xv, wv, bv, rv) = (
                x.to_vec::<f32>(),
                w.to_vec::<f32>(),
                b.to_vec::<f32>(),
                r.to_vec::<f32>(),
            );
            for level in cpu::available_levels()
                .into_iter()
                .filter(|&l| available(l))
            {
                // Packed once (a constant's cache) or on every call (then up to
                // UNPACKED_DOT_ROWS rows run as dot products).
                for (with_bias, act, cached) in [
                    (false, Activation::None, true),
                    (true, Activation::Relu, true),
                    (true, Activation::Relu, false),
                ] {
                    let epi = Epilogue {
                        residual: with_bias.then_some(r.data_ptr() as usize),
                        act,
                    };
                    let cache = PackCache::default();
                    let got = cpu::with_isa(level, || {
                        let cache = cached.then_some(&cache);
                        linear_f32(&x, &w, with_bias.then_some(&b), &epi, cache)
                            .unwrap()
                            .unwrap()
                    });
                    assert_eq!(got.sizes().as_slice(), &[m as i64, n as i64]);
                    let got = got.to_vec::<f32>();
                    for i in 0..m {
                        for j in 0..n {
                            let mut s: f64 = (0..k)
                                .map(|t| xv[i * k + t] as f64 * wv[j * k + t] as f64)
                                .sum();
                            if with_bias {
                                s += bv[j] as f64 + rv[i * n + j] as f64;
                            }
                            let want = act.eval(s as f32) as f64;
                            let g = got[i * n + j] as f64;
                            assert!(
                                (g - want).abs() <= 1e-5 * (k as f64).sqrt() * want.abs().max(1.0),
                                "{level:?} {m}x{k}x{n} [{i},{j}]: {g} vs {want}"
                            );
                        }
                    }
                }
            }
        }
        // A transposed (strided) input and a non-contiguous weight.
        let x = Tensor::from_vec(seq(6 * 40, 5), &[40, 6])
            .unwrap()
            .t()
            .unwrap();
        let w = Tensor::from_vec(seq(40 * 30, 6), &[40, 30])
            .unwrap()
            .t()
            .unwrap();
        let want = crate::ops::linalg::products::mm(&x, &w.t().unwrap())
            .unwrap()
            .to_vec::<f32>();
        for level in cpu::available_levels()
            .into_iter()
            .filter(|&l| available(l))
        {
            let got = cpu::with_isa(level, || {
                linear_f32(&x, &w, None, &Epilogue::NONE, None)
                    .unwrap()
                    .unwrap()
            });
            for (g, w) in got.to_vec::<f32>().iter().zip(&want) {
                assert!(
                    (g - w).abs() <= 1e-4 * w.abs().max(1.0),
                    "{level:?}: {g} vs {w}"
                );
            }
        }
    }
}
