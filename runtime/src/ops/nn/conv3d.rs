//! Volumetric convolution (plain and transposed) for `aten::convolution` with 3-d weights,
//! after `conv.rs` has made PyTorch's checks. The forward product is vol2col + GEMM, in
//! chunks of output positions so the column buffer stays bounded; 1x1x1 stride-1 kernels
//! multiply the input directly. Transposed convolution is a GEMM into columns and col2vol.

use super::work::{slice, slice_mut, to_contiguous, work_dtype, Work};
use crate::bail;
use crate::ops::linalg::gemm::bgemm;
use crate::ops::linalg::sgemm;
use crate::tensor::{DType, Tensor, TensorResult};

/// Column buffers hold at most about this many elements per chunk.
const COL_ELEMS: usize = 1 << 22;
/// Work above this many elements is spread over the cores.
const PARALLEL_ELEMS: usize = 1 << 14;

/// The resolved hyper-parameters of one 3-d convolution (one entry per spatial dim).
pub struct Params3d<'a> {
    pub stride: &'a [i64],
    pub padding: &'a [i64],
    /// Extra padding on the high side ("same" with an odd total).
    pub extra: &'a [i64],
    pub dilation: &'a [i64],
    pub output_padding: &'a [i64],
    pub groups: i64,
    pub transposed: bool,
}

/// Sizes of one volumetric convolution: input `[n, c, t, h, w]`, `o` output channels,
/// kernel, stride, low-side padding, dilation and output sizes per axis (t, h, w).
#[derive(Copy, Clone, Debug)]
struct Geometry {
    n: i64,
    c: i64,
    o: i64,
    groups: i64,
    input: [i64; 3],
    kernel: [i64; 3],
    stride: [i64; 3],
    pad: [i64; 3],
    dilation: [i64; 3],
    output: [i64; 3],
}

impl Geometry {
    fn in_plane(&self) -> usize {
        self.input.iter().product::<i64>() as usize
    }
    fn out_plane(&self) -> usize {
        self.output.iter().product::<i64>() as usize
    }
    fn kernel_volume(&self) -> usize {
        self.kernel.iter().product::<i64>() as usize
    }
}

/// `convolution` with 3 spatial dims; `input`, `weight` and `bias` were checked by the
/// caller (ranks, channels, groups, dtypes, kernel size).
pub fn convolution3d(
    input: &Tensor,
    weight: &Tensor,
    bias: Option<&Tensor>,
    p: &Params3d,
) -> TensorResult<Tensor> {
    let dtype = input.dtype();
    let wt = work_dtype(dtype);
    let x = to_contiguous(input, wt)?;
    let w = to_contiguous(weight, wt)?;
    let b = bias.map(|b| to_contiguous(b, wt)).transpose()?;
    let (xs, ws) = (x.sizes(), w.sizes());
    let mut g = Geometry {
        n: xs[0],
        c: xs[1],
        o: if p.transposed {
            ws[1] * p.groups
        } else {
            ws[0]
        },
        groups: p.groups,
        input: [xs[2], xs[3], xs[4]],
        kernel: [ws[2], ws[3], ws[4]],
        stride: [p.stride[0], p.stride[1], p.stride[2]],
        pad: [p.padding[0], p.padding[1], p.padding[2]],
        dilation: [p.dilation[0], p.dilation[1], p.dilation[2]],
        output: [0; 3],
    };
    for d in 0..3 {
        let span = g.dilation[d] * (g.kernel[d] - 1);
        g.output[d] = if p.transposed {
            (g.input[d] - 1) * g.stride[d] - 2 * g.pad[d] + span + p.output_padding[d] + 1
        } else {
            (g.input[d] + 2 * g.pad[d] + p.extra[d] - span - 1) / g.stride[d] + 1
        };
    }
    if p.transposed && g.output.iter().any(|&s| s < 0) {
        let [t, h, w] = g.input;
        let [ot, oh, ow] = g.output;
        bail!(
            "Given input size per channel: ({t} x {h} x {w}). Calculated output size per channel: ({ot} x {oh} x {ow}). Output size is too small"
        );
    }
    if !p.transposed && wt == DType::F32 {
        if let Some(out) = forward_f32(&x, &w, b.as_ref(), g)? {
            return to_contiguous(&out, dtype);
        }
    }
    let out = crate::dispatch_work!(wt, T => {
        if p.transposed {
            transposed::<T>(&x, &w, b.as_ref(), g)
        } else {
            forward::<T>(&x, &w, b.as_ref(), g)
        }
    })?;
    if out.dtype() != dtype {
        return to_contiguous(&out, dtype);
    }
    Ok(out)
}

