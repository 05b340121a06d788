//! Volumetric pooling: `max_pool3d` (with indices, dilation, ceil_mode), `avg_pool3d`
//! (count_include_pad, divisor_override, ceil_mode), `adaptive_avg_pool3d` and
//! `adaptive_max_pool3d`, on `[N, C, T, H, W]` or unbatched `[C, T, H, W]` inputs, with
//! PyTorch's checks in its order and its messages. Planes are independent and spread over
//! the cores when large.

use ember_dialects::{Graph, Node};

use super::pool::{adaptive_window, for_planes, greater_or_nan, output_size, Axis};
use super::work::slice_mut;
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::args::{boolean, err, int_list, op_multi, op_n, opt_int, sizes_str, tensor};
use crate::ops::registry::Registry;
use crate::ops::Operation;
use crate::tensor::{DType, Element, Tensor, TensorResult};

/// Arguments of max/avg pooling in 3-d.
pub struct Pool3d<'a> {
    pub kernel: &'a [i64],
    pub stride: &'a [i64],
    pub padding: &'a [i64],
    pub dilation: &'a [i64],
    pub ceil_mode: bool,
}

/// `int[3]` arguments: one value for all three dims or three.
fn triple(v: &[i64], default: Option<[i64; 3]>, message: &str) -> TensorResult<[i64; 3]> {
    match (v.len(), default) {
        (0, Some(d)) => Ok(d),
        (1, _) => Ok([v[0]; 3]),
        (3, _) => Ok([v[0], v[1], v[2]]),
        _ => bail!("{message}"),
    }
}

/// The three pooled axes of a 4-d or 5-d input, checked as `max_pool3d` (`avg == false`) or
/// `avg_pool3d` check them; `divisor_override` is checked where `avg_pool3d` checks it.
fn geometry(
    p: &Pool3d,
    sizes: &[i64],
    avg: bool,
    divisor_override: Option<i64>,
) -> TensorResult<[Axis; 3]> {
    let name = if avg { "avg_pool3d" } else { "max_pool3d" };
    let (k_msg, s_msg, p_msg) = if avg {
        (
            "a single int, or a tuple of three ints",
            "omitted, a single int, or a tuple of three ints",
            "a single int, or a tuple of three ints",
        )
    } else {
        (
            "either be a single int, or a tuple of three ints",
            "either be omitted, a single int, or a tuple of three ints",
            "either be a single int, or a tuple of three ints",
        )
    };
    let kernel = triple(p.kernel, None, &format!("{name}: kernel_size must {k_msg}"))?;
    let stride = triple(
        p.stride,
        Some(kernel),
        &format!("{name}: stride must {s_msg}"),
    )?;
    let padding = triple(p.padding, None, &format!("{name}: padding must {p_msg}"))?;
    let dilation = if avg {
        [1; 3]
    } else {
        triple(
            p.dilation,
            None,
            "max_pool3d: dilation must be either a single int, or a tuple of three ints",
        )?
    };
    let nd = sizes.len();
    if nd != 4 && nd != 5 {
        bail!("non-empty 4D or 5D (batch mode) tensor expected for input");
    }
    if divisor_override == Some(0) {
        bail!("divisor must be not zero");
    }
    let input = [sizes[nd - 3], sizes[nd - 2], sizes[nd - 1]];
    let mut out = [0i64; 3];
    for d in 0..3 {
        out[d] = output_size(
            input[d],
            kernel[d],
            padding[d],
            stride[d],
            dilation[d],
            p.ceil_mode,
        )?;
    }
    // pool3d_shape_check
    let [kt, kh, kw] = kernel;
    if kt <= 0 || kh <= 0 || kw <= 0 {
        bail!("kernel size should be greater than zero, but got kT: {kt} kH: {kh} kW: {kw}");
    }
    let [dt, dh, dw] = stride;
    if dt <= 0 || dh <= 0 || dw <= 0 {
        bail!("stride should be greater than zero, but got dT: {dt} dH: {dh} dW: {dw}");
    }
    let [lt, lh, lw] = dilation;
    if lt <= 0 || lh <= 0 || lw <= 0 {
        bail!(
            "dilation should be greater than zero, but got dilationT: {lt} dilationH: {lh} dilationW: {lw}"
        );
    }
    let fn_name = if avg {
        "avg_pool3d()"
    } else {
        "max_pool3d_with_indices_out_cpu_template()"
    };
    for (i, &s) in sizes.iter().enumerate() {
        if !(nd == 5 && i == 0) && s <= 0 {
            bail!(
                "{fn_name}: Expected input's non-batch dimensions to have positive length, but input has a shape of {} and non-batch dimension {s} has length zero!",
                sizes_str(sizes)
            );
        }
    }
    let [it, ih, iw] = input;
    if avg && (it < kt || ih < kh || iw < kw) {
        bail!(
            "input image (T: {it} H: {ih} W: {iw}) smaller than kernel size (kT: {kt} kH: {kh} kW: {kw})"
        );
    }
    let [pt, ph, pw] = padding;
    if kt / 2 < pt || kw / 2 < pw || kh / 2 < ph {
        bail!(
            "pad should be smaller than or equal to half of kernel size, but got kT: {kt} kW: {kw} kH: {kh} padT: {pt} padW: {pw} padH: {ph}"
        );
    }
    let [ot, oh, ow] = out;
    if ot < 1 || oh < 1 || ow < 1 {
        let c = sizes[nd - 4];
        bail!(
            "Given input size: ({c}x{it}x{ih}x{iw}). Calculated output size: ({c}x{ot}x{oh}x{ow}). Output size is too small"
        );
    }
    Ok(std::array::from_fn(|d| Axis {
        input: input[d],
        kernel: kernel[d],
        stride: stride[d],
        pad: padding[d],
        dilation: dilation[d],
        output: out[d],
    }))
}

