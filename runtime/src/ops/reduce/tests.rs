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

/// A float32 matrix with varied values.
fn matrix(rows: usize, cols: usize) -> Tensor {
    let v: Vec<f32> = (0..rows * cols)
        .map(|i| ((i * 7919) % 1013) as f32 * 0.01 - 5.0)
        .collect();
    Tensor::from_vec(v, &[rows as i64, cols as i64]).unwrap()
}

#[test]
fn column_sums_match_a_naive_loop_on_every_path() {
    let g = r#"graph(%x : Tensor):
  %d : int[] = prim::Constant[value=[0]]()
  %k : bool = prim::Constant[value=0]()
  %n : NoneType = prim::Constant()
  %r : Tensor = aten::sum(%x, %d, %k, %n)
  return (%r)"#;
    // Small (one thread) and large (columns split over threads).
    for (rows, cols) in [(3, 5), (300, 700)] {
        let x = matrix(rows, cols);
        let v = x.to_vec::<f32>();
        let want: Vec<f64> = (0..cols)
            .map(|j| (0..rows).map(|i| v[i * cols + j] as f64).sum())
            .collect();
        let r = exec(g, vec![IValue::Tensor(x)]).unwrap();
        let (s, d, got) = out(&r[0]);
        assert_eq!((s, d), (vec![cols as i64], DType::F32));
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() <= 1e-4 * b.abs().max(1.0), "{a} vs {b}");
        }
    }
}

#[test]
fn softmax_fast_path_agrees_with_the_general_one() {
    let g = |dim: i64| {
        format!(
            r#"graph(%x : Tensor):
  %d : int = prim::Constant[value={dim}]()
  %n : NoneType = prim::Constant()
  %r : Tensor = aten::log_softmax(%x, %d, %n)
  return (%r)"#
        )
    };
    let x = matrix(200, 300);
    // Last dim of a contiguous float32 tensor: the fast path.
    let fast = out(&exec(&g(1), vec![IValue::Tensor(x.clone())]).unwrap()[0]).2;
    // The same rows as columns of the transpose: the general path.
    let xt = x.t().unwrap().contiguous().unwrap();
    let slow = exec(&g(0), vec![IValue::Tensor(xt)]).unwrap();
    let slow_t = slow[0].as_tensor().unwrap().t().unwrap();
    for (a, b) in fast.iter().zip(slow_t.to_vec::<f64>()) {
        assert!((a - b).abs() <= 1e-5 * b.abs().max(1.0), "{a} vs {b}");
    }
}

#[test]
fn long_runs_split_over_threads_sum_and_propagate_nan() {
    let n = 200_000usize;
    let mut v: Vec<f32> = (0..n).map(|i| (i % 100) as f32 * 0.5).collect();
    let want: f64 = v.iter().map(|&x| x as f64).sum();
    let sum = r#"graph(%x : Tensor):
  %n : NoneType = prim::Constant()
  %r : Tensor = aten::sum(%x, %n)
  return (%r)"#;
    let got = out(&exec(sum, vec![t(v.clone(), &[n as i64])]).unwrap()[0]).2[0];
    assert!((got - want).abs() <= 1e-6 * want);
    let amax = r#"graph(%x : Tensor):
  %d : int[] = prim::Constant[value=[0]]()
  %k : bool = prim::Constant[value=0]()
  %r : Tensor = aten::amax(%x, %d, %k)
  return (%r)"#;
    assert_eq!(
        out(&exec(amax, vec![t(v.clone(), &[n as i64])]).unwrap()[0]).2,
        vec![49.5]
    );
    v[n - 1] = f32::NAN;
    assert!(out(&exec(amax, vec![t(v, &[n as i64])]).unwrap()[0]).2[0].is_nan());
}

