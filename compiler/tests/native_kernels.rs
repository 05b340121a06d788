//! Compiles fusion graphs to x86-64 objects, links each with a small C program (cc) that calls
//! the kernel on concrete inputs, and checks the numbers against references computed here with
//! PyTorch's float32 formulas. Inputs and outputs cross as bit patterns, so NaN, ±inf and -0.0
//! are checked exactly; other values within DESIGN.md's float32 tolerance (rtol 1e-5, atol 1e-6).
//!
//! Each case also runs with the expanded math of the GPU path (`MathLowering::Expanded`), so
//! the NVPTX `exp`/`log`/`tanh` are checked on the CPU.

use crate::common;

use common::{assert_close, run_in_c, Arg};
use ember_compiler::codegen::fusion_to_mlir::MathLowering;
use ember_compiler::codegen::{collect_kernels, compile, CompileOptions, EmitKind, TargetArch};
use ember_dialects::symbol::{sym, Symbol};
use ember_dialects::types::{Dim, ScalarType, TensorType};
use ember_dialects::{AttrValue, Graph, Type, Value};

fn float_tensor(shape: &[i64]) -> Type {
    Type::Tensor(TensorType {
        dtype: Some(ScalarType::Float),
        sizes: Some(shape.iter().map(|&d| Dim::Known(d)).collect()),
        ..Default::default()
    })
}

/// Builds a graph op by op.
struct Builder {
    g: Graph,
}

impl Builder {
    fn new() -> Self {
        Builder { g: Graph::new() }
    }
    fn input(&mut self, name: &str, ty: Type) -> Value {
        let v = self.g.add_input(ty);
        self.g.set_debug_name(v, name);
        v
    }
    fn constant(&mut self, value: AttrValue, ty: Type) -> Value {
        let n = self.g.create_and_insert(sym::constant(), &[], 1);
        self.g.set_attr(n, sym::attr_value(), value);
        let v = self.g.output(n, 0);
        self.g.set_ty(v, ty);
        v
    }
    fn int(&mut self, x: i64) -> Value {
        self.constant(AttrValue::Int(x), Type::Int)
    }
    fn float(&mut self, x: f64) -> Value {
        self.constant(AttrValue::Float(x), Type::Float)
    }
    fn op(&mut self, name: &str, inputs: &[Value]) -> Value {
        let n = self.g.create_and_insert(Symbol::aten(name), inputs, 1);
        self.g.output(n, 0)
    }
    fn finish(mut self, outputs: &[Value]) -> Graph {
        for &o in outputs {
            self.g.register_output(o);
        }
        self.g
    }
}

fn both_maths(f: impl Fn(MathLowering)) {
    f(MathLowering::Libm);
    f(MathLowering::Expanded);
}

/// Index of the element of a broadcast operand of `shape` at row-major position `i` of `out`.
fn bcast(i: usize, out: &[usize], shape: &[usize]) -> usize {
    let mut rem = i;
    let mut idx = vec![0; out.len()];
    for d in (0..out.len()).rev() {
        idx[d] = rem % out[d];
        rem /= out[d];
    }
    let lead = out.len() - shape.len();
    shape.iter().enumerate().fold(0, |acc, (j, &s)| {
        acc * s + if s == 1 { 0 } else { idx[lead + j] }
    })
}

#[test]
fn add_sub_with_alpha_and_broadcasting() {
    // z = x + 2.5 * y (y broadcast over rows); w = z - 2 * 1.5 (scalar constants, int alpha).
    let mut b = Builder::new();
    let x = b.input("x", float_tensor(&[2, 3]));
    let y = b.input("y", float_tensor(&[3]));
    let alpha = b.float(2.5);
    let z = b.op("add", &[x, y, alpha]);
    let c = b.float(1.5);
    let two = b.int(2);
    let w = b.op("sub", &[z, c, two]);
    let g = b.finish(&[z, w]);
    let xs = [1.0f32, -2.0, 3.5, 0.25, 1e10, -0.0];
    let ys = [0.5f32, -1.0, 1e-3];
    let z_ref: Vec<f32> = (0..6).map(|i| xs[i] + 2.5f32 * ys[i % 3]).collect();
    let w_ref: Vec<f32> = z_ref.iter().map(|z| z - 2.0f32 * 1.5f32).collect();
    both_maths(|m| {
        let out = run_in_c(
            &g,
            "alpha",
            &[Arg::Tensor(xs.to_vec()), Arg::Tensor(ys.to_vec())],
            m,
        );
        assert_close("add", &out[0], &z_ref, 1e-5);
        assert_close("sub", &out[1], &w_ref, 1e-5);
    });
}

