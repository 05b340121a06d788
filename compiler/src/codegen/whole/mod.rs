//! Whole-method compilation (`emberc` on a model, `ember-run --compile=whole`): the method's
//! graph lowered through `scf`/`arith` to LLVM ([`lower`]), with the program it came from
//! embedded ([`prepare`]) so the runtime can interpret it when the entry guards fail; with
//! sample inputs, its pointwise chains become fusion groups first ([`fuse`]). The
//! contract with the runtime is `ember_runtime::aot`.

pub mod fuse;
pub mod int_ranges;
pub mod lower;
pub mod prepare;

use inkwell::module::Linkage;
use inkwell::targets::FileType;
use inkwell::AddressSpace;
use melior::ir::operation::OperationLike;
use melior::ir::Module;

use super::fusion_to_mlir;
use super::llvm_to_target::{self, TargetArch};
use super::mlir_to_llvm;
use super::{CodegenError, EmitKind};
use ember_dialects::Graph;
use ember_runtime::aot::bundle::Bundle;
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::arena::MemoryPlan;
pub use fuse::fuse;
pub use prepare::{prepare, Program};

/// The passes from `func`/`scf`/`arith`/`math`/`llvm` to the `llvm` dialect (the JIT's, for the
/// fusion groups' kernels).
const PIPELINE: &str = super::jit::JIT_PIPELINE;

/// The version of the `ember_compiled_model` layout (`EMBER_ABI_VERSION` in ember.h).
pub const ABI_VERSION: u32 = 1;
/// `EMBER_WEIGHTS_EXTERNAL`: the weights are in a file beside the object.
const WEIGHTS_EXTERNAL: u32 = 1;

/// How to compile.
#[derive(Clone, Debug)]
pub struct WholeOptions {
    /// The C name of the model: the descriptor's symbol, and the prefix of the entry function.
    pub name: String,
    /// The TorchScript method's name (`forward`).
    pub method: String,
    pub emit: EmitKind,
    /// `--cpu` (`native`: the host).
    pub cpu: Option<String>,
    /// Weights in a file beside the object instead of in its read-only data.
    pub weights_file: bool,
    /// Define the `ember_compiled_model` (and embed the bundle); the in-process tier has no
    /// use for it.
    pub descriptor: bool,
}

/// What compiling gives.
pub struct Compiled {
    /// The object, assembly, LLVM IR or MLIR.
    pub bytes: Vec<u8>,
    /// The weights file (with `weights_file`).
    pub weights: Option<Vec<u8>>,
    pub num_registers: usize,
}

/// The symbol of the compiled method of model `name`.
pub fn entry_symbol(name: &str) -> String {
    format!("{name}_entry")
}

/// The program as the runtime reads it.
pub fn to_bundle(program: &Program) -> Bundle {
    Bundle {
        graph_text: program.text.clone(),
        n_user_inputs: program.n_user_inputs,
        input_names: program.input_names.clone(),
        guard_types: program.guard_types.iter().map(|t| t.to_string()).collect(),
        defaults: program.defaults.clone(),
        weights: program.weights.clone(),
        memory_plan: program.memory_plan.clone(),
    }
}

