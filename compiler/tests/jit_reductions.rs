//! Reductions over the innermost dimensions in JIT kernels (sum, mean, amax, amin, softmax,
//! log_softmax, and the statistics of a layer norm; over the last dimension, several, or all),
//! against the interpreter: every float dtype, keepdim or not, rows short and long, strided
//! and broadcast inputs, unknown sizes, empty rows, and the inputs a kernel must refuse (so
//! that the executor runs the interpreter instead).

use crate::jit_support;

use ember_compiler::codegen::jit::compile_group;
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::DType;
use jit_support::*;

fn t(rng: &mut Rng, d: DType, s: &[i64]) -> IValue {
    IValue::Tensor(tensor(rng, d, s, -3.0, 3.0))
}

/// `graph(PARAMS): BODY return (RESULTS)`, with the usual constants defined.
fn graph_of(params: &str, body: &str, results: &str) -> String {
    format!(
        "graph({params}):
  %none : NoneType = prim::Constant()
  %true : bool = prim::Constant[value=1]()
  %false : bool = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %last : int = prim::Constant[value=-1]()
  %dims : int[] = prim::ListConstruct(%last)
  %minus2 : int = prim::Constant[value=-2]()
  %dims2 : int[] = prim::ListConstruct(%minus2, %last)
{body}
  return ({results})
"
    )
}

/// `graph(%x : X): BODY return (%r)`.
fn graph(x: &str, body: &str) -> String {
    graph_of(&format!("%x : {x}"), body, "%r")
}

const BODIES: &[&str] = &[
    "  %r = aten::softmax(%x, %last, %none)",
    "  %r = aten::log_softmax(%x, %last, %none)",
    "  %e = aten::exp(%x)\n  %s = aten::sum(%e, %dims, %true, %none)\n  %r = aten::div(%e, %s)",
    "  %s = aten::sum(%x, %dims, %false, %none)\n  %r = aten::mul(%s, %s)",
    "  %m = aten::mean(%x, %dims, %true, %none)\n  %r = aten::sub(%x, %m, %one)",
    "  %m = aten::amax(%x, %dims, %false)\n  %r = aten::relu(%m)",
    "  %m = aten::amin(%x, %dims, %true)\n  %r = aten::mul(%m, %x)",
    // A layer norm's statistics: the variance reads the mean (two levels of reductions).
    "  %m = aten::mean(%x, %dims, %true, %none)
  %d = aten::sub(%x, %m, %one)
  %sq = aten::mul(%d, %d)
  %v = aten::mean(%sq, %dims, %true, %none)
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %ve = aten::add(%v, %eps, %one)
  %is = aten::rsqrt(%ve)
  %r = aten::mul(%d, %is)",
];

#[test]
fn reductions_over_the_last_dimension_match_the_interpreter() {
    let mut rng = Rng::new(41);
    let shapes: &[&[i64]] = &[&[5, 7], &[3, 2, 300], &[1000], &[4, 1], &[2, 3, 5]];
    for body in BODIES {
        for dtype in [DType::F32, DType::F64, DType::F16, DType::BF16] {
            for shape in shapes {
                let src = graph(&type_text(dtype, &known(shape)), body);
                check(&src, &[t(&mut rng, dtype, shape)]);
            }
        }
    }
    // sum(self) of a 1-d tensor: a 0-dim result.
    for n in [1, 7, 1000] {
        let src = graph(
            &type_text(DType::F32, &known(&[n])),
            "  %s = aten::sum(%x, %none)\n  %r = aten::mul(%s, %s)",
        );
        check(&src, &[t(&mut rng, DType::F32, &[n])]);
    }
}

#[test]
fn unknown_sizes_serve_many_shapes() {
    let mut rng = Rng::new(42);
    for body in BODIES {
        let src = graph(&type_text(DType::F32, &[None, None]), body);
        let g = parse(&src);
        for shape in [[3, 9], [1, 1], [6, 257], [300, 2]] {
            check_graph(&g, &[t(&mut rng, DType::F32, &shape)], body);
        }
    }
}

