//! Overload resolution for the calls the IR emitter builds, as PyTorch's
//! `torch/csrc/jit/frontend/schema_matching.cpp`: positional, keyword and `self` arguments are
//! matched to each candidate schema, implicit conversions (`aten::IntImplicit`, `aten::Float`,
//! `aten::device`, tuple-to-list, `int` for `int[N]`, trailing arguments gathered into a list)
//! are inserted at the graph's insertion point, defaults become constants, and the first
//! overload that matches without conversions wins, else the first that matches with them.
//!
//! PyTorch leaves the conversion nodes of failed attempts in the graph for dead code
//! elimination to remove; here a failed attempt removes what it inserted, which gives the same
//! graph after DCE.

use ember_dialects::attr::ConstValue;
use ember_dialects::catalogue::catalogue;
use ember_dialects::ir::InsertArg;
use ember_dialects::schema::{default_type, Argument, FunctionSchema};
use ember_dialects::source::SourceRange;
use ember_dialects::symbol::{sym, Symbol};
use ember_dialects::types::{
    eval_type_variables, match_type_variables, NamedTupleInfo, TupleType, Type, TypeEnv,
};
use ember_dialects::{Graph, Node, Value};

use super::builtins;
use super::span::Span;

/// An argument of a call: a value, with its keyword when passed by name (PyTorch's
/// `NamedValue`).
#[derive(Clone, Debug, PartialEq)]
pub struct NamedValue {
    pub name: Option<String>,
    pub value: Value,
    pub span: Span,
}

impl NamedValue {
    /// A positional argument.
    pub fn new(value: Value, span: Span) -> NamedValue {
        NamedValue {
            name: None,
            value,
            span,
        }
    }

    /// A keyword argument.
    pub fn named(name: impl Into<String>, value: Value, span: Span) -> NamedValue {
        NamedValue {
            name: Some(name.into()),
            value,
            span,
        }
    }

    fn name(&self) -> &str {
        self.name.as_deref().unwrap_or("")
    }
}

/// A successful match of a call to one schema.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchedSchema {
    /// Index of the chosen schema in the candidates given to [`match_schemas`].
    pub index: usize,
    /// The node's inputs, conversions applied and defaults filled in, in schema order (then
    /// the extra arguments of a vararg schema).
    pub inputs: Vec<Value>,
    /// The output types, type variables bound.
    pub return_types: Vec<Type>,
    /// The returns' names when every return is named (the outputs then pack into a named
    /// tuple).
    pub return_field_names: Option<Vec<String>>,
    /// `aten::add.Tensor`, or the bare name for the default overload.
    pub schema_name: String,
}

/// `unwrapOptional`: `T` for `Optional[T]`, else the type itself.
fn unwrap_optional(ty: &Type) -> &Type {
    match ty {
        Type::Optional(e) => e,
        t => t,
    }
}

/// `isIntOrFloatUsedAsList`: a single `int`/`float` passed for `int[N]`/`float[N]`.
fn int_or_float_used_as_list(actual: &Type, arg: &Argument) -> Option<usize> {
    if !matches!(actual, Type::Int | Type::Float) {
        return None;
    }
    match unwrap_optional(&arg.fake_type()) {
        Type::List(e) if **e == *actual => arg.n.and_then(|n| usize::try_from(n).ok()),
        _ => None,
    }
}

/// `convertibleToList`: `ty` is a subtype of the list type, or a tuple whose elements all are
/// subtypes of its element type.
fn convertible_to_list(ty: &Type, list_type: &Type) -> bool {
    let Type::List(elem) = list_type else {
        return false;
    };
    if ty.is_subtype_of(list_type) {
        return true;
    }
    match ty {
        Type::Tuple(t) => t.elements.iter().all(|e| e.is_subtype_of(elem)),
        _ => false,
    }
}

/// `Graph::createList` inserted at the insertion point.
pub fn insert_list(g: &mut Graph, elem: Type, items: &[Value]) -> Value {
    let n = g.create(sym::list_construct(), items, 0);
    g.add_node_output(n, Type::list(elem));
    g.insert_node(n);
    g.output(n, 0)
}

