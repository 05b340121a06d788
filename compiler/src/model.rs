//! One way in: a model opened once from a `.pt` archive, a TorchScript source file (`.py`) or
//! graph text (`.ir`), with its entry points (a module's methods, a file's functions, the one
//! graph), their graphs and default arguments, and the compilation unit their calls resolve
//! through. `ember-run`, `ember-opt`, `emberc`, the executor and the AOT compiler all open
//! models here; a tool's main only parses its flags.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::Arc;

use ember_dialects::schema::FunctionSchema;
use ember_dialects::Graph;
use ember_runtime::interpreter::MissingOperators;
use ember_runtime::ivalue::{IValue, Object};
use ember_runtime::ops::prim::const_to_ivalue;
use ember_runtime::unit::{CompilationUnit, Function};

use crate::frontend::{compile_with_schemas, NoResolver, SourceFile};
use crate::import::{load_module, LoadOptions};

/// What a model file holds.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// A TorchScript archive: a module with methods.
    Archive,
    /// TorchScript source: functions and classes.
    Source,
    /// Graph text: one graph.
    GraphText,
}

impl ModelKind {
    /// The kind a path's extension names.
    pub fn of_path(path: &str) -> Result<ModelKind, String> {
        match Path::new(path).extension().and_then(|e| e.to_str()) {
            Some("pt") => Ok(ModelKind::Archive),
            Some("py") => Ok(ModelKind::Source),
            Some("ir") => Ok(ModelKind::GraphText),
            Some(other) => Err(format!(
                "{path}: unknown model kind '.{other}': expected .pt, .py or .ir"
            )),
            None => Err(format!(
                "{path}: unknown model kind: expected .pt, .py or .ir"
            )),
        }
    }
}

/// How to open a model.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    /// Archive limits and `--allow-file-ops`.
    pub load: LoadOptions,
}

/// One callable entry point.
#[derive(Clone)]
pub struct Entry {
    /// The method's name (`forward`), the function's qualified name, or `forward` for graph
    /// text.
    pub name: String,
    pub function: Arc<Function>,
    /// Whether the graph's first input is the module (`self`).
    pub is_method: bool,
    /// The default of each input after `self` (when it has one).
    pub defaults: Vec<Option<IValue>>,
    /// The function's schema, when its source gave one (`--emit=code` prints it).
    pub schema: Option<FunctionSchema>,
}

impl Entry {
    pub fn graph(&self) -> &Graph {
        &self.function.graph
    }
}

/// An opened model.
pub struct Model {
    /// The path or name it was opened as (diagnostics use it).
    pub name: String,
    pub kind: ModelKind,
    pub unit: Arc<CompilationUnit>,
    /// The module of an archive, or the one a source file defines (constructed by running its
    /// `__init__`): the `self` of its methods.
    pub module: Option<Arc<Object>>,
    /// The entry points: an archive's root methods, a source file's top-level functions in
    /// definition order (then its module's methods), or the one graph.
    pub entries: Vec<Entry>,
    /// Every method of every class (an archive's, a source file's), root class first: what
    /// `ember-opt` runs passes over besides the entries.
    pub methods: Vec<Arc<Function>>,
    /// An archive's `extra/` files.
    pub extra: BTreeMap<String, Vec<u8>>,
    /// The source texts the graphs' source ranges point into, by file name (a `.py` file, an
    /// archive's `code/` records), for the source maps of archives written from the model.
    pub sources: BTreeMap<String, Arc<str>>,
    /// Source maps of those texts (an archive's `.debug_pkl`s), to reach the original Python.
    pub source_maps: BTreeMap<String, Arc<crate::import::source_map::SourceMap>>,
}

