//! Every op the JIT fuses, against the interpreter (the runtime's registry ops), on random
//! inputs with broadcasts, scalar operands, size-1 dims, every dtype family, strided inputs and
//! unknown sizes; and `run`'s refusal of inputs the kernel was not built for.

use crate::jit_support;

use ember_compiler::codegen::jit::{compile_group, CompiledGroup};
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::{DType, Tensor};
use jit_support::*;

/// `graph(%x : X, %y : Y): BODY return (%r)` with `%x`, `%y` of the given dtypes/shapes.
fn binary_graph(dx: DType, sx: &[i64], dy: DType, sy: &[i64], body: &str) -> String {
    format!(
        "graph(%x : {}, %y : {}):\n{body}\n  return (%r)\n",
        type_text(dx, &known(sx)),
        type_text(dy, &known(sy))
    )
}

fn unary_graph(d: DType, s: &[i64], body: &str) -> String {
    format!(
        "graph(%x : {}):\n{body}\n  return (%r)\n",
        type_text(d, &known(s))
    )
}

fn t(rng: &mut Rng, d: DType, s: &[i64]) -> IValue {
    IValue::Tensor(tensor(rng, d, s, -3.0, 3.0))
}

const SHAPE_PAIRS: &[(&[i64], &[i64])] = &[
    (&[5, 7], &[5, 7]),
    (&[5, 7], &[7]),
    (&[5, 1], &[1, 7]),
    (&[3, 1, 4], &[2, 1]),
    (&[6, 5], &[]),
    (&[], &[4]),
    (&[1, 1], &[1]),
    (&[0, 3], &[3]),
];

#[test]
fn binary_ops_broadcast_like_the_interpreter() {
    let mut rng = Rng::new(1);
    let bodies = [
        "  %a : int = prim::Constant[value=1]()\n  %r = aten::add(%x, %y, %a)",
        "  %a : int = prim::Constant[value=2]()\n  %r = aten::add(%x, %y, %a)",
        "  %a : float = prim::Constant[value=0.5]()\n  %r = aten::sub(%x, %y, %a)",
        "  %a : int = prim::Constant[value=1]()\n  %r = aten::sub(%x, %y, %a)",
        "  %r = aten::mul(%x, %y)",
        "  %r = aten::div(%x, %y)",
        "  %r = aten::maximum(%x, %y)",
        "  %r = aten::minimum(%x, %y)",
        "  %r = aten::eq(%x, %y)",
        "  %r = aten::ne(%x, %y)",
        "  %r = aten::lt(%x, %y)",
        "  %r = aten::le(%x, %y)",
        "  %r = aten::gt(%x, %y)",
        "  %r = aten::ge(%x, %y)",
        "  %c = aten::gt(%x, %y)\n  %r = aten::where(%c, %x, %y)",
    ];
    for body in bodies {
        for (sx, sy) in SHAPE_PAIRS {
            if sx.len() < sy.len() && sx.is_empty() && body.contains("where") {
                continue;
            }
            let src = binary_graph(DType::F32, sx, DType::F32, sy, body);
            check(
                &src,
                &[t(&mut rng, DType::F32, sx), t(&mut rng, DType::F32, sy)],
            );
        }
    }
}

#[test]
fn dtype_promotion_matches_the_interpreter() {
    let mut rng = Rng::new(2);
    use DType::*;
    let pairs = [
        (F32, F64),
        (F16, F32),
        (BF16, F16),
        (I32, F32),
        (I64, I32),
        (U8, I8),
        (Bool, F32),
        (Bool, I64),
        (F16, F16),
        (BF16, BF16),
        (F64, F64),
        (I64, I64),
        (U8, U8),
    ];
    let bodies = [
        "  %a : int = prim::Constant[value=1]()\n  %r = aten::add(%x, %y, %a)",
        "  %r = aten::mul(%x, %y)",
        "  %r = aten::div(%x, %y)",
        "  %r = aten::lt(%x, %y)",
        "  %r = aten::ne(%x, %y)",
        "  %c = aten::ge(%x, %y)\n  %r = aten::where(%c, %x, %y)",
        "  %r = aten::maximum(%x, %y)",
    ];
    for (dx, dy) in pairs {
        for body in bodies {
            let bool_arith = (dx == Bool || dy == Bool)
                && !body.contains("aten::lt")
                && !body.contains("aten::ne")
                && !body.contains("aten::mul")
                && !body.contains("where");
            if bool_arith || (dx == Bool && dy == Bool) {
                continue;
            }
            if body.contains("div") && !dx.is_floating() && !dy.is_floating() {
                // Integer true division divides by zero often on small ints: use nonzero.
                let src = binary_graph(dx, &[4, 6], dy, &[6], body);
                let y = tensor(&mut rng, dy, &[6], 1.0, 3.0);
                let yv: Vec<f64> = y
                    .to_vec::<f64>()
                    .iter()
                    .map(|v| if *v == 0.0 { 3.0 } else { *v })
                    .collect();
                let y2 = Tensor::zeros(&[6], dy).unwrap();
                y2.copy_from(&Tensor::from_vec(yv, &[6]).unwrap()).unwrap();
                check(&src, &[t(&mut rng, dx, &[4, 6]), IValue::Tensor(y2)]);
                continue;
            }
            let src = binary_graph(dx, &[4, 6], dy, &[6], body);
            check(&src, &[t(&mut rng, dx, &[4, 6]), t(&mut rng, dy, &[6])]);
        }
    }
}

