//! The profiling graph executor (PyTorch's `ProfilingGraphExecutorImpl`): the first calls run
//! the graph instrumented with profile nodes; then the profiled graph is specialized, fused
//! and guarded (`specialize-profiled-types`, `fuse-tensor-exprs`, `guard-tensor-exprs`) and
//! every later call runs that plan, its groups as compiled kernels. A call whose guards fail
//! runs the fallback in the interpreter; such a call makes the executor profile again and
//! build a more general plan (what both profiles saw), up to a bounded number of plans.
//! Nothing here fails a call the interpreter would complete: a plan that cannot be built
//! leaves the graph to the interpreter.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Node};
use ember_runtime::interpreter::{run as interpret, Code, RuntimeError};
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::arena::{CallMemory, CallMemoryStats};
use ember_runtime::unit::CompilationUnit;

use super::groups::{group_operation, is_group};
use super::guards::{type_check, Chaos};
use super::profile::ProfileRecord;
use crate::passes::{lookup, LogLevel, PassConfig, PassContext};

/// PyTorch's default number of profiling runs (`torch._C._jit_set_num_profiled_runs`).
pub const DEFAULT_PROFILING_RUNS: usize = 1;

/// Plans built per graph before the last one stays, whatever its guards say (PyTorch's
/// fusion strategy allows 2 static and 10 dynamic specializations).
pub const MAX_PLANS: usize = 8;

/// The passes that turn a profiled graph into the plan that runs.
pub const SPECIALIZATION_PIPELINE: &[&str] = &[
    "specialize-profiled-types",
    "unroll-constant-loops",
    "fuse-tensor-exprs",
    "guard-tensor-exprs",
    "dce",
];

#[derive(Clone, Debug)]
pub struct ExecutorOptions {
    pub profiling_runs: usize,
    /// Compile fusion groups to kernels (otherwise they are interpreted).
    pub jit: bool,
    pub max_plans: usize,
    pub chaos: Option<Arc<Chaos>>,
    pub config: PassConfig,
}

impl ExecutorOptions {
    /// Defaults, with `EMBER_JIT_CHAOS` and the pass settings from the environment.
    pub fn from_env() -> Result<ExecutorOptions, String> {
        Ok(ExecutorOptions {
            profiling_runs: DEFAULT_PROFILING_RUNS,
            jit: true,
            max_plans: MAX_PLANS,
            chaos: Chaos::from_env()?,
            config: PassConfig::from_env()?,
        })
    }
}

/// Code built from one plan, with the count of its guards that failed.
struct Plan {
    graph: Arc<Graph>,
    code: Arc<Code>,
    guard_failures: Arc<AtomicUsize>,
    /// The intermediate buffers of its calls, planned from its second call on.
    memory: CallMemory,
}

enum Phase {
    /// Calls run the instrumented graph; `runs_left` more before a plan is built.
    Profiling {
        runs_left: usize,
    },
    Running(Arc<Plan>),
}

struct State {
    phase: Phase,
    /// Everything profiled so far: each new plan generalizes the ones before it.
    record: ProfileRecord,
    plans_built: usize,
    /// The plan that ran last, for `--print-optimized-graph`.
    last: Option<Arc<Graph>>,
}

/// Runs one graph (a method's, after the graph passes and freezing) through profiling,
/// specialization and compiled kernels.
pub struct GraphExecutor {
    name: String,
    unit: Option<Arc<CompilationUnit>>,
    options: ExecutorOptions,
    /// The graph with profile nodes, and its code recording into `recording`.
    instrumented: Graph,
    profiling_code: Arc<Code>,
    recording: ProfileRecord,
    /// The graph as given, interpreted: the plan when no specialization can be built.
    generic: Arc<Plan>,
    state: Mutex<State>,
}

