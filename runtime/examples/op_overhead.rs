//! Per-op cost on 1-element tensors, through the interpreter: each op is a one-node graph
//! (as `torch.jit.script` prints it) run N times; the median over repeats of ns per call.
//! tools/bench/op_overhead_torch.py times the same ops in PyTorch eager with the same N and
//! repeats; tools/bench/op_overhead.sh runs both alternately and prints the ratios.
//!
//!     cargo run --release -p ember-runtime --example op_overhead [N] [REPEATS]

use std::time::Instant;

use ember_dialects::parse::parse_graph;
use ember_runtime::interpreter::{run, Code};
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::Tensor;

/// (name, body): the body reads `%x`, `%y` (float32 `[1, 1]`) and `%c` (bool `[1, 1]`) and
/// returns `%r`; the same list, in the same order, is in op_overhead_torch.py.
const OPS: &[(&str, &str)] = &[
    ("add", "%one : int = prim::Constant[value=1]()\n  %r : Tensor = aten::add(%x, %y, %one)"),
    ("sub", "%one : int = prim::Constant[value=1]()\n  %r : Tensor = aten::sub(%x, %y, %one)"),
    ("mul", "%r : Tensor = aten::mul(%x, %y)"),
    ("div", "%r : Tensor = aten::div(%x, %y)"),
    (
        "add_scalar",
        "%one : int = prim::Constant[value=1]()\n  %s : float = prim::Constant[value=1.5]()\n  %r : Tensor = aten::add(%x, %s, %one)",
    ),
    ("relu", "%r : Tensor = aten::relu(%x)"),
    ("sigmoid", "%r : Tensor = aten::sigmoid(%x)"),
    ("tanh", "%r : Tensor = aten::tanh(%x)"),
    ("exp", "%r : Tensor = aten::exp(%x)"),
    ("neg", "%r : Tensor = aten::neg(%x)"),
    ("matmul", "%r : Tensor = aten::matmul(%x, %y)"),
    ("sum", "%none : NoneType = prim::Constant()\n  %r : Tensor = aten::sum(%x, %none)"),
    ("mean", "%none : NoneType = prim::Constant()\n  %r : Tensor = aten::mean(%x, %none)"),
    (
        "cat",
        "%zero : int = prim::Constant[value=0]()\n  %l : Tensor[] = prim::ListConstruct(%x, %y)\n  %r : Tensor = aten::cat(%l, %zero)",
    ),
    (
        "view",
        "%m1 : int = prim::Constant[value=-1]()\n  %s : int[] = prim::ListConstruct(%m1)\n  %r : Tensor = aten::view(%x, %s)",
    ),
    ("select", "%zero : int = prim::Constant[value=0]()\n  %r : Tensor = aten::select(%x, %zero, %zero)"),
    ("unsqueeze", "%zero : int = prim::Constant[value=0]()\n  %r : Tensor = aten::unsqueeze(%x, %zero)"),
    (
        "transpose",
        "%zero : int = prim::Constant[value=0]()\n  %one : int = prim::Constant[value=1]()\n  %r : Tensor = aten::transpose(%x, %zero, %one)",
    ),
    ("clone", "%none : NoneType = prim::Constant()\n  %r : Tensor = aten::clone(%x, %none)"),
    ("where", "%r : Tensor = aten::where(%c, %x, %y)"),
    ("gt", "%r : Tensor = aten::gt(%x, %y)"),
    (
        "to",
        "%none : NoneType = prim::Constant()\n  %f : bool = prim::Constant[value=0]()\n  %d : int = prim::Constant[value=7]()\n  %r : Tensor = aten::to(%x, %d, %f, %f, %none)",
    ),
    ("item", "%r : Scalar = aten::item(%x)"),
    (
        "softmax",
        "%none : NoneType = prim::Constant()\n  %m1 : int = prim::Constant[value=-1]()\n  %r : Tensor = aten::softmax(%x, %m1, %none)",
    ),
];

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().map_or(10_000, |s| s.parse().expect("N"));
    let repeats: usize = args.next().map_or(15, |s| s.parse().expect("REPEATS"));
    // The same two threads PyTorch gets (torch.set_num_threads(2)).
    rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build_global()
        .unwrap();
    let x = Tensor::from_vec(vec![0.5f32], &[1, 1]).unwrap();
    let y = Tensor::from_vec(vec![2.0f32], &[1, 1]).unwrap();
    let c = Tensor::from_vec(vec![true], &[1, 1]).unwrap();
    for (name, body) in OPS {
        let src =
            format!("graph(%x : Tensor, %y : Tensor, %c : Tensor):\n  {body}\n  return (%r)\n");
        let graph = parse_graph(&src).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let code = Code::new(&graph).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        let inputs = || {
            vec![
                IValue::Tensor(x.clone()),
                IValue::Tensor(y.clone()),
                IValue::Tensor(c.clone()),
            ]
        };
        let one_repeat = || {
            let t = Instant::now();
            for _ in 0..n {
                std::hint::black_box(run(&code, inputs()).unwrap());
            }
            t.elapsed().as_secs_f64() * 1e9 / n as f64
        };
        one_repeat(); // warm-up
        let mut samples: Vec<f64> = (0..repeats).map(|_| one_repeat()).collect();
        samples.sort_by(|a, b| a.total_cmp(b));
        println!("{name} {:.1}", samples[samples.len() / 2]);
    }
}
