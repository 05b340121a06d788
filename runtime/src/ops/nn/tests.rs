//! Checks of the nn kernels against direct definitions, at sizes large enough to take the
//! parallel paths (the differential cases are tiny).

use super::conv::{convolution, ConvParams};
use super::norm::{batch_norm, BatchNorm};
use super::pool::{avg_pool2d, max_pool2d_with_indices, AvgOptions, Pool2d};
use super::work::to_contiguous;
use crate::tensor::{DType, Tensor};

fn seq(s: &[i64]) -> Tensor {
    let n: i64 = s.iter().product();
    let v: Vec<f64> = (0..n)
        .map(|i| ((i * 37 + 11) % 23) as f64 / 7.0 - 1.5)
        .collect();
    Tensor::from_vec(v, s).unwrap()
}

fn seq32(s: &[i64]) -> Tensor {
    let n: i64 = s.iter().product();
    let v: Vec<f32> = (0..n)
        .map(|i| ((i * 37 + 11) % 23) as f32 / 7.0 - 1.5)
        .collect();
    Tensor::from_vec(v, s).unwrap()
}

fn close(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= 1e-9 * w.abs().max(1.0),
            "element {i}: {g} vs {w}"
        );
    }
}

struct Geo {
    stride: [i64; 2],
    pad: [i64; 2],
    dil: [i64; 2],
    groups: i64,
}

/// Convolution by its definition.
fn naive_conv(x: &Tensor, w: &Tensor, g: &Geo) -> (Vec<f64>, [i64; 4]) {
    let (xs, ws) = (x.sizes(), w.sizes());
    let (n, c, h, wd) = (xs[0], xs[1], xs[2], xs[3]);
    let (o, cg, kh, kw) = (ws[0], ws[1], ws[2], ws[3]);
    let ho = (h + 2 * g.pad[0] - g.dil[0] * (kh - 1) - 1) / g.stride[0] + 1;
    let wo = (wd + 2 * g.pad[1] - g.dil[1] * (kw - 1) - 1) / g.stride[1] + 1;
    let (xv, wv) = (x.to_vec::<f64>(), w.to_vec::<f64>());
    let og = o / g.groups;
    let mut out = vec![0.0; (n * o * ho * wo) as usize];
    for b in 0..n {
        for oc in 0..o {
            let grp = oc / og;
            for i in 0..ho {
                for j in 0..wo {
                    let mut s = 0.0;
                    for ic in 0..cg {
                        let cin = grp * cg + ic;
                        for ki in 0..kh {
                            for kj in 0..kw {
                                let ih = i * g.stride[0] - g.pad[0] + ki * g.dil[0];
                                let iw = j * g.stride[1] - g.pad[1] + kj * g.dil[1];
                                if ih < 0 || ih >= h || iw < 0 || iw >= wd {
                                    continue;
                                }
                                s += xv[(((b * c + cin) * h + ih) * wd + iw) as usize]
                                    * wv[(((oc * cg + ic) * kh + ki) * kw + kj) as usize];
                            }
                        }
                    }
                    out[(((b * o + oc) * ho + i) * wo + j) as usize] = s;
                }
            }
        }
    }
    let _ = c;
    (out, [n, o, ho, wo])
}

#[test]
fn convolutions_match_the_definition() {
    let cases = [
        (
            [2, 8, 20, 18],
            [6, 8, 3, 3],
            Geo {
                stride: [1, 1],
                pad: [1, 1],
                dil: [1, 1],
                groups: 1,
            },
        ),
        (
            [1, 6, 17, 19],
            [4, 3, 3, 2],
            Geo {
                stride: [2, 1],
                pad: [1, 0],
                dil: [1, 2],
                groups: 2,
            },
        ),
        (
            [2, 16, 24, 24],
            [16, 1, 3, 3],
            Geo {
                stride: [1, 1],
                pad: [1, 1],
                dil: [1, 1],
                groups: 16,
            },
        ),
        (
            [1, 8, 30, 30],
            [16, 1, 5, 5],
            Geo {
                stride: [2, 2],
                pad: [2, 2],
                dil: [1, 1],
                groups: 8,
            },
        ),
        (
            [3, 12, 9, 9],
            [5, 12, 1, 1],
            Geo {
                stride: [1, 1],
                pad: [0, 0],
                dil: [1, 1],
                groups: 1,
            },
        ),
        // Several column tiles per sample, tiles ending mid-row.
        (
            [1, 16, 40, 40],
            [8, 16, 3, 3],
            Geo {
                stride: [1, 1],
                pad: [1, 1],
                dil: [1, 1],
                groups: 1,
            },
        ),
        (
            [2, 8, 61, 59],
            [4, 4, 3, 3],
            Geo {
                stride: [2, 3],
                pad: [1, 2],
                dil: [2, 1],
                groups: 2,
            },
        ),
    ];
    for (xs, ws, g) in cases {
        let (x, w) = (seq(&xs), seq(&ws));
        let p = ConvParams::new(g.stride.to_vec(), g.pad.to_vec(), g.dil.to_vec(), g.groups);
        let got = convolution(&x, &w, None, &p).unwrap();
        let (want, shape) = naive_conv(&x, &w, &g);
        assert_eq!(got.sizes().as_slice(), &shape);
        close(&got.to_vec::<f64>(), &want);
    }
}

