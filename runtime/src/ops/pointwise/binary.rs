//! Elementwise binary arithmetic: add, sub, rsub, mul, div (with `rounding_mode`),
//! floor_divide, remainder, fmod, pow (all overloads), atan2, maximum/minimum, fmax/fmin,
//! hypot, copysign, logaddexp, logaddexp2, xlogy; Tensor and Scalar operands, in-place and
//! `out=` forms. Integer division by zero raises `ZeroDivisionError` as PyTorch does.

use super::{
    arg_dtype, build, common_dtype, fast, has_zero, not_implemented, prepare, run, run_into,
    to_float, type_name, Call, Scalar, Support,
};
use crate::ops::registry::Registry;
use crate::tensor::elementwise::{Arg, Compute};
use crate::tensor::{DType, Tensor};

pub fn register(r: &mut Registry) {
    super::add(r, "add", true, |g, n| {
        build(g, n, |c| add_sub(c, false, false))
    });
    for name in ["sub", "subtract"] {
        super::add(r, name, true, |g, n| {
            build(g, n, |c| add_sub(c, true, false))
        });
    }
    super::add(r, "rsub", false, |g, n| {
        build(g, n, |c| add_sub(c, true, true))
    });
    for name in ["mul", "multiply"] {
        super::add(r, name, true, |g, n| build(g, n, mul));
    }
    for name in ["div", "divide", "true_divide"] {
        super::add(r, name, true, |g, n| build(g, n, div));
    }
    super::add(r, "floor_divide", true, |g, n| {
        build(g, n, |c| {
            let (a, b) = operands(c)?;
            div_mode(c, &a, &b, "floor")
        })
    });
    super::add(r, "remainder", true, |g, n| build(g, n, remainder));
    super::add(r, "fmod", true, |g, n| build(g, n, fmod));
    super::add(r, "pow", true, |g, n| build(g, n, pow));
    super::add(r, "float_power", true, |g, n| build(g, n, float_power));
    for name in ["atan2", "arctan2"] {
        super::add(r, name, true, |g, n| {
            build(g, n, |c| float_binary(c, None, f64::atan2))
        });
    }
    super::add(r, "hypot", true, |g, n| {
        build(g, n, |c| float_binary(c, Some("hypot_cpu"), f64::hypot))
    });
    super::add(r, "copysign", true, |g, n| {
        build(g, n, |c| float_binary(c, None, f64::copysign))
    });
    super::add(r, "logaddexp", false, |g, n| {
        build(g, n, |c| float_binary(c, Some("logaddexp_cpu"), logaddexp))
    });
    super::add(r, "logaddexp2", false, |g, n| {
        build(g, n, |c| {
            float_binary(c, Some("logaddexp2_cpu"), logaddexp2)
        })
    });
    super::add(r, "xlogy", true, |g, n| {
        build(g, n, |c| float_binary(c, None, xlogy))
    });
    super::add(r, "maximum", false, |g, n| {
        build(g, n, |c| extremum(c, true, true))
    });
    super::add(r, "minimum", false, |g, n| {
        build(g, n, |c| extremum(c, false, true))
    });
    super::add(r, "fmax", false, |g, n| {
        build(g, n, |c| extremum(c, true, false))
    });
    super::add(r, "fmin", false, |g, n| {
        build(g, n, |c| extremum(c, false, false))
    });
}

/// `self` and `other` (or `exponent`) of a binary call.
pub(crate) fn operands(c: &Call) -> Result<(Arg, Arg), String> {
    let other = if c.has("other") { "other" } else { "exponent" };
    Ok((c.operand("self")?, c.operand(other)?))
}

/// PyTorch's `alpha_check`.
fn alpha_check(dtype: DType, alpha: Scalar) -> Result<(), String> {
    if matches!(alpha, Scalar::Bool(_)) && dtype != DType::Bool {
        return Err("Boolean alpha only supported for Boolean results.".into());
    }
    if !dtype.is_floating() && alpha.is_float() {
        return Err(
            "For integral input tensors, argument alpha must not be a floating point number."
                .into(),
        );
    }
    Ok(())
}

