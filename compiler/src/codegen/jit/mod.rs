//! Kernels compiled in process at run time: a fusion group's subgraph (`prim::TensorExprGroup`'s
//! `attr::Subgraph`) becomes a function the runtime calls through
//! [`ember_runtime::kernel_abi::JitKernelFn`].
//!
//! `group` turns the subgraph into typed elementwise expressions, `lower` builds MLIR for them
//! (with `fast_math`, the runtime's own float32 exp/log/tanh/erf), the shared `mlir_to_llvm`
//! pipeline runner and a short LLVM pipeline (`JIT_LLVM_PIPELINE`) make vectorized machine
//! code for the host CPU (`target`), `orc` links the object into the process, and the runtime's
//! `kernel_launch` checks the inputs, allocates the outputs and splits the call over the
//! thread pool. The object bytes are what
//! the kernel cache (`executor::kernel_cache`) keeps on disk; use the cache
//! (`KernelCache::global().get(subgraph)`) rather than [`compile_group`] in the executor.

pub mod fast_math;
pub mod group;
pub mod lower;
pub mod orc;
pub mod target;

use std::sync::Arc;

use ember_dialects::Graph;
use ember_runtime::ivalue::IValue;
use ember_runtime::kernel_abi::JitKernelFn;
use ember_runtime::kernel_launch::LaunchCache;
use inkwell::targets::FileType;

use super::fusion_to_mlir::new_context;
use super::kernel::CodegenError;
use super::mlir_to_llvm::{run_pipeline, translate_to_llvm_ir};
pub use group::PointwiseKernel;
pub use target::JitTarget;

/// Bumped whenever generated code or its ABI changes, so old cache entries are not reused.
pub const CODEGEN_VERSION: u32 = 8;

/// A compiled group: its kernel's description (what `run` checks) and its entry point.
pub struct CompiledGroup {
    kernel: PointwiseKernel,
    entry: JitKernelFn,
    symbol: String,
    launches: LaunchCache,
}

impl std::fmt::Debug for CompiledGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledGroup")
            .field("symbol", &self.symbol)
            .finish()
    }
}

impl CompiledGroup {
    /// Runs the kernel: checks `inputs` against the group's parameters (dtype, rank, fixed
    /// sizes, broadcasting), allocates the outputs and computes them. Any mismatch is an
    /// `Err`, never undefined behaviour.
    pub fn run(&self, inputs: &[IValue]) -> Result<Vec<IValue>, String> {
        ember_runtime::kernel_launch::run(&self.kernel, self.entry, inputs, &self.launches)
    }

    pub fn symbol(&self) -> &str {
        &self.symbol
    }

    pub fn kernel(&self) -> &PointwiseKernel {
        &self.kernel
    }

    /// Links `object` (from [`compile_object`] now or earlier) and wraps its entry point.
    pub fn from_object(
        kernel: PointwiseKernel,
        symbol: &str,
        object: &[u8],
    ) -> Result<CompiledGroup, CodegenError> {
        let addr = orc::load(symbol, object).map_err(CodegenError::general)?;
        // SAFETY: `symbol` is the entry function `lower` emitted for `kernel`, whose signature
        // is `JitKernelFn`; the JIT keeps the code mapped for the life of the process.
        let entry: JitKernelFn =
            unsafe { std::mem::transmute::<usize, JitKernelFn>(addr as usize) };
        Ok(CompiledGroup {
            kernel,
            entry,
            symbol: symbol.to_string(),
            launches: LaunchCache::default(),
        })
    }
}

/// Compiles `subgraph` for the current CPU form without any cache.
pub fn compile_group(subgraph: &Graph) -> Result<Arc<CompiledGroup>, CodegenError> {
    compile_group_for(subgraph, &JitTarget::current())
}

/// Compiles `subgraph` for `target` without any cache.
pub fn compile_group_for(
    subgraph: &Graph,
    target: &JitTarget,
) -> Result<Arc<CompiledGroup>, CodegenError> {
    let kernel = group::build(subgraph)?;
    let symbol = symbol_for(&cache_key(subgraph, target));
    let object = compile_object(&kernel, &symbol, target)?;
    Ok(Arc::new(CompiledGroup::from_object(
        kernel, &symbol, &object,
    )?))
}

/// What identifies a compiled kernel: the group's canonical text (the subgraph printed with
/// its input types, which carry the specialization), the CPU, and the versions of Ember and of
/// its code generator.
pub fn cache_key(subgraph: &Graph, target: &JitTarget) -> String {
    format!(
        "ember {} codegen {CODEGEN_VERSION}\ncpu {} {}\n{subgraph}",
        env!("CARGO_PKG_VERSION"),
        target.cpu,
        target.features
    )
}

/// The entry symbol of the kernel with this key (unique per key, stable across processes).
pub fn symbol_for(key: &str) -> String {
    format!("ember_jit_{:016x}", fnv1a64(key.as_bytes()))
}

/// FNV-1a: a stable 64-bit hash (std's hasher may change between Rust releases).
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The MLIR module of `kernel` as text (for `--emit=mlir` and tests).
pub fn kernel_mlir(kernel: &PointwiseKernel, symbol: &str) -> String {
    MLIR_CONTEXT.with(|ctx| {
        let module = lower::kernel_to_mlir(ctx, kernel, symbol);
        module.as_operation().to_string()
    })
}

