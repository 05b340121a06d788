//! Tensors: strided views over shared [`Storage`], with PyTorch's aliasing. A [`Tensor`] is a
//! reference to a tensor object, like a `torch.Tensor` in Python: cloning the handle shares the
//! object, views share the storage, and in-place changes of metadata (`unsqueeze_`) are seen
//! by every handle.

pub mod arena;
pub mod cache;
mod dtype;
pub mod elementwise;
mod error;
mod promote;
mod shape;
mod storage;
mod view;

pub use view::ceil_div;

use std::sync::{Arc, RwLock, RwLockReadGuard};

pub use dtype::{Category, DType, Element};
pub use error::{TensorError, TensorResult};
pub use promote::{promote_types, result_type, Operand, ScalarKind};
pub use shape::{broadcast_shapes, checked_numel, contiguous_strides, wrap_dim, Shape};
pub use storage::{allocation_limit, set_allocation_limit, Storage};

use crate::bail;

/// Where a tensor lives. Only the CPU computes today; the device is part of the type so CUDA
/// tensors can arrive without changing every signature.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    Cpu,
    Cuda(i8),
}

impl std::fmt::Display for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Cuda(i) => write!(f, "cuda:{i}"),
        }
    }
}

/// A tensor's metadata: which storage, how it is laid out, what it holds.
#[derive(Clone, Debug)]
pub struct Meta {
    pub storage: Storage,
    pub dtype: DType,
    pub device: Device,
    pub sizes: Shape,
    pub strides: Shape,
    /// Offset of element 0 in the storage, in elements.
    pub offset: i64,
    pub requires_grad: bool,
}

/// A handle to a tensor object.
#[derive(Clone)]
pub struct Tensor(Arc<RwLock<Meta>>);

impl Tensor {
    /// Wraps metadata after checking that every element it can address lies in its storage.
    pub fn from_meta(meta: Meta) -> TensorResult<Tensor> {
        check_in_bounds(&meta)?;
        Ok(Tensor(Arc::new(RwLock::new(meta))))
    }

    /// A zero-filled contiguous tensor.
    pub fn zeros(sizes: &[i64], dtype: DType) -> TensorResult<Tensor> {
        let n = checked_numel(sizes)?;
        let nbytes = n.checked_mul(dtype.size()).ok_or_else(|| {
            TensorError::new(format!(
                "Storage size calculation overflowed with sizes={sizes:?}"
            ))
        })?;
        let storage = Storage::zeroed(nbytes)?;
        Tensor::from_meta(Meta {
            storage,
            dtype,
            device: Device::Cpu,
            sizes: sizes.into(),
            strides: contiguous_strides(sizes),
            offset: 0,
            requires_grad: false,
        })
    }

    /// A contiguous tensor holding `data` with shape `sizes`.
    pub fn from_vec<T: Element>(data: Vec<T>, sizes: &[i64]) -> TensorResult<Tensor> {
        let n = checked_numel(sizes)?;
        if n != data.len() {
            bail!(
                "shape {sizes:?} is invalid for input of size {}",
                data.len()
            );
        }
        let t = Tensor::zeros(sizes, T::DTYPE)?;
        // SAFETY: fresh contiguous storage of exactly n elements of T, 64-byte aligned.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), t.data_ptr() as *mut T, n) };
        Ok(t)
    }

    /// A 0-dim tensor holding `value` converted to `dtype`.
    pub fn scalar(value: f64, dtype: DType) -> TensorResult<Tensor> {
        let t = Tensor::zeros(&[], dtype)?;
        crate::dispatch_dtype!(dtype, T => {
            // SAFETY: one element of T at offset 0.
            unsafe { *(t.data_ptr() as *mut T) = <T as Element>::from_f64(value) }
        });
        Ok(t)
    }

    /// A 0-dim int64 tensor.
    pub fn scalar_i64(value: i64) -> TensorResult<Tensor> {
        Tensor::from_vec(vec![value], &[])
    }

    pub fn meta(&self) -> RwLockReadGuard<'_, Meta> {
        self.0.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Replaces this tensor object's metadata in place (`unsqueeze_`, `resize_`, `set_`),
    /// checked against the storage.
    pub fn set_meta(&self, meta: Meta) -> TensorResult<()> {
        check_in_bounds(&meta)?;
        *self.0.write().unwrap_or_else(|e| e.into_inner()) = meta;
        Ok(())
    }

    pub fn dtype(&self) -> DType {
        self.meta().dtype
    }

    pub fn device(&self) -> Device {
        self.meta().device
    }

    pub fn sizes(&self) -> Shape {
        self.meta().sizes.clone()
    }

    pub fn strides(&self) -> Shape {
        self.meta().strides.clone()
    }

    pub fn dim(&self) -> usize {
        self.meta().sizes.len()
    }

    pub fn size(&self, dim: i64) -> TensorResult<i64> {
        let m = self.meta();
        if m.sizes.is_empty() {
            bail!("Dimension specified as {dim} but tensor has no dimensions");
        }
        Ok(m.sizes[wrap_dim(dim, m.sizes.len())?])
    }