/// The input's leading dims with the pooled sizes.
fn out_sizes(sizes: &[i64], out: [i64; 3]) -> Vec<i64> {
    let mut s = sizes[..sizes.len() - 3].to_vec();
    s.extend(out);
    s
}

/// `max_pool3d_with_indices`: the maxima (NaN wins) and their flat indices in each
/// `T x H x W` volume.
pub fn max_pool3d_with_indices(x: &Tensor, p: &Pool3d) -> TensorResult<(Tensor, Tensor)> {
    let sizes = x.sizes();
    let [at, ah, aw] = geometry(p, &sizes, false, None)?;
    if x.dtype() == DType::Bool {
        bail!("\"max_pool3d\" not implemented for 'Bool'");
    }
    let x = x.contiguous()?;
    let shape = out_sizes(&sizes, [at.output, ah.output, aw.output]);
    let out = Tensor::zeros(&shape, x.dtype())?;
    let idx = Tensor::zeros(&shape, DType::I64)?;
    let in_plane = (at.input * ah.input * aw.input) as usize;
    let out_plane = (at.output * ah.output * aw.output) as usize;
    // SAFETY: `idx` is fresh and contiguous; each plane is written by one task.
    let iv_addr = unsafe { slice_mut::<i64>(&idx) }.as_mut_ptr() as usize;
    let hw = ah.input * aw.input;
    crate::dispatch_dtype!(x.dtype(), T => {
        for_planes::<T, T>(&x, &out, in_plane, out_plane, |plane, src, dst| {
            let ind = (iv_addr as *mut i64).wrapping_add(plane * out_plane);
            let mut o = 0usize;
            for ot in 0..at.output {
                for oh in 0..ah.output {
                    for ow in 0..aw.output {
                        let mut best: Option<(T, i64)> = None;
                        for it in window(&at, ot) {
                            for ih in window(&ah, oh) {
                                for iw in window(&aw, ow) {
                                    let i = it * hw + ih * aw.input + iw;
                                    let v = src[i as usize];
                                    if best.is_none_or(|(m, _)| greater_or_nan(v, m)) {
                                        best = Some((v, i));
                                    }
                                }
                            }
                        }
                        if let Some((v, i)) = best {
                            dst[o] = v;
                            // SAFETY: element `o` of this task's plane of `idx`.
                            unsafe { *ind.add(o) = i };
                        }
                        o += 1;
                    }
                }
            }
        });
    });
    Ok((out, idx))
}

