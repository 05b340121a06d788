//! Builtins on Python scalars (int, float, bool) with TorchScript's semantics: floor division
//! and modulo round toward negative infinity, true division gives a float, int arithmetic
//! wraps like PyTorch's int64. Integer `//` and `%` by zero raise; float division by zero
//! gives IEEE infinities and NaN, as TorchScript does (unlike Python).

use std::sync::Arc;

use super::registry::Registry;
use super::{pop, Operation, Stack};
use crate::ivalue::IValue;

pub fn register(r: &mut Registry) {
    r.add("aten::add", |_, _| {
        Ok(binary(arith(i64::wrapping_add, |a, b| a + b)))
    });
    r.add("aten::sub", |_, _| {
        Ok(binary(arith(i64::wrapping_sub, |a, b| a - b)))
    });
    r.add("aten::mul", |_, _| {
        Ok(binary(arith(i64::wrapping_mul, |a, b| a * b)))
    });
    r.add("aten::floordiv", |_, _| Ok(binary(floordiv)));
    r.add("aten::remainder", |_, _| Ok(binary(remainder)));
    r.add("aten::__mod__", |_, _| Ok(binary(remainder)));
    r.add("aten::div", |_, _| Ok(binary(true_div)));
    r.add("aten::neg", |_, _| Ok(unary(neg)));
    r.add("aten::lt", |_, _| Ok(binary(compare(|o| o.is_lt()))));
    r.add("aten::le", |_, _| Ok(binary(compare(|o| o.is_le()))));
    r.add("aten::gt", |_, _| Ok(binary(compare(|o| o.is_gt()))));
    r.add("aten::ge", |_, _| Ok(binary(compare(|o| o.is_ge()))));
    r.add("aten::eq", |_, _| Ok(binary(equal(false))));
    r.add("aten::ne", |_, _| Ok(binary(equal(true))));
    r.add("aten::__not__", |_, _| Ok(unary(not)));
    r.add("aten::__and__", |_, _| {
        Ok(binary(bool_op(|a, b| a & b, |a, b| a & b)))
    });
    r.add("aten::__or__", |_, _| {
        Ok(binary(bool_op(|a, b| a | b, |a, b| a | b)))
    });
    r.add("aten::__xor__", |_, _| {
        Ok(binary(bool_op(|a, b| a ^ b, |a, b| a ^ b)))
    });
}

fn binary(
    f: impl Fn(&IValue, &IValue) -> Result<IValue, String> + Send + Sync + 'static,
) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let b = pop(s)?;
        let a = pop(s)?;
        s.push(f(&a, &b)?);
        Ok(())
    })
}

fn unary(f: fn(&IValue) -> Result<IValue, String>) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let a = pop(s)?;
        s.push(f(&a)?);
        Ok(())
    })
}

/// A numeric operand: ints stay ints only when both sides are ints (bools count as ints).
enum Num {
    Int(i64),
    Float(f64),
}

fn num(v: &IValue) -> Option<Num> {
    match v {
        IValue::Int(i) => Some(Num::Int(*i)),
        IValue::Bool(b) => Some(Num::Int(*b as i64)),
        IValue::Double(d) => Some(Num::Float(*d)),
        _ => None,
    }
}

fn unsupported(op: &str, a: &IValue, b: &IValue) -> String {
    format!(
        "unsupported operand type(s) for {op}: '{}' and '{}'",
        a.kind_name(),
        b.kind_name()
    )
}

fn arith(
    int: fn(i64, i64) -> i64,
    float: fn(f64, f64) -> f64,
) -> impl Fn(&IValue, &IValue) -> Result<IValue, String> + Send + Sync {
    move |a, b| match (num(a), num(b)) {
        (Some(Num::Int(x)), Some(Num::Int(y))) => Ok(IValue::Int(int(x, y))),
        (Some(x), Some(y)) => Ok(IValue::Double(float(as_f64(x), as_f64(y)))),
        _ => match (a, b) {
            // str + str and list + list are the other `aten::add` overloads.
            (IValue::Str(x), IValue::Str(y)) => Ok(IValue::str(format!("{x}{y}"))),
            (IValue::List(x), IValue::List(y)) => {
                let mut items = x.to_vec();
                items.extend(y.to_vec());
                Ok(IValue::list(items))
            }
            _ => Err(unsupported("arithmetic", a, b)),
        },
    }
}

