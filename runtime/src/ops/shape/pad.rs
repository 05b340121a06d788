//! Padding: constant_pad_nd and `aten::pad` (constant, reflect, replicate, circular), and
//! the reflection_/replication_pad{1,2,3}d operators, with PyTorch's checks.

use super::call::{kernels, tensor_value, Call, Kernel};
use super::elements::sizes_str;
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::index::select::index_select_tensor;
use crate::ops::registry::Registry;
use crate::tensor::{Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::constant_pad_nd", |o| matches!(o, "" | "out")
        .then_some(constant_pad_nd as Kernel));
    kernels!(r, "aten::pad", |_| Some(pad as Kernel));
    kernels!(r, "aten::reflection_pad1d", |o| matches!(o, "" | "out")
        .then_some(reflect as Kernel));
    kernels!(r, "aten::reflection_pad2d", |o| matches!(o, "" | "out")
        .then_some(reflect as Kernel));
    kernels!(r, "aten::reflection_pad3d", |o| matches!(o, "" | "out")
        .then_some(reflect as Kernel));
    kernels!(r, "aten::replication_pad1d", |o| matches!(o, "" | "out")
        .then_some(replicate as Kernel));
    kernels!(r, "aten::replication_pad2d", |o| matches!(o, "" | "out")
        .then_some(replicate as Kernel));
    kernels!(r, "aten::replication_pad3d", |o| matches!(o, "" | "out")
        .then_some(replicate as Kernel));
}

/// PyTorch's `constant_pad_nd`: pads (or, with negative pads, crops) the last dims, the
/// pairs of `pad` running from the last dim backwards.
pub fn constant_pad(t: &Tensor, pad: &[i64], value: super::call::Scalar) -> TensorResult<Tensor> {
    if !pad.len().is_multiple_of(2) {
        bail!(
            "Length of pad must be even but instead it equals {}",
            pad.len()
        );
    }
    let sizes = t.sizes();
    let l_inp = sizes.len();
    let l_pad = pad.len() / 2;
    if l_inp < l_pad {
        bail!(
            "Length of pad should be no more than twice the number of dimensions of the input. Pad length is {}while the input has {l_inp}dimensions.",
            pad.len()
        );
    }
    let l_diff = l_inp - l_pad;
    let mut input = t.clone();
    let mut all_non_positive = true;
    for i in l_diff..l_inp {
        let p = 2 * (l_inp - i - 1);
        if pad[p] < 0 {
            let size = input.sizes()[i];
            input = input.narrow(
                i as i64,
                pad[p].checked_neg().unwrap_or(i64::MAX),
                size + pad[p],
            )?;
        } else if pad[p] != 0 {
            all_non_positive = false;
        }
        if pad[p + 1] < 0 {
            let size = input.sizes()[i];
            input = input.narrow(i as i64, 0, size + pad[p + 1])?;
        } else if pad[p + 1] != 0 {
            all_non_positive = false;
        }
    }
    if all_non_positive {
        return input.clone_contiguous();
    }
    let mut shape: Vec<i64> = sizes[..l_diff].to_vec();
    for i in 0..l_pad {
        let p = pad.len() - (i + 1) * 2;
        let size = sizes[l_diff + i];
        let new = size
            .checked_add(pad[p])
            .and_then(|s| s.checked_add(pad[p + 1]))
            .ok_or_else(|| crate::tensor::TensorError::new("padding is too large"))?;
        if new < 0 {
            bail!(
                "The input size {size}, plus negative padding {} and {} resulted in a negative output size, which is invalid. Check dimension {} of your input.",
                pad[p],
                pad[p + 1],
                l_diff + i
            );
        }
        shape.push(new);
    }
    let out = crate::ops::create::factory::full_tensor(&shape, value, t.dtype())?;
    let mut region = out.clone();
    for i in l_diff..l_inp {
        let p = 2 * (l_inp - i - 1);
        if pad[p] > 0 {
            let size = region.sizes()[i];
            region = region.narrow(i as i64, pad[p], size - pad[p])?;
        }
        if pad[p + 1] > 0 {
            let size = region.sizes()[i];
            region = region.narrow(i as i64, 0, size - pad[p + 1])?;
        }
    }
    region.copy_from(&input)?;
    Ok(out)
}

