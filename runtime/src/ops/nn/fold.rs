//! `im2col` / `col2im` (`F.unfold` / `F.fold`): sliding blocks of a batched image as columns
//! `[N, C*kh*kw, L]` and back (overlaps summed), with PyTorch's checks and messages.

use ember_dialects::{Graph, Node};

use super::work::{slice, slice_mut, to_contiguous};
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::args::{err, int_list, op_n, sizes_str, tensor, write_out};
use crate::ops::registry::Registry;
use crate::ops::Operation;
use crate::tensor::{DType, Element, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    r.add("aten::im2col", |g, n| build(g, n, false));
    r.add("aten::col2im", |g, n| build(g, n, true));
}

/// `im2col(self, kernel_size, dilation, padding, stride)` and
/// `col2im(self, output_size, kernel_size, dilation, padding, stride)`, each with an
/// optional trailing `out`.
fn build(g: &Graph, n: Node, col2im: bool) -> Result<Operation, String> {
    let count = g.node_inputs(n).len();
    let args = if col2im { 6 } else { 5 };
    Ok(op_n(count, move |a| {
        let x = tensor(&a[0])?;
        let lists = a[1..args]
            .iter()
            .map(int_list)
            .collect::<Result<Vec<_>, _>>()?;
        let r = if col2im {
            col2im_op(&x, &lists[0], &lists[1], &lists[2], &lists[3], &lists[4])
        } else {
            im2col_op(&x, &lists[0], &lists[1], &lists[2], &lists[3])
        }
        .map_err(err)?;
        if count > args {
            let out = tensor(&a[args])?;
            write_out(&out, &r)?;
            return Ok(IValue::Tensor(out));
        }
        Ok(IValue::Tensor(r))
    }))
}

fn pair(name: &str, v: &[i64]) -> TensorResult<[i64; 2]> {
    if v.len() != 2 {
        bail!(
            "It is expected {name} equals to 2, but got size {}",
            v.len()
        );
    }
    Ok([v[0], v[1]])
}

/// The block geometry: kernel, dilation, padding, stride (height, width).
struct Blocks {
    k: [i64; 2],
    d: [i64; 2],
    p: [i64; 2],
    s: [i64; 2],
}

impl Blocks {
    fn new(k: &[i64], d: &[i64], p: &[i64], s: &[i64]) -> TensorResult<Blocks> {
        Ok(Blocks {
            k: pair("kernel_size", k)?,
            d: pair("dilation", d)?,
            p: pair("padding", p)?,
            s: pair("stride", s)?,
        })
    }

    fn check_kernel(&self) -> TensorResult<()> {
        if self.k[0] <= 0 || self.k[1] <= 0 {
            bail!(
                "kernel size should be greater than zero, but got kernel_height: {} kernel_width: {}",
                self.k[0],
                self.k[1]
            );
        }
        Ok(())
    }

    fn check_dilation(&self) -> TensorResult<()> {
        if self.d[0] <= 0 || self.d[1] <= 0 {
            bail!(
                "dilation should be greater than zero, but got dilation_height: {} dilation_width: {}",
                self.d[0],
                self.d[1]
            );
        }
        Ok(())
    }

    fn check_padding(&self) -> TensorResult<()> {
        if self.p[0] < 0 || self.p[1] < 0 {
            bail!(
                "padding should be non-negative, but got pad_height: {} pad_width: {}",
                self.p[0],
                self.p[1]
            );
        }
        Ok(())
    }

    fn check_stride(&self) -> TensorResult<()> {
        if self.s[0] <= 0 || self.s[1] <= 0 {
            bail!(
                "stride should be greater than zero, but got stride_height: {} stride_width: {}",
                self.s[0],
                self.s[1]
            );
        }
        Ok(())
    }

    /// The number of blocks along axis `a` of an image of `size` (PyTorch's `div_rtn`:
    /// rounding toward negative infinity).
    fn count(&self, a: usize, size: i64) -> i64 {
        (size + 2 * self.p[a] - (self.d[a] * (self.k[a] - 1) + 1)).div_euclid(self.s[a]) + 1
    }

    fn describe(&self) -> String {
        format!(
            "kernel_size=({}, {}), dilation=({}, {}), padding=({}, {})",
            self.k[0], self.k[1], self.d[0], self.d[1], self.p[0], self.p[1]
        )
    }
}

/// The dtypes `im2col_out_cpu` / `col2im_out_cpu` dispatch.
fn check_dtype(kernel: &str, x: &Tensor) -> TensorResult<()> {
    if !matches!(
        x.dtype(),
        DType::F32 | DType::F64 | DType::F16 | DType::BF16
    ) {
        bail!(
            "\"{kernel}\" not implemented for '{}'",
            x.dtype().scalar_type_name()
        );
    }
    Ok(())
}

