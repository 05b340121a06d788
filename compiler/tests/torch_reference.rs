//! Kernels against real PyTorch: graphs PyTorch printed, inputs, and the outputs PyTorch
//! computed (compiler/tests/data/torch_elementwise, written by tools/gen/codegen_fixtures.py).
//! Each graph is parsed, compiled to an x86-64 object with both math lowerings, run through C,
//! and compared: NaN with NaN, infinities and signed zeros exactly, other values within
//! float32's per-op rtol 1e-5 / atol 1e-6, even for `chain`, six ops deep.

use crate::common;

use std::path::Path;

use common::{assert_close, run_in_c, Arg};
use ember_compiler::codegen::fusion_to_mlir::MathLowering;

fn hex_floats(words: &[&str]) -> Vec<f32> {
    words
        .iter()
        .map(|w| f32::from_bits(u32::from_str_radix(w, 16).expect("hex")))
        .collect()
}

/// The kernel arguments and the expected outputs of a `.values` file.
fn read_values(text: &str) -> (Vec<Arg>, Vec<Vec<f32>>) {
    let (mut args, mut outs) = (Vec::new(), Vec::new());
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["in", _, "tensor", _shape, data @ ..] => args.push(Arg::Tensor(hex_floats(data))),
            ["in", _, "float", v] => args.push(Arg::Float(v.parse().unwrap())),
            ["in", _, "int", v] => args.push(Arg::Int(v.parse().unwrap())),
            ["out", "tensor", _shape, data @ ..] => outs.push(hex_floats(data)),
            _ => panic!("bad line: {line}"),
        }
    }
    (args, outs)
}

#[test]
fn kernels_match_pytorch() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/torch_elementwise");
    let mut cases: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ir"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 8, "fixtures missing in {}", dir.display());
    for ir in cases {
        let name = ir.file_stem().unwrap().to_str().unwrap().to_string();
        let graph = ember_dialects::parse::parse_graph(&std::fs::read_to_string(&ir).unwrap())
            .unwrap_or_else(|d| panic!("{}", d.render(ir.to_str().unwrap())));
        let (args, want) =
            read_values(&std::fs::read_to_string(ir.with_extension("values")).unwrap());
        for math in [MathLowering::Libm, MathLowering::Expanded] {
            let got = run_in_c(&graph, &format!("torch_{name}"), &args, math);
            assert_eq!(got.len(), want.len(), "{name}: outputs");
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_close(&format!("{name} output {i} ({math:?})"), g, w, 1e-5);
            }
        }
    }
}
