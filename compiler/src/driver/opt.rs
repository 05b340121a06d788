//! The main loop of `ember-opt`: read the input, split it, parse each chunk, verify, run the
//! passes in order (verifying after each), and emit the result — or check the diagnostics
//! against `expected-error` annotations.

use std::fmt::Write as _;
use std::path::Path;

use ember_dialects::parse::{parse_graph_located, Located};
use ember_dialects::source::Pos;
use ember_dialects::Graph;

use ember_runtime::interpreter::Code;

use super::missing_ops;
use super::split::{expected_errors, split_input, Chunk};
use crate::model::{schemas_by_name, Model, ModelKind, OpenOptions};
use crate::passes::{LogLevel, PassConfig, PassInfo};

/// What `--emit` asks for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Emit {
    Ir,
    Code,
    Dot,
    Mlir,
    Llvm,
    Ptx,
}

impl Emit {
    pub fn parse(s: &str) -> Option<Emit> {
        Some(match s {
            "ir" => Emit::Ir,
            "code" => Emit::Code,
            "dot" => Emit::Dot,
            "mlir" => Emit::Mlir,
            "llvm" => Emit::Llvm,
            "ptx" => Emit::Ptx,
            _ => return None,
        })
    }
}

/// Everything `ember-opt` was asked to do.
pub struct OptOptions {
    /// The input's name as it appears in diagnostics (`-` for stdin).
    pub input_name: String,
    pub passes: Vec<&'static PassInfo>,
    pub split_input_file: bool,
    pub verify_diagnostics: bool,
    pub print_ir_after_all: bool,
    pub verify_each: bool,
    pub emit: Emit,
    pub config: PassConfig,
    /// After the output, print what alias analysis finds (`--print-alias-db`).
    pub print_alias_db: bool,
    /// Freeze the module's `forward` (as `torch.jit.freeze`) and emit only it.
    pub freeze: bool,
    /// `--eval`: the module in eval mode (`training` false) before anything else, as
    /// `module.eval()` puts it.
    pub eval: bool,
    /// Print which operators the input calls that Ember cannot run, instead of the input.
    pub check_ops: bool,
    /// Refuse an input that calls an operator Ember cannot run, with the node, its source
    /// location and schema (the refusal ember-run --strict gives).
    pub strict: bool,
    /// `-o OUT.pt`: write the model, after the passes, as an archive PyTorch loads.
    pub archive_out: Option<std::path::PathBuf>,
}

/// The outcome of a run: text for the output, and whether it failed. Error text has already
/// been written to `errors`.
pub struct OptResult {
    pub output: String,
    pub errors: String,
    pub failed: bool,
}

/// A diagnostic located in one chunk (1-based line and column within the chunk).
struct ChunkDiag {
    pos: Pos,
    message: String,
}

/// Runs `ember-opt` over `text`.
pub fn run(options: &OptOptions, text: &str) -> OptResult {
    let kind = input_kind(&options.input_name);
    let mut result = OptResult {
        output: String::new(),
        errors: String::new(),
        failed: false,
    };
    if let Err(message) = kind {
        let _ = writeln!(
            result.errors,
            "{}:1:1: error: {message}",
            options.input_name
        );
        result.failed = true;
        return result;
    }
    let chunks = if options.split_input_file {
        split_input(text)
    } else {
        vec![Chunk {
            text,
            first_line: 0,
        }]
    };
    let marker = if text.contains("\n// -----") {
        "// -----"
    } else {
        "# -----"
    };
    for (i, chunk) in chunks.iter().enumerate() {
        if i > 0 {
            let _ = writeln!(result.output, "{marker}");
        }
        let (output, diags) = process_chunk(options, chunk.text, &mut result.errors);
        if options.verify_diagnostics {
            if !check_expected(options, chunk, &diags, &mut result.errors) {
                result.failed = true;
            }
        } else if !diags.is_empty() {
            for d in &diags {
                let line = d.pos.line + chunk.first_line;
                let _ = writeln!(
                    result.errors,
                    "{}:{}:{}: error: {}",
                    options.input_name, line, d.pos.col, d.message
                );
            }
            result.failed = true;
        }
        result.output.push_str(&output);
    }
    result
}

