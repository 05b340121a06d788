//! Runs `constant-propagation` and `canonicalize` over every graph of the corpus and the
//! text-format samples: neither may panic or fail, and what they leave must print and parse
//! back.

use std::path::{Path, PathBuf};

use ember_compiler::passes::{lookup, PassContext};
use ember_dialects::parse::parse_graph;

fn graphs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    // Every corpus graph and the text-format samples.
    for dir in ["test/corpus/graphs", "dialects/tests/data/graphs"] {
        for entry in walkdir::WalkDir::new(root.join(dir)).sort_by_file_name() {
            let entry = entry.expect("readable corpus");
            if entry.path().extension().is_some_and(|x| x == "ir") {
                files.push(entry.into_path());
            }
        }
    }
    files
}

#[test]
fn passes_keep_every_corpus_graph_printable() {
    let mut parsed = 0;
    let mut changed = [0usize; 2];
    for file in graphs() {
        let text = std::fs::read_to_string(&file).unwrap();
        // Files the parser does not take are the text-format tests' business.
        let Ok(original) = parse_graph(&text) else {
            continue;
        };
        parsed += 1;
        for pipeline in [
            &["constant-propagation", "canonicalize"][..],
            &["canonicalize"],
        ] {
            let mut g = original.clone();
            for name in pipeline {
                let pass = lookup(name).expect("registered pass");
                let mut cx = PassContext::unlimited(pass.name);
                let did = (pass.run)(&mut g, &mut cx)
                    .unwrap_or_else(|e| panic!("{name} on {}: {e}", file.display()));
                changed[usize::from(*name == "canonicalize")] += usize::from(did);
            }
            let printed = g.to_string();
            if let Err(d) = parse_graph(&printed) {
                panic!(
                    "{pipeline:?} on {}: output does not parse: {d:?}\n{printed}",
                    file.display()
                );
            }
        }
    }
    assert!(parsed > 100, "only {parsed} corpus graphs parsed");
    // The corpus has foldable code (constant conditions, `not (a > b)`, `x & True`).
    assert!(changed[0] > 10 && changed[1] > 5, "changed: {changed:?}");
}
