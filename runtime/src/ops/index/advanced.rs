//! Advanced indexing, `aten::index` and `aten::index_put(_)`, with PyTorch's rules: bool
//! and uint8 masks become the index tensors of their nonzero positions, index tensors
//! broadcast together, and when the indexed dims are not adjacent they move to the front
//! of the result.

use super::select::nonzero_tensor;
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::ops::shape::call::{kernels, tensor_value, Call, Kernel};
use crate::ops::shape::elements::{
    assert_no_overlap, check_len, gather_blocks, scatter, sizes_str, Combine,
};
use crate::tensor::{broadcast_shapes, for_each_offset, DType, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::index", |o| matches!(
        o,
        "Tensor" | "Tensor_out" | "Tensor_hacked_twin"
    )
    .then_some(index as Kernel));
    kernels!(r, "aten::_unsafe_index", |_| Some(index as Kernel));
    kernels!(r, "aten::index_put", |_| Some(index_put as Kernel));
    kernels!(r, "aten::index_put_", |_| Some(index_put_ as Kernel));
    kernels!(r, "aten::_unsafe_index_put", |_| Some(index_put as Kernel));
    kernels!(r, "aten::_index_put_impl_", |_| Some(index_put_ as Kernel));
}

/// Where the elements of `self[indices]` are: the offsets (from `self`'s element 0) of runs
/// of `block` elements contiguous in `self`, in the result's row-major order, and the
/// result's shape. Indexing rows of a matrix gives one run per row.
pub struct IndexPlan {
    pub offsets: Vec<i64>,
    pub block: usize,
    pub sizes: Vec<i64>,
}

impl IndexPlan {
    /// The offset of every element, in the result's order.
    pub fn element_offsets(&self) -> Vec<i64> {
        if self.block == 1 {
            return self.offsets.clone();
        }
        let b = self.block as i64;
        self.offsets
            .iter()
            .flat_map(|&o| (0..b).map(move |k| o + k))
            .collect()
    }
}

/// Plans `self[indices]` (PyTorch's `make_info`: expand masks, broadcast, transpose the
/// indexed dims to the front when they are not adjacent, check bounds).
pub fn plan(t: &Tensor, indices: &[Option<Tensor>]) -> TensorResult<IndexPlan> {
    let ndim = t.dim();
    if indices.len() > ndim {
        bail!(
            "too many indices for tensor of dimension {ndim} (got {})",
            indices.len()
        );
    }
    for idx in indices.iter().flatten() {
        if !matches!(
            idx.dtype(),
            DType::I64 | DType::I32 | DType::U8 | DType::Bool
        ) {
            bail!("tensors used as indices must be long, int, byte or bool tensors");
        }
    }
    let sizes = t.sizes();
    let strides = t.strides();
    // Expand masks into one index tensor per masked dim.
    let mut expanded: Vec<Option<Tensor>> = Vec::with_capacity(ndim);
    for idx in indices {
        match idx {
            None => expanded.push(None),
            Some(m) if matches!(m.dtype(), DType::U8 | DType::Bool) => {
                let start = expanded.len();
                let msizes = m.sizes();
                for (j, &ms) in msizes.iter().enumerate() {
                    let src = start + j;
                    if src >= ndim {
                        bail!(
                            "too many indices for tensor of dimension {ndim} (got {})",
                            src + 1
                        );
                    }
                    if ms != sizes[src] {
                        bail!(
                            "The shape of the mask {} at index {j} does not match the shape of the indexed tensor {} at index {src}",
                            sizes_str(&msizes),
                            sizes_str(&sizes)
                        );
                    }
                }
                let nz = nonzero_tensor(m)?;
                for j in 0..msizes.len() {
                    expanded.push(Some(nz.select(1, j as i64)?));
                }
            }
            Some(i) => expanded.push(Some(i.clone())),
        }
    }
    if expanded.len() > ndim {
        bail!(
            "too many indices for tensor of dimension {ndim} (got {})",
            expanded.len()
        );
    }
    expanded.resize(ndim, None);
    // Broadcast the index tensors together.
    let mut bshape: Vec<i64> = Vec::new();
    for i in expanded.iter().flatten() {
        match broadcast_shapes(&bshape, &i.sizes()) {
            Ok(s) => bshape = s.to_vec(),
            Err(_) => {
                let shapes: Vec<String> = expanded
                    .iter()
                    .flatten()
                    .map(|i| sizes_str(&i.sizes()))
                    .collect();
                bail!(
                    "shape mismatch: indexing tensors could not be broadcast together with shapes {}",
                    shapes.join(", ")
                );
            }
        }
    }
    let indexed: Vec<usize> = (0..ndim).filter(|&d| expanded[d].is_some()).collect();
    if indexed.is_empty() {
        check_len(t.numel())?;
        // Only Nones: the result is a copy of self.
        let offsets = t.element_offsets();
        return Ok(IndexPlan {
            offsets,
            block: 1,
            sizes: sizes.to_vec(),
        });
    }
    let adjacent = indexed.windows(2).all(|w| w[1] == w[0] + 1);
    // The dim order of the (possibly transposed) source: indexed dims first unless adjacent.
    let order: Vec<usize> = if adjacent {
        (0..ndim).collect()
    } else {
        indexed
            .iter()
            .copied()
            .chain((0..ndim).filter(|d| expanded[*d].is_none()))
            .collect()
    };
    let before = if adjacent { indexed[0] } else { 0 };
    let k = indexed.len();
    let perm_sizes: Vec<i64> = order.iter().map(|&d| sizes[d]).collect();
    let perm_strides: Vec<i64> = order.iter().map(|&d| strides[d]).collect();
    let indexed_sizes = &perm_sizes[before..before + k];
    let index_numel = crate::tensor::checked_numel(&bshape)?;
    check_len(index_numel)?;
    let index_numel = index_numel as i64;
    if indexed_sizes.contains(&0) && index_numel != 0 {
        bail!("index is out of bounds for dimension with size 0");
    }
    // Offsets contributed by the index tensors, one per broadcast position.
    let mut index_offsets = vec![0i64; index_numel as usize];
    for (j, &d) in order[before..before + k].iter().enumerate() {
        let Some(idx) = &expanded[d] else { continue };
        let values = idx.expand(&bshape)?.to_vec::<i64>();
        let (size, stride) = (sizes[d], strides[d]);
        for (slot, &v) in index_offsets.iter_mut().zip(&values) {
            if v < -size || v >= size {
                bail!("index {v} is out of bounds for dimension {j} with size {size}");
            }
            let v = if v < 0 { v + size } else { v };
            *slot += v * stride;
        }
    }
    let mut before_offsets = Vec::new();
    for_each_offset(&perm_sizes[..before], &perm_strides[..before], |o| {
        before_offsets.push(o)
    });
    let mut result_sizes: Vec<i64> = perm_sizes[..before].to_vec();
    result_sizes.extend_from_slice(&bshape);
    result_sizes.extend_from_slice(&perm_sizes[before + k..]);
    let total = crate::tensor::checked_numel(&result_sizes)?;
    check_len(total)?;
    if total == 0 {
        return Ok(IndexPlan {
            offsets: Vec::new(),
            block: 1,
            sizes: result_sizes,
        });
    }
    // The trailing non-indexed dims that are contiguous in self move as one block.
    let (after_sizes, after_strides) = (&perm_sizes[before + k..], &perm_strides[before + k..]);
    let (mut block, mut split) = (1i64, after_sizes.len());
    while split > 0 {
        let d = split - 1;
        if after_sizes[d] != 1 && after_strides[d] != block {
            break;
        }
        block *= after_sizes[d];
        split -= 1;
    }
    let mut after_offsets = Vec::new();
    for_each_offset(&after_sizes[..split], &after_strides[..split], |o| {
        after_offsets.push(o)
    });
    let mut offsets = Vec::with_capacity(total / block as usize);
    for &b in &before_offsets {
        for &i in &index_offsets {
            for &a in &after_offsets {
                offsets.push(b + i + a);
            }
        }
    }
    Ok(IndexPlan {
        offsets,
        block: block as usize,
        sizes: result_sizes,
    })
}