/// Compiles `program`: MLIR as lowered, LLVM IR before optimization, or assembly/object code
/// after O2. Objects and assembly define the `ember_compiled_model` named `opts.name`.
pub fn compile(program: &Program, opts: &WholeOptions) -> Result<Compiled, CodegenError> {
    let symbol = entry_symbol(&opts.name);
    let lowered = lower::lower_graph(&program.graph, &symbol)?;
    if opts.emit == EmitKind::Mlir {
        return Ok(Compiled {
            bytes: lowered.mlir.into_bytes(),
            weights: None,
            num_registers: lowered.num_registers,
        });
    }
    if opts.emit == EmitKind::Ptx {
        return Err(CodegenError::general(
            "whole models compile for x86-64 only: --emit=ptx compiles fusion groups",
        ));
    }
    let machine = llvm_to_target::target_machine(TargetArch::X86_64, opts.cpu.as_deref())?;
    let ctx = fusion_to_mlir::new_context();
    let mut module = Module::parse(&ctx, &lowered.mlir).ok_or_else(|| {
        CodegenError::general("internal error: the lowered MLIR of the method does not parse")
    })?;
    if !module.as_operation().verify() {
        return Err(CodegenError::general(
            "internal error: the lowered MLIR of the method does not verify",
        ));
    }
    mlir_to_llvm::run_pipeline(&ctx, &mut module, PIPELINE)?;
    let llvm_ctx = inkwell::context::Context::create();
    let llvm_module = mlir_to_llvm::translate_to_llvm_ir(&module, &llvm_ctx, &opts.name)?;
    set_kernel_cpus(&llvm_module, &symbol);
    let mut weights = None;
    if opts.descriptor {
        let (bundle, file) = to_bundle(program).to_bytes(opts.weights_file);
        add_descriptor(&llvm_module, opts, &symbol, &bundle, lowered.num_registers)?;
        weights = file;
    }
    llvm_to_target::prepare_module(&llvm_module, &machine, TargetArch::X86_64, &[])?;
    let bytes = if opts.emit == EmitKind::Llvm {
        llvm_module.print_to_string().to_bytes().to_vec()
    } else {
        llvm_to_target::optimize(&llvm_module, &machine)?;
        let file_type = match opts.emit {
            EmitKind::Obj => FileType::Object,
            _ => FileType::Assembly,
        };
        llvm_to_target::emit_machine_code(&llvm_module, &machine, file_type)?
    };
    Ok(Compiled {
        bytes,
        weights,
        num_registers: lowered.num_registers,
    })
}

/// Defines the bundle and the `ember_compiled_model` descriptor (see `ember_runtime::aot`).
fn add_descriptor(
    module: &inkwell::module::Module,
    opts: &WholeOptions,
    entry: &str,
    bundle: &[u8],
    num_registers: usize,
) -> Result<(), CodegenError> {
    let ctx = module.get_context();
    let ptr = ctx.ptr_type(AddressSpace::default());
    let (i32t, i64t) = (ctx.i32_type(), ctx.i64_type());
    let constant = |name: &str, bytes: &[u8], align: u32| {
        let value = ctx.const_string(bytes, false);
        let g = module.add_global(value.get_type(), None, name);
        g.set_initializer(&value);
        g.set_constant(true);
        g.set_linkage(Linkage::Private);
        g.set_alignment(align);
        g.as_pointer_value()
    };
    let name = &opts.name;
    let bundle_ptr = constant(&format!("{name}_bundle"), bundle, 64);
    // Writable data, not read-only: the runtime wraps embedded weights in place, and a graph
    // that writes a weight in place must find writable (copy-on-write) pages.
    if let Some(g) = module.get_global(&format!("{name}_bundle")) {
        g.set_constant(false);
    }
    let name_ptr = constant(&format!("{name}_name"), format!("{name}\0").as_bytes(), 1);
    let method_ptr = constant(
        &format!("{name}_method"),
        format!("{}\0", opts.method).as_bytes(),
        1,
    );
    let entry_fn = module
        .get_function(entry)
        .ok_or_else(|| CodegenError::general(format!("internal error: {entry} missing")))?;
    let flags = if opts.weights_file {
        WEIGHTS_EXTERNAL
    } else {
        0
    };
    let ty = ctx.struct_type(
        &[
            i32t.into(),
            i32t.into(),
            ptr.into(),
            ptr.into(),
            ptr.into(),
            i64t.into(),
            ptr.into(),
            i64t.into(),
        ],
        false,
    );
    let value = ty.const_named_struct(&[
        i32t.const_int(ABI_VERSION as u64, false).into(),
        i32t.const_int(flags as u64, false).into(),
        name_ptr.into(),
        method_ptr.into(),
        bundle_ptr.into(),
        i64t.const_int(bundle.len() as u64, false).into(),
        entry_fn.as_global_value().as_pointer_value().into(),
        i64t.const_int(num_registers as u64, false).into(),
    ]);
    let g = module.add_global(ty, None, name);
    g.set_initializer(&value);
    g.set_constant(true);
    g.set_alignment(8);
    Ok(())
}