/// Compiles `kernel` to a relocatable object defining `symbol`, optimized for `target`.
pub fn compile_object(
    kernel: &PointwiseKernel,
    symbol: &str,
    target: &JitTarget,
) -> Result<Vec<u8>, CodegenError> {
    with_optimized_module(kernel, symbol, target, |module, machine| {
        let buf = machine
            .write_to_memory_buffer(module, FileType::Object)
            .map_err(|e| CodegenError::general(format!("code generation: {}", e.to_string())))?;
        Ok(buf.as_slice().to_vec())
    })
}

/// The optimized LLVM IR of `kernel` (`--emit=llvm` of a group, and tests that check it is
/// vectorized).
pub fn kernel_llvm_ir(
    kernel: &PointwiseKernel,
    symbol: &str,
    target: &JitTarget,
) -> Result<String, CodegenError> {
    with_optimized_module(kernel, symbol, target, |module, _| {
        Ok(module.print_to_string().to_string())
    })
}

/// Builds, lowers and optimizes `kernel`, then hands the LLVM module to `f`. With
/// `EMBER_LOG=jit` the time of each step is logged.
fn with_optimized_module<R>(
    kernel: &PointwiseKernel,
    symbol: &str,
    target: &JitTarget,
    f: impl FnOnce(
        &inkwell::module::Module,
        &inkwell::targets::TargetMachine,
    ) -> Result<R, CodegenError>,
) -> Result<R, CodegenError> {
    use melior::ir::operation::OperationLike;
    let mut steps = Steps::new();
    MLIR_CONTEXT.with(|ctx| {
        let mut module = lower::kernel_to_mlir(ctx, kernel, symbol);
        if !module.as_operation().verify() {
            return Err(CodegenError::general(format!(
                "the JIT built invalid MLIR for {symbol}"
            )));
        }
        steps.done("mlir build");
        run_pipeline(ctx, &mut module, JIT_PIPELINE)?;
        steps.done("mlir lower");
        let llvm_ctx = inkwell::context::Context::create();
        let llvm_module = translate_to_llvm_ir(&module, &llvm_ctx, symbol)?;
        let machine = target.machine()?;
        llvm_module.set_triple(&machine.get_triple());
        llvm_module.set_data_layout(&machine.get_target_data().get_data_layout());
        llvm_module
            .verify()
            .map_err(|e| CodegenError::general(format!("invalid LLVM IR: {}", e.to_string())))?;
        steps.done("translate");
        llvm_module
            .run_passes(
                JIT_LLVM_PIPELINE,
                &machine,
                inkwell::passes::PassBuilderOptions::create(),
            )
            .map_err(|e| CodegenError::general(format!("LLVM optimization: {}", e.to_string())))?;
        steps.done("llvm opt");
        let r = f(&llvm_module, &machine)?;
        steps.done("emit");
        steps.log(symbol);
        Ok(r)
    })
}

thread_local! {
    /// One MLIR context per thread, reused: creating one and loading its dialects costs more
    /// than compiling a small kernel.
    static MLIR_CONTEXT: melior::Context = new_context();
}

/// Times of the compilation steps, logged with `EMBER_LOG=jit`.
struct Steps {
    last: std::time::Instant,
    times: Vec<(&'static str, f64)>,
}

impl Steps {
    fn new() -> Steps {
        Steps {
            last: std::time::Instant::now(),
            times: Vec::new(),
        }
    }
    fn done(&mut self, step: &'static str) {
        let now = std::time::Instant::now();
        self.times
            .push((step, (now - self.last).as_secs_f64() * 1e3));
        self.last = now;
    }
    fn log(&self, symbol: &str) {
        if crate::executor::kernel_cache::log_enabled() {
            let parts: Vec<String> = self
                .times
                .iter()
                .map(|(s, ms)| format!("{s} {ms:.2} ms"))
                .collect();
            eprintln!("[jit] {symbol}: {}", parts.join(", "));
        }
    }
}

/// The JIT's LLVM pipeline: what a kernel's loops need to vectorize, a third of `default<O3>`'s
/// time with the same kernel speed (BENCHMARKS.md). The MLIR is already simple (one loop nest
/// per path, inlined math), so the inliner, unswitching, GVN, SLP and unrolling find nothing
/// to pay for their time. `instcombine` named alone checks that one run reached a fixpoint
/// and aborts the process when it did not (a check for LLVM's own tests; `default<O3>` turns
/// it off as here): a random group of `jit_random` met it.
pub const JIT_LLVM_PIPELINE: &str = "function(sroa,early-cse,instcombine<no-verify-fixpoint>,\
    simplifycfg,loop-mssa(licm,loop-rotate,licm),loop-simplify,lcssa,indvars,loop-vectorize,\
    instcombine<no-verify-fixpoint>,simplifycfg)";

/// The JIT's MLIR pipeline: math to LLVM intrinsics (float64 `exp`/`log` become libm calls
/// that the JIT resolves in the process) and libm calls for what has no intrinsic (`erf`).
/// No `canonicalize` or `cse`: LLVM's `early-cse` and `instcombine` do the same for less.
pub const JIT_PIPELINE: &str = "builtin.module(convert-scf-to-cf,convert-math-to-llvm,\
    convert-math-to-libm,convert-arith-to-llvm,convert-index-to-llvm,convert-func-to-llvm,\
    convert-cf-to-llvm,reconcile-unrealized-casts)";
