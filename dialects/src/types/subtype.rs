//! Subtyping and unification as PyTorch's `Type::isSubtypeOf` and `unifyTypes` define them
//! (aten/src/ATen/core/type.cpp, union_type.cpp): tensor refinements are subtypes of `Tensor`,
//! `NoneType` and `T` are subtypes of `Optional[T]`, lists, dicts and `RRef` are invariant,
//! tuples, futures and awaits covariant, unions by membership, `int`/`float`/`complex` are
//! `Scalar`s (`number`), and everything is an `Any`.

use super::union::{optional_of, union_of};
use super::{Dim, TensorType, TupleType, Type};

impl Type {
    /// Whether a value of type `self` may be used where `rhs` is expected.
    pub fn is_subtype_of(&self, rhs: &Type) -> bool {
        match self {
            Type::Union(items) => union_is_subtype(items, rhs),
            Type::Optional(elem) => match rhs {
                Type::Optional(r) => elem.is_subtype_of(r),
                Type::Union(rs) => union_can_hold(rs, &Type::None) && union_can_hold(rs, elem),
                _ => base_subtype(self, rhs),
            },
            Type::None => matches!(rhs, Type::Optional(_)) || base_subtype(self, rhs),
            Type::Number => match rhs {
                Type::Union(rs) => union_can_hold(rs, &Type::Number),
                _ => base_subtype(self, rhs),
            },
            Type::Int | Type::Float | Type::Complex => {
                matches!(rhs, Type::Number) || base_subtype(self, rhs)
            }
            Type::Tensor(a) => match rhs {
                Type::Tensor(b) => tensor_is_subtype(a, b),
                _ => base_subtype(self, rhs),
            },
            Type::List(_) => base_subtype(self, rhs) || matches!(rhs, Type::AnyList),
            Type::Tuple(a) => {
                base_subtype(self, rhs)
                    || matches!(rhs, Type::AnyTuple)
                    || matches!(rhs, Type::Tuple(b) if tuple_is_subtype(a, b))
            }
            Type::Future(a) => {
                base_subtype(self, rhs) || matches!(rhs, Type::Future(b) if a.is_subtype_of(b))
            }
            Type::Await(a) => {
                base_subtype(self, rhs) || matches!(rhs, Type::Await(b) if a.is_subtype_of(b))
            }
            Type::Class(_) => matches!(rhs, Type::AnyClass) || base_subtype(self, rhs),
            Type::Enum(_) => matches!(rhs, Type::AnyEnum) || base_subtype(self, rhs),
            _ => base_subtype(self, rhs),
        }
    }

    /// PyTorch's type equality (`operator==` on types): structural, except that tensor sizes
    /// compare symbolic dimensions as unknown and type variables are all equal.
    pub fn equals(&self, rhs: &Type) -> bool {
        match (self, rhs) {
            (Type::Tensor(a), Type::Tensor(b)) => tensor_equals(a, b),
            (Type::List(a), Type::List(b))
            | (Type::Optional(a), Type::Optional(b))
            | (Type::Future(a), Type::Future(b))
            | (Type::RRef(a), Type::RRef(b))
            | (Type::Await(a), Type::Await(b)) => a.equals(b),
            (Type::Dict(ka, va), Type::Dict(kb, vb)) => ka.equals(kb) && va.equals(vb),
            (Type::Tuple(a), Type::Tuple(b)) => {
                a.names == b.names && all_pairs(&a.elements, &b.elements, Type::equals)
            }
            (Type::Union(a), Type::Union(b)) => {
                a.len() == b.len() && a.iter().all(|x| b.iter().any(|y| x.equals(y)))
            }
            // PyTorch compares type variables by kind only: `t` equals `t1`.
            (Type::Var(_), Type::Var(_)) => true,
            _ => self == rhs,
        }
    }

    /// `unshapedType`: every tensor type inside `self` replaced by plain `Tensor`.
    pub fn unshaped(&self) -> Type {
        let rec = |t: &Type| Box::new(t.unshaped());
        match self {
            Type::Tensor(_) => Type::tensor(),
            Type::List(e) => Type::List(rec(e)),
            Type::Optional(e) => Type::Optional(rec(e)),
            Type::Future(e) => Type::Future(rec(e)),
            Type::RRef(e) => Type::RRef(rec(e)),
            Type::Await(e) => Type::Await(rec(e)),
            Type::Dict(k, v) => Type::Dict(rec(k), rec(v)),
            Type::Union(items) => Type::Union(items.iter().map(Type::unshaped).collect()),
            Type::Tuple(t) => Type::Tuple(TupleType {
                elements: t.elements.iter().map(Type::unshaped).collect(),
                names: t.names.clone(),
            }),
            other => other.clone(),
        }
    }