/// The graph of method (or function) `name` of `model` ready to compile whole: a module's
/// method frozen (refused if it writes attributes), then [`ready_graph`]. Also says whether
/// the graph's first input is `self`.
pub fn method_graph(model: &mut crate::model::Model, name: &str) -> Result<(Graph, bool), String> {
    let config = crate::passes::PassConfig::from_env()?;
    let entry = model.entry(Some(name))?;
    let is_method = entry.is_method;
    let frozen;
    // A module's method (a .pt's, or of the module a .py defines) is frozen first.
    let graph = if is_method && model.module.is_some() {
        let (graph, report) = crate::freeze::freeze_graph(model, name, &config)?;
        if !report.written.is_empty() {
            return Err(format!(
                "'{name}' writes {} of the module: only methods that can be frozen compile whole",
                report.written.join(", ")
            ));
        }
        frozen = graph;
        &frozen
    } else {
        entry.graph()
    };
    Ok((ready_graph(graph, &model.unit, &config)?, is_method))
}

/// Gives every enum constant of `g` its member's value (from `unit`'s class), so that the
/// runtime makes the member without the program's classes
/// (`ember_runtime::ops::prim::ENUM_VALUE_ATTR`).
pub fn carry_enum_values(g: &mut Graph, unit: &ember_runtime::unit::CompilationUnit) {
    use ember_dialects::attr::{AttrValue, ConstValue};
    use ember_dialects::symbol::sym;
    use ember_dialects::types::Type;
    use ember_runtime::ivalue::IValue;
    for n in g.nodes() {
        if g.kind(n) != sym::constant() || g.node_outputs(n).len() != 1 {
            continue;
        }
        let Type::Enum(class_name) = g.ty(g.output(n, 0)).clone() else {
            continue;
        };
        let text = match g.attr(n, sym::attr_value()) {
            Some(AttrValue::IValue(ConstValue::Opaque(t))) | Some(AttrValue::Str(t)) => t.clone(),
            _ => continue,
        };
        let Some(member) = text
            .strip_prefix(class_name.as_str())
            .and_then(|m| m.strip_prefix('.'))
        else {
            continue;
        };
        let value = match unit.class(&class_name).and_then(|c| c.constant(member)) {
            Some(IValue::Int(i)) => AttrValue::Int(i),
            Some(IValue::Double(f)) => AttrValue::Float(f),
            Some(IValue::Str(s)) => AttrValue::Str(s.to_string()),
            _ => continue,
        };
        g.set_attr(
            n,
            ember_dialects::Symbol::new(ember_runtime::ops::prim::ENUM_VALUE_ATTR),
            value,
        );
    }
}

/// `graph` with its calls inlined, the optimization pipeline run and its enum constants
/// carrying their values ([`carry_enum_values`], from `unit`): self-contained, as a compiled
/// method must be.
pub fn ready_graph(
    graph: &Graph,
    unit: &ember_runtime::unit::CompilationUnit,
    config: &crate::passes::PassConfig,
) -> Result<Graph, String> {
    let mut graph = graph.clone();
    for pass in crate::passes::OPTIMIZATION_PIPELINE {
        crate::passes::run_pass(config, pass, &mut graph)?;
    }
    carry_enum_values(&mut graph, unit);
    Ok(graph)
}

/// Compiles `program` for this CPU and links it into the process: the address of its entry
/// function and the registers it uses.
pub fn load_in_process(program: &Program) -> Result<(u64, usize), CodegenError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static LOADED: AtomicUsize = AtomicUsize::new(0);
    let name = format!("ember_whole_{}", LOADED.fetch_add(1, Ordering::Relaxed));
    let opts = WholeOptions {
        name: name.clone(),
        method: "forward".into(),
        emit: EmitKind::Obj,
        cpu: Some("native".into()),
        weights_file: false,
        descriptor: false,
    };
    let compiled = compile(program, &opts)?;
    let symbols = ember_runtime::aot::context::rt_symbols().map(|(n, a)| (n, a as u64));
    super::jit::orc::define_absolute(&symbols).map_err(CodegenError::general)?;
    let addr = super::jit::orc::load(&entry_symbol(&name), &compiled.bytes)
        .map_err(CodegenError::general)?;
    Ok((addr, compiled.num_registers))
}

/// [`load_in_process`] made into a model the runtime runs: the compiled method when the guards
/// hold, the interpreter otherwise.
pub fn compile_in_process(
    program: &Program,
) -> Result<ember_runtime::aot::CompiledModel, CodegenError> {
    use ember_runtime::aot::{CompiledModel, EntryFn};
    let (entry, registers) = load_in_process(program)?;
    // SAFETY: `entry` is the address of the compiled `int32_t entry(void *ctx)` just linked
    // (objects are never unloaded), lowered from the bundle's graph with `registers` registers.
    unsafe {
        let entry = std::mem::transmute::<usize, EntryFn>(entry as usize);
        CompiledModel::from_parts(to_bundle(program), Some(entry), registers)
    }
    .map_err(CodegenError::general)
}

