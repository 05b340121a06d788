//! Times kernels compiled by the JIT (`codegen::jit`) against the interpreter running the same
//! group op by op; tools/bench/jit_pointwise.sh runs it beside PyTorch eager
//! (tools/bench/jit_pointwise.py), alternating the two.
//!
//! ```text
//! jit_bench run lstm|chain4|softmax|layernorm CALLS   per call after warm-up: `jit_median_us jit_min_us interp_median_us interp_min_us`
//! jit_bench triad CALLS             a = b + 1.5 * c on 2^24 float32 (both threads): `best_GB/s`
//! jit_bench compile N               N distinct kernels: cold compile and disk-cache load,
//!                                   `cold_median_ms cold_max_ms cached_median_ms cached_max_ms`
//! ```
//! The CPU form is the host's unless `EMBER_CPU_FEATURES=avx2` (or `baseline`) caps it.

use std::path::PathBuf;
use std::time::Instant;

use ember_compiler::codegen::jit::{compile_group, JitTarget};
use ember_compiler::executor::kernel_cache::KernelCache;
use ember_dialects::parse::parse_graph;
use ember_dialects::Graph;
use ember_runtime::interpreter::{run, Code};
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::Tensor;
use rayon::prelude::*;

fn lstm_src() -> String {
    let t = "Float(64, 2048, strides=[2048, 1], requires_grad=0, device=cpu)";
    format!(
        "graph(%i : {t}, %f : {t}, %g : {t}, %o : {t}, %cx : {t}):
  %ig = aten::sigmoid(%i)
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
"
    )
}

/// Four elementwise ops, two inputs, one output: `relu(x * 1.5 + y) * x`.
fn chain_src(salt: usize) -> String {
    let t = "Float(16777216, strides=[1], requires_grad=0, device=cpu)";
    format!(
        "graph(%x : {t}, %y : {t}):
  %c : float = prim::Constant[value={}.5]()
  %one : int = prim::Constant[value=1]()
  %a = aten::mul(%x, %c)
  %b = aten::add(%a, %y, %one)
  %r = aten::relu(%b)
  %m = aten::mul(%r, %x)
  return (%m)
",
        1 + salt
    )
}

/// Attention scores of one sequence of 128 tokens and 12 heads: `softmax(x * 0.125 + mask)`
/// over the last dimension (a reduction kernel: each row's maximum and sum, then the row).
fn softmax_src() -> String {
    let t = "Float(12, 128, 128, strides=[16384, 128, 1], requires_grad=0, device=cpu)";
    let m = "Float(1, 128, strides=[128, 1], requires_grad=0, device=cpu)";
    format!(
        "graph(%x : {t}, %mask : {m}):
  %c : float = prim::Constant[value=0.125]()
  %one : int = prim::Constant[value=1]()
  %last : int = prim::Constant[value=-1]()
  %none : NoneType = prim::Constant()
  %a = aten::mul(%x, %c)
  %b = aten::add(%a, %mask, %one)
  %r = aten::softmax(%b, %last, %none)
  return (%r)
"
    )
}

/// A transformer's residual add and layer norm, 128 tokens of 768 (BERT-base):
/// `layer_norm(x + r, [768], w, b)` (a kernel reducing rows twice: mean, then variance).
fn layernorm_src() -> String {
    let t = "Float(128, 768, strides=[768, 1], requires_grad=0, device=cpu)";
    let w = "Float(768, strides=[1], requires_grad=0, device=cpu)";
    format!(
        "graph(%x : {t}, %r : {t}, %w : {w}, %b : {w}):
  %one : int = prim::Constant[value=1]()
  %true : bool = prim::Constant[value=1]()
  %n : int = prim::Constant[value=768]()
  %shape : int[] = prim::ListConstruct(%n)
  %eps : float = prim::Constant[value=9.9999999999999998e-13]()
  %s = aten::add(%x, %r, %one)
  %y = aten::layer_norm(%s, %shape, %w, %b, %eps, %true)
  return (%y)
"
    )
}

fn parse(src: &str) -> Graph {
    parse_graph(src).expect("benchmark graph parses")
}

/// Deterministic inputs in [-2, 2].
fn inputs(n: usize, shape: &[i64]) -> Vec<IValue> {
    let numel: i64 = shape.iter().product();
    (0..n)
        .map(|k| {
            let v: Vec<f32> = (0..numel)
                .map(|i| ((i * 7919 + k as i64 * 104729) % 4001) as f32 / 1000.0 - 2.0)
                .collect();
            IValue::Tensor(Tensor::from_vec(v, shape).unwrap())
        })
        .collect()
}

fn median_min(mut t: Vec<f64>) -> (f64, f64) {
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], t[0])
}

fn time_calls(calls: usize, mut f: impl FnMut()) -> (f64, f64) {
    for _ in 0..3 {
        f();
    }
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let start = Instant::now();
        f();
        times.push(start.elapsed().as_secs_f64() * 1e6);
    }
    median_min(times)
}