#[test]
fn scalar_operands_constant_and_passed() {
    let mut rng = Rng::new(3);
    for d in [
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
        DType::I64,
        DType::I32,
    ] {
        let x = t(&mut rng, d, &[3, 5]);
        let cases: Vec<(String, Vec<IValue>)> = vec![
            (
                "  %c : float = prim::Constant[value=2.5]()\n  %a : int = prim::Constant[value=1]()\n  %r = aten::add(%x, %c, %a)".into(),
                vec![],
            ),
            (
                "  %c : int = prim::Constant[value=3]()\n  %r = aten::mul(%x, %c)".into(),
                vec![],
            ),
            (
                "  %c : float = prim::Constant[value=0.3]()\n  %r = aten::mul(%x, %c)".into(),
                vec![],
            ),
            (
                "  %c : int = prim::Constant[value=4]()\n  %r = aten::div(%x, %c)".into(),
                vec![],
            ),
            (
                "  %c : int = prim::Constant[value=2]()\n  %r = aten::pow(%x, %c)".into(),
                vec![],
            ),
            (
                "  %c : int = prim::Constant[value=3]()\n  %r = aten::pow(%x, %c)".into(),
                vec![],
            ),
            (
                "  %c : float = prim::Constant[value=1.5]()\n  %r = aten::gt(%x, %c)".into(),
                vec![],
            ),
        ];
        for (body, _) in cases {
            let src = unary_graph(d, &[3, 5], &body);
            check(&src, std::slice::from_ref(&x));
        }
        // Scalars passed as graph inputs.
        for (ty, v, body) in [
            ("float", IValue::Double(-1.25), "  %r = aten::mul(%x, %s)"),
            (
                "int",
                IValue::Int(7),
                "  %a : int = prim::Constant[value=1]()\n  %r = aten::sub(%x, %s, %a)",
            ),
            (
                "float",
                IValue::Double(0.75),
                "  %a : int = prim::Constant[value=1]()\n  %r = aten::add(%x, %x, %s)",
            ),
        ] {
            if ty == "float" && body.contains("aten::add(%x, %x, %s)") && !d.is_floating() {
                continue;
            }
            let src = format!(
                "graph(%x : {}, %s : {ty}):\n{body}\n  return (%r)\n",
                type_text(d, &known(&[3, 5]))
            );
            check(&src, &[x.clone(), v]);
        }
    }
}

#[test]
fn float_pow_with_scalar_exponents() {
    let mut rng = Rng::new(4);
    for d in [DType::F32, DType::F64, DType::F16] {
        let x = IValue::Tensor(tensor(&mut rng, d, &[4, 9], 0.1, 4.0));
        for e in ["0.5", "-1.0", "-0.5", "1.7", "2.0", "0.0", "1.0"] {
            let body =
                format!("  %c : float = prim::Constant[value={e}]()\n  %r = aten::pow(%x, %c)");
            check(&unary_graph(d, &[4, 9], &body), std::slice::from_ref(&x));
        }
        let src = format!(
            "graph(%x : {}, %y : {}):\n  %r = aten::pow(%x, %y)\n  return (%r)\n",
            type_text(d, &known(&[4, 9])),
            type_text(d, &known(&[9]))
        );
        let y = IValue::Tensor(tensor(&mut rng, d, &[9], -2.0, 2.0));
        check(&src, &[x.clone(), y]);
    }
}

const UNARY: &[&str] = &[
    "neg",
    "abs",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "relu",
    "sigmoid",
    "tanh",
    "erf",
    "expm1",
    "log1p",
    "silu",
    "hardswish",
    "hardsigmoid",
];

#[test]
fn unary_ops_on_every_float_dtype() {
    let mut rng = Rng::new(5);
    for d in [DType::F32, DType::F64, DType::F16, DType::BF16] {
        for op in UNARY {
            for (lo, hi) in [(-6.0, 6.0), (-100.0, 100.0), (0.001, 2.0)] {
                let x = IValue::Tensor(tensor(&mut rng, d, &[7, 33], lo, hi));
                let body = format!("  %r = aten::{op}(%x)");
                check(&unary_graph(d, &[7, 33], &body), &[x]);
            }
        }
    }
}

#[test]
fn special_values_follow_pytorch() {
    let values = vec![
        0.0f32,
        -0.0,
        1.0,
        -1.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1e-30,
        -1e-30,
        88.0,
        -88.0,
        100.0,
        -100.0,
        1e-8,
        20.0,
        -20.0,
    ];
    let n = values.len() as i64;
    let x = IValue::Tensor(Tensor::from_vec(values, &[n]).unwrap());
    for op in UNARY {
        let body = format!("  %r = aten::{op}(%x)");
        check(
            &unary_graph(DType::F32, &[n], &body),
            std::slice::from_ref(&x),
        );
    }
}

#[test]
fn unary_ops_on_integers_promote_or_keep_the_dtype() {
    let mut rng = Rng::new(6);
    for d in [DType::I64, DType::I32, DType::U8, DType::I16] {
        for op in ["neg", "abs", "relu", "exp", "sigmoid", "sqrt", "tanh"] {
            if d == DType::U8 && (op == "neg" || op == "abs") {
                continue;
            }
            let x = IValue::Tensor(tensor(&mut rng, d, &[3, 8], 0.0, 0.0));
            check(
                &unary_graph(d, &[3, 8], &format!("  %r = aten::{op}(%x)")),
                &[x],
            );
        }
    }
}