/// float32 convolution shapes: padding wider than the kernel, dilation, strides per dim,
/// groups, several samples, outputs narrower and wider than one vector, one output column,
/// padded 1x1 kernels, and ResNet layers large enough to use every core.
fn float32_cases() -> Vec<([i64; 4], [i64; 4], Geo)> {
    let geo = |stride: [i64; 2], pad: [i64; 2], dil: [i64; 2], groups: i64| Geo {
        stride,
        pad,
        dil,
        groups,
    };
    vec![
        ([2, 3, 6, 5], [4, 3, 3, 2], geo([2, 1], [1, 2], [1, 1], 1)),
        ([1, 8, 20, 18], [6, 8, 3, 3], geo([1, 1], [1, 1], [1, 1], 1)),
        (
            [2, 6, 17, 19],
            [10, 3, 3, 2],
            geo([2, 1], [1, 0], [1, 2], 2),
        ),
        ([2, 8, 61, 59], [4, 4, 3, 3], geo([2, 3], [1, 2], [2, 1], 2)),
        // Winograd's F(2x2, 3x3) (winograd.rs): even and odd output sizes, padding 0, 1 and 2.
        (
            [1, 128, 14, 14],
            [128, 128, 3, 3],
            geo([1, 1], [1, 1], [1, 1], 1),
        ),
        (
            [2, 130, 13, 17],
            [136, 130, 3, 3],
            geo([1, 1], [1, 1], [1, 1], 1),
        ),
        (
            [1, 128, 16, 16],
            [131, 128, 3, 3],
            geo([1, 1], [0, 0], [1, 1], 1),
        ),
        (
            [1, 128, 12, 15],
            [128, 128, 3, 3],
            geo([1, 1], [2, 1], [1, 1], 1),
        ),
        // Blocks of 12 and 8 tile rows.
        (
            [1, 128, 40, 40],
            [128, 128, 3, 3],
            geo([1, 1], [1, 1], [1, 1], 1),
        ),
        ([1, 4, 5, 4], [3, 4, 2, 2], geo([1, 1], [3, 3], [1, 1], 1)),
        ([1, 5, 9, 33], [9, 5, 5, 3], geo([1, 1], [0, 4], [2, 3], 1)),
        ([1, 4, 9, 3], [5, 4, 3, 3], geo([1, 1], [0, 0], [1, 1], 1)),
        ([2, 6, 7, 11], [7, 6, 1, 1], geo([1, 1], [1, 1], [1, 1], 1)),
        // 1x1 stride-1 products on MobileNet's 7x7 and 14x14 planes (narrow tile forms).
        (
            [1, 40, 7, 7],
            [52, 40, 1, 1],
            geo([1, 1], [0, 0], [1, 1], 1),
        ),
        (
            [1, 24, 14, 14],
            [30, 12, 1, 1],
            geo([1, 1], [0, 0], [1, 1], 2),
        ),
        // Enough input channels that AVX2's GEMM packs B in chunks of k (the sums carried
        // in the output between chunks), a plane that ends in a partial panel.
        (
            [1, 600, 9, 11],
            [13, 600, 1, 1],
            geo([1, 1], [0, 0], [1, 1], 1),
        ),
        // 1x1 planes (squeeze-and-excitation): dot products, samples in rows of four.
        (
            [3, 40, 1, 1],
            [24, 40, 1, 1],
            geo([1, 1], [0, 0], [1, 1], 1),
        ),
        (
            [6, 24, 1, 1],
            [30, 12, 1, 1],
            geo([1, 1], [0, 0], [1, 1], 2),
        ),
        (
            [1, 6, 13, 21],
            [10, 3, 2, 3],
            geo([3, 2], [0, 1], [2, 2], 2),
        ),
        (
            [1, 3, 40, 40],
            [17, 3, 7, 7],
            geo([2, 2], [3, 3], [1, 1], 1),
        ),
        (
            [1, 16, 24, 24],
            [24, 16, 1, 1],
            geo([2, 2], [0, 0], [1, 1], 1),
        ),
        (
            [1, 64, 14, 14],
            [40, 64, 3, 3],
            geo([1, 1], [1, 1], [1, 1], 1),
        ),
        (
            [1, 32, 28, 28],
            [64, 32, 3, 3],
            geo([2, 2], [1, 1], [1, 1], 1),
        ),
        (
            [1, 64, 7, 7],
            [72, 64, 3, 3],
            geo([1, 1], [1, 1], [1, 1], 1),
        ),
        // 1x1 on 7x7 and 14x14 planes: full panels, then the last columns as dot products.
        (
            [2, 12, 7, 7],
            [10, 12, 1, 1],
            geo([1, 1], [0, 0], [1, 1], 1),
        ),
        (
            [1, 16, 14, 14],
            [13, 16, 1, 1],
            geo([1, 1], [0, 0], [1, 1], 1),
        ),
        // Weights past sgemm's TAIL_TASK_A_BYTES: the dot-product columns run per task of
        // rows (several tasks on one thread too), ResNet-50's 7x7 and 14x14 layers in small.
        (
            [1, 512, 7, 7],
            [300, 512, 1, 1],
            geo([1, 1], [0, 0], [1, 1], 1),
        ),
        (
            [1, 256, 14, 14],
            [530, 256, 1, 1],
            geo([1, 1], [0, 0], [1, 1], 1),
        ),
        // Depthwise: MobileNet's 3x3 and 5x5 layers, strides, a channel multiplier,
        // dilation, uneven padding, rows narrower and wider than a vector, several samples.
        (
            [1, 16, 56, 56],
            [16, 1, 3, 3],
            geo([2, 2], [1, 1], [1, 1], 16),
        ),
        (
            [1, 24, 28, 28],
            [24, 1, 5, 5],
            geo([1, 1], [2, 2], [1, 1], 24),
        ),
        (
            [2, 6, 13, 17],
            [12, 1, 3, 3],
            geo([1, 2], [1, 0], [1, 1], 6),
        ),
        ([1, 4, 11, 9], [4, 1, 3, 2], geo([2, 1], [2, 1], [2, 3], 4)),
        ([1, 3, 5, 3], [9, 1, 4, 4], geo([3, 3], [3, 3], [1, 1], 3)),
        ([1, 8, 7, 7], [8, 1, 7, 7], geo([1, 1], [3, 3], [1, 1], 8)),
        // Vectors across channels (depthwise_lanes.rs): blocks of 16 and 8 channels, half
        // blocks, a remainder of c % 8 channels, rows narrower and wider than 8, strides,
        // dilation, non-square kernels, inputs a tap never reaches.
        (
            [2, 40, 9, 11],
            [40, 1, 3, 3],
            geo([1, 1], [1, 1], [1, 1], 40),
        ),
        (
            [1, 36, 14, 14],
            [36, 1, 5, 5],
            geo([2, 2], [2, 2], [1, 1], 36),
        ),
        (
            [1, 24, 7, 7],
            [24, 1, 5, 5],
            geo([1, 1], [4, 4], [2, 2], 24),
        ),
        (
            [1, 48, 13, 20],
            [48, 1, 3, 5],
            geo([2, 1], [1, 2], [1, 1], 48),
        ),
        (
            [1, 32, 30, 30],
            [32, 1, 3, 3],
            geo([2, 2], [0, 0], [1, 1], 32),
        ),
        (
            [1, 16, 12, 9],
            [16, 1, 2, 4],
            geo([1, 3], [0, 1], [2, 1], 16),
        ),
    ]
}