fn run_case(case: &str, calls: usize) -> Result<String, String> {
    let (src, ins) = match case {
        "lstm" => (lstm_src(), inputs(5, &[64, 2048])),
        "chain4" => (chain_src(0), inputs(2, &[1 << 24])),
        "softmax" => {
            let mut ins = inputs(1, &[12, 128, 128]);
            ins.extend(inputs(1, &[1, 128]));
            (softmax_src(), ins)
        }
        "layernorm" => {
            let mut ins = inputs(2, &[128, 768]);
            ins.extend(inputs(2, &[768]));
            (layernorm_src(), ins)
        }
        _ => return Err(format!("unknown case {case}")),
    };
    let g = parse(&src);
    let group = compile_group(&g).map_err(|e| e.to_string())?;
    let code = Code::new(&g).map_err(|e| e.message)?;
    // Both sides run on the kernel pool, as ember-run runs a program. `EMBER_BENCH_SIDE=jit`
    // or `interp` times one side only (for perf).
    let side = std::env::var("EMBER_BENCH_SIDE").unwrap_or_default();
    let calls_for = |s: &str| {
        if side.is_empty() || side == s {
            calls
        } else {
            1
        }
    };
    let (jm, jn) = {
        time_calls(calls_for("jit"), || {
            std::hint::black_box(group.run(&ins).unwrap());
        })
    };
    let (im, imin) = {
        time_calls(calls_for("interp"), || {
            std::hint::black_box(run(&code, ins.clone()).unwrap());
        })
    };
    Ok(format!("{jm:.1}\t{jn:.1}\t{im:.1}\t{imin:.1}"))
}

fn triad(calls: usize) -> String {
    let n = 1usize << 24;
    let b: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let c: Vec<f32> = (0..n).map(|i| (n - i) as f32).collect();
    let mut a = vec![0f32; n];
    let chunk = 1 << 16;
    let mut best = f64::MAX;
    rayon::scope(|_| {
        for r in 0..calls + 3 {
            let start = Instant::now();
            a.par_chunks_mut(chunk)
                .zip(b.par_chunks(chunk))
                .zip(c.par_chunks(chunk))
                .for_each(|((a, b), c)| {
                    for i in 0..a.len() {
                        a[i] = b[i] + 1.5 * c[i];
                    }
                });
            if r >= 3 {
                best = best.min(start.elapsed().as_secs_f64());
            }
        }
    });
    std::hint::black_box(&a);
    format!("{:.2}", 3.0 * 4.0 * n as f64 / best / 1e9)
}

fn compile_times(n: usize) -> Result<String, String> {
    let dir = std::env::temp_dir().join(format!("ember-jit-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let cache = KernelCache::new(Some(dir.clone()));
    let mut cold = Vec::new();
    for salt in 0..n {
        let g = parse(&kernel_variant(salt));
        let start = Instant::now();
        cache.get(&g).map_err(|e| e.to_string())?;
        cold.push(start.elapsed().as_secs_f64() * 1e3);
    }
    // Disk-cache loads in a fresh process (this one has the kernels linked already).
    let out = std::process::Command::new(std::env::current_exe().map_err(|e| e.to_string())?)
        .args(["warm", &dir.to_string_lossy(), &n.to_string()])
        .output()
        .map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&dir);
    let warm = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if !out.status.success() {
        return Err(format!(
            "warm child: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    cold.sort_by(f64::total_cmp);
    Ok(format!("{:.2}\t{:.2}\t{warm}", cold[n / 2], cold[n - 1]))
}

/// The kernels timed for compilation: the LSTM cell and chains that differ in a constant.
fn kernel_variant(salt: usize) -> String {
    if salt == 0 {
        lstm_src()
    } else {
        chain_src(salt)
    }
}

fn warm_times(dir: &str, n: usize) -> Result<String, String> {
    let cache = KernelCache::new(Some(PathBuf::from(dir)));
    // Start LLVM's JIT first: a process pays that once, not per kernel.
    ember_compiler::codegen::jit::orc::load("ember_bench_nothing", &[]).ok();
    let _ = JitTarget::current();
    let mut warm = Vec::new();
    for salt in 0..n {
        let g = parse(&kernel_variant(salt));
        let start = Instant::now();
        cache.get(&g).map_err(|e| e.to_string())?;
        warm.push(start.elapsed().as_secs_f64() * 1e3);
    }
    if cache.stats().compiled != 0 {
        return Err("the warm process compiled a kernel".into());
    }
    warm.sort_by(f64::total_cmp);
    Ok(format!("{:.3}\t{:.3}", warm[n / 2], warm[n - 1]))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count = |i: usize| -> usize { args.get(i).and_then(|s| s.parse().ok()).unwrap_or(20) };
    let result = match args.first().map(String::as_str) {
        Some("run") => run_case(args.get(1).map_or("", String::as_str), count(2)),
        Some("triad") => Ok(triad(count(1))),
        Some("compile") => compile_times(count(1)),
        Some("warm") => warm_times(args.get(1).map_or("", String::as_str), count(2)),
        _ => Err(
            "usage: jit_bench run lstm|chain4|softmax|layernorm CALLS | triad CALLS | compile N"
                .into(),
        ),
    };
    match result {
        Ok(line) => println!("{line}"),
        Err(e) => {
            println!("error: {e}");
            std::process::exit(1);
        }
    }
}
