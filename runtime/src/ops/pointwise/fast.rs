//! Typed fast paths for contiguous operands: float32 loops for add, sub, mul, div (AVX2
//! copies when the CPU has it), relu, exp, tanh, sigmoid, silu and gelu (AVX-512 or AVX2), and a one-pass
//! path for any other float32/float64 computation of the engine ([`general`]). Outputs are
//! written without a zeroing pass, and both cores work (rayon) above [`PARALLEL_THRESHOLD`]
//! elements ([`HEAVY_PARALLEL_THRESHOLD`] for compute-bound kernels).
//!
//! `+ - * /` and relu are exact; exp, tanh and erf are branch-free float32 polynomials
//! (about 1 ulp; erf within 5e-7 absolute, the formula PyTorch's vectorized erf uses), well
//! inside the suite's float32 tolerance.

use rayon::prelude::*;

use crate::tensor::elementwise::{Arg, Compute};
use crate::tensor::{contiguous_strides, DType, Device, Meta, Storage, Tensor};

/// A contiguous tensor whose elements the caller writes before anything reads them.
pub(crate) fn for_overwrite(sizes: &[i64], dtype: DType) -> Option<Tensor> {
    let n = crate::tensor::checked_numel(sizes).ok()?;
    let storage = Storage::for_overwrite(n.checked_mul(dtype.size())?).ok()?;
    Tensor::from_meta(Meta {
        storage,
        dtype,
        device: Device::Cpu,
        sizes: sizes.into(),
        strides: contiguous_strides(sizes),
        offset: 0,
        requires_grad: false,
    })
    .ok()
}

/// Below this many elements a memory-bound kernel (add, mul, relu, ...) stays on the calling
/// thread: handing work to the pool costs more than the loop below it.
pub const PARALLEL_THRESHOLD: usize = 1 << 18;

/// The same for kernels that spend several nanoseconds per element (exp, tanh, gelu, the
/// general path).
pub const HEAVY_PARALLEL_THRESHOLD: usize = 1 << 15;

/// Elements per parallel task.
const CHUNK: usize = 1 << 13;

#[derive(Copy, Clone, Debug)]
pub(crate) enum Unary {
    Relu,
    Exp,
    Tanh,
    Sigmoid,
    Silu,
    /// gelu with `approximate="none"` (erf).
    Gelu,
    /// gelu with `approximate="tanh"`.
    GeluTanh,
}

impl Unary {
    pub fn of(name: &str) -> Option<Unary> {
        Some(match name {
            "relu" => Unary::Relu,
            "exp" => Unary::Exp,
            "tanh" => Unary::Tanh,
            "sigmoid" => Unary::Sigmoid,
            "silu" => Unary::Silu,
            _ => return None,
        })
    }
}

#[derive(Copy, Clone, Debug)]
pub(crate) enum Binary {
    /// `a + alpha * b`
    Add(f32),
    /// `a - alpha * b`
    Sub(f32),
    Mul,
    Div,
}

/// The address of a contiguous float32 tensor's elements. Inputs are read through raw
/// pointers, never slices, because the destination may be the same memory.
fn f32_ptr(t: &Tensor) -> Option<usize> {
    if t.dtype() != DType::F32 || !t.is_contiguous() {
        return None;
    }
    Some(t.data_ptr() as usize)
}

/// A fresh or given float32 destination of `n` elements, contiguous; `None` when `dst` is
/// not usable or overlaps the inputs in any way other than being one of them exactly.
fn destination(dst: Option<&Tensor>, sizes: &[i64], inputs: &[&Tensor]) -> Option<Tensor> {
    match dst {
        None => for_overwrite(sizes, DType::F32),
        Some(d) => {
            if d.dtype() != DType::F32 || !d.is_contiguous() || d.sizes().as_slice() != sizes {
                return None;
            }
            for x in inputs {
                if d.shares_storage(x) && d.data_ptr() != x.data_ptr() {
                    return None;
                }
            }
            Some(d.clone())
        }
    }
}

/// Runs `body(start, end)` over `0..n`: in chunks on rayon's pool when `n` is large
/// (`heavy`: the per-element work is expensive, so parallelism pays off sooner).
fn split(n: usize, heavy: bool, body: impl Fn(usize, usize) + Sync) {
    let threshold = if heavy {
        HEAVY_PARALLEL_THRESHOLD
    } else {
        PARALLEL_THRESHOLD
    };
    if n >= threshold {
        (0..n.div_ceil(CHUNK))
            .into_par_iter()
            .for_each(|c| simd(|| body(c * CHUNK, ((c + 1) * CHUNK).min(n))));
    } else {
        simd(|| body(0, n));
    }
}

