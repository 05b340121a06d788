//! Every archive of the .pt corpus (test/pt/) loads and its `forward` runs on the recorded
//! inputs (`input_N`) to PyTorch's outputs (`output_N`, depth-first) within rtol 1e-4; the
//! large torchvision models too when test/setup/pt_models.sh wrote them. Archives that fail
//! for a known reason are listed, with the reason, in pt_models_expected_failures.txt; one not
//! listed fails the test, and so does a listed one that passes. The malformed suite's
//! `loader:OP` entries must be refused naming the op.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Instant;

use ember_compiler::import::{load_module, LoadOptions};
use ember_compiler::model::{Model, ModelKind, OpenOptions};
use ember_compiler::passes::{lookup, PassContext, PASSES};
use ember_runtime::ivalue::IValue;
use ember_runtime::npz_case::{flatten, Arrays};
use ember_runtime::tensor::Tensor;

const RTOL: f64 = 1e-4;
const ATOL: f64 = 1e-5;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Loads `pt` and runs forward on `npz`'s inputs; `Err` says what went wrong.
fn check(pt: &Path, npz: &Path) -> Result<(), String> {
    check_with(pt, npz, &[])
}

/// [`check`] after running `passes` (names of passes) over every graph of the model, with
/// the verifier after each.
fn check_with(pt: &Path, npz: &Path, passes: &[&str]) -> Result<(), String> {
    let bytes = std::fs::read(pt).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let mut model = Model::from_bytes(
        &pt.display().to_string(),
        ModelKind::Archive,
        &bytes,
        &OpenOptions::default(),
    )
    .map_err(|e| format!("load: {e}"))?;
    if passes.is_empty() {
        let load_ms = start.elapsed().as_secs_f64() * 1e3;
        eprintln!("  {}: loaded in {load_ms:.1} ms", pt.display());
    }
    model.transform_graphs(&mut |name, g| {
        for &p in passes {
            let pass = lookup(p).ok_or_else(|| format!("no pass {p}"))?;
            (pass.run)(g, &mut PassContext::unlimited(pass.name))?;
            ember_dialects::verify::verify(g)
                .map_err(|e| format!("{name} after {p}: {}", e[0].message))?;
        }
        Ok(())
    })?;
    let arrays = Arrays::load(npz)?;
    let inputs = recorded_inputs(&arrays);
    let entry = model.entry(None)?;
    let code = entry
        .function
        .code(Some(&model.unit))
        .map_err(|e| format!("load: {e}"))?;
    let outputs = ember_runtime::interpreter::run(&code, model.call_inputs(entry, inputs))
        .map_err(|e| format!("forward: {}", e.message))?;
    compare_outputs(&outputs, &arrays)
}

/// The recorded `input_N` tensors.
fn recorded_inputs(arrays: &Arrays) -> Vec<IValue> {
    let mut inputs = Vec::new();
    while let Some(t) = arrays.get(&format!("input_{}", inputs.len())) {
        inputs.push(IValue::Tensor(t.clone()));
    }
    inputs
}

fn compare(i: usize, got: &IValue, want: &Tensor) -> Result<(), String> {
    let g = match got {
        IValue::Tensor(t) => t.clone(),
        IValue::Double(d) => Tensor::from_vec(vec![*d], &[]).map_err(|e| e.to_string())?,
        IValue::Int(n) => Tensor::from_vec(vec![*n], &[]).map_err(|e| e.to_string())?,
        other => return Err(format!("output {i}: got a {}", other.kind_name())),
    };
    if g.sizes().as_slice() != want.sizes().as_slice() {
        return Err(format!(
            "output {i}: shape {:?}, PyTorch {:?}",
            g.sizes().as_slice(),
            want.sizes().as_slice()
        ));
    }
    let (gv, wv) = (g.to_vec::<f64>(), want.to_vec::<f64>());
    for (k, (a, b)) in gv.iter().zip(&wv).enumerate() {
        let same = (a.is_nan() && b.is_nan()) || (a - b).abs() <= ATOL + RTOL * b.abs();
        if !same {
            return Err(format!("output {i}[{k}]: {a}, PyTorch {b}"));
        }
    }
    Ok(())
}

fn expected_failures() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pt_models_expected_failures.txt"),
    )
    .unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once('\t') {
            Some((n, why)) => (n.trim().to_string(), why.trim().to_string()),
            None => (l.trim().to_string(), String::new()),
        })
        .collect()
}

/// The `.pt` files of `dir`, sorted.
fn archives_in(dir: &Path) -> Vec<PathBuf> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pt"))
        .collect();
    names.sort();
    names
}

/// Every archive of the corpus, with its recorded inputs and outputs, and the large models
/// when they were written.
fn corpus_cases() -> Vec<(String, PathBuf, PathBuf)> {
    let dir = repo().join("test/pt");
    let mut cases: Vec<(String, PathBuf, PathBuf)> = Vec::new();
    let names = archives_in(&dir);
    for p in names {
        let stem = p.file_stem().unwrap().to_string_lossy().to_string();
        cases.push((stem, p.with_extension("npz"), p));
    }
    let large = std::env::var_os("EMBER_PT_LARGE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/pt-large"));
    for name in ["resnet18", "mobilenet_v3_small"] {
        let pt = large.join(format!("{name}.pt"));
        if pt.exists() {
            cases.push((name.to_string(), pt.with_extension("npz"), pt));
        }
    }
    cases
}

