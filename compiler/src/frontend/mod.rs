//! The TorchScript source frontend: lexer, parser, IR emitter, SSA conversion, exit transform and
//! the Python printer (PyTorch's torch/csrc/jit/frontend). It compiles TorchScript with no
//! Python, and it is how `.pt` archives are read, since their code/ folder is TorchScript source.

pub mod ast;
pub mod builtins;
pub mod error;
pub mod schema_match;
pub mod span;

pub use error::FrontendError;
pub use span::{SourceFile, Span};
