//! The C API of `runtime/include/ember.h`: opaque values and models, status codes and a
//! per-thread error message. Every entry point checks its pointers and numbers before it uses
//! them and catches panics, so nothing unwinds into C and bad arguments are errors.

use std::cell::RefCell;
use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::model::{ember_compiled_model, CompiledModel};
use crate::interpreter::panic_message;
use crate::ivalue::IValue;
use crate::tensor::{checked_numel, contiguous_strides, DType, Device, Meta, Storage, Tensor};

/// `ember_status`.
pub type Status = c_int;
pub const EMBER_OK: Status = 0;
pub const EMBER_INVALID_ARGUMENT: Status = 1;
pub const EMBER_LOAD_ERROR: Status = 2;
pub const EMBER_RUN_ERROR: Status = 3;
pub const EMBER_INTERNAL_ERROR: Status = 4;

/// `ember_kind`.
pub const EMBER_KIND_NONE: c_int = 0;
pub const EMBER_KIND_BOOL: c_int = 1;
pub const EMBER_KIND_INT: c_int = 2;
pub const EMBER_KIND_FLOAT: c_int = 3;
pub const EMBER_KIND_TENSOR: c_int = 4;
pub const EMBER_KIND_LIST: c_int = 5;
pub const EMBER_KIND_TUPLE: c_int = 6;
pub const EMBER_KIND_STRING: c_int = 7;
pub const EMBER_KIND_OTHER: c_int = 8;

/// More dimensions than any tensor has: bounds what a caller's `ndim` may claim.
const MAX_NDIM: usize = 64;

/// `ember_value`: one value the caller owns.
#[allow(non_camel_case_types)]
pub struct ember_value(pub IValue);

/// `ember_model`: an open model and its inputs' names as C strings.
#[allow(non_camel_case_types)]
pub struct ember_model {
    model: CompiledModel,
    names: Vec<CString>,
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// A failure: its status and message.
type Failure = (Status, String);

fn invalid(message: impl Into<String>) -> Failure {
    (EMBER_INVALID_ARGUMENT, message.into())
}

fn set_last_error(message: &str) {
    let c = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Runs an entry point's body: its failure (or panic) becomes the thread's last error.
fn ffi<T>(what: &str, on_failure: T, body: impl FnOnce() -> Result<T, Failure>) -> (T, Status) {
    let outcome = catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        let detail = panic_message(&*payload);
        Err((EMBER_INTERNAL_ERROR, format!("internal error: {detail}")))
    });
    match outcome {
        Ok(v) => (v, EMBER_OK),
        Err((status, message)) => {
            set_last_error(&format!("{what}: {message}"));
            (on_failure, status)
        }
    }
}

/// An entry point giving a status.
fn status(what: &str, body: impl FnOnce() -> Result<(), Failure>) -> Status {
    ffi(what, (), body).1
}

/// An entry point giving a new value, or NULL.
fn new_value(what: &str, body: impl FnOnce() -> Result<IValue, Failure>) -> *mut ember_value {
    ffi(what, std::ptr::null_mut(), || {
        body().map(|v| Box::into_raw(Box::new(ember_value(v))))
    })
    .0
}

/// The value behind a pointer the caller gave.
///
/// # Safety
/// `v` is null or a live value from this API.
unsafe fn value<'a>(v: *const ember_value) -> Result<&'a IValue, Failure> {
    v.as_ref()
        .map(|v| &v.0)
        .ok_or_else(|| invalid("the value is NULL"))
}

/// A caller's array of `n` items (`items` may be null only when `n` is 0).
///
/// # Safety
/// `items` is null or points to `n` readable items.
unsafe fn array<'a, T>(items: *const T, n: usize, what: &str) -> Result<&'a [T], Failure> {
    if n == 0 {
        return Ok(&[]);
    }
    if items.is_null() {
        return Err(invalid(format!(
            "{what} is NULL but {n} entries were promised"
        )));
    }
    Ok(std::slice::from_raw_parts(items, n))
}