/// An output `[n, o, t, h, w]` holding each channel's bias (zeros without one).
fn output_with_bias<T: Work>(g: &Geometry, bias: Option<&Tensor>) -> TensorResult<Tensor> {
    let [t, h, w] = g.output;
    let out = Tensor::zeros(&[g.n, g.o, t, h, w], T::DTYPE)?;
    let plane = g.out_plane();
    if let (Some(b), true) = (bias, plane > 0) {
        // SAFETY: `b` is contiguous of T (converted by the caller); `out` is fresh.
        let (bv, ov) = unsafe { (slice::<T>(b), slice_mut::<T>(&out)) };
        for (i, chunk) in ov.chunks_mut(plane).enumerate() {
            chunk.fill(bv[i % g.o as usize]);
        }
    }
    Ok(out)
}

fn forward<T: Work>(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    g: Geometry,
) -> TensorResult<Tensor> {
    let out = output_with_bias::<T>(&g, bias)?;
    if out.numel() == 0 {
        return Ok(out);
    }
    let beta = if bias.is_some() { 1.0 } else { 0.0 };
    let (cg, og) = (g.c / g.groups, g.o / g.groups);
    let kk = g.kernel_volume() as i64;
    let plane = g.out_plane() as i64;
    let a = w.view(&[g.groups, og, cg * kk])?;
    let pointwise = kk == 1 && g.stride == [1; 3] && g.pad == [0; 3];
    if pointwise {
        for s in 0..g.n {
            let xs = x.select(0, s)?.view(&[g.groups, cg, plane])?;
            let os = out.select(0, s)?.view(&[g.groups, og, plane])?;
            bgemm("slow_conv3d", &a, &xs, &os, 1.0, beta)?;
        }
        return Ok(out);
    }
    let rows = (cg * kk).max(1);
    let chunk = ((COL_ELEMS as i64 / (g.groups * rows)).max(1)).min(plane);
    let col_storage = Tensor::zeros(&[g.groups * rows * chunk], T::DTYPE)?;
    for s in 0..g.n {
        let xs = x.select(0, s)?;
        let os = out.select(0, s)?.view(&[g.groups, og, plane])?;
        let mut start = 0;
        while start < plane {
            let len = chunk.min(plane - start);
            let col = col_storage.as_strided(&[g.groups, rows, len], &[rows * len, len, 1], 0)?;
            vol2col::<T>(&xs, &col, &g, start as usize, len as usize);
            bgemm(
                "slow_conv3d",
                &a,
                &col,
                &os.narrow(2, start, len)?,
                1.0,
                beta,
            )?;
            start += len;
        }
    }
    Ok(out)
}

/// float32 where the CPU has the GEMM micro-kernels: vol2col into this thread's reused column
/// buffer (a fresh one page-faults on every call), then the tiled float32 GEMM writes the
/// output with the bias in its tiles. The general GEMM [`forward`] takes spent most of its
/// time in edge micro-kernels on these narrow products.
fn forward_f32(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    g: Geometry,
) -> TensorResult<Option<Tensor>> {
    let level = crate::ops::cpu::isa();
    let sizes = [g.n, g.o, g.output[0], g.output[1], g.output[2]];
    if !sgemm::available(level) || sizes.iter().any(|&d| d <= 0) || g.c == 0 {
        return Ok(None);
    }
    let out = crate::ops::pointwise::output_for_overwrite(&sizes, DType::F32)?;
    let groups = g.groups as usize;
    let (cg, og) = (g.c as usize / groups, g.o as usize / groups);
    let rows = cg * g.kernel_volume();
    let plane = g.out_plane();
    let chunk = (COL_ELEMS / (groups * rows)).clamp(1, plane);
    let (wp, op) = (w.data_ptr() as *const f32, out.data_ptr() as *mut f32);
    let bp = bias.map(|b| b.data_ptr() as *const f32);
    for s in 0..g.n as usize {
        let xs = x.select(0, s as i64)?;
        let mut start = 0;
        while start < plane {
            let len = chunk.min(plane - start);
            let col = super::conv::scratch(&[(groups * rows * len) as i64], DType::F32)?;
            vol2col::<f32>(&xs, &col, &g, start, len);
            let cp = col.data_ptr() as *const f32;
            for grp in 0..groups {
                let at = (s * g.o as usize + grp * og) * plane + start;
                let p = sgemm::Product {
                    m: og,
                    n: len,
                    k: rows,
                    a: wp.wrapping_add(grp * og * rows),
                    lda: rows,
                    b: sgemm::BSource::Rows {
                        ptr: cp.wrapping_add(grp * rows * len),
                        ld: len,
                    },
                    c: op.wrapping_add(at),
                    ldc: plane,
                    bias: bp.map_or(sgemm::Bias::None, |b| {
                        sgemm::Bias::PerRow(b.wrapping_add(grp * og))
                    }),
                    epi: &super::epilogue::Epilogue::NONE,
                    at,
                };
                // SAFETY: contiguous float32 tensors of the geometry's sizes: weights
                // `[o, cg * kk]`, columns `[groups, rows, len]` just written, output columns
                // `[start, start + len)` of each output row (`plane` apart); `level` comes
                // from `cpu::isa` and has the kernels.
                unsafe { sgemm::run(level, &p) };
            }
            start += len;
        }
    }
    Ok(Some(out))
}

