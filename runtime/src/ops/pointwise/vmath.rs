//! Branch-free float32 math for the vectorized kernels: written so that a loop over them
//! vectorizes at the width of the code it is compiled into (`ops::cpu::dispatch`): AVX-512,
//! AVX2 or SSE2. exp and log are Cephes' polynomials (about 1 ulp); tanh (2 ulp at most) and
//! sigmoid are built on exp's reduction; erf is the Abramowitz-Stegun formula PyTorch's own
//! vectorized erf uses (5e-7 absolute). Their polynomials and reductions are fused
//! multiply-adds written out (`mul_add`: one instruction at the AVX2 and AVX-512 widths,
//! libm's exact `fmaf` at the SSE2 one), never left to contraction, so every width gives the
//! same bits (the JIT's `fast_math` emits the same operations); with a separate multiply and
//! add, an LSTM cell's sigmoids and tanhs took 17-43% longer (BENCHMARKS.md, 2026-11-29).

use super::CEPHES_LOGF_POLY;

/// NaN stays NaN, as PyTorch's relu (clamp_min) keeps it.
#[inline(always)]
pub(crate) fn relu(v: f32) -> f32 {
    if v < 0.0 {
        0.0
    } else {
        v
    }
}

#[inline(always)]
pub(crate) fn sigmoid(v: f32) -> f32 {
    1.0 / one_plus_exp(-v)
}

#[inline(always)]
pub(crate) fn silu(v: f32) -> f32 {
    v / one_plus_exp(-v)
}

#[inline(always)]
pub(crate) fn gelu(v: f32) -> f32 {
    0.5 * v * (1.0 + erf(v * std::f32::consts::FRAC_1_SQRT_2))
}

#[inline(always)]
pub(crate) fn gelu_tanh(v: f32) -> f32 {
    const K: f32 = 0.797_884_6; // sqrt(2 / pi)
    0.5 * v * (1.0 + tanh(K * (v + 0.044715 * v * v * v)))
}

/// `x * clamp(x + 3, 0, 6) / 6`, as PyTorch's float32 kernel rounds it.
#[inline(always)]
pub(crate) fn hardswish(x: f32) -> f32 {
    x * clamp06(x + 3.0) / 6.0
}

/// `clamp(x + 3, 0, 6) / 6`.
#[inline(always)]
pub(crate) fn hardsigmoid(x: f32) -> f32 {
    clamp06(x + 3.0) / 6.0
}

/// `min(max(v, 0), 6)` keeping NaN.
#[inline(always)]
fn clamp06(v: f32) -> f32 {
    let y = if v < 0.0 { 0.0 } else { v };
    if y > 6.0 {
        6.0
    } else {
        y
    }
}

/// `e^x` in float32, branch-free so loops over it vectorize (Cephes' `expf`: a degree-6
/// polynomial after reducing by multiples of ln 2; about 1 ulp). Results below the normal
/// range and overflow to infinity come out right because 2^n is applied in two halves.
#[inline(always)]
pub(crate) fn exp(x: f32) -> f32 {
    let (y, n) = exp_reduced(x.clamp(-104.0, 89.0));
    // 2^n = 2^h * 2^(n-h), each factor a normal float for n in [-150, 129].
    let h = n >> 1;
    y * pow2(h) * pow2(n - h)
}

/// `2^k` built from its exponent bits: exact for k in [-126, 127], 0 at -127 and infinity at
/// 128; other k (from a NaN input) give garbage, which the NaN it multiplies hides.
#[inline(always)]
fn pow2(k: i32) -> f32 {
    f32::from_bits((k.wrapping_add(127) as u32) << 23)
}

/// `1 + e^x`, the denominator of sigmoid and silu: [`exp`]'s `y * 2^n` in one multiply
/// instead of two and the add fused, which only differs from `1 + exp(x)` where `e^x` is
/// below 2^-126 (the sum is 1 either way) or, for x in [88.38, 89], within a factor 1.5 of
/// overflowing (infinity here, as beyond 89). About seven operations fewer than `1 + exp(x)`
/// (with tanh's rewrite below, an LSTM cell's JIT loop went from 808 to 583 instructions per
/// 64 elements, AVX-512; BENCHMARKS.md, 2026-11-29).
#[inline(always)]
pub(crate) fn one_plus_exp(x: f32) -> f32 {
    // n in [-127, 128]: 2^-127 comes out as 0 and 2^128 as infinity.
    let (y, n) = exp_reduced(x.clamp(-88.0, 89.0));
    // y * 2^n is exact where it matters, so the fused add rounds as the plain one would.
    y.mul_add(pow2(n), 1.0)
}

