//! Throughput of the matrix product and a ResNet-18 convolution, for comparison with PyTorch
//! eager on the same cores (tools/bench/linalg_torch.py prints the same lines).
//!
//!     cargo run --release -p ember-runtime --example bench_linalg [conv]
//!
//! `RAYON_NUM_THREADS=1` times one core (the load-robust comparison).

use std::time::Instant;

use ember_runtime::ops::linalg::products::{linear, mm};
use ember_runtime::ops::nn::conv::{convolution, ConvParams};
use ember_runtime::tensor::Tensor;

fn filled(sizes: &[i64]) -> Tensor {
    let n: i64 = sizes.iter().product();
    let data: Vec<f32> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f32 / 1000.0 - 0.5)
        .collect();
    Tensor::from_vec(data, sizes).unwrap()
}

/// Best time of `reps` runs after a warm-up, in seconds. `BENCH_COLD=MIB` writes that many
/// MiB before each run, so the operands come from memory as a model's weights do (a model's
/// weights outgrow the caches; a kernel run again and again keeps its own in them).
fn best(reps: usize, mut f: impl FnMut()) -> f64 {
    let cold_mib: usize = std::env::var("BENCH_COLD").map_or(0, |v| v.parse().unwrap_or(0));
    let mut sweep = vec![0u8; cold_mib << 20];
    f();
    (0..reps)
        .map(|r| {
            sweep.fill(r as u8);
            std::hint::black_box(&sweep);
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    benchmarks();
}

fn benchmarks() {
    // `bench_linalg conv` times the convolutions only, `bench_linalg linear` the linear layers.
    // `bench_linalg depthwise` the depthwise ones.
    let conv_only = std::env::args().nth(1).as_deref() == Some("conv");
    let depthwise_only = std::env::args().nth(1).as_deref() == Some("depthwise");
    if std::env::args().nth(1).as_deref() == Some("linear") {
        for (m, k, n) in LINEARS {
            let (x, w, b) = (filled(&[m, k]), filled(&[n, k]), filled(&[n]));
            let t = best(200, || {
                linear(&x, &w, Some(&b)).unwrap();
            });
            let gflops = 2.0 * (m * k * n) as f64 / t / 1e9;
            println!(
                "linear {m}x{k} -> {n}: {:.2} us, {gflops:.1} GFLOP/s",
                t * 1e6
            );
        }
        return;
    }
    for n in [512i64, 2048]
        .into_iter()
        .filter(|_| !conv_only && !depthwise_only)
    {
        let (a, b) = (filled(&[n, n]), filled(&[n, n]));
        let reps = if n > 1000 { 3 } else { 20 };
        let t = best(reps, || {
            mm(&a, &b).unwrap();
        });
        let gflops = 2.0 * (n * n * n) as f64 / t / 1e9;
        println!("matmul {n}^3: {:.3} ms, {gflops:.1} GFLOP/s", t * 1e3);
    }
    // The GEMM inside the first convolution below (weights @ im2col columns).
    for (m, k, n) in [(64i64, 576i64, 3136i64), (3136, 576, 64)]
        .into_iter()
        .filter(|_| !conv_only && !depthwise_only)
    {
        let (a, b) = (filled(&[m, k]), filled(&[k, n]));
        let t = best(20, || {
            mm(&a, &b).unwrap();
        });
        let gflops = 2.0 * (m * n * k) as f64 / t / 1e9;
        println!(
            "matmul {m}x{k} @ {k}x{n}: {:.3} ms, {gflops:.1} GFLOP/s",
            t * 1e3
        );
    }
    // ResNet-18's convolutions: (in channels, spatial size, out channels, kernel, stride,
    // padding); the first four are BENCHMARKS.md's original rows.
    // BENCH_SHAPE=CxHWxOxKxSTRIDE (convolutions, any shape) or CxHW (depthwise, listed ones):
    // that shape only;
    // BENCH_REPS=N runs of each (for perf record).
    let only = std::env::var("BENCH_SHAPE").ok();
    let reps_set: Option<usize> = std::env::var("BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok());
    let reps = reps_set.unwrap_or(20);
    // A BENCH_SHAPE of five sizes that is not in the list is timed too (padding k / 2).
    let extra = only.as_ref().and_then(|o| {
        let v: Vec<i64> = o
            .split('x')
            .map(|d| d.parse().ok())
            .collect::<Option<_>>()?;
        let known = CONVS.iter().any(|c| [c.0, c.1, c.2, c.3, c.4] == v[..]);
        (v.len() == 5 && !known).then(|| (v[0], v[1], v[2], v[3], v[4], v[3] / 2))
    });
    for (c, hw, oc, k, stride, pad) in CONVS.into_iter().chain(extra).filter(|_| !depthwise_only) {
        if only
            .as_ref()
            .is_some_and(|o| *o != format!("{c}x{hw}x{oc}x{k}x{stride}"))
        {
            continue;
        }
        let x = filled(&[1, c, hw, hw]);
        let w = filled(&[oc, c, k, k]);
        // As a graph node with constant weights: transformed weights kept across calls
        // (BENCH_DIRECT=1: weights that are not constant, so no Winograd).
        let mut p = ConvParams::new(vec![stride], vec![pad], vec![1], 1);
        p.weights = std::env::var_os("BENCH_DIRECT")
            .is_none_or(|v| v.is_empty())
            .then(Default::default);
        let t = best(reps, || {
            convolution(&x, &w, None, &p).unwrap();
        });
        let out = (hw + 2 * pad - k) / stride + 1;
        let flops = 2.0 * (oc * out * out * c * k * k) as f64;
        println!(
            "conv2d 1x{c}x{hw}x{hw} * {oc}x{c}x{k}x{k} stride {stride} pad {pad}: {:.3} ms, {:.1} GFLOP/s",
            t * 1e3,
            flops / t / 1e9
        );
    }
    let depthwise_reps = reps_set.unwrap_or(50);
    for (c, hw, k, stride) in DWCONVS {
        if only.as_ref().is_some_and(|o| *o != format!("{c}x{hw}")) {
            continue;
        }
        let x = filled(&[1, c, hw, hw]);
        let w = filled(&[c, 1, k, k]);
        let pad = k / 2;
        let p = ConvParams::new(vec![stride], vec![pad], vec![1], c);
        let t = best(depthwise_reps, || {
            convolution(&x, &w, None, &p).unwrap();
        });
        let out = (hw + 2 * pad - k) / stride + 1;
        let flops = 2.0 * (c * out * out * k * k) as f64;
        println!(
            "depthwise 1x{c}x{hw}x{hw} {k}x{k} stride {stride}: {:.3} ms, {:.1} GFLOP/s",
            t * 1e3,
            flops / t / 1e9
        );
    }
}

/// Linear layers (rows, in features, out features): the MLP at batch 1 and a transformer
/// encoder layer (d 256, seq 64, feed-forward 1024).
const LINEARS: [(i64, i64, i64); 7] = [
    (1, 784, 512),
    (1, 512, 512),
    (1, 512, 10),
    (64, 256, 768),
    (64, 256, 256),
    (64, 256, 1024),
    (64, 1024, 256),
];

/// Depthwise convolutions of MobileNetV3-small and EfficientNet-B0: (channels, spatial
/// size, kernel, stride), padding kernel / 2.
const DWCONVS: [(i64, i64, i64, i64); 13] = [
    (16, 112, 3, 2),
    (72, 56, 3, 2),
    (88, 28, 3, 1),
    (96, 28, 5, 2),
    (240, 14, 5, 1),
    (576, 7, 5, 1),
    (32, 112, 3, 1),
    (144, 56, 3, 1),
    (240, 28, 5, 1),
    (480, 14, 3, 1),
    (1152, 7, 5, 1),
    (96, 112, 3, 2),
    (144, 56, 5, 2),
];

/// (in channels, spatial size, out channels, kernel, stride, padding).
const CONVS: [(i64, i64, i64, i64, i64, i64); 28] = [
    (64, 56, 64, 3, 1, 1),
    (128, 28, 128, 3, 1, 1),
    (256, 14, 256, 3, 1, 1),
    (64, 56, 128, 3, 2, 1),
    (3, 224, 64, 7, 2, 3),
    (64, 56, 128, 1, 2, 0),
    (128, 28, 256, 3, 2, 1),
    (128, 28, 256, 1, 2, 0),
    (256, 14, 512, 3, 2, 1),
    (256, 14, 512, 1, 2, 0),
    (512, 7, 512, 3, 1, 1),
    // ResNet-50's bottleneck 1x1 convolutions (a GEMM reading the input in place).
    (64, 56, 256, 1, 1, 0),
    (256, 56, 64, 1, 1, 0),
    (512, 28, 128, 1, 1, 0),
    (1024, 14, 256, 1, 1, 0),
    (2048, 7, 512, 1, 1, 0),
    // MobileNetV3-small's 1x1 convolutions (expand and project) on small planes.
    (16, 56, 72, 1, 1, 0),
    (72, 28, 24, 1, 1, 0),
    (24, 28, 88, 1, 1, 0),
    (40, 14, 240, 1, 1, 0),
    (240, 14, 40, 1, 1, 0),
    (48, 14, 288, 1, 1, 0),
    (96, 7, 576, 1, 1, 0),
    (576, 7, 96, 1, 1, 0),
    // Its squeeze-and-excitation layers: 1x1 convolutions of a 1x1 plane.
    (96, 1, 24, 1, 1, 0),
    (24, 1, 96, 1, 1, 0),
    (576, 1, 144, 1, 1, 0),
    (144, 1, 576, 1, 1, 0),
];
