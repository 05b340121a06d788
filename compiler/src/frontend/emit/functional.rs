//! The Python-defined functions of `torch.nn.functional` (`F.relu`, `F.softmax`, ...): PyTorch
//! compiles them from their Python source, so a call is `prim::CallFunction` of a function
//! named like the Python function. Ember compiles its own TorchScript versions with the same
//! signatures (functional.py) once, the first time a file calls one.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use ember_dialects::attr::ConstValue;
use ember_dialects::Value;
use ember_runtime::unit::{CompilationUnit, Function};

use super::{FnSig, NoResolver};
use crate::frontend::schema_match::NamedValue;
use crate::frontend::span::SourceFile;

const SOURCE: &str = include_str!("functional.py");

type Table = HashMap<String, (FnSig, Arc<Function>)>;

fn prelude() -> Result<&'static Table, String> {
    static PRELUDE: OnceLock<Result<Table, String>> = OnceLock::new();
    PRELUDE
        .get_or_init(|| {
            let file = Arc::new(SourceFile::new("torch/nn/functional.py", SOURCE));
            let module =
                crate::frontend::parser::parse_module(&file).map_err(|e| e.render(&file))?;
            let unit = CompilationUnit::new();
            super::module::compile_module_functions(
                file.clone(),
                &module,
                &unit,
                &NoResolver,
                "__torch__",
            )
            .map_err(|e| e.render(&file))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// `F.max_pool2d` and friends choose their implementation by `return_indices`
/// (PyTorch's `boolean_dispatch`): the argument's position and the function without indices.
fn boolean_dispatch(name: &str) -> Option<(usize, String)> {
    match name {
        "max_pool1d" | "max_pool2d" | "max_pool3d" => Some((6, format!("_{name}"))),
        _ => None,
    }
}

/// Whether `F.<name>` is one of the functions compiled from functional.py.
pub fn has(name: &str) -> bool {
    let target = boolean_dispatch(name).map_or(name.to_string(), |(_, t)| t);
    SOURCE.contains(&format!("\ndef {target}("))
}

/// The compiled function a call of `F.<name>` with these arguments runs.
pub fn resolve(
    name: &str,
    args: &[NamedValue],
    kwargs: &[NamedValue],
    constant_of: impl Fn(Value) -> Option<ConstValue>,
) -> Result<(FnSig, Arc<Function>), String> {
    let target = match boolean_dispatch(name) {
        Some((index, without)) => {
            let flag = kwargs
                .iter()
                .find(|k| k.name.as_deref() == Some("return_indices"))
                .or_else(|| args.get(index))
                .map(|a| a.value);
            match flag.map(&constant_of) {
                None | Some(Some(ConstValue::Bool(false))) => without,
                Some(Some(ConstValue::Bool(true))) => {
                    return Err(format!(
                        "{name} with return_indices=True is not supported yet"
                    ))
                }
                Some(_) => {
                    return Err(format!(
                        "{name}: return_indices must be a constant boolean in TorchScript"
                    ))
                }
            }
        }
        None => name.to_string(),
    };
    let table = prelude()?;
    table
        .get(&target)
        .cloned()
        .ok_or_else(|| format!("torch.nn.functional.{name} is not supported yet"))
}
