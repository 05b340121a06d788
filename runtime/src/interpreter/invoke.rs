//! Entry points for running a unit's functions and objects' methods (what `ember-run` and the
//! archive loader call): the code is built once per function and kept.

use std::sync::Arc;

use super::code::BuildError;
use super::error::RuntimeError;
use super::state::run;
use crate::ivalue::{IValue, Object};
use crate::unit::{CompilationUnit, Function};

impl From<BuildError> for RuntimeError {
    fn from(e: BuildError) -> RuntimeError {
        RuntimeError {
            message: e.message,
            node: Some(e.node),
            kind: Some(e.kind),
            source: e.source,
            call_stack: Vec::new(),
        }
    }
}

/// Runs `f` on `inputs` (a method's first input is its object). Errors of building its code
/// carry the failing node of `f`'s graph.
pub fn call_function(
    f: &Function,
    unit: Option<&Arc<CompilationUnit>>,
    inputs: Vec<IValue>,
) -> Result<Vec<IValue>, RuntimeError> {
    let code = f.code(unit)?;
    run(&code, inputs)
}

/// Runs method `name` of `object` with `args` (without the object).
pub fn call_method(
    object: &Arc<Object>,
    name: &str,
    args: Vec<IValue>,
    unit: Option<&Arc<CompilationUnit>>,
) -> Result<Vec<IValue>, RuntimeError> {
    let f = object.class.method(name).ok_or_else(|| {
        RuntimeError::new(format!(
            "'{}' object has no method '{name}'",
            object.class_name()
        ))
    })?;
    let mut inputs = Vec::with_capacity(args.len() + 1);
    inputs.push(IValue::Object(object.clone()));
    inputs.extend(args);
    call_function(&f, unit, inputs)
}
