//! `emberc`: compiles a model's method whole (control flow, scalars, every op) or the fusion
//! groups of a graph to an x86-64 object/assembly, LLVM IR, MLIR, or NVPTX PTX, with a C
//! header.
//!
//! ```text
//! emberc MODEL -o OUT [--method NAME] [--target x86_64|nvptx64] [--cpu NAME]
//!        [--emit=obj|asm|llvm|mlir|ptx] [--header OUT.h] [--shape NAME=2x3:f32 ...]
//!        [--weights embed|file] [--mode whole|groups] [--name C_NAME] [--math=inline|libm]
//!        [--example X.npy ...] [--example-set X.npy,Y.npy ...] [--eval]
//! ```
//!
//! `--mode`: `whole` (the default for `.pt` and `.py` models, and for graph text that is not
//! all fusible) compiles the method into an object that links `libember_runtime.a` and
//! defines an `ember_compiled_model` (see `ember.h`); `groups` compiles fusion groups (or a
//! whole elementwise graph) into standalone kernels. `--weights file` writes the weights to
//! `OUT.weights` beside the object (memory-mapped when the model is opened).
//!
//! `--example X.npy` (repeated: one file per tensor input, in order) gives a whole model sample
//! inputs: the method is profiled on them and its pointwise chains compiled as fusion groups
//! (kernels in the same object), with entry guards for the inputs' profiled types.
//! `--example-set X.npy,Y.npy` gives one more sample, its inputs comma-separated (repeat it for
//! more): the method is profiled on every sample, and a size that differs between them is
//! compiled as unknown, so the object's compiled path serves each of those shapes.
//!
//! `--math` (an Ember extension of the DESIGN.md contract): `inline` (the default) expands
//! exp/log/tanh into arithmetic, the same on every target; `libm` calls `expf`/`logf`/`tanhf`
//! on x86-64 (NVPTX is always inline).
//!
//! The logic lives here, in the compiler crate; tools/emberc only calls [`main_with`]. Errors print as `file:line:col: error: message` (or `emberc: error: message` for
//! command-line mistakes) and exit with status 1.

use std::io::Write;

use crate::codegen::c_header::{c_header, model_header};
use crate::codegen::driver::c_identifier;
use crate::codegen::fusion_to_mlir::MathLowering;
use crate::codegen::whole;
use crate::codegen::{
    collect_kernels, compile, CodegenError, CompileOptions, EmitKind, ErrorSite, TargetArch,
};
use crate::model::{Model, ModelKind, OpenOptions};
use ember_dialects::source::Diagnostic;
use ember_dialects::Graph;
use hashbrown::HashMap;

pub const USAGE: &str = "usage: emberc MODEL -o OUT [--method NAME] [--target x86_64|nvptx64] \
[--cpu NAME] [--emit=obj|asm|llvm|mlir|ptx] [--header OUT.h] [--shape NAME=2x3:f32 ...] \
[--weights embed|file] [--mode whole|groups] [--name C_NAME] [--math=inline|libm] \
[--example X.npy ...] [--example-set X.npy,Y.npy ...] [--eval]";

/// What `emberc` compiles.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mode {
    Whole,
    Groups,
}

/// The parsed command line.
#[derive(Clone, Debug, PartialEq)]
pub struct Args {
    pub model: String,
    /// `-` is stdout.
    pub output: String,
    pub method: Option<String>,
    pub target: TargetArch,
    pub cpu: Option<String>,
    pub emit: EmitKind,
    pub header: Option<String>,
    pub shapes: HashMap<String, Vec<i64>>,
    /// `None`: the compiler's default (inline).
    pub math: Option<MathLowering>,
    /// `--weights file`.
    pub weights_file: bool,
    /// `None`: by the model (see the module's documentation).
    pub mode: Option<Mode>,
    /// `--name`: the C name of the model (default: the file stem, plus `_METHOD` when one is
    /// named).
    pub name: Option<String>,
    /// `--eval`: the module in eval mode first, as `module.eval()` puts it (a module a `.py`
    /// defines is constructed in training mode).
    pub eval: bool,
    /// The samples a whole model is profiled on, each its inputs' .npy files in order:
    /// `--example`s (one file each) make the first, each `--example-set` one more.
    pub examples: Vec<Vec<String>>,
}

