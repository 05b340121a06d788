//! Interpolation: `upsample_nearest{1,2,3}d`, `_upsample_nearest_exact{1,2,3}d`,
//! `upsample_linear1d`, `upsample_bilinear2d`, `upsample_bicubic2d`, `upsample_trilinear3d`
//! and the antialiased `_upsample_{bilinear,bicubic,lanczos}2d_aa`, each in its explicit-size
//! form (sizes and per-dim scales), its `.vec` form (sizes or scale factors, what
//! `F.interpolate` and traced models call) and their `out=` forms, with PyTorch's checks,
//! dtypes and messages.
//!
//! Float inputs follow PyTorch's generic CPU kernel (index and weight tables per axis, the
//! product nested in its order); antialiasing and uint8 bilinear/bicubic follow its separable
//! kernel (one axis at a time, uint8 in fixed point).

mod kernel;
mod tables;

use ember_dialects::catalogue::resolve_node;
use ember_dialects::{Graph, Node};
use half::{bf16, f16};

use self::kernel::Dims;
use self::tables::{Axis, Filter, Nearest, Ranges, Real};
use super::work::{slice, slice_mut, to_contiguous};
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::args::{boolean, err, int_list, op_n, opt_int_list, sizes_str, tensor, write_out};
use crate::ops::registry::Registry;
use crate::ops::Operation;
use crate::tensor::{DType, Tensor, TensorResult};

/// How an operator interpolates.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Mode {
    Nearest(Nearest),
    Linear,
    Cubic,
    /// The separable antialiasing kernel with this filter.
    Antialias(Filter),
}

impl Mode {
    fn has_align_corners(self) -> bool {
        !matches!(self, Mode::Nearest(_))
    }
}

/// One operator: its mode and number of spatial dims.
#[derive(Copy, Clone, Debug)]
struct Spec {
    mode: Mode,
    dims: usize,
}

const NEAREST: Mode = Mode::Nearest(Nearest::Legacy);
const EXACT: Mode = Mode::Nearest(Nearest::Exact);

pub fn register(r: &mut Registry) {
    r.add("aten::upsample_nearest1d", |g, n| {
        build(
            g,
            n,
            Spec {
                mode: NEAREST,
                dims: 1,
            },
        )
    });
    r.add("aten::upsample_nearest2d", |g, n| {
        build(
            g,
            n,
            Spec {
                mode: NEAREST,
                dims: 2,
            },
        )
    });
    r.add("aten::upsample_nearest3d", |g, n| {
        build(
            g,
            n,
            Spec {
                mode: NEAREST,
                dims: 3,
            },
        )
    });
    r.add("aten::_upsample_nearest_exact1d", |g, n| {
        build(
            g,
            n,
            Spec {
                mode: EXACT,
                dims: 1,
            },
        )
    });
    r.add("aten::_upsample_nearest_exact2d", |g, n| {
        build(
            g,
            n,
            Spec {
                mode: EXACT,
                dims: 2,
            },
        )
    });
    r.add("aten::_upsample_nearest_exact3d", |g, n| {
        build(
            g,
            n,
            Spec {
                mode: EXACT,
                dims: 3,
            },
        )
    });
    r.add("aten::upsample_linear1d", |g, n| {
        build(
            g,
            n,
            Spec {
                mode: Mode::Linear,
                dims: 1,
            },
        )
    });
    r.add("aten::upsample_bilinear2d", |g, n| {
        build(
            g,
            n,
            Spec {
                mode: Mode::Linear,
                dims: 2,
            },
        )
    });
    r.add("aten::upsample_trilinear3d", |g, n| {
        build(
            g,
            n,
            Spec {
                mode: Mode::Linear,
                dims: 3,
            },
        )
    });
    r.add("aten::upsample_bicubic2d", |g, n| {
        build(
            g,
            n,
            Spec {
                mode: Mode::Cubic,
                dims: 2,
            },
        )
    });
    r.add("aten::_upsample_bilinear2d_aa", |g, n| {
        build(
            g,
            n,
            Spec {
                mode: Mode::Antialias(Filter::Linear),
                dims: 2,
            },
        )
    });
    r.add("aten::_upsample_bicubic2d_aa", |g, n| {
        let filter = Filter::Cubic { keys: true };
        build(
            g,
            n,
            Spec {
                mode: Mode::Antialias(filter),
                dims: 2,
            },
        )
    });
    r.add("aten::_upsample_lanczos2d_aa", |g, n| {
        build(
            g,
            n,
            Spec {
                mode: Mode::Antialias(Filter::Lanczos),
                dims: 2,
            },
        )
    });
}