/// Runs `body` compiled for AVX2 when the CPU has it: the crate is built for baseline
/// x86-64, whose 4-wide SSE2 leaves half of a modern core unused. The loops inline into
/// the AVX2 copy; floating results are the same (no contraction into FMA).
#[inline(always)]
fn simd(body: impl FnOnce()) {
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(body: impl FnOnce()) {
            body()
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            unsafe { avx2(body) };
            return;
        }
    }
    body()
}

/// `out[i] = f(x[i])` over `n` elements at the given addresses; `f` is a `#[inline(always)]`
/// function so that it inlines into the vector copies of [`map_range`].
fn unary_loop(out: usize, x: usize, n: usize, heavy: bool, f: impl Fn(f32) -> f32 + Copy + Sync) {
    split(n, heavy, |start, end| {
        // SAFETY: both address n live f32s; each index is read before it is written.
        unsafe { map_range(out as *mut f32, x as *const f32, start, end, f) }
    });
}

/// `out[i] = f(x[i])` for `i` in `start..end`, compiled for AVX-512 or AVX2 when the CPU has
/// them (the crate is built for baseline x86-64's 4-wide SSE2). The loop lives inside each
/// copy, so `f`'s polynomial vectorizes at the copy's width; results are the same in every
/// copy (no contraction into FMA).
///
/// # Safety
/// `o` and `x` address at least `end` live f32s; `o` is `x` or does not overlap it.
#[inline(always)]
unsafe fn map_range<F: Fn(f32) -> f32 + Copy>(
    o: *mut f32,
    x: *const f32,
    start: usize,
    end: usize,
    f: F,
) {
    #[inline(always)]
    unsafe fn body<F: Fn(f32) -> f32>(o: *mut f32, x: *const f32, s: usize, e: usize, f: F) {
        for i in s..e {
            *o.add(i) = f(*x.add(i));
        }
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx512f")]
        unsafe fn avx512<F: Fn(f32) -> f32>(o: *mut f32, x: *const f32, s: usize, e: usize, f: F) {
            body(o, x, s, e, f)
        }
        #[target_feature(enable = "avx2")]
        unsafe fn avx2<F: Fn(f32) -> f32>(o: *mut f32, x: *const f32, s: usize, e: usize, f: F) {
            body(o, x, s, e, f)
        }
        if crate::ops::has_avx512() {
            return avx512(o, x, start, end, f);
        }
        if std::is_x86_feature_detected!("avx2") {
            return avx2(o, x, start, end, f);
        }
    }
    body(o, x, start, end, f)
}

/// `out[i] = f(a[i], b[i])` with either side possibly a single value.
fn binary_loop(out: usize, a: Side, b: Side, n: usize, f: impl Fn(f32, f32) -> f32 + Sync) {
    split(n, false, |start, end| {
        let o = out as *mut f32;
        // SAFETY (all arms): the addresses hold n live f32s; each index is read before it
        // is written, so an input that is the output itself is still correct.
        match (&a, &b) {
            (Side::Full(pa), Side::Full(pb)) => {
                let (pa, pb) = (*pa as *const f32, *pb as *const f32);
                for i in start..end {
                    unsafe { *o.add(i) = f(*pa.add(i), *pb.add(i)) };
                }
            }
            (Side::Full(pa), Side::One(vb)) => {
                let pa = *pa as *const f32;
                for i in start..end {
                    unsafe { *o.add(i) = f(*pa.add(i), *vb) };
                }
            }
            (Side::One(va), Side::Full(pb)) => {
                let pb = *pb as *const f32;
                for i in start..end {
                    unsafe { *o.add(i) = f(*va, *pb.add(i)) };
                }
            }
            (Side::One(va), Side::One(vb)) => {
                for i in start..end {
                    unsafe { *o.add(i) = f(*va, *vb) };
                }
            }
        }
    });
}