#[test]
fn strided_and_broadcast_inputs() {
    let mut rng = Rng::new(43);
    let src = graph_of(
        &format!(
            "%x : {}, %b : {}",
            type_text(DType::F32, &[None, None]),
            type_text(DType::F32, &[None, None])
        ),
        "  %xb = aten::add(%x, %b, %one)
  %s = aten::sum(%xb, %dims, %true, %none)
  %p = aten::softmax(%xb, %last, %none)
  %r = aten::mul(%p, %s)",
        "%r, %s",
    );
    let g = parse(&src);
    let base = tensor(&mut rng, DType::F32, &[40, 30], -3.0, 3.0);
    let other = tensor(&mut rng, DType::F32, &[30, 40], -3.0, 3.0);
    let col = tensor(&mut rng, DType::F32, &[30, 1], -3.0, 3.0);
    let row = tensor(&mut rng, DType::F32, &[1, 40], -3.0, 3.0);
    let pairs = [
        (other.transpose(0, 1).unwrap(), base.clone()),
        (
            base.slice(1, Some(0), Some(30), 3).unwrap(),
            base.slice(1, Some(1), Some(30), 3).unwrap(),
        ),
        (other.clone(), col.clone()),
        (other.clone(), row.clone()),
        (col.expand(&[30, 40]).unwrap(), other.clone()),
    ];
    for (i, (a, b)) in pairs.into_iter().enumerate() {
        check_graph(
            &g,
            &[IValue::Tensor(a), IValue::Tensor(b)],
            &format!("pair {i}"),
        );
    }
}

#[test]
fn a_reduction_of_a_lower_rank_input() {
    // x of [4, 8] reduced beside y of [3, 4, 8]: x's rows are the kernel's, broadcast along
    // its first dimension.
    let mut rng = Rng::new(53);
    for body in [
        "  %m = aten::mean(%x, %dims, %true, %none)\n  %r = aten::sub(%y, %m, %one)",
        "  %p = aten::softmax(%x, %last, %none)\n  %r = aten::mul(%p, %y)",
        "  %m = aten::amax(%x, %dims2, %true)\n  %d = aten::sub(%y, %m, %one)\n  %s = aten::sum(%d, %dims2, %true, %none)\n  %r = aten::div(%d, %s)",
    ] {
        for (xs, ys) in [(&[4i64, 8][..], &[3i64, 4, 8][..]), (&[8][..], &[2, 5, 8][..])] {
            if body.contains("dims2") && xs.len() < 2 {
                continue;
            }
            let src = graph_of(
                &format!(
                    "%x : {}, %y : {}",
                    type_text(DType::F32, &known(xs)),
                    type_text(DType::F32, &known(ys))
                ),
                body,
                "%r",
            );
            check(
                &src,
                &[t(&mut rng, DType::F32, xs), t(&mut rng, DType::F32, ys)],
            );
        }
    }
}

#[test]
fn a_row_result_broadcast_with_a_column_of_its_rows() {
    // sum(x) + b with b of shape [N, 1]: the result is a row's, written once per row.
    let mut rng = Rng::new(44);
    let src = graph_of(
        &format!(
            "%x : {}, %b : {}",
            type_text(DType::F32, &known(&[6, 50])),
            type_text(DType::F32, &known(&[6, 1]))
        ),
        "  %s = aten::sum(%x, %dims, %true, %none)
  %r = aten::add(%s, %b, %one)",
        "%r",
    );
    check(
        &src,
        &[
            t(&mut rng, DType::F32, &[6, 50]),
            t(&mut rng, DType::F32, &[6, 1]),
        ],
    );
}

