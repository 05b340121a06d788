//! float32 vectors for the hand-written micro-kernels (convolution, GEMM): one trait, two
//! widths (AVX2's 8 lanes, AVX-512's 16), so a kernel is written once and compiled for each.
//!
//! The methods are `#[inline(always)]` wrappers of the intrinsics: they inline into a caller
//! compiled with the matching `#[target_feature]` (see [`super::cpu::dispatch`]), and only
//! there may they be called.

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Floats in a 64-byte cache line: one AVX-512 vector, two AVX2 ones.
const LINE_FLOATS: usize = 16;

/// `len` floats of the scratch buffer `buf` from a 64-byte boundary, growing it as needed
/// (they hold whatever was there). A `Vec<f32>` is only 16-byte aligned: a kernel loading
/// whole vectors from it split a cache line on nearly every AVX-512 load and on every other
/// AVX2 one (depthwise_lanes.rs ran 20-30% slower for it).
pub(crate) fn line_aligned(buf: &mut Vec<f32>, len: usize) -> &mut [f32] {
    if buf.len() < len + LINE_FLOATS {
        buf.resize(len + LINE_FLOATS, 0.0);
    }
    let skip = buf.as_ptr().align_offset(64).min(LINE_FLOATS);
    &mut buf[skip..skip + len]
}

/// The `V` vectors from `p` on.
///
/// # Safety
/// As [`F32x::load`], for `V * S::LANES` floats.
#[inline(always)]
pub(crate) unsafe fn load_vectors<S: F32x, const V: usize>(p: *const f32) -> [S::V; V] {
    let mut out = std::mem::MaybeUninit::<[S::V; V]>::uninit();
    let slots = out.as_mut_ptr() as *mut S::V;
    for v in 0..V {
        slots.add(v).write(S::load(p.add(v * S::LANES)));
    }
    out.assume_init()
}

/// A micro-kernel's accumulators after its first step: `w[r] * b[v]`, each an FMA onto zero
/// as every later step is one onto the sum. Built in place rather than from a zeroed array
/// (which LLVM kept on the stack, cleared by a memset call per AVX-512 tile) or with
/// `array::from_fn` (whose closures do not take the kernel's target features, so the
/// intrinsics in them were called out of line).
///
/// # Safety
/// As [`F32x::fma`].
#[inline(always)]
pub(crate) unsafe fn first_products<S: F32x, const R: usize, const V: usize>(
    w: [f32; R],
    b: [S::V; V],
) -> [[S::V; V]; R] {
    let mut acc = std::mem::MaybeUninit::<[[S::V; V]; R]>::uninit();
    let slots = acc.as_mut_ptr() as *mut S::V;
    for (r, &x) in w.iter().enumerate() {
        let wr = S::splat(x);
        for (v, &bv) in b.iter().enumerate() {
            slots.add(r * V + v).write(S::fma(wr, bv, S::zero()));
        }
    }
    // SAFETY: every one of the R * V vectors was written above.
    acc.assume_init()
}

