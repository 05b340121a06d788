//! Builtins on Python scalars (int, float, bool) with TorchScript's semantics: floor division
//! and modulo round toward negative infinity, true division gives a float, int arithmetic
//! wraps like PyTorch's int64. Integer `//` and `%` by zero raise; float division by zero
//! gives IEEE infinities and NaN, as TorchScript does (unlike Python). Also pow, abs,
//! min/max, round, divmod, the int()/float()/bool()/str() conversions, hex/oct/bin/chr/ord,
//! shifts, and the `+`/`*`/`==`/`<` overloads on strings, lists and tuples.

use std::cmp::Ordering;
use std::sync::Arc;

use super::compare::{order, values_equal};
use super::{builtin, float, int, string};
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::ops::{pop, Operation, Stack};

pub fn register(r: &mut Registry) {
    r.add("aten::add", |_, _| Ok(binary(add)));
    r.add("aten::sub", |_, _| Ok(binary(sub)));
    r.add("aten::mul", |_, _| Ok(binary(mul)));
    r.add("aten::floordiv", |_, _| Ok(binary(floordiv)));
    r.add("aten::remainder", |_, _| Ok(binary(remainder)));
    r.add("aten::__mod__", |_, _| Ok(binary(remainder)));
    r.add("aten::div", |_, _| Ok(binary(true_div)));
    r.add("aten::neg", |_, _| Ok(unary(neg)));
    r.add("aten::lt", |_, _| Ok(binary(compare(|o| o.is_lt()))));
    r.add("aten::le", |_, _| Ok(binary(compare(|o| o.is_le()))));
    r.add("aten::gt", |_, _| Ok(binary(compare(|o| o.is_gt()))));
    r.add("aten::ge", |_, _| Ok(binary(compare(|o| o.is_ge()))));
    r.add("aten::eq", |g, n| {
        Ok(same_input(g, n, true).unwrap_or_else(|| binary(equal(false))))
    });
    r.add("aten::ne", |g, n| {
        Ok(same_input(g, n, false).unwrap_or_else(|| binary(equal(true))))
    });
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
    builtin!(r, "aten::__lshift__", |_, _, _| Some(binary(shift(true))));
    builtin!(r, "aten::__rshift__", |_, _, _| Some(binary(shift(false))));
    builtin!(r, "aten::pow", |o, _, _| match o {
        "int_to_int" => Some(binary(int_pow)),
        "Scalar" | "Scalar_out" => None,
        _ => Some(binary(float_pow)),
    });
    builtin!(r, "prim::abs", |_, _, _| Some(unary(abs)));
    builtin!(r, "prim::min", |o, _, _| {
        (!o.contains("list") && !o.starts_with("self")).then(|| binary(min_max(Ordering::Less)))
    });
    builtin!(r, "prim::max", |o, _, _| {
        (!o.contains("list") && !o.starts_with("self")).then(|| binary(min_max(Ordering::Greater)))
    });
    builtin!(r, "aten::Complex", |_, g, n| Some(
        if super::arity(g, n) == 2 {
            binary(|re, im| Ok(complex((float(re)?, float(im)?))))
        } else {
            unary(|v| match v {
                IValue::Complex(_) => Ok(v.clone()),
                other => Ok(complex((float(other)?, 0.0))),
            })
        }
    ));
    builtin!(r, "aten::round", |_, _, _| Some(unary(round)));
    builtin!(r, "aten::divmod", |_, _, _| Some(
        Arc::new(divmod) as Operation
    ));
    builtin!(r, "aten::Int", |_, _, _| Some(unary(to_int)));
    builtin!(r, "aten::Float", |_, _, _| Some(unary(to_float)));
    builtin!(r, "aten::Bool", |_, _, _| Some(unary(to_bool)));
    builtin!(r, "aten::hex", |_, _, _| Some(unary(|v| radix(
        v, "0x", 16
    ))));
    builtin!(r, "aten::oct", |_, _, _| Some(unary(|v| radix(v, "0o", 8))));
    builtin!(r, "aten::bin", |_, _, _| Some(unary(|v| radix(v, "0b", 2))));
    builtin!(r, "aten::chr", |_, _, _| Some(unary(chr)));
    builtin!(r, "aten::ord", |_, _, _| Some(unary(ord)));
    builtin!(r, "aten::__range_length", |_, _, _| Some(
        Arc::new(range_length) as Operation
    ));
    builtin!(r, "aten::__derive_index", |_, _, _| Some(
        Arc::new(derive_index) as Operation
    ));
    builtin!(r, "aten::__round_to_zero_floordiv", |_, _, _| {
        Some(binary(round_to_zero_floordiv))
    });
}