/// `Graph::createTuple` inserted at the insertion point; `names` makes it a named tuple.
pub fn insert_tuple(g: &mut Graph, items: &[Value], names: Option<Vec<String>>) -> Value {
    let elements = items.iter().map(|&v| g.ty(v).clone()).collect();
    let names = names.map(|fields| NamedTupleInfo {
        qualified_name: String::new(),
        fields,
        defaults: Vec::new(),
    });
    let n = g.create(sym::tuple_construct(), items, 0);
    g.add_node_output(n, Type::Tuple(TupleType { elements, names }));
    g.insert_node(n);
    g.output(n, 0)
}

/// `createTupleUnpack`: the inputs of the `prim::TupleConstruct` that made `tuple`, else the
/// outputs of a new `prim::TupleUnpack`.
pub fn tuple_items(g: &mut Graph, tuple: Value) -> Vec<Value> {
    let producer = g.producer(tuple);
    if g.kind(producer) == sym::tuple_construct() {
        return g.node_inputs(producer).to_vec();
    }
    let elements = match g.ty(tuple) {
        Type::Tuple(t) => t.elements.clone(),
        _ => Vec::new(),
    };
    let n = g.create(sym::tuple_unpack(), &[tuple], 0);
    for e in elements {
        g.add_node_output(n, e);
    }
    g.insert_node(n);
    g.node_outputs(n).to_vec()
}

/// Inserts a one-input conversion (`aten::Int`, `aten::FloatImplicit`, …), overload chosen
/// by the catalogue.
fn insert_conversion(
    g: &mut Graph,
    op: &str,
    value: Value,
    loc: Option<&SourceRange>,
) -> Result<Value, String> {
    let call = g.insert_call(Symbol::aten(op), &[InsertArg::Value(value)], &[])?;
    if let Some(loc) = loc {
        g.set_source_range(call.node, Some(loc.clone()));
    }
    call.outputs
        .first()
        .copied()
        .ok_or_else(|| format!("aten::{op} has no output"))
}

/// `tryConvertToType`: applies the implicit conversions that turn `value` into
/// `concrete_type`; the result is a subtype of `concrete_type` when the conversion succeeded.
/// Tuples become lists (and tuples convert element-wise) even without `allow_conversions`.
pub fn try_convert_to_type(
    g: &mut Graph,
    concrete_type: &Type,
    value: Value,
    allow_conversions: bool,
    loc: Option<&SourceRange>,
) -> Result<Value, String> {
    // A conversion to Optional[T] is a conversion to T.
    if let Type::Optional(elem) = concrete_type {
        let vt = g.ty(value);
        if !matches!(vt, Type::Optional(_)) && !vt.is_subtype_of(&Type::None) {
            return try_convert_to_type(g, elem, value, allow_conversions, loc);
        }
    }
    let mut value = value;
    // An unannotated `[]` matches any list type.
    if g.kind(g.producer(value)) == Symbol::prim("EmptyListLiteral") {
        if let Type::List(elem) = concrete_type {
            value = insert_list(g, (**elem).clone(), &[]);
        }
    }
    if let Type::Tuple(value_tuple) = g.ty(value).clone() {
        // Homogeneous tuples become lists of the element type.
        if convertible_to_list(g.ty(value), unwrap_optional(concrete_type)) {
            let items = tuple_items(g, value);
            if let Type::List(elem) = unwrap_optional(concrete_type) {
                value = insert_list(g, (**elem).clone(), &items);
            }
        }
        // Tuples convert element by element.
        if let Type::Tuple(concrete_tuple) = concrete_type {
            let value_ty = Type::Tuple(value_tuple.clone());
            if !value_ty.is_subtype_of(concrete_type)
                && concrete_tuple.elements.len() == value_tuple.elements.len()
            {
                let items = tuple_items(g, value);
                let mut converted = Vec::with_capacity(items.len());
                for (ty, item) in concrete_tuple.elements.iter().zip(items) {
                    converted.push(try_convert_to_type(g, ty, item, allow_conversions, loc)?);
                }
                value = insert_tuple(g, &converted, None);
            }
        }
    }
    if allow_conversions {
        let vt = g.ty(value).clone();
        let conversion = if vt.is_subtype_of(&Type::tensor()) {
            match concrete_type {
                Type::Float => Some("FloatImplicit"),
                Type::Complex => Some("ComplexImplicit"),
                Type::Int => Some("IntImplicit"),
                Type::Number => Some("ScalarImplicit"),
                _ => None,
            }
        } else if vt == Type::Number {
            match concrete_type {
                Type::Float => Some("Float"),
                Type::Complex => Some("Complex"),
                Type::Int => Some("Int"),
                _ => None,
            }
        } else if vt == Type::Bool {
            match concrete_type {
                Type::Float => Some("Float"),
                Type::Int | Type::Number => Some("Int"),
                _ => None,
            }
        } else {
            None
        };
        if let Some(op) = conversion {
            value = insert_conversion(g, op, value, loc)?;
        }
        // Strings name devices.
        if g.ty(value).is_subtype_of(&Type::Str) && concrete_type.is_subtype_of(&Type::Device) {
            return insert_conversion(g, "device", value, loc);
        }
    }
    Ok(value)
}

