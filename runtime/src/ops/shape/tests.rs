//! Unit tests of the shape, indexing and creation operators, run through the interpreter on
//! graph text as TorchScript prints it. The differential suite (test/ops/) compares the same
//! operators with PyTorch on many more inputs; these tests cover what it cannot: aliasing
//! seen through several handles, random streams, huge sizes, load-time overload choice.

use ember_dialects::parse::parse_graph;

use crate::interpreter::{run, Code};
use crate::ivalue::IValue;
use crate::tensor::{DType, Tensor};

pub(crate) fn run_ir(text: &str, inputs: Vec<IValue>) -> Result<Vec<IValue>, String> {
    let g = parse_graph(text).map_err(|d| format!("{d:?}"))?;
    let code = Code::new(&g).map_err(|e| e.to_string())?;
    run(&code, inputs).map_err(|e| e.message)
}

pub(crate) fn tensor(v: &IValue) -> Tensor {
    v.as_tensor().expect("a tensor").clone()
}

fn f32s(v: &IValue) -> Vec<f32> {
    tensor(v).to_vec::<f32>()
}

fn i64s(v: &IValue) -> Vec<i64> {
    tensor(v).to_vec::<i64>()
}

fn sizes(v: &IValue) -> Vec<i64> {
    tensor(v).sizes().to_vec()
}

fn arange_f32(n: usize, shape: &[i64]) -> IValue {
    IValue::Tensor(Tensor::from_vec((0..n).map(|i| i as f32).collect(), shape).unwrap())
}

pub(crate) fn err(text: &str, inputs: Vec<IValue>) -> String {
    run_ir(text, inputs).expect_err("expected an error")
}

#[test]
fn getitem_sequences_run_and_alias() {
    // x[1:3], x[..., None], x[i], x[idx], x[:, idx], x[x > 0] and x[0] = 1.0, as scripted.
    let text = r#"graph(%x.1 : Tensor, %i.1 : int, %idx.1 : Tensor):
  %53 : bool = prim::Constant[value=0]()
  %31 : NoneType = prim::Constant()
  %12 : int = prim::Constant[value=-1]()
  %5 : int = prim::Constant[value=1]()
  %6 : int = prim::Constant[value=3]()
  %39 : int = prim::Constant[value=0]()
  %47 : float = prim::Constant[value=100.]()
  %a.1 : Tensor = aten::slice(%x.1, %39, %5, %6, %5)
  %b.1 : Tensor = aten::unsqueeze(%x.1, %12)
  %c.1 : Tensor = aten::select(%x.1, %39, %i.1)
  %24 : Tensor?[] = prim::ListConstruct(%idx.1)
  %d.1 : Tensor = aten::index(%x.1, %24)
  %33 : Tensor = aten::slice(%x.1, %39, %31, %31, %5)
  %35 : Tensor?[] = prim::ListConstruct(%31, %idx.1)
  %e.1 : Tensor = aten::index(%33, %35)
  %50 : Tensor = aten::select(%a.1, %39, %39)
  %51 : int = prim::dtype(%50)
  %52 : Device = prim::device(%50)
  %54 : Tensor = aten::tensor(%47, %51, %52, %53)
  %56 : Tensor = aten::copy_(%50, %54, %53)
  return (%a.1, %b.1, %c.1, %d.1, %e.1)
"#;
    let x = arange_f32(12, &[4, 3]);
    let idx = IValue::Tensor(Tensor::from_vec(vec![2i64, 0], &[2]).unwrap());
    let out = run_ir(text, vec![x.clone(), IValue::Int(-1), idx]).unwrap();
    // a = x[1:3] was written through (a[0] = 100), and x sees it.
    assert_eq!(sizes(&out[0]), vec![2, 3]);
    assert_eq!(f32s(&out[0]), vec![100., 100., 100., 6., 7., 8.]);
    assert_eq!(&f32s(&x)[3..6], &[100., 100., 100.]);
    assert_eq!(sizes(&out[1]), vec![4, 3, 1]);
    assert_eq!(f32s(&out[2]), vec![9., 10., 11.]);
    // d and e were taken before the write.
    assert_eq!(f32s(&out[3]), vec![6., 7., 8., 0., 1., 2.]);
    assert_eq!(sizes(&out[4]), vec![4, 2]);
    assert_eq!(f32s(&out[4]), vec![2., 0., 5., 3., 8., 6., 11., 9.]);
}

