//! What a value's static type alone settles: `x is None` and `isinstance(x, T)` (PyTorch's
//! peephole and `isinstance` folding). A static type is a supertype of the value's run-time
//! type, so only answers that hold for every run-time type are given.

use ember_dialects::Type;

/// Whether a value of static type `t` can never be None (PyTorch's `mustNotBeNone`, narrowed to
/// the types listed).
pub fn must_not_be_none(t: &Type) -> bool {
    matches!(
        t,
        Type::Int
            | Type::Float
            | Type::Complex
            | Type::Bool
            | Type::Str
            | Type::Number
            | Type::Device
            | Type::Tensor(_)
            | Type::List(_)
            | Type::Tuple(_)
            | Type::Dict(..)
    )
}

/// Types whose values have exactly this kind at run time (what `isinstance` tests).
fn is_concrete(t: &Type) -> bool {
    matches!(
        t,
        Type::Int
            | Type::Float
            | Type::Bool
            | Type::Str
            | Type::None
            | Type::Device
            | Type::Tensor(_)
            | Type::List(_)
            | Type::Tuple(_)
    )
}

fn same_head(a: &Type, b: &Type) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

/// `isinstance(x, candidates)` for `x` of static type `actual`: `Some` when every run-time
/// value of that type gives the same answer.
pub fn isinstance(actual: &Type, candidates: &[Type]) -> Option<bool> {
    let answers: Vec<Option<bool>> = candidates
        .iter()
        .map(|c| is_instance_of(actual, c))
        .collect();
    if answers.contains(&Some(true)) {
        Some(true)
    } else if answers.iter().all(|a| *a == Some(false)) {
        Some(false)
    } else {
        None
    }
}

fn is_instance_of(actual: &Type, candidate: &Type) -> Option<bool> {
    if matches!(candidate, Type::Any) {
        return Some(true);
    }
    if !is_concrete(actual) {
        return None;
    }
    match candidate {
        Type::Optional(inner) => {
            if matches!(actual, Type::None) {
                Some(true)
            } else {
                is_instance_of(actual, inner)
            }
        }
        Type::Union(members) => isinstance(actual, members),
        Type::Number => match actual {
            Type::Int | Type::Float => Some(true),
            Type::Bool => None,
            _ => Some(false),
        },
        Type::AnyList => Some(matches!(actual, Type::List(_))),
        Type::AnyTuple => Some(matches!(actual, Type::Tuple(_))),
        Type::Tensor(_) => Some(matches!(actual, Type::Tensor(_))),
        Type::Int | Type::Float | Type::Bool | Type::Str | Type::None | Type::Device => {
            Some(actual == candidate)
        }
        // Lists are invariant: a `List[int]` is never a `List[float]`.
        Type::List(want) => match actual {
            Type::List(have) if have == want => Some(true),
            Type::List(have)
                if is_concrete(have) && is_concrete(want) && !same_head(have, want) =>
            {
                Some(false)
            }
            Type::List(_) => None,
            _ => Some(false),
        },
        Type::Tuple(_) => match actual {
            Type::Tuple(_) if actual == candidate => Some(true),
            Type::Tuple(_) => None,
            _ => Some(false),
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn isinstance_answers_only_what_the_type_settles() {
        let cases: &[(Type, Vec<Type>, Option<bool>)] = &[
            (Type::Int, vec![Type::Int], Some(true)),
            (Type::Int, vec![Type::Float], Some(false)),
            (Type::Bool, vec![Type::Int], Some(false)),
            (Type::Int, vec![Type::Float, Type::Int], Some(true)),
            (Type::Int, vec![Type::optional(Type::Int)], Some(true)),
            (Type::None, vec![Type::optional(Type::Int)], Some(true)),
            (Type::Str, vec![Type::Any], Some(true)),
            (Type::tensor(), vec![Type::tensor()], Some(true)),
            (Type::tensor(), vec![Type::AnyList], Some(false)),
            (Type::list(Type::Int), vec![Type::AnyList], Some(true)),
            (
                Type::list(Type::Int),
                vec![Type::list(Type::Float)],
                Some(false),
            ),
            (Type::list(Type::Any), vec![Type::list(Type::Int)], None),
            (Type::optional(Type::Int), vec![Type::Int], None),
            (Type::Any, vec![Type::Int], None),
            (Type::Number, vec![Type::Float], None),
        ];
        for (actual, candidates, expect) in cases {
            assert_eq!(
                isinstance(actual, candidates),
                *expect,
                "{actual:?} in {candidates:?}"
            );
        }
    }

    #[test]
    fn none_is_ruled_out_only_for_types_without_it() {
        assert!(must_not_be_none(&Type::Int));
        assert!(must_not_be_none(&Type::tensor()));
        assert!(!must_not_be_none(&Type::optional(Type::Int)));
        assert!(!must_not_be_none(&Type::Any));
        assert!(!must_not_be_none(&Type::None));
    }
}
