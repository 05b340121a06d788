//! Writing into an existing tensor through any view: copy_ (broadcasting, converting the
//! dtype), fill_, zero_, and index_fill.

use super::super::shape::call::{kernels, scalar_of, tensor_value, Call, Kernel, Scalar};
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::tensor::{broadcast_shapes, wrap_dim, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::copy_", |_| Some(copy_ as Kernel));
    kernels!(r, "aten::fill_", |_| Some(fill_ as Kernel));
    kernels!(r, "aten::zero_", |_| Some(zero_ as Kernel));
    kernels!(r, "aten::index_fill", |_| Some(index_fill as Kernel));
    kernels!(r, "aten::index_fill_", |_| Some(index_fill_ as Kernel));
}

/// Writes `value` into every element of `t` (through its view).
pub fn fill_tensor(t: &Tensor, value: Scalar) -> TensorResult<()> {
    value.check_fits(t.dtype())?;
    let base = t.data_ptr();
    crate::dispatch_dtype!(t.dtype(), T => {
        let v: T = value.to_element::<T>();
        let p = base as *mut T;
        for o in t.element_offsets() {
            // SAFETY: in-bounds element offset of `t`.
            unsafe { *p.offset(o as isize) = v };
        }
    });
    Ok(())
}

/// `self.copy_(src)`: `src` broadcast to `self`'s shape and converted to its dtype.
pub fn copy_into(t: &Tensor, src: &Tensor) -> TensorResult<()> {
    let (ts, ss) = (t.sizes(), src.sizes());
    let b = broadcast_shapes(&ts, &ss)?;
    if b.as_slice() != ts.as_slice() {
        bail!(
            "output with shape {} doesn't match the broadcast shape {}",
            super::super::shape::elements::sizes_str(&ts),
            super::super::shape::elements::sizes_str(&b)
        );
    }
    if t.numel() > 0 {
        super::super::shape::elements::assert_no_internal_overlap(t)?;
    }
    super::super::shape::elements::assert_no_partial_overlap(t, src)?;
    t.copy_from(src)
}

fn copy_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let name = if c.has("src") { "src" } else { "other" };
    match c.get(name) {
        IValue::Tensor(src) => copy_into(&t, src)?,
        v => {
            let s = scalar_of(v).ok_or_else(|| {
                crate::tensor::TensorError::new("copy_ expects a tensor or a number")
            })?;
            fill_tensor(&t, s)?
        }
    }
    Ok(tensor_value(t))
}

fn fill_value(c: &Call) -> TensorResult<Scalar> {
    match c.get("value") {
        IValue::Tensor(v) => {
            if v.dim() != 0 {
                bail!(
                    "fill_ only supports 0-dimension value tensor but got tensor with {} dimensions.",
                    v.dim()
                );
            }
            crate::ops::shape::query::item_scalar(v)
        }
        _ => c.scalar("value"),
    }
}

fn fill_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    fill_tensor(&t, fill_value(c)?)?;
    Ok(tensor_value(t))
}

fn zero_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    fill_tensor(&t, Scalar::Int(0))?;
    Ok(tensor_value(t))
}

/// `index_fill_(dim, index, value)`: fills the slices of `dim` named by `index`.
fn index_fill_into(c: &Call, t: &Tensor) -> TensorResult<()> {
    let index = c.tensor("index")?;
    if index.dtype() != crate::tensor::DType::I64 {
        bail!("index_fill_(): Expected dtype int64 for index.");
    }
    if index.dim() > 1 {
        bail!("Index has to be a vector/scalar");
    }
    let value = match c.get("value") {
        IValue::Tensor(v) => {
            if v.dim() != 0 {
                bail!(
                    "index_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                    v.dim()
                );
            }
            crate::ops::shape::query::item_scalar(v)?
        }
        _ => c.scalar("value")?,
    };
    let dim = c.int("dim")?;
    let d = wrap_dim(dim, t.dim())?;
    let size = if t.dim() == 0 { 1 } else { t.sizes()[d] };
    for i in index.to_vec::<i64>() {
        if i < -size || i >= size {
            bail!("index {i} is out of bounds for dimension {d} with size {size}");
        }
        let i = if i < 0 { i + size } else { i };
        let slice = if t.dim() == 0 {
            t.clone()
        } else {
            t.select(d as i64, i)?
        };
        fill_tensor(&slice, value)?;
    }
    Ok(())
}

fn index_fill(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?.clone_contiguous()?;
    index_fill_into(c, &t)?;
    Ok(tensor_value(t))
}

fn index_fill_(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    index_fill_into(c, &t)?;
    Ok(tensor_value(t))
}
