//! A whole source file: imports, module constants, classes and defs, compiled into a
//! compilation unit (PyTorch's `CompilationUnit::define` with a resolver for the file's
//! Python scope).

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use ember_runtime::unit::{CompilationUnit, Function};

use super::types::dotted_name;
use super::{cleanup, FnEmitter, FnSig, Global, ModuleCx, Resolver, State, R};
use crate::frontend::ast::{Def, Expr, ExprKind, SourceModule, StmtKind};
use crate::frontend::error::FrontendError;
use crate::frontend::span::{SourceFile, Span};

/// Modules a `.py` file may import.
fn importable(path: &str) -> bool {
    matches!(
        path,
        "torch"
            | "torch.nn"
            | "torch.nn.functional"
            | "torch.jit"
            | "torch.linalg"
            | "torch.fft"
            | "torch.special"
            | "math"
            | "cmath"
            | "typing"
            | "typing_extensions"
            | "enum"
            | "collections"
            | "__future__"
            | "torch.nn.modules"
    ) || path.starts_with("torch.")
}

/// The signature of a compiled graph (no defaults are known), skipping `skip` inputs (`self`).
pub(crate) fn signature_of_graph(g: &ember_dialects::Graph, skip: usize) -> FnSig {
    let params = g
        .inputs()
        .iter()
        .skip(skip)
        .map(|&v| super::ParamSig {
            name: g.debug_name(v).unwrap_or("").to_string(),
            ty: g.ty(v).clone(),
            n: None,
            default: None,
            kwarg_only: false,
        })
        .collect();
    let ret = g
        .outputs()
        .first()
        .map(|&o| g.ty(o).clone())
        .unwrap_or(ember_dialects::Type::None);
    FnSig { params, ret }
}

/// Whether a def is decorated `@torch.jit.ignore` (not compiled: it runs in Python).
/// `@torch.jit.unused` defs are compiled with a raising body (see unused.rs).
pub fn is_ignored(decorators: &[Expr]) -> bool {
    decorators.iter().any(|d| {
        let e = match &d.kind {
            ExprKind::Call { func, .. } => func.as_ref(),
            _ => d,
        };
        dotted_name(e).is_some_and(|n| n.ends_with("jit.ignore") || n == "ignore")
    })
}

/// [`compile_module`], also giving the schema of each top-level function by its name (its
/// parameters' defaults included: what the Python printer prints in a signature).
pub fn compile_module_schemas(
    file: Arc<SourceFile>,
    module: &SourceModule,
    unit: &CompilationUnit,
    resolver: &dyn Resolver,
) -> R<HashMap<String, ember_dialects::schema::FunctionSchema>> {
    let functions = compile_module_functions(file, module, unit, resolver, "__torch__")?;
    Ok(functions
        .into_iter()
        .map(|(name, (sig, f))| {
            let schema = super::call::schema_of(&f.qualname, &sig, None);
            (name, schema)
        })
        .collect())
}

/// Compiles every def and class of `module` into `unit`.
pub fn compile_module(
    file: Arc<SourceFile>,
    module: &SourceModule,
    unit: &CompilationUnit,
    resolver: &dyn Resolver,
) -> R<()> {
    compile_module_functions(file, module, unit, resolver, "__torch__").map(|_| ())
}

/// [`compile_module`] for a module whose classes are `<prefix>.<Name>` (an archive's
/// `code/__torch__/foo/bar.py` is module `__torch__.foo.bar`).
pub fn compile_module_with_prefix(
    file: Arc<SourceFile>,
    module: &SourceModule,
    unit: &CompilationUnit,
    resolver: &dyn Resolver,
    prefix: &str,
) -> R<()> {
    compile_module_functions(file, module, unit, resolver, prefix).map(|_| ())
}