/// `x == x` and `x != x` on one non-tensor value: PyTorch's executor folds them to true and
/// false before running (so a NaN float equals itself there); Ember decides at load time too.
fn same_input(
    g: &ember_dialects::Graph,
    n: ember_dialects::Node,
    result: bool,
) -> Option<Operation> {
    let inputs = g.node_inputs(n);
    if inputs.len() != 2 || inputs[0] != inputs[1] || g.ty(inputs[0]).is_tensor() {
        return None;
    }
    Some(Arc::new(move |s: &mut Stack| {
        pop(s)?;
        pop(s)?;
        s.push(IValue::Bool(result));
        Ok(())
    }))
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

fn unary(f: impl Fn(&IValue) -> Result<IValue, String> + Send + Sync + 'static) -> Operation {
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
        IValue::ScalarType(d) => Some(Num::Int(d.scalar_type() as i64)),
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

type Complex = (f64, f64);

/// Both operands as complex numbers when one of them is complex.
fn complex_pair(a: &IValue, b: &IValue) -> Option<(Complex, Complex)> {
    let c = |v: &IValue| match v {
        IValue::Complex(c) => Some(**c),
        other => num(other).map(|n| (as_f64(n), 0.0)),
    };
    if matches!(a, IValue::Complex(_)) || matches!(b, IValue::Complex(_)) {
        Some((c(a)?, c(b)?))
    } else {
        None
    }
}

fn complex(c: Complex) -> IValue {
    IValue::Complex(Arc::new(c))
}

fn complex_mul(a: Complex, b: Complex) -> Complex {
    (a.0 * b.0 - a.1 * b.1, a.0 * b.1 + a.1 * b.0)
}

fn complex_div(a: Complex, b: Complex) -> Complex {
    let d = b.0 * b.0 + b.1 * b.1;
    ((a.0 * b.0 + a.1 * b.1) / d, (a.1 * b.0 - a.0 * b.1) / d)
}

pub(super) fn add(a: &IValue, b: &IValue) -> Result<IValue, String> {
    arith(
        i64::wrapping_add,
        |a, b| a + b,
        |a, b| (a.0 + b.0, a.1 + b.1),
    )(a, b)
}

pub(super) fn sub(a: &IValue, b: &IValue) -> Result<IValue, String> {
    arith(
        i64::wrapping_sub,
        |a, b| a - b,
        |a, b| (a.0 - b.0, a.1 - b.1),
    )(a, b)
}

pub(super) fn mul(a: &IValue, b: &IValue) -> Result<IValue, String> {
    arith(i64::wrapping_mul, |a, b| a * b, complex_mul)(a, b)
}

fn arith(
    int: fn(i64, i64) -> i64,
    float: fn(f64, f64) -> f64,
    cplx: fn(Complex, Complex) -> Complex,
) -> impl Fn(&IValue, &IValue) -> Result<IValue, String> + Send + Sync {
    move |a, b| match (num(a), num(b)) {
        (Some(Num::Int(x)), Some(Num::Int(y))) => Ok(IValue::Int(int(x, y))),
        (Some(x), Some(y)) => Ok(IValue::Double(float(as_f64(x), as_f64(y)))),
        _ if complex_pair(a, b).is_some() => {
            let (x, y) = complex_pair(a, b).unwrap_or_default();
            Ok(complex(cplx(x, y)))
        }
        _ => match (a, b) {
            // str + str and list + list are the other `aten::add` overloads.
            (IValue::Str(x), IValue::Str(y)) => Ok(IValue::str(format!("{x}{y}"))),
            (IValue::List(x), IValue::List(y)) => {
                let mut items = x.to_vec();
                items.extend(y.to_vec());
                Ok(IValue::list(items))
            }
            // `aten::mul.left_t` / `mul.right_`: a list repeated.
            (IValue::List(l), IValue::Int(n)) | (IValue::Int(n), IValue::List(l)) => {
                let items = l.to_vec();
                // PyTorch reserves `len * n` elements first: a negative count fails then.
                if *n < 0 && !items.is_empty() {
                    return Err("vector::reserve".into());
                }
                let times = (*n).max(0) as usize;
                let total = items.len().checked_mul(times).ok_or("std::bad_alloc")?;
                let mut out = super::try_vec(total)?;
                for _ in 0..times {
                    out.extend(items.iter().cloned());
                }
                Ok(IValue::list(out))
            }
            (IValue::Str(s), IValue::Int(n)) | (IValue::Int(n), IValue::Str(s)) => {
                let times = (*n).max(0) as usize;
                let total = s.len().checked_mul(times).ok_or("std::bad_alloc")?;
                let mut out = String::new();
                out.try_reserve_exact(total).map_err(|_| "std::bad_alloc")?;
                for _ in 0..times {
                    out.push_str(s);
                }
                Ok(IValue::str(out))
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

pub(super) fn floordiv(a: &IValue, b: &IValue) -> Result<IValue, String> {
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
pub(super) fn float_floordiv(x: f64, y: f64) -> f64 {
    (x / y).floor()
}

pub(super) fn remainder(a: &IValue, b: &IValue) -> Result<IValue, String> {
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
        (Some(x), Some(y)) => Ok(IValue::Double(float_remainder(as_f64(x), as_f64(y)))),
        _ => Err(unsupported("%", a, b)),
    }
}

/// Float `%`: the sign of the divisor; by zero, fmod gives NaN, as TorchScript returns.
pub(super) fn float_remainder(x: f64, y: f64) -> f64 {
    let mut r = x % y;
    if r != 0.0 && ((r < 0.0) != (y < 0.0)) {
        r += y;
    } else if r == 0.0 {
        r = 0.0f64.copysign(y);
    }
    r
}

pub(super) fn true_div(a: &IValue, b: &IValue) -> Result<IValue, String> {
    match (num(a), num(b)) {
        (Some(x), Some(y)) => Ok(IValue::Double(as_f64(x) / as_f64(y))),
        _ => match complex_pair(a, b) {
            Some((x, y)) => Ok(complex(complex_div(x, y))),
            None => Err(unsupported("/", a, b)),
        },
    }
}

pub(super) fn neg(a: &IValue) -> Result<IValue, String> {
    match num(a) {
        Some(Num::Int(i)) => Ok(IValue::Int(i.wrapping_neg())),
        Some(Num::Float(f)) => Ok(IValue::Double(-f)),
        None => match a {
            IValue::Complex(c) => Ok(complex((-c.0, -c.1))),
            _ => Err(format!("bad operand type for unary -: '{}'", a.kind_name())),
        },
    }
}

pub(super) fn compare(
    test: fn(std::cmp::Ordering) -> bool,
) -> impl Fn(&IValue, &IValue) -> Result<IValue, String> + Send + Sync {
    move |a, b| {
        let ord = match (num(a), num(b)) {
            (Some(Num::Int(x)), Some(Num::Int(y))) => Some(x.cmp(&y)),
            (Some(x), Some(y)) => as_f64(x).partial_cmp(&as_f64(y)),
            // Strings, lists and tuples in Python's lexicographic order.
            _ => order(a, b).map_err(|_| unsupported("comparison", a, b))?,
        };
        // NaN compares false every way.
        Ok(IValue::Bool(ord.is_some_and(test)))
    }
}

pub(super) fn equal(
    negate: bool,
) -> impl Fn(&IValue, &IValue) -> Result<IValue, String> + Send + Sync {
    move |a, b| {
        let eq = match (num(a), num(b)) {
            (Some(Num::Int(x)), Some(Num::Int(y))) => x == y,
            (Some(x), Some(y)) => as_f64(x) == as_f64(y),
            _ => values_equal(a, b)?,
        };
        Ok(IValue::Bool(eq != negate))
    }
}

pub(super) fn not(a: &IValue) -> Result<IValue, String> {
    match a {
        IValue::Bool(b) => Ok(IValue::Bool(!b)),
        other => Err(format!(
            "aten::__not__ expects a bool, got {}",
            other.kind_name()
        )),
    }
}

pub(super) fn bool_op(
    b: fn(bool, bool) -> bool,
    i: fn(i64, i64) -> i64,
) -> impl Fn(&IValue, &IValue) -> Result<IValue, String> + Send + Sync {
    move |x, y| match (x, y) {
        (IValue::Bool(p), IValue::Bool(q)) => Ok(IValue::Bool(b(*p, *q))),
        (IValue::Int(p), IValue::Int(q)) => Ok(IValue::Int(i(*p, *q))),
        _ => Err(unsupported("bitwise", x, y)),
    }
}

/// `a << b` and `a >> b` on int64 as the machine does them: the shift count is taken modulo
/// 64 (so `1 << 64` is 1), results wrap.
pub(super) fn shift(
    left: bool,
) -> impl Fn(&IValue, &IValue) -> Result<IValue, String> + Send + Sync {
    move |a, b| {
        let (x, y) = (int(a)?, int(b)? as u32);
        Ok(IValue::Int(if left {
            x.wrapping_shl(y)
        } else {
            x.wrapping_shr(y)
        }))
    }
}

/// `a ** b` for the overloads that give a float (`pow.int` included: `2 ** -1` is 0.5).
fn float_pow(a: &IValue, b: &IValue) -> Result<IValue, String> {
    let (x, y) = (float(a)?, float(b)?);
    if x == 0.0 && y < 0.0 {
        return Err("0.0 cannot be raised to a negative power".into());
    }
    Ok(IValue::Double(x.powf(y)))
}

/// `pow.int_to_int`: wrapping integer power.
fn int_pow(a: &IValue, b: &IValue) -> Result<IValue, String> {
    let (x, y) = (int(a)?, int(b)?);
    if y < 0 {
        if x == 0 {
            return Err("0.0 cannot be raised to a negative power".into());
        }
        return Err("Integers to negative integer powers are not allowed.".into());
    }
    let (mut base, mut exp, mut acc) = (x, y as u64, 1i64);
    while exp > 0 {
        if exp & 1 == 1 {
            acc = acc.wrapping_mul(base);
        }
        base = base.wrapping_mul(base);
        exp >>= 1;
    }
    Ok(IValue::Int(acc))
}

fn abs(a: &IValue) -> Result<IValue, String> {
    match a {
        IValue::Int(i) => Ok(IValue::Int(i.wrapping_abs())),
        IValue::Bool(b) => Ok(IValue::Int(*b as i64)),
        IValue::Double(d) => Ok(IValue::Double(d.abs())),
        IValue::Complex(c) => Ok(IValue::Double(c.0.hypot(c.1))),
        other => Err(format!(
            "bad operand type for abs(): '{}'",
            other.kind_name()
        )),
    }
}

/// `min(a, b)` / `max(a, b)` on numbers as PyTorch's `prim::min` (`a < b ? a : b`) and
/// `prim::max` (`a > b ? a : b`): ints stay ints, a float operand makes the result a float.
pub(super) fn min_max(
    keep: Ordering,
) -> impl Fn(&IValue, &IValue) -> Result<IValue, String> + Send + Sync {
    move |a, b| match (num(a), num(b)) {
        (Some(Num::Int(x)), Some(Num::Int(y))) => {
            Ok(IValue::Int(if x.cmp(&y) == keep { x } else { y }))
        }
        (Some(x), Some(y)) => {
            let (x, y) = (as_f64(x), as_f64(y));
            Ok(IValue::Double(if x.partial_cmp(&y) == Some(keep) {
                x
            } else {
                y
            }))
        }
        _ => Err(unsupported("min/max", a, b)),
    }
}

/// `round(x)`: halfway cases to even (C's `nearbyint`), always a float.
fn round(a: &IValue) -> Result<IValue, String> {
    match a {
        IValue::Double(d) => Ok(IValue::Double(d.round_ties_even())),
        other => Ok(IValue::Double(float(other)?)),
    }
}

/// `divmod(a, b)`: two outputs, the floor quotient and the remainder with the divisor's sign.
fn divmod(s: &mut Stack) -> Result<(), String> {
    let b = pop(s)?;
    let a = pop(s)?;
    match (num(&a), num(&b)) {
        (Some(Num::Int(_)), Some(Num::Int(0))) => {
            Err("ZeroDivisionError: integer division or modulo by zero".into())
        }
        (Some(Num::Int(_)), Some(Num::Int(_))) => {
            s.push(floordiv(&a, &b)?);
            s.push(remainder(&a, &b)?);
            Ok(())
        }
        (Some(x), Some(y)) => {
            let (x, y) = (as_f64(x), as_f64(y));
            if y == 0.0 {
                return Err("ZeroDivisionError: float divmod()".into());
            }
            // As CPython's float_divmod, which PyTorch copies.
            let m = x % y;
            let mut div = (x - m) / y;
            let mut m = m;
            if m != 0.0 {
                if (y < 0.0) != (m < 0.0) {
                    m += y;
                    div -= 1.0;
                }
            } else {
                m = 0.0f64.copysign(y);
            }
            let floordiv = if div != 0.0 {
                let f = div.floor();
                if div - f > 0.5 {
                    f + 1.0
                } else {
                    f
                }
            } else {
                0.0f64.copysign(x / y)
            };
            s.push(IValue::Double(floordiv));
            s.push(IValue::Double(m));
            Ok(())
        }
        _ => Err(unsupported("divmod", &a, &b)),
    }
}

/// A float converted to int64 as x86's `cvttsd2si` does: truncation, and the "integer
/// indefinite" value `i64::MIN` for NaN and out-of-range values (what PyTorch gives).
pub fn float_to_int(d: f64) -> i64 {
    // 2^63 bounds the range that converts.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if d.is_nan() || !(-LIMIT..LIMIT).contains(&d) {
        i64::MIN
    } else {
        d as i64
    }
}

pub(super) fn to_int(a: &IValue) -> Result<IValue, String> {
    Ok(IValue::Int(match a {
        IValue::Int(i) => *i,
        IValue::Bool(b) => *b as i64,
        IValue::Double(d) => float_to_int(*d),
        IValue::Str(s) => parse_int(s)?,
        other => return Err(format!("int() cannot convert a {}", other.kind_name())),
    }))
}

pub(super) fn to_float(a: &IValue) -> Result<IValue, String> {
    Ok(IValue::Double(match a {
        IValue::Str(s) => parse_float(s)?,
        other => float(other)?,
    }))
}

pub(super) fn to_bool(a: &IValue) -> Result<IValue, String> {
    Ok(IValue::Bool(match a {
        IValue::Bool(b) => *b,
        IValue::Int(i) => *i != 0,
        IValue::Double(d) => *d != 0.0,
        other => return Err(format!("bool() cannot convert a {}", other.kind_name())),
    }))
}

fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')
}

/// `int(str)` as PyTorch does it with `std::stoll`: leading whitespace and a sign are
/// accepted; no digits or overflow fail with stoll's own message; trailing text fails with
/// Python's message.
pub fn parse_int(s: &str) -> Result<i64, String> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    let start = i;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let digits = i;
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i == digits {
        return Err("stoll".into());
    }
    let value: i64 = s[start..i]
        .trim_start_matches('+')
        .parse()
        .map_err(|_| "stoll".to_string())?;
    if i != b.len() {
        return Err(format!("invalid literal for int() with base 10: '{s}'"));
    }
    Ok(value)
}

/// `float(str)` as PyTorch does it with `std::stod`: leading whitespace, a sign, decimal
/// digits with a point and exponent, `inf`/`infinity`/`nan` in any case.
pub fn parse_float(s: &str) -> Result<f64, String> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    let start = i;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    let rest = s[i..].to_ascii_lowercase();
    let end = if rest.starts_with("infinity") {
        i + 8
    } else if rest.starts_with("inf") || rest.starts_with("nan") {
        i + 3
    } else {
        let mantissa = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let mut digits = i - mantissa;
        if i < b.len() && b[i] == b'.' {
            i += 1;
            let frac = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            digits += i - frac;
        }
        if digits == 0 {
            return Err("stod".into());
        }
        if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
            let mut j = i + 1;
            if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                j += 1;
            }
            let exp_digits = j;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            if j > exp_digits {
                i = j;
            }
        }
        i
    };
    let text = &s[start..end];
    let value: f64 = text
        .trim_start_matches('+')
        .parse()
        .map_err(|_| "stod".to_string())?;
    // strtod reports ERANGE for results that overflow or underflow to zero; stod then throws.
    let is_zero_literal = !text.bytes().any(|c| (b'1'..=b'9').contains(&c))
        || text.to_ascii_lowercase().contains("nan");
    if (value.is_infinite() && !text.to_ascii_lowercase().contains("inf"))
        || (value == 0.0 && !is_zero_literal)
    {
        return Err("stod".into());
    }
    if end != b.len() {
        return Err(format!("could not convert string to float: '{s}'"));
    }
    Ok(value)
}

