//! Choosing an overload for a call, on types alone. Two flavours, as in PyTorch:
//! [`schema_accepts`] is `Node::matches` (a node already built: every input given, no
//! conversions), and [`match_schemas`] is `matchSchemas` of `schema_matching.cpp` (a call being
//! built: keyword arguments, defaults, implicit conversions, `int` for `int[N]`), which
//! returns a plan that `Graph::insert` carries out.

use super::{fake_type, Argument, FunctionSchema};
use crate::attr::ConstValue;
use crate::symbol::Symbol;
use crate::types::{eval_type_variables, match_type_variables, Type, TypeEnv};

/// Overloads TorchScript never picks (`isBlockListedSchema`): `view.dtype` cannot be told
/// from `view(int)` because a `ScalarType` is an `int`, and the `unary_out` forms of `max`
/// and `min` collide with `max.other`.
pub fn is_blocklisted(schema: &FunctionSchema) -> bool {
    matches!(
        (schema.name.as_str(), schema.overload_name.as_str()),
        ("aten::view", "dtype") | ("aten::max", "unary_out") | ("aten::min", "unary_out")
    )
}

/// `Node::matches`: whether inputs of `actual` types fit `schema`, positionally.
pub fn schema_accepts(schema: &FunctionSchema, actual: &[Type]) -> bool {
    if is_blocklisted(schema) {
        return false;
    }
    let formals = &schema.arguments;
    if actual.len() < formals.len() {
        return false;
    }
    let mut env = TypeEnv::new();
    for (arg, ty) in formals.iter().zip(actual) {
        let formal = arg.fake_type();
        if match_type_variables(&formal, ty, &mut env).is_err() {
            return false;
        }
        // A variable may stay unbound (None for `t?`); the unresolved formal still works.
        let resolved = eval_type_variables(&formal, &env).unwrap_or(formal);
        if !ty.is_subtype_of(&resolved) {
            return false;
        }
    }
    schema.is_vararg || actual.len() == formals.len()
}

/// Where the value of one schema argument comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    Positional(usize),
    Keyword(usize),
    Default(ConstValue),
    /// The positional arguments from `start` on, gathered into a list of `elem` (`x.view(2, 3)`
    /// for `SymInt[] size`), each with its own conversion.
    VarargsList {
        start: usize,
        elem: Type,
        conversions: Vec<Option<Conversion>>,
    },
}

/// A conversion applied to a value before it is passed.
#[derive(Clone, Debug, PartialEq)]
pub enum Conversion {
    /// A single `int`/`float` for an `int[N]`/`float[N]` argument: a list of N copies.
    RepeatAsList(usize),
    /// An implicit conversion node (`aten::IntImplicit`, `aten::Float`, `aten::device`, …).
    Call(Symbol),
    /// A homogeneous tuple passed for a list: its items (`prim::TupleUnpack`, or the inputs of
    /// the `prim::TupleConstruct` that made it) in a `prim::ListConstruct` of this element type.
    TupleToList(Type),
}

#[derive(Clone, Debug, PartialEq)]
pub struct MatchedArg {
    pub source: Source,
    pub conversion: Option<Conversion>,
}

/// The outcome of matching a call to one schema.
#[derive(Clone, Debug)]
pub struct MatchedSchema<'s> {
    pub schema: &'s FunctionSchema,
    /// One entry per schema argument, in schema order.
    pub args: Vec<MatchedArg>,
    /// Positional arguments passed through a vararg schema's `...`.
    pub varargs: Vec<usize>,
    /// The output types, type variables substituted.
    pub return_types: Vec<Type>,
}

/// The type of the constant a default value becomes (a list default is typed by its schema
/// argument, so `int[] x=[]` is `int[]`).
pub fn default_type(arg: &Argument, value: &ConstValue) -> Type {
    match value {
        ConstValue::List(_) => match arg.fake_type() {
            Type::Optional(e) => *e,
            t => t,
        },
        v => const_type(v),
    }
}

/// The type PyTorch gives a constant holding `value`.
pub fn const_type(value: &ConstValue) -> Type {
    match value {
        ConstValue::None => Type::None,
        ConstValue::Bool(_) => Type::Bool,
        ConstValue::Int(_) => Type::Int,
        ConstValue::Float(_) => Type::Float,
        ConstValue::Complex(..) => Type::Complex,
        ConstValue::Str(_) => Type::Str,
        ConstValue::Device(_) => Type::Device,
        ConstValue::Tensor(_) => Type::tensor(),
        ConstValue::List(items) => Type::list(items.first().map_or(Type::tensor(), const_type)),
        ConstValue::Tuple(items) => Type::tuple(items.iter().map(const_type).collect()),
        ConstValue::Opaque(_) => Type::Any,
    }
}

