//! Reading operator arguments off the stack and writing results to `out=` tensors: the typed
//! readers of positional arguments (linear algebra, nn, attention, rnn) and the one `out=`
//! helper every operator family resizes and fills its out tensors with.

use std::sync::Arc;

use super::{pop_n, Operation, Stack};
use crate::ivalue::IValue;
use crate::tensor::{checked_numel, contiguous_strides, DType, Meta, Storage, Tensor};
use crate::tensor::{TensorError, TensorResult};

/// An operation that pops `n` inputs and pushes what `f` returns.
pub fn op_n(
    n: usize,
    f: impl Fn(&[IValue]) -> Result<IValue, String> + Send + Sync + 'static,
) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let args = pop_n(s, n)?;
        let v = f(&args)?;
        s.push(v);
        Ok(())
    })
}

/// An operation that pops `n` inputs and pushes every value `f` returns (multiple outputs).
pub fn op_multi(
    n: usize,
    f: impl Fn(&[IValue]) -> Result<Vec<IValue>, String> + Send + Sync + 'static,
) -> Operation {
    Arc::new(move |s: &mut Stack| {
        let args = pop_n(s, n)?;
        let vs = f(&args)?;
        s.extend(vs);
        Ok(())
    })
}

pub fn err(e: TensorError) -> String {
    e.message
}

pub fn tensor(v: &IValue) -> Result<Tensor, String> {
    match v {
        IValue::Tensor(t) => Ok(t.clone()),
        other => Err(format!("expected a Tensor but got {}", other.kind_name())),
    }
}

pub fn opt_tensor(v: &IValue) -> Result<Option<Tensor>, String> {
    match v {
        IValue::None => Ok(None),
        other => tensor(other).map(Some),
    }
}

pub fn int(v: &IValue) -> Result<i64, String> {
    v.as_int()
        .ok_or_else(|| format!("expected an int but got {}", v.kind_name()))
}

pub fn opt_int(v: &IValue) -> Result<Option<i64>, String> {
    match v {
        IValue::None => Ok(None),
        other => int(other).map(Some),
    }
}

pub fn boolean(v: &IValue) -> Result<bool, String> {
    match v {
        IValue::Bool(b) => Ok(*b),
        IValue::Int(i) => Ok(*i != 0),
        other => Err(format!("expected a bool but got {}", other.kind_name())),
    }
}

/// A `Scalar` or `float` argument as f64.
pub fn number(v: &IValue) -> Result<f64, String> {
    match v {
        IValue::Double(d) => Ok(*d),
        IValue::Int(i) => Ok(*i as f64),
        IValue::Bool(b) => Ok(*b as i64 as f64),
        IValue::Tensor(t) => t.item_f64().map_err(err),
        other => Err(format!("expected a number but got {}", other.kind_name())),
    }
}

/// An `int[]` argument; a single int stands for itself (PyTorch's `int[2]` accepts `3`).
pub fn int_list(v: &IValue) -> Result<Vec<i64>, String> {
    match v {
        IValue::Int(i) => Ok(vec![*i]),
        IValue::List(l) => l.to_vec().iter().map(int).collect(),
        IValue::Tuple(t) => t.iter().map(int).collect(),
        IValue::Tensor(t) if t.dim() <= 1 => Ok(t.to_vec::<i64>()),
        other => Err(format!(
            "expected a list of ints but got {}",
            other.kind_name()
        )),
    }
}

pub fn opt_int_list(v: &IValue) -> Result<Option<Vec<i64>>, String> {
    match v {
        IValue::None => Ok(None),
        other => int_list(other).map(Some),
    }
}

pub fn tensor_list(v: &IValue) -> Result<Vec<Tensor>, String> {
    match v {
        IValue::List(l) => l.to_vec().iter().map(tensor).collect(),
        IValue::Tuple(t) => t.iter().map(tensor).collect(),
        other => Err(format!(
            "expected a list of Tensors but got {}",
            other.kind_name()
        )),
    }
}

/// Writes `result` into the `out=` tensor as PyTorch's `resize_output` + `copy_` do, for the
/// ops whose out tensor must have exactly the result's dtype.
pub fn write_out(out: &Tensor, result: &Tensor) -> Result<(), String> {
    check_out_dtype(out, result.dtype())?;
    copy_out(out, result).map(|_| ()).map_err(err)
}

/// PyTorch's check that an out tensor has exactly the result dtype.
pub fn check_out_dtype(out: &Tensor, want: DType) -> Result<(), String> {
    if out.dtype() != want {
        return Err(format!(
            "Expected out tensor to have dtype {}, but got {} instead",
            want.cpp_type_name(),
            out.dtype().cpp_type_name()
        ));
    }
    Ok(())
}

/// Resizes `out` to `result`'s shape, copies `result` in (converting to `out`'s dtype) and
/// returns `out`: the tail of every `out=` overload once its dtype rule is checked.
pub fn copy_out(out: &Tensor, result: &Tensor) -> TensorResult<Tensor> {
    resize_output(out, &result.sizes())?;
    out.copy_from(result)?;
    Ok(out.clone())
}

/// PyTorch's `resize_output`: an out tensor of another shape takes `sizes` with contiguous
/// strides, keeping its storage offset; the storage grows (old bytes kept) when too small, so
/// an out tensor that already fits keeps sharing memory with its views.
pub fn resize_output(out: &Tensor, sizes: &[i64]) -> TensorResult<()> {
    if out.sizes().as_slice() == sizes {
        return Ok(());
    }
    let m: Meta = out.meta().clone();
    let numel = checked_numel(sizes)?;
    let need = (m.offset as usize)
        .checked_add(numel)
        .and_then(|n| n.checked_mul(m.dtype.size()))
        .ok_or_else(|| {
            TensorError::new(format!(
                "Storage size calculation overflowed with sizes={sizes:?}"
            ))
        })?;
    let storage = if m.storage.nbytes() >= need {
        m.storage.clone()
    } else {
        let s = Storage::zeroed(need)?;
        // SAFETY: the new buffer is larger than the old one; both hold its bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(m.storage.as_ptr(), s.as_ptr(), m.storage.nbytes())
        };
        s
    };
    out.set_meta(Meta {
        storage,
        sizes: sizes.into(),
        strides: contiguous_strides(sizes),
        ..m
    })
}

/// Formats sizes as PyTorch prints them in messages: `[2, 3]`.
pub fn sizes_str(s: &[i64]) -> String {
    let parts: Vec<String> = s.iter().map(|x| x.to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// The short C++ name some messages use (`float`, `double`, `long`).
pub fn short_name(d: DType) -> &'static str {
    match d {
        DType::I16 => "short",
        DType::I64 => "long",
        other => other.cpp_type_name(),
    }
}