/// One attempt to match a schema; failure reasons go to `failures` when it is given.
struct Attempt<'a> {
    schema: &'a FunctionSchema,
    failures: Option<&'a mut String>,
    loc: Option<&'a SourceRange>,
}

impl Attempt<'_> {
    /// `err()`: the schema as a header, then the reason.
    fn fail(&mut self, msg: impl AsRef<str>) {
        if let Some(out) = self.failures.as_deref_mut() {
            out.push('\n');
            out.push_str(&self.schema.to_string());
            out.push_str(":\n");
            out.push_str(msg.as_ref());
        }
    }
}

/// `formatTypeMismatchMsg`, with PyTorch's hint for lists of tensors.
fn type_mismatch_message(arg_name: &str, formal: &Type, actual: &Type) -> String {
    let mut msg = format!(
        "Expected a value of type '{}' for argument '{arg_name}' but instead found type '{}'.\n",
        formal.repr_str(),
        actual.repr_str()
    );
    if let Type::List(e) = actual {
        if e.is_subtype_of(&Type::tensor()) {
            msg.push_str(
                "Empty lists default to List[Tensor]. Add a variable annotation to the assignment \
                 to create an empty list of another type (torch.jit.annotate(List[T, []]) where T \
                 is the type of elements in the list for Python 2)\n",
            );
        }
    }
    msg
}

/// `tryMatchArgument`: `value` converted to fit `arg`, binding type variables in `env`;
/// `None` (with a reason) when it does not fit.
fn try_match_argument(
    g: &mut Graph,
    arg: &Argument,
    value: Value,
    allow_conversions: bool,
    env: &mut TypeEnv,
    attempt: &mut Attempt<'_>,
) -> Result<Option<Value>, String> {
    let mut value = value;
    if let Some(n) = int_or_float_used_as_list(g.ty(value), arg) {
        let elem = g.ty(value).clone();
        value = insert_list(g, elem, &vec![value; n]);
    }
    let formal = arg.fake_type();
    let actual = g.ty(value).clone();
    if let Err(reason) = match_type_variables(&formal, &actual, env) {
        attempt.fail(format!(
            "Could not match type {} to {} in argument '{}': {reason}.\n",
            actual.repr_str(),
            formal.repr_str(),
            arg.name
        ));
        return Ok(None);
    }
    let Some(concrete) = eval_type_variables(&formal, env) else {
        attempt.fail(format!(
            "Type variables in type {} could not be inferred from actual type {}",
            formal.repr_str(),
            actual.repr_str()
        ));
        return Ok(None);
    };
    value = try_convert_to_type(g, &concrete, value, allow_conversions, attempt.loc)?;
    let converted = g.ty(value);
    if !converted.is_subtype_of(&concrete) {
        let msg = type_mismatch_message(&arg.name, &formal, converted);
        attempt.fail(msg);
        return Ok(None);
    }
    Ok(Some(value))
}

