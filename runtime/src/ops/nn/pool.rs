//! Pooling: max (with indices, dilation, ceil_mode), average (count_include_pad,
//! divisor_override, ceil_mode), adaptive average and adaptive max, in 2-d and 1-d, with
//! PyTorch's shape rules and messages. Each output plane is independent, so large inputs
//! spread planes over the cores.

use super::work::{slice, slice_mut, sum_f64_of};
use crate::bail;
use crate::ops::args::sizes_str;
use crate::ops::reduce::{lane_sum, lane_sums};
use crate::tensor::{wrap_dim, DType, Element, Tensor, TensorResult};

const PARALLEL_ELEMS: usize = 1 << 15;

/// A pooling window geometry for one spatial dim.
#[derive(Copy, Clone, Debug)]
pub(super) struct Axis {
    pub input: i64,
    pub kernel: i64,
    pub stride: i64,
    pub pad: i64,
    pub dilation: i64,
    pub output: i64,
}

/// PyTorch's `pooling_output_shape` with its checks.
pub(super) fn output_size(
    input: i64,
    kernel: i64,
    pad: i64,
    stride: i64,
    dilation: i64,
    ceil_mode: bool,
) -> TensorResult<i64> {
    if stride == 0 {
        bail!("stride should not be zero");
    }
    if pad < 0 {
        bail!("pad must be non-negative, but got pad: {pad}");
    }
    if pad > ((kernel - 1) * dilation + 1) / 2 {
        bail!(
            "pad should be at most half of effective kernel size, but got pad={pad}, kernel_size={kernel} and dilation={dilation}"
        );
    }
    let numer =
        input + 2 * pad - dilation * (kernel - 1) - 1 + if ceil_mode { stride - 1 } else { 0 };
    let mut out = numer.div_euclid(stride) + 1;
    if ceil_mode && (out - 1) * stride >= input + pad {
        out -= 1;
    }
    Ok(out)
}

/// `int[2]` arguments: one value for both dims or two.
fn pair(name: &str, what: &str, v: &[i64], allow_empty: bool) -> TensorResult<Option<[i64; 2]>> {
    match v.len() {
        0 if allow_empty => Ok(None),
        1 => Ok(Some([v[0], v[0]])),
        2 => Ok(Some([v[0], v[1]])),
        _ => bail!("{name}: {what}"),
    }
}

/// Arguments of max/avg pooling in 2-d.
pub struct Pool2d<'a> {
    pub name: &'a str,
    pub kernel: &'a [i64],
    pub stride: &'a [i64],
    pub padding: &'a [i64],
    pub dilation: &'a [i64],
    pub ceil_mode: bool,
}