/// [`compile_module`], also returning the compiled functions with their signatures.
pub(crate) fn compile_module_functions(
    file: Arc<SourceFile>,
    module: &SourceModule,
    unit: &CompilationUnit,
    resolver: &dyn Resolver,
    prefix: &str,
) -> R<HashMap<String, (FnSig, Arc<Function>)>> {
    let module = &super::unused::drop_unused_bodies(module);
    let mut globals = HashMap::new();
    let mut imports = HashMap::new();
    let mut defs = Vec::new();
    let mut classes = Vec::new();
    for s in &module.body {
        match &s.kind {
            StmtKind::Import(imp) => {
                let base: Option<String> = imp.from.as_ref().map(|p| {
                    p.iter()
                        .map(|i| i.name.as_str())
                        .collect::<Vec<_>>()
                        .join(".")
                });
                for n in &imp.names {
                    let path = n
                        .path
                        .iter()
                        .map(|i| i.name.as_str())
                        .collect::<Vec<_>>()
                        .join(".");
                    let full = match &base {
                        Some(b) => format!("{b}.{path}"),
                        None => path.clone(),
                    };
                    let module_path = base.clone().unwrap_or_else(|| full.clone());
                    if !importable(&module_path) {
                        return Err(FrontendError::new(
                            imp.span,
                            format!("import of module '{module_path}' is not supported in TorchScript: only torch, math and typing can be imported"),
                        ));
                    }
                    if path == "*" {
                        continue;
                    }
                    let local = match &n.alias {
                        Some(a) => a.name.clone(),
                        None if base.is_some() => path.clone(),
                        // `import torch.nn.functional` binds `torch`.
                        None => n.path[0].name.clone(),
                    };
                    let target = if n.alias.is_none() && base.is_none() {
                        n.path[0].name.clone()
                    } else {
                        full
                    };
                    imports.insert(local, target);
                }
            }
            StmtKind::Def(d) => {
                globals.insert(d.name.name.clone(), Global::Def(d));
                defs.push(d);
            }
            StmtKind::Class(c) => {
                globals.insert(c.name.name.clone(), Global::Class(c));
                classes.push(c);
            }
            StmtKind::Assign {
                targets,
                value: Some(v),
                ..
            } if targets.len() == 1 => {
                if let ExprKind::Name(n) = &targets[0].kind {
                    match dotted_name(v) {
                        // `F = torch.nn.functional`: an alias of a module.
                        Some(path)
                            if !matches!(v.kind, ExprKind::Name(_))
                                || imports.contains_key(&path) =>
                        {
                            let resolved = match path.split_once('.') {
                                Some((head, rest)) => match imports.get(head) {
                                    Some(h) => format!("{h}.{rest}"),
                                    None => path.clone(),
                                },
                                None => imports.get(&path).cloned().unwrap_or(path.clone()),
                            };
                            imports.insert(n.clone(), resolved);
                        }
                        _ => {
                            globals.insert(n.clone(), Global::Constant(v));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    let cx = ModuleCx {
        file,
        unit,
        resolver,
        prefix: prefix.to_string(),
        globals,
        imports,
        state: RefCell::new(State::default()),
    };
    // NamedTuples and Enums first: archive code declares attributes of those types in
    // classes printed before them.
    let (type_like, others): (Vec<_>, Vec<_>) =
        classes.iter().partition(|c| super::class::is_type_like(c));
    for c in type_like.into_iter().chain(others) {
        cx.declare_class(c)?;
    }
    // Module classes last: PyTorch compiles a module's methods only when scripting an
    // instance, never from a function, so errors in functions come first.
    for c in classes.iter().filter(|c| !cx.is_module_class(c)) {
        cx.compile_class(c)?;
    }
    for d in &defs {
        if is_ignored(&d.decorators) {
            continue;
        }
        cx.ensure_function(&d.name.name, d.name.span)?;
    }
    for c in classes.iter().filter(|c| cx.is_module_class(c)) {
        cx.compile_class(c)?;
    }
    // Functions enter the unit in source order, whatever order they were compiled in.
    let st = cx.state.into_inner();
    // Static methods that were called, under the name their function constants carry (code
    // read back calls them by it) unless a def of the file has that name; before the defs,
    // so that the last function is the file's last def.
    let mut static_methods: Vec<_> = st
        .functions
        .iter()
        .filter(|(key, (_, f))| **key != f.qualname && !cx.globals.contains_key(&f.qualname))
        .collect();
    static_methods.sort_by(|a, b| a.0.cmp(b.0));
    for (_, (_, f)) in static_methods {
        if unit.function(&f.qualname).is_none() {
            unit.add_function(Function::new(f.qualname.clone(), f.graph.clone()));
        }
    }
    for d in &defs {
        if let Some((_, f)) = st.functions.get(&d.name.name) {
            unit.add_function(Function::new(f.qualname.clone(), f.graph.clone()));
        }
    }
    // The methods of module classes too, by qualified name: their defaults are the entry
    // points' of a module constructed from the file.
    let mut functions = st.functions;
    for (qual, info) in &st.classes {
        let Some(class) = unit.class(qual).filter(|_| info.is_module) else {
            continue;
        };
        for (name, sig) in &info.sigs {
            if let Some(f) = class.method(name) {
                functions.insert(format!("{qual}.{name}"), (sig.clone(), f));
            }
        }
    }
    Ok(functions)
}

impl ModuleCx<'_> {
    /// The span of one character at a 1-based line and column of the file.
    fn span_of(&self, line: u32, col: u32) -> Span {
        let text = &self.file.text;
        let mut offset = 0usize;
        for (i, l) in text.split_inclusive('\n').enumerate() {
            if i + 1 == line as usize {
                let c: usize = l
                    .chars()
                    .take(col.saturating_sub(1) as usize)
                    .map(char::len_utf8)
                    .sum();
                offset += c;
                break;
            }
            offset += l.len();
        }
        let o = offset.min(text.len()) as u32;
        Span::new(o, o + 1)
    }

    /// The signature and graph of function `name`, compiling it (and its callees) first if
    /// needed.
    pub fn ensure_function(&self, name: &str, span: Span) -> R<(FnSig, Arc<Function>)> {
        if let Some(f) = self.state.borrow().functions.get(name) {
            return Ok(f.clone());
        }
        if self.state.borrow().in_progress.iter().any(|n| n == name) {
            return Err(FrontendError::new(
                span,
                format!(
                    "function '{name}' is called recursively. Recursive calls are not supported"
                ),
            ));
        }
        let static_method = name
            .rsplit_once('.')
            .and_then(|(class, m)| self.static_method_def(class, m));
        let def: &Def = match (self.globals.get(name), static_method) {
            (_, Some(d)) => d,
            (Some(Global::Def(d)), _) => d,
            _ => {
                // A function the resolver compiled: its signature is its graph's.
                if let Some(super::Resolved::Function(f)) = self.resolver.resolve(name) {
                    let sig = signature_of_graph(&f.graph, 0);
                    return Ok((sig, f));
                }
                return Err(FrontendError::new(span, format!("undefined value {name}")));
            }
        };
        self.state.borrow_mut().in_progress.push(name.to_string());
        let result = self.compile_def(def, None);
        self.state.borrow_mut().in_progress.pop();
        let (sig, graph) = result?;
        // PyTorch compiles a static method it meets in a call as a function of the module,
        // named by the def (`__torch__.<module>.double`), as Ember names top-level defs.
        let qualname = match static_method {
            Some(d) => d.name.name.as_str(),
            None => name,
        };
        let f = Arc::new(Function::new(qualname, graph));
        self.state
            .borrow_mut()
            .functions
            .insert(name.to_string(), (sig.clone(), f.clone()));
        Ok((sig, f))
    }

    /// Emits `def` (a method when `self_class` is given) and runs the post-emission passes.
    pub fn compile_def(
        &self,
        def: &Def,
        self_class: Option<String>,
    ) -> R<(FnSig, ember_dialects::Graph)> {
        let self_type = self_class.clone().map(ember_dialects::Type::Class);
        let mut e = FnEmitter::new(self, self_class);
        e.method_name = Some(def.name.name.clone());
        let sig = e.emit_def(def, self_type)?;
        let mut g = e.g;
        cleanup::run(&mut g).map_err(|err| {
            let at = err.used_at.as_ref().or(err.range.as_ref());
            let span = at.map_or(def.span, |r| self.span_of(r.line, r.col));
            let message = match &err.used_at {
                Some(_) => format!("{}\nand was used here", err.message),
                None => err.message,
            };
            FrontendError::new(span, message)
        })?;
        Ok((sig, g))
    }
}
