//! `torchvision::deform_conv2d`: convolution whose taps are displaced by learned offsets and
//! (optionally) scaled by a mask — bilinear samples gathered into columns, then one GEMM per
//! weight group, then the bias, as torchvision's CPU kernel computes it.

use super::{dispatch_real, tensor_of, values};
use crate::bail;
use crate::ops::args::sizes_str;
use crate::ops::linalg::gemm::bgemm;
use crate::ops::nn::work::to_contiguous;
use crate::ops::real::Real;
use crate::tensor::{DType, Element, Tensor, TensorResult};

/// The integer arguments of `deform_conv2d`.
pub struct Params {
    pub stride: [i64; 2],
    pub pad: [i64; 2],
    pub dilation: [i64; 2],
    pub groups: i64,
    pub offset_groups: i64,
    pub use_mask: bool,
}

fn expect(ok: bool, what: &str) -> TensorResult<()> {
    if !ok {
        bail!("Expected {what} to be true, but got false.");
    }
    Ok(())
}

pub fn deform_conv2d(
    x: &Tensor,
    weight: &Tensor,
    offset: &Tensor,
    mask: &Tensor,
    bias: &Tensor,
    p: &Params,
) -> TensorResult<Tensor> {
    expect(x.dim() == 4, "input.ndimension() == 4")?;
    expect(offset.dim() == 4, "offset.ndimension() == 4")?;
    expect(
        !p.use_mask || mask.dim() == 4,
        "!use_mask || mask.ndimension() == 4",
    )?;
    expect(weight.dim() == 4, "weight.ndimension() == 4")?;
    let (xs, ws, os) = (x.sizes(), weight.sizes(), offset.sizes());
    let (kh, kw) = (ws[2], ws[3]);
    if kh <= 0 || kw <= 0 {
        bail!("weight_h: {kh} weight_w: {kw}");
    }
    let [sh, sw] = p.stride;
    if sh <= 0 || sw <= 0 {
        bail!("stride_h: {sh} stride_w: {sw}");
    }
    let [pad_h, pad_w] = p.pad;
    if pad_h < 0 || pad_w < 0 {
        bail!("pad_h: {pad_h} pad_w: {pad_w}");
    }
    let [dh, dw] = p.dilation;
    if dh <= 0 || dw <= 0 {
        bail!("dilation_h: {dh} dilation_w: {dw}");
    }
    let (g, og) = (p.groups, p.offset_groups);
    if g <= 0 || og <= 0 {
        bail!("deform_conv2d: groups ({g}) and offset groups ({og}) must be positive");
    }
    expect(
        ws[1] * g == xs[1],
        "weight.size(1) * n_weight_grps == input.size(1)",
    )?;
    expect(ws[0] % g == 0, "weight.size(0) % n_weight_grps == 0")?;
    let taps = kh * kw;
    if os[1] != og * 2 * taps {
        bail!(
            "offset.shape[1] is not valid: got: {} expected: {}",
            os[1],
            og * 2 * taps
        );
    }
    if p.use_mask && mask.sizes()[1] != og * taps {
        bail!(
            "mask.shape[1] is not valid: got: {} expected: {}",
            mask.sizes()[1],
            og * taps
        );
    }
    expect(xs[1] % og == 0, "input.size(1) % n_offset_grps == 0")?;
    if os[0] != xs[0] {
        bail!("invalid batch size of offset");
    }
    let out_h = (xs[2] + 2 * pad_h - (dh * (kh - 1) + 1)) / sh + 1;
    let out_w = (xs[3] + 2 * pad_w - (dw * (kw - 1) + 1)) / sw + 1;
    if os[2] != out_h || os[3] != out_w {
        bail!(
            "offset output dims: ({}, {}) - computed output dims: ({out_h}, {out_w})",
            os[2],
            os[3]
        );
    }
    if mask.dim() == 0 || mask.sizes()[0] != xs[0] {
        bail!("invalid batch size of mask");
    }
    if p.use_mask && (mask.sizes()[2] != out_h || mask.sizes()[3] != out_w) {
        bail!(
            "offset output dims: ({}, {}) - computed output dims: ({out_h}, {out_w})",
            mask.sizes()[2],
            mask.sizes()[3]
        );
    }
    if out_h <= 0 || out_w <= 0 {
        bail!("Calculated output size too small - out_h: {out_h} out_w: {out_w}");
    }
    let d = x.dtype();
    if !matches!(d, DType::F32 | DType::F64 | DType::F16) {
        bail!(
            "\"deform_conv2d\" not implemented for '{}'",
            d.scalar_type_name()
        );
    }
    for (name, t) in [
        ("weight", weight),
        ("offset", offset),
        ("mask", mask),
        ("bias", bias),
    ] {
        if t.dtype() != d {
            bail!(
                "expected scalar type {} but found {} ({name})",
                d.scalar_type_name(),
                t.dtype().scalar_type_name()
            );
        }
    }
    if bias.numel() as i64 != ws[0] {
        bail!(
            "shape '{}' is invalid for input of size {}",
            sizes_str(&[1, ws[0], 1, 1]),
            bias.numel()
        );
    }
    let geo = Geometry {
        batch: xs[0],
        channels: xs[1],
        h: xs[2],
        w: xs[3],
        kh,
        kw,
        out_h,
        out_w,
        offset_groups: og,
    };
    dispatch_real!(d, T, C => run::<T, C>(x, weight, offset, mask, bias, p, &geo))
}