/// Resolves the geometry of a 2-d pooling over `[.., h, w]`, with PyTorch's checks.
pub(super) fn geometry(p: &Pool2d, sizes: &[i64], avg: bool) -> TensorResult<[Axis; 2]> {
    let name = p.name;
    let kernel = pair(
        name,
        "kernel_size must either be a single int, or a tuple of two ints",
        p.kernel,
        false,
    )?
    .unwrap();
    let stride = pair(
        name,
        "stride must either be omitted, a single int, or a tuple of two ints",
        p.stride,
        true,
    )?
    .unwrap_or(kernel);
    let padding = pair(
        name,
        "padding must either be a single int, or a tuple of two ints",
        p.padding,
        false,
    )?
    .unwrap();
    let dilation = if avg {
        [1, 1]
    } else {
        pair(
            name,
            "dilation must be either a single int, or a tuple of two ints",
            p.dilation,
            false,
        )?
        .unwrap()
    };
    let nd = sizes.len();
    if nd != 3 && nd != 4 {
        if avg {
            wrap_dim(-3, nd)?;
        }
        bail!("non-empty 3D or 4D (batch mode) tensor expected for input");
    }
    let (h, w) = (sizes[nd - 2], sizes[nd - 1]);
    let oh = output_size(
        h,
        kernel[0],
        padding[0],
        stride[0],
        dilation[0],
        p.ceil_mode,
    )?;
    let ow = output_size(
        w,
        kernel[1],
        padding[1],
        stride[1],
        dilation[1],
        p.ceil_mode,
    )?;
    if kernel[0] <= 0 || kernel[1] <= 0 {
        bail!(
            "kernel size should be greater than zero, but got kH: {} kW: {}",
            kernel[0],
            kernel[1]
        );
    }
    if stride[0] <= 0 || stride[1] <= 0 {
        bail!(
            "stride should be greater than zero, but got dH: {} dW: {}",
            stride[0],
            stride[1]
        );
    }
    if dilation[0] <= 0 || dilation[1] <= 0 {
        bail!(
            "dilation should be greater than zero, but got dilationH: {} dilationW: {}",
            dilation[0],
            dilation[1]
        );
    }
    let valid = sizes[nd - 3] != 0 && h != 0 && w != 0;
    if !valid {
        bail!(
            "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{}",
            sizes_str(sizes)
        );
    }
    if oh < 1 || ow < 1 {
        bail!(
            "Given input size: ({}x{}x{}). Calculated output size: ({}x{}x{}). Output size is too small",
            sizes[nd - 3],
            h,
            w,
            sizes[nd - 3],
            oh,
            ow
        );
    }
    Ok([
        Axis {
            input: h,
            kernel: kernel[0],
            stride: stride[0],
            pad: padding[0],
            dilation: dilation[0],
            output: oh,
        },
        Axis {
            input: w,
            kernel: kernel[1],
            stride: stride[1],
            pad: padding[1],
            dilation: dilation[1],
            output: ow,
        },
    ])
}

/// The output sizes: the input's leading dims with the pooled spatial dims.
fn out_sizes(sizes: &[i64], oh: i64, ow: i64) -> Vec<i64> {
    let mut s = sizes[..sizes.len() - 2].to_vec();
    s.extend([oh, ow]);
    s
}

/// Runs `f(plane_index, input_plane, output_plane)` over every plane, in parallel when big.
pub(super) fn for_planes<T: Element, U: Element>(
    x: &Tensor,
    out: &Tensor,
    in_plane: usize,
    out_plane: usize,
    f: impl Fn(usize, &[T], &mut [U]) + Sync,
) {
    if out_plane == 0 || in_plane == 0 {
        return;
    }
    // SAFETY: `x` is contiguous of T; `out` is fresh, contiguous of U.
    let (xv, ov) = unsafe { (slice::<T>(x), slice_mut::<U>(out)) };
    let run = |(i, dst): (usize, &mut [U])| f(i, &xv[i * in_plane..(i + 1) * in_plane], dst);
    if xv.len() >= PARALLEL_ELEMS {
        crate::parallel::for_each_chunk_mut(ov, out_plane, |i, c| run((i, c)));
    } else {
        ov.chunks_mut(out_plane).enumerate().for_each(run);
    }
}