/// The bytes of the file at `path`, mapped rather than read: a model's archive is read once
/// (its storages are copied out), and reading a large one into a fresh buffer first cost
/// half of its load (page faults and a copy of every byte; vit_b_16's 330 MB).
pub fn read_mapped(path: &str) -> Result<memmap2::Mmap, String> {
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(format!("cannot read '{path}': it is a directory"));
    }
    // SAFETY: a read-only mapping that lives as long as the load that reads it; the model's
    // file is not expected to change while it is being opened (as for any reader).
    unsafe { memmap2::Mmap::map(&file) }.map_err(|e| format!("cannot read '{path}': {e}"))
}

impl Model {
    /// Opens the model at `path`, of the kind its extension names.
    pub fn open(path: &str, opts: &OpenOptions) -> Result<Model, String> {
        let kind = ModelKind::of_path(path)?;
        let bytes = read_mapped(path)?;
        Model::from_bytes(path, kind, &bytes, opts)
    }

    /// Opens a model of `kind` from its bytes; `name` names it in diagnostics.
    pub fn from_bytes(
        name: &str,
        kind: ModelKind,
        bytes: &[u8],
        opts: &OpenOptions,
    ) -> Result<Model, String> {
        let text = || {
            std::str::from_utf8(bytes)
                .map_err(|e| format!("{name}: input is not UTF-8 (byte {})", e.valid_up_to()))
        };
        let model = match kind {
            ModelKind::Archive => Model::from_archive(name, bytes, opts)?,
            ModelKind::Source => Model::from_source(name, text()?)?,
            ModelKind::GraphText => Model::from_graph_text(name, text()?)?,
        };
        // Lenient unless `strict`: a node Ember cannot run raises when a run reaches it (an
        // archive's unit is set so while loading, before `__setstate__` runs).
        model.unit.set_missing_operators(if opts.load.strict {
            MissingOperators::Refuse
        } else {
            MissingOperators::RaiseWhenRun
        });
        Ok(model)
    }

    fn from_archive(name: &str, bytes: &[u8], opts: &OpenOptions) -> Result<Model, String> {
        let module = load_module(bytes, &opts.load).map_err(|e| format!("{name}: {e}"))?;
        let class = module.object.class.clone();
        let methods = class.methods.read().unwrap_or_else(|e| e.into_inner());
        let entries = methods
            .iter()
            .map(|(method, f)| Entry {
                name: method.clone(),
                function: f.clone(),
                is_method: true,
                defaults: module.defaults.get(method).cloned().unwrap_or_default(),
                schema: None,
            })
            .collect();
        drop(methods);
        Ok(Model {
            name: name.to_string(),
            kind: ModelKind::Archive,
            methods: module.all_methods(),
            unit: module.unit.clone(),
            module: Some(module.object.clone()),
            entries,
            extra: module.extra,
            sources: module.sources,
            source_maps: module.source_maps,
        })
    }

    /// Compiles TorchScript source, every def and class; a file that defines an `nn.Module`
    /// has it constructed (construct.rs), the model's module.
    pub fn from_source(name: &str, text: &str) -> Result<Model, String> {
        Model::source(name, text, true)
    }

    /// Compiles TorchScript source without constructing its module: what `ember-opt` prints,
    /// `__init__` included, with nothing run.
    pub fn compile_source(name: &str, text: &str) -> Result<Model, String> {
        Model::source(name, text, false)
    }

    fn source(name: &str, text: &str, construct: bool) -> Result<Model, String> {
        let file = Arc::new(SourceFile::new(name, text));
        let unit = CompilationUnit::new();
        let mut schemas =
            compile_with_schemas(file.clone(), &unit, &NoResolver).map_err(|e| e.render(&file))?;
        let mut entries: Vec<Entry> = unit
            .functions()
            .into_iter()
            .map(|f| {
                let schema = schemas.remove(f.name());
                let defaults = schema.as_ref().map(source_defaults).unwrap_or_default();
                Entry {
                    name: f.qualname.clone(),
                    function: f,
                    is_method: false,
                    defaults,
                    schema,
                }
            })
            .collect();
        let mut methods = Vec::new();
        for c in unit.classes() {
            let ms = c.methods.read().unwrap_or_else(|e| e.into_inner());
            methods.extend(ms.values().cloned());
        }
        let unit = Arc::new(unit);
        let module = if construct {
            crate::construct::construct(&unit, &schemas, &mut entries, &mut methods)
                .map_err(|e| format!("{name}: {e}"))?
        } else {
            None
        };
        Ok(Model {
            name: name.to_string(),
            kind: ModelKind::Source,
            unit,
            module,
            entries,
            methods,
            extra: BTreeMap::new(),
            sources: BTreeMap::from([(name.to_string(), Arc::from(text))]),
            source_maps: BTreeMap::new(),
        })
    }

