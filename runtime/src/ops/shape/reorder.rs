//! Reordering elements into a new tensor: roll, flip (fliplr, flipud), and the triangles
//! tril/triu (with their in-place forms).

use super::call::{kernels, tensor_value, Call, Kernel};
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::tensor::{wrap_dim, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::roll", |o| matches!(o, "" | "out")
        .then_some(roll as Kernel));
    kernels!(r, "aten::flip", |o| matches!(o, "" | "out")
        .then_some(flip as Kernel));
    kernels!(r, "aten::fliplr", |_| Some(fliplr as Kernel));
    kernels!(r, "aten::rot90", |o| matches!(o, "" | "out")
        .then_some(rot90 as Kernel));
    kernels!(r, "aten::flipud", |_| Some(flipud as Kernel));
    kernels!(r, "aten::tril", |o| matches!(o, "" | "out")
        .then_some(tril as Kernel));
    kernels!(r, "aten::triu", |o| matches!(o, "" | "out")
        .then_some(triu as Kernel));
    kernels!(r, "aten::tril_", |_| Some(tril_ as Kernel));
    kernels!(r, "aten::triu_", |_| Some(triu_ as Kernel));
}

/// Rolls `t` by `shift` along one dim: output element j comes from (j - shift) mod n.
fn roll_dim(t: &Tensor, shift: i64, dim: usize) -> TensorResult<Tensor> {
    let sizes = t.sizes();
    let n = sizes[dim];
    if n == 0 {
        return t.clone_contiguous();
    }
    let s = shift.rem_euclid(n);
    if s == 0 {
        return t.clone_contiguous();
    }
    // cat(t[n-s:], t[:n-s]) along dim, as PyTorch's roll_common.
    let tail = t.narrow(dim as i64, n - s, s)?;
    let head = t.narrow(dim as i64, 0, n - s)?;
    super::join::cat_tensors(&[tail, head], dim as i64)
}

fn roll(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let shifts = c.ints("shifts")?;
    let dims = c.ints("dims")?;
    if shifts.is_empty() {
        bail!("`shifts` required");
    }
    if dims.is_empty() && shifts.len() == 1 {
        let flat = t.reshape(&[-1])?;
        let rolled = roll_dim(&flat, shifts[0], 0)?;
        return Ok(tensor_value(rolled.view(&t.sizes())?));
    }
    if shifts.len() != dims.len() {
        bail!(
            "shifts and dimensions must align. shifts: {}, dims:{}",
            shifts.len(),
            dims.len()
        );
    }
    let mut out = t.clone();
    for (&s, &d) in shifts.iter().zip(&dims) {
        let d = wrap_dim(d, t.dim())?;
        out = roll_dim(&out, s, d)?;
    }
    if out.is_same(&t) {
        out = t.clone_contiguous()?;
    }
    Ok(tensor_value(out))
}

pub fn flip_tensor(t: &Tensor, dims: &[i64]) -> TensorResult<Tensor> {
    let n = t.dim();
    let mut flipped = vec![false; n.max(1)];
    for &d in dims {
        let w = wrap_dim(d, n)?;
        if flipped[w] {
            bail!("dim {w} appears multiple times in the list of dims");
        }
        flipped[w] = true;
    }
    let sizes = t.sizes();
    let mut strides = t.strides().to_vec();
    let mut offset = t.storage_offset();
    for i in 0..n {
        if flipped[i] && sizes[i] > 1 {
            offset += (sizes[i] - 1) * strides[i];
            strides[i] = -strides[i];
        }
    }
    // A view with negative strides over the flipped dims, copied out.
    t.with_layout(&sizes, &strides, offset)?.clone_contiguous()
}

fn flip(c: &Call) -> TensorResult<IValue> {
    Ok(tensor_value(flip_tensor(
        &c.tensor("self")?,
        &c.ints("dims")?,
    )?))
}

/// `rot90(k, dims)`: flips and a transpose, as PyTorch composes them.
fn rot90(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let dims = c.ints("dims")?;
    let k = c.int("k")?;
    let total = t.dim() as i64;
    if dims.len() != 2 {
        bail!(
            "expected total rotation dims == 2, but got dims = {}",
            dims.len()
        );
    }
    if total < 2 {
        bail!("expected total dims >= 2, but got total dims = {total}");
    }
    if dims[0] == dims[1] || dims[0].checked_sub(dims[1]).and_then(i64::checked_abs) == Some(total)
    {
        bail!(
            "expected rotation dims to be different, but got dim0 = {} and dim1 = {}",
            dims[0],
            dims[1]
        );
    }
    let (d0, d1) = (
        wrap_dim(dims[0], t.dim())? as i64,
        wrap_dim(dims[1], t.dim())? as i64,
    );
    let out = match k.rem_euclid(4) {
        1 => flip_tensor(&t, &[d1])?.transpose(d0, d1)?,
        2 => flip_tensor(&t, &[d0, d1])?,
        3 => flip_tensor(&t, &[d0])?.transpose(d0, d1)?,
        _ => t.clone_contiguous()?,
    };
    Ok(tensor_value(out))
}

fn fliplr(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    if t.dim() < 2 {
        bail!("Input must be >= 2-d.");
    }
    Ok(tensor_value(flip_tensor(&t, &[1])?))
}

fn flipud(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    if t.dim() < 1 {
        bail!("Input must be >= 1-d.");
    }
    Ok(tensor_value(flip_tensor(&t, &[0])?))
}

/// A copy of `t` with the elements above (`lower`) or below the `k`-th diagonal zeroed.
fn triangle(t: &Tensor, k: i64, lower: bool, name: &str) -> TensorResult<Tensor> {
    let sizes = t.sizes();
    if sizes.len() < 2 {
        bail!("{name}: input tensor must have at least 2 dimensions");
    }
    let out = t.clone_contiguous()?;
    let (rows, cols) = (sizes[sizes.len() - 2], sizes[sizes.len() - 1]);
    let n = out.numel();
    if n == 0 {
        return Ok(out);
    }
    let zero = Tensor::zeros(&[], t.dtype())?;
    let mut offsets = Vec::new();
    let per_matrix = (rows * cols) as usize;
    for m in 0..n / per_matrix {
        for r in 0..rows {
            for col in 0..cols {
                let keep = if lower { col - r <= k } else { col - r >= k };
                if !keep {
                    offsets.push((m * per_matrix) as i64 + r * cols + col);
                }
            }
        }
    }
    let zeros = zero.expand(&[offsets.len() as i64])?;
    super::elements::scatter(&out, &offsets, &zeros, super::elements::Combine::Replace)?;
    Ok(out)
}

fn tril(c: &Call) -> TensorResult<IValue> {
    Ok(tensor_value(triangle(
        &c.tensor("self")?,
        c.int("diagonal")?,
        true,
        "tril",
    )?))
}

fn triu(c: &Call) -> TensorResult<IValue> {
    Ok(tensor_value(triangle(
        &c.tensor("self")?,
        c.int("diagonal")?,
        false,
        "triu",
    )?))
}

fn tril_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let r = triangle(&t, c.int("diagonal")?, true, "tril")?;
    t.copy_from(&r)?;
    Ok(tensor_value(t))
}

fn triu_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let r = triangle(&t, c.int("diagonal")?, false, "triu")?;
    t.copy_from(&r)?;
    Ok(tensor_value(t))
}