/// `findInputWithName`: the keyword argument for `name`; aten schemas call their first
/// argument `self` where the functional form says `input`.
fn find_input_with_name(name: &str, kwargs: &[NamedValue], is_aten: bool) -> Option<usize> {
    kwargs
        .iter()
        .position(|kw| (is_aten && name == "self" && kw.name() == "input") || kw.name() == name)
}

/// `varargsCanBeUsedAsList`: the last positional argument is a plain list (not `int[N]`, not
/// of a type variable), so trailing positional arguments may be gathered into it.
fn varargs_can_be_used_as_list(schema: &FunctionSchema, i: usize, arg: &Argument) -> bool {
    let is_last = schema
        .arguments
        .get(i + 1)
        .is_none_or(|next| next.kwarg_only);
    match arg.fake_type() {
        Type::List(elem) => is_last && arg.n.is_none() && !matches!(*elem, Type::Var(_)),
        _ => false,
    }
}

/// `isBlockListedSchema`: overloads TorchScript never picks.
pub fn is_blocklisted(schema: &FunctionSchema) -> bool {
    matches!(
        (schema.name.as_str(), schema.overload_name.as_str()),
        ("aten::view", "dtype") | ("aten::max", "unary_out") | ("aten::min", "unary_out")
    )
}

/// The full name PyTorch's `getFullSchemaName` gives.
fn full_schema_name(schema: &FunctionSchema) -> String {
    schema.full_name()
}

/// `tryMatchSchema`: matches the call to one schema, inserting conversions and defaults.
#[allow(clippy::too_many_arguments)]
fn try_match_schema(
    g: &mut Graph,
    schema: &FunctionSchema,
    args: &[NamedValue],
    kwargs: &[NamedValue],
    self_value: Option<&NamedValue>,
    allow_conversions: bool,
    failures: Option<&mut String>,
    loc: Option<&SourceRange>,
) -> Result<Option<MatchedSchema>, String> {
    if is_blocklisted(schema) {
        return Ok(None);
    }
    let mut attempt = Attempt {
        schema,
        failures,
        loc,
    };
    let mut env = TypeEnv::new();
    let mut inputs = Vec::with_capacity(schema.arguments.len());
    let mut used_kwarg = vec![false; kwargs.len()];
    let is_aten = schema.name.starts_with("aten::");
    let mut self_value = self_value;
    let mut used_args = 0;
    for (i, arg) in schema.arguments.iter().enumerate() {
        let value = if arg.name == "self" && self_value.is_some() {
            self_value.take().map(|s| s.value)
        } else if !arg.kwarg_only && used_args < args.len() {
            // Trailing positional arguments gathered into a list: `zeros(1, 2)` for
            // `zeros(int[] size)`.
            if allow_conversions && varargs_can_be_used_as_list(schema, i, arg) {
                let actual = g.ty(args[used_args].value).clone();
                let formal = arg.fake_type();
                let list_type = unwrap_optional(&formal);
                if !matches!(actual, Type::List(_)) && !convertible_to_list(&actual, list_type) {
                    let Type::List(elem) = list_type else {
                        unreachable!("varargs_can_be_used_as_list checked for a list")
                    };
                    let elem_arg = Argument {
                        name: "<varargs>".to_string(),
                        ty: (**elem).clone(),
                        n: None,
                        default: None,
                        kwarg_only: false,
                        alias: None,
                    };
                    let mut items = Vec::with_capacity(args.len() - used_args);
                    for a in &args[used_args..] {
                        let matched = try_match_argument(
                            g,
                            &elem_arg,
                            a.value,
                            allow_conversions,
                            &mut env,
                            &mut attempt,
                        )?;
                        match matched {
                            Some(v) => items.push(v),
                            None => return Ok(None),
                        }
                    }
                    inputs.push(insert_list(g, (**elem).clone(), &items));
                    used_args = args.len();
                    continue;
                }
            }
            used_args += 1;
            Some(args[used_args - 1].value)
        } else if let Some(k) = find_input_with_name(&arg.name, kwargs, is_aten) {
            if used_kwarg[k] {
                attempt.fail(format!(
                    "Argument {} specified twice in schema, submit a bug report!\n",
                    kwargs[k].name()
                ));
                return Ok(None);
            }
            used_kwarg[k] = true;
            Some(kwargs[k].value)
        } else {
            arg.default
                .as_ref()
                .map(|d| g.insert_constant(d, default_type(arg, d)))
        };
        let Some(value) = value else {
            attempt.fail(format!("Argument {} not provided.\n", arg.name));
            return Ok(None);
        };
        match try_match_argument(g, arg, value, allow_conversions, &mut env, &mut attempt)? {
            Some(v) => inputs.push(v),
            None => return Ok(None),
        }
    }
    if self_value.is_some() {
        attempt.fail("Provided self argument not used in schema.\n");
        return Ok(None);
    }
    if schema.is_vararg {
        inputs.extend(args[used_args..].iter().map(|a| a.value));
        used_args = args.len();
    }
    if used_args < args.len() {
        attempt.fail(format!(
            "Expected at most {used_args} arguments but found {} positional arguments.\n",
            args.len()
        ));
        return Ok(None);
    }
    for (k, kw) in kwargs.iter().enumerate() {
        if !used_kwarg[k] {
            if schema.argument_index_with_name(kw.name()).is_none() {
                attempt.fail(format!("Keyword argument {} unknown.\n", kw.name()));
            } else {
                attempt.fail(format!("Keyword argument {} specified twice.\n", kw.name()));
            }
            return Ok(None);
        }
    }
    let mut return_types = Vec::with_capacity(schema.returns.len());
    for ret in &schema.returns {
        let formal = ret.fake_type();
        match eval_type_variables(&formal, &env) {
            Some(t) => return_types.push(t),
            None => return Err(format!("{} has unbound type variables.", formal.repr_str())),
        }
    }
    let return_field_names = schema
        .returns
        .iter()
        .all(|r| !r.name.is_empty())
        .then(|| schema.returns.iter().map(|r| r.name.clone()).collect());
    Ok(Some(MatchedSchema {
        index: 0,
        inputs,
        return_types,
        return_field_names,
        schema_name: full_schema_name(schema),
    }))
}

