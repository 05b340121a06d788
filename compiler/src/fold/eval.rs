//! Evaluating ops on constant inputs the way TorchScript's interpreter does
//! (`torch/csrc/jit/runtime/register_prim_ops.cpp`): ints wrap on overflow, `//` and `%` floor
//! like Python, `/` and `**` on ints give floats, `min`/`max` keep PyTorch's NaN order, string
//! lengths count bytes. Whatever would raise (division by zero, an index out of range), crash
//! (`INT_MIN // -1`) or is undefined in C++ (`int(nan)`) is not folded, so it still happens at
//! run time. Tensors never reach here.

use ember_dialects::attr::ConstValue;
use ember_dialects::{Symbol, Type};

/// The outputs of op `kind` applied to `inputs`, when it is an op this module knows, the inputs
/// fit it and the results fit `outputs` (the types of the node's outputs). `None` otherwise.
pub fn eval(kind: Symbol, inputs: &[ConstValue], outputs: &[Type]) -> Option<Vec<ConstValue>> {
    let results = match (kind.as_str(), inputs) {
        ("prim::TupleConstruct", items) => vec![ConstValue::Tuple(items.to_vec())],
        ("prim::ListConstruct", items) => vec![ConstValue::List(items.to_vec())],
        ("prim::TupleUnpack", [ConstValue::Tuple(items)])
        | ("prim::ListUnpack", [ConstValue::List(items)]) => {
            if items.len() != outputs.len() {
                return None;
            }
            items.clone()
        }
        ("prim::TupleIndex", [ConstValue::Tuple(items), ConstValue::Int(i)])
        | ("aten::__getitem__", [ConstValue::Tuple(items), ConstValue::Int(i)])
        | ("aten::__getitem__", [ConstValue::List(items), ConstValue::Int(i)]) => {
            vec![items[normalize_index(*i, items.len())?].clone()]
        }
        ("prim::unchecked_cast", [c]) => vec![c.clone()],
        // `torch.device("cpu")`: a device constant (only the spellings the runtime reads).
        ("aten::device", [ConstValue::Str(s)])
            if ember_runtime::ops::prim::parse_device(s).is_ok() =>
        {
            vec![ConstValue::Device(s.clone())]
        }
        ("aten::format", [ConstValue::Str(fmt), args @ ..]) => vec![format(fmt, args)?],
        (_, [a]) => vec![unary(kind, a)?],
        (_, [a, b]) => vec![binary(kind, a, b)?],
        _ => return None,
    };
    if results.len() != outputs.len() || !results.iter().zip(outputs).all(|(c, t)| fits(c, t)) {
        return None;
    }
    Some(results)
}

/// Whether a value `c` may stand where the graph says type `ty`.
pub fn fits(c: &ConstValue, ty: &Type) -> bool {
    use ConstValue as C;
    match (c, ty) {
        (_, Type::Any) => true,
        (_, Type::Optional(inner)) => matches!(c, C::None) || fits(c, inner),
        (_, Type::Union(members)) => members.iter().any(|t| fits(c, t)),
        (C::None, t) => matches!(t, Type::None),
        (C::Bool(_), t) => matches!(t, Type::Bool),
        (C::Int(_), t) => matches!(t, Type::Int | Type::Number),
        (C::Float(_), t) => matches!(t, Type::Float | Type::Number),
        (C::Str(_), t) => matches!(t, Type::Str),
        (C::Device(_), t) => matches!(t, Type::Device),
        (C::List(items), Type::List(elem)) => items.iter().all(|c| fits(c, elem)),
        (C::List(_), t) => matches!(t, Type::AnyList),
        (C::Tuple(items), Type::Tuple(t)) => {
            items.len() == t.elements.len()
                && items.iter().zip(&t.elements).all(|(c, t)| fits(c, t))
        }
        (C::Tuple(_), t) => matches!(t, Type::AnyTuple),
        _ => false,
    }
}

/// Python's index rule: negative counts from the end; out of range raises (no fold).
fn normalize_index(i: i64, len: usize) -> Option<usize> {
    let len = i64::try_from(len).ok()?;
    let j = if i < 0 { i.checked_add(len)? } else { i };
    (0..len).contains(&j).then_some(j as usize)
}

