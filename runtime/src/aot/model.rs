//! [`CompiledModel`]: a compiled method with its program, run compiled when the entry guards
//! hold and interpreted otherwise.

use std::ffi::{c_char, c_void, CStr};
use std::path::Path;

use ember_dialects::parse::parse_graph;
use ember_dialects::types::parse_type;
use ember_dialects::Type;

use super::bundle::Bundle;
use super::context::{Context, Program};
use crate::guard::value_matches;
use crate::interpreter::run as interpret;
use crate::ivalue::IValue;
use crate::tensor::arena::{CallMemory, CallMemoryStats, MemoryPlan};
use crate::unit::Function;

/// A compiled method: `ctx` is a [`Context`]; 0 on success, 1 when a call failed.
pub type EntryFn = unsafe extern "C" fn(ctx: *mut c_void) -> i32;

/// The version of `ember_compiled_model` and of the `ember_rt_*` calls this runtime serves.
pub const EMBER_ABI_VERSION: u32 = 1;
/// `ember_compiled_model::flags`: the weights are in a file beside the object.
pub const EMBER_WEIGHTS_EXTERNAL: u32 = 1;

/// What an object file compiled by `emberc` defines (`struct ember_compiled_model` of
/// `ember.h`; the layout is the contract's).
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct ember_compiled_model {
    pub abi_version: u32,
    pub flags: u32,
    pub name: *const c_char,
    pub method: *const c_char,
    pub bundle: *const u8,
    pub bundle_len: u64,
    pub entry: Option<EntryFn>,
    pub num_registers: u64,
}

// SAFETY: a description in read-only static data: pointers to constant bytes and code.
unsafe impl Sync for ember_compiled_model {}

/// A compiled model's method, ready to run from any number of threads at once.
pub struct CompiledModel {
    name: String,
    program: Program,
    /// The interpreter's function for the same graph: the fallback.
    function: Function,
    input_names: Vec<String>,
    guards: Vec<Type>,
    /// The defaults of the last user inputs (a call may leave them out).
    defaults: Vec<IValue>,
    weights: Vec<IValue>,
    entry: Option<EntryFn>,
    num_registers: usize,
    n_outputs: usize,
    interpret_only: bool,
    /// The compiled calls' planned intermediate buffers (the interpreter's fallback runs
    /// without).
    memory: CallMemory,
}

impl std::fmt::Debug for CompiledModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompiledModel")
            .field("name", &self.name)
            .field("input_names", &self.input_names)
            .field("compiled", &self.entry.is_some())
            .finish_non_exhaustive()
    }
}

/// `EMBER_AOT`: unset or empty runs compiled code; `interpret` forces the interpreter.
pub fn interpret_only_from(value: Option<&str>) -> Result<bool, String> {
    match value.map(str::trim) {
        None | Some("") => Ok(false),
        Some("interpret") => Ok(true),
        Some(other) => Err(format!(
            "EMBER_AOT: '{other}' is not a mode (the one mode is 'interpret')"
        )),
    }
}

impl CompiledModel {
    /// Opens the model an object file defines. `weights` is the weights file of a model
    /// compiled with external weights (and must be `None` otherwise).
    ///
    /// # Safety
    /// `model` is what `emberc` wrote: its `bundle` points to `bundle_len` bytes that live for
    /// the whole program, `name`/`method` are null or NUL-terminated, and `entry` follows the
    /// contract of [`crate::aot`].
    pub unsafe fn open(
        model: &'static ember_compiled_model,
        weights: Option<&Path>,
    ) -> Result<CompiledModel, String> {
        if model.abi_version != EMBER_ABI_VERSION {
            return Err(format!(
                "the model was compiled for ABI version {}; this runtime serves version {EMBER_ABI_VERSION}",
                model.abi_version
            ));
        }
        if model.bundle.is_null() {
            return Err("the model has no bundle (null pointer)".into());
        }
        let len = usize::try_from(model.bundle_len)
            .ok()
            .filter(|&l| l <= isize::MAX as usize)
            .ok_or_else(|| format!("bundle length {} is too large", model.bundle_len))?;
        let bytes: &'static [u8] = std::slice::from_raw_parts(model.bundle, len);
        let external = Bundle::weights_external(bytes)?;
        if external != (model.flags & EMBER_WEIGHTS_EXTERNAL != 0) {
            return Err(
                "the model's flags and its bundle disagree on where the weights are".into(),
            );
        }
        let bundle = Bundle::parse(bytes, weights)?;
        let registers = usize::try_from(model.num_registers)
            .map_err(|_| format!("{} registers is too many", model.num_registers))?;
        let text = |p: *const c_char| {
            (!p.is_null()).then(|| CStr::from_ptr(p).to_string_lossy().into_owned())
        };
        let method = text(model.method).unwrap_or_else(|| "forward".into());
        let name = match text(model.name) {
            Some(name) => format!("{name}.{method}"),
            None => method,
        };
        CompiledModel::assemble(bundle, model.entry, registers, name)
    }

