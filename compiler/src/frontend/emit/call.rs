//! What sugared values do: names, attributes, calls, iteration, indexing and tuple
//! unpacking (PyTorch's `SugaredValue` methods in sugared_value.cpp, `Environment::
//! getSugaredVar`, `emitApplyExpr` and the special forms), and the calls the emitter inserts:
//! builtin operators through schema matching, functions of the file as `prim::CallFunction`,
//! methods as `prim::CallMethod`.

use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::catalogue::catalogue;
use ember_dialects::schema::{Argument, FunctionSchema};
use ember_dialects::types::{eval_type_variables, match_type_variables, TupleType, TypeEnv};
use ember_dialects::{Symbol, Type, Value};

use super::sugared::{RangeValue, Sugared};
use super::{FnEmitter, FnSig, Global, R};
use crate::frontend::ast::{Expr, ExprKind, Keyword};
use crate::frontend::builtins::{self, ModuleAttr, PythonBuiltin};
use crate::frontend::error::FrontendError;
use crate::frontend::schema_match::{self, NamedValue};
use crate::frontend::span::Span;

/// Python's builtin functions that TorchScript has no meaning for (the others, like len or
/// print, are builtins of the emitter): PyTorch refuses a call of them by name.
const PYTHON_BUILTIN_FUNCTIONS: &[&str] = &[
    "__import__",
    "aiter",
    "anext",
    "ascii",
    "breakpoint",
    "callable",
    "compile",
    "delattr",
    "dir",
    "eval",
    "exec",
    "format",
    "globals",
    "input",
    "issubclass",
    "iter",
    "locals",
    "next",
    "open",
    "repr",
    "setattr",
    "vars",
];

/// Exceptions a TorchScript program may raise by name.
const PYTHON_EXCEPTIONS: &[&str] = &[
    "BaseException",
    "Exception",
    "RuntimeError",
    "ValueError",
    "TypeError",
    "IndexError",
    "KeyError",
    "AttributeError",
    "NotImplementedError",
    "ZeroDivisionError",
    "StopIteration",
    "OverflowError",
    "ArithmeticError",
    "LookupError",
    "AssertionError",
];

/// Modules a name can stand for without being a builtin table entry.
fn is_known_module(path: &str) -> bool {
    builtins::BUILTIN_MODULES.contains(&path)
        || matches!(
            path,
            "torch.jit" | "typing" | "torch.ops" | "torch.nn.modules"
        )
        || path
            .strip_prefix("torch.ops.")
            .is_some_and(|ns| !ns.contains('.'))
}

/// `Tensor.int()`, `Tensor.float()`, ...: the dtype they convert to.
fn tensor_cast_dtype(name: &str) -> Option<i64> {
    Some(match name {
        "byte" => 0,
        "char" => 1,
        "short" => 2,
        "int" => 3,
        "long" => 4,
        "half" => 5,
        "float" => 6,
        "double" => 7,
        "cfloat" => 9,
        "cdouble" => 10,
        _ => return None,
    })
}

pub fn schema_of(name: &str, sig: &FnSig, self_type: Option<Type>) -> FunctionSchema {
    let mut arguments = Vec::new();
    if let Some(st) = self_type {
        arguments.push(Argument {
            name: "self".into(),
            ty: st,
            n: None,
            default: None,
            kwarg_only: false,
            alias: None,
        });
    }
    for p in &sig.params {
        arguments.push(Argument {
            name: p.name.clone(),
            ty: p.ty.clone(),
            n: p.n,
            default: p.default.clone(),
            kwarg_only: p.kwarg_only,
            alias: None,
        });
    }
    FunctionSchema {
        name: name.to_string(),
        overload_name: String::new(),
        arguments,
        returns: vec![Argument {
            name: String::new(),
            ty: sig.ret.clone(),
            n: None,
            default: None,
            kwarg_only: false,
            alias: None,
        }],
        is_vararg: false,
        is_varret: false,
    }
}

impl<'a> FnEmitter<'a> {
    // ---------------------------------------------------------------- names

    /// `Environment::getSugaredVar`: the frames, then Python's builtins, then the file's
    /// names, imports and the resolver.
    pub fn get_sugared_var(&mut self, span: Span, name: &str) -> R<Sugared> {
        if let Some(v) = self.find_in_any_frame(name) {
            return Ok(v);
        }
        if let Some(b) = builtins::python_builtin(name) {
            return Ok(match b {
                PythonBuiltin::Print => Sugared::Print,
                PythonBuiltin::SpecialForm(s) => Sugared::SpecialForm(s),
                PythonBuiltin::Cast { ty, op, magic } => {
                    wrap_magic(magic, Sugared::Cast { ty, op })
                }
                PythonBuiltin::Function { op, magic } => {
                    wrap_magic(magic, Sugared::Builtin { op, self_: None })
                }
                PythonBuiltin::Exception(n) => Sugared::Exception {
                    name: n.to_string(),
                    python: false,
                },
            });
        }
        if let Some(g) = self.cx.globals.get(name).copied() {
            return match g {
                Global::Def(d) => {
                    if super::module::is_ignored(&d.decorators) {
                        // PyTorch calls an ignored function back in Python; Ember has none.
                        return Err(FrontendError::new(
                            span,
                            format!("function '{name}' is decorated @torch.jit.ignore: it runs in Python, which Ember cannot call; use @torch.jit.unused to compile it as raising, or remove the decorator"),
                        ));
                    }
                    if super::unused::is_dropped_function(d) {
                        return Ok(Sugared::DroppedFunction(name.to_string()));
                    }
                    Ok(Sugared::Function(name.to_string()))
                }
                Global::Class(_) => {
                    let qual = format!("{}.{name}", self.cx.prefix);
                    let st = self.cx.state.borrow();
                    if let Some(t) = st.classes.get(&qual).and_then(|c| c.named_tuple.clone()) {
                        return Ok(Sugared::NamedTupleCtor(t));
                    }
                    Ok(Sugared::Class(qual))
                }
                // Python globals are not TorchScript values (PyTorch's `PythonValue`).
                Global::Constant(e) => Ok(Sugared::PythonValue(python_type_name(e).to_string())),
            };
        }
        if let Some(path) = self.cx.imports.get(name).cloned() {
            return self.resolve_path(span, &path);
        }
        // Names the Python printer uses in archive code (`annotate(T, v)`,
        // `unchecked_cast(T, v)`, `ops.prim.min`, `__torch__.foo.Bar`).
        match name {
            "annotate" => return Ok(Sugared::SpecialForm(Symbol::prim("annotate"))),
            "unchecked_cast" => return Ok(Sugared::SpecialForm(Symbol::prim("unchecked_cast"))),
            "uninitialized" => return Ok(Sugared::SpecialForm(Symbol::prim("Uninitialized"))),
            "ops" => return Ok(Sugared::Namespace("torch.ops".into())),
            "__torch__" => return Ok(Sugared::Namespace("__torch__".into())),
            // The archive's constants table (`CONSTANTS.c0`), which the resolver holds.
            "CONSTANTS" if self.cx.resolver.is_archive_code() => {
                return Ok(Sugared::Namespace("CONSTANTS".into()))
            }
            "inf" => {
                return Ok(Sugared::Simple(
                    self.insert_constant(ConstValue::Float(f64::INFINITY), span),
                ))
            }
            "nan" => {
                return Ok(Sugared::Simple(
                    self.insert_constant(ConstValue::Float(f64::NAN), span),
                ))
            }
            _ => {}
        }
        if name == "slice" {
            return Ok(Sugared::SpecialForm(Symbol::prim("slice")));
        }
        if matches!(
            name,
            "reversed" | "map" | "filter" | "set" | "frozenset" | "type" | "object" | "super"
        ) || PYTHON_BUILTIN_FUNCTIONS.contains(&name)
        {
            return Ok(Sugared::PythonFunction(name.to_string()));
        }
        if matches!(name, "torch" | "math") {
            return Ok(Sugared::Namespace(name.to_string()));
        }
        if PYTHON_EXCEPTIONS.contains(&name) {
            return Ok(Sugared::Exception {
                name: name.to_string(),
                python: true,
            });
        }
        if let Some(r) = self.cx.resolver.resolve(name) {
            return Ok(match r {
                super::Resolved::Class(c) => Sugared::Class(c.qualname.clone()),
                super::Resolved::Function(f) => Sugared::Function(f.qualname.clone()),
                super::Resolved::Constant(c) => Sugared::Simple(self.insert_constant(c, span)),
                super::Resolved::Type(t) => sugared_of_type(t),
            });
        }
        Err(self.var_not_found(span, name))
    }

    /// A dotted import path: a module, or an attribute of one (`from math import sqrt`).
    fn resolve_path(&mut self, span: Span, path: &str) -> R<Sugared> {
        if is_known_module(path) {
            return Ok(Sugared::Namespace(path.to_string()));
        }
        match path.rsplit_once('.') {
            Some((module, attr)) => self.namespace_attr(span, module, attr),
            None => Err(self.err(span, format!("unknown module {path}"))),
        }
    }

    // ---------------------------------------------------------------- values