#[test]
fn parametric_activations() {
    let mut rng = Rng::new(7);
    let bodies = [
        "  %g : str = prim::Constant[value=\"tanh\"]()\n  %r = aten::gelu(%x, %g)",
        "  %g : str = prim::Constant[value=\"none\"]()\n  %r = aten::gelu(%x, %g)",
        "  %lo : float = prim::Constant[value=-0.5]()\n  %hi : float = prim::Constant[value=0.75]()\n  %r = aten::hardtanh(%x, %lo, %hi)",
        "  %lo : int = prim::Constant[value=-1]()\n  %n : NoneType = prim::Constant()\n  %r = aten::clamp(%x, %lo, %n)",
        "  %hi : float = prim::Constant[value=2.]()\n  %n : NoneType = prim::Constant()\n  %r = aten::clamp(%x, %n, %hi)",
        "  %lo : float = prim::Constant[value=-1.5]()\n  %hi : float = prim::Constant[value=1.5]()\n  %r = aten::clamp(%x, %lo, %hi)",
        "  %lo : float = prim::Constant[value=0.25]()\n  %r = aten::clamp_min(%x, %lo)",
        "  %hi : float = prim::Constant[value=0.25]()\n  %r = aten::clamp_max(%x, %hi)",
        "  %s : float = prim::Constant[value=0.2]()\n  %r = aten::leaky_relu(%x, %s)",
        "  %a : float = prim::Constant[value=1.]()\n  %r = aten::elu(%x, %a, %a, %a)",
        "  %a : float = prim::Constant[value=0.5]()\n  %b : float = prim::Constant[value=2.]()\n  %c : float = prim::Constant[value=1.5]()\n  %r = aten::elu(%x, %a, %b, %c)",
        "  %b : int = prim::Constant[value=1]()\n  %t : int = prim::Constant[value=20]()\n  %r = aten::softplus(%x, %b, %t)",
        "  %b : float = prim::Constant[value=2.]()\n  %t : float = prim::Constant[value=5.]()\n  %r = aten::softplus(%x, %b, %t)",
        "  %r = aten::relu6(%x)",
        "  %r = aten::selu(%x)",
        "  %a : float = prim::Constant[value=0.7]()\n  %r = aten::celu(%x, %a)",
        "  %r = aten::mish(%x)",
    ];
    for d in [DType::F32, DType::F64, DType::F16, DType::BF16] {
        for body in bodies {
            let x = IValue::Tensor(tensor(&mut rng, d, &[5, 19], -8.0, 8.0));
            check(&unary_graph(d, &[5, 19], body), &[x]);
        }
    }
    // clamp on integers stays integral.
    for body in &bodies[3..8] {
        if body.contains("0.25") || body.contains("1.5") || body.contains("2.") {
            continue;
        }
        let x = IValue::Tensor(tensor(&mut rng, DType::I64, &[4, 4], 0.0, 0.0));
        check(&unary_graph(DType::I64, &[4, 4], body), &[x]);
    }
}

#[test]
fn casts_between_every_dtype() {
    let mut rng = Rng::new(8);
    let codes = [
        (DType::U8, 0),
        (DType::I8, 1),
        (DType::I16, 2),
        (DType::I32, 3),
        (DType::I64, 4),
        (DType::F16, 5),
        (DType::F32, 6),
        (DType::F64, 7),
        (DType::Bool, 11),
        (DType::BF16, 15),
    ];
    for (from, _) in codes {
        for (to, code) in codes {
            // Out-of-range float-to-int conversions are undefined in C++ and PyTorch.
            let (lo, hi) = if from.is_floating() && to == DType::U8 {
                (0.0, 100.0)
            } else {
                (-100.0, 100.0)
            };
            let x = IValue::Tensor(tensor(&mut rng, from, &[4, 5], lo, hi));
            let body = format!(
                "  %d : int = prim::Constant[value={code}]()\n  %f : bool = prim::Constant[value=0]()\n  %n : NoneType = prim::Constant()\n  %r = aten::to(%x, %d, %f, %f, %n)"
            );
            // A cast between the same dtypes is an alias, never fused; its kernel still copies.
            if from == to {
                continue;
            }
            check(&unary_graph(from, &[4, 5], &body), &[x]);
        }
    }
}

#[test]
fn bool_logic_and_where() {
    let mut rng = Rng::new(9);
    let src = format!(
        "graph(%a : {}, %b : {}, %x : {}, %y : {}):\n  %c = aten::logical_and(%a, %b)\n  %d = aten::logical_not(%c)\n  %e = aten::__or__(%d, %a)\n  %f = aten::logical_xor(%e, %b)\n  %r = aten::where(%f, %x, %y)\n  return (%r, %f)\n",
        type_text(DType::Bool, &known(&[3, 4])),
        type_text(DType::Bool, &known(&[4])),
        type_text(DType::F32, &known(&[3, 4])),
        type_text(DType::I64, &known(&[1, 4])),
    );
    let inputs = [
        t(&mut rng, DType::Bool, &[3, 4]),
        t(&mut rng, DType::Bool, &[4]),
        t(&mut rng, DType::F32, &[3, 4]),
        t(&mut rng, DType::I64, &[1, 4]),
    ];
    check(&src, &inputs);
}

/// The LSTM cell's pointwise part after its four gates `%i %f %g %o` and the cell state `%cx`.
const LSTM_POINTWISE: &str = "  %ig = aten::sigmoid(%i)
  %fg = aten::sigmoid(%f)
  %cg = aten::tanh(%g)
  %og = aten::sigmoid(%o)
  %a = aten::mul(%fg, %cx)
  %b = aten::mul(%ig, %cg)
  %one : int = prim::Constant[value=1]()
  %cy = aten::add(%a, %b, %one)
  %t = aten::tanh(%cy)
  %hy = aten::mul(%og, %t)
  return (%hy, %cy)
";

/// The LSTM cell's pointwise part (the seeds' fusion example), with several outputs.
pub fn lstm_cell_src(sizes: &str) -> String {
    format!(
        "graph(%i : Float({sizes}), %f : Float({sizes}), %g : Float({sizes}), %o : Float({sizes}), %cx : Float({sizes})):\n{LSTM_POINTWISE}"
    )
}

#[test]
fn lstm_cell_with_several_outputs_and_threads() {
    let mut rng = Rng::new(10);
    for shape in [[3i64, 5], [64, 2048]] {
        let sizes = format!("{}, {}", shape[0], shape[1]);
        let inputs: Vec<IValue> = (0..5).map(|_| t(&mut rng, DType::F32, &shape)).collect();
        check(&lstm_cell_src(&sizes), &inputs);
    }
}

