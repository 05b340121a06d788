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
