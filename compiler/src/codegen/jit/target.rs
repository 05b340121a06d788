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
        let (cpu, mut features) = if isa == cpu::hardware() {
            (
                TargetMachine::get_host_cpu_name().to_string(),
                TargetMachine::get_host_cpu_features().to_string(),
            )
        } else {
            let cpu = match isa {
                Isa::Avx512 => "skylake-avx512",
                Isa::Avx2 => "haswell",
                Isa::Baseline => "x86-64",
            };
            (cpu.to_string(), String::new())
        };
        // LLVM tunes Intel's AVX-512 server CPUs to prefer 256-bit vectors (for the clock
        // slowdown of early ones); the AVX-512 form is Ember's 512-bit one, as the runtime's
        // own kernels are.
        if isa == Isa::Avx512 {
            if !features.is_empty() {
                features.push(',');
            }
            features.push_str("-prefer-256-bit");
        }
        JitTarget { cpu, features }
    }

    /// A target machine for in-process code: PIC objects, `-O3` code generation.
    pub fn machine(&self) -> Result<TargetMachine, CodegenError> {
        crate::codegen::llvm_to_target::set_llvm_options();
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