/// `max_pool2d_with_indices`: the maxima and their flat indices in each input plane.
pub fn max_pool2d_with_indices(x: &Tensor, p: &Pool2d) -> TensorResult<(Tensor, Tensor)> {
    let sizes = x.sizes();
    let [ah, aw] = geometry(p, &sizes, false)?;
    if x.dtype() == DType::Bool {
        bail!("\"max_pool2d\" not implemented for 'Bool'");
    }
    let x = x.contiguous()?;
    let shape = out_sizes(&sizes, ah.output, aw.output);
    let out = Tensor::zeros(&shape, x.dtype())?;
    let idx = Tensor::zeros(&shape, DType::I64)?;
    let in_plane = (ah.input * aw.input) as usize;
    let out_plane = (ah.output * aw.output) as usize;
    // SAFETY: `idx` is fresh and contiguous; each plane is written by one task.
    let iv = unsafe { slice_mut::<i64>(&idx) };
    let iv_addr = iv.as_mut_ptr() as usize;
    crate::dispatch_dtype!(x.dtype(), T => {
        for_planes::<T, T>(&x, &out, in_plane, out_plane, |plane, src, dst| {
            let ind = (iv_addr as *mut i64).wrapping_add(plane * out_plane);
            for oh in 0..ah.output {
                let hs = oh * ah.stride - ah.pad;
                for ow in 0..aw.output {
                    let ws = ow * aw.stride - aw.pad;
                    let mut best: Option<(T, i64)> = None;
                    for ki in 0..ah.kernel {
                        let ih = hs + ki * ah.dilation;
                        if ih < 0 || ih >= ah.input {
                            continue;
                        }
                        for kj in 0..aw.kernel {
                            let iw = ws + kj * aw.dilation;
                            if iw < 0 || iw >= aw.input {
                                continue;
                            }
                            let at = ih * aw.input + iw;
                            let v = src[at as usize];
                            let better = match best {
                                None => true,
                                Some((m, _)) => greater_or_nan(v, m),
                            };
                            if better {
                                best = Some((v, at));
                            }
                        }
                    }
                    let o = (oh * aw.output + ow) as usize;
                    if let Some((v, at)) = best {
                        dst[o] = v;
                        // SAFETY: element `o` of this task's plane of `idx`.
                        unsafe { *ind.add(o) = at };
                    }
                }
            }
        });
    });
    Ok((out, idx))
}

/// `v > m`, where a NaN beats anything (PyTorch's max pooling propagates NaN).
pub(super) fn greater_or_nan<T: Element>(v: T, m: T) -> bool {
    if T::DTYPE.is_floating() {
        let (a, b) = (v.to_f64(), m.to_f64());
        a > b || a.is_nan()
    } else {
        v.to_i64() > m.to_i64()
    }
}

/// Arguments of `avg_pool2d` beyond the window.
pub struct AvgOptions {
    pub count_include_pad: bool,
    pub divisor_override: Option<i64>,
}

/// `avg_pool2d`.
pub fn avg_pool2d(x: &Tensor, p: &Pool2d, o: &AvgOptions) -> TensorResult<Tensor> {
    let sizes = x.sizes();
    let [ah, aw] = geometry(p, &sizes, true)?;
    if o.divisor_override == Some(0) {
        bail!("divisor must be not zero");
    }
    if x.dtype() == DType::Bool {
        bail!("\"avg_pool2d\" not implemented for 'Bool'");
    }
    let x = x.contiguous()?;
    let shape = out_sizes(&sizes, ah.output, aw.output);
    let out = Tensor::zeros(&shape, x.dtype())?;
    let in_plane = (ah.input * aw.input) as usize;
    let out_plane = (ah.output * aw.output) as usize;
    let floating = x.dtype().is_floating();
    crate::dispatch_dtype!(x.dtype(), T => {
        for_planes::<T, T>(&x, &out, in_plane, out_plane, |_, src, dst| {
            for oh in 0..ah.output {
                for ow in 0..aw.output {
                    let mut hs = oh * ah.stride - ah.pad;
                    let mut ws = ow * aw.stride - aw.pad;
                    let mut he = (hs + ah.kernel).min(ah.input + ah.pad);
                    let mut we = (ws + aw.kernel).min(aw.input + aw.pad);
                    let pool_size = (he - hs) * (we - ws);
                    hs = hs.max(0);
                    ws = ws.max(0);
                    he = he.min(ah.input);
                    we = we.min(aw.input);
                    let k = (oh * aw.output + ow) as usize;
                    if hs >= he || ws >= we {
                        dst[k] = T::from_i64(0);
                        continue;
                    }
                    let divisor = match (o.divisor_override, o.count_include_pad) {
                        (Some(d), _) => d,
                        (None, true) => pool_size,
                        (None, false) => (he - hs) * (we - ws),
                    };
                    if floating {
                        let mut sum = 0.0f64;
                        for ih in hs..he {
                            for iw in ws..we {
                                sum += src[(ih * aw.input + iw) as usize].to_f64();
                            }
                        }
                        dst[k] = T::from_f64(sum / divisor as f64);
                    } else {
                        let mut sum = 0i64;
                        for ih in hs..he {
                            for iw in ws..we {
                                sum = sum.wrapping_add(src[(ih * aw.input + iw) as usize].to_i64());
                            }
                        }
                        dst[k] = T::from_i64(sum.wrapping_div(divisor));
                    }
                }
            }
        });
    });
    Ok(out)
}

