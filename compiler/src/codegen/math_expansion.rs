//! `exp`, `log` and `tanh` on float32 expanded into `arith` operations: the default on every
//! target (it vectorizes and needs no libm) and the only choice on NVPTX, whose backend cannot
//! select `llvm.exp`/`llvm.log`/`llvm.tanh` (libdevice is not linked). The algorithms are Cephes' `expf`, `logf` and `tanhf` (range
//! reduction plus a minimax polynomial; at most 1-2 ulp on float32's normal range, measured in
//! compiler/tests/native_kernels.rs), with IEEE special cases handled by selects: NaN
//! propagates, `exp(+big)` is inf, `log(0)` is -inf, `log(-x)` is NaN. Only `arith` operations
//! are used, so nothing is left for a libm to provide on any target.

use ember_runtime::ops::pointwise::CEPHES_LOGF_POLY;
use melior::dialect::arith::CmpfPredicate;
use melior::ir::Value;

use super::mlir_builder::Emit;

/// Horner evaluation of `coeffs[0] * x^(n-1) + ... + coeffs[n-1]`.
fn polynomial<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, '_>, coeffs: &[f64]) -> Value<'c, 'a> {
    let mut acc = e.const_f32(coeffs[0]);
    for &c in &coeffs[1..] {
        let t = e.mulf(acc, x);
        acc = e.addf(t, e.const_f32(c));
    }
    acc
}

/// `2^k` for an i32 `k` in [-126, 127], built from its exponent bits.
fn pow2i<'c, 'a>(e: &Emit<'c, 'a>, k: Value<'c, '_>) -> Value<'c, 'a> {
    let biased = e.addi(k, e.const_i32(127));
    let bits = e.shli(biased, e.const_i32(23));
    e.bitcast(bits, e.f32())
}

pub fn exp<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, '_>) -> Value<'c, 'a> {
    let is_nan = e.cmpf(CmpfPredicate::Uno, x, x);
    let too_big = e.cmpf(CmpfPredicate::Ogt, x, e.const_f32(88.8));
    let too_small = e.cmpf(CmpfPredicate::Olt, x, e.const_f32(-104.0));
    // Clamp (and replace NaN) so the integer conversion below stays defined.
    let zero = e.const_f32(0.0);
    let xc = e.select(is_nan, zero, x);
    let xc = e.select(too_big, e.const_f32(88.8), xc);
    let xc = e.select(too_small, e.const_f32(-104.0), xc);
    // n = round(x / ln 2); r = x - n ln 2 in two parts (Cody-Waite).
    let t = e.addf(
        e.mulf(xc, e.const_f32(std::f64::consts::LOG2_E)),
        e.const_f32(0.5),
    );
    // floor(t) by truncation and a correction: x86-64 without SSE4.1 would call floorf.
    let truncated = e.fptosi(t, e.i32());
    let too_high = e.cmpf(CmpfPredicate::Ogt, e.sitofp(truncated, e.f32()), t);
    let ni = e.select(too_high, e.subi(truncated, e.const_i32(1)), truncated);
    let n = e.sitofp(ni, e.f32());
    let r = e.subf(xc, e.mulf(n, e.const_f32(0.693359375)));
    let r = e.subf(r, e.mulf(n, e.const_f32(-2.12194440e-4)));
    let z = e.mulf(r, r);
    let p = polynomial(
        e,
        r,
        &[
            1.9875691500E-4,
            1.3981999507E-3,
            8.3334519073E-3,
            4.1665795894E-2,
            1.6666665459E-1,
            5.0000001201E-1,
        ],
    );
    let p = e.addf(e.addf(e.mulf(p, z), r), e.const_f32(1.0));
    // Scale by 2^n in two steps so that n in [-150, 129] never leaves the exponent range.
    let half = e.shrsi(ni, e.const_i32(1));
    let rest = e.subi(ni, half);
    let y = e.mulf(e.mulf(p, pow2i(e, half)), pow2i(e, rest));
    let y = e.select(too_big, e.const_f32(f64::INFINITY), y);
    let y = e.select(too_small, zero, y);
    e.select(is_nan, x, y)
}

