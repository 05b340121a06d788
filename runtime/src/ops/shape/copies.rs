//! The `_copy` forms of view operators (`view_copy`, `permute_copy`, ...) that functionalized
//! graphs use: the view's result copied into fresh storage. Also `alias`, `resize_` and
//! `resize_as_`, and `_to_copy` / `lift_fresh_copy`.

use super::call::{kernels, tensor_list, tensor_value, Call, Kernel};
use super::{split, views};
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::tensor::{Meta, Storage, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::view_copy", |o| o
        .is_empty()
        .then_some(view_copy as Kernel));
    kernels!(r, "aten::_reshape_copy", |_| Some(reshape_copy as Kernel));
    kernels!(r, "aten::permute_copy", |o| o
        .is_empty()
        .then_some(permute_copy as Kernel));
    kernels!(r, "aten::transpose_copy", |o| (o == "int")
        .then_some(transpose_copy as Kernel));
    kernels!(r, "aten::t_copy", |o| o
        .is_empty()
        .then_some(t_copy as Kernel));
    kernels!(r, "aten::squeeze_copy", |o| matches!(
        o,
        "" | "dim" | "dims"
    )
    .then_some(squeeze_copy as Kernel));
    kernels!(r, "aten::unsqueeze_copy", |o| o
        .is_empty()
        .then_some(unsqueeze_copy as Kernel));
    kernels!(r, "aten::expand_copy", |o| o
        .is_empty()
        .then_some(expand_copy as Kernel));
    kernels!(r, "aten::diagonal_copy", |o| o
        .is_empty()
        .then_some(diagonal_copy as Kernel));
    kernels!(r, "aten::select_copy", |o| (o == "int")
        .then_some(select_copy as Kernel));
    kernels!(r, "aten::slice_copy", |o| (o == "Tensor")
        .then_some(slice_copy as Kernel));
    kernels!(r, "aten::unfold_copy", |o| o
        .is_empty()
        .then_some(unfold_copy as Kernel));
    kernels!(r, "aten::as_strided_copy", |o| o
        .is_empty()
        .then_some(as_strided_copy as Kernel));
    kernels!(r, "aten::alias_copy", |o| o
        .is_empty()
        .then_some(alias_copy as Kernel));
    kernels!(r, "aten::detach_copy", |o| o
        .is_empty()
        .then_some(alias_copy as Kernel));
    kernels!(r, "aten::lift_fresh_copy", |o| o
        .is_empty()
        .then_some(alias_copy as Kernel));
    kernels!(r, "aten::split_copy", |o| (o == "Tensor")
        .then_some(split_copy as Kernel));
    kernels!(r, "aten::split_with_sizes_copy", |o| o
        .is_empty()
        .then_some(split_with_sizes_copy as Kernel));
    kernels!(r, "aten::unbind_copy", |o| (o == "int")
        .then_some(unbind_copy as Kernel));
    kernels!(r, "aten::alias", |_| Some(views::alias as Kernel));
    kernels!(r, "aten::resize_", |_| Some(resize_ as Kernel));
    kernels!(r, "aten::resize_as_", |_| Some(resize_as_ as Kernel));
}

/// A fresh contiguous copy of a view kernel's result (a tensor or a list of tensors).
fn copied(v: TensorResult<IValue>) -> TensorResult<IValue> {
    match v? {
        IValue::Tensor(t) => Ok(tensor_value(t.clone_contiguous()?)),
        IValue::List(l) => {
            let mut out = Vec::new();
            for item in l.to_vec() {
                if let IValue::Tensor(t) = item {
                    out.push(t.clone_contiguous()?);
                }
            }
            Ok(tensor_list(out))
        }
        other => Ok(other),
    }
}

macro_rules! copy_kernels {
    ($($name:ident => $base:path),* $(,)?) => {
        $(fn $name(c: &Call) -> TensorResult<IValue> {
            copied($base(c))
        })*
    };
}

copy_kernels! {
    view_copy => views::view,
    reshape_copy => views::reshape,
    permute_copy => views::permute,
    transpose_copy => views::transpose,
    t_copy => views::t,
    squeeze_copy => views::squeeze,
    unsqueeze_copy => views::unsqueeze,
    expand_copy => views::expand,
    diagonal_copy => views::diagonal,
    select_copy => views::select,
    slice_copy => views::slice,
    unfold_copy => views::unfold,
    as_strided_copy => views::as_strided,
    alias_copy => views::alias,
    split_copy => split::split,
    split_with_sizes_copy => split::split_sizes,
    unbind_copy => split::unbind,
}

/// `resize_(size)`: contiguous strides over the same storage when it is large enough
/// (keeping the offset and the data), otherwise a larger storage holding the old bytes.
pub fn resize_tensor(t: &Tensor, sizes: &[i64]) -> TensorResult<()> {
    let numel = crate::tensor::checked_numel(sizes)?;
    let m: Meta = t.meta().clone();
    let item = m.dtype.size();
    let needed = (m.offset as usize)
        .checked_add(numel)
        .and_then(|n| n.checked_mul(item))
        .ok_or_else(|| {
            crate::tensor::TensorError::new(format!(
                "Storage size calculation overflowed with sizes={sizes:?}"
            ))
        })?;
    let mut meta = m.clone();
    if needed > m.storage.nbytes() {
        let storage = Storage::zeroed(needed)?;
        // SAFETY: the new storage is larger than the old one; both are plain bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(m.storage.as_ptr(), storage.as_ptr(), m.storage.nbytes())
        };
        meta.storage = storage;
    }
    meta.sizes = sizes.into();
    meta.strides = crate::tensor::contiguous_strides(sizes);
    t.set_meta(meta)
}

fn resize_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    resize_tensor(&t, &c.ints("size")?)?;
    Ok(tensor_value(t))
}

fn resize_as_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    resize_tensor(&t, &c.tensor("the_template")?.sizes())?;
    Ok(tensor_value(t))
}