    pub fn numel(&self) -> usize {
        self.meta().sizes.iter().map(|&s| s as usize).product()
    }

    pub fn storage_offset(&self) -> i64 {
        self.meta().offset
    }

    pub fn storage(&self) -> Storage {
        self.meta().storage.clone()
    }

    /// A number that is the same exactly for handles of the same tensor object.
    pub fn identity(&self) -> usize {
        Arc::as_ptr(&self.0) as *const () as usize
    }

    /// Whether two handles are the same tensor object (Python's `is`).
    pub fn is_same(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Whether two tensors share storage (one may be a view of the other).
    pub fn shares_storage(&self, other: &Tensor) -> bool {
        self.meta().storage.same(&other.meta().storage)
    }

    /// Whether the elements are laid out row-major with no gaps (size-1 dims ignored).
    pub fn is_contiguous(&self) -> bool {
        let m = self.meta();
        let mut expected = 1;
        for i in (0..m.sizes.len()).rev() {
            if m.sizes[i] == 0 {
                return true;
            }
            if m.sizes[i] != 1 {
                if m.strides[i] != expected {
                    return false;
                }
                expected *= m.sizes[i];
            }
        }
        true
    }

    /// Pointer to element 0 (the storage offset applied).
    pub fn data_ptr(&self) -> *mut u8 {
        let m = self.meta();
        // SAFETY (of later use): offset checked in bounds by `check_in_bounds`.
        m.storage
            .as_ptr()
            .wrapping_add(m.offset as usize * m.dtype.size())
    }

    /// The storage offsets (in elements, from element 0) of every element in row-major order.
    pub fn element_offsets(&self) -> Vec<i64> {
        let m = self.meta();
        let mut out = Vec::with_capacity(m.sizes.iter().map(|&s| s as usize).product());
        for_each_offset(&m.sizes, &m.strides, |o| out.push(o));
        out
    }

    /// The elements in row-major order, converted to `T`.
    pub fn to_vec<T: Element>(&self) -> Vec<T> {
        let dtype = self.dtype();
        let base = self.data_ptr();
        let offsets = self.element_offsets();
        crate::dispatch_dtype!(dtype, S => {
            offsets
                .iter()
                .map(|&o| {
                    // SAFETY: every offset addresses an element in bounds (checked at creation).
                    let v = unsafe { *(base as *const S).offset(o as isize) };
                    convert::<S, T>(v)
                })
                .collect()
        })
    }

    /// A contiguous copy (or this tensor itself when already contiguous), as `.contiguous()`.
    pub fn contiguous(&self) -> TensorResult<Tensor> {
        if self.is_contiguous() {
            return Ok(self.clone());
        }
        self.clone_contiguous()
    }

    /// A fresh contiguous copy with the same dtype (`.clone()`).
    pub fn clone_contiguous(&self) -> TensorResult<Tensor> {
        let dtype = self.dtype();
        let out = Tensor::zeros(&self.sizes(), dtype)?;
        // A fresh storage never overlaps `self`.
        out.copy_same_dtype(self);
        Ok(out)
    }

    /// Writes `src` (broadcast to this tensor's shape, converted to its dtype) into this
    /// tensor's elements, through any view (`copy_`).
    pub fn copy_from(&self, src: &Tensor) -> TensorResult<()> {
        let sizes = self.sizes();
        let src = src.expand(&sizes)?;
        if src.dtype() == self.dtype() && !src.shares_storage(self) {
            self.copy_same_dtype(&src);
            return Ok(());
        }
        let values: Vec<f64> = src.to_vec::<f64>();
        let exact_ints = src.dtype().is_integral() || src.dtype() == DType::Bool;
        let ints: Vec<i64> = if exact_ints {
            src.to_vec::<i64>()
        } else {
            Vec::new()
        };
        let base = self.data_ptr();
        crate::dispatch_dtype!(self.dtype(), T => {
            for (i, o) in self.element_offsets().into_iter().enumerate() {
                let v = if exact_ints { T::from_i64(ints[i]) } else { T::from_f64(values[i]) };
                // SAFETY: in-bounds offset of an element of T.
                unsafe { *(base as *mut T).offset(o as isize) = v };
            }
        });
        Ok(())
    }

    /// Copies the elements of `src` (same dtype and shape, another storage) without
    /// converting them: one memcpy when both are contiguous.
    fn copy_same_dtype(&self, src: &Tensor) {
        let n = self.numel();
        let size = self.dtype().size();
        let (s, d) = (src.data_ptr(), self.data_ptr());
        if n == 0 {
            return;
        }
        if self.is_contiguous() && src.is_contiguous() {
            // SAFETY: both hold n contiguous elements from their data pointers, in different
            // storages.
            unsafe { std::ptr::copy_nonoverlapping(s, d, n * size) };
            return;
        }
        // Copy the largest trailing block that is contiguous in both tensors at a time.
        let sizes = self.sizes();
        let (ss, ds) = (src.strides(), self.strides());
        let (mut block, mut outer) = (1i64, sizes.len());
        while outer > 0 {
            let d = outer - 1;
            if sizes[d] != 1 && (ss[d] != block || ds[d] != block) {
                break;
            }
            block *= sizes[d];
            outer -= 1;
        }
        if block >= 16 {
            let mut so = Vec::new();
            for_each_offset(&sizes[..outer], &ss[..outer], |o| so.push(o));
            let mut dof = Vec::new();
            for_each_offset(&sizes[..outer], &ds[..outer], |o| dof.push(o));
            let bytes = block as usize * size;
            for (&a, &b) in so.iter().zip(&dof) {
                // SAFETY: each block of `block` elements starts at an in-bounds offset and is
                // contiguous in both tensors, which live in different storages.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        s.offset(a as isize * size as isize),
                        d.offset(b as isize * size as isize),
                        bytes,
                    )
                };
            }
            return;
        }
        let (so, dof) = (src.element_offsets(), self.element_offsets());
        macro_rules! copy_as {
            ($t:ty) => {{
                let (s, d) = (s as *const $t, d as *mut $t);
                for (&a, &b) in so.iter().zip(&dof) {
                    // SAFETY: in-bounds element offsets of each tensor.
                    unsafe { *d.offset(b as isize) = *s.offset(a as isize) };
                }
            }};
        }
        match size {
            1 => copy_as!(u8),
            2 => copy_as!(u16),
            4 => copy_as!(u32),
            _ => copy_as!(u64),
        }
    }

    /// The value of a one-element tensor (`.item()`), as f64.
    pub fn item_f64(&self) -> TensorResult<f64> {
        if self.numel() != 1 {
            bail!(
                "a Tensor with {} elements cannot be converted to Scalar",
                self.numel()
            );
        }
        Ok(self.to_vec::<f64>()[0])
    }

    /// The value of a one-element tensor (`.item()`), as i64.
    pub fn item_i64(&self) -> TensorResult<i64> {
        if self.numel() != 1 {
            bail!(
                "a Tensor with {} elements cannot be converted to Scalar",
                self.numel()
            );
        }
        Ok(self.to_vec::<i64>()[0])
    }
}

