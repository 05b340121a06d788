//! The interpreter: graphs linearized into [`Code`] and run by [`run`] on a register file and a
//! stack. It runs every graph and is the fallback of compiled code.

mod code;
mod error;
mod state;

pub use code::{BuildError, Code, Instr, OpSite};
pub use error::RuntimeError;
pub use state::run;

#[cfg(test)]
mod tests;