#[test]
fn unknown_sizes_serve_many_shapes_from_one_kernel() {
    let mut rng = Rng::new(11);
    let src = format!(
        "graph(%x : {}, %y : {}):\n  %a : int = prim::Constant[value=1]()\n  %s = aten::add(%x, %y, %a)\n  %r = aten::tanh(%s)\n  return (%r)\n",
        type_text(DType::F32, &[None, None]),
        type_text(DType::F32, &[None]),
    );
    let g = parse(&src);
    let group = compile_group(&g).unwrap();
    let shapes = [
        (vec![4i64, 7], vec![7i64]),
        (vec![4, 7], vec![1]),
        (vec![1, 9], vec![9]),
        (vec![300, 1000], vec![1000]),
        (vec![2, 1], vec![5]),
        (vec![0, 3], vec![3]),
        (vec![3, 1 << 17], vec![1]),
    ];
    // Each shape twice in a row (the second call takes the first's geometry from the launch
    // cache), then all of them again, so that every cached geometry is replaced by another.
    for (sx, sy) in shapes.iter().chain(&shapes).flat_map(|s| [s, s]) {
        let inputs = [t(&mut rng, DType::F32, sx), t(&mut rng, DType::F32, sy)];
        let want = interpret(&g, &inputs).unwrap();
        let got = group.run(&inputs).unwrap();
        assert_tensors_close(
            got[0].as_tensor().unwrap(),
            want[0].as_tensor().unwrap(),
            &format!("{sx:?} + {sy:?}"),
        );
    }
    // Sizes that do not broadcast are refused after a call of the same rank was cached.
    let bad = [
        t(&mut rng, DType::F32, &[4, 7]),
        t(&mut rng, DType::F32, &[5]),
    ];
    assert!(group.run(&bad).is_err());
}

#[test]
fn strided_inputs_transposed_sliced_and_expanded() {
    let mut rng = Rng::new(12);
    let src = format!(
        "graph(%x : {}, %y : {}):\n  %m = aten::mul(%x, %y)\n  %r = aten::sigmoid(%m)\n  return (%r)\n",
        type_text(DType::F32, &[None, None]),
        type_text(DType::F32, &[None, None]),
    );
    let g = parse(&src);
    let base = tensor(&mut rng, DType::F32, &[40, 30], -3.0, 3.0);
    let other = tensor(&mut rng, DType::F32, &[30, 40], -3.0, 3.0);
    let col = tensor(&mut rng, DType::F32, &[30, 1], -3.0, 3.0);
    let views = [
        (other.transpose(0, 1).unwrap(), base.clone()),
        (
            base.slice(0, Some(0), Some(40), 2).unwrap(),
            base.slice(0, Some(1), Some(40), 2).unwrap(),
        ),
        (
            base.slice(1, Some(0), Some(30), 3).unwrap(),
            base.slice(1, Some(0), Some(10), 1).unwrap(),
        ),
        (col.expand(&[30, 40]).unwrap(), other.clone()),
        (col.clone(), other.clone()),
        (
            other.transpose(0, 1).unwrap(),
            other.transpose(0, 1).unwrap(),
        ),
    ];
    for (i, (a, b)) in views.iter().enumerate() {
        let inputs = [IValue::Tensor(a.clone()), IValue::Tensor(b.clone())];
        check_graph(&g, &inputs, &format!("view pair {i}"));
    }
    // One kernel over pairs of the same sizes and other strides, alternately: the launch
    // cache keys on strides as well as sizes.
    let group = compile_group(&g).unwrap();
    for i in [0, 5, 0, 0, 5, 5, 0] {
        let (a, b) = &views[i];
        let inputs = [IValue::Tensor(a.clone()), IValue::Tensor(b.clone())];
        let want = interpret(&g, &inputs).unwrap();
        let got = group.run(&inputs).unwrap();
        let what = format!("view pair {i} again");
        assert_tensors_close(
            got[0].as_tensor().unwrap(),
            want[0].as_tensor().unwrap(),
            &what,
        );
    }
}

#[test]
fn single_element_inputs_are_read_once() {
    let mut rng = Rng::new(13);
    let src = format!(
        "graph(%x : {}, %s : {}, %u : {}):\n  %m = aten::mul(%x, %s)\n  %a : int = prim::Constant[value=1]()\n  %r = aten::add(%m, %u, %a)\n  return (%r)\n",
        type_text(DType::F32, &known(&[6, 70])),
        type_text(DType::F32, &[]),
        type_text(DType::F32, &known(&[1, 1])),
    );
    let inputs = [
        t(&mut rng, DType::F32, &[6, 70]),
        t(&mut rng, DType::F32, &[]),
        t(&mut rng, DType::F32, &[1, 1]),
    ];
    check(&src, &inputs);
}

fn assert_refused(group: &CompiledGroup, inputs: &[IValue], what: &str) {
    match group.run(inputs) {
        Err(e) => assert!(!e.is_empty(), "{what}"),
        Ok(_) => panic!("{what}: the kernel ran on inputs it was not built for"),
    }
}