/// Lays out the patches of output positions `[start, start + len)` of one sample
/// `[c, t, h, w]` as rows `(channel, kt, kh, kw)` of `col` (`[c*kk, len]`), zeros where
/// the kernel reads padding.
fn vol2col<T: Work>(x: &Tensor, col: &Tensor, g: &Geometry, start: usize, len: usize) {
    // SAFETY: `x` is a contiguous sample of a contiguous T tensor; `col` is our own
    // contiguous buffer, each row written by one task.
    let (xv, cv) = unsafe { (slice::<T>(x), slice_mut::<T>(col)) };
    let kk = g.kernel_volume();
    let in_plane = g.in_plane();
    let [it, ih, iw] = g.input;
    let [_, oh, ow] = g.output;
    let [_, kh, kw] = g.kernel;
    let fill = |row: usize, dst: &mut [T]| {
        let c = row / kk;
        let k = (row % kk) as i64;
        let (ki, kj, kl) = (k / (kh * kw), (k / kw) % kh, k % kw);
        let src = &xv[c * in_plane..(c + 1) * in_plane];
        let off = [
            ki * g.dilation[0] - g.pad[0],
            kj * g.dilation[1] - g.pad[1],
            kl * g.dilation[2] - g.pad[2],
        ];
        let p = start as i64;
        let (mut t, mut h, mut w) = (p / (oh * ow), (p / ow) % oh, p % ow);
        for v in dst.iter_mut() {
            let (zt, zh, zw) = (
                t * g.stride[0] + off[0],
                h * g.stride[1] + off[1],
                w * g.stride[2] + off[2],
            );
            *v = if zt >= 0 && zt < it && zh >= 0 && zh < ih && zw >= 0 && zw < iw {
                src[((zt * ih + zh) * iw + zw) as usize]
            } else {
                T::zero()
            };
            w += 1;
            if w == ow {
                w = 0;
                h += 1;
                if h == oh {
                    h = 0;
                    t += 1;
                }
            }
        }
    };
    if cv.len() >= PARALLEL_ELEMS {
        crate::parallel::for_each_chunk_mut(cv, len, fill);
    } else {
        cv.chunks_mut(len)
            .enumerate()
            .for_each(|(row, dst)| fill(row, dst));
    }
}

fn transposed<T: Work>(
    x: &Tensor,
    w: &Tensor,
    bias: Option<&Tensor>,
    g: Geometry,
) -> TensorResult<Tensor> {
    let out = output_with_bias::<T>(&g, bias)?;
    if out.numel() == 0 {
        return Ok(out);
    }
    let cin_g = g.c / g.groups;
    let og = g.o / g.groups;
    let kk = g.kernel_volume() as i64;
    let in_plane = g.in_plane() as i64;
    // Weight [C_in, O/g, kt, kh, kw] as [g, O/g*kk, C_in/g].
    let a = w.view(&[g.groups, cin_g, og * kk])?.transpose(1, 2)?;
    let cols = Tensor::zeros(&[g.groups, og * kk, in_plane], T::DTYPE)?;
    for s in 0..g.n {
        let b = x.select(0, s)?.view(&[g.groups, cin_g, in_plane])?;
        bgemm("slow_conv_transpose3d_out_cpu", &a, &b, &cols, 1.0, 0.0)?;
        col2vol::<T>(&cols, &out.select(0, s)?, &g);
    }
    Ok(out)
}