/// The values of a caller's array of value pointers, each cloned (tensors shared).
///
/// # Safety
/// As [`array`]; each item is null or a live value.
unsafe fn values(items: *const *mut ember_value, n: usize) -> Result<Vec<IValue>, Failure> {
    array(items, n, "the array of values")?
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            value(p)
                .cloned()
                .map_err(|_| invalid(format!("value {i} is NULL")))
        })
        .collect()
}

fn dtype_of(code: c_int) -> Result<DType, Failure> {
    DType::from_code(code as i64).ok_or_else(|| invalid(format!("{code} is not a dtype code")))
}

fn tensor(v: &IValue) -> Result<&Tensor, Failure> {
    v.as_tensor()
        .ok_or_else(|| invalid(format!("the value is a {}, not a Tensor", v.kind_name())))
}

/// Writes `v` to `out`, refusing a null `out`.
///
/// # Safety
/// `out` is null or writable.
unsafe fn put<T>(out: *mut T, v: T) -> Result<(), Failure> {
    if out.is_null() {
        return Err(invalid("the output pointer is NULL"));
    }
    out.write(v);
    Ok(())
}

#[no_mangle]
pub extern "C" fn ember_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The caller's memory under a wrapped tensor: given back through its deleter when the last
/// tensor using it is gone, once the wrap succeeded (`armed`).
struct CallerMemory {
    data: *mut c_void,
    deleter: Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>,
    ctx: *mut c_void,
    armed: Arc<AtomicBool>,
}

// SAFETY: the header documents that the deleter may run on any thread.
unsafe impl Send for CallerMemory {}
unsafe impl Sync for CallerMemory {}

impl Drop for CallerMemory {
    fn drop(&mut self) {
        if let (Some(deleter), true) = (self.deleter, self.armed.load(Ordering::Acquire)) {
            // SAFETY: the caller's deleter for the caller's memory, called once.
            unsafe { deleter(self.data, self.ctx) }
        }
    }
}

/// The sizes of a caller's tensor, checked.
///
/// # Safety
/// `sizes` is null or points to `ndim` readable entries.
unsafe fn checked_sizes<'a>(ndim: usize, sizes: *const i64) -> Result<&'a [i64], Failure> {
    if ndim > MAX_NDIM {
        return Err(invalid(format!("{ndim} dimensions (at most {MAX_NDIM})")));
    }
    let sizes = array(sizes, ndim, "sizes")?;
    checked_numel(sizes).map_err(|e| invalid(e.to_string()))?;
    Ok(sizes)
}

/// # Safety
/// See `ember.h`: `sizes` (and `strides` when not null) hold `ndim` entries; `data` holds
/// every addressed element and stays valid until the deleter is called.
#[no_mangle]
pub unsafe extern "C" fn ember_tensor_wrap(
    data: *mut c_void,
    dtype: c_int,
    ndim: usize,
    sizes: *const i64,
    strides: *const i64,
    deleter: Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>,
    deleter_ctx: *mut c_void,
) -> *mut ember_value {
    new_value("ember_tensor_wrap", || {
        let dtype = dtype_of(dtype)?;
        let sizes = checked_sizes(ndim, sizes)?;
        let strides = if strides.is_null() {
            contiguous_strides(sizes).to_vec()
        } else {
            array(strides, ndim, "strides")?.to_vec()
        };
        if strides.iter().any(|&s| s < 0) {
            return Err(invalid(format!(
                "negative strides {strides:?} are not supported"
            )));
        }
        let numel = checked_numel(sizes).map_err(|e| invalid(e.to_string()))?;
        let item = dtype.size();
        let nbytes = if numel == 0 {
            0
        } else {
            let span = sizes.iter().zip(&strides).try_fold(1i128, |acc, (&n, &s)| {
                acc.checked_add((n as i128 - 1) * s as i128)
            });
            span.and_then(|s| s.checked_mul(item as i128))
                .filter(|&b| b <= isize::MAX as i128)
                .ok_or_else(|| {
                    invalid(format!("sizes {sizes:?} with strides {strides:?} overflow"))
                })? as usize
        };
        if data.is_null() && nbytes > 0 {
            return Err(invalid("data is NULL for a tensor with elements"));
        }
        if !(data as usize).is_multiple_of(item) {
            return Err(invalid(format!("data {data:?} is not aligned for {dtype}")));
        }
        let armed = Arc::new(AtomicBool::new(false));
        let owner = CallerMemory {
            data,
            deleter,
            ctx: deleter_ctx,
            armed: armed.clone(),
        };
        // SAFETY: the caller promises `nbytes` (every addressed element) valid until the
        // deleter runs; the storage never frees it itself.
        let storage = Storage::from_external(data as *mut u8, nbytes, Box::new(owner));
        let t = Tensor::from_meta(Meta {
            storage,
            dtype,
            device: Device::Cpu,
            sizes: sizes.into(),
            strides: strides.as_slice().into(),
            offset: 0,
            requires_grad: false,
        })
        .map_err(|e| invalid(e.to_string()))?;
        armed.store(true, Ordering::Release);
        Ok(IValue::Tensor(t))
    })
}

