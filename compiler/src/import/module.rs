//! Rebuilding a TorchScript module from an archive (PyTorch's `ScriptModuleDeserializer` in
//! torch/csrc/jit/serialization/import.cpp): the code/ folder compiled into a compilation unit
//! by the [`SourceImporter`], then the objects of `data.pkl` rebuilt into instances of those
//! classes — attribute slots in the class's order, tensors from data/, submodules, containers,
//! enums — calling a compiled `__setstate__` where the class has one. Before any object is
//! built, the code is checked for operators that reach the file system, the network or other
//! processes; they are refused unless [`LoadOptions::allow_file_ops`] is set.

use std::collections::HashMap;
use std::sync::Arc;

use ember_dialects::attr::AttrValue;
use ember_dialects::Graph;
use ember_runtime::interpreter::{call_method, MissingOperators, RuntimeError};
use ember_runtime::ivalue::{Dict, EnumValue, IValue, List, Object};
use ember_runtime::unit::{CompilationUnit, Function};

use super::archive::{read_archive, Archive};
use super::error::ImportError;
use super::limits::Limits;
use super::pickle::PickledObject;
use super::source_importer::SourceImporter;

/// Operators that touch files, processes or the network: refused at load time by default.
pub const FILE_OPS: &[&str] = &[
    "aten::save",
    "aten::from_file",
    "image::read_file",
    "image::write_file",
    "prim::rpc_async",
    "prim::rpc_sync",
    "prim::rpc_remote",
    "aten::to_here",
    "aten::local_value",
    "aten::owner",
    "aten::owner_name",
    "aten::confirmed_by_owner",
];

/// How to load an archive.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    pub limits: Limits,
    /// Accept code that calls [`FILE_OPS`] (`ember-run --allow-file-ops`).
    pub allow_file_ops: bool,
    /// Refuse code with a node Ember cannot run when that code is built (`--strict`); by
    /// default such a node raises its error only when a run reaches it.
    pub strict: bool,
}

/// A loaded module: its root object and the unit its classes and methods live in.
pub struct Module {
    pub object: Arc<Object>,
    pub unit: Arc<CompilationUnit>,
    /// The archive's `extra/` files.
    pub extra: std::collections::BTreeMap<String, Vec<u8>>,
    /// The root class's methods' literal default arguments (after `self`).
    pub defaults: HashMap<String, Vec<Option<IValue>>>,
    /// The `code/` files' texts by record path (`code/__torch__.py`): what the graphs' source
    /// ranges point into.
    pub sources: std::collections::BTreeMap<String, std::sync::Arc<str>>,
    /// The `code/` files' source maps (`.debug_pkl`), by record path, where the archive has
    /// them: from the generated code back to the original Python.
    pub source_maps:
        std::collections::BTreeMap<String, std::sync::Arc<super::source_map::SourceMap>>,
}

impl Module {
    /// Method `name` of the root module.
    pub fn method(&self, name: &str) -> Option<Arc<Function>> {
        self.object.class.method(name)
    }

    /// Runs method `name` of the root module on `args` (without `self`); trailing arguments
    /// left out take the method's defaults.
    pub fn run_method(&self, name: &str, args: Vec<IValue>) -> Result<Vec<IValue>, RuntimeError> {
        let args = self.with_defaults(name, args);
        call_method(&self.object, name, args, Some(&self.unit))
    }

    /// `args` completed with the defaults of method `name`'s later parameters, when every one
    /// left out has a default (otherwise unchanged, for the call to report).
    pub fn with_defaults(&self, name: &str, mut args: Vec<IValue>) -> Vec<IValue> {
        if let Some(defaults) = self.defaults.get(name) {
            if args.len() < defaults.len() && defaults[args.len()..].iter().all(Option::is_some) {
                args.extend(defaults[args.len()..].iter().flatten().cloned());
            }
        }
        args
    }

    /// `forward`.
    pub fn forward(&self, args: Vec<IValue>) -> Result<Vec<IValue>, RuntimeError> {
        self.run_method("forward", args)
    }

    /// Every method of every class of the unit, root class first (interfaces, whose
    /// methods are declarations, left out).
    pub fn all_methods(&self) -> Vec<Arc<Function>> {
        let mut classes = self.unit.classes();
        classes.retain(|c| !c.is_interface);
        classes.sort_by_key(|c| !Arc::ptr_eq(c, &self.object.class));
        let mut out: Vec<Arc<Function>> = Vec::new();
        for c in classes {
            let methods = c.methods.read().unwrap_or_else(|e| e.into_inner());
            out.extend(methods.values().cloned());
        }
        out
    }
}