/// PyTorch's `sub_check`.
fn sub_check(a: &Arg, b: &Arg) -> Result<(), String> {
    let (x, y) = (arg_dtype(a), arg_dtype(b));
    if x == DType::Bool && y == DType::Bool {
        return Err("Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead.".into());
    }
    if x == DType::Bool || y == DType::Bool {
        return Err("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.".into());
    }
    Ok(())
}

/// `add`, `sub` and `rsub` (`other - alpha * self`).
fn add_sub(c: &Call, subtract: bool, reverse: bool) -> Result<Tensor, String> {
    let (mut a, mut b) = operands(c)?;
    if subtract {
        sub_check(&a, &b)?;
    }
    if reverse {
        std::mem::swap(&mut a, &mut b);
    }
    let common = common_dtype(&[a.clone(), b.clone()]);
    let alpha = c.scalar("alpha").unwrap_or(Scalar::Int(1));
    alpha_check(common, alpha)?;
    let args = [a, b];
    let dst = prepare(c, &args, common)?;
    if common == DType::F32 {
        let al = alpha.to_f64() as f32;
        let op = if subtract {
            fast::Binary::Sub(al)
        } else {
            fast::Binary::Add(al)
        };
        if let Some(t) = fast::binary(op, &args[0], &args[1], dst.as_ref()) {
            return Ok(t);
        }
    }
    if common.is_floating() {
        let al = super::round_to(common, alpha.to_f64());
        let al = if subtract { -al } else { al };
        let f = move |x: &[f64]| x[0] + al * x[1];
        run_into(&args, common, common, Compute::Float(&f), dst.as_ref())
    } else {
        let al = alpha.to_i64();
        let al = if subtract { al.wrapping_neg() } else { al };
        let f = move |x: &[i64]| x[0].wrapping_add(al.wrapping_mul(x[1]));
        run_into(&args, common, common, Compute::Int(&f), dst.as_ref())
    }
}

fn mul(c: &Call) -> Result<Tensor, String> {
    let (a, b) = operands(c)?;
    let common = common_dtype(&[a.clone(), b.clone()]);
    let args = [a, b];
    let dst = prepare(c, &args, common)?;
    if common == DType::F32 {
        if let Some(t) = fast::binary(fast::Binary::Mul, &args[0], &args[1], dst.as_ref()) {
            return Ok(t);
        }
    }
    if common.is_floating() {
        run_into(
            &args,
            common,
            common,
            Compute::Float(&|x| x[0] * x[1]),
            dst.as_ref(),
        )
    } else if common == DType::Bool {
        run_into(
            &args,
            common,
            common,
            Compute::Int(&|x| x[0] & x[1]),
            dst.as_ref(),
        )
    } else {
        let f = |x: &[i64]| x[0].wrapping_mul(x[1]);
        run_into(&args, common, common, Compute::Int(&f), dst.as_ref())
    }
}

/// `div` with an optional `rounding_mode`.
fn div(c: &Call) -> Result<Tensor, String> {
    let (a, b) = operands(c)?;
    match c.value("rounding_mode").as_str() {
        None => true_div(c, a, b),
        Some(mode @ ("trunc" | "floor")) => div_mode(c, &a, &b, mode),
        Some(other) => Err(format!(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{other}'"
        )),
    }
}

fn true_div(c: &Call, a: Arg, b: Arg) -> Result<Tensor, String> {
    let common = to_float(common_dtype(&[a.clone(), b.clone()]));
    let args = [a, b];
    let dst = prepare(c, &args, common)?;
    if common == DType::F32 {
        if let Some(t) = fast::binary(fast::Binary::Div, &args[0], &args[1], dst.as_ref()) {
            return Ok(t);
        }
    }
    run_into(
        &args,
        common,
        common,
        Compute::Float(&|x| x[0] / x[1]),
        dst.as_ref(),
    )
}

