//! Convolution (1-d and 2-d, plain and transposed) with groups, stride, padding (numbers or
//! "same"/"valid"), dilation and bias, checked with PyTorch's messages.
//!
//! The forward product is im2col + GEMM: the patches of one sample laid out as a
//! `[groups, C/g*kh*kw, Ho*Wo]` matrix, multiplied by the `[groups, O/g, C/g*kh*kw]` weights
//! in one batched GEMM. 1x1 stride-1 kernels skip im2col (the input is the matrix already);
//! convolutions with one input channel per group (depthwise) run a direct loop, which beats
//! a GEMM with a reduction of only kh*kw. Transposed convolution is the adjoint: a GEMM into
//! columns, then col2im adds them into the output.
//!
//! float32 forward convolutions on AVX2 and AVX-512 machines take the direct kernel
//! (conv_direct.rs), Winograd's F(2x2, 3x3) for 3x3 kernels with many channels and constant
//! weights (winograd.rs) or the vectorized depthwise kernel (depthwise.rs), which apply the
//! fused epilogue of `ember::conv2d_fused` (residual, activation) to each tile while it is in
//! cache; the other paths apply it in one pass after.

use std::sync::Arc;

use super::epilogue::{apply_to, Epilogue};
use super::winograd::WeightCache;
use super::work::{slice, slice_mut, to_contiguous, work_dtype, Work};
use crate::bail;
use crate::ops::args::sizes_str;
use crate::ops::cpu;
use crate::ops::linalg::gemm::{bgemm, gemm_serial};
use crate::ops::linalg::sgemm;
use crate::parallel;
use crate::tensor::{DType, Tensor, TensorResult};

/// Work above this many elements is spread over the cores.
const PARALLEL_ELEMS: usize = 1 << 14;

/// The hyper-parameters of a convolution, one entry per spatial dim (or one for all).
#[derive(Clone, Debug)]
pub struct ConvParams {
    pub stride: Vec<i64>,
    pub padding: Vec<i64>,
    /// Extra padding on the high side of each dim ("same" with an odd total padding).
    pub padding_extra: Vec<i64>,
    pub dilation: Vec<i64>,
    pub transposed: bool,
    pub output_padding: Vec<i64>,
    pub groups: i64,
    /// The graph node's cache of transformed weights, where they are a graph constant.
    pub weights: Option<Arc<WeightCache>>,
}

impl ConvParams {
    pub fn new(stride: Vec<i64>, padding: Vec<i64>, dilation: Vec<i64>, groups: i64) -> Self {
        ConvParams {
            stride,
            padding,
            padding_extra: Vec::new(),
            dilation,
            transposed: false,
            output_padding: vec![0],
            groups,
            weights: None,
        }
    }
}

/// Resolves a padding string (`"same"` / `"valid"`) for a weight, as `conv2d.padding` does.
pub fn string_padding(mode: &str, weight: &Tensor, params: &mut ConvParams) -> TensorResult<()> {
    let dims = weight.dim().saturating_sub(2);
    match mode {
        "valid" => {
            params.padding = vec![0; dims.max(1)];
        }
        "same" => {
            let stride = expand_param("stride", &params.stride, dims)?;
            if stride.iter().any(|&s| s != 1) {
                bail!("padding='same' is not supported for strided convolutions");
            }
            let dilation = expand_param("dilation", &params.dilation, dims)?;
            let ws = weight.sizes();
            let mut lo = Vec::new();
            let mut extra = Vec::new();
            for d in 0..dims {
                let total = dilation[d] * (ws[d + 2] - 1);
                lo.push(total / 2);
                extra.push(total - 2 * (total / 2));
            }
            params.padding = lo;
            params.padding_extra = extra;
        }
        other => bail!("Invalid padding string: '{other}'"),
    }
    Ok(())
}

/// PyTorch's `expand_param_if_needed`.
fn expand_param(name: &str, v: &[i64], dims: usize) -> TensorResult<Vec<i64>> {
    if v.len() == 1 {
        return Ok(vec![v[0]; dims]);
    }
    if v.len() != dims {
        bail!(
            "expected {name} to be a single integer value or a list of {dims} values to match the convolution dimensions, but got {name}={}",
            sizes_str(v)
        );
    }
    Ok(v.to_vec())
}

/// `torch.nn.functional.conv{1,2}d` / `conv_transpose{1,2}d` on a possibly unbatched input:
/// `batched_rank` is the rank of a batched input (3 for 1-d, 4 for 2-d).
pub fn conv_functional(
    name: &str,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    params: &ConvParams,
    batched_rank: usize,
) -> TensorResult<Tensor> {
    conv_functional_fused(
        name,
        input,
        weight,
        bias,
        params,
        batched_rank,
        &Epilogue::NONE,
    )
}

/// [`conv_functional`] followed by a fused epilogue (float32 only). The epilogue's residual,
/// if any, is the address of a contiguous float32 tensor with the output's element count,
/// which the caller keeps alive for the call.
pub(crate) fn conv_functional_fused(
    name: &str,
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    params: &ConvParams,
    batched_rank: usize,
    epi: &Epilogue,
) -> TensorResult<Tensor> {
    let nd = input.dim();
    if nd != batched_rank && nd != batched_rank - 1 {
        bail!(
            "Expected {}D (unbatched) or {}D (batched) input to {name}, but got input of size: {}",
            batched_rank - 1,
            batched_rank,
            sizes_str(&input.sizes())
        );
    }
    if nd == batched_rank {
        return convolution_fused(input, weight, bias, params, epi);
    }
    convolution_fused(&input.unsqueeze(0)?, weight, bias, params, epi)?.squeeze(Some(0))
}

