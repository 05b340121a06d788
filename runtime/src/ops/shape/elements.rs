//! Moving elements by offset lists: the kernels that copying shape ops and indexing share.
//! Offsets are in elements, relative to a tensor's element 0 (its `data_ptr`), as
//! `Tensor::element_offsets` gives them.

use crate::dispatch_dtype;
pub use crate::ops::args::sizes_str;
use crate::tensor::{DType, Element, Tensor, TensorResult};

/// A fresh contiguous tensor of `sizes` whose element `i` is `src`'s element at `offsets[i]`.
pub fn gather(src: &Tensor, offsets: &[i64], sizes: &[i64]) -> TensorResult<Tensor> {
    let out = Tensor::zeros(sizes, src.dtype())?;
    debug_assert_eq!(out.numel(), offsets.len());
    let (s, d) = (src.data_ptr(), out.data_ptr());
    macro_rules! copy_as {
        ($t:ty) => {{
            let (s, d) = (s as *const $t, d as *mut $t);
            for (i, &o) in offsets.iter().enumerate() {
                // SAFETY: offsets address elements of `src` (computed from its layout and
                // bounds-checked indices); `out` holds offsets.len() elements.
                unsafe { *d.add(i) = *s.offset(o as isize) };
            }
        }};
    }
    match src.dtype().size() {
        1 => copy_as!(u8),
        2 => copy_as!(u16),
        4 => copy_as!(u32),
        _ => copy_as!(u64),
    }
    Ok(out)
}

/// A fresh contiguous tensor of `sizes` made of runs of `block` elements of `src`, run `i`
/// starting at `src`'s element offset `offsets[i]` (runs are contiguous in `src`).
pub fn gather_blocks(
    src: &Tensor,
    offsets: &[i64],
    block: usize,
    sizes: &[i64],
) -> TensorResult<Tensor> {
    if block == 1 {
        return gather(src, offsets, sizes);
    }
    let out = Tensor::zeros(sizes, src.dtype())?;
    debug_assert_eq!(out.numel(), offsets.len() * block);
    let size = src.dtype().size();
    let (s, d) = (src.data_ptr(), out.data_ptr());
    let bytes = block * size;
    for (i, &o) in offsets.iter().enumerate() {
        // SAFETY: each run of `block` elements from `o` lies in `src` (planned from its
        // layout and bounds-checked indices); `out` holds offsets.len() * block elements.
        unsafe {
            std::ptr::copy_nonoverlapping(
                s.offset(o as isize * size as isize),
                d.add(i * bytes),
                bytes,
            )
        };
    }
    Ok(out)
}

/// How a value is combined with the element it lands on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Combine {
    Replace,
    Add,
    Multiply,
}

/// Writes `values` (any dtype, converted to `dst`'s; read in row-major order, one per offset)
/// into `dst` at `offsets`, in order, so a later write to the same element wins (or
/// accumulates).
pub fn scatter(dst: &Tensor, offsets: &[i64], values: &Tensor, how: Combine) -> TensorResult<()> {
    let values = cast(values, dst.dtype())?;
    let base = dst.data_ptr();
    let floating = dst.dtype().is_floating();
    dispatch_dtype!(dst.dtype(), T => {
        let vals = values.to_vec::<T>();
        let p = base as *mut T;
        for (&o, &v) in offsets.iter().zip(&vals) {
            // SAFETY: offsets address elements of `dst`.
            unsafe {
                let slot = p.offset(o as isize);
                *slot = combine::<T>(*slot, v, how, floating);
            }
        }
    });
    Ok(())
}

fn combine<T: Element>(old: T, new: T, how: Combine, floating: bool) -> T {
    match how {
        Combine::Replace => new,
        Combine::Add if floating => T::from_f64(old.to_f64() + new.to_f64()),
        Combine::Add => T::from_i64(old.to_i64().wrapping_add(new.to_i64())),
        Combine::Multiply if floating => T::from_f64(old.to_f64() * new.to_f64()),
        Combine::Multiply => T::from_i64(old.to_i64().wrapping_mul(new.to_i64())),
    }
}