    /// `SugaredValue::asValue`.
    pub fn as_value(&mut self, span: Span, sv: &Sugared) -> R<Value> {
        match sv {
            Sugared::Simple(v) => Ok(*v),
            Sugared::Tuple(items) => {
                let mut vals = Vec::new();
                for i in items {
                    vals.push(self.as_value(span, i)?);
                }
                Ok(self.insert_tuple(&vals, span))
            }
            Sugared::PythonValue(_) | Sugared::DroppedFunction(_) => Err(self.err(span, format!("{} cannot be used as a value. Perhaps it is a closed over global variable? If so, please consider passing it in as an argument or use a local variable instead.", sv.kind()))),
            other => Err(self.err(span, format!("{} cannot be used as a value", other.kind()))),
        }
    }

    /// `SugaredValue::asTuple`.
    pub fn sugared_as_tuple(
        &mut self,
        span: Span,
        sv: &Sugared,
        size_hint: Option<usize>,
    ) -> R<Vec<Sugared>> {
        match sv {
            Sugared::Tuple(items) => Ok(items.clone()),
            Sugared::Simple(v) => {
                let t = self.g.ty(*v).clone();
                match t {
                    Type::Tuple(_) => Ok(self
                        .tuple_unpack(*v, span)
                        .into_iter()
                        .map(Sugared::Simple)
                        .collect()),
                    Type::List(elem) => {
                        let Some(n) = size_hint else {
                            return Err(self.err(span, "cannot statically infer the expected size of a list in this context"));
                        };
                        let node = self.emit_node(Symbol::prim("ListUnpack"), &[*v], vec![(*elem).clone(); n], span);
                        Ok(self.g.node_outputs(node).iter().map(|&o| Sugared::Simple(o)).collect())
                    }
                    Type::AnyTuple => Err(self.err(span, "Provided tuple is not fully defined/refined including its element types, please provide a value of type like Tuple[int, int]")),
                    other => Err(self.err(span, format!("{} cannot be used as a tuple", other.repr_str()))),
                }
            }
            other => Err(self.err(span, format!("{} cannot be used as a tuple", other.kind()))),
        }
    }

    /// `createTupleUnpack`: the inputs of the `prim::TupleConstruct` that made a tuple, or a
    /// `prim::TupleUnpack`.
    pub fn tuple_unpack(&mut self, v: Value, span: Span) -> Vec<Value> {
        let p = self.g.producer(v);
        if self.g.kind(p) == Symbol::prim("TupleConstruct") {
            return self.g.node_inputs(p).to_vec();
        }
        let elems = match self.g.ty(v) {
            Type::Tuple(t) => t.elements.clone(),
            _ => Vec::new(),
        };
        let n = self.emit_node(Symbol::prim("TupleUnpack"), &[v], elems, span);
        self.g.node_outputs(n).to_vec()
    }

    // ---------------------------------------------------------------- attributes

    pub fn sugared_attr(&mut self, span: Span, sv: &Sugared, name: &str) -> R<Sugared> {
        match sv {
            Sugared::Simple(v) => self.simple_attr(span, *v, name),
            Sugared::Namespace(path) => {
                let path = path.clone();
                self.namespace_attr(span, &path, name)
            }
            Sugared::Class(qual) => {
                if name == "__new__" {
                    return Ok(Sugared::SpecialForm(Symbol::prim("CreateObject")));
                }
                if self.cx.is_static_method(qual, name) {
                    return Ok(Sugared::StaticMethod {
                        class: qual.clone(),
                        name: name.to_string(),
                    });
                }
                if let Some(members) = self.cx.enum_members(qual) {
                    if members.iter().any(|(n, _)| n == name) {
                        let c = ConstValue::Opaque(format!("{qual}.{name}"));
                        let v = self.insert_typed_constant(c, Type::Enum(qual.clone()), span);
                        return Ok(Sugared::Simple(v));
                    }
                    return Err(self.err(span, format!("'Enum<{qual}>' has no attribute '{name}'")));
                }
                Err(self.err(span, format!("'{qual}' has no attribute '{name}'")))
            }
            other => Err(self.err(
                span,
                format!(
                    "'{}' object has no attribute or method '{name}'.",
                    other.kind()
                ),
            )),
        }
    }

    fn namespace_attr(&mut self, span: Span, path: &str, name: &str) -> R<Sugared> {
        let full = format!("{path}.{name}");
        if path == "__torch__" || path.starts_with("__torch__.") {
            return Ok(self.torch_path(&full));
        }
        if path == "CONSTANTS" {
            return match self.cx.resolver.resolve(&full) {
                Some(super::Resolved::Constant(c)) => {
                    Ok(Sugared::Simple(self.insert_constant(c, span)))
                }
                _ => Err(self.err(span, format!("the archive has no constant {full}"))),
            };
        }
        if path == "torch.nn" && name == "init" {
            return Ok(Sugared::Namespace(full));
        }
        if path == "torch.nn.init" && super::functional::has(path, name) {
            return Ok(Sugared::Functional(full));
        }
        if path == "torch.nn" {
            match super::nn::is_nn_module(name) {
                Some(true) => return Ok(Sugared::Sequential),
                Some(false) => {
                    let qual = self
                        .cx
                        .ensure_nn_class(name)
                        .map_err(|m| self.err(span, m))?;
                    return Ok(Sugared::Class(qual));
                }
                None if name == "ModuleList" => {
                    return Err(self.err(
                        span,
                        "Ember creates an nn.ModuleList only as `self.name = nn.ModuleList([a, b])` in a module's __init__",
                    ))
                }
                None if name.starts_with(|c: char| c.is_ascii_uppercase()) => {
                    return Err(self.err(
                        span,
                        format!(
                            "torch.nn.{name} is not a module Ember can create; it creates {}",
                            super::nn::creatable().join(", ")
                        ),
                    ))
                }
                None => {}
            }
        }
        if matches!(full.as_str(), "torch.no_grad" | "torch.enable_grad") {
            let qual =
                super::grad_mode::ensure(self.cx.unit, name).map_err(|m| self.err(span, m))?;
            return Ok(Sugared::Class(qual));
        }
        match full.as_str() {
            "torch.jit.annotate" => return Ok(Sugared::SpecialForm(Symbol::prim("annotate"))),
            "torch.jit.isinstance" => return Ok(Sugared::SpecialForm(Symbol::prim("isinstance"))),
            "torch.jit.is_scripting"
            | "torch.jit._is_scripting"
            | "torch._C._get_tracing_state" => {
                return Ok(Sugared::Builtin {
                    op: Symbol::aten("is_scripting"),
                    self_: None,
                })
            }
            "torch.jit.is_tracing" => {
                return Ok(Sugared::Builtin {
                    op: Symbol::aten("is_scripting"),
                    self_: None,
                })
            }
            "torch.jit._unwrap_optional" => {
                return Ok(Sugared::Builtin {
                    op: Symbol::aten("_unwrap_optional"),
                    self_: None,
                })
            }
            _ => {}
        }
        if path == "typing"
            || path == "torch.jit" && name.chars().next().is_some_and(char::is_uppercase)
        {
            return Ok(Sugared::Opaque(format!("type {full}")));
        }
        if is_known_module(&full) {
            return Ok(Sugared::Namespace(full));
        }
        match builtins::module_attr(path, name) {
            Some(ModuleAttr::Op(op)) => Ok(Sugared::Builtin { op, self_: None }),
            Some(ModuleAttr::Constant(c)) => Ok(Sugared::Simple(self.insert_constant(c, span))),
            Some(ModuleAttr::Module(p)) => Ok(Sugared::Namespace(p)),
            Some(ModuleAttr::PythonFunction | ModuleAttr::BooleanDispatch { .. }) => {
                if super::functional::has(path, name) {
                    return Ok(Sugared::Functional(full.clone()));
                }
                // Functions PyTorch compiles from Python source: call the operator of the
                // same name, which computes the same thing.
                let op = Symbol::aten(name);
                if catalogue().has_schemas(op) {
                    Ok(Sugared::Builtin { op, self_: None })
                } else {
                    Err(self.err(span, format!("Python builtin <built-in function {name}> is currently not supported in Torchscript")))
                }
            }
            None => {
                if path.starts_with("torch") {
                    let op = Symbol::aten(name);
                    if catalogue().has_schemas(op)
                        || !builtins::builtin_functions_for(op).is_empty()
                    {
                        return Ok(Sugared::Builtin { op, self_: None });
                    }
                }
                if path == "math" {
                    let op = Symbol::aten(name);
                    if catalogue().has_schemas(op) {
                        return Ok(Sugared::Builtin { op, self_: None });
                    }
                }
                Err(self.err(span, format!("Module '{path}' has no attribute '{name}'")))
            }
        }
    }