/// `aten::convolution` / `aten::_convolution`: the checks of PyTorch's
/// `check_shape_forward`, then the kernel.
pub fn convolution(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    p: &ConvParams,
) -> TensorResult<Tensor> {
    convolution_fused(input, weight, bias, p, &Epilogue::NONE)
}

/// [`convolution`] followed by a fused epilogue (see [`conv_functional_fused`]).
pub(crate) fn convolution_fused(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    p: &ConvParams,
    epi: &Epilogue,
) -> TensorResult<Tensor> {
    let wd = weight.dim();
    let dims = wd.max(3) - 2;
    let stride = expand_param("stride", &p.stride, dims)?;
    let padding = expand_param("padding", &p.padding, dims)?;
    let dilation = expand_param("dilation", &p.dilation, dims)?;
    let output_padding = expand_param("output_padding", &p.output_padding, dims)?;
    let extra = if p.padding_extra.is_empty() {
        vec![0; dims]
    } else {
        p.padding_extra.clone()
    };
    let groups = p.groups;
    if padding.iter().any(|&x| x < 0) {
        bail!("negative padding is not supported");
    }
    if output_padding.iter().any(|&x| x < 0) {
        bail!("negative output_padding is not supported");
    }
    if stride.iter().any(|&x| x <= 0) {
        bail!("non-positive stride is not supported");
    }
    if dilation.iter().any(|&x| x <= 0) {
        bail!("dilation should be greater than zero");
    }
    if groups <= 0 {
        bail!("non-positive groups is not supported");
    }
    let (is, ws) = (input.sizes(), weight.sizes());
    if input.dim() != wd {
        bail!(
            "Expected {wd}-dimensional input for {wd}-dimensional weight {}, but got {}-dimensional input of size {} instead",
            sizes_str(&ws),
            input.dim(),
            sizes_str(&is)
        );
    }
    if wd < 3 {
        bail!("weight should have at least three dimensions");
    }
    if wd == 4 && (ws[2] <= 0 || ws[3] <= 0) {
        // PyTorch's 2-d check; an empty kernel would otherwise give zeros.
        bail!(
            "kernel size should be greater than zero, but got kernel_height: {} kernel_width: {}",
            ws[2],
            ws[3]
        );
    }
    if ws[0] < groups {
        bail!(
            "Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got weight of size {} instead",
            sizes_str(&ws)
        );
    }
    if ws[0] % groups != 0 {
        bail!(
            "Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, but got weight of size [{}] instead",
            sizes_str(&ws)
        );
    }
    if !p.transposed {
        if is[1] != ws[1] * groups {
            bail!(
                "Given groups={groups}, weight of size {}, expected input{} to have {} channels, but got {} channels instead",
                sizes_str(&ws),
                sizes_str(&is),
                ws[1] * groups,
                is[1]
            );
        }
        if let Some(b) = bias {
            if b.dim() != 1 || b.sizes()[0] != ws[0] {
                bail!(
                    "Given weight of size {}, expected bias to be 1-dimensional with {} elements, but got bias of size {} instead",
                    sizes_str(&ws),
                    ws[0],
                    sizes_str(&b.sizes())
                );
            }
        }
        let mut padded = Vec::new();
        let mut kernel = Vec::new();
        for d in 0..dims {
            padded.push(is[d + 2] + 2 * padding[d] + extra[d]);
            kernel.push(dilation[d] * (ws[d + 2] - 1) + 1);
        }
        if padded.iter().zip(&kernel).any(|(p, k)| p < k) {
            let join = |v: &[i64]| {
                v.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(" x ")
            };
            bail!(
                "Calculated padded input size per channel: ({}). Kernel size: ({}). Kernel size can't be greater than actual input size",
                join(&padded),
                join(&kernel)
            );
        }
    } else {
        if is[1] != ws[0] {
            bail!(
                "Given transposed=1, weight of size {}, expected input{} to have {} channels, but got {} channels instead",
                sizes_str(&ws),
                sizes_str(&is),
                ws[0],
                is[1]
            );
        }
        if let Some(b) = bias {
            if b.dim() != 1 || b.sizes()[0] != ws[1] * groups {
                bail!(
                    "Given transposed=1, weight of size {}, expected bias to be 1-dimensional with {} elements, but got bias of size {} instead",
                    sizes_str(&ws),
                    ws[1] * groups,
                    sizes_str(&b.sizes())
                );
            }
        }
        for d in 0..dims {
            if output_padding[d] >= stride[d] && output_padding[d] >= dilation[d] {
                let names = ["height", "width"];
                let _ = names;
                if dims == 2 {
                    bail!(
                        "output padding must be smaller than either stride or dilation, but got output_padding_height: {} output_padding_width: {} stride_height: {} stride_width: {} dilation_height: {} dilation_width: {}",
                        output_padding[0], output_padding[1], stride[0], stride[1], dilation[0], dilation[1]
                    );
                }
                if dims == 3 {
                    let (o, s, d) = (&output_padding, &stride, &dilation);
                    bail!(
                        "output padding must be smaller than either stride or dilation, but got output_padding_depth: {} output_padding_height: {} output_padding_width: {} stride_depth: {} stride_height: {} stride_width: {} dilation_depth: {} dilation_height: {} dilation_width: {}",
                        o[0], o[1], o[2], s[0], s[1], s[2], d[0], d[1], d[2]
                    );
                }
                bail!(
                    "output padding must be smaller than either stride or dilation, but got output_padding: {} stride: {} dilation: {}",
                    output_padding[d], stride[d], dilation[d]
                );
            }
        }
    }
    if input.dtype() != weight.dtype() {
        bail!(
            "expected scalar type {} but found {}",
            input.dtype().scalar_type_name(),
            weight.dtype().scalar_type_name()
        );
    }
    if let Some(b) = bias {
        if b.dtype() != input.dtype() {
            bail!(
                "expected scalar type {} but found {}",
                input.dtype().scalar_type_name(),
                b.dtype().scalar_type_name()
            );
        }
    }
    if input.dtype() == DType::Bool {
        bail!("\"slow_conv2d_cpu\" not implemented for 'Bool'");
    }
    if dims == 3 {
        let p3 = super::conv3d::Params3d {
            stride: &stride,
            padding: &padding,
            extra: &extra,
            dilation: &dilation,
            output_padding: &output_padding,
            groups,
            transposed: p.transposed,
        };
        return super::conv3d::convolution3d(input, weight, bias, &p3);
    }
    if dims > 3 {
        bail!("Ember computes 1-d, 2-d and 3-d convolutions; this weight has {dims} spatial dims");
    }
    // 1-d convolutions run as 2-d ones of height 1.
    let (x, w, pad2, extra2, st2, dil2, op2) = if dims == 1 {
        (
            input.unsqueeze(2)?,
            weight.unsqueeze(2)?,
            [0, padding[0]],
            [0, extra[0]],
            [1, stride[0]],
            [1, dilation[0]],
            [0, output_padding[0]],
        )
    } else {
        (
            input.clone(),
            weight.clone(),
            [padding[0], padding[1]],
            [extra[0], extra[1]],
            [stride[0], stride[1]],
            [dilation[0], dilation[1]],
            [output_padding[0], output_padding[1]],
        )
    };
    let dtype = input.dtype();
    if !epi.is_identity() && dtype != DType::F32 {
        bail!(
            "a fused convolution epilogue needs float32, not {}",
            dtype.scalar_type_name()
        );
    }
    let wt = work_dtype(dtype);
    let x = to_contiguous(&x, wt)?;
    let w = to_contiguous(&w, wt)?;
    let b = bias.map(|b| to_contiguous(b, wt)).transpose()?;
    let (xs, wsz) = (x.sizes(), w.sizes());
    let geo = Geometry {
        n: xs[0],
        c: xs[1],
        h: xs[2],
        w: xs[3],
        o: if p.transposed {
            wsz[1] * groups
        } else {
            wsz[0]
        },
        groups,
        kh: wsz[2],
        kw: wsz[3],
        sh: st2[0],
        sw: st2[1],
        ph: pad2[0],
        pw: pad2[1],
        dh: dil2[0],
        dw: dil2[1],
        ho: 0,
        wo: 0,
    };
    let out = if p.transposed {
        let mut g = geo;
        g.ho = (g.h - 1) * g.sh - 2 * g.ph + g.dh * (g.kh - 1) + op2[0] + 1;
        g.wo = (g.w - 1) * g.sw - 2 * g.pw + g.dw * (g.kw - 1) + op2[1] + 1;
        if g.ho < 0 || g.wo < 0 {
            bail!(
                "Given input size per channel: ({} x {}). Calculated output size per channel: ({} x {}). Output size is too small",
                g.h, g.w, g.ho, g.wo
            );
        }
        let out = crate::dispatch_work!(wt, T => transposed_conv::<T>(&x, &w, b.as_ref(), g))?;
        apply_to(&out, epi);
        out
    } else {
        let mut g = geo;
        g.ho = (g.h + 2 * g.ph + extra2[0] - g.dh * (g.kh - 1) - 1) / g.sh + 1;
        g.wo = (g.w + 2 * g.pw + extra2[1] - g.dw * (g.kw - 1) - 1) / g.sw + 1;
        let cache = p.weights.as_deref();
        crate::dispatch_work!(wt, T => forward_conv::<T>(&x, &w, b.as_ref(), g, epi, cache))?
    };
    let out = if dims == 1 {
        out.squeeze(Some(2))?
    } else {
        out
    };
    if out.dtype() != dtype {
        return to_contiguous(&out, dtype);
    }
    Ok(out)
}

