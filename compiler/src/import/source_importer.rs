//! PyTorch's `SourceImporter` (torch/csrc/jit/serialization/import_source.cpp): the classes
//! and functions of an archive's `code/` folder, compiled lazily by qualified name.
//! `__torch__.a.b.C` lives in `code/__torch__/a/b.py`. As in PyTorch, the unit of import is
//! one class or def, compiled the first time its name is asked for, through the source
//! frontend with this importer as its resolver — so files that name each other's classes
//! (a ResNet's file and the Sequential of its blocks) import without a cycle.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use ember_runtime::unit::{ClassType, CompilationUnit, Function};

use super::archive::Archive;
use super::constants::{constant_index, to_const_value};
use super::error::ImportError;
use crate::frontend::ast::{SourceModule, Stmt, StmtKind};
use crate::frontend::emit::compile_module_with_prefix;
use crate::frontend::{parser, FrontendError, Resolved, Resolver, SourceFile};

/// One code file, parsed once.
struct Parsed {
    file: Arc<SourceFile>,
    module: SourceModule,
}

/// Compiles an archive's code into `unit` on demand.
pub struct SourceImporter<'a> {
    archive: &'a Archive,
    unit: &'a CompilationUnit,
    parsed: RefCell<HashMap<String, Option<Rc<Parsed>>>>,
    /// Items (`__torch__.a.b.C`) compiled or being compiled.
    started: RefCell<HashSet<String>>,
    /// The first error of an item imported from inside another's compilation (the resolver
    /// can only answer "unknown" there); it is the cause of the outer error.
    error: RefCell<Option<ImportError>>,
}

impl<'a> SourceImporter<'a> {
    pub fn new(archive: &'a Archive, unit: &'a CompilationUnit) -> SourceImporter<'a> {
        SourceImporter {
            archive,
            unit,
            parsed: RefCell::new(HashMap::new()),
            started: RefCell::new(HashSet::new()),
            error: RefCell::new(None),
        }
    }

    /// The class `qualname` (`__torch__.a.b.C`), importing it first.
    pub fn load_class(&self, qualname: &str) -> Result<Arc<ClassType>, ImportError> {
        if let Some(c) = self.unit.class(qualname) {
            return Ok(c);
        }
        let (module, name) = qualname.rsplit_once('.').unwrap_or(("", qualname));
        self.import(module, name)?;
        self.unit.class(qualname).ok_or_else(|| {
            ImportError::new(format!(
                "class '{qualname}' is not defined in {}",
                record_of(module)
            ))
        })
    }

    /// Compiles every class and def of the archive's code not compiled yet.
    pub fn import_all(&self) -> Result<(), ImportError> {
        for path in self.archive.code.keys() {
            let Some(module) = module_of_record(path) else {
                continue;
            };
            let Some(parsed) = self.parse(&module)? else {
                continue;
            };
            for s in &parsed.module.body {
                if let Some(name) = item_name(s) {
                    self.import(&module, name)?;
                }
            }
        }
        Ok(())
    }

    /// [`Self::import_item`], reporting the error of an item it imported, which is the cause
    /// of any error of its own.
    fn import(&self, module: &str, name: &str) -> Result<(), ImportError> {
        let result = self.import_item(module, name);
        match self.error.borrow_mut().take() {
            Some(e) => Err(e),
            None => result,
        }
    }

    fn parse(&self, module: &str) -> Result<Option<Rc<Parsed>>, ImportError> {
        if let Some(p) = self.parsed.borrow().get(module) {
            return Ok(p.clone());
        }
        let record = record_of(module);
        let parsed = match self.archive.code.get(&record) {
            None => None,
            Some(code) => {
                let file = Arc::new(SourceFile::new(record.clone(), code.text.clone()));
                let module = parser::parse_module(&file).map_err(|e| compile_error(&file, &e))?;
                Some(Rc::new(Parsed { file, module }))
            }
        };
        self.parsed
            .borrow_mut()
            .insert(module.to_string(), parsed.clone());
        Ok(parsed)
    }

    /// Compiles class or def `name` of `module` once: the file's imports and assignments,
    /// its NamedTuples and Enums (types the item may name, with their members), and the item.
    /// A name the file does not define is not an error here: it stays unknown.
    fn import_item(&self, module: &str, name: &str) -> Result<(), ImportError> {
        if !self.started.borrow_mut().insert(format!("{module}.{name}")) {
            return Ok(());
        }
        let Some(parsed) = self.parse(module)? else {
            return Ok(());
        };
        let body = &parsed.module.body;
        if !body.iter().any(|s| item_name(s) == Some(name)) {
            return Ok(());
        }
        let picked: Vec<Stmt> = body
            .iter()
            .filter(|s| match item_name(s) {
                None => true,
                Some(n) if n == name => true,
                Some(_) => {
                    matches!(&s.kind, StmtKind::Class(c) if crate::frontend::emit::is_type_like(c))
                }
            })
            .cloned()
            .collect();
        let item = SourceModule { body: picked };
        compile_module_with_prefix(parsed.file.clone(), &item, self.unit, self, module)
            .map_err(|e| compile_error(&parsed.file, &e))
    }

    /// Whether `module`'s file defines a class or def `name`.
    fn defines(&self, module: &str, name: &str) -> bool {
        self.parse(module)
            .ok()
            .flatten()
            .is_some_and(|p| p.module.body.iter().any(|s| item_name(s) == Some(name)))
    }

    /// A class of an item still being compiled, named back by an item it imports: a
    /// placeholder of that name, which the class's own declaration replaces in the unit.
    fn forward_declaration(&self, module: &str, class: &str) -> Option<Arc<ClassType>> {
        if !self.started.borrow().contains(&format!("{module}.{class}")) {
            return None;
        }
        let code = self.archive.code.get(&record_of(module))?;
        let header = format!("class {class}(");
        let at = code
            .text
            .find(&header)
            .or_else(|| code.text.find(&format!("class {class}:")))?;
        let is_module = code.text[at..].starts_with(&format!("{header}Module)"));
        let qualname = format!("{module}.{class}");
        Some(self.unit.add_class(ClassType::new(qualname, is_module)))
    }
}

