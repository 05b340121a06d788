//! Throughput of the float32 pointwise fast path against the generic elementwise engine:
//! `cargo run --release -p ember-runtime --example pointwise_bench [threads]`.
//! Each op runs through the interpreter (as a model would) on contiguous float32 tensors;
//! the engine column computes the same op with `elementwise::map` (f64 opmath, one thread).
//! gelu and silu take the general typed path (f64 math per element), the others their own
//! float32 loops.

use std::time::Instant;

use ember_dialects::parse::parse_graph;
use ember_runtime::interpreter::{run, Code};
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::elementwise::{map, Arg, Compute, Target};
use ember_runtime::tensor::{DType, Tensor};

/// Median nanoseconds of one call of `f`, over enough calls to last ~0.2 s.
fn time(mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    let mut calls = 0u64;
    while start.elapsed().as_secs_f64() < 0.05 {
        f();
        calls += 1;
    }
    let per = start.elapsed().as_secs_f64() / calls as f64;
    let reps = ((0.2 / per) as usize).clamp(3, 2000);
    let mut samples: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1e9
        })
        .collect();
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[samples.len() / 2]
}

fn main() {
    if let Some(t) = std::env::args().nth(1) {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t.parse().unwrap())
            .build_global()
            .unwrap();
    }
    type Binary = (&'static str, fn(f64, f64) -> f64);
    type Unary = (&'static str, fn(f64) -> f64);
    let binary: [Binary; 4] = [
        ("add", |a, b| a + b),
        ("sub", |a, b| a - b),
        ("mul", |a, b| a * b),
        ("div", |a, b| a / b),
    ];
    let unary: [Unary; 6] = [
        ("relu", |a| a.max(0.0)),
        ("exp", f64::exp),
        ("tanh", f64::tanh),
        ("sigmoid", |a| 1.0 / (1.0 + (-a).exp())),
        ("gelu", |a| {
            0.5 * a * (1.0 + libm::erf(a * std::f64::consts::FRAC_1_SQRT_2))
        }),
        ("silu", |a| a / (1.0 + (-a).exp())),
    ];
    println!(
        "{:>9} {:>8} {:>14} {:>14} {:>9}",
        "elements", "op", "engine ns", "fast ns", "speedup"
    );
    for n in [1usize, 1 << 10, 1 << 16, 1 << 20, 1 << 22] {
        let a: Vec<f32> = (0..n).map(|i| (i % 97) as f32 * 0.03 - 1.0).collect();
        let b: Vec<f32> = (0..n).map(|i| (i % 89) as f32 * 0.02 + 0.5).collect();
        let x = Tensor::from_vec(a, &[n as i64]).unwrap();
        let y = Tensor::from_vec(b, &[n as i64]).unwrap();
        for (op, f) in binary {
            let alpha = if op == "add" || op == "sub" {
                ", %one"
            } else {
                ""
            };
            let src = format!(
                "graph(%x : Tensor, %y : Tensor):\n  %one : int = prim::Constant[value=1]()\n  %r : Tensor = aten::{op}(%x, %y{alpha})\n  return (%r)\n"
            );
            let code = Code::new(&parse_graph(&src).unwrap()).unwrap();
            let fast = time(|| {
                run(
                    &code,
                    vec![IValue::Tensor(x.clone()), IValue::Tensor(y.clone())],
                )
                .unwrap();
            });
            let g = move |v: &[f64]| f(v[0], v[1]);
            let engine = time(|| {
                map(
                    &[Arg::Tensor(x.clone()), Arg::Tensor(y.clone())],
                    Compute::Float(&g),
                    Target::New(DType::F32),
                )
                .unwrap();
            });
            println!(
                "{n:>9} {op:>8} {engine:>14.0} {fast:>14.0} {:>8.1}x",
                engine / fast
            );
        }
        for (op, f) in unary {
            // gelu's `approximate` argument is a constant input.
            let extra = if op == "gelu" { ", %none" } else { "" };
            let src = format!(
                "graph(%x : Tensor):\n  %none : str = prim::Constant[value=\"none\"]()\n  %r : Tensor = aten::{op}(%x{extra})\n  return (%r)\n"
            );
            let code = Code::new(&parse_graph(&src).unwrap()).unwrap();
            let fast = time(|| {
                run(&code, vec![IValue::Tensor(x.clone())]).unwrap();
            });
            let g = move |v: &[f64]| f(v[0]);
            let engine = time(|| {
                map(
                    &[Arg::Tensor(x.clone())],
                    Compute::Float(&g),
                    Target::New(DType::F32),
                )
                .unwrap();
            });
            println!(
                "{n:>9} {op:>8} {engine:>14.0} {fast:>14.0} {:>8.1}x",
                engine / fast
            );
        }
    }
}