impl std::fmt::Debug for Tensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = self.meta();
        write!(
            f,
            "Tensor({:?}, {}, sizes={:?}, strides={:?}, offset={})",
            m.storage, m.dtype, m.sizes, m.strides, m.offset
        )
    }
}

/// Converts between element types the way `Tensor.to(dtype)` does: integers stay exact
/// through i64 when both sides are integral.
fn convert<S: Element, T: Element>(v: S) -> T {
    if S::DTYPE.is_floating() {
        T::from_f64(v.to_f64())
    } else {
        T::from_i64(v.to_i64())
    }
}

/// Calls `f` with the offset of every element, row-major.
pub fn for_each_offset(sizes: &[i64], strides: &[i64], mut f: impl FnMut(i64)) {
    if sizes.iter().any(|&s| s == 0) {
        return;
    }
    let nd = sizes.len();
    if nd == 0 {
        f(0);
        return;
    }
    let mut index = vec![0i64; nd];
    let mut offset = 0i64;
    let (inner_size, inner_stride) = (sizes[nd - 1], strides[nd - 1]);
    loop {
        for k in 0..inner_size {
            f(offset + k * inner_stride);
        }
        // Advance the outer dims like an odometer.
        let mut d = nd - 1;
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            index[d] += 1;
            offset += strides[d];
            if index[d] < sizes[d] {
                break;
            }
            offset -= strides[d] * sizes[d];
            index[d] = 0;
        }
    }
}

/// Checks that every element `meta` addresses lies inside its storage, with checked
/// arithmetic (negative strides included).
fn check_in_bounds(meta: &Meta) -> TensorResult<()> {
    if meta.sizes.len() != meta.strides.len() {
        bail!(
            "sizes {:?} and strides {:?} differ in length",
            meta.sizes,
            meta.strides
        );
    }
    let numel = checked_numel(&meta.sizes)?;
    if numel == 0 {
        return Ok(());
    }
    let (mut lo, mut hi) = (meta.offset as i128, meta.offset as i128);
    for (&s, &st) in meta.sizes.iter().zip(&meta.strides) {
        let span = (s as i128 - 1).saturating_mul(st as i128);
        if span < 0 {
            lo = lo.saturating_add(span);
        } else {
            hi = hi.saturating_add(span);
        }
    }
    let capacity = (meta.storage.nbytes() / meta.dtype.size()) as i128;
    if lo >= 0 && hi >= capacity {
        bail!(
            "setStorage: sizes {:?}, strides {:?}, storage offset {}, and itemsize {} requiring a storage size of {} are out of bounds for storage of size {}",
            meta.sizes,
            meta.strides,
            meta.offset,
            meta.dtype.size(),
            hi.saturating_add(1).saturating_mul(meta.dtype.size() as i128),
            meta.storage.nbytes()
        );
    }
    if lo < 0 || hi >= capacity {
        bail!(
            "setStorage: sizes {:?}, strides {:?}, storage offset {} and itemsize {} require elements {}..={} but the storage holds {}",
            meta.sizes, meta.strides, meta.offset, meta.dtype.size(), lo, hi, capacity
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests;