/// Each float32 case with a bias, checked against the definition in f64 at float32's
/// accuracy.
fn check_float32_cases() {
    for (xs, ws, g) in float32_cases() {
        let (x, w, bias) = (seq32(&xs), seq32(&ws), seq32(&[ws[0]]));
        let mut p = ConvParams::new(g.stride.to_vec(), g.pad.to_vec(), g.dil.to_vec(), g.groups);
        // As a graph node whose weights are a constant (Winograd's kernel takes only those).
        p.weights = Some(Default::default());
        let got = convolution(&x, &w, Some(&bias), &p).unwrap();
        let (want, shape) = naive_conv(&x, &w, &g);
        assert_eq!(got.sizes().as_slice(), &shape, "{xs:?} {ws:?}");
        let plane = (shape[2] * shape[3]) as usize;
        let bias = bias.to_vec::<f64>();
        let k = (ws[1] * ws[2] * ws[3]) as f64;
        for (i, (a, b)) in got.to_vec::<f64>().iter().zip(&want).enumerate() {
            let b = b + bias[(i / plane) % ws[0] as usize];
            assert!(
                (a - b).abs() <= 1e-6 * k * b.abs().max(1.0),
                "{xs:?} {ws:?} element {i}: {a} vs {b}"
            );
        }
    }
}

