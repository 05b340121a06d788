//! The main loops of Ember's tools. The binaries in tools/ only parse their flags and call in.

#[cfg(feature = "codegen")]
pub mod emberc;
pub mod missing_ops;
pub mod opt;
pub mod run;
pub mod run_args;
pub mod split;
