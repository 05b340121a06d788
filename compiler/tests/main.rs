//! Every integration test of the compiler crate, in one binary: each test binary links LLVM and
//! MLIR statically (over 300 MB apiece), so one binary instead of twenty-two keeps a clean
//! `cargo test --workspace` within a CI machine's disk. Run one file's tests with a filter:
//! `cargo test -p ember-compiler --test compiler zoo::`. The modules that compile kernels need the
//! `codegen` feature (the default).

#[cfg(feature = "codegen")]
mod common;
#[cfg(feature = "codegen")]
mod jit_support;
mod profiled_corpus;

#[cfg(feature = "codegen")]
mod cmake_project;
mod corpus_passes;
mod executor_ops;
mod fuser_differential;
mod fuser_oracle;
mod fuzz_mutations;
mod interp_errors;
#[cfg(feature = "codegen")]
mod jit_corpus;
#[cfg(feature = "codegen")]
mod jit_ops;
#[cfg(feature = "codegen")]
mod jit_random;
#[cfg(feature = "codegen")]
mod jit_reductions;
#[cfg(feature = "codegen")]
mod kernel_cache;
#[cfg(feature = "codegen")]
mod kernel_errors;
#[cfg(feature = "codegen")]
mod native_kernels;
mod passes_differential;
mod passes_on_corpus;
mod pt_archive;
#[cfg(feature = "codegen")]
mod pt_models;
#[cfg(feature = "codegen")]
mod ptx_assembles;
mod pytorch_passes;
#[cfg(feature = "codegen")]
mod random_groups;
#[cfg(feature = "codegen")]
mod random_programs;
#[cfg(feature = "codegen")]
mod script_corpus;
mod source_modules;
#[cfg(feature = "codegen")]
mod torch_reference;
#[cfg(feature = "codegen")]
mod whole_random;
mod zoo;
