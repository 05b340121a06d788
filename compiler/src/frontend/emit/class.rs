//! Classes: TorchScript classes (attributes found in `__init__`, methods, `@property`),
//! `nn.Module` subclasses (methods through `self`), NamedTuples (tuple types with field
//! names) and Enums, as PyTorch's `CompilationUnit::define` for a class and the Python side of
//! `torch.jit.script` on a class describe them.

use std::sync::Arc;

use ember_dialects::attr::ConstValue;
use ember_dialects::symbol::sym;
use ember_dialects::types::{NamedTupleInfo, TupleType};
use ember_dialects::{AttrValue, Type, Value};
use ember_runtime::ivalue::IValue;
use ember_runtime::unit::{AttributeKind, ClassAttribute, ClassType, Function};

use super::types::{dotted_name, is_final};
use super::{ClassInfo, FnEmitter, FnSig, ModuleCx, R};
use crate::frontend::ast::{ClassDef, Def, Expr, ExprKind, StmtKind};
use crate::frontend::error::FrontendError;
use crate::frontend::span::Span;

enum ClassKind {
    Plain,
    Module,
    NamedTuple,
    Enum,
    /// `@torch.jit.interface` (archive code: a base `Interface` or `ModuleInterface`).
    Interface {
        module: bool,
    },
}

/// Whether a class is a NamedTuple, an Enum or an interface: types other classes' attributes
/// may name, so they are declared first.
pub(crate) fn is_type_like(c: &ClassDef) -> bool {
    matches!(
        class_kind(c),
        Ok(ClassKind::NamedTuple | ClassKind::Enum | ClassKind::Interface { .. })
    )
}

/// The base classes of an Enum: `Enum` itself, its subclasses, and the value types Python
/// lets an Enum mix in first (`class Format(str, Enum)`, as timm's Format).
const ENUM_BASES: &[&str] = &["Enum", "IntEnum", "StrEnum"];
const ENUM_MIXINS: &[&str] = &["str", "int", "float"];

fn class_kind(c: &ClassDef) -> R<ClassKind> {
    let last_name = |b: &Expr| {
        let name = dotted_name(b).unwrap_or_default();
        name.rsplit('.').next().unwrap_or("").to_string()
    };
    let is_enum = c
        .bases
        .iter()
        .any(|b| ENUM_BASES.contains(&last_name(b).as_str()));
    let mut kind = ClassKind::Plain;
    for b in &c.bases {
        let last = last_name(b);
        if is_enum && ENUM_MIXINS.contains(&last.as_str()) {
            continue;
        }
        kind = match last.as_str() {
            "object" => ClassKind::Plain,
            "Module" => ClassKind::Module,
            "NamedTuple" => ClassKind::NamedTuple,
            "Enum" | "IntEnum" | "StrEnum" => ClassKind::Enum,
            "Interface" => ClassKind::Interface { module: false },
            "ModuleInterface" => ClassKind::Interface { module: true },
            _ => {
                return Err(FrontendError::new(
                    b.span,
                    "TorchScript classes does not support inheritance yet. Please directly inherit from 'object'.",
                ))
            }
        };
    }
    let interface = c
        .decorators
        .iter()
        .any(|d| dotted_name(d).is_some_and(|n| n == "interface" || n.ends_with(".interface")));
    if interface {
        kind = ClassKind::Interface {
            module: matches!(
                kind,
                ClassKind::Module | ClassKind::Interface { module: true }
            ),
        };
    }
    Ok(kind)
}

/// The graph of an interface method: `self` and the parameters in, a value of the return
/// type out (`prim::Uninitialized`: a declaration has no body).
fn declaration_graph(qual: &str, sig: &FnSig) -> ember_dialects::Graph {
    use ember_dialects::{Graph, Symbol};
    let mut g = Graph::new();
    let this = g.add_input(Type::Interface(qual.to_string()));
    g.set_debug_name(this, "self");
    for p in &sig.params {
        let v = g.add_input(p.ty.clone());
        g.set_debug_name(v, &p.name);
    }
    let n = g.create(Symbol::prim("Uninitialized"), &[], 0);
    g.add_node_output(n, sig.ret.clone());
    g.insert_node(n);
    let out = g.output(n, 0);
    g.register_output(out);
    g
}