/// The input positions of output `o` along a (dilated) axis, inside the input.
fn window(a: &Axis, o: i64) -> impl Iterator<Item = i64> + '_ {
    let start = o * a.stride - a.pad;
    (0..a.kernel)
        .map(move |k| start + k * a.dilation)
        .filter(move |&i| i >= 0 && i < a.input)
}

/// `avg_pool3d`.
pub fn avg_pool3d(
    x: &Tensor,
    p: &Pool3d,
    count_include_pad: bool,
    divisor_override: Option<i64>,
) -> TensorResult<Tensor> {
    let sizes = x.sizes();
    let axes = geometry(p, &sizes, true, divisor_override)?;
    if !matches!(
        x.dtype(),
        DType::F32 | DType::F64 | DType::I64 | DType::BF16
    ) {
        bail!(
            "\"avg_pool3d_out_frame\" not implemented for '{}'",
            x.dtype().scalar_type_name()
        );
    }
    let x = x.contiguous()?;
    let [at, ah, aw] = axes;
    let out = Tensor::zeros(
        &out_sizes(&sizes, [at.output, ah.output, aw.output]),
        x.dtype(),
    )?;
    let in_plane = (at.input * ah.input * aw.input) as usize;
    let out_plane = (at.output * ah.output * aw.output) as usize;
    let floating = x.dtype().is_floating();
    // The window `[start, end)` clamped to the input and its padded length.
    let range = |a: &Axis, o: i64| {
        let start = o * a.stride - a.pad;
        let end = (start + a.kernel).min(a.input + a.pad);
        (start.max(0), end.min(a.input), end - start)
    };
    crate::dispatch_dtype!(x.dtype(), T => {
        for_planes::<T, T>(&x, &out, in_plane, out_plane, |_, src, dst| {
            let mut o = 0usize;
            for ot in 0..at.output {
                let (t0, t1, pt) = range(&at, ot);
                for oh in 0..ah.output {
                    let (h0, h1, ph) = range(&ah, oh);
                    for ow in 0..aw.output {
                        let (w0, w1, pw) = range(&aw, ow);
                        dst[o] = if t0 >= t1 || h0 >= h1 || w0 >= w1 {
                            T::from_i64(0)
                        } else {
                            let divisor = match (divisor_override, count_include_pad) {
                                (Some(d), _) => d,
                                (None, true) => pt * ph * pw,
                                (None, false) => (t1 - t0) * (h1 - h0) * (w1 - w0),
                            };
                            let cells = (t0..t1).flat_map(|t| {
                                (h0..h1).flat_map(move |h| {
                                    (w0..w1).map(move |w| ((t * ah.input + h) * aw.input + w) as usize)
                                })
                            });
                            if floating {
                                let sum: f64 = cells.map(|i| src[i].to_f64()).sum();
                                T::from_f64(sum / divisor as f64)
                            } else {
                                let sum = cells.fold(0i64, |s, i| s.wrapping_add(src[i].to_i64()));
                                T::from_i64(sum.wrapping_div(divisor))
                            }
                        };
                        o += 1;
                    }
                }
            }
        });
    });
    Ok(out)
}

/// The checks of adaptive pooling in 3-d, in the order of `name`'s kernel.
fn adaptive_check(name: &str, sizes: &[i64], output: &[i64]) -> TensorResult<()> {
    let is_avg = name == "adaptive_avg_pool3d";
    if is_avg && output.len() != 3 {
        bail!("adaptive_avg_pool3d: output_size must be 3");
    }
    let nd = sizes.len();
    if nd != 4 && nd != 5 {
        bail!(
            "{name}(): Expected 4D or 5D tensor, but got{} {}",
            if is_avg { "" } else { ":" },
            sizes_str(sizes)
        );
    }
    for (d, &s) in sizes.iter().enumerate().skip(1) {
        if s <= 0 {
            bail!(
                "{name}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {} with dimension {d} being empty",
                sizes_str(sizes)
            );
        }
    }
    if output.len() != 3 {
        bail!("adaptive_max_pool3d(): internal error: output_size.size() must be 3");
    }
    Ok(())
}