/// Builds one overload: the explicit form `(self, output_size, [align_corners], scales...)`,
/// the `.vec` form `(input, output_size?, [align_corners], scale_factors?)`, each possibly
/// with a trailing `out`.
fn build(g: &Graph, n: Node, spec: Spec) -> Result<Operation, String> {
    let schema = resolve_node(g, n)?;
    let vec = schema.overload_name.starts_with("vec");
    let out = schema.arguments.last().is_some_and(|a| a.is_out());
    let count = schema.arguments.len();
    Ok(op_n(count, move |a| {
        let x = tensor(&a[0])?;
        let mut at = 2;
        let align_corners = if spec.mode.has_align_corners() {
            at += 1;
            boolean(&a[2])?
        } else {
            false
        };
        let (size, scales) = if vec {
            let factors = opt_float_list(&a[at])?;
            let size = vec_output_size(&x.sizes(), opt_int_list(&a[1])?, factors.as_deref())
                .map_err(err)?;
            let scales = (0..spec.dims)
                .map(|d| factors.as_ref().and_then(|f| f.get(d).copied()))
                .collect();
            (size, scales)
        } else {
            let scales = (0..spec.dims)
                .map(|d| opt_float(&a[at + d]))
                .collect::<Result<Vec<_>, _>>()?;
            (int_list(&a[1])?, scales)
        };
        let result = upsample(&x, spec, &size, &scales, align_corners).map_err(err)?;
        if out {
            let o = tensor(&a[count - 1])?;
            write_out(&o, &result)?;
            return Ok(IValue::Tensor(o));
        }
        Ok(IValue::Tensor(result))
    }))
}

fn opt_float(v: &IValue) -> Result<Option<f64>, String> {
    match v {
        IValue::None => Ok(None),
        IValue::Double(d) => Ok(Some(*d)),
        IValue::Int(i) => Ok(Some(*i as f64)),
        other => Err(format!("expected a float but got {}", other.kind_name())),
    }
}

fn opt_float_list(v: &IValue) -> Result<Option<Vec<f64>>, String> {
    match v {
        IValue::None => Ok(None),
        IValue::List(l) => l
            .to_vec()
            .iter()
            .map(|x| opt_float(x)?.ok_or_else(|| "expected a float but got None".to_string()))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        other => Err(format!(
            "expected a list of floats but got {}",
            other.kind_name()
        )),
    }
}

/// PyTorch's `checked_convert<int64_t>(double)`: truncation, refusing NaN and values outside
/// int64.
fn checked_i64(v: f64) -> TensorResult<i64> {
    const LIMIT: f64 = 9_223_372_036_854_775_808.0; // 2^63
    if v.is_nan() || !(-LIMIT..=LIMIT).contains(&v) {
        bail!("value cannot be converted to type int64_t without overflow");
    }
    Ok(v as i64)
}

/// PyTorch's `compute_output_size` of the `.vec` overloads.
fn vec_output_size(
    input: &[i64],
    size: Option<Vec<i64>>,
    factors: Option<&[f64]>,
) -> TensorResult<Vec<i64>> {
    let spatial = input.len() as i64 - 2;
    match (size, factors) {
        (Some(_), Some(_)) | (None, None) => {
            bail!("Must specify exactly one of output_size and scale_factors")
        }
        (Some(size), None) => {
            if size.len() as i64 != spatial {
                bail!("Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)");
            }
            Ok(size)
        }
        (None, Some(f)) => {
            if f.len() as i64 != spatial {
                bail!("Expected static_cast<int64_t>(scale_factors->size()) == spatial_dimensions to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)");
            }
            f.iter()
                .zip(&input[2..])
                .map(|(&s, &i)| checked_i64(i as f64 * s))
                .collect()
        }
    }
}