/// `tryConvertToType`, on types: the conversion to apply and the type it produces.
fn convert(concrete: &Type, actual: &Type, allow: bool) -> Option<(Conversion, Type)> {
    if let Type::Optional(elem) = concrete {
        if !matches!(actual, Type::Optional(_)) && !actual.is_subtype_of(&Type::None) {
            return convert(elem, actual, allow);
        }
    }
    // Tuples become lists whether or not conversions are allowed.
    if let (Type::Tuple(t), Type::List(elem)) = (actual, concrete) {
        if t.elements.iter().all(|e| e.is_subtype_of(elem)) {
            return Some((Conversion::TupleToList((**elem).clone()), concrete.clone()));
        }
    }
    if !allow {
        return None;
    }
    let call = |name: &str, ty: Type| Some((Conversion::Call(Symbol::aten(name)), ty));
    if actual.is_subtype_of(&Type::tensor()) {
        return match concrete {
            Type::Float => call("FloatImplicit", Type::Float),
            Type::Complex => call("ComplexImplicit", Type::Complex),
            Type::Int => call("IntImplicit", Type::Int),
            Type::Number => call("ScalarImplicit", Type::Number),
            _ => None,
        };
    }
    if *actual == Type::Number {
        return match concrete {
            Type::Float => call("Float", Type::Float),
            Type::Complex => call("Complex", Type::Complex),
            Type::Int => call("Int", Type::Int),
            _ => None,
        };
    }
    if *actual == Type::Bool {
        return match concrete {
            Type::Float => call("Float", Type::Float),
            Type::Int | Type::Number => call("Int", Type::Int),
            _ => None,
        };
    }
    if actual.is_subtype_of(&Type::Str) && concrete.is_subtype_of(&Type::Device) {
        return call("device", Type::Device);
    }
    None
}

/// `isIntOrFloatUsedAsList`: `int` for `int[N]`, `float` for `float[N]`.
fn used_as_list(actual: &Type, arg: &Argument) -> Option<usize> {
    if !matches!(actual, Type::Int | Type::Float) {
        return None;
    }
    let formal = match arg.fake_type() {
        Type::Optional(e) => *e,
        t => t,
    };
    match formal {
        Type::List(e) if *e == *actual => arg.n.and_then(|n| usize::try_from(n).ok()),
        _ => None,
    }
}

struct Attempt<'a> {
    schema: &'a FunctionSchema,
    failures: Option<&'a mut String>,
}

impl Attempt<'_> {
    fn fail(&mut self, msg: impl AsRef<str>) {
        if let Some(out) = self.failures.as_deref_mut() {
            out.push_str(&format!("\n{}:\n{}", self.schema, msg.as_ref()));
        }
    }
}

/// `tryMatchArgument`: the conversion needed, or `None` (with a message) if `actual` does not fit.
fn match_argument(
    arg: &Argument,
    actual: &Type,
    allow: bool,
    env: &mut TypeEnv,
    attempt: &mut Attempt<'_>,
) -> Option<Option<Conversion>> {
    let mut value_ty = actual.clone();
    let mut conversion = None;
    if let Some(n) = used_as_list(actual, arg) {
        value_ty = Type::list(actual.clone());
        conversion = Some(Conversion::RepeatAsList(n));
    }
    let formal = arg.fake_type();
    if let Err(reason) = match_type_variables(&formal, &value_ty, env) {
        attempt.fail(format!(
            "Could not match type {} to {} in argument '{}': {reason}.\n",
            value_ty.repr_str(),
            formal.repr_str(),
            arg.name
        ));
        return None;
    }
    let Some(concrete) = eval_type_variables(&formal, env) else {
        attempt.fail(format!(
            "Type variables in type {} could not be inferred from actual type {}",
            formal.repr_str(),
            value_ty.repr_str()
        ));
        return None;
    };
    if conversion.is_none() {
        if let Some((c, ty)) = convert(&concrete, &value_ty, allow) {
            conversion = Some(c);
            value_ty = ty;
        }
    }
    if !value_ty.is_subtype_of(&concrete) {
        let mut msg = format!(
            "Expected a value of type '{}' for argument '{}' but instead found type '{}'.\n",
            formal.repr_str(),
            arg.name,
            value_ty.repr_str()
        );
        if matches!(&value_ty, Type::List(e) if e.is_subtype_of(&Type::tensor())) {
            msg.push_str(
                "Empty lists default to List[Tensor]. Add a variable annotation to the assignment to create an empty list of another type (torch.jit.annotate(List[T, []]) where T is the type of elements in the list for Python 2)\n",
            );
        }
        attempt.fail(msg);
        return None;
    }
    Some(conversion)
}

/// `varargsCanBeUsedAsList`: the last positional argument is a plain list (not `int[N]`, not
/// of a type variable) and the actual is not already a list; gives the element type.
fn varargs_list_element(schema: &FunctionSchema, i: usize, actual: &Type) -> Option<Type> {
    let arg = &schema.arguments[i];
    let is_last = schema
        .arguments
        .get(i + 1)
        .is_none_or(|next| next.kwarg_only);
    let Type::List(elem) = arg.fake_type() else {
        return None;
    };
    if !is_last || arg.n.is_some() || matches!(*elem, Type::Var(_)) {
        return None;
    }
    let convertible_tuple =
        matches!(actual, Type::Tuple(t) if t.elements.iter().all(|e| e.is_subtype_of(&elem)));
    if matches!(actual, Type::List(_)) || convertible_tuple {
        return None;
    }
    Some(*elem)
}

