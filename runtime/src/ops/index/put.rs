//! Writing slices or masked elements of one tensor into a copy of another: index_add,
//! index_copy, masked_scatter, select_scatter, slice_scatter, narrow_copy.

use super::super::shape::call::{kernels, tensor_value, Call, Kernel};
use super::super::shape::elements::{assert_no_internal_overlap, assert_no_overlap, sizes_str};
use super::select::nonzero_mask;
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::tensor::elementwise::{map, Arg, Compute, Target};
use crate::tensor::{wrap_dim, DType, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::index_add", |o| matches!(o, "" | "out")
        .then_some(index_add as Kernel));
    kernels!(r, "aten::index_add_", |_| Some(index_add_ as Kernel));
    kernels!(r, "aten::index_copy", |o| matches!(o, "" | "out")
        .then_some(index_copy as Kernel));
    kernels!(r, "aten::index_copy_", |_| Some(index_copy_ as Kernel));
    kernels!(r, "aten::masked_scatter", |o| matches!(o, "" | "out")
        .then_some(masked_scatter as Kernel));
    kernels!(r, "aten::masked_scatter_", |_| Some(
        masked_scatter_ as Kernel
    ));
    kernels!(r, "aten::select_scatter", |o| matches!(o, "" | "out")
        .then_some(select_scatter as Kernel));
    kernels!(r, "aten::slice_scatter", |o| matches!(o, "" | "out")
        .then_some(slice_scatter as Kernel));
    kernels!(r, "aten::narrow_copy", |o| matches!(o, "" | "out")
        .then_some(narrow_copy as Kernel));
}

/// The slices of `dim` that `index_add`/`index_copy` write: (target index, source index).
fn slice_pairs(
    method: &str,
    t: &Tensor,
    d: usize,
    index: &Tensor,
    source: &Tensor,
) -> TensorResult<Vec<(i64, i64)>> {
    if index.dim() > 1 {
        bail!("{method}(): Index is supposed to be a vector");
    }
    if !matches!(index.dtype(), DType::I64 | DType::I32) {
        bail!("{method}(): Expected dtype int32/int64 for index");
    }
    if source.dtype() != t.dtype() {
        bail!(
            "{method}(): self ({}) and source ({}) must have the same scalar type",
            t.dtype().scalar_type_name(),
            source.dtype().scalar_type_name()
        );
    }
    let idx = index.to_vec::<i64>();
    let src_len = if source.dim() == 0 {
        1
    } else {
        source.sizes()[d]
    };
    if idx.len() as i64 != src_len {
        bail!(
            "{method}(): Number of indices ({}) should be equal to source.size(dim): ({src_len}), for dim: {d}",
            idx.len()
        );
    }
    let size = if t.dim() == 0 { 1 } else { t.sizes()[d] };
    idx.iter()
        .enumerate()
        .map(|(i, &v)| {
            if v < -size || v >= size {
                bail!("index {v} is out of bounds for dimension {d} with size {size}");
            }
            Ok((if v < 0 { v + size } else { v }, i as i64))
        })
        .collect()
}

fn slice_of(t: &Tensor, d: usize, i: i64) -> TensorResult<Tensor> {
    if t.dim() == 0 {
        Ok(t.clone())
    } else {
        t.select(d as i64, i)
    }
}

fn index_add_into(c: &Call, t: &Tensor) -> TensorResult<()> {
    assert_no_internal_overlap(t)?;
    let d = wrap_dim(c.int("dim")?, t.dim())?;
    let index = c.tensor("index")?;
    let source = c.tensor("source")?;
    assert_no_overlap(t, &source)?;
    assert_no_overlap(t, &index)?;
    let pairs = slice_pairs("index_add_", t, d, &index, &source)?;
    let alpha = c.scalar("alpha")?;
    let floating = t.dtype().is_floating();
    let (af, ai) = (alpha.to_f64(), alpha.to_i64());
    let fadd = move |x: &[f64]| x[0] + af * x[1];
    let iadd = move |x: &[i64]| x[0].wrapping_add(ai.wrapping_mul(x[1]));
    for (dst_i, src_i) in pairs {
        let dst = slice_of(t, d, dst_i)?;
        let src = slice_of(&source, d, src_i)?;
        let args = [Arg::Tensor(dst.clone()), Arg::Tensor(src)];
        let compute = if floating {
            Compute::Float(&fadd)
        } else {
            Compute::Int(&iadd)
        };
        map(&args, compute, Target::Into(&dst))?;
    }
    Ok(())
}

fn index_add(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?.clone_contiguous()?;
    index_add_into(c, &t)?;
    Ok(tensor_value(t))
}

