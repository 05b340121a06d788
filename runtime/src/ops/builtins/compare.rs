//! Python equality and ordering of values, shared by `==`, `in`, `list.index/count/remove`,
//! `sort`, `min`/`max` and tuple comparison. Numbers compare by value across int, float and
//! bool; sequences element by element; tensors as PyTorch does in containers (`eq` then
//! `bool()`, which needs one element).

use std::cmp::Ordering;

use crate::ivalue::IValue;
use crate::tensor::Tensor;

fn number(v: &IValue) -> Option<Result<i64, f64>> {
    match v {
        IValue::Int(i) => Some(Ok(*i)),
        IValue::Bool(b) => Some(Ok(*b as i64)),
        IValue::Double(d) => Some(Err(*d)),
        // A dtype is an int in TorchScript (`torch.float32` is the constant 6).
        IValue::ScalarType(d) => Some(Ok(d.scalar_type() as i64)),
        _ => None,
    }
}

fn num_order(a: Result<i64, f64>, b: Result<i64, f64>) -> Option<Ordering> {
    // Mixed int and float compare as doubles, as PyTorch's `aten::lt.int_float`.
    let f = |v: Result<i64, f64>| v.map_or_else(|d| d, |i| i as f64);
    match (a, b) {
        (Ok(x), Ok(y)) => Some(x.cmp(&y)),
        (x, y) => f(x).partial_cmp(&f(y)),
    }
}

/// The one value of a tensor in a boolean context, as `bool(t)` needs it.
fn single(t: &Tensor) -> Result<f64, String> {
    if t.numel() != 1 {
        return Err("Boolean value of Tensor with more than one value is ambiguous".into());
    }
    t.item_f64().map_err(|e| e.message)
}

/// `a == b` as TorchScript's containers decide it: the same object, or equal values.
pub fn values_equal(a: &IValue, b: &IValue) -> Result<bool, String> {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return Ok(num_order(x, y) == Some(Ordering::Equal));
    }
    Ok(match (a, b) {
        (IValue::None, IValue::None) => true,
        (IValue::Str(x), IValue::Str(y)) => x == y,
        (IValue::Device(x), IValue::Device(y)) => x == y,
        (IValue::Complex(x), IValue::Complex(y)) => x.0 == y.0 && x.1 == y.1,
        (IValue::Tensor(x), IValue::Tensor(y)) => x.is_same(y) || single(x)? == single(y)?,
        (IValue::List(x), IValue::List(y)) => x.is_same(y) || seq_equal(&x.to_vec(), &y.to_vec())?,
        (IValue::Tuple(x), IValue::Tuple(y)) => seq_equal(x, y)?,
        (IValue::Dict(x), IValue::Dict(y)) => {
            let (x, y) = (x.items(), y.items());
            if x.len() != y.len() {
                return Ok(false);
            }
            let lookup: hashbrown::HashMap<_, _> = y.into_iter().collect();
            for (k, v) in &x {
                match lookup.get(k) {
                    Some(w) if values_equal(v, w)? => {}
                    _ => return Ok(false),
                }
            }
            true
        }
        (IValue::Enum(x), IValue::Enum(y)) => x.class_name == y.class_name && x.name == y.name,
        (IValue::Object(_), IValue::Object(_)) => a.is(b),
        _ => false,
    })
}

fn seq_equal(x: &[IValue], y: &[IValue]) -> Result<bool, String> {
    if x.len() != y.len() {
        return Ok(false);
    }
    for (a, b) in x.iter().zip(y) {
        if !(a.is(b) || values_equal(a, b)?) {
            return Ok(false);
        }
    }
    Ok(true)
}

/// The order of `a` and `b` (`None` when unordered, as NaN); an error for values that cannot
/// be compared.
pub fn order(a: &IValue, b: &IValue) -> Result<Option<Ordering>, String> {
    if let (Some(x), Some(y)) = (number(a), number(b)) {
        return Ok(num_order(x, y));
    }
    match (a, b) {
        (IValue::Str(x), IValue::Str(y)) => Ok(Some(x.as_bytes().cmp(y.as_bytes()))),
        (IValue::Tensor(x), IValue::Tensor(y)) => Ok(single(x)?.partial_cmp(&single(y)?)),
        (IValue::List(x), IValue::List(y)) => seq_order(&x.to_vec(), &y.to_vec()),
        (IValue::Tuple(x), IValue::Tuple(y)) => seq_order(x, y),
        _ => Err(format!(
            "'<' not supported between instances of '{}' and '{}'",
            a.kind_name(),
            b.kind_name()
        )),
    }
}

/// Lexicographic order: the first unequal pair decides, then the length.
fn seq_order(x: &[IValue], y: &[IValue]) -> Result<Option<Ordering>, String> {
    for (a, b) in x.iter().zip(y) {
        if values_equal(a, b)? {
            continue;
        }
        return order(a, b);
    }
    Ok(Some(x.len().cmp(&y.len())))
}

/// `a < b` (false when unordered).
pub fn less(a: &IValue, b: &IValue) -> Result<bool, String> {
    Ok(order(a, b)? == Some(Ordering::Less))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_equality_and_order() {
        let (i, f) = (IValue::Int, IValue::Double);
        assert!(values_equal(&i(1), &f(1.0)).unwrap());
        assert!(values_equal(&IValue::Bool(true), &i(1)).unwrap());
        assert!(!values_equal(&f(f64::NAN), &f(f64::NAN)).unwrap());
        let t = |v: Vec<IValue>| IValue::tuple(v);
        assert!(values_equal(
            &t(vec![i(1), IValue::str("a")]),
            &t(vec![f(1.0), IValue::str("a")])
        )
        .unwrap());
        assert!(less(&t(vec![i(1), i(2)]), &t(vec![i(1), i(3)])).unwrap());
        assert!(less(&t(vec![i(1)]), &t(vec![i(1), i(0)])).unwrap());
        assert!(less(&IValue::str("B"), &IValue::str("a")).unwrap());
        assert!(!less(&f(f64::NAN), &f(1.0)).unwrap());
        assert!(order(&IValue::None, &i(1)).is_err());
        let l = IValue::list(vec![i(1), i(2)]);
        assert!(values_equal(&l, &IValue::list(vec![i(1), i(2)])).unwrap());
        assert!(!values_equal(&l, &IValue::list(vec![i(1)])).unwrap());
        assert!(!values_equal(&l, &i(1)).unwrap());
    }
}