#[test]
fn run_refuses_inputs_the_kernel_was_not_built_for() {
    let mut rng = Rng::new(14);
    let src = format!(
        "graph(%x : {}, %y : {}, %s : float):\n  %m = aten::mul(%x, %y)\n  %r = aten::mul(%m, %s)\n  return (%r)\n",
        type_text(DType::F32, &[Some(4), None]),
        type_text(DType::F32, &[None]),
    );
    let group = compile_group(&parse(&src)).unwrap();
    let good = [
        t(&mut rng, DType::F32, &[4, 3]),
        t(&mut rng, DType::F32, &[3]),
        IValue::Double(2.0),
    ];
    assert!(group.run(&good).is_ok());
    let mut cases: Vec<(&str, Vec<IValue>)> = vec![
        ("too few inputs", good[..2].to_vec()),
        (
            "wrong dtype",
            vec![
                t(&mut rng, DType::F64, &[4, 3]),
                good[1].clone(),
                good[2].clone(),
            ],
        ),
        (
            "wrong rank",
            vec![
                t(&mut rng, DType::F32, &[4, 3, 1]),
                good[1].clone(),
                good[2].clone(),
            ],
        ),
        (
            "wrong fixed size",
            vec![
                t(&mut rng, DType::F32, &[5, 3]),
                good[1].clone(),
                good[2].clone(),
            ],
        ),
        (
            "no broadcast",
            vec![
                good[0].clone(),
                t(&mut rng, DType::F32, &[4]),
                good[2].clone(),
            ],
        ),
        (
            "int for float",
            vec![good[0].clone(), good[1].clone(), IValue::Int(2)],
        ),
        (
            "none for tensor",
            vec![IValue::None, good[1].clone(), good[2].clone()],
        ),
    ];
    // An output that would not have the broadcast shape.
    cases.push((
        "output smaller than the broadcast",
        vec![
            good[0].clone(),
            t(&mut rng, DType::F32, &[3]),
            good[2].clone(),
        ],
    ));
    for (what, inputs) in &cases[..cases.len() - 1] {
        assert_refused(&group, inputs, what);
    }
    let src = format!(
        "graph(%x : {}, %y : {}):\n  %e = aten::exp(%x)\n  %m = aten::mul(%x, %y)\n  return (%e, %m)\n",
        type_text(DType::F32, &[None, None]),
        type_text(DType::F32, &[None, None]),
    );
    let group = compile_group(&parse(&src)).unwrap();
    let inputs = [
        t(&mut rng, DType::F32, &[1, 3]),
        t(&mut rng, DType::F32, &[4, 3]),
    ];
    assert_refused(&group, &inputs, "an output of a smaller shape");
}

#[test]
fn unsupported_groups_are_refused_with_the_node() {
    for (body, needle) in [
        ("  %r = aten::matmul(%x, %x)", "aten::matmul"),
        ("  %r = aten::atan(%x)", "aten::atan"),
    ] {
        let src = unary_graph(DType::F32, &[2, 2], body);
        let err = compile_group(&parse(&src)).unwrap_err();
        assert!(err.to_string().contains(needle), "{err}");
        assert!(err.site.is_some());
    }
    let src = "graph(%x : Tensor):\n  %r = aten::relu(%x)\n  return (%r)\n";
    assert!(compile_group(&parse(src)).is_err());
}

#[test]
fn compiled_groups_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CompiledGroup>();
}

/// float32 exp/log/tanh/erf are the runtime's own algorithms, emitted in the same order: the
/// kernels give the interpreter's bits, at every CPU form.
#[test]
fn float32_transcendentals_match_the_interpreter_bit_for_bit() {
    use ember_compiler::codegen::jit::{compile_group_for, JitTarget};
    use ember_runtime::ops::cpu::available_levels;
    let mut rng = Rng::new(15);
    let bodies = [
        "  %r = aten::exp(%x)",
        "  %r = aten::log(%x)",
        "  %r = aten::tanh(%x)",
        "  %r = aten::sigmoid(%x)",
        "  %r = aten::silu(%x)",
        "  %g : str = prim::Constant[value=\"none\"]()\n  %r = aten::gelu(%x, %g)",
        "  %g : str = prim::Constant[value=\"tanh\"]()\n  %r = aten::gelu(%x, %g)",
    ];
    for body in bodies {
        let g = parse(&unary_graph(DType::F32, &[4099], body));
        for (lo, hi) in [(-10.0, 10.0), (-100.0, 100.0), (1e-6, 3.0)] {
            let x = [IValue::Tensor(tensor(
                &mut rng,
                DType::F32,
                &[4099],
                lo,
                hi,
            ))];
            let want = interpret(&g, &x).unwrap()[0]
                .as_tensor()
                .unwrap()
                .to_vec::<f32>();
            for isa in available_levels() {
                let got = compile_group_for(&g, &JitTarget::for_isa(isa))
                    .unwrap()
                    .run(&x)
                    .unwrap()[0]
                    .as_tensor()
                    .unwrap()
                    .to_vec::<f32>();
                for (i, (a, b)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                        "{body} ({isa:?}) element {i}: {a:e} vs {b:e}"
                    );
                }
            }
        }
    }
}

/// The AVX-512 form computes 16 float32 lanes at a time and the AVX2 form 8, each with a
/// unit-stride loop only (the strided loop stays scalar, so no second vector copy is compiled).
#[test]
fn each_cpu_form_vectorizes_at_its_width() {
    use ember_compiler::codegen::jit::{group, kernel_llvm_ir, JitTarget};
    use ember_runtime::ops::cpu::{hardware, Isa};
    let g = parse(&lstm_cell_src("64, 2048"));
    let k = group::build(&g).unwrap();
    let mut forms = vec![(Isa::Avx2, "<8 x float>", "<16 x float>")];
    if hardware() == Isa::Avx512 {
        forms.push((Isa::Avx512, "<16 x float>", "<32 x float>"));
    }
    for (isa, want, wider) in forms {
        let ir = kernel_llvm_ir(&k, "lstm", &JitTarget::for_isa(isa)).unwrap();
        assert!(
            ir.contains(&format!("load {want}")),
            "{isa:?}: no {want} loads"
        );
        assert!(!ir.contains(wider), "{isa:?}: vectors wider than the form");
        // `llvm_to_target::set_llvm_options`: remainders run as scalar code.
        assert!(
            !ir.contains("vec.epilog"),
            "{isa:?}: an epilogue vector loop"
        );
        // The entry and the rows function it calls (the JIT's pipeline does not inline).
        assert_eq!(
            ir.matches("define ").count(),
            2,
            "{isa:?}: the entry and its rows function"
        );
    }
    if hardware() != Isa::Avx512 {
        println!("skipped the AVX-512 form: this CPU has no AVX-512");
    }
}

