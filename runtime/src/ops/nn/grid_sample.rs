//! `grid_sampler` (`F.grid_sample`): sampling an image at the normalized coordinates of a
//! grid, 2-d (bilinear, nearest, bicubic) and 3-d (trilinear, nearest), with zeros, border
//! and reflection padding and both `align_corners` conventions.
//!
//! PyTorch runs two different CPU kernels and so does this file: 2-d follows its vectorized
//! kernel (`GridSamplerKernel.cpp`: weights from the distances to the east and south
//! neighbours, every corner multiplied in, NaN coordinates clamped to 0 by border and
//! reflection padding), 3-d its scalar kernel (`GridSampler.cpp`: weights from the opposite
//! corners, only in-bounds corners added, `std::min`/`std::max` clamping). Arithmetic is in
//! the input's dtype, rounding after every operation for float16/bfloat16 as PyTorch's
//! reduced-precision vectors and scalars do.

use ember_dialects::{Graph, Node};

use super::grid_simd;
use super::work::slice;
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::args::{boolean, err, int, op_n, sizes_str, tensor};
use crate::ops::real::{Real, Rounded};
use crate::ops::registry::Registry;
use crate::ops::Operation;
use crate::tensor::{DType, Element, Tensor, TensorResult};
use half::{bf16, f16};

pub fn register(r: &mut Registry) {
    r.add("aten::grid_sampler", |g, n| build(g, n, 0));
    r.add("aten::grid_sampler_2d", |g, n| build(g, n, 4));
    r.add("aten::grid_sampler_3d", |g, n| build(g, n, 5));
    r.add("aten::_grid_sampler_2d_cpu_fallback", |g, n| build(g, n, 4));
}