#[test]
fn scalar_inputs_and_two_sided_broadcasting() {
    // out = tanh((a * b + c) / s) * n, a: [2, 1], b: [1, 3], c: 0-dim, s: float, n: int.
    let mut b = Builder::new();
    let a = b.input("a", float_tensor(&[2, 1]));
    let bb = b.input("b", float_tensor(&[1, 3]));
    let c = b.input("c", float_tensor(&[]));
    let s = b.input("s", Type::Float);
    let n = b.input("n", Type::Int);
    let one = b.int(1);
    let ab = b.op("mul", &[a, bb]);
    let abc = b.op("add", &[ab, c, one]);
    let q = b.op("div", &[abc, s]);
    let t = b.op("tanh", &[q]);
    let out = b.op("mul", &[t, n]);
    let g = b.finish(&[out]);
    let (av, bv, cv) = ([0.5f32, -1.5], [1.0f32, 2.0, -3.0], [0.25f32]);
    let (sv, nv) = (1.75f64, 3i64);
    let want: Vec<f32> = (0..6)
        .map(|i| {
            let (ai, bi) = (
                av[bcast(i, &[2, 3], &[2, 1])],
                bv[bcast(i, &[2, 3], &[1, 3])],
            );
            ((ai * bi + cv[0]) / sv as f32).tanh() * nv as f32
        })
        .collect();
    both_maths(|m| {
        let args = [
            Arg::Tensor(av.to_vec()),
            Arg::Tensor(bv.to_vec()),
            Arg::Tensor(cv.to_vec()),
            Arg::Float(sv),
            Arg::Int(nv),
        ];
        let out = run_in_c(&g, "scalars", &args, m);
        assert_close("tanh", &out[0], &want, 1e-5);
    });
}

#[test]
fn pytorch_semantics_of_special_values() {
    let mut b = Builder::new();
    let x = b.input("x", float_tensor(&[10]));
    let y = b.input("y", float_tensor(&[10]));
    let outs = [
        b.op("relu", &[x]),
        b.op("sigmoid", &[x]),
        b.op("neg", &[x]),
        b.op("div", &[x, y]),
        b.op("exp", &[x]),
        b.op("log", &[x]),
        b.op("tanh", &[x]),
    ];
    let g = b.finish(&outs);
    let xs = [
        -0.0f32,
        0.0,
        f32::NAN,
        -1.0,
        2.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        -100.0,
        88.0,
        1e-40,
    ];
    let ys = [0.0f32, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0, -3.0, 4.0, 1e-40];
    // PyTorch: relu keeps NaN and -0.0 (clamp_min), sigmoid = 1 / (1 + exp(-x)), IEEE division.
    let relu: Vec<f32> = xs.iter().map(|&v| if v < 0.0 { 0.0 } else { v }).collect();
    let sigmoid: Vec<f32> = xs.iter().map(|&v| 1.0 / (1.0 + (-v).exp())).collect();
    let neg: Vec<f32> = xs.iter().map(|&v| -v).collect();
    let div: Vec<f32> = xs.iter().zip(&ys).map(|(a, b)| a / b).collect();
    let exp: Vec<f32> = xs.iter().map(|v| v.exp()).collect();
    let log: Vec<f32> = xs.iter().map(|v| v.ln()).collect();
    let tanh: Vec<f32> = xs.iter().map(|v| v.tanh()).collect();
    assert!(relu[0].is_sign_negative() && div[1].is_nan() && div[3] == f32::NEG_INFINITY);
    both_maths(|m| {
        let out = run_in_c(
            &g,
            "special",
            &[Arg::Tensor(xs.to_vec()), Arg::Tensor(ys.to_vec())],
            m,
        );
        for (name, (got, want)) in ["relu", "sigmoid", "neg", "div", "exp", "log", "tanh"]
            .iter()
            .zip(
                out.iter()
                    .zip([&relu, &sigmoid, &neg, &div, &exp, &log, &tanh]),
            )
        {
            assert_close(&format!("{name} ({m:?})"), got, want, 1e-5);
        }
    });
}

