//! Tensor storages of an archive (`data/N` records) and tensors rebuilt over them with
//! checked arithmetic: the storage offset, sizes and strides must address only elements the
//! storage holds, and no element count or byte size may overflow.

use ember_runtime::tensor::{DType, Device, Meta, Storage, Tensor};

use super::error::ImportError;

/// Where the unpickler gets the bytes of the storages a pickle's persistent ids name.
pub trait StorageLoader {
    /// The storage record `key` (the `data/<key>` record of an archive), holding `numel`
    /// elements of `dtype`. Records are always copied into fresh aligned storage, never
    /// reinterpreted in place.
    fn load(&mut self, key: &str, dtype: DType, numel: u64) -> Result<Storage, ImportError>;
}

/// For pickles that may not refer to storages (`constants.pkl` of some tools, `.debug_pkl`).
pub struct NoStorages;

impl StorageLoader for NoStorages {
    fn load(&mut self, key: &str, _: DType, _: u64) -> Result<Storage, ImportError> {
        Err(ImportError::new(format!(
            "persistent id refers to storage '{key}' but this pickle has no storage records"
        )))
    }
}

/// The dtype of PyTorch's legacy typed storage class `torch.<name>` (`FloatStorage`).
pub fn storage_dtype(name: &str) -> Result<DType, String> {
    Ok(match name {
        "FloatStorage" => DType::F32,
        "DoubleStorage" => DType::F64,
        "HalfStorage" => DType::F16,
        "BFloat16Storage" => DType::BF16,
        "LongStorage" => DType::I64,
        "IntStorage" => DType::I32,
        "ShortStorage" => DType::I16,
        "CharStorage" => DType::I8,
        "ByteStorage" => DType::U8,
        "BoolStorage" => DType::Bool,
        "ComplexFloatStorage"
        | "ComplexDoubleStorage"
        | "ComplexHalfStorage"
        | "QInt8Storage"
        | "QUInt8Storage"
        | "QInt32Storage"
        | "QUInt4x2Storage"
        | "QUInt2x4Storage"
        | "UInt16Storage"
        | "UInt32Storage"
        | "UInt64Storage"
        | "Float8_e4m3fnStorage"
        | "Float8_e5m2Storage"
        | "UntypedStorage" => {
            return Err(format!(
                "storage type 'torch.{name}' is not supported by Ember"
            ))
        }
        _ => return Err(format!("unknown storage type 'torch.{name}'")),
    })
}

/// Bytes of `numel` elements of `dtype`, or `None` on overflow.
pub fn storage_nbytes(dtype: DType, numel: u64) -> Option<u64> {
    numel.checked_mul(dtype.size() as u64)
}

/// The most dimensions a rebuilt tensor may have (PyTorch's own limit is 64 for most ops).
const MAX_DIMS: usize = 64;

/// A tensor over `storage` (holding elements of `dtype`) as `torch._utils._rebuild_tensor_v2`
/// builds it, after checking that every element it addresses lies in the storage.
pub fn rebuild_tensor(
    storage: &Storage,
    dtype: DType,
    offset: i64,
    sizes: &[i64],
    strides: &[i64],
    requires_grad: bool,
) -> Result<Tensor, String> {
    if sizes.len() != strides.len() {
        return Err(format!(
            "tensor sizes {sizes:?} and strides {strides:?} differ in length"
        ));
    }
    if sizes.len() > MAX_DIMS {
        return Err(format!(
            "tensor has {} dimensions, more than {MAX_DIMS}",
            sizes.len()
        ));
    }
    if offset < 0 {
        return Err(format!("negative storage offset {offset}"));
    }
    if let Some(s) = sizes.iter().find(|&&s| s < 0) {
        return Err(format!("negative size {s} in tensor sizes {sizes:?}"));
    }
    if let Some(s) = strides.iter().find(|&&s| s < 0) {
        return Err(format!("negative stride {s} in tensor strides {strides:?}"));
    }
    let numel = sizes
        .iter()
        .try_fold(1u64, |n, &s| n.checked_mul(s as u64))
        .ok_or_else(|| format!("tensor sizes {sizes:?} overflow the element count"))?;
    let capacity = (storage.nbytes() / dtype.size()) as u64;
    if numel > 0 {
        // The last element addressed: offset + sum (size - 1) * stride, all checked.
        let last = sizes
            .iter()
            .zip(strides)
            .try_fold(offset as u64, |acc, (&s, &st)| {
                (s as u64 - 1)
                    .checked_mul(st as u64)
                    .and_then(|span| acc.checked_add(span))
            })
            .ok_or_else(|| {
                format!("tensor sizes {sizes:?}, strides {strides:?} and offset {offset} overflow")
            })?;
        if last >= capacity {
            return Err(format!(
                "tensor with sizes {sizes:?}, strides {strides:?} and storage offset {offset} needs {} elements but its storage holds {capacity} {} elements",
                last as u128 + 1,
                dtype.name()
            ));
        }
    } else if offset as u64 > capacity {
        return Err(format!(
            "storage offset {offset} is past the end of a storage of {capacity} elements"
        ));
    }
    Tensor::from_meta(Meta {
        storage: storage.clone(),
        dtype,
        device: Device::Cpu,
        sizes: sizes.into(),
        strides: strides.into(),
        offset,
        requires_grad,
    })
    .map_err(|e| e.message)
}

/// Reverses the bytes of every `width`-byte element (big-endian archives).
pub fn swap_bytes(data: &mut [u8], width: usize) {
    if width > 1 {
        for chunk in data.chunks_exact_mut(width) {
            chunk.reverse();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn storage(n: usize) -> Storage {
        Storage::zeroed(n).unwrap()
    }

    #[test]
    fn rebuild_checks_extents() {
        let s = storage(24); // six f32
        let t = rebuild_tensor(&s, DType::F32, 0, &[2, 3], &[3, 1], false).unwrap();
        assert_eq!(t.sizes().to_vec(), vec![2, 3]);
        assert!(rebuild_tensor(&s, DType::F32, 1, &[2, 3], &[3, 1], false)
            .unwrap_err()
            .contains("needs 7 elements"));
        assert!(
            rebuild_tensor(&s, DType::F32, 0, &[i64::MAX, 4], &[1, 1], false)
                .unwrap_err()
                .contains("overflow")
        );
        assert!(rebuild_tensor(&s, DType::F32, 0, &[4], &[i64::MAX], false)
            .unwrap_err()
            .contains("overflow"));
        assert!(rebuild_tensor(&s, DType::F32, 0, &[2], &[1, 1], false)
            .unwrap_err()
            .contains("differ in length"));
        assert!(rebuild_tensor(&s, DType::F32, -1, &[1], &[1], false).is_err());
        assert!(rebuild_tensor(&s, DType::F32, 0, &[-1], &[1], false).is_err());
        // Empty tensors address nothing, but the offset must still be inside.
        assert!(rebuild_tensor(&s, DType::F32, 6, &[0], &[1], false).is_ok());
        assert!(rebuild_tensor(&s, DType::F32, 7, &[0], &[1], false).is_err());
        assert_eq!(storage_dtype("LongStorage"), Ok(DType::I64));
        assert!(storage_dtype("QInt8Storage")
            .unwrap_err()
            .contains("not supported"));
    }
}