/// `op(x)` when `x` is a contiguous float32 tensor; `None` leaves it to the engine.
pub(crate) fn unary(op: Unary, x: &Arg, dst: Option<&Tensor>) -> Option<Tensor> {
    let Arg::Tensor(x) = x else { return None };
    let xs = f32_ptr(x)?;
    let out = destination(dst, &x.sizes(), &[x])?;
    let (o, n) = (out.data_ptr() as usize, out.numel());
    match op {
        Unary::Relu => unary_loop(o, xs, n, false, relu),
        Unary::Exp => unary_loop(o, xs, n, true, exp),
        Unary::Tanh => unary_loop(o, xs, n, true, tanh),
        Unary::Sigmoid => unary_loop(o, xs, n, true, sigmoid),
        Unary::Silu => unary_loop(o, xs, n, true, silu),
        Unary::Gelu => unary_loop(o, xs, n, true, gelu),
        Unary::GeluTanh => unary_loop(o, xs, n, true, gelu_tanh),
    }
    Some(out)
}

/// NaN stays NaN, as PyTorch's relu (clamp_min) keeps it.
#[inline(always)]
fn relu(v: f32) -> f32 {
    if v < 0.0 {
        0.0
    } else {
        v
    }
}

#[inline(always)]
fn sigmoid(v: f32) -> f32 {
    1.0 / (1.0 + exp(-v))
}

#[inline(always)]
fn silu(v: f32) -> f32 {
    v / (1.0 + exp(-v))
}

#[inline(always)]
fn gelu(v: f32) -> f32 {
    0.5 * v * (1.0 + erf(v * std::f32::consts::FRAC_1_SQRT_2))
}

#[inline(always)]
fn gelu_tanh(v: f32) -> f32 {
    const K: f32 = 0.797_884_6; // sqrt(2 / pi)
    0.5 * v * (1.0 + tanh(K * (v + 0.044715 * v * v * v)))
}

/// `e^x` in float32, branch-free so loops over it vectorize (Cephes' `expf`: a degree-6
/// polynomial after reducing by multiples of ln 2; about 1 ulp). Results below the normal
/// range and overflow to infinity come out right because 2^n is applied in two halves.
#[inline(always)]
fn exp(x: f32) -> f32 {
    let (y, n) = exp_reduced(x.clamp(-104.0, 89.0));
    // 2^n = 2^h * 2^(n-h), each factor a normal float for n in [-150, 129].
    let h = n >> 1;
    let pow2 = |k: i32| f32::from_bits(((k + 127) as u32) << 23);
    y * pow2(h) * pow2(n - h)
}

/// `e^x` for `x <= 0` (or NaN) as [`exp`] computes it where the result is a normal float,
/// 0 below that (one scale by 2^n instead of two: erf adds it to 1, where no subnormal
/// shows).
#[inline(always)]
fn exp_nonpositive(x: f32) -> f32 {
    let (y, n) = exp_reduced(x);
    // n >= -126 wherever x >= -87; below, the select gives 0 (the bits may be garbage).
    let pow2 = f32::from_bits((n.wrapping_add(127) as u32) << 23);
    if x < -87.0 {
        0.0
    } else {
        y * pow2
    }
}

/// Cephes' reduction of `e^x`: `(e^r, n)` with `x = n ln 2 + r`, `|r| <= ln 2 / 2`.
#[inline(always)]
fn exp_reduced(x: f32) -> (f32, i32) {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Rounding by adding 1.5 * 2^23 keeps to SSE2 (no `roundps`), so the loop vectorizes.
    const MAGIC: f32 = 12_582_912.0;
    let t = x * LOG2E + MAGIC;
    let n = t - MAGIC;
    let r = x - n * LN2_HI - n * LN2_LO;
    let mut p = 1.987_569_1e-4f32;
    p = p * r + 1.398_2e-3;
    p = p * r + 8.333_452e-3;
    p = p * r + 4.166_579_6e-2;
    p = p * r + 1.666_666_5e-1;
    p = p * r + 0.5;
    let y = p * r * r + r + 1.0;
    // The integer n sits in the low mantissa bits of t.
    (y, (t.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32))
}

/// `erf` in float32, branch-free: Abramowitz and Stegun 7.1.26 (absolute error below
/// 1.5e-7, under 5e-7 after float32 rounding), the formula PyTorch's own vectorized CPU
/// `erf` uses.
#[inline(always)]
fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let mut r = 1.061_405_4f32;
    r = r * t - 1.453_152;
    r = r * t + 1.421_413_8;
    r = r * t - 0.284_496_74;
    r = r * t + 0.254_829_6;
    let y = 1.0 - r * t * exp_nonpositive(-a * a);
    y.copysign(x)
}