/// Calls `$body` with `$T` bound to the Rust type of a work dtype (f32, f64 or i64).
#[macro_export]
macro_rules! dispatch_work {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::tensor::DType::F64 => {
                type $T = f64;
                $body
            }
            $crate::tensor::DType::F32 => {
                type $T = f32;
                $body
            }
            _ => {
                type $T = i64;
                $body
            }
        }
    };
}

/// Sizes of a 2-d convolution: input `[n, c, h, w]`, `o` output channels, kernel `kh x kw`,
/// stride, low-side padding, dilation, output `ho x wo`.
#[derive(Copy, Clone, Debug)]
struct Geometry {
    n: i64,
    c: i64,
    h: i64,
    w: i64,
    o: i64,
    groups: i64,
    kh: i64,
    kw: i64,
    sh: i64,
    sw: i64,
    ph: i64,
    pw: i64,
    dh: i64,
    dw: i64,
    ho: i64,
    wo: i64,
}

/// An output `[n, o, ho, wo]` holding the bias of each channel (zeros without one).
fn output_with_bias<T: Work>(
    n: i64,
    o: i64,
    ho: i64,
    wo: i64,
    bias: Option<&Tensor>,
) -> TensorResult<Tensor> {
    let out = Tensor::zeros(&[n, o, ho, wo], T::DTYPE)?;
    if let Some(b) = bias {
        // SAFETY: `b` is contiguous of T (converted by the caller); `out` is fresh.
        let (bv, ov) = unsafe { (slice::<T>(b), slice_mut::<T>(&out)) };
        let plane = (ho * wo) as usize;
        if plane > 0 {
            for (i, chunk) in ov.chunks_mut(plane).enumerate() {
                chunk.fill(bv[i % o as usize]);
            }
        }
    }
    Ok(out)
}

