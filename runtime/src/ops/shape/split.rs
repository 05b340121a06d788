//! Splitting a tensor into views: chunk, split (by size or sizes), split_with_sizes,
//! tensor_split, unbind, and `prim::ConstantChunk` (chunk with its outputs unpacked).

use std::sync::Arc;

use ember_dialects::{Graph, Node, Symbol};

use super::call::{kernels, tensor_list, Call, Kernel};
use super::elements::sizes_str;
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::ops::Operation;
use crate::tensor::{wrap_dim, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::chunk", |_| Some(chunk as Kernel));
    // The unsafe_ forms differ only in autograd's view tracking (traced RNN cells use them).
    kernels!(r, "aten::unsafe_chunk", |_| Some(chunk as Kernel));
    kernels!(r, "aten::unsafe_split", |o| match o {
        "Tensor" | "" => Some(split as Kernel),
        _ => None,
    });
    kernels!(r, "aten::unsafe_split_with_sizes", |o| (o.is_empty())
        .then_some(split_sizes as Kernel));
    kernels!(r, "aten::split", |o| match o {
        "Tensor" => Some(split as Kernel),
        "sizes" | "" => Some(split_sizes as Kernel),
        _ => None,
    });
    kernels!(r, "aten::split_with_sizes", |_| Some(split_sizes as Kernel));
    kernels!(r, "aten::tensor_split", |_| Some(tensor_split as Kernel));
    kernels!(r, "aten::unbind", |o| (o == "int")
        .then_some(unbind as Kernel));
    r.add("prim::ConstantChunk", constant_chunk);
}

pub fn split_by_size(t: &Tensor, split_size: i64, dim: i64) -> TensorResult<Vec<Tensor>> {
    if t.dim() == 0 {
        bail!("split expects at least a 1-dimensional tensor");
    }
    if split_size < 0 {
        bail!("split expects split_size be non-negative, but got split_size={split_size}");
    }
    let dim_size = t.size(dim)?;
    if split_size == 0 && dim_size != 0 {
        bail!(
            "split_size can only be 0 if dimension size is 0, but got dimension size of {dim_size}"
        );
    }
    let num = if split_size == 0 {
        1
    } else {
        crate::tensor::ceil_div(dim_size, split_size).max(1)
    };
    // split_size * (num - 1) < dim_size whenever num > 1, so this cannot overflow.
    let last = dim_size - split_size * (num - 1);
    (0..num)
        .map(|i| {
            let len = if i < num - 1 { split_size } else { last };
            t.narrow(dim, i * split_size, len)
        })
        .collect()
}

pub fn split_with_sizes(t: &Tensor, sizes: &[i64], dim: i64) -> TensorResult<Vec<Tensor>> {
    if t.dim() == 0 {
        bail!("split expects at least a 1-dimensional tensor");
    }
    let dim_size = t.size(dim)?;
    let sum_error = || {
        crate::tensor::TensorError::new(format!(
            "split_with_sizes expects split_sizes to sum exactly to {dim_size} (input tensor's size at dimension {dim}), but got split_sizes={}",
            sizes_str(sizes)
        ))
    };
    if sizes.iter().any(|&len| len < 0) {
        bail!(
            "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={}",
            sizes_str(sizes)
        );
    }
    let mut start = 0i64;
    let mut out = Vec::with_capacity(sizes.len());
    for &len in sizes {
        if start.checked_add(len).is_none_or(|e| e > dim_size) {
            return Err(sum_error());
        }
        out.push(t.narrow(dim, start, len)?);
        start += len;
    }
    if start != dim_size {
        return Err(sum_error());
    }
    Ok(out)
}

pub fn chunk_tensor(t: &Tensor, chunks: i64, dim: i64) -> TensorResult<Vec<Tensor>> {
    if t.dim() == 0 {
        bail!("chunk expects at least a 1-dimensional tensor");
    }
    if chunks <= 0 {
        bail!("chunk expects `chunks` to be greater than 0, got: {chunks}");
    }
    let dim_size = t.size(dim)?;
    let split_size = crate::tensor::ceil_div(dim_size, chunks);
    if split_size == 0 && dim_size == 0 {
        // Keep the number of chunks: split would return a single empty piece.
        super::elements::check_len(chunks as usize)?;
        let mut sizes = vec![split_size; chunks as usize];
        sizes[chunks as usize - 1] = split_size - (split_size * chunks - dim_size);
        return split_with_sizes(t, &sizes, dim);
    }
    split_by_size(t, split_size, dim)
}

