//! PyTorch's `SourceImporter` (torch/csrc/jit/serialization/import_source.cpp): the classes
//! and functions of an archive's `code/` folder, compiled lazily by qualified name.
//! `__torch__.a.b.C` lives in `code/__torch__/a/b.py`; a file is compiled the first time one
//! of its names is asked for, through the source frontend with this importer as its resolver,
//! so a class that names another file's class imports that file first.

use std::cell::RefCell;
use std::collections::HashSet;
use std::sync::Arc;

use ember_runtime::unit::{ClassType, CompilationUnit, Function};

use super::archive::Archive;
use super::error::ImportError;
use crate::frontend::{compile_as_module, FrontendError, Resolved, Resolver, SourceFile};

/// Compiles an archive's code files into `unit` on demand.
pub struct SourceImporter<'a> {
    archive: &'a Archive,
    unit: &'a CompilationUnit,
    /// Modules (`__torch__.a.b`) compiled or being compiled.
    started: RefCell<HashSet<String>>,
    /// The first compile error of a file imported from inside another's compilation (the
    /// resolver can only answer "unknown" there).
    error: RefCell<Option<ImportError>>,
}

impl<'a> SourceImporter<'a> {
    pub fn new(archive: &'a Archive, unit: &'a CompilationUnit) -> SourceImporter<'a> {
        SourceImporter {
            archive,
            unit,
            started: RefCell::new(HashSet::new()),
            error: RefCell::new(None),
        }
    }

    /// The class `qualname` (`__torch__.a.b.C`), importing the file that defines it.
    pub fn load_class(&self, qualname: &str) -> Result<Arc<ClassType>, ImportError> {
        if let Some(c) = self.unit.class(qualname) {
            return Ok(c);
        }
        let module = qualname.rsplit_once('.').map(|(m, _)| m).unwrap_or("");
        self.import(module)?;
        self.unit.class(qualname).ok_or_else(|| {
            ImportError::new(format!(
                "class '{qualname}' is not defined in {}",
                record_of(module)
            ))
        })
    }

    /// Compiles every code file of the archive not compiled yet.
    pub fn import_all(&self) -> Result<(), ImportError> {
        for path in self.archive.code.keys() {
            if let Some(module) = module_of_record(path) {
                self.import(&module)?;
            }
        }
        Ok(())
    }

    /// [`Self::import_module`], reporting the error of a file it imported, which is the
    /// cause of any error of its own.
    fn import(&self, module: &str) -> Result<(), ImportError> {
        let result = self.import_module(module);
        match self.error.borrow_mut().take() {
            Some(e) => Err(e),
            None => result,
        }
    }

    /// Compiles `code/<module as a path>.py` once. A module without a file is not an error
    /// here: the name that was asked for stays unknown.
    fn import_module(&self, module: &str) -> Result<(), ImportError> {
        if !self.started.borrow_mut().insert(module.to_string()) {
            return Ok(());
        }
        let record = record_of(module);
        let Some(code) = self.archive.code.get(&record) else {
            return Ok(());
        };
        let file = Arc::new(SourceFile::new(record.clone(), code.text.clone()));
        compile_as_module(file.clone(), self.unit, self, module)
            .map_err(|e| compile_error(&file, &e))
    }
}

impl Resolver for SourceImporter<'_> {
    fn resolve(&self, name: &str) -> Option<Resolved> {
        if !name.starts_with("__torch__") {
            return None;
        }
        if let Some(c) = self.unit.class(name) {
            return Some(Resolved::Class(c));
        }
        let (module, last) = name.rsplit_once('.')?;
        if let Err(e) = self.import_module(module) {
            let mut slot = self.error.borrow_mut();
            if slot.is_none() {
                *slot = Some(e);
            }
            return None;
        }
        if let Some(c) = self.unit.class(name) {
            return Some(Resolved::Class(c));
        }
        if let Some(f) = self.unit.function(name) {
            return Some(Resolved::Function(f));
        }
        // Top-level defs of a code file enter the unit by their plain name; callers name them
        // by qualified name, which the emitter asks for again, so the unit gets that name too.
        let f = self.unit.function(last)?;
        let f = self
            .unit
            .add_function(Function::new(name.to_string(), f.graph.clone()));
        Some(Resolved::Function(f))
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