/// Runs `f` with float32 convolutions on the path machines without AVX2 take.
fn on_portable_path<R>(f: impl FnOnce() -> R) -> R {
    super::conv::portable::with(f)
}

/// This machine's float32 path (the direct and depthwise kernels at the widest vectors the
/// CPU has).
#[test]
fn float32_convolutions_match_the_definition() {
    check_float32_cases();
    // One thread: kernels that split work by block take small shapes too.
    crate::parallel::with_threads(1, check_float32_cases);
}

/// The AVX2 forms of the direct and depthwise kernels, which AVX2-only machines run (on
/// machines with AVX-512 too).
#[test]
fn avx2_float32_convolutions_match_the_definition() {
    use crate::ops::cpu::{hardware, with_isa, Isa};
    if hardware() < Isa::Avx2 {
        println!("skipped: this CPU has no AVX2");
        return;
    }
    with_isa(Isa::Avx2, check_float32_cases);
    with_isa(Isa::Avx2, || {
        crate::parallel::with_threads(1, check_float32_cases)
    });
}

/// Every form of the direct-convolution and GEMM micro-kernels (tile widths, rows per tile)
/// on every case, at every instruction-set level that has them: shapes pick the form, so
/// each is forced here.
#[test]
fn every_tile_form_matches_the_definition() {
    use crate::ops::cpu::{available_levels, isa, tile_widths, with_isa, with_tile_width, Isa};
    for cap in available_levels().into_iter().filter(|&l| l >= Isa::Avx2) {
        // The level kernels run at under this cap (EMBER_CPU_FEATURES may lower it).
        let level = with_isa(cap, isa);
        super::conv_direct::check_forms(level);
        crate::ops::linalg::sgemm::check_forms(level);
        for &width in tile_widths(level) {
            with_isa(cap, || with_tile_width(width, check_float32_cases));
        }
    }
}

/// The im2col path, which machines without AVX2 run.
#[test]
fn portable_float32_convolutions_match_the_definition() {
    on_portable_path(check_float32_cases);
}

