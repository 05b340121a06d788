//! A fusion group's subgraph as typed elementwise expressions: the runtime's
//! [`ember_runtime::kernel_launch::kernel`] (the launch checks what it describes), with its
//! errors located in the subgraph as codegen errors.

use ember_dialects::Graph;
pub use ember_runtime::kernel_launch::kernel::*;

use crate::codegen::kernel::CodegenError;

/// The kernel of `g` (a group's subgraph), or why codegen refuses it.
pub fn build(g: &Graph) -> Result<PointwiseKernel, CodegenError> {
    ember_runtime::kernel_launch::build(g).map_err(|e| CodegenError::from_kernel(g, e))
}