/// `hex`, `oct`, `bin`: Python's spelling, with the sign before the prefix.
fn radix(a: &IValue, prefix: &str, base: u32) -> Result<IValue, String> {
    let v = int(a)?;
    let m = v.unsigned_abs();
    let digits = match base {
        16 => format!("{m:x}"),
        8 => format!("{m:o}"),
        _ => format!("{m:b}"),
    };
    Ok(IValue::str(format!(
        "{}{prefix}{digits}",
        if v < 0 { "-" } else { "" }
    )))
}

/// `chr(i)`: PyTorch makes a one-byte string of `(char)i`; bytes past ASCII are kept as the
/// Latin-1 character of that byte, since Ember's strings are UTF-8.
fn chr(a: &IValue) -> Result<IValue, String> {
    let i = int(a)?;
    if !(0..0x110000).contains(&i) {
        return Err(format!("chr() arg not in range(0x110000), found {i}"));
    }
    Ok(IValue::str(((i & 0xff) as u8 as char).to_string()))
}

/// `ord(s)`: the byte of a one-byte string.
fn ord(a: &IValue) -> Result<IValue, String> {
    let s = string(a)?;
    if s.len() != 1 {
        return Err(format!(
            "String for ord() must be 1 character, found {}",
            s.len()
        ));
    }
    Ok(IValue::Int(s.as_bytes()[0] as i64))
}