/// `ember::conv2d_fused`'s epilogue (residual, then each activation) on the direct,
/// depthwise and im2col paths at every instruction-set level, against the unfused
/// composition in f64.
#[test]
fn fused_epilogues_match_the_composition() {
    use super::conv::conv_functional_fused;
    use super::epilogue::{Activation, Epilogue, ACTIVATIONS};
    let cases = [
        ([2, 8, 12, 10], [6, 8, 3, 3], [1, 1], [1, 1], 1),
        ([1, 6, 15, 15], [6, 1, 3, 3], [2, 2], [1, 1], 6),
        ([2, 24, 9, 9], [24, 1, 3, 3], [1, 1], [1, 1], 24),
        ([5, 16, 1, 1], [8, 16, 1, 1], [1, 1], [0, 0], 1),
        ([1, 8, 9, 9], [10, 8, 1, 1], [1, 1], [0, 0], 1),
        ([1, 8, 9, 9], [10, 4, 1, 1], [1, 1], [0, 0], 2),
        // B in chunks of k on AVX2: bias, residual and activation after the last chunk only.
        ([1, 600, 5, 7], [10, 600, 1, 1], [1, 1], [0, 0], 1),
        // The last columns of a 7x7 and a 14x14 plane as dot products.
        ([1, 8, 7, 7], [10, 8, 1, 1], [1, 1], [0, 0], 1),
        ([1, 12, 14, 14], [20, 12, 1, 1], [1, 1], [0, 0], 1),
        // Winograd's output transform: bias, residual and activation on odd output sizes.
        ([1, 128, 13, 15], [128, 128, 3, 3], [1, 1], [1, 1], 1),
    ];
    for (xs, ws, stride, pad, groups) in cases {
        let (x, w, bias) = (seq32(&xs), seq32(&ws), seq32(&[ws[0]]));
        let mut p = ConvParams::new(stride.to_vec(), pad.to_vec(), vec![1], groups);
        p.weights = Some(Default::default());
        let plain = convolution(&x, &w, Some(&bias), &p).unwrap();
        // The paths' sums differ by rounding, which grows with the terms per output.
        let k = (ws[1] * ws[2] * ws[3]) as f64;
        let residual = seq32(&plain.sizes());
        let y = plain.to_vec::<f64>();
        let r = residual.to_vec::<f64>();
        // With a residual and without (an activation alone).
        for (name, with_residual) in ACTIVATIONS
            .iter()
            .flat_map(|&name| [(name, true), (name, false)])
        {
            let act = Activation::parse(name, Some(-0.5), Some(1.5)).unwrap();
            let want: Vec<f64> = y
                .iter()
                .zip(&r)
                .map(|(a, b)| act.eval((a + if with_residual { *b } else { 0.0 }) as f32) as f64)
                .collect();
            let epi = Epilogue {
                residual: with_residual.then(|| residual.data_ptr() as usize),
                act,
            };
            for level in crate::ops::cpu::available_levels() {
                let got = crate::ops::cpu::with_isa(level, || {
                    conv_functional_fused("conv2d", &x, &w, Some(&bias), &p, 4, &epi).unwrap()
                });
                for (i, (g, v)) in got.to_vec::<f64>().iter().zip(&want).enumerate() {
                    assert!(
                        (g - v).abs() <= 1e-5 * v.abs().max(1.0) + 1e-7 * k,
                        "{xs:?} {ws:?} {name} (residual {with_residual}) {level:?} element {i}: {g} vs {v}"
                    );
                }
            }
        }
    }
}

/// A node's cache of transformed weights gives what a fresh one does, and follows a change
/// of weights.
#[test]
fn cached_winograd_weights_follow_the_weights() {
    let x = seq32(&[1, 128, 14, 14]);
    let node = |cache| {
        let mut p = ConvParams::new(vec![1], vec![1], vec![1], 1);
        p.weights = cache;
        p
    };
    let p = node(Some(Default::default()));
    let (w1, w2) = (
        seq32(&[128, 128, 3, 3]),
        seq32(&[2, 128, 128, 3, 3]).select(0, 1).unwrap(),
    );
    for w in [w1, w2] {
        let fresh = convolution(&x, &w, None, &node(Some(Default::default()))).unwrap();
        for _ in 0..2 {
            let got = convolution(&x, &w, None, &p).unwrap();
            assert_eq!(got.to_vec::<f32>(), fresh.to_vec::<f32>());
        }
    }
}

