//! The main loop of `ember-run`: load a model, read its ARGs, run it in the interpreter, print
//! the result the way Python prints it, and optionally write it to a directory as result.json
//! plus one `.npy` per tensor, or time it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use ember_dialects::{catalogue, Graph, Node};
use ember_runtime::interpreter::{on_kernel_pool, run as interpret, Code, RuntimeError};
use ember_runtime::ivalue::IValue;
use ember_runtime::npy::write_npy;
use ember_runtime::repr::repr;
use ember_runtime::unit::CompilationUnit;

use super::missing_ops;
use super::run_args::{parse_arg, to_ivalue, Arg};
use crate::frontend::ast::{self, ExprKind, StmtKind};

/// What `ember-run` was asked to do.
pub struct RunOptions {
    pub model: String,
    pub method: Option<String>,
    pub entry: Option<String>,
    pub args: Vec<String>,
    pub out: Option<PathBuf>,
    pub bench: Option<usize>,
    /// Load `.pt` code that calls file or process operators.
    pub allow_file_ops: bool,
    /// Refuse a model that calls an operator Ember lacks, wherever the call is (by default
    /// such a node raises its error only when it runs, after a warning that lists them).
    pub strict: bool,
}

/// What a successful run prints: the result on stdout, timings on stderr.
pub struct RunOutput {
    pub stdout: String,
    pub stderr: String,
}

/// Runs the model; `Err` is the one message to print before exiting with code 1.
pub fn run(opts: &RunOptions) -> Result<RunOutput, String> {
    let (graph, unit, this, defaults) = if opts.model.ends_with(".pt") {
        let (graph, unit, this, defaults) = load_archive(opts)?;
        (graph, unit, this, defaults)
    } else {
        let (graph, unit, defaults) = load(opts)?;
        (graph, unit, None, defaults)
    };
    let (unit_ref, name) = match &unit {
        Some((unit, name)) => (Some(unit), name.as_str()),
        None => (None, "<graph>"),
    };
    let code =
        Code::build_with_options(&graph, unit_ref, name, None, missing_ops::mode(opts.strict))
            .map(Arc::new)
            .map_err(|e| node_error(&graph, &opts.model, Some(e.node), &e.message))?;
    let missing = missing_ops::missing_nodes(&code, unit_ref);
    if !missing.is_empty() {
        // Once, before anything runs; the error itself comes if a run reaches one.
        eprint!(
            "ember-run: warning: {}; the model runs until it reaches one:\n{}",
            missing_ops::headline(&opts.model, &missing),
            missing_ops::report(&missing)
        );
    }
    let inputs = match this {
        // A method: `self` is the loaded module, the ARGs are the rest.
        Some(object) => {
            let mut inputs = vec![object];
            inputs.extend(read_args_from(&graph, 1, &opts.args, &defaults)?);
            inputs
        }
        None => read_args_from(&graph, 0, &opts.args, &defaults)?,
    };
    let (stderr, outputs) = on_kernel_pool(|| {
        let stderr = match opts.bench {
            Some(n) => bench(&code, &inputs, n)?,
            None => String::new(),
        };
        Ok((stderr, interpret(&code, inputs)?))
    })
    .map_err(|e: RuntimeError| runtime_error(&graph, &opts.model, &e))?;
    let result = match outputs.len() {
        1 => outputs.into_iter().next().unwrap(),
        _ => IValue::tuple(outputs),
    };
    if let Some(dir) = &opts.out {
        write_out(dir, &result)?;
    }
    Ok(RunOutput {
        stdout: format!("{}\n", repr(&result)),
        stderr,
    })
}

/// The graph to run and, for source files, the compilation unit its calls resolve through and
/// the function's name.
/// The graph to run, the unit its calls resolve through with the function's name (source
/// files), and the default of each input (when it has one).
type LoadedSource = (
    Graph,
    Option<(Arc<CompilationUnit>, String)>,
    Vec<Option<DefaultArg>>,
);