#[test]
fn integer_reductions() {
    let mut rng = Rng::new(45);
    let bodies = [
        "  %s = aten::sum(%x, %dims, %false, %none)\n  %r = aten::mul(%s, %one)",
        "  %r0 = aten::amax(%x, %dims, %true)\n  %r = aten::add(%r0, %x, %one)",
        "  %r0 = aten::amin(%x, %dims, %false)\n  %r = aten::mul(%r0, %one)",
    ];
    for body in bodies {
        for dtype in [DType::I32, DType::I64, DType::U8, DType::I8, DType::I16] {
            let src = graph(&type_text(dtype, &known(&[4, 33])), body);
            check(&src, &[t(&mut rng, dtype, &[4, 33])]);
        }
    }
    // A sum of bools counts them, as int64.
    let src = graph(
        &type_text(DType::F32, &known(&[3, 20])),
        "  %zero : int = prim::Constant[value=0]()\n  %p = aten::gt(%x, %zero)\n  %s = aten::sum(%p, %dims, %false, %none)\n  %r = aten::add(%s, %one, %one)",
    );
    check(&src, &[t(&mut rng, DType::F32, &[3, 20])]);
}

#[test]
fn empty_rows_and_the_maximum_of_nothing() {
    let mut rng = Rng::new(46);
    // Rows of no columns: sums are 0 and means NaN.
    for body in [
        "  %s = aten::sum(%x, %dims, %false, %none)\n  %r = aten::add(%s, %one, %one)",
        "  %m = aten::mean(%x, %dims, %true, %none)\n  %r = aten::add(%m, %one, %one)",
        "  %r = aten::softmax(%x, %last, %none)",
    ] {
        let src = graph(&type_text(DType::F32, &[None, None]), body);
        for shape in [[3, 0], [0, 4]] {
            check_graph(&parse(&src), &[t(&mut rng, DType::F32, &shape)], body);
        }
    }
    // The maximum of an empty row is an error in PyTorch: the kernel refuses the call, so the
    // executor runs the interpreter, which raises it.
    let src = graph(
        &type_text(DType::F32, &[None, None]),
        "  %m = aten::amax(%x, %dims, %false)\n  %r = aten::relu(%m)",
    );
    let group = compile_group(&parse(&src)).unwrap();
    assert!(group.run(&[t(&mut rng, DType::F32, &[3, 0])]).is_err());
    assert!(interpret(&parse(&src), &[t(&mut rng, DType::F32, &[3, 0])]).is_err());
}

#[test]
fn a_reduction_broadcast_along_the_row_is_refused() {
    // x of [N, 1] summed beside y of [N, 5]: one column per row, not five.
    let mut rng = Rng::new(47);
    let src = graph_of(
        &format!(
            "%x : {}, %y : {}",
            type_text(DType::F32, &[None, None]),
            type_text(DType::F32, &[None, None])
        ),
        "  %s = aten::sum(%x, %dims, %true, %none)
  %r = aten::add(%y, %s, %one)",
        "%r",
    );
    let g = parse(&src);
    let group = compile_group(&g).unwrap();
    let (x, y) = (
        t(&mut rng, DType::F32, &[4, 1]),
        t(&mut rng, DType::F32, &[4, 5]),
    );
    assert!(group.run(&[x.clone(), y.clone()]).is_err());
    // Spanning the row, the same kernel runs.
    check_graph(
        &g,
        &[t(&mut rng, DType::F32, &[4, 5]), y],
        "x spans the row",
    );
}