/// The vectorized last-dim softmax on rows with a NaN, a +inf, only -infs, and lengths
/// below, at and past its sixteen lanes: NaN where PyTorch gives NaN, the general path's
/// values elsewhere.
#[test]
fn softmax_fast_path_handles_special_values() {
    let g = |op: &str, dim: i64| {
        format!(
            r#"graph(%x : Tensor):
  %d : int = prim::Constant[value={dim}]()
  %n : NoneType = prim::Constant()
  %r : Tensor = aten::{op}(%x, %d, %n)
  return (%r)"#
        )
    };
    for cols in [3usize, 16, 37] {
        let mut v: Vec<f32> = (0..5 * cols).map(|i| (i % 11) as f32 * 0.7 - 3.0).collect();
        v[cols + 1] = f32::NAN;
        v[2 * cols + 2] = f32::INFINITY;
        v[3 * cols..4 * cols].fill(f32::NEG_INFINITY);
        let x = Tensor::from_vec(v, &[5, cols as i64]).unwrap();
        for op in ["softmax", "log_softmax"] {
            let fast = out(&exec(&g(op, 1), vec![IValue::Tensor(x.clone())]).unwrap()[0]).2;
            let xt = x.t().unwrap().contiguous().unwrap();
            let slow = exec(&g(op, 0), vec![IValue::Tensor(xt)]).unwrap();
            let slow = slow[0].as_tensor().unwrap().t().unwrap().to_vec::<f64>();
            for (i, (a, b)) in fast.iter().zip(&slow).enumerate() {
                let row = i / cols;
                if (1..=3).contains(&row) {
                    assert!(a.is_nan() && b.is_nan(), "{op} {cols} [{i}]: {a} vs {b}");
                } else {
                    assert!(
                        (a - b).abs() <= 1e-5 * b.abs().max(1.0),
                        "{op} [{i}]: {a} vs {b}"
                    );
                }
            }
        }
    }
}

/// The AVX2 and AVX-512 loops of the whole-run sum and max/min give the scalar loops' bits,
/// over run lengths around the lane counts, NaN in the vector part and in the tail, signed
/// zeros.
#[test]
fn vector_reductions_match_scalar_loops() {
    use super::minmax::lane_extreme_on;
    use super::sum_mean::{lane_sum_on, lane_sums_on};
    use crate::ops::cpu::{hardware, Isa};
    let data: Vec<f32> = (0..10_007)
        .map(|i| ((i * 7919 % 1013) as f32 - 506.0) * 1.37e-3 + if i % 97 == 0 { 1e6 } else { 0.0 })
        .collect();
    let wide: Vec<f64> = data.iter().map(|&v| v as f64 * 1.000_000_1).collect();
    let zeros: Vec<f32> = (0..200)
        .map(|i| if i % 3 == 0 { -0.0 } else { 0.0 })
        .collect();
    let scalar = Isa::Baseline;
    let levels = [Isa::Avx2, Isa::Avx512]
        .into_iter()
        .filter(|&l| l <= hardware());
    for level in levels {
        for n in [
            1, 2, 31, 32, 33, 49, 63, 64, 65, 127, 128, 129, 1000, 10_007,
        ] {
            let (s, w) = (&data[..n], &wide[..n]);
            let sum = lane_sum_on(s, level).to_bits();
            assert_eq!(sum, lane_sum_on(s, scalar).to_bits(), "sum {n} {level:?}");
            let wide_sum = lane_sum_on(w, level).to_bits();
            assert_eq!(
                wide_sum,
                lane_sum_on(w, scalar).to_bits(),
                "f64 {n} {level:?}"
            );
            for is_max in [true, false] {
                let v = lane_extreme_on(s, is_max, level).to_bits();
                let expected = lane_extreme_on(s, is_max, scalar).to_bits();
                assert_eq!(v, expected, "extreme {n} {is_max} {level:?}");
            }
        }
        // Runs summed one after another (global pooling's planes): each run's bits as
        // the scalar loop gives them, a partial last run left out.
        for len in [1, 7, 49, 196, 3136] {
            let mut got = Vec::new();
            lane_sums_on(&data, len, level, |i, v| got.push((i, v.to_bits())));
            let want: Vec<(usize, u64)> = data
                .chunks_exact(len)
                .map(|run| lane_sum_on(run, scalar).to_bits())
                .enumerate()
                .collect();
            assert_eq!(got, want, "runs of {len} {level:?}");
            let mut wide_got = Vec::new();
            lane_sums_on(&wide, len, level, |_, v| wide_got.push(v.to_bits()));
            let wide_want: Vec<u64> = wide
                .chunks_exact(len)
                .map(|run| lane_sum_on(run, scalar).to_bits())
                .collect();
            assert_eq!(wide_got, wide_want, "f64 runs of {len} {level:?}");
        }
        for is_max in [true, false] {
            let v = lane_extreme_on(&zeros, is_max, level).to_bits();
            let expected = lane_extreme_on(&zeros, is_max, scalar).to_bits();
            assert_eq!(v, expected, "zeros {is_max} {level:?}");
        }
        for at in [5, 70, 150, 199] {
            let mut s = data[..200].to_vec();
            s[at] = f32::NAN;
            assert!(lane_sum_on(&s, level).is_nan(), "sum NaN at {at} {level:?}");
            for is_max in [true, false] {
                let v = lane_extreme_on(&s, is_max, level);
                assert!(v.is_nan(), "extreme NaN at {at} {is_max} {level:?}");
            }
        }
    }
}