/// Parses `NAME=2x3:f32` (`NAME=:f32` is a 0-dim tensor; the dtype may be left out).
pub fn parse_shape(spec: &str) -> Result<(String, Vec<i64>), String> {
    let (name, rest) = spec
        .split_once('=')
        .ok_or_else(|| format!("--shape '{spec}': expected NAME=2x3:f32"))?;
    if name.is_empty() {
        return Err(format!("--shape '{spec}': missing the input name"));
    }
    let (dims, dtype) = rest.split_once(':').unwrap_or((rest, "f32"));
    if dtype != "f32" && dtype != "float32" {
        return Err(format!(
            "--shape '{spec}': only f32 is supported, not '{dtype}'"
        ));
    }
    let mut shape = Vec::new();
    if !dims.is_empty() {
        for d in dims.split('x') {
            let n: i64 = d
                .parse()
                .ok()
                .filter(|&n| n >= 0)
                .ok_or_else(|| format!("--shape '{spec}': '{d}' is not a dimension size"))?;
            shape.push(n);
        }
    }
    Ok((name.to_string(), shape))
}

/// Parses the arguments after the program name.
pub fn parse_args(argv: &[String]) -> Result<Args, String> {
    let mut model = None;
    let mut output = None;
    let mut method = None;
    let mut target = None;
    let mut cpu = None;
    let mut emit = None;
    let mut header = None;
    let mut shapes = HashMap::new();
    let mut math = None;
    let mut weights_file = false;
    let mut mode = None;
    let mut name = None;
    let mut eval = false;
    let mut example = Vec::new();
    let mut examples = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let arg = &argv[i];
        let (flag, inline) = match arg.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (arg.as_str(), None),
        };
        let takes_value = [
            "-o",
            "--method",
            "--target",
            "--cpu",
            "--emit",
            "--header",
            "--shape",
            "--math",
            "--weights",
            "--mode",
            "--name",
            "--example",
            "--example-set",
        ]
        .contains(&flag);
        let value = if takes_value {
            match inline {
                Some(v) => Some(v),
                None => {
                    i += 1;
                    Some(
                        argv.get(i)
                            .cloned()
                            .ok_or_else(|| format!("{flag} needs a value"))?,
                    )
                }
            }
        } else {
            None
        };
        match flag {
            "-o" => output = value,
            "--method" => method = value,
            "--target" => {
                let v = value.unwrap_or_default();
                target = Some(
                    TargetArch::parse(&v)
                        .ok_or_else(|| format!("unknown target '{v}' (x86_64 or nvptx64)"))?,
                );
            }
            "--cpu" => cpu = value,
            "--emit" => {
                let v = value.unwrap_or_default();
                emit =
                    Some(EmitKind::parse(&v).ok_or_else(|| {
                        format!("unknown --emit '{v}' (obj, asm, llvm, mlir, ptx)")
                    })?);
            }
            "--header" => header = value,
            "--math" => {
                math = Some(match value.unwrap_or_default().as_str() {
                    "inline" => MathLowering::Expanded,
                    "libm" => MathLowering::Libm,
                    v => return Err(format!("unknown --math '{v}' (inline or libm)")),
                });
            }
            "--name" => name = value,
            "--example" => example.push(value.unwrap_or_default()),
            "--example-set" => {
                let files: Vec<String> = value
                    .unwrap_or_default()
                    .split(',')
                    .map(str::to_string)
                    .collect();
                if files.iter().any(String::is_empty) {
                    return Err(format!(
                        "--example-set '{}': an empty file name",
                        files.join(",")
                    ));
                }
                examples.push(files);
            }
            "--weights" => {
                weights_file = match value.unwrap_or_default().as_str() {
                    "embed" => false,
                    "file" => true,
                    v => return Err(format!("unknown --weights '{v}' (embed or file)")),
                };
            }
            "--mode" => {
                mode = Some(match value.unwrap_or_default().as_str() {
                    "whole" => Mode::Whole,
                    "groups" => Mode::Groups,
                    v => return Err(format!("unknown --mode '{v}' (whole or groups)")),
                });
            }
            "--shape" => {
                let (name, shape) = parse_shape(&value.unwrap_or_default())?;
                shapes.insert(name, shape);
            }
            "--eval" => eval = true,
            "-h" | "--help" => return Err(USAGE.to_string()),
            _ if flag.starts_with('-') && flag != "-" => {
                return Err(format!("unknown option '{arg}'"))
            }
            _ => {
                if model.replace(arg.clone()).is_some() {
                    return Err(format!("more than one MODEL given ('{arg}')"));
                }
            }
        }
        i += 1;
    }
    let model = model.ok_or("missing MODEL")?;
    let output = output.ok_or("missing -o OUT")?;
    if !example.is_empty() {
        examples.insert(0, example);
    }
    // --emit=ptx implies the NVPTX target.
    let target = target.unwrap_or(if emit == Some(EmitKind::Ptx) {
        TargetArch::Nvptx64
    } else {
        TargetArch::X86_64
    });
    let emit = emit.unwrap_or(match target {
        TargetArch::X86_64 => EmitKind::Obj,
        TargetArch::Nvptx64 => EmitKind::Ptx,
    });
    Ok(Args {
        model,
        output,
        method,
        target,
        cpu,
        emit,
        header,
        shapes,
        math,
        weights_file,
        mode,
        name,
        eval,
        examples,
    })
}