#[test]
fn reductions_over_other_dimensions_are_refused_with_the_node() {
    for body in [
        "  %zero : int = prim::Constant[value=0]()\n  %d0 : int[] = prim::ListConstruct(%zero)\n  %r = aten::sum(%x, %d0, %true, %none)",
        // A dimension twice (PyTorch raises an error).
        "  %two : int[] = prim::ListConstruct(%last, %last)\n  %r = aten::sum(%x, %two, %true, %none)",
        "  %six : int = prim::Constant[value=6]()\n  %r = aten::sum(%x, %dims, %true, %six)",
        // Dimensions 0 and 2 of three: not the innermost ones.
        "  %zero : int = prim::Constant[value=0]()\n  %d02 : int[] = prim::ListConstruct(%zero, %last)\n  %r = aten::sum(%x, %d02, %true, %none)",
        // Reductions over one and over two dimensions in one kernel.
        "  %a = aten::sum(%x, %dims, %true, %none)\n  %b = aten::sum(%x, %dims2, %true, %none)\n  %r = aten::add(%a, %b, %one)",
    ] {
        let src = graph(&type_text(DType::F32, &known(&[3, 4, 5])), body);
        let err = compile_group(&parse(&src)).unwrap_err();
        assert!(err.to_string().contains("aten::sum"), "{body}: {err}");
    }
}

/// Reductions over the last two dimensions and over all of them.
const SEVERAL_DIMS_BODIES: &[&str] = &[
    // A squeeze-excitation block's pooling, and an instance norm's centring.
    "  %m = aten::mean(%x, %dims2, %true, %none)\n  %r = aten::sigmoid(%m)",
    "  %m = aten::mean(%x, %dims2, %true, %none)\n  %r = aten::sub(%x, %m, %one)",
    "  %s = aten::sum(%x, %dims2, %false, %none)\n  %r = aten::mul(%s, %s)",
    "  %m = aten::amax(%x, %dims2, %false)\n  %r = aten::relu(%m)",
    "  %m = aten::amin(%x, %dims2, %true)\n  %r = aten::mul(%m, %x)",
    // The dims in another order, and every dimension (None).
    "  %rev : int[] = prim::ListConstruct(%last, %minus2)\n  %s = aten::sum(%x, %rev, %true, %none)\n  %r = aten::div(%x, %s)",
    "  %e = aten::exp(%x)\n  %s = aten::sum(%e, %none)\n  %r = aten::log(%s)",
    "  %m = aten::mean(%x, %none, %true, %none)\n  %r = aten::sub(%x, %m, %one)",
    // Two levels: an instance norm's variance over the centred values.
    "  %m = aten::mean(%x, %dims2, %true, %none)
  %d = aten::sub(%x, %m, %one)
  %sq = aten::mul(%d, %d)
  %v = aten::mean(%sq, %dims2, %true, %none)
  %is = aten::rsqrt(%v)
  %r = aten::mul(%d, %is)",
];

#[test]
fn reductions_over_several_innermost_dimensions_match_the_interpreter() {
    // Positive inputs: sums of hundreds of elements that cancel out would differ in their
    // low bits between the kernel's order of additions and the interpreter's.
    let t = |rng: &mut Rng, d: DType, s: &[i64]| IValue::Tensor(tensor(rng, d, s, 0.5, 3.0));
    let mut rng = Rng::new(50);
    let shapes: &[&[i64]] = &[
        &[2, 3, 4, 5],
        &[1, 8, 7, 7],
        &[3, 1, 1],
        &[2, 300, 3],
        &[4, 1, 9],
    ];
    for body in SEVERAL_DIMS_BODIES {
        for dtype in [DType::F32, DType::F64, DType::F16, DType::BF16] {
            for shape in shapes {
                let src = graph(&type_text(dtype, &known(shape)), body);
                check(&src, &[t(&mut rng, dtype, shape)]);
            }
        }
        // Unknown sizes, empty rows and empty outer dimensions.
        let g = parse(&graph(&type_text(DType::F32, &[None, None, None]), body));
        for shape in [[5, 6, 7], [1, 1, 1], [3, 0, 4], [0, 2, 2], [2, 64, 65]] {
            let empty_extreme = shape.contains(&0) && body.contains("am");
            if !empty_extreme {
                check_graph(&g, &[t(&mut rng, DType::F32, &shape)], body);
            }
        }
    }
    // Integer sums over two dimensions are int64.
    let src = graph(
        &type_text(DType::I32, &known(&[3, 4, 5])),
        "  %s = aten::sum(%x, %dims2, %false, %none)\n  %r = aten::mul(%s, %one)",
    );
    check(&src, &[t(&mut rng, DType::I32, &[3, 4, 5])]);
}