/// Adaptive pooling over `[.., T, H, W]`: `f(src, windows, dst)` fills one plane.
fn adaptive<T: Element>(
    x: &Tensor,
    out: &Tensor,
    output: [i64; 3],
    f: impl Fn(usize, &[T], &mut [T], [(i64, i64); 3], usize) + Sync,
) {
    let sizes = x.sizes();
    let nd = sizes.len();
    let (t, h, w) = (sizes[nd - 3], sizes[nd - 2], sizes[nd - 1]);
    let [ot, oh, ow] = output;
    let out_plane = (ot * oh * ow) as usize;
    for_planes::<T, T>(
        x,
        out,
        (t * h * w) as usize,
        out_plane,
        |plane, src, dst| {
            let mut o = 0usize;
            for i in 0..ot {
                let wt = adaptive_window(i, ot, t);
                for j in 0..oh {
                    let wh = adaptive_window(j, oh, h);
                    for k in 0..ow {
                        let ww = adaptive_window(k, ow, w);
                        f(plane, src, dst, [wt, wh, ww], o);
                        o += 1;
                    }
                }
            }
        },
    );
}

/// `adaptive_avg_pool3d(input, output_size)`.
pub fn adaptive_avg_pool3d(x: &Tensor, output: &[i64]) -> TensorResult<Tensor> {
    let sizes = x.sizes();
    adaptive_check("adaptive_avg_pool3d", &sizes, output)?;
    if !x.dtype().is_floating() {
        bail!(
            "\"adaptive_avg_pool3d_cpu\" not implemented for '{}'",
            x.dtype().scalar_type_name()
        );
    }
    let x = x.contiguous()?;
    let output = [output[0], output[1], output[2]];
    let out = Tensor::zeros(&out_sizes(&sizes, output), x.dtype())?;
    let nd = sizes.len();
    let (h, w) = (sizes[nd - 2], sizes[nd - 1]);
    crate::dispatch_dtype!(x.dtype(), T => {
        adaptive::<T>(&x, &out, output, |_, src, dst, [(t0, t1), (h0, h1), (w0, w1)], o| {
            let mut sum = 0.0f64;
            for t in t0..t1 {
                for hh in h0..h1 {
                    for ww in w0..w1 {
                        sum += src[((t * h + hh) * w + ww) as usize].to_f64();
                    }
                }
            }
            let count = ((t1 - t0) * (h1 - h0) * (w1 - w0)) as f64;
            dst[o] = T::from_f64(sum / count);
        });
    });
    Ok(out)
}

/// `adaptive_max_pool3d(input, output_size)`: maxima and their flat indices.
pub fn adaptive_max_pool3d(x: &Tensor, output: &[i64]) -> TensorResult<(Tensor, Tensor)> {
    let sizes = x.sizes();
    adaptive_check("adaptive_max_pool3d", &sizes, output)?;
    if !x.dtype().is_floating() {
        bail!(
            "\"adaptive_max_pool3d_cpu\" not implemented for '{}'",
            x.dtype().scalar_type_name()
        );
    }
    let x = x.contiguous()?;
    let output = [output[0], output[1], output[2]];
    let shape = out_sizes(&sizes, output);
    let out = Tensor::zeros(&shape, x.dtype())?;
    let idx = Tensor::zeros(&shape, DType::I64)?;
    let out_plane = (output[0] * output[1] * output[2]) as usize;
    // SAFETY: `idx` is fresh and contiguous; each plane is written by one task.
    let iv_addr = unsafe { slice_mut::<i64>(&idx) }.as_mut_ptr() as usize;
    let nd = sizes.len();
    let (h, w) = (sizes[nd - 2], sizes[nd - 1]);
    crate::dispatch_dtype!(x.dtype(), T => {
        adaptive::<T>(&x, &out, output, |plane, src, dst, [(t0, t1), (h0, h1), (w0, w1)], o| {
            let mut best: Option<(T, i64)> = None;
            for t in t0..t1 {
                for hh in h0..h1 {
                    for ww in w0..w1 {
                        let i = (t * h + hh) * w + ww;
                        let v = src[i as usize];
                        if best.is_none_or(|(m, _)| greater_or_nan(v, m)) {
                            best = Some((v, i));
                        }
                    }
                }
            }
            if let Some((v, i)) = best {
                dst[o] = v;
                // SAFETY: element `o` of plane `plane` of `idx`, written by this task only.
                unsafe { *(iv_addr as *mut i64).add(plane * out_plane + o) = i };
            }
        });
    });
    Ok((out, idx))
}

