//! Running compiled pointwise kernels: what a fusion group's subgraph computes as typed
//! elementwise expressions ([`kernel`], the description code generators lower and launches
//! check), and the launch ([`launch`]: input checks, broadcasting, strides, outputs, the
//! thread pool). The JIT executor and whole-compiled models (`aot`, `ember_rt_group`) run
//! kernels through this one implementation; the runtime never generates code itself.

pub mod kernel;
pub mod launch;

pub use kernel::{build, KernelError, PointwiseKernel};
pub use launch::{run, LaunchCache};
