//! The Python-defined functions of `torch.nn.functional` (`F.relu`, `F.softmax`, ...): PyTorch
//! compiles them from their Python source, so a call is `prim::CallFunction` of a function
//! named like the Python function. Ember compiles its own TorchScript versions with the same
//! signatures (functional.py) once, the first time a file calls one; likewise those of
//! `torch.nn.init` (init.py), which a module's `__init__` calls.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use ember_dialects::attr::ConstValue;
use ember_dialects::Value;
use ember_runtime::unit::{CompilationUnit, Function};

use super::{FnSig, NoResolver};
use crate::frontend::builtins;
use crate::frontend::schema_match::NamedValue;
use crate::frontend::span::SourceFile;

/// The modules whose Python-defined functions Ember writes in TorchScript itself, and where:
/// `torch.nn.functional` (functional.py) and `torch.nn.init` (init.py, which a module's
/// `__init__` calls).
const LIBRARIES: [(&str, &str, &str); 2] = [
    (
        "torch.nn.functional",
        "torch/nn/functional.py",
        include_str!("functional.py"),
    ),
    ("torch.nn.init", "torch/nn/init.py", include_str!("init.py")),
];

type Compiled = (FnSig, Arc<Function>);
type Table = HashMap<String, Compiled>;

/// The source of library module `module`.
fn library_source(module: &str) -> Option<&'static str> {
    LIBRARIES
        .iter()
        .find(|(m, _, _)| *m == module)
        .map(|(_, _, source)| *source)
}

/// The functions of library module `module`, compiled once.
fn prelude(module: &str) -> Result<&'static Table, String> {
    static PRELUDES: [OnceLock<Result<Table, String>>; LIBRARIES.len()] =
        [const { OnceLock::new() }; LIBRARIES.len()];
    let index = LIBRARIES
        .iter()
        .position(|(m, _, _)| *m == module)
        .ok_or_else(|| format!("no library module {module}"))?;
    let (module, path, source) = LIBRARIES[index];
    PRELUDES[index]
        .get_or_init(|| {
            let file = Arc::new(SourceFile::new(path, source));
            let parsed =
                crate::frontend::parser::parse_module(&file).map_err(|e| e.render(&file))?;
            let unit = CompilationUnit::new();
            let table = super::module::compile_module_functions(
                file.clone(),
                &parsed,
                &unit,
                &NoResolver,
                "__torch__",
            )
            .map_err(|e| e.render(&file))?;
            Ok(table
                .into_iter()
                .map(|(name, compiled)| {
                    let qualified = qualify(&format!("{module}.{name}"), compiled);
                    (name, qualified)
                })
                .collect())
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

/// Whether `<module>.<name>` is a Python-defined function Ember can compile: PyTorch's code
/// for it is known, or (for `torch.nn.functional`) functional.py has it.
pub fn has(module: &str, name: &str) -> bool {
    let Some(source) = library_source(module) else {
        return builtins::python_function_code(&format!("{module}.{name}")).is_some();
    };
    let target = boolean_dispatch(name).map_or(name.to_string(), |(_, t)| t);
    source.contains(&format!("\ndef {target}("))
        || builtins::python_function_code(&format!("{module}.{target}")).is_some()
}

/// PyTorch's own scripted code for a function (`torch.nn.functional.relu`,
/// builtins::python_function_code) with the helpers it calls, compiled once per function;
/// `None` if there is no code for it or Ember cannot compile it (functional.py is used then).
fn pytorch_code(qualified: &str) -> Option<Compiled> {
    static COMPILED: OnceLock<Mutex<HashMap<String, Option<Compiled>>>> = OnceLock::new();
    let cache = COMPILED.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(hit) = cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(qualified)
    {
        return hit.clone();
    }
    let compiled = compile_pytorch_code(qualified);
    cache
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(qualified.to_string(), compiled.clone());
    compiled
}

fn compile_pytorch_code(qualified: &str) -> Option<Compiled> {
    let name = qualified.rsplit('.').next().unwrap_or(qualified);
    // The function and, transitively, the helpers it names as `__torch__.<module>.<helper>`.
    let mut source = String::from(
        "import torch\nfrom torch import Tensor\nfrom typing import List, Optional, Tuple, Dict\n",
    );
    let mut seen = vec![qualified.to_string()];
    let mut i = 0;
    while i < seen.len() {
        let code = builtins::python_function_code(&seen[i])?;
        for (at, _) in code.match_indices("__torch__.") {
            let rest = &code[at + "__torch__.".len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(rest.len());
            let helper = &rest[..end];
            if !seen.iter().any(|s| s == helper) && builtins::python_function_code(helper).is_some()
            {
                seen.push(helper.to_string());
            }
        }
        source.push_str(code);
        source.push('\n');
        i += 1;
    }
    let path = format!(
        "{}.py",
        qualified
            .rsplit_once('.')
            .map_or("torch", |(m, _)| m)
            .replace('.', "/")
    );
    let file = Arc::new(SourceFile::new(path, source));
    let module = crate::frontend::parser::parse_module(&file).ok()?;
    let unit = CompilationUnit::new();
    let table = super::module::compile_module_functions(
        file.clone(),
        &module,
        &unit,
        &NoResolver,
        "__torch__",
    )
    .ok()?;
    let compiled = table.get(name).cloned()?;
    Some(qualify(qualified, compiled))
}

/// The function under the name PyTorch gives a Python function it compiles
/// (`__torch__.torch.nn.functional.relu`), which its function constants carry and printed code
/// calls it by.
fn qualify(python_name: &str, (sig, f): Compiled) -> Compiled {
    let f = Function::new(format!("__torch__.{python_name}"), f.graph.clone());
    (sig, Arc::new(f))
}

/// The compiled function a call of `F.<name>` with these arguments runs.
pub fn resolve(
    qualified: &str,
    args: &[NamedValue],
    kwargs: &[NamedValue],
    constant_of: impl Fn(Value) -> Option<ConstValue>,
) -> Result<(FnSig, Arc<Function>), String> {
    let (module, name) = qualified.rsplit_once('.').unwrap_or(("torch", qualified));
    let dispatch = if module == "torch.nn.functional" {
        boolean_dispatch(name)
    } else {
        None
    };
    let target = match dispatch {
        Some((index, without)) => {
            // PyTorch's `BooleanDispatchValue` reads the flag from its position first.
            let (flag, not_constant) = match args.get(index) {
                Some(a) => (
                    Some(a.value),
                    format!("Argument for boolean dispatch at position {index} was not constant"),
                ),
                None => (
                    kwargs
                        .iter()
                        .find(|k| k.name.as_deref() == Some("return_indices"))
                        .map(|a| a.value),
                    "Keyword argument 'return_indices' for boolean dispatch at position was not constant"
                        .to_string(),
                ),
            };
            match flag.map(&constant_of) {
                None | Some(Some(ConstValue::Bool(false))) => without,
                Some(Some(ConstValue::Bool(true))) => {
                    return Err(format!(
                        "{name} with return_indices=True is not supported yet"
                    ))
                }
                Some(_) => return Err(not_constant),
            }
        }
        None => name.to_string(),
    };
    if let Some(found) = pytorch_code(&format!("{module}.{target}")) {
        return Ok(found);
    }
    if library_source(module).is_none() {
        return Err(format!("{qualified} is not supported yet"));
    }
    let table = prelude(module)?;
    table
        .get(&target)
        .cloned()
        .ok_or_else(|| format!("{qualified} is not supported yet"))
}
