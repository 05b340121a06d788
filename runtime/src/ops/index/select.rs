//! Selecting elements by index or mask into a new tensor: index_select, masked_select, take,
//! nonzero, argwhere and the one-argument `where(cond)`.

use super::super::shape::call::{kernels, tensor_list, tensor_value, Call, Kernel};
use super::super::shape::elements::{check_len, gather, gather_blocks};
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::tensor::{broadcast_shapes, wrap_dim, DType, Element, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::index_select", |o| matches!(o, "" | "out")
        .then_some(index_select as Kernel));
    kernels!(r, "aten::masked_select", |o| matches!(o, "" | "out")
        .then_some(masked_select as Kernel));
    kernels!(r, "aten::take", |o| matches!(o, "" | "out")
        .then_some(take as Kernel));
    kernels!(r, "aten::nonzero", |o| matches!(o, "" | "out")
        .then_some(nonzero as Kernel));
    kernels!(r, "aten::argwhere", |_| Some(nonzero as Kernel));
    kernels!(r, "aten::nonzero_numpy", |_| Some(where_cond as Kernel));
    kernels!(r, "aten::where", |o| (o.is_empty())
        .then_some(where_cond as Kernel));
}

/// Whether each element (row-major) is nonzero (NaN counts as nonzero).
pub fn nonzero_mask(t: &Tensor) -> TensorResult<Vec<bool>> {
    check_len(t.numel())?;
    Ok(crate::dispatch_dtype!(t.dtype(), T => {
        t.to_vec::<T>().into_iter().map(<T as Element>::is_nonzero).collect()
    }))
}

/// `nonzero(t)`: an int64 tensor `[count, ndim]` of the coordinates of nonzero elements.
pub fn nonzero_tensor(t: &Tensor) -> TensorResult<Tensor> {
    let sizes = t.sizes();
    let nd = sizes.len();
    let mask = nonzero_mask(t)?;
    let mut coords: Vec<i64> = Vec::new();
    let mut index = vec![0i64; nd];
    let mut count = 0i64;
    for &m in &mask {
        if m {
            coords.extend_from_slice(&index);
            count += 1;
        }
        // Odometer over the row-major coordinates.
        for d in (0..nd).rev() {
            index[d] += 1;
            if index[d] < sizes[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Tensor::from_vec(coords, &[count, nd as i64])
}

fn nonzero(c: &Call) -> TensorResult<IValue> {
    Ok(tensor_value(nonzero_tensor(&c.tensor("self")?)?))
}

/// `where(cond)`: one int64 tensor of coordinates per dim (`nonzero(as_tuple=True)`).
fn where_cond(c: &Call) -> TensorResult<IValue> {
    let cond = if c.has("condition") {
        c.tensor("condition")?
    } else {
        c.tensor("self")?
    };
    let cond = if cond.dim() == 0 {
        cond.unsqueeze(0)?
    } else {
        cond
    };
    let nz = nonzero_tensor(&cond)?;
    let cols = (0..cond.dim() as i64)
        .map(|j| nz.select(1, j)?.clone_contiguous())
        .collect::<TensorResult<Vec<_>>>()?;
    Ok(tensor_list(cols))
}

/// `index_select(self, dim, index)`: the slices of `dim` at the (non-negative) indices.
pub fn index_select_tensor(t: &Tensor, dim: i64, index: &Tensor) -> TensorResult<Tensor> {
    if index.dim() > 1 {
        bail!("index_select(): Index is supposed to be a vector");
    }
    if !matches!(index.dtype(), DType::I64 | DType::I32) {
        bail!("index_select(): Expected dtype int32 or int64 for index");
    }
    let sizes = t.sizes();
    let d = wrap_dim(dim, sizes.len())?;
    check_len(index.numel())?;
    let idx = index.to_vec::<i64>();
    if sizes.is_empty() {
        // A 0-dim source: every index must be 0; the result has the index's shape.
        if idx.iter().any(|&i| i != 0) {
            bail!(
                "index_select(): Index to scalar can have only 1 value, got {} value(s)",
                idx.len()
            );
        }
        let offsets = vec![0; idx.len()];
        return gather(t, &offsets, &index.sizes());
    }
    let size = sizes[d];
    for &i in &idx {
        if i < 0 || i >= size {
            bail!("index out of range in self");
        }
    }
    let strides = t.strides();
    let mut out_sizes = sizes.to_vec();
    out_sizes[d] = idx.len() as i64;
    let mut outer = Vec::new();
    crate::tensor::for_each_offset(&sizes[..d], &strides[..d], |o| outer.push(o));
    let total = crate::tensor::checked_numel(&out_sizes)?;
    check_len(total)?;
    if total == 0 {
        return Tensor::zeros(&out_sizes, t.dtype());
    }
    // The inner dims move as blocks where they are contiguous (whole rows of a matrix).
    let (inner_sizes, inner_strides) = (&sizes[d + 1..], &strides[d + 1..]);
    let (mut block, mut split) = (1i64, inner_sizes.len());
    while split > 0 {
        let k = split - 1;
        if inner_sizes[k] != 1 && inner_strides[k] != block {
            break;
        }
        block *= inner_sizes[k];
        split -= 1;
    }
    let mut inner = Vec::new();
    crate::tensor::for_each_offset(&inner_sizes[..split], &inner_strides[..split], |o| {
        inner.push(o)
    });
    let mut offsets = Vec::with_capacity(total / block as usize);
    for &o in &outer {
        for &i in &idx {
            for &n in &inner {
                offsets.push(o + i * strides[d] + n);
            }
        }
    }
    gather_blocks(t, &offsets, block as usize, &out_sizes)
}

fn index_select(c: &Call) -> TensorResult<IValue> {
    Ok(tensor_value(index_select_tensor(
        &c.tensor("self")?,
        c.int("dim")?,
        &c.tensor("index")?,
    )?))
}

fn masked_select(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let mask = c.tensor("mask")?;
    if mask.dtype() != DType::Bool {
        bail!("masked_select: expected BoolTensor for mask");
    }
    let shape = broadcast_shapes(&mask.sizes(), &t.sizes())?;
    let te = t.expand(&shape)?;
    let keep = nonzero_mask(&mask.expand(&shape)?)?;
    let offsets: Vec<i64> = te
        .element_offsets()
        .into_iter()
        .zip(&keep)
        .filter_map(|(o, &k)| k.then_some(o))
        .collect();
    let n = offsets.len() as i64;
    Ok(tensor_value(gather(&te, &offsets, &[n])?))
}

fn take(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let index = c.tensor("index")?;
    if index.dtype() != DType::I64 {
        bail!(
            "take(): Expected a long tensor for index, but got {}",
            index.dtype().scalar_type_name()
        );
    }
    check_len(t.numel().max(index.numel()))?;
    let all = t.element_offsets();
    let n = all.len() as i64;
    let mut offsets = Vec::with_capacity(index.numel());
    for i in index.to_vec::<i64>() {
        if i < -n || i >= n {
            if n == 0 {
                bail!("take(): tried to take from an empty tensor");
            }
            bail!("out of range: tried to access index {i} on a tensor of {n} elements.");
        }
        offsets.push(all[if i < 0 { i + n } else { i } as usize]);
    }
    Ok(tensor_value(gather(&t, &offsets, &index.sizes())?))
}