/// PyTorch's `upsample_{1,2,3}d_common_check` and the non-empty check of the upsample metas.
fn check_shapes(dims: usize, input: &[i64], output: &[i64]) -> TensorResult<()> {
    if output.len() != dims {
        bail!(
            "It is expected output_size equals to {dims}, but got size {}",
            output.len()
        );
    }
    if input.len() != dims + 2 {
        bail!(
            "It is expected input_size equals to {}, but got size {}",
            dims + 2,
            input.len()
        );
    }
    let spatial = &input[2..];
    if spatial.iter().chain(output).any(|&s| s <= 0) {
        let names = &["D", "H", "W"][3 - dims..];
        let show = |v: &[i64]| {
            names
                .iter()
                .zip(v)
                .map(|(n, s)| format!("{n}: {s}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let joint = if dims == 1 { " and" } else { "" };
        bail!(
            "Input and output sizes should be greater than 0, but got input ({}){joint} output ({})",
            show(spatial),
            show(output)
        );
    }
    if input.iter().product::<i64>() == 0 && input[1..].iter().product::<i64>() == 0 {
        bail!(
            "Non-empty {}D data tensor expected but got a tensor with sizes {}",
            dims + 2,
            sizes_str(input)
        );
    }
    Ok(())
}

/// Whether `t` is contiguous in PyTorch's channels-last layout (NHWC or NDHWC).
fn is_channels_last(t: &Tensor) -> bool {
    let (sizes, strides) = (t.sizes(), t.strides());
    let order: &[usize] = match sizes.len() {
        4 => &[1, 3, 2, 0],
        5 => &[1, 4, 3, 2, 0],
        _ => return false,
    };
    let mut expected = 1;
    for &d in order {
        if sizes[d] != 1 {
            if strides[d] != expected {
                return false;
            }
            expected *= sizes[d];
        }
    }
    true
}

/// Whether PyTorch takes its vectorized channels-last kernel (`_use_vectorized_kernel_cond`),
/// which decides the nearest indices and some messages.
fn channels_last_kernel(x: &Tensor, output: &[i64]) -> bool {
    let sizes = x.sizes();
    let wide = is_channels_last(x) && sizes[1] > 3;
    match output.len() {
        2 => wide || output[0] + output[1] <= 128,
        3 => wide,
        _ => false,
    }
}

/// The dtypes each kernel dispatches, refused with the name of the dispatch that fails.
fn check_dtype(x: &Tensor, spec: Spec, output: &[i64]) -> TensorResult<()> {
    let d = x.dtype();
    let float = matches!(d, DType::F32 | DType::F64 | DType::F16 | DType::BF16);
    let (ok, kernel) = match spec.mode {
        Mode::Nearest(_) => (
            float || d == DType::U8,
            match (spec.dims, channels_last_kernel(x, output)) {
                (2, true) => "upsample_nearest2d_channels_last",
                (3, true) => "upsample_nearest3d_channels_last",
                _ => "compute_indices_weights_nearest",
            },
        ),
        Mode::Linear => (
            float || (d == DType::U8 && spec.dims == 2),
            match (spec.dims, channels_last_kernel(x, output)) {
                (2, true) => "upsample_bilinear2d_channels_last",
                (3, true) => "upsample_trilinear3d_channels_last",
                _ => "compute_indices_weights_linear",
            },
        ),
        Mode::Cubic => (float || d == DType::U8, "compute_indices_weights_cubic"),
        Mode::Antialias(_) => (
            matches!(d, DType::F32 | DType::F64 | DType::U8),
            "compute_index_ranges_weights",
        ),
    };
    if !ok {
        bail!(
            "\"{kernel}\" not implemented for '{}'",
            d.scalar_type_name()
        );
    }
    Ok(())
}

/// Interpolates `x` (`[N, C, *spatial]`) to the spatial `output` sizes.
fn upsample(
    x: &Tensor,
    spec: Spec,
    output: &[i64],
    scales: &[Option<f64>],
    align_corners: bool,
) -> TensorResult<Tensor> {
    let sizes = x.sizes();
    check_shapes(spec.dims, &sizes, output)?;
    check_dtype(x, spec, output)?;
    let mut out_sizes = sizes[..2].to_vec();
    out_sizes.extend_from_slice(output);
    // Missing leading spatial dims are size 1.
    let pad = |v: &[i64]| -> [usize; 3] {
        let mut r = [1usize; 3];
        for (k, &s) in v.iter().enumerate() {
            r[3 - v.len() + k] = s as usize;
        }
        r
    };
    let [d, h, w] = pad(&sizes[2..]);
    let input = Dims {
        planes: (sizes[0] * sizes[1]) as usize,
        d,
        h,
        w,
    };
    let mut full_scales = [None; 3];
    full_scales[3 - spec.dims..].copy_from_slice(scales);
    let g = Geometry {
        input,
        in_sizes: [d as i64, h as i64, w as i64],
        out_sizes: pad(output).map(|s| s as i64),
        scales: full_scales,
        present: 3 - spec.dims,
        align_corners,
    };
    let dtype = x.dtype();
    let out = match spec.mode {
        Mode::Nearest(rule) => {
            let channels_last = channels_last_kernel(x, output);
            let x = x.contiguous()?;
            let out = Tensor::zeros(&out_sizes, dtype)?;
            crate::dispatch_dtype!(dtype, T => nearest::<T>(&x, &out, &g, rule, channels_last));
            out
        }
        Mode::Antialias(filter) if dtype == DType::U8 => {
            separable_u8(x, &out_sizes, &g, filter, true)?
        }
        Mode::Linear if dtype == DType::U8 => {
            separable_u8(x, &out_sizes, &g, Filter::Linear, false)?
        }
        Mode::Cubic if dtype == DType::U8 => {
            separable_u8(x, &out_sizes, &g, Filter::Cubic { keys: false }, false)?
        }
        Mode::Antialias(filter) if dtype == DType::F64 => {
            separable_float::<f64>(x, &out_sizes, &g, filter)?
        }
        Mode::Antialias(filter) => separable_float::<f32>(x, &out_sizes, &g, filter)?,
        Mode::Linear | Mode::Cubic => {
            let cubic = spec.mode == Mode::Cubic;
            match dtype {
                DType::F64 => fixed_taps::<f64>(x, &out_sizes, &g, cubic, |w| w)?,
                DType::F16 => {
                    fixed_taps::<f32>(x, &out_sizes, &g, cubic, |w| f16::from_f32(w).to_f32())?
                }
                DType::BF16 => {
                    fixed_taps::<f32>(x, &out_sizes, &g, cubic, |w| bf16::from_f32(w).to_f32())?
                }
                _ => fixed_taps::<f32>(x, &out_sizes, &g, cubic, |w| w)?,
            }
        }
    };
    Ok(out)
}

/// The sizes of one interpolation as three spatial axes (`present` of them real).
struct Geometry {
    input: Dims,
    in_sizes: [i64; 3],
    out_sizes: [i64; 3],
    scales: [Option<f64>; 3],
    /// Index of the first real axis (1-d inputs have two identity axes before theirs).
    present: usize,
    align_corners: bool,
}

fn nearest<T: crate::tensor::Element>(
    x: &Tensor,
    out: &Tensor,
    g: &Geometry,
    rule: Nearest,
    channels_last: bool,
) {
    let index: Vec<Vec<usize>> = (0..3)
        .map(|k| {
            let (i, o, s) = (g.in_sizes[k], g.out_sizes[k], g.scales[k]);
            if k < g.present {
                vec![0]
            } else if channels_last {
                tables::nearest_channels_last(rule, i, o, s)
            } else if T::DTYPE == DType::F64 {
                tables::nearest_generic::<f64>(rule, i, o, s)
            } else {
                tables::nearest_generic::<f32>(rule, i, o, s)
            }
        })
        .collect();
    // SAFETY: `x` is contiguous of T; `out` is fresh and contiguous of T.
    let (xv, ov) = unsafe { (slice::<T>(x), slice_mut::<T>(out)) };
    kernel::gather(xv, g.input, ov, [&index[0], &index[1], &index[2]]);
}

/// Linear or cubic interpolation through the generic kernel, computed in `A` on a
/// contiguous copy of the input; `round` rounds weights to the input's dtype.
fn fixed_taps<A: Real + crate::tensor::Element>(
    x: &Tensor,
    out_sizes: &[i64],
    g: &Geometry,
    cubic: bool,
    round: fn(A) -> A,
) -> TensorResult<Tensor> {
    let axes: Vec<Axis<A>> = (0..3)
        .map(|k| {
            let (i, o, s) = (g.in_sizes[k], g.out_sizes[k], g.scales[k]);
            if k < g.present {
                Axis::identity()
            } else if cubic {
                tables::cubic(i, o, g.align_corners, s, round)
            } else {
                tables::linear(i, o, g.align_corners, s, round)
            }
        })
        .collect();
    let xw = to_contiguous(x, A::DTYPE)?;
    let out = Tensor::zeros(out_sizes, A::DTYPE)?;
    // SAFETY: `xw` is contiguous of A; `out` is fresh and contiguous of A.
    let (xv, ov) = unsafe { (slice::<A>(&xw), slice_mut::<A>(&out)) };
    kernel::interpolate(xv, g.input, ov, [&axes[0], &axes[1], &axes[2]]);
    if x.dtype() != A::DTYPE {
        return to_contiguous(&out, x.dtype());
    }
    Ok(out)
}

/// The order of the separable passes: the contiguous axis first, then the others from the
/// innermost out, each only where its size changes.
fn separable_axes(g: &Geometry) -> Vec<usize> {
    let mut axes = vec![2];
    axes.extend((g.present..2).rev());
    axes.retain(|&k| g.in_sizes[k] != g.out_sizes[k]);
    axes
}

/// `[outer, len, inner]` of axis `k` of current sizes `cur` (`[planes, d, h, w]`).
fn split(cur: &[usize; 4], k: usize) -> (usize, usize, usize) {
    let axis = k + 1;
    let outer = cur[..axis].iter().product();
    let inner = cur[axis + 1..].iter().product();
    (outer, cur[axis], inner)
}

/// The antialiasing kernel on float32/float64: one resampling pass per changed axis.
fn separable_float<A: Real + crate::tensor::Element>(
    x: &Tensor,
    out_sizes: &[i64],
    g: &Geometry,
    filter: Filter,
) -> TensorResult<Tensor> {
    let x = x.contiguous()?;
    // SAFETY: `x` is contiguous of A (the dtype was checked).
    let mut data: Vec<A> = unsafe { slice::<A>(&x) }.to_vec();
    let mut cur = [g.input.planes, g.input.d, g.input.h, g.input.w];
    for k in separable_axes(g) {
        let (outer, len, inner) = split(&cur, k);
        let scale: A =
            tables::pixel_scale(g.in_sizes[k], g.out_sizes[k], g.align_corners, g.scales[k]);
        let (r, _): (Ranges<A>, A) = tables::ranges(
            g.in_sizes[k],
            g.out_sizes[k],
            scale,
            filter,
            true,
            g.align_corners,
        );
        cur[k + 1] = g.out_sizes[k] as usize;
        let mut next = vec![A::ZERO; outer * cur[k + 1] * inner];
        kernel::resample_float(&data, len, inner, &r, &mut next);
        data = next;
    }
    Tensor::from_vec(data, out_sizes)
}

/// The uint8 kernel (bilinear/bicubic/lanczos, with or without antialias): fixed-point passes
/// per changed axis, each rounding to uint8.
fn separable_u8(
    x: &Tensor,
    out_sizes: &[i64],
    g: &Geometry,
    filter: Filter,
    antialias: bool,
) -> TensorResult<Tensor> {
    let x = x.contiguous()?;
    // SAFETY: `x` is contiguous uint8 (the dtype was checked).
    let mut data: Vec<u8> = unsafe { slice::<u8>(&x) }.to_vec();
    let mut cur = [g.input.planes, g.input.d, g.input.h, g.input.w];
    for k in separable_axes(g) {
        let (outer, len, inner) = split(&cur, k);
        let scale: f64 =
            tables::pixel_scale(g.in_sizes[k], g.out_sizes[k], g.align_corners, g.scales[k]);
        let (r, wt_max) = tables::ranges(
            g.in_sizes[k],
            g.out_sizes[k],
            scale,
            filter,
            antialias,
            g.align_corners,
        );
        let (r, precision) = tables::int16_weights(&r, wt_max);
        cur[k + 1] = g.out_sizes[k] as usize;
        let mut next = vec![0u8; outer * cur[k + 1] * inner];
        kernel::resample_u8(&data, len, inner, &r, precision, &mut next);
        data = next;
    }
    Tensor::from_vec(data, out_sizes)
}
