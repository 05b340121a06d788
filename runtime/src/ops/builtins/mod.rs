//! The builtins TorchScript programs use on Python values: int, float, bool, str, list, dict
//! and tuple, the math module, printing and the small prim ops around them. One file per
//! topic; this module holds what they share: overload dispatch and argument access.
//!
//! A builtin is registered for the overloads its `pick` function knows (the overload name of
//! the schema the catalogue resolves for the node, `aten::len.str` → `"str"`), so tensor
//! overloads of the same kinds stay with the tensor operators whatever the registration order.

pub mod compare;
pub mod dict;
pub mod display;
pub mod int_float;
pub mod list;
pub mod math;
pub mod misc;
pub mod scalar;
pub mod std_sort;
pub mod str;
pub mod tensor_print;
pub mod tuple;

use std::sync::{Arc, RwLockReadGuard, RwLockWriteGuard};

use ember_dialects::catalogue::resolve_node;
use ember_dialects::types::Type;
use ember_dialects::{Graph, Node};
use indexmap::IndexMap;

use super::registry::Registry;
use super::{pop, Operation, Stack};
use crate::ivalue::{Dict, DictKey, IValue, List};

pub fn register(r: &mut Registry) {
    int_float::register(r);
    math::register(r);
    str::register(r);
    list::register(r);
    dict::register(r);
    tuple::register(r);
    misc::register(r);
}

/// Chooses the operation for a node from its resolved overload name; `None` when the overload
/// is not a builtin's (a tensor overload of the same kind, say).
pub type Pick = fn(&str, &Graph, Node) -> Option<Operation>;

/// Registers `$pick` for the nodes of `$kind` whose overload it accepts.
macro_rules! builtin {
    ($r:expr, $kind:expr, $pick:expr) => {
        $r.add_if(
            $kind,
            |g, n| $crate::ops::builtins::pick_node(g, n, $pick).is_some(),
            |g, n| {
                $crate::ops::builtins::pick_node(g, n, $pick)
                    .ok_or_else(|| format!("'{}' has no builtin for these inputs", g.kind(n)))
            },
        )
    };
}
pub(crate) use builtin;

/// The operation `pick` gives for `n`'s overload. Overloads with a plain `Tensor` argument
/// belong to the tensor operators, except for the container ones (lists and dicts of tensors).
pub fn pick_node(g: &Graph, n: Node, pick: Pick) -> Option<Operation> {
    let schema = resolve_node(g, n).ok()?;
    let first_is_container = schema
        .arguments
        .first()
        .is_some_and(|a| matches!(a.ty, Type::List(_) | Type::Dict(..)));
    let tensor_arg = schema
        .arguments
        .iter()
        .any(|a| matches!(a.ty, Type::Tensor(_)));
    if tensor_arg && !first_is_container {
        return None;
    }
    pick(&schema.overload_name, g, n)
}

/// One input, one output.
pub fn unary(f: fn(&IValue) -> Result<IValue, String>) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let a = pop(s)?;
        s.push(f(&a)?);
        Ok(())
    })
}

/// Two inputs, one output.
pub fn binary(f: fn(&IValue, &IValue) -> Result<IValue, String>) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let b = pop(s)?;
        let a = pop(s)?;
        s.push(f(&a, &b)?);
        Ok(())
    })
}

/// Three inputs, one output.
pub fn ternary(f: fn(&IValue, &IValue, &IValue) -> Result<IValue, String>) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let c = pop(s)?;
        let b = pop(s)?;
        let a = pop(s)?;
        s.push(f(&a, &b, &c)?);
        Ok(())
    })
}

/// `n` inputs, one output.
pub fn nary(n: usize, f: fn(&[IValue]) -> Result<IValue, String>) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let args = super::pop_n(s, n)?;
        s.push(f(&args)?);
        Ok(())
    })
}

/// `n` inputs, no output (mutating methods).
pub fn effect(n: usize, f: fn(&[IValue]) -> Result<(), String>) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let args = super::pop_n(s, n)?;
        f(&args)
    })
}

/// The number of inputs of `n`.
pub fn arity(g: &Graph, n: Node) -> usize {
    g.node_inputs(n).len()
}

fn expected(what: &str, got: &IValue) -> String {
    format!("expected {what}, got {}", got.kind_name())
}

pub fn int(v: &IValue) -> Result<i64, String> {
    match v {
        IValue::Int(i) => Ok(*i),
        IValue::Bool(b) => Ok(*b as i64),
        other => Err(expected("an int", other)),
    }
}

/// A number as a float (ints and bools convert).
pub fn float(v: &IValue) -> Result<f64, String> {
    match v {
        IValue::Double(d) => Ok(*d),
        IValue::Int(i) => Ok(*i as f64),
        IValue::Bool(b) => Ok(*b as i64 as f64),
        other => Err(expected("a float", other)),
    }
}

pub fn boolean(v: &IValue) -> Result<bool, String> {
    match v {
        IValue::Bool(b) => Ok(*b),
        other => Err(expected("a bool", other)),
    }
}

