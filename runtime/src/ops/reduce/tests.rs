//! Unit tests: small graphs run through the interpreter. The differential suite
//! (test/ops/reduce) checks every overload against real PyTorch.

use ember_dialects::parse::parse_graph;

use crate::interpreter::{run, Code};
use crate::ivalue::IValue;
use crate::tensor::{DType, Element, Tensor};

/// Runs graph text on `inputs`; `Err` is the op's message.
fn exec(text: &str, inputs: Vec<IValue>) -> Result<Vec<IValue>, String> {
    let g = parse_graph(text).map_err(|d| d.message.clone())?;
    let code = Code::new(&g).map_err(|e| format!("{e:?}"))?;
    run(&code, inputs).map_err(|e| e.message)
}

fn t<T: Element>(v: Vec<T>, s: &[i64]) -> IValue {
    IValue::Tensor(Tensor::from_vec(v, s).unwrap())
}

fn out(v: &IValue) -> (Vec<i64>, DType, Vec<f64>) {
    let t = v.as_tensor().expect("a tensor");
    (t.sizes().to_vec(), t.dtype(), t.to_vec::<f64>())
}

#[test]
fn sum_over_dims_promotes_ints_and_keeps_dims() {
    let g = r#"graph(%x : Tensor):
  %d : int[] = prim::Constant[value=[0, -1]]()
  %k : bool = prim::Constant[value=1]()
  %n : NoneType = prim::Constant()
  %r : Tensor = aten::sum(%x, %d, %k, %n)
  return (%r)"#;
    let r = exec(g, vec![t(vec![1i32, 2, 3, 4, 5, 6], &[2, 1, 3])]).unwrap();
    assert_eq!(out(&r[0]), (vec![1, 1, 1], DType::I64, vec![21.0]));
}

#[test]
fn max_with_dim_returns_first_nan_and_first_tie() {
    let g = r#"graph(%x : Tensor):
  %d : int = prim::Constant[value=1]()
  %k : bool = prim::Constant[value=0]()
  %v : Tensor, %i : Tensor = aten::max(%x, %d, %k)
  return (%v, %i)"#;
    let nan = f32::NAN;
    let r = exec(g, vec![t(vec![1f32, 3., 3., 2., nan, nan], &[2, 3])]).unwrap();
    let (s, d, v) = out(&r[0]);
    assert_eq!((s, d), (vec![2], DType::F32));
    assert!(v[0] == 3.0 && v[1].is_nan());
    assert_eq!(out(&r[1]).2, vec![1.0, 1.0]);
}

#[test]
fn empty_max_is_refused_with_pytorch_message() {
    let g = r#"graph(%x : Tensor):
  %r : Tensor = aten::max(%x)
  return (%r)"#;
    let e = exec(g, vec![t(Vec::<f32>::new(), &[0, 3])]).unwrap_err();
    assert_eq!(e, "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.");
}