impl GraphExecutor {
    pub fn new(
        graph: Graph,
        unit: Option<Arc<CompilationUnit>>,
        name: &str,
        options: ExecutorOptions,
    ) -> Result<GraphExecutor, RuntimeError> {
        let mut instrumented = graph.clone();
        let pass = lookup("insert-profiles").expect("insert-profiles is a pass");
        (pass.run)(&mut instrumented, &mut PassContext::unlimited(pass.name))
            .map_err(RuntimeError::new)?;
        let recording = ProfileRecord::default();
        let hook = {
            let recording = recording.clone();
            move |g: &Graph, n: Node| recording.operation(g, n).map(Ok)
        };
        let profiling_code = Code::build_with(&instrumented, unit.as_ref(), name, Some(&hook))
            .map_err(|e| RuntimeError::new(e.message))?;
        let generic = Arc::new(
            build_plan_code(graph, unit.as_ref(), name, &options).map_err(RuntimeError::new)?,
        );
        Ok(GraphExecutor {
            state: Mutex::new(State {
                phase: Phase::Profiling {
                    runs_left: options.profiling_runs,
                },
                record: ProfileRecord::default(),
                plans_built: 0,
                last: None,
            }),
            name: name.to_string(),
            unit,
            options,
            instrumented,
            profiling_code: Arc::new(profiling_code),
            recording,
            generic,
        })
    }

    /// The calls profiled before a plan is built.
    pub fn profiling_runs(&self) -> usize {
        self.options.profiling_runs
    }

    /// The graph the last call ran (`torch.jit.last_executed_optimized_graph()`).
    pub fn last_executed_graph(&self) -> Graph {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match (&state.phase, &state.last) {
            (Phase::Running(_), Some(g)) => (**g).clone(),
            // Profiling: the instrumented graph with what its profile nodes saw so far.
            _ => {
                let seen = ProfileRecord::default();
                seen.absorb(&state.record);
                seen.absorb(&self.recording);
                let mut g = self.instrumented.clone();
                seen.annotate(&mut g);
                g
            }
        }
    }

    /// Runs one call.
    pub fn run(&self, inputs: Vec<IValue>) -> Result<Vec<IValue>, RuntimeError> {
        let plan = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if let Phase::Profiling { runs_left: 0 } = state.phase {
                self.build_plan(&mut state);
            }
            match &mut state.phase {
                Phase::Profiling { runs_left } => {
                    *runs_left -= 1;
                    None
                }
                Phase::Running(plan) => Some(plan.clone()),
            }
        };
        let Some(plan) = plan else {
            return interpret(&self.profiling_code, inputs);
        };
        let failures_before = plan.guard_failures.load(Ordering::Relaxed);
        let outputs = plan.memory.scope(|| interpret(&plan.code, inputs))?;
        if plan.guard_failures.load(Ordering::Relaxed) != failures_before {
            self.bailed_out();
        }
        Ok(outputs)
    }

    /// How the calls of the plan running now used their planned memory (None while profiling).
    pub fn memory_stats(&self) -> Option<CallMemoryStats> {
        let state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        match &state.phase {
            Phase::Running(plan) => Some(plan.memory.stats()),
            Phase::Profiling { .. } => None,
        }
    }

    /// A call took a fallback: profile again, unless the plans are used up.
    fn bailed_out(&self) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.plans_built >= self.options.max_plans || !matches!(state.phase, Phase::Running(_))
        {
            return;
        }
        self.log(|| {
            format!(
                "a guard failed: profiling again (plan {} of at most {})",
                state.plans_built + 1,
                self.options.max_plans
            )
        });
        state.phase = Phase::Profiling {
            runs_left: self.options.profiling_runs.max(1),
        };
    }

    /// Builds the plan from everything profiled; on any failure the plan is the unprofiled
    /// graph, interpreted.
    fn build_plan(&self, state: &mut State) {
        let started = Instant::now();
        state.record.absorb(&self.recording);
        self.recording.clear();
        state.plans_built += 1;
        let plan = match self.specialize(&state.record) {
            Ok(plan) => Arc::new(plan),
            Err(why) => {
                self.log(|| format!("no specialization: {why}; the graph is interpreted"));
                self.generic.clone()
            }
        };
        self.log(|| {
            format!(
                "plan {} built in {:.3} ms",
                state.plans_built,
                started.elapsed().as_secs_f64() * 1e3
            )
        });
        state.last = Some(plan.graph.clone());
        state.phase = Phase::Running(plan);
    }

    fn specialize(&self, record: &ProfileRecord) -> Result<Plan, String> {
        let mut g = self.instrumented.clone();
        record.annotate(&mut g);
        for &name in SPECIALIZATION_PIPELINE {
            let pass = lookup(name).ok_or_else(|| format!("no pass '{name}'"))?;
            (pass.run)(&mut g, &mut self.options.config.context_for(pass.name))
                .map_err(|e| format!("{name}: {e}"))?;
        }
        build_plan_code(g, self.unit.as_ref(), &self.name, &self.options)
    }

    fn log(&self, message: impl FnOnce() -> String) {
        self.options
            .config
            .context_for("executor")
            .log(LogLevel::Dump, message);
    }
}

