//! Per-axis source indices and weights of PyTorch's CPU interpolation kernels
//! (`UpSampleKernel.cpp`), computed with the same mixed float/double steps so the indices
//! agree exactly and the weights to the last bit or two.
//!
//! `A` is the type PyTorch computes them in: float for float32/float16/bfloat16 inputs,
//! double for float64 (and double for the uint8 fixed-point weights).

pub use crate::ops::real::Real;

/// `static_cast<int64_t>(floorf(v))`: C's `floorf` takes a float, so a double argument is
/// rounded to float first.
fn floorf(v: f64) -> i64 {
    (v as f32).floor() as i64
}

/// PyTorch's `compute_scales_value`: `1 / scale` when a positive scale was given, else
/// `input / output`.
fn scales_value<A: Real>(scale: Option<f64>, input: i64, output: i64) -> A {
    match scale {
        Some(s) if s > 0.0 => A::of(1.0 / s),
        _ => A::of(input as f64) / A::of(output as f64),
    }
}

/// PyTorch's `area_pixel_compute_scale`.
pub fn pixel_scale<A: Real>(input: i64, output: i64, align_corners: bool, scale: Option<f64>) -> A {
    if align_corners {
        if output > 1 {
            A::of((input - 1) as f64) / A::of((output - 1) as f64)
        } else {
            A::ZERO
        }
    } else {
        scales_value(scale, input, output)
    }
}

/// PyTorch's `area_pixel_compute_source_index`.
fn source_index<A: Real>(scale: A, dst: i64, align_corners: bool, cubic: bool) -> A {
    if align_corners {
        scale * A::of(dst as f64)
    } else {
        let src = scale * (A::of(dst as f64) + A::of(0.5)) - A::of(0.5);
        if !cubic && src < A::ZERO {
            A::ZERO
        } else {
            src
        }
    }
}

/// PyTorch's `guard_index_and_lambda`: the source index clamped to the input and the
/// fraction past it, clamped to [0, 1].
fn guard<A: Real>(real: A, input: i64) -> (i64, A) {
    let index = floorf(real.f64()).min(input - 1);
    let mut lambda = real - A::of(index as f64);
    if lambda < A::ZERO {
        lambda = A::ZERO;
    }
    if lambda > A::ONE {
        lambda = A::ONE;
    }
    (index, lambda)
}

/// One output axis of a fixed-tap interpolation: `taps` source indices and weights per
/// output position (`index[o * taps + k]`, `weight[o * taps + k]`).
pub struct Axis<A> {
    pub taps: usize,
    pub index: Vec<usize>,
    pub weight: Vec<A>,
}

impl<A: Real> Axis<A> {
    /// An axis that copies its single position: used for the dims a kernel lacks.
    pub fn identity() -> Axis<A> {
        Axis {
            taps: 1,
            index: vec![0],
            weight: vec![A::ONE],
        }
    }

    pub fn is_identity(&self) -> bool {
        self.taps == 1 && self.index == [0] && self.weight.iter().all(|&w| w == A::ONE)
    }
}

/// The nearest-neighbour rules.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Nearest {
    /// `floor(o * scale)` (OpenCV's INTER_NEAREST).
    Legacy,
    /// `floor((o + 0.5) * scale)` (Pillow, scikit-image).
    Exact,
}

/// Source indices of nearest interpolation as the generic kernel computes them (scale in
/// `A`).
pub fn nearest_generic<A: Real>(
    rule: Nearest,
    input: i64,
    output: i64,
    scale: Option<f64>,
) -> Vec<usize> {
    let s: A = pixel_scale(input, output, false, scale);
    (0..output)
        .map(|o| {
            let i = match rule {
                Nearest::Legacy => floorf(source_index(s, o, true, false).f64()),
                Nearest::Exact => floorf(source_index(s, o, false, false).f64() + 0.5),
            };
            i.min(input - 1) as usize
        })
        .collect()
}

/// Source indices of nearest interpolation as the channels-last kernel computes them
/// (`nearest_idx` / `nearest_exact_idx`: the scale always in float, and exact shortcuts for
/// equal and doubled sizes in the legacy rule).
pub fn nearest_channels_last(
    rule: Nearest,
    input: i64,
    output: i64,
    scale: Option<f64>,
) -> Vec<usize> {
    let s: f32 = scales_value(scale, input, output);
    (0..output)
        .map(|o| {
            let i = match rule {
                Nearest::Legacy if output == input => o,
                Nearest::Legacy if output == 2 * input => o >> 1,
                Nearest::Legacy => ((o as f32) * s).floor() as i64,
                Nearest::Exact => floorf((o as f64 + 0.5) * s as f64),
            };
            i.min(input - 1) as usize
        })
        .collect()
}

/// Rounds a weight to the input's dtype `round` (PyTorch keeps the tables in the input's
/// dtype) and back.
pub type RoundWeight<A> = fn(A) -> A;