impl Resolver for SourceImporter<'_> {
    fn is_archive_code(&self) -> bool {
        true
    }

    fn resolve(&self, name: &str) -> Option<Resolved> {
        if let Some(i) = constant_index(name) {
            let value = self.archive.constants.get(i)?;
            return match to_const_value(value) {
                Ok(c) => Some(Resolved::Constant(c)),
                Err(m) => {
                    let mut slot = self.error.borrow_mut();
                    if slot.is_none() {
                        *slot = Some(ImportError::in_record(
                            "constants.pkl",
                            format!("{name}: {m}"),
                        ));
                    }
                    None
                }
            };
        }
        if !name.starts_with("__torch__") {
            return None;
        }
        if let Some(found) = crate::frontend::unit_resolver::lookup(self.unit, name) {
            return Some(found);
        }
        let (module, last) = name.rsplit_once('.')?;
        let fresh = !self.started.borrow().contains(name);
        if let Err(e) = self.import_item(module, last) {
            let mut slot = self.error.borrow_mut();
            if slot.is_none() {
                *slot = Some(e);
            }
            return None;
        }
        // What the item defined: a NamedTuple or Enum type (an Enum is a class of the unit as
        // well, holding its members, but names the enum type), a class, a function.
        if let Some(found) = crate::frontend::unit_resolver::lookup(self.unit, name) {
            return Some(found);
        }
        if !fresh {
            if let Some(c) = self.forward_declaration(module, last) {
                return Some(Resolved::Class(c));
            }
        }
        // A def enters the unit by its plain name; callers name it by qualified name, which
        // the emitter asks for again, so the unit gets that name too. Only a def of this
        // module: `__torch__.torchvision.ops.roi_align` is a module whose file defines a def
        // `roi_align`, not that def.
        if !self.defines(module, last) {
            return None;
        }
        let f = self.unit.function(last)?;
        let f = self
            .unit
            .add_function(Function::new(name.to_string(), f.graph.clone()));
        Some(Resolved::Function(f))
    }
}

/// The class or def a top-level statement defines.
fn item_name(s: &Stmt) -> Option<&str> {
    match &s.kind {
        StmtKind::Class(c) => Some(&c.name.name),
        StmtKind::Def(d) => Some(&d.name.name),
        _ => None,
    }
}

/// The record of a module: `__torch__.a.b` → `code/__torch__/a/b.py`.
pub fn record_of(module: &str) -> String {
    format!("code/{}.py", module.replace('.', "/"))
}

/// The module of a code record: `code/__torch__/a/b.py` → `__torch__.a.b`.
fn module_of_record(path: &str) -> Option<String> {
    let rest = path.strip_prefix("code/")?.strip_suffix(".py")?;
    Some(rest.replace('/', "."))
}

/// A compile error rendered against its code file (`code/__torch__/foo.py:12:5: error: ...`).
fn compile_error(file: &SourceFile, e: &FrontendError) -> ImportError {
    ImportError::new(e.render(file))
}