/// The node just before the insertion point (a block's return node is outside the node list,
/// so inserting at the end puts nodes after the block's last node).
fn node_before_insert_point(g: &Graph) -> Option<Node> {
    let ip = g.insert_point();
    match g.owning_block(ip) {
        Some(b) if g.return_node(b) == ip => g.last_node(b),
        _ => g.prev_node(ip),
    }
}

/// The nodes inserted since `mark` (the node that was before the insertion point), newest
/// first.
fn inserted_since(g: &Graph, mark: Option<Node>) -> Vec<Node> {
    let mut nodes = Vec::new();
    let mut cur = node_before_insert_point(g);
    while let Some(n) = cur {
        if Some(n) == mark || g.is_block_boundary(n) {
            break;
        }
        nodes.push(n);
        cur = g.prev_node(n);
    }
    nodes
}

/// Removes what a failed attempt inserted, newest first.
fn roll_back(g: &mut Graph, mark: Option<Node>) {
    for n in inserted_since(g, mark) {
        g.destroy(n);
    }
}

/// [`try_match_schema`] that leaves the graph as it was when the schema does not match.
#[allow(clippy::too_many_arguments)]
fn try_match_schema_clean(
    g: &mut Graph,
    schema: &FunctionSchema,
    args: &[NamedValue],
    kwargs: &[NamedValue],
    self_value: Option<&NamedValue>,
    allow_conversions: bool,
    failures: Option<&mut String>,
    loc: Option<&SourceRange>,
) -> Result<Option<MatchedSchema>, String> {
    let mark = node_before_insert_point(g);
    let matched = try_match_schema(
        g,
        schema,
        args,
        kwargs,
        self_value,
        allow_conversions,
        failures,
        loc,
    );
    if !matches!(matched, Ok(Some(_))) {
        roll_back(g, mark);
    }
    matched
}

/// `matchSchema`: matches a call to a single schema, conversions allowed; the error is the
/// failure reason, headed by the schema.
pub fn match_schema(
    g: &mut Graph,
    schema: &FunctionSchema,
    args: &[NamedValue],
    kwargs: &[NamedValue],
    self_value: Option<&NamedValue>,
) -> Result<MatchedSchema, String> {
    match_schema_at(g, schema, args, kwargs, self_value, None)
}