/// Code for `g`, guards and groups run by the executor's operations.
fn build_plan_code(
    g: Graph,
    unit: Option<&Arc<CompilationUnit>>,
    name: &str,
    options: &ExecutorOptions,
) -> Result<Plan, String> {
    let failures = Arc::new(AtomicUsize::new(0));
    let hook = {
        let (failures, chaos, jit) = (failures.clone(), options.chaos.clone(), options.jit);
        let cx = options.config.context_for("executor");
        move |g: &Graph, n: Node| {
            if g.kind(n) == sym::type_check() {
                return Some(type_check(g, n, chaos.clone(), failures.clone()));
            }
            if !is_group(g, n) {
                return None;
            }
            let started = Instant::now();
            let op = group_operation(g, n, jit, &cx);
            cx.log(LogLevel::Update, || {
                format!(
                    "group %{}: {:.3} ms",
                    g.value_name(g.output(n, 0)),
                    started.elapsed().as_secs_f64() * 1e3
                )
            });
            Some(op)
        }
    };
    let code = Code::build_with(&g, unit, name, Some(&hook)).map_err(|e| e.message)?;
    Ok(Plan {
        graph: Arc::new(g),
        code: Arc::new(code),
        guard_failures: failures,
        memory: CallMemory::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use ember_dialects::parse::parse_graph;
    use ember_runtime::tensor::Tensor;

    const POINTWISE: &str = "graph(%a : Tensor, %b : Tensor):
  %one : int = prim::Constant[value=1]()
  %s : Tensor = aten::add(%a, %b, %one)
  %m : Tensor = aten::mul(%s, %a)
  %r : Tensor = aten::relu(%m)
  return (%r)
";

    fn t(rows: i64) -> IValue {
        let data: Vec<f32> = (0..rows * 3).map(|i| i as f32 - 4.0).collect();
        IValue::Tensor(Tensor::from_vec(data, &[rows, 3]).unwrap())
    }

    fn executor(max_plans: usize) -> GraphExecutor {
        let options = ExecutorOptions {
            profiling_runs: 1,
            jit: true,
            max_plans,
            chaos: None,
            config: PassConfig::default(),
        };
        GraphExecutor::new(parse_graph(POINTWISE).unwrap(), None, "f", options).unwrap()
    }

    fn check(e: &GraphExecutor, rows: i64) {
        let reference = interpret(
            &Code::new(&parse_graph(POINTWISE).unwrap()).unwrap(),
            vec![t(rows), t(rows)],
        )
        .unwrap();
        let got = e.run(vec![t(rows), t(rows)]).unwrap();
        let (IValue::Tensor(a), IValue::Tensor(b)) = (&got[0], &reference[0]) else {
            panic!("not tensors");
        };
        assert_eq!(a.to_vec::<f32>(), b.to_vec::<f32>());
    }

    /// A new shape fails the guard, runs the fallback, and makes the executor profile again:
    /// the next plan serves both shapes (`Float(*, 3)`).
    #[test]
    fn new_shapes_bail_out_then_generalize() {
        let e = executor(MAX_PLANS);
        check(&e, 2); // profiled
        check(&e, 2); // the plan
        let first = e.last_executed_graph().to_string();
        assert!(
            first.contains("prim::TypeCheck[types=[Float(2, 3"),
            "{first}"
        );
        check(&e, 4); // guard fails: fallback, then profiling again
        check(&e, 4); // profiled
        check(&e, 4); // the general plan
        let general = e.last_executed_graph().to_string();
        assert!(general.contains("Float(*, 3"), "{general}");
        check(&e, 2);
        check(&e, 7);
        assert_eq!(
            e.last_executed_graph().to_string(),
            general,
            "no further plan"
        );
    }

    /// With the plans used up, failing guards keep running the fallback: no more profiling.
    #[test]
    fn plans_are_bounded() {
        let e = executor(1);
        check(&e, 2);
        check(&e, 2);
        let plan = e.last_executed_graph().to_string();
        for rows in [3, 4, 5, 6] {
            check(&e, rows);
        }
        assert_eq!(e.last_executed_graph().to_string(), plan);
    }
}