#[test]
fn rows_of_several_dimensions_from_strided_and_broadcast_inputs() {
    let mut rng = Rng::new(51);
    let src = graph_of(
        &format!(
            "%x : {}, %b : {}",
            type_text(DType::F32, &[None, None, None]),
            type_text(DType::F32, &[None, None, None])
        ),
        "  %xb = aten::add(%x, %b, %one)
  %m = aten::mean(%xb, %dims2, %true, %none)
  %r = aten::sub(%xb, %m, %one)",
        "%r, %m",
    );
    let g = parse(&src);
    let base = tensor(&mut rng, DType::F32, &[6, 4, 5], -3.0, 3.0);
    // The rows are contiguous though the outer dimension is not (an expanded or sliced
    // tensor), or the other operand broadcasts over whole rows or whole outer positions.
    let rows_walkable = [
        (
            tensor(&mut rng, DType::F32, &[1, 4, 5], -3.0, 3.0)
                .expand(&[6, 4, 5])
                .unwrap(),
            base.clone(),
        ),
        (
            tensor(&mut rng, DType::F32, &[12, 4, 5], -3.0, 3.0)
                .slice(0, Some(0), Some(12), 2)
                .unwrap(),
            base.clone(),
        ),
        (
            base.clone(),
            tensor(&mut rng, DType::F32, &[6, 1, 1], -3.0, 3.0),
        ),
        (
            base.clone(),
            tensor(&mut rng, DType::F32, &[1, 4, 5], -3.0, 3.0),
        ),
    ];
    for (i, (a, b)) in rows_walkable.into_iter().enumerate() {
        check_graph(
            &g,
            &[IValue::Tensor(a), IValue::Tensor(b)],
            &format!("pair {i}"),
        );
    }
    // A row no single stride walks (an operand transposed within the row, or broadcast
    // along part of it): the kernel refuses, and the executor runs the interpreter.
    let group = compile_group(&g).unwrap();
    let transposed = tensor(&mut rng, DType::F32, &[6, 5, 4], -3.0, 3.0)
        .transpose(1, 2)
        .unwrap();
    let part = tensor(&mut rng, DType::F32, &[1, 4, 1], -3.0, 3.0);
    for (a, b) in [(transposed, base.clone()), (base.clone(), part)] {
        let inputs = [IValue::Tensor(a), IValue::Tensor(b)];
        assert!(group.run(&inputs).is_err());
        interpret(&g, &inputs).unwrap();
    }
}

#[test]
fn row_loops_vectorize_their_reductions() {
    use ember_compiler::codegen::jit::{group, kernel_llvm_ir, JitTarget};
    use ember_runtime::ops::cpu::Isa;
    let src = graph(
        &type_text(DType::F32, &[None, None]),
        "  %r = aten::softmax(%x, %last, %none)",
    );
    let k = group::build(&parse(&src)).unwrap();
    let ir = kernel_llvm_ir(&k, "softmax", &JitTarget::for_isa(Isa::Avx2)).unwrap();
    if std::env::var_os("EMBER_DUMP_IR").is_some() {
        println!("{ir}");
    }
    // The maximum, the sum of exponentials and the scaling all run on vectors.
    for want in [
        "llvm.maximum.v8f32",
        "fadd reassoc <8 x float>",
        "store <8 x float>",
    ] {
        assert!(ir.contains(want), "no {want} in the softmax kernel");
    }
}

