//! From LLVM IR to machine code with inkwell: x86-64 objects and assembly (PIC, so they link
//! into position-independent executables and shared libraries), and NVPTX PTX for sm_80/sm_90
//! where every kernel carries the `ptx_kernel` calling convention.

use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
};
use inkwell::OptimizationLevel;

use super::kernel::CodegenError;

/// LLVM's number for the `ptx_kernel` calling convention (`CallingConv::PTX_Kernel`).
pub const PTX_KERNEL_CALLING_CONVENTION: u32 = 71;

/// The machine code targets.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TargetArch {
    X86_64,
    Nvptx64,
}

impl TargetArch {
    pub fn parse(s: &str) -> Option<TargetArch> {
        match s {
            "x86_64" | "x86-64" => Some(TargetArch::X86_64),
            "nvptx64" | "nvptx" => Some(TargetArch::Nvptx64),
            _ => None,
        }
    }

    pub fn triple(self) -> &'static str {
        match self {
            TargetArch::X86_64 => "x86_64-unknown-linux-gnu",
            TargetArch::Nvptx64 => "nvptx64-nvidia-cuda",
        }
    }

    /// The CPU used when `--cpu` is not given: portable x86-64, or sm_80 (Ampere).
    pub fn default_cpu(self) -> &'static str {
        match self {
            TargetArch::X86_64 => "x86-64",
            TargetArch::Nvptx64 => "sm_80",
        }
    }
}

/// LLVM's process-wide options for all of Ember's code generation, set once before the first
/// target machine. Together they take about 40% off code generation, with kernels measured no
/// slower (BENCHMARKS.md, the JIT's compile time): a vectorized loop's remainder runs as scalar
/// code (an epilogue vector loop adds a third of the code for a remainder of under one vector
/// step), and loop strength reduction is skipped (a quarter of code generation; x86 addressing
/// modes index for free). The SLP vectorizer is off: tensor loops are vectorized by the loop
/// vectorizer, and what SLP finds in compiled code is a program's loop-carried scalars, whose
/// packing into one vector puts a shuffle and a blend on each iteration's critical path
/// (fib_sum's loop 2.1 ns an iteration against 1.1 ns; `PassBuilderOptions`' SLP switch does
/// not reach `default<O2>`). LLVM exits the process on an option it does not know, so these are
/// options of the LLVM that Ember is built with (22), checked by the JIT's tests.
pub fn set_llvm_options() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let args = [
            c"ember".as_ptr(),
            c"-enable-epilogue-vectorization=false".as_ptr(),
            c"-disable-lsr".as_ptr(),
            c"-vectorize-slp=false".as_ptr(),
        ];
        // SAFETY: the arguments are NUL-terminated strings that outlive the call; LLVM parses
        // them into its option registry and keeps no pointer to them.
        unsafe {
            inkwell::llvm_sys::support::LLVMParseCommandLineOptions(
                args.len() as i32,
                args.as_ptr(),
                std::ptr::null(),
            )
        }
    });
}

/// A target machine for `arch` and `cpu` (`native` means the host CPU on x86-64).
pub fn target_machine(arch: TargetArch, cpu: Option<&str>) -> Result<TargetMachine, CodegenError> {
    set_llvm_options();
    let config = InitializationConfig::default();
    match arch {
        TargetArch::X86_64 => Target::initialize_x86(&config),
        TargetArch::Nvptx64 => Target::initialize_nvptx(&config),
    }
    let triple = TargetTriple::create(arch.triple());
    let target = Target::from_triple(&triple)
        .map_err(|e| CodegenError::general(format!("target {}: {e}", arch.triple())))?;
    let host_cpu;
    let cpu = match cpu {
        Some("native") if arch == TargetArch::X86_64 => {
            host_cpu = TargetMachine::get_host_cpu_name().to_string();
            host_cpu.as_str()
        }
        Some(c) => c,
        None => arch.default_cpu(),
    };
    if !cpu_is_known(arch, cpu) {
        return Err(CodegenError::general(format!(
            "unknown CPU '{cpu}' for {} (try {})",
            arch.triple(),
            arch.default_cpu()
        )));
    }
    target
        .create_target_machine(
            &triple,
            cpu,
            "",
            OptimizationLevel::Default,
            RelocMode::PIC,
            CodeModel::Default,
        )
        .ok_or_else(|| CodegenError::general(format!("cannot create a target machine for {cpu}")))
}

/// LLVM warns (on stderr) and falls back to a generic CPU for names it does not know; an
/// unknown name is a user error here instead.
fn cpu_is_known(arch: TargetArch, cpu: &str) -> bool {
    match arch {
        TargetArch::Nvptx64 => cpu
            .strip_prefix("sm_")
            .map(|v| v.trim_end_matches(['a', 'f']))
            .is_some_and(|v| v.parse::<u32>().is_ok_and(|v| (20..=130).contains(&v))),
        TargetArch::X86_64 => {
            !cpu.is_empty()
                && cpu
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
        }
    }
}

/// Sets the triple and data layout, marks `kernels` as PTX kernels on NVPTX, and verifies.
pub fn prepare_module(
    module: &Module,
    machine: &TargetMachine,
    arch: TargetArch,
    kernels: &[String],
) -> Result<(), CodegenError> {
    module.set_triple(&machine.get_triple());
    module.set_data_layout(&machine.get_target_data().get_data_layout());
    if arch == TargetArch::Nvptx64 {
        for name in kernels {
            let f = module.get_function(name).ok_or_else(|| {
                CodegenError::general(format!("kernel {name} missing from the LLVM module"))
            })?;
            f.set_call_conventions(PTX_KERNEL_CALLING_CONVENTION);
        }
    }
    module
        .verify()
        .map_err(|e| CodegenError::general(format!("invalid LLVM IR: {}", e.to_string())))
}

/// Runs LLVM's `default<O2>` pipeline.
pub fn optimize(module: &Module, machine: &TargetMachine) -> Result<(), CodegenError> {
    module
        .run_passes("default<O2>", machine, PassBuilderOptions::create())
        .map_err(|e| CodegenError::general(format!("LLVM optimization failed: {}", e.to_string())))
}

/// Object code (`obj`) or assembly (`asm`; for NVPTX this is the PTX text).
pub fn emit_machine_code(
    module: &Module,
    machine: &TargetMachine,
    file_type: FileType,
) -> Result<Vec<u8>, CodegenError> {
    let buf = machine
        .write_to_memory_buffer(module, file_type)
        .map_err(|e| CodegenError::general(format!("code generation failed: {}", e.to_string())))?;
    Ok(buf.as_slice().to_vec())
}
