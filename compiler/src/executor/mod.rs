//! The optimizing executor: profiling, specialization behind guards, fusion, and the kernels
//! compiled for fused groups.

#[cfg(feature = "codegen")]
pub mod kernel_cache;