    /// Parses and verifies one graph.
    pub fn from_graph_text(name: &str, text: &str) -> Result<Model, String> {
        let graph = ember_dialects::parse::parse_graph(text).map_err(|d| d.render(name))?;
        Model::from_graph(name, graph)
    }

    /// A model of one graph built in memory (verified).
    pub fn from_graph(name: &str, graph: Graph) -> Result<Model, String> {
        if let Err(errors) = ember_dialects::verify::verify(&graph) {
            return Err(format!("{name}: invalid graph: {}", errors[0].message));
        }
        Ok(Model {
            name: name.to_string(),
            kind: ModelKind::GraphText,
            unit: Arc::new(CompilationUnit::new()),
            module: None,
            entries: vec![Entry {
                name: "forward".into(),
                // Tracebacks name a graph without a function `<graph>`.
                function: Arc::new(Function::new("<graph>", graph)),
                is_method: false,
                defaults: Vec::new(),
                schema: None,
            }],
            methods: Vec::new(),
            extra: BTreeMap::new(),
            sources: BTreeMap::new(),
            source_maps: BTreeMap::new(),
        })
    }

    /// The entry `name`, or the default one: `forward` of a module (an archive's, or the one
    /// a source file defines), the last function of a source file, the graph of graph text.
    pub fn entry(&self, name: Option<&str>) -> Result<&Entry, String> {
        match (self.kind, name) {
            (ModelKind::Archive, name) => {
                let name = name.unwrap_or("forward");
                self.entries.iter().find(|e| e.name == name).ok_or_else(|| {
                    let class = self
                        .module
                        .as_ref()
                        .map_or(String::new(), |m| m.class_name().to_string());
                    format!("{}: the module ({class}) has no method '{name}'", self.name)
                })
            }
            (ModelKind::Source, Some(name)) => self
                .entries
                .iter()
                .find(|e| e.name == name)
                .ok_or_else(|| match &self.module {
                    Some(m) => format!(
                        "{}: no function or method of the module ({}) named '{name}'",
                        self.name,
                        m.class_name()
                    ),
                    None => format!("{}: no function named '{name}'", self.name),
                }),
            // The module the file defines, when it defines one.
            (ModelKind::Source, None) if self.module.is_some() => self.entry(Some("forward")),
            (ModelKind::Source, None) => self
                .entries
                .last()
                .ok_or_else(|| format!("{}: the file defines no function", self.name)),
            (ModelKind::GraphText, None) => Ok(&self.entries[0]),
            (ModelKind::GraphText, Some(name)) if name == self.entries[0].name => {
                Ok(&self.entries[0])
            }
            (ModelKind::GraphText, Some(_)) => Err(format!(
                "{}: a .ir file holds one graph: there is no method or function to choose",
                self.name
            )),
        }
    }

    /// The inputs of a call of `entry`: the module first for a method, then `args`, then the
    /// defaults of the inputs left out (unchanged when one left out has no default: the call
    /// reports it).
    pub fn call_inputs(&self, entry: &Entry, mut args: Vec<IValue>) -> Vec<IValue> {
        let d = &entry.defaults;
        if args.len() < d.len() && d[args.len()..].iter().all(Option::is_some) {
            args.extend(d[args.len()..].iter().flatten().cloned());
        }
        match (&self.module, entry.is_method) {
            (Some(m), true) => {
                let mut inputs = vec![IValue::Object(m.clone())];
                inputs.extend(args);
                inputs
            }
            _ => args,
        }
    }
}