    /// A qualified name under `__torch__`: a class of the unit or the file, something the
    /// resolver knows, or a deeper module path.
    fn torch_path(&mut self, full: &str) -> Sugared {
        if self.cx.unit.class(full).is_some() {
            return Sugared::Class(full.to_string());
        }
        // Code printed by PyTorch names functions of its own module by qualified name.
        let last = full.rsplit('.').next().unwrap_or(full);
        // ... and its classes (enums and NamedTuples included) too.
        if full
            .rsplit_once('.')
            .is_some_and(|(m, _)| m == self.cx.prefix)
            && matches!(self.cx.globals.get(last), Some(Global::Class(_)))
        {
            let st = self.cx.state.borrow();
            if let Some(t) = st.classes.get(full).and_then(|c| c.named_tuple.clone()) {
                return Sugared::NamedTupleCtor(t);
            }
            return Sugared::Class(full.to_string());
        }
        if matches!(self.cx.globals.get(last), Some(Global::Def(_))) {
            return Sugared::Function(last.to_string());
        }
        match self.cx.resolver.resolve(full) {
            Some(super::Resolved::Class(c)) => return Sugared::Class(c.qualname.clone()),
            // Called by the name asked for, which the resolver answers again.
            Some(super::Resolved::Function(_)) => return Sugared::Function(full.to_string()),
            Some(super::Resolved::Type(t)) => return sugared_of_type(t),
            Some(super::Resolved::Constant(_)) | None => {}
        }
        // Python-defined functions of torch (`__torch__.torch.nn.functional.relu`), as PyTorch
        // names them in printed code.
        if let Some((module, name)) = full
            .strip_prefix("__torch__.")
            .and_then(|p| p.rsplit_once('.'))
        {
            if module.starts_with("torch.") && super::functional::has(module, name) {
                return Sugared::Functional(format!("{module}.{name}"));
            }
        }
        Sugared::Namespace(full.to_string())
    }

    /// `SimpleValue::attr`.
    fn simple_attr(&mut self, span: Span, v: Value, field: &str) -> R<Sugared> {
        let t = self.g.ty(v).clone();
        if t.is_subtype_of(&Type::tensor()) {
            if field == "tolist" {
                return Ok(Sugared::SpecialForm(Symbol::prim("tolist")));
            }
            if let Some(dtype) = tensor_cast_dtype(field) {
                return Ok(Sugared::TensorCast { dtype, self_: v });
            }
        }
        if let Some(op) = builtins::property_builtin(&t, field) {
            let out = self.builtin_call(span, op, &[v], &[])?;
            return Ok(Sugared::Simple(out));
        }
        if let Type::Optional(_) = &t {
            if field == "unchecked_unwrap_optional" {
                let out =
                    self.builtin_call(span, Symbol::prim("unchecked_unwrap_optional"), &[v], &[])?;
                return Ok(Sugared::Simple(out));
            }
        }
        match &t {
            Type::Tuple(tt) => {
                if let Some(names) = &tt.names {
                    if let Some(i) = names.fields.iter().position(|f| f == field) {
                        let idx = self.insert_constant(ConstValue::Int(i as i64), span);
                        let n = self.emit_node(
                            Symbol::prim("TupleIndex"),
                            &[v, idx],
                            vec![tt.elements[i].clone()],
                            span,
                        );
                        return Ok(Sugared::Simple(self.g.output(n, 0)));
                    }
                }
            }
            Type::Class(qual) | Type::Interface(qual) if self.class_has_method(qual, field) => {
                return Ok(Sugared::Method {
                    self_: v,
                    class: qual.clone(),
                    name: field.to_string(),
                });
            }
            Type::Class(qual) => {
                let qual = qual.clone();
                if let Some(attr_ty) = self.class_attribute(&qual, field) {
                    return Ok(Sugared::Simple(self.emit_get_attr(span, v, field, attr_ty)));
                }
                if let Some(c) = self.class_constant(&qual, field) {
                    return Ok(Sugared::Simple(self.insert_constant(c, span)));
                }
                if self.class_has_property(&qual, field) {
                    let getter = format!("__{field}_getter");
                    let out = self.call_method(span, v, &qual, &getter, &[], &[])?;
                    return Ok(Sugared::Simple(out));
                }
                return Err(self.err(
                    span,
                    format!(
                        "'{}' object has no attribute or method '{field}'. Did you forget to initialize an attribute in __init__()?",
                        t.repr_str()
                    ),
                ));
            }
            Type::Enum(_) => {
                if field == "name" {
                    let n = self.emit_node(Symbol::prim("EnumName"), &[v], vec![Type::Str], span);
                    return Ok(Sugared::Simple(self.g.output(n, 0)));
                }
                if field == "value" {
                    // A member's value is a constant, as PyTorch's constant propagation makes
                    // it (`.name` of a constant is folded in cleanup, which has no members).
                    if let Some(c) = self.enum_constant_value(v, &qual_of_enum(&t)) {
                        return Ok(Sugared::Simple(self.insert_constant(c, span)));
                    }
                    let vt = self.cx.enum_value_type(&qual_of_enum(&t));
                    let n = self.emit_node(Symbol::prim("EnumValue"), &[v], vec![vt], span);
                    return Ok(Sugared::Simple(self.g.output(n, 0)));
                }
            }
            _ => {}
        }
        let op = Symbol::aten(field);
        if self.builtin_accepts_self(op, &t) {
            return Ok(Sugared::Builtin { op, self_: Some(v) });
        }
        Err(self.err(
            span,
            format!(
                "'{}' object has no attribute or method '{field}'.",
                t.repr_str()
            ),
        ))
    }

    /// `BuiltinFunction::tryCreate`: some overload of `op` takes a `self` of this type.
    fn builtin_accepts_self(&self, op: Symbol, self_ty: &Type) -> bool {
        let schemas = catalogue().schemas(op);
        let functions = builtins::builtin_functions_for(op);
        schemas
            .iter()
            .chain(functions.iter().map(|f| &f.schema))
            .any(|s| {
                let Some(i) = s.argument_index_with_name("self") else {
                    return false;
                };
                let formal = s.arguments[i].fake_type();
                let mut env = TypeEnv::default();
                if match_type_variables(&formal, self_ty, &mut env).is_err() {
                    return false;
                }
                eval_type_variables(&formal, &env).is_some_and(|c| self_ty.is_subtype_of(&c))
            })
    }

    pub fn emit_get_attr(&mut self, span: Span, obj: Value, field: &str, ty: Type) -> Value {
        let n = self.emit_node(Symbol::prim("GetAttr"), &[obj], vec![ty], span);
        self.g
            .set_attr(n, Symbol::attr("name"), AttrValue::Str(field.to_string()));
        // `Graph::createGetAttr` names the value after the field (`normalizeAttrName`).
        let out = self.g.output(n, 0);
        let name = match ember_dialects::Graph::is_valid_name(field) {
            true => field.to_string(),
            false => format!("_{field}"),
        };
        self.g.set_debug_name(out, &name);
        out
    }

    pub fn sugared_has_attr(&mut self, span: Span, sv: &Sugared, name: &str) -> R<bool> {
        match sv {
            Sugared::Simple(v) => match self.g.ty(*v).clone() {
                Type::Class(qual) => Ok(self.class_attribute(&qual, name).is_some()
                    || self.class_has_method(&qual, name)
                    || self.class_has_property(&qual, name)
                    || self.class_constant(&qual, name).is_some()),
                Type::Tuple(TupleType {
                    names: Some(info), ..
                }) => Ok(info.fields.iter().any(|f| f == name)),
                t => Err(self.err(
                    span,
                    format!(
                        "hasattr's first argument must be an object or NamedTuple, got {} instead",
                        t.repr_str()
                    ),
                )),
            },
            other => Err(self.err(
                span,
                format!(
                    "hasattr's first argument must be an object or NamedTuple, got {} instead",
                    other.kind()
                ),
            )),
        }
    }

    /// `SimpleValue::setAttr`: `obj.field = v`; in `__init__`, the first assignment adds the
    /// attribute to the class.
    pub fn sugared_set_attr(
        &mut self,
        span: Span,
        sv: &Sugared,
        field: &str,
        v: Value,
        hint: Option<Type>,
    ) -> R<()> {
        let obj = match sv {
            Sugared::Simple(o) => *o,
            other => {
                return Err(self.err(
                    span,
                    format!(
                        "Tried to set an attribute: {field} on a non-class: {}",
                        other.kind()
                    ),
                ))
            }
        };
        let Type::Class(qual) = self.g.ty(obj).clone() else {
            return Err(self.err(
                span,
                format!(
                    "Tried to set an attribute: {field} on a non-class: {}",
                    self.g.ty(obj).repr_str()
                ),
            ));
        };
        let expected = match self.class_attribute(&qual, field) {
            Some(t) => t,
            None => {
                let initializing = self.is_initializing(&qual, obj);
                if !initializing {
                    if self.class_has_property(&qual, field) {
                        return Err(
                            self.err(span, format!("Tried to set read-only attribute: {field}"))
                        );
                    }
                    return Err(self.err(span, format!("Tried to set nonexistent attribute: {field}. Did you forget to initialize it in __init__()?")));
                }
                if self.g.owning_block(self.g.insert_point()) != Some(self.g.block()) {
                    return Err(self.err(span, "First assignment cannot be in a control-flow block. Initialize the field at the top level first"));
                }
                // An annotation on `self.x: T = v` only guides how `v` is emitted.
                let _ = hint;
                let ty = self.g.ty(v).clone();
                self.add_class_attribute(&qual, field, ty.clone());
                ty
            }
        };
        let vt = self.g.ty(v).clone();
        if !vt.is_subtype_of(&expected) {
            return Err(self.err(
                span,
                format!(
                    "Wrong type for attribute assignment. Expected {} but got {}",
                    expected.repr_str(),
                    vt.repr_str()
                ),
            ));
        }
        let n = self.emit_node(Symbol::prim("SetAttr"), &[obj, v], vec![], span);
        self.g
            .set_attr(n, Symbol::attr("name"), AttrValue::Str(field.to_string()));
        Ok(())
    }

