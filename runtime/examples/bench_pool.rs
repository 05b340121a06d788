//! Pooling layers of the model benchmarks through the interpreter, each a one-node graph as
//! `torch.jit.script` prints it: best time of N calls (default 300), on the threads
//! `RAYON_NUM_THREADS` allows.
//!
//!     cargo run --release -p ember-runtime --example bench_pool [N]

use std::time::Instant;

use ember_dialects::parse::parse_graph;
use ember_runtime::interpreter::{run, Code};
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::Tensor;

/// (what, input sizes, body reading `%x` and returning `%r`).
const POOLS: &[(&str, [i64; 4], &str)] = &[
    (
        "max_pool2d 3x3 stride 2 pad 1 (ResNet)",
        [1, 64, 112, 112],
        "%k : int[] = prim::Constant[value=[3, 3]]()
  %s : int[] = prim::Constant[value=[2, 2]]()
  %p : int[] = prim::Constant[value=[1, 1]]()
  %d : int[] = prim::Constant[value=[1, 1]]()
  %f : bool = prim::Constant[value=0]()
  %r : Tensor = aten::max_pool2d(%x, %k, %s, %p, %d, %f)",
    ),
    (
        "adaptive_avg_pool2d 1x1 (MobileNetV3 SE)",
        [1, 576, 7, 7],
        GLOBAL,
    ),
    (
        "adaptive_avg_pool2d 1x1 (EfficientNet head)",
        [1, 1280, 7, 7],
        GLOBAL,
    ),
    (
        "adaptive_avg_pool2d 1x1 (56x56 SE)",
        [1, 16, 56, 56],
        GLOBAL,
    ),
];

const GLOBAL: &str = "%o : int[] = prim::Constant[value=[1, 1]]()
  %r : Tensor = aten::adaptive_avg_pool2d(%x, %o)";

fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    for (what, sizes, body) in POOLS {
        let text = format!("graph(%x : Tensor):\n  {body}\n  return (%r)\n");
        let code = Code::new(&parse_graph(&text).expect("the graph parses")).expect("it compiles");
        let n: i64 = sizes.iter().product();
        let data: Vec<f32> = (0..n)
            .map(|i| ((i * 7919) % 1000) as f32 / 1000.0 - 0.5)
            .collect();
        let x = IValue::Tensor(Tensor::from_vec(data, sizes).expect("sizes match"));
        let mut best = f64::INFINITY;
        for _ in 0..calls {
            let t = Instant::now();
            std::hint::black_box(run(&code, vec![x.clone()]).expect("the op runs"));
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!("{what} {sizes:?}: {:.2} us", best * 1e6);
    }
}