#[test]
fn in_place_metadata_changes_every_handle() {
    let text = r#"graph(%x : Tensor):
  %0 : int = prim::Constant[value=0]()
  %1 : int = prim::Constant[value=1]()
  %y : Tensor = aten::unsqueeze_(%x, %0)
  %z : Tensor = aten::transpose_(%x, %0, %1)
  return (%y, %z)
"#;
    let x = arange_f32(6, &[2, 3]);
    let out = run_ir(text, vec![x.clone()]).unwrap();
    let (y, z) = (tensor(&out[0]), tensor(&out[1]));
    assert!(y.is_same(&tensor(&x)) && z.is_same(&tensor(&x)));
    assert_eq!(tensor(&x).sizes().as_slice(), &[2, 1, 3]);
}

#[test]
fn advanced_index_moves_separated_dims_to_front() {
    // x[idx, :, idx] on [2, 3, 4]: the indexed dims are not adjacent, so the broadcast
    // index dim comes first: [2, 3].
    let text = r#"graph(%x : Tensor, %i : Tensor, %j : Tensor):
  %n : NoneType = prim::Constant()
  %l : Tensor?[] = prim::ListConstruct(%i, %n, %j)
  %r : Tensor = aten::index(%x, %l)
  return (%r)
"#;
    let x = arange_f32(24, &[2, 3, 4]);
    let i = IValue::Tensor(Tensor::from_vec(vec![1i64, 0], &[2]).unwrap());
    let j = IValue::Tensor(Tensor::from_vec(vec![3i64, -4], &[2]).unwrap());
    let out = run_ir(text, vec![x, i, j]).unwrap();
    assert_eq!(sizes(&out[0]), vec![2, 3]);
    assert_eq!(f32s(&out[0]), vec![15., 19., 23., 0., 4., 8.]);
}

#[test]
fn index_put_accumulates_duplicates() {
    let text = r#"graph(%x : Tensor, %i : Tensor, %v : Tensor):
  %t : bool = prim::Constant[value=1]()
  %l : Tensor?[] = prim::ListConstruct(%i)
  %r : Tensor = aten::index_put_(%x, %l, %v, %t)
  return (%r)
"#;
    let x = IValue::Tensor(Tensor::zeros(&[3], DType::F32).unwrap());
    let i = IValue::Tensor(Tensor::from_vec(vec![0i64, 2, 0], &[3]).unwrap());
    let v = IValue::Tensor(Tensor::from_vec(vec![1f32, 2., 3.], &[3]).unwrap());
    let out = run_ir(text, vec![x.clone(), i, v]).unwrap();
    assert_eq!(f32s(&out[0]), vec![4., 0., 2.]);
    assert!(tensor(&out[0]).is_same(&tensor(&x)));
}

#[test]
fn errors_use_pytorch_messages() {
    let cat = r#"graph(%a : Tensor, %b : Tensor):
  %1 : int = prim::Constant[value=1]()
  %l : Tensor[] = prim::ListConstruct(%a, %b)
  %r : Tensor = aten::cat(%l, %1)
  return (%r)
"#;
    let a = IValue::Tensor(Tensor::zeros(&[2, 2], DType::F32).unwrap());
    let b = IValue::Tensor(Tensor::zeros(&[3, 2], DType::F32).unwrap());
    assert_eq!(
        err(cat, vec![a, b]),
        "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for tensor number 1 in the list."
    );
    let index = r#"graph(%x : Tensor, %i : Tensor):
  %l : Tensor?[] = prim::ListConstruct(%i)
  %r : Tensor = aten::index(%x, %l)
  return (%r)
"#;
    let x = arange_f32(3, &[3]);
    let i = IValue::Tensor(Tensor::from_vec(vec![5i64], &[1]).unwrap());
    assert_eq!(
        err(index, vec![x, i]),
        "index 5 is out of bounds for dimension 0 with size 3"
    );
}