pub fn string(v: &IValue) -> Result<&str, String> {
    match v {
        IValue::Str(s) => Ok(s),
        other => Err(expected("a str", other)),
    }
}

pub fn list(v: &IValue) -> Result<&List, String> {
    match v {
        IValue::List(l) => Ok(l),
        other => Err(expected("a list", other)),
    }
}

pub fn dict(v: &IValue) -> Result<&Dict, String> {
    match v {
        IValue::Dict(d) => Ok(d),
        other => Err(expected("a dict", other)),
    }
}

pub fn tuple(v: &IValue) -> Result<&[IValue], String> {
    match v {
        IValue::Tuple(t) => Ok(t),
        other => Err(expected("a tuple", other)),
    }
}

/// Read access to a list's items.
pub fn read(l: &List) -> RwLockReadGuard<'_, Vec<IValue>> {
    l.0.read().unwrap_or_else(|e| e.into_inner())
}

/// Write access to a list's items; every alias sees the change.
pub fn write(l: &List) -> RwLockWriteGuard<'_, Vec<IValue>> {
    l.0.write().unwrap_or_else(|e| e.into_inner())
}

pub fn read_dict(d: &Dict) -> RwLockReadGuard<'_, IndexMap<DictKey, IValue>> {
    d.0.read().unwrap_or_else(|e| e.into_inner())
}

pub fn write_dict(d: &Dict) -> RwLockWriteGuard<'_, IndexMap<DictKey, IValue>> {
    d.0.write().unwrap_or_else(|e| e.into_inner())
}

/// A dict key from a value, or PyTorch-like complaint for unhashable ones.
pub fn key(v: &IValue) -> Result<DictKey, String> {
    DictKey::from_ivalue(v).ok_or_else(|| format!("unhashable type: '{}'", v.kind_name()))
}

/// Python's index normalization: negative indices count from the end; `None` when the index
/// is out of range.
pub fn normalize_index(index: i64, len: usize) -> Option<usize> {
    let len = len as i64;
    let i = if index < 0 {
        index.checked_add(len)?
    } else {
        index
    };
    (0..len).contains(&i).then_some(i as usize)
}

/// The positions `slice(start, end, step)` selects from a sequence of `len` items, as
/// PyTorch's `slice_indices_adjust` (Python's `PySlice_AdjustIndices`).
pub fn slice_positions(
    len: usize,
    start: Option<i64>,
    end: Option<i64>,
    step: i64,
) -> Result<Vec<usize>, String> {
    if step == 0 {
        return Err("List slice should have non-zero step".into());
    }
    let len = len as i64;
    let step = step.max(-i64::MAX);
    let (lower, upper) = if step < 0 { (-1, len - 1) } else { (0, len) };
    let clamp = |v: Option<i64>, default: i64| match v {
        None => default,
        Some(v) if v < 0 => (v.saturating_add(len)).max(lower),
        Some(v) => v.min(upper),
    };
    let start = clamp(start, if step < 0 { upper } else { lower });
    let end = clamp(end, if step < 0 { lower } else { upper });
    let mut out = Vec::new();
    let mut i = start;
    while (step > 0 && i < end) || (step < 0 && i > end) {
        out.push(i as usize);
        i = match i.checked_add(step) {
            Some(v) => v,
            None => break,
        };
    }
    Ok(out)
}

/// An empty vector with room for `n` items, or C++'s `std::bad_alloc` when that much memory
/// cannot be had (a string padded to a width of 2^62, a list repeated 2^60 times).
pub fn try_vec<T>(n: usize) -> Result<Vec<T>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| "std::bad_alloc".to_string())?;
    Ok(v)
}

/// An optional int argument (`int? start=None`).
pub fn opt_int(v: &IValue) -> Result<Option<i64>, String> {
    match v {
        IValue::None => Ok(None),
        other => int(other).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slices_follow_python() {
        let s = |len, a, b, c| slice_positions(len, a, b, c).unwrap();
        assert_eq!(s(5, None, None, 1), vec![0, 1, 2, 3, 4]);
        assert_eq!(s(5, Some(-2), None, 1), vec![3, 4]);
        assert_eq!(s(5, None, None, -1), vec![4, 3, 2, 1, 0]);
        assert_eq!(s(5, Some(4), Some(0), -2), vec![4, 2]);
        assert_eq!(s(5, Some(10), Some(-10), -3), vec![4, 1]);
        assert_eq!(s(5, Some(-100), Some(100), 2), vec![0, 2, 4]);
        assert_eq!(s(0, None, None, -1), Vec::<usize>::new());
        assert_eq!(
            s(3, Some(i64::MIN), Some(i64::MAX), i64::MIN),
            Vec::<usize>::new()
        );
        assert!(slice_positions(3, None, None, 0).is_err());
        assert_eq!(normalize_index(-1, 3), Some(2));
        assert_eq!(normalize_index(3, 3), None);
        assert_eq!(normalize_index(i64::MIN, 3), None);
    }
}