fn load(opts: &RunOptions) -> Result<LoadedSource, String> {
    let path = Path::new(&opts.model);
    let unsupported = match path.extension().and_then(|e| e.to_str()) {
        Some("ir") => None,
        Some("py") => return load_source(opts),
        Some("pt") => Some("a .pt archive is loaded by load_archive"),
        _ => Some("unknown model kind: expected .ir, .py or .pt"),
    };
    if let Some(why) = unsupported {
        return Err(format!("{}: {why}", opts.model));
    }
    if opts.method.is_some() || opts.entry.is_some() {
        return Err(format!("{}: --method and --entry choose a method or function of a .pt or .py model; a .ir file holds one graph", opts.model));
    }
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read '{}': {e}", opts.model))?;
    let graph = ember_dialects::parse::parse_graph(&text).map_err(|d| d.render(&opts.model))?;
    if let Err(errors) = ember_dialects::verify::verify(&graph) {
        let first = &errors[0];
        return Err(format!("{}: invalid graph: {}", opts.model, first.message));
    }
    Ok((graph, None, Vec::new()))
}

/// The entry function of a TorchScript source file (the last def, or `--entry`) and the
/// file's unit: calls to its other functions and classes run as calls, so errors inside them
/// carry the call stack.
fn load_source(opts: &RunOptions) -> Result<LoadedSource, String> {
    if opts.method.is_some() {
        return Err(format!("{}: --method chooses a method of a .pt model; use --entry for a function of a .py file", opts.model));
    }
    let text = std::fs::read_to_string(&opts.model)
        .map_err(|e| format!("cannot read '{}': {e}", opts.model))?;
    let unit = Arc::new(crate::frontend::compile_source(&opts.model, &text)?);
    unit.set_missing_operators(missing_ops::mode(opts.strict));
    let functions = unit.functions();
    let f = match &opts.entry {
        Some(name) => functions
            .iter()
            .find(|f| f.qualname == *name)
            .ok_or_else(|| format!("{}: no function named '{name}'", opts.model))?,
        None => functions
            .last()
            .ok_or_else(|| format!("{}: the file defines no function", opts.model))?,
    };
    let graph = f.graph.clone();
    let name = f.name().to_string();
    let defaults = source_defaults(&opts.model, &text, &name);
    Ok((graph, Some((unit.clone(), name)), defaults))
}

/// The defaults of top-level def `name`'s parameters, as ARGs: literals, negated numbers and
/// tuples or lists of them (what TorchScript defaults are). `None` for a parameter without a
/// default or with one that is not such a literal.
fn source_defaults(model: &str, text: &str, name: &str) -> Vec<Option<DefaultArg>> {
    let file = crate::frontend::SourceFile::new(model, text);
    let Ok(module) = crate::frontend::parser::parse_module(&file) else {
        return Vec::new();
    };
    let def = module.body.iter().rev().find_map(|s| match &s.kind {
        StmtKind::Def(d) if d.name.name == name => Some(d),
        _ => None,
    });
    def.map_or_else(Vec::new, |d| {
        d.params
            .iter()
            .map(|p| {
                p.default
                    .as_ref()
                    .and_then(literal_arg)
                    .map(DefaultArg::Literal)
            })
            .collect()
    })
}

fn literal_arg(e: &ast::Expr) -> Option<Arg> {
    Some(match &e.kind {
        ExprKind::Int(i) => Arg::Int(i64::try_from(*i).ok()?),
        ExprKind::Float(f) => Arg::Float(*f),
        ExprKind::True => Arg::Bool(true),
        ExprKind::False => Arg::Bool(false),
        ExprKind::None => Arg::None,
        ExprKind::Str(s) => Arg::Str(s.clone()),
        ExprKind::UnaryOp {
            op: ast::UnaryOp::Neg,
            operand,
        } => match literal_arg(operand)? {
            Arg::Int(i) => Arg::Int(i.checked_neg()?),
            Arg::Float(f) => Arg::Float(-f),
            _ => return None,
        },
        ExprKind::List(items) => Arg::List(items.iter().map(literal_arg).collect::<Option<_>>()?),
        ExprKind::Tuple(items) => Arg::Tuple(items.iter().map(literal_arg).collect::<Option<_>>()?),
        _ => return None,
    })
}