/// Runs `ember-opt` over a TorchScript archive: every method of every class of the loaded
/// module (the root's first), through the passes and emitted.
pub fn run_archive(options: &OptOptions, bytes: &[u8]) -> OptResult {
    let mut result = OptResult {
        output: String::new(),
        errors: String::new(),
        failed: false,
    };
    let open = OpenOptions {
        load: crate::import::LoadOptions {
            strict: options.strict,
            ..Default::default()
        },
    };
    let model = match Model::from_bytes(&options.input_name, ModelKind::Archive, bytes, &open) {
        Ok(m) => m,
        Err(e) => {
            let e = e
                .strip_prefix(&format!("{}: ", options.input_name))
                .unwrap_or(&e)
                .to_string();
            let _ = writeln!(result.errors, "{}: error: {e}", options.input_name);
            result.failed = true;
            return result;
        }
    };
    if options.eval {
        model.eval();
    }
    if options.check_ops || options.strict {
        match check_unit_ops(options, &model.unit) {
            Ok(report) if options.check_ops => {
                result.output = report;
                return result;
            }
            Ok(_) => {}
            Err((_, message)) => {
                let _ = writeln!(result.errors, "{}: error: {message}", options.input_name);
                result.failed = true;
                return result;
            }
        }
    }
    if let Some(out) = &options.archive_out {
        if let Err(e) = write_archive_to(options, model, out) {
            let _ = writeln!(result.errors, "{}: error: {e}", options.input_name);
            result.failed = true;
        }
        return result;
    }
    let graphs = if options.freeze {
        match crate::freeze::freeze_graph(&model, "forward", &options.config) {
            Ok((graph, _)) => {
                let f = &model.entry(Some("forward")).expect("frozen").function;
                vec![(f.qualname.clone(), graph, CodeName::method(f.name()))]
            }
            Err(e) => {
                let _ = writeln!(result.errors, "{}: error: {e}", options.input_name);
                result.failed = true;
                return result;
            }
        }
    } else {
        model
            .methods
            .iter()
            .map(|f| {
                (
                    f.qualname.clone(),
                    f.graph.clone(),
                    CodeName::method(f.name()),
                )
            })
            .collect()
    };
    let (output, diags) = emit_graphs(options, graphs, &Schemas::new(), &mut result.errors);
    for d in &diags {
        let _ = writeln!(
            result.errors,
            "{}: error: {}",
            options.input_name, d.message
        );
        result.failed = true;
    }
    result.output = output;
    result
}

/// `-o OUT.pt` for a `.py` or `.ir` input: its entry function (a source's last def, the
/// graph) is written as PyTorch writes a scripted function, after the passes.
pub fn run_source_to_archive(options: &OptOptions, text: &str, out: &Path) -> OptResult {
    let mut result = OptResult {
        output: String::new(),
        errors: String::new(),
        failed: false,
    };
    let model = match ModelKind::of_path(&options.input_name) {
        Ok(ModelKind::Source) => Model::from_source(&options.input_name, text),
        Ok(ModelKind::GraphText) => Model::from_graph_text(&options.input_name, text),
        Ok(ModelKind::Archive) => Err("an archive is read with run_archive".into()),
        Err(e) => Err(e),
    };
    if let Err(e) = model.and_then(|m| write_archive_to(options, m, out)) {
        let _ = writeln!(result.errors, "{}: error: {e}", options.input_name);
        result.failed = true;
    }
    result
}

/// Runs the passes over every method of `model` and writes it to `out` as an archive.
fn write_archive_to(options: &OptOptions, mut model: Model, out: &Path) -> Result<(), String> {
    if model.kind == ModelKind::Source && model.module.is_some() {
        // The module a .py defines, named as its archive names things.
        if options.eval {
            model.eval();
        }
        model = crate::export::source_module(model)?;
    }
    if options.freeze {
        // In PyTorch's ops (Ember's fused kernels are not PyTorch's), as torch.jit.freeze
        // saves it.
        let (graph, _) = crate::freeze::freeze_graph_to(&model, "forward", &options.config, false)?;
        model = crate::export::frozen_model(&model, graph)?;
    }
    let mut log = String::new();
    model.transform_graphs(&mut |name, g| {
        run_passes(options, g, &|_| Pos { line: 1, col: 1 }, &mut log).map_err(|diags| {
            let messages: Vec<String> = diags.into_iter().map(|d| d.message).collect();
            format!("{name}: {}", messages.join("; "))
        })
    })?;
    if model.module.is_none() {
        // A function (the last def of a .py, or an .ir graph) saved as PyTorch saves a
        // scripted function.
        let entry = model.entry(None)?.name.clone();
        model = crate::export::placeholder_model(&model, &entry)?;
    }
    let bytes = crate::export::write_archive(&model, &crate::export::folder_name(out))?;
    crate::export::save(out, &bytes)
}

