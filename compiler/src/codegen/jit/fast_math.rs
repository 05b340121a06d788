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
    let y = e.addf(fma(e, e.mulf(p, r), r, r), c(e, 1.0));
    let ni = e.subi(e.bitcast(t, e.i32()), e.const_i32(MAGIC.to_bits() as i32));
    (y, ni)
}

pub fn exp<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>) -> Value<'c, 'a> {
    // Rust's clamp: NaN passes through both comparisons.
    let lo = c(e, -104.0);
    let hi = c(e, 89.0);
    let x = e.select(e.cmpf(CmpfPredicate::Olt, x, lo), lo, x);
    let x = e.select(e.cmpf(CmpfPredicate::Ogt, x, hi), hi, x);
    let (y, n) = exp_reduced(e, x);
    let h = e.shrsi(n, e.const_i32(1));
    e.mulf(e.mulf(y, pow2(e, h)), pow2(e, e.subi(n, h)))
}

/// `e^x` for `x <= 0` (erf's), 0 below -87.
fn exp_nonpositive<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>) -> Value<'c, 'a> {
    let (y, n) = exp_reduced(e, x);
    let v = e.mulf(y, pow2(e, n));
    let under = e.cmpf(CmpfPredicate::Olt, x, c(e, -87.0));
    e.select(under, c(e, 0.0), v)
}

pub fn tanh<'c, 'a>(e: &Emit<'c, 'a>, x: Value<'c, 'a>) -> Value<'c, 'a> {
    let a = math_op(e, "math.absf", &[x]);
    let ex = exp(e, e.mulf(c(e, 2.0), a));
    let one = c(e, 1.0);
    let big = copysign(e, e.subf(one, e.divf(c(e, 2.0), e.addf(ex, one))), x);
    let z = e.mulf(x, x);
    let p = horner(
        e,
        z,
        &[
            -5.704_988_7e-3,
            2.063_909e-2,
            -5.373_971_6e-2,
            1.333_144_2e-1,
            -3.333_328e-1,
        ],
    );
    let small = copysign(e, fma(e, e.mulf(p, z), x, x), x);
    let is_big = e.cmpf(CmpfPredicate::Oge, a, c(e, 0.625));
    e.select(is_big, big, small)
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
