//! Every real PyTorch graph dump (dialects/tests/data/graphs and test/corpus/graphs) parses
//! and verifies: the verifier accepts everything PyTorch itself produces.

use std::path::{Path, PathBuf};

use ember_dialects::parse::parse_graph;
use ember_dialects::verify::verify;

fn ir_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "ir"))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    files
}

#[test]
fn every_real_graph_verifies() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = ir_files(&root.join("tests/data/graphs"));
    files.extend(ir_files(&root.join("../test/corpus/graphs")));
    assert!(files.len() >= 20, "the committed graph dumps are missing");
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        // Parsing is text_format.rs's concern; a dump that does not parse is left to it.
        let Ok(g) = parse_graph(&text) else { continue };
        if let Err(errors) = verify(&g) {
            for e in errors {
                failures.push(format!("{}: {e}", file.display()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} errors:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The other direction on the same real graphs: moving a node to just before the producer of
/// its first input (same block) must be caught as a use before the definition.
#[test]
fn real_graphs_with_a_node_moved_above_its_input_are_rejected() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut broken = 0;
    for file in ir_files(&root.join("tests/data/graphs")) {
        let text = std::fs::read_to_string(&file).unwrap();
        let Ok(mut g) = parse_graph(&text) else {
            continue;
        };
        let victim = g.nodes().into_iter().find_map(|n| {
            let v = *g.node_inputs(n).first()?;
            let p = g.producer(v);
            let same_block = g.owning_block(p) == g.owning_block(n) && !g.is_block_boundary(p);
            same_block.then_some((n, p, v))
        });
        let Some((n, p, v)) = victim else { continue };
        g.move_before(n, p);
        let errors = verify(&g).expect_err(&file.display().to_string());
        let want = format!(
            "value %{} used by {} is not defined before it",
            g.value_name(v),
            g.kind(n)
        );
        assert!(
            errors.iter().any(|e| e.message == want && e.node == n),
            "{}: expected `{want}`, got {errors:?}",
            file.display()
        );
        broken += 1;
    }
    assert!(broken >= 20, "too few graphs had a node to move: {broken}");
}
