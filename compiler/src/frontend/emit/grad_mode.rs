//! `torch.no_grad()` and `torch.enable_grad()`: PyTorch scripts them as classes of module
//! `torch.autograd.grad_mode` with `__enter__`/`__exit__`, so `with torch.no_grad():` is
//! `prim::CreateObject`, `__init__`, `prim::Enter` and `prim::Exit`. Their methods
//! (grad_mode.py) are compiled into the unit that uses them, once.

use std::sync::Arc;

use ember_runtime::unit::CompilationUnit;

use super::NoResolver;
use crate::frontend::span::SourceFile;

const SOURCE: &str = include_str!("grad_mode.py");
const MODULE: &str = "__torch__.torch.autograd.grad_mode";

/// The qualified name of class `name` (`no_grad`, `enable_grad`), compiled into `unit` if it
/// is not there yet.
pub fn ensure(unit: &CompilationUnit, name: &str) -> Result<String, String> {
    let qual = format!("{MODULE}.{name}");
    if unit.class(&qual).is_none() {
        let file = Arc::new(SourceFile::new("torch/autograd/grad_mode.py", SOURCE));
        let module = crate::frontend::parser::parse_module(&file).map_err(|e| e.render(&file))?;
        super::module::compile_module_functions(file.clone(), &module, unit, &NoResolver, MODULE)
            .map_err(|e| e.render(&file))?;
    }
    Ok(qual)
}
