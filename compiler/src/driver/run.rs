//! The main loop of `ember-run`: load a model, read its ARGs, run it in the interpreter, print
//! the result the way Python prints it, and optionally write it to a directory as result.json
//! plus one `.npy` per tensor, or time it.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ember_dialects::{catalogue, Graph, Node};
use ember_runtime::interpreter::{run as interpret, Code, RuntimeError};
use ember_runtime::ivalue::IValue;
use ember_runtime::npy::write_npy;
use ember_runtime::repr::repr;

use super::missing_ops;
use super::run_args::{parse_arg, to_ivalue};
use crate::executor::{ExecutorOptions, GraphExecutor};
use crate::freeze::freeze_graph;
use crate::import::LoadOptions;
use crate::model::{Model, ModelKind, OpenOptions};
use crate::passes::PassConfig;
use ember_runtime::aot::CompiledModel;

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
    /// `Some(true)`: freeze the module method even if it writes attributes (they stay
    /// attributes); `Some(false)`: do not freeze; `None`: freeze `.pt` methods that write no
    /// attribute.
    pub freeze: Option<bool>,
    /// `--eval`: the module in eval mode (`training` false), as `module.eval()` puts it.
    pub eval: bool,
    /// Print the graph that runs (after optimization) to stderr.
    pub print_optimized_graph: bool,
    /// Refuse a model that calls an operator Ember lacks, wherever the call is (by default
    /// such a node raises its error only when it runs, after a warning that lists them).
    pub strict: bool,
    /// Run through the profiling executor (fusion groups, compiled kernels); `false` is
    /// `--no-jit`: every node interpreted.
    pub jit: bool,
    /// `--profiling-runs`: calls profiled before specializing (the executor's default if `None`).
    pub profiling_runs: Option<usize>,
    /// `--compile=whole`: the method compiled whole in process (as `emberc` compiles it), the
    /// interpreter running it when its guards fail.
    pub compile_whole: bool,
}

/// What a successful run prints: the result on stdout, timings on stderr.
pub struct RunOutput {
    pub stdout: String,
    pub stderr: String,
}

/// Runs the model; `Err` is the one message to print before exiting with code 1.
pub fn run(opts: &RunOptions) -> Result<RunOutput, String> {
    let mut model = open(opts)?;
    let name = model
        .entry(opts.method.as_deref().or(opts.entry.as_deref()))?
        .name
        .clone();
    let started = Instant::now();
    let mut stderr = optimize(&mut model, &name, opts)?;
    if opts.bench.is_some() {
        let _ = writeln!(
            stderr,
            "optimize: {:.3} ms (load to optimized graph, before the first call)",
            started.elapsed().as_secs_f64() * 1e3
        );
    }
    let entry = model.entry(Some(&name))?;
    let graph = entry.graph();
    let code = entry
        .function
        .code(Some(&model.unit))
        .map_err(|e| node_error(graph, &opts.model, Some(e.node), &e.message))?;
    let missing = missing_ops::missing_nodes(&code, Some(&model.unit));
    if !missing.is_empty() {
        // Once, before anything runs; the error itself comes if a run reaches one.
        eprint!(
            "ember-run: warning: {}; the model runs until it reaches one:\n{}",
            missing_ops::headline(&opts.model, &missing),
            missing_ops::report(&missing)
        );
    }
    let skip = usize::from(entry.is_method);
    let args = read_args_from(graph, skip, &opts.args, &entry.defaults)?;
    let inputs = model.call_inputs(entry, args);
    let runner = if opts.compile_whole {
        match compile_whole(
            graph,
            &model.unit,
            entry.is_method,
            &entry.defaults,
            &inputs,
        ) {
            Ok(model) => Runner::Whole {
                model: Box::new(model),
                skip_self: entry.is_method,
            },
            Err(why) => {
                let _ = writeln!(
                    stderr,
                    "ember-run: warning: '{name}' cannot be compiled whole, the interpreter runs it: {why}"
                );
                Runner::Interpreter(code)
            }
        }
    } else if opts.jit {
        let mut options = ExecutorOptions::from_env()?;
        if let Some(n) = opts.profiling_runs {
            options.profiling_runs = n;
        }
        let executor =
            GraphExecutor::new(graph.clone(), Some(model.unit.clone()), &code.name, options)
                .map_err(|e| runtime_error(graph, &opts.model, &e))?;
        Runner::Executor(Box::new(executor))
    } else {
        Runner::Interpreter(code)
    };
    let (timing, outputs) = (|| {
        let timing = match opts.bench {
            Some(n) => bench(&runner, &inputs, n)?,
            None => String::new(),
        };
        Ok((timing, runner.run(inputs)?))
    })()
    .map_err(|e: RuntimeError| runtime_error(&runner.graph(graph), &opts.model, &e))?;
    if opts.print_optimized_graph {
        let _ = write!(stderr, "{}", runner.graph(graph));
    }
    let result = match outputs.len() {
        1 => outputs.into_iter().next().unwrap(),
        _ => IValue::tuple(outputs),
    };
    if let Some(dir) = &opts.out {
        write_out(dir, &result)?;
    }
    stderr.push_str(&timing);
    Ok(RunOutput {
        stdout: format!("{}\n", repr(&result)),
        stderr,
    })
}

