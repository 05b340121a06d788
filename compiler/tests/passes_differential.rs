//! Runs corpus graphs whose inputs are ints, floats and bools in the interpreter before and
//! after `constant-propagation` and `canonicalize`, on a grid of inputs: results (or the fact
//! that it raised) must not change.

use std::path::Path;

use ember_compiler::passes::{lookup, PassContext};
use ember_dialects::parse::parse_graph;
use ember_dialects::{Graph, Type};
use ember_runtime::interpreter::{run, Code};
use ember_runtime::ivalue::IValue;

/// The printed outputs, or `Err` if it raised; `None` if the interpreter cannot build the
/// graph or it runs past a second (a loop that never ends on this input: the thread is left
/// to the end of the test process).
fn run_graph(g: &Graph, inputs: &[IValue]) -> Option<Result<String, ()>> {
    let code = Code::new(g).ok()?;
    let inputs = inputs.to_vec();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let out = run(&code, inputs)
            .map(|out| format!("{out:?}"))
            .map_err(|_| ());
        let _ = tx.send(out);
    });
    rx.recv_timeout(std::time::Duration::from_secs(1)).ok()
}

fn samples(t: &Type) -> Option<Vec<IValue>> {
    Some(match t {
        // Small positive ints: loops in the corpus (Collatz, countdowns) end on them.
        Type::Int => [1, 2, 3, 10].map(IValue::Int).to_vec(),
        Type::Float => [-2.5, -0.0, 0.0, 1.0, 3.5].map(IValue::Double).to_vec(),
        Type::Bool => vec![IValue::Bool(false), IValue::Bool(true)],
        _ => return None,
    })
}

#[test]
fn passes_keep_what_scalar_graphs_compute() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/corpus/graphs");
    let (mut graphs, mut runs) = (0, 0);
    // The folders of scalar programs (models take tensors, and are slow to parse here).
    let folders = [
        "arith",
        "calls",
        "containers",
        "control",
        "exceptions",
        "optional",
        "strings",
    ];
    let entries = folders
        .iter()
        .flat_map(|f| walkdir::WalkDir::new(root.join(f)).sort_by_file_name());
    for entry in entries {
        let entry = entry.unwrap();
        if entry.path().extension().is_none_or(|x| x != "ir") {
            continue;
        }
        let Ok(original) = parse_graph(&std::fs::read_to_string(entry.path()).unwrap()) else {
            continue;
        };
        let Some(domains) = original
            .inputs()
            .iter()
            .map(|&v| samples(original.ty(v)))
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let started = std::time::Instant::now();
        let mut optimized = original.clone();
        for name in ["constant-propagation", "canonicalize"] {
            let pass = lookup(name).unwrap();
            (pass.run)(&mut optimized, &mut PassContext::unlimited(pass.name)).unwrap();
        }
        // A grid walk over the input domains, at most 16 points.
        let total: usize = domains.iter().map(Vec::len).product();
        let step = total.div_ceil(16).max(1);
        let mut counted = false;
        for k in (0..total).step_by(step) {
            let mut rest = k;
            let inputs: Vec<IValue> = domains
                .iter()
                .map(|d| {
                    let v = d[rest % d.len()].clone();
                    rest /= d.len();
                    v
                })
                .collect();
            let Some(before) = run_graph(&original, &inputs) else {
                break;
            };
            let after = run_graph(&optimized, &inputs).expect("optimized graph builds and ends");
            assert_eq!(
                before,
                after,
                "{} on {inputs:?}\n{original}\n{optimized}",
                entry.path().display()
            );
            runs += 1;
            counted = true;
        }
        graphs += usize::from(counted);
        if std::env::var("TRACE").is_ok() {
            eprintln!("{:?} {}", started.elapsed(), entry.path().display());
        }
    }
    eprintln!("{graphs} graphs, {runs} runs");
    assert!(graphs > 10, "only {graphs} graphs ran");
}
