//! The `math` module on Python numbers, as TorchScript runs it: ints convert to float, domain
//! errors give NaN or infinities (C's functions, not Python's exceptions), `floor`/`ceil` give
//! ints, `factorial` wraps on overflow like int64 arithmetic. (TorchScript compiles no
//! `math.trunc` or `math.hypot`.)

use std::sync::Arc;

use super::int_float::float_to_int;
use super::{binary, builtin, float, int, unary};
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::ops::Operation;

/// Registers a one-argument float function for every non-tensor overload of `$kind`.
macro_rules! float_fn {
    ($r:expr, $kind:expr, $f:expr) => {
        builtin!($r, $kind, |o, _, _| (!o.contains("complex"))
            .then(|| unary(|a| Ok(IValue::Double(($f)(float(a)?))))))
    };
}

/// Registers a two-argument float function.
macro_rules! float_fn2 {
    ($r:expr, $kind:expr, $f:expr) => {
        builtin!($r, $kind, |o, _, _| (!o.contains("complex")).then(|| {
            binary(|a, b| Ok(IValue::Double(($f)(float(a)?, float(b)?))))
        }))
    };
}

/// Registers a float predicate.
macro_rules! float_test {
    ($r:expr, $kind:expr, $f:expr) => {
        builtin!($r, $kind, |o, _, _| (!o.contains("complex"))
            .then(|| unary(|a| Ok(IValue::Bool(($f)(float(a)?))))))
    };
}

pub fn register(r: &mut Registry) {
    float_fn!(r, "aten::sqrt", f64::sqrt);
    float_fn!(r, "aten::exp", f64::exp);
    float_fn!(r, "aten::log10", f64::log10);
    float_fn!(r, "aten::log1p", libm::log1p);
    float_fn!(r, "aten::expm1", libm::expm1);
    float_fn!(r, "aten::sin", f64::sin);
    float_fn!(r, "aten::cos", f64::cos);
    float_fn!(r, "aten::tan", f64::tan);
    float_fn!(r, "aten::asin", f64::asin);
    float_fn!(r, "aten::acos", f64::acos);
    float_fn!(r, "aten::atan", f64::atan);
    float_fn!(r, "aten::sinh", f64::sinh);
    float_fn!(r, "aten::cosh", f64::cosh);
    float_fn!(r, "aten::tanh", f64::tanh);
    float_fn!(r, "aten::asinh", f64::asinh);
    float_fn!(r, "aten::acosh", f64::acosh);
    float_fn!(r, "aten::atanh", f64::atanh);
    float_fn!(r, "aten::fabs", f64::abs);
    float_fn!(r, "aten::erf", libm::erf);
    float_fn!(r, "aten::erfc", libm::erfc);
    float_fn!(r, "aten::gamma", libm::tgamma);
    float_fn!(r, "aten::lgamma", libm::lgamma);
    float_fn!(r, "aten::degrees", f64::to_degrees);
    float_fn!(r, "aten::radians", f64::to_radians);
    float_fn2!(r, "aten::atan2", f64::atan2);
    float_fn2!(r, "aten::fmod", libm::fmod);
    float_fn2!(r, "aten::copysign", f64::copysign);
    float_fn2!(r, "aten::mathremainder", libm::remainder);
    float_test!(r, "aten::isnan", f64::is_nan);
    float_test!(r, "aten::isinf", f64::is_infinite);
    float_test!(r, "aten::isfinite", f64::is_finite);
    builtin!(r, "aten::log", |o, g, n| {
        if o.contains("complex") {
            None
        } else if super::arity(g, n) == 2 {
            Some(binary(|a, b| {
                Ok(IValue::Double(log_base(float(a)?, float(b)?)))
            }))
        } else {
            Some(unary(|a| Ok(IValue::Double(float(a)?.ln()))))
        }
    });
    builtin!(r, "aten::floor", |_, _, _| Some(unary(|a| to_int_by(
        a,
        f64::floor
    ))));
    builtin!(r, "aten::ceil", |_, _, _| Some(unary(|a| to_int_by(
        a,
        f64::ceil
    ))));
    builtin!(r, "aten::gcd", |_, _, _| Some(binary(gcd)));
    builtin!(r, "aten::factorial", |_, _, _| Some(
        Arc::new(factorial) as Operation
    ));
}

/// `math.log(x, base)`: `log(x) / log(base)`, as PyTorch computes it.
fn log_base(x: f64, base: f64) -> f64 {
    x.ln() / base.ln()
}

/// `math.floor`/`ceil` of a float: an int; infinities and NaN cannot convert.
fn to_int_by(a: &IValue, f: fn(f64) -> f64) -> Result<IValue, String> {
    match a {
        IValue::Int(i) => Ok(IValue::Int(*i)),
        IValue::Bool(b) => Ok(IValue::Int(*b as i64)),
        other => {
            let d = float(other)?;
            if !d.is_finite() {
                return Err(format!(
                    "Cannot convert float {} to integer",
                    super::display::float_str(d)
                ));
            }
            Ok(IValue::Int(float_to_int(f(d))))
        }
    }
}

fn gcd(a: &IValue, b: &IValue) -> Result<IValue, String> {
    let (mut x, mut y) = (int(a)?.unsigned_abs(), int(b)?.unsigned_abs());
    while y != 0 {
        (x, y) = (y, x % y);
    }
    Ok(IValue::Int(x as i64))
}

fn factorial(s: &mut Vec<IValue>) -> Result<(), String> {
    let n = int(&super::pop(s)?)?;
    if n < 0 {
        return Err("factorial() not defined for negative values".into());
    }
    // The product modulo 2^64 is 0 from 66! on (it has 64 factors of two), so large
    // arguments need no loop.
    let mut acc: i64 = 1;
    for k in 2..=n.min(66) {
        acc = acc.wrapping_mul(k);
    }
    if n > 66 {
        acc = 0;
    }
    s.push(IValue::Int(acc));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn factorial_wraps_like_int64() {
        let f = |n: i64| {
            let mut s = vec![IValue::Int(n)];
            factorial(&mut s).map(|_| s[0].as_int().unwrap())
        };
        assert_eq!(f(0), Ok(1));
        assert_eq!(f(20), Ok(2432902008176640000));
        assert_eq!(f(21), Ok(-4249290049419214848));
        assert_eq!(f(1000), Ok(0));
        assert!(f(-1).is_err());
    }

    #[test]
    fn floor_of_special_values_fails() {
        assert_eq!(
            to_int_by(&IValue::Double(f64::INFINITY), f64::floor).unwrap_err(),
            "Cannot convert float inf to integer"
        );
        assert_eq!(
            to_int_by(&IValue::Double(-1.5), f64::floor)
                .unwrap()
                .as_int(),
            Some(-2)
        );
        assert_eq!(
            gcd(&IValue::Int(-12), &IValue::Int(18)).unwrap().as_int(),
            Some(6)
        );
    }
}
