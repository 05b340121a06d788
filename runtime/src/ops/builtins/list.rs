//! List builtins. Lists are shared and mutable: `append`, `sort`, `l[i] = x` change the one
//! list every alias sees. Indices follow Python (negative from the end) with PyTorch's
//! messages; `sort` and `min`/`max` order ints, floats, bools, strings, tuples and
//! one-element tensors.

use std::cmp::Ordering;
use std::sync::Arc;

use super::compare::{less, order, values_equal};
use super::display::to_str;
use super::{
    binary, boolean, builtin, effect, int, list, nary, normalize_index, opt_int, read,
    slice_positions, unary, write,
};
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::ops::{pop, Operation, Stack};

pub fn register(r: &mut Registry) {
    builtin!(r, "aten::len", |o, _, _| matches!(o, "t" | "any")
        .then(|| unary(len)));
    builtin!(r, "aten::__getitem__", |o, _, _| (o == "t")
        .then(|| binary(get)));
    builtin!(r, "aten::select", |o, _, _| (o == "t").then(|| binary(get)));
    builtin!(r, "aten::_set_item", |o, _, _| (o == "t")
        .then(|| nary(3, set)));
    builtin!(r, "aten::slice", |o, _, _| (o == "t")
        .then(|| nary(4, slice)));
    builtin!(r, "aten::append", |_, _, _| Some(binary(append)));
    builtin!(r, "aten::insert", |_, _, _| Some(effect(3, insert)));
    builtin!(r, "aten::pop", |o, _, _| (o == "t").then(|| binary(pop_at)));
    builtin!(r, "aten::remove", |_, _, _| Some(effect(2, remove)));
    builtin!(r, "aten::extend", |_, _, _| Some(effect(2, extend)));
    builtin!(r, "aten::add_", |o, _, _| (o == "t")
        .then(|| binary(add_in_place)));
    builtin!(r, "aten::mul_", |o, _, _| (o == "t")
        .then(|| binary(mul_in_place)));
    builtin!(r, "aten::reverse", |_, _, _| Some(effect(1, |a| {
        write(list(&a[0])?).reverse();
        Ok(())
    })));
    builtin!(r, "aten::sort", |_, _, _| Some(effect(2, sort)));
    builtin!(r, "aten::sorted", |_, _, _| Some(unary(sorted)));
    builtin!(r, "aten::copy", |o, _, _| (o == "t").then(|| unary(copy)));
    builtin!(r, "aten::list", |o, _, _| (o == "t").then(|| unary(copy)));
    builtin!(r, "aten::index", |o, _, _| o
        .starts_with("list_")
        .then(|| binary(index)));
    builtin!(r, "aten::count", |o, _, _| (!o.is_empty())
        .then(|| binary(count)));
    builtin!(r, "aten::clear", |o, _, _| (o == "t").then(|| effect(
        1,
        |a| {
            write(list(&a[0])?).clear();
            Ok(())
        }
    )));
    builtin!(r, "aten::Delete", |o, _, _| (o == "t")
        .then(|| effect(2, delete)));
    builtin!(r, "aten::__contains__", |o, _, _| o
        .ends_with("_list")
        .then(|| binary(contains)));
    builtin!(r, "aten::sum", |o, _, _| matches!(
        o,
        "int" | "float" | "bool"
    )
    .then(|| unary(sum)));
    builtin!(r, "aten::any", |o, _, _| matches!(
        o,
        "int" | "float" | "bool" | "str"
    )
    .then(|| unary(|l| any_all(l, true))));
    builtin!(r, "aten::all", |o, _, _| matches!(
        o,
        "int" | "float" | "bool"
    )
    .then(|| unary(|l| any_all(l, false))));
    builtin!(r, "prim::min", |o, _, _| list_min_max(o, Ordering::Less));
    builtin!(r, "prim::max", |o, _, _| list_min_max(o, Ordering::Greater));
}

/// `len(l)` of a list or tuple.
pub fn len(v: &IValue) -> Result<IValue, String> {
    Ok(IValue::Int(match v {
        IValue::Tuple(t) => t.len(),
        other => list(other)?.len(),
    } as i64))
}

fn out_of_range() -> String {
    "list index out of range".into()
}

/// `l[i]` (`aten::__getitem__.t`).
pub fn get(l: &IValue, i: &IValue) -> Result<IValue, String> {
    let items = read(list(l)?);
    let k = normalize_index(int(i)?, items.len()).ok_or_else(out_of_range)?;
    Ok(items[k].clone())
}

/// `l[i] = x` (`aten::_set_item.t`): returns the list.
fn set(a: &[IValue]) -> Result<IValue, String> {
    let l = list(&a[0])?;
    {
        let mut items = write(l);
        let k = normalize_index(int(&a[1])?, items.len()).ok_or_else(out_of_range)?;
        items[k] = a[2].clone();
    }
    Ok(a[0].clone())
}