/// The C name of the model (`--name`), or the symbol prefix of the kernels: the model's file
/// stem, plus `_METHOD` when one is named.
pub fn symbol_prefix(args: &Args) -> String {
    if let Some(name) = &args.name {
        return c_identifier(name);
    }
    let stem = std::path::Path::new(&args.model)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("model")
        .to_string();
    let stem = if stem == "-" {
        "model".to_string()
    } else {
        stem
    };
    match &args.method {
        Some(m) => c_identifier(&format!("{stem}_{m}")),
        None => c_identifier(&stem),
    }
}

/// Where in the graph text `site` is: the line that defines the node's first output (or names
/// its kind), inside the `with` subgraph of its fusion group when it is in one. 1-based.
pub fn locate(text: &str, site: &ErrorSite) -> Option<(u32, u32)> {
    let lines: Vec<&str> = text.lines().collect();
    let (start, end) = match site.group {
        None => (
            0,
            lines
                .iter()
                .position(|l| l.starts_with("with "))
                .unwrap_or(lines.len()),
        ),
        Some(g) => {
            // Fusion groups print their subgraphs in node order; other subgraphs (fallback
            // graphs) are not groups.
            const GROUPS: [&str; 3] = [
                "with prim::FusionGroup",
                "with prim::TensorExprGroup",
                "with prim::CudaFusionGroup",
            ];
            let s = (0..lines.len())
                .filter(|&i| GROUPS.iter().any(|p| lines[i].starts_with(p)))
                .nth(g)?;
            let end = (s + 1..lines.len()).find(|&i| lines[i].starts_with("with "));
            (s, end.unwrap_or(lines.len()))
        }
    };
    let defines = |line: &str, name: &str| {
        line.match_indices(&format!("%{name}")).find_map(|(at, m)| {
            let rest = line[at + m.len()..].trim_start();
            (rest.starts_with(':') || rest.starts_with('=') || rest.starts_with(',')).then_some(at)
        })
    };
    if site.kind == "prim::Param" {
        // A graph input: where its parameter is declared, in the header of the graph.
        let name = site.output.as_deref()?;
        return (start..end).find_map(|i| {
            let at = defines(lines[i], name)?;
            Some((i as u32 + 1, at as u32 + 1))
        });
    }
    for (i, line) in lines.iter().enumerate().take(end).skip(start) {
        let code = line.split(" # ").next().unwrap_or(line);
        if !code.contains(&format!("{}(", site.kind)) && !code.contains(&format!("{}[", site.kind))
        {
            continue;
        }
        let col = match &site.output {
            Some(name) => match defines(code, name) {
                Some(at) => at,
                None => continue,
            },
            None => code.find(&site.kind).unwrap_or(0),
        };
        return Some((i as u32 + 1, col as u32 + 1));
    }
    None
}