/// `aten::__range_length(lo, hi, step)`: the trip count of `range(lo, hi, step)`.
fn range_length(s: &mut Stack) -> Result<(), String> {
    let step = int(&pop(s)?)?;
    let hi = int(&pop(s)?)?;
    let lo = int(&pop(s)?)?;
    if step == 0 {
        return Err("range() arg 3 must not be zero".into());
    }
    let n = if step > 0 && lo < hi {
        1 + (hi as i128 - 1 - lo as i128) / step as i128
    } else if step < 0 && lo > hi {
        1 + (lo as i128 - 1 - hi as i128) / (-(step as i128))
    } else {
        0
    };
    s.push(IValue::Int(n as i64));
    Ok(())
}

/// `aten::__derive_index(index, start, step)`: the value of a range's `index`th element.
fn derive_index(s: &mut Stack) -> Result<(), String> {
    let step = pop(s)?;
    let start = pop(s)?;
    let index = pop(s)?;
    s.push(range_element(&index, &start, &step)?);
    Ok(())
}

/// The `index`th element of `range(start, _, step)` (ints wrap).
pub fn range_element(index: &IValue, start: &IValue, step: &IValue) -> Result<IValue, String> {
    let (index, start, step) = (int(index)?, int(start)?, int(step)?);
    Ok(IValue::Int(start.wrapping_add(index.wrapping_mul(step))))
}

