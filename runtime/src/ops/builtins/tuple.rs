//! Tuples: `prim::TupleConstruct`, `TupleIndex` and `TupleUnpack` live in ops/prim.rs; this
//! adds `prim::TupleSlice[beg, end]`. Tuple `==`, `!=` and `<`-style comparisons go through
//! the scalar comparison builtins (compare.rs orders tuples lexicographically), and `len` of a
//! tuple is `aten::len.any` in list.rs. TorchScript lowers `t[a:b]` and `t1 + t2` to
//! TupleIndex/TupleUnpack plus TupleConstruct when it compiles.

use std::sync::Arc;

use ember_dialects::symbol::Symbol;
use ember_dialects::{AttrValue, Graph, Node};

use super::tuple;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::ops::{pop, Operation, Stack};

pub fn register(r: &mut Registry) {
    r.add("prim::TupleSlice", tuple_slice);
}

fn int_attr(g: &Graph, n: Node, name: &str) -> Result<i64, String> {
    match g.attr(n, Symbol::new(&format!("attr::{name}"))) {
        Some(AttrValue::Int(i)) => Ok(*i),
        _ => Err(format!("prim::TupleSlice needs an int attribute '{name}'")),
    }
}

/// `prim::TupleSlice[beg=b, end=e](t)`: the elements `b..e` (already normalized by the
/// compiler).
fn tuple_slice(g: &Graph, n: Node) -> Result<Operation, String> {
    let (beg, end) = (int_attr(g, n, "beg")?, int_attr(g, n, "end")?);
    Ok(Arc::new(move |s: &mut Stack| {
        let v = pop(s)?;
        let items = tuple(&v)?;
        let len = items.len() as i64;
        if beg < 0 || end < beg || end > len {
            return Err(format!(
                "tuple slice {beg}..{end} out of range for {len} elements"
            ));
        }
        s.push(IValue::tuple(items[beg as usize..end as usize].to_vec()));
        Ok(())
    }))
}

#[cfg(test)]
mod tests {
    use crate::ivalue::IValue;
    use crate::ops::builtins::compare::{less, values_equal};

    #[test]
    fn tuples_compare_like_python() {
        let t = |a: i64, b: &str| IValue::tuple(vec![IValue::Int(a), IValue::str(b)]);
        assert!(values_equal(&t(1, "a"), &t(1, "a")).unwrap());
        assert!(!values_equal(&t(1, "a"), &t(1, "b")).unwrap());
        assert!(less(&t(1, "b"), &t(2, "a")).unwrap());
        assert!(less(&t(1, "a"), &t(1, "b")).unwrap());
        assert!(!less(&t(1, "b"), &t(1, "b")).unwrap());
    }
}