/// Loads a `.pt` archive.
pub fn load_module(bytes: &[u8], opts: &LoadOptions) -> Result<Module, ImportError> {
    let archive = read_archive(bytes, &opts.limits)?;
    let unit = Arc::new(CompilationUnit::new());
    unit.set_missing_operators(if opts.strict {
        MissingOperators::Refuse
    } else {
        MissingOperators::RaiseWhenRun
    });
    {
        let importer = SourceImporter::new(&archive, &unit);
        let root = PickledObject::from_ivalue(&archive.data).ok_or_else(|| {
            ImportError::in_record(
                "data.pkl",
                format!(
                    "the root is a {}, not a module object",
                    archive.data.kind_name()
                ),
            )
        })?;
        // Every class the data names, then the rest of code/: all code is compiled and
        // checked before any object is built (`__setstate__` is the only code loading runs).
        let mut names = Vec::new();
        class_names(&archive.data, &mut names, 0);
        for n in &names {
            importer.load_class(n)?;
        }
        importer.load_class(&root.class)?;
        importer.import_all()?;
        if !opts.allow_file_ops {
            refuse_file_ops(&unit)?;
        }
    }
    let mut builder = Builder {
        archive: &archive,
        unit: &unit,
        built: HashMap::new(),
    };
    let object = match builder.rebuild(&archive.data, 0)? {
        IValue::Object(o) => o,
        _ => {
            return Err(ImportError::in_record(
                "data.pkl",
                "the root is not an object",
            ))
        }
    };
    let defaults = super::defaults::method_defaults(&archive, object.class_name());
    let sources = archive
        .code
        .iter()
        .map(|(path, file)| (path.clone(), std::sync::Arc::from(file.text.as_str())))
        .collect();
    let source_maps = archive
        .code
        .iter()
        .filter_map(|(path, file)| {
            let map = file.source_map.clone()?;
            Some((path.clone(), std::sync::Arc::new(map)))
        })
        .collect();
    Ok(Module {
        object,
        unit,
        extra: archive.extra,
        defaults,
        sources,
        source_maps,
    })
}

/// Nesting beyond which data.pkl is refused (the unpickler caps it already; this keeps the
/// walks here from trusting that).
const MAX_DEPTH: usize = 1000;

fn class_names(v: &IValue, out: &mut Vec<String>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    match v {
        IValue::Object(_) => {
            if let Some(p) = PickledObject::from_ivalue(v) {
                if !out.contains(&p.class) {
                    out.push(p.class.clone());
                }
                class_names(&p.state, out, depth + 1);
            }
        }
        IValue::List(l) => l
            .to_vec()
            .iter()
            .for_each(|x| class_names(x, out, depth + 1)),
        IValue::Tuple(t) => t.iter().for_each(|x| class_names(x, out, depth + 1)),
        IValue::Dict(d) => d
            .items()
            .iter()
            .for_each(|(_, x)| class_names(x, out, depth + 1)),
        IValue::Enum(e) => {
            if !out.contains(&e.class_name) {
                out.push(e.class_name.clone());
            }
        }
        _ => {}
    }
}

/// Refuses code that calls a [`FILE_OPS`] operator, naming the op and where it is called.
fn refuse_file_ops(unit: &CompilationUnit) -> Result<(), ImportError> {
    let mut functions = unit.functions();
    for c in unit.classes() {
        let methods = c.methods.read().unwrap_or_else(|e| e.into_inner());
        functions.extend(methods.values().cloned());
    }
    for f in functions {
        check_graph(&f.graph, &f.qualname)?;
    }
    Ok(())
}

fn check_graph(g: &Graph, qualname: &str) -> Result<(), ImportError> {
    for n in g.nodes() {
        let kind = g.kind(n);
        let name = kind.to_string();
        if FILE_OPS.contains(&name.as_str()) {
            let at = g
                .source_range(n)
                // Graph ranges count columns from 0, diagnostics from 1.
                .map(|r| format!("{}:{}:{}: ", r.file, r.line, r.col + 1))
                .unwrap_or_default();
            return Err(ImportError::new(format!(
                "{at}{qualname} calls {name}, an operator that reaches outside the model (files, processes or the network); load with --allow-file-ops to accept it"
            )));
        }
        for (_, a) in g.attrs(n) {
            if let AttrValue::Graph(sub) = a {
                check_graph(sub, qualname)?;
            }
        }
    }
    Ok(())
}