/// Renders a codegen error against the model text.
pub fn render_error(file: &str, text: &str, e: &CodegenError) -> String {
    let (line, col) = e
        .site
        .as_ref()
        .and_then(|s| locate(text, s))
        .unwrap_or((1, 1));
    let mut msg = e.message.clone();
    if let Some(site) = &e.site {
        if let Some(src) = &site.source {
            msg.push_str(&format!(" (from {src})"));
        }
    }
    format!("{file}:{line}:{col}: error: {msg}")
}

/// Compiles `graph` (parsed from `text`) as `args` asks, writing the output and the header.
/// Returns the message to print on failure.
pub fn run_on_graph(args: &Args, graph: &Graph, text: &str) -> Result<(), String> {
    if !args.examples.is_empty() {
        return Err(
            "emberc: error: --example profiles a model compiled whole; fusion groups \
                    compiled alone (--mode groups) take their shapes from the graph or --shape"
                .into(),
        );
    }
    let prefix = symbol_prefix(args);
    let kernels = collect_kernels(graph, &prefix, &args.shapes)
        .map_err(|e| render_error(&args.model, text, &e))?;
    let mut opts = CompileOptions::new(args.target, args.emit);
    opts.cpu = args.cpu.clone();
    opts.math = args.math;
    let bytes = compile(&kernels, &opts).map_err(|e| render_error(&args.model, text, &e))?;
    write_output(&args.output, &bytes)?;
    if let Some(h) = &args.header {
        write_output(h, c_header(&args.model, &kernels, args.target).as_bytes())?;
    }
    Ok(())
}

fn write_output(path: &str, bytes: &[u8]) -> Result<(), String> {
    if path == "-" {
        let mut out = std::io::stdout().lock();
        out.write_all(bytes)
            .and_then(|_| out.flush())
            .map_err(|e| format!("emberc: error: stdout: {e}"))
    } else {
        std::fs::write(path, bytes).map_err(|e| format!("emberc: error: cannot write {path}: {e}"))
    }
}

/// `text` with the comment lines before the graph (a test's `# RUN:` and `# CHECK:` lines)
/// blanked, so that the graph parser starts at `graph(` and line numbers stay the same.
pub fn blank_leading_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_header = true;
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if in_header && (t.starts_with('#') || t.starts_with("//") || t.trim().is_empty()) {
            out.push_str(if line.ends_with('\n') { "\n" } else { "" });
            continue;
        }
        in_header = false;
        out.push_str(line);
    }
    out
}

/// The whole tool: arguments, reading MODEL, compiling. Returns the process exit status.
pub fn main_with(argv: &[String]) -> i32 {
    let args = match parse_args(argv) {
        Ok(a) => a,
        Err(msg) if msg == USAGE => {
            println!("{USAGE}");
            return 0;
        }
        Err(msg) => {
            eprintln!("emberc: error: {msg}\n{USAGE}");
            return 1;
        }
    };
    let bytes = if args.model == "-" {
        let mut s = Vec::new();
        match std::io::Read::read_to_end(&mut std::io::stdin(), &mut s) {
            Ok(_) => s,
            Err(e) => {
                eprintln!("emberc: error: stdin: {e}");
                return 1;
            }
        }
    } else {
        match std::fs::read(&args.model) {
            Ok(bytes) => bytes,
            Err(e) => {
                eprintln!("emberc: error: cannot read {}: {e}", args.model);
                return 1;
            }
        }
    };
    match compile_model(&args, &bytes) {
        Ok(()) => 0,
        Err(msg) => {
            eprintln!("{msg}");
            1
        }
    }
}