/// `Ok(())` for inputs this build reads; the message otherwise.
fn input_kind(name: &str) -> Result<(), String> {
    match Path::new(name).extension().and_then(|e| e.to_str()) {
        None if name == "-" => Ok(()),
        Some("ir") => Ok(()),
        Some("py") => Ok(()),
        // Archives are binary: the caller hands them to [`run_archive`].
        Some("pt") => Err("a .pt archive is read with run_archive, not as text".into()),
        Some(other) => Err(format!(
            "unknown input kind '.{other}': expected .ir, .py or .pt"
        )),
        None => Err("input has no extension: expected .ir, .py or .pt".into()),
    }
}

/// Parses, verifies, transforms and emits one chunk. Returns the emitted text and the
/// diagnostics (which stop the chunk at the first failing stage).
fn process_chunk(options: &OptOptions, text: &str, log: &mut String) -> (String, Vec<ChunkDiag>) {
    if Path::new(&options.input_name)
        .extension()
        .and_then(|e| e.to_str())
        == Some("py")
    {
        return process_source(options, text, log);
    }
    let Located {
        mut graph,
        node_positions,
    } = match parse_graph_located(text) {
        Ok(parsed) => parsed,
        Err(d) => {
            return (
                String::new(),
                vec![ChunkDiag {
                    pos: d.pos,
                    message: d.message,
                }],
            )
        }
    };
    let locate = |n| {
        node_positions
            .get(&n)
            .copied()
            .unwrap_or(Pos { line: 1, col: 1 })
    };
    if options.verify_each {
        if let Err(diags) = verify(&graph, &locate) {
            return (String::new(), diags);
        }
    }
    if let Err(diags) = run_passes(options, &mut graph, &locate, log) {
        return (String::new(), diags);
    }
    if options.check_ops || options.strict {
        match check_graph_ops(options, &graph) {
            Ok(report) if options.check_ops => return (report, Vec::new()),
            Ok(_) => {}
            Err((node, message)) => {
                let pos = locate(node);
                return (String::new(), vec![ChunkDiag { pos, message }]);
            }
        }
    }
    // A graph file has no function name; its code prints as `def forward(...)`.
    match emit(options.emit, &graph, &CodeName::function("forward"), None) {
        Ok(text) => (with_alias_db(options, &graph, text), Vec::new()),
        Err(message) => (
            String::new(),
            vec![ChunkDiag {
                pos: Pos { line: 1, col: 1 },
                message,
            }],
        ),
    }
}

/// A TorchScript source chunk: every function of the file, then every method of its classes,
/// each through the passes and emitted in turn.
fn process_source(options: &OptOptions, text: &str, log: &mut String) -> (String, Vec<ChunkDiag>) {
    let model = match Model::compile_source(&options.input_name, text) {
        Ok(model) => model,
        Err(rendered) => return (String::new(), vec![source_diag(&rendered)]),
    };
    if options.check_ops || options.strict {
        model
            .unit
            .set_missing_operators(missing_ops::mode(options.strict));
        match check_unit_ops(options, &model.unit) {
            Ok(report) if options.check_ops => return (report, Vec::new()),
            Ok(_) => {}
            Err((source, message)) => {
                // The node's line when the file is this input.
                let pos = source.filter(|s| *s.file == *options.input_name).map_or(
                    Pos { line: 1, col: 1 },
                    |s| Pos {
                        line: s.line,
                        col: s.col,
                    },
                );
                return (String::new(), vec![ChunkDiag { pos, message }]);
            }
        }
    }
    let mut graphs: Vec<(String, Graph, CodeName)> = model
        .entries
        .iter()
        .map(|e| {
            (
                e.name.clone(),
                e.graph().clone(),
                CodeName::function(&e.name),
            )
        })
        .collect();
    graphs.extend(model.methods.iter().map(|f| {
        (
            f.qualname.clone(),
            f.graph.clone(),
            CodeName::method(f.name()),
        )
    }));
    emit_graphs(options, graphs, &schemas_by_name(&model), log)
}

/// A diagnostic from a rendered frontend error (`name:line:col: error: message` and the
/// highlighted source).
fn source_diag(rendered: &str) -> ChunkDiag {
    let (head, message) = rendered.split_once(": error: ").unwrap_or(("", rendered));
    let mut parts = head.rsplitn(3, ':');
    let col = parts.next().and_then(|c| c.parse().ok()).unwrap_or(1);
    let line = parts.next().and_then(|l| l.parse().ok()).unwrap_or(1);
    ChunkDiag {
        pos: Pos { line, col },
        message: message.to_string(),
    }
}