fn unary(kind: Symbol, a: &ConstValue) -> Option<ConstValue> {
    use ConstValue as C;
    Some(match (kind.as_str(), a) {
        ("aten::neg", C::Int(x)) => C::Int(x.wrapping_neg()),
        ("aten::neg", C::Float(x)) => C::Float(-x),
        // `std::abs(INT64_MIN)` is undefined.
        ("prim::abs" | "aten::abs", C::Int(x)) => C::Int(x.checked_abs()?),
        ("prim::abs" | "aten::abs", C::Float(x)) => C::Float(x.abs()),
        ("aten::__not__", C::Bool(b)) => C::Bool(!b),
        ("aten::Int", C::Int(x)) => C::Int(*x),
        ("aten::Int", C::Bool(b)) => C::Int(*b as i64),
        // Truncation toward zero; NaN, infinities and out-of-range values are undefined in C++.
        ("aten::Int", C::Float(x)) => {
            let t = x.trunc();
            if !(t >= -(2f64.powi(63)) && t < 2f64.powi(63)) {
                return None;
            }
            C::Int(t as i64)
        }
        ("aten::Float", C::Int(x)) => C::Float(*x as f64),
        ("aten::Float", C::Float(x)) => C::Float(*x),
        ("aten::Float", C::Bool(b)) => C::Float(*b as i64 as f64),
        ("aten::Bool", C::Bool(b)) => C::Bool(*b),
        ("aten::Bool", C::Int(x)) => C::Bool(*x != 0),
        ("aten::Bool", C::Float(x)) => C::Bool(*x != 0.0),
        ("aten::str", c) => C::Str(format_arg(c)?),
        ("aten::len", C::Str(s)) => C::Int(s.len() as i64),
        ("aten::len", C::List(items)) => C::Int(items.len() as i64),
        ("prim::min" | "prim::max", C::List(items)) => {
            let is_max = kind.as_str() == "prim::max";
            let (first, rest) = items.split_first()?;
            let mut best = first.clone();
            // `if (x > best) best = x`: a later element wins only when strictly better.
            for c in rest {
                best = min_max(is_max, c, &best)?;
            }
            best
        }
        _ => return None,
    })
}

fn binary(kind: Symbol, a: &ConstValue, b: &ConstValue) -> Option<ConstValue> {
    use ConstValue as C;
    let op = kind.as_str();
    Some(match (op, a, b) {
        ("aten::__is__" | "aten::__isnot__", _, _) => {
            // Identity is only known when one side is None.
            if !matches!(a, C::None) && !matches!(b, C::None) {
                return None;
            }
            let same = matches!(a, C::None) && matches!(b, C::None);
            C::Bool(same == (op == "aten::__is__"))
        }
        ("aten::__and__", C::Bool(x), C::Bool(y)) => C::Bool(x & y),
        ("aten::__or__", C::Bool(x), C::Bool(y)) => C::Bool(x | y),
        ("aten::__xor__", C::Bool(x), C::Bool(y)) => C::Bool(x ^ y),
        ("aten::__and__", C::Int(x), C::Int(y)) => C::Int(x & y),
        ("aten::__or__", C::Int(x), C::Int(y)) => C::Int(x | y),
        ("aten::__xor__", C::Int(x), C::Int(y)) => C::Int(x ^ y),
        ("aten::add", C::Str(x), C::Str(y)) => C::Str(format!("{x}{y}")),
        ("aten::__getitem__", C::Str(s), C::Int(i)) => {
            // PyTorch indexes bytes; a byte inside a multi-byte character raises.
            let byte = s.as_bytes()[normalize_index(*i, s.len())?];
            if !byte.is_ascii() {
                return None;
            }
            C::Str((byte as char).to_string())
        }
        ("aten::__contains__", C::List(items), x) => C::Bool(
            items
                .iter()
                .any(|y| compare("aten::eq", y, x) == Some(true)),
        ),
        ("prim::min" | "prim::max", x, y) => min_max(op == "prim::max", x, y)?,
        ("aten::eq" | "aten::ne", C::List(xs), C::List(ys)) => {
            let mut equal = xs.len() == ys.len();
            for (x, y) in xs.iter().zip(ys) {
                if !equal {
                    break;
                }
                equal = compare("aten::eq", x, y)?;
            }
            C::Bool(equal == (op == "aten::eq"))
        }
        ("aten::eq" | "aten::ne" | "aten::lt" | "aten::le" | "aten::gt" | "aten::ge", x, y) => {
            C::Bool(compare(op, x, y)?)
        }
        (_, C::Int(x), C::Int(y)) => int_arith(op, *x, *y)?,
        (_, C::Int(_) | C::Float(_), C::Int(_) | C::Float(_)) => {
            float_arith(op, as_f64(a)?, as_f64(b)?)?
        }
        _ => return None,
    })
}

fn as_f64(c: &ConstValue) -> Option<f64> {
    match c {
        ConstValue::Int(i) => Some(*i as f64),
        ConstValue::Float(f) => Some(*f),
        _ => None,
    }
}

