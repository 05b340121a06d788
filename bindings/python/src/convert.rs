//! Python values to Ember's IValues and back. Arrays cross without copies where dtype and
//! layout allow: a NumPy array (or a CPU torch tensor, through its NumPy view) becomes a tensor
//! over the array's memory, the array kept alive by the tensor; a tensor comes back as a NumPy
//! array over the tensor's memory (its base object keeps the tensor alive), or a torch tensor
//! over that array when the call's inputs were torch tensors.

use std::sync::Arc;

use ember_runtime::ivalue::{Dict, DictKey, IValue};
use ember_runtime::tensor::{DType, Device, Meta, Storage, Tensor};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::module::Module;

/// How a call converts its results: NumPy arrays, or torch tensors when its inputs were.
#[derive(Clone, Copy, Default)]
pub struct Style {
    pub torch: bool,
}

/// Keeps a Python object (the array a tensor's memory belongs to) alive from Rust.
struct PyOwner(#[allow(dead_code)] Py<PyAny>);

fn dtype_of_typestr(typestr: &str) -> Option<DType> {
    Some(match typestr {
        "<f4" => DType::F32,
        "<f8" => DType::F64,
        "<f2" => DType::F16,
        "<i8" => DType::I64,
        "<i4" => DType::I32,
        "<i2" => DType::I16,
        "|i1" => DType::I8,
        "|u1" => DType::U8,
        "|b1" => DType::Bool,
        _ => return None,
    })
}

fn typestr_of(dtype: DType) -> Option<&'static str> {
    Some(match dtype {
        DType::F32 => "<f4",
        DType::F64 => "<f8",
        DType::F16 => "<f2",
        DType::I64 => "<i8",
        DType::I32 => "<i4",
        DType::I16 => "<i2",
        DType::I8 => "|i1",
        DType::U8 => "|u1",
        DType::Bool => "|b1",
        DType::BF16 => return None,
    })
}

fn is_torch_tensor(obj: &Bound<'_, PyAny>) -> bool {
    obj.get_type()
        .module()
        .is_ok_and(|m| m.to_string_lossy().starts_with("torch"))
        && obj.hasattr("numpy").unwrap_or(false)
        && obj.hasattr("dim").unwrap_or(false)
}