    /// A model from its parts, as the in-process compiler makes it: the program, the
    /// compiled method (`None`: interpreter only) and the registers it uses.
    ///
    /// # Safety
    /// `entry` follows the contract of [`crate::aot`] for the bundle's graph and
    /// `num_registers`: running it is running arbitrary native code.
    pub unsafe fn from_parts(
        bundle: Bundle,
        entry: Option<EntryFn>,
        num_registers: usize,
    ) -> Result<CompiledModel, String> {
        CompiledModel::assemble(bundle, entry, num_registers, "forward".into())
    }

    fn assemble(
        bundle: Bundle,
        entry: Option<EntryFn>,
        num_registers: usize,
        name: String,
    ) -> Result<CompiledModel, String> {
        let graph =
            parse_graph(&bundle.graph_text).map_err(|d| format!("the bundle's graph: {d}"))?;
        let n_inputs = bundle.n_user_inputs + bundle.weights.len();
        if graph.inputs().len() != n_inputs {
            return Err(format!(
                "the bundle's graph has {} inputs; {} user inputs and {} weights make {n_inputs}",
                graph.inputs().len(),
                bundle.n_user_inputs,
                bundle.weights.len()
            ));
        }
        if bundle.input_names.len() != bundle.n_user_inputs
            || bundle.guard_types.len() != bundle.n_user_inputs
        {
            return Err(format!(
                "{} user inputs but {} names and {} guard types",
                bundle.n_user_inputs,
                bundle.input_names.len(),
                bundle.guard_types.len()
            ));
        }
        let guards = bundle
            .guard_types
            .iter()
            .zip(&bundle.input_names)
            .map(|(t, name)| {
                parse_type(t).map_err(|d| format!("the guard type of input '{name}': {d}"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let weight_tensors = bundle.weights.clone();
        let weights: Vec<IValue> = bundle.weights.into_iter().map(IValue::Tensor).collect();
        for (i, (w, &v)) in weights
            .iter()
            .zip(&graph.inputs()[bundle.n_user_inputs..])
            .enumerate()
        {
            if !value_matches(graph.ty(v), w) {
                return Err(format!(
                    "weight {i} does not have the type its graph input states ({})",
                    graph.ty(v)
                ));
            }
        }
        let defaults = evaluate_defaults(&bundle.defaults)?;
        if defaults.len() > bundle.n_user_inputs {
            return Err(format!(
                "{} defaults for {} user inputs",
                defaults.len(),
                bundle.n_user_inputs
            ));
        }
        let n_outputs = graph.outputs().len();
        if entry.is_some() && num_registers < n_inputs + n_outputs {
            return Err(format!(
                "{num_registers} registers cannot hold {n_inputs} inputs and {n_outputs} outputs"
            ));
        }
        let interpret_only = interpret_only_from(std::env::var("EMBER_AOT").ok().as_deref())?;
        // The interpreter runs the graph with the weights as constants too.
        let program = Program::with_weights(graph, bundle.n_user_inputs, &weight_tensors);
        let memory = bundle
            .memory_plan
            .map_or_else(CallMemory::new, CallMemory::with_plan);
        Ok(CompiledModel {
            function: Function::new(name.clone(), program.graph().clone()),
            name,
            program,
            input_names: bundle.input_names,
            guards,
            defaults,
            weights,
            entry,
            num_registers,
            n_outputs,
            interpret_only,
            memory,
        })
    }

    /// The user inputs' names, in order.
    pub fn input_names(&self) -> &[String] {
        &self.input_names
    }

    pub fn num_inputs(&self) -> usize {
        self.input_names.len()
    }

    /// `model.method`, as errors name it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The graph the compiled code was lowered from (and the fallback interprets), as the
    /// bundle holds it.
    pub fn graph(&self) -> &ember_dialects::Graph {
        &self.function.graph
    }

    /// Forces (or stops forcing) the interpreter, as `EMBER_AOT=interpret` does.
    pub fn set_interpret_only(&mut self, on: bool) {
        self.interpret_only = on;
    }

    /// Whether `inputs` satisfy the guards the compiled code was specialized for.
    pub fn guards_hold(&self, inputs: &[IValue]) -> bool {
        inputs.len() == self.guards.len()
            && self
                .guards
                .iter()
                .zip(inputs)
                .all(|(ty, v)| value_matches(ty, v))
    }

    /// Runs the method on the user's inputs: the compiled code when the guards hold, the
    /// interpreter otherwise. A method returns one value (several outputs come as a tuple).
    pub fn run(&self, inputs: Vec<IValue>) -> Result<IValue, String> {
        let inputs = self.with_defaults(inputs)?;
        let entry = self
            .entry
            .filter(|_| !self.interpret_only && self.guards_hold(&inputs));
        match entry {
            Some(entry) => self.run_compiled(entry, inputs),
            None => self.interpret(inputs),
        }
    }

    /// Runs the method in the interpreter whatever the guards say.
    pub fn run_interpreted(&self, inputs: Vec<IValue>) -> Result<IValue, String> {
        let inputs = self.with_defaults(inputs)?;
        self.interpret(inputs)
    }

    /// Whether `inputs` are as many as the method takes, counting the defaults of the last
    /// ones; the error names them.
    pub fn check_count(&self, inputs: &[IValue]) -> Result<(), String> {
        let all = self.input_names.len();
        if (all - self.defaults.len()..=all).contains(&inputs.len()) {
            return Ok(());
        }
        let least = all - self.defaults.len();
        let takes = if least == all {
            all.to_string()
        } else {
            format!("{least} to {all}")
        };
        Err(format!(
            "{} takes {takes} inputs ({}), got {}",
            self.name,
            self.input_names.join(", "),
            inputs.len()
        ))
    }

    /// `inputs` with the inputs left out given their defaults.
    fn with_defaults(&self, mut inputs: Vec<IValue>) -> Result<Vec<IValue>, String> {
        self.check_count(&inputs)?;
        let first_default = self.input_names.len() - self.defaults.len();
        for i in inputs.len()..self.input_names.len() {
            inputs.push(self.defaults[i - first_default].clone());
        }
        Ok(inputs)
    }

    fn interpret(&self, inputs: Vec<IValue>) -> Result<IValue, String> {
        let code = self.function.code(None).map_err(|e| e.to_string())?;
        let mut all = inputs;
        all.extend(self.weights.iter().cloned());
        let outputs = interpret(&code, all).map_err(|e| e.to_string())?;
        Ok(one_value(outputs))
    }

    /// How the compiled calls used their planned memory.
    pub fn memory_stats(&self) -> CallMemoryStats {
        self.memory.stats()
    }

    /// The plan the compiled calls' intermediate buffers are served from: the bundle's, or the
    /// one recorded on the second call (what `emberc` embeds).
    pub fn memory_plan(&self) -> Option<MemoryPlan> {
        self.memory.plan()
    }

    /// Runs the compiled code with its intermediate buffers in planned memory (from the
    /// bundle's plan, or from the third call on: the second records what it allocates).
    fn run_compiled(&self, entry: EntryFn, inputs: Vec<IValue>) -> Result<IValue, String> {
        self.memory.scope(|| self.call_entry(entry, inputs))
    }

    fn call_entry(&self, entry: EntryFn, inputs: Vec<IValue>) -> Result<IValue, String> {
        let mut cx = Context::new(&self.program, self.num_registers);
        let n_inputs = inputs.len() + self.weights.len();
        for (r, v) in inputs
            .into_iter()
            .chain(self.weights.iter().cloned())
            .enumerate()
        {
            cx.set(r, v)?;
        }
        // SAFETY: `entry` follows the contract (promised to `from_parts`/`open`) and `cx`
        // lives, used by this thread only, until it returns.
        let rc = unsafe { entry(cx.as_ptr()) };
        if let Some(e) = cx.error() {
            return Err(e.to_string());
        }
        if rc != 0 {
            return Err(format!(
                "{}: the compiled code failed (returned {rc}) without saying why",
                self.name
            ));
        }
        let outputs = (0..self.n_outputs)
            .map(|j| {
                cx.take(n_inputs + j).ok_or_else(|| {
                    format!("{}: the compiled code left output {j} unset", self.name)
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(one_value(outputs))
    }
}

/// A method's result: its one output, or a tuple of several.
fn one_value(mut outputs: Vec<IValue>) -> IValue {
    if outputs.len() == 1 {
        outputs.pop().unwrap_or(IValue::None)
    } else {
        IValue::tuple(outputs)
    }
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;

/// The values of the defaults' graph (constants, returned in order); none for empty text.
fn evaluate_defaults(text: &str) -> Result<Vec<IValue>, String> {
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let graph = parse_graph(text).map_err(|d| format!("the bundle's defaults: {d}"))?;
    if !graph.inputs().is_empty() {
        return Err("the bundle's defaults graph takes inputs".into());
    }
    let code = Function::new("defaults", graph)
        .code(None)
        .map_err(|e| format!("the bundle's defaults: {e}"))?;
    interpret(&code, Vec::new()).map_err(|e| format!("the bundle's defaults: {e}"))
}