fn forward_conv<T: Work>(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    g: Geometry,
    epi: &Epilogue,
    cache: Option<&WeightCache>,
) -> TensorResult<Tensor> {
    let level = cpu::isa();
    if T::DTYPE == DType::F32 && g.n * g.o * g.ho * g.wo > 0 {
        let pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
        let direct = if pointwise && sgemm::available(level) {
            Some(forward_pointwise(x, w, bias, g, level, epi)?)
        } else if let (Some(shape), Some(cache)) = (winograd_shape(g, level), cache) {
            Some(forward_winograd(x, w, bias, g, shape, level, epi, cache)?)
        } else if g.c / g.groups == 1 {
            forward_depthwise(x, w, bias, g, level, epi)?
        } else {
            forward_direct(x, w, bias, g, level, epi)?
        };
        if let Some(out) = direct {
            return Ok(out);
        }
    }
    let out = forward_gemm::<T>(x, w, bias, g)?;
    apply_to(&out, epi);
    Ok(out)
}

/// The forward convolution through im2col (or none, for 1x1 kernels) and GEMM.
fn forward_gemm<T: Work>(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    g: Geometry,
) -> TensorResult<Tensor> {
    let out = output_with_bias::<T>(g.n, g.o, g.ho, g.wo, bias)?;
    if out.numel() == 0 {
        return Ok(out);
    }
    let cg = g.c / g.groups;
    let og = g.o / g.groups;
    let beta = if bias.is_some() { 1.0 } else { 0.0 };
    if cg == 1 {
        depthwise::<T>(x, w, &out, g);
        return Ok(out);
    }
    let kk = g.kh * g.kw;
    let plane = g.ho * g.wo;
    let pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
    if pointwise && g.ho == g.h && g.wo == g.w && g.groups == 1 {
        // One batched product over the samples, no copy of the input.
        let a = w.view(&[1, g.o, g.c])?.expand(&[g.n, g.o, g.c])?;
        let b = x.view(&[g.n, g.c, plane])?;
        bgemm(
            "slow_conv2d_cpu",
            &a,
            &b,
            &out.view(&[g.n, g.o, plane])?,
            1.0,
            beta,
        )?;
        return Ok(out);
    }
    if T::DTYPE.is_floating() && !pointwise {
        forward_tiled::<T>(x, w, &out, g, bias.is_some())?;
        return Ok(out);
    }
    let a = w.view(&[g.groups, og, cg * kk])?;
    // Every element is written by im2col, so a reused buffer needs no clearing.
    let col = scratch(&[g.groups, cg * kk, plane], T::DTYPE)?;
    for s in 0..g.n {
        let xs = x.select(0, s)?;
        let os = out.select(0, s)?.view(&[g.groups, og, plane])?;
        if pointwise {
            let b = xs.view(&[g.groups, cg, g.h * g.w])?;
            bgemm("slow_conv2d_cpu", &a, &b, &os, 1.0, beta)?;
        } else {
            im2col::<T>(&xs, &col, g);
            bgemm("slow_conv2d_cpu", &a, &col, &os, 1.0, beta)?;
        }
    }
    Ok(out)
}

/// The Winograd kernel's shape for `g`, where it takes `g` at `level`: a 3x3 kernel of stride
/// and dilation 1 in one group, with enough channels and output.
fn winograd_shape(g: Geometry, level: cpu::Isa) -> Option<super::winograd::Shape> {
    let three = g.kh == 3 && g.kw == 3 && g.sh == 1 && g.sw == 1 && g.dh == 1 && g.dw == 1;
    if !three || g.groups != 1 {
        return None;
    }
    let u = |v: i64| v as usize;
    let shape = super::winograd::Shape {
        n: u(g.n),
        c: u(g.c),
        h: u(g.h),
        w: u(g.w),
        o: u(g.o),
        ph: u(g.ph),
        pw: u(g.pw),
        ho: u(g.ho),
        wo: u(g.wo),
    };
    super::winograd::applies(&shape, level).then_some(shape)
}

/// The float32 3x3 convolution by Winograd's F(2x2, 3x3) (`winograd`), its weights'
/// transform from the node's `cache`. Weights that are not a graph constant take the direct
/// kernel: transforming 256 x 256 x 3x3 weights on every call cost what the 14x14
/// convolution saved.
#[allow(clippy::too_many_arguments)]
fn forward_winograd(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    g: Geometry,
    shape: super::winograd::Shape,
    level: cpu::Isa,
    epi: &Epilogue,
    cache: &WeightCache,
) -> TensorResult<Tensor> {
    let u = super::winograd::cached_weights(cache, w, shape.o, shape.c);
    let out = output_for_overwrite(g)?;
    // SAFETY: contiguous float32 tensors of the shape's sizes (converted by the caller);
    // `out` is our fresh output; `level` comes from `cpu::isa` and has the GEMM kernels.
    unsafe {
        super::winograd::forward(
            &shape,
            slice::<f32>(x),
            &u,
            bias.map(|b| slice::<f32>(b)),
            slice_mut::<f32>(&out),
            level,
            epi,
        )
    };
    Ok(out)
}