/// Compiles the model `args.model` (whose bytes are `bytes`; `-` is graph text on stdin) as
/// `args` asks; the error is the whole message to print.
pub fn compile_model(args: &Args, bytes: &[u8]) -> Result<(), String> {
    let kind = if args.model == "-" {
        ModelKind::GraphText
    } else {
        ModelKind::of_path(&args.model).map_err(|e| format!("{}:1:1: error: {e}", args.model))?
    };
    if kind == ModelKind::GraphText {
        let text = std::str::from_utf8(bytes)
            .map_err(|_| format!("{}:1:1: error: the file is not UTF-8 text", args.model))?;
        return compile_text(args, text, ember_dialects::parse::parse_graph);
    }
    let mut progress = Progress::new();
    progress.phase("loading");
    let mut model = Model::from_bytes(&args.model, kind, bytes, &OpenOptions::default())
        .map_err(|e| located(&args.model, &e))?;
    if args.eval {
        if model.module.is_none() {
            return Err(format!(
                "emberc: error: --eval puts a module in eval mode, and {} is no module",
                args.model
            ));
        }
        model.eval();
    }
    if args.mode == Some(Mode::Groups) {
        let entry = model
            .entry(args.method.as_deref())
            .map_err(|e| located(&args.model, &e))?;
        // Errors point into the printed graph; each also names its source location.
        let text = entry.graph().to_string();
        return run_on_graph(args, entry.graph(), &text);
    }
    let entry = model
        .entry(args.method.as_deref())
        .map_err(|e| located(&args.model, &e))?;
    let (name, defaults) = (entry.name.clone(), entry.defaults.clone());
    progress.phase("optimizing");
    let (graph, is_method) =
        whole::method_graph(&mut model, &name).map_err(|e| located(&args.model, &e))?;
    let done = compile_whole(
        args,
        &graph,
        is_method,
        &name,
        &defaults,
        &graph.to_string(),
        &mut progress,
    );
    progress.finish();
    done
}

/// A progress bar on stderr (when it is a terminal) for compilations that take more than a
/// second: it appears at the first phase that starts after that second.
struct Progress {
    started: std::time::Instant,
    bar: Option<indicatif::ProgressBar>,
    done: u64,
}

impl Progress {
    const PHASES: u64 = 4;

    fn new() -> Progress {
        Progress {
            started: std::time::Instant::now(),
            bar: None,
            done: 0,
        }
    }