/// Python's floor division on floats, as PyTorch's `div_floor_floating`.
pub(crate) fn div_floor_f(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        return a / b;
    }
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div != 0.0 {
        let fl = div.floor();
        if div - fl > 0.5 {
            fl + 1.0
        } else {
            fl
        }
    } else {
        0.0f64.copysign(a / b)
    }
}

/// Floor division on integers (`div_floor_integer`); the divisor is not zero.
pub(crate) fn div_floor_i(a: i64, b: i64) -> i64 {
    let q = a.wrapping_div(b);
    if (a < 0) != (b < 0) && a.wrapping_rem(b) != 0 {
        q - 1
    } else {
        q
    }
}

fn zero_division(args: &[Arg]) -> Result<(), String> {
    if super::broadcast_numel(args)? > 0 && has_zero(&args[1]) {
        return Err("ZeroDivisionError".into());
    }
    Ok(())
}

fn div_mode(c: &Call, a: &Arg, b: &Arg, mode: &str) -> Result<Tensor, String> {
    let common = common_dtype(&[a.clone(), b.clone()]);
    let args = [a.clone(), b.clone()];
    let kernel = if mode == "floor" {
        "div_floor_cpu"
    } else {
        "div_trunc_cpu"
    };
    Support::NoBool.check(kernel, common)?;
    let dst = prepare(c, &args, common)?;
    if common.is_floating() {
        let f: &(dyn Fn(&[f64]) -> f64 + Sync) = if mode == "floor" {
            &|x| div_floor_f(x[0], x[1])
        } else {
            &|x| (x[0] / x[1]).trunc()
        };
        run_into(&args, common, common, Compute::Float(f), dst.as_ref())
    } else {
        zero_division(&args)?;
        let f: &(dyn Fn(&[i64]) -> i64 + Sync) = if mode == "floor" {
            &|x| div_floor_i(x[0], x[1])
        } else {
            &|x| x[0].wrapping_div(x[1])
        };
        run_into(&args, common, common, Compute::Int(f), dst.as_ref())
    }
}

/// The remainder with the sign of the divisor (Python's `%`).
fn remainder(c: &Call) -> Result<Tensor, String> {
    let (a, b) = operands(c)?;
    let common = common_dtype(&[a.clone(), b.clone()]);
    Support::NoBool.check("remainder_cpu", common)?;
    let args = [a, b];
    let dst = prepare(c, &args, common)?;
    if common.is_floating() {
        let f = |x: &[f64]| {
            let m = x[0] % x[1];
            if m != 0.0 && ((x[1] < 0.0) != (m < 0.0)) {
                m + x[1]
            } else {
                m
            }
        };
        run_into(&args, common, common, Compute::Float(&f), dst.as_ref())
    } else {
        zero_division(&args)?;
        let f = |x: &[i64]| {
            let r = x[0].wrapping_rem(x[1]);
            if r != 0 && ((r < 0) != (x[1] < 0)) {
                r + x[1]
            } else {
                r
            }
        };
        run_into(&args, common, common, Compute::Int(&f), dst.as_ref())
    }
}

/// The remainder with the sign of the dividend (C's `fmod`).
fn fmod(c: &Call) -> Result<Tensor, String> {
    let (a, b) = operands(c)?;
    let common = common_dtype(&[a.clone(), b.clone()]);
    Support::NoBool.check("fmod_cpu", common)?;
    let args = [a, b];
    let dst = prepare(c, &args, common)?;
    if common.is_floating() {
        run_into(
            &args,
            common,
            common,
            Compute::Float(&|x| x[0] % x[1]),
            dst.as_ref(),
        )
    } else {
        zero_division(&args)?;
        let f = |x: &[i64]| x[0].wrapping_rem(x[1]);
        run_into(&args, common, common, Compute::Int(&f), dst.as_ref())
    }
}