/// `--check-ops` and `--strict` on one graph: the report of the operators it calls that
/// Ember cannot run, or (`--strict`) the first such node and the refusal's message.
fn check_graph_ops(
    options: &OptOptions,
    graph: &Graph,
) -> Result<String, (ember_dialects::Node, String)> {
    let mode = missing_ops::mode(options.strict);
    let code = Code::build_with_options(graph, None, "<graph>", None, mode)
        .map(std::sync::Arc::new)
        .map_err(|e| (e.node, refusal(graph, e.node, &e.message)))?;
    let missing = missing_ops::missing_nodes(&code, None);
    let name = &options.input_name;
    Ok(format!(
        "{}\n{}",
        missing_ops::headline(name, &missing),
        missing_ops::report(&missing)
    ))
}

/// `--check-ops` and `--strict` on every function of a unit; `Err` is the refusal of the
/// first function that cannot be built (`--strict`) and where its node was written.
fn check_unit_ops(
    options: &OptOptions,
    unit: &std::sync::Arc<ember_runtime::unit::CompilationUnit>,
) -> Result<String, (Option<ember_dialects::SourceRange>, String)> {
    let name = &options.input_name;
    if options.strict {
        for f in missing_ops::unit_functions(unit) {
            if let Err(e) = f.code(Some(unit)) {
                let message = format!("{} (in '{}')", e.message, f.qualname);
                return Err((e.source, refusal(&f.graph, e.node, &message)));
            }
        }
        return Ok(format!("{}\n", missing_ops::headline(name, &[])));
    }
    let missing = missing_ops::missing_in_unit(unit);
    Ok(format!(
        "{}\n{}",
        missing_ops::headline(name, &missing),
        missing_ops::report(&missing)
    ))
}

/// A build error as ember-run reports it: the message, the node with its source location, and
/// its schema.
fn refusal(graph: &Graph, node: ember_dialects::Node, message: &str) -> String {
    format!("{message}{}", super::run::node_context(graph, Some(node)))
}

/// The schemas of a source file's functions by qualified name (their defaults, for code).
type Schemas = std::collections::HashMap<String, ember_dialects::schema::FunctionSchema>;

/// Every graph through the passes and emitted in turn, each under a `# qualname` line; code
/// of a function with a schema in `schemas` prints its signature from it.
fn emit_graphs(
    options: &OptOptions,
    graphs: Vec<(String, Graph, CodeName)>,
    schemas: &Schemas,
    log: &mut String,
) -> (String, Vec<ChunkDiag>) {
    let locate = |_| Pos { line: 1, col: 1 };
    let mut out = String::new();
    for (name, mut graph, code_name) in graphs {
        if options.verify_each {
            if let Err(diags) = verify(&graph, &locate) {
                return (String::new(), diags);
            }
        }
        if let Err(diags) = run_passes(options, &mut graph, &locate, log) {
            return (String::new(), diags);
        }
        // Code prints what PyTorch's `fn.code` shows: the graph after its cleanup (no dead
        // nodes), with the def's signature and defaults.
        if options.emit == Emit::Code {
            let _ = crate::passes::dce::run(
                &mut graph,
                &mut crate::passes::PassContext::unlimited("dce"),
            );
        }
        let schema = schemas.get(&name).filter(|_| !code_name.is_method);
        match emit(options.emit, &graph, &code_name, schema) {
            Ok(text) => {
                let text = with_alias_db(options, &graph, text);
                let _ = write!(out, "# {name}\n{text}");
            }
            Err(message) => {
                return (
                    String::new(),
                    vec![ChunkDiag {
                        pos: Pos { line: 1, col: 1 },
                        message,
                    }],
                )
            }
        }
    }
    (out, Vec::new())
}

/// Runs the requested passes, verifying after each when asked.
fn run_passes(
    options: &OptOptions,
    graph: &mut Graph,
    locate: &dyn Fn(ember_dialects::Node) -> Pos,
    log: &mut String,
) -> Result<(), Vec<ChunkDiag>> {
    let graph = &mut *graph;
    for pass in &options.passes {
        let mut cx = options.config.context_for(pass.name);
        cx.log(LogLevel::Dump, || format!("before {}:\n{graph}", pass.name));
        if let Err(message) = (pass.run)(graph, &mut cx) {
            let message = format!("pass '{}' failed: {message}", pass.name);
            return Err(vec![ChunkDiag {
                pos: Pos { line: 1, col: 1 },
                message,
            }]);
        }
        cx.log(LogLevel::Dump, || format!("after {}:\n{graph}", pass.name));
        if options.print_ir_after_all {
            let _ = write!(
                log,
                "// -----// IR Dump After {} //----- //\n{graph}",
                pass.name
            );
        }
        if options.verify_each {
            if let Err(mut diags) = verify(graph, locate) {
                for d in &mut diags {
                    d.message = format!("after pass '{}': {}", pass.name, d.message);
                }
                return Err(diags);
            }
        }
    }
    Ok(())
}

