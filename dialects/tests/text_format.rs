//! PyTorch's graph text: hand-written cases and a byte-for-byte round trip of every real dump
//! (dialects/tests/data/graphs from tools/gen/gen_text_samples.py, and test/corpus/graphs).

use std::path::{Path, PathBuf};

use ember_dialects::parse::parse_graph;
use ember_dialects::print::print_graph;
use expect_test::{expect, Expect};

fn corpus_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "ir"))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    files
}

/// Every `.ir` file of our samples and, once it has landed, of the shared corpus. The samples
/// are committed, so the walk never comes up empty and cannot pass vacuously.
fn all_graph_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let samples = corpus_files(&root.join("tests/data/graphs"));
    assert!(
        samples.len() >= 20,
        "the committed samples under tests/data/graphs are missing"
    );
    let mut files = samples;
    let corpus = root.join("../test/corpus/graphs");
    if corpus.is_dir() {
        files.extend(corpus_files(&corpus));
    }
    files
}

#[test]
fn every_real_graph_round_trips() {
    let files = all_graph_files();
    let mut failures = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        match parse_graph(&text) {
            Ok(g) => {
                let printed = print_graph(&g);
                if printed != text {
                    let line = printed
                        .lines()
                        .zip(text.lines())
                        .position(|(a, b)| a != b)
                        .unwrap_or(printed.lines().count().min(text.lines().count()));
                    failures.push(format!(
                        "{}: differs at line {}:\n  want: {}\n  got:  {}",
                        file.display(),
                        line + 1,
                        text.lines().nth(line).unwrap_or("<end>"),
                        printed.lines().nth(line).unwrap_or("<end>")
                    ));
                }
            }
            Err(e) => failures.push(e.render(&file.display().to_string())),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} files do not round-trip:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
