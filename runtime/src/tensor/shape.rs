//! Shape arithmetic with PyTorch's rules and messages: checked element counts, contiguous
//! strides, dimension wrapping and broadcasting.

use smallvec::SmallVec;

use super::error::{TensorError, TensorResult};
use crate::bail;

/// Sizes or strides of a tensor; most tensors have few dimensions.
pub type Shape = SmallVec<[i64; 6]>;

/// The number of elements of `sizes`, refusing negative sizes and overflow.
pub fn checked_numel(sizes: &[i64]) -> TensorResult<usize> {
    let mut n: usize = 1;
    for &s in sizes {
        if s < 0 {
            bail!("Trying to create tensor with negative dimension {s}: {sizes:?}");
        }
        n = n.checked_mul(s as usize).ok_or_else(|| {
            TensorError::new(format!(
                "Storage size calculation overflowed with sizes={sizes:?}"
            ))
        })?;
    }
    Ok(n)
}

/// Row-major strides for `sizes` (size-0 and size-1 dims get the stride they would have).
pub fn contiguous_strides(sizes: &[i64]) -> Shape {
    let mut strides: Shape = SmallVec::from_elem(1, sizes.len());
    let mut acc: i64 = 1;
    for i in (0..sizes.len()).rev() {
        strides[i] = acc;
        acc = acc.saturating_mul(sizes[i].max(1));
    }
    strides
}

/// Turns a possibly negative `dim` into an index below `ndim`, with PyTorch's message.
/// A 0-dim tensor accepts dims -1 and 0, as PyTorch's `maybe_wrap_dim` does.
pub fn wrap_dim(dim: i64, ndim: usize) -> TensorResult<usize> {
    let n = ndim.max(1) as i64;
    if dim < -n || dim >= n {
        bail!(
            "Dimension out of range (expected to be in range of [{}, {}], but got {dim})",
            -n,
            n - 1
        );
    }
    Ok(if dim < 0 {
        (dim + n) as usize
    } else {
        dim as usize
    })
}

/// The broadcast of two shapes, or PyTorch's error.
pub fn broadcast_shapes(a: &[i64], b: &[i64]) -> TensorResult<Shape> {
    let n = a.len().max(b.len());
    let mut out: Shape = SmallVec::from_elem(1, n);
    // From the last dimension, as PyTorch's `infer_size` (which the message names).
    for i in (0..n).rev() {
        let da = if i + a.len() >= n {
            a[i + a.len() - n]
        } else {
            1
        };
        let db = if i + b.len() >= n {
            b[i + b.len() - n]
        } else {
            1
        };
        out[i] = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            bail!(
                "The size of tensor a ({da}) must match the size of tensor b ({db}) at non-singleton dimension {i}"
            );
        };
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(checked_numel(&[2, 3, 4]).unwrap(), 24);
        assert_eq!(checked_numel(&[]).unwrap(), 1);
        assert!(checked_numel(&[-1]).is_err());
        assert!(checked_numel(&[i64::MAX, i64::MAX]).is_err());
        assert_eq!(contiguous_strides(&[2, 3, 4]).as_slice(), &[12, 4, 1]);
        assert_eq!(contiguous_strides(&[2, 0, 4]).as_slice(), &[4, 4, 1]);
        assert_eq!(wrap_dim(-1, 3).unwrap(), 2);
        assert_eq!(wrap_dim(0, 0).unwrap(), 0);
        assert_eq!(
            wrap_dim(3, 3).unwrap_err().message,
            "Dimension out of range (expected to be in range of [-3, 2], but got 3)"
        );
        assert_eq!(broadcast_shapes(&[3, 1], &[4]).unwrap().as_slice(), &[3, 4]);
        assert_eq!(
            broadcast_shapes(&[0, 1], &[1, 5]).unwrap().as_slice(),
            &[0, 5]
        );
        assert_eq!(
            broadcast_shapes(&[2, 3], &[4]).unwrap_err().message,
            "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"
        );
    }
}