/// `tanh` in float32, branch-free: Cephes' odd polynomial near 0 (where `1 - 2/(e^2x+1)`
/// would cancel) and the exponential form elsewhere.
#[inline(always)]
fn tanh(x: f32) -> f32 {
    let a = x.abs();
    let e = exp(2.0 * a);
    let big = (1.0 - 2.0 / (e + 1.0)).copysign(x);
    let z = x * x;
    let mut p = -5.704_988_7e-3f32;
    p = p * z + 2.063_909e-2;
    p = p * z - 5.373_971_6e-2;
    p = p * z + 1.333_144_2e-1;
    p = p * z - 3.333_328e-1;
    let small = (p * z * x + x).copysign(x);
    if a >= 0.625 {
        big
    } else {
        small
    }
}

/// One side of a binary op: a whole contiguous tensor (its address) or one value.
enum Side {
    Full(usize),
    One(f32),
}

fn side(a: &Arg, sizes: &[i64]) -> Option<Side> {
    Some(match a {
        Arg::Tensor(t) if t.dim() == 0 && t.dtype() == DType::F32 => {
            Side::One(t.item_f64().ok()? as f32)
        }
        Arg::Tensor(t) if t.sizes().as_slice() == sizes => Side::Full(f32_ptr(t)?),
        Arg::Tensor(_) => return None,
        Arg::Float(v) => Side::One(*v as f32),
        Arg::Int(v) => Side::One(*v as f32),
        Arg::Bool(v) => Side::One(*v as u8 as f32),
    })
}

/// `op(a, b)` when the result is float32 and each side is a contiguous float32 tensor of
/// the result's shape or a single value; `None` leaves it to the engine.
pub(crate) fn binary(op: Binary, a: &Arg, b: &Arg, dst: Option<&Tensor>) -> Option<Tensor> {
    let sizes = match (a, b) {
        (Arg::Tensor(x), _) if x.dim() > 0 => x.sizes(),
        (_, Arg::Tensor(y)) if y.dim() > 0 => y.sizes(),
        _ => return None,
    };
    let sa = side(a, &sizes)?;
    let sb = side(b, &sizes)?;
    let tensors: Vec<&Tensor> = [a, b]
        .into_iter()
        .filter_map(|x| match x {
            Arg::Tensor(t) => Some(t),
            _ => None,
        })
        .collect();
    let out = destination(dst, &sizes, &tensors)?;
    let (o, n) = (out.data_ptr() as usize, out.numel());
    match op {
        Binary::Add(1.0) => binary_loop(o, sa, sb, n, |x, y| x + y),
        Binary::Add(al) => binary_loop(o, sa, sb, n, move |x, y| x + al * y),
        Binary::Sub(1.0) => binary_loop(o, sa, sb, n, |x, y| x - y),
        Binary::Sub(al) => binary_loop(o, sa, sb, n, move |x, y| x - al * y),
        Binary::Mul => binary_loop(o, sa, sb, n, |x, y| x * y),
        Binary::Div => binary_loop(o, sa, sb, n, |x, y| x / y),
    }
    Some(out)
}

/// Where one operand of [`general`] reads from.
#[derive(Copy, Clone)]
enum Src {
    F32(usize),
    F64(usize),
    /// A bool tensor (conditions and masks), read as 0 or 1.
    Bool(usize),
    Value(f64),
}

impl Src {
    /// SAFETY: for tensor sources, `i` is below the tensor's element count.
    #[inline(always)]
    unsafe fn at(self, i: usize) -> f64 {
        match self {
            Src::F32(p) => *(p as *const f32).add(i) as f64,
            Src::F64(p) => *(p as *const f64).add(i),
            Src::Bool(p) => *(p as *const u8).add(i) as f64,
            Src::Value(v) => v,
        }
    }
}