fn inputs(g: &Graph, n: Node) -> usize {
    g.node_inputs(n).len()
}

pub fn register(r: &mut Registry) {
    r.add("aten::max_pool3d", |g, n| max_pool3d_op(g, n, false));
    r.add("aten::max_pool3d_with_indices", |g, n| {
        max_pool3d_op(g, n, true)
    });
    r.add("aten::avg_pool3d", avg_pool3d_op);
    r.add("aten::adaptive_avg_pool3d", adaptive_avg_pool3d_op);
    r.add("aten::_adaptive_avg_pool3d", adaptive_avg_pool3d_op);
    r.add("aten::adaptive_max_pool3d", adaptive_max_pool3d_op);
}

/// `max_pool3d(self, kernel_size, stride, padding, dilation, ceil_mode)`; the
/// `_with_indices` form also returns the indices.
fn max_pool3d_op(g: &Graph, n: Node, indices: bool) -> Result<Operation, String> {
    Ok(op_multi(inputs(g, n), move |a| {
        let (k, s, p, d) = (
            int_list(&a[1])?,
            int_list(&a[2])?,
            int_list(&a[3])?,
            int_list(&a[4])?,
        );
        let pool = Pool3d {
            kernel: &k,
            stride: &s,
            padding: &p,
            dilation: &d,
            ceil_mode: boolean(&a[5])?,
        };
        let (v, i) = max_pool3d_with_indices(&tensor(&a[0])?, &pool).map_err(err)?;
        let mut out = vec![IValue::Tensor(v)];
        if indices {
            out.push(IValue::Tensor(i));
        }
        Ok(out)
    }))
}

/// `avg_pool3d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
/// divisor_override)`.
fn avg_pool3d_op(g: &Graph, n: Node) -> Result<Operation, String> {
    Ok(op_n(inputs(g, n), move |a| {
        let (k, s, p) = (int_list(&a[1])?, int_list(&a[2])?, int_list(&a[3])?);
        let pool = Pool3d {
            kernel: &k,
            stride: &s,
            padding: &p,
            dilation: &[1],
            ceil_mode: boolean(&a[4])?,
        };
        let r =
            avg_pool3d(&tensor(&a[0])?, &pool, boolean(&a[5])?, opt_int(&a[6])?).map_err(err)?;
        Ok(IValue::Tensor(r))
    }))
}

fn adaptive_avg_pool3d_op(g: &Graph, n: Node) -> Result<Operation, String> {
    Ok(op_n(inputs(g, n), move |a| {
        let r = adaptive_avg_pool3d(&tensor(&a[0])?, &int_list(&a[1])?).map_err(err)?;
        Ok(IValue::Tensor(r))
    }))
}

fn adaptive_max_pool3d_op(g: &Graph, n: Node) -> Result<Operation, String> {
    Ok(op_multi(inputs(g, n), move |a| {
        let (v, i) = adaptive_max_pool3d(&tensor(&a[0])?, &int_list(&a[1])?).map_err(err)?;
        Ok(vec![IValue::Tensor(v), IValue::Tensor(i)])
    }))
}