fn has_decorator(d: &Def, name: &str) -> bool {
    d.decorators.iter().any(|e| {
        let e = match &e.kind {
            ExprKind::Call { func, .. } => func.as_ref(),
            _ => e,
        };
        dotted_name(e).is_some_and(|n| n == name || n.ends_with(&format!(".{name}")))
    })
}

fn methods_of(c: &ClassDef) -> impl Iterator<Item = &Def> {
    c.body.iter().filter_map(|s| match &s.kind {
        StmtKind::Def(d) => Some(d),
        _ => None,
    })
}

impl ModuleCx<'_> {
    /// Registers a class's name, kind, fields and method names before any code is compiled.
    pub fn declare_class(&self, c: &ClassDef) -> R<()> {
        let qual = format!("{}.{}", self.prefix, c.name.name);
        let kind = class_kind(c)?;
        let mut info = ClassInfo::default();
        match kind {
            ClassKind::NamedTuple => {
                let mut fields = Vec::new();
                let mut elements = Vec::new();
                let mut defaults = Vec::new();
                for s in &c.body {
                    if let StmtKind::Assign {
                        targets,
                        annotation: Some(a),
                        value,
                    } = &s.kind
                    {
                        if let [t] = targets.as_slice() {
                            if let ExprKind::Name(n) = &t.kind {
                                fields.push(n.clone());
                                elements.push(self.parse_type(a)?);
                                defaults.push(
                                    value.as_ref().map(|v| self.file.slice(v.span).to_string()),
                                );
                            }
                        }
                    }
                }
                let ty = Type::Tuple(TupleType {
                    elements,
                    names: Some(NamedTupleInfo {
                        qualified_name: qual.clone(),
                        fields,
                        defaults,
                    }),
                });
                // Code read back against the unit names the type (`__torch__.Point(a, b)`).
                self.unit.add_named_type(qual.clone(), ty.clone());
                info.named_tuple = Some(ty);
            }
            ClassKind::Enum => {
                let mut members = Vec::new();
                for s in &c.body {
                    if let StmtKind::Assign {
                        targets,
                        value: Some(v),
                        ..
                    } = &s.kind
                    {
                        if let [t] = targets.as_slice() {
                            if let ExprKind::Name(n) = &t.kind {
                                let val = self.literal_value(v).ok_or_else(|| {
                                    FrontendError::new(
                                        v.span,
                                        "Enum values must be int, float or str literals",
                                    )
                                })?;
                                if !matches!(
                                    val,
                                    ConstValue::Int(_)
                                        | ConstValue::Bool(_)
                                        | ConstValue::Float(_)
                                        | ConstValue::Str(_)
                                ) {
                                    return Err(FrontendError::new(
                                        v.span,
                                        "Cannot create Enum with value type 'Any', only int, float and string are supported",
                                    ));
                                }
                                members.push((n.clone(), val));
                            }
                        }
                    }
                }
                // The unit holds the members as the class's constants: the interpreter reads
                // an enum constant (`prim::Constant[value=__torch__.Color.RED]`) from them.
                let class = ClassType::new(qual.clone(), false);
                for (name, value) in &members {
                    if let Ok(v) = ember_runtime::ops::prim::const_to_ivalue(value) {
                        class.add_constant(name.clone(), v);
                    }
                }
                if self.unit.class(&qual).is_none() {
                    self.unit.add_class(class);
                }
                self.unit
                    .add_named_type(qual.clone(), Type::Enum(qual.clone()));
                info.enum_members = Some(members);
            }
            ClassKind::Interface { module } => {
                // Methods are declarations: their signatures, and a graph of that signature
                // in the unit so other files (and isinstance) see them.
                info.is_module = module;
                info.is_interface = true;
                let class = ClassType::interface(qual.clone(), module);
                for d in methods_of(c) {
                    let (sig, _) = self.signature(d, true)?;
                    let name = d.name.name.clone();
                    let graph = declaration_graph(&qual, &sig);
                    class.add_method(Arc::new(Function::new(format!("{qual}.{name}"), graph)));
                    info.sigs.insert(name.clone(), sig);
                    info.methods.push(name);
                }
                if self.unit.class(&qual).is_none_or(|c| !c.is_interface) {
                    self.unit.add_class(class);
                }
            }
            ClassKind::Plain | ClassKind::Module => {
                info.is_module = matches!(kind, ClassKind::Module);
                for d in methods_of(c) {
                    if super::module::is_ignored(&d.decorators) {
                        continue;
                    }
                    if has_decorator(d, "staticmethod") {
                        info.static_methods.push(d.name.name.clone());
                    } else if has_decorator(d, "property") {
                        info.properties.push(d.name.name.clone());
                    } else if has_decorator(d, "setter") {
                        continue;
                    } else {
                        info.methods.push(d.name.name.clone());
                    }
                }
                let class = ClassType::new(qual.clone(), info.is_module);
                // Archive code declares attributes in the class body: `weight : Tensor`,
                // with `__parameters__`/`__buffers__` naming their kinds.
                let names_in = |list: &str| -> Vec<String> {
                    c.body
                        .iter()
                        .filter_map(|s| match &s.kind {
                            StmtKind::Assign {
                                targets,
                                value: Some(v),
                                ..
                            } if matches!(targets.as_slice(), [t] if matches!(&t.kind, ExprKind::Name(n) if n == list)) => {
                                match &v.kind {
                                    ExprKind::List(items) => Some(
                                        items
                                            .iter()
                                            .filter_map(|i| match &i.kind {
                                                ExprKind::Str(s) => Some(s.clone()),
                                                _ => None,
                                            })
                                            .collect::<Vec<_>>(),
                                    ),
                                    _ => None,
                                }
                            }
                            _ => None,
                        })
                        .flatten()
                        .collect()
                };
                let parameters = names_in("__parameters__");
                let buffers = names_in("__buffers__");
                for s in &c.body {
                    if let StmtKind::Assign {
                        targets,
                        annotation: Some(a),
                        value: None,
                    } = &s.kind
                    {
                        if let [t] = targets.as_slice() {
                            if let ExprKind::Name(n) = &t.kind {
                                let kind = if parameters.contains(n) {
                                    AttributeKind::Parameter
                                } else if buffers.contains(n) {
                                    AttributeKind::Buffer
                                } else {
                                    AttributeKind::Regular
                                };
                                class.add_attribute(ClassAttribute {
                                    name: n.clone(),
                                    ty: self.parse_type(a)?,
                                    kind,
                                });
                            }
                        }
                    }
                }
                // Attributes whose names are not identifiers (a ModuleList's "0") are
                // declared as `__annotations__["0"] = T`.
                for s in &c.body {
                    if let StmtKind::Assign {
                        targets,
                        value: Some(v),
                        annotation: None,
                    } = &s.kind
                    {
                        if let Some(n) = targets.first().and_then(annotations_key) {
                            let kind = if parameters.contains(&n) {
                                AttributeKind::Parameter
                            } else if buffers.contains(&n) {
                                AttributeKind::Buffer
                            } else {
                                AttributeKind::Regular
                            };
                            class.add_attribute(ClassAttribute {
                                name: n,
                                ty: self.parse_type(v)?,
                                kind,
                            });
                        }
                    }
                }
                // Class-level `x: Final[T] = v` and `x: T = v` of modules are constants.
                for s in &c.body {
                    if let StmtKind::Assign {
                        targets,
                        annotation,
                        value,
                    } = &s.kind
                    {
                        if let ([t], Some(v)) = (targets.as_slice(), value) {
                            if let ExprKind::Name(n) = &t.kind {
                                let constant = annotation.as_ref().is_some_and(is_final)
                                    || (info.is_module && annotation.is_none());
                                if constant {
                                    if let Some(cv) = self.literal_value(v) {
                                        info.constants.insert(n.clone(), cv);
                                    }
                                }
                            }
                        }
                    }
                }
                self.unit.add_class(class);
            }
        }
        self.state.borrow_mut().classes.insert(qual, info);
        Ok(())
    }

    pub fn is_static_method(&self, qual: &str, name: &str) -> bool {
        self.state
            .borrow()
            .classes
            .get(qual)
            .is_some_and(|c| c.static_methods.iter().any(|m| m == name))
    }

    /// The type of an enum's values (they are all of one type).
    pub fn enum_value_type(&self, qual: &str) -> Type {
        let first = self.enum_members(qual).and_then(|m| {
            m.first()
                .map(|(_, v)| ember_dialects::schema::const_type(v))
        });
        first.unwrap_or(Type::Any)
    }

    /// The members of enum `qual`: the file's own, or, for an enum of the unit that code read
    /// back against it names (`__torch__.Color.RED`), the class's constants.
    pub fn enum_members(&self, qual: &str) -> Option<Vec<(String, ConstValue)>> {
        let local = self
            .state
            .borrow()
            .classes
            .get(qual)
            .map(|c| c.enum_members.clone());
        if let Some(members) = local {
            return members;
        }
        if !matches!(self.unit.named_type(qual), Some(Type::Enum(_))) {
            return None;
        }
        let class = self.unit.class(qual)?;
        let constants = class.constants.read().unwrap_or_else(|e| e.into_inner());
        let members = constants.iter().filter_map(|(name, v)| {
            let value = match v {
                IValue::Int(i) => ConstValue::Int(*i),
                IValue::Double(f) => ConstValue::Float(*f),
                IValue::Str(s) => ConstValue::Str(s.to_string()),
                _ => return None,
            };
            Some((name.clone(), value))
        });
        Some(members.collect())
    }

    /// The def of static method `name` of class `qual`.
    pub fn static_method_def(&self, qual: &str, name: &str) -> Option<&Def> {
        let c = self.class_def(qual)?;
        methods_of(c).find(|d| d.name.name == name && has_decorator(d, "staticmethod"))
    }

    pub fn is_module_class(&self, c: &ClassDef) -> bool {
        let qual = format!("{}.{}", self.prefix, c.name.name);
        self.state
            .borrow()
            .classes
            .get(&qual)
            .is_some_and(|i| i.is_module)
    }

    /// Compiles the methods of a class, `__init__` first (it decides the attributes).
    pub fn compile_class(&self, c: &ClassDef) -> R<()> {
        let qual = format!("{}.{}", self.prefix, c.name.name);
        let methods = match self.state.borrow().classes.get(&qual) {
            Some(info) if info.named_tuple.is_none() && info.enum_members.is_none() => {
                let mut m = info.methods.clone();
                m.extend(info.properties.iter().map(|p| format!("__{p}_getter")));
                m
            }
            _ => return Ok(()),
        };
        if methods.iter().any(|m| m == "__init__") {
            self.ensure_method(&qual, "__init__", c.name.span)?;
        }
        for m in &methods {
            self.ensure_method(&qual, m, c.name.span)?;
        }
        Ok(())
    }

    fn class_def(&self, qual: &str) -> Option<&ClassDef> {
        let local = qual.strip_prefix(self.prefix.as_str())?.strip_prefix('.')?;
        match self.globals.get(local) {
            Some(super::Global::Class(c)) => Some(c),
            _ => None,
        }
    }

    /// The signature of method `name` of class `qual`, compiling it first if needed; `None`
    /// if the class has no such method.
    pub fn ensure_method(&self, qual: &str, name: &str, span: Span) -> R<Option<FnSig>> {
        if let Some(sig) = self
            .state
            .borrow()
            .classes
            .get(qual)
            .and_then(|c| c.sigs.get(name).cloned())
        {
            return Ok(Some(sig));
        }
        let Some(c) = self.class_def(qual) else {
            return Ok(None);
        };
        // A property's getter is the method `__<name>_getter`, as PyTorch names it.
        let property = name
            .strip_prefix("__")
            .and_then(|n| n.strip_suffix("_getter"))
            .filter(|p| {
                self.state
                    .borrow()
                    .classes
                    .get(qual)
                    .is_some_and(|c| c.properties.iter().any(|x| x == p))
            });
        let found = match property {
            Some(p) => methods_of(c).find(|d| d.name.name == p && has_decorator(d, "property")),
            None => methods_of(c).find(|d| {
                d.name.name == name
                    && !has_decorator(d, "setter")
                    && !has_decorator(d, "property")
                    && !has_decorator(d, "staticmethod")
            }),
        };
        let Some(def) = found else {
            return Ok(None);
        };
        if super::module::is_ignored(&def.decorators) {
            return Ok(None);
        }
        let key = format!("{qual}.{name}");
        if self.state.borrow().in_progress.contains(&key) {
            return Err(FrontendError::new(
                span,
                format!("method '{name}' is called recursively. Recursive calls are not supported"),
            ));
        }
        if has_decorator(def, "staticmethod") || has_decorator(def, "classmethod") {
            return Err(FrontendError::new(
                def.span,
                "static and class methods are not supported yet",
            ));
        }
        self.state.borrow_mut().in_progress.push(key.clone());
        let result = self.compile_def(def, Some(qual.to_string()));
        self.state.borrow_mut().in_progress.pop();
        let (sig, graph) = result?;
        if let Some(info) = self.state.borrow_mut().classes.get_mut(qual) {
            info.sigs.insert(name.to_string(), sig.clone());
        }
        if let Some(class) = self.unit.class(qual) {
            class.add_method(Arc::new(Function::new(key, graph)));
        }
        Ok(Some(sig))
    }
}