/// # Safety
/// `sizes` holds `ndim` entries (or is null when `ndim` is 0).
#[no_mangle]
pub unsafe extern "C" fn ember_tensor_new(
    dtype: c_int,
    ndim: usize,
    sizes: *const i64,
) -> *mut ember_value {
    new_value("ember_tensor_new", || {
        let dtype = dtype_of(dtype)?;
        let sizes = checked_sizes(ndim, sizes)?;
        let t = Tensor::zeros(sizes, dtype).map_err(|e| invalid(e.to_string()))?;
        Ok(IValue::Tensor(t))
    })
}

#[no_mangle]
pub extern "C" fn ember_int(v: i64) -> *mut ember_value {
    new_value("ember_int", || Ok(IValue::Int(v)))
}

#[no_mangle]
pub extern "C" fn ember_float(v: f64) -> *mut ember_value {
    new_value("ember_float", || Ok(IValue::Double(v)))
}

#[no_mangle]
pub extern "C" fn ember_bool(v: c_int) -> *mut ember_value {
    new_value("ember_bool", || Ok(IValue::Bool(v != 0)))
}

#[no_mangle]
pub extern "C" fn ember_none() -> *mut ember_value {
    new_value("ember_none", || Ok(IValue::None))
}

/// # Safety
/// `items` holds `n` values (or is null when `n` is 0).
#[no_mangle]
pub unsafe extern "C" fn ember_list(items: *const *mut ember_value, n: usize) -> *mut ember_value {
    new_value("ember_list", || Ok(IValue::list(values(items, n)?)))
}

/// # Safety
/// `items` holds `n` values (or is null when `n` is 0).
#[no_mangle]
pub unsafe extern "C" fn ember_tuple(items: *const *mut ember_value, n: usize) -> *mut ember_value {
    new_value("ember_tuple", || Ok(IValue::tuple(values(items, n)?)))
}

/// # Safety
/// `v` is null or a live value.
#[no_mangle]
pub unsafe extern "C" fn ember_value_kind(v: *const ember_value) -> c_int {
    match v.as_ref().map(|v| &v.0) {
        None | Some(IValue::None) => EMBER_KIND_NONE,
        Some(IValue::Bool(_)) => EMBER_KIND_BOOL,
        Some(IValue::Int(_)) => EMBER_KIND_INT,
        Some(IValue::Double(_)) => EMBER_KIND_FLOAT,
        Some(IValue::Tensor(_)) => EMBER_KIND_TENSOR,
        Some(IValue::List(_)) => EMBER_KIND_LIST,
        Some(IValue::Tuple(_)) => EMBER_KIND_TUPLE,
        Some(IValue::Str(_)) => EMBER_KIND_STRING,
        Some(_) => EMBER_KIND_OTHER,
    }
}

fn wrong_kind(v: &IValue, want: &str) -> Failure {
    invalid(format!("the value is a {}, not {want}", v.kind_name()))
}

/// # Safety
/// `v` is null or a live value; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ember_value_to_int(v: *const ember_value, out: *mut i64) -> Status {
    status("ember_value_to_int", || match value(v)? {
        IValue::Int(x) => put(out, *x),
        other => Err(wrong_kind(other, "an int")),
    })
}