fn match_schema_at(
    g: &mut Graph,
    schema: &FunctionSchema,
    args: &[NamedValue],
    kwargs: &[NamedValue],
    self_value: Option<&NamedValue>,
    loc: Option<&SourceRange>,
) -> Result<MatchedSchema, String> {
    let mut failures = String::new();
    let matched = try_match_schema_clean(
        g,
        schema,
        args,
        kwargs,
        self_value,
        true,
        Some(&mut failures),
        loc,
    )?;
    matched.ok_or(failures)
}

/// `prefixLine`: `prefix` before every line.
fn prefix_lines(text: &str, prefix: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    let mut was_newline = true;
    for c in text.chars() {
        if was_newline {
            out.push_str(prefix);
        }
        out.push(c);
        was_newline = c == '\n';
    }
    out
}

/// `matchSchemas`: the first schema that matches without conversions, else the first that
/// matches with them (a single schema is tried with conversions directly). The error lists
/// every candidate with the reason it failed, as PyTorch prints it (up to the
/// "The original call is" that precedes the highlighted call).
pub fn match_schemas(
    g: &mut Graph,
    schemas: &[&FunctionSchema],
    args: &[NamedValue],
    kwargs: &[NamedValue],
    self_value: Option<NamedValue>,
) -> Result<MatchedSchema, String> {
    match_schemas_at(g, schemas, args, kwargs, self_value.as_ref(), None)
}

fn match_schemas_at(
    g: &mut Graph,
    schemas: &[&FunctionSchema],
    args: &[NamedValue],
    kwargs: &[NamedValue],
    self_value: Option<&NamedValue>,
    loc: Option<&SourceRange>,
) -> Result<MatchedSchema, String> {
    match schemas {
        [] => Err("no schemas to match".to_string()),
        [only] => match_schema_at(g, only, args, kwargs, self_value, loc),
        _ => {
            let mut failures = String::new();
            for allow_conversions in [false, true] {
                failures.clear();
                for (i, schema) in schemas.iter().enumerate() {
                    let matched = try_match_schema_clean(
                        g,
                        schema,
                        args,
                        kwargs,
                        self_value,
                        allow_conversions,
                        Some(&mut failures),
                        loc,
                    )?;
                    if let Some(mut m) = matched {
                        m.index = i;
                        return Ok(m);
                    }
                }
            }
            Err(format!(
                "Arguments for call are not valid.\nThe following variants are available:\n{}\nThe original call is",
                prefix_lines(&failures, "  ")
            ))
        }
    }
}

/// `packOutputs`: one value stays itself; several (or none) become a tuple, named when the
/// schema names every return.
pub fn pack_outputs(g: &mut Graph, values: &[Value], field_names: Option<Vec<String>>) -> Value {
    if let [single] = values {
        return *single;
    }
    insert_tuple(g, values, field_names)
}

/// Levenshtein distance, giving up (returning `max + 1`) once it exceeds `max`.
fn edit_distance(a: &str, b: &str, max: usize) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > max {
        return max + 1;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let subst = prev[j] + usize::from(ca != cb);
            cur[j + 1] = subst.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        if cur.iter().min().is_some_and(|&m| m > max) {
            return max + 1;
        }
        prev = cur;
    }
    prev[b.len()]
}

/// `findSimilarOperators`: operators within edit distance 2 of `name`, closest first.
fn similar_operators(name: Symbol) -> Vec<Symbol> {
    const MAX_EDIT_DISTANCE: usize = 2;
    let mut found: Vec<(usize, Symbol)> = catalogue()
        .kinds()
        .iter()
        .map(|&k| {
            (
                edit_distance(name.as_str(), k.as_str(), MAX_EDIT_DISTANCE),
                k,
            )
        })
        .filter(|(d, _)| *d <= MAX_EDIT_DISTANCE)
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.as_str().cmp(b.1.as_str())));
    found.into_iter().map(|(_, k)| k).collect()
}

