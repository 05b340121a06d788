//! Queries on tensors and tensor-to-number conversions: size, dim, numel, stride, dtype,
//! device, item, `int(t)`/`float(t)`/`bool(t)`, the implicit conversions TorchScript inserts
//! for scalar arguments, len, `prim::NumToTensor` and `tolist`.

use std::sync::Arc;

use ember_dialects::{Graph, Node};

use super::call::{kernels, scalar_of, tensor_value, Call, Kernel, Scalar};
use crate::bail;
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::ops::Operation;
use crate::tensor::{DType, Device, Tensor, TensorResult};

pub fn register(r: &mut Registry) {
    kernels!(r, "aten::size", |o| match o {
        "" => Some(sizes as Kernel),
        "int" => Some(size_int),
        _ => None,
    });
    kernels!(r, "aten::sym_size", |o| match o {
        "" => Some(sizes as Kernel),
        "int" => Some(size_int),
        _ => None,
    });
    kernels!(r, "aten::stride", |o| match o {
        "" => Some(strides as Kernel),
        "int" => Some(stride_int),
        _ => None,
    });
    kernels!(r, "aten::dim", |_| Some(dim as Kernel));
    kernels!(r, "aten::broadcast_shapes", |_| Some(
        broadcast_shapes as Kernel
    ));
    kernels!(r, "aten::numel", |_| Some(numel as Kernel));
    kernels!(r, "aten::sym_numel", |_| Some(numel as Kernel));
    kernels!(r, "aten::storage_offset", |_| Some(
        storage_offset as Kernel
    ));
    kernels!(r, "aten::element_size", |_| Some(element_size as Kernel));
    kernels!(r, "aten::is_contiguous", |_| Some(is_contiguous as Kernel));
    kernels!(r, "aten::is_floating_point", |_| Some(
        is_floating_point as Kernel
    ));
    kernels!(r, "prim::dtype", |_| Some(dtype as Kernel));
    kernels!(r, "aten::is_complex", |_| Some(is_complex as Kernel));
    kernels!(r, "aten::is_signed", |_| Some(is_signed as Kernel));
    kernels!(r, "aten::is_nonzero", |_| Some(is_nonzero as Kernel));
    kernels!(r, "aten::is_same_size", |_| Some(is_same_size as Kernel));
    kernels!(r, "prim::itemsize", |_| Some(itemsize as Kernel));
    kernels!(r, "prim::nbytes", |_| Some(nbytes as Kernel));
    kernels!(r, "prim::device", |_| Some(device as Kernel));
    kernels!(r, "prim::is_cuda", |_| Some(is_cuda as Kernel));
    kernels!(r, "prim::requires_grad", |_| Some(requires_grad as Kernel));
    kernels!(r, "prim::layout", |_| Some(layout as Kernel));
    kernels!(r, "aten::item", |_| Some(item as Kernel));
    kernels!(r, "aten::Int", |o| (o == "Tensor")
        .then_some(to_int as Kernel));
    kernels!(r, "aten::Float", |o| (o == "Tensor")
        .then_some(to_float as Kernel));
    kernels!(r, "aten::Bool", |o| (o == "Tensor")
        .then_some(to_bool as Kernel));
    kernels!(r, "aten::IntImplicit", |_| Some(int_implicit as Kernel));
    kernels!(r, "aten::FloatImplicit", |_| Some(float_implicit as Kernel));
    kernels!(r, "aten::ScalarImplicit", |_| Some(
        scalar_implicit as Kernel
    ));
    kernels!(r, "aten::len", |o| (o == "Tensor").then_some(len as Kernel));
    kernels!(r, "prim::NumToTensor", |_| Some(num_to_tensor as Kernel));
    r.add("prim::tolist", tolist);
}

fn ints(v: &[i64]) -> IValue {
    IValue::list(v.iter().map(|&i| IValue::Int(i)).collect())
}

fn sizes(c: &Call) -> TensorResult<IValue> {
    Ok(ints(&c.tensor("self")?.sizes()))
}

fn size_int(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Int(c.tensor("self")?.size(c.int("dim")?)?))
}