/// Any floating computation of the engine on contiguous float32/float64 operands of the
/// result's shape (or single values), without materializing columns: one pass, in parallel
/// when large. `None` when the operands or destination do not qualify.
pub(crate) fn general(
    args: &[Arg],
    compute: Compute<'_>,
    common: DType,
    result: DType,
    dst: Option<&Tensor>,
) -> Option<Tensor> {
    const MAX_ARGS: usize = 4;
    if !matches!(common, DType::F32 | DType::F64) || args.len() > MAX_ARGS {
        return None;
    }
    let sizes = args.iter().find_map(|a| match a {
        Arg::Tensor(t) if t.dim() > 0 => Some(t.sizes()),
        _ => None,
    })?;
    let mut srcs = [Src::Value(0.0); MAX_ARGS];
    let mut tensors = Vec::new();
    for (k, a) in args.iter().enumerate() {
        srcs[k] = match a {
            Arg::Tensor(t)
                if t.dtype() == DType::Bool && t.is_contiguous() && t.sizes() == sizes =>
            {
                tensors.push(t);
                Src::Bool(t.data_ptr() as usize)
            }
            Arg::Tensor(t) if t.dtype() != common || !t.is_contiguous() => return None,
            Arg::Tensor(t) if t.dim() == 0 => Src::Value(t.item_f64().ok()?),
            Arg::Tensor(t) if t.sizes() != sizes => return None,
            Arg::Tensor(t) => {
                tensors.push(t);
                let p = t.data_ptr() as usize;
                if common == DType::F32 {
                    Src::F32(p)
                } else {
                    Src::F64(p)
                }
            }
            Arg::Float(v) => Src::Value(*v),
            Arg::Int(v) => Src::Value(*v as f64),
            Arg::Bool(v) => Src::Value(*v as u8 as f64),
        };
    }
    let out = match dst {
        None => for_overwrite(&sizes, result)?,
        Some(d) => {
            if d.dtype() != result || !d.is_contiguous() || d.sizes() != sizes {
                return None;
            }
            if tensors
                .iter()
                .any(|x| d.shares_storage(x) && d.data_ptr() != x.data_ptr())
            {
                return None;
            }
            d.clone()
        }
    };
    let (o, n, k) = (out.data_ptr() as usize, out.numel(), args.len());
    let gather = move |i: usize| {
        let mut v = [0f64; MAX_ARGS];
        for j in 0..k {
            // SAFETY: every tensor source has n elements and i < n.
            v[j] = unsafe { srcs[j].at(i) };
        }
        v
    };
    // SAFETY (writes): `out` holds n contiguous elements of `result`; each index is read
    // from the sources before it is written.
    match (compute, result) {
        (Compute::Float(f), DType::F32) => split(n, true, |s, e| {
            for i in s..e {
                unsafe { *(o as *mut f32).add(i) = f(&gather(i)[..k]) as f32 };
            }
        }),
        (Compute::Float(f), DType::F64) => split(n, true, |s, e| {
            for i in s..e {
                unsafe { *(o as *mut f64).add(i) = f(&gather(i)[..k]) };
            }
        }),
        (Compute::FloatToBool(f), DType::Bool) => split(n, true, |s, e| {
            for i in s..e {
                unsafe { *(o as *mut bool).add(i) = f(&gather(i)[..k]) };
            }
        }),
        _ => return None,
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_scalar_math_on_both_sides_of_the_threshold() {
        for n in [5usize, PARALLEL_THRESHOLD + 3] {
            let v: Vec<f32> = (0..n).map(|i| (i as f32) * 0.001 - 3.0).collect();
            let x = Tensor::from_vec(v.clone(), &[n as i64]).unwrap();
            let out = unary(Unary::Sigmoid, &Arg::Tensor(x.clone()), None).unwrap();
            let got = out.to_vec::<f32>();
            for i in [0, n / 2, n - 1] {
                let want = 1.0 / (1.0 + (-(v[i] as f64)).exp());
                assert!((got[i] as f64 - want).abs() < 1e-6);
            }
            let out = binary(
                Binary::Add(2.0),
                &Arg::Tensor(x.clone()),
                &Arg::Float(1.5),
                None,
            )
            .unwrap();
            assert_eq!(out.to_vec::<f32>()[n - 1], v[n - 1] + 3.0);
            // In place on the same tensor.
            binary(Binary::Mul, &Arg::Tensor(x.clone()), &Arg::Int(2), Some(&x)).unwrap();
            assert_eq!(x.to_vec::<f32>()[n - 1], v[n - 1] * 2.0);
        }
    }

    #[test]
    fn exp_and_tanh_are_accurate_to_float32() {
        let mut worst = (0.0f64, 0.0f64);
        let mut x = -110.0f32;
        while x < 95.0 {
            for (got, want) in [
                (exp(x) as f64, (x as f64).exp()),
                (tanh(x) as f64, (x as f64).tanh()),
            ] {
                let want32 = want as f32 as f64;
                if want32.is_infinite() || want32 == 0.0 || want.abs() < 1e-37 {
                    assert!(
                        got == want32 || (got - want).abs() < 1e-44,
                        "{x}: {got} vs {want}"
                    );
                    continue;
                }
                let rel = ((got - want) / want).abs();
                if rel > worst.0 {
                    worst = (rel, x as f64);
                }
            }
            x += 0.0137;
        }
        assert!(worst.0 < 5e-7, "worst relative error {worst:?}");
        assert!(exp(f32::NAN).is_nan() && tanh(f32::NAN).is_nan());
        assert_eq!(
            (exp(f32::INFINITY), exp(f32::NEG_INFINITY)),
            (f32::INFINITY, 0.0)
        );
        assert_eq!((tanh(f32::INFINITY), tanh(f32::NEG_INFINITY)), (1.0, -1.0));
        assert!(tanh(-0.0).is_sign_negative());
        let mut x = -6.0f32;
        while x < 6.0 {
            let (got, want) = (erf(x) as f64, libm::erf(x as f64));
            assert!((got - want).abs() < 5e-7, "erf({x}) = {got} vs {want}");
            x += 0.001;
        }
        assert!(erf(f32::NAN).is_nan());
        assert_eq!((erf(f32::INFINITY), erf(f32::NEG_INFINITY)), (1.0, -1.0));
    }

    #[test]
    fn general_path_matches_the_engine() {
        use crate::tensor::elementwise::{map, Target};
        for n in [7usize, PARALLEL_THRESHOLD + 5] {
            let x = Tensor::from_vec((0..n).map(|i| i as f32 * 0.01 - 2.0).collect(), &[n as i64])
                .unwrap();
            let y =
                Tensor::from_vec((0..n).map(|i| (i % 7) as f32).collect(), &[n as i64]).unwrap();
            let args = [Arg::Tensor(x), Arg::Tensor(y), Arg::Float(0.5)];
            let f = |v: &[f64]| if v[1] > 3.0 { v[0] * v[2] } else { v[0].exp() };
            let got = general(&args, Compute::Float(&f), DType::F32, DType::F32, None).unwrap();
            let want = map(&args, Compute::Float(&f), Target::New(DType::F32)).unwrap();
            assert_eq!(got.to_vec::<f32>(), want.to_vec::<f32>());
            let lt = |v: &[f64]| v[0] < v[1];
            let got = general(
                &args[..2],
                Compute::FloatToBool(&lt),
                DType::F32,
                DType::Bool,
                None,
            )
            .unwrap();
            let want = map(
                &args[..2],
                Compute::FloatToBool(&lt),
                Target::New(DType::Bool),
            )
            .unwrap();
            assert_eq!(got.to_vec::<bool>(), want.to_vec::<bool>());
        }
    }

    #[test]
    fn activations_match_f64() {
        let v: Vec<f32> = (0..400).map(|i| i as f32 * 0.05 - 10.0).collect();
        let x = Arg::Tensor(Tensor::from_vec(v.clone(), &[400]).unwrap());
        type Reference = fn(f64) -> f64;
        let cases: [(Unary, Reference); 3] = [
            (Unary::Silu, |a| a / (1.0 + (-a).exp())),
            (Unary::Gelu, |a| {
                0.5 * a * (1.0 + libm::erf(a / 2f64.sqrt()))
            }),
            (Unary::GeluTanh, |a| {
                0.5 * a
                    * (1.0
                        + ((2.0 / std::f64::consts::PI).sqrt() * (a + 0.044715 * a * a * a)).tanh())
            }),
        ];
        for (op, f) in cases {
            let got = unary(op, &x, None).unwrap().to_vec::<f32>();
            for (g, &a) in got.iter().zip(&v) {
                let want = f(a as f64);
                assert!(
                    (*g as f64 - want).abs() <= 1e-6 + 1e-5 * want.abs(),
                    "{op:?}({a}): {g} vs {want}"
                );
            }
        }
    }

    #[test]
    fn declines_what_it_cannot_do() {
        let x = Tensor::from_vec(vec![1f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let t = x.t().unwrap();
        assert!(unary(Unary::Exp, &Arg::Tensor(t.clone()), None).is_none());
        let row = Tensor::from_vec(vec![1f32, 2.0], &[2]).unwrap();
        assert!(binary(
            Binary::Add(1.0),
            &Arg::Tensor(x.clone()),
            &Arg::Tensor(row),
            None
        )
        .is_none());
        let shifted = x.view(&[4]).unwrap().slice(0, Some(1), Some(4), 1).unwrap();
        let head = x.view(&[4]).unwrap().slice(0, Some(0), Some(3), 1).unwrap();
        assert!(unary(Unary::Relu, &Arg::Tensor(head), Some(&shifted)).is_none());
    }
}