    /// Whether the type mentions a type variable (`t`, `t1`).
    pub fn has_free_variables(&self) -> bool {
        match self {
            Type::Var(_) => true,
            Type::List(e)
            | Type::Optional(e)
            | Type::Future(e)
            | Type::RRef(e)
            | Type::Await(e) => e.has_free_variables(),
            Type::Dict(k, v) => k.has_free_variables() || v.has_free_variables(),
            Type::Union(items) => items.iter().any(Type::has_free_variables),
            Type::Tuple(t) => t.elements.iter().any(Type::has_free_variables),
            _ => false,
        }
    }
}

fn all_pairs(a: &[Type], b: &[Type], f: fn(&Type, &Type) -> bool) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| f(x, y))
}

/// `Type::isSubtypeOfExt`, the rule every type falls back to.
fn base_subtype(lhs: &Type, rhs: &Type) -> bool {
    if matches!(rhs, Type::Any) || lhs.equals(rhs) {
        return true;
    }
    match rhs {
        Type::Optional(elem) => lhs.is_subtype_of(elem),
        Type::Union(items) => items.iter().any(|r| lhs.is_subtype_of(r)),
        _ => false,
    }
}

fn number_members() -> [Type; 3] {
    [Type::Int, Type::Float, Type::Complex]
}

/// `UnionType::canHoldType`.
pub(super) fn union_can_hold(items: &[Type], ty: &Type) -> bool {
    if matches!(ty, Type::Number) {
        return number_members().iter().all(|n| union_can_hold(items, n));
    }
    items.iter().any(|inner| ty.is_subtype_of(inner))
}

/// `UnionType::isSubtypeOfExt`: every member must fit some member of the right-hand side.
fn union_is_subtype(items: &[Type], rhs: &Type) -> bool {
    let rhs_types: Vec<Type> = match rhs {
        Type::Union(rs) => rs.clone(),
        Type::Optional(e) if matches!(**e, Type::Number) => {
            let mut v = vec![Type::None];
            v.extend(number_members());
            v
        }
        Type::Optional(e) => vec![Type::None, (**e).clone()],
        Type::Number => number_members().to_vec(),
        other => vec![other.clone()],
    };
    items
        .iter()
        .all(|l| rhs_types.iter().any(|r| l.is_subtype_of(r)))
}

fn tuple_is_subtype(a: &TupleType, b: &TupleType) -> bool {
    // A named tuple may be a subtype of an unnamed one, not the other way round.
    let names_match = match (&a.names, &b.names) {
        (_, None) => true,
        (Some(x), Some(y)) => x.fields == y.fields,
        (None, Some(_)) => false,
    };
    names_match && all_pairs(&a.elements, &b.elements, Type::is_subtype_of)
}

/// Whether `rhs` is at least as general as `lhs` in one optional property.
fn refines<T: PartialEq>(lhs: &Option<T>, rhs: &Option<T>) -> bool {
    rhs.is_none() || lhs == rhs
}

fn static_size(d: &Dim) -> Option<i64> {
    match d {
        Dim::Known(n) => Some(*n),
        Dim::Unknown | Dim::Symbolic(_) => None,
    }
}

/// `TensorType::isSubtypeOfExt`: `merge(lhs, rhs) == rhs`, i.e. every property `rhs` knows,
/// `lhs` knows with the same value.
fn tensor_is_subtype(a: &TensorType, b: &TensorType) -> bool {
    let sizes_ok = match (&a.sizes, &b.sizes) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(x), Some(y)) => {
            x.len() == y.len()
                && x.iter().zip(y).all(|(p, q)| match static_size(q) {
                    None => true,
                    Some(n) => static_size(p) == Some(n),
                })
        }
    };
    let strides_ok = match (&a.strides, &b.strides) {
        (_, None) => true,
        (None, Some(_)) => false,
        (Some(x), Some(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| refines(p, q)),
    };
    sizes_ok
        && strides_ok
        && refines(&a.dtype, &b.dtype)
        && refines(&a.device, &b.device)
        && refines(&a.requires_grad, &b.requires_grad)
        && refines(&a.undefined, &b.undefined)
}

fn tensor_equals(a: &TensorType, b: &TensorType) -> bool {
    let sizes = |t: &TensorType| {
        t.sizes
            .as_ref()
            .map(|v| v.iter().map(static_size).collect::<Vec<_>>())
    };
    sizes(a) == sizes(b)
        && a.strides == b.strides
        && a.dtype == b.dtype
        && a.device == b.device
        && a.requires_grad == b.requires_grad
        && a.undefined == b.undefined
}

fn merge_primitive<T: PartialEq + Clone>(a: &Option<T>, b: &Option<T>) -> Option<T> {
    if a == b {
        a.clone()
    } else {
        None
    }
}

