//! The deterministic mutation tests of the `graph_text` and `schema` fuzz targets (fuzz/): the
//! same properties (fuzz/checks/*.rs) on thousands of damaged versions of real graphs and of
//! the schema catalogue, in a few seconds, with no nightly toolchain.

use std::path::Path;

#[path = "../../fuzz/checks/graph_text.rs"]
mod graph_text;
#[path = "../../fuzz/checks/mutate.rs"]
mod mutate;
#[path = "../../fuzz/checks/schema.rs"]
mod schema;

const GRAPH_TOKENS: &[&str] = &[
    "%",
    "%x",
    "%0",
    " : ",
    ":",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ", ",
    "=",
    " = ",
    "\n",
    "  ",
    "\"",
    "\\",
    "#",
    " # f.py:1:2",
    "graph(",
    "return (",
    "block0():",
    "block1():",
    "-> (",
    "prim::Constant",
    "prim::If",
    "prim::Loop",
    "aten::add",
    "[value=",
    "Tensor",
    "int",
    "int[]",
    "float",
    "str",
    "Float(2, 3)",
    "(int, Tensor)",
    "Dict(str, int)",
    "?",
    "1",
    "-1",
    "1.",
    "1e-05",
    "inf",
    "nan",
    "True",
    "None",
    "<Tensor>",
    "[ CPUFloatType{1} ]",
    ", scope: m",
    "with prim::FusionGroup_0 = ",
    "prim::FusionGroup_0",
    "é",
];

const SCHEMA_TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    ",",
    ", ",
    " ",
    "->",
    " -> ",
    "*",
    "=",
    "?",
    "!",
    "(a)",
    "(a!)",
    "(a -> *)",
    "Tensor",
    "int",
    "float",
    "int[2]",
    "Tensor[]",
    "Tensor(a)",
    "Scalar",
    "str",
    "Dict(str, Tensor)",
    "Union(int, str)",
    "Optional[int]",
    "...",
    "None",
    "True",
    "1",
    "-1.5",
    "\"s\"",
    "aten::",
    ".out",
    "__torch__.m.C",
    "(int, int)",
];

fn graph_seeds() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = [root.join("tests/data/graphs"), root.join("../test/IR")]
        .iter()
        .flat_map(|d| walkdir::WalkDir::new(d).sort_by_file_name())
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "ir"))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    // Long dumps only slow the test; their heads have every kind of line.
    files
        .iter()
        .map(|f| {
            let bytes = std::fs::read(f).unwrap();
            bytes[..bytes.len().min(3000)].to_vec()
        })
        .collect()
}

#[test]
fn mutated_graph_text_keeps_the_graph_text_properties() {
    let seeds = graph_seeds();
    assert!(seeds.len() >= 20, "the committed graph samples are missing");
    let (parsed, refused) = mutate::run(
        &seeds,
        400,
        GRAPH_TOKENS,
        0x9e37_79b9_7f4a_7c15,
        graph_text::check,
        |&ok| ok,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        parsed > 200 && refused > 200,
        "{parsed} parsed, {refused} refused"
    );
}

#[test]
fn mutated_schemas_keep_the_schema_properties() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("data/schemas.txt")).unwrap();
    let seeds: Vec<Vec<u8>> = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .step_by(7)
        .map(|l| l.as_bytes().to_vec())
        .collect();
    assert!(seeds.len() > 500, "the schema catalogue is missing");
    let (parsed, refused) = mutate::run(
        &seeds,
        40,
        SCHEMA_TOKENS,
        0x005e_ed0f_5c4e,
        schema::check,
        |&n| n > 0,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        parsed > 1000 && refused > 1000,
        "{parsed} parsed, {refused} refused"
    );
}

/// What fuzzing found (tests/data/fuzz_findings/<target>/): each input keeps its property now.
#[test]
fn fuzzer_findings_keep_their_properties() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz_findings");
    let mut checked = 0;
    for (target, check) in [
        (
            "graph_text",
            (|d: &[u8]| graph_text::check(d).map(|_| ())) as fn(&[u8]) -> Result<(), String>,
        ),
        ("schema", |d: &[u8]| schema::check(d).map(|_| ())),
    ] {
        for entry in std::fs::read_dir(root.join(target)).unwrap() {
            let path = entry.unwrap().path();
            let data = std::fs::read(&path).unwrap();
            check(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            checked += 1;
        }
    }
    assert!(checked >= 2);
}
