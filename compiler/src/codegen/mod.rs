//! Lowering of fusion groups to MLIR and LLVM.