/// `grid_sampler*(input, grid, interpolation_mode, padding_mode, align_corners)`; `rank`
/// is the input rank the op requires (0: either, as `grid_sampler` dispatches).
fn build(g: &Graph, n: Node, rank: usize) -> Result<Operation, String> {
    let count = g.node_inputs(n).len();
    Ok(op_n(count, move |a| {
        let x = tensor(&a[0])?;
        let grid = tensor(&a[1])?;
        let r = grid_sampler(&x, &grid, int(&a[2])?, int(&a[3])?, boolean(&a[4])?, rank)
            .map_err(err)?;
        if count == 6 {
            let out = tensor(&a[5])?;
            crate::ops::args::write_out(&out, &r)?;
            return Ok(IValue::Tensor(out));
        }
        Ok(IValue::Tensor(r))
    }))
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Interp {
    Bilinear,
    Nearest,
    Bicubic,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Padding {
    Zeros,
    Border,
    Reflection,
}

/// PyTorch's `check_grid_sampler_common` and the 2-d/3-d rank checks.
fn check(x: &Tensor, grid: &Tensor, rank: usize) -> TensorResult<usize> {
    let (xs, gs) = (x.sizes(), grid.sizes());
    let show = || (sizes_str(&xs), sizes_str(&gs));
    if xs.is_empty() || gs.is_empty() || xs[0] != gs[0] {
        let (a, b) = show();
        bail!("grid_sampler(): expected grid and input to have same batch size, but got input with sizes {a} and grid with sizes {b}");
    }
    if gs[gs.len() - 1] != xs.len() as i64 - 2 {
        bail!(
            "grid_sampler(): expected grid to have size {} in last dimension, but got grid with sizes {}",
            xs.len() as i64 - 2,
            sizes_str(&gs)
        );
    }
    for (i, &s) in xs.iter().enumerate().skip(2) {
        if s <= 0 {
            bail!(
                "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes {} with dimension {i} being empty",
                sizes_str(&xs)
            );
        }
    }
    let rank = if rank == 0 {
        if xs.len() == 4 {
            4
        } else {
            5
        }
    } else {
        rank
    };
    if xs.len() != rank || gs.len() != rank {
        let (a, b) = show();
        bail!("grid_sampler(): expected {rank}D input and grid with same number of dimensions, but got input with sizes {a} and grid with sizes {b}");
    }
    Ok(rank)
}

pub fn grid_sampler(
    x: &Tensor,
    grid: &Tensor,
    mode: i64,
    padding: i64,
    align_corners: bool,
    rank: usize,
) -> TensorResult<Tensor> {
    let rank = check(x, grid, rank)?;
    let interp = match mode {
        0 => Interp::Bilinear,
        1 => Interp::Nearest,
        2 => Interp::Bicubic,
        other => bail!(
            "grid_sampler(): expected interpolation_mode 0 (bilinear), 1 (nearest) or 2 (bicubic), but got {other}"
        ),
    };
    let pad = match padding {
        0 => Padding::Zeros,
        1 => Padding::Border,
        2 => Padding::Reflection,
        other => bail!(
            "grid_sampler(): expected padding_mode 0 (zeros), 1 (border) or 2 (reflection), but got {other}"
        ),
    };
    if rank == 5 && interp == Interp::Bicubic {
        bail!("grid_sampler(): bicubic interpolation only supports 4D input");
    }
    let kernel = if rank == 4 {
        "grid_sampler_2d_cpu_kernel_impl"
    } else {
        "grid_sampler3d_cpu"
    };
    let d = x.dtype();
    if !matches!(d, DType::F32 | DType::F64 | DType::F16 | DType::BF16) {
        bail!(
            "\"{kernel}\" not implemented for '{}'",
            d.scalar_type_name()
        );
    }
    if grid.dtype() != d {
        bail!(
            "expected scalar type {} but found {}",
            d.scalar_type_name(),
            grid.dtype().scalar_type_name()
        );
    }
    let (x, grid) = (x.contiguous()?, grid.contiguous()?);
    let s = Sampler {
        interp,
        pad,
        align_corners,
    };
    let in_plane: i64 = x.sizes()[2..].iter().product();
    if let (DType::F32, 4, Interp::Bilinear | Interp::Nearest, Some(form)) =
        (d, rank, interp, grid_simd::form())
    {
        if in_plane <= i32::MAX as i64 {
            return run_vector(&x, &grid, s, form);
        }
    }
    match d {
        DType::F64 => run::<f64, f64>(&x, &grid, s, rank),
        DType::F16 => run::<f16, Rounded<f16>>(&x, &grid, s, rank),
        DType::BF16 => run::<bf16, Rounded<bf16>>(&x, &grid, s, rank),
        _ => run::<f32, f32>(&x, &grid, s, rank),
    }
}

#[derive(Copy, Clone)]
struct Sampler {
    interp: Interp,
    pad: Padding,
    align_corners: bool,
}

/// `static_cast<int64_t>` of a float as x86 does it: NaN and out-of-range values become
/// `i64::MIN`, which every bounds check rejects.
fn to_index<C: Real>(v: C) -> i64 {
    let f = v.f64();
    if f.is_nan() || f >= 9.2e18 || f <= -9.2e18 {
        i64::MIN
    } else {
        f as i64
    }
}

/// The coordinate rules of one axis of `size` pixels.
#[derive(Copy, Clone)]
struct Axis {
    size: i64,
}

impl Axis {
    /// The vectorized kernel's unnormalization.
    fn unnormalize_vec<C: Real>(self, g: C, ac: bool) -> C {
        let one = C::of(1.0);
        if ac {
            (g + one) * (C::of((self.size - 1) as f64) / C::of(2.0))
        } else {
            (g + one).fma(C::of(self.size as f64) / C::of(2.0), C::of(-0.5))
        }
    }

    /// The vectorized kernel's clip: NaN becomes 0.
    fn clip_vec<C: Real>(self, v: C) -> C {
        let max = C::of((self.size - 1) as f64);
        let zero = C::of(0.0);
        if v.is_nan() || v < zero {
            zero
        } else if v > max {
            max
        } else {
            v
        }
    }

    /// The vectorized kernel's reflection into the image (by twice the span).
    fn reflect_vec<C: Real>(self, v: C, ac: bool) -> C {
        let (low, twice_span) = if ac {
            if self.size <= 1 {
                return C::of(0.0);
            }
            (C::of(0.0), C::of((self.size - 1) as f64) * C::of(2.0))
        } else {
            (C::of(-0.5), C::of(self.size as f64) * C::of(2.0))
        };
        let abs_in = (v - low).map(f64::abs);
        let flips = (abs_in / twice_span).map(f64::trunc);
        let extra = (C::of(0.0) - flips).fma(twice_span, abs_in);
        let other = twice_span - extra;
        let m = if extra.is_nan() || other.is_nan() {
            C::of(f64::NAN)
        } else if other < extra {
            other
        } else {
            extra
        };
        m + low
    }

    /// The vectorized kernel's padding rule applied to an unnormalized coordinate.
    fn pad_vec<C: Real>(self, v: C, pad: Padding, ac: bool) -> C {
        match pad {
            Padding::Zeros => v,
            Padding::Border => self.clip_vec(v),
            Padding::Reflection => self.clip_vec(self.reflect_vec(v, ac)),
        }
    }

    /// The scalar kernel's `grid_sampler_compute_source_index`.
    fn source_scalar<C: Real>(self, g: C, pad: Padding, ac: bool) -> C {
        let (one, two) = (C::of(1.0), C::of(2.0));
        let v = if ac {
            ((g + one) / two) * C::of((self.size - 1) as f64)
        } else {
            ((g + one) * C::of(self.size as f64) - one) / two
        };
        let clip = |v: C| {
            // std::min(size - 1, std::max(v, 0)): NaN survives max, then min yields size - 1.
            let zero = C::of(0.0);
            let m = if v < zero { zero } else { v };
            let limit = C::of((self.size - 1) as f64);
            if limit < m || m.is_nan() {
                limit
            } else {
                m
            }
        };
        match pad {
            Padding::Zeros => v,
            Padding::Border => clip(v),
            Padding::Reflection => {
                let r = if ac {
                    reflect_scalar(v, 0, 2 * (self.size - 1))
                } else {
                    reflect_scalar(v, -1, 2 * self.size - 1)
                };
                clip(r)
            }
        }
    }
}

/// The scalar kernel's `reflect_coordinates` (bounds given doubled).
fn reflect_scalar<C: Real>(v: C, twice_low: i64, twice_high: i64) -> C {
    if twice_low == twice_high {
        return C::of(0.0);
    }
    let min = C::of(twice_low as f64) / C::of(2.0);
    let span = C::of((twice_high - twice_low) as f64) / C::of(2.0);
    let v = (v - min).map(f64::abs);
    let extra = C::of(v.f64() % span.f64());
    let flips = (v / span).f64().floor();
    // `static_cast<int>` of the flip count; NaN and huge counts read as even.
    let even = !flips.is_finite() || (flips as i64) % 2 == 0;
    if even {
        extra + min
    } else {
        span - extra + min
    }
}

/// The cubic convolution weights of the taps at -1, 0, 1, 2 for fraction `t` (a = -0.75),
/// as the vectorized kernel computes them.
fn cubic_coefficients<C: Real>(t: C) -> [C; 4] {
    let a = C::of(-0.75);
    let (one, two, three) = (C::of(1.0), C::of(2.0), C::of(3.0));
    let (five, eight, four) = (C::of(5.0), C::of(8.0), C::of(4.0));
    let (five_a, eight_a, four_a) = (five * a, eight * a, four * a);
    let outer = |x: C| {
        a.fma(x, C::of(0.0) - five_a)
            .fma(x, eight_a)
            .fma(x, C::of(0.0) - four_a)
    };
    let inner = |x: C| ((a + two).fma(x, C::of(0.0) - (a + three)) * x).fma(x, one);
    [outer(t + one), inner(t), inner(one - t), outer(two - t)]
}

/// Where one grid point reads the input, shared by every channel: plane offsets (`None`
/// outside the image) and weights.
#[derive(Copy, Clone)]
enum Taps<C> {
    Nearest(Option<usize>),
    /// 2-d: every corner multiplied in (an outside corner reads 0).
    Bilinear([Option<usize>; 4], [C; 4]),
    /// Rows then columns of 4x4 taps with their cubic weights.
    Bicubic([Option<usize>; 4], [Option<usize>; 4], [C; 4], [C; 4]),
    /// 3-d: only the corners inside the volume are added.
    Trilinear([(Option<usize>, C); 8]),
}

impl<C: Real> Taps<C> {
    /// The sampled value of one channel's plane.
    fn value<T: Element>(&self, plane: &[T]) -> C {
        let at = |i: Option<usize>| i.map_or(C::ZERO, |i| C::of(plane[i].to_f64()));
        match *self {
            Taps::Nearest(i) => at(i),
            Taps::Bilinear(i, w) => at(i[3]).fma(
                w[3],
                at(i[2]).fma(w[2], at(i[1]).fma(w[1], at(i[0]) * w[0])),
            ),
            Taps::Bicubic(rows, cols, cy, cx) => {
                let dot = |c: &[C; 4], v: [C; 4]| {
                    c[3].fma(v[3], c[2].fma(v[2], c[1].fma(v[1], c[0] * v[0])))
                };
                let tap = |r: Option<usize>, c: Option<usize>| match (r, c) {
                    (Some(r), Some(c)) => at(Some(r + c)),
                    _ => C::ZERO,
                };
                let row = |j: usize| dot(&cx, std::array::from_fn(|k| tap(rows[j], cols[k])));
                dot(&cy, std::array::from_fn(row))
            }
            Taps::Trilinear(corners) => {
                let mut acc = C::ZERO;
                for (i, w) in corners {
                    if let Some(i) = i {
                        acc += C::of(plane[i].to_f64()) * w;
                    }
                }
                acc
            }
        }
    }
}

/// Grid points per parallel task, at least.
const TASK_POINTS: usize = 256;

/// Runs `task((batch, first point, end point))` over blocks of the grid points of every
/// batch, in parallel when the output (`channels` values per point) is large.
fn for_point_blocks(
    n: usize,
    points: usize,
    channels: usize,
    task: impl Fn((usize, usize, usize)) + Send + Sync,
) {
    let jobs: Vec<(usize, usize, usize)> = (0..n)
        .flat_map(|b| {
            (0..points)
                .step_by(TASK_POINTS)
                .map(move |q| (b, q, (q + TASK_POINTS).min(points)))
        })
        .collect();
    if n * points * channels >= 1 << 14 {
        crate::parallel::for_each(jobs.len(), |j| task(jobs[j]));
    } else {
        jobs.into_iter().for_each(task);
    }
}

fn run<T: Element, C: Real>(
    x: &Tensor,
    grid: &Tensor,
    s: Sampler,
    rank: usize,
) -> TensorResult<Tensor> {
    let xs = x.sizes();
    let gs = grid.sizes();
    let (n, c) = (xs[0] as usize, xs[1] as usize);
    let spatial: Vec<i64> = xs[2..].to_vec();
    let points: usize = gs[1..rank - 1].iter().product::<i64>() as usize;
    let mut out_sizes = vec![xs[0], xs[1]];
    out_sizes.extend_from_slice(&gs[1..rank - 1]);
    let out = Tensor::zeros(&out_sizes, T::DTYPE)?;
    if out.numel() == 0 {
        return Ok(out);
    }
    // SAFETY: `x` and `grid` are contiguous of T.
    let (xv, gv) = unsafe { (slice::<T>(x), slice::<T>(grid)) };
    let in_plane: usize = spatial.iter().product::<i64>() as usize;
    let out_addr = out.data_ptr() as usize;
    let dims = rank - 2;
    // A task: the points `[q0, q1)` of batch `b`, every channel.
    let task = |(b, q0, q1): (usize, usize, usize)| {
        let taps: Vec<Taps<C>> = (q0..q1)
            .map(|q| {
                let coords = &gv[(b * points + q) * dims..(b * points + q + 1) * dims];
                if dims == 2 {
                    taps_2d(&spatial, coords, s)
                } else {
                    taps_3d(&spatial, coords, s)
                }
            })
            .collect();
        for ch in 0..c {
            let plane = &xv[(b * c + ch) * in_plane..(b * c + ch + 1) * in_plane];
            let base = (b * c + ch) * points;
            for (k, t) in taps.iter().enumerate() {
                // SAFETY: `base + q0 + k` indexes the fresh contiguous output; each (batch,
                // point) belongs to exactly one task.
                unsafe {
                    *(out_addr as *mut T).add(base + q0 + k) = T::from_f64(t.value(plane).f64())
                };
            }
        }
    };
    for_point_blocks(n, points, c, task);
    Ok(out)
}

/// The 2-d float32 bilinear/nearest kernel with the per-channel loop in vectors
/// (`grid_simd`); the same values as `run`.
fn run_vector(
    x: &Tensor,
    grid: &Tensor,
    s: Sampler,
    form: grid_simd::Form,
) -> TensorResult<Tensor> {
    let xs = x.sizes();
    let gs = grid.sizes();
    let (n, c) = (xs[0] as usize, xs[1] as usize);
    let spatial: Vec<i64> = xs[2..].to_vec();
    let points = (gs[1] * gs[2]) as usize;
    let out = Tensor::zeros(&[xs[0], xs[1], gs[1], gs[2]], DType::F32)?;
    if out.numel() == 0 {
        return Ok(out);
    }
    // SAFETY: `x` and `grid` are contiguous float32.
    let (xv, gv) = unsafe { (slice::<f32>(x), slice::<f32>(grid)) };
    let in_plane = (spatial[0] * spatial[1]) as usize;
    let out_addr = out.data_ptr() as usize;
    let bilinear = s.interp == Interp::Bilinear;
    let task = |(b, q0, q1): (usize, usize, usize)| {
        let mut lanes = grid_simd::Lanes::new(q1 - q0);
        for q in q0..q1 {
            let coords = &gv[(b * points + q) * 2..(b * points + q + 1) * 2];
            match taps_2d::<f32, f32>(&spatial, coords, s) {
                Taps::Bilinear(i, w) => {
                    for k in 0..4 {
                        lanes.set(q - q0, k, i[k], w[k]);
                    }
                }
                Taps::Nearest(i) => lanes.set(q - q0, 0, i, 1.0),
                _ => unreachable!("bilinear or nearest taps"),
            }
        }
        for ch in 0..c {
            let plane = &xv[(b * c + ch) * in_plane..(b * c + ch + 1) * in_plane];
            // SAFETY: the points `[q0, q1)` of this channel's output plane belong to this task
            // only; the output is fresh contiguous float32.
            let dst = unsafe {
                std::slice::from_raw_parts_mut(
                    (out_addr as *mut f32).add((b * c + ch) * points + q0),
                    q1 - q0,
                )
            };
            grid_simd::sample(form, plane, &lanes, bilinear, dst);
        }
    };
    for_point_blocks(n, points, c, task);
    Ok(out)
}

/// The offset of `(y, x)` in an `h x w` plane, `None` outside it.
fn offset_2d(y: i64, x: i64, h: i64, w: i64) -> Option<usize> {
    (y >= 0 && y < h && x >= 0 && x < w).then(|| (y * w + x) as usize)
}

/// The taps of one grid point of the 2-d kernel.
fn taps_2d<T: Element, C: Real>(spatial: &[i64], coords: &[T], s: Sampler) -> Taps<C> {
    let (h, w) = (spatial[0], spatial[1]);
    let (ah, aw) = (Axis { size: h }, Axis { size: w });
    let gx = C::of(coords[0].to_f64());
    let gy = C::of(coords[1].to_f64());
    match s.interp {
        Interp::Bilinear => {
            let x = aw.pad_vec(
                aw.unnormalize_vec(gx, s.align_corners),
                s.pad,
                s.align_corners,
            );
            let y = ah.pad_vec(
                ah.unnormalize_vec(gy, s.align_corners),
                s.pad,
                s.align_corners,
            );
            let (xw, yn) = (x.map(f64::floor), y.map(f64::floor));
            let one = C::ONE;
            let (dw, dn) = (x - xw, y - yn);
            let (de, ds) = (one - dw, one - dn);
            let (ix, iy) = (to_index(xw), to_index(yn));
            let (ix1, iy1) = (ix.saturating_add(1), iy.saturating_add(1));
            Taps::Bilinear(
                [
                    offset_2d(iy, ix, h, w),
                    offset_2d(iy, ix1, h, w),
                    offset_2d(iy1, ix, h, w),
                    offset_2d(iy1, ix1, h, w),
                ],
                [ds * de, ds * dw, dn * de, dn * dw],
            )
        }
        Interp::Nearest => {
            let x = aw.pad_vec(
                aw.unnormalize_vec(gx, s.align_corners),
                s.pad,
                s.align_corners,
            );
            let y = ah.pad_vec(
                ah.unnormalize_vec(gy, s.align_corners),
                s.pad,
                s.align_corners,
            );
            Taps::Nearest(offset_2d(
                to_index(y.map(f64::round_ties_even)),
                to_index(x.map(f64::round_ties_even)),
                h,
                w,
            ))
        }
        Interp::Bicubic => {
            let x = aw.unnormalize_vec(gx, s.align_corners);
            let y = ah.unnormalize_vec(gy, s.align_corners);
            let (fx, fy) = (x.map(f64::floor), y.map(f64::floor));
            // The taps' indices after padding; out-of-image taps read 0.
            let tap = |a: Axis, base: C, k: i64| -> Option<i64> {
                let v = a.pad_vec(base + C::of(k as f64), s.pad, s.align_corners);
                (v > C::of(-1.0) && v < C::of(a.size as f64)).then(|| to_index(v))
            };
            let rows = std::array::from_fn(|k| tap(ah, fy, k as i64 - 1).map(|r| (r * w) as usize));
            let cols = std::array::from_fn(|k| tap(aw, fx, k as i64 - 1).map(|c| c as usize));
            Taps::Bicubic(
                rows,
                cols,
                cubic_coefficients(y - fy),
                cubic_coefficients(x - fx),
            )
        }
    }
}

/// The taps of one grid point of the 3-d (scalar) kernel.
fn taps_3d<T: Element, C: Real>(spatial: &[i64], coords: &[T], s: Sampler) -> Taps<C> {
    let (d, h, w) = (spatial[0], spatial[1], spatial[2]);
    let (ad, ah, aw) = (Axis { size: d }, Axis { size: h }, Axis { size: w });
    let x = aw.source_scalar(C::of(coords[0].to_f64()), s.pad, s.align_corners);
    let y = ah.source_scalar(C::of(coords[1].to_f64()), s.pad, s.align_corners);
    let z = ad.source_scalar(C::of(coords[2].to_f64()), s.pad, s.align_corners);
    let at = |t: i64, yy: i64, xx: i64| {
        (t >= 0 && t < d && yy >= 0 && yy < h && xx >= 0 && xx < w)
            .then(|| ((t * h + yy) * w + xx) as usize)
    };
    match s.interp {
        Interp::Nearest => Taps::Nearest(at(
            to_index(z.map(f64::round_ties_even)),
            to_index(y.map(f64::round_ties_even)),
            to_index(x.map(f64::round_ties_even)),
        )),
        _ => {
            let (x0, y0, z0) = (
                to_index(x.map(f64::floor)),
                to_index(y.map(f64::floor)),
                to_index(z.map(f64::floor)),
            );
            let (x1, y1, z1) = (
                x0.saturating_add(1),
                y0.saturating_add(1),
                z0.saturating_add(1),
            );
            let f = |i: i64| C::of(i as f64);
            // Each corner's weight is the volume to the opposite corner.
            Taps::Trilinear([
                (at(z0, y0, x0), (f(x1) - x) * (f(y1) - y) * (f(z1) - z)),
                (at(z0, y0, x1), (x - f(x0)) * (f(y1) - y) * (f(z1) - z)),
                (at(z0, y1, x0), (f(x1) - x) * (y - f(y0)) * (f(z1) - z)),
                (at(z0, y1, x1), (x - f(x0)) * (y - f(y0)) * (f(z1) - z)),
                (at(z1, y0, x0), (f(x1) - x) * (f(y1) - y) * (z - f(z0))),
                (at(z1, y0, x1), (x - f(x0)) * (f(y1) - y) * (z - f(z0))),
                (at(z1, y1, x0), (f(x1) - x) * (y - f(y0)) * (z - f(z0))),
                (at(z1, y1, x1), (x - f(x0)) * (y - f(y0)) * (z - f(z0))),
            ])
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// PyTorch returns uninitialized memory for these (no check in its CPU kernels); Ember
    /// refuses them.
    #[test]
    fn modes_pytorch_leaves_unchecked_are_refused() {
        let x = Tensor::zeros(&[1, 1, 2, 2], DType::F32).unwrap();
        let g = Tensor::zeros(&[1, 1, 1, 2], DType::F32).unwrap();
        let x3 = Tensor::zeros(&[1, 1, 2, 2, 2], DType::F32).unwrap();
        let g3 = Tensor::zeros(&[1, 1, 1, 1, 3], DType::F32).unwrap();
        let message = |r: TensorResult<Tensor>| r.err().map(|e| e.message).unwrap_or_default();
        assert!(message(grid_sampler(&x, &g, 3, 0, false, 0)).contains("interpolation_mode"));
        assert!(message(grid_sampler(&x, &g, 0, -1, false, 0)).contains("padding_mode"));
        assert_eq!(
            message(grid_sampler(&x3, &g3, 2, 0, false, 0)),
            "grid_sampler(): bicubic interpolation only supports 4D input"
        );
        assert!(grid_sampler(&x3, &g3, 1, 2, true, 0).is_ok());
    }
}
