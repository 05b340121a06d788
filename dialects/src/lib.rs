//! The TorchScript IR as data: graphs of nodes and values in arenas, the type system,
//! operator schemas, PyTorch's graph text format (printer and parser) and the verifier.
//!
//! Nothing here depends on LLVM or MLIR: the runtime links this crate.

pub mod attr;
pub mod catalogue;
pub mod cursor;
pub mod floatfmt;
pub mod ir;
pub mod parse;
pub mod print;
pub mod schema;
pub mod source;
pub mod symbol;
pub mod tensorfmt;
pub mod types;
pub mod verify;

pub use attr::AttrValue;
pub use ir::{Block, Graph, Node, Use, Value, ValueDef};
pub use source::SourceRange;
pub use symbol::Symbol;
pub use types::Type;
