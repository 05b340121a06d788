//! Time per call of the resampling operators real models spend time in (interpolation,
//! grid sampling, RoIAlign, NMS) through the interpreter, for comparison with PyTorch eager on
//! the same cores (tools/bench/resample_torch.py prints the same lines; tools/bench/resample.sh
//! runs both alternately and prints the ratios). Each case: the best of REPEATS calls after a
//! warm-up, in ms.
//!
//!     cargo run --release -p ember-runtime --example bench_resample [REPEATS]

use std::time::Instant;

use ember_dialects::parse::parse_graph;
use ember_runtime::interpreter::{run, Code};
use ember_runtime::ivalue::IValue;
use ember_runtime::tensor::Tensor;

/// (name, input shapes, body): the body reads `%a`, `%b`, ... and returns `%r`; the same
/// cases, in the same order, are in resample_torch.py.
const CASES: &[(&str, &[&[i64]], &str)] = &[
    (
        "upsample_nearest2d 1x256x50x50 -> 100x100",
        &[&[1, 256, 50, 50]],
        "%s : int[] = prim::Constant[value=[100, 100]]()\n  %n : NoneType = prim::Constant()\n  %r : Tensor = aten::upsample_nearest2d(%a, %s, %n, %n)",
    ),
    (
        "upsample_bilinear2d 1x21x16x16 -> 128x128",
        &[&[1, 21, 16, 16]],
        "%s : int[] = prim::Constant[value=[128, 128]]()\n  %f : bool = prim::Constant[value=0]()\n  %n : NoneType = prim::Constant()\n  %r : Tensor = aten::upsample_bilinear2d(%a, %s, %f, %n, %n)",
    ),
    (
        "upsample_bilinear2d 1x256x32x32 -> 64x64",
        &[&[1, 256, 32, 32]],
        "%s : int[] = prim::Constant[value=[64, 64]]()\n  %f : bool = prim::Constant[value=0]()\n  %n : NoneType = prim::Constant()\n  %r : Tensor = aten::upsample_bilinear2d(%a, %s, %f, %n, %n)",
    ),
    (
        "upsample_bicubic2d 1x3x224x224 -> 320x320",
        &[&[1, 3, 224, 224]],
        "%s : int[] = prim::Constant[value=[320, 320]]()\n  %f : bool = prim::Constant[value=0]()\n  %n : NoneType = prim::Constant()\n  %r : Tensor = aten::upsample_bicubic2d(%a, %s, %f, %n, %n)",
    ),
    (
        "_upsample_bilinear2d_aa 1x3x512x512 -> 224x224",
        &[&[1, 3, 512, 512]],
        "%s : int[] = prim::Constant[value=[224, 224]]()\n  %f : bool = prim::Constant[value=0]()\n  %n : NoneType = prim::Constant()\n  %r : Tensor = aten::_upsample_bilinear2d_aa(%a, %s, %f, %n, %n)",
    ),
    (
        "upsample_trilinear3d 1x16x8x28x28 -> 16x56x56",
        &[&[1, 16, 8, 28, 28]],
        "%s : int[] = prim::Constant[value=[16, 56, 56]]()\n  %f : bool = prim::Constant[value=0]()\n  %n : NoneType = prim::Constant()\n  %r : Tensor = aten::upsample_trilinear3d(%a, %s, %f, %n, %n, %n)",
    ),
    (
        "grid_sampler bilinear 1x64x64x64, grid 64x64",
        &[&[1, 64, 64, 64], &[1, 64, 64, 2]],
        "%z : int = prim::Constant[value=0]()\n  %f : bool = prim::Constant[value=0]()\n  %r : Tensor = aten::grid_sampler(%a, %b, %z, %z, %f)",
    ),
    (
        "grid_sampler nearest 1x64x64x64, grid 64x64",
        &[&[1, 64, 64, 64], &[1, 64, 64, 2]],
        "%z : int = prim::Constant[value=0]()\n  %o : int = prim::Constant[value=1]()\n  %f : bool = prim::Constant[value=0]()\n  %r : Tensor = aten::grid_sampler(%a, %b, %o, %z, %f)",
    ),
    (
        "roi_align 1x256x50x50, 512 rois, 7x7, sampling 2",
        &[&[1, 256, 50, 50], &[512, 5]],
        "%sc : float = prim::Constant[value=0.25]()\n  %p : int = prim::Constant[value=7]()\n  %sr : int = prim::Constant[value=2]()\n  %f : bool = prim::Constant[value=0]()\n  %r : Tensor = torchvision::roi_align(%a, %b, %sc, %p, %p, %sr, %f)",
    ),
    (
        "nms 2000 boxes, iou 0.7",
        &[&[2000, 4], &[2000]],
        "%t : float = prim::Constant[value=0.69999999999999996]()\n  %r : Tensor = torchvision::nms(%a, %b, %t)",
    ),
];

/// Deterministic inputs: grid coordinates in [-1.1, 1.1], regions and boxes inside a
/// 200x200 image, everything else in [-0.5, 0.5).
fn input(case: &str, k: usize, sizes: &[i64]) -> Tensor {
    let n: i64 = sizes.iter().product();
    let u = |i: i64, salt: i64| (((i + salt) * 7919) % 1000) as f32 / 1000.0;
    let data: Vec<f32> = (0..n)
        .map(|i| {
            if case.starts_with("grid") && k == 1 {
                u(i, 3) * 2.2 - 1.1
            } else if case.starts_with("roi") && k == 1 {
                match i % 5 {
                    0 => 0.0,
                    1 | 2 => u(i, 1) * 150.0,
                    _ => u(i - 2, 1) * 150.0 + 5.0 + u(i, 7) * 40.0,
                }
            } else if case.starts_with("nms") && k == 0 {
                match i % 4 {
                    0 | 1 => u(i, 1) * 180.0,
                    _ => u(i - 2, 1) * 180.0 + 4.0 + u(i, 5) * 30.0,
                }
            } else {
                u(i, k as i64) - 0.5
            }
        })
        .collect();
    Tensor::from_vec(data, sizes).unwrap()
}

fn main() {
    let repeats: usize = std::env::args()
        .nth(1)
        .map_or(20, |s| s.parse().expect("REPEATS"));
    {
        for (name, shapes, body) in CASES {
            let params: Vec<String> = (0..shapes.len())
                .map(|k| format!("%{} : Tensor", (b'a' + k as u8) as char))
                .collect();
            let text = format!("graph({}):\n  {body}\n  return (%r)\n", params.join(", "));
            let graph = parse_graph(&text).expect("graph");
            let code = Code::new(&graph).expect("code");
            let inputs: Vec<IValue> = shapes
                .iter()
                .enumerate()
                .map(|(k, s)| IValue::Tensor(input(name, k, s)))
                .collect();
            run(&code, inputs.clone()).expect("run");
            let best = (0..repeats)
                .map(|_| {
                    let t = Instant::now();
                    run(&code, inputs.clone()).expect("run");
                    t.elapsed().as_secs_f64()
                })
                .fold(f64::INFINITY, f64::min);
            println!("{name}: {:.3} ms", best * 1e3);
        }
    };
}
