//! What `collect_kernels` refuses, and where it says the problem is: one line per case.

use ember_compiler::codegen::collect_kernels;
use ember_dialects::symbol::{sym, Symbol};
use ember_dialects::types::{Dim, ScalarType, TensorType};
use ember_dialects::{AttrValue, Graph, Type};
use hashbrown::HashMap;

fn tensor(dtype: ScalarType, shape: Option<&[i64]>, strides: Option<&[i64]>) -> Type {
    Type::Tensor(TensorType {
        dtype: Some(dtype),
        sizes: shape.map(|s| s.iter().map(|&d| Dim::Known(d)).collect()),
        strides: strides.map(|s| s.iter().map(|&d| Some(d)).collect()),
        ..Default::default()
    })
}

fn f32s(shape: &[i64]) -> Type {
    tensor(ScalarType::Float, Some(shape), None)
}

/// `out = op(x, y, extra...)` with x and y of the given types; returns the error as
/// "KIND %OUTPUT: message" (or "ok").
fn check(
    op: &str,
    x: Type,
    y: Option<Type>,
    out_ty: Option<Type>,
    shapes: &[(&str, &[i64])],
) -> String {
    let mut g = Graph::new();
    let xv = g.add_input(x);
    g.set_debug_name(xv, "x");
    let mut inputs = vec![xv];
    if let Some(y) = y {
        let yv = g.add_input(y);
        g.set_debug_name(yv, "y");
        inputs.push(yv);
    }
    if op == "add" {
        let c = g.create_and_insert(sym::constant(), &[], 1);
        g.set_attr(c, sym::attr_value(), AttrValue::Int(1));
        inputs.push(g.output(c, 0));
    }
    let n = g.create_and_insert(Symbol::aten(op), &inputs, 1);
    let out = g.output(n, 0);
    g.set_debug_name(out, "out");
    if let Some(t) = out_ty {
        g.set_ty(out, t);
    }
    g.register_output(out);
    let shapes: HashMap<String, Vec<i64>> = shapes
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_vec()))
        .collect();
    match collect_kernels(&g, "k", &shapes) {
        Ok(_) => "ok".to_string(),
        Err(e) => {
            let site = e
                .site
                .map(|s| format!("{} %{}", s.kind, s.output.unwrap_or_default()));
            format!("{}: {}", site.unwrap_or_default(), e.message)
        }
    }
}

#[test]
fn refusals_name_the_node_and_the_reason() {
    let long = tensor(ScalarType::Long, Some(&[2]), None);
    let strided = tensor(ScalarType::Float, Some(&[2, 3]), Some(&[1, 2]));
    let unknown = Type::tensor();
    let cases: Vec<(String, &str)> = vec![
        (check("sin", f32s(&[2]), None, None, &[]), "aten::sin %out: unsupported operation in a fused kernel: aten::sin"),
        (check("exp", long, None, None, &[]), "prim::Param %x: input 'x': only float32 tensors are supported, not Long"),
        (
            check("exp", strided, None, None, &[]),
            "prim::Param %x: input 'x': only contiguous tensors are supported (strides [1, 2], expected [3, 1])",
        ),
        (check("add", f32s(&[2, 3]), Some(f32s(&[2])), None, &[]), "aten::add %out: shapes [2, 3] and [2] cannot be broadcast together"),
        (
            check("exp", unknown.clone(), None, None, &[]),
            "prim::Param %x: input 'x': the shape is not known (give it with --shape)",
        ),
        (check("exp", unknown, None, None, &[("x", &[4, 5])]), "ok"),
        (
            check("mul", f32s(&[2, 3]), Some(f32s(&[3])), Some(f32s(&[3, 3])), &[]),
            "aten::mul %out: aten::mul: the result type says shape [3, 3] but broadcasting gives [2, 3]",
        ),
        (check("mul", Type::Float, Some(f32s(&[3])), None, &[]), "aten::mul %out: aten::mul: the first operand must be a float32 tensor"),
        (check("relu", f32s(&[2]), Some(f32s(&[2])), None, &[]), "aten::relu %out: aten::relu: expected 1 inputs and 1 output, found 2 and 1"),
        (check("exp", Type::Str, None, None, &[]), "prim::Param %x: input 'x' has type str; only float32 tensors, int and float are supported"),
        (check("add", f32s(&[0, 3]), Some(f32s(&[1, 3])), None, &[]), "ok"),
    ];
    for (got, want) in cases {
        assert_eq!(got, want);
    }
}
