//! Throughput of large float32 pointwise ops and reductions through the interpreter, for
//! comparison with PyTorch eager on the same cores (tools/bench/throughput_torch.py prints the
//! same lines; tools/bench/throughput.sh runs both alternately and prints the ratios).
//! Each op: the median of REPEATS calls after a warm-up pass over all ops, in ms.
//!
//!     cargo run --release -p ember-runtime --example throughput [REPEATS] [OP...] [2^K...]
//!
//! Naming ops (`gelu softmax`) or sizes (`2^20`) times only those.

use std::time::Instant;

use ember_dialects::parse::parse_graph;
use ember_runtime::interpreter::{run, Code};
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::Tensor;

/// (name, body): the body reads `%x` and `%y` (float32, `[n / 1024, 1024]`) and returns `%r`;
/// the same list, in the same order, is in throughput_torch.py.
const OPS: &[(&str, &str)] = &[
    ("add", "%one : int = prim::Constant[value=1]()\n  %r : Tensor = aten::add(%x, %y, %one)"),
    ("mul", "%r : Tensor = aten::mul(%x, %y)"),
    ("relu", "%r : Tensor = aten::relu(%x)"),
    ("exp", "%r : Tensor = aten::exp(%x)"),
    ("sigmoid", "%r : Tensor = aten::sigmoid(%x)"),
    ("tanh", "%r : Tensor = aten::tanh(%x)"),
    (
        "gelu",
        "%a : str = prim::Constant[value=\"none\"]()\n  %r : Tensor = aten::gelu(%x, %a)",
    ),
    ("sum", "%none : NoneType = prim::Constant()\n  %r : Tensor = aten::sum(%x, %none)"),
    ("mean", "%none : NoneType = prim::Constant()\n  %r : Tensor = aten::mean(%x, %none)"),
    (
        "amax",
        "%d : int[] = prim::ListConstruct()\n  %k : bool = prim::Constant[value=0]()\n  %r : Tensor = aten::amax(%x, %d, %k)",
    ),
    ("var", "%t : bool = prim::Constant[value=1]()\n  %r : Tensor = aten::var(%x, %t)"),
    (
        "softmax",
        "%none : NoneType = prim::Constant()\n  %m1 : int = prim::Constant[value=-1]()\n  %r : Tensor = aten::softmax(%x, %m1, %none)",
    ),
];

fn filled(n: usize, scale: f32, shift: f32) -> Tensor {
    let data: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 1000.0 * scale + shift)
        .collect();
    Tensor::from_vec(data, &[(n / 1024) as i64, 1024]).unwrap()
}

fn main() {
    let repeats: usize = std::env::args()
        .nth(1)
        .map_or(11, |s| s.parse().expect("REPEATS"));
    let (sizes, only): (Vec<String>, Vec<String>) =
        std::env::args().skip(2).partition(|a| a.starts_with("2^"));
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build_global()
        .unwrap();
    timed(repeats, &sizes, &only);
}

fn timed(repeats: usize, sizes: &[String], only: &[String]) {
    for log2 in [20u32, 24]
        .into_iter()
        .filter(|k| sizes.is_empty() || sizes.contains(&format!("2^{k}")))
    {
        let n = 1usize << log2;
        let (x, y) = (filled(n, 8.0, -4.0), filled(n, 1.0, 0.5));
        // One untimed pass over every op first, so the allocator has settled (fresh
        // multi-megabyte outputs would otherwise page-fault for whichever op comes first).
        for pass in ["warm-up", "timed"] {
            for (name, body) in OPS
                .iter()
                .filter(|(name, _)| only.is_empty() || only.iter().any(|o| o == name))
            {
                let src = format!("graph(%x : Tensor, %y : Tensor):\n  {body}\n  return (%r)\n");
                let graph = parse_graph(&src).unwrap_or_else(|e| panic!("{name}: {e:?}"));
                let code = Code::new(&graph).unwrap_or_else(|e| panic!("{name}: {e:?}"));
                let call = || {
                    let t = Instant::now();
                    let out = run(
                        &code,
                        vec![IValue::Tensor(x.clone()), IValue::Tensor(y.clone())],
                    )
                    .unwrap();
                    let ms = t.elapsed().as_secs_f64() * 1e3;
                    drop(out);
                    ms
                };
                call();
                if pass == "warm-up" {
                    continue;
                }
                let mut samples: Vec<f64> = (0..repeats).map(|_| call()).collect();
                samples.sort_by(|a, b| a.total_cmp(b));
                println!("2^{log2} {name} {:.4}", samples[samples.len() / 2]);
            }
        }
    }
}