impl Model {
    /// Puts the module in eval mode, as `module.eval()` does: `training` false in it and in
    /// every module it holds.
    pub fn eval(&self) {
        fn set(object: &Arc<Object>) {
            let class = &object.class;
            if !class.is_module {
                return;
            }
            if let Some(i) = class.attribute_slot("training") {
                object.set_slot(i, IValue::Bool(false));
            }
            for i in 0..class.num_attributes() {
                if let Some(IValue::Object(sub)) = object.slot(i) {
                    set(&sub);
                }
            }
        }
        if let Some(m) = &self.module {
            set(m);
        }
    }

    /// Runs the optimization pipeline over every function and method, without inlining, so
    /// errors keep their TorchScript call stacks (what ember-run does to a model it does not
    /// freeze).
    pub fn optimize_graphs(&mut self, config: &crate::passes::PassConfig) -> Result<(), String> {
        use crate::passes::{lookup, OPTIMIZATION_PIPELINE};
        self.transform_graphs(&mut |_, g| {
            for &name in OPTIMIZATION_PIPELINE.iter().filter(|&&p| p != "inline") {
                let pass = lookup(name).expect("a pipeline pass");
                (pass.run)(g, &mut config.context_for(pass.name))?;
            }
            Ok(())
        })
    }

    /// Rewrites the graph of every function and method with `f` (given each one's qualified
    /// name), as passes do: a new function replaces each old one in the unit, its class and
    /// the entries. Call it before anything runs: code built already keeps the old graphs.
    pub fn transform_graphs(
        &mut self,
        f: &mut dyn FnMut(&str, &mut Graph) -> Result<(), String>,
    ) -> Result<(), String> {
        let mut replaced: HashMap<String, Arc<Function>> = HashMap::new();
        fn rewrite(
            old: &Arc<Function>,
            f: &mut dyn FnMut(&str, &mut Graph) -> Result<(), String>,
            replaced: &mut HashMap<String, Arc<Function>>,
        ) -> Result<Arc<Function>, String> {
            let mut graph = old.graph.clone();
            f(&old.qualname, &mut graph)?;
            let new = Arc::new(Function::new(old.qualname.clone(), graph));
            replaced.insert(old.qualname.clone(), new.clone());
            Ok(new)
        }
        for old in self.unit.functions() {
            let new = rewrite(&old, f, &mut replaced)?;
            self.unit.replace_function(new);
        }
        for class in self.unit.classes() {
            if class.is_interface {
                continue;
            }
            let methods: Vec<Arc<Function>> = class
                .methods
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .values()
                .cloned()
                .collect();
            for old in methods {
                let new = rewrite(&old, f, &mut replaced)?;
                class.add_method(new);
            }
        }
        for entry in &mut self.entries {
            entry.function = match replaced.get(&entry.function.qualname) {
                Some(new) => new.clone(),
                // Graph text: its graph is in no unit.
                None => rewrite(&entry.function, f, &mut replaced)?,
            };
        }
        for m in &mut self.methods {
            if let Some(new) = replaced.get(&m.qualname) {
                *m = new.clone();
            }
        }
        Ok(())
    }
}

/// The defaults of a source function's parameters (a method's after `self`), from its schema.
pub(crate) fn source_defaults(schema: &FunctionSchema) -> Vec<Option<IValue>> {
    schema
        .arguments
        .iter()
        .skip_while(|a| a.name == "self")
        .map(|a| a.default.as_ref().and_then(|c| const_to_ivalue(c).ok()))
        .collect()
}

/// Schemas of a source model's functions by qualified name (for `--emit=code`).
pub fn schemas_by_name(model: &Model) -> HashMap<String, FunctionSchema> {
    model
        .entries
        .iter()
        .filter_map(|e| e.schema.clone().map(|s| (e.name.clone(), s)))
        .collect()
}
