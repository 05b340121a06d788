//! The emitter against the script corpus (test/script/): how many functions compile to the
//! graph PyTorch printed, after both are normalized, and how many error cases fail with
//! PyTorch's first message line. Prints every mismatch with `EMIT_CORPUS_VERBOSE=1`.
//!
//! The authoritative runner is tests/script_corpus.rs; this one is the emitter's quick
//! yardstick, and fails only if no case matches at all.

use std::path::Path;

use ember_compiler::frontend::compile_source;
use ember_compiler::frontend::normalize::normalized_text;

/// PyTorch qualifies the corpus's classes with the case's module (`__torch__.case_x_y.Foo`).
fn strip_case_module(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("__torch__.case_") {
        out.push_str(&rest[..i + "__torch__.".len()]);
        let after = &rest[i + "__torch__.".len()..];
        let dot = after.find('.').map_or(after.len(), |d| d + 1);
        rest = &after[dot..];
    }
    out.push_str(rest);
    out
}

fn cases() -> Vec<std::path::PathBuf> {
    // EMIT_CORPUS_ROOT points at another corpus laid out the same way.
    let root = std::env::var("EMIT_CORPUS_ROOT").map_or_else(
        |_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/script"),
        std::path::PathBuf::from,
    );
    let mut out: Vec<_> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .map(|e| e.into_path())
        .filter(|p| p.extension().is_some_and(|e| e == "py"))
        .collect();
    out.sort();
    out
}

/// Runs Ember's graph (calls inlined) on each recorded run of the case and compares the
/// outputs with PyTorch's.
fn check_runs(py: &Path, graph: &ember_dialects::Graph) -> Result<(), String> {
    use ember_runtime::interpreter::{run, Code};
    use ember_runtime::npz_case::{check_result, Arrays};
    let mut graph = graph.clone();
    let mut cx = ember_compiler::passes::PassContext::unlimited("inline");
    ember_compiler::passes::inline::run(&mut graph, &mut cx)?;
    let code = Code::new(&graph).map_err(|e| format!("load: {}", e.message))?;
    let types: Vec<_> = graph
        .inputs()
        .iter()
        .map(|&v| graph.ty(v).clone())
        .collect();
    let mut npzs = vec![py.with_extension("npz")];
    while let Some(p) =
        Some(py.with_extension(format!("run{}.npz", npzs.len()))).filter(|p| p.exists())
    {
        npzs.push(p);
    }
    for npz in npzs {
        let arrays = Arrays::load(&npz)?;
        let inputs = arrays.inputs(&types)?;
        let tensor_inputs: Vec<_> = inputs
            .iter()
            .enumerate()
            .filter_map(|(i, v)| v.as_tensor().map(|t| (i, t.clone())))
            .collect();
        check_result(&arrays, run(&code, inputs), &tensor_inputs)
            .map_err(|e| format!("{}: {e}", npz.display()))?;
    }
    Ok(())
}

#[test]
fn emitted_graphs_match_pytorch() {
    let verbose = std::env::var("EMIT_CORPUS_VERBOSE").is_ok();
    let filter = std::env::var("EMIT_CORPUS_FILTER").unwrap_or_default();
    let (mut graphs, mut graph_ok, mut errors, mut error_ok) = (0, 0, 0, 0);
    let (mut runs, mut runs_ok) = (0, 0);
    for py in cases() {
        let name = py.to_string_lossy().to_string();
        if !name.contains(&filter) {
            continue;
        }
        let text = std::fs::read_to_string(&py).unwrap();
        let rel = format!(
            "test/script/{}",
            name.split("test/script/")
                .nth(1)
                .unwrap_or(name.trim_start_matches("/"))
        );
        let result = std::panic::catch_unwind(|| compile_source(&rel, &text));
        let Ok(result) = result else {
            println!("PANIC {rel}");
            continue;
        };
        let error_file = py.with_extension("error");
        if error_file.exists() {
            errors += 1;
            let expected = std::fs::read_to_string(&error_file).unwrap();
            let expected = strip_case_module(&expected);
            let first = expected
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .trim()
                .to_string();
            match result {
                Err(msg) if msg.contains(first.trim_end_matches(':')) => error_ok += 1,
                Err(msg) => {
                    if verbose {
                        println!(
                            "ERRMSG {rel}\n  expected: {first}\n  got: {}",
                            msg.lines().next().unwrap_or("")
                        );
                    }
                }
                Ok(_) => {
                    if verbose {
                        println!("NOERR {rel}: expected {first}");
                    }
                }
            }
            continue;
        }
        let graph_file = py.with_extension("graph");
        if !graph_file.exists() {
            continue;
        }
        graphs += 1;
        let unit = match result {
            Ok(u) => u,
            Err(msg) => {
                if verbose {
                    println!("FAIL {rel}: {msg}");
                }
                continue;
            }
        };
        let Some(f) = unit.functions().last().cloned() else {
            println!("NOFN {rel}");
            continue;
        };
        let expected_text = strip_case_module(&std::fs::read_to_string(&graph_file).unwrap());
        let expected = match ember_dialects::parse::parse_graph(&expected_text) {
            Ok(g) => normalized_text(&g).unwrap_or_default(),
            Err(d) => {
                println!("BADREF {rel}: {}", d.message);
                continue;
            }
        };
        if py.with_extension("npz").exists() {
            runs += 1;
            match check_runs(&py, &f.graph) {
                Ok(()) => runs_ok += 1,
                Err(e) => {
                    if verbose {
                        println!("RUN {rel}: {e}");
                    }
                }
            }
        }
        let ours = normalized_text(&f.graph).unwrap_or_else(|e| format!("normalize failed: {e}"));
        if ours == expected {
            graph_ok += 1;
        } else if verbose {
            println!("DIFF {rel}\n--- pytorch\n{expected}--- ember\n{ours}");
        }
    }
    println!(
        "graphs: {graph_ok}/{graphs} equal; errors: {error_ok}/{errors} with PyTorch's message; \
         runs: {runs_ok}/{runs} give PyTorch's outputs"
    );
    assert!(graph_ok > 0 || graphs == 0);
}