/// The memory plan of `model`'s compiled calls on `inputs` ([`compile_in_process`]'s model of
/// a program): the method called twice (a fresh model's first call does what is done once,
/// such as packing weights; the second is recorded, as a loaded model records its second
/// call). The error says why there is no plan (the guards refuse `inputs`, the method fails
/// on them, it frees no buffer within a call).
pub fn record_memory_plan(
    model: &ember_runtime::aot::CompiledModel,
    inputs: &[IValue],
) -> Result<MemoryPlan, String> {
    if !model.guards_hold(inputs) {
        return Err("the inputs do not have the types the method is specialized for".into());
    }
    for _ in 0..2 {
        model.run(inputs.to_vec())?;
    }
    model
        .memory_plan()
        .filter(|p| p.slots.iter().any(Option::is_some))
        .ok_or_else(|| "the method frees no intermediate buffer within a call".into())
}

/// Gives `program` the memory plan of its compiled calls on `inputs` (compiled in process and
/// recorded by [`record_memory_plan`]), so that the object's first call is served from it.
pub fn plan_memory(program: &mut Program, inputs: &[IValue]) -> Result<(), String> {
    let model = compile_in_process(program).map_err(|e| e.message)?;
    program.memory_plan = Some(record_memory_plan(&model, inputs)?);
    Ok(())
}

/// Inputs of the types `program`'s guards specialize its user inputs to, to record a memory
/// plan on: floating-point tensors from a fixed-seed sequence in [-1, 1), the others zeros.
/// `None` when an input is not a tensor whose type gives every size (its value cannot be
/// made up), unless it and the inputs after it have defaults (left out).
pub fn inputs_for_guards(program: &Program) -> Option<Vec<IValue>> {
    use ember_runtime::tensor::{DType, Tensor};
    let optional_from = program.n_user_inputs - program.default_values.len();
    let mut inputs = Vec::new();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for (i, ty) in program.guard_types.iter().enumerate() {
        let ember_dialects::Type::Tensor(t) = ty else {
            return (i >= optional_from).then_some(inputs);
        };
        let dtype = t.dtype.and_then(DType::from_scalar_type)?;
        let sizes = t.known_sizes()?;
        let tensor = if dtype.is_floating() {
            let n = usize::try_from(sizes.iter().product::<i64>()).ok()?;
            let values = (0..n)
                .map(|_| {
                    state ^= state << 13;
                    state ^= state >> 7;
                    state ^= state << 17;
                    (state >> 40) as f32 / (1u64 << 23) as f32 - 1.0
                })
                .collect();
            let floats = Tensor::from_vec::<f32>(values, &sizes).ok()?;
            ember_runtime::ops::shape::elements::cast(&floats, dtype).ok()?
        } else {
            Tensor::zeros(&sizes, dtype).ok()?
        };
        let value = IValue::Tensor(tensor);
        if !ember_runtime::guard::value_matches(ty, &value) {
            return None;
        }
        inputs.push(value);
    }
    Some(inputs)
}

/// Gives each form of each group kernel its CPU level (`target-cpu`), so that LLVM vectorizes
/// it for that instruction set whatever `--cpu` the rest of the object is compiled for.
fn set_kernel_cpus(module: &inkwell::module::Module, symbol: &str) {
    use inkwell::attributes::AttributeLoc;
    let ctx = module.get_context();
    let prefix = format!("{symbol}_group");
    for f in module.get_functions() {
        let name = f.get_name().to_string_lossy().into_owned();
        if !name.starts_with(&prefix) {
            continue;
        }
        for (suffix, cpu) in lower::KERNEL_FORMS {
            if name.ends_with(&format!("_{suffix}")) {
                f.add_attribute(
                    AttributeLoc::Function,
                    ctx.create_string_attribute("target-cpu", cpu),
                );
                if suffix == "avx512" {
                    // Full-width vectors, as the runtime's own AVX-512 loops use (LLVM's
                    // generic level prefers 256 bits).
                    f.add_attribute(
                        AttributeLoc::Function,
                        ctx.create_string_attribute("prefer-vector-width", "512"),
                    );
                }
            }
        }
    }
}
