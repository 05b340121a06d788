//! The differential op suite: every case under test/ops/ is a graph PyTorch scripted and the
//! inputs and outputs PyTorch computed (tools/gen/gen_op_cases.py). Each is run through the
//! interpreter and compared: integers and bools exactly, float32/float64 within rtol 1e-5 and
//! atol 1e-6, float16/bfloat16 within rtol 1e-2 (a case may set its own `rtol`/`atol`), in-place
//! writes through the `after` arrays, and PyTorch's error messages where PyTorch raised.
//!
//! str values are stored as UTF-8 bytes with a `<key>__str` marker and compared exactly; dict
//! outputs are flattened as key, value, ... in insertion order (tools/gen/opcases/common.py
//! documents the format).
//!
//! `EMBER_OPS_FILTER=substring` runs only the cases whose path contains it.

use std::path::{Path, PathBuf};

use ember_runtime::interpreter::{run, Code};
use ember_runtime::npz_case::{check_result, Arrays};
use ember_runtime::tensor::Tensor;

fn ops_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/ops")
}

/// Runs one case; `Err` describes the first disagreement.
fn run_case(ir: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(ir).map_err(|e| e.to_string())?;
    let graph = ember_dialects::parse::parse_graph(&text).map_err(|d| format!("parse: {d}"))?;
    let arrays = Arrays::load(&ir.with_extension("npz"))?;
    let types: Vec<_> = graph
        .inputs()
        .iter()
        .map(|&v| graph.ty(v).clone())
        .collect();
    let inputs = arrays.inputs(&types)?;
    let code = Code::new(&graph).map_err(|e| format!("load: {e}"))?;
    let tensor_inputs: Vec<(usize, Tensor)> = inputs
        .iter()
        .enumerate()
        .filter_map(|(i, v)| v.as_tensor().map(|t| (i, t.clone())))
        .collect();
    check_result(&arrays, run(&code, inputs), &tensor_inputs)
}

#[test]
fn differential_suite_matches_pytorch() {
    let filter = std::env::var("EMBER_OPS_FILTER").unwrap_or_default();
    let mut cases: Vec<PathBuf> = walkdir::WalkDir::new(ops_dir())
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .filter(|p| p.to_string_lossy().contains(&filter))
        .collect();
    cases.sort();
    assert!(
        !cases.is_empty(),
        "no cases found under {} (filter '{filter}')",
        ops_dir().display()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let outcome =
            std::panic::catch_unwind(|| run_case(case)).unwrap_or_else(|_| Err("panicked".into()));
        if let Err(m) = outcome {
            let name = case
                .strip_prefix(ops_dir())
                .unwrap_or(case)
                .display()
                .to_string();
            failures.push(format!("FAIL {name}: {m}"));
        }
    }
    println!(
        "{} passed, {} failed",
        cases.len() - failures.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} cases disagree with PyTorch:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// The whole suite again with the kernels capped at AVX2 and at baseline x86-64
/// (`EMBER_CPU_FEATURES`, read once per process, so each level runs in a child process of
/// this test binary): an AVX-512 machine checks the forms AVX2-only and older machines run.
#[test]
fn differential_suite_matches_pytorch_on_every_instruction_set() {
    if std::env::var_os("EMBER_CPU_FEATURES").is_some() {
        return; // a child run: the suite itself runs in the test above
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    for level in ["avx2", "baseline"] {
        let out = std::process::Command::new(&exe)
            .args([
                "differential_suite_matches_pytorch",
                "--exact",
                "--nocapture",
            ])
            .env("EMBER_CPU_FEATURES", level)
            .output()
            .expect("the test binary runs");
        assert!(
            out.status.success(),
            "EMBER_CPU_FEATURES={level}:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}