/// # Safety
/// `v` is null or a live value; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ember_value_to_float(v: *const ember_value, out: *mut f64) -> Status {
    status("ember_value_to_float", || match value(v)? {
        IValue::Double(x) => put(out, *x),
        IValue::Int(x) => put(out, *x as f64),
        other => Err(wrong_kind(other, "a float")),
    })
}

/// # Safety
/// `v` is null or a live value; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ember_value_to_bool(v: *const ember_value, out: *mut c_int) -> Status {
    status("ember_value_to_bool", || match value(v)? {
        IValue::Bool(x) => put(out, *x as c_int),
        other => Err(wrong_kind(other, "a bool")),
    })
}

/// The items of a list or tuple.
fn items(v: &IValue) -> Result<Vec<IValue>, Failure> {
    match v {
        IValue::List(l) => Ok(l.to_vec()),
        IValue::Tuple(t) => Ok(t.to_vec()),
        other => Err(wrong_kind(other, "a list or tuple")),
    }
}

/// # Safety
/// `v` is null or a live value; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ember_value_len(v: *const ember_value, out: *mut usize) -> Status {
    status("ember_value_len", || {
        let n = match value(v)? {
            IValue::List(l) => l.len(),
            IValue::Tuple(t) => t.len(),
            other => return Err(wrong_kind(other, "a list or tuple")),
        };
        put(out, n)
    })
}

/// # Safety
/// `v` is null or a live value; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ember_value_item(
    v: *const ember_value,
    i: usize,
    out: *mut *mut ember_value,
) -> Status {
    if !out.is_null() {
        out.write(std::ptr::null_mut());
    }
    status("ember_value_item", || {
        let all = items(value(v)?)?;
        let n = all.len();
        let item = all
            .into_iter()
            .nth(i)
            .ok_or_else(|| invalid(format!("index {i} out of range ({n} items)")))?;
        put(out, Box::into_raw(Box::new(ember_value(item))))
    })
}

/// # Safety
/// `v` is null or a live value; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ember_tensor_dtype(v: *const ember_value, out: *mut c_int) -> Status {
    status("ember_tensor_dtype", || {
        put(out, tensor(value(v)?)?.dtype().code() as c_int)
    })
}

/// # Safety
/// `v` is null or a live value; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ember_tensor_ndim(v: *const ember_value, out: *mut usize) -> Status {
    status("ember_tensor_ndim", || put(out, tensor(value(v)?)?.dim()))
}

/// Copies a tensor's sizes or strides to the caller's `ndim` entries.
///
/// # Safety
/// `out` is null or holds the tensor's `ndim` entries.
unsafe fn copy_dims(v: *const ember_value, out: *mut i64, strides: bool) -> Result<(), Failure> {
    let t = tensor(value(v)?)?;
    let dims = if strides { t.strides() } else { t.sizes() };
    if dims.is_empty() {
        return Ok(());
    }
    if out.is_null() {
        return Err(invalid("the output pointer is NULL"));
    }
    std::ptr::copy_nonoverlapping(dims.as_ptr(), out, dims.len());
    Ok(())
}

/// # Safety
/// `v` is null or a live value; `out` is null or holds the tensor's ndim entries.
#[no_mangle]
pub unsafe extern "C" fn ember_tensor_sizes(v: *const ember_value, out: *mut i64) -> Status {
    status("ember_tensor_sizes", || copy_dims(v, out, false))
}

/// # Safety
/// `v` is null or a live value; `out` is null or holds the tensor's ndim entries.
#[no_mangle]
pub unsafe extern "C" fn ember_tensor_strides(v: *const ember_value, out: *mut i64) -> Status {
    status("ember_tensor_strides", || copy_dims(v, out, true))
}

/// # Safety
/// `v` is null or a live value; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ember_tensor_numel(v: *const ember_value, out: *mut i64) -> Status {
    status("ember_tensor_numel", || {
        put(out, tensor(value(v)?)?.numel() as i64)
    })
}

/// # Safety
/// `v` is null or a live value; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ember_tensor_data(v: *const ember_value, out: *mut *mut c_void) -> Status {
    status("ember_tensor_data", || {
        put(out, tensor(value(v)?)?.data_ptr() as *mut c_void)
    })
}