fn constant_pad_nd(c: &Call) -> TensorResult<IValue> {
    Ok(tensor_value(constant_pad(
        &c.tensor("self")?,
        &c.ints("pad")?,
        c.scalar("value")?,
    )?))
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Mode {
    Reflect,
    Replicate,
    Circular,
}

/// Pads the last `pad.len() / 2` dims by gathering along each dim.
fn index_pad(t: &Tensor, pad: &[i64], mode: Mode) -> TensorResult<Tensor> {
    let sizes = t.sizes();
    let n = sizes.len();
    let k = pad.len() / 2;
    let mut out = t.clone();
    for j in 0..k {
        let d = n - 1 - j;
        let (before, after) = (pad[2 * j], pad[2 * j + 1]);
        let size = sizes[d];
        match mode {
            Mode::Reflect => {
                if before >= size || after >= size {
                    bail!(
                        "Argument #4: Padding size should be less than the corresponding input dimension, but got: padding ({before}, {after}) at dimension {d} of input {}",
                        sizes_str(&sizes)
                    );
                }
            }
            Mode::Replicate => {
                if size == 0 && (before > 0 || after > 0) {
                    bail!("padding size is expected to be positive for non-empty input");
                }
            }
            Mode::Circular => {
                if before > size || after > size {
                    bail!("Padding value causes wrapping around more than once.");
                }
            }
        }
        let len = size
            .checked_add(before)
            .and_then(|l| l.checked_add(after))
            .ok_or_else(|| crate::tensor::TensorError::new("padding is too large"))?;
        if len < 0 {
            bail!(
                "input tensor size {size} plus padding ({before}, {after}) is negative at dimension {d}"
            );
        }
        super::elements::check_len(len as usize)?;
        let idx: Vec<i64> = (-before..size + after)
            .map(|i| match mode {
                Mode::Reflect => {
                    let i = i.abs();
                    if i >= size {
                        2 * (size - 1) - i
                    } else {
                        i
                    }
                }
                Mode::Replicate => i.clamp(0, size - 1),
                Mode::Circular => i.rem_euclid(size.max(1)),
            })
            .collect();
        let idx = Tensor::from_vec(idx, &[len])?;
        out = index_select_tensor(&out, d as i64, &idx)?;
    }
    Ok(out)
}

fn pad(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let pad = c.ints("pad")?;
    let mode = c.string("mode")?;
    let value = c.get("value");
    if !pad.len().is_multiple_of(2) {
        bail!("Padding length must be divisible by 2");
    }
    let dim = t.dim();
    if pad.len() > dim * 2 {
        bail!(
            "Padding length should be less than or equal to two times the input dimension but got padding length {} and input of dimension {dim}",
            pad.len()
        );
    }
    let mode = match mode.as_str() {
        "constant" => {
            let v = match value {
                IValue::None => super::call::Scalar::Float(0.0),
                _ => super::call::Scalar::Float(c.float("value")?),
            };
            return Ok(tensor_value(constant_pad(&t, &pad, v)?));
        }
        "reflect" => Mode::Reflect,
        "replicate" => Mode::Replicate,
        "circular" => Mode::Circular,
        other => bail!("Unrecognised padding mode {other}"),
    };
    if !matches!(value, IValue::None) && c.float("value")? != 0.0 {
        bail!(
            "Padding mode \"{}\" doesn't take in value argument",
            c.string("mode")?
        );
    }
    let supported = matches!((pad.len(), dim), (2, 2 | 3) | (4, 3 | 4) | (6, 4 | 5));
    if !supported {
        bail!(
            "Padding size {} is not supported for {dim}D input tensor.\nSupported combinations for non-constant padding:\n  - 2D or 3D input: padding size = 2 (pads last dimension)\n  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)",
            pad.len()
        );
    }
    Ok(tensor_value(index_pad(&t, &pad, mode)?))
}

fn reflect(c: &Call) -> TensorResult<IValue> {
    Ok(tensor_value(index_pad(
        &c.tensor("self")?,
        &c.ints("padding")?,
        Mode::Reflect,
    )?))
}

fn replicate(c: &Call) -> TensorResult<IValue> {
    Ok(tensor_value(index_pad(
        &c.tensor("self")?,
        &c.ints("padding")?,
        Mode::Replicate,
    )?))
}
