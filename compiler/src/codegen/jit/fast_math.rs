//! float32 `exp`, `log`, `tanh` and `erf` for JIT kernels: the runtime's own vectorized
//! algorithms (`ember_runtime::ops::pointwise::vmath`: Cephes' polynomials, Abramowitz-Stegun
//! erf) emitted operation for operation in the same order, so compiled kernels give the
//! interpreter's float32 results bit for bit. Branch-free (selects), so loops vectorize.

use ember_runtime::ops::pointwise::CEPHES_LOGF_POLY;
use melior::dialect::arith::CmpfPredicate;
use melior::ir::operation::OperationBuilder;
use melior::ir::Value;

use crate::codegen::mlir_builder::Emit;

fn c<'c, 'a>(e: &Emit<'c, 'a>, x: f32) -> Value<'c, 'a> {
    e.const_f32(x as f64)
}

/// A float32 `math` operation.
fn math_op<'c, 'a>(e: &Emit<'c, 'a>, name: &str, operands: &[Value<'c, 'a>]) -> Value<'c, 'a> {
    e.push(
        OperationBuilder::new(name, e.loc)
            .add_operands(operands)
            .add_results(&[e.f32()])
            .build()
            .expect("valid math operation"),
    )
}

fn copysign<'c, 'a>(e: &Emit<'c, 'a>, mag: Value<'c, 'a>, sign: Value<'c, 'a>) -> Value<'c, 'a> {
    math_op(e, "math.copysign", &[mag, sign])
}

/// `a * b + addend` rounded once (`math.fma`: one instruction with FMA, libm's `fmaf`
/// without), as vmath's `mul_add`.
fn fma<'c, 'a>(
    e: &Emit<'c, 'a>,
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
    addend: Value<'c, 'a>,
) -> Value<'c, 'a> {
    math_op(e, "math.fma", &[a, b, addend])
}

/// `p = coeffs[0]; p = fma(p, x, coeffs[i])` (Horner).
fn horner<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>, coeffs: &[f32]) -> Value<'c, 'a> {
    let mut p = c(e, coeffs[0]);
    for &k in &coeffs[1..] {
        p = fma(e, p, x, c(e, k));
    }
    p
}

/// `2^k` from an i32 `k` in the normal exponent range.
fn pow2<'c, 'a>(e: &Emit<'c, 'a>, k: Value<'c, 'a>) -> Value<'c, 'a> {
    let bits = e.shli(e.addi(k, e.const_i32(127)), e.const_i32(23));
    e.bitcast(bits, e.f32())
}

/// `(e^r, n)` with `x = n ln 2 + r` (vmath's `exp_reduced`).
fn exp_reduced<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>) -> (Value<'c, 'a>, Value<'c, 'a>) {
    let (q, n) = expm1_reduced(e, x);
    (e.addf(q, c(e, 1.0)), n)
}

/// `(e^r - 1, n)` (vmath's `expm1_reduced`).
fn expm1_reduced<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>) -> (Value<'c, 'a>, Value<'c, 'a>) {
    const MAGIC: f32 = 12_582_912.0;
    let magic = c(e, MAGIC);
    let t = fma(e, x, c(e, std::f32::consts::LOG2_E), magic);
    let n = e.subf(t, magic);
    let r = fma(e, n, c(e, -0.693_359_4), x);
    let r = fma(e, n, c(e, 2.121_944_4e-4), r);
    let p = horner(
        e,
        r,
        &[
            1.987_569_1e-4,
            1.398_2e-3,
            8.333_452e-3,
            4.166_579_6e-2,
            1.666_666_5e-1,
            0.5,
        ],
    );
    let q = fma(e, e.mulf(p, r), r, r);
    let ni = e.subi(e.bitcast(t, e.i32()), e.const_i32(MAGIC.to_bits() as i32));
    (q, ni)
}

pub fn exp<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>) -> Value<'c, 'a> {
    let (y, n) = exp_reduced(e, clamp(e, x, -104.0, 89.0));
    let h = e.shrsi(n, e.const_i32(1));
    e.mulf(e.mulf(y, pow2(e, h)), pow2(e, e.subi(n, h)))
}

/// `1 + e^x` with 2^n applied in one multiply and the add fused (vmath's `one_plus_exp`).
pub fn one_plus_exp<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>) -> Value<'c, 'a> {
    let (y, n) = exp_reduced(e, clamp(e, x, -88.0, 89.0));
    fma(e, y, pow2(e, n), c(e, 1.0))
}

/// Rust's `clamp`: NaN passes through both comparisons.
fn clamp<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>, lo: f32, hi: f32) -> Value<'c, 'a> {
    let (lo, hi) = (c(e, lo), c(e, hi));
    let x = e.select(e.cmpf(CmpfPredicate::Olt, x, lo), lo, x);
    e.select(e.cmpf(CmpfPredicate::Ogt, x, hi), hi, x)
}

