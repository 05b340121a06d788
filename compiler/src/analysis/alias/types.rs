//! Which types alias analysis tracks, and the "alias type" each maps to (PyTorch's
//! `mapTypeToAliasTypeSet`): all values whose types map to the same alias type share one
//! wildcard set.
//!
//! - Tensors, lists, dicts, classes and interfaces are mutable; tensors map to plain `Tensor`
//!   whatever their refinements (`Float(2, 3)` and `Tensor` may alias).
//! - `Optional[T]` is `T`; a union is the union of its mutable members; `Any` is itself.
//! - Tuples and futures are immutable containers: a tuple of tensors maps to a tuple of
//!   the mutable parts (`Tuple[int, Tensor]` to `Tuple[Tensor]`), a tuple of ints to nothing.
//! - Everything else (numbers, strings, None, devices, enums, functions) is immutable.

use ember_dialects::types::{TupleType, Type};

/// The alias types of `ty`, or `None` when values of `ty` never alias anything mutable.
/// More than one type only for unions (and optionals of unions).
pub fn alias_types(ty: &Type) -> Option<Vec<Type>> {
    match ty {
        Type::Tensor(_)
        | Type::List(_)
        | Type::Dict(_, _)
        | Type::Class(_)
        | Type::Interface(_)
        | Type::AnyList
        | Type::AnyClass => Some(vec![ty.unshaped()]),
        Type::Any => Some(vec![Type::Any]),
        Type::Optional(inner) => alias_types(inner),
        Type::Union(members) => {
            let mut out: Vec<Type> = Vec::new();
            for m in members {
                for t in alias_types(m).unwrap_or_default() {
                    if !out.contains(&t) {
                        out.push(t);
                    }
                }
            }
            (!out.is_empty()).then_some(out)
        }
        Type::Future(inner) => {
            let inner = alias_types(inner)?;
            Some(vec![Type::Future(Box::new(single(inner)))])
        }
        Type::Tuple(t) => {
            let elements: Vec<Type> = t
                .elements
                .iter()
                .filter_map(alias_types)
                .flatten()
                .collect();
            (!elements.is_empty()).then(|| {
                vec![Type::Tuple(TupleType {
                    elements,
                    names: None,
                })]
            })
        }
        _ => None,
    }
}

/// Whether values of `ty` may alias mutable memory (PyTorch's `AliasDb::isMutableType`).
pub fn is_mutable_type(ty: &Type) -> bool {
    matches!(
        ty,
        Type::Tensor(_) | Type::List(_) | Type::Dict(_, _) | Type::Class(_)
    ) || alias_types(ty).is_some()
}

/// One type for a set of alias types: itself, or their union.
pub fn single(mut types: Vec<Type>) -> Type {
    if types.len() == 1 {
        types.pop().unwrap()
    } else {
        Type::Union(types)
    }
}

/// The types an alias type contains: a list's element, a dict's key and value, a tuple's
/// elements, a future's value.
pub fn contained_types(ty: &Type) -> Vec<Type> {
    match ty {
        Type::List(e) | Type::Future(e) => vec![(**e).clone()],
        Type::Dict(k, v) => vec![(**k).clone(), (**v).clone()],
        Type::Tuple(t) => t.elements.clone(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mapped(ty: &Type) -> Option<String> {
        alias_types(ty).map(|ts| single(ts).to_string())
    }

    #[test]
    fn maps_types_as_pytorch() {
        let t = Type::tensor();
        assert_eq!(mapped(&Type::Int), None);
        assert_eq!(mapped(&t).as_deref(), Some("Tensor"));
        assert_eq!(
            mapped(&Type::optional(t.clone())).as_deref(),
            Some("Tensor")
        );
        assert_eq!(
            mapped(&Type::list(Type::optional(t.clone()))).as_deref(),
            Some("Tensor?[]")
        );
        assert_eq!(
            mapped(&Type::tuple(vec![Type::Int, t.clone()])).as_deref(),
            Some("(Tensor)")
        );
        assert_eq!(mapped(&Type::tuple(vec![Type::Int, Type::Str])), None);
        assert_eq!(
            mapped(&Type::Future(Box::new(Type::Int))),
            None,
            "a future of an immutable value"
        );
        assert!(is_mutable_type(&Type::Dict(
            Box::new(Type::Str),
            Box::new(Type::Int)
        )));
        assert!(!is_mutable_type(&Type::Enum("E".into())));
        assert!(is_mutable_type(&Type::Any));
        assert_eq!(
            contained_types(&Type::list(t.clone())),
            vec![t.clone()],
            "a list contains its element type"
        );
    }
}