/// Optimizes the model before it runs: a module method (of a `.pt`, or of the module a `.py`
/// defines) is frozen (when it writes no attribute, or `--freeze` says so), anything else
/// goes through the optimization pipeline (without inlining, so errors keep their
/// TorchScript call stack). Returns what to report on stderr.
fn optimize(model: &mut Model, entry: &str, opts: &RunOptions) -> Result<String, String> {
    let config = PassConfig::from_env()?;
    let is_method = model.module.is_some() && model.entry(Some(entry))?.is_method;
    if is_method && opts.freeze != Some(false) {
        let (graph, report) = freeze_graph(model, entry, &config)?;
        if report.written.is_empty() || opts.freeze == Some(true) {
            install_graph(model, entry, graph);
            return Ok(String::new());
        }
        if opts.print_optimized_graph {
            // Said only when asked: the run itself is unchanged.
            return Ok(format!(
                "not frozen: '{entry}' writes {} (--freeze freezes it anyway)\n",
                report.written.join(", ")
            ));
        }
    }
    model.optimize_graphs(&config)?;
    Ok(String::new())
}

fn install_graph(model: &mut Model, entry: &str, graph: Graph) {
    if let Some(e) = model.entries.iter_mut().find(|e| e.name == entry) {
        e.function = std::sync::Arc::new(ember_runtime::unit::Function::new(
            e.function.qualname.clone(),
            graph,
        ));
    }
}

/// Opens the model, checking that `--method` and `--entry` fit its kind.
fn open(opts: &RunOptions) -> Result<Model, String> {
    let kind = ModelKind::of_path(&opts.model)?;
    let misuse = match kind {
        ModelKind::Archive if opts.entry.is_some() => Some("--entry chooses a function of a .py file; use --method for a method of a .pt model"),
        ModelKind::GraphText if opts.method.is_some() || opts.entry.is_some() => Some("--method and --entry choose a method or function of a .pt or .py model; a .ir file holds one graph"),
        _ => None,
    };
    if let Some(why) = misuse {
        return Err(format!("{}: {why}", opts.model));
    }
    let open = OpenOptions {
        load: LoadOptions {
            allow_file_ops: opts.allow_file_ops,
            strict: opts.strict,
            ..Default::default()
        },
    };
    let model = Model::open(&opts.model, &open)?;
    if opts.eval {
        if model.module.is_none() {
            return Err(format!(
                "{}: --eval puts a module in eval mode, and the model is no module",
                opts.model
            ));
        }
        model.eval();
    }
    if opts.method.is_some() && model.module.is_none() {
        return Err(format!(
            "{}: --method chooses a method of a module, and the file defines no nn.Module; use --entry for a function of a .py file",
            opts.model
        ));
    }
    Ok(model)
}