/// `e^x` for `x <= 0` (erf's), 0 below -87.
fn exp_nonpositive<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>) -> Value<'c, 'a> {
    let (y, n) = exp_reduced(e, x);
    let v = e.mulf(y, pow2(e, n));
    let under = e.cmpf(CmpfPredicate::Olt, x, c(e, -87.0));
    e.select(under, c(e, 0.0), v)
}

/// vmath's `tanh`: from `E = e^2|x| - 1` (exp's reduction), `E / (E + 2)` below 0.625 and
/// `1 - 2 / (E + 2)` from there, |x| capped at 9.1.
pub fn tanh<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>) -> Value<'c, 'a> {
    let a = math_op(e, "math.absf", &[x]);
    let cap = c(e, 9.1);
    let a = e.select(e.cmpf(CmpfPredicate::Ogt, a, cap), cap, a);
    let (q, n) = expm1_reduced(e, e.mulf(c(e, 2.0), a));
    let p = pow2(e, n);
    let em1 = fma(e, p, q, e.subf(p, c(e, 1.0)));
    let big = e.cmpf(CmpfPredicate::Oge, a, c(e, 0.625));
    let d = e.divf(e.select(big, c(e, 2.0), em1), e.addf(em1, c(e, 2.0)));
    let t = e.select(big, e.subf(c(e, 1.0), d), d);
    copysign(e, t, x)
}

pub fn log<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>) -> Value<'c, 'a> {
    let zero = c(e, 0.0);
    let tiny = e.cmpf(CmpfPredicate::Olt, x, c(e, f32::MIN_POSITIVE));
    let xs = e.select(tiny, e.mulf(x, c(e, 8_388_608.0)), x);
    let bits = e.bitcast(xs, e.i32());
    let exponent = e.subi(e.shrui(bits, e.const_i32(23)), e.const_i32(126));
    let ex = e.subf(
        e.sitofp(exponent, e.f32()),
        e.select(tiny, c(e, 23.0), zero),
    );
    let mant = e.ori(
        e.andi(bits, e.const_i32(0x007f_ffff)),
        e.const_i32(0x3f00_0000),
    );
    let m = e.bitcast(mant, e.f32());
    let below = e.cmpf(CmpfPredicate::Olt, m, c(e, std::f32::consts::FRAC_1_SQRT_2));
    let ex = e.subf(ex, e.select(below, c(e, 1.0), zero));
    let one = c(e, 1.0);
    let f = e.select(below, e.subf(e.addf(m, m), one), e.subf(m, one));
    let z = e.mulf(f, f);
    let p = horner(e, f, &CEPHES_LOGF_POLY);
    let y = e.subf(
        e.addf(e.mulf(e.mulf(p, f), z), e.mulf(ex, c(e, -2.121_944_4e-4))),
        e.mulf(c(e, 0.5), z),
    );
    let r = e.addf(e.addf(f, y), e.mulf(ex, c(e, 0.693_359_4)));
    let bad = e.ori(
        e.cmpf(CmpfPredicate::Olt, x, zero),
        e.cmpf(CmpfPredicate::Uno, x, x),
    );
    let r = e.select(bad, c(e, f32::NAN), r);
    let r = e.select(e.cmpf(CmpfPredicate::Oeq, x, c(e, f32::INFINITY)), x, r);
    e.select(
        e.cmpf(CmpfPredicate::Oeq, x, zero),
        c(e, f32::NEG_INFINITY),
        r,
    )
}

/// Abramowitz and Stegun 7.1.26 (5e-7 absolute) from 0.5 up, erf's Taylor series to x^11
/// below (accurate relative to erf's small values): the runtime's `vmath::erf`.
#[allow(clippy::approx_constant)] // the series' x coefficient, 2/sqrt(pi), written as vmath's
pub fn erf<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>) -> Value<'c, 'a> {
    let a = math_op(e, "math.absf", &[x]);
    let one = c(e, 1.0);
    let t = e.divf(one, e.addf(one, e.mulf(c(e, 0.327_591_1), a)));
    let r = horner(
        e,
        t,
        &[
            1.061_405_4,
            -1.453_152,
            1.421_413_8,
            -0.284_496_74,
            0.254_829_6,
        ],
    );
    let ex = exp_nonpositive(e, e.mulf(e.negf(a), a));
    let big = copysign(e, e.subf(one, e.mulf(e.mulf(r, t), ex)), x);
    let z = e.mulf(x, x);
    let s = horner(
        e,
        z,
        &[
            -8.548_327e-4,
            5.223_977_6e-3,
            -2.686_617e-2,
            1.128_379_2e-1,
            -3.761_263_9e-1,
            1.128_379_2,
        ],
    );
    let small = e.mulf(s, x);
    let is_big = e.cmpf(CmpfPredicate::Oge, a, c(e, 0.5));
    e.select(is_big, big, small)
}
