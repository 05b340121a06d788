//! `prim::Constant` nodes in PyTorch's attribute forms (`torch/csrc/jit/ir/constants.cpp`): an
//! int is `Int` under `attr::value`, a float `Float`, a bool an `Int` with a `bool`-typed output,
//! a string `Str`, a device `Str` with a `Device`-typed output, None no attribute at all, and
//! lists and tuples an `IValue`.

use ember_dialects::attr::{AttrValue, ConstValue, TensorLiteral};
use ember_dialects::symbol::sym;
use ember_dialects::types::TupleType;
use ember_dialects::types::{Device, Dim, TensorType};
use ember_dialects::{Graph, Node, Type, Value};

/// The value `v` holds if it is the output of a `prim::Constant` whose value is known and holds
/// no tensor (tensor constants are the runtime's to fold).
pub fn constant_value(g: &Graph, v: Value) -> Option<ConstValue> {
    let n = g.producer(v);
    if g.kind(n) != sym::constant() || g.node_outputs(n).len() != 1 {
        return None;
    }
    let ty = g.ty(v);
    let c = match g.attr(n, sym::attr_value()) {
        // PyTorch's `mustBeNone`: a constant without a value is None.
        None => match ty {
            Type::None | Type::Optional(_) => ConstValue::None,
            _ => return None,
        },
        Some(AttrValue::Int(i)) => match ty {
            Type::Bool => ConstValue::Bool(*i != 0),
            Type::Int | Type::Number => ConstValue::Int(*i),
            _ => return None,
        },
        Some(AttrValue::Float(f)) => match ty {
            Type::Float | Type::Number => ConstValue::Float(*f),
            _ => return None,
        },
        Some(AttrValue::Str(s)) => match ty {
            Type::Str => ConstValue::Str(s.clone()),
            Type::Device => ConstValue::Device(s.clone()),
            _ => return None,
        },
        Some(AttrValue::IValue(c)) => c.clone(),
        // The graph-text parser keeps homogeneous lists in the list attribute kinds.
        Some(AttrValue::Ints(xs)) => match ty {
            Type::List(elem) if **elem == Type::Bool => {
                ConstValue::List(xs.iter().map(|&x| ConstValue::Bool(x != 0)).collect())
            }
            Type::List(elem) if xs.is_empty() || **elem == Type::Int => {
                ConstValue::List(xs.iter().map(|&x| ConstValue::Int(x)).collect())
            }
            _ => return None,
        },
        Some(AttrValue::Floats(xs)) => match ty {
            Type::List(elem) if xs.is_empty() || **elem == Type::Float => {
                ConstValue::List(xs.iter().map(|&x| ConstValue::Float(x)).collect())
            }
            _ => return None,
        },
        Some(AttrValue::Strs(xs)) => match ty {
            Type::List(elem) if xs.is_empty() || **elem == Type::Str => {
                ConstValue::List(xs.iter().map(|x| ConstValue::Str(x.clone())).collect())
            }
            _ => return None,
        },
        Some(_) => return None,
    };
    is_foldable(&c).then_some(c)
}

/// Whether `a` and `b` are the same constant, floats compared bit for bit (`0.0` is not `-0.0`).
pub fn identical(a: &ConstValue, b: &ConstValue) -> bool {
    use ConstValue as C;
    match (a, b) {
        (C::Float(x), C::Float(y)) => x.to_bits() == y.to_bits(),
        (C::List(xs), C::List(ys)) | (C::Tuple(xs), C::Tuple(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| identical(x, y))
        }
        (C::Complex(..), _) | (C::Tensor(_), _) | (C::Opaque(_), _) => false,
        _ => a == b,
    }
}

/// Whether folding may look inside `c`: no tensors, complex numbers or opaque objects.
fn is_foldable(c: &ConstValue) -> bool {
    match c {
        ConstValue::None
        | ConstValue::Bool(_)
        | ConstValue::Int(_)
        | ConstValue::Float(_)
        | ConstValue::Str(_)
        | ConstValue::Device(_) => true,
        ConstValue::List(items) | ConstValue::Tuple(items) => items.iter().all(is_foldable),
        ConstValue::Complex(..) | ConstValue::Tensor(_) | ConstValue::Opaque(_) => false,
    }
}

