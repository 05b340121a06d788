//! The differential op suite (test/ops: graphs PyTorch scripted, with the inputs and results
//! PyTorch computed) through the profiling executor: each case is called three times — the
//! profiling call, the call that builds and runs the plan (fusion groups compiled), and one
//! more — and once more with guards failing at random (`EMBER_JIT_CHAOS`); every call must
//! give PyTorch's results. `EMBER_OPS_FILTER=pointwise/` runs a subset.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ember_compiler::executor::guards::Chaos;
use ember_compiler::executor::{ExecutorOptions, GraphExecutor};
use ember_compiler::passes::PassConfig;
use ember_runtime::npz_case::{check_result, Arrays};
use ember_runtime::tensor::Tensor;

fn ops_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/ops")
}

/// Runs one case; `Ok(true)` when a plan held a fusion group.
fn run_case(ir: &Path, chaos: Option<u64>) -> Result<bool, String> {
    let text = std::fs::read_to_string(ir).map_err(|e| e.to_string())?;
    let graph = ember_dialects::parse::parse_graph(&text).map_err(|d| format!("parse: {d}"))?;
    let types: Vec<_> = graph
        .inputs()
        .iter()
        .map(|&v| graph.ty(v).clone())
        .collect();
    let options = ExecutorOptions {
        profiling_runs: 1,
        jit: true,
        max_plans: 2,
        chaos: chaos.map(|seed| Arc::new(Chaos::new(seed))),
        config: PassConfig::default(),
    };
    let executor =
        GraphExecutor::new(graph, None, "<graph>", options).map_err(|e| format!("load: {e}"))?;
    for call in 0..3 {
        // Fresh inputs each call (loaded again: in-place ops write the arrays' tensors).
        let arrays = Arrays::load(&ir.with_extension("npz"))?;
        let inputs = arrays.inputs(&types)?;
        let tensor_inputs: Vec<(usize, Tensor)> = inputs
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_tensor().map(|t| (i, t.clone())))
            .collect();
        check_result(&arrays, executor.run(inputs), &tensor_inputs)
            .map_err(|e| format!("call {call}: {e}"))?;
    }
    Ok(executor
        .last_executed_graph()
        .to_string()
        .contains("prim::TensorExprGroup"))
}

#[test]
fn op_suite_through_the_executor_matches_pytorch() {
    let filter = std::env::var("EMBER_OPS_FILTER").unwrap_or_default();
    let mut cases: Vec<PathBuf> = walkdir::WalkDir::new(ops_dir())
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .filter(|p| p.to_string_lossy().contains(&filter))
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases under {}", ops_dir().display());
    let (mut failures, mut fused) = (Vec::new(), 0);
    for case in &cases {
        for chaos in [None, Some(5)] {
            let outcome = std::panic::catch_unwind(|| run_case(case, chaos))
                .unwrap_or_else(|_| Err("panicked".into()));
            match outcome {
                Ok(groups) => fused += usize::from(groups && chaos.is_none()),
                Err(m) => {
                    let name = case
                        .strip_prefix(ops_dir())
                        .unwrap_or(case)
                        .display()
                        .to_string();
                    failures.push(format!("FAIL {name} (chaos {chaos:?}): {m}"));
                }
            }
        }
    }
    println!(
        "{} cases through the executor, {fused} with fusion groups; {} failures",
        cases.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if filter.is_empty() {
        assert!(fused >= 20, "only {fused} cases formed fusion groups");
    }
}