#[test]
fn expanded_math_matches_libm_over_its_range() {
    // The GPU's exp/log/tanh (arith expansions) against Rust's libm, over wide sweeps.
    let mut b = Builder::new();
    let x = b.input("x", float_tensor(&[4000]));
    let p = b.input("p", float_tensor(&[4000]));
    let outs = [
        b.op("exp", &[x]),
        b.op("tanh", &[x]),
        b.op("log", &[p]),
        b.op("sigmoid", &[x]),
    ];
    let g = b.finish(&outs);
    let xs: Vec<f32> = (0..4000)
        .map(|i| -104.0 + i as f32 * (193.0 / 4000.0))
        .collect();
    // Positive values from subnormals to near the float32 maximum.
    let ps: Vec<f32> = (0..4000)
        .map(|i| 2f32.powf(-148.0 + i as f32 * (275.0 / 4000.0)))
        .collect();
    let out = run_in_c(
        &g,
        "sweep",
        &[Arg::Tensor(xs.clone()), Arg::Tensor(ps.clone())],
        MathLowering::Expanded,
    );
    let exp: Vec<f32> = xs.iter().map(|v| v.exp()).collect();
    let tanh: Vec<f32> = xs.iter().map(|v| v.tanh()).collect();
    let log: Vec<f32> = ps.iter().map(|v| v.ln()).collect();
    let sigmoid: Vec<f32> = xs.iter().map(|&v| 1.0 / (1.0 + (-v).exp())).collect();
    // exp near the bottom of its range is subnormal, where only absolute error is meaningful.
    assert_close("exp", &out[0], &exp, 1e-5);
    // Cephes' accuracy, in units in the last place wherever the result is a normal float.
    for (name, got, want, max_ulp) in [
        ("exp", &out[0], &exp, 2),
        ("tanh", &out[1], &tanh, 3),
        ("log", &out[2], &log, 2),
        ("sigmoid", &out[3], &sigmoid, 3),
    ] {
        let worst = got
            .iter()
            .zip(want.iter())
            .filter(|(_, w)| w.is_normal())
            .map(|(g, w)| (g.to_bits() as i64 - w.to_bits() as i64).abs())
            .max()
            .unwrap();
        eprintln!("{name}: max error {worst} ulp");
        assert!(worst <= max_ulp, "{name}: {worst} ulp");
    }
    assert_close("tanh", &out[1], &tanh, 1e-5);
    assert_close("log", &out[2], &log, 1e-5);
    assert_close("sigmoid", &out[3], &sigmoid, 1e-5);
}

#[test]
fn fusion_group_nodes_become_one_kernel_each() {
    // graph(%x : Float(4)): two prim::FusionGroup nodes; the second gets a constant from the
    // enclosing graph, which is folded into the kernel rather than passed.
    fn group(inner: impl FnOnce(&mut Builder, Value) -> Value) -> Graph {
        let mut b = Builder::new();
        let p = b.input("p", float_tensor(&[4]));
        let s = b.g.add_input(Type::Float);
        b.g.set_debug_name(s, "scale");
        let m = b.op("mul", &[p, s]);
        let r = inner(&mut b, m);
        b.finish(&[r])
    }
    let mut outer = Builder::new();
    let x = outer.input("x", float_tensor(&[4]));
    let half = outer.float(0.5);
    let mut groups = Vec::new();
    for (i, sub) in [
        group(|b, m| b.op("exp", &[m])),
        group(|b, m| b.op("neg", &[m])),
    ]
    .into_iter()
    .enumerate()
    {
        let input = if i == 0 { x } else { groups[0] };
        let n = outer
            .g
            .create_and_insert(sym::fusion_group(), &[input, half], 1);
        outer
            .g
            .set_attr(n, sym::attr_subgraph(), AttrValue::Graph(Box::new(sub)));
        let out = outer.g.output(n, 0);
        outer.g.set_ty(out, float_tensor(&[4]));
        groups.push(out);
    }
    let g = outer.finish(&[groups[1]]);
    let kernels = collect_kernels(&g, "two", &Default::default()).unwrap();
    let names: Vec<&str> = kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["two_fusion_0", "two_fusion_1"]);
    // The constant 0.5 is not an argument: each kernel takes one tensor and writes one.
    assert!(kernels
        .iter()
        .all(|k| k.args.len() == 1 && k.outputs.len() == 1));
    let object = compile(
        &kernels,
        &CompileOptions::new(TargetArch::X86_64, EmitKind::Obj),
    )
    .unwrap();
    assert!(object.starts_with(b"\x7fELF"));
}