#[test]
fn corpus_models_run_to_pytorch_outputs() {
    let cases = corpus_cases();
    let expected = expected_failures();
    let mut problems = Vec::new();
    let mut passed = 0;
    for (name, npz, pt) in &cases {
        let listed = expected.iter().find(|(n, _)| n == name);
        match (check(pt, npz), listed) {
            (Ok(()), None) => passed += 1,
            (Ok(()), Some(_)) => problems.push(format!("{name}: passes but is listed as failing")),
            (Err(e), Some((_, why))) => eprintln!("  {name}: expected failure ({why}): {e}"),
            (Err(e), None) => problems.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "pt corpus: {passed}/{} archives run to PyTorch's outputs",
        cases.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The passes change no model's outputs: every pass alone over every graph, then the
/// optimization pipeline ember-run uses, each followed by the verifier.
#[test]
fn passes_keep_corpus_outputs() {
    let expected = expected_failures();
    let mut pipelines: Vec<Vec<&str>> = PASSES
        .iter()
        .filter(|p| !PRE_SSA.contains(&p.name))
        .map(|p| vec![p.name])
        .collect();
    pipelines.push(ember_compiler::passes::OPTIMIZATION_PIPELINE.to_vec());
    let mut problems = Vec::new();
    let mut runs = 0;
    for (name, npz, pt) in corpus_cases() {
        if expected.iter().any(|(n, _)| *n == name) {
            continue;
        }
        // The large models (slow in a debug build) run the whole pipeline only.
        let large = ["resnet18", "mobilenet_v3_small"].contains(&name.as_str());
        for passes in pipelines.iter().filter(|p| !large || p.len() > 1) {
            runs += 1;
            if let Err(e) = check_with(&pt, &npz, passes) {
                problems.push(format!("{name} with {passes:?}: {e}"));
            }
        }
    }
    eprintln!("{runs} runs of corpus models with passes");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Passes of the source frontend that only apply before SSA form.
const PRE_SSA: &[&str] = &[
    "convert-to-ssa",
    "exit-transform",
    "inline-loop-condition",
    "canonicalize-modified-loops",
];

#[test]
fn loader_refuses_file_ops() {
    let dir = repo().join("test/pt/malformed");
    let tsv = std::fs::read_to_string(dir.join("EXPECTED.tsv")).unwrap();
    let mut checked = 0;
    for line in tsv.lines().filter(|l| !l.starts_with('#')) {
        let Some((name, expect)) = line.split_once('\t') else {
            continue;
        };
        let Some(op) = expect.strip_prefix("loader:") else {
            continue;
        };
        let bytes = std::fs::read(dir.join(format!("{name}.pt"))).unwrap();
        match load_module(&bytes, &LoadOptions::default()) {
            Ok(_) => panic!("{name}: loaded, but it calls {op}"),
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    msg.contains(op),
                    "{name}: message does not name {op}: {msg}"
                );
            }
        }
        let allowed = LoadOptions {
            allow_file_ops: true,
            ..LoadOptions::default()
        };
        if let Err(e) = load_module(&bytes, &allowed) {
            panic!("{name}: refused with allow_file_ops: {e}");
        }
        checked += 1;
    }
    assert!(checked > 0, "EXPECTED.tsv lists no loader: entries");
}

/// A loaded module is freed when dropped, after `__setstate__` ran and every method's code was
/// built: the code's attribute and object operations hold their class weakly (a strong
/// reference made a cycle class → method → code → class; pt_load fuzzing found the leak on
/// setstate_module.pt, whose `__setstate__` runs while loading).
#[test]
fn loaded_modules_are_freed() {
    let dir = repo().join("test/pt");
    let names = archives_in(&dir);
    let mut leaked = Vec::new();
    for p in &names {
        let bytes = std::fs::read(p).unwrap();
        let module = load_module(&bytes, &LoadOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        for f in module.all_methods() {
            // Built as running it would build it; whether it builds is checked elsewhere.
            let _ = f.code(Some(&module.unit));
        }
        let unit = std::sync::Arc::downgrade(&module.unit);
        let class = std::sync::Arc::downgrade(&module.object.class);
        drop(module);
        if unit.upgrade().is_some() || class.upgrade().is_some() {
            leaked.push(p.file_name().unwrap().to_string_lossy().to_string());
        }
    }
    assert!(names.len() > 10, "test/pt holds the corpus");
    assert!(leaked.is_empty(), "still alive after drop: {leaked:?}");
}

/// Nodes of a graph at every depth.
fn node_count(g: &ember_dialects::Graph) -> usize {
    g.nodes().len()
}

/// The archives of `dir`'s FROZEN.tsv with PyTorch's frozen node count (written by
/// tools/gen/gen_frozen_reference.py); those PyTorch could not freeze are left out.
fn frozen_reference(dir: &Path) -> Vec<(String, usize)> {
    let text = std::fs::read_to_string(dir.join("FROZEN.tsv")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut parts = l.split('\t');
            let name = parts.next()?.to_string();
            let nodes = parts.next()?.parse().ok()?;
            Some((name, nodes))
        })
        .collect()
}

/// Every archive PyTorch freezes, frozen by Ember: the frozen graph runs to PyTorch's outputs,
/// and has no more nodes than `torch.jit.freeze` leaves (BEYOND_FREEZE lists where, and why,
/// Ember keeps more).
#[test]
fn frozen_models_match_pytorch() {
    let large = std::env::var_os("EMBER_PT_LARGE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/pt-large"));
    let mut problems = Vec::new();
    let mut checked = 0;
    for dir in [repo().join("test/pt"), large] {
        for (name, theirs) in frozen_reference(&dir) {
            let pt = dir.join(format!("{name}.pt"));
            let bytes = std::fs::read(&pt).unwrap();
            let model =
                Model::from_bytes(&name, ModelKind::Archive, &bytes, &OpenOptions::default())
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            // Compared in PyTorch's ops (before the fused kernels' ops); run as it runs.
            let config = ember_compiler::passes::PassConfig::default();
            let (graph, _) =
                match ember_compiler::freeze::freeze_graph_to(&model, "forward", &config, false) {
                    Ok(frozen) => frozen,
                    Err(e) => {
                        problems.push(format!("{name}: freezing failed: {e}"));
                        continue;
                    }
                };
            let ours = node_count(&graph);
            let allowed = BEYOND_FREEZE
                .iter()
                .find(|(n, _, _)| *n == name)
                .map_or(0, |(_, extra, _)| *extra);
            eprintln!("  {name}: Ember {ours} nodes, PyTorch {theirs}");
            if ours > theirs + allowed {
                problems.push(format!(
                    "{name}: {ours} nodes, PyTorch's frozen graph has {theirs}\n{graph}"
                ));
            }
            checked += 1;
            if let Err(e) = check_with(&pt, &pt.with_extension("npz"), &[])
                .and_then(|_| run_frozen(&model, graph, &pt.with_extension("npz")))
            {
                problems.push(format!("{name}: frozen run: {e}"));
            }
        }
    }
    assert!(checked >= 15, "only {checked} frozen references");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// Where Ember's frozen graph keeps more nodes than PyTorch's, on purpose: (archive, extra
/// nodes, why).
const BEYOND_FREEZE: &[(&str, usize, &str)] = &[
    ("conv_bn_relu_scripted", 8, INPUT_CHECK),
    ("freeze_residual", 8, INPUT_CHECK),
    (
        "freeze_linear_bn",
        9,
        "the batch norm after the linear layer stays (with its 6 constants): it normalizes the \
         linear layer's features only for a 2-d input, and the input's rank is unknown when \
         freezing (torch.jit.freeze folds it anyway: its frozen module gives other outputs for a \
         3-d input)",
    ),
];

/// Why Ember's frozen graph keeps batch norm's input check.
const INPUT_CHECK: &str = "batch norm's input-rank check (aten::dim, ne, If, format, \
    RaiseException and 3 constants): torch.jit.freeze drops it (its frozen module then accepts \
    a 3-d input the module refuses); Ember keeps one check of the model's input";

/// Runs `graph` (the frozen forward of `model`) on the recorded inputs: in the interpreter,
/// then through the profiling executor (three calls: profiled, then the plan), also with
/// guards failing at random (`EMBER_JIT_CHAOS`).
fn run_frozen(model: &Model, graph: ember_dialects::Graph, npz: &Path) -> Result<(), String> {
    use ember_compiler::executor::guards::Chaos;
    use ember_compiler::executor::{ExecutorOptions, GraphExecutor};
    let arrays = Arrays::load(npz)?;
    let inputs = recorded_inputs(&arrays);
    let entry = model.entry(None)?;
    let inputs = model.call_inputs(entry, inputs);
    let f = ember_runtime::unit::Function::new(entry.function.qualname.clone(), graph.clone());
    let code = f.code(Some(&model.unit)).map_err(|e| e.message)?;
    let outputs = ember_runtime::interpreter::run(&code, inputs.clone()).map_err(|e| e.message)?;
    compare_outputs(&outputs, &arrays)?;
    for chaos in [None, Some(3)] {
        let options = ExecutorOptions {
            profiling_runs: 1,
            jit: true,
            max_plans: 4,
            chaos: chaos.map(|seed| std::sync::Arc::new(Chaos::new(seed))),
            config: ember_compiler::passes::PassConfig::default(),
        };
        let executor =
            GraphExecutor::new(graph.clone(), Some(model.unit.clone()), "forward", options)
                .map_err(|e| e.message)?;
        // Call 0 profiles; the plan's second call (2) records its buffers, later ones take
        // them from planned memory.
        for call in 0..5 {
            let outputs = executor.run(inputs.clone()).map_err(|e| e.message)?;
            compare_outputs(&outputs, &arrays)
                .map_err(|e| format!("executor call {call} (chaos {chaos:?}): {e}"))?;
        }
        if chaos.is_none() {
            let m = executor.memory_stats().ok_or("no plan after 5 calls")?;
            if m.missed != 0 || m.served != 2 * m.planned {
                return Err(format!("planned memory: {m:?} after 5 calls"));
            }
        }
    }
    Ok(())
}

/// `outputs` against the recorded `output_N` arrays.
fn compare_outputs(outputs: &[IValue], arrays: &Arrays) -> Result<(), String> {
    let mut got = Vec::new();
    outputs.iter().for_each(|v| flatten(v, &mut got));
    let mut want = Vec::new();
    while let Some(t) = arrays.get(&format!("output_{}", want.len())) {
        want.push(t.clone());
    }
    if got.len() != want.len() {
        return Err(format!(
            "{} outputs, PyTorch gave {}",
            got.len(),
            want.len()
        ));
    }
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        compare(i, g, w)?;
    }
    Ok(())
}

/// Every corpus archive Ember runs, written back by Ember (compiler/src/export/), loads in
/// Ember again and runs to PyTorch's outputs; writing is deterministic. Whether PyTorch loads
/// the written archives to the same outputs is recorded by tools/gen/check_written_archives.py
/// in test/pt/WRITTEN.tsv, which this test holds to the archives Ember writes today.
#[test]
fn written_archives_round_trip() {
    let expected = expected_failures();
    let dir = std::env::temp_dir().join(format!("ember-written-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pytorch = written_reference();
    let large = std::env::var_os("EMBER_PT_LARGE")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/pt-large"));
    let freezable: Vec<String> = [repo().join("test/pt"), large]
        .iter()
        .flat_map(|d| frozen_reference(d))
        .map(|(n, _)| n)
        .collect();
    let (mut problems, mut written) = (Vec::new(), 0);
    let mut cases = Vec::new();
    for (name, npz, pt) in corpus_cases() {
        if freezable.contains(&name) {
            cases.push((format!("{name}.frozen"), npz.clone(), pt.clone()));
        }
        cases.push((name, npz, pt));
    }
    for (name, npz, pt) in cases {
        let (base, frozen) = match name.strip_suffix(".frozen") {
            Some(base) => (base.to_string(), true),
            None => (name.clone(), false),
        };
        if expected.iter().any(|(n, _)| *n == base) {
            continue;
        }
        let bytes = std::fs::read(&pt).unwrap();
        let model = Model::from_bytes(&name, ModelKind::Archive, &bytes, &OpenOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let model = if frozen {
            let config = ember_compiler::passes::PassConfig::default();
            let (graph, _) =
                ember_compiler::freeze::freeze_graph_to(&model, "forward", &config, false)
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
            ember_compiler::export::frozen_model(&model, graph)
                .unwrap_or_else(|e| panic!("{name}: {e}"))
        } else {
            model
        };
        let out = dir.join(format!("{name}.pt"));
        let result = ember_compiler::export::write_archive(&model, &base).and_then(|first| {
            let again = ember_compiler::export::write_archive(&model, &base)?;
            if first != again {
                return Err("two writes gave different bytes".into());
            }
            ember_compiler::export::save(&out, &first)?;
            check(&out, &npz)
        });
        match (result, pytorch.get(&name)) {
            (Ok(()), Some(status)) if status == "ok" => written += 1,
            (Ok(()), Some(status)) => problems.push(format!(
                "{name}: Ember writes it, but PyTorch's load of it was recorded as '{status}'"
            )),
            (Ok(()), None) => problems.push(format!(
                "{name}: written, but not in test/pt/WRITTEN.tsv (run tools/gen/check_written_archives.py)"
            )),
            (Err(e), Some(status)) if status != "ok" => {
                eprintln!("  {name}: not written ({e}); recorded: {status}")
            }
            (Err(e), _) => problems.push(format!("{name}: {e}")),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("written archives: {written} round-trip through Ember and PyTorch");
    assert!(written >= 40, "only {written} archives written");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// test/pt/WRITTEN.tsv: archive name, then `ok` when PyTorch loaded Ember's archive of it and
/// ran it to the original's outputs, else what went wrong.
fn written_reference() -> std::collections::HashMap<String, String> {
    let text = std::fs::read_to_string(repo().join("test/pt/WRITTEN.tsv")).unwrap_or_default();
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once('\t'))
        .map(|(n, s)| (n.to_string(), s.to_string()))
        .collect()
}

/// Every corpus archive Ember runs, its `forward` compiled whole (frozen, control flow and
/// scalars native, every other node a call into the runtime) and linked in process, runs to
/// PyTorch's outputs; so does the interpreter it falls back to when a guard fails (the model
/// specialized for another input shape), and so does the model profiled on the recorded inputs,
/// its pointwise chains fusion groups. Archives that cannot be compiled whole are listed in
/// pt_models_whole_refusals.txt with the reason.
/// Archives compiled whole with fusion groups when profiled (at least).
const MIN_WHOLE_FUSED: usize = 6;

#[test]
fn whole_compiled_models_match_pytorch() {
    use ember_compiler::codegen::whole;
    let failing: Vec<String> = expected_failures().into_iter().map(|(n, _)| n).collect();
    let refusals = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pt_models_whole_refusals.txt"),
    )
    .unwrap_or_default();
    let listed: Vec<&str> = refusals
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| l.split('\t').next().unwrap_or_default().trim())
        .collect();
    let (mut compiled, mut fused, mut planned, mut problems) = (0, 0, 0, Vec::new());
    let mut served_first = 0;
    for (name, npz, pt) in corpus_cases() {
        if failing.contains(&name) {
            continue;
        }
        let outcome = (|| -> Result<bool, String> {
            let arrays = Arrays::load(&npz)?;
            let mut inputs = recorded_inputs(&arrays);
            let bytes = std::fs::read(&pt).map_err(|e| e.to_string())?;
            let mut model =
                Model::from_bytes(&name, ModelKind::Archive, &bytes, &OpenOptions::default())?;
            // Inputs left out take their defaults, as in a Python call.
            let defaults = model.entry(None)?.defaults.clone();
            for d in defaults.iter().skip(inputs.len()) {
                inputs.push(
                    d.clone()
                        .ok_or("an input without a recording or a default")?,
                );
            }
            let (graph, is_method) = match whole::method_graph(&mut model, "forward") {
                Ok(g) => g,
                Err(why) if listed.contains(&name.as_str()) => return Err(why),
                Err(why) => return Err(format!("refused: {why}")),
            };
            let program =
                whole::prepare(&graph, is_method, &[], &defaults).map_err(|e| e.message)?;
            let m = whole::compile_in_process(&program).map_err(|e| e.message)?;
            let out = m.run(inputs.clone())?;
            compare_outputs(&[out], &arrays).map_err(|e| format!("compiled: {e}"))?;
            // Calls after the second take every intermediate buffer it freed from one block.
            for call in 2..=4 {
                compare_outputs(&[m.run(inputs.clone())?], &arrays)
                    .map_err(|e| format!("compiled, call {call}: {e}"))?;
            }
            let memory = m.memory_stats();
            if memory.blocks != usize::from(memory.planned > 0)
                || memory.missed != 0
                || memory.served != 2 * memory.planned
            {
                return Err(format!("planned memory: {memory:?} after 4 calls"));
            }
            planned += usize::from(memory.planned > 0);
            // Profiled on the recorded inputs: pointwise chains become fusion groups.
            let mut profiled =
                whole::prepare(&graph, is_method, &[], &defaults).map_err(|e| e.message)?;
            let config = ember_compiler::passes::PassConfig::default();
            let groups = whole::fuse(&mut profiled, &[inputs.clone()], &config)
                .map_err(|e| format!("fusing: {}", e.message))?;
            let fused = whole::compile_in_process(&profiled).map_err(|e| e.message)?;
            compare_outputs(&[fused.run(inputs.clone())?], &arrays)
                .map_err(|e| format!("profiled: {e}"))?;
            compare_outputs(&[fused.run_interpreted(inputs.clone())?], &arrays)
                .map_err(|e| format!("profiled, interpreted: {e}"))?;
            // With the memory plan emberc embeds for these shapes, the first call takes every
            // planned buffer from one block.
            if let Ok(plan) = whole::record_memory_plan(&fused, &inputs) {
                profiled.memory_plan = Some(plan);
                let first = whole::compile_in_process(&profiled).map_err(|e| e.message)?;
                compare_outputs(&[first.run(inputs.clone())?], &arrays)
                    .map_err(|e| format!("with the recorded plan: {e}"))?;
                let memory = first.memory_stats();
                if memory.blocks != 1 || memory.served != memory.planned {
                    return Err(format!("recorded plan: {memory:?} after the first call"));
                }
                served_first += 1;
            }
            // Specialized for another shape of the first tensor input: the guard fails and
            // the interpreter runs the embedded graph.
            if let Some((i, t)) = inputs
                .iter()
                .enumerate()
                .find_map(|(i, v)| v.as_tensor().map(|t| (i, t)))
            {
                let mut sizes = t.sizes().to_vec();
                sizes.push(1);
                let other = format!(
                    "Float({}, requires_grad=0, device=cpu)",
                    sizes
                        .iter()
                        .map(|d| d.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let ty = ember_dialects::types::parse_type(&other).map_err(|d| d.message)?;
                let guards = [(program.input_names[i].clone(), ty)];
                let program =
                    whole::prepare(&graph, is_method, &guards, &defaults).map_err(|e| e.message)?;
                let m = whole::compile_in_process(&program).map_err(|e| e.message)?;
                if m.guards_hold(&inputs) {
                    return Err(format!("the guard {other} holds for {:?}", t.sizes()));
                }
                let out = m.run(inputs)?;
                compare_outputs(&[out], &arrays).map_err(|e| format!("guard failed: {e}"))?;
            }
            Ok(groups > 0)
        })();
        match (outcome, listed.contains(&name.as_str())) {
            (Ok(groups), false) => {
                compiled += 1;
                fused += usize::from(groups);
            }
            (Ok(_), true) => problems.push(format!(
                "{name}: compiles whole now; remove it from pt_models_whole_refusals.txt"
            )),
            (Err(e), true) => eprintln!("  {name}: refused as listed: {e}"),
            (Err(e), false) => problems.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "pt corpus: {compiled} archives compiled whole and run to PyTorch's outputs, \
         {fused} with fusion groups when profiled, {planned} with planned memory \
         ({served_first} served from the first call with the plan recorded for their shapes)"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(compiled >= 26, "only {compiled} archives compiled whole");
    assert!(planned >= 20, "only {planned} archives with planned memory");
    assert!(
        served_first >= 20,
        "only {served_first} archives served from the first call"
    );
    assert!(
        fused >= MIN_WHOLE_FUSED,
        "only {fused} archives compiled with groups"
    );
}

/// The runtime's static library, fresh: built by cargo (as the lit harness builds the tools)
/// into the target folder of this test; `None` (the test skips) without cargo or a C compiler.
fn runtime_library() -> Option<PathBuf> {
    if !common::have("cc") {
        eprintln!("skipped: no C compiler (cc) on PATH");
        return None;
    }
    Some(common::cargo_build(&["-p", "ember-runtime", "--lib"]).join("libember_runtime.a"))
}

/// A C literal of `x` (exact for the float32 and float64 values tensors hold).
fn c_number(x: f64) -> String {
    if x.is_nan() {
        "NAN".into()
    } else if x.is_infinite() {
        if x > 0.0 {
            "INFINITY".into()
        } else {
            "-INFINITY".into()
        }
    } else {
        format!("{x:?}")
    }
}

/// C statements making `inputs` as ember values `in[0..]` (tensors wrap static arrays).
fn c_inputs(inputs: &[IValue]) -> Result<String, String> {
    use ember_runtime::tensor::DType;
    let mut c = String::new();
    for (i, v) in inputs.iter().enumerate() {
        match v {
            IValue::Tensor(t) => {
                let (ctype, code) = match t.dtype() {
                    DType::F32 => ("float", 6),
                    DType::F64 => ("double", 7),
                    DType::I64 => ("int64_t", 4),
                    DType::I32 => ("int32_t", 3),
                    d => return Err(format!("input {i}: no C test input of dtype {d:?}")),
                };
                let values: Vec<String> = t.to_vec::<f64>().into_iter().map(c_number).collect();
                let sizes: Vec<String> = t.sizes().iter().map(|d| d.to_string()).collect();
                c.push_str(&format!(
                    "  static {ctype} data{i}[] = {{{}}};\n  static const int64_t sizes{i}[] = {{{}}};\n  in[{i}] = ember_tensor_wrap(data{i}, {code}, {}, sizes{i}, NULL, NULL, NULL);\n",
                    if values.is_empty() { "0".into() } else { values.join(", ") },
                    if sizes.is_empty() { "0".into() } else { sizes.join(", ") },
                    sizes.len()
                ));
            }
            IValue::Int(x) => c.push_str(&format!("  in[{i}] = ember_int({x});\n")),
            IValue::Double(x) => {
                c.push_str(&format!("  in[{i}] = ember_float({});\n", c_number(*x)))
            }
            IValue::Bool(x) => c.push_str(&format!("  in[{i}] = ember_bool({});\n", *x as i32)),
            IValue::None => c.push_str(&format!("  in[{i}] = ember_none();\n")),
            other => {
                return Err(format!(
                    "input {i}: no C test input of kind {}",
                    other.kind_name()
                ))
            }
        }
    }
    Ok(c)
}

/// A C program that opens model `name` (its object's header is `name.h`), runs it on
/// `inputs` and prints the result: `T ndim sizes...` then one value per element in order for
/// a tensor, `L n` then the items for a list or tuple, `I`, `F`, `B` for scalars, `N` for None.
fn c_program(name: &str, inputs: &[IValue], weights: Option<&Path>) -> Result<String, String> {
    let open = match weights {
        Some(w) => format!("{name}_open(\"{}\", &model)", w.display()),
        None => format!("{name}_open(&model)"),
    };
    Ok(format!(
        r#"#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "{name}.h"

static void check(ember_status s) {{
  if (s != EMBER_OK) {{ fprintf(stderr, "error %d: %s\n", (int)s, ember_last_error()); exit(1); }}
}}

static void dump(const ember_value *v) {{
  switch (ember_value_kind(v)) {{
  case EMBER_KIND_TENSOR: {{
    ember_dtype d; size_t nd; int64_t sizes[16], strides[16], n; void *p;
    check(ember_tensor_dtype(v, &d)); check(ember_tensor_ndim(v, &nd));
    if (nd > 16) {{ fprintf(stderr, "rank %zu\n", nd); exit(1); }}
    check(ember_tensor_sizes(v, sizes)); check(ember_tensor_strides(v, strides));
    check(ember_tensor_numel(v, &n)); check(ember_tensor_data(v, &p));
    printf("T %zu", nd);
    for (size_t i = 0; i < nd; i++) printf(" %lld", (long long)sizes[i]);
    printf("\n");
    for (int64_t k = 0; k < n; k++) {{
      int64_t off = 0, rest = k;
      for (size_t i = nd; i-- > 0;) {{ off += (rest % sizes[i]) * strides[i]; rest /= sizes[i]; }}
      switch (d) {{
      case EMBER_FLOAT32: printf("%a\n", (double)((float *)p)[off]); break;
      case EMBER_FLOAT64: printf("%a\n", ((double *)p)[off]); break;
      case EMBER_INT64: printf("%lld\n", (long long)((int64_t *)p)[off]); break;
      case EMBER_INT32: printf("%d\n", ((int32_t *)p)[off]); break;
      case EMBER_BOOL: case EMBER_UINT8: printf("%d\n", ((uint8_t *)p)[off]); break;
      default: fprintf(stderr, "dtype %d\n", (int)d); exit(1);
      }}
    }}
    break;
  }}
  case EMBER_KIND_LIST: case EMBER_KIND_TUPLE: {{
    size_t len; check(ember_value_len(v, &len));
    printf("L %zu\n", len);
    for (size_t i = 0; i < len; i++) {{
      ember_value *item; check(ember_value_item(v, i, &item)); dump(item); ember_value_free(item);
    }}
    break;
  }}
  case EMBER_KIND_INT: {{ int64_t x; check(ember_value_to_int(v, &x)); printf("I %lld\n", (long long)x); break; }}
  case EMBER_KIND_FLOAT: {{ double x; check(ember_value_to_float(v, &x)); printf("F %a\n", x); break; }}
  case EMBER_KIND_BOOL: {{ int x; check(ember_value_to_bool(v, &x)); printf("B %d\n", x); break; }}
  case EMBER_KIND_NONE: printf("N\n"); break;
  default: fprintf(stderr, "an output C cannot read\n"); exit(1);
  }}
}}

int main(void) {{
  ember_value *in[{count}] = {{0}};
{inputs}  ember_model *model;
  check({open});
  ember_value *out;
  check(ember_model_run(model, in, {n}, &out));
  ember_memory_stats m;
  check(ember_model_memory_stats(model, &m));
  fprintf(stderr, "memory: %llu %llu\n", (unsigned long long)m.planned, (unsigned long long)m.served);
  dump(out);
  ember_value_free(out);
  for (int i = 0; i < {n}; i++) ember_value_free(in[i]);
  ember_model_free(model);
  return 0;
}}
"#,
        count = inputs.len().max(1),
        n = inputs.len(),
        inputs = c_inputs(inputs)?,
    ))
}

/// Reads what [`c_program`] printed back into values.
fn parse_dump(text: &str) -> Result<IValue, String> {
    fn value(words: &mut std::str::SplitWhitespace) -> Result<IValue, String> {
        let float = |w: Option<&str>| -> Result<f64, String> {
            let w = w.ok_or("truncated output")?;
            parse_hex_float(w).ok_or_else(|| format!("'{w}' is not a number"))
        };
        let int = |w: Option<&str>| -> Result<i64, String> {
            w.and_then(|w| w.parse().ok())
                .ok_or_else(|| "a bad int".to_string())
        };
        match words.next().ok_or("truncated output")? {
            "T" => {
                let nd = int(words.next())? as usize;
                let sizes: Vec<i64> = (0..nd)
                    .map(|_| int(words.next()))
                    .collect::<Result<_, _>>()?;
                let n: i64 = sizes.iter().product();
                let data: Vec<f64> = (0..n)
                    .map(|_| float(words.next()))
                    .collect::<Result<_, _>>()?;
                Ok(IValue::Tensor(
                    Tensor::from_vec(data, &sizes).map_err(|e| e.to_string())?,
                ))
            }
            "L" => {
                let n = int(words.next())?;
                let items = (0..n)
                    .map(|_| value(words))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(IValue::tuple(items))
            }
            "I" => Ok(IValue::Int(int(words.next())?)),
            "F" => Ok(IValue::Double(float(words.next())?)),
            "B" => Ok(IValue::Bool(int(words.next())? != 0)),
            "N" => Ok(IValue::None),
            w => Err(format!("unexpected '{w}'")),
        }
    }
    value(&mut text.split_whitespace())
}

/// `%a` output (`0x1.8p+0`, `-0x0p+0`, `inf`, `nan`) or a plain integer.
fn parse_hex_float(w: &str) -> Option<f64> {
    let (neg, body) = match w.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, w),
    };
    let x = if let Some(hex) = body.strip_prefix("0x") {
        let (mantissa, exp) = hex.split_once('p')?;
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let mut m = u64::from_str_radix(int, 16).ok()? as f64;
        for (i, c) in frac.chars().enumerate() {
            m += c.to_digit(16)? as f64 / 16f64.powi(i as i32 + 1);
        }
        m * 2f64.powi(exp.parse::<i32>().ok()?)
    } else {
        match body {
            "inf" => f64::INFINITY,
            "nan" => f64::NAN,
            _ => body.parse::<i64>().ok()? as f64,
        }
    };
    Some(if neg { -x } else { x })
}

/// Every corpus archive compiled whole to an object (as `emberc` writes it), linked with
/// libember_runtime.a into a C program that runs it through ember.h on the recorded inputs:
/// the outputs match PyTorch's. One model also with its weights in a file, and one
/// specialized for another shape, so that its guard fails and the interpreter inside the
/// runtime runs it. Every model that gets fusion groups when profiled on its recorded inputs
/// runs so compiled too (its kernels in the object, launched by the runtime library).
#[test]
fn whole_compiled_objects_run_from_c() {
    use ember_compiler::codegen::c_header::model_header;
    use ember_compiler::codegen::{whole, EmitKind};
    let Some(lib) = runtime_library() else { return };
    let include = repo().join("runtime/include");
    let dir = std::env::temp_dir().join(format!("ember-whole-objects-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let failing: Vec<String> = expected_failures().into_iter().map(|(n, _)| n).collect();
    let (mut ran, mut fused, mut problems) = (0, 0, Vec::new());
    let mut served_first = 0;
    for (name, npz, pt) in corpus_cases() {
        if failing.contains(&name) {
            continue;
        }
        let variants: &[&str] = match name.as_str() {
            "mlp_scripted" => &["embed", "file", "guard", "fused"],
            _ => &["embed", "fused"],
        };
        for &variant in variants {
            // Whether the variant ran (a model without groups has no "fused" variant).
            let outcome = (|| -> Result<bool, String> {
                let arrays = Arrays::load(&npz)?;
                let inputs = recorded_inputs(&arrays);
                let bytes = std::fs::read(&pt).map_err(|e| e.to_string())?;
                let mut model =
                    Model::from_bytes(&name, ModelKind::Archive, &bytes, &OpenOptions::default())?;
                // Inputs left out (the encoder layer's masks) take the defaults the compiled
                // model carries.
                let defaults = model.entry(None)?.defaults.clone();
                let (graph, is_method) = whole::method_graph(&mut model, "forward")?;
                let mut guards = Vec::new();
                if variant == "guard" {
                    let program =
                        whole::prepare(&graph, is_method, &[], &defaults).map_err(|e| e.message)?;
                    let ty = ember_dialects::types::parse_type(
                        "Float(7, 7, strides=[7, 1], requires_grad=0, device=cpu)",
                    )
                    .map_err(|d| d.message)?;
                    guards.push((program.input_names[0].clone(), ty));
                }
                let mut program =
                    whole::prepare(&graph, is_method, &guards, &defaults).map_err(|e| e.message)?;
                if variant == "fused" {
                    let config = ember_compiler::passes::PassConfig::default();
                    // Profiled on every input, the defaults included.
                    let mut sample = inputs.clone();
                    for d in defaults.iter().skip(sample.len()) {
                        sample.push(d.clone().ok_or("an input without a default")?);
                    }
                    let groups = whole::fuse(&mut program, &[sample.clone()], &config)
                        .map_err(|e| e.message)?;
                    if groups == 0 {
                        return Ok(false);
                    }
                    // As emberc given the sample: the object carries its memory plan (when
                    // the method frees a buffer within a call).
                    let _ = whole::plan_memory(&mut program, &sample);
                }
                let c_name = format!(
                    "m_{}",
                    name.replace(|c: char| !c.is_ascii_alphanumeric(), "_")
                );
                let opts = whole::WholeOptions {
                    name: c_name.clone(),
                    method: "forward".into(),
                    emit: EmitKind::Obj,
                    cpu: None,
                    weights_file: variant == "file",
                    descriptor: true,
                };
                let compiled = whole::compile(&program, &opts).map_err(|e| e.message)?;
                let stem = dir.join(format!("{c_name}_{variant}"));
                let object = stem.with_extension("o");
                std::fs::write(&object, &compiled.bytes).map_err(|e| e.to_string())?;
                let weights = compiled.weights.as_ref().map(|w| {
                    let p = stem.with_extension("weights");
                    std::fs::write(&p, w).unwrap();
                    p
                });
                let header = model_header(&name, &c_name, &program, "forward", variant == "file");
                std::fs::write(dir.join(format!("{c_name}.h")), header)
                    .map_err(|e| e.to_string())?;
                let source = stem.with_extension("c");
                std::fs::write(&source, c_program(&c_name, &inputs, weights.as_deref())?)
                    .map_err(|e| e.to_string())?;
                let exe = stem.with_extension("exe");
                let cc = std::process::Command::new("cc")
                    .args(["-std=c11", "-Wall", "-Werror", "-I"])
                    .arg(&include)
                    .arg("-I")
                    .arg(&dir)
                    .arg(&source)
                    .arg(&object)
                    .arg(&lib)
                    // Unreachable operators and debug info dropped: the programs are large
                    // beside a debug build of the runtime.
                    .args(["-lpthread", "-ldl", "-lm", "-Wl,--gc-sections", "-s", "-o"])
                    .arg(&exe)
                    .output()
                    .map_err(|e| e.to_string())?;
                if !cc.status.success() {
                    return Err(format!("cc: {}", String::from_utf8_lossy(&cc.stderr)));
                }
                // Fused kernels run in each of their forms: the runtime picks the one the
                // CPU level allows (EMBER_CPU_FEATURES caps it).
                let levels: &[&str] = if variant == "fused" {
                    &["avx512", "avx2", "baseline"]
                } else {
                    &[""]
                };
                let runs: Vec<_> = levels
                    .iter()
                    .map(|level| {
                        std::process::Command::new(&exe)
                            .env("EMBER_CPU_FEATURES", level)
                            .output()
                            .map_err(|e| e.to_string())
                    })
                    .collect();
                for done in [&exe, &object, &source] {
                    let _ = std::fs::remove_file(done);
                }
                for (run, level) in runs.into_iter().zip(levels) {
                    let run = run?;
                    if !run.status.success() {
                        return Err(format!(
                            "run ({level}): {}",
                            String::from_utf8_lossy(&run.stderr)
                        ));
                    }
                    let out = parse_dump(&String::from_utf8_lossy(&run.stdout))?;
                    compare_outputs(&[out], &arrays).map_err(|e| format!("{level}: {e}"))?;
                    // The first call took every planned buffer from the embedded plan, recorded
                    // on this CPU (at the baseline level, a kernel form that runs ops one by
                    // one allocates other buffers: the plan serves what fits).
                    let memory = String::from_utf8_lossy(&run.stderr);
                    let counts: Vec<&str> = memory
                        .lines()
                        .find_map(|l| l.strip_prefix("memory: "))
                        .map(|l| l.split(' ').collect())
                        .unwrap_or_default();
                    let embedded = program.memory_plan.is_some() && *level != "baseline";
                    if embedded && (counts.len() != 2 || counts[0] != counts[1] || counts[0] == "0")
                    {
                        return Err(format!("{level}: planned memory: {memory}"));
                    }
                    served_first += usize::from(embedded);
                }
                Ok(true)
            })();
            match outcome {
                Ok(false) => {}
                Ok(true) => {
                    ran += 1;
                    fused += usize::from(variant == "fused");
                }
                Err(e) => problems.push(format!("{name} ({variant}): {e}")),
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{ran} C programs ran compiled corpus models to PyTorch's outputs, {fused} with groups; \
         {served_first} first calls served from the memory plan in the object"
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(ran >= 28, "only {ran} C programs ran");
    assert!(
        served_first >= 6,
        "only {served_first} first calls served from an embedded plan"
    );
    assert!(
        fused >= MIN_WHOLE_FUSED,
        "only {fused} C programs ran fused models"
    );
}