/// The float32 convolution through the direct kernel (`conv_direct`), or `None` where this
/// instruction set or shape takes the im2col path.
fn forward_direct(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    g: Geometry,
    level: cpu::Isa,
    epi: &Epilogue,
) -> TensorResult<Option<Tensor>> {
    #[cfg(target_arch = "x86_64")]
    {
        use super::conv_direct::{available, forward, layout_len, Shape};
        let pointwise = g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0;
        if pointwise || !available(level) {
            return Ok(None);
        }
        let u = |v: i64| v as usize;
        let shape = Shape {
            n: u(g.n),
            groups: u(g.groups),
            c: u(g.c / g.groups),
            h: u(g.h),
            w: u(g.w),
            o: u(g.o / g.groups),
            kh: u(g.kh),
            kw: u(g.kw),
            sh: u(g.sh),
            sw: u(g.sw),
            ph: u(g.ph),
            pw: u(g.pw),
            dh: u(g.dh),
            dw: u(g.dw),
            ho: u(g.ho),
            wo: u(g.wo),
        };
        let Some(len) = layout_len(&shape) else {
            return Ok(None);
        };
        let out = output_for_overwrite(g)?;
        let layout = scratch(&[len as i64], DType::F32)?;
        // SAFETY: contiguous float32 tensors of the shape's sizes (converted by the caller);
        // `out` and `layout` are our own buffers; `layout` has `layout_len` floats;
        // `available(level)` holds and `level` comes from `cpu::isa`.
        unsafe {
            let b = bias.map(|b| slice::<f32>(b));
            forward(
                &shape,
                slice::<f32>(x),
                slice::<f32>(w),
                b,
                slice_mut::<f32>(&out),
                slice_mut::<f32>(&layout),
                level,
                epi,
            );
        }
        Ok(Some(out))
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (x, w, bias, g, level, epi);
        Ok(None)
    }
}

/// The float32 1x1 stride-1 convolution as one product per sample and group on the GEMM
/// micro-kernels, reading the input in place (no copy), bias and epilogue in the tiles.
fn forward_pointwise(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    g: Geometry,
    level: cpu::Isa,
    epi: &Epilogue,
) -> TensorResult<Tensor> {
    let out = output_for_overwrite(g)?;
    let (cg, og) = ((g.c / g.groups) as usize, (g.o / g.groups) as usize);
    let plane = (g.ho * g.wo) as usize;
    let (xp, wp, op) = (
        x.data_ptr() as *const f32,
        w.data_ptr() as *const f32,
        out.data_ptr() as *mut f32,
    );
    let bp = bias.map(|b| b.data_ptr() as *const f32);
    if plane == 1 {
        // A 1x1 plane (squeeze-and-excitation layers): each sample's channels are one row,
        // and the product is a linear layer's, dot products along the channels (the tiled
        // GEMM would fill one column of each tile).
        let (c, o) = (g.c as usize, g.o as usize);
        for s0 in (0..g.n as usize).step_by(sgemm::DOT_ROWS) {
            let rows = sgemm::DOT_ROWS.min(g.n as usize - s0);
            for grp in 0..g.groups as usize {
                let at = s0 * o + grp * og;
                // SAFETY: contiguous float32 tensors of the geometry's sizes: `rows`
                // samples of `cg` channels `c` apart in the input, `og` weight rows of `cg`,
                // outputs `o` apart; `level` comes from `cpu::isa`.
                unsafe {
                    sgemm::run_dot(
                        level,
                        rows,
                        og,
                        cg,
                        xp.add(s0 * c + grp * cg),
                        c,
                        wp.add(grp * og * cg),
                        cg,
                        op.add(at),
                        o,
                        bp.map(|b| b.add(grp * og)),
                        epi,
                        at,
                    )
                };
            }
        }
        return Ok(out);
    }
    for s in 0..g.n as usize {
        for grp in 0..g.groups as usize {
            let at = (s * g.o as usize + grp * og) * plane;
            let p = sgemm::Product {
                m: og,
                n: plane,
                k: cg,
                a: wp.wrapping_add(grp * og * cg),
                lda: cg,
                b: sgemm::BSource::Rows {
                    ptr: xp.wrapping_add((s * g.c as usize + grp * cg) * plane),
                    ld: plane,
                },
                c: op.wrapping_add(at),
                ldc: plane,
                bias: bp.map_or(sgemm::Bias::None, |b| {
                    sgemm::Bias::PerRow(b.wrapping_add(grp * og))
                }),
                epi,
                at,
            };
            // SAFETY: contiguous float32 tensors of the geometry's sizes (the input plane is
            // the output plane: 1x1, stride 1, no padding); `out` is our fresh output; `level`
            // comes from `cpu::isa` and has the kernels.
            unsafe { sgemm::run(level, &p) };
        }
    }
    Ok(out)
}

/// A float32 output `[n, o, ho, wo]` that the kernel writes completely.
fn output_for_overwrite(g: Geometry) -> TensorResult<Tensor> {
    crate::ops::pointwise::output_for_overwrite(&[g.n, g.o, g.ho, g.wo], DType::F32)
}

/// The float32 depthwise convolution (one input channel per group) through the vectorized
/// kernel (`depthwise`).
fn forward_depthwise(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    g: Geometry,
    level: cpu::Isa,
    epi: &Epilogue,
) -> TensorResult<Option<Tensor>> {
    let u = |v: i64| v as usize;
    let shape = super::depthwise::Shape {
        n: u(g.n),
        c: u(g.c),
        m: u(g.o / g.groups),
        h: u(g.h),
        w: u(g.w),
        kh: u(g.kh),
        kw: u(g.kw),
        sh: u(g.sh),
        sw: u(g.sw),
        ph: u(g.ph),
        pw: u(g.pw),
        dh: u(g.dh),
        dw: u(g.dw),
        ho: u(g.ho),
        wo: u(g.wo),
    };
    let out = output_for_overwrite(g)?;
    // SAFETY: contiguous float32 tensors of the shape's sizes (converted by the caller); `out`
    // is our own buffer; `level` comes from `cpu::isa`.
    unsafe {
        super::depthwise::forward(
            &shape,
            slice::<f32>(x),
            slice::<f32>(w),
            bias.map(|b| slice::<f32>(b)),
            slice_mut::<f32>(&out),
            level,
            epi,
        );
    }
    Ok(Some(out))
}

