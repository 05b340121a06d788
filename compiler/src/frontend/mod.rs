//! The TorchScript source frontend: lexer, parser, IR emitter, SSA conversion, exit transform and
//! the Python printer (PyTorch's torch/csrc/jit/frontend). It compiles TorchScript with no
//! Python, and it is how `.pt` archives are read, since their code/ folder is TorchScript source.

pub mod ast;
pub mod ast_dump;
pub mod canonicalize_modified_loop;
pub mod cleanup;
pub mod convert_to_ssa;
pub mod error;
pub mod exit_transform;
pub mod inline_loop_condition;
pub mod lexer;
pub mod parser;
#[cfg(test)]
mod parser_tests;
pub mod normalize;
pub mod span;

pub use cleanup::run_cleanup_passes;
pub use convert_to_ssa::{convert_to_ssa, convert_to_ssa_located, SsaError};
pub use error::FrontendError;
pub use span::{SourceFile, Span};
