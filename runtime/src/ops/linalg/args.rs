//! Reading operator arguments off the stack and writing results to `out=` tensors, shared by
//! the linear-algebra and neural-network operators.

use std::sync::Arc;

use super::super::{pop_n, Operation, Stack};
use crate::ivalue::IValue;
use crate::tensor::{contiguous_strides, DType, Meta, Storage, Tensor, TensorError};

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

/// Writes `result` into the `out=` tensor as PyTorch's `resize_output` + `copy_` do: an out
/// tensor of another shape is resized (its old contents dropped); the dtype must match.
pub fn write_out(out: &Tensor, result: &Tensor) -> Result<(), String> {
    if out.dtype() != result.dtype() {
        return Err(format!(
            "Expected out tensor to have dtype {}, but got {} instead",
            cpp_name(result.dtype()),
            cpp_name(out.dtype())
        ));
    }
    resize(out, &result.sizes())?;
    out.copy_from(result).map_err(err)
}

/// `resize_` of an out tensor to `sizes`: keeps the tensor object, gives it fresh contiguous
/// storage when its shape changes.
pub fn resize(out: &Tensor, sizes: &[i64]) -> Result<(), String> {
    if out.sizes().as_slice() == sizes {
        return Ok(());
    }
    let fresh = Tensor::zeros(sizes, out.dtype()).map_err(err)?;
    let mut meta: Meta = out.meta().clone();
    let storage: Storage = fresh.storage();
    meta.storage = storage;
    meta.sizes = sizes.into();
    meta.strides = contiguous_strides(sizes);
    meta.offset = 0;
    out.set_meta(meta).map_err(err)
}

/// The C++ name of a dtype as PyTorch's messages print it (`float`, `double`, `long int`).
pub fn cpp_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "bool",
        DType::U8 => "unsigned char",
        DType::I8 => "signed char",
        DType::I16 => "short int",
        DType::I32 => "int",
        DType::I64 => "long int",
        DType::F16 => "c10::Half",
        DType::BF16 => "c10::BFloat16",
        DType::F32 => "float",
        DType::F64 => "double",
    }
}

/// The `ScalarType` name PyTorch's messages use (`Float`, `Long`, `BFloat16`).
pub fn scalar_name(d: DType) -> &'static str {
    match d {
        DType::Bool => "Bool",
        DType::U8 => "Byte",
        DType::I8 => "Char",
        DType::I16 => "Short",
        DType::I32 => "Int",
        DType::I64 => "Long",
        DType::F16 => "Half",
        DType::BF16 => "BFloat16",
        DType::F32 => "Float",
        DType::F64 => "Double",
    }
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
        other => cpp_name(other),
    }
}