#[test]
fn huge_sizes_are_errors_not_aborts() {
    let text = r#"graph(%n : int):
  %none : NoneType = prim::Constant()
  %s : int[] = prim::ListConstruct(%n)
  %r : Tensor = aten::zeros(%s, %none, %none, %none, %none)
  return (%r)
"#;
    assert!(err(text, vec![IValue::Int(1 << 62)]).contains("Storage size calculation overflowed"));
    assert!(err(text, vec![IValue::Int(1 << 40)]).contains("refusing to allocate"));
    let two = r#"graph(%n : int):
  %none : NoneType = prim::Constant()
  %s : int[] = prim::ListConstruct(%n, %n)
  %r : Tensor = aten::ones(%s, %none, %none, %none, %none)
  return (%r)
"#;
    assert!(err(two, vec![IValue::Int(1 << 40)]).contains("Storage size calculation overflowed"));
    let neg = err(two, vec![IValue::Int(-1)]);
    assert!(neg.contains("negative dimension -1"), "{neg}");
    let repeat = r#"graph(%x : Tensor, %n : int):
  %s : int[] = prim::ListConstruct(%n, %n)
  %r : Tensor = aten::repeat(%x, %s)
  return (%r)
"#;
    let x = arange_f32(4, &[2, 2]);
    assert!(!err(repeat, vec![x, IValue::Int(1 << 40)]).is_empty());
}

#[test]
fn arange_infers_dtype_and_length() {
    let text = r#"graph(%a : Scalar, %b : Scalar, %c : Scalar):
  %none : NoneType = prim::Constant()
  %r : Tensor = aten::arange(%a, %b, %c, %none, %none, %none, %none)
  return (%r)
"#;
    let out = run_ir(text, vec![IValue::Int(1), IValue::Int(10), IValue::Int(3)]).unwrap();
    assert_eq!(tensor(&out[0]).dtype(), DType::I64);
    assert_eq!(i64s(&out[0]), vec![1, 4, 7]);
    let out = run_ir(
        text,
        vec![IValue::Double(0.0), IValue::Int(1), IValue::Double(0.3)],
    )
    .unwrap();
    assert_eq!(tensor(&out[0]).dtype(), DType::F32);
    assert_eq!(sizes(&out[0]), vec![4]);
    let out = run_ir(text, vec![IValue::Int(5), IValue::Int(-3), IValue::Int(-2)]).unwrap();
    assert_eq!(i64s(&out[0]), vec![5, 3, 1, -1]);
    assert_eq!(
        err(text, vec![IValue::Int(0), IValue::Int(5), IValue::Int(-1)]),
        "upper bound and lower bound inconsistent with step sign"
    );
    assert_eq!(
        err(text, vec![IValue::Int(0), IValue::Int(5), IValue::Int(0)]),
        "step must be nonzero"
    );
}

#[test]
fn tensor_literals_infer_dtype_and_shape() {
    let text = r#"graph(%l : int[][], %f : float[]):
  %none : NoneType = prim::Constant()
  %false : bool = prim::Constant[value=0]()
  %a : Tensor = aten::tensor(%l, %none, %none, %false)
  %b : Tensor = aten::tensor(%f, %none, %none, %false)
  return (%a, %b)
"#;
    let row = |v: &[i64]| IValue::list(v.iter().map(|&i| IValue::Int(i)).collect());
    let l = IValue::list(vec![row(&[1, 2]), row(&[3, 4])]);
    let out = run_ir(text, vec![l, IValue::list(vec![])]).unwrap();
    assert_eq!(tensor(&out[0]).dtype(), DType::I64);
    assert_eq!(sizes(&out[0]), vec![2, 2]);
    assert_eq!(tensor(&out[1]).dtype(), DType::F32);
    assert_eq!(sizes(&out[1]), vec![0]);
    let ragged = IValue::list(vec![row(&[1, 2]), row(&[3])]);
    assert_eq!(
        err(text, vec![ragged, IValue::list(vec![])]),
        "Expected sequence of length 2 at dim 1 (got 1)"
    );
}

#[test]
fn queries_and_conversions() {
    let text = r#"graph(%x : Tensor):
  %0 : int = prim::Constant[value=0]()
  %7 : int = prim::Constant[value=7]()
  %false : bool = prim::Constant[value=0]()
  %none : NoneType = prim::Constant()
  %s : int[] = aten::size(%x)
  %d : int = prim::dtype(%x)
  %n : int = aten::len(%x)
  %e : Tensor = aten::select(%x, %0, %0)
  %e2 : Tensor = aten::select(%e, %0, %0)
  %i : Scalar = aten::item(%e2)
  %k : int = aten::Int(%e2)
  %y : Tensor = aten::to(%x, %7, %false, %false, %none)
  %z : Tensor = aten::to(%x, %d, %false, %false, %none)
  return (%s, %d, %n, %i, %k, %y, %z)
"#;
    let x = IValue::Tensor(Tensor::from_vec(vec![2.5f32, 1., 0., 3.], &[2, 2]).unwrap());
    let out = run_ir(text, vec![x.clone()]).unwrap();
    assert_eq!(format!("{:?}", out[0]), "[2, 2]");
    assert_eq!(out[1].as_int(), Some(6));
    assert_eq!(out[2].as_int(), Some(2));
    assert_eq!(out[3].as_double(), Some(2.5));
    assert_eq!(out[4].as_int(), Some(2));
    assert_eq!(tensor(&out[5]).dtype(), DType::F64);
    // `to` the same dtype without copy= is the tensor itself.
    assert!(tensor(&out[6]).is_same(&tensor(&x)));
}