/// Integer arithmetic: 64-bit two's complement wrapping as PyTorch's C++ does in practice.
fn int_arith(op: &str, x: i64, y: i64) -> Option<ConstValue> {
    use ConstValue as C;
    Some(match op {
        "aten::add" => C::Int(x.wrapping_add(y)),
        "aten::sub" => C::Int(x.wrapping_sub(y)),
        "aten::mul" => C::Int(x.wrapping_mul(y)),
        "aten::div" => {
            if y == 0 {
                return None;
            }
            C::Float(x as f64 / y as f64)
        }
        // Floors toward negative infinity; `INT64_MIN // -1` traps in C++.
        "aten::floordiv" => {
            let q = x.checked_div(y)?;
            let r = x % y;
            C::Int(if r != 0 && ((r < 0) != (y < 0)) {
                q - 1
            } else {
                q
            })
        }
        // `(b + a % b) % b` in PyTorch; its intermediate sum must not overflow here.
        "aten::remainder" => {
            let r = x.checked_rem(y)?;
            C::Int(y.checked_add(r)?.checked_rem(y)?)
        }
        // `pow(int, int) -> float`; `0 ** negative` raises.
        "aten::pow" => {
            if x == 0 && y < 0 {
                return None;
            }
            C::Float((x as f64).powf(y as f64))
        }
        _ => return None,
    })
}

fn float_arith(op: &str, x: f64, y: f64) -> Option<ConstValue> {
    use ConstValue as C;
    Some(C::Float(match op {
        "aten::add" => x + y,
        "aten::sub" => x - y,
        "aten::mul" => x * y,
        // Division by zero is left to run time.
        "aten::div" if y != 0.0 => x / y,
        "aten::floordiv" if y != 0.0 => (x / y).floor(),
        "aten::remainder" if y != 0.0 => (y + x % y) % y,
        "aten::pow" => {
            if x == 0.0 && y < 0.0 {
                return None;
            }
            x.powf(y)
        }
        _ => return None,
    }))
}

/// `prim::min`/`prim::max` of two scalars of one kind: `a < b ? a : b` (and `a > b ? a : b`),
/// so a NaN in the second place wins and one in the first loses, as in PyTorch.
fn min_max(is_max: bool, a: &ConstValue, b: &ConstValue) -> Option<ConstValue> {
    use ConstValue as C;
    let first_wins = match (a, b) {
        (C::Int(x), C::Int(y)) => {
            if is_max {
                x > y
            } else {
                x < y
            }
        }
        (C::Float(x), C::Float(y)) => {
            if is_max {
                x > y
            } else {
                x < y
            }
        }
        _ => return None,
    };
    Some(if first_wins { a.clone() } else { b.clone() })
}