/// `l[start:end:step]`: a new list.
fn slice(a: &[IValue]) -> Result<IValue, String> {
    let items = read(list(&a[0])?);
    let positions = slice_positions(items.len(), opt_int(&a[1])?, opt_int(&a[2])?, int(&a[3])?)?;
    Ok(IValue::list(
        positions.into_iter().map(|i| items[i].clone()).collect(),
    ))
}

fn append(l: &IValue, x: &IValue) -> Result<IValue, String> {
    list(l)?.push(x.clone());
    Ok(l.clone())
}

/// `l.insert(i, x)`: an index past either end inserts at that end.
fn insert(a: &[IValue]) -> Result<(), String> {
    let mut items = write(list(&a[0])?);
    let len = items.len() as i64;
    let i = int(&a[1])?;
    let i = if i < 0 { i.saturating_add(len) } else { i };
    let at = i.clamp(0, len) as usize;
    items.insert(at, a[2].clone());
    Ok(())
}

fn pop_at(l: &IValue, i: &IValue) -> Result<IValue, String> {
    let mut items = write(list(l)?);
    if items.is_empty() {
        return Err("pop from empty list".into());
    }
    let k = normalize_index(int(i)?, items.len()).ok_or_else(out_of_range)?;
    Ok(items.remove(k))
}

fn position(items: &[IValue], x: &IValue) -> Result<Option<usize>, String> {
    for (i, v) in items.iter().enumerate() {
        if v.is(x) || values_equal(v, x)? {
            return Ok(Some(i));
        }
    }
    Ok(None)
}

fn remove(a: &[IValue]) -> Result<(), String> {
    let mut items = write(list(&a[0])?);
    match position(&items, &a[1])? {
        Some(i) => {
            items.remove(i);
            Ok(())
        }
        None => Err("list.remove(x): x not in list".into()),
    }
}

fn extend(a: &[IValue]) -> Result<(), String> {
    // Snapshot first: `l.extend(l)` reads the list it writes.
    let more = list(&a[1])?.to_vec();
    write(list(&a[0])?).extend(more);
    Ok(())
}

/// `l += other`: extends `l` and returns it.
fn add_in_place(l: &IValue, other: &IValue) -> Result<IValue, String> {
    extend(&[l.clone(), other.clone()])?;
    Ok(l.clone())
}

/// `l *= n`: repeats `l` in place and returns it.
fn mul_in_place(l: &IValue, n: &IValue) -> Result<IValue, String> {
    let times = int(n)?.max(0) as usize;
    let mut items = write(list(l)?);
    let once = items.clone();
    let total = once.len().checked_mul(times).ok_or("std::bad_alloc")?;
    let mut grown: Vec<IValue> = super::try_vec(total)?;
    std::mem::swap(&mut *items, &mut grown);
    for _ in 0..times {
        items.extend(once.iter().cloned());
    }
    drop(items);
    Ok(l.clone())
}

/// Sorts `items` as PyTorch's `listSort`: `std::sort` with "`a != b` and `(a < b) != reverse`".
fn sort_items(items: &mut [IValue], reverse: bool) -> Result<(), String> {
    super::std_sort::std_sort(items, &mut |a: &IValue, b: &IValue| {
        // Tensors are "equal" only when they are the same tensor (`listSort<at::Tensor>`).
        let same = match (a, b) {
            (IValue::Tensor(x), IValue::Tensor(y)) => x.is_same(y),
            _ => values_equal(a, b)?,
        };
        if same {
            return Ok(false);
        }
        Ok(less(a, b)? != reverse)
    })
}

fn sort(a: &[IValue]) -> Result<(), String> {
    let reverse = boolean(&a[1])?;
    let mut items = write(list(&a[0])?);
    sort_items(&mut items, reverse)
}

fn sorted(l: &IValue) -> Result<IValue, String> {
    let mut items = list(l)?.to_vec();
    sort_items(&mut items, false)?;
    Ok(IValue::list(items))
}

fn copy(l: &IValue) -> Result<IValue, String> {
    Ok(IValue::list(list(l)?.to_vec()))
}

fn index(l: &IValue, x: &IValue) -> Result<IValue, String> {
    let items = read(list(l)?);
    match position(&items, x)? {
        Some(i) => Ok(IValue::Int(i as i64)),
        None => Err(format!("'{}' is not in list", to_str(x)?)),
    }
}

fn count(l: &IValue, x: &IValue) -> Result<IValue, String> {
    let items = read(list(l)?);
    let mut n = 0;
    for v in items.iter() {
        if v.is(x) || values_equal(v, x)? {
            n += 1;
        }
    }
    Ok(IValue::Int(n))
}

/// `del l[i]`.
fn delete(a: &[IValue]) -> Result<(), String> {
    let mut items = write(list(&a[0])?);
    let k = normalize_index(int(&a[1])?, items.len()).ok_or_else(out_of_range)?;
    items.remove(k);
    Ok(())
}

fn contains(l: &IValue, x: &IValue) -> Result<IValue, String> {
    let items = read(list(l)?);
    Ok(IValue::Bool(position(&items, x)?.is_some()))
}

