//! Dict builtins. Dicts are shared, mutable and keep insertion order; a missing key raises
//! `KeyError: <key>` as PyTorch prints it.

use std::sync::Arc;

use super::display::to_str;
use super::{
    binary, builtin, dict, effect, key, list, read_dict, ternary, tuple, unary, write_dict,
};
use crate::ivalue::{Dict, IValue};
use crate::ops::registry::Registry;
use crate::ops::{pop_n, Operation, Stack};
use ember_dialects::{Graph, Node};

pub fn register(r: &mut Registry) {
    r.add("prim::DictConstruct", dict_construct);
    builtin!(r, "aten::dict", |o, _, _| Some(match o {
        "" => Arc::new(|s: &mut Stack| {
            s.push(IValue::Dict(Dict::default()));
            Ok(())
        }) as Operation,
        o if o.starts_with("Dict_") => unary(copy),
        _ => unary(from_pairs),
    }));
    builtin!(r, "aten::len", |o, _, _| o
        .starts_with("Dict_")
        .then(|| unary(|d| Ok(IValue::Int(dict(d)?.len() as i64)))));
    builtin!(r, "aten::__getitem__", |o, _, _| o
        .starts_with("Dict_")
        .then(|| binary(get_item)));
    builtin!(r, "aten::_set_item", |o, _, _| (o != "t")
        .then(|| effect(3, set_item)));
    builtin!(r, "aten::get", |o, _, _| Some(
        if o.starts_with("default_") {
            ternary(|d, k, default| Ok(dict(d)?.get(&key(k)?).unwrap_or_else(|| default.clone())))
        } else {
            binary(|d, k| Ok(dict(d)?.get(&key(k)?).unwrap_or(IValue::None)))
        }
    ));
    builtin!(r, "aten::keys", |_, _, _| Some(unary(|d| {
        Ok(IValue::list(
            read_dict(dict(d)?).keys().map(|k| k.to_ivalue()).collect(),
        ))
    })));
    builtin!(r, "aten::values", |_, _, _| Some(unary(|d| {
        Ok(IValue::list(
            read_dict(dict(d)?).values().cloned().collect(),
        ))
    })));
    builtin!(r, "aten::items", |_, _, _| Some(unary(|d| {
        Ok(IValue::list(
            read_dict(dict(d)?)
                .iter()
                .map(|(k, v)| IValue::tuple(vec![k.to_ivalue(), v.clone()]))
                .collect(),
        ))
    })));
    builtin!(
        r,
        "aten::pop",
        |o, _, _| if o.starts_with("Dict_default_") {
            Some(ternary(|d, k, default| {
                Ok(write_dict(dict(d)?)
                    .shift_remove(&key(k)?)
                    .unwrap_or_else(|| default.clone()))
            }))
        } else if o.starts_with("Dict_") {
            Some(binary(|d, k| {
                let removed = write_dict(dict(d)?).shift_remove(&key(k)?);
                removed.ok_or_else(|| key_error(k))
            }))
        } else {
            None
        }
    );
    builtin!(r, "aten::popitem", |_, _, _| Some(unary(popitem)));
    builtin!(r, "aten::update", |_, _, _| Some(effect(2, update)));
    builtin!(r, "aten::setdefault", |_, _, _| Some(ternary(setdefault)));
    builtin!(r, "aten::__contains__", |o, _, _| (!o.ends_with("_list"))
        .then(|| binary(|d, k| Ok(IValue::Bool(
            read_dict(dict(d)?).contains_key(&key(k)?)
        )))));
    builtin!(r, "aten::copy", |o, _, _| o
        .starts_with("Dict_")
        .then(|| unary(copy)));
    builtin!(r, "aten::clear", |o, _, _| (o != "t").then(|| effect(
        1,
        |a| {
            write_dict(dict(&a[0])?).clear();
            Ok(())
        }
    )));
    builtin!(r, "aten::Delete", |o, _, _| o.starts_with("Dict_").then(
        || effect(2, |a| {
            match write_dict(dict(&a[0])?).shift_remove(&key(&a[1])?) {
                Some(_) => Ok(()),
                None => Err(key_error(&a[1])),
            }
        })
    ));
}