fn strides(c: &Call) -> TensorResult<IValue> {
    Ok(ints(&c.tensor("self")?.strides()))
}

fn stride_int(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    let d = crate::tensor::wrap_dim(c.int("dim")?, t.dim())?;
    Ok(IValue::Int(t.strides().get(d).copied().unwrap_or(1)))
}

fn dim(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Int(c.tensor("self")?.dim() as i64))
}

fn numel(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Int(c.tensor("self")?.numel() as i64))
}

fn storage_offset(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Int(c.tensor("self")?.storage_offset()))
}

fn element_size(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Int(c.tensor("self")?.dtype().size() as i64))
}

fn is_contiguous(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Bool(c.tensor("self")?.is_contiguous()))
}

fn is_floating_point(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Bool(c.tensor("self")?.dtype().is_floating()))
}

fn is_complex(c: &Call) -> TensorResult<IValue> {
    c.tensor("self")?;
    Ok(IValue::Bool(false))
}

fn is_signed(c: &Call) -> TensorResult<IValue> {
    let d = c.tensor("self")?.dtype();
    Ok(IValue::Bool(!matches!(d, DType::U8 | DType::Bool)))
}

fn is_nonzero(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("self")?;
    match t.numel() {
        0 => bail!("Boolean value of Tensor with no values is ambiguous"),
        1 => Ok(IValue::Bool(item_scalar(&t)?.to_f64() != 0.0)),
        _ => bail!("Boolean value of Tensor with more than one value is ambiguous"),
    }
}

fn is_same_size(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Bool(
        c.tensor("self")?.sizes() == c.tensor("other")?.sizes(),
    ))
}

fn itemsize(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Int(c.tensor("a")?.dtype().size() as i64))
}

fn nbytes(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("a")?;
    Ok(IValue::Int((t.numel() * t.dtype().size()) as i64))
}

/// `prim::dtype`: the ScalarType code, as TorchScript passes dtypes around.
fn dtype(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Int(c.tensor("a")?.dtype().code()))
}

fn device(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Device(c.tensor("a")?.device()))
}

fn is_cuda(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Bool(matches!(
        c.tensor("a")?.device(),
        Device::Cuda(_)
    )))
}

fn requires_grad(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Bool(c.tensor("a")?.meta().requires_grad))
}

/// `prim::layout`: always strided (Layout code 0).
fn layout(c: &Call) -> TensorResult<IValue> {
    c.tensor("a")?;
    Ok(IValue::Int(0))
}

/// The value of a one-element tensor as the Python number its dtype gives.
pub fn item_scalar(t: &Tensor) -> TensorResult<Scalar> {
    let numel = t.numel();
    if numel != 1 {
        bail!("a Tensor with {numel} elements cannot be converted to Scalar");
    }
    Ok(match t.dtype() {
        DType::Bool => Scalar::Bool(t.item_i64()? != 0),
        d if d.is_floating() => Scalar::Float(t.item_f64()?),
        _ => Scalar::Int(t.item_i64()?),
    })
}

fn item(c: &Call) -> TensorResult<IValue> {
    Ok(item_scalar(&c.tensor("self")?)?.to_ivalue())
}

fn to_int(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Int(item_scalar(&c.tensor("a")?)?.to_i64()))
}

fn to_float(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Double(item_scalar(&c.tensor("a")?)?.to_f64()))
}

fn to_bool(c: &Call) -> TensorResult<IValue> {
    Ok(IValue::Bool(item_scalar(&c.tensor("a")?)?.to_f64() != 0.0))
}

/// PyTorch's `checkImplicitTensorToNum`.
fn check_implicit(t: &Tensor, to_int: bool) -> TensorResult<()> {
    if t.dim() != 0 {
        bail!("Cannot input a tensor of dimension other than 0 as a scalar argument");
    }
    if to_int && !t.dtype().is_integral() {
        bail!(
            "Cannot input a tensor of type {} as an integral argument",
            t.dtype().scalar_type_name()
        );
    }
    Ok(())
}

fn int_implicit(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("a")?;
    check_implicit(&t, true)?;
    Ok(IValue::Int(item_scalar(&t)?.to_i64()))
}