/// `e^x` for `x <= 0` (or NaN) as [`exp`] computes it where the result is a normal float,
/// 0 below that (one scale by 2^n instead of two: erf adds it to 1, where no subnormal
/// shows).
#[inline(always)]
pub(crate) fn exp_nonpositive(x: f32) -> f32 {
    let (y, n) = exp_reduced(x);
    // n >= -126 wherever x >= -87; below, the select gives 0 (the bits may be garbage).
    if x < -87.0 {
        0.0
    } else {
        y * pow2(n)
    }
}

/// Cephes' reduction of `e^x`: `(e^r, n)` with `x = n ln 2 + r`, `|r| <= ln 2 / 2`.
#[inline(always)]
pub(crate) fn exp_reduced(x: f32) -> (f32, i32) {
    let (q, n) = expm1_reduced(x);
    (q + 1.0, n)
}

/// `(e^r - 1, n)` with `x = n ln 2 + r`, `|r| <= ln 2 / 2`: Cephes' polynomial without its
/// final `+ 1`.
#[inline(always)]
fn expm1_reduced(x: f32) -> (f32, i32) {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // Rounding by adding 1.5 * 2^23 keeps to SSE2 (no `roundps`), so the loop vectorizes.
    const MAGIC: f32 = 12_582_912.0;
    let t = x.mul_add(LOG2E, MAGIC);
    let n = t - MAGIC;
    let r = n.mul_add(-LN2_HI, x);
    let r = n.mul_add(-LN2_LO, r);
    let mut p = 1.987_569_1e-4f32;
    p = p.mul_add(r, 1.398_2e-3);
    p = p.mul_add(r, 8.333_452e-3);
    p = p.mul_add(r, 4.166_579_6e-2);
    p = p.mul_add(r, 1.666_666_5e-1);
    p = p.mul_add(r, 0.5);
    let q = (p * r).mul_add(r, r);
    // The integer n sits in the low mantissa bits of t.
    (q, (t.to_bits() as i32).wrapping_sub(MAGIC.to_bits() as i32))
}

/// `erf` in float32, branch-free: Abramowitz and Stegun 7.1.26 (absolute error below
/// 1.5e-7, under 5e-7 after float32 rounding) from 0.5 up, and below it erf's Taylor series
/// to x^11 (relative error under 1e-7), where the first's absolute error would be a large
/// relative one (2.5e-4 at 1e-3, which `1 / erf(x)` shows; PyTorch's erf is accurate there).
#[inline(always)]
#[allow(clippy::approx_constant)] // the series' x coefficient, 2/sqrt(pi), written as fast_math's
pub(crate) fn erf(x: f32) -> f32 {
    let a = x.abs();
    let t = 1.0 / (1.0 + 0.327_591_1 * a);
    let mut r = 1.061_405_4f32;
    r = r.mul_add(t, -1.453_152);
    r = r.mul_add(t, 1.421_413_8);
    r = r.mul_add(t, -0.284_496_74);
    r = r.mul_add(t, 0.254_829_6);
    let big = (1.0 - r * t * exp_nonpositive(-a * a)).copysign(x);
    let z = x * x;
    let mut s = -8.548_327e-4f32;
    s = s.mul_add(z, 5.223_977_6e-3);
    s = s.mul_add(z, -2.686_617e-2);
    s = s.mul_add(z, 1.128_379_2e-1);
    s = s.mul_add(z, -3.761_263_9e-1);
    s = s.mul_add(z, 1.128_379_2);
    let small = s * x;
    if a < 0.5 {
        small
    } else {
        big
    }
}

/// `tanh` in float32, branch-free, from `E = e^2|x| - 1`, which exp's reduction gives before
/// its `+ 1` (`2^n (e^r - 1) + (2^n - 1)`) without cancelling near 0: `E / (E + 2)` below
/// 0.625 (2 ulp at most), `1 - 2 / (E + 2)` from there (1 ulp at most, so values near 1
/// round right), with no second polynomial. |x| is capped at 9.1, past which tanh rounds to
/// 1, so that E stays finite.
#[inline(always)]
pub(crate) fn tanh(x: f32) -> f32 {
    let a = x.abs();
    let a = if a > 9.1 { 9.1 } else { a };
    // n in [0, 26]; NaN gives garbage n but a NaN result.
    let (q, n) = expm1_reduced(2.0 * a);
    let p = pow2(n);
    let e = p.mul_add(q, p - 1.0);
    let big = a >= 0.625;
    let d = if big { 2.0 } else { e } / (e + 2.0);
    let t = if big { 1.0 - d } else { d };
    t.copysign(x)
}