#[test]
fn constant_chunk_spreads_outputs() {
    let text = r#"graph(%x : Tensor):
  %a : Tensor, %b : Tensor = prim::ConstantChunk[chunks=2, dim=1](%x)
  return (%a, %b)
"#;
    let out = run_ir(text, vec![arange_f32(8, &[2, 4])]).unwrap();
    assert_eq!(f32s(&out[0]), vec![0., 1., 4., 5.]);
    assert_eq!(f32s(&out[1]), vec![2., 3., 6., 7.]);
}

#[test]
fn traced_graphs_with_size_arithmetic_run() {
    // torch.jit.trace of `x.view(x.size(0), -1)[:, 1:3]` and a cat with zeros.
    let text = r#"graph(%self : __torch__.M,
      %x : Float(2, 3, 4, strides=[12, 4, 1], requires_grad=0, device=cpu)):
  %4 : int = prim::Constant[value=0]()
  %5 : int = aten::size(%x, %4)
  %b : Long(device=cpu) = prim::NumToTensor(%5)
  %21 : int = aten::Int(%b)
  %7 : int = aten::Int(%b)
  %8 : int = prim::Constant[value=-1]()
  %9 : int[] = prim::ListConstruct(%7, %8)
  %y : Float(2, 12, strides=[12, 1], requires_grad=0, device=cpu) = aten::view(%x, %9)
  %11 : int = prim::Constant[value=0]()
  %13 : int = prim::Constant[value=9223372036854775807]()
  %14 : int = prim::Constant[value=1]()
  %15 : Float(2, 12, strides=[12, 1], requires_grad=0, device=cpu) = aten::slice(%y, %11, %11, %13, %14)
  %18 : int = prim::Constant[value=3]()
  %z : Float(2, 2, strides=[12, 1], requires_grad=0, device=cpu) = aten::slice(%15, %14, %14, %18, %14)
  %23 : int[] = prim::ListConstruct(%21, %14)
  %24 : NoneType = prim::Constant()
  %26 : Device = prim::Constant[value="cpu"]()
  %27 : bool = prim::Constant[value=0]()
  %28 : Float(2, 1, strides=[1, 1], requires_grad=0, device=cpu) = aten::zeros(%23, %24, %24, %26, %27)
  %29 : Tensor[] = prim::ListConstruct(%z, %28)
  %31 : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu) = aten::cat(%29, %14)
  %33 : int[] = prim::ListConstruct(%8)
  %34 : Float(6, strides=[1], requires_grad=0, device=cpu) = aten::reshape(%31, %33)
  %39 : int = aten::size(%x, %14)
  %40 : Long(device=cpu) = prim::NumToTensor(%39)
  %46 : (Float(6, strides=[1], requires_grad=0, device=cpu), Long(device=cpu)) = prim::TupleConstruct(%34, %40)
  return (%46)
"#;
    let out = run_ir(text, vec![IValue::None, arange_f32(24, &[2, 3, 4])]).unwrap();
    let IValue::Tuple(items) = &out[0] else {
        panic!("expected a tuple")
    };
    assert_eq!(f32s(&items[0]), vec![1., 2., 0., 13., 14., 0.]);
    let n = tensor(&items[1]);
    assert_eq!(
        (n.dtype(), n.dim(), n.item_i64().unwrap()),
        (DType::I64, 0, 3)
    );
}

#[test]
fn cuda_devices_are_refused_clearly() {
    let text = r#"graph(%n : int):
  %none : NoneType = prim::Constant()
  %d : Device = prim::Constant[value="cuda:0"]()
  %s : int[] = prim::ListConstruct(%n)
  %r : Tensor = aten::zeros(%s, %none, %none, %d, %none)
  return (%r)
"#;
    assert_eq!(
        err(text, vec![IValue::Int(2)]),
        "Ember's interpreter computes on the CPU only; device 'cuda:0' is not available here"
    );
}