struct Geometry {
    batch: i64,
    channels: i64,
    h: i64,
    w: i64,
    kh: i64,
    kw: i64,
    out_h: i64,
    out_w: i64,
    offset_groups: i64,
}

/// torchvision's `bilinear_interpolate` of `deform_conv2d`: taps outside the image read 0.
fn bilinear<C: Real>(plane: &[C], h: i64, w: i64, y: C, x: C) -> C {
    let (yf, xf) = (y.f64(), x.f64());
    if yf <= -1.0 || h as f64 <= yf || xf <= -1.0 || w as f64 <= xf {
        return C::ZERO;
    }
    let (y0, x0) = (yf.floor() as i64, xf.floor() as i64);
    let (y1, x1) = (y0 + 1, x0 + 1);
    let ly = y - C::of(y0 as f64);
    let lx = x - C::of(x0 as f64);
    let (hy, hx) = (C::ONE - ly, C::ONE - lx);
    let at = |r: i64, c: i64, ok: bool| {
        if ok {
            plane[(r * w + c) as usize]
        } else {
            C::ZERO
        }
    };
    let v1 = at(y0, x0, y0 >= 0 && x0 >= 0);
    let v2 = at(y0, x1, y0 >= 0 && x1 < w);
    let v3 = at(y1, x0, y1 < h && x0 >= 0);
    let v4 = at(y1, x1, y1 < h && x1 < w);
    hy * hx * v1 + hy * lx * v2 + ly * hx * v3 + ly * lx * v4
}

fn run<T: Element, C: Real>(
    x: &Tensor,
    weight: &Tensor,
    offset: &Tensor,
    mask: &Tensor,
    bias: &Tensor,
    p: &Params,
    g: &Geometry,
) -> TensorResult<Tensor> {
    let xv: Vec<C> = values::<T, C>(&x.contiguous()?);
    let ov: Vec<C> = values::<T, C>(&offset.contiguous()?);
    let mv: Vec<C> = if p.use_mask {
        values::<T, C>(&mask.contiguous()?)
    } else {
        Vec::new()
    };
    let (taps, plane) = (g.kh * g.kw, (g.h * g.w) as usize);
    let len = (g.out_h * g.out_w) as usize;
    let rows = g.channels * taps;
    let c_per_group = g.channels / g.offset_groups;
    let out_channels = weight.sizes()[0];
    let wg = to_contiguous(weight, T::DTYPE)?.view(&[
        p.groups,
        out_channels / p.groups,
        rows / p.groups,
    ])?;
    let out = Tensor::zeros(&[g.batch, out_channels, g.out_h, g.out_w], T::DTYPE)?;
    let mut cols = vec![C::ZERO; rows as usize * len];
    for b in 0..g.batch {
        for c in 0..g.channels {
            let group = c / c_per_group;
            let src = &xv[(b * g.channels + c) as usize * plane..][..plane];
            let off = &ov[((b * g.offset_groups + group) * 2 * taps) as usize * len..];
            for i in 0..g.kh {
                for j in 0..g.kw {
                    let tap = i * g.kw + j;
                    let row = &mut cols[((c * taps + tap) as usize) * len..][..len];
                    for (o, v) in row.iter_mut().enumerate() {
                        let (oy, ox) = (o as i64 / g.out_w, o as i64 % g.out_w);
                        let dy = off[(2 * tap) as usize * len + o];
                        let dx = off[(2 * tap + 1) as usize * len + o];
                        let y =
                            C::of((oy * p.stride[0] - p.pad[0] + i * p.dilation[0]) as f64) + dy;
                        let x =
                            C::of((ox * p.stride[1] - p.pad[1] + j * p.dilation[1]) as f64) + dx;
                        let m = if p.use_mask {
                            mv[((b * g.offset_groups + group) * taps + tap) as usize * len + o]
                        } else {
                            C::ONE
                        };
                        *v = m * bilinear(src, g.h, g.w, y, x);
                    }
                }
            }
        }
        let columns = tensor_of::<T, C>(&cols, &[p.groups, rows / p.groups, len as i64])?;
        let dst = out
            .select(0, b)?
            .view(&[p.groups, out_channels / p.groups, len as i64])?;
        bgemm("deform_conv2d", &wg, &columns, &dst, 1.0, 0.0)?;
    }
    // `out + bias.view(1, O, 1, 1)`, in the dtype.
    let bv: Vec<C> = values::<T, C>(&bias.contiguous()?);
    let mut ov_out: Vec<C> = values::<T, C>(&out);
    for (k, v) in ov_out.iter_mut().enumerate() {
        *v += bv[(k / len) % out_channels as usize];
    }
    tensor_of::<T, C>(&ov_out, &out.sizes())
}