/// Linear interpolation (2 taps).
pub fn linear<A: Real>(
    input: i64,
    output: i64,
    align_corners: bool,
    scale: Option<f64>,
    round: RoundWeight<A>,
) -> Axis<A> {
    let s: A = pixel_scale(input, output, align_corners, scale);
    let mut index = Vec::with_capacity(2 * output as usize);
    let mut weight = Vec::with_capacity(2 * output as usize);
    for o in 0..output {
        let (i0, i1, l0, l1) = if output == input {
            (o, o, A::ONE, A::ZERO)
        } else {
            let (i0, l1) = guard(source_index(s, o, align_corners, false), input);
            let i1 = i0 + i64::from(i0 < input - 1);
            (i0, i1, A::ONE - l1, l1)
        };
        index.extend([i0 as usize, i1 as usize]);
        weight.extend([round(l0), round(l1)]);
    }
    Axis {
        taps: 2,
        index,
        weight,
    }
}

fn cubic_conv1<A: Real>(x: A, a: A) -> A {
    ((a + A::of(2.0)) * x - (a + A::of(3.0))) * x * x + A::ONE
}

fn cubic_conv2<A: Real>(x: A, a: A) -> A {
    ((a * x - A::of(5.0) * a) * x + A::of(8.0) * a) * x - A::of(4.0) * a
}

/// Cubic convolution (4 taps, a = -0.75), border indices clamped.
pub fn cubic<A: Real>(
    input: i64,
    output: i64,
    align_corners: bool,
    scale: Option<f64>,
    round: RoundWeight<A>,
) -> Axis<A> {
    let s: A = pixel_scale(input, output, align_corners, scale);
    let a = A::of(-0.75);
    let mut index = Vec::with_capacity(4 * output as usize);
    let mut weight = Vec::with_capacity(4 * output as usize);
    for o in 0..output {
        let (i, t) = guard(source_index(s, o, align_corners, true), input);
        let x2 = A::ONE - t;
        let coeffs = [
            cubic_conv2(t + A::ONE, a),
            cubic_conv1(t, a),
            cubic_conv1(x2, a),
            cubic_conv2(x2 + A::ONE, a),
        ];
        for (j, c) in coeffs.into_iter().enumerate() {
            index.push((i + j as i64 - 1).clamp(0, input - 1) as usize);
            weight.push(round(c));
        }
    }
    Axis {
        taps: 4,
        index,
        weight,
    }
}

/// The filters of the separable (antialiasing) kernels.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Filter {
    /// Triangle, support 1.
    Linear,
    /// Keys cubic with a = -0.5 (antialiased, as Pillow) or -0.75 (uint8 without antialias,
    /// as OpenCV), support 2.
    Cubic { keys: bool },
    /// Lanczos with a = 3, support 3.
    Lanczos,
}

impl Filter {
    /// PyTorch's `interp_size`: twice the support.
    pub fn interp_size(self) -> i64 {
        match self {
            Filter::Linear => 2,
            Filter::Cubic { .. } => 4,
            Filter::Lanczos => 6,
        }
    }

    fn eval<A: Real>(self, x: A) -> A {
        match self {
            Filter::Linear => {
                let x = x.abs();
                if x < A::ONE {
                    A::ONE - x
                } else {
                    A::ZERO
                }
            }
            Filter::Cubic { keys } => {
                let a = A::of(if keys { -0.5 } else { -0.75 });
                let x = x.abs();
                if x < A::ONE {
                    cubic_conv1(x, a)
                } else if x < A::of(2.0) {
                    cubic_conv2(x, a)
                } else {
                    A::ZERO
                }
            }
            Filter::Lanczos => {
                let lobes = 3.0;
                let v = x.f64();
                if (-lobes..lobes).contains(&v) {
                    A::of(sinc(v) * sinc(v / lobes))
                } else {
                    A::ZERO
                }
            }
        }
    }
}

fn sinc(x: f64) -> f64 {
    if x == 0.0 {
        1.0
    } else {
        let px = x * std::f64::consts::PI;
        px.sin() / px
    }
}

/// One output axis of a separable kernel: for output `o`, `size[o]` weights starting at
/// source index `start[o]` (`weight[o * stride ..]`).
pub struct Ranges<W> {
    pub start: Vec<usize>,
    pub size: Vec<usize>,
    pub stride: usize,
    pub weight: Vec<W>,
}