/// A float32 vector type and its operations.
///
/// # Safety
/// Every method needs the CPU features of its implementation and valid pointers.
pub(crate) trait F32x: Copy {
    type V: Copy;
    const LANES: usize;
    unsafe fn zero() -> Self::V;
    unsafe fn splat(x: f32) -> Self::V;
    unsafe fn load(p: *const f32) -> Self::V;
    unsafe fn store(p: *mut f32, v: Self::V);
    /// `a * b + c`, one rounding.
    unsafe fn fma(a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V;
    /// The first `n <= LANES` lanes from `p` (the rest zero; nothing else is read).
    unsafe fn load_first(p: *const f32, n: usize) -> Self::V;
    /// Stores the lanes of `mask` (bit i: lane i) to `p + i`; nothing else is written.
    unsafe fn store_mask(p: *mut f32, v: Self::V, mask: u32);
    /// The sum of the lanes.
    unsafe fn sum(v: Self::V) -> f32;
}

/// AVX2 with FMA: 8 lanes.
#[cfg(target_arch = "x86_64")]
#[derive(Copy, Clone)]
pub(crate) struct Avx2;

#[cfg(target_arch = "x86_64")]
impl Avx2 {
    /// The lane mask of `mask`'s bits as AVX2's maskstore/maskload want it.
    #[inline(always)]
    unsafe fn lanes(mask: u32) -> __m256i {
        let bits = _mm256_set1_epi32(mask as i32);
        let sel = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
        _mm256_cmpeq_epi32(_mm256_and_si256(bits, sel), sel)
    }
}

#[cfg(target_arch = "x86_64")]
impl F32x for Avx2 {
    type V = __m256;
    const LANES: usize = 8;
    #[inline(always)]
    unsafe fn zero() -> __m256 {
        _mm256_setzero_ps()
    }
    #[inline(always)]
    unsafe fn splat(x: f32) -> __m256 {
        _mm256_set1_ps(x)
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> __m256 {
        _mm256_loadu_ps(p)
    }
    #[inline(always)]
    unsafe fn store(p: *mut f32, v: __m256) {
        _mm256_storeu_ps(p, v)
    }
    #[inline(always)]
    unsafe fn fma(a: __m256, b: __m256, c: __m256) -> __m256 {
        _mm256_fmadd_ps(a, b, c)
    }
    #[inline(always)]
    unsafe fn add(a: __m256, b: __m256) -> __m256 {
        _mm256_add_ps(a, b)
    }
    #[inline(always)]
    unsafe fn load_first(p: *const f32, n: usize) -> __m256 {
        _mm256_maskload_ps(p, Self::lanes(((1u64 << n) - 1) as u32))
    }
    #[inline(always)]
    unsafe fn store_mask(p: *mut f32, v: __m256, mask: u32) {
        _mm256_maskstore_ps(p, Self::lanes(mask), v)
    }
    #[inline(always)]
    unsafe fn sum(v: __m256) -> f32 {
        let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        _mm_cvtss_f32(_mm_add_ss(s, _mm_shuffle_ps(s, s, 1)))
    }
}

/// AVX-512F: 16 lanes.
#[cfg(target_arch = "x86_64")]
#[derive(Copy, Clone)]
pub(crate) struct Avx512;

#[cfg(target_arch = "x86_64")]
impl F32x for Avx512 {
    type V = __m512;
    const LANES: usize = 16;
    #[inline(always)]
    unsafe fn zero() -> __m512 {
        _mm512_setzero_ps()
    }
    #[inline(always)]
    unsafe fn splat(x: f32) -> __m512 {
        _mm512_set1_ps(x)
    }
    #[inline(always)]
    unsafe fn load(p: *const f32) -> __m512 {
        _mm512_loadu_ps(p)
    }
    #[inline(always)]
    unsafe fn store(p: *mut f32, v: __m512) {
        _mm512_storeu_ps(p, v)
    }
    #[inline(always)]
    unsafe fn fma(a: __m512, b: __m512, c: __m512) -> __m512 {
        _mm512_fmadd_ps(a, b, c)
    }
    #[inline(always)]
    unsafe fn add(a: __m512, b: __m512) -> __m512 {
        _mm512_add_ps(a, b)
    }
    #[inline(always)]
    unsafe fn load_first(p: *const f32, n: usize) -> __m512 {
        _mm512_maskz_loadu_ps(((1u32 << n) - 1) as u16, p)
    }
    #[inline(always)]
    unsafe fn store_mask(p: *mut f32, v: __m512, mask: u32) {
        _mm512_mask_storeu_ps(p, mask as u16, v)
    }
    #[inline(always)]
    unsafe fn sum(v: __m512) -> f32 {
        _mm512_reduce_add_ps(v)
    }
}