/// Tests run the portable (im2col) path on machines with AVX2 or AVX-512 too, to check it
/// against the vector kernels: what a machine without them runs.
#[cfg(test)]
pub(crate) mod portable {
    /// Runs `f` with this thread's kernels on their portable (baseline x86-64) paths.
    pub(crate) fn with<R>(f: impl FnOnce() -> R) -> R {
        crate::ops::cpu::with_isa(crate::ops::cpu::Isa::Baseline, f)
    }
}

/// Target size (elements) of one column tile: with its share of the weights it stays in a
/// core's L2 cache between im2col and the GEMM that reads it.
const TILE_ELEMS: usize = 1 << 16;

/// The fewest output pixels per tile: narrower GEMMs lose more to packing than the cache
/// saves (measured on ResNet-18 layers).
const MIN_TILE: usize = 96;

/// The floating-point forward convolution in tiles of output pixels: each task lays out the
/// patches of one tile (sample, group, pixel range) and multiplies them at once, so the
/// columns never leave the cache and both im2col and GEMM spread over the cores.
fn forward_tiled<T: Work>(
    x: &Tensor,
    w: &Tensor,
    out: &Tensor,
    g: Geometry,
    accumulate: bool,
) -> TensorResult<()> {
    let cg = (g.c / g.groups) as usize;
    let og = (g.o / g.groups) as usize;
    let kk = (g.kh * g.kw) as usize;
    let rows = cg * kk;
    let plane = (g.ho * g.wo) as usize;
    let groups = g.groups as usize;
    let threads = parallel::threads();
    if g.n == 1 && groups == 1 && threads > 1 && plane < MIN_TILE * threads && og >= 8 * threads {
        // Pixel tiles would be narrower than MIN_TILE: split the output channels instead.
        return forward_small_plane::<T>(x, w, out, g, accumulate);
    }
    let want = (TILE_ELEMS / rows.max(1)).max(MIN_TILE).min(plane).max(1);
    let mut tiles = plane.div_ceil(want);
    if g.n == 1 && groups == 1 {
        // One sample: as many equal tiles per core, so no core idles on a short last tile.
        tiles = tiles.div_ceil(threads) * threads;
    }
    let tile = plane.div_ceil(tiles).max(1);
    let tiles = plane.div_ceil(tile);
    let tasks = g.n as usize * groups * tiles;
    // SAFETY: contiguous T tensors; `out` is fresh and tasks write disjoint blocks of it.
    let (xv, wv) = unsafe { (slice::<T>(x), slice::<T>(w)) };
    let out_addr = out.data_ptr() as usize;
    let in_plane = (g.h * g.w) as usize;
    let run = |buf: &mut Vec<T>, task: usize| {
        let s = task / (groups * tiles);
        let grp = (task / tiles) % groups;
        let p0 = (task % tiles) * tile;
        let p1 = (p0 + tile).min(plane);
        let width = p1 - p0;
        for r in 0..rows {
            let c = grp * cg + r / kk;
            let (ki, kj) = (((r % kk) as i64) / g.kw, ((r % kk) as i64) % g.kw);
            let base = (s * g.c as usize + c) * in_plane;
            let src = &xv[base..base + in_plane];
            fill_pixels(src, &mut buf[r * width..(r + 1) * width], p0, p1, ki, kj, g);
        }
        let dst = (out_addr as *mut T).wrapping_add((s * g.o as usize + grp * og) * plane + p0);
        // SAFETY: `dst` addresses this task's `og x width` block of `out` (row stride
        // `plane`); the weights of group `grp` are `og x rows`; `buf` holds `rows x width`.
        unsafe {
            gemm_serial(
                og,
                width,
                rows,
                dst,
                plane,
                accumulate,
                wv.as_ptr().add(grp * og * rows),
                [rows, 1],
                buf.as_ptr(),
                [width, 1],
            )
        };
    };
    let flops = tasks * og * tile * rows;
    if tasks > 1 && flops >= (1 << 18) {
        parallel::map_init(tasks, 1, || vec![T::zero(); rows * tile], run);
    } else {
        let mut buf = vec![T::zero(); rows * tile];
        (0..tasks).for_each(|t| run(&mut buf, t));
    }
    Ok(())
}

/// One sample with few output pixels (deep layers: 14x14, 7x7): the whole patch matrix is
/// laid out once (its rows split over the cores), then each core multiplies its share of the
/// output channels by all of it, so every GEMM keeps the full pixel width.
fn forward_small_plane<T: Work>(
    x: &Tensor,
    w: &Tensor,
    out: &Tensor,
    g: Geometry,
    accumulate: bool,
) -> TensorResult<()> {
    let c = g.c as usize;
    let o = g.o as usize;
    let kk = (g.kh * g.kw) as usize;
    let rows = c * kk;
    let plane = (g.ho * g.wo) as usize;
    let in_plane = (g.h * g.w) as usize;
    // SAFETY: contiguous T tensors of one sample; `out` is fresh.
    let (xv, wv) = unsafe { (slice::<T>(x), slice::<T>(w)) };
    // Every element is written below, so a reused buffer needs no clearing.
    let col_t = scratch(&[rows as i64, plane as i64], T::DTYPE)?;
    // SAFETY: `col_t` is this thread's own contiguous buffer of rows x plane.
    let col = unsafe { slice_mut::<T>(&col_t) };
    parallel::for_each_chunk_mut(col, plane * kk, |ch, block| {
        let src = &xv[ch * in_plane..(ch + 1) * in_plane];
        for (r, dst) in block.chunks_mut(plane).enumerate() {
            let (ki, kj) = ((r as i64) / g.kw, (r as i64) % g.kw);
            fill_pixels(src, dst, 0, plane, ki, kj, g);
        }
    });
    let threads = parallel::threads();
    // Channel blocks rounded to 8 rows (the GEMM micro-kernel's height).
    let block = o.div_ceil(threads).div_ceil(8) * 8;
    let out_addr = out.data_ptr() as usize;
    parallel::for_each(o.div_ceil(block), |b| {
        let (r0, r1) = (b * block, ((b + 1) * block).min(o));
        // SAFETY: rows [r0, r1) of `out` (`[o, plane]`) belong to this task alone; the
        // weights are `o x rows` and `col` is `rows x plane`.
        unsafe {
            gemm_serial(
                r1 - r0,
                plane,
                rows,
                (out_addr as *mut T).add(r0 * plane),
                plane,
                accumulate,
                wv.as_ptr().add(r0 * rows),
                [rows, 1],
                col.as_ptr(),
                [plane, 1],
            )
        };
    });
    Ok(())
}

