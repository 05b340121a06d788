//! Every graph of the corpus's scalar-program folders (test/corpus/graphs/{arith, control,
//! containers, strings, optional, exceptions, features}) is built into interpreter code: each
//! of their prim and aten ops on Python values has an operator. The few kinds these graphs use
//! that belong to other parts of the runtime (objects, calls, futures, tensor kernels) are
//! listed here; the test fails when any other kind is missing.

use std::path::Path;

use ember_runtime::interpreter::Code;

/// Kinds implemented outside the builtins: class objects and calls (the interpreter's
/// frames), futures, context managers and tensor kernels.
const ELSEWHERE: &[&str] = &[
    // Enum constants: the graph text names the member but not its value.
    "prim::Constant",
    "prim::GetAttr",
    "prim::SetAttr",
    "prim::CreateObject",
    "prim::CallMethod",
    "prim::CallFunction",
    "prim::Enter",
    "prim::Exit",
    "prim::fork",
    "aten::wait",
    "prim::is_sparse",
    "prim::is_quantized",
    "prim::is_mkldnn",
    "prim::layout",
    "prim::data",
    "prim::tolist",
    "aten::zeros",
    "aten::zeros_like",
    "aten::stack",
    "aten::t",
    "aten::mT",
    "aten::numpy_T",
    "aten::size",
    "aten::dim",
    "aten::item",
    "aten::select",
    "aten::tanh",
    "aten::mul",
    "aten::add",
    "aten::sum",
    "aten::sort",
];

#[test]
fn corpus_scalar_programs_load() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/corpus/graphs");
    let mut missing = Vec::new();
    let mut built = 0;
    for folder in [
        "arith",
        "control",
        "containers",
        "strings",
        "optional",
        "exceptions",
        "features",
    ] {
        let mut paths: Vec<_> = std::fs::read_dir(root.join(folder))
            .unwrap()
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "ir"))
            .collect();
        paths.sort();
        for path in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            let Ok(graph) = ember_dialects::parse::parse_graph(&text) else {
                continue;
            };
            match Code::new(&graph) {
                Ok(_) => built += 1,
                Err(e) => {
                    let kind = e.kind.to_string();
                    let owned_elsewhere = ELSEWHERE
                        .iter()
                        .any(|k| kind == *k || kind.starts_with(&format!("{k}_")));
                    if !owned_elsewhere {
                        missing.push(format!("{}: {}", path.display(), e.message));
                    }
                }
            }
        }
    }
    println!("{built} graphs built");
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