/// Integer power with wrapping, as PyTorch's `powi`: negative exponents give 0 except for
/// bases 1 and -1.
pub(crate) fn powi(mut base: i64, mut exp: i64) -> i64 {
    if exp < 0 {
        return match base {
            1 => 1,
            -1 => {
                if exp & 1 != 0 {
                    -1
                } else {
                    1
                }
            }
            _ => 0,
        };
    }
    let mut result: i64 = 1;
    while exp != 0 {
        if exp & 1 != 0 {
            result = result.wrapping_mul(base);
        }
        exp /= 2;
        base = base.wrapping_mul(base);
    }
    result
}

/// `pow`: Tensor ** Tensor, Tensor ** Scalar and Scalar ** Tensor.
fn pow(c: &Call) -> Result<Tensor, String> {
    let (a, b) = operands(c)?;
    let common = common_dtype(&[a.clone(), b.clone()]);
    if common == DType::Bool {
        return Err(not_implemented("pow", common));
    }
    if !common.is_floating() {
        if let Arg::Int(e) = b {
            if e < 0 {
                return Err("Integers to negative integer powers are not allowed.".into());
            }
        }
    }
    let args = [a, b];
    let dst = prepare(c, &args, common)?;
    if common.is_floating() {
        // PyTorch computes these exponents with sqrt (sqrt(-0.0) is -0.0, of -inf NaN).
        let f: &(dyn Fn(&[f64]) -> f64 + Sync) = match &args[1] {
            Arg::Float(e) if *e == 0.5 => &|x| x[0].sqrt(),
            Arg::Float(e) if *e == -0.5 => &|x| 1.0 / x[0].sqrt(),
            _ => &|x| x[0].powf(x[1]),
        };
        run_into(&args, common, common, Compute::Float(f), dst.as_ref())
    } else {
        run_into(
            &args,
            common,
            common,
            Compute::Int(&|x| powi(x[0], x[1])),
            dst.as_ref(),
        )
    }
}

/// `float_power`: computed and returned in float64.
fn float_power(c: &Call) -> Result<Tensor, String> {
    let (a, b) = operands(c)?;
    let args = [a, b];
    if c.in_place() {
        let me = c.tensor("self")?;
        if me.dtype() != DType::F64 {
            return Err(format!(
                "the base given to float_power_ has dtype {} but the operation's result requires dtype Double",
                type_name(me.dtype())
            ));
        }
    }
    run(
        c,
        &args,
        DType::F64,
        DType::F64,
        Compute::Float(&|x| x[0].powf(x[1])),
    )
}

/// A binary op computed in floating point: integers promote to the default float unless
/// `kernel` names a floating-only kernel (then they are refused with its name).
fn float_binary(c: &Call, kernel: Option<&str>, f: fn(f64, f64) -> f64) -> Result<Tensor, String> {
    let (a, b) = operands(c)?;
    let mut common = common_dtype(&[a.clone(), b.clone()]);
    match kernel {
        Some(k) => Support::Floating.check(k, common)?,
        None => common = to_float(common),
    }
    let args = [a, b];
    run(c, &args, common, common, Compute::Float(&|x| f(x[0], x[1])))
}

fn logaddexp(a: f64, b: f64) -> f64 {
    if a.is_infinite() && a == b {
        return a;
    }
    let m = a.max(b);
    m + (-(a - b).abs()).exp().ln_1p()
}

fn logaddexp2(a: f64, b: f64) -> f64 {
    if a.is_infinite() && a == b {
        return a;
    }
    let m = a.max(b);
    m + (-(a - b).abs()).exp2().ln_1p() / std::f64::consts::LN_2
}

fn xlogy(x: f64, y: f64) -> f64 {
    if y.is_nan() {
        return f64::NAN;
    }
    if x == 0.0 {
        return 0.0;
    }
    x * y.ln()
}