pub fn im2col_op(x: &Tensor, k: &[i64], d: &[i64], p: &[i64], s: &[i64]) -> TensorResult<Tensor> {
    let b = Blocks::new(k, d, p, s)?;
    b.check_kernel()?;
    b.check_dilation()?;
    b.check_padding()?;
    b.check_stride()?;
    let sizes = x.sizes();
    let nd = sizes.len();
    let valid = (nd == 3 && sizes[0] != 0 && sizes[1] != 0 && sizes[2] != 0)
        || (nd == 4 && sizes[1] != 0 && sizes[2] != 0 && sizes[3] != 0);
    if !valid {
        bail!(
            "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for input, but got: {}",
            sizes_str(&sizes)
        );
    }
    let (h, w) = (sizes[nd - 2], sizes[nd - 1]);
    let (bh, bw) = (b.count(0, h), b.count(1, w));
    if bh < 1 || bw < 1 {
        bail!(
            "Given input with spatial size ({h}, {h}), {}, calculated shape of the array of sliding blocks as ({bh}, {bw}), but its components must be at least one.",
            b.describe()
        );
    }
    check_dtype("im2col_out_cpu", x)?;
    let batched = if nd == 3 { x.unsqueeze(0)? } else { x.clone() };
    let (n, c) = (batched.sizes()[0], batched.sizes()[1]);
    let kk = b.k[0] * b.k[1];
    let x = batched.contiguous()?;
    let out = Tensor::zeros(&[n, c * kk, bh * bw], x.dtype())?;
    crate::dispatch_dtype!(x.dtype(), T => {
        // SAFETY: `x` is contiguous of T; `out` is fresh and contiguous of T.
        let (xv, ov) = unsafe { (slice::<T>(&x), slice_mut::<T>(&out)) };
        let plane = (h * w) as usize;
        let len = (bh * bw) as usize;
        for (row, dst) in ov.chunks_mut(len.max(1)).enumerate().take((n * c * kk) as usize) {
            let (img, k) = (row / kk as usize, row as i64 % kk);
            let (ki, kj) = (k / b.k[1], k % b.k[1]);
            let src = &xv[img * plane..(img + 1) * plane];
            for (l, v) in dst.iter_mut().enumerate() {
                let (oy, ox) = (l as i64 / bw, l as i64 % bw);
                let iy = oy * b.s[0] - b.p[0] + ki * b.d[0];
                let ix = ox * b.s[1] - b.p[1] + kj * b.d[1];
                *v = if iy >= 0 && iy < h && ix >= 0 && ix < w {
                    src[(iy * w + ix) as usize]
                } else {
                    T::from_i64(0)
                };
            }
        }
    });
    if nd == 3 {
        return out.squeeze(Some(0));
    }
    Ok(out)
}

pub fn col2im_op(
    x: &Tensor,
    output: &[i64],
    k: &[i64],
    d: &[i64],
    p: &[i64],
    s: &[i64],
) -> TensorResult<Tensor> {
    let [oh, ow] = pair("output_size", output)?;
    let b = Blocks::new(k, d, p, s)?;
    b.check_kernel()?;
    b.check_stride()?;
    b.check_dilation()?;
    b.check_padding()?;
    let sizes = x.sizes();
    let nd = sizes.len();
    let valid =
        (nd == 2 && sizes[0] != 0 && sizes[1] != 0) || (nd == 3 && sizes[1] != 0 && sizes[2] != 0);
    if !valid {
        bail!(
            "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: {}",
            sizes_str(&sizes)
        );
    }
    let planes = sizes[nd - 2];
    let kk = b.k[0].checked_mul(b.k[1]).unwrap_or(i64::MAX);
    if planes % kk != 0 {
        bail!(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)={planes} and kernel_size=({}, {}).",
            b.k[0],
            b.k[1]
        );
    }
    let length = sizes[nd - 1];
    let (bh, bw) = (b.count(0, oh), b.count(1, ow));
    let setting = format!(
        "Given output_size=({oh}, {ow}), {}, stride=({}, {})",
        b.describe(),
        b.s[0],
        b.s[1]
    );
    if length != bh * bw {
        bail!(
            "{setting}, expected size of input's dimension 2 to match the calculated number of sliding blocks {bh} * {bw} = {}, but got input.size(2)={length}.",
            bh * bw
        );
    }
    if bh < 1 || bw < 1 {
        bail!("{setting}, calculated shape of the array of sliding blocks as ({bh}, {bw}), which is too small (non-positive)");
    }
    if oh < 1 || ow < 1 {
        bail!("Expected output spatial size to be positive, but got: output_size=({oh}, {ow})");
    }
    check_dtype("col2im_out_cpu", x)?;
    let batched = if nd == 2 { x.unsqueeze(0)? } else { x.clone() };
    let n = batched.sizes()[0];
    let c = planes / kk;
    // Sums in float (float64 for float64), rounded once.
    let work = if x.dtype() == DType::F64 {
        DType::F64
    } else {
        DType::F32
    };
    let xw = to_contiguous(&batched, work)?;
    let out = Tensor::zeros(&[n, c, oh, ow], work)?;
    crate::dispatch_dtype!(work, T => {
        // SAFETY: `xw` is contiguous of T; `out` is fresh and contiguous of T.
        let (xv, ov) = unsafe { (slice::<T>(&xw), slice_mut::<T>(&out)) };
        let plane = (oh * ow) as usize;
        let len = length as usize;
        for (img, dst) in ov.chunks_mut(plane.max(1)).enumerate().take((n * c) as usize) {
            for k in 0..kk {
                let (ki, kj) = (k / b.k[1], k % b.k[1]);
                let row = img * kk as usize + k as usize;
                let src = &xv[row * len..(row + 1) * len];
                for (l, &v) in src.iter().enumerate() {
                    let (by, bx) = (l as i64 / bw, l as i64 % bw);
                    let y = by * b.s[0] - b.p[0] + ki * b.d[0];
                    let x = bx * b.s[1] - b.p[1] + kj * b.d[1];
                    if y >= 0 && y < oh && x >= 0 && x < ow {
                        let o = &mut dst[(y * ow + x) as usize];
                        *o = T::from_f64(o.to_f64() + v.to_f64());
                    }
                }
            }
        }
    });
    let out = if out.dtype() != x.dtype() {
        to_contiguous(&out, x.dtype())?
    } else {
        out
    };
    if nd == 2 {
        return out.squeeze(Some(0));
    }
    Ok(out)
}