fn index_add_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    index_add_into(c, &t)?;
    Ok(tensor_value(t))
}

fn index_copy_into(c: &Call, t: &Tensor) -> TensorResult<()> {
    assert_no_internal_overlap(t)?;
    let d = wrap_dim(c.int("dim")?, t.dim())?;
    let index = c.tensor("index")?;
    let source = c.tensor("source")?;
    assert_no_overlap(t, &source)?;
    assert_no_overlap(t, &index)?;
    for (dst_i, src_i) in slice_pairs("index_copy_", t, d, &index, &source)? {
        slice_of(t, d, dst_i)?.copy_from(&slice_of(&source, d, src_i)?)?;
    }
    Ok(())
}

fn index_copy(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?.clone_contiguous()?;
    index_copy_into(c, &t)?;
    Ok(tensor_value(t))
}

fn index_copy_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    index_copy_into(c, &t)?;
    Ok(tensor_value(t))
}

/// Writes `source`'s elements, in order, where `mask` (broadcast to `t`) is true.
fn masked_scatter_into(t: &Tensor, mask: &Tensor, source: &Tensor) -> TensorResult<()> {
    assert_no_internal_overlap(t)?;
    if mask.dtype() != DType::Bool {
        bail!(
            "masked_scatter_ only supports boolean masks, but got mask with dtype {}",
            mask.dtype().scalar_type_name()
        );
    }
    if source.dtype() != t.dtype() {
        bail!(
            "masked_scatter_: expected self and source to have same dtypes but got {} and {}",
            t.dtype().scalar_type_name(),
            source.dtype().scalar_type_name()
        );
    }
    let keep = nonzero_mask(&mask.expand(&t.sizes())?)?;
    let offsets: Vec<i64> = t
        .element_offsets()
        .into_iter()
        .zip(&keep)
        .filter_map(|(o, &k)| k.then_some(o))
        .collect();
    if offsets.len() > source.numel() {
        bail!("Number of elements of source < number of ones in mask");
    }
    if source.shares_storage(t) {
        // Read and write in order, as PyTorch's serial kernel does when they alias.
        let src_offsets = source.element_offsets();
        let (s, d, size) = (source.data_ptr(), t.data_ptr(), t.dtype().size());
        for (&so, &dof) in src_offsets.iter().zip(&offsets) {
            // SAFETY: in-bounds element offsets of each tensor; one element at a time, so an
            // aliasing source and destination are fine (ptr::copy allows overlap).
            unsafe {
                std::ptr::copy(
                    s.offset(so as isize * size as isize),
                    d.offset(dof as isize * size as isize),
                    size,
                )
            };
        }
        return Ok(());
    }
    let values = source.reshape(&[-1])?.narrow(0, 0, offsets.len() as i64)?;
    super::super::shape::elements::scatter(
        t,
        &offsets,
        &values,
        super::super::shape::elements::Combine::Replace,
    )
}

fn masked_scatter(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let mask = c.tensor("mask")?;
    let shape = crate::tensor::broadcast_shapes(&t.sizes(), &mask.sizes())?;
    let out = t.expand(&shape)?.clone_contiguous()?;
    masked_scatter_into(&out, &mask, &c.tensor("source")?)?;
    Ok(tensor_value(out))
}

fn masked_scatter_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    masked_scatter_into(&t, &c.tensor("mask")?, &c.tensor("source")?)?;
    Ok(tensor_value(t))
}

fn embed(out: &Tensor, view: Tensor, src: &Tensor) -> TensorResult<IValue> {
    if view.sizes() != src.sizes() {
        bail!(
            "expected src to have a size equal to the slice of self. src size = {}, slice size = {}",
            sizes_str(&src.sizes()),
            sizes_str(&view.sizes())
        );
    }
    view.copy_from(src)?;
    Ok(tensor_value(out.clone()))
}

fn select_scatter(c: &Call) -> TensorResult<IValue> {
    let out = c.tensor("self")?.clone_contiguous()?;
    let view = out.select(c.int("dim")?, c.int("index")?)?;
    embed(&out, view, &c.tensor("src")?)
}

fn slice_scatter(c: &Call) -> TensorResult<IValue> {
    let out = c.tensor("self")?.clone_contiguous()?;
    let view = out.slice(
        c.int("dim")?,
        c.opt_int("start")?,
        c.opt_int("end")?,
        c.int("step")?,
    )?;
    embed(&out, view, &c.tensor("src")?)
}

fn narrow_copy(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let v = t.narrow(c.int("dim")?, c.int("start")?, c.int("length")?)?;
    Ok(tensor_value(v.clone_contiguous()?))
}