/// The patch row `(ki, kj)` of one input channel `src` (`[h, w]`) for output pixels
/// `[p0, p1)` (row-major over `ho x wo`), zeros where the kernel reads padding.
fn fill_pixels<T: Work>(
    src: &[T],
    dst: &mut [T],
    p0: usize,
    p1: usize,
    ki: i64,
    kj: i64,
    g: Geometry,
) {
    let wo = g.wo as usize;
    let off = -g.pw + kj * g.dw;
    let (lo, hi) = valid_range(off, g.sw, g.w, g.wo);
    let mut p = p0;
    while p < p1 {
        let oh = p / wo;
        let (a, b) = (p - oh * wo, (p1 - oh * wo).min(wo));
        let line = &mut dst[p - p0..p - p0 + (b - a)];
        let ih = oh as i64 * g.sh - g.ph + ki * g.dh;
        if ih < 0 || ih >= g.h {
            line.fill(T::zero());
        } else {
            let row = &src[(ih * g.w) as usize..((ih + 1) * g.w) as usize];
            let (va, vb) = (lo.clamp(a, b), hi.clamp(a, b));
            line[..va - a].fill(T::zero());
            line[vb.max(va) - a..].fill(T::zero());
            if vb > va {
                let first = (va as i64 * g.sw + off) as usize;
                if g.sw == 1 {
                    line[va - a..vb - a].copy_from_slice(&row[first..first + (vb - va)]);
                } else {
                    let step = g.sw as usize;
                    for (k, v) in line[va - a..vb - a].iter_mut().enumerate() {
                        *v = row[first + k * step];
                    }
                }
            }
        }
        p = oh * wo + b;
    }
}

thread_local! {
    /// The column buffer of the last convolution on this thread: fresh multi-megabyte
    /// allocations cost page faults on every call, more than im2col itself.
    static SCRATCH: std::cell::RefCell<Option<Tensor>> = const { std::cell::RefCell::new(None) };
}

/// A contiguous tensor of `sizes` and `dtype` with unspecified contents, reusing this
/// thread's buffer when it is large enough and no longer shared.
pub(super) fn scratch(sizes: &[i64], dtype: DType) -> TensorResult<Tensor> {
    let numel = crate::tensor::checked_numel(sizes)?;
    SCRATCH.with(|cell| {
        let mut slot = cell.borrow_mut();
        if let Some(t) = slot.as_ref() {
            let reusable =
                t.dtype() == dtype && t.numel() >= numel && t.meta().storage.ref_count() == 1;
            if reusable {
                return t.as_strided(sizes, &crate::tensor::contiguous_strides(sizes), 0);
            }
        }
        let fresh = Tensor::zeros(&[numel as i64], dtype)?;
        *slot = Some(fresh.clone());
        fresh.as_strided(sizes, &crate::tensor::contiguous_strides(sizes), 0)
    })
}

/// Lays out the patches of one sample `[c, h, w]` as rows `(channel, ki, kj)` of `col`
/// (`[c*kh*kw, ho*wo]`), zeros where the kernel reads padding.
fn im2col<T: Work>(x: &Tensor, col: &Tensor, g: Geometry) {
    // SAFETY: `x` is a contiguous sample of a contiguous T tensor; `col` is our own buffer.
    let (xv, cv) = unsafe { (slice::<T>(x), slice_mut::<T>(col)) };
    let plane = (g.ho * g.wo) as usize;
    let fill = |row: usize, dst: &mut [T]| {
        let kk = (g.kh * g.kw) as usize;
        let c = (row / kk) as i64;
        let ki = ((row % kk) as i64) / g.kw;
        let kj = ((row % kk) as i64) % g.kw;
        let src = &xv[(c * g.h * g.w) as usize..((c + 1) * g.h * g.w) as usize];
        for oh in 0..g.ho {
            let ih = oh * g.sh - g.ph + ki * g.dh;
            let line = &mut dst[(oh * g.wo) as usize..((oh + 1) * g.wo) as usize];
            if ih < 0 || ih >= g.h {
                line.fill(T::zero());
                continue;
            }
            let src_row = &src[(ih * g.w) as usize..((ih + 1) * g.w) as usize];
            // Output columns whose input column lies inside the row; zeros outside.
            let off = -g.pw + kj * g.dw;
            let (lo, hi) = valid_range(off, g.sw, g.w, g.wo);
            line[..lo].fill(T::zero());
            line[hi.max(lo)..].fill(T::zero());
            if hi > lo {
                let first = (lo as i64 * g.sw + off) as usize;
                if g.sw == 1 {
                    line[lo..hi].copy_from_slice(&src_row[first..first + (hi - lo)]);
                } else {
                    let step = g.sw as usize;
                    for (k, v) in line[lo..hi].iter_mut().enumerate() {
                        *v = src_row[first + k * step];
                    }
                }
            }
        }
    };
    if cv.len() >= PARALLEL_ELEMS {
        parallel::for_each_chunk_mut(cv, plane, fill);
    } else {
        cv.chunks_mut(plane)
            .enumerate()
            .for_each(|(row, dst)| fill(row, dst));
    }
}