#[test]
fn block_copies_match_element_copies() {
    // Rows of 36 contiguous elements (the block path), with an offset and a row stride.
    let base = Tensor::from_vec((0..160).map(|i| i as f32).collect(), &[4, 40]).unwrap();
    let s = base.slice(1, Some(2), Some(38), 1).unwrap();
    let c = s.clone_contiguous().unwrap();
    let expected: Vec<f32> = (0..4)
        .flat_map(|r| (2..38).map(move |k| (r * 40 + k) as f32))
        .collect();
    assert_eq!(c.to_vec::<f32>(), expected);
    // cat along dim 1 writes each input into a strided window of the result.
    let cat = crate::ops::shape::join::cat_tensors(&[s.clone(), c.clone()], 1).unwrap();
    let row = |r: usize| cat.select(0, r as i64).unwrap().to_vec::<f32>();
    for r in 0..4 {
        let want: Vec<f32> = expected[r * 36..(r + 1) * 36]
            .iter()
            .chain(&expected[r * 36..(r + 1) * 36])
            .copied()
            .collect();
        assert_eq!(row(r), want);
    }
    // Broadcast sources (stride 0) fall back to element copies.
    let col = Tensor::from_vec((0..4).map(|i| i as f32).collect(), &[4, 1]).unwrap();
    let dst = Tensor::zeros(&[4, 20], DType::F32).unwrap();
    dst.copy_from(&col).unwrap();
    assert_eq!(
        dst.select(1, 19).unwrap().to_vec::<f32>(),
        vec![0., 1., 2., 3.]
    );
}

#[test]
fn huge_broadcast_indices_are_refused() {
    let text = r#"graph(%x : Tensor, %i : Tensor, %n : int):
  %false : bool = prim::Constant[value=0]()
  %s : int[] = prim::ListConstruct(%n)
  %big : Tensor = aten::expand(%i, %s, %false)
  %l : Tensor?[] = prim::ListConstruct(%big)
  %r : Tensor = aten::index(%x, %l)
  %m : Tensor = aten::index_select(%x, %n, %big)
  return (%r)
"#;
    let x = arange_f32(3, &[3]);
    let i = IValue::Tensor(Tensor::from_vec(vec![1i64], &[1]).unwrap());
    let e = err(text, vec![x, i, IValue::Int(1 << 40)]);
    assert!(e.contains("refusing to allocate"), "{e}");
}