/// A per-row scale (`[N, C, 1, 1]` over `[N, C, H, W]`, squeeze-and-excitation's shape) takes
/// the unit-stride loop reading the scale once per row; when the rows are 1 long it falls back
/// to the strided loop.
#[test]
fn row_broadcast_operands() {
    let mut rng = Rng::new(16);
    let src = format!(
        "graph(%x : {}, %s : {}):\n  %h = aten::hardsigmoid(%s)\n  %r = aten::mul(%x, %h)\n  return (%r)\n",
        type_text(DType::F32, &[Some(2), Some(6), None, None]),
        type_text(DType::F32, &[Some(2), Some(6), Some(1), Some(1)]),
    );
    let g = parse(&src);
    for hw in [[7i64, 7], [1, 1], [1, 33], [5, 1]] {
        let inputs = [
            t(&mut rng, DType::F32, &[2, 6, hw[0], hw[1]]),
            t(&mut rng, DType::F32, &[2, 6, 1, 1]),
        ];
        check_graph(&g, &inputs, &format!("{hw:?}"));
    }
    // A column ([64, 1]) against rows of unknown length, and a transposed (strided) input.
    let src = format!(
        "graph(%x : {}, %c : {}):\n  %a : int = prim::Constant[value=1]()\n  %r = aten::sub(%x, %c, %a)\n  return (%r)\n",
        type_text(DType::F32, &[None, None]),
        type_text(DType::F32, &[Some(64), Some(1)]),
    );
    let g = parse(&src);
    let x = tensor(&mut rng, DType::F32, &[100, 64], -2.0, 2.0);
    for xv in [
        tensor(&mut rng, DType::F32, &[64, 100], -2.0, 2.0),
        x.transpose(0, 1).unwrap(),
    ] {
        let inputs = [IValue::Tensor(xv), t(&mut rng, DType::F32, &[64, 1])];
        check_graph(&g, &inputs, "column");
    }
}

/// A long chain of math on a column broadcast along the rows (`[*, 1]` against `[*, 8]`) is the
/// same for the whole row: LLVM must hoist it out of the row loop before vectorizing, or the
/// loop vectorizer's uniformity check walks the chain's shared operands exponentially (random
/// graph 666 of jit_random compiled for over half an hour with a pipeline that did not).
#[test]
fn chains_on_a_broadcast_column() {
    let mut rng = Rng::new(18);
    let src = format!(
        "graph(%x : {}, %c : {}):
  %one : int = prim::Constant[value=1]()
  %l = aten::log1p(%c)
  %e = aten::exp(%c)
  %d = aten::add(%e, %e, %one)
  %m = aten::mul(%d, %l)
  %e1 = aten::expm1(%d)
  %s = aten::sigmoid(%m)
  %e2 = aten::expm1(%e1)
  %e3 = aten::tanh(%e2)
  %r = aten::add(%x, %e3, %one)
  %q = aten::mul(%r, %s)
  return (%q)\n",
        type_text(DType::F32, &[None, Some(8)]),
        type_text(DType::F32, &[None, Some(1)]),
    );
    let g = parse(&src);
    for rows in [1i64, 5, 40] {
        let inputs = [
            IValue::Tensor(tensor(&mut rng, DType::F32, &[rows, 8], -1.0, 1.0)),
            IValue::Tensor(tensor(&mut rng, DType::F32, &[rows, 1], -0.5, 0.5)),
        ];
        check_graph(&g, &inputs, &format!("{rows} rows"));
    }
}

/// `1 / erf(x)` for x near 0: erf's values there are small, so an erf accurate only in absolute
/// terms (Abramowitz and Stegun's, 5e-7) is off by 2.5e-4 relative at 1e-3 (found by the
/// jit_group fuzz target); the interpreter (libm) and PyTorch are accurate there.
#[test]
fn erf_is_accurate_near_zero() {
    let src = unary_graph(
        DType::F32,
        &[64],
        "  %e = aten::erf(%x)\n  %r = aten::reciprocal(%e)",
    );
    let values: Vec<f32> = (0..64)
        .map(|i| (i as f32 - 31.5) * 1.5e-3 * if i % 2 == 0 { 1.0 } else { 100.0 })
        .collect();
    let x = Tensor::from_vec(values, &[64]).unwrap();
    check(&src, &[IValue::Tensor(x)]);
}

/// The LSTM cell as PyTorch's fuser groups it: the gates chunked inside the group
/// (`prim::ConstantChunk` of a group input), with unknown batch size and an uneven chunk.
#[test]
fn constant_chunk_of_an_input() {
    let mut rng = Rng::new(17);
    let src = format!(
        "graph(%gates : {}, %cx : {}):
  %i, %f, %g, %o = prim::ConstantChunk[chunks=4, dim=1](%gates)
{LSTM_POINTWISE}",
        type_text(DType::F32, &[None, Some(32)]),
        type_text(DType::F32, &[None, Some(8)]),
    );
    let g = parse(&src);
    for batch in [1, 3, 300] {
        let inputs = [
            t(&mut rng, DType::F32, &[batch, 32]),
            t(&mut rng, DType::F32, &[batch, 8]),
        ];
        check_graph(&g, &inputs, &format!("batch {batch}"));
    }
    // A transposed gates tensor: the pieces are strided views.
    let gt = tensor(&mut rng, DType::F32, &[32, 5], -2.0, 2.0)
        .transpose(0, 1)
        .unwrap();
    check_graph(
        &g,
        &[IValue::Tensor(gt), t(&mut rng, DType::F32, &[5, 8])],
        "transposed gates",
    );
    // Uneven pieces (7 = 3 + 3 + 1; the 1-column piece broadcasts), negative dim.
    let src = format!(
        "graph(%x : {}):
  %a, %b, %c = prim::ConstantChunk[chunks=3, dim=-1](%x)
  %s = aten::mul(%a, %b)
  %one : int = prim::Constant[value=1]()
  %r = aten::sub(%s, %c, %one)
  return (%r)
",
        type_text(DType::F32, &[Some(4), Some(7)]),
    );
    check(&src, &[t(&mut rng, DType::F32, &[4, 7])]);
    // A chunk count the tensor cannot give is an error, not a wrong answer.
    let src = format!(
        "graph(%x : {}):
  %a, %b, %c = prim::ConstantChunk[chunks=3, dim=0](%x)
  %s = aten::mul(%a, %b)
  %r = aten::mul(%s, %c)
  return (%r)
",
        type_text(DType::F32, &[None, Some(4)]),
    );
    let group = compile_group(&parse(&src)).unwrap();
    assert!(group.run(&[t(&mut rng, DType::F32, &[2, 4])]).is_err());
    assert!(group.run(&[t(&mut rng, DType::F32, &[6, 4])]).is_ok());
}