/// Integer division rounding toward zero (C's `/`).
fn round_to_zero_floordiv(a: &IValue, b: &IValue) -> Result<IValue, String> {
    let (x, y) = (int(a)?, int(b)?);
    if y == 0 {
        return Err("division by 0".into());
    }
    Ok(IValue::Int(x.wrapping_div(y)))
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
            arith(i64::wrapping_add, |a, b| a + b, |a, _| a)(&i(i64::MAX), &i(1))
                .unwrap()
                .as_int(),
            Some(i64::MIN)
        );
    }

    #[test]
    fn complex_arithmetic() {
        let c = |re, im| complex((re, im));
        let mul = arith(i64::wrapping_mul, |a, b| a * b, complex_mul);
        let got = mul(&c(1.0, 2.0), &c(3.0, -1.0)).unwrap();
        assert!(matches!(got, IValue::Complex(z) if *z == (5.0, 5.0)));
        let got = true_div(&c(5.0, 5.0), &i(5)).unwrap();
        assert!(matches!(got, IValue::Complex(z) if *z == (1.0, 1.0)));
        assert_eq!(abs(&c(3.0, 4.0)).unwrap().as_double(), Some(5.0));
        assert!(matches!(neg(&c(1.0, -1.0)).unwrap(), IValue::Complex(z) if *z == (-1.0, 1.0)));
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

    #[test]
    fn string_conversions_follow_stoll_and_stod() {
        assert_eq!(parse_int("12"), Ok(12));
        assert_eq!(parse_int("  -3"), Ok(-3));
        assert_eq!(parse_int("+7"), Ok(7));
        assert_eq!(
            parse_int(" 12 ").unwrap_err(),
            "invalid literal for int() with base 10: ' 12 '"
        );
        assert_eq!(parse_int("abc").unwrap_err(), "stoll");
        assert_eq!(parse_int("").unwrap_err(), "stoll");
        assert_eq!(parse_int("99999999999999999999").unwrap_err(), "stoll");
        assert_eq!(parse_float("1e3"), Ok(1000.0));
        assert_eq!(parse_float("-0").map(f64::is_sign_negative), Ok(true));
        assert_eq!(parse_float("inf"), Ok(f64::INFINITY));
        assert!(parse_float("nan").unwrap().is_nan());
        assert_eq!(parse_float(".5"), Ok(0.5));
        assert_eq!(parse_float("abc").unwrap_err(), "stod");
        assert_eq!(parse_float("1e400").unwrap_err(), "stod");
        assert_eq!(
            parse_float("1_0").unwrap_err(),
            "could not convert string to float: '1_0'"
        );
        assert_eq!(float_to_int(f64::NAN), i64::MIN);
        assert_eq!(float_to_int(-1.9), -1);
        assert_eq!(float_to_int(1e30), i64::MIN);
    }

    #[test]
    fn radix_chr_ord_and_shifts() {
        let s = |v: IValue| v.as_str().unwrap().to_string();
        assert_eq!(s(radix(&i(-5), "0x", 16).unwrap()), "-0x5");
        assert_eq!(s(radix(&i(255), "0b", 2).unwrap()), "0b11111111");
        assert_eq!(s(chr(&i(65)).unwrap()), "A");
        assert!(chr(&i(0x110000)).is_err());
        assert_eq!(
            ord(&IValue::str("ab")).unwrap_err(),
            "String for ord() must be 1 character, found 2"
        );
        let shl = shift(true);
        assert_eq!(shl(&i(1), &i(64)).unwrap().as_int(), Some(1));
        assert_eq!(shl(&i(1), &i(-1)).unwrap().as_int(), Some(i64::MIN));
        assert_eq!(shift(false)(&i(-9), &i(1)).unwrap().as_int(), Some(-5));
    }
}