/// The error for a call of an operator with no schemas at all.
fn unknown_builtin_message(name: Symbol) -> String {
    let similar = similar_operators(name);
    let mut msg = format!("Unknown builtin op: {name}.\n");
    if similar.is_empty() {
        msg.push_str(&format!(
            "Could not find any similar ops to {name}. This op may not exist or may not be currently supported in TorchScript.\n"
        ));
    } else {
        msg.push_str("Here are some suggestions: \n");
        for s in similar {
            msg.push_str(&format!("\t{s}\n"));
        }
        msg.push_str("\nThe original call is");
    }
    msg
}

/// What a resolved builtin call produced.
#[derive(Clone, Debug, PartialEq)]
pub struct BuiltinCall {
    /// The operator node, or `None` when a TorchScript-defined builtin function was inlined.
    pub node: Option<Node>,
    /// The node's outputs (the inlined function's result for a builtin function).
    pub outputs: Vec<Value>,
    /// The returns' names when every return is named.
    pub return_field_names: Option<Vec<String>>,
}

/// `emitBuiltinCall`: resolves `name` over every operator overload in the catalogue and the
/// TorchScript-defined builtin functions of that name, matches the call, and inserts the node
/// (kind `name`, PyTorch's output types) at the insertion point; a builtin function is
/// inlined. Returns the node's outputs, unpacked.
pub fn emit_builtin_call(
    g: &mut Graph,
    name: Symbol,
    args: &[NamedValue],
    kwargs: &[NamedValue],
    self_value: Option<NamedValue>,
) -> Result<Vec<Value>, String> {
    Ok(emit_builtin_call_at(g, name, args, kwargs, self_value.as_ref(), None)?.outputs)
}

/// [`emit_builtin_call`] with the outputs packed as PyTorch's `emitBuiltinCall` returns them:
/// one value, or a tuple (named when the schema names its returns).
pub fn emit_builtin_call_value(
    g: &mut Graph,
    name: Symbol,
    args: &[NamedValue],
    kwargs: &[NamedValue],
    self_value: Option<NamedValue>,
) -> Result<Value, String> {
    let call = emit_builtin_call_at(g, name, args, kwargs, self_value.as_ref(), None)?;
    Ok(pack_outputs(g, &call.outputs, call.return_field_names))
}

/// [`emit_builtin_call`] giving the call node and the conversion nodes the source range `loc`.
pub fn emit_builtin_call_at(
    g: &mut Graph,
    name: Symbol,
    args: &[NamedValue],
    kwargs: &[NamedValue],
    self_value: Option<&NamedValue>,
    loc: Option<&SourceRange>,
) -> Result<BuiltinCall, String> {
    let variants = catalogue().schemas(name);
    let functions = builtins::builtin_functions_for(name);
    let mut schemas: Vec<&FunctionSchema> = variants.iter().collect();
    schemas.extend(functions.iter().map(|f| &f.schema));
    if schemas.is_empty() {
        return Err(unknown_builtin_message(name));
    }
    let matched = match_schemas_at(g, &schemas, args, kwargs, self_value, loc)?;
    if matched.index < variants.len() {
        let n = g.create(name, &matched.inputs, 0);
        for ty in &matched.return_types {
            g.add_node_output(n, ty.clone());
        }
        g.insert_node(n);
        if let Some(loc) = loc {
            g.set_source_range(n, Some(loc.clone()));
        }
        return Ok(BuiltinCall {
            node: Some(n),
            outputs: g.node_outputs(n).to_vec(),
            return_field_names: matched.return_field_names,
        });
    }
    let function = &functions[matched.index - variants.len()];
    let out = builtins::inline_builtin_function(g, function, &matched.inputs)?;
    Ok(BuiltinCall {
        node: None,
        outputs: vec![out],
        return_field_names: None,
    })
}

/// The constant PyTorch's `insertConstant` makes for `value` (used for literal arguments).
pub fn insert_literal(g: &mut Graph, value: &ConstValue) -> Value {
    let ty = ember_dialects::schema::const_type(value);
    g.insert_constant(value, ty)
}

#[cfg(test)]
#[path = "schema_match_tests.rs"]
mod tests;
