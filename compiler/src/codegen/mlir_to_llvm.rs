//! Runs the MLIR pass pipeline that takes `func`/`scf`/`arith`/`math`/`memref` (and `nvvm`
//! special registers) to the `llvm` dialect, then translates the module to LLVM IR inside an
//! inkwell [`inkwell::context::Context`].
//!
//! Memref arguments use the bare-pointer calling convention (all shapes are static), so a
//! kernel's C signature is plain pointers and scalars, e.g. `void k(const float*, float*)`.

use inkwell::context::Context as LlvmContext;
use inkwell::module::Module as LlvmModule;
use melior::ir::operation::OperationLike;
use melior::ir::Module;
use melior::pass::PassManager;
use melior::Context;

use super::fusion_to_mlir::MathLowering;
use super::kernel::CodegenError;

/// The lowering pipeline, as `mlir-opt --pass-pipeline` spells it.
pub fn pipeline(math: MathLowering) -> String {
    let mut passes = Vec::new();
    if math == MathLowering::Libm {
        // exp/log/tanh become calls to expf/logf/tanhf (the object links libm).
        passes.push("convert-math-to-libm");
    }
    passes.extend([
        "convert-scf-to-cf",
        "convert-math-to-llvm",
        "convert-arith-to-llvm",
        "convert-index-to-llvm",
        "finalize-memref-to-llvm",
        "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1}",
        "convert-cf-to-llvm",
        "reconcile-unrealized-casts",
        // Folds the memref descriptors the bare-pointer convention leaves behind.
        "canonicalize",
        "cse",
    ]);
    format!("builtin.module({})", passes.join(","))
}

/// Runs [`pipeline`] on `module` (in place) and verifies the result.
pub fn lower_to_llvm_dialect(
    ctx: &Context,
    module: &mut Module,
    math: MathLowering,
) -> Result<(), CodegenError> {
    run_pipeline(ctx, module, &pipeline(math))
}

/// Runs a pass pipeline (as `mlir-opt --pass-pipeline` spells it) on `module` and verifies
/// the result.
pub fn run_pipeline(
    ctx: &Context,
    module: &mut Module,
    pipeline: &str,
) -> Result<(), CodegenError> {
    melior::utility::register_all_passes();
    let pm = PassManager::new(ctx);
    melior::utility::parse_pass_pipeline(pm.as_operation_pass_manager(), pipeline)
        .map_err(|e| CodegenError::general(format!("MLIR pass pipeline: {e}")))?;
    pm.run(module)
        .map_err(|e| CodegenError::general(format!("MLIR lowering failed: {e}")))?;
    if !module.as_operation().verify() {
        return Err(CodegenError::general(
            "MLIR lowering produced an invalid module",
        ));
    }
    Ok(())
}

/// Translates a module already in the `llvm` dialect to LLVM IR owned by `llvm_ctx`.
pub fn translate_to_llvm_ir<'l>(
    module: &Module,
    llvm_ctx: &'l LlvmContext,
    name: &str,
) -> Result<LlvmModule<'l>, CodegenError> {
    // SAFETY: both libraries are built against the same LLVM (one copy linked statically);
    // the LLVMContextRef and LLVMModuleRef types of mlir-sys and llvm-sys name the same C types.
    let raw = unsafe {
        mlir_sys::mlirTranslateModuleToLLVMIR(module.as_operation().to_raw(), llvm_ctx.raw() as _)
    };
    if raw.is_null() {
        return Err(CodegenError::general(
            "translation of the llvm dialect to LLVM IR failed",
        ));
    }
    let m = unsafe { LlvmModule::new(raw as _) };
    m.set_name(name);
    Ok(m)
}