/// A comparison of two scalars or strings; ints meeting floats compare as doubles (C++ rules),
/// bools as ints.
fn compare(op: &str, a: &ConstValue, b: &ConstValue) -> Option<bool> {
    use std::cmp::Ordering;
    use ConstValue as C;
    let ord: Option<Ordering> = match (a, b) {
        (C::Int(x), C::Int(y)) => Some(x.cmp(y)),
        (C::Bool(x), C::Bool(y)) => Some(x.cmp(y)),
        (C::Str(x), C::Str(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        (C::Int(_) | C::Float(_), C::Int(_) | C::Float(_)) => as_f64(a)?.partial_cmp(&as_f64(b)?),
        (C::Device(x), C::Device(y)) if matches!(op, "aten::eq" | "aten::ne") => Some(if x == y {
            Ordering::Equal
        } else {
            Ordering::Less
        }),
        _ => return None,
    };
    // An unordered pair (a NaN) compares false except under `!=`.
    Some(match ord {
        None => op == "aten::ne",
        Some(o) => match op {
            "aten::eq" => o.is_eq(),
            "aten::ne" => o.is_ne(),
            "aten::lt" => o.is_lt(),
            "aten::le" => o.is_le(),
            "aten::gt" => o.is_gt(),
            "aten::ge" => o.is_ge(),
            _ => return None,
        },
    })
}

/// How `str()` and `format` print a value, for the kinds whose printing is simple; floats are
/// left alone (C++ stream formatting, `1.` for one).
fn format_arg(c: &ConstValue) -> Option<String> {
    Some(match c {
        ConstValue::Int(i) => i.to_string(),
        ConstValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        ConstValue::Str(s) => s.clone(),
        ConstValue::None => "None".to_string(),
        _ => return None,
    })
}

/// `aten::format` with `{}` placeholders only; other braces (indices, format specs) and too
/// few arguments (which raises) are left alone.
fn format(fmt: &str, args: &[ConstValue]) -> Option<ConstValue> {
    let mut out = String::new();
    let mut rest = fmt;
    let mut used = 0;
    while let Some(at) = rest.find('{') {
        if !rest[at..].starts_with("{}") || rest[..at].contains('}') {
            return None;
        }
        out.push_str(&rest[..at]);
        out.push_str(&format_arg(args.get(used)?)?);
        used += 1;
        rest = &rest[at + 2..];
    }
    if rest.contains('}') {
        return None;
    }
    out.push_str(rest);
    Some(ConstValue::Str(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the interpreter computed, from `tools/gen/scalar_ops.py`.
    const ORACLE: &str = include_str!("../../tests/data/scalar_ops.txt");

    /// Cases PyTorch computes but this folder leaves to run time on purpose.
    const LEFT_TO_RUN_TIME: &[&str] = &[
        "aten::div float int:1 int:0",
        "aten::div float int:0 int:0",
        "aten::div float float:1.0 float:0.0",
        "aten::floordiv float float:1.0 float:0.0",
        "aten::remainder float float:1.0 float:0.0",
        "aten::floordiv float int:7 float:0.0",
        // Undefined behaviour in C++ that happens to give INT64_MIN.
        "prim::abs int int:-9223372036854775808",
        "aten::Int int float:nan",
        "aten::Int int float:inf",
        "aten::Int int float:1e+30",
    ];

    fn unhex(s: &str) -> String {
        let bytes: Vec<u8> = (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect();
        String::from_utf8(bytes).unwrap()
    }

    fn items(s: &str, f: impl Fn(&str) -> ConstValue) -> ConstValue {
        ConstValue::List(s.split(',').filter(|x| !x.is_empty()).map(f).collect())
    }

    fn decode(token: &str) -> ConstValue {
        let (tag, text) = token.split_once(':').unwrap_or((token, ""));
        match tag {
            "none" => ConstValue::None,
            "int" => ConstValue::Int(text.parse().unwrap()),
            "float" => ConstValue::Float(text.parse().unwrap()),
            "bool" => ConstValue::Bool(text == "True"),
            "str" => ConstValue::Str(unhex(text)),
            "ilist" => items(text, |x| ConstValue::Int(x.parse().unwrap())),
            "flist" => items(text, |x| ConstValue::Float(x.parse().unwrap())),
            "slist" => items(text, |x| ConstValue::Str(unhex(x))),
            _ => panic!("bad token {token}"),
        }
    }

    fn ty(name: &str) -> Type {
        match name {
            "int" => Type::Int,
            "float" => Type::Float,
            "bool" => Type::Bool,
            "str" => Type::Str,
            _ => panic!("bad type {name}"),
        }
    }

    /// Every folded result is bit-exact with PyTorch; whatever raises is never folded; and
    /// what is left to run time is exactly the list above.
    #[test]
    fn folds_like_the_torchscript_interpreter() {
        let mut left = Vec::new();
        let mut folded = 0;
        for line in ORACLE
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
        {
            let (call, expect) = line.split_once(" -> ").unwrap();
            let mut tokens = call.split(' ');
            let kind = Symbol::new(tokens.next().unwrap());
            let out = ty(tokens.next().unwrap());
            let args: Vec<ConstValue> = tokens.map(decode).collect();
            let got = eval(kind, &args, &[out]);
            match (expect, got) {
                ("raises", None) => {}
                ("raises", Some(r)) => panic!("{call}: folded to {r:?} but PyTorch raises"),
                (_, None) => left.push(call),
                (_, Some(r)) => {
                    let want = decode(expect);
                    let same = match (&r[0], &want) {
                        (ConstValue::Float(a), ConstValue::Float(b)) if a.is_nan() => b.is_nan(),
                        _ => crate::fold::identical(&r[0], &want),
                    };
                    assert!(same, "{call}: folded to {:?}, PyTorch gives {want:?}", r[0]);
                    folded += 1;
                }
            }
        }
        assert_eq!(left, LEFT_TO_RUN_TIME);
        assert!(folded > 150, "only {folded} cases folded");
    }

    #[test]
    fn results_must_fit_the_output_type() {
        let (two, three) = (ConstValue::Int(2), ConstValue::Int(3));
        // `pow.int_to_int` returns an int: not what this folder computes, so no fold.
        assert_eq!(
            eval(
                Symbol::aten("pow"),
                &[two.clone(), three.clone()],
                &[Type::Int]
            ),
            None
        );
        assert_eq!(
            eval(Symbol::aten("add"), &[two, three], &[Type::Number]),
            Some(vec![ConstValue::Int(5)])
        );
    }

    #[test]
    fn format_handles_only_plain_placeholders() {
        let f = |fmt: &str, args: &[ConstValue]| {
            let mut all = vec![ConstValue::Str(fmt.into())];
            all.extend_from_slice(args);
            eval(Symbol::aten("format"), &all, &[Type::Str])
        };
        let one = [ConstValue::Int(1)];
        assert_eq!(f("a{}b", &one), Some(vec![ConstValue::Str("a1b".into())]));
        assert_eq!(f("{}{}", &one), None, "too few arguments raises");
        assert_eq!(f("{0}", &one), None);
        assert_eq!(f("}{}", &one), None);
        assert_eq!(
            f("{}", &[ConstValue::Float(1.0)]),
            None,
            "floats print as C++ does"
        );
    }
}