/// Reads the ARGs and matches them to the graph's inputs after the first `skip`; inputs after
/// the last ARG take their defaults (`defaults[i]` for input `skip + i`), as a Python call would.
fn read_args_from(
    graph: &Graph,
    skip: usize,
    args: &[String],
    defaults: &[Option<IValue>],
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
    // Inputs left out take their defaults where the model is called.
    inputs[..args.len()]
        .iter()
        .zip(args)
        .enumerate()
        .map(|(i, (&v, text))| {
            let what = format!(
                "argument {} ({}: {})",
                i + 1,
                graph.value_name(v),
                graph.ty(v)
            );
            let arg = parse_arg(text).map_err(|e| format!("{what}: '{text}': {e}"))?;
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

/// The method compiled whole and linked into this process, its fusion groups made from a
/// profile of this call's `inputs`.
#[cfg(feature = "codegen")]
fn compile_whole(
    graph: &Graph,
    unit: &ember_runtime::unit::CompilationUnit,
    is_method: bool,
    defaults: &[Option<IValue>],
    inputs: &[IValue],
) -> Result<CompiledModel, String> {
    use crate::codegen::whole;
    let config = PassConfig::from_env()?;
    let ready = whole::ready_graph(graph, unit, &config)?;
    let text = ready.to_string();
    let render = |e| crate::driver::emberc::render_error("<optimized graph>", &text, &e);
    let mut program = whole::prepare(&ready, is_method, &[], defaults).map_err(render)?;
    let sample = inputs[usize::from(is_method).min(inputs.len())..].to_vec();
    whole::fuse(&mut program, &[sample], &config).map_err(render)?;
    whole::compile_in_process(&program).map_err(render)
}

#[cfg(not(feature = "codegen"))]
fn compile_whole(
    _: &Graph,
    _: &ember_runtime::unit::CompilationUnit,
    _: bool,
    _: &[Option<IValue>],
    _: &[IValue],
) -> Result<CompiledModel, String> {
    Err("this build of Ember has no code generation (the compiler's `codegen` feature)".into())
}

/// What runs the method: the executor, the method compiled whole (`--compile=whole`), or
/// (`--no-jit`) the interpreter alone.
enum Runner {
    Executor(Box<GraphExecutor>),
    Whole {
        model: Box<CompiledModel>,
        /// The inputs start with `self`, which the compiled (frozen) method does not take.
        skip_self: bool,
    },
    Interpreter(std::sync::Arc<Code>),
}

impl Runner {
    fn run(&self, mut inputs: Vec<IValue>) -> Result<Vec<IValue>, RuntimeError> {
        match self {
            Runner::Executor(e) => e.run(inputs),
            Runner::Whole { model, skip_self } => {
                if *skip_self && !inputs.is_empty() {
                    inputs.remove(0);
                }
                model
                    .run(inputs)
                    .map(|v| vec![v])
                    .map_err(RuntimeError::new)
            }
            Runner::Interpreter(code) => interpret(code, inputs),
        }
    }

    /// How many calls run before the first one that runs the optimized plan, that one included.
    fn calls_to_plan(&self) -> usize {
        match self {
            Runner::Executor(e) => e.profiling_runs() + 1,
            Runner::Whole { .. } | Runner::Interpreter(_) => 1,
        }
    }

    /// How the optimized calls used their planned memory (the executor's plan running now, or
    /// `--compile=whole`).
    fn memory_report(&self) -> Option<String> {
        let m = match self {
            Runner::Whole { model, .. } => model.memory_stats(),
            Runner::Executor(e) => e.memory_stats()?,
            Runner::Interpreter(_) => return None,
        };
        Some(format!(
            "planned memory: {} intermediate buffers per call in a block of {:.1} KiB ({} block(s)); {} allocations served from it, {} not\n",
            m.planned,
            m.block_bytes as f64 / 1024.0,
            m.blocks,
            m.served,
            m.missed
        ))
    }

    /// The graph that ran last (errors name its nodes).
    fn graph(&self, optimized: &Graph) -> Graph {
        match self {
            Runner::Executor(e) => e.last_executed_graph(),
            Runner::Whole { model, .. } => model.graph().clone(),
            Runner::Interpreter(_) => optimized.clone(),
        }
    }
}

/// Calls made before timing: the executor profiles and compiles in the first ones.
const WARM_UP_CALLS: usize = 3;

/// Times the calls until the first one that runs the executor's plan (profiling, specializing
/// and compiling included; the first call alone with `--no-jit`), then `n` calls after
/// warm-up, and reports the time per call.
fn bench(runner: &Runner, inputs: &[IValue], n: usize) -> Result<String, RuntimeError> {
    if n == 0 {
        return Err(RuntimeError::new("--bench needs at least one call"));
    }
    let first_calls = runner.calls_to_plan();
    let start = Instant::now();
    for _ in 0..first_calls {
        runner.run(inputs.to_vec())?;
    }
    let first = start.elapsed();
    for _ in first_calls..WARM_UP_CALLS.max(first_calls) {
        runner.run(inputs.to_vec())?;
    }
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let start = Instant::now();
        runner.run(inputs.to_vec())?;
        times.push(start.elapsed());
    }
    times.sort();
    let total: Duration = times.iter().sum();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let warm = WARM_UP_CALLS.max(first_calls);
    Ok(format!(
        "first calls: {first_calls} in {:.3} us (profiling, specializing and compiling included)\nbench: {n} calls after {warm} warm-up, mean {:.3} us, median {:.3} us, min {:.3} us per call\n{}",
        us(first),
        us(total) / n as f64,
        us(times[n / 2]),
        us(times[0]),
        runner.memory_report().unwrap_or_default()
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