/// Runs every op of `bodies` (graph lines computing `%r` from `%x : Tensor` and the ints
/// `%a`, `%b`, `%c`) on tensors of several shapes and extreme ints: each run must return
/// a value or an error, never panic or abort.
#[test]
fn extreme_arguments_never_panic() {
    let bodies = [
        "%r : Tensor = aten::select(%x, %a, %b)",
        "%r : Tensor = aten::slice(%x, %a, %b, %c, %c)",
        "%r : Tensor = aten::narrow(%x, %a, %b, %c)",
        "%r : Tensor = aten::diagonal(%x, %a, %b, %c)",
        "%r : Tensor = aten::transpose(%x, %a, %b)",
        "%r : Tensor = aten::unsqueeze(%x, %a)",
        "%r : Tensor = aten::squeeze(%x, %a)",
        "%r : Tensor = aten::flatten(%x, %a, %b)",
        "%r : Tensor = aten::unfold(%x, %a, %b, %c)",
        "%r : Tensor = aten::movedim(%x, %a, %b)",
        "%r : Tensor = aten::roll(%x, %l, %l2)",
        "%r : Tensor = aten::view(%x, %l)",
        "%r : Tensor = aten::reshape(%x, %l)",
        "%r : Tensor = aten::expand(%x, %l, %f)",
        "%r : Tensor = aten::repeat(%x, %l)",
        "%r : Tensor = aten::tile(%x, %l)",
        "%r : Tensor = aten::permute(%x, %l)",
        "%r : Tensor = aten::flip(%x, %l)",
        "%r : Tensor = aten::constant_pad_nd(%x, %l, %a)",
        "%r : Tensor = aten::unflatten(%x, %a, %l)",
        "%r : Tensor = aten::tril(%x, %a)",
        "%r : Tensor[] = aten::chunk(%x, %a, %b)",
        "%r : Tensor[] = aten::split(%x, %a, %b)",
        "%r : Tensor[] = aten::split(%x, %l, %b)",
        "%r : Tensor[] = aten::tensor_split(%x, %a, %b)",
        "%r : Tensor[] = aten::tensor_split(%x, %l, %b)",
        "%r : Tensor[] = aten::unbind(%x, %a)",
        "%r : Tensor = aten::repeat_interleave(%x, %a, %b, %n)",
        "%r : Tensor = aten::index_select(%x, %a, %it)",
        "%r : Tensor = aten::gather(%x, %a, %it, %f)",
        "%r : Tensor = aten::take(%x, %it)",
        "%r : Tensor = aten::index(%x, %il)",
        "%r : Tensor = aten::one_hot(%it, %a)",
        "%r : Tensor = aten::diag(%x, %a)",
        "%r : Tensor = aten::zeros(%l, %n, %n, %n, %n)",
        "%r : Tensor = aten::full(%l, %a, %n, %n, %n, %n)",
        "%r : Tensor = aten::eye(%a, %b, %n, %n, %n, %n)",
        "%r : Tensor = aten::arange(%a, %b, %c, %n, %n, %n, %n)",
        "%r : Tensor = aten::linspace(%a, %b, %c, %n, %n, %n, %n)",
        "%r : Tensor = aten::randperm(%a, %n, %n, %n, %n)",
        "%r : Tensor = aten::randint(%a, %b, %l, %n, %n, %n, %n)",
        "%r : Tensor = aten::tril_indices(%a, %b, %c, %n, %n, %n, %n)",
        "%r : int = aten::size(%x, %a)",
        "%r : Tensor = aten::scatter(%x, %c, %it, %a)",
        "%r : Tensor = aten::index_put_(%x, %il, %x, %f)",
        "%r : Tensor = aten::index_add(%x, %c, %it, %x, %a)",
        "%r : Tensor = aten::index_fill(%x, %c, %it, %a)",
        "%r : Tensor = aten::index_copy(%x, %c, %it, %x)",
        "%r : Tensor = aten::select_scatter(%x, %x, %a, %b)",
        "%r : Tensor = aten::slice_scatter(%x, %x, %a, %b, %c, %c)",
        "%r : Tensor = aten::repeat_interleave(%it, %n)",
        "%r : Tensor[] = aten::tensor_split(%x, %it, %c)",
        "%r : Tensor = aten::narrow(%x, %c, %it, %b)",
        "%r : Tensor = aten::pad(%x, %l, %mode, %n)",
        "%r : Tensor = aten::new_full(%x, %l, %a, %n, %n, %n, %n)",
        "%r : Tensor = aten::logspace(%a, %b, %c, %c, %n, %n, %n, %n)",
        "%r : Tensor = aten::as_strided(%x, %l, %l, %c)",
        "%r : Tensor = aten::view(%x, %c)",
    ];
    let extremes = [i64::MIN, -3, -1, 0, 1, 2, 5, 1 << 62, i64::MAX];
    let shapes: [&[i64]; 4] = [&[], &[0], &[3], &[2, 3]];
    for body in bodies {
        let text = format!(
            r#"graph(%x : Tensor, %a : int, %b : int, %c : int):
  %n : NoneType = prim::Constant()
  %f : bool = prim::Constant[value=0]()
  %l : int[] = prim::ListConstruct(%a, %b)
  %l2 : int[] = prim::ListConstruct(%c)
  %it : Tensor = aten::tensor(%l, %n, %n, %f)
  %il : Tensor?[] = prim::ListConstruct(%it)
  %mode : str = prim::Constant[value="reflect"]()
  {body}
  return (%r)
"#
        );
        let g = parse_graph(&text).unwrap_or_else(|d| panic!("{body}: {d:?}"));
        let code = Code::new(&g).unwrap_or_else(|e| panic!("{body}: {e}"));
        for shape in shapes {
            let n = shape.iter().product::<i64>() as usize;
            let x = Tensor::from_vec((0..n).map(|i| i as f32).collect(), shape).unwrap();
            for &a in &extremes {
                for &b in &extremes {
                    for &c in &[i64::MIN, -1, 0, 1, 2, i64::MAX] {
                        let inputs = vec![
                            IValue::Tensor(x.clone()),
                            IValue::Int(a),
                            IValue::Int(b),
                            IValue::Int(c),
                        ];
                        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                            run(&code, inputs).map(|_| ())
                        }));
                        assert!(r.is_ok(), "{body} panicked on {shape:?} a={a} b={b} c={c}");
                    }
                }
            }
        }
    }
}