fn chunk(c: &Call) -> TensorResult<IValue> {
    Ok(tensor_list(chunk_tensor(
        &c.tensor("self")?,
        c.int("chunks")?,
        c.int("dim")?,
    )?))
}

pub(super) fn split(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let dim = c.int("dim")?;
    // A list passed where the schema says int (loose graph types) is a list of sizes.
    if let IValue::List(_) = c.get("split_size") {
        return Ok(tensor_list(split_with_sizes(
            &t,
            &c.ints("split_size")?,
            dim,
        )?));
    }
    Ok(tensor_list(split_by_size(&t, c.int("split_size")?, dim)?))
}

pub(super) fn split_sizes(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let sizes = if c.has("split_sizes") {
        c.ints("split_sizes")?
    } else {
        c.ints("split_size")?
    };
    Ok(tensor_list(split_with_sizes(&t, &sizes, c.int("dim")?)?))
}

fn tensor_split_sections(t: &Tensor, sections: i64, dim: i64) -> TensorResult<Vec<Tensor>> {
    if sections <= 0 {
        bail!("number of sections must be larger than 0, got {sections}");
    }
    let size = t.size(dim)?;
    super::elements::check_len(sections as usize)?;
    let (base, extra) = (size / sections, size % sections);
    let mut start = 0;
    (0..sections)
        .map(|i| {
            let len = base + (i < extra) as i64;
            let piece = t.slice(dim, Some(start), Some(start + len), 1);
            start += len;
            piece
        })
        .collect()
}

fn tensor_split_indices(t: &Tensor, indices: &[i64], dim: i64) -> TensorResult<Vec<Tensor>> {
    let mut start = 0;
    let mut out = Vec::with_capacity(indices.len() + 1);
    for &end in indices {
        out.push(t.slice(dim, Some(start), Some(end), 1)?);
        start = end;
    }
    out.push(t.slice(dim, Some(start), None, 1)?);
    Ok(out)
}

fn tensor_split(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    if t.dim() == 0 {
        bail!(
            "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims"
        );
    }
    let dim = c.int("dim")?;
    wrap_dim(dim, t.dim())?;
    let parts = match c.overload() {
        "sections" => tensor_split_sections(&t, c.int("sections")?, dim)?,
        "indices" => tensor_split_indices(&t, &c.ints("indices")?, dim)?,
        _ => {
            let spec = c.tensor("tensor_indices_or_sections")?;
            if spec.dtype() != crate::tensor::DType::I64 {
                bail!(
                    "tensor_split expected tensor_indices_or_sections to have dtype of long, but got {}",
                    spec.dtype().scalar_type_name()
                );
            }
            match spec.dim() {
                0 => tensor_split_sections(&t, spec.item_i64()?, dim)?,
                1 => tensor_split_indices(&t, &spec.to_vec::<i64>(), dim)?,
                n => bail!(
                    "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, but got a tensor with {n} dims"
                ),
            }
        }
    };
    Ok(tensor_list(parts))
}

pub(super) fn unbind(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let dim = c.int("dim")?;
    if t.dim() == 0 {
        bail!("Dimension specified as {dim} but tensor has no dimensions");
    }
    let n = t.size(dim)?;
    Ok(tensor_list(
        (0..n)
            .map(|i| t.select(dim, i))
            .collect::<TensorResult<_>>()?,
    ))
}

/// `prim::ConstantChunk[chunks=N, dim=D](x)`: chunk with its pieces as the node's outputs.
fn constant_chunk(g: &Graph, n: Node) -> Result<Operation, String> {
    let attr = |name: &str| match g.attr(n, Symbol::new(&format!("attr::{name}"))) {
        Some(ember_dialects::AttrValue::Int(v)) => Ok(*v),
        _ => Err(format!(
            "prim::ConstantChunk needs an int attribute '{name}'"
        )),
    };
    let (chunks, dim) = (attr("chunks")?, attr("dim")?);
    let outputs = g.node_outputs(n).len();
    Ok(Arc::new(move |s: &mut Vec<IValue>| {
        let t = match s.pop() {
            Some(IValue::Tensor(t)) => t,
            _ => return Err("prim::ConstantChunk expects a tensor".into()),
        };
        let pieces = chunk_tensor(&t, chunks, dim).map_err(|e| e.message)?;
        if pieces.len() != outputs {
            return Err(format!(
                "Expected chunk to return {outputs} outputs, but got {}",
                pieces.len()
            ));
        }
        s.extend(pieces.into_iter().map(IValue::Tensor));
        Ok(())
    }))
}
