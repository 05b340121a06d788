//! The TorchScript source frontend: lexer, parser, IR emitter, SSA conversion, exit transform and
//! the Python printer (PyTorch's torch/csrc/jit/frontend). It compiles TorchScript with no
//! Python, and it is how `.pt` archives are read, since their code/ folder is TorchScript source.

pub mod ast;
pub mod ast_dump;
pub mod builtins;
pub mod canonicalize_modified_loop;
pub mod cleanup;
pub mod convert_to_ssa;
pub mod emit;
pub mod error;
pub mod exit_transform;
pub mod inline_loop_condition;
pub mod lexer;
pub mod normalize;
pub mod parser;
#[cfg(test)]
mod parser_tests;
pub mod python_print;
pub mod schema_match;
pub mod span;
pub mod unit_resolver;

pub use cleanup::run_cleanup_passes;
pub use convert_to_ssa::{convert_to_ssa, convert_to_ssa_located, SsaError};
pub use error::FrontendError;
pub use span::{SourceFile, Span};
pub use unit_resolver::UnitResolver;

pub use emit::{NoResolver, Resolved, Resolver};

use std::sync::Arc;

use ember_runtime::unit::CompilationUnit;

/// Compiles every def and class of a TorchScript source file into `unit`: top-level defs as
/// functions named by the def, classes as `__torch__.<Name>` with their methods. Names the
/// file uses but does not define are asked of `resolver`.
pub fn compile(
    file: Arc<SourceFile>,
    unit: &CompilationUnit,
    resolver: &dyn Resolver,
) -> Result<(), FrontendError> {
    let module = parser::parse_module(&file)?;
    emit::compile_module(file, &module, unit, resolver)
}

/// [`compile`], also giving the schema of each top-level def by its name, defaults included
/// (`ember-opt --emit=code` prints signatures from them).
pub fn compile_with_schemas(
    file: Arc<SourceFile>,
    unit: &CompilationUnit,
    resolver: &dyn Resolver,
) -> Result<std::collections::HashMap<String, ember_dialects::schema::FunctionSchema>, FrontendError>
{
    let module = parser::parse_module(&file)?;
    emit::compile_module_schemas(file, &module, unit, resolver)
}

/// [`compile`] for a file of module `prefix` (`__torch__.foo.bar`): its classes are
/// `<prefix>.<Name>`, as in an archive's code/ folder.
pub fn compile_as_module(
    file: Arc<SourceFile>,
    unit: &CompilationUnit,
    resolver: &dyn Resolver,
    prefix: &str,
) -> Result<(), FrontendError> {
    let module = parser::parse_module(&file)?;
    emit::compile_module_with_prefix(file, &module, unit, resolver, prefix)
}

/// [`compile`] for a self-contained source text; the error is the rendered diagnostic
/// (`name:line:col: error: message` and the highlighted line).
pub fn compile_source(name: &str, text: &str) -> Result<CompilationUnit, String> {
    let file = Arc::new(SourceFile::new(name, text));
    let unit = CompilationUnit::new();
    compile(file.clone(), &unit, &NoResolver).map_err(|e| e.render(&file))?;
    Ok(unit)
}

/// Reads code printed for functions of `unit` back into it (PyTorch's save/load path): the
/// `__torch__.` names the code uses resolve to the unit's functions, classes, NamedTuples and
/// Enums ([`UnitResolver`]), and the code's defs join the unit. The error is the rendered
/// diagnostic.
pub fn compile_into(name: &str, text: &str, unit: &CompilationUnit) -> Result<(), String> {
    let file = Arc::new(SourceFile::new(name, text));
    compile(file.clone(), unit, &UnitResolver::new(unit)).map_err(|e| e.render(&file))
}