    // ---------------------------------------------------------------- calls

    /// `emitApplyExpr`.
    pub fn emit_apply(
        &mut self,
        span: Span,
        func: &Expr,
        args: &[Expr],
        kwargs: &[Keyword],
        n_binders: usize,
        hint: Option<&Type>,
    ) -> R<Sugared> {
        let sv = self.emit_sugared_expr(func, 1, None)?;
        if let Sugared::SpecialForm(form) = sv {
            return self.emit_special_form(span, form, func, args, kwargs, hint);
        }
        let named = self.get_named_values(args, true)?;
        let mut kw = Vec::new();
        for k in kwargs {
            let v = self.emit_expr(&k.value, None)?;
            kw.push(NamedValue::named(k.name.name.clone(), v, k.value.span));
        }
        // PyTorch reports a call's errors at its callee (`apply.callee().range()`); the start,
        // which the graph's source comments show, is the call's.
        self.sugared_call(func.span, &sv, named, kw, n_binders)
    }

    fn emit_special_form(
        &mut self,
        span: Span,
        form: Symbol,
        func: &Expr,
        args: &[Expr],
        kwargs: &[Keyword],
        hint: Option<&Type>,
    ) -> R<Sugared> {
        let fname = match &func.kind {
            ExprKind::Name(n) => n.clone(),
            ExprKind::Attribute { attr, .. } => attr.name.clone(),
            _ => form.unqualified().to_string(),
        };
        match form.unqualified() {
            "annotate" => {
                self.check_num_inputs(span, &fname, args.len(), kwargs.len(), 2)?;
                let ty = self.cx.parse_type(&args[0])?;
                let v = self.emit_expr(&args[1], Some(&ty))?;
                let mut v = self.try_convert_to_type(span, &ty, v, true)?;
                let vt = self.g.ty(v).clone();
                if !vt.is_subtype_of(&ty) {
                    return Err(self.err(
                        args[1].span,
                        format!(
                            "expected an expression of type {} but found {}",
                            ty.repr_str(),
                            vt.repr_str()
                        ),
                    ));
                }
                if matches!(ty, Type::Optional(_)) && vt.is_subtype_of(&Type::None) {
                    v = self.insert_typed_constant(ConstValue::None, ty, span);
                }
                Ok(Sugared::Simple(v))
            }
            "unchecked_cast" => {
                self.check_num_inputs(span, &fname, args.len(), kwargs.len(), 2)?;
                let ty = self.cx.parse_type(&args[0])?;
                let v = self.emit_expr(&args[1], None)?;
                Ok(Sugared::Simple(self.insert_unchecked_cast(v, ty, span)))
            }
            "GetAttr" => {
                self.check_num_inputs(span, &fname, args.len(), kwargs.len(), 2)?;
                let obj = self.emit_sugared_expr(&args[0], 1, None)?;
                let ExprKind::Str(name) = &args[1].kind else {
                    return Err(
                        self.err(span, "getattr's second argument must be a string literal")
                    );
                };
                self.sugared_attr(span, &obj, name)
            }
            "HasAttr" => {
                self.check_num_inputs(span, &fname, args.len(), kwargs.len(), 2)?;
                let c = self.emit_has_attr(&args[0], &args[1])?;
                Ok(Sugared::Simple(c.value))
            }
            "isinstance" => {
                self.check_num_inputs(span, &fname, args.len(), kwargs.len(), 2)?;
                let c = self.emit_is_instance(&args[0], &args[1])?;
                Ok(Sugared::Simple(c.value))
            }
            "TupleConstruct" => {
                self.check_num_inputs(span, &fname, args.len(), kwargs.len(), 1)?;
                let sv = self.emit_sugared_expr(&args[0], 1, None)?;
                let items = self.sugared_as_tuple(span, &sv, None)?;
                let mut vals = Vec::new();
                for i in &items {
                    vals.push(self.as_value(span, i)?);
                }
                Ok(Sugared::Simple(self.insert_tuple(&vals, span)))
            }
            "Uninitialized" => {
                self.check_num_inputs(span, &fname, args.len(), kwargs.len(), 1)?;
                let ty = self.cx.parse_type(&args[0])?;
                let n = self.emit_node(Symbol::prim("Uninitialized"), &[], vec![ty], span);
                Ok(Sugared::Simple(self.g.output(n, 0)))
            }
            "CreateObject" => {
                if args.len() != 1 {
                    return Err(self.err(span, "Only one argument to __new__ allowed"));
                }
                let sv = self.emit_sugared_expr(&args[0], 1, None)?;
                let Sugared::Class(qual) = sv else {
                    return Err(self.err(
                        span,
                        format!(
                            "Expected class value as argument to __new__, got {} instead",
                            match &sv {
                                Sugared::Simple(v) => self.g.ty(*v).repr_str(),
                                other => other.kind(),
                            }
                        ),
                    ));
                };
                let n = self.emit_node(
                    Symbol::prim("CreateObject"),
                    &[],
                    vec![Type::Class(qual)],
                    span,
                );
                Ok(Sugared::Simple(self.g.output(n, 0)))
            }
            "tolist" => {
                let ExprKind::Attribute { value, .. } = &func.kind else {
                    return Err(self.err(span, "tolist must be called as a method"));
                };
                let Some(ty) = hint.cloned() else {
                    return Err(self.err(span, "Expected type hint for result of tolist()"));
                };
                let v = self.emit_expr(value, None)?;
                let (elem, dim) = list_depth(&ty);
                let elem_code = match elem {
                    Type::Int => 0,
                    Type::Float => 1,
                    Type::Bool => 2,
                    Type::Complex => 3,
                    other => return Err(self.err(span, format!("{} is not one of the supported element types for tolist: int, float, complex, bool", other.repr_str()))),
                };
                let d = self.insert_constant(ConstValue::Int(dim), span);
                let e = self.insert_constant(ConstValue::Int(elem_code), span);
                let n = self.emit_node(Symbol::prim("tolist"), &[v, d, e], vec![ty], span);
                Ok(Sugared::Simple(self.g.output(n, 0)))
            }
            "range" => {
                let vals = self.get_values(args, true)?;
                Ok(Sugared::Range(self.range_value(span, &vals, None)?))
            }
            "enumerate" => {
                if args.is_empty() {
                    return Err(self.err(span, "enumerate expected at least 1 arguments, got 0"));
                }
                if args.len() > 2 {
                    return Err(self.err(
                        span,
                        format!("enumerate expected at most 2 arguments, got {}", args.len()),
                    ));
                }
                let start = if args.len() == 2 {
                    let sv = self.emit_sugared_expr(&args[1], 1, None)?;
                    Some(self.as_value(span, &sv)?)
                } else {
                    None
                };
                let mut range_inputs: Vec<Value> = start.into_iter().collect();
                range_inputs.push(self.materialize_int(i64::MAX, span));
                let sv = self.emit_sugared_expr(&args[0], 1, None)?;
                let iterable = self.sugared_iter(span, &sv)?;
                let static_len = iterable.static_len();
                let range = self.range_value(span, &range_inputs, static_len)?;
                Ok(Sugared::IterableTree(vec![Sugared::Range(range), iterable]))
            }
            "zip" => {
                if args.is_empty() {
                    return Err(self.err(span, "zip expected at least 1 arguments, got 0"));
                }
                let mut children: Vec<Sugared> = Vec::new();
                for a in args {
                    let sv = self.emit_sugared_expr(a, 1, None)?;
                    let child = self.sugared_iter(span, &sv)?;
                    // Unrolled (tuple) and looped (list) sources cannot share one loop.
                    if children
                        .first()
                        .is_some_and(|c| c.static_len().is_some() != child.static_len().is_some())
                    {
                        return Err(self.err(span, "Can not iterate over a module list or tuple with a value that does not have a statically determinable length"));
                    }
                    children.push(child);
                }
                Ok(Sugared::IterableTree(children))
            }
            "slice" => {
                if args.is_empty() || args.len() > 3 || !kwargs.is_empty() {
                    return Err(self.err(
                        span,
                        format!(
                            "slice accepts exactly 1, 2 or 3 arguments, got: {}",
                            args.len()
                        ),
                    ));
                }
                let mut vals = Vec::new();
                for a in args {
                    let v = self.emit_expr(a, None)?;
                    vals.push((*self.g.ty(v) != Type::None).then_some(v));
                }
                let (start, stop, step) = match vals.as_slice() {
                    [stop] => (None, *stop, None),
                    [start, stop] => (*start, *stop, None),
                    [start, stop, step] => (*start, *stop, *step),
                    _ => (None, None, None),
                };
                Ok(Sugared::Slice { start, stop, step })
            }
            "list" => self.emit_list_call(span, args, kwargs, hint),
            "dict" => self.emit_dict_call(span, args, kwargs, hint),
            other => Err(self.err(span, format!("unknown special form: {other}"))),
        }
    }

