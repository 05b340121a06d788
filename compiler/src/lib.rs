//! Ember's compiler: passes over TorchScript graphs, e-graph rewrites, and code generation
//! through MLIR and LLVM.

pub mod codegen;
pub mod driver;
pub mod passes;
pub mod rewrite;