/// The type PyTorch gives a constant holding `c` that replaces a value of type `like`: the
/// value's own type (`IValue::type()`), except that None keeps `like` when `like` admits None
/// (as `propagateNode` does), lists keep their declared element type and named tuples their
/// name. `None` when no type can be given (an empty list with nothing to go by).
pub fn constant_type(c: &ConstValue, like: &Type) -> Option<Type> {
    Some(match c {
        ConstValue::None => match like {
            Type::Optional(_) | Type::None | Type::Union(_) | Type::Any => like.clone(),
            _ => Type::None,
        },
        ConstValue::Bool(_) => Type::Bool,
        ConstValue::Int(_) => Type::Int,
        ConstValue::Float(_) => Type::Float,
        ConstValue::Str(_) => Type::Str,
        ConstValue::Device(_) => Type::Device,
        ConstValue::List(items) => match like {
            Type::List(_) => like.clone(),
            _ => Type::list(constant_type(items.first()?, &Type::Any)?),
        },
        ConstValue::Tuple(items) => match like {
            Type::Tuple(t) if t.names.is_some() && t.elements.len() == items.len() => like.clone(),
            _ => {
                let hints: Vec<Type> = match like {
                    Type::Tuple(t) if t.elements.len() == items.len() => t.elements.clone(),
                    _ => vec![Type::Any; items.len()],
                };
                let elements = items
                    .iter()
                    .zip(&hints)
                    .map(|(c, h)| constant_type(c, h))
                    .collect::<Option<Vec<_>>>()?;
                Type::Tuple(TupleType {
                    elements,
                    names: None,
                })
            }
        },
        ConstValue::Tensor(t) => Type::Tensor(literal_type(t)),
        ConstValue::Complex(..) | ConstValue::Opaque(_) => return None,
    })
}

/// The complete type of a tensor constant, as PyTorch gives one (`Float(2, 3, strides=[3, 1],
/// requires_grad=0, device=cpu)`).
pub fn literal_type(t: &TensorLiteral) -> TensorType {
    let mut strides = vec![1i64; t.sizes.len()];
    for i in (0..t.sizes.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].saturating_mul(t.sizes[i + 1].max(1));
    }
    TensorType {
        dtype: Some(t.dtype),
        sizes: Some(t.sizes.iter().map(|&s| Dim::Known(s)).collect()),
        strides: Some(strides.into_iter().map(Some).collect()),
        device: Some(Device {
            kind: "cpu".into(),
            index: None,
        }),
        requires_grad: Some(false),
        undefined: None,
    }
}

/// Inserts a `prim::Constant` holding `c` just before `before`, typed by [`constant_type`].
/// `None` (and nothing inserted) when `c` cannot be a constant here.
pub fn insert_constant_before(
    g: &mut Graph,
    before: Node,
    c: &ConstValue,
    like: &Type,
) -> Option<Value> {
    let ty = constant_type(c, like)?;
    let attr = match c {
        ConstValue::None => None,
        ConstValue::Bool(b) => Some(AttrValue::Int(*b as i64)),
        ConstValue::Int(i) => Some(AttrValue::Int(*i)),
        ConstValue::Float(f) => Some(AttrValue::Float(*f)),
        ConstValue::Str(s) | ConstValue::Device(s) => Some(AttrValue::Str(s.clone())),
        ConstValue::List(_) | ConstValue::Tuple(_) => Some(AttrValue::IValue(c.clone())),
        ConstValue::Tensor(t) => Some(AttrValue::Tensor(t.clone())),
        ConstValue::Complex(..) | ConstValue::Opaque(_) => return None,
    };
    let n = g.create(sym::constant(), &[], 1);
    if let Some(attr) = attr {
        g.set_attr(n, sym::attr_value(), attr);
    }
    let out = g.output(n, 0);
    g.set_ty(out, ty);
    g.insert_before(n, before);
    Some(out)
}

/// The value of `v` if it is a `prim::Constant` bool (stored as `value=1`/`0` or an IValue).
pub fn constant_bool(g: &Graph, v: Value) -> Option<bool> {
    match constant_attr(g, v)? {
        AttrValue::Int(i) => Some(*i != 0),
        AttrValue::IValue(ConstValue::Bool(b)) => Some(*b),
        AttrValue::IValue(ConstValue::Int(i)) => Some(*i != 0),
        _ => None,
    }
}

