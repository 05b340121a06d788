//! When two nodes compute the same thing: same kind, same inputs, equal attributes and the same
//! output types (PyTorch's `HashNode`/`EqualNode` in `ir/node_hashing.cpp`), for CSE and
//! constant pooling.
//!
//! Floats compare by bit pattern, so `0.0` and `-0.0` stay apart (they print and divide
//! differently). Tensor constants compare by their elements (constants are never written);
//! graph and opaque attributes never compare equal.

use ember_dialects::attr::{AttrValue, ConstValue, TensorLiteral};
use ember_dialects::{Graph, Node, Symbol, Value};

/// The part of a node that is hashed; nodes with different keys never compare equal.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct NodeKey {
    pub kind: Symbol,
    pub inputs: Vec<Value>,
    pub num_outputs: usize,
}

pub fn node_key(g: &Graph, n: Node) -> NodeKey {
    NodeKey {
        kind: g.kind(n),
        inputs: g.node_inputs(n).to_vec(),
        num_outputs: g.node_outputs(n).len(),
    }
}

/// Whether `a` and `b` (of the same graph) compute the same values: equal keys, attributes and
/// output types. Nodes with blocks are never equal.
pub fn nodes_equal(g: &Graph, a: Node, b: Node) -> bool {
    node_key(g, a) == node_key(g, b)
        && g.node_blocks(a).is_empty()
        && g.node_blocks(b).is_empty()
        && attrs_equal(g.attrs(a), g.attrs(b))
        && g.node_outputs(a)
            .iter()
            .zip(g.node_outputs(b))
            .all(|(&x, &y)| g.ty(x) == g.ty(y))
}

/// Whether two attribute lists hold the same names with equal values, in any order.
pub fn attrs_equal(a: &[(Symbol, AttrValue)], b: &[(Symbol, AttrValue)]) -> bool {
    a.len() == b.len()
        && a.iter().all(|(name, va)| {
            b.iter()
                .find(|(n, _)| n == name)
                .is_some_and(|(_, vb)| attr_value_equal(va, vb))
        })
}

fn float_eq(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

pub fn attr_value_equal(a: &AttrValue, b: &AttrValue) -> bool {
    use AttrValue as A;
    match (a, b) {
        (A::Int(x), A::Int(y)) => x == y,
        (A::Float(x), A::Float(y)) => float_eq(*x, *y),
        (A::Complex(xr, xi), A::Complex(yr, yi)) => float_eq(*xr, *yr) && float_eq(*xi, *yi),
        (A::Str(x), A::Str(y)) => x == y,
        (A::Type(x), A::Type(y)) => x == y,
        (A::Ints(x), A::Ints(y)) => x == y,
        (A::Floats(x), A::Floats(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| float_eq(*p, *q))
        }
        (A::Strs(x), A::Strs(y)) => x == y,
        (A::Types(x), A::Types(y)) => x == y,
        (A::IValue(x), A::IValue(y)) => const_value_equal(x, y),
        (A::Tensor(x), A::Tensor(y)) => tensor_literals_equal(x, y),
        _ => false,
    }
}

/// Whether two tensor constants hold the same elements bit for bit (PyTorch's constant
/// pooling merges equal tensors too; constants are never written, so one can stand for both).
/// A literal whose values the graph text does not hold (`<Tensor>`) equals nothing.
pub fn tensor_literals_equal(a: &TensorLiteral, b: &TensorLiteral) -> bool {
    if a.dtype != b.dtype || a.sizes != b.sizes {
        return false;
    }
    if let (Some(x), Some(y)) = (&a.handle, &b.handle) {
        if x == y {
            return true;
        }
    }
    // Tensors made contiguous by `tensor_constant` compare in place; anything else by its
    // printed values.
    let tensor = |t: &TensorLiteral| {
        t.handle
            .as_ref()
            .and_then(|h| h.0.downcast_ref::<ember_runtime::tensor::Tensor>())
            .filter(|x| x.is_contiguous())
            .cloned()
    };
    match (tensor(a), tensor(b)) {
        (Some(x), Some(y)) => {
            let n = x.numel().saturating_mul(x.dtype().size());
            n == y.numel().saturating_mul(y.dtype().size())
                // SAFETY: contiguous tensors hold `n` element bytes from data_ptr.
                && unsafe {
                    std::slice::from_raw_parts(x.data_ptr() as *const u8, n)
                        == std::slice::from_raw_parts(y.data_ptr() as *const u8, n)
                }
        }
        _ => matches!((&a.data, &b.data), (Some(x), Some(y)) if x == y),
    }
}

pub fn const_value_equal(a: &ConstValue, b: &ConstValue) -> bool {
    use ConstValue as C;
    match (a, b) {
        (C::None, C::None) => true,
        (C::Bool(x), C::Bool(y)) => x == y,
        (C::Int(x), C::Int(y)) => x == y,
        (C::Float(x), C::Float(y)) => float_eq(*x, *y),
        (C::Complex(xr, xi), C::Complex(yr, yi)) => float_eq(*xr, *yr) && float_eq(*xi, *yi),
        (C::Str(x), C::Str(y)) => x == y,
        (C::Device(x), C::Device(y)) => x == y,
        (C::List(x), C::List(y)) | (C::Tuple(x), C::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| const_value_equal(p, q))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ember_dialects::Type;

    #[test]
    fn attribute_equality_cases() {
        let i = |v| AttrValue::Int(v);
        let f = |v| AttrValue::Float(v);
        let cases: &[(AttrValue, AttrValue, bool)] = &[
            (i(1), i(1), true),
            (i(1), i(2), false),
            (i(1), f(1.0), false),
            (f(0.0), f(-0.0), false),
            (f(f64::NAN), f(f64::NAN), true),
            (AttrValue::Str("a".into()), AttrValue::Str("a".into()), true),
            (
                AttrValue::Type(Type::Int),
                AttrValue::Type(Type::Float),
                false,
            ),
            (
                AttrValue::IValue(ConstValue::Tuple(vec![
                    ConstValue::Int(1),
                    ConstValue::None,
                ])),
                AttrValue::IValue(ConstValue::Tuple(vec![
                    ConstValue::Int(1),
                    ConstValue::None,
                ])),
                true,
            ),
            (
                AttrValue::IValue(ConstValue::Opaque("object".into())),
                AttrValue::IValue(ConstValue::Opaque("object".into())),
                false,
            ),
            (
                AttrValue::Graph(Box::new(Graph::new())),
                AttrValue::Graph(Box::new(Graph::new())),
                false,
            ),
        ];
        for (a, b, eq) in cases {
            assert_eq!(attr_value_equal(a, b), *eq, "{a:?} vs {b:?}");
        }
        let x = Symbol::attr("x");
        let y = Symbol::attr("y");
        assert!(attrs_equal(
            &[(x, i(1)), (y, i(2))],
            &[(y, i(2)), (x, i(1))]
        ));
        assert!(!attrs_equal(&[(x, i(1))], &[(x, i(1)), (y, i(2))]));
    }
}