/// Adds the columns `[o*kk, t*h*w]` into one output sample `[o, ot, oh, ow]`.
fn col2vol<T: Work>(cols: &Tensor, out: &Tensor, g: &Geometry) {
    // SAFETY: `cols` is our contiguous buffer; `out` is a contiguous sample of our fresh
    // output, each channel plane written by one task.
    let (cv, ov) = unsafe { (slice::<T>(cols), slice_mut::<T>(out)) };
    let (plane, in_plane, kk) = (g.out_plane(), g.in_plane(), g.kernel_volume());
    let [it, ih, iw] = g.input;
    let [ot, oh, ow] = g.output;
    let [_, kh, kw] = g.kernel;
    let run = |oc: usize, dst: &mut [T]| {
        for k in 0..kk as i64 {
            let (ki, kj, kl) = (k / (kh * kw), (k / kw) % kh, k % kw);
            let src = &cv[(oc * kk + k as usize) * in_plane..][..in_plane];
            for zt in 0..it {
                let t = zt * g.stride[0] - g.pad[0] + ki * g.dilation[0];
                if t < 0 || t >= ot {
                    continue;
                }
                for zh in 0..ih {
                    let h = zh * g.stride[1] - g.pad[1] + kj * g.dilation[1];
                    if h < 0 || h >= oh {
                        continue;
                    }
                    for zw in 0..iw {
                        let w = zw * g.stride[2] - g.pad[2] + kl * g.dilation[2];
                        if w < 0 || w >= ow {
                            continue;
                        }
                        let d = &mut dst[((t * oh + h) * ow + w) as usize];
                        *d = d.wadd(src[((zt * ih + zh) * iw + zw) as usize]);
                    }
                }
            }
        }
    };
    if cv.len() >= PARALLEL_ELEMS {
        crate::parallel::for_each_chunk_mut(ov, plane, run);
    } else {
        ov.chunks_mut(plane)
            .enumerate()
            .for_each(|(i, dst)| run(i, dst));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The float32 GEMM path agrees with the general one where the columns come in several
    /// chunks (more than `COL_ELEMS`), with groups, strides and bias.
    #[test]
    fn float32_path_matches_the_general_one_across_chunks() {
        let fill = |s: &[i64]| {
            let n: i64 = s.iter().product();
            let v: Vec<f32> = (0..n)
                .map(|i| ((i * 37 + 11) % 23) as f32 / 7.0 - 1.5)
                .collect();
            Tensor::from_vec(v, s).unwrap()
        };
        for (xs, ws, stride, groups) in [
            ([1, 64, 4, 34, 34], [8, 64, 3, 3, 3], [1, 1, 1], 1),
            ([2, 16, 5, 9, 11], [6, 8, 3, 2, 3], [2, 1, 2], 2),
        ] {
            let (x, w, b) = (fill(&xs), fill(&ws), fill(&[ws[0]]));
            let p = Params3d {
                stride: &stride,
                padding: &[1, 1, 1],
                extra: &[0, 0, 0],
                dilation: &[1, 1, 1],
                output_padding: &[0, 0, 0],
                groups,
                transposed: false,
            };
            let got = convolution3d(&x, &w, Some(&b), &p).unwrap();
            let want = {
                let g = Geometry {
                    n: xs[0],
                    c: xs[1],
                    o: ws[0],
                    groups,
                    input: [xs[2], xs[3], xs[4]],
                    kernel: [ws[2], ws[3], ws[4]],
                    stride,
                    pad: [1, 1, 1],
                    dilation: [1, 1, 1],
                    output: got.sizes()[2..].try_into().unwrap(),
                };
                if groups == 1 {
                    let rows = (xs[1] * ws[2] * ws[3] * ws[4]) as usize;
                    assert!(rows * g.out_plane() > COL_ELEMS, "one chunk only");
                }
                forward::<f32>(&x, &w, Some(&b), g).unwrap()
            };
            assert_eq!(got.sizes(), want.sizes());
            for (i, (a, e)) in got
                .to_vec::<f64>()
                .iter()
                .zip(want.to_vec::<f64>())
                .enumerate()
            {
                assert!(
                    (a - e).abs() <= 1e-4 * e.abs().max(1.0),
                    "{xs:?} element {i}: {a} vs {e}"
                );
            }
        }
    }
}
