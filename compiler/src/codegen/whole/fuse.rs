//! Fusion groups for a whole-compiled method, as the JIT executor makes them: the prepared
//! graph is profiled in the interpreter on sample inputs (`insert-profiles`, the executor's
//! [`ProfileRecord`]), then `specialize-profiled-types` and `fuse-tensor-exprs` make
//! `prim::TensorExprGroup`s whose subgraphs have the types seen. There is no
//! `guard-tensor-exprs`: its fallback functions cannot be compiled whole. Instead the runtime
//! checks each group's inputs against its subgraph's input types (`ember_rt_group`), and the
//! entry guards become the types profiled for the user's inputs.

use ember_dialects::{Graph, Node};
use ember_runtime::interpreter::{run as interpret, Code};
use ember_runtime::ivalue::IValue;

use super::prepare::{read_back, Program};
use crate::codegen::CodegenError;
use crate::executor::profile::ProfileRecord;
use crate::passes::{lookup, PassConfig};

/// The passes after profiling.
const FUSION_PIPELINE: &[&str] = &[
    "specialize-profiled-types",
    "unroll-constant-loops",
    "fuse-tensor-exprs",
    "dce",
];

/// Profiles `program` on `samples` (each the user's inputs of one call, weights not included)
/// and fuses its graph; the program's graph, text and entry guards are replaced. Returns the
/// number of fusion groups made.
pub fn fuse(
    program: &mut Program,
    samples: &[Vec<IValue>],
    config: &PassConfig,
) -> Result<usize, CodegenError> {
    if samples.is_empty() {
        return Ok(0);
    }
    let mut g = program.graph.clone();
    run(&mut g, "insert-profiles", config)?;
    let record = ProfileRecord::default();
    let hook = {
        let record = record.clone();
        move |g: &Graph, n: Node| record.operation(g, n).map(Ok)
    };
    let code = Code::build_with(&g, None, "<profiling>", Some(&hook))
        .map_err(|e| CodegenError::general(format!("profiling: {}", e.message)))?;
    let weights = program.weights.iter().map(|t| IValue::Tensor(t.clone()));
    let n = program.n_user_inputs;
    let first_default = n - program.default_values.len();
    for (k, sample) in samples.iter().enumerate() {
        if sample.len() < first_default || sample.len() > n {
            let takes = if first_default == n {
                n.to_string()
            } else {
                format!("{first_default} to {n}")
            };
            return Err(CodegenError::general(format!(
                "sample {}: the method takes {takes} inputs ({}), the sample has {}",
                k + 1,
                program.input_names.join(", "),
                sample.len()
            )));
        }
        // Inputs the sample leaves out take their defaults, as in a call.
        let defaults = &program.default_values[sample.len() - first_default..];
        let inputs = sample
            .iter()
            .chain(defaults)
            .cloned()
            .chain(weights.clone())
            .collect();
        interpret(&code, inputs).map_err(|e| {
            CodegenError::general(format!(
                "profiling on sample {}: the method failed: {}",
                k + 1,
                e.message
            ))
        })?;
    }
    record.annotate(&mut g);
    for &pass in FUSION_PIPELINE {
        run(&mut g, pass, config)?;
    }
    for (i, guard) in program.guard_types.iter_mut().enumerate() {
        let profiled = g.ty(g.inputs()[i]);
        if profiled.is_tensor() {
            *guard = profiled.clone();
        }
    }
    let (graph, text) = read_back(&g)?;
    let groups = graph
        .nodes()
        .into_iter()
        .filter(|&n| crate::executor::groups::is_group(&graph, n))
        .count();
    program.graph = graph;
    program.text = text;
    Ok(groups)
}

fn run(g: &mut Graph, name: &str, config: &PassConfig) -> Result<(), CodegenError> {
    let pass = lookup(name).ok_or_else(|| CodegenError::general(format!("no pass '{name}'")))?;
    (pass.run)(g, &mut config.context_for(pass.name))
        .map(|_| ())
        .map_err(|e| CodegenError::general(format!("{name}: {e}")))
}