/// # Safety
/// `v` is null or a live value, not used after.
#[no_mangle]
pub unsafe extern "C" fn ember_value_free(v: *mut ember_value) {
    if !v.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(v))));
    }
}

/// # Safety
/// `compiled` is null or an `emberc` object's model, alive for the whole program;
/// `weights_path` is null or a NUL-terminated path; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ember_model_open(
    compiled: *const ember_compiled_model,
    weights_path: *const c_char,
    out: *mut *mut ember_model,
) -> Status {
    if !out.is_null() {
        out.write(std::ptr::null_mut());
    }
    status("ember_model_open", || {
        if out.is_null() {
            return Err(invalid("the output pointer is NULL"));
        }
        let compiled: &'static ember_compiled_model = compiled
            .as_ref()
            .ok_or_else(|| invalid("the compiled model is NULL"))?;
        let path = (!weights_path.is_null()).then(|| CStr::from_ptr(weights_path));
        let path = path.map(|p| {
            use std::os::unix::ffi::OsStrExt;
            Path::new(std::ffi::OsStr::from_bytes(p.to_bytes()))
        });
        let model = CompiledModel::open(compiled, path).map_err(|e| (EMBER_LOAD_ERROR, e))?;
        let names = model
            .input_names()
            .iter()
            .map(|n| CString::new(n.replace('\0', "")).unwrap_or_default())
            .collect();
        put(out, Box::into_raw(Box::new(ember_model { model, names })))
    })
}

/// # Safety
/// `model` is null or a live model, not used after.
#[no_mangle]
pub unsafe extern "C" fn ember_model_free(model: *mut ember_model) {
    if !model.is_null() {
        let _ = catch_unwind(AssertUnwindSafe(|| drop(Box::from_raw(model))));
    }
}

/// # Safety
/// `model` is null or a live model; `inputs` holds `n` values; `output` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ember_model_run(
    model: *mut ember_model,
    inputs: *const *mut ember_value,
    n: usize,
    output: *mut *mut ember_value,
) -> Status {
    if !output.is_null() {
        output.write(std::ptr::null_mut());
    }
    status("ember_model_run", || {
        let m = model.as_ref().ok_or_else(|| invalid("the model is NULL"))?;
        if output.is_null() {
            return Err(invalid("the output pointer is NULL"));
        }
        let inputs = values(inputs, n)?;
        m.model.check_count(&inputs).map_err(invalid)?;
        let v = m.model.run(inputs).map_err(|e| (EMBER_RUN_ERROR, e))?;
        put(output, Box::into_raw(Box::new(ember_value(v))))
    })
}

/// # Safety
/// `model` is null or a live model.
#[no_mangle]
pub unsafe extern "C" fn ember_model_num_inputs(model: *const ember_model) -> usize {
    model.as_ref().map_or(0, |m| m.names.len())
}

/// # Safety
/// `model` is null or a live model.
#[no_mangle]
pub unsafe extern "C" fn ember_model_input_name(
    model: *const ember_model,
    i: usize,
) -> *const c_char {
    model
        .as_ref()
        .and_then(|m| m.names.get(i))
        .map_or(std::ptr::null(), |n| n.as_ptr())
}

/// `ember_memory_stats` of ember.h: how a model's compiled calls used their planned memory.
#[repr(C)]
#[allow(non_camel_case_types)]
pub struct ember_memory_stats {
    pub blocks: u64,
    pub block_bytes: u64,
    pub planned: u64,
    pub served: u64,
    pub missed: u64,
}

/// # Safety
/// `model` is null or a live model; `out` is null or writable.
#[no_mangle]
pub unsafe extern "C" fn ember_model_memory_stats(
    model: *const ember_model,
    out: *mut ember_memory_stats,
) -> Status {
    status("ember_model_memory_stats", || {
        let m = model.as_ref().ok_or_else(|| invalid("the model is NULL"))?;
        let s = m.model.memory_stats();
        put(
            out,
            ember_memory_stats {
                blocks: s.blocks as u64,
                block_bytes: s.block_bytes as u64,
                planned: s.planned as u64,
                served: s.served as u64,
                missed: s.missed as u64,
            },
        )
    })
}

#[cfg(test)]
#[path = "capi_tests.rs"]
mod tests;
