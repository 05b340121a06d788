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