fn key_error(k: &IValue) -> String {
    format!("KeyError: {}", to_str(k).unwrap_or_else(|e| e))
}

/// `prim::DictConstruct(k0, v0, k1, v1, ...)`.
fn dict_construct(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = g.node_inputs(n).len();
    if !count.is_multiple_of(2) {
        return Err("prim::DictConstruct needs key/value pairs".into());
    }
    Ok(Arc::new(move |s: &mut Stack| {
        let items = pop_n(s, count)?;
        let d = Dict::default();
        {
            let mut map = write_dict(&d);
            for pair in items.chunks(2) {
                map.insert(key(&pair[0])?, pair[1].clone());
            }
        }
        s.push(IValue::Dict(d));
        Ok(())
    }))
}

fn copy(d: &IValue) -> Result<IValue, String> {
    let copy = read_dict(dict(d)?).clone();
    Ok(IValue::Dict(Dict(Arc::new(std::sync::RwLock::new(copy)))))
}

/// `dict(list_of_pairs)`.
fn from_pairs(l: &IValue) -> Result<IValue, String> {
    let d = Dict::default();
    {
        let mut map = write_dict(&d);
        for pair in list(l)?.to_vec() {
            let kv = tuple(&pair)?;
            if kv.len() != 2 {
                return Err("dictionary update sequence element has the wrong length".into());
            }
            map.insert(key(&kv[0])?, kv[1].clone());
        }
    }
    Ok(IValue::Dict(d))
}

fn get_item(d: &IValue, k: &IValue) -> Result<IValue, String> {
    dict(d)?.get(&key(k)?).ok_or_else(|| key_error(k))
}

fn set_item(a: &[IValue]) -> Result<(), String> {
    dict(&a[0])?.insert(key(&a[1])?, a[2].clone());
    Ok(())
}

/// `d.popitem()`: PyTorch removes the *first* inserted entry (Python the last).
fn popitem(d: &IValue) -> Result<IValue, String> {
    let (k, v) = write_dict(dict(d)?)
        .shift_remove_index(0)
        .ok_or("popitem(): dictionary is empty")?;
    Ok(IValue::tuple(vec![k.to_ivalue(), v]))
}

fn update(a: &[IValue]) -> Result<(), String> {
    // Snapshot first: `d.update(d)` reads the dict it writes.
    let more = dict(&a[1])?.items();
    let mut map = write_dict(dict(&a[0])?);
    for (k, v) in more {
        map.insert(k, v);
    }
    Ok(())
}

fn setdefault(d: &IValue, k: &IValue, default: &IValue) -> Result<IValue, String> {
    let mut map = write_dict(dict(d)?);
    Ok(map
        .entry(key(k)?)
        .or_insert_with(|| default.clone())
        .clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn methods_share_the_dict() {
        let d = IValue::Dict(Dict::default());
        let alias = d.clone();
        set_item(&[d.clone(), IValue::str("b"), IValue::Int(1)]).unwrap();
        set_item(&[d.clone(), IValue::str("a"), IValue::Int(2)]).unwrap();
        assert_eq!(
            setdefault(&d, &IValue::str("a"), &IValue::Int(9))
                .unwrap()
                .as_int(),
            Some(2)
        );
        assert_eq!(
            setdefault(&d, &IValue::str("c"), &IValue::Int(9))
                .unwrap()
                .as_int(),
            Some(9)
        );
        assert_eq!(dict(&alias).unwrap().len(), 3);
        assert_eq!(
            get_item(&d, &IValue::str("zz")).unwrap_err(),
            "KeyError: zz"
        );
        assert_eq!(get_item(&d, &IValue::Int(5)).unwrap_err(), "KeyError: 5");
        let item = popitem(&d).unwrap();
        assert_eq!(format!("{item:?}"), "(\"b\", 1)");
        let c = copy(&d).unwrap();
        write_dict(dict(&c).unwrap()).clear();
        assert_eq!(dict(&alias).unwrap().len(), 2);
        assert_eq!(popitem(&c).unwrap_err(), "popitem(): dictionary is empty");
    }
}
