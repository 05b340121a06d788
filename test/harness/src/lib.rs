//! ember-lit: a lit-style test runner for Ember. It finds test files under `test/`, runs each
//! file's `RUN:` lines through `bash -o pipefail -c` with lit's substitutions, and reports the
//! files that fail. `test/lit.cfg.py` runs the same files with LLVM's `lit`.

pub mod build;
pub mod config;
pub mod discover;
pub mod exec;
pub mod report;
pub mod runner;
pub mod script;

pub use config::Config;
pub use discover::find_tests;
pub use report::{Outcome, Summary, TestResult};
pub use runner::{run_test, run_tests};