/// A chunk of a computed value (PyTorch's LSTM cell: `gates = x @ W + h @ U + b` then
/// chunked in the group) is each piece of the expression over pieces of its inputs; inputs
/// that broadcast along the chunked dimension are read whole.
#[test]
fn chunks_of_computed_values() {
    let mut rng = Rng::new(18);
    let src = format!(
        "graph(%x : {}, %h : {}, %b : {}, %r : {}):
  %one : int = prim::Constant[value=1]()
  %s = aten::add(%x, %h, %one)
  %e = aten::mul(%s, %r)
  %gates = aten::add(%e, %b, %one)
  %i, %f, %g = prim::ConstantChunk[chunks=3, dim=1](%gates)
  %a = aten::sigmoid(%i)
  %c = aten::tanh(%g)
  %m = aten::mul(%a, %c)
  %out = aten::sub(%m, %f, %one)
  return (%out)
",
        type_text(DType::F32, &[None, Some(12)]),
        type_text(DType::F32, &[None, Some(12)]),
        type_text(DType::F32, &known(&[12])),
        type_text(DType::F32, &[None, Some(1)]),
    );
    let g = parse(&src);
    for batch in [1, 4, 50] {
        let inputs = [
            t(&mut rng, DType::F32, &[batch, 12]),
            t(&mut rng, DType::F32, &[batch, 12]),
            t(&mut rng, DType::F32, &[12]),
            t(&mut rng, DType::F32, &[batch, 1]),
        ];
        check_graph(&g, &inputs, &format!("batch {batch}"));
    }
    let src = format!(
        "graph(%x : {}):
  %a, %b = prim::ConstantChunk[chunks=2, dim=0](%x)
  %c, %d = prim::ConstantChunk[chunks=2, dim=0](%a)
  %r = aten::mul(%c, %d)
  return (%r)
",
        type_text(DType::F32, &known(&[4, 2])),
    );
    let err = compile_group(&parse(&src)).unwrap_err();
    assert!(err.to_string().contains("another chunk"), "{err}");
}

/// `aten::cat` as a group output (PyTorch's fuser puts it at group boundaries): each part is
/// written into its slice; parts of other dtypes are promoted as `cat` promotes them.
#[test]
fn cat_outputs() {
    let mut rng = Rng::new(19);
    for dim in [0, 1, -1] {
        let src = format!(
            "graph(%a : {}, %b : {}):
  %two : int = prim::Constant[value=2]()
  %one : int = prim::Constant[value=1]()
  %x = aten::mul(%a, %two)
  %y = aten::add(%b, %one, %one)
  %l : Tensor[] = prim::ListConstruct(%x, %y)
  %d : int = prim::Constant[value={dim}]()
  %c = aten::cat(%l, %d)
  %r = aten::relu(%y)
  return (%c, %r)
",
            type_text(DType::F32, &[None, Some(3)]),
            type_text(DType::F64, &[None, Some(3)]),
        );
        let g = parse(&src);
        for rows in [1, 2, 40] {
            let inputs = [
                t(&mut rng, DType::F32, &[rows, 3]),
                t(&mut rng, DType::F64, &[rows, 3]),
            ];
            check_graph(&g, &inputs, &format!("dim {dim}, {rows} rows"));
        }
    }
    // Parts whose sizes along the cat's dimension are open are computed one by one, so they
    // may differ there; parts that differ elsewhere are refused at run time (the interpreter
    // raises PyTorch's error).
    let src = format!(
        "graph(%a : {}, %b : {}):
  %two : int = prim::Constant[value=2]()
  %x : {} = aten::mul(%a, %two)
  %y : {} = aten::mul(%b, %two)
  %l : Tensor[] = prim::ListConstruct(%x, %y)
  %d : int = prim::Constant[value=1]()
  %c = aten::cat(%l, %d)
  return (%c)
",
        type_text(DType::F32, &[None, None]),
        type_text(DType::F32, &[None, None]),
        type_text(DType::F32, &[None, None]),
        type_text(DType::F32, &[None, None]),
    );
    let g = parse(&src);
    assert_eq!(compile_group(&g).unwrap().kernel().sweeps.len(), 2);
    for (a, b) in [([2, 3], [2, 5]), ([3, 4], [3, 4]), ([2, 0], [2, 3])] {
        let inputs = [t(&mut rng, DType::F32, &a), t(&mut rng, DType::F32, &b)];
        check_graph(&g, &inputs, &format!("open sizes {a:?} and {b:?}"));
    }
    let inputs = [
        t(&mut rng, DType::F32, &[2, 3]),
        t(&mut rng, DType::F32, &[3, 3]),
    ];
    assert!(compile_group(&g).unwrap().run(&inputs).is_err());
    // A cat read by another op is not fused.
    let src = format!(
        "graph(%a : {}):
  %l : Tensor[] = prim::ListConstruct(%a, %a)
  %d : int = prim::Constant[value=0]()
  %c = aten::cat(%l, %d)
  %r = aten::relu(%c)
  return (%r)
",
        type_text(DType::F32, &known(&[2, 2])),
    );
    assert!(compile_group(&parse(&src)).is_err());
}

