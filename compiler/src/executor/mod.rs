//! The optimizing executor: profiling, specialization behind guards, fusion groups run as
//! kernels compiled at run time, and bailout to the interpreter (DESIGN.md, "The executor and
//! compiled code").

pub mod graph_executor;
pub mod groups;
pub mod guards;
pub mod jit;
#[cfg(feature = "codegen")]
pub mod kernel_cache;
pub mod profile;

pub use graph_executor::{ExecutorOptions, GraphExecutor, DEFAULT_PROFILING_RUNS};

/// Where the last `count` values on `stack` (a node's inputs) begin.
fn inputs_start(
    stack: &[ember_runtime::ivalue::IValue],
    count: usize,
    node: &str,
) -> Result<usize, String> {
    stack
        .len()
        .checked_sub(count)
        .ok_or_else(|| format!("{node}: too few inputs"))
}