/// `layer_norm(x + x, NORMALIZED, WEIGHT_AND_BIAS, 1e-5)` over `graph(PARAMS)`.
fn layer_norm_src(params: &str, normalized: &[i64], weight_and_bias: &str) -> String {
    let sizes: String = normalized
        .iter()
        .enumerate()
        .map(|(i, n)| format!("  %n{i} : int = prim::Constant[value={n}]()\n"))
        .collect();
    let names: Vec<String> = (0..normalized.len()).map(|i| format!("%n{i}")).collect();
    graph_of(
        params,
        &format!(
            "{sizes}  %shape : int[] = prim::ListConstruct({})
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %y = aten::add(%x, %x, %one)
  %r = aten::layer_norm(%y, %shape, {weight_and_bias}, %eps, %true)",
            names.join(", ")
        ),
        "%r",
    )
}

#[test]
fn layer_norm_with_and_without_weights() {
    let mut rng = Rng::new(48);
    for dtype in [DType::F32, DType::F64, DType::F16, DType::BF16] {
        for (shape, n) in [(&[4, 7][..], 7), (&[2, 3, 384][..], 384), (&[1, 1][..], 1)] {
            let w = type_text(dtype, &known(&[n]));
            let x = type_text(dtype, &known(shape));
            for (params, args) in [
                (", %w : {w}, %b : {w}", "%w, %b"),
                (", %w : {w}", "%w, %none"),
                ("", "%none, %none"),
            ] {
                let params = format!("%x : {x}{}", params.replace("{w}", &w));
                let src = layer_norm_src(&params, &[n], args);
                let mut inputs = vec![t(&mut rng, dtype, shape)];
                for _ in 1..params.matches(':').count() {
                    inputs.push(t(&mut rng, dtype, &[n]));
                }
                check(&src, &inputs);
            }
        }
    }
}

#[test]
fn layer_norm_over_two_dimensions() {
    let mut rng = Rng::new(52);
    for dtype in [DType::F32, DType::F16] {
        let x = type_text(dtype, &known(&[3, 6, 4]));
        let w = type_text(dtype, &known(&[6, 4]));
        let src = layer_norm_src(&format!("%x : {x}, %w : {w}, %b : {w}"), &[6, 4], "%w, %b");
        let inputs = [
            t(&mut rng, dtype, &[3, 6, 4]),
            t(&mut rng, dtype, &[6, 4]),
            t(&mut rng, dtype, &[6, 4]),
        ];
        check(&src, &inputs);
    }
    // Rows of [4, 6] have the normalized shape's 24 elements, but PyTorch refuses them, and
    // a weight of [1, 4] that would broadcast: so does the kernel.
    let any = type_text(DType::F32, &[None, None, None]);
    let any2 = type_text(DType::F32, &[None, None]);
    let g = parse(&layer_norm_src(
        &format!("%x : {any}, %w : {any2}"),
        &[6, 4],
        "%w, %none",
    ));
    let group = compile_group(&g).unwrap();
    for (x, w) in [([3, 4, 6], [6, 4]), ([3, 6, 4], [1, 4])] {
        let inputs = [t(&mut rng, DType::F32, &x), t(&mut rng, DType::F32, &w)];
        assert!(group.run(&inputs).is_err(), "{x:?} {w:?}");
        assert!(interpret(&g, &inputs).is_err(), "{x:?} {w:?}");
    }
    check_graph(
        &g,
        &[
            t(&mut rng, DType::F32, &[2, 6, 4]),
            t(&mut rng, DType::F32, &[6, 4]),
        ],
        "rows of [6, 4]",
    );
}

#[test]
fn layer_norm_refuses_rows_of_another_length() {
    let mut rng = Rng::new(49);
    let x = type_text(DType::F32, &[None, None]);
    let g = parse(&layer_norm_src(&format!("%x : {x}"), &[5], "%none, %none"));
    let group = compile_group(&g).unwrap();
    assert!(group.run(&[t(&mut rng, DType::F32, &[3, 4])]).is_err());
    check_graph(&g, &[t(&mut rng, DType::F32, &[3, 5])], "rows of 5");
}