/// `ln x` in float32, branch-free: Cephes' `logf` (log(1 + f) = f - f^2/2 + f^3 P(f) after
/// splitting off the exponent; about 1 ulp). Subnormals are scaled up first; negative inputs
/// and NaN give NaN, 0 gives -inf and +inf gives +inf.
#[inline(always)]
pub(crate) fn log(x: f32) -> f32 {
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    let tiny = x < f32::MIN_POSITIVE;
    let xs = if tiny { x * 8_388_608.0 } else { x };
    let bits = xs.to_bits();
    let mut e = ((bits >> 23) as i32 - 126) as f32 - if tiny { 23.0 } else { 0.0 };
    // The mantissa in [0.5, 1), then 1 + f in [sqrt(1/2), sqrt(2)).
    let m = f32::from_bits((bits & 0x007f_ffff) | 0x3f00_0000);
    let below = m < std::f32::consts::FRAC_1_SQRT_2;
    e -= if below { 1.0 } else { 0.0 };
    let f = if below { m + m - 1.0 } else { m - 1.0 };
    let z = f * f;
    let mut p = CEPHES_LOGF_POLY[0];
    for &c in &CEPHES_LOGF_POLY[1..] {
        p = p.mul_add(f, c);
    }
    let y = p * f * z + e * LN2_LO - 0.5 * z;
    let r = f + y + e * LN2_HI;
    if x == 0.0 {
        f32::NEG_INFINITY
    } else if x == f32::INFINITY {
        x
    } else if x < 0.0 || x.is_nan() {
        f32::NAN
    } else {
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every function at every vector width the machine has: the loops below are compiled
    /// into each width by `dispatch`, and must agree with f64 math (and with each other).
    #[test]
    fn math_is_accurate_at_every_width() {
        let xs: Vec<f32> = (0..30_000)
            .map(|i| -110.0 + i as f32 * 0.00683)
            .chain([0.0, -0.0, 1e-40, 3e-39, f32::MIN_POSITIVE, 1.0, f32::MAX])
            .chain([f32::INFINITY, f32::NEG_INFINITY, f32::NAN])
            .collect();
        let mut first: Option<Vec<Vec<u32>>> = None;
        for level in crate::ops::cpu::available_levels() {
            let run = |f: fn(f32) -> f32| -> Vec<u32> {
                let mut out = vec![0f32; xs.len()];
                crate::ops::cpu::dispatch(
                    level,
                    #[inline(always)]
                    || {
                        for (o, &x) in out.iter_mut().zip(&xs) {
                            *o = f(x);
                        }
                    },
                );
                out.iter().map(|v| v.to_bits()).collect()
            };
            let got = vec![run(exp), run(log), run(tanh), run(sigmoid), run(erf)];
            let refs: [fn(f64) -> f64; 5] = [
                f64::exp,
                f64::ln,
                f64::tanh,
                |a| 1.0 / (1.0 + (-a).exp()),
                libm::erf,
            ];
            for (k, (bits, f)) in got.iter().zip(refs).enumerate() {
                for (&b, &x) in bits.iter().zip(&xs) {
                    let (g, w) = (f32::from_bits(b) as f64, f(x as f64));
                    let w32 = w as f32 as f64;
                    let ok = if w.is_nan() {
                        g.is_nan()
                    } else if w32.is_infinite() || w32 == 0.0 || w.abs() < 1e-37 {
                        g == w32 || (g - w).abs() < 1e-37
                    } else if k == 4 {
                        (g - w).abs() < 5e-7
                    } else {
                        ((g - w) / w).abs() < 5e-7
                    };
                    assert!(ok, "{level:?} fn {k} at {x:e}: {g:e} vs {w:e}");
                }
            }
            match &first {
                None => first = Some(got),
                Some(f) => assert!(f == &got, "{level:?} differs from the baseline loop"),
            }
        }
    }

    /// One scaling instead of two changes no sum but those within a factor 1.5 of overflow.
    #[test]
    fn one_plus_exp_is_one_plus_exp() {
        let mut x = -120.0f32;
        while x < 100.0 {
            let (got, want) = (one_plus_exp(x), 1.0 + exp(x));
            if (88.37..=89.0).contains(&x) {
                assert!(got == want || got == f32::INFINITY, "{x}: {got} vs {want}");
            } else {
                assert_eq!(got.to_bits(), want.to_bits(), "{x}");
            }
            x += 0.000_37;
        }
        for x in [f32::NEG_INFINITY, -0.0, f32::INFINITY] {
            assert_eq!(one_plus_exp(x), 1.0 + exp(x), "{x}");
        }
        assert!(one_plus_exp(f32::NAN).is_nan());
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
}
