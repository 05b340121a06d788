//! Repeating elements into a new tensor: repeat, tile, repeat_interleave.

use super::call::{kernels, tensor_value, Call, Kernel};
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::index::select::index_select_tensor;
use crate::ops::registry::Registry;
use crate::tensor::{checked_numel, wrap_dim, DType, Tensor, TensorError, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::repeat", |o| matches!(o, "" | "out")
        .then_some(repeat as Kernel));
    kernels!(r, "aten::tile", |_| Some(tile as Kernel));
    kernels!(r, "aten::repeat_interleave", |_| Some(
        repeat_interleave as Kernel
    ));
}

pub fn repeat_tensor(t: &Tensor, repeats: &[i64]) -> TensorResult<Tensor> {
    let sizes = t.sizes();
    if repeats.len() < sizes.len() {
        bail!("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
    }
    let lead = repeats.len() - sizes.len();
    let padded: Vec<i64> = std::iter::repeat_n(1, lead)
        .chain(sizes.iter().copied())
        .collect();
    let target: Vec<i64> = padded
        .iter()
        .zip(repeats)
        .map(|(&s, &r)| {
            s.checked_mul(r)
                .ok_or_else(|| TensorError::new("repeat: result is too large"))
        })
        .collect::<TensorResult<_>>()?;
    checked_numel(&target)?;
    let base = t.reshape(&padded)?;
    if target.contains(&0) {
        return Tensor::zeros(&target, t.dtype());
    }
    // View the input as [r0, s0, r1, s1, ...] with stride 0 on each repeat dim, then copy.
    let strides = base.strides();
    let (mut vs, mut vst) = (Vec::new(), Vec::new());
    for i in 0..padded.len() {
        vs.extend([repeats[i], padded[i]]);
        vst.extend([0, strides[i]]);
    }
    let view = base.with_layout(&vs, &vst, base.storage_offset())?;
    view.clone_contiguous()?.view(&target)
}

fn repeat(c: &Call) -> TensorResult<IValue> {
    Ok(tensor_value(repeat_tensor(
        &c.tensor("self")?,
        &c.ints("repeats")?,
    )?))
}

fn tile(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let mut dims = c.ints("dims")?;
    if dims.len() < t.dim() {
        let mut padded = vec![1; t.dim() - dims.len()];
        padded.extend(dims);
        dims = padded;
    }
    Ok(tensor_value(repeat_tensor(&t, &dims)?))
}

/// The indices `[0]*r0 + [1]*r1 + ...` of `repeat_interleave(repeats)`.
fn interleave_indices(repeats: &[i64], output_size: Option<i64>) -> TensorResult<Tensor> {
    let mut total: i64 = 0;
    for &r in repeats {
        if r < 0 {
            bail!("repeats can not be negative");
        }
        total = total
            .checked_add(r)
            .ok_or_else(|| TensorError::new("repeat_interleave: result is too large"))?;
    }
    if let Some(size) = output_size {
        if size != total {
            bail!("allocated size does not match required size");
        }
    }
    checked_numel(&[total])?;
    super::elements::check_len(total as usize)?;
    let mut idx = Vec::with_capacity(total as usize);
    for (i, &r) in repeats.iter().enumerate() {
        idx.extend(std::iter::repeat_n(i as i64, r as usize));
    }
    Tensor::from_vec(idx, &[total])
}

fn repeat_counts(repeats: &Tensor) -> TensorResult<Vec<i64>> {
    if !matches!(repeats.dtype(), DType::I64 | DType::I32) {
        bail!("repeats has to be Long or Int tensor");
    }
    Ok(repeats.to_vec::<i64>())
}

fn repeat_interleave(c: &Call) -> TensorResult<IValue> {
    let output_size = c.opt_int("output_size")?;
    if c.overload() == "Tensor" || c.overload() == "Tensor_out" {
        let repeats = c.tensor("repeats")?;
        if repeats.dim() != 1 {
            bail!("repeat_interleave only accept 1D vector as repeat");
        }
        return Ok(tensor_value(interleave_indices(
            &repeat_counts(&repeats)?,
            output_size,
        )?));
    }
    let mut input = c.tensor("self")?;
    let dim = match c.opt_int("dim")? {
        Some(d) => d,
        None => {
            input = input.reshape(&[-1])?;
            0
        }
    };
    let d = wrap_dim(dim, input.dim())?;
    let dim_size = if input.dim() == 0 {
        1
    } else {
        input.sizes()[d]
    };
    let counts = match c.get("repeats") {
        IValue::Tensor(r) => {
            if r.dim() > 1 {
                bail!("repeat_interleave only accept 1D vector as repeat");
            }
            let counts = repeat_counts(r)?;
            if r.dim() == 0 || counts.len() == 1 {
                vec![counts[0]; dim_size as usize]
            } else if counts.len() as i64 != dim_size {
                bail!(
                    "repeats must have the same size as input along dim, but got repeats.size(0) = {} and input.size({d}) = {dim_size}",
                    counts.len()
                );
            } else {
                counts
            }
        }
        _ => vec![c.int("repeats")?; dim_size as usize],
    };
    let idx = interleave_indices(&counts, output_size)?;
    Ok(tensor_value(index_select_tensor(&input, d as i64, &idx)?))
}
