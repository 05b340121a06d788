//! Lowering of fusion groups to MLIR and LLVM: `kernel` checks a group and flattens it into
//! elementwise scalar ops, `fusion_to_mlir` builds MLIR (`func`, `scf`, `arith`, `math`,
//! `memref`), `mlir_to_llvm` lowers to the `llvm` dialect and translates to LLVM IR, and
//! `llvm_to_target` writes x86-64 objects/assembly or NVPTX PTX. `c_header` declares the
//! result for C callers; `driver` ties the steps together for `emberc`. `jit` compiles fusion
//! groups in process at run time; `whole` compiles a whole method, control flow and calls of
//! the runtime's operators included.

pub mod c_header;
pub mod driver;
pub mod fusion_to_mlir;
pub mod jit;
pub mod kernel;
pub mod llvm_to_target;
pub mod math_expansion;
pub mod mlir_builder;
pub mod mlir_to_llvm;
pub mod whole;

pub use driver::{collect_kernels, compile, compile_graph, CompileOptions, EmitKind};
pub use kernel::{CodegenError, ElementwiseKernel, ErrorSite};
pub use llvm_to_target::TargetArch;