/// A cat of parts of different sizes along its dimension (PyTorch's fuser loads them
/// conditionally; Ember's kernel computes each part over its own iteration space, a sweep,
/// into its slice), beside another output of one part's shape, with broadcasts, strided
/// inputs and a promotion of the parts' dtypes.
#[test]
fn cat_of_unequal_parts() {
    let mut rng = Rng::new(23);
    let ty = |d: DType, s: &[i64]| type_text(d, &known(s));
    // Along the last dimension: a sigmoid of [4, 3] and a biased [4, 5] (and that part times
    // two as an output of its own, which shares the part's sweep).
    for dim in [1, -1] {
        let src = format!(
            "graph(%a : {}, %b : {}, %bias : {}):
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %x : {} = aten::sigmoid(%a)
  %y : {} = aten::add(%b, %bias, %one)
  %l : Tensor[] = prim::ListConstruct(%x, %y)
  %d : int = prim::Constant[value={dim}]()
  %c = aten::cat(%l, %d)
  %z : {} = aten::mul(%y, %two)
  return (%c, %z)
",
            ty(DType::F32, &[4, 3]),
            ty(DType::F32, &[4, 5]),
            ty(DType::F32, &[5]),
            ty(DType::F32, &[4, 3]),
            ty(DType::F32, &[4, 5]),
            ty(DType::F32, &[4, 5]),
        );
        let g = parse(&src);
        let group = compile_group(&g).unwrap();
        assert_eq!(
            group.kernel().sweeps,
            vec![vec![0], vec![1, 2]],
            "dim {dim}"
        );
        let b_strided = t(&mut rng, DType::F32, &[5, 4])
            .as_tensor()
            .unwrap()
            .t()
            .unwrap();
        for b in [t(&mut rng, DType::F32, &[4, 5]), IValue::Tensor(b_strided)] {
            let inputs = [
                t(&mut rng, DType::F32, &[4, 3]),
                b,
                t(&mut rng, DType::F32, &[5]),
            ];
            check_graph(&g, &inputs, &format!("dim {dim}"));
        }
    }
    // Along the first dimension, three parts of 2, 1 and 3 rows; an int part promoted to
    // the float parts' dtype; long rows, so the calls are split over threads.
    let src = format!(
        "graph(%a : {}, %b : {}, %c : {}):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %x : {} = aten::mul(%a, %one)
  %y : {} = aten::tanh(%b)
  %z : {} = aten::neg(%c)
  %l : Tensor[] = prim::ListConstruct(%x, %y, %z)
  %r = aten::cat(%l, %zero)
  return (%r)
",
        ty(DType::I32, &[2, 5000]),
        ty(DType::F32, &[1, 5000]),
        ty(DType::F32, &[3, 5000]),
        ty(DType::I32, &[2, 5000]),
        ty(DType::F32, &[1, 5000]),
        ty(DType::F32, &[3, 5000]),
    );
    let g = parse(&src);
    assert_eq!(compile_group(&g).unwrap().kernel().sweeps.len(), 3);
    let inputs = [
        t(&mut rng, DType::I32, &[2, 5000]),
        t(&mut rng, DType::F32, &[1, 5000]),
        t(&mut rng, DType::F32, &[3, 5000]),
    ];
    check_graph(&g, &inputs, "three parts along dim 0");
    // Independent outputs of different shapes (a group the fuser makes of unrelated ops) are
    // sweeps of their own too, rather than a kernel no input fits.
    let src = format!(
        "graph(%a : {}, %b : {}):
  %x : {} = aten::relu(%a)
  %y : {} = aten::exp(%b)
  return (%x, %y)
",
        ty(DType::F32, &[4, 1]),
        ty(DType::F32, &[4, 8]),
        ty(DType::F32, &[4, 1]),
        ty(DType::F32, &[4, 8]),
    );
    let inputs = [
        t(&mut rng, DType::F32, &[4, 1]),
        t(&mut rng, DType::F32, &[4, 8]),
    ];
    check_graph(&parse(&src), &inputs, "outputs of two shapes");
}

/// The executor's operation for a group: the kernel, and the interpreter for inputs the kernel
/// does not cover (here an input of another dtype than the specialization's).
#[test]
fn executor_operation_falls_back_to_the_interpreter() {
    let mut rng = Rng::new(20);
    let src = format!(
        "graph(%a : {}, %b : {}):
  %two : int = prim::Constant[value=2]()
  %x = aten::mul(%a, %two)
  %y = aten::mul(%b, %two)
  %l : Tensor[] = prim::ListConstruct(%x, %y)
  %d : int = prim::Constant[value=0]()
  %c = aten::cat(%l, %d)
  return (%c)
",
        type_text(DType::F32, &[None, Some(3)]),
        type_text(DType::F32, &[None, Some(3)]),
    );
    let g = parse(&src);
    let op = ember_compiler::executor::jit::compile(&g).unwrap();
    for (ra, rb, db) in [(4, 4, DType::F32), (2, 5, DType::F64)] {
        let inputs = vec![t(&mut rng, DType::F32, &[ra, 3]), t(&mut rng, db, &[rb, 3])];
        let want = interpret(&g, &inputs).unwrap();
        let mut stack = inputs.clone();
        op(&mut stack).unwrap();
        assert_eq!(stack.len(), 1, "the inputs are replaced by the output");
        assert_tensors_close(
            stack[0].as_tensor().unwrap(),
            want[0].as_tensor().unwrap(),
            &format!("{ra} and {rb} rows"),
        );
    }
}