    fn phase(&mut self, name: &'static str) {
        if self.bar.is_none() && self.started.elapsed() > std::time::Duration::from_secs(1) {
            let bar = indicatif::ProgressBar::new(Self::PHASES);
            if let Ok(style) = indicatif::ProgressStyle::with_template(
                "emberc [{bar:20}] {pos}/{len} {msg} ({elapsed})",
            ) {
                bar.set_style(style);
            }
            bar.set_position(self.done.saturating_sub(1));
            self.bar = Some(bar);
        }
        if let Some(bar) = &self.bar {
            bar.set_message(name);
            bar.set_position(self.done);
        }
        self.done += 1;
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Compiles `graph` (a method with `self` first when `is_method`, its inputs after `self`
/// defaulting to `defaults`) whole, writing the output, the weights file and the header;
/// errors are rendered against `text`.
///
/// When the inputs' shapes are given (`--shape`, `--example`), the object carries the memory
/// plan of a call on inputs of those shapes (`whole::record_memory_plan`), so that its first
/// call takes its intermediate buffers from one block.
fn compile_whole(
    args: &Args,
    graph: &Graph,
    is_method: bool,
    method: &str,
    defaults: &[Option<ember_runtime::ivalue::IValue>],
    text: &str,
    progress: &mut Progress,
) -> Result<(), String> {
    if args.target != TargetArch::X86_64 {
        return Err(format!(
            "emberc: error: whole models compile for x86-64 only (--mode groups compiles fusion groups for {})",
            args.target.triple()
        ));
    }
    let mut guards = Vec::new();
    for (name, shape) in &args.shapes {
        let ty = ember_dialects::types::parse_type(&contiguous_float_type(shape))
            .map_err(|d| format!("emberc: error: --shape {name}: {}", d.message))?;
        guards.push((name.clone(), ty));
    }
    guards.sort_by(|a, b| a.0.cmp(&b.0));
    let render = |e: CodegenError| render_error(&args.model, text, &e);
    let mut program = whole::prepare(graph, is_method, &guards, defaults).map_err(render)?;
    let samples = args
        .examples
        .iter()
        .map(|files| files.iter().map(|path| read_example(path)).collect())
        .collect::<Result<Vec<Vec<_>>, String>>()?;
    if !samples.is_empty() {
        let config =
            crate::passes::PassConfig::from_env().map_err(|e| format!("emberc: error: {e}"))?;
        whole::fuse(&mut program, &samples, &config).map_err(render)?;
    }
    // MLIR is the lowering alone: no bundle to carry a plan.
    if args.emit != EmitKind::Mlir {
        let planning = samples
            .into_iter()
            .next()
            .or_else(|| whole::inputs_for_guards(&program));
        if let Some(inputs) = planning {
            progress.phase("planning memory");
            if let Err(why) = whole::plan_memory(&mut program, &inputs) {
                eprintln!(
                    "emberc: warning: no memory plan in the object ({why}): its calls plan their memory from the second on"
                );
            }
        }
    }
    progress.phase("lowering and LLVM code generation");
    let name = symbol_prefix(args);
    let opts = whole::WholeOptions {
        name: name.clone(),
        method: method.to_string(),
        emit: args.emit,
        cpu: args.cpu.clone(),
        weights_file: args.weights_file,
        descriptor: true,
    };
    let compiled = whole::compile(&program, &opts).map_err(render)?;
    write_output(&args.output, &compiled.bytes)?;
    if let Some(weights) = &compiled.weights {
        write_output(&weights_path(&args.output), weights)?;
    }
    if let Some(h) = &args.header {
        let header = model_header(&args.model, &name, &program, method, args.weights_file);
        write_output(h, header.as_bytes())?;
    }
    Ok(())
}

/// The tensor of a sample's `.npy` file.
fn read_example(path: &str) -> Result<ember_runtime::ivalue::IValue, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("emberc: error: --example {path}: {e}"))?;
    ember_runtime::npy::read_npy(&bytes)
        .map(ember_runtime::ivalue::IValue::Tensor)
        .map_err(|e| format!("{path}:1:1: error: {e}"))
}

/// Where `--weights file` puts the weights of the object `output`: beside it, `.weights`.
pub fn weights_path(output: &str) -> String {
    let path = std::path::Path::new(output);
    path.with_extension("weights")
        .to_string_lossy()
        .into_owned()
}

/// The type of a contiguous float32 CPU tensor of `shape`, as the type printer writes it.
fn contiguous_float_type(shape: &[i64]) -> String {
    let mut strides = vec![1i64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1].saturating_mul(shape[i + 1].max(1));
    }
    let join = |v: &[i64]| {
        v.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let sizes = if shape.is_empty() {
        String::new()
    } else {
        format!("{}, ", join(shape))
    };
    format!(
        "Float({sizes}strides=[{}], requires_grad=0, device=cpu)",
        join(&strides)
    )
}

/// `msg` as a `FILE:LINE:COL: error:` line: as it is when it has that form already (a
/// frontend diagnostic), else at 1:1 without the `FILE: ` it may start with.
fn located(file: &str, msg: &str) -> String {
    let rest = msg.strip_prefix(&format!("{file}:")).unwrap_or(msg);
    if rest
        .split(':')
        .next()
        .is_some_and(|l| l.parse::<u32>().is_ok())
    {
        return msg.to_string();
    }
    format!("{file}:1:1: error: {}", rest.trim_start())
}

/// Compiles the graph text `text` as `args` asks; the error is the whole message to print.
pub fn compile_text(
    args: &Args,
    text: &str,
    parse: impl Fn(&str) -> Result<Graph, Diagnostic>,
) -> Result<(), String> {
    let graph = parse(&blank_leading_comments(text)).map_err(|d| d.render(&args.model))?;
    let whole = match args.mode {
        Some(mode) => mode == Mode::Whole,
        // Graph text compiles as kernels when it can (fusion groups, or all elementwise),
        // unless sample inputs ask for a profiled whole model.
        None => {
            args.target == TargetArch::X86_64
                && (!args.examples.is_empty()
                    || collect_kernels(&graph, &symbol_prefix(args), &args.shapes).is_err())
        }
    };
    if whole {
        let mut progress = Progress::new();
        let done = compile_whole(args, &graph, false, "forward", &[], text, &mut progress);
        progress.finish();
        return done;
    }
    run_on_graph(args, &graph, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Result<Args, String> {
        parse_args(&s.split_whitespace().map(String::from).collect::<Vec<_>>())
    }

    #[test]
    fn command_lines() {
        let a = args("m.ir -o - --emit=ptx --shape x=2x3:f32 --shape s=:f32").unwrap();
        assert_eq!(a.target, TargetArch::Nvptx64);
        assert_eq!(a.emit, EmitKind::Ptx);
        assert_eq!(a.shapes["x"], vec![2, 3]);
        assert_eq!(a.shapes["s"], Vec::<i64>::new());
        let a = args("m.ir -o m.o --target x86_64 --cpu native --method forward").unwrap();
        assert_eq!((a.emit, a.cpu.as_deref()), (EmitKind::Obj, Some("native")));
        assert_eq!(symbol_prefix(&a), "m_forward");
        assert_eq!(a.math, None);
        assert_eq!(
            args("m.ir -o - --math libm").unwrap().math,
            Some(MathLowering::Libm)
        );
        assert_eq!(
            args("m.ir -o - --math=inline").unwrap().math,
            Some(MathLowering::Expanded)
        );
        let a = args("m.pt -o m.o --weights file --mode whole --name net").unwrap();
        assert!(a.weights_file);
        assert_eq!(
            (a.mode, symbol_prefix(&a)),
            (Some(Mode::Whole), "net".to_string())
        );
        assert_eq!(weights_path("out/m.o"), "out/m.weights");
        for (bad, want) in [
            (
                "m.pt -o x --weights mmap",
                "unknown --weights 'mmap' (embed or file)",
            ),
            (
                "m.pt -o x --mode all",
                "unknown --mode 'all' (whole or groups)",
            ),
            ("m.ir", "missing -o OUT"),
            ("-o x", "missing MODEL"),
            (
                "m.ir -o x --emit=exe",
                "unknown --emit 'exe' (obj, asm, llvm, mlir, ptx)",
            ),
            (
                "m.ir -o x --target arm",
                "unknown target 'arm' (x86_64 or nvptx64)",
            ),
            (
                "m.ir -o x --shape x=2xq",
                "--shape 'x=2xq': 'q' is not a dimension size",
            ),
            (
                "m.ir -o x --shape x=2:i64",
                "--shape 'x=2:i64': only f32 is supported, not 'i64'",
            ),
            ("m.ir -o x --frob", "unknown option '--frob'"),
            (
                "m.ir -o x --math=fast",
                "unknown --math 'fast' (inline or libm)",
            ),
            ("m.ir -o", "-o needs a value"),
        ] {
            assert_eq!(args(bad).unwrap_err(), want, "{bad}");
        }
    }

    #[test]
    fn errors_point_at_the_defining_line() {
        let text = "graph(%x : Float(2)):\n  %y : Float(2) = aten::exp(%x)\n  return (%y)\n\
                    with prim::FallbackGraph_1 = graph(%0 : Float(2)):\n  %1 : Tensor = aten::sin(%0)\n  return (%1)\n\
                    with prim::FusionGroup_0 = graph(%0 : Float(2)):\n  %1 : Tensor = aten::sin(%0)\n  return (%1)\n";
        let site = |kind: &str, output: &str, group| ErrorSite {
            kind: kind.into(),
            output: Some(output.into()),
            source: None,
            group,
        };
        assert_eq!(locate(text, &site("aten::exp", "y", None)), Some((2, 3)));
        assert_eq!(locate(text, &site("aten::sin", "1", Some(0))), Some((8, 3)));
        assert_eq!(locate(text, &site("aten::sin", "1", None)), None);
        assert_eq!(locate(text, &site("prim::Param", "x", None)), Some((1, 7)));
    }
}