/// A method of a `.pt` module (`forward`, or `--method`), the module's unit, the module itself
/// (its `self`) and the method's default arguments.
type Loaded = (
    Graph,
    Option<(Arc<CompilationUnit>, String)>,
    Option<IValue>,
    Vec<Option<DefaultArg>>,
);

/// The default of a parameter: a literal read from source, or a value an archive recorded.
#[derive(Clone)]
enum DefaultArg {
    Literal(Arg),
    Value(IValue),
}

fn load_archive(opts: &RunOptions) -> Result<Loaded, String> {
    if opts.entry.is_some() {
        return Err(format!("{}: --entry chooses a function of a .py file; use --method for a method of a .pt model", opts.model));
    }
    let bytes =
        std::fs::read(&opts.model).map_err(|e| format!("cannot read '{}': {e}", opts.model))?;
    let load = crate::import::LoadOptions {
        allow_file_ops: opts.allow_file_ops,
        strict: opts.strict,
        ..Default::default()
    };
    let module =
        crate::import::load_module(&bytes, &load).map_err(|e| format!("{}: {e}", opts.model))?;
    let name = opts.method.as_deref().unwrap_or("forward");
    let f = module.method(name).ok_or_else(|| {
        format!(
            "{}: the module ({}) has no method '{name}'",
            opts.model,
            module.object.class_name()
        )
    })?;
    let defaults = module
        .defaults
        .get(name)
        .map(|d| d.iter().map(|v| v.clone().map(DefaultArg::Value)).collect())
        .unwrap_or_default();
    Ok((
        f.graph.clone(),
        Some((module.unit.clone(), name.to_string())),
        Some(IValue::Object(module.object.clone())),
        defaults,
    ))
}

/// Reads the ARGs and matches them to the graph's inputs after the first `skip`; inputs after
/// the last ARG take their defaults (`defaults[i]` for input `skip + i`), as a Python call would.
fn read_args_from(
    graph: &Graph,
    skip: usize,
    args: &[String],
    defaults: &[Option<DefaultArg>],
) -> Result<Vec<IValue>, String> {
    let all = graph.inputs();
    let inputs = &all[skip.min(all.len())..];
    let signature = || {
        inputs
            .iter()
            .map(|&v| format!("{}: {}", graph.value_name(v), graph.ty(v)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let defaulted = (args.len()..inputs.len()).all(|i| matches!(defaults.get(i), Some(Some(_))));
    if args.len() > inputs.len() || !defaulted {
        return Err(format!(
            "expected {} arguments ({}), got {}",
            inputs.len(),
            signature(),
            args.len()
        ));
    }
    inputs
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let what = format!(
                "argument {} ({}: {})",
                i + 1,
                graph.value_name(v),
                graph.ty(v)
            );
            let arg = match args.get(i) {
                Some(text) => parse_arg(text).map_err(|e| format!("{what}: '{text}': {e}"))?,
                None => match defaults[i].clone().expect("checked above") {
                    DefaultArg::Literal(arg) => arg,
                    DefaultArg::Value(value) => return Ok(value),
                },
            };
            to_ivalue(&arg, graph.ty(v)).map_err(|e| format!("{what}: {e}"))
        })
        .collect()
}

/// The message for an error at `node`: the message, the node with its source location, and
/// the schema it was resolved to.
fn node_error(graph: &Graph, model: &str, node: Option<Node>, message: &str) -> String {
    format!("{model}: {message}{}", node_context(graph, node))
}

/// What follows an error's message: `\n  in KIND at LOCATION` and `\n  schema: SCHEMA`.
pub(crate) fn node_context(graph: &Graph, node: Option<Node>) -> String {
    let mut out = String::new();
    if let Some(n) = node.filter(|&n| (n.as_u32() as usize) < graph.node_capacity()) {
        let _ = write!(out, "\n  in {}", graph.kind(n));
        if let Some(r) = graph.source_range(n) {
            let _ = write!(out, " at {r}");
        }
        if let Ok(schema) = catalogue::resolve_node(graph, n) {
            let _ = write!(out, "\n  schema: {schema}");
        }
    }
    out
}

/// The message for an error raised while running: as `node_error` at the node of the graph
/// where it surfaced (the outermost call when it happened inside one), then the TorchScript
/// call stack, most recent call last.
fn runtime_error(graph: &Graph, model: &str, e: &RuntimeError) -> String {
    let mut out = node_error(graph, model, e.top_node(), &e.message);
    if !e.call_stack.is_empty() {
        out.push_str("\nTraceback of TorchScript (most recent call last):");
        for entry in &e.call_stack {
            let _ = write!(out, "\n  {entry}");
        }
    }
    out
}

/// Runs the code `n` times and reports the time per call.
fn bench(code: &Code, inputs: &[IValue], n: usize) -> Result<String, RuntimeError> {
    if n == 0 {
        return Err(RuntimeError::new("--bench needs at least one call"));
    }
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        interpret(code, inputs.to_vec())?;
        times.push(start.elapsed());
    }
    times.sort();
    let total: Duration = times.iter().sum();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    Ok(format!(
        "bench: {n} calls, mean {:.3} us, median {:.3} us, min {:.3} us per call\n",
        us(total) / n as f64,
        us(times[n / 2]),
        us(times[0])
    ))
}