    fn emit_list_call(
        &mut self,
        span: Span,
        args: &[Expr],
        kwargs: &[Keyword],
        hint: Option<&Type>,
    ) -> R<Sugared> {
        if args.is_empty() {
            let ty = hint.cloned().unwrap_or_else(|| Type::list(Type::tensor()));
            let Type::List(elem) = ty else {
                return Err(self.err(
                    span,
                    format!(
                        "Expected list type annotation for list(), found {}",
                        ty.repr_str()
                    ),
                ));
            };
            return Ok(Sugared::Simple(self.insert_list(*elem, &[], span)));
        }
        self.check_num_inputs(span, "list", args.len(), kwargs.len(), 1)?;
        let sv = self.emit_sugared_expr(&args[0], 1, None)?;
        if let Some(v) = sv.as_simple() {
            if matches!(self.g.ty(v), Type::List(_) | Type::Str) {
                return Ok(Sugared::Simple(self.builtin_call(
                    span,
                    Symbol::aten("list"),
                    &[v],
                    &[],
                )?));
            }
        }
        // list(iter) is [_elem for _elem in iter].
        let iter_name = self.temp_name("$_iter");
        self.set_sugared_var(span, &iter_name, sv, None)?;
        let elem_name = self.temp_name("$_elem");
        let elem = Expr::new(ExprKind::Name(elem_name), span);
        let iter = Expr::new(ExprKind::Name(iter_name), span);
        let lc = Expr::new(
            ExprKind::ListComp {
                elt: Box::new(elem.clone()),
                target: Box::new(elem),
                iter: Box::new(iter),
                cond: None,
            },
            span,
        );
        Ok(Sugared::Simple(self.emit_expr(&lc, hint)?))
    }

    fn emit_dict_call(
        &mut self,
        span: Span,
        args: &[Expr],
        kwargs: &[Keyword],
        hint: Option<&Type>,
    ) -> R<Sugared> {
        if let Some(a) = args.first() {
            let sv = self.emit_sugared_expr(a, 1, None)?;
            if let Some(v) = sv.as_simple() {
                if matches!(self.g.ty(v), Type::Dict(..)) {
                    let d = self.builtin_call(span, Symbol::aten("dict"), &[v], &[])?;
                    self.add_dict_kwargs(d, kwargs)?;
                    return Ok(Sugared::Simple(d));
                }
            }
        }
        let empty_container = match args.first().map(|a| &a.kind) {
            None => true,
            Some(ExprKind::Dict(p)) => p.is_empty(),
            Some(ExprKind::List(l)) => l.is_empty(),
            _ => false,
        };
        if empty_container && kwargs.is_empty() {
            let ty = hint
                .cloned()
                .unwrap_or_else(|| Type::Dict(Box::new(Type::Str), Box::new(Type::tensor())));
            let Type::Dict(..) = ty else {
                return Err(self.err(
                    span,
                    format!(
                        "Expected a type annotation of Dict for dict constructor dict(), got {}",
                        ty.repr_str()
                    ),
                ));
            };
            let n = self.emit_node(Symbol::prim("DictConstruct"), &[], vec![ty], span);
            return Ok(Sugared::Simple(self.g.output(n, 0)));
        }
        if let Some(Expr {
            kind: ExprKind::DictComp { .. },
            ..
        }) = args.first()
        {
            let d = self.emit_expr(&args[0], hint)?;
            self.add_dict_kwargs(d, kwargs)?;
            return Ok(Sugared::Simple(d));
        }
        // dict(pairs, **kwargs) becomes {k: v for k, v in pairs}, kwargs added after.
        let mut items: Vec<Expr> = match args.first().map(|a| &a.kind) {
            Some(ExprKind::Dict(pairs)) => pairs
                .iter()
                .map(|(k, v)| Expr::new(ExprKind::Tuple(vec![k.clone(), v.clone()]), span))
                .collect(),
            Some(ExprKind::List(l)) => l.clone(),
            _ => Vec::new(),
        };
        let iter_expr =
            if args.is_empty() || matches!(args[0].kind, ExprKind::Dict(_) | ExprKind::List(_)) {
                for k in kwargs {
                    items.push(Expr::new(
                        ExprKind::Tuple(vec![
                            Expr::new(ExprKind::Str(k.name.name.clone()), span),
                            k.value.clone(),
                        ]),
                        span,
                    ));
                }
                Expr::new(ExprKind::List(items), span)
            } else {
                args[0].clone()
            };
        let sv = self.emit_sugared_expr(&iter_expr, 1, None)?;
        let iter_name = self.temp_name("$_iter");
        let key_name = self.temp_name("$_key");
        let value_name = self.temp_name("$_value");
        self.set_sugared_var(span, &iter_name, sv, None)?;
        let key = Expr::new(ExprKind::Name(key_name), span);
        let value = Expr::new(ExprKind::Name(value_name), span);
        let dc = Expr::new(
            ExprKind::DictComp {
                key: Box::new(key.clone()),
                value: Box::new(value.clone()),
                target: Box::new(Expr::new(ExprKind::Tuple(vec![key, value]), span)),
                iter: Box::new(Expr::new(ExprKind::Name(iter_name), span)),
                cond: None,
            },
            span,
        );
        let d = self.emit_expr(&dc, hint)?;
        if !(args.is_empty() || matches!(args[0].kind, ExprKind::Dict(_) | ExprKind::List(_))) {
            self.add_dict_kwargs(d, kwargs)?;
        }
        Ok(Sugared::Simple(d))
    }

    fn add_dict_kwargs(&mut self, d: Value, kwargs: &[Keyword]) -> R<()> {
        for k in kwargs {
            let key = self.insert_constant(ConstValue::Str(k.name.name.clone()), k.name.span);
            let v = self.emit_expr(&k.value, None)?;
            self.builtin_call_outputs(k.value.span, Symbol::aten("_set_item"), &[d, key, v], &[])?;
        }
        Ok(())
    }

    pub fn range_value(
        &mut self,
        span: Span,
        inputs: &[Value],
        static_len: Option<i64>,
    ) -> R<RangeValue> {
        for (i, v) in inputs.iter().enumerate() {
            if *self.g.ty(*v) != Type::Int {
                return Err(self.err(
                    span,
                    format!(
                        "all inputs of range must be ints, found {} in argument {i}",
                        self.g.ty(*v).repr_str()
                    ),
                ));
            }
        }
        match inputs {
            [] => Err(self.err(span, "range expected at least 1 arguments, got 0")),
            [end] => {
                let start = self.insert_constant(ConstValue::Int(0), span);
                let step = self.insert_constant(ConstValue::Int(1), span);
                Ok(RangeValue {
                    start,
                    end: *end,
                    step,
                    only_end: true,
                    static_len,
                })
            }
            [start, end, rest @ ..] if rest.len() <= 1 => {
                let step = match rest.first() {
                    Some(s) => *s,
                    None => self.insert_constant(ConstValue::Int(1), span),
                };
                Ok(RangeValue {
                    start: *start,
                    end: *end,
                    step,
                    only_end: false,
                    static_len,
                })
            }
            _ => Err(self.err(
                span,
                format!("range expected at most 3 arguments, got {}", inputs.len()),
            )),
        }
    }

