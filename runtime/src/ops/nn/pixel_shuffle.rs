//! `pixel_shuffle` / `pixel_unshuffle`: channels to and from spatial blocks (sub-pixel
//! convolution in super-resolution models), as a reshape, permute and copy with PyTorch's
//! checks. Any dtype; leading batch dims are kept.

use ember_dialects::{Graph, Node};

use crate::bail;
use crate::ivalue::IValue;
use crate::ops::args::{err, int, op_n, tensor, write_out};
use crate::ops::registry::Registry;
use crate::ops::Operation;
use crate::tensor::{Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    r.add("aten::pixel_shuffle", |g, n| build(g, n, true));
    r.add("aten::pixel_unshuffle", |g, n| build(g, n, false));
}

fn build(g: &Graph, n: Node, up: bool) -> Result<Operation, String> {
    let count = g.node_inputs(n).len();
    Ok(op_n(count, move |a| {
        let x = tensor(&a[0])?;
        let f = int(&a[1])?;
        let r = if up {
            pixel_shuffle(&x, f)
        } else {
            pixel_unshuffle(&x, f)
        }
        .map_err(err)?;
        if count == 3 {
            let out = tensor(&a[2])?;
            write_out(&out, &r)?;
            return Ok(IValue::Tensor(out));
        }
        Ok(IValue::Tensor(r))
    }))
}

/// `[*, C*r*r, H, W] -> [*, C, H*r, W*r]`.
pub fn pixel_shuffle(x: &Tensor, r: i64) -> TensorResult<Tensor> {
    let nd = x.dim();
    if nd < 3 {
        bail!("pixel_shuffle expects input to have at least 3 dimensions, but got input with {nd} dimension(s)");
    }
    if r <= 0 {
        bail!("pixel_shuffle expects a positive upscale_factor, but got {r}");
    }
    let s = x.sizes();
    let (c, h, w) = (s[nd - 3], s[nd - 2], s[nd - 1]);
    let rr = r.wrapping_mul(r);
    if rr <= 0 || c % rr != 0 {
        bail!("pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, but input.size(-3)={c} is not divisible by {rr}");
    }
    let lead = &s[..nd - 3];
    let oc = c / rr;
    // [*, oc, r, r, h, w] -> [*, oc, h, r, w, r]
    let mut split: Vec<i64> = lead.to_vec();
    split.extend([oc, r, r, h, w]);
    let b = lead.len() as i64;
    let mut perm: Vec<i64> = (0..b).collect();
    perm.extend([b, b + 3, b + 1, b + 4, b + 2]);
    let mut out: Vec<i64> = lead.to_vec();
    out.extend([oc, h * r, w * r]);
    x.reshape(&split)?
        .permute(&perm)?
        .clone_contiguous()?
        .view(&out)
}

/// `[*, C, H*r, W*r] -> [*, C*r*r, H, W]`.
pub fn pixel_unshuffle(x: &Tensor, r: i64) -> TensorResult<Tensor> {
    let nd = x.dim();
    if nd < 3 {
        bail!("pixel_unshuffle expects input to have at least 3 dimensions, but got input with {nd} dimension(s)");
    }
    if r <= 0 {
        bail!("pixel_unshuffle expects a positive downscale_factor, but got {r}");
    }
    let s = x.sizes();
    let (c, h, w) = (s[nd - 3], s[nd - 2], s[nd - 1]);
    if h % r != 0 {
        bail!("pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={h} is not divisible by {r}");
    }
    if w % r != 0 {
        bail!("pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={w} is not divisible by {r}");
    }
    let lead = &s[..nd - 3];
    let (oh, ow) = (h / r, w / r);
    // [*, c, oh, r, ow, r] -> [*, c, r, r, oh, ow]
    let mut split: Vec<i64> = lead.to_vec();
    split.extend([c, oh, r, ow, r]);
    let b = lead.len() as i64;
    let mut perm: Vec<i64> = (0..b).collect();
    perm.extend([b, b + 2, b + 4, b + 1, b + 3]);
    let mut out: Vec<i64> = lead.to_vec();
    out.extend([c * r * r, oh, ow]);
    x.reshape(&split)?
        .permute(&perm)?
        .clone_contiguous()?
        .view(&out)
}
