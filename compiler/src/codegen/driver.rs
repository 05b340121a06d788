//! The whole lowering for `emberc`: find the fusion groups of a graph, build their kernels,
//! and produce MLIR text, LLVM IR text, assembly/PTX text or an object file.

use ember_dialects::symbol::sym;
use ember_dialects::{AttrValue, Graph, Node};
use std::cell::RefCell;
use std::rc::Rc;

use hashbrown::HashMap;
use inkwell::targets::FileType;
use melior::ir::operation::OperationLike;

use super::fusion_to_mlir::{self, KernelStyle, MathLowering};
use super::kernel::{build_kernel, CodegenError, ElementwiseKernel};
use super::llvm_to_target::{self, TargetArch};
use super::mlir_to_llvm;

/// What to produce.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum EmitKind {
    Obj,
    Asm,
    Llvm,
    Mlir,
    Ptx,
}

impl EmitKind {
    pub fn parse(s: &str) -> Option<EmitKind> {
        match s {
            "obj" => Some(EmitKind::Obj),
            "asm" => Some(EmitKind::Asm),
            "llvm" => Some(EmitKind::Llvm),
            "mlir" => Some(EmitKind::Mlir),
            "ptx" => Some(EmitKind::Ptx),
            _ => None,
        }
    }
}

#[derive(Clone, Debug)]
pub struct CompileOptions {
    pub arch: TargetArch,
    /// `--cpu`: an x86-64 CPU name (`native` for the host) or an `sm_XX` GPU.
    pub cpu: Option<String>,
    pub emit: EmitKind,
    /// `None`: [`MathLowering::Expanded`] on every target. Inline arithmetic vectorizes (about
    /// 8x faster than libm calls on x86-64), needs no libm, and gives the CPU and the GPU the
    /// same numbers; `Libm` calls `expf`/`logf`/`tanhf` instead.
    pub math: Option<MathLowering>,
}

impl CompileOptions {
    pub fn new(arch: TargetArch, emit: EmitKind) -> Self {
        CompileOptions {
            arch,
            cpu: None,
            emit,
            math: None,
        }
    }

    fn math(&self) -> MathLowering {
        match (self.arch, self.math) {
            // NVPTX has no libm to call.
            (TargetArch::Nvptx64, _) => MathLowering::Expanded,
            (_, math) => math.unwrap_or(MathLowering::Expanded),
        }
    }
}

/// Whether `n` is a fusion group node carrying its subgraph (`prim::FusionGroup`, and the
/// TensorExpr/CUDA fuser variants PyTorch prints with a `_N` suffix).
fn fusion_subgraph(g: &Graph, n: Node) -> Option<&Graph> {
    let kind = g.kind(n).as_str();
    let base = kind
        .trim_end_matches(|c: char| c.is_ascii_digit())
        .trim_end_matches('_');
    let is_group = base == sym::fusion_group().as_str()
        || base == sym::tensor_expr_group().as_str()
        || base == "prim::CudaFusionGroup";
    match g.attr(n, sym::attr_subgraph()) {
        Some(AttrValue::Graph(sub)) if is_group => Some(sub),
        _ => None,
    }
}

/// A C identifier from a file stem or method name.
pub fn c_identifier(raw: &str) -> String {
    let mut s: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, '_');
    }
    s
}

/// The kernels of `graph`: one per fusion group node (named `PREFIX_fusion_I`), or, when the
/// graph has none, the whole graph as one kernel named `PREFIX`. `shapes` gives static shapes
/// by input name for inputs whose types lack them.
pub fn collect_kernels(
    graph: &Graph,
    prefix: &str,
    shapes: &HashMap<String, Vec<i64>>,
) -> Result<Vec<ElementwiseKernel>, CodegenError> {
    let prefix = c_identifier(prefix);
    let groups: Vec<(Node, &Graph)> = graph
        .nodes()
        .into_iter()
        .filter_map(|n| fusion_subgraph(graph, n).map(|sub| (n, sub)))
        .collect();
    if groups.is_empty() {
        return Ok(vec![build_kernel(&prefix, graph, None, shapes)?]);
    }
    groups
        .iter()
        .enumerate()
        .map(|(i, &(n, sub))| {
            build_kernel(
                &format!("{prefix}_fusion_{i}"),
                sub,
                Some((graph, n)),
                shapes,
            )
            .map_err(|e| e.in_group(i))
        })
        .collect()
}

