//! Type variables of schemas (`t`, `t[]`, `Dict(str, t)`): binding them against actual types
//! and substituting the bindings, as PyTorch's `matchTypeVariables` and
//! `tryEvalTypeVariables`.

use hashbrown::HashMap;

use super::{optional_of, unify_type_list, unify_types, union_of, TupleType, Type};

/// The bindings of type variables made while matching one call.
pub type TypeEnv = HashMap<String, Type>;

/// Binds the type variables of `formal` from `actual`. A variable already bound accepts any
/// type that unifies with its binding (the binding stays as it was).
pub fn match_type_variables(formal: &Type, actual: &Type, env: &mut TypeEnv) -> Result<(), String> {
    if !formal.has_free_variables() {
        return Ok(());
    }
    match formal {
        Type::Var(name) => match env.get(name) {
            None => {
                env.insert(name.clone(), actual.clone());
                Ok(())
            }
            Some(bound) if unify_types(bound, actual).is_some() => Ok(()),
            Some(bound) => Err(format!(
                "Type variable '{name}' previously matched to type {} is matched to type {}",
                bound.repr_str(),
                actual.repr_str()
            )),
        },
        Type::List(fe) => {
            match actual {
                Type::List(ae) => return match_type_variables(fe, ae, env),
                Type::Tuple(t) => {
                    if let Ok(unified) = unify_type_list(&t.elements) {
                        return match_type_variables(fe, &unified, env);
                    }
                }
                _ => {}
            }
            Err(format!(
                "Cannot match {} to {}",
                formal.repr_str(),
                actual.repr_str()
            ))
        }
        Type::Tuple(ft) => match actual {
            Type::Tuple(at) if at.elements.len() != ft.elements.len() => {
                Err("Cannot match tuples of mismatched size".to_string())
            }
            Type::Tuple(at) => {
                for (f, a) in ft.elements.iter().zip(&at.elements) {
                    match_type_variables(f, a, env)?;
                }
                Ok(())
            }
            _ => Err(format!("Cannot match a tuple to {}", actual.repr_str())),
        },
        Type::Future(fe) => match actual {
            Type::Future(ae) => match_type_variables(fe, ae, env),
            _ => Err(format!("Cannot match a future to {}", actual.repr_str())),
        },
        Type::Await(fe) => match actual {
            Type::Await(ae) => match_type_variables(fe, ae, env),
            _ => Err(format!("Cannot match an await to {}", actual.repr_str())),
        },
        Type::RRef(fe) => match actual {
            Type::RRef(ae) => match_type_variables(fe, ae, env),
            _ => Err(format!("Cannot match a rref to {}", actual.repr_str())),
        },
        Type::Optional(fe) => match actual {
            Type::Optional(ae) => match_type_variables(fe, ae, env),
            // None leaves the variable unbound; a plain value binds the element type.
            a if !a.is_subtype_of(&Type::None) => match_type_variables(fe, a, env),
            _ => Ok(()),
        },
        Type::Dict(fk, fv) => match actual {
            Type::Dict(ak, av) => {
                match_type_variables(fk, ak, env)?;
                match_type_variables(fv, av, env)
            }
            _ => Err(format!("Cannot match a dict to {}", actual.repr_str())),
        },
        other => Err(format!(
            "Unhandled free variable container: {}",
            other.repr_str()
        )),
    }
}

/// Substitutes bound variables in `ty` (`List[t]` with `t = int` is `List[int]`); `None` if
/// some variable is unbound.
pub fn eval_type_variables(ty: &Type, env: &TypeEnv) -> Option<Type> {
    if !ty.has_free_variables() {
        return Some(ty.clone());
    }
    let rec = |t: &Type| eval_type_variables(t, env);
    Some(match ty {
        Type::Var(name) => env.get(name)?.clone(),
        Type::List(e) => Type::list(rec(e)?),
        Type::Optional(e) => optional_of(rec(e)?).ok()?,
        Type::Future(e) => Type::Future(Box::new(rec(e)?)),
        Type::RRef(e) => Type::RRef(Box::new(rec(e)?)),
        Type::Await(e) => Type::Await(Box::new(rec(e)?)),
        Type::Dict(k, v) => Type::Dict(Box::new(rec(k)?), Box::new(rec(v)?)),
        Type::Tuple(t) => Type::Tuple(TupleType {
            elements: t.elements.iter().map(rec).collect::<Option<_>>()?,
            names: t.names.clone(),
        }),
        Type::Union(items) => union_of(items.iter().map(rec).collect::<Option<_>>()?).ok()?,
        other => other.clone(),
    })
}