/// Enum values are ints, floats or strs.
fn same_enum_value(a: &IValue, b: &IValue) -> bool {
    match (a, b) {
        (IValue::Int(x), IValue::Int(y)) => x == y,
        (IValue::Double(x), IValue::Double(y)) => x == y,
        (IValue::Str(x), IValue::Str(y)) => x == y,
        _ => false,
    }
}

/// Rebuilds the unpickler's provisional objects into instances of the compiled classes.
struct Builder<'a> {
    archive: &'a Archive,
    unit: &'a Arc<CompilationUnit>,
    /// Objects already rebuilt, by the provisional object's address: an object pickled once
    /// and referenced twice stays one object.
    built: HashMap<usize, Arc<Object>>,
}

impl Builder<'_> {
    fn rebuild(&mut self, v: &IValue, depth: usize) -> Result<IValue, ImportError> {
        if depth > MAX_DEPTH {
            return Err(ImportError::in_record("data.pkl", "values nest too deeply"));
        }
        Ok(match v {
            IValue::Object(o) => IValue::Object(self.rebuild_object(o, depth)?),
            IValue::List(l) => {
                let items = l
                    .to_vec()
                    .iter()
                    .map(|x| self.rebuild(x, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?;
                IValue::List(List::new(items))
            }
            IValue::Tuple(t) => IValue::tuple(
                t.iter()
                    .map(|x| self.rebuild(x, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            IValue::Dict(d) => {
                let out = Dict::default();
                for (k, x) in d.items() {
                    out.insert(k, self.rebuild(&x, depth + 1)?);
                }
                IValue::Dict(out)
            }
            IValue::Enum(e) => IValue::Enum(Arc::new(self.rebuild_enum(e)?)),
            other => other.clone(),
        })
    }

    /// An enum is pickled as its class and value; as PyTorch's unpickler does, the member is
    /// the one of the compiled class with that value.
    fn rebuild_enum(&mut self, e: &EnumValue) -> Result<EnumValue, ImportError> {
        let importer = SourceImporter::new(self.archive, self.unit);
        let class = importer.load_class(&e.class_name)?;
        let constants = class.constants.read().unwrap_or_else(|p| p.into_inner());
        let member = constants
            .iter()
            .find(|(_, v)| same_enum_value(v, &e.value))
            .ok_or_else(|| {
                ImportError::in_record(
                    "data.pkl",
                    match &e.value {
                        v @ (IValue::Int(_) | IValue::Double(_) | IValue::Str(_)) => {
                            format!("{v:?} is not a value of enum '{}'", e.class_name)
                        }
                        v => format!(
                            "a {} is not a value of enum '{}'",
                            v.kind_name(),
                            e.class_name
                        ),
                    },
                )
            })?;
        Ok(EnumValue {
            class_name: e.class_name.clone(),
            name: member.0.clone(),
            value: member.1.clone(),
        })
    }

    fn rebuild_object(
        &mut self,
        o: &Arc<Object>,
        depth: usize,
    ) -> Result<Arc<Object>, ImportError> {
        let key = Arc::as_ptr(o) as usize;
        if let Some(done) = self.built.get(&key) {
            return Ok(done.clone());
        }
        let p = PickledObject::from_ivalue(&IValue::Object(o.clone())).ok_or_else(|| {
            ImportError::in_record(
                "data.pkl",
                format!("object of class '{}' has no pickled state", o.class_name()),
            )
        })?;
        let importer = SourceImporter::new(self.archive, self.unit);
        let class = importer.load_class(&p.class)?;
        let obj = class.instantiate();
        let state = self.rebuild(&p.state, depth + 1)?;
        if class.method("__setstate__").is_some() {
            call_method(&obj, "__setstate__", vec![state], Some(self.unit)).map_err(|e| {
                ImportError::in_record(
                    "data.pkl",
                    format!("{}.__setstate__ failed: {}", p.class, e.message),
                )
            })?;
        } else {
            let IValue::Dict(fields) = &state else {
                return Err(ImportError::in_record(
                    "data.pkl",
                    format!(
                        "the state of a '{}' object is a {}, not a dict of its attributes",
                        p.class,
                        state.kind_name()
                    ),
                ));
            };
            for (k, x) in fields.items() {
                let IValue::Str(name) = k.to_ivalue() else {
                    return Err(ImportError::in_record(
                        "data.pkl",
                        format!(
                            "the state of a '{}' object has a key that is not a str",
                            p.class
                        ),
                    ));
                };
                if !obj.set_attr(&name, x) {
                    return Err(ImportError::in_record(
                        "data.pkl",
                        format!("class '{}' has no attribute '{name}'", p.class),
                    ));
                }
            }
        }
        self.built.insert(key, obj.clone());
        Ok(obj)
    }
}