/// Both float32 paths agree to float32 rounding on non-contiguous inputs, float16 and
/// bfloat16 (computed in float32) and 1-d convolutions (2-d of height 1).
#[test]
fn float32_paths_agree_on_views_and_half_precision() {
    let x = seq32(&[2, 24, 15, 40]).slice(3, Some(1), None, 2).unwrap();
    let w = seq32(&[16, 24, 3, 3]).transpose(2, 3).unwrap();
    let bias = seq32(&[16]);
    let p = ConvParams::new(vec![1, 2], vec![1, 1], vec![1, 1], 1);
    let p1 = ConvParams::new(vec![2], vec![3], vec![2], 2);
    let x1 = seq32(&[3, 8, 50]);
    let w1 = seq32(&[6, 4, 5]);
    let run = || {
        let mut outs = vec![convolution(&x, &w, Some(&bias), &p).unwrap()];
        outs.push(convolution(&x1, &w1, None, &p1).unwrap());
        for dtype in [DType::F16, DType::BF16] {
            let cast = |t: &Tensor| to_contiguous(t, dtype).unwrap();
            let (xh, wh, bh) = (cast(&x), cast(&w), cast(&bias));
            let out = convolution(&xh, &wh, Some(&bh), &p).unwrap();
            assert_eq!(out.dtype(), dtype);
            outs.push(out);
        }
        outs
    };
    let (direct, portable) = (run(), on_portable_path(run));
    let avx2 = crate::ops::cpu::with_isa(crate::ops::cpu::Isa::Avx2, run);
    let pairs = direct
        .iter()
        .chain(&avx2)
        .zip(portable.iter().chain(&portable));
    for (i, (a, b)) in pairs.enumerate() {
        let i = i % direct.len();
        assert_eq!(a.sizes(), b.sizes(), "output {i}");
        let tol = if i < 2 { 1e-4 } else { 2e-2 };
        for (u, v) in a.to_vec::<f64>().iter().zip(b.to_vec::<f64>()) {
            assert!(
                (u - v).abs() <= tol * v.abs().max(1.0),
                "output {i}: {u} vs {v}"
            );
        }
    }
}

/// The float32 convolution gives the same bits on one core as on two.
#[test]
fn float32_convolution_does_not_depend_on_the_thread_count() {
    let (x, w) = (seq32(&[2, 64, 28, 28]), seq32(&[96, 64, 3, 3]));
    let b = seq32(&[96]);
    let run = |threads: usize| {
        let p = ConvParams::new(vec![1], vec![1], vec![1], 1);
        crate::parallel::with_threads(threads, || convolution(&x, &w, Some(&b), &p).unwrap())
            .to_vec::<f32>()
    };
    let one = run(1);
    for threads in [2, 3] {
        let many = run(threads);
        assert!(one
            .iter()
            .zip(&many)
            .all(|(a, b)| a.to_bits() == b.to_bits()));
    }
}

#[test]
fn transposed_convolution_is_the_adjoint() {
    // <conv(x), y> == <x, conv_transpose(y)> for the same weight and geometry.
    let x = seq(&[2, 4, 11, 10]);
    let w = seq(&[6, 2, 3, 3]);
    let mut p = ConvParams::new(vec![2], vec![1], vec![1], 2);
    let y = convolution(&x, &w, None, &p).unwrap();
    let probe = seq(&y.sizes());
    p.transposed = true;
    p.output_padding = vec![0, 1];
    let back = convolution(&probe, &w, None, &p).unwrap();
    assert_eq!(back.sizes().as_slice(), x.sizes().as_slice());
    let dot = |a: &Tensor, b: &Tensor| -> f64 {
        a.to_vec::<f64>()
            .iter()
            .zip(b.to_vec::<f64>())
            .map(|(u, v)| u * v)
            .sum()
    };
    let (l, r) = (dot(&y, &probe), dot(&x, &back));
    assert!((l - r).abs() < 1e-9 * l.abs().max(1.0), "{l} vs {r}");
}

#[test]
fn pooling_matches_the_definition() {
    let x = seq(&[2, 8, 40, 41]);
    let pool = Pool2d {
        name: "max_pool2d",
        kernel: &[3],
        stride: &[2],
        padding: &[1],
        dilation: &[1],
        ceil_mode: true,
    };
    let (v, idx) = max_pool2d_with_indices(&x, &pool).unwrap();
    let s = v.sizes();
    assert_eq!(s.as_slice(), &[2, 8, 21, 21]);
    let (xv, vv, iv) = (x.to_vec::<f64>(), v.to_vec::<f64>(), idx.to_vec::<i64>());
    for plane in 0..16usize {
        for i in 0..21i64 {
            for j in 0..21i64 {
                let mut best = f64::NEG_INFINITY;
                for ih in (2 * i - 1).max(0)..(2 * i + 2).min(40) {
                    for iw in (2 * j - 1).max(0)..(2 * j + 2).min(41) {
                        best = best.max(xv[plane * 40 * 41 + (ih * 41 + iw) as usize]);
                    }
                }
                let k = plane * 441 + (i * 21 + j) as usize;
                assert_eq!(vv[k], best);
                assert_eq!(xv[plane * 40 * 41 + iv[k] as usize], best);
            }
        }
    }
    let avg = avg_pool2d(
        &x,
        &Pool2d {
            name: "avg_pool2d",
            kernel: &[2],
            stride: &[],
            padding: &[0],
            dilation: &[1],
            ceil_mode: false,
        },
        &AvgOptions {
            count_include_pad: true,
            divisor_override: None,
        },
    )
    .unwrap();
    let av = avg.to_vec::<f64>();
    let want = (xv[0] + xv[1] + xv[41] + xv[42]) / 4.0;
    assert!((av[0] - want).abs() < 1e-12);
}

