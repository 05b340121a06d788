//! Fusion groups compiled to kernels at run time, through the kernel cache.

use ember_dialects::Graph;
use ember_runtime::ops::Operation;

/// The kernel of a group's subgraph as an operation (inputs on the stack, outputs pushed).
/// Inputs the kernel does not cover (a chunk or a `cat` whose pieces differ from its
/// specialization) run the subgraph in the interpreter instead, so a run never fails because
/// of the JIT.
#[cfg(feature = "codegen")]
pub fn compile(body: &Graph) -> Result<Operation, String> {
    use std::sync::Arc;

    use ember_runtime::ops::Stack;

    let kernel = super::kernel_cache::KernelCache::global()
        .get(body)
        .map_err(|e| e.to_string())?;
    let fallback = super::groups::interpreted(body)?;
    let count = body.inputs().len();
    Ok(Arc::new(move |stack: &mut Stack| {
        let first = super::inputs_start(stack, count, "prim::TensorExprGroup")?;
        match kernel.run(&stack[first..]) {
            Ok(outputs) => {
                stack.truncate(first);
                stack.extend(outputs);
                Ok(())
            }
            Err(_) => fallback(stack),
        }
    }))
}

#[cfg(not(feature = "codegen"))]
pub fn compile(_body: &Graph) -> Result<Operation, String> {
    Err("no kernel compiler in this build".into())
}