/// A Python argument as an IValue; `style.torch` notes a torch tensor among the inputs.
pub fn to_ivalue(obj: &Bound<'_, PyAny>, style: &mut Style) -> PyResult<IValue> {
    // Arrays first: the common argument, recognized by one type check.
    static NDARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let py = obj.py();
    let ndarray = NDARRAY.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("numpy")?.getattr("ndarray")?.unbind())
    })?;
    if obj.get_type().is(ndarray.bind(py)) {
        return array_to_tensor(obj).map(IValue::Tensor);
    }
    if obj.is_none() {
        return Ok(IValue::None);
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(IValue::Bool(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(IValue::Int(obj.extract()?));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(IValue::Double(obj.extract()?));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(IValue::str(obj.extract::<String>()?));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        let items = t
            .iter()
            .map(|x| to_ivalue(&x, style))
            .collect::<PyResult<_>>()?;
        return Ok(IValue::tuple(items));
    }
    if let Ok(l) = obj.cast::<PyList>() {
        let items = l
            .iter()
            .map(|x| to_ivalue(&x, style))
            .collect::<PyResult<_>>()?;
        return Ok(IValue::list(items));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let dict = Dict::default();
        for (k, v) in d.iter() {
            let key = to_ivalue(&k, style)?;
            let key = DictKey::from_ivalue(&key).ok_or_else(|| {
                PyTypeError::new_err(format!(
                    "a dict key of type {} cannot be passed",
                    type_name(&k)
                ))
            })?;
            dict.insert(key, to_ivalue(&v, style)?);
        }
        return Ok(IValue::Dict(dict));
    }
    if let Ok(m) = obj.cast::<Module>() {
        return Ok(IValue::Object(m.get().object.clone()));
    }
    if is_torch_tensor(obj) {
        style.torch = true;
        if obj.getattr("requires_grad")?.extract::<bool>()? {
            // Ember computes no gradients; the values are what matter.
            return to_ivalue(&obj.call_method0("detach")?, style);
        }
        let device = obj
            .getattr("device")?
            .getattr("type")?
            .extract::<String>()?;
        if device != "cpu" {
            return Err(PyTypeError::new_err(format!(
                "a torch tensor on {device} cannot be passed: Ember runs on the CPU (call .cpu())"
            )));
        }
        return array_to_tensor(&obj.call_method0("numpy")?).map(IValue::Tensor);
    }
    if obj.hasattr("__array_interface__")? {
        return array_to_tensor(obj).map(IValue::Tensor);
    }
    Err(PyTypeError::new_err(format!(
        "an argument of type {} cannot be passed to TorchScript",
        type_name(obj)
    )))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// A tensor over a NumPy array's memory (copied first only when the array is read-only, its
/// strides are negative or not whole elements, or its dtype has no Ember form).
fn array_to_tensor(arr: &Bound<'_, PyAny>) -> PyResult<Tensor> {
    let py = arr.py();
    let iface = arr.getattr("__array_interface__")?;
    let typestr: String = iface.get_item("typestr")?.extract()?;
    let Some(dtype) = dtype_of_typestr(&typestr) else {
        return Err(PyTypeError::new_err(format!(
            "an array of dtype '{typestr}' cannot be passed (Ember tensors hold bool, int8-64, uint8, float16/32/64)"
        )));
    };
    let (ptr, readonly): (usize, bool) = iface.get_item("data")?.extract()?;
    let shape: Vec<i64> = iface.get_item("shape")?.extract()?;
    let item = dtype.size() as i64;
    let strides = iface.get_item("strides")?;
    let strides: Option<Vec<i64>> = if strides.is_none() {
        None
    } else {
        Some(strides.extract()?)
    };
    let contiguous = ember_runtime::tensor::contiguous_strides(&shape);
    let elem_strides = match &strides {
        None => Some(contiguous.to_vec()),
        Some(s) if s.iter().all(|&b| b >= 0 && b % item == 0) => {
            Some(s.iter().map(|b| b / item).collect())
        }
        Some(_) => None,
    };
    let aligned = ptr % dtype.size() == 0;
    let (Some(elem_strides), false, true) = (elem_strides, readonly, aligned) else {
        // Copied into a fresh C-contiguous, writable array, then shared.
        let copy = py
            .import("numpy")?
            .call_method1("array", (arr,))?
            .call_method1("copy", ("C",))?;
        return array_to_tensor(&copy);
    };
    let numel: i64 = shape.iter().product();
    let span = if numel == 0 {
        0
    } else {
        1 + shape
            .iter()
            .zip(&elem_strides)
            .map(|(&n, &s)| (n - 1) * s)
            .sum::<i64>()
    };
    let owner = Box::new(PyOwner(arr.clone().unbind()));
    // SAFETY: the array interface describes `span` elements of writable memory at `ptr`,
    // aligned for `dtype`; the array is kept alive by the storage's owner.
    let storage = unsafe { Storage::from_external(ptr as *mut u8, (span * item) as usize, owner) };
    Tensor::from_meta(Meta {
        storage,
        dtype,
        device: Device::Cpu,
        sizes: shape.into_iter().collect(),
        strides: elem_strides.into_iter().collect(),
        offset: 0,
        requires_grad: false,
    })
    .map_err(|e| PyTypeError::new_err(e.to_string()))
}

/// The NumPy face of a tensor: `numpy.asarray` reads its `__array_interface__` and keeps it
/// as the array's base, so the tensor's memory lives as long as the array.
#[pyclass(frozen, module = "ember")]
pub struct TensorMemory {
    tensor: Tensor,
}

#[pymethods]
impl TensorMemory {
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let meta = self.tensor.meta();
        let typestr = typestr_of(meta.dtype).expect("converted before");
        let item = meta.dtype.size() as i64;
        let d = PyDict::new(py);
        d.set_item("version", 3)?;
        d.set_item("typestr", typestr)?;
        d.set_item("shape", PyTuple::new(py, meta.sizes.iter())?)?;
        d.set_item(
            "strides",
            PyTuple::new(py, meta.strides.iter().map(|s| s * item))?,
        )?;
        let ptr = meta.storage.as_ptr() as usize + (meta.offset * item) as usize;
        d.set_item("data", (ptr, false))?;
        Ok(d)
    }
}

/// A result as a Python value.
pub fn from_ivalue(
    py: Python<'_>,
    v: IValue,
    style: Style,
    model: &Arc<crate::module::Loaded>,
) -> PyResult<Py<PyAny>> {
    Ok(match v {
        IValue::None => py.None(),
        IValue::Bool(b) => PyBool::new(py, b).to_owned().into_any().unbind(),
        IValue::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        IValue::Double(d) => d.into_pyobject(py)?.into_any().unbind(),
        IValue::Str(s) => PyString::new(py, &s).into_any().unbind(),
        IValue::Tuple(items) => {
            let items = items
                .iter()
                .map(|x| from_ivalue(py, x.clone(), style, model))
                .collect::<PyResult<Vec<_>>>()?;
            PyTuple::new(py, items)?.into_any().unbind()
        }
        IValue::List(l) => {
            let items = l
                .to_vec()
                .into_iter()
                .map(|x| from_ivalue(py, x, style, model))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        IValue::Dict(d) => {
            let out = PyDict::new(py);
            for (k, v) in d.items() {
                out.set_item(
                    from_ivalue(py, k.to_ivalue(), style, model)?,
                    from_ivalue(py, v, style, model)?,
                )?;
            }
            out.into_any().unbind()
        }
        IValue::Tensor(t) => tensor_to_py(py, t, style)?,
        IValue::Object(o) => Py::new(py, Module::new(model.clone(), o))?.into_any(),
        IValue::Device(d) => PyString::new(py, &d.to_string()).into_any().unbind(),
        other => PyString::new(py, &ember_runtime::repr::repr(&other))
            .into_any()
            .unbind(),
    })
}

fn tensor_to_py(py: Python<'_>, t: Tensor, style: Style) -> PyResult<Py<PyAny>> {
    // NumPy has no bfloat16: those come back as float32.
    let t = if t.dtype() == DType::BF16 {
        Tensor::from_vec(t.to_vec::<f32>(), &t.sizes())
            .map_err(|e| PyTypeError::new_err(e.to_string()))?
    } else {
        t
    };
    static ASARRAY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let asarray = ASARRAY.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        Ok(py.import("numpy")?.getattr("asarray")?.unbind())
    })?;
    let memory = Py::new(py, TensorMemory { tensor: t })?;
    let array = asarray.bind(py).call1((memory,))?;
    if style.torch {
        return Ok(py
            .import("torch")?
            .call_method1("from_numpy", (array,))?
            .unbind());
    }
    Ok(array.unbind())
}

/// Bytes or a path, as `ember.load` takes them.
pub enum Source {
    Bytes(Vec<u8>),
    Path(String),
}

pub fn source_of(obj: &Bound<'_, PyAny>) -> PyResult<Source> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Source::Bytes(b.as_bytes().to_vec()));
    }
    let path = obj.py().import("os")?.call_method1("fspath", (obj,))?;
    Ok(Source::Path(path.extract()?))
}