/// The output positions `[lo, hi)` (of `out` in all) whose input position
/// `o * stride + off` lies in `[0, size)`.
fn valid_range(off: i64, stride: i64, size: i64, out: i64) -> (usize, usize) {
    // lo = ceil(-off / stride) clamped at 0; hi = floor((size - 1 - off) / stride) + 1.
    let lo = if off >= 0 {
        0
    } else {
        (-off + stride - 1) / stride
    };
    let last = size - 1 - off;
    let hi = if last < 0 { 0 } else { last / stride + 1 };
    (lo.clamp(0, out) as usize, hi.clamp(0, out) as usize)
}

/// One input channel per group: each output plane is a direct sum over the kernel.
fn depthwise<T: Work>(x: &Tensor, w: &Tensor, out: &Tensor, g: Geometry) {
    // SAFETY: contiguous T tensors; `out` is fresh and each plane is written by one task.
    let (xv, wv, ov) = unsafe { (slice::<T>(x), slice::<T>(w), slice_mut::<T>(out)) };
    let og = g.o / g.groups;
    let plane = (g.ho * g.wo) as usize;
    let kk = (g.kh * g.kw) as usize;
    let run = |idx: usize, dst: &mut [T]| {
        let s = idx as i64 / g.o;
        let oc = idx as i64 % g.o;
        let ic = oc / og;
        let src =
            &xv[((s * g.c + ic) * g.h * g.w) as usize..((s * g.c + ic + 1) * g.h * g.w) as usize];
        let kern = &wv[oc as usize * kk..(oc as usize + 1) * kk];
        for oh in 0..g.ho {
            for ki in 0..g.kh {
                let ih = oh * g.sh - g.ph + ki * g.dh;
                if ih < 0 || ih >= g.h {
                    continue;
                }
                let src_row = &src[(ih * g.w) as usize..((ih + 1) * g.w) as usize];
                let line = &mut dst[(oh * g.wo) as usize..((oh + 1) * g.wo) as usize];
                for kj in 0..g.kw {
                    let k = kern[(ki * g.kw + kj) as usize];
                    let off = -g.pw + kj * g.dw;
                    for (ow, v) in line.iter_mut().enumerate() {
                        let iw = ow as i64 * g.sw + off;
                        if iw >= 0 && iw < g.w {
                            *v = v.wadd(src_row[iw as usize].wmul(k));
                        }
                    }
                }
            }
        }
    };
    if ov.len() * kk >= PARALLEL_ELEMS {
        parallel::for_each_chunk_mut(ov, plane, run);
    } else {
        ov.chunks_mut(plane)
            .enumerate()
            .for_each(|(i, dst)| run(i, dst));
    }
}

fn transposed_conv<T: Work>(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    g: Geometry,
) -> TensorResult<Tensor> {
    let out = output_with_bias::<T>(g.n, g.o, g.ho, g.wo, bias)?;
    if out.numel() == 0 {
        return Ok(out);
    }
    let cin_g = g.c / g.groups;
    let og = g.o / g.groups;
    let kk = g.kh * g.kw;
    let in_plane = g.h * g.w;
    // Weight [C_in, O/g, kh, kw] as [g, O/g*kk, C_in/g].
    let a = w.view(&[g.groups, cin_g, og * kk])?.transpose(1, 2)?;
    // The GEMM overwrites the columns (beta 0), so a reused buffer needs no clearing.
    let cols = scratch(&[g.groups, og * kk, in_plane], T::DTYPE)?;
    for s in 0..g.n {
        let b = x.select(0, s)?.view(&[g.groups, cin_g, in_plane])?;
        bgemm("slow_conv_transpose2d_out_cpu", &a, &b, &cols, 1.0, 0.0)?;
        col2im::<T>(&cols, &out.select(0, s)?, g);
    }
    Ok(out)
}

/// Adds the columns `[o*kh*kw, h*w]` into one output sample `[o, ho, wo]`.
fn col2im<T: Work>(cols: &Tensor, out: &Tensor, g: Geometry) {
    // SAFETY: `cols` is our contiguous buffer; `out` is a contiguous sample of our fresh
    // output, each plane written by one task.
    let (cv, ov) = unsafe { (slice::<T>(cols), slice_mut::<T>(out)) };
    let plane = (g.ho * g.wo) as usize;
    let in_plane = (g.h * g.w) as usize;
    let kk = (g.kh * g.kw) as usize;
    let run = |oc: usize, dst: &mut [T]| {
        for ki in 0..g.kh {
            for kj in 0..g.kw {
                let row = oc * kk + (ki * g.kw + kj) as usize;
                let src = &cv[row * in_plane..(row + 1) * in_plane];
                for ih in 0..g.h {
                    let oh = ih * g.sh - g.ph + ki * g.dh;
                    if oh < 0 || oh >= g.ho {
                        continue;
                    }
                    for iw in 0..g.w {
                        let ow = iw * g.sw - g.pw + kj * g.dw;
                        if ow < 0 || ow >= g.wo {
                            continue;
                        }
                        let d = &mut dst[(oh * g.wo + ow) as usize];
                        *d = d.wadd(src[(ih * g.w + iw) as usize]);
                    }
                }
            }
        }
    };
    if cv.len() >= PARALLEL_ELEMS {
        parallel::for_each_chunk_mut(ov, plane, run);
    } else {
        ov.chunks_mut(plane)
            .enumerate()
            .for_each(|(i, dst)| run(i, dst));
    }
}