/// The value of `v` if it is a `prim::Constant` int.
pub fn constant_int(g: &Graph, v: Value) -> Option<i64> {
    if !matches!(g.ty(v), Type::Int) {
        return None;
    }
    match constant_attr(g, v)? {
        AttrValue::Int(i) => Some(*i),
        AttrValue::IValue(ConstValue::Int(i)) => Some(*i),
        _ => None,
    }
}

fn constant_attr(g: &Graph, v: Value) -> Option<&AttrValue> {
    let p = g.producer(v);
    if g.kind(p) != sym::constant() {
        return None;
    }
    g.attr(p, sym::attr_value())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Round trip: what is inserted reads back as the same value, typed as PyTorch types it.
    #[test]
    fn constants_round_trip_in_pytorch_forms() {
        let cases: &[(ConstValue, Type, &str)] = &[
            (ConstValue::Int(-3), Type::Int, "Int(-3) int"),
            (ConstValue::Bool(true), Type::Bool, "Int(1) bool"),
            (ConstValue::Float(0.5), Type::Float, "Float(0.5) float"),
            (ConstValue::Str("a".into()), Type::Str, "Str(\"a\") str"),
            (
                ConstValue::Device("cpu".into()),
                Type::Device,
                "Str(\"cpu\") Device",
            ),
            (ConstValue::None, Type::optional(Type::Int), "- int?"),
            (ConstValue::None, Type::Int, "- NoneType"),
            (
                ConstValue::List(vec![]),
                Type::list(Type::Float),
                "IValue(List([])) float[]",
            ),
            (
                ConstValue::List(vec![ConstValue::Int(1)]),
                Type::Any,
                "IValue(List([Int(1)])) int[]",
            ),
        ];
        for (c, like, expect) in cases {
            let mut g = Graph::new();
            let ret = g.return_node(g.block());
            let v = insert_constant_before(&mut g, ret, c, like).unwrap();
            let n = g.producer(v);
            let attr = match g.attr(n, sym::attr_value()) {
                Some(a) => format!("{a:?}"),
                None => "-".to_string(),
            };
            assert_eq!(format!("{attr} {}", g.ty(v)), *expect, "inserting {c:?}");
            assert_eq!(
                constant_value(&g, v).as_ref(),
                Some(c),
                "reading back {c:?}"
            );
        }
    }

    #[test]
    fn list_attribute_kinds_read_as_lists() {
        let cases: &[(AttrValue, Type, Option<ConstValue>)] = &[
            (
                AttrValue::Ints(vec![1, 0]),
                Type::list(Type::Bool),
                Some(ConstValue::List(vec![
                    ConstValue::Bool(true),
                    ConstValue::Bool(false),
                ])),
            ),
            (
                AttrValue::Ints(vec![]),
                Type::list(Type::Float),
                Some(ConstValue::List(vec![])),
            ),
            (
                AttrValue::Floats(vec![0.5]),
                Type::list(Type::Float),
                Some(ConstValue::List(vec![ConstValue::Float(0.5)])),
            ),
            (
                AttrValue::Strs(vec!["a".into()]),
                Type::list(Type::Str),
                Some(ConstValue::List(vec![ConstValue::Str("a".into())])),
            ),
            (AttrValue::Ints(vec![1]), Type::Int, None),
        ];
        for (attr, ty, want) in cases {
            let mut g = Graph::new();
            let n = g.create(sym::constant(), &[], 1);
            g.set_attr(n, sym::attr_value(), attr.clone());
            let v = g.output(n, 0);
            g.set_ty(v, ty.clone());
            g.append_node(n);
            assert_eq!(constant_value(&g, v), *want, "{attr:?} : {ty}");
        }
    }

    #[test]
    fn empty_list_without_a_declared_type_is_not_inserted() {
        let mut g = Graph::new();
        let ret = g.return_node(g.block());
        assert!(
            insert_constant_before(&mut g, ret, &ConstValue::List(vec![]), &Type::Any).is_none()
        );
        assert!(g.block_nodes(g.block()).next().is_none());
    }
}
