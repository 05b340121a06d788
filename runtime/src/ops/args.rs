//! Reading operator arguments off the stack and writing results to `out=` tensors: the typed
//! readers of positional arguments (linear algebra, nn, attention, rnn) and the one `out=`
//! helper every operator family resizes and fills its out tensors with.

use std::sync::Arc;

use ember_dialects::schema::FunctionSchema;

use super::{pop_n, Operation, Stack};
use crate::bail;
use crate::ivalue::IValue;
use crate::tensor::{
    checked_numel, contiguous_strides, DType, Device, Element, Meta, Storage, Tensor,
};
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

/// The value of the argument `name` of `schema` among a call's `values` (None when the
/// schema has no such argument or the node passed fewer values).
pub fn arg_by_name<'v>(
    schema: &FunctionSchema,
    values: &'v [IValue],
    name: &str,
) -> Option<&'v IValue> {
    schema
        .argument_index_with_name(name)
        .and_then(|i| values.get(i))
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

/// A Python number as a `Scalar` argument holds it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as i64 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    /// Truncates floats toward zero, as `Scalar::to<int64_t>()`.
    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
        }
    }

    /// The dtype PyTorch infers for a tensor made from this number.
    pub fn default_dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => crate::tensor::elementwise::DEFAULT_FLOAT,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float(_))
    }

    /// The value converted to `T` exactly as PyTorch stores a Scalar into a tensor.
    pub fn to_element<T: Element>(self) -> T {
        match self {
            Scalar::Float(f) => T::from_f64(f),
            other => T::from_i64(other.to_i64()),
        }
    }

    /// PyTorch's `checked_convert` when a Scalar is stored into a tensor of `dtype`
    /// (`fill_`, `full`): integers must fit (unsigned types also accept down to -max, which
    /// wraps), finite floats must fit the float type's range.
    pub fn check_fits(self, dtype: DType) -> TensorResult<()> {
        let (lo, hi, name): (f64, f64, &str) = match dtype {
            DType::Bool => return Ok(()),
            DType::U8 => (-255.0, 255.0, "uint8_t"),
            DType::I8 => (-128.0, 127.0, "int8_t"),
            DType::I16 => (-32768.0, 32767.0, "int16_t"),
            DType::I32 => (-2147483648.0, 2147483647.0, "int32_t"),
            DType::I64 => return Ok(()),
            DType::F16 => (-65504.0, 65504.0, "c10::Half"),
            DType::BF16 => (
                -3.3895313892515355e38,
                3.3895313892515355e38,
                "c10::BFloat16",
            ),
            DType::F32 => (f32::MIN as f64, f32::MAX as f64, "float"),
            DType::F64 => return Ok(()),
        };
        let v = self.to_f64();
        let overflows = match self {
            Scalar::Float(f) if dtype.is_floating() => f.is_finite() && (f < lo || f > hi),
            Scalar::Float(f) => !f.is_finite() || f.trunc() < lo || f.trunc() > hi,
            _ => v < lo || v > hi,
        };
        if overflows {
            bail!("value cannot be converted to type {name} without overflow");
        }
        Ok(())
    }

    pub fn to_ivalue(self) -> IValue {
        match self {
            Scalar::Bool(b) => IValue::Bool(b),
            Scalar::Int(i) => IValue::Int(i),
            Scalar::Float(f) => IValue::Double(f),
        }
    }
}

/// The dtype of a `ScalarType?` value.
pub fn dtype_of(v: &IValue) -> TensorResult<Option<DType>> {
    match v {
        IValue::None => Ok(None),
        IValue::ScalarType(d) => Ok(Some(*d)),
        IValue::Int(code) => match DType::from_code(*code) {
            Some(d) => Ok(Some(d)),
            None => bail!("dtype with ScalarType code {code} is not supported by Ember"),
        },
        other => bail!("expected a dtype, but got {}", other.kind_name()),
    }
}

/// Refuses devices other than the CPU with a clear message.
pub fn check_device(v: &IValue) -> TensorResult<()> {
    let device = match v {
        IValue::None => return Ok(()),
        IValue::Device(d) => *d,
        IValue::Str(s) => crate::ops::prim::parse_device(s).map_err(TensorError::new)?,
        other => bail!("expected a device, but got {}", other.kind_name()),
    };
    if device != Device::Cpu {
        bail!(
            "Ember's interpreter computes on the CPU only; device '{device}' is not available here"
        );
    }
    Ok(())
}

/// The number a `Scalar` argument holds.
pub fn scalar_of(v: &IValue) -> Option<Scalar> {
    match v {
        IValue::Bool(b) => Some(Scalar::Bool(*b)),
        IValue::Int(i) => Some(Scalar::Int(*i)),
        IValue::Double(d) => Some(Scalar::Float(*d)),
        _ => None,
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