fn float_implicit(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("a")?;
    check_implicit(&t, false)?;
    Ok(IValue::Double(item_scalar(&t)?.to_f64()))
}

fn scalar_implicit(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("a")?;
    check_implicit(&t, false)?;
    Ok(item_scalar(&t)?.to_ivalue())
}

fn len(c: &Call) -> TensorResult<IValue> {
    let t = c.tensor("t")?;
    if t.dim() == 0 {
        bail!("len() of a 0-d tensor");
    }
    Ok(IValue::Int(t.sizes()[0]))
}

/// `prim::NumToTensor`: a 0-dim tensor of the number's own dtype (int64, float64, bool).
fn num_to_tensor(c: &Call) -> TensorResult<IValue> {
    let s = scalar_of(c.get("a"))
        .ok_or_else(|| crate::tensor::TensorError::new("prim::NumToTensor expects a number"))?;
    let t = match s {
        Scalar::Bool(b) => Tensor::scalar(b as i64 as f64, DType::Bool)?,
        Scalar::Int(i) => Tensor::scalar_i64(i)?,
        Scalar::Float(f) => Tensor::scalar(f, DType::F64)?,
    };
    Ok(tensor_value(t))
}

/// `prim::tolist(t, dim, elem_type)`: nested lists of Python numbers; `elem_type` is 0 for
/// int, 1 for float, 2 for bool, and both must match the tensor.
fn tolist(_: &Graph, _: Node) -> Result<Operation, String> {
    Ok(Arc::new(|s: &mut Vec<IValue>| {
        let elem = s
            .pop()
            .and_then(|v| v.as_int())
            .ok_or("tolist: bad element type")?;
        let dim = s
            .pop()
            .and_then(|v| v.as_int())
            .ok_or("tolist: bad dimension")?;
        let Some(IValue::Tensor(t)) = s.pop() else {
            return Err("tolist expects a tensor".into());
        };
        if dim != t.dim() as i64 {
            return Err(
                "Output annotation list dimension and runtime tensor dimension must match for tolist()"
                    .into(),
            );
        }
        let dtype = t.dtype();
        let (matches, annotation) = match elem {
            0 => (dtype == DType::I64, "Long"),
            1 => (matches!(dtype, DType::F32 | DType::F64), "Float"),
            2 => (dtype == DType::Bool, "Bool"),
            _ => (false, "Unknown"),
        };
        if elem == 1 && matches!(dtype, DType::F16 | DType::BF16) {
            return Err("Unexpected scalar type for Tensor".into());
        }
        if !matches {
            return Err(format!(
                "Output annotation element type and runtime tensor element type must match for tolist(): {annotation} vs {}",
                dtype.scalar_type_name()
            ));
        }
        let leaf = move |i: usize, f: &[f64], n: &[i64]| match elem {
            0 => IValue::Int(n[i]),
            1 => IValue::Double(f[i]),
            _ => IValue::Bool(n[i] != 0),
        };
        let (f, n) = if elem == 1 {
            (t.to_vec::<f64>(), Vec::new())
        } else {
            (Vec::new(), t.to_vec::<i64>())
        };
        let sizes = t.sizes();
        type Leaf<'a> = dyn Fn(usize, &[f64], &[i64]) -> IValue + 'a;
        fn nest(sizes: &[i64], at: &mut usize, leaf: &Leaf, f: &[f64], n: &[i64]) -> IValue {
            match sizes.split_first() {
                None => {
                    let v = leaf(*at, f, n);
                    *at += 1;
                    v
                }
                Some((&len, rest)) => {
                    IValue::list((0..len).map(|_| nest(rest, at, leaf, f, n)).collect())
                }
            }
        }
        let mut at = 0;
        s.push(nest(&sizes, &mut at, &leaf, &f, &n));
        Ok(())
    }))
}

/// `broadcast_shapes(int[] a, int[] b) -> int[]`: the shape both broadcast to.
fn broadcast_shapes(c: &Call) -> TensorResult<IValue> {
    let shape = crate::tensor::broadcast_shapes(&c.ints("a")?, &c.ints("b")?)?;
    Ok(IValue::list(
        shape.iter().map(|&d| IValue::Int(d)).collect(),
    ))
}