fn verify(
    graph: &Graph,
    locate: &dyn Fn(ember_dialects::Node) -> Pos,
) -> Result<(), Vec<ChunkDiag>> {
    ember_dialects::verify::verify(graph).map_err(|errors| {
        errors
            .into_iter()
            .map(|e| ChunkDiag {
                pos: locate(e.node),
                message: e.message,
            })
            .collect()
    })
}

/// How `--emit=code` names a graph: a function, or a method (whose `self` prints untyped).
struct CodeName {
    name: String,
    is_method: bool,
}

impl CodeName {
    fn function(name: &str) -> CodeName {
        CodeName {
            name: name.to_string(),
            is_method: false,
        }
    }

    fn method(name: &str) -> CodeName {
        CodeName {
            name: name.to_string(),
            is_method: true,
        }
    }
}

/// `text`, followed by the graph's alias db when `--print-alias-db` asks for it.
fn with_alias_db(options: &OptOptions, graph: &Graph, mut text: String) -> String {
    if options.print_alias_db {
        text.push_str("alias db:\n");
        text.push_str(&crate::analysis::alias::AliasDb::new(graph).to_text(graph));
    }
    text
}

fn emit(
    emit: Emit,
    graph: &Graph,
    code_name: &CodeName,
    schema: Option<&ember_dialects::schema::FunctionSchema>,
) -> Result<String, String> {
    use crate::frontend::python_print::{print_function, print_method};
    match emit {
        Emit::Ir => Ok(graph.to_string()),
        Emit::Dot => Ok(ember_dialects::dot::print_dot(graph)),
        Emit::Code if code_name.is_method => print_method(graph, &code_name.name, None),
        Emit::Code => print_function(graph, &code_name.name, schema),
        Emit::Mlir | Emit::Llvm | Emit::Ptx => emit_lowered(emit, graph),
    }
}

/// The fusion groups (or the whole elementwise graph) lowered as `emberc` lowers them, with
/// kernels named `graph...`: MLIR and LLVM IR for x86-64, PTX for sm_80.
#[cfg(feature = "codegen")]
fn emit_lowered(emit: Emit, graph: &Graph) -> Result<String, String> {
    use crate::codegen::{compile_graph, CompileOptions, EmitKind, TargetArch};
    let opts = match emit {
        Emit::Mlir => CompileOptions::new(TargetArch::X86_64, EmitKind::Mlir),
        Emit::Llvm => CompileOptions::new(TargetArch::X86_64, EmitKind::Llvm),
        _ => CompileOptions::new(TargetArch::Nvptx64, EmitKind::Ptx),
    };
    let bytes = compile_graph(graph, "graph", &Default::default(), &opts).map_err(|e| e.message)?;
    String::from_utf8(bytes).map_err(|_| "the lowered text is not UTF-8".to_string())
}

#[cfg(not(feature = "codegen"))]
fn emit_lowered(_emit: Emit, _graph: &Graph) -> Result<String, String> {
    Err("this build of Ember has no code generation (the `codegen` feature is off)".into())
}

/// Compares the chunk's diagnostics with its `expected-error` annotations; reports every
/// mismatch to `errors` and returns whether all matched.
fn check_expected(
    options: &OptOptions,
    chunk: &Chunk<'_>,
    diags: &[ChunkDiag],
    errors: &mut String,
) -> bool {
    let name = &options.input_name;
    let at = |line: u32| line + chunk.first_line;
    let expected = match expected_errors(chunk.text) {
        Ok(e) => e,
        Err((line, message)) => {
            let _ = writeln!(errors, "{name}:{}:1: error: {message}", at(line));
            return false;
        }
    };
    let mut seen = vec![false; expected.len()];
    let mut ok = true;
    for d in diags {
        let hit = expected
            .iter()
            .enumerate()
            .find(|(i, e)| !seen[*i] && e.line == d.pos.line && d.message.contains(&e.message));
        match hit {
            Some((i, _)) => seen[i] = true,
            None => {
                ok = false;
                let _ = writeln!(
                    errors,
                    "{name}:{}:{}: error: unexpected error: {}",
                    at(d.pos.line),
                    d.pos.col,
                    d.message
                );
            }
        }
    }
    for (e, seen) in expected.iter().zip(seen) {
        if !seen {
            ok = false;
            let _ = writeln!(
                errors,
                "{name}:{}:1: error: expected error \"{}\" was not produced",
                at(e.annotation_line),
                e.message
            );
        }
    }
    ok
}