/// The window `[start, end)` of output cell `i` of `out` cells over `size` inputs.
pub(super) fn adaptive_window(i: i64, out: i64, size: i64) -> (i64, i64) {
    let start = (i * size) / out;
    let end = ((i + 1) * size + out - 1) / out;
    (start, end)
}

/// The checks of adaptive pooling in 2-d.
fn adaptive_check(name: &str, sizes: &[i64], output: &[i64], colon: bool) -> TensorResult<()> {
    if output.len() != 2 {
        bail!("{name}: output_size must be 2");
    }
    let nd = sizes.len();
    if nd != 3 && nd != 4 {
        bail!(
            "{name}(): Expected 3D or 4D tensor, but got{} {}",
            if colon { ":" } else { "" },
            sizes_str(sizes)
        );
    }
    for d in (nd - 3)..nd {
        if sizes[d] == 0 {
            bail!(
                "{name}(): Expected input to have non-zero size for non-batch dimensions, but input has sizes {} with dimension {d} being empty",
                sizes_str(sizes)
            );
        }
    }
    if output.iter().any(|&o| o < 0) {
        bail!(
            "{name}: elements of output_size must be greater than or equal to 0 but received {{{}, {}}}",
            output[0],
            output[1]
        );
    }
    Ok(())
}

/// `adaptive_avg_pool2d(input, output_size)`.
pub fn adaptive_avg_pool2d(x: &Tensor, output: &[i64]) -> TensorResult<Tensor> {
    let sizes = x.sizes();
    adaptive_check("adaptive_avg_pool2d", &sizes, output, false)?;
    if !x.dtype().is_floating() {
        bail!(
            "\"adaptive_avg_pool2d\" not implemented for '{}'",
            x.dtype().scalar_type_name()
        );
    }
    let x = x.contiguous()?;
    let nd = sizes.len();
    let (h, w) = (sizes[nd - 2], sizes[nd - 1]);
    let (oh, ow) = (output[0], output[1]);
    let out = Tensor::zeros(&out_sizes(&sizes, oh, ow), x.dtype())?;
    if oh == 1 && ow == 1 {
        global_avg_pool(&x, &out, (h * w) as usize);
        return Ok(out);
    }
    // The windows once, not per plane: each takes two divisions.
    let rows: Vec<(i64, i64)> = (0..oh).map(|i| adaptive_window(i, oh, h)).collect();
    let cols: Vec<(i64, i64)> = (0..ow).map(|j| adaptive_window(j, ow, w)).collect();
    crate::dispatch_dtype!(x.dtype(), T => {
        let level = crate::ops::cpu::isa();
        for_planes::<T, T>(&x, &out, (h * w) as usize, (oh * ow) as usize, |_, src, dst| {
            if ow == 1 {
                // Every window spans whole rows: one contiguous run, summed by lane_sum's
                // vector loop (global pooling took `global_avg_pool` above).
                for (d, &(hs, he)) in dst.iter_mut().zip(&rows) {
                    let sum = lane_sum(&src[(hs * w) as usize..(he * w) as usize]);
                    *d = T::from_f64(sum / ((he - hs) * w) as f64);
                }
                return;
            }
            crate::ops::cpu::dispatch(level, #[inline(always)] || {
                for (i, &(hs, he)) in rows.iter().enumerate() {
                    for (j, &(ws, we)) in cols.iter().enumerate() {
                        let mut sum = 0.0f64;
                        for ih in hs..he {
                            let run = &src[(ih * w + ws) as usize..(ih * w + we) as usize];
                            sum += sum_f64_of(run, |x| x);
                        }
                        let n = ((he - hs) * (we - ws)) as f64;
                        dst[i * ow as usize + j] = T::from_f64(sum / n);
                    }
                }
            });
        });
    });
    Ok(out)
}

