//! Building `Union` and `Optional` types the way `UnionType::create` and
//! `OptionalType::create` standardize them: nested unions flatten, `Scalar` spreads into
//! `int`, `float`, `complex`, members that unify merge, members sort by kind then spelling,
//! and a union of `None` and one type becomes `Optional`.

use super::subtype::unify_types;
use super::Type;

/// The position of a type's kind in PyTorch's `C10_FORALL_TYPES`, which orders union members.
fn kind_rank(t: &Type) -> u32 {
    match t {
        Type::Any => 0,
        Type::Enum(_) => 1,
        Type::AnyEnum => 2,
        Type::Tensor(_) => 3,
        Type::Storage => 4,
        Type::Tuple(_) => 5,
        Type::List(_) => 6,
        Type::Dict(..) => 7,
        Type::Number => 8,
        Type::Float => 9,
        Type::Complex => 10,
        Type::Future(_) => 11,
        Type::Await(_) => 12,
        Type::RRef(_) => 13,
        Type::Int => 14,
        Type::None => 15,
        Type::Str => 16,
        Type::Generator => 17,
        Type::Bool => 19,
        Type::Optional(_) => 20,
        Type::Var(_) => 21,
        Type::Device => 22,
        Type::Stream => 23,
        Type::Function(_) => 24,
        Type::Class(_) => 25,
        Type::Capsule => 27,
        Type::Interface(_) => 28,
        Type::QScheme => 29,
        Type::ScalarType => 30,
        Type::Layout => 31,
        Type::MemoryFormat => 32,
        Type::AnyList => 33,
        Type::AnyTuple => 34,
        Type::AnyClass => 35,
        Type::SymInt => 36,
        Type::SymFloat => 37,
        Type::SymBool => 38,
        Type::Union(_) => 39,
    }
}

fn flatten(t: Type, out: &mut Vec<Type>) {
    match t {
        Type::Union(items) => items.into_iter().for_each(|i| flatten(i, out)),
        Type::Optional(e) => {
            flatten(*e, out);
            out.push(Type::None);
        }
        Type::Number => out.extend([Type::Int, Type::Float, Type::Complex]),
        other => out.push(other),
    }
}

/// `filterDuplicateSubtypes`: right to left, merge each member into the first earlier one it
/// unifies with (never unifying `None` with something else, which would nest optionals).
fn filter_duplicate_subtypes(types: &mut Vec<Type>) {
    if types.is_empty() {
        return;
    }
    let supertype = |a: &Type, b: &Type| {
        if a.is_subtype_of(&Type::None) != b.is_subtype_of(&Type::None) {
            None
        } else {
            unify_types(a, b)
        }
    };
    let mut end = types.len() - 1;
    for i in (1..types.len()).rev() {
        let mut j = (i - 1).min(end);
        loop {
            if let Some(u) = supertype(&types[i], &types[j]) {
                types[j] = u;
                types[i] = types[end].clone();
                end = end.saturating_sub(1);
                break;
            }
            if j == 0 {
                break;
            }
            j -= 1;
        }
    }
    types.truncate(end + 1);
}

/// `standardizeVectorForUnion`.
fn standardize(types: Vec<Type>) -> Vec<Type> {
    let mut out = Vec::new();
    types.into_iter().for_each(|t| flatten(t, &mut out));
    filter_duplicate_subtypes(&mut out);
    out.sort_by(|a, b| {
        kind_rank(a)
            .cmp(&kind_rank(b))
            .then_with(|| a.schema_str().cmp(&b.schema_str()))
    });
    out
}

fn single_type_error(original: &[Type], single: &Type) -> String {
    let names: Vec<String> = original.iter().map(Type::repr_str).collect();
    format!(
        "After type unification was performed, the Union with the original types {{{}}} has the single type {}. Use the common supertype instead of creating a Union type",
        names.join(", "),
        single.repr_str()
    )
}

fn holds_numbers(types: &[Type]) -> bool {
    [Type::Int, Type::Float, Type::Complex]
        .iter()
        .all(|n| types.contains(n))
}

/// `UnionType::create`: a standardized union, or `Optional[T]` for `Union[T, None]`.
/// A union that collapses to one type is an error, as in PyTorch.
pub fn union_of(types: Vec<Type>) -> Result<Type, String> {
    if types.is_empty() {
        return Err("Cannot create an empty Union".to_string());
    }
    let original = types.clone();
    let members = standardize(types);
    if members.len() == 1 {
        return Err(single_type_error(&original, &members[0]));
    }
    if members.contains(&Type::None) {
        if members.len() == 4 && holds_numbers(&members) {
            return Ok(Type::optional(Type::Number));
        }
        if members.len() == 2 {
            let other = members
                .into_iter()
                .find(|t| *t != Type::None)
                .unwrap_or(Type::None);
            return Ok(Type::optional(other));
        }
    }
    Ok(Type::Union(members))
}

/// `OptionalType::create(T)`: `T?` with nested optionals collapsed; `None?` is an error.
pub fn optional_of(elem: Type) -> Result<Type, String> {
    let is_number_union = matches!(&elem, Type::Union(m) if m.len() == 3 && holds_numbers(m));
    let members = standardize(vec![elem.clone(), Type::None]);
    if members.len() == 1 {
        return Err(single_type_error(&[elem, Type::None], &members[0]));
    }
    if members.len() == 2 {
        let other = members
            .into_iter()
            .find(|t| *t != Type::None)
            .unwrap_or(Type::None);
        return Ok(Type::optional(other));
    }
    if matches!(elem, Type::Number) || is_number_union {
        return Ok(Type::optional(Type::Number));
    }
    let without_none: Vec<Type> = members.into_iter().filter(|t| *t != Type::None).collect();
    let inner = if without_none.len() == 1 {
        without_none.into_iter().next().unwrap_or(Type::None)
    } else {
        union_of(without_none)?
    };
    Ok(Type::optional(inner))
}