/// `t` converted to `dtype` (a fresh contiguous tensor; `t` itself when already `dtype`
/// and contiguous).
pub fn cast(t: &Tensor, dtype: DType) -> TensorResult<Tensor> {
    if t.dtype() == dtype {
        return t.contiguous();
    }
    let out = Tensor::zeros(&t.sizes(), dtype)?;
    out.copy_from(t)?;
    Ok(out)
}

/// A fresh tensor of `dtype` converted from `t` (always a copy).
pub fn cast_copy(t: &Tensor, dtype: DType) -> TensorResult<Tensor> {
    let out = Tensor::zeros(&t.sizes(), dtype)?;
    out.copy_from(t)?;
    Ok(out)
}

/// The values of an integer index tensor as i64, refusing other dtypes with `message`.
pub fn index_values(index: &Tensor, message: &str) -> TensorResult<Vec<i64>> {
    if !index.dtype().is_integral() {
        return Err(crate::tensor::TensorError::new(message));
    }
    Ok(index.to_vec::<i64>())
}

/// Whether `t`'s elements fill a block of memory exactly once (some order of its dims is
/// contiguous), PyTorch's `is_non_overlapping_and_dense`.
pub fn is_non_overlapping_and_dense(t: &Tensor) -> bool {
    let (sizes, strides) = (t.sizes(), t.strides());
    let mut dims: Vec<usize> = (0..sizes.len()).filter(|&d| sizes[d] != 1).collect();
    dims.sort_by_key(|&d| strides[d]);
    let mut expected = 1i64;
    for d in dims {
        if strides[d] != expected {
            return false;
        }
        expected = expected.saturating_mul(sizes[d]);
    }
    true
}

/// How the memory of two tensors overlaps (PyTorch's `get_overlap_status`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Overlap {
    No,
    Full,
    Partial,
    /// Not dense: PyTorch does not try to tell.
    TooHard,
}

pub fn overlap(a: &Tensor, b: &Tensor) -> Overlap {
    if a.numel() == 0 || b.numel() == 0 || !a.shares_storage(b) {
        return Overlap::No;
    }
    if !is_non_overlapping_and_dense(a) || !is_non_overlapping_and_dense(b) {
        return Overlap::TooHard;
    }
    let span = |t: &Tensor| {
        let begin = t.data_ptr() as usize;
        (begin, begin + t.numel() * t.dtype().size())
    };
    let ((ab, ae), (bb, be)) = (span(a), span(b));
    if ab == bb && ae == be {
        return if a.strides() == b.strides() {
            Overlap::Full
        } else {
            Overlap::Partial
        };
    }
    if ab < be && bb < ae {
        return Overlap::Partial;
    }
    Overlap::No
}

const OVERLAP_MESSAGE: &str = "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.";

/// Refuses an input that partly overlaps the tensor written to (`assert_no_partial_overlap`).
pub fn assert_no_partial_overlap(written: &Tensor, input: &Tensor) -> TensorResult<()> {
    if overlap(written, input) == Overlap::Partial {
        return Err(crate::tensor::TensorError::new(OVERLAP_MESSAGE));
    }
    Ok(())
}

/// Refuses an input that overlaps the tensor written to at all (`assert_no_overlap`).
pub fn assert_no_overlap(written: &Tensor, input: &Tensor) -> TensorResult<()> {
    if matches!(overlap(written, input), Overlap::Partial | Overlap::Full) {
        return Err(crate::tensor::TensorError::new(OVERLAP_MESSAGE));
    }
    Ok(())
}

/// Refuses a written-to tensor whose elements share memory, an expanded view
/// (`assert_no_internal_overlap`).
pub fn assert_no_internal_overlap(written: &Tensor) -> TensorResult<()> {
    crate::ops::pointwise::check_no_internal_overlap(written)
        .map_err(crate::tensor::TensorError::new)
}

/// Refuses work that needs `n` temporary 8-byte entries (offsets, values) beyond what one
/// storage may hold: a broadcast index of 2^40 elements is an error, not an abort.
pub fn check_len(n: usize) -> TensorResult<()> {
    let limit = crate::tensor::allocation_limit();
    if n.checked_mul(8).is_none_or(|b| b > limit) {
        return Err(crate::tensor::TensorError::new(format!(
            "refusing to allocate {n} elements of temporary work: over the limit of {limit} bytes"
        )));
    }
    Ok(())
}