fn as_f64(n: Num) -> f64 {
    match n {
        Num::Int(i) => i as f64,
        Num::Float(f) => f,
    }
}

fn floordiv(a: &IValue, b: &IValue) -> Result<IValue, String> {
    match (num(a), num(b)) {
        (Some(Num::Int(_)), Some(Num::Int(0))) => Err("division by 0".into()),
        (Some(Num::Int(x)), Some(Num::Int(y))) => Ok(IValue::Int(
            x.wrapping_div(y) - (((x.wrapping_rem(y)) != 0 && ((x < 0) != (y < 0))) as i64),
        )),
        (Some(x), Some(y)) => Ok(IValue::Double(float_floordiv(as_f64(x), as_f64(y)))),
        _ => Err(unsupported("//", a, b)),
    }
}

/// Float floor division as TorchScript's `aten::floordiv.float`: the floor of the IEEE
/// quotient (so `1.0 // 0.1` is 10.0, where Python says 9.0, and `x // 0.0` is inf or NaN).
fn float_floordiv(x: f64, y: f64) -> f64 {
    (x / y).floor()
}

fn remainder(a: &IValue, b: &IValue) -> Result<IValue, String> {
    match (num(a), num(b)) {
        (Some(Num::Int(_)), Some(Num::Int(0))) => {
            Err("ZeroDivisionError: integer division or modulo by zero".into())
        }
        (Some(Num::Int(x)), Some(Num::Int(y))) => {
            let r = x.wrapping_rem(y);
            Ok(IValue::Int(if r != 0 && ((r < 0) != (y < 0)) {
                r + y
            } else {
                r
            }))
        }
        (Some(x), Some(y)) => {
            let (x, y) = (as_f64(x), as_f64(y));
            // By zero, fmod gives NaN, as TorchScript returns.
            let mut r = x % y;
            if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
                r += y;
            } else if r == 0.0 {
                r = 0.0f64.copysign(y);
            }
            Ok(IValue::Double(r))
        }
        _ => Err(unsupported("%", a, b)),
    }
}

fn true_div(a: &IValue, b: &IValue) -> Result<IValue, String> {
    match (num(a), num(b)) {
        (Some(x), Some(y)) => Ok(IValue::Double(as_f64(x) / as_f64(y))),
        _ => Err(unsupported("/", a, b)),
    }
}

fn neg(a: &IValue) -> Result<IValue, String> {
    match num(a) {
        Some(Num::Int(i)) => Ok(IValue::Int(i.wrapping_neg())),
        Some(Num::Float(f)) => Ok(IValue::Double(-f)),
        None => Err(format!("bad operand type for unary -: '{}'", a.kind_name())),
    }
}

fn compare(
    test: fn(std::cmp::Ordering) -> bool,
) -> impl Fn(&IValue, &IValue) -> Result<IValue, String> + Send + Sync {
    move |a, b| {
        let ord = match (num(a), num(b)) {
            (Some(Num::Int(x)), Some(Num::Int(y))) => Some(x.cmp(&y)),
            (Some(x), Some(y)) => as_f64(x).partial_cmp(&as_f64(y)),
            _ => match (a, b) {
                (IValue::Str(x), IValue::Str(y)) => Some(x.cmp(y)),
                _ => return Err(unsupported("comparison", a, b)),
            },
        };
        // NaN compares false every way.
        Ok(IValue::Bool(ord.is_some_and(test)))
    }
}