/// Writes `dir/result.json` and one `.npy` per tensor, numbered depth-first.
fn write_out(dir: &Path, result: &IValue) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
    let mut count = 0usize;
    let json = to_json(result, dir, &mut count)?;
    let path = dir.join("result.json");
    std::fs::write(&path, format!("{json}\n"))
        .map_err(|e| format!("cannot write '{}': {e}", path.display()))
}

fn to_json(v: &IValue, dir: &Path, count: &mut usize) -> Result<String, String> {
    let items = |xs: &[IValue], count: &mut usize| -> Result<String, String> {
        Ok(xs
            .iter()
            .map(|x| to_json(x, dir, count))
            .collect::<Result<Vec<_>, _>>()?
            .join(","))
    };
    Ok(match v {
        IValue::Tensor(t) => {
            let file = format!("{count}.npy");
            *count += 1;
            let bytes = write_npy(t)?;
            std::fs::write(dir.join(&file), bytes)
                .map_err(|e| format!("cannot write '{file}': {e}"))?;
            let shape = t
                .sizes()
                .iter()
                .map(|s| s.to_string())
                .collect::<Vec<_>>()
                .join(",");
            format!(
                "{{\"type\":\"tensor\",\"file\":\"{file}\",\"dtype\":\"{}\",\"shape\":[{shape}]}}",
                t.dtype().name()
            )
        }
        IValue::Int(i) => format!("{{\"type\":\"int\",\"value\":{i}}}"),
        IValue::Double(d) => format!("{{\"type\":\"float\",\"value\":{}}}", json_float(*d)),
        IValue::Bool(b) => format!("{{\"type\":\"bool\",\"value\":{b}}}"),
        IValue::Str(s) => format!("{{\"type\":\"str\",\"value\":{}}}", json_string(s)),
        IValue::None => "{\"type\":\"none\"}".into(),
        IValue::Tuple(xs) => format!("{{\"type\":\"tuple\",\"items\":[{}]}}", items(xs, count)?),
        IValue::List(l) => format!(
            "{{\"type\":\"list\",\"items\":[{}]}}",
            items(&l.to_vec(), count)?
        ),
        IValue::Dict(d) => {
            let mut entries = Vec::new();
            for (k, v) in d.items() {
                entries.push(format!(
                    "[{},{}]",
                    to_json(&k.to_ivalue(), dir, count)?,
                    to_json(&v, dir, count)?
                ));
            }
            format!("{{\"type\":\"dict\",\"items\":[{}]}}", entries.join(","))
        }
        other => {
            return Err(format!(
                "a result of type {} cannot be written to result.json",
                other.kind_name()
            ))
        }
    })
}

/// JSON has no NaN or infinities; they are written as Python's json module writes and reads
/// them by default (`NaN`, `Infinity`, `-Infinity`).
fn json_float(d: f64) -> String {
    if d.is_nan() {
        "NaN".into()
    } else if d.is_infinite() {
        if d > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else {
        ember_runtime::ivalue::format_float(d)
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
