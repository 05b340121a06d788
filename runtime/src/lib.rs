//! Ember's runtime: what an ahead-of-time compiled model links. It never depends on LLVM or MLIR.

pub mod aot;
pub mod guard;
pub mod interpreter;
pub mod ivalue;
pub mod kernel_abi;
pub mod kernel_launch;
pub mod npy;
pub mod npz_case;
pub mod ops;
pub mod parallel;
pub mod repr;
pub mod tensor;
pub mod unit;