    /// `SugaredValue::call`.
    pub fn sugared_call(
        &mut self,
        span: Span,
        sv: &Sugared,
        args: Vec<NamedValue>,
        kwargs: Vec<NamedValue>,
        _n_binders: usize,
    ) -> R<Sugared> {
        match sv {
            Sugared::Builtin { op, self_ } => {
                let self_nv = self_.map(|s| NamedValue::named("self", s, span));
                Ok(Sugared::Simple(
                    self.builtin_call_nv(span, *op, args, kwargs, self_nv)?,
                ))
            }
            Sugared::Magic { magic, base } => {
                if let Some(first) = args.first() {
                    if let Type::Class(qual) = self.g.ty(first.value).clone() {
                        if !self.class_has_method(&qual, magic) {
                            return Err(self.err(
                                span,
                                format!(
                                    "{} does not define a {magic} method",
                                    Type::Class(qual).repr_str()
                                ),
                            ));
                        }
                        let rest: Vec<Value> = args[1..].iter().map(|a| a.value).collect();
                        let out = self.call_method(span, first.value, &qual, magic, &rest, &[])?;
                        return Ok(Sugared::Simple(out));
                    }
                }
                self.sugared_call(span, base, args, kwargs, _n_binders)
            }
            Sugared::Cast { ty, op } => {
                if args.len() == 1 && kwargs.is_empty() {
                    let v = args[0].value;
                    let vt = self.g.ty(v).clone();
                    if vt.is_subtype_of(ty) {
                        return Ok(Sugared::Simple(v));
                    }
                    if *ty == Type::Bool
                        && (vt.is_subtype_of(&Type::AnyList)
                            || vt.is_subtype_of(&Type::Str)
                            || matches!(vt, Type::Dict(..)))
                    {
                        let len = self.builtin_call(span, Symbol::aten("len"), &[v], &[])?;
                        let zero = self.insert_constant(ConstValue::Int(0), span);
                        let gt = self.builtin_call(span, Symbol::aten("gt"), &[len, zero], &[])?;
                        return Ok(Sugared::Simple(gt));
                    }
                }
                Ok(Sugared::Simple(
                    self.builtin_call_nv(span, *op, args, kwargs, None)?,
                ))
            }
            Sugared::TensorCast { dtype, self_ } => {
                if !args.is_empty() {
                    return Err(
                        self.err(span, "Expected no positional arguments for a tensor cast")
                    );
                }
                let d = self.insert_constant(ConstValue::Int(*dtype), span);
                let a = vec![
                    NamedValue::named("self", *self_, span),
                    NamedValue::new(d, span),
                ];
                Ok(Sugared::Simple(self.builtin_call_nv(
                    span,
                    Symbol::aten("to"),
                    a,
                    kwargs,
                    None,
                )?))
            }
            Sugared::Print => {
                if !kwargs.is_empty() {
                    return Err(self.err(span, "print doesn't accept any keyword arguments"));
                }
                let vals: Vec<Value> = args.iter().map(|a| a.value).collect();
                self.emit_node(Symbol::prim("Print"), &vals, vec![], span);
                Ok(Sugared::Simple(
                    self.insert_constant(ConstValue::None, span),
                ))
            }
            Sugared::Function(name) => Ok(Sugared::Simple(
                self.call_function(span, name, args, kwargs)?,
            )),
            Sugared::DroppedFunction(name) => Ok(Sugared::Simple(
                self.call_dropped_function(span, name, args, kwargs, _n_binders)?,
            )),
            Sugared::Method { self_, class, name } => {
                let out = self.call_method_nv(span, *self_, class, name, args, kwargs)?;
                Ok(Sugared::Simple(out))
            }
            Sugared::Class(qual) => {
                let is_module = self
                    .cx
                    .state
                    .borrow()
                    .classes
                    .get(qual)
                    .is_some_and(|c| c.is_module);
                // A module's `__init__` builds its submodules (run when Ember constructs the
                // file's root module); anywhere else PyTorch refuses to create a module.
                if is_module && !self.in_module_init() {
                    let short = qual.rsplit('.').next().unwrap_or(qual);
                    return Err(self.err(
                        span,
                        format!("Cannot instantiate class '{short}' in a script function"),
                    ));
                }
                let n = self.emit_node(
                    Symbol::prim("CreateObject"),
                    &[],
                    vec![Type::Class(qual.clone())],
                    span,
                );
                let obj = self.g.output(n, 0);
                if !self.class_has_method(qual, "__init__") {
                    return Err(self.err(
                        span,
                        format!(
                            "Class {} does not have an __init__ function defined",
                            qual.rsplit('.').next().unwrap_or(qual)
                        ),
                    ));
                }
                self.call_method_nv(span, obj, qual, "__init__", args, kwargs)?;
                Ok(Sugared::Simple(obj))
            }
            Sugared::Sequential => Ok(Sugared::Simple(self.emit_sequential(span, args, kwargs)?)),
            Sugared::NamedTupleCtor(ty) => {
                let Type::Tuple(tt) = ty else {
                    return Err(self.err(span, "not a NamedTuple"));
                };
                let names = tt.names.clone().unwrap_or_default();
                let sig = FnSig {
                    params: names
                        .fields
                        .iter()
                        .zip(&tt.elements)
                        .enumerate()
                        .map(|(i, (f, t))| super::ParamSig {
                            name: f.clone(),
                            ty: t.clone(),
                            n: None,
                            default: self.named_tuple_default(&names, i, t),
                            kwarg_only: false,
                        })
                        .collect(),
                    ret: ty.clone(),
                };
                let schema = schema_of(&names.qualified_name, &sig, None);
                let m = schema_match::match_schema(&mut self.g, &schema, &args, &kwargs, None)
                    .map_err(|e| self.err(span, e))?;
                let n = self.emit_node(
                    Symbol::prim("TupleConstruct"),
                    &m.inputs,
                    vec![ty.clone()],
                    span,
                );
                Ok(Sugared::Simple(self.g.output(n, 0)))
            }
            Sugared::Exception { name, python } => {
                if *python {
                    let vals: Vec<Value> = args.iter().chain(&kwargs).map(|a| a.value).collect();
                    let message = match vals.as_slice() {
                        [] => self.insert_constant(ConstValue::Str(String::new()), span),
                        [one] => *one,
                        many => self.insert_tuple(many, span),
                    };
                    let class =
                        self.insert_constant(ConstValue::Str(format!("builtins.{name}")), span);
                    return Ok(Sugared::ExceptionMessage {
                        message,
                        class: Some(class),
                    });
                }
                let mut msg = self.insert_constant(ConstValue::Str(format!("{name}: ")), span);
                for a in &args {
                    let mut s = a.value;
                    if !self.g.ty(s).is_subtype_of(&Type::Str) {
                        s = self.builtin_call(span, Symbol::aten("str"), &[s], &[])?;
                    }
                    msg = self.builtin_call(span, Symbol::aten("add"), &[msg, s], &[])?;
                }
                Ok(Sugared::ExceptionMessage {
                    message: msg,
                    class: None,
                })
            }
            Sugared::Simple(v) => {
                let t = self.g.ty(*v).clone();
                if let Type::Interface(qual) = &t {
                    // A module interface value called runs its `forward`.
                    if self.class_has_method(qual, "forward") {
                        let out = self.call_method_nv(span, *v, qual, "forward", args, kwargs)?;
                        return Ok(Sugared::Simple(out));
                    }
                }
                if let Type::Class(qual) = &t {
                    // Calling a module runs its `forward`.
                    let is_module = self
                        .cx
                        .state
                        .borrow()
                        .classes
                        .get(qual)
                        .is_some_and(|c| c.is_module)
                        || self.cx.unit.class(qual).is_some_and(|c| c.is_module);
                    if is_module && self.class_has_method(qual, "forward") {
                        let out = self.call_method_nv(span, *v, qual, "forward", args, kwargs)?;
                        return Ok(Sugared::Simple(out));
                    }
                    if self.class_has_method(qual, "__call__") {
                        let out = self.call_method_nv(span, *v, qual, "__call__", args, kwargs)?;
                        return Ok(Sugared::Simple(out));
                    }
                }
                Err(self.err(
                    span,
                    format!("cannot call a value of type '{}'", t.repr_str()),
                ))
            }
            Sugared::PythonFunction(name) if PYTHON_BUILTIN_FUNCTIONS.contains(&name.as_str()) => {
                Err(self.err(span, format!("Python builtin <built-in function {name}> is currently not supported in Torchscript")))
            }
            Sugared::PythonFunction(name) => {
                // PyTorch infers `name(Tensor 0, ...) -> Tensor 0` for a Python function.
                let sig = FnSig {
                    params: (0..args.len())
                        .map(|i| super::ParamSig {
                            name: i.to_string(),
                            ty: Type::tensor(),
                            n: None,
                            default: None,
                            kwarg_only: false,
                        })
                        .collect(),
                    ret: Type::tensor(),
                };
                let mut schema = schema_of(name, &sig, None);
                schema.returns[0].name = "0".into();
                schema_match::match_schema(&mut self.g, &schema, &args, &kwargs, None)
                    .map_err(|e| self.err(span, e))?;
                Err(self.err(span, format!("Python builtin <built-in function {name}> is currently not supported in Torchscript")))
            }
            Sugared::Functional(name) => {
                let (sig, f) =
                    super::functional::resolve(name, &args, &kwargs, |v| self.constant_of(v))
                        .map_err(|m| self.err(span, m))?;
                Ok(Sugared::Simple(
                    self.call_compiled(span, &sig, &f, args, kwargs)?,
                ))
            }
            Sugared::StaticMethod { class, name } => {
                let key = format!("{class}.{name}");
                Ok(Sugared::Simple(
                    self.call_function(span, &key, args, kwargs)?,
                ))
            }
            Sugared::Opaque(what) => {
                Err(self.err(span, format!("{what} cannot be called in TorchScript")))
            }
            other => Err(self.err(span, format!("cannot call a {}", other.kind()))),
        }
    }

    fn named_tuple_default(
        &self,
        names: &ember_dialects::types::NamedTupleInfo,
        i: usize,
        _t: &Type,
    ) -> Option<ConstValue> {
        let st = self.cx.state.borrow();
        let info = st.classes.get(&names.qualified_name)?;
        let _ = info;
        let text = names.defaults.get(i)?.as_ref()?;
        Some(parse_printed_const(text))
    }

    // ---------------------------------------------------------------- iteration