/// Average pooling of each contiguous plane of `plane` elements of `x` into one element of
/// `out`: runs of planes per task, summed by `lane_sums` (the vector loop chosen once: a
/// lookup and a call per plane cost more than summing a 7x7 plane).
fn global_avg_pool(x: &Tensor, out: &Tensor, plane: usize) {
    let planes = out.numel();
    if planes == 0 || plane == 0 {
        return;
    }
    crate::dispatch_dtype!(x.dtype(), T => {
        // SAFETY: `x` is contiguous of T, `planes * plane` elements; `out` is fresh,
        // contiguous of T.
        let (xv, ov) = unsafe { (slice::<T>(x), slice_mut::<T>(out)) };
        let per_task = if xv.len() >= PARALLEL_ELEMS {
            planes.div_ceil(4 * crate::parallel::threads())
        } else {
            planes
        };
        crate::parallel::for_each_chunk_mut(ov, per_task, |i, dst| {
            let src = &xv[i * per_task * plane..][..dst.len() * plane];
            lane_sums(src, plane, |j, sum| dst[j] = T::from_f64(sum / plane as f64));
        });
    });
}

/// `adaptive_max_pool2d(input, output_size)`: maxima and their flat indices.
pub fn adaptive_max_pool2d(x: &Tensor, output: &[i64]) -> TensorResult<(Tensor, Tensor)> {
    let sizes = x.sizes();
    adaptive_check("adaptive_max_pool2d", &sizes, output, true)?;
    if !x.dtype().is_floating() {
        bail!(
            "\"adaptive_max_pool2d\" not implemented for '{}'",
            x.dtype().scalar_type_name()
        );
    }
    let x = x.contiguous()?;
    let nd = sizes.len();
    let (h, w) = (sizes[nd - 2], sizes[nd - 1]);
    let (oh, ow) = (output[0], output[1]);
    let shape = out_sizes(&sizes, oh, ow);
    let out = Tensor::zeros(&shape, x.dtype())?;
    let idx = Tensor::zeros(&shape, DType::I64)?;
    let out_plane = (oh * ow) as usize;
    // SAFETY: `idx` is fresh and contiguous; each plane is written by one task.
    let iv_addr = unsafe { slice_mut::<i64>(&idx) }.as_mut_ptr() as usize;
    crate::dispatch_dtype!(x.dtype(), T => {
        for_planes::<T, T>(&x, &out, (h * w) as usize, out_plane, |plane, src, dst| {
            let ind = (iv_addr as *mut i64).wrapping_add(plane * out_plane);
            for i in 0..oh {
                let (hs, he) = adaptive_window(i, oh, h);
                for j in 0..ow {
                    let (ws, we) = adaptive_window(j, ow, w);
                    let mut best: Option<(T, i64)> = None;
                    for ih in hs..he {
                        for iw in ws..we {
                            let at = ih * w + iw;
                            let v = src[at as usize];
                            if best.is_none_or(|(m, _)| greater_or_nan(v, m)) {
                                best = Some((v, at));
                            }
                        }
                    }
                    let k = (i * ow + j) as usize;
                    if let Some((v, at)) = best {
                        dst[k] = v;
                        // SAFETY: element `k` of this task's plane of `idx`.
                        unsafe { *ind.add(k) = at };
                    }
                }
            }
        });
    });
    Ok((out, idx))
}

/// A 1-d pooling argument (`int[1]`): its single value.
fn single(name: &str, what: &str, v: &[i64], default: Option<i64>) -> TensorResult<i64> {
    match (v.len(), default) {
        (0, Some(d)) => Ok(d),
        (1, _) => Ok(v[0]),
        _ => bail!("{name}() {what} must be an int, list of ints or tuple of ints of size 1 but got size {}", v.len()),
    }
}

