//! Every pass over every real graph of the corpus (test/corpus/graphs, printed by PyTorch):
//! no error and no panic, every value is used within its scope afterwards, the verifier accepts
//! the result, and a second run finds nothing more to do.

use std::path::{Path, PathBuf};

use hashbrown::HashSet;

use ember_compiler::passes::{PassContext, PASSES};
use ember_dialects::parse::parse_graph;
use ember_dialects::verify::verify;
use ember_dialects::{Block, Graph, Value};

/// Every value is used only where it is defined: after its node in the same block or in a block
/// nested there, or in the block it is a parameter of.
fn check_scopes(g: &Graph) -> Result<(), String> {
    fn walk(g: &Graph, b: Block, visible: &mut Vec<HashSet<Value>>) -> Result<(), String> {
        visible.push(g.block_inputs(b).iter().copied().collect());
        let seen = |visible: &Vec<HashSet<Value>>, v: &Value| visible.iter().any(|s| s.contains(v));
        for n in g.block_nodes(b) {
            if let Some(v) = g.node_inputs(n).iter().find(|v| !seen(visible, v)) {
                return Err(format!(
                    "{} uses %{} out of its scope",
                    g.kind(n),
                    g.value_name(*v)
                ));
            }
            for &sub in g.node_blocks(n) {
                walk(g, sub, visible)?;
            }
            visible
                .last_mut()
                .unwrap()
                .extend(g.node_outputs(n).iter().copied());
        }
        if let Some(v) = g.block_outputs(b).iter().find(|v| !seen(visible, v)) {
            return Err(format!(
                "a block returns %{} out of its scope",
                g.value_name(*v)
            ));
        }
        visible.pop();
        Ok(())
    }
    walk(g, g.block(), &mut Vec::new())
}

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/corpus/graphs");
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "ir"))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    assert!(
        files.len() > 100,
        "the graph corpus under test/corpus/graphs is missing"
    );
    files
}

#[test]
fn every_pass_runs_on_every_real_graph() {
    let mut failures = Vec::new();
    let mut changed = vec![0usize; PASSES.len()];
    let files = corpus();
    let mut parsed = 0;
    let mut verified_graphs = 0;
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        // Parse errors are the text format's tests' business; the passes need graphs.
        let Ok(original) = parse_graph(&text) else {
            continue;
        };
        parsed += 1;
        // Graphs the verifier already rejects (a gap of the verifier or of the parser) are
        // still run through the passes, but only checked for scoping.
        let verified = verify(&original).is_ok();
        verified_graphs += verified as usize;
        for (i, pass) in PASSES.iter().enumerate() {
            let mut g = original.clone();
            let name = format!("{} on {}", pass.name, path.display());
            match (pass.run)(&mut g, &mut PassContext::unlimited(pass.name)) {
                Ok(true) => changed[i] += 1,
                Ok(false) => {}
                Err(e) => {
                    failures.push(format!("{name}: {e}"));
                    continue;
                }
            }
            if let Err(e) = check_scopes(&g) {
                failures.push(format!("{name}: {e}\n{g}"));
                continue;
            }
            if verified {
                if let Err(errors) = verify(&g) {
                    let messages: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
                    failures.push(format!("{name}: {}\n{g}", messages.join("\n")));
                    continue;
                }
            }
            let before = g.clone();
            match (pass.run)(&mut g, &mut PassContext::unlimited(pass.name)) {
                Ok(false) => {}
                Ok(true) => failures.push(format!(
                    "{name}: a second run changed the graph again:\n{before}\n---\n{g}"
                )),
                Err(e) => failures.push(format!("{name}, second run: {e}")),
            }
        }
    }
    assert!(
        verified_graphs * 2 >= parsed,
        "only {verified_graphs} of {parsed} graphs verify"
    );
    assert!(
        parsed * 10 >= files.len() * 9,
        "only {parsed} of {} graphs parse",
        files.len()
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    // Each pass finds something to do somewhere in the corpus, except the frontend's passes:
    // they rewrite the emitter's pre-SSA graphs, and every corpus graph is already past them.
    const FRONTEND_PASSES: &[&str] = &[
        "convert-to-ssa",
        "exit-transform",
        "inline-loop-condition",
        "canonicalize-modified-loops",
    ];
    // Passes that fold frozen weights into other weights: the corpus prints its weights as
    // `<Tensor>` (no values), so they have nothing to fold here (test/pt and the lit tests have
    // weights).
    const WEIGHT_FOLDING_PASSES: &[&str] = &[
        "fold-conv-arith",
        "fold-conv-batch-norm",
        "fold-linear-batch-norm",
    ];
    for (pass, n) in PASSES.iter().zip(changed) {
        if WEIGHT_FOLDING_PASSES.contains(&pass.name) {
            continue;
        }
        if FRONTEND_PASSES.contains(&pass.name) {
            assert_eq!(n, 0, "{} changed a graph already in SSA form", pass.name);
            continue;
        }
        assert!(n > 0, "{} changed no graph of the corpus", pass.name);
    }
}