/// `maximum`/`minimum` (NaN wins) and `fmax`/`fmin` (NaN loses).
fn extremum(c: &Call, max: bool, nan_wins: bool) -> Result<Tensor, String> {
    let (a, b) = operands(c)?;
    let common = common_dtype(&[a.clone(), b.clone()]);
    let args = [a, b];
    if common.is_floating() {
        let f = move |x: &[f64]| {
            let (p, q) = (x[0], x[1]);
            if p.is_nan() || q.is_nan() {
                return match (nan_wins, p.is_nan()) {
                    (true, true) => p,
                    (true, false) => q,
                    (false, true) => q,
                    (false, false) => p,
                };
            }
            if (p > q) == max && p != q {
                p
            } else {
                q
            }
        };
        run(c, &args, common, common, Compute::Float(&f))
    } else {
        let f = move |x: &[i64]| if max { x[0].max(x[1]) } else { x[0].min(x[1]) };
        run(c, &args, common, common, Compute::Int(&f))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::ivalue::IValue;

    fn bin(op: &str, ty: &str) -> String {
        graph(
            &format!("%x : Tensor, %y : {ty}"),
            &format!("  %r : Tensor = {op}(%x, %y)"),
        )
    }

    /// `op(%x, %y, alpha=1)`.
    fn bin_alpha(op: &str, ty: &str) -> String {
        graph(
            &format!("%x : Tensor, %y : {ty}"),
            &format!("  %a : int = prim::Constant[value=1]()\n  %r : Tensor = {op}(%x, %y, %a)"),
        )
    }

    #[test]
    fn add_with_alpha_promotes_and_checks_alpha() {
        let src = graph(
            "%x : Tensor, %y : Tensor, %a : Scalar",
            "  %r : Tensor = aten::add(%x, %y, %a)",
        );
        let out = run1(
            &src,
            vec![
                t(vec![1i32, 2], &[2]),
                t(vec![0.5f32], &[1]),
                IValue::Int(2),
            ],
        )
        .unwrap();
        assert_eq!(out.dtype(), DType::F32);
        assert_eq!(out.to_vec::<f32>(), vec![2.0, 3.0]);
        let err = run_graph(
            &src,
            vec![
                t(vec![1i32], &[1]),
                t(vec![1i32], &[1]),
                IValue::Double(2.5),
            ],
        )
        .unwrap_err();
        assert_eq!(
            err,
            "For integral input tensors, argument alpha must not be a floating point number."
        );
    }

    #[test]
    fn integer_division_semantics() {
        let x = t(vec![7i64, -7, 7, -7], &[4]);
        let y = t(vec![2i64, 2, -2, -2], &[4]);
        let src = graph(
            "%x : Tensor, %y : Tensor",
            "  %m : str = prim::Constant[value=\"floor\"]()\n  %r : Tensor = aten::div(%x, %y, %m)",
        );
        let out = run1(&src, vec![x.clone(), y.clone()]).unwrap();
        assert_eq!(out.to_vec::<i64>(), vec![3, -4, -4, 3]);
        let out = run1(
            &bin("aten::remainder", "Tensor"),
            vec![x.clone(), y.clone()],
        )
        .unwrap();
        assert_eq!(out.to_vec::<i64>(), vec![1, 1, -1, -1]);
        let out = run1(&bin("aten::fmod", "Tensor"), vec![x.clone(), y.clone()]).unwrap();
        assert_eq!(out.to_vec::<i64>(), vec![1, -1, 1, -1]);
        let out = run1(&bin("aten::div", "Tensor"), vec![x.clone(), y]).unwrap();
        assert_eq!(out.to_vec::<f32>(), vec![3.5, -3.5, -3.5, 3.5]);
        let err = run_graph(
            &bin("aten::floor_divide", "int"),
            vec![x.clone(), IValue::Int(0)],
        )
        .unwrap_err();
        assert_eq!(err, "ZeroDivisionError");
        let err = run_graph(&bin("aten::remainder", "int"), vec![x, IValue::Int(0)]).unwrap_err();
        assert_eq!(err, "ZeroDivisionError");
    }

    #[test]
    fn float_division_edge_cases() {
        assert_eq!(div_floor_f(-7.5, 0.0), f64::NEG_INFINITY);
        assert_eq!(div_floor_f(7.5, -2.0), -4.0);
        assert!(div_floor_f(-0.5, 2.0) == -1.0);
        assert!(div_floor_f(0.0, -2.0).is_sign_negative());
        let out = run1(
            &bin("aten::remainder", "float"),
            vec![t(vec![1.5f32, -2.5, 0.0], &[3]), IValue::Double(-2.0)],
        )
        .unwrap();
        assert_eq!(out.to_vec::<f32>(), vec![-0.5, -0.5, 0.0]);
    }

    #[test]
    fn integer_powers() {
        assert_eq!(
            (powi(3, 4), powi(-1, -3), powi(1, -2), powi(2, -1)),
            (81, -1, 1, 0)
        );
        let err = run_graph(
            &bin("aten::pow", "int"),
            vec![t(vec![2i32], &[1]), IValue::Int(-1)],
        )
        .unwrap_err();
        assert_eq!(err, "Integers to negative integer powers are not allowed.");
        let out = run1(
            &bin("aten::pow", "int"),
            vec![t(vec![true, false], &[2]), IValue::Int(2)],
        )
        .unwrap();
        assert_eq!(out.dtype(), DType::I64);
        let src = graph(
            "%x : Tensor",
            "  %b : int = prim::Constant[value=2]()\n  %r : Tensor = aten::pow(%b, %x)",
        );
        let out = run1(&src, vec![t(vec![3i32, -1, 0], &[3])]).unwrap();
        assert_eq!(out.to_vec::<i32>(), vec![8, 0, 1]);
    }

    #[test]
    fn sub_refuses_bools_and_rsub_reverses() {
        let err = run_graph(
            &bin_alpha("aten::sub", "Tensor"),
            vec![t(vec![true], &[1]), t(vec![true], &[1])],
        )
        .unwrap_err();
        assert!(err.starts_with("Subtraction, the `-` operator, with two bool tensors"));
        let src = graph(
            "%x : Tensor, %y : int",
            "  %a : int = prim::Constant[value=2]()\n  %r : Tensor = aten::rsub(%x, %y, %a)",
        );
        let out = run1(&src, vec![t(vec![3i32, -7], &[2]), IValue::Int(1)]).unwrap();
        assert_eq!(out.to_vec::<i32>(), vec![-5, 15]);
    }

    #[test]
    fn in_place_writes_through_views_and_checks_casts() {
        let base = Tensor::from_vec(vec![1f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
        let col = base.t().unwrap();
        run1(
            &bin("aten::mul_", "int"),
            vec![IValue::Tensor(col), IValue::Int(10)],
        )
        .unwrap();
        assert_eq!(base.to_vec::<f32>(), vec![10.0, 20.0, 30.0, 40.0]);
        let err = run_graph(
            &bin_alpha("aten::add_", "float"),
            vec![t(vec![1i32], &[1]), IValue::Double(1.5)],
        )
        .unwrap_err();
        assert_eq!(
            err,
            "result type Float can't be cast to the desired output type Int"
        );
        let err = run_graph(
            &bin_alpha("aten::add_", "Tensor"),
            vec![t(vec![0f32; 3], &[3]), t(vec![1f32; 6], &[2, 3])],
        )
        .unwrap_err();
        assert_eq!(
            err,
            "output with shape [3] doesn't match the broadcast shape [2, 3]"
        );
    }

    #[test]
    fn extrema_and_nan() {
        let x = t(vec![1.0f64, f64::NAN, 3.0], &[3]);
        let y = t(vec![2.0f64, 0.0, f64::NAN], &[3]);
        let out = run1(&bin("aten::maximum", "Tensor"), vec![x.clone(), y.clone()]).unwrap();
        let v = out.to_vec::<f64>();
        assert!(v[0] == 2.0 && v[1].is_nan() && v[2].is_nan());
        let out = run1(&bin("aten::fmin", "Tensor"), vec![x, y]).unwrap();
        assert_eq!(out.to_vec::<f64>(), vec![1.0, 0.0, 3.0]);
    }
}