fn equal(negate: bool) -> impl Fn(&IValue, &IValue) -> Result<IValue, String> + Send + Sync {
    move |a, b| {
        let eq = match (num(a), num(b)) {
            (Some(Num::Int(x)), Some(Num::Int(y))) => x == y,
            (Some(x), Some(y)) => as_f64(x) == as_f64(y),
            _ => match (a, b) {
                (IValue::Str(x), IValue::Str(y)) => x == y,
                (IValue::None, IValue::None) => true,
                (IValue::Device(x), IValue::Device(y)) => x == y,
                _ => return Err(unsupported("==", a, b)),
            },
        };
        Ok(IValue::Bool(eq != negate))
    }
}

fn not(a: &IValue) -> Result<IValue, String> {
    match a {
        IValue::Bool(b) => Ok(IValue::Bool(!b)),
        other => Err(format!(
            "aten::__not__ expects a bool, got {}",
            other.kind_name()
        )),
    }
}

fn bool_op(
    b: fn(bool, bool) -> bool,
    i: fn(i64, i64) -> i64,
) -> impl Fn(&IValue, &IValue) -> Result<IValue, String> + Send + Sync {
    move |x, y| match (x, y) {
        (IValue::Bool(p), IValue::Bool(q)) => Ok(IValue::Bool(b(*p, *q))),
        (IValue::Int(p), IValue::Int(q)) => Ok(IValue::Int(i(*p, *q))),
        _ => Err(unsupported("bitwise", x, y)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(v: i64) -> IValue {
        IValue::Int(v)
    }
    fn f(v: f64) -> IValue {
        IValue::Double(v)
    }

    #[test]
    fn python_division_semantics() {
        let fd = |a, b| floordiv(&i(a), &i(b)).unwrap().as_int().unwrap();
        let md = |a, b| remainder(&i(a), &i(b)).unwrap().as_int().unwrap();
        assert_eq!((fd(7, 2), fd(-7, 2), fd(7, -2), fd(-7, -2)), (3, -4, -4, 3));
        assert_eq!((md(7, 2), md(-7, 2), md(7, -2), md(-7, -2)), (1, 1, -1, -1));
        assert_eq!(fd(i64::MIN, -1), i64::MIN);
        assert_eq!(floordiv(&i(1), &i(0)).unwrap_err(), "division by 0");
        assert!(remainder(&i(1), &i(0))
            .unwrap_err()
            .starts_with("ZeroDivisionError"));
        assert_eq!(
            floordiv(&f(-1.0), &f(0.0)).unwrap().as_double(),
            Some(f64::NEG_INFINITY)
        );
        assert!(remainder(&f(1.0), &f(0.0))
            .unwrap()
            .as_double()
            .unwrap()
            .is_nan());
        assert_eq!(
            true_div(&i(1), &i(0)).unwrap().as_double(),
            Some(f64::INFINITY)
        );
        let ff = |a, b| floordiv(&f(a), &f(b)).unwrap().as_double().unwrap();
        assert_eq!(
            (ff(7.5, 2.0), ff(-7.5, 2.0), ff(1.0, 0.1)),
            (3.0, -4.0, 10.0)
        );
        let fm = |a, b| remainder(&f(a), &f(b)).unwrap().as_double().unwrap();
        assert_eq!((fm(-7.5, 2.0), fm(7.5, -2.0)), (0.5, -0.5));
        assert!(fm(-4.0, 2.0).is_sign_positive() && fm(4.0, -2.0).is_sign_negative());
        assert_eq!(true_div(&i(7), &i(2)).unwrap().as_double(), Some(3.5));
        assert_eq!(
            arith(i64::wrapping_add, |a, b| a + b)(&i(i64::MAX), &i(1))
                .unwrap()
                .as_int(),
            Some(i64::MIN)
        );
    }

    #[test]
    fn comparisons_and_nan() {
        let lt = compare(|o| o.is_lt());
        assert_eq!(lt(&i(1), &f(1.5)).unwrap().as_bool(), Some(true));
        assert_eq!(lt(&f(f64::NAN), &f(1.0)).unwrap().as_bool(), Some(false));
        assert_eq!(
            equal(true)(&f(f64::NAN), &f(f64::NAN)).unwrap().as_bool(),
            Some(true)
        );
        assert!(lt(&IValue::None, &i(1)).is_err());
    }
}
