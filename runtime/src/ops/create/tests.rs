//! Unit tests of the random operators: shapes, dtypes, ranges, rough moments, determinism under
//! a seed, and an explicit generator drawing PyTorch's stream (the default generator's values
//! are compared with PyTorch's by the differential suite, test/ops/random).

use crate::ivalue::{Generator, IValue};
use crate::ops::shape::tests::{err, run_ir, tensor};
use crate::tensor::DType;

fn generator(seed: u64) -> IValue {
    IValue::Generator(std::sync::Arc::new(std::sync::Mutex::new(Generator::new(
        seed,
    ))))
}

fn f64s(v: &IValue) -> Vec<f64> {
    tensor(v).to_vec::<f64>()
}

#[test]
fn random_ops_are_seeded_and_in_range() {
    let text = r#"graph(%seed : int, %g : Generator?):
  %none : NoneType = prim::Constant()
  %0 : int = prim::Constant[value=0]()
  %5 : int = prim::Constant[value=5]()
  %6 : int = prim::Constant[value=6]()
  %n : int = prim::Constant[value=1000]()
  %s : int[] = prim::ListConstruct(%n)
  %r : Tensor = aten::rand(%s, %g, %none, %none, %none, %none)
  %q : Tensor = aten::randn(%s, %g, %none, %none, %none, %none)
  %i : Tensor = aten::randint(%0, %5, %s, %g, %none, %none, %none, %none)
  %p : Tensor = aten::randperm(%6, %g, %none, %none, %none, %none)
  return (%r, %q, %i, %p)
"#;
    let gen = || generator(7);
    let a = run_ir(text, vec![IValue::Int(0), gen()]).unwrap();
    let b = run_ir(text, vec![IValue::Int(0), gen()]).unwrap();
    for k in 0..4 {
        assert_eq!(tensor(&a[k]).to_vec::<f64>(), tensor(&b[k]).to_vec::<f64>());
    }
    let r = f32v(&a[0]);
    assert_eq!(tensor(&a[0]).dtype(), DType::F32);
    assert!(r.iter().all(|&v| (0.0..1.0).contains(&v)));
    let mean: f32 = r.iter().sum::<f32>() / 1000.0;
    assert!((mean - 0.5).abs() < 0.05, "{mean}");
    let q = f32v(&a[1]);
    let qm: f32 = q.iter().sum::<f32>() / 1000.0;
    let qv: f32 = q.iter().map(|v| (v - qm) * (v - qm)).sum::<f32>() / 1000.0;
    assert!(qm.abs() < 0.1 && (qv - 1.0).abs() < 0.15, "{qm} {qv}");
    let i = i64v(&a[2]);
    assert_eq!(tensor(&a[2]).dtype(), DType::I64);
    assert!(i.iter().all(|&v| (0..5).contains(&v)));
    assert!((0..5).all(|k| i.contains(&k)));
    let mut p = i64v(&a[3]);
    p.sort();
    assert_eq!(p, vec![0, 1, 2, 3, 4, 5]);
}

#[test]
fn explicit_generator_draws_pytorchs_stream() {
    // torch.Generator().manual_seed(0): rand(3) then randperm(6) with that generator.
    let text = r#"graph(%g : Generator?):
  %none : NoneType = prim::Constant()
  %3 : int = prim::Constant[value=3]()
  %6 : int = prim::Constant[value=6]()
  %s : int[] = prim::ListConstruct(%3)
  %r : Tensor = aten::rand(%s, %g, %none, %none, %none, %none)
  %p : Tensor = aten::randperm(%6, %g, %none, %none, %none, %none)
  return (%r, %p)
"#;
    let out = run_ir(text, vec![generator(0)]).unwrap();
    assert_eq!(f32v(&out[0]), vec![0.496_256_6, 0.768_221_8, 0.088_477_43]);
    assert_eq!(i64v(&out[1]), vec![0, 4, 5, 1, 2, 3]);
}

fn f32v(v: &IValue) -> Vec<f32> {
    tensor(v).to_vec::<f32>()
}

fn i64v(v: &IValue) -> Vec<i64> {
    tensor(v).to_vec::<i64>()
}

#[test]
fn normal_uniform_bernoulli_follow_their_arguments() {
    let text = r#"graph(%x : Tensor, %g : Generator?):
  %none : NoneType = prim::Constant()
  %m : float = prim::Constant[value=5.]()
  %s : float = prim::Constant[value=2.]()
  %lo : float = prim::Constant[value=-3.]()
  %hi : float = prim::Constant[value=-1.]()
  %p : float = prim::Constant[value=0.25]()
  %n : Tensor = aten::normal(%x, %s, %g)
  %u : Tensor = aten::uniform_(%x, %lo, %hi, %g)
  %b : Tensor = aten::bernoulli(%x, %p, %g)
  %z : Tensor = aten::normal_(%u, %m, %s, %g)
  return (%n, %b, %z)
"#;
    let x = IValue::Tensor(crate::tensor::Tensor::zeros(&[4000], DType::F64).unwrap());
    let out = run_ir(text, vec![x.clone(), generator(3)]).unwrap();
    let n = f64s(&out[0]);
    let mean = n.iter().sum::<f64>() / n.len() as f64;
    let var = n.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n.len() as f64;
    assert!(mean.abs() < 0.15 && (var - 4.0).abs() < 0.4, "{mean} {var}");
    let b = f64s(&out[1]);
    assert!(b.iter().all(|&v| v == 0.0 || v == 1.0));
    let frac = b.iter().sum::<f64>() / b.len() as f64;
    assert!((frac - 0.25).abs() < 0.03, "{frac}");
    // uniform_ wrote into x (in [-3, -1)), then normal_ overwrote it in place.
    let z = f64s(&out[2]);
    let zm = z.iter().sum::<f64>() / z.len() as f64;
    assert!((zm - 5.0).abs() < 0.15, "{zm}");
    assert!(tensor(&out[2]).is_same(&tensor(&x)));
    let bad = r#"graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %lo : float = prim::Constant[value=2.]()
  %hi : float = prim::Constant[value=1.]()
  %u : Tensor = aten::uniform_(%x, %lo, %hi, %none)
  return (%u)
"#;
    assert_eq!(
        err(bad, vec![x]),
        "uniform_ expects to return a [from, to) range, but found from=2.0 > to=1.0"
    );
}

#[test]
fn manual_seed_makes_the_default_stream_repeat() {
    let text = r#"graph(%seed : int):
  %none : NoneType = prim::Constant()
  %3 : int = prim::Constant[value=3]()
  %s : int[] = prim::ListConstruct(%3)
  = aten::manual_seed(%seed)
  %r : Tensor = aten::rand(%s, %none, %none, %none, %none)
  return (%r)
"#;
    let a = run_ir(text, vec![IValue::Int(11)]).unwrap();
    let b = run_ir(text, vec![IValue::Int(11)]).unwrap();
    assert_eq!(f64s(&a[0]), f64s(&b[0]));
    assert_eq!(tensor(&a[0]).sizes().as_slice(), &[3]);
}