pub fn index_tensor(t: &Tensor, indices: &[Option<Tensor>]) -> TensorResult<Tensor> {
    let p = plan(t, indices)?;
    gather_blocks(t, &p.offsets, p.block, &p.sizes)
}

fn index(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    Ok(tensor_value(index_tensor(&t, &c.opt_tensors("indices")?)?))
}

/// `self[indices] = values` (or `+=` with `accumulate`), written through `self`.
pub fn index_put_tensor(
    t: &Tensor,
    indices: &[Option<Tensor>],
    values: &Tensor,
    accumulate: bool,
) -> TensorResult<()> {
    if values.dtype() != t.dtype() {
        bail!(
            "Index put requires the source and destination dtypes match, got {} for the destination and {} for the source.",
            t.dtype().scalar_type_name(),
            values.dtype().scalar_type_name()
        );
    }
    assert_no_overlap(t, values)?;
    let p = plan(t, indices)?;
    let vs = values.sizes();
    let fits = broadcast_shapes(&p.sizes, &vs).is_ok_and(|s| s.as_slice() == p.sizes.as_slice());
    if !fits {
        bail!(
            "shape mismatch: value tensor of shape {} cannot be broadcast to indexing result of shape {}",
            sizes_str(&vs),
            sizes_str(&p.sizes)
        );
    }
    let values = values.expand(&p.sizes)?;
    let how = if accumulate {
        Combine::Add
    } else {
        Combine::Replace
    };
    scatter(t, &p.element_offsets(), &values, how)
}

fn index_put_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    index_put_tensor(
        &t,
        &c.opt_tensors("indices")?,
        &c.tensor("values")?,
        c.boolean("accumulate")?,
    )?;
    Ok(tensor_value(t))
}

fn index_put(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?.clone_contiguous()?;
    index_put_tensor(
        &t,
        &c.opt_tensors("indices")?,
        &c.tensor("values")?,
        c.boolean("accumulate")?,
    )?;
    Ok(tensor_value(t))
}