/// `sum(l)`: ints (and bools) add as wrapping int64, floats as doubles.
fn sum(l: &IValue) -> Result<IValue, String> {
    let items = read(list(l)?);
    if items.iter().any(|v| matches!(v, IValue::Double(_))) {
        let mut acc = 0.0;
        for v in items.iter() {
            acc += super::float(v)?;
        }
        return Ok(IValue::Double(acc));
    }
    let mut acc = 0i64;
    for v in items.iter() {
        acc = acc.wrapping_add(int(v)?);
    }
    Ok(IValue::Int(acc))
}

fn truthy(v: &IValue) -> Result<bool, String> {
    Ok(match v {
        IValue::Bool(b) => *b,
        IValue::Int(i) => *i != 0,
        IValue::Double(d) => *d != 0.0,
        IValue::Str(s) => !s.is_empty(),
        other => return Err(format!("cannot test a {} for truth", other.kind_name())),
    })
}

fn any_all(l: &IValue, any: bool) -> Result<IValue, String> {
    let items = read(list(l)?);
    for v in items.iter() {
        if truthy(v)? == any {
            return Ok(IValue::Bool(any));
        }
    }
    Ok(IValue::Bool(!any))
}

/// `min(l)` / `max(l)` of one list, and `min(a, b)` / `max(a, b)` of two lists
/// (lexicographic).
fn list_min_max(overload: &str, keep: Ordering) -> Option<Operation> {
    if overload.starts_with("self_") {
        return Some(match keep {
            Ordering::Less => unary(|l| extreme(l, Ordering::Less)),
            _ => unary(|l| extreme(l, Ordering::Greater)),
        });
    }
    if overload.ends_with("_list") {
        return Some(Arc::new(move |s: &mut Stack| {
            let b = pop(s)?;
            let a = pop(s)?;
            // PyTorch keeps `a` unless `b` is strictly smaller (larger).
            let pick_b = match keep {
                Ordering::Less => less(&b, &a)?,
                _ => less(&a, &b)?,
            };
            s.push(if pick_b { b } else { a });
            Ok(())
        }));
    }
    None
}

fn extreme(l: &IValue, keep: Ordering) -> Result<IValue, String> {
    let items = read(list(l)?);
    let mut best = items.first().ok_or_else(|| {
        format!(
            "{}() arg is an empty sequence",
            if keep == Ordering::Less { "min" } else { "max" }
        )
    })?;
    for v in items.iter().skip(1) {
        if order(v, best)? == Some(keep) {
            best = v;
        }
    }
    Ok(best.clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(v: &[i64]) -> IValue {
        IValue::list(v.iter().map(|&i| IValue::Int(i)).collect())
    }

    fn as_ints(v: &IValue) -> Vec<i64> {
        list(v)
            .unwrap()
            .to_vec()
            .iter()
            .map(|x| x.as_int().unwrap())
            .collect()
    }

    #[test]
    fn mutation_is_seen_through_aliases() {
        let l = ints(&[3, 1, 2]);
        let alias = l.clone();
        append(&l, &IValue::Int(0)).unwrap();
        sort(&[l.clone(), IValue::Bool(false)]).unwrap();
        assert_eq!(as_ints(&alias), [0, 1, 2, 3]);
        insert(&[l.clone(), IValue::Int(-100), IValue::Int(9)]).unwrap();
        insert(&[l.clone(), IValue::Int(100), IValue::Int(8)]).unwrap();
        assert_eq!(as_ints(&alias), [9, 0, 1, 2, 3, 8]);
        assert_eq!(pop_at(&l, &IValue::Int(-1)).unwrap().as_int(), Some(8));
        extend(&[l.clone(), l.clone()]).unwrap();
        assert_eq!(alias_len(&alias), 10);
        sort(&[l.clone(), IValue::Bool(true)]).unwrap();
        assert_eq!(as_ints(&alias)[..3], [9, 9, 3]);
    }

    fn alias_len(v: &IValue) -> usize {
        list(v).unwrap().len()
    }

    #[test]
    fn errors_carry_pytorch_messages() {
        let l = ints(&[1, 2]);
        assert_eq!(
            get(&l, &IValue::Int(5)).unwrap_err(),
            "list index out of range"
        );
        assert_eq!(get(&l, &IValue::Int(-2)).unwrap().as_int(), Some(1));
        assert_eq!(
            remove(&[l.clone(), IValue::Int(7)]).unwrap_err(),
            "list.remove(x): x not in list"
        );
        assert_eq!(
            index(&l, &IValue::Int(7)).unwrap_err(),
            "'7' is not in list"
        );
        assert_eq!(
            pop_at(&ints(&[]), &IValue::Int(-1)).unwrap_err(),
            "pop from empty list"
        );
        assert_eq!(
            extreme(&ints(&[]), Ordering::Less).unwrap_err(),
            "min() arg is an empty sequence"
        );
    }
}