/// Compiles `kernels` to the requested output: MLIR text as built (before any pass), LLVM IR
/// text as translated from MLIR (before LLVM's `default<O2>`), or assembly/PTX text or an
/// object file after O2.
pub fn compile(
    kernels: &[ElementwiseKernel],
    opts: &CompileOptions,
) -> Result<Vec<u8>, CodegenError> {
    if kernels.is_empty() {
        return Err(CodegenError::general("nothing to compile: no kernels"));
    }
    match (opts.arch, opts.emit) {
        (TargetArch::Nvptx64, EmitKind::Obj) => {
            return Err(CodegenError::general(
                "nvptx64 has no object files: use --emit=ptx (or asm)",
            ))
        }
        (TargetArch::X86_64, EmitKind::Ptx) => {
            return Err(CodegenError::general("--emit=ptx needs --target nvptx64"))
        }
        _ => {}
    }
    let style = match opts.arch {
        TargetArch::X86_64 => KernelStyle::CpuLoops,
        TargetArch::Nvptx64 => KernelStyle::GpuThreadPerElement,
    };
    let math = opts.math();
    // Checked before any MLIR work so a bad --cpu fails fast.
    let machine = llvm_to_target::target_machine(opts.arch, opts.cpu.as_deref())?;

    let ctx = fusion_to_mlir::new_context();
    // MLIR reports problems through diagnostics; keep them for the error instead of stderr.
    let diagnostics = Rc::new(RefCell::new(Vec::<String>::new()));
    let sink = diagnostics.clone();
    ctx.attach_diagnostic_handler(move |d| {
        sink.borrow_mut().push(d.to_string());
        true
    });
    let with_diagnostics = |e: CodegenError| {
        let notes = diagnostics.borrow();
        if notes.is_empty() {
            e
        } else {
            CodegenError::general(format!("{}: {}", e.message, notes.join("; ")))
        }
    };
    let mut module = fusion_to_mlir::kernels_to_mlir(&ctx, kernels, style, math);
    if !module.as_operation().verify() {
        return Err(with_diagnostics(CodegenError::general(
            "internal error: the generated MLIR does not verify",
        )));
    }
    if opts.emit == EmitKind::Mlir {
        return Ok(format!("{}\n", module.as_operation()).into_bytes());
    }
    mlir_to_llvm::lower_to_llvm_dialect(&ctx, &mut module, math).map_err(with_diagnostics)?;

    let llvm_ctx = inkwell::context::Context::create();
    let llvm_module = mlir_to_llvm::translate_to_llvm_ir(&module, &llvm_ctx, &kernels[0].name)
        .map_err(with_diagnostics)?;
    let names: Vec<String> = kernels.iter().map(|k| k.name.clone()).collect();
    llvm_to_target::prepare_module(&llvm_module, &machine, opts.arch, &names)?;
    if opts.emit == EmitKind::Llvm {
        return Ok(llvm_module.print_to_string().to_bytes().to_vec());
    }
    llvm_to_target::optimize(&llvm_module, &machine)?;
    let file_type = match opts.emit {
        EmitKind::Obj => FileType::Object,
        _ => FileType::Assembly,
    };
    llvm_to_target::emit_machine_code(&llvm_module, &machine, file_type)
}

/// [`collect_kernels`] then [`compile`]: what `emberc` and `ember-opt --emit=mlir|llvm|ptx`
/// do with a graph.
pub fn compile_graph(
    graph: &Graph,
    prefix: &str,
    shapes: &HashMap<String, Vec<i64>>,
    opts: &CompileOptions,
) -> Result<Vec<u8>, CodegenError> {
    compile(&collect_kernels(graph, prefix, shapes)?, opts)
}