#[test]
fn batch_norm_training_updates_running_stats() {
    let x = seq(&[4, 3, 64, 64]);
    let rm = Tensor::from_vec(vec![0.0f64; 3], &[3]).unwrap();
    let rv = Tensor::from_vec(vec![1.0f64; 3], &[3]).unwrap();
    let p = BatchNorm {
        weight: None,
        bias: None,
        running_mean: Some(&rm),
        running_var: Some(&rv),
        training: true,
        momentum: 0.5,
        eps: 0.0,
    };
    let (y, mean, _) = batch_norm(&x, &p).unwrap();
    let yv = y.to_vec::<f64>();
    // Each channel of the output has mean 0 and variance 1.
    for ch in 0..3 {
        let vals: Vec<f64> = (0..4)
            .flat_map(|b| yv[(b * 3 + ch) * 4096..(b * 3 + ch + 1) * 4096].to_vec())
            .collect();
        let m = vals.iter().sum::<f64>() / vals.len() as f64;
        let v = vals.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / vals.len() as f64;
        assert!(m.abs() < 1e-9 && (v - 1.0).abs() < 1e-9, "{m} {v}");
    }
    let means = mean.to_vec::<f64>();
    let rms = rm.to_vec::<f64>();
    for ch in 0..3 {
        assert!((rms[ch] - 0.5 * means[ch]).abs() < 1e-12);
    }
}

#[test]
fn integer_convolutions_reuse_their_column_buffer() {
    // Two integer convolutions in a row (the im2col path with the thread's buffer) give the
    // same answer, and the second runs while the first result is alive.
    let x = Tensor::from_vec(
        (0..2 * 3 * 6 * 6).map(|i| i % 5 - 2).collect::<Vec<i64>>(),
        &[2, 3, 6, 6],
    )
    .unwrap();
    let w = Tensor::from_vec(
        (0..4 * 3 * 3 * 3).map(|i| i % 3 - 1).collect::<Vec<i64>>(),
        &[4, 3, 3, 3],
    )
    .unwrap();
    let p = ConvParams::new(vec![1], vec![1], vec![1], 1);
    let a = convolution(&x, &w, None, &p).unwrap();
    let b = convolution(&x, &w, None, &p).unwrap();
    assert_eq!(a.to_vec::<i64>(), b.to_vec::<i64>());
    let (want, _) = naive_conv(
        &x,
        &w,
        &Geo {
            stride: [1, 1],
            pad: [1, 1],
            dil: [1, 1],
            groups: 1,
        },
    );
    let got: Vec<f64> = a.to_vec::<f64>();
    assert_eq!(got, want);
}

#[test]
fn layer_norm_of_large_float32_rows() {
    let v: Vec<f32> = (0..64 * 1024)
        .map(|i| ((i * 31) % 97) as f32 * 0.1 - 3.0)
        .collect();
    let x = Tensor::from_vec(v, &[64, 1024]).unwrap();
    let b = Tensor::from_vec(vec![0.5f32; 1024], &[1024]).unwrap();
    let (y, mean, rstd) = super::norm::layer_norm(&x, &[1024], None, Some(&b), 1e-5).unwrap();
    assert_eq!(mean.sizes().as_slice(), &[64, 1]);
    assert_eq!(rstd.sizes().as_slice(), &[64, 1]);
    let yv = y.to_vec::<f64>();
    for r in 0..64 {
        let row = &yv[r * 1024..(r + 1) * 1024];
        let m = row.iter().sum::<f64>() / 1024.0;
        let var = row.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / 1024.0;
        assert!(
            (m - 0.5).abs() < 1e-5 && (var - 1.0).abs() < 1e-3,
            "{m} {var}"
        );
    }
}
