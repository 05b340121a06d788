//! PyTorch's graph text: hand-written cases and a byte-for-byte round trip of every real dump
//! (dialects/tests/data/graphs from tools/gen/gen_text_samples.py, and test/corpus/graphs).

use std::path::{Path, PathBuf};

use ember_dialects::parse::parse_graph;
use ember_dialects::print::print_graph;

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

/// Truncated and garbled versions of every sample must give a Diagnostic (or a graph), never a
/// panic, and a Diagnostic's position must lie inside the text.
#[test]
fn garbled_input_never_panics() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = corpus_files(&root.join("tests/data/graphs"));
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let junk = [
        "", "%", "(", ")", "[", "]", "{", "}", "\"", "\\", ",", ":", " ", "\n", "=", "é", "0", "-",
    ];
    let mut errors = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let bytes = text.len();
        let mut variants = Vec::new();
        for i in 0..24 {
            let mut cut = (next() as usize) % bytes.max(1);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            variants.push(text[..cut].to_string());
            let mut at = (next() as usize) % bytes.max(1);
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let mut end = (at + 1 + (next() as usize) % 4).min(bytes);
            while !text.is_char_boundary(end) {
                end += 1;
            }
            let piece = junk[(next() as usize + i) % junk.len()];
            variants.push(format!("{}{}{}", &text[..at], piece, &text[end..]));
        }
        for v in variants {
            let lines = v.lines().count() as u32 + 1;
            if let Err(d) = parse_graph(&v) {
                errors += 1;
                assert!(
                    d.pos.line >= 1 && d.pos.line <= lines,
                    "{}: {d} out of range",
                    file.display()
                );
                assert!(d.pos.col >= 1);
            }
        }
    }
    assert!(errors > 0, "garbling never produced an error");
}

#[test]
fn errors_name_line_and_column() {
    let cases = [
        (
            "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%z)\n  return (%y)\n",
            "2:28: error: use of undefined value %z",
        ),
        (
            "graph(%x : Tensor):\n  return (%x)\nwith",
            "3:1: error: unexpected 'with' after the graph",
        ),
        (
            "graph(%x : Tensor):\n  %y : Tensor = relu(%x)\n  return (%y)\n",
            "2:17: error: expected an operator 'namespace::name' but found 'relu'",
        ),
        (
            "graph(%x : Tensor):\n  %y : Tensor = aten::relu(%x\n",
            "2:30: error: expected ', ' but found end of line",
        ),
        (
            "graph(%x : Flaot(2)):\n  return (%x)\n",
            "1:12: error: unknown type 'Flaot'",
        ),
        (
            "graph(%x : Tensor):\n  %y : str = prim::Constant[value=\"ab]()\n  return (%y)\n",
            "2:35: error: unterminated string",
        ),
        (
            "graph(%x : Tensor):\n  %x : Tensor = aten::relu(%x)\n  return (%x)\n",
            "2:3: error: value %x is defined twice",
        ),
        ("", "1:1: error: expected 'graph(' but found end of input"),
    ];
    for (text, want) in cases {
        let got = parse_graph(text).err().map(|d| d.to_string());
        assert_eq!(got.as_deref(), Some(want), "for {text:?}");
    }
}

#[test]
fn deep_nesting_is_refused_not_a_crash() {
    let list = format!(
        "graph():\n  %a : int[] = prim::Constant[value={}1{}]()\n  return (%a)\n",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    assert!(parse_graph(&list).is_err());
    let mut blocks = String::from("graph(%c : bool):\n");
    for depth in 0..200 {
        let pad = "  ".repeat(1 + 2 * depth);
        blocks.push_str(&format!("{pad} = prim::If(%c)\n{pad}  block0():\n"));
    }
    assert!(parse_graph(&blocks).is_err());
    let types = format!(
        "graph(%x : {}int{}):\n  return (%x)\n",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    assert!(parse_graph(&types).is_err());
}