impl FnEmitter<'_> {
    /// The value of `v` when it is a member of enum `qual` made by a constant
    /// (`prim::Constant[value=__torch__.Color.RED]`).
    pub fn enum_constant_value(&self, v: Value, qual: &str) -> Option<ConstValue> {
        let p = self.g.producer(v);
        if self.g.kind(p) != sym::constant() {
            return None;
        }
        let Some(AttrValue::IValue(ConstValue::Opaque(member))) = self.g.attr(p, sym::attr_value())
        else {
            return None;
        };
        let name = member.strip_prefix(qual)?.strip_prefix('.')?;
        let members = self.cx.enum_members(qual)?;
        members.into_iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    fn class_info<T>(&self, qual: &str, f: impl FnOnce(&ClassInfo) -> T) -> Option<T> {
        self.cx.state.borrow().classes.get(qual).map(f)
    }

    fn unit_class(&self, qual: &str) -> Option<Arc<ClassType>> {
        self.cx.unit.class(qual)
    }

    pub fn class_has_method(&self, qual: &str, name: &str) -> bool {
        self.class_info(qual, |c| c.methods.iter().any(|m| m == name))
            .unwrap_or_else(|| {
                self.unit_class(qual)
                    .is_some_and(|c| c.method(name).is_some())
            })
    }

    pub fn class_has_property(&self, qual: &str, name: &str) -> bool {
        self.class_info(qual, |c| c.properties.iter().any(|m| m == name))
            .unwrap_or(false)
    }

    pub fn class_attribute(&self, qual: &str, name: &str) -> Option<Type> {
        self.unit_class(qual)?.attribute(name).map(|a| a.ty)
    }

    pub fn class_constant(&self, qual: &str, name: &str) -> Option<ConstValue> {
        self.class_info(qual, |c| c.constants.get(name).cloned())
            .flatten()
    }

    pub fn add_class_attribute(&self, qual: &str, name: &str, ty: Type) {
        if let Some(c) = self.unit_class(qual) {
            c.add_attribute(ClassAttribute {
                name: name.to_string(),
                ty,
                kind: AttributeKind::Regular,
            });
        }
    }

    /// Makes attribute `name` of class `qual` a parameter or buffer.
    pub fn set_attribute_kind(&self, qual: &str, name: &str, kind: AttributeKind) {
        if let Some(c) = self.unit_class(qual) {
            c.set_attribute_kind(name, kind);
        }
    }

    /// Whether this is `__init__` of `qual` and `obj` its `self`.
    pub fn is_initializing(&self, qual: &str, obj: ember_dialects::Value) -> bool {
        self.method_name.as_deref() == Some("__init__")
            && self.self_class.as_deref() == Some(qual)
            && self.g.inputs().first().map(|&i| self.g.ty(i)) == Some(self.g.ty(obj))
    }

    /// Whether this is the `__init__` of a module class.
    pub fn in_module_init(&self) -> bool {
        self.method_name.as_deref() == Some("__init__")
            && self
                .self_class
                .as_deref()
                .is_some_and(|q| self.class_info(q, |c| c.is_module) == Some(true))
    }

    /// The signature of a method (compiled on demand); `span` is the use, for errors.
    pub fn method_sig(&self, span: Span, qual: &str, name: &str) -> R<Option<FnSig>> {
        if let Some(sig) = self.cx.ensure_method(qual, name, span)? {
            return Ok(Some(sig));
        }
        // Classes of an archive: the signature from the compiled graph.
        if let Some(f) = self.unit_class(qual).and_then(|c| c.method(name)) {
            return Ok(Some(super::module::signature_of_graph(&f.graph, 1)));
        }
        Ok(None)
    }
}

/// The attribute name of an archive's `__annotations__["name"]` assignment target.
fn annotations_key(t: &Expr) -> Option<String> {
    let ExprKind::Subscript { value, indices } = &t.kind else {
        return None;
    };
    match (&value.kind, indices.as_slice()) {
        (ExprKind::Name(n), [i]) if n == "__annotations__" => match &i.kind {
            ExprKind::Str(s) => Some(s.clone()),
            _ => None,
        },
        _ => None,
    }
}
