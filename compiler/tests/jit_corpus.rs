//! Every `prim::TensorExprGroup` subgraph of the committed corpus of graphs PyTorch's profiling
//! executor optimized (test/corpus/graphs/profiled): compiled by the JIT and run on random
//! inputs of the subgraph's types (unknown sizes set to 3), against the interpreter running the
//! subgraph. Groups the JIT refuses are listed in jit_corpus_expected_refusals.txt with the
//! reason; a new refusal or a refusal that no longer happens fails the test.

use crate::jit_support;

use std::path::Path;

use ember_compiler::codegen::jit::compile_group;
use ember_dialects::symbol::sym;
use ember_dialects::types::{Dim, Type};
use ember_dialects::{AttrValue, Block, Graph};
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::DType;
use jit_support::*;

fn groups(g: &Graph, b: Block, out: &mut Vec<Graph>) {
    for n in g.block_nodes(b) {
        if g.kind(n).as_str().starts_with("prim::TensorExprGroup") {
            if let Some(AttrValue::Graph(sub)) = g.attr(n, sym::attr_subgraph()) {
                out.push((**sub).clone());
            }
        }
        for &inner in g.node_blocks(n) {
            groups(g, inner, out);
        }
    }
}

/// Inputs for a subgraph's parameter types: unknown sizes 3, ints 3, floats 0.5.
fn inputs_for(g: &Graph, rng: &mut Rng) -> Option<Vec<IValue>> {
    g.inputs()
        .iter()
        .map(|&v| match g.ty(v) {
            Type::Int => Some(IValue::Int(3)),
            Type::Float => Some(IValue::Double(0.5)),
            Type::Bool => Some(IValue::Bool(true)),
            Type::Tensor(t) => {
                let dtype = DType::from_scalar_type(t.dtype?)?;
                let shape: Vec<i64> = t
                    .sizes
                    .as_ref()?
                    .iter()
                    .map(|d| match d {
                        Dim::Known(n) => *n,
                        _ => 3,
                    })
                    .collect();
                Some(IValue::Tensor(tensor(rng, dtype, &shape, -2.0, 2.0)))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn corpus_groups_compile_and_match_the_interpreter() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../test/corpus/graphs/profiled");
    let expected_path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/jit_corpus_expected_refusals.txt");
    let expected: Vec<String> = std::fs::read_to_string(&expected_path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(str::to_string)
        .collect();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the profiled corpus")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    files.sort();
    let mut rng = Rng::new(21);
    let (mut compiled, mut compared) = (0, 0);
    let mut refused = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap();
        let Ok(g) = ember_dialects::parse::parse_graph(&text) else {
            continue;
        };
        let mut subs = Vec::new();
        groups(&g, g.block(), &mut subs);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for (i, sub) in subs.iter().enumerate() {
            let group = match compile_group(sub) {
                Ok(group) => group,
                Err(e) => {
                    refused.push(format!("{name} group {i}: {e}"));
                    continue;
                }
            };
            compiled += 1;
            let Some(inputs) = inputs_for(sub, &mut rng) else {
                continue;
            };
            // Sizes guessed for unknown dims may not fit the group; then there is nothing to
            // compare, but the kernel must refuse too.
            match interpret(sub, &inputs) {
                Ok(want) => {
                    let got = group
                        .run(&inputs)
                        .unwrap_or_else(|e| panic!("{name} group {i}: {e}\n{sub}"));
                    for (k, (a, b)) in got.iter().zip(&want).enumerate() {
                        assert_tensors_close(
                            a.as_tensor().unwrap(),
                            b.as_tensor().unwrap(),
                            &format!("{name} group {i} output {k}"),
                        );
                    }
                    compared += 1;
                }
                Err(_) => assert!(group.run(&inputs).is_err(), "{name} group {i}"),
            }
        }
    }
    println!(
        "{compiled} groups compiled, {compared} compared with the interpreter, {} refused",
        refused.len()
    );
    if std::env::var_os("EMBER_BLESS").is_some() {
        let mut text = String::from("# prim::TensorExprGroup subgraphs of test/corpus/graphs/profiled the JIT refuses (EMBER_BLESS=1 rewrites).\n");
        for r in &refused {
            text.push_str(r);
            text.push('\n');
        }
        std::fs::write(&expected_path, text).unwrap();
        return;
    }
    assert_eq!(
        refused, expected,
        "refusals changed (EMBER_BLESS=1 rewrites the list)"
    );
    assert!(
        compared * 2 > compiled,
        "{compared} of {compiled} groups compared"
    );
}