/// `max_pool1d(_with_indices)`: the 2-d kernel over a height-1 view.
pub fn max_pool1d_with_indices(
    x: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    dilation: &[i64],
    ceil_mode: bool,
) -> TensorResult<(Tensor, Tensor)> {
    let nd = x.dim();
    let sizes = x.sizes();
    if (nd != 2 && nd != 3) || sizes[nd - 1] == 0 || (nd == 3 && sizes[1] == 0) {
        bail!(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but got:{}",
            sizes_str(&sizes)
        );
    }
    let k = single("max_pool1d", "kernel_size", kernel, None)?;
    let s = single("max_pool1d", "stride", stride, Some(k))?;
    let p = single("max_pool1d", "padding", padding, None)?;
    let d = single("max_pool1d", "dilation", dilation, None)?;
    if k <= 0 {
        bail!("max_pool1d() kernel_size must be greater than zero, but got {k}");
    }
    if s <= 0 {
        bail!("max_pool1d() stride must be greater than zero, but got {s}");
    }
    if p < 0 {
        bail!("max_pool1d() padding must be non-negative, but got {p}");
    }
    if p > k / 2 {
        bail!("max_pool1d() padding should be at most half of kernel size, but got padding={p} and kernel_size={k}");
    }
    if d <= 0 {
        bail!("max_pool1d() dilation must be greater than zero, but got {d}");
    }
    let out = output_size(sizes[nd - 1], k, p, s, d, ceil_mode)?;
    if out <= 0 {
        bail!("max_pool1d() Invalid computed output size: {out}");
    }
    let pool = Pool2d {
        name: "max_pool2d",
        kernel: &[1, k],
        stride: &[1, s],
        padding: &[0, p],
        dilation: &[1, d],
        ceil_mode,
    };
    let (v, i) = max_pool2d_with_indices(&x.unsqueeze(-2)?, &pool)?;
    Ok((v.squeeze(Some(-2))?, i.squeeze(Some(-2))?))
}

/// `avg_pool1d`: the 2-d kernel over a height-1 view.
pub fn avg_pool1d(
    x: &Tensor,
    kernel: &[i64],
    stride: &[i64],
    padding: &[i64],
    ceil_mode: bool,
    count_include_pad: bool,
) -> TensorResult<Tensor> {
    let nd = x.dim();
    if nd != 2 && nd != 3 {
        bail!("Expected 2 to 3 dimensions, but got {nd}-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)");
    }
    let k = single("avg_pool1d", "kernel_size", kernel, None)?;
    let s = single("avg_pool1d", "stride", stride, Some(k))?;
    let p = single("avg_pool1d", "padding", padding, None)?;
    let pool = Pool2d {
        name: "avg_pool2d",
        kernel: &[1, k],
        stride: &[1, s],
        padding: &[0, p],
        dilation: &[1],
        ceil_mode,
    };
    let opts = AvgOptions {
        count_include_pad,
        divisor_override: None,
    };
    avg_pool2d(&x.unsqueeze(-2)?, &pool, &opts)?.squeeze(Some(-2))
}

/// `adaptive_avg_pool1d` / `adaptive_max_pool1d` through the 2-d kernels.
pub fn adaptive_pool1d(
    name: &str,
    x: &Tensor,
    output: &[i64],
) -> TensorResult<(Tensor, Option<Tensor>)> {
    if output.len() != 1 {
        bail!(
            "{name}() argument 'output_size' should contain one int (got {})",
            output.len()
        );
    }
    let nd = x.dim();
    if nd != 2 && nd != 3 {
        bail!(
            "{name}(): Expected 2D or 3D tensor, but got: {}",
            sizes_str(&x.sizes())
        );
    }
    let x2 = x.unsqueeze(-2)?;
    if name == "adaptive_max_pool1d" {
        let (v, i) = adaptive_max_pool2d(&x2, &[1, output[0]])?;
        Ok((v.squeeze(Some(-2))?, Some(i.squeeze(Some(-2))?)))
    } else {
        Ok((
            adaptive_avg_pool2d(&x2, &[1, output[0]])?.squeeze(Some(-2))?,
            None,
        ))
    }
}