/// `tryMatchSchema`: match positional and keyword argument types to one schema.
pub fn try_match_schema<'s>(
    schema: &'s FunctionSchema,
    positional: &[Type],
    kwargs: &[(&str, Type)],
    allow_conversions: bool,
    failures: Option<&mut String>,
) -> Option<MatchedSchema<'s>> {
    let mut attempt = Attempt { schema, failures };
    let mut env = TypeEnv::new();
    let mut used_args = 0;
    let mut used_kwarg = vec![false; kwargs.len()];
    let mut args = Vec::with_capacity(schema.arguments.len());
    for (i, arg) in schema.arguments.iter().enumerate() {
        if !arg.kwarg_only && used_args < positional.len() && allow_conversions {
            if let Some(elem) = varargs_list_element(schema, i, &positional[used_args]) {
                let start = used_args;
                let mut conversions = Vec::new();
                let item = Argument {
                    name: "<varargs>".to_string(),
                    ty: elem.clone(),
                    n: None,
                    default: None,
                    kwarg_only: false,
                    alias: None,
                };
                for actual in &positional[start..] {
                    conversions.push(match_argument(&item, actual, true, &mut env, &mut attempt)?);
                }
                used_args = positional.len();
                let source = Source::VarargsList {
                    start,
                    elem,
                    conversions,
                };
                args.push(MatchedArg {
                    source,
                    conversion: None,
                });
                continue;
            }
        }
        let (source, ty) = if !arg.kwarg_only && used_args < positional.len() {
            used_args += 1;
            (
                Source::Positional(used_args - 1),
                positional[used_args - 1].clone(),
            )
        } else if let Some(k) = kwargs.iter().position(|(name, _)| *name == arg.name) {
            if used_kwarg[k] {
                attempt.fail(format!(
                    "Argument {} specified twice in schema, submit a bug report!\n",
                    arg.name
                ));
                return None;
            }
            used_kwarg[k] = true;
            (Source::Keyword(k), kwargs[k].1.clone())
        } else if let Some(d) = &arg.default {
            (Source::Default(d.clone()), default_type(arg, d))
        } else {
            attempt.fail(format!("Argument {} not provided.\n", arg.name));
            return None;
        };
        let conversion = match_argument(arg, &ty, allow_conversions, &mut env, &mut attempt)?;
        args.push(MatchedArg { source, conversion });
    }
    let mut varargs = Vec::new();
    if schema.is_vararg {
        varargs.extend(used_args..positional.len());
        used_args = positional.len();
    }
    if used_args < positional.len() {
        attempt.fail(format!(
            "Expected at most {used_args} arguments but found {} positional arguments.\n",
            positional.len()
        ));
        return None;
    }
    for (k, (name, _)) in kwargs.iter().enumerate() {
        if !used_kwarg[k] {
            if schema.argument_index_with_name(name).is_none() {
                attempt.fail(format!("Keyword argument {name} unknown.\n"));
            } else {
                attempt.fail(format!("Keyword argument {name} specified twice.\n"));
            }
            return None;
        }
    }
    let mut return_types = Vec::with_capacity(schema.returns.len());
    for ret in &schema.returns {
        let formal = fake_type(&ret.ty);
        match eval_type_variables(&formal, &env) {
            Some(t) => return_types.push(t),
            None => {
                attempt.fail(format!(
                    "Type variables in return type {} could not be inferred.\n",
                    formal.repr_str()
                ));
                return None;
            }
        }
    }
    Some(MatchedSchema {
        schema,
        args,
        varargs,
        return_types,
    })
}

fn prefix_lines(text: &str, prefix: &str) -> String {
    text.split('\n')
        .map(|l| format!("{prefix}{l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `matchSchemas`: the first overload that matches without conversions, else the first that
/// matches with them; one overload is tried with conversions directly. The error lists every
/// candidate with the reason it failed, as PyTorch does.
pub fn match_schemas<'s>(
    schemas: &'s [FunctionSchema],
    positional: &[Type],
    kwargs: &[(&str, Type)],
) -> Result<MatchedSchema<'s>, String> {
    match schemas {
        [] => Err("no schemas to match".to_string()),
        [only] => {
            let mut failures = String::new();
            try_match_schema(only, positional, kwargs, true, Some(&mut failures)).ok_or(failures)
        }
        _ => {
            let mut failures = String::new();
            for allow in [false, true] {
                failures.clear();
                for schema in schemas.iter().filter(|s| !is_blocklisted(s)) {
                    if let Some(m) =
                        try_match_schema(schema, positional, kwargs, allow, Some(&mut failures))
                    {
                        return Ok(m);
                    }
                }
            }
            Err(format!(
                "Arguments for call are not valid.\nThe following variants are available:\n{}\n",
                prefix_lines(&failures, "  ")
            ))
        }
    }
}