pub fn log<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, '_>) -> Value<'c, 'a> {
    let i32t = e.i32();
    // Subnormals: scale into the normal range first.
    let is_subnormal = e.cmpf(CmpfPredicate::Olt, x, e.const_f32(f32::MIN_POSITIVE as f64));
    let scaled = e.mulf(x, e.const_f32(8388608.0)); // 2^23
    let xs = e.select(is_subnormal, scaled, x);
    let adjust = e.select(is_subnormal, e.const_i32(-23), e.const_i32(0));
    // frexp: x = m * 2^k with m in [0.5, 1).
    let bits = e.bitcast(xs, i32t);
    let exp_bits = e.andi(e.shrui(bits, e.const_i32(23)), e.const_i32(0xff));
    let k = e.addi(e.subi(exp_bits, e.const_i32(126)), adjust);
    let mant_bits = e.ori(
        e.andi(bits, e.const_i32(0x807fffff_u32 as i32)),
        e.const_i32(0x3f000000),
    );
    let m = e.bitcast(mant_bits, e.f32());
    // Center m around 1: m in [sqrt(1/2), sqrt(2)).
    let small = e.cmpf(
        CmpfPredicate::Olt,
        m,
        e.const_f32(std::f64::consts::FRAC_1_SQRT_2),
    );
    let k = e.select(small, e.subi(k, e.const_i32(1)), k);
    let m2 = e.addf(m, m);
    let m = e.select(small, m2, m);
    let f = e.subf(m, e.const_f32(1.0));
    let z = e.mulf(f, f);
    let p = polynomial(e, f, &CEPHES_LOGF_POLY.map(f64::from));
    let kf = e.sitofp(k, e.f32());
    let y = e.mulf(e.mulf(p, f), z);
    let y = e.addf(y, e.mulf(kf, e.const_f32(-2.12194440e-4)));
    let y = e.subf(y, e.mulf(z, e.const_f32(0.5)));
    let r = e.addf(f, y);
    let r = e.addf(r, e.mulf(kf, e.const_f32(0.693359375)));
    // Special cases, in increasing priority.
    let is_inf = e.cmpf(CmpfPredicate::Oeq, x, e.const_f32(f64::INFINITY));
    let r = e.select(is_inf, x, r);
    let is_zero = e.cmpf(CmpfPredicate::Oeq, x, e.const_f32(0.0));
    let r = e.select(is_zero, e.const_f32(f64::NEG_INFINITY), r);
    let negative = e.cmpf(CmpfPredicate::Olt, x, e.const_f32(0.0));
    let r = e.select(negative, e.const_f32(f64::NAN), r);
    let is_nan = e.cmpf(CmpfPredicate::Uno, x, x);
    e.select(is_nan, x, r)
}

pub fn tanh<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, '_>) -> Value<'c, 'a> {
    let negative = e.cmpf(CmpfPredicate::Olt, x, e.const_f32(0.0));
    let ax = e.select(negative, e.negf(x), x);
    // |x| < 0.625: odd polynomial, accurate near 0.
    let z = e.mulf(x, x);
    let p = polynomial(
        e,
        z,
        &[
            -5.70498872745E-3,
            2.06390887954E-2,
            -5.37397155531E-2,
            1.33314422036E-1,
            -3.33332819422E-1,
        ],
    );
    let small = e.addf(e.mulf(e.mulf(p, z), x), x);
    // x + (+0) loses the sign of -0.0; tanh(-0.0) is -0.0.
    let is_zero = e.cmpf(CmpfPredicate::Oeq, x, e.const_f32(0.0));
    let small = e.select(is_zero, x, small);
    // Otherwise 1 - 2 / (exp(2|x|) + 1), which saturates to 1 as exp overflows.
    let ex = exp(e, e.addf(ax, ax));
    let q = e.divf(e.const_f32(2.0), e.addf(ex, e.const_f32(1.0)));
    let big = e.subf(e.const_f32(1.0), q);
    let big = e.select(negative, e.negf(big), big);
    let is_small = e.cmpf(CmpfPredicate::Olt, ax, e.const_f32(0.625));
    e.select(is_small, small, big)
}
