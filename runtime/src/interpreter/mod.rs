//! The interpreter: graphs linearized into [`Code`] and run by [`run`] on a register file, a
//! stack and a stack of call frames. It runs every graph and is the fallback of compiled code.
//! Function and method calls, objects and forks are resolved through a
//! [`CompilationUnit`](crate::unit::CompilationUnit) given to [`Code::with_unit`].

mod calls;
mod coalesce;
mod code;
mod error;
mod future;
mod invoke;
mod liveness;
mod objects;
mod specialize;
mod state;

pub use calls::{build_function_code, CallSite, CallTarget};
pub use code::{BuildError, Code, Inlined, Instr, MissingOperators, OpSite, OperationHook};
pub use error::{panic_message, RuntimeError, StackEntry};
pub use future::Future;
pub use invoke::{call_function, call_method};
pub use state::{run, MAX_CALL_DEPTH};

#[cfg(test)]
mod tests;
