//! Which x86-64 CPU the JIT compiles for: the host's own (`native`: AVX-512 where present),
//! or the AVX2 or baseline forms that `EMBER_CPU_FEATURES` and `ops::cpu::with_isa` select,
//! so one AVX-512 machine builds and tests every form.

use ember_runtime::ops::cpu::{self, Isa};
use inkwell::targets::{
    CodeModel, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
};
use inkwell::OptimizationLevel;

use crate::codegen::kernel::CodegenError;

/// The CPU and features a kernel is compiled for; part of the kernel cache key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct JitTarget {
    pub cpu: String,
    pub features: String,
}

impl JitTarget {
    /// The form the runtime's kernels use on this thread (`ops::cpu::isa`).
    pub fn current() -> JitTarget {
        JitTarget::for_isa(cpu::isa())
    }

    pub fn for_isa(isa: Isa) -> JitTarget {
        // The host CPU when it is the best level allowed, so LLVM tunes for it.
        if isa == cpu::hardware() {
            return JitTarget {
                cpu: TargetMachine::get_host_cpu_name().to_string(),
                features: TargetMachine::get_host_cpu_features().to_string(),
            };
        }
        let (cpu, features) = match isa {
            Isa::Avx512 => ("skylake-avx512", ""),
            Isa::Avx2 => ("haswell", ""),
            Isa::Baseline => ("x86-64", ""),
        };
        JitTarget {
            cpu: cpu.into(),
            features: features.into(),
        }
    }

    /// A target machine for in-process code: PIC objects, `-O3` code generation.
    pub fn machine(&self) -> Result<TargetMachine, CodegenError> {
        Target::initialize_native(&InitializationConfig::default())
            .map_err(|e| CodegenError::general(format!("LLVM native target: {e}")))?;
        let triple = TargetMachine::get_default_triple();
        let target = Target::from_triple(&triple)
            .map_err(|e| CodegenError::general(format!("target {triple:?}: {e}")))?;
        target
            .create_target_machine(
                &TargetTriple::create(&triple.as_str().to_string_lossy()),
                &self.cpu,
                &self.features,
                OptimizationLevel::Aggressive,
                RelocMode::PIC,
                CodeModel::Default,
            )
            .ok_or_else(|| {
                CodegenError::general(format!("cannot create a target machine for {}", self.cpu))
            })
    }
}
