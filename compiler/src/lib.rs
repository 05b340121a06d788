//! Ember's compiler: passes over TorchScript graphs, e-graph rewrites, and code generation
//! through MLIR and LLVM.

pub mod analysis;
#[cfg(feature = "codegen")]
pub mod codegen;
pub mod construct;
pub mod driver;
pub mod executor;
pub mod export;
pub mod fold;
pub mod freeze;
pub mod frontend;
pub mod import;
pub mod model;
pub mod passes;
pub mod rewrite;