    /// `SugaredValue::iter`.
    pub fn sugared_iter(&mut self, span: Span, sv: &Sugared) -> R<Sugared> {
        match sv {
            Sugared::Simple(v) => {
                let t = self.g.ty(*v).clone();
                match t {
                    Type::List(_) | Type::Str | Type::Tensor(_) => Ok(sv.clone()),
                    Type::Dict(..) => Ok(Sugared::Simple(self.builtin_call(
                        span,
                        Symbol::aten("keys"),
                        &[*v],
                        &[],
                    )?)),
                    Type::Tuple(_) => Ok(Sugared::Tuple(
                        self.tuple_unpack(*v, span)
                            .into_iter()
                            .map(Sugared::Simple)
                            .collect(),
                    )),
                    // An nn.ModuleList: its modules, iterated unrolled.
                    Type::Class(_) => {
                        match self.module_list_items(span, *v) {
                            Some(items) => Ok(Sugared::Tuple(
                                items.into_iter().map(Sugared::Simple).collect(),
                            )),
                            None => Err(self
                                .err(span, format!("'{}' object is not iterable", t.repr_str()))),
                        }
                    }
                    other => Err(self.err(
                        span,
                        format!("'{}' object is not iterable", other.repr_str()),
                    )),
                }
            }
            Sugared::Range(_) | Sugared::IterableTree(_) | Sugared::Tuple(_) => Ok(sv.clone()),
            other => Err(self.err(span, format!("'{}' object is not iterable", other.kind()))),
        }
    }

    fn base_iterables(sv: &Sugared, out: &mut Vec<Sugared>) {
        match sv {
            Sugared::IterableTree(children) => {
                children.iter().for_each(|c| Self::base_iterables(c, out))
            }
            other => out.push(other.clone()),
        }
    }

    /// `SugaredValue::len`: the trip count of a loop over it.
    pub fn sugared_len(&mut self, span: Span, sv: &Sugared) -> R<Value> {
        match sv {
            Sugared::Simple(v) => {
                let t = self.g.ty(*v).clone();
                if matches!(t, Type::List(_) | Type::Str) || t.is_subtype_of(&Type::tensor()) {
                    self.builtin_call(span, Symbol::aten("len"), &[*v], &[])
                } else {
                    Err(self.err(span, format!("'{}' object is not iterable", t.repr_str())))
                }
            }
            Sugared::Range(r) => {
                if let Some(n) = r.static_len {
                    return Ok(self.insert_constant(ConstValue::Int(n), span));
                }
                if r.only_end {
                    return Ok(r.end);
                }
                self.builtin_call(
                    span,
                    Symbol::aten("__range_length"),
                    &[r.start, r.end, r.step],
                    &[],
                )
            }
            Sugared::IterableTree(_) => {
                let mut bases = Vec::new();
                Self::base_iterables(sv, &mut bases);
                let mut lens = Vec::new();
                for b in &bases {
                    lens.push(self.sugared_len(span, b)?);
                }
                let list = self.insert_list(Type::Int, &lens, span);
                self.builtin_call(span, Symbol::prim("min"), &[list], &[])
            }
            Sugared::Tuple(items) => {
                Ok(self.insert_constant(ConstValue::Int(items.len() as i64), span))
            }
            other => Err(self.err(span, format!("'{}' object is not iterable", other.kind()))),
        }
    }

    /// `SugaredValue::getitem`: element `idx` of an iteration source or container.
    pub fn sugared_getitem(
        &mut self,
        span: Span,
        sv: &Sugared,
        idx: Value,
        _hint: Option<&Type>,
    ) -> R<Sugared> {
        match sv {
            Sugared::Simple(v) => {
                let t = self.g.ty(*v).clone();
                match &t {
                    Type::List(_) | Type::Str | Type::Dict(..) => Ok(Sugared::Simple(
                        self.builtin_call(span, Symbol::aten("__getitem__"), &[*v, idx], &[])?,
                    )),
                    Type::Tensor(_) => {
                        let zero = self.insert_constant(ConstValue::Int(0), span);
                        Ok(Sugared::Simple(self.builtin_call(span, Symbol::aten("select"), &[*v, zero, idx], &[])?))
                    }
                    Type::Class(qual) => {
                        let qual = qual.clone();
                        Ok(Sugared::Simple(self.call_method(span, *v, &qual, "__getitem__", &[idx], &[])?))
                    }
                    _ => Err(self.err(span, format!("'{}' object is not subscriptable", t.repr_str()))),
                }
            }
            Sugared::Range(r) => {
                if r.only_end {
                    Ok(Sugared::Simple(idx))
                } else {
                    Ok(Sugared::Simple(self.builtin_call(span, Symbol::aten("__derive_index"), &[idx, r.start, r.step], &[])?))
                }
            }
            Sugared::IterableTree(children) => {
                let mut items = Vec::new();
                for c in children {
                    items.push(self.sugared_getitem(span, c, idx, None)?);
                }
                Ok(Sugared::Tuple(items))
            }
            Sugared::Tuple(items) => match self.constant_of(idx) {
                Some(ConstValue::Int(i)) => {
                    let n = items.len() as i64;
                    let j = if i < 0 { i + n } else { i };
                    items
                        .get(j as usize)
                        .cloned()
                        .ok_or_else(|| self.err(span, format!("Index {i} out of range of length {n}")))
                }
                _ => Err(self.err(span, "Expected integer literal for index but got a variable or non-integer. ModuleList/Sequential indexing is only supported with integer literals. For example, 'i = 4, self.layers[i](x)' will fail because i is not a literal. Enumeration is supported, e.g. 'for index, v in enumerate(self): out = v(inp)'")),
            },
            other => Err(self.err(span, format!("'{}' object is not subscriptable", other.kind()))),
        }
    }

    // ---------------------------------------------------------------- builtin calls

    /// `emitBuiltinCall` with positional values and keyword values; the outputs packed into
    /// one value.
    pub fn builtin_call(
        &mut self,
        span: Span,
        op: Symbol,
        args: &[Value],
        kwargs: &[(&str, Value)],
    ) -> R<Value> {
        let a = args.iter().map(|&v| NamedValue::new(v, span)).collect();
        let k = kwargs
            .iter()
            .map(|(n, v)| NamedValue::named(*n, *v, span))
            .collect();
        self.builtin_call_nv(span, op, a, k, None)
    }

    pub fn builtin_call_self(
        &mut self,
        span: Span,
        op: Symbol,
        self_v: Value,
        args: &[Value],
        kwargs: &[(&str, Value)],
    ) -> R<Value> {
        let a = args.iter().map(|&v| NamedValue::new(v, span)).collect();
        let k = kwargs
            .iter()
            .map(|(n, v)| NamedValue::named(*n, *v, span))
            .collect();
        self.builtin_call_nv(
            span,
            op,
            a,
            k,
            Some(NamedValue::named("self", self_v, span)),
        )
    }

    pub fn builtin_call_outputs(
        &mut self,
        span: Span,
        op: Symbol,
        args: &[Value],
        kwargs: &[(&str, Value)],
    ) -> R<Vec<Value>> {
        let a: Vec<NamedValue> = args.iter().map(|&v| NamedValue::new(v, span)).collect();
        let k: Vec<NamedValue> = kwargs
            .iter()
            .map(|(n, v)| NamedValue::named(*n, *v, span))
            .collect();
        let loc = self.cx.file.source_range(span);
        let call = schema_match::emit_builtin_call_at(&mut self.g, op, &a, &k, None, Some(&loc))
            .map_err(|m| self.err(span, m))?;
        Ok(call.outputs)
    }

    pub fn builtin_call_nv(
        &mut self,
        span: Span,
        op: Symbol,
        args: Vec<NamedValue>,
        kwargs: Vec<NamedValue>,
        self_v: Option<NamedValue>,
    ) -> R<Value> {
        let loc = self.cx.file.source_range(span);
        let call = schema_match::emit_builtin_call_at(
            &mut self.g,
            op,
            &args,
            &kwargs,
            self_v.as_ref(),
            Some(&loc),
        )
        .map_err(|m| self.err(span, m))?;
        if call.outputs.len() == 1 {
            return Ok(call.outputs[0]);
        }
        Ok(schema_match::pack_outputs(
            &mut self.g,
            &call.outputs,
            call.return_field_names,
        ))
    }

    /// `tryConvertToType`.
    pub fn try_convert_to_type(
        &mut self,
        span: Span,
        ty: &Type,
        v: Value,
        allow: bool,
    ) -> R<Value> {
        let loc = self.cx.file.source_range(span);
        schema_match::try_convert_to_type(&mut self.g, ty, v, allow, Some(&loc))
            .map_err(|m| self.err(span, m))
    }

    // ---------------------------------------------------------------- functions and methods

    /// A call of a function of the file: `prim::CallFunction` on its function constant.
    pub fn call_function(
        &mut self,
        span: Span,
        name: &str,
        args: Vec<NamedValue>,
        kwargs: Vec<NamedValue>,
    ) -> R<Value> {
        let (sig, f) = self.cx.ensure_function(name, span)?;
        self.call_compiled(span, &sig, &f, args, kwargs)
    }