/// PyTorch's `_compute_index_ranges_weights`: with `antialias`, the filter stretched over the
/// downscaling ratio and normalized (Pillow's approach); without it (only the uint8 path),
/// fixed taps with the out-of-range ones folded onto the border. Returns the ranges and the
/// largest weight.
pub fn ranges<A: Real>(
    input: i64,
    output: i64,
    scale: A,
    filter: Filter,
    antialias: bool,
    align_corners: bool,
) -> (Ranges<A>, A) {
    let interp = filter.interp_size();
    let (support, max_taps) = if antialias {
        let support = if scale >= A::ONE {
            A::of(interp as f64 * 0.5 * scale.f64())
        } else {
            A::of(interp as f64 * 0.5)
        };
        (support, support.f64().ceil() as i64 * 2 + 1)
    } else {
        (A::of(interp as f64 * 0.5), interp)
    };
    let stride = max_taps as usize;
    let mut r = Ranges {
        start: Vec::with_capacity(output as usize),
        size: Vec::with_capacity(output as usize),
        stride,
        weight: vec![A::ZERO; stride * output as usize],
    };
    let mut wt_max = A::ZERO;
    for o in 0..output {
        let w = &mut r.weight[o as usize * stride..(o as usize + 1) * stride];
        let (start, size, m) = if antialias {
            antialias_weights(o, input, scale, support, w, filter)
        } else {
            fixed_weights(o, input, scale, w, filter, align_corners)
        };
        if m > wt_max {
            wt_max = m;
        }
        r.start.push(start);
        r.size.push(size);
    }
    (r, wt_max)
}

/// `_compute_indices_min_size_weights_aa`.
fn antialias_weights<A: Real>(
    o: i64,
    input: i64,
    scale: A,
    support: A,
    w: &mut [A],
    filter: Filter,
) -> (usize, usize, A) {
    let max_taps = w.len() as i64;
    let center = A::of(scale.f64() * (o as f64 + 0.5));
    let invscale = if scale >= A::ONE {
        A::of(1.0 / scale.f64())
    } else {
        A::ONE
    };
    let start = (((center - support).f64() + 0.5) as i64).max(0);
    let size = ((((center + support).f64() + 0.5) as i64).min(input) - start).clamp(0, max_taps);
    let mut total = A::ZERO;
    for j in 0..size {
        let x = A::of(((A::of((j + start) as f64) - center).f64() + 0.5) * invscale.f64());
        let v = filter.eval(x);
        w[j as usize] = v;
        total += v;
    }
    let mut wt_max = A::ZERO;
    if total != A::ZERO {
        for v in &mut w[..size as usize] {
            *v = *v / total;
            if *v > wt_max {
                wt_max = *v;
            }
        }
    }
    (start as usize, size as usize, wt_max)
}

/// `_compute_indices_min_size_weights`: fixed taps around the source index, weights of the
/// taps outside the input added to the border tap.
fn fixed_weights<A: Real>(
    o: i64,
    input: i64,
    scale: A,
    w: &mut [A],
    filter: Filter,
    align_corners: bool,
) -> (usize, usize, A) {
    let max_taps = w.len() as i64;
    let cubic = max_taps > 2;
    let (index, lambda) = guard(source_index(scale, o, align_corners, cubic), input);
    let support = (max_taps as f64 * 0.5) as i64;
    let unbound_min = index - support + 1;
    let unbound_max = index + support + 1;
    let start = unbound_min.max(0);
    let size = (unbound_max.min(input) - start).clamp(0, max_taps);
    let mut at: i64 = 0;
    let mut wt_max = A::ZERO;
    for j in 0..max_taps {
        w[j as usize] = A::ZERO;
        let v = filter.eval(A::of((j + 1 - support) as f64) - lambda);
        if unbound_min + j <= 0 {
            at = 0;
        } else if unbound_min + j >= input - 1 {
            at = size - 1;
        }
        // `at` stays within the taps: it only grows by one per tap from 0 or size - 1.
        let slot = &mut w[at.clamp(0, max_taps - 1) as usize];
        *slot += v;
        if *slot > wt_max {
            wt_max = *slot;
        }
        at += 1;
    }
    (start as usize, size as usize, wt_max)
}

/// The uint8 kernels' fixed-point weights: the double weights scaled by `2^precision`, the
/// largest precision (below 22) whose largest weight stays under 2^15, rounded half away
/// from zero.
pub fn int16_weights(r: &Ranges<f64>, wt_max: f64) -> (Ranges<i16>, u32) {
    let mut precision = 0u32;
    while precision < 22 {
        let next = (0.5 + wt_max * (1u64 << (precision + 1)) as f64) as i64;
        if next >= 1 << 15 {
            break;
        }
        precision += 1;
    }
    let unit = (1u64 << precision) as f64;
    let weight = r
        .weight
        .iter()
        .map(|&w| {
            let v = w * unit;
            (if v < 0.0 {
                (-0.5 + v) as i32
            } else {
                (0.5 + v) as i32
            }) as i16
        })
        .collect();
    (
        Ranges {
            start: r.start.clone(),
            size: r.size.clone(),
            stride: r.stride,
            weight,
        },
        precision,
    )
}