/// `TensorType::merge`: keep what both agree on, forget the rest.
pub fn merge_tensor_types(a: &TensorType, b: &TensorType) -> TensorType {
    let sizes = match (&a.sizes, &b.sizes) {
        (Some(x), Some(y)) if x.len() == y.len() => Some(
            x.iter()
                .zip(y)
                .map(|(p, q)| if p == q { *p } else { Dim::Unknown })
                .collect(),
        ),
        _ => None,
    };
    let strides = match (&a.strides, &b.strides) {
        (Some(x), Some(y)) if x.len() == y.len() => Some(
            x.iter()
                .zip(y)
                .map(|(p, q)| if p == q { *p } else { None })
                .collect(),
        ),
        _ => None,
    };
    TensorType {
        dtype: merge_primitive(&a.dtype, &b.dtype),
        sizes,
        strides,
        device: merge_primitive(&a.device, &b.device),
        requires_grad: merge_primitive(&a.requires_grad, &b.requires_grad),
        undefined: merge_primitive(&a.undefined, &b.undefined),
    }
}

/// `unifyTypes(a, b)`: the least type both fit in, when PyTorch knows one.
pub fn unify_types(a: &Type, b: &Type) -> Option<Type> {
    unify_types_ext(a, b, false, None)
}

/// `unifyTypes` with its options: `default_to_union` makes `Union[a, b]` when nothing else
/// unifies, and `type_hint` is accepted when both are subtypes of it.
pub fn unify_types_ext(
    a: &Type,
    b: &Type,
    default_to_union: bool,
    type_hint: Option<&Type>,
) -> Option<Type> {
    let unified = unify_impl(a, b, default_to_union, type_hint);
    if unified.is_none() && default_to_union {
        return union_of(vec![a.clone(), b.clone()]).ok();
    }
    unified
}

fn unify_impl(a: &Type, b: &Type, default_to_union: bool, hint: Option<&Type>) -> Option<Type> {
    if a.is_subtype_of(b) {
        return Some(b.clone());
    }
    if b.is_subtype_of(a) {
        return Some(a.clone());
    }
    if let (Type::Tensor(x), Type::Tensor(y)) = (a, b) {
        return Some(Type::Tensor(merge_tensor_types(x, y)));
    }
    let a_none = a.is_subtype_of(&Type::None);
    let b_none = b.is_subtype_of(&Type::None);
    if a_none && !b_none {
        return optional_of(b.clone()).ok();
    }
    if b_none && !a_none {
        return optional_of(a.clone()).ok();
    }
    // unify(Optional[t1], t2) => Optional[unify(t1, t2)]
    if let Type::Optional(e) = a {
        if let Some(u) = unify_types(e, b) {
            return optional_of(u).ok();
        }
    } else if let Type::Optional(e) = b {
        if let Some(u) = unify_types(e, a) {
            return optional_of(u).ok();
        }
    }
    if let (Type::Tuple(x), Type::Tuple(y)) = (a, b) {
        if x.elements.len() != y.elements.len() {
            return None;
        }
        let elements = x
            .elements
            .iter()
            .zip(&y.elements)
            .map(|(p, q)| unify_types_ext(p, q, default_to_union, None))
            .collect::<Option<Vec<_>>>()?;
        return Some(Type::tuple(elements));
    }
    if let (Type::Future(x), Type::Future(y)) = (a, b) {
        if let Some(u) = unify_types(x, y) {
            return Some(Type::Future(Box::new(u)));
        }
    }
    // Mutable containers of differently refined tensors unify once the refinements go.
    let (ua, ub) = (a.unshaped(), b.unshaped());
    if ua.is_subtype_of(&ub) {
        return Some(ub);
    }
    if ub.is_subtype_of(&ua) {
        return Some(ua);
    }
    match hint {
        Some(h) if a.is_subtype_of(h) && b.is_subtype_of(h) => Some(h.clone()),
        _ => None,
    }
}

/// `unifyTypeList`: unify left to right; the error says which element did not fit.
pub fn unify_type_list(types: &[Type]) -> Result<Type, String> {
    unify_type_list_ext(types, false, None)
}

/// `unifyTypeList` with [`unify_types_ext`]'s options, as list literals use it.
pub fn unify_type_list_ext(
    types: &[Type],
    default_to_union: bool,
    type_hint: Option<&Type>,
) -> Result<Type, String> {
    let Some(first) = types.first() else {
        return Err("Cannot get unified type from empty list".to_string());
    };
    let mut acc = first.clone();
    for (i, t) in types.iter().enumerate().skip(1) {
        acc = unify_types_ext(&acc, t, default_to_union, type_hint).ok_or_else(|| {
            format!(
                "Could not unify type list since element {i} of type {} did not match the types before it ({})",
                t.repr_str(),
                acc.repr_str()
            )
        })?;
    }
    Ok(acc)
}

#[cfg(test)]
#[path = "subtype_tests.rs"]
mod tests;