    /// PyTorch's `PythonValue::call` of a dropped (`@torch.jit.unused`) free function: the
    /// arguments match the signature its annotations give (`getSchema`: no defaults, Tensor
    /// where unannotated, the return by the number of binders when nothing is annotated), then
    /// the call raises and stands for an uninitialized value of the return type.
    fn call_dropped_function(
        &mut self,
        span: Span,
        name: &str,
        args: Vec<NamedValue>,
        kwargs: Vec<NamedValue>,
        n_binders: usize,
    ) -> R<Value> {
        let Some(Global::Def(def)) = self.cx.globals.get(name).copied() else {
            return Err(self.err(span, format!("undefined value {name}")));
        };
        let annotated =
            def.return_type.is_some() || def.params.iter().any(|p| p.annotation.is_some());
        let mut params = Vec::new();
        for p in &def.params {
            let ty = match &p.annotation {
                Some(a) => self.cx.parse_type(a)?,
                None => Type::tensor(),
            };
            params.push(super::ParamSig {
                name: p.name.name.clone(),
                ty,
                n: None,
                default: None,
                kwarg_only: false,
            });
        }
        let ret = match &def.return_type {
            Some(r) => self.cx.parse_type(r)?,
            None if annotated => Type::tensor(),
            None => match n_binders {
                0 => Type::None,
                1 => Type::tensor(),
                n => Type::tuple(vec![Type::tensor(); n]),
            },
        };
        let mut schema = schema_of(name, &FnSig { params, ret }, None);
        schema.returns[0].name = "0".into();
        let m = schema_match::match_schema(&mut self.g, &schema, &args, &kwargs, None)
            .map_err(|e| self.err(span, e))?;
        let msg = self.insert_constant(
            ConstValue::Str(
                "This Python function is annotated to be ignored and cannot be run".into(),
            ),
            span,
        );
        self.builtin_call_outputs(span, Symbol::prim("RaiseException"), &[msg], &[])?;
        Ok(self.insert_uninitialized(m.return_types[0].clone()))
    }

    /// `prim::CallFunction` of a compiled function, its graph on the function constant.
    pub fn call_compiled(
        &mut self,
        span: Span,
        sig: &FnSig,
        f: &ember_runtime::unit::Function,
        args: Vec<NamedValue>,
        kwargs: Vec<NamedValue>,
    ) -> R<Value> {
        let name = f.qualname.as_str();
        let short = name.rsplit('.').next().unwrap_or(name);
        let schema = schema_of(short, sig, None);
        let (args, kwargs) = self.as_interface_args(span, sig, args, kwargs);
        let m = schema_match::match_schema(&mut self.g, &schema, &args, &kwargs, None)
            .map_err(|e| self.err(span, e))?;
        let short = name.rsplit('.').next().unwrap_or(name).to_string();
        let fc = self.emit_node(
            Symbol::prim("Constant"),
            &[],
            vec![Type::Function(name.to_string())],
            span,
        );
        self.g
            .set_attr(fc, Symbol::attr("name"), AttrValue::Str(short));
        self.g.set_attr(
            fc,
            Symbol::attr("Subgraph"),
            AttrValue::Graph(Box::new(f.graph.clone())),
        );
        let mut inputs = vec![self.g.output(fc, 0)];
        inputs.extend(m.inputs);
        let n = self.emit_node(
            Symbol::prim("CallFunction"),
            &inputs,
            vec![sig.ret.clone()],
            span,
        );
        Ok(self.g.output(n, 0))
    }

    pub fn call_method(
        &mut self,
        span: Span,
        obj: Value,
        class: &str,
        name: &str,
        args: &[Value],
        kwargs: &[(&str, Value)],
    ) -> R<Value> {
        let a = args.iter().map(|&v| NamedValue::new(v, span)).collect();
        let k = kwargs
            .iter()
            .map(|(n, v)| NamedValue::named(*n, *v, span))
            .collect();
        self.call_method_nv(span, obj, class, name, a, k)
    }

    /// `MethodValue::call`: `prim::CallMethod[name=...](self, args...)`.
    pub fn call_method_nv(
        &mut self,
        span: Span,
        obj: Value,
        class: &str,
        name: &str,
        args: Vec<NamedValue>,
        kwargs: Vec<NamedValue>,
    ) -> R<Value> {
        let sig = self.method_sig(span, class, name)?.ok_or_else(|| {
            self.err(
                span,
                format!(
                    "'{}' object has no attribute or method '{name}'.",
                    Type::Class(class.to_string()).repr_str()
                ),
            )
        })?;
        let self_type = match self.g.ty(obj) {
            t @ Type::Interface(_) => t.clone(),
            _ => Type::Class(class.to_string()),
        };
        let schema = schema_of(name, &sig, Some(self_type));
        let (args, kwargs) = self.as_interface_args(span, &sig, args, kwargs);
        let self_nv = NamedValue::named("self", obj, span);
        let m = schema_match::match_schema(&mut self.g, &schema, &args, &kwargs, Some(&self_nv))
            .map_err(|e| self.err(span, e))?;
        let n = self.emit_node(
            Symbol::prim("CallMethod"),
            &m.inputs,
            vec![sig.ret.clone()],
            span,
        );
        self.g
            .set_attr(n, Symbol::attr("name"), AttrValue::Str(name.to_string()));
        Ok(self.g.output(n, 0))
    }
}

impl FnEmitter<'_> {
    /// Whether values of type `t` are values of interface `iface`: objects of a class (or
    /// another interface) with every method the interface declares, as PyTorch's
    /// `ClassType::isSubtypeOfExt` decides (by method name; Ember does not compare schemas).
    pub fn implements_interface(&self, t: &Type, iface: &str) -> bool {
        let owner = match t {
            Type::Class(q) | Type::Interface(q) => q,
            _ => return false,
        };
        if owner == iface {
            return true;
        }
        let Some(declared) = self.interface_methods(iface) else {
            return false;
        };
        declared.iter().all(|m| self.class_has_method(owner, m))
    }

    fn interface_methods(&self, iface: &str) -> Option<Vec<String>> {
        let st = self.cx.state.borrow();
        if let Some(info) = st.classes.get(iface).filter(|c| c.is_interface) {
            return Some(info.methods.clone());
        }
        drop(st);
        let c = self.cx.unit.class(iface).filter(|c| c.is_interface)?;
        let methods = c.methods.read().unwrap_or_else(|e| e.into_inner());
        Some(methods.keys().cloned().collect())
    }

    /// Arguments of class type passed for interface parameters, cast to the interface
    /// (`prim::unchecked_cast`, which runs as nothing): the schema matcher's subtyping does
    /// not know which classes implement which interfaces.
    fn as_interface_args(
        &mut self,
        span: Span,
        sig: &FnSig,
        mut args: Vec<NamedValue>,
        mut kwargs: Vec<NamedValue>,
    ) -> (Vec<NamedValue>, Vec<NamedValue>) {
        let cast = |e: &mut Self, nv: &mut NamedValue, param: Option<&Type>| {
            let Some(Type::Interface(iface)) = param else {
                return;
            };
            let t = e.g.ty(nv.value).clone();
            if t != Type::Interface(iface.clone()) && e.implements_interface(&t, iface) {
                let n = e.emit_node(
                    Symbol::prim("unchecked_cast"),
                    &[nv.value],
                    vec![Type::Interface(iface.clone())],
                    span,
                );
                nv.value = e.g.output(n, 0);
            }
        };
        for (i, nv) in args.iter_mut().enumerate() {
            let param = sig.params.get(i).map(|p| p.ty.clone());
            cast(self, nv, param.as_ref());
        }
        for nv in kwargs.iter_mut() {
            let param = (nv.name.as_deref())
                .and_then(|n| sig.params.iter().find(|p| p.name == n))
                .map(|p| p.ty.clone());
            cast(self, nv, param.as_ref());
        }
        (args, kwargs)
    }
}

fn qual_of_enum(t: &Type) -> String {
    match t {
        Type::Enum(q) => q.clone(),
        _ => String::new(),
    }
}

/// The Python type name of a module-level value, for messages.
fn python_type_name(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Int(_) => "int",
        ExprKind::Float(_) => "float",
        ExprKind::Str(_) => "str",
        ExprKind::True | ExprKind::False => "bool",
        ExprKind::None => "NoneType",
        ExprKind::Tuple(_) => "tuple",
        ExprKind::List(_) | ExprKind::ListComp { .. } => "list",
        ExprKind::Dict(_) | ExprKind::DictComp { .. } => "dict",
        ExprKind::UnaryOp { operand, .. } => python_type_name(operand),
        _ => "object",
    }
}

fn wrap_magic(magic: Option<&'static str>, base: Sugared) -> Sugared {
    match magic {
        Some(m) => Sugared::Magic {
            magic: m,
            base: Box::new(base),
        },
        None => base,
    }
}

/// The element type and nesting depth of a (nested) list type, for `tolist`.
fn list_depth(t: &Type) -> (&Type, i64) {
    match t {
        Type::List(e) => {
            let (inner, d) = list_depth(e);
            (inner, d + 1)
        }
        other => (other, 0),
    }
}

/// A constant from its printed form (NamedTuple defaults are kept as text).
fn parse_printed_const(text: &str) -> ConstValue {
    if let Ok(i) = text.parse::<i64>() {
        return ConstValue::Int(i);
    }
    if let Ok(f) = text.parse::<f64>() {
        return ConstValue::Float(f);
    }
    match text {
        "True" => ConstValue::Bool(true),
        "False" => ConstValue::Bool(false),
        "None" => ConstValue::None,
        s => ConstValue::Str(s.trim_matches('"').trim_matches('\'').to_string()),
    }
}

/// A NamedTuple type is its constructor; an Enum type is the class of its members.
fn sugared_of_type(t: Type) -> Sugared {
    match t {
        Type::Enum(qual) => Sugared::Class(qual),
        t => Sugared::NamedTupleCtor(t),
    }
}
