//! Tensors to and from NumPy's `.npy` format (and arrays inside `.npz` archives), with the
//! `npyz` crate. Every dtype Ember has round-trips; bfloat16, which NumPy lacks, travels as
//! its uint16 bit patterns when the caller says so. Input is untrusted: the declared shape is
//! checked against the bytes present before anything is allocated.

use std::io::{Cursor, Read, Seek};

use half::{bf16, f16};
use npyz::{DType as NpyDType, NpyFile, Order, TypeChar, WriterBuilder};

use crate::tensor::{checked_numel, DType, Element, Tensor};

/// Refuses a header longer than the file (npyz allocates the length the header declares
/// before reading it: a fuzzed 121-byte file declared 2.2 GB) and a header that is not the
/// dictionary NumPy writes (see [`plain_header`]): npyz's parser of Python literals takes time
/// exponential in their nesting (fuzzed headers of nested brackets, some hidden where a
/// simpler scan saw a string, ran for seconds to minutes).
fn check_header(bytes: &[u8]) -> Result<(), String> {
    let (start, len): (usize, usize) = match bytes {
        [0x93, b'N', b'U', b'M', b'P', b'Y', 1, _, a, b, ..] => {
            (10, u16::from_le_bytes([*a, *b]) as usize)
        }
        [0x93, b'N', b'U', b'M', b'P', b'Y', 2 | 3, _, a, b, c, d, ..] => {
            (12, u32::from_le_bytes([*a, *b, *c, *d]) as usize)
        }
        // npyz reports what is wrong with the rest.
        _ => return Ok(()),
    };
    if start.saturating_add(len) > bytes.len() {
        return Err(format!(
            "not a valid .npy file: its header is {len} bytes but the file has {}",
            bytes.len()
        ));
    }
    let header = &bytes[start..start + len];
    let Some(sizes) = plain_header(header) else {
        return Err(
            "not a valid .npy file: its header is not the dictionary of 'descr', \
             'fortran_order' and 'shape' that NumPy writes"
                .into(),
        );
    };
    // npyz multiplies the sizes for strides unchecked, zero sizes or not.
    let product = sizes.iter().filter(|&&n| n != 0).try_fold(1i64, |acc, &n| {
        i64::try_from(n).ok().and_then(|n| acc.checked_mul(n))
    });
    if product.is_none() {
        return Err("not a valid .npy file: its shape's sizes multiply past 2^63".into());
    }
    Ok(())
}

/// Whether `header` is a dictionary as `numpy.save` writes it, which is all npyz is then
/// asked to parse: `{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`, keys and
/// strings quoted without escapes, values a string, `True`/`False` or a tuple of integers
/// (Python 2's `3L` too), padded with spaces and a newline. `Some`: the integers of its
/// tuples (the shape's sizes).
fn plain_header(header: &[u8]) -> Option<Vec<u64>> {
    let text = header.trim_ascii();
    let inner = text.strip_prefix(b"{").and_then(|t| t.strip_suffix(b"}"))?;
    let mut sizes = Vec::new();
    let mut i = 0;
    let skip_space = |i: &mut usize| {
        while inner.get(*i).is_some_and(|b| b.is_ascii_whitespace()) {
            *i += 1;
        }
    };
    let string = |i: &mut usize| -> bool {
        let Some(&q) = inner.get(*i).filter(|&&b| b == b'\'' || b == b'"') else {
            return false;
        };
        *i += 1;
        while let Some(&b) = inner.get(*i) {
            *i += 1;
            if b == q {
                return true;
            }
            if b == b'\\' || !(b' '..=b'~').contains(&b) {
                return false;
            }
        }
        false
    };
    let word = |i: &mut usize, w: &[u8]| -> bool {
        let found = inner[*i..].starts_with(w);
        if found {
            *i += w.len();
        }
        found
    };
    loop {
        skip_space(&mut i);
        if i == inner.len() {
            return Some(sizes);
        }
        if !string(&mut i) {
            return None;
        }
        skip_space(&mut i);
        if !word(&mut i, b":") {
            return None;
        }
        skip_space(&mut i);
        let value = if inner.get(i) == Some(&b'(') {
            i += 1;
            // A tuple of integers: `()`, `(3,)`, `(2, 3)`.
            loop {
                skip_space(&mut i);
                if word(&mut i, b")") {
                    break true;
                }
                let digits = inner[i..].iter().take_while(|b| b.is_ascii_digit()).count();
                if digits == 0 {
                    break false;
                }
                let size = std::str::from_utf8(&inner[i..i + digits])
                    .ok()?
                    .parse::<u64>();
                sizes.push(size.ok()?);
                i += digits;
                word(&mut i, b"L");
                skip_space(&mut i);
                if !word(&mut i, b",") && inner.get(i) != Some(&b')') {
                    break false;
                }
            }
        } else {
            string(&mut i) || word(&mut i, b"True") || word(&mut i, b"False")
        };
        if !value {
            return None;
        }
        skip_space(&mut i);
        if !word(&mut i, b",") {
            skip_space(&mut i);
            return (i == inner.len()).then_some(sizes);
        }
    }
}

/// Reads a `.npy` file's bytes into a tensor.
pub fn read_npy(bytes: &[u8]) -> Result<Tensor, String> {
    check_header(bytes)?;
    let npy = NpyFile::new(bytes).map_err(|e| format!("not a valid .npy file: {e}"))?;
    let shape: Vec<i64> = npy
        .shape()
        .iter()
        .map(|&d| i64::try_from(d).map_err(|_| format!("dimension {d} is too large")))
        .collect::<Result<_, _>>()?;
    let fortran = npy.order() == Order::Fortran;
    let dtype = npy_dtype(&npy.dtype())?;
    let numel = checked_numel(&shape).map_err(|e| e.message)?;
    let needed = numel
        .checked_mul(dtype.size())
        .ok_or_else(|| format!("array of shape {shape:?} is too large"))?;
    if needed > bytes.len() {
        return Err(format!(
            "array of shape {shape:?} and dtype {} needs {needed} bytes but the file has {}",
            dtype.name(),
            bytes.len()
        ));
    }
    // Fortran order is the transpose's C order: read reversed, then permute back.
    let read_shape: Vec<i64> = if fortran {
        shape.iter().rev().copied().collect()
    } else {
        shape.clone()
    };
    let tensor = match dtype {
        DType::Bool => tensor_of::<bool>(npy, &read_shape),
        DType::U8 => tensor_of::<u8>(npy, &read_shape),
        DType::I8 => tensor_of::<i8>(npy, &read_shape),
        DType::I16 => tensor_of::<i16>(npy, &read_shape),
        DType::I32 => tensor_of::<i32>(npy, &read_shape),
        DType::I64 => tensor_of::<i64>(npy, &read_shape),
        DType::F16 => tensor_of::<f16>(npy, &read_shape),
        DType::F32 => tensor_of::<f32>(npy, &read_shape),
        DType::F64 => tensor_of::<f64>(npy, &read_shape),
        DType::BF16 => unreachable!("npy has no bfloat16"),
    }?;
    if fortran && shape.len() > 1 {
        let dims: Vec<i64> = (0..shape.len() as i64).rev().collect();
        return tensor
            .permute(&dims)
            .and_then(|t| t.contiguous())
            .map_err(|e| e.message);
    }
    Ok(tensor)
}

fn tensor_of<T: Element + npyz::Deserialize>(
    npy: NpyFile<&[u8]>,
    shape: &[i64],
) -> Result<Tensor, String> {
    let data: Vec<T> = npy
        .into_vec()
        .map_err(|e| format!("cannot read array data: {e}"))?;
    Tensor::from_vec(data, shape).map_err(|e| e.message)
}

/// The Ember dtype of a `.npy` descriptor, refusing big-endian, structured and other arrays.
fn npy_dtype(d: &NpyDType) -> Result<DType, String> {
    let NpyDType::Plain(ts) = d else {
        return Err(format!(
            "unsupported .npy dtype {}: only plain numeric arrays are read",
            d.descr()
        ));
    };
    if ts.endianness() == npyz::Endianness::Big && ts.size_field() > 1 {
        return Err(format!(
            "big-endian .npy arrays are not supported ({})",
            d.descr()
        ));
    }
    Ok(match (ts.type_char(), ts.size_field()) {
        (TypeChar::Bool, 1) => DType::Bool,
        (TypeChar::Uint, 1) => DType::U8,
        (TypeChar::Int, 1) => DType::I8,
        (TypeChar::Int, 2) => DType::I16,
        (TypeChar::Int, 4) => DType::I32,
        (TypeChar::Int, 8) => DType::I64,
        (TypeChar::Float, 2) => DType::F16,
        (TypeChar::Float, 4) => DType::F32,
        (TypeChar::Float, 8) => DType::F64,
        _ => return Err(format!("unsupported .npy dtype {}", d.descr())),
    })
}

/// Writes a tensor as `.npy` bytes (C order). bfloat16 is widened to float32, which holds
/// every bfloat16 exactly.
pub fn write_npy(t: &Tensor) -> Result<Vec<u8>, String> {
    let shape: Vec<u64> = t.sizes().iter().map(|&s| s as u64).collect();
    let mut out = Vec::new();
    match t.dtype() {
        DType::Bool => write_typed::<bool>(t, &shape, &mut out),
        DType::U8 => write_typed::<u8>(t, &shape, &mut out),
        DType::I8 => write_typed::<i8>(t, &shape, &mut out),
        DType::I16 => write_typed::<i16>(t, &shape, &mut out),
        DType::I32 => write_typed::<i32>(t, &shape, &mut out),
        DType::I64 => write_typed::<i64>(t, &shape, &mut out),
        DType::F16 => write_typed::<f16>(t, &shape, &mut out),
        DType::F32 | DType::BF16 => write_typed::<f32>(t, &shape, &mut out),
        DType::F64 => write_typed::<f64>(t, &shape, &mut out),
    }?;
    Ok(out)
}

fn write_typed<T: Element + npyz::Serialize + npyz::AutoSerialize>(
    t: &Tensor,
    shape: &[u64],
    out: &mut Vec<u8>,
) -> Result<(), String> {
    let data: Vec<T> = t.to_vec();
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(shape)
        .writer(Cursor::new(out))
        .begin_nd()
        .map_err(|e| e.to_string())?;
    w.extend(data).map_err(|e| e.to_string())?;
    w.finish().map_err(|e| e.to_string())
}

/// The bfloat16 tensor whose bit patterns `bits` holds (as [`read_npz`] returns uint16 arrays).
pub fn bf16_from_bits(bits: &Tensor) -> Result<Tensor, String> {
    let raw: Vec<u16> = bits.to_vec::<i64>().into_iter().map(|v| v as u16).collect();
    let values: Vec<bf16> = raw.into_iter().map(bf16::from_bits).collect();
    Tensor::from_vec(values, &bits.sizes()).map_err(|e| e.message)
}

/// The arrays of an `.npz` archive, by name (without `.npy`). uint16 arrays (bfloat16 bit
/// patterns) are returned as int64 tensors holding the patterns.
pub fn read_npz<R: Read + Seek>(reader: R) -> Result<Vec<(String, Tensor)>, String> {
    let mut archive =
        zip::ZipArchive::new(reader).map_err(|e| format!("not a valid .npz file: {e}"))?;
    let mut out = Vec::new();
    for i in 0..archive.len() {
        let mut entry = archive.by_index(i).map_err(|e| format!("entry {i}: {e}"))?;
        let full = entry
            .name()
            .map_err(|e| format!("entry {i}: {e}"))?
            .to_string();
        let name = full.strip_suffix(".npy").unwrap_or(&full).to_string();
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .map_err(|e| format!("{name}: {e}"))?;
        out.push((
            name.clone(),
            read_npy_or_u16(&bytes).map_err(|e| format!("{name}: {e}"))?,
        ));
    }
    Ok(out)
}

/// Like [`read_npy`], but a uint16 array becomes an int64 tensor of its values.
fn read_npy_or_u16(bytes: &[u8]) -> Result<Tensor, String> {
    let npy = NpyFile::new(bytes).map_err(|e| format!("not a valid .npy file: {e}"))?;
    if let NpyDType::Plain(ts) = &npy.dtype() {
        if ts.type_char() == TypeChar::Uint && ts.size_field() == 2 {
            let shape: Vec<i64> = npy.shape().iter().map(|&d| d as i64).collect();
            checked_numel(&shape).map_err(|e| e.message)?;
            let data: Vec<u16> = npy.into_vec().map_err(|e| e.to_string())?;
            return Tensor::from_vec(data.into_iter().map(i64::from).collect::<Vec<_>>(), &shape)
                .map_err(|e| e.message);
        }
    }
    read_npy(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_dtype() {
        for dtype in DType::ALL {
            let t = Tensor::from_vec(vec![1.0f64, -2.0, 0.5, 3.0, 0.0, 1.0], &[2, 3]).unwrap();
            let t = {
                let out = Tensor::zeros(&[2, 3], dtype).unwrap();
                out.copy_from(&t).unwrap();
                out
            };
            let back = read_npy(&write_npy(&t).unwrap()).unwrap();
            let expected_dtype = if dtype == DType::BF16 {
                DType::F32
            } else {
                dtype
            };
            assert_eq!(back.dtype(), expected_dtype, "{dtype:?}");
            assert_eq!(back.sizes().as_slice(), &[2, 3]);
            assert_eq!(back.to_vec::<f64>(), t.to_vec::<f64>(), "{dtype:?}");
        }
        // Non-contiguous tensors are written in logical order; 0-dim and empty ones too.
        let t = Tensor::from_vec(vec![1i64, 2, 3, 4], &[2, 2])
            .unwrap()
            .t()
            .unwrap();
        assert_eq!(
            read_npy(&write_npy(&t).unwrap()).unwrap().to_vec::<i64>(),
            vec![1, 3, 2, 4]
        );
        let s = Tensor::scalar(2.5, DType::F64).unwrap();
        assert_eq!(read_npy(&write_npy(&s).unwrap()).unwrap().dim(), 0);
        let e = Tensor::zeros(&[0, 4], DType::F32).unwrap();
        assert_eq!(
            read_npy(&write_npy(&e).unwrap())
                .unwrap()
                .sizes()
                .as_slice(),
            &[0, 4]
        );
    }

    #[test]
    fn refuses_bad_files() {
        assert!(read_npy(b"").is_err());
        assert!(read_npy(b"not numpy at all").is_err());
        let good = write_npy(&Tensor::from_vec(vec![1f32; 6], &[2, 3]).unwrap()).unwrap();
        // Truncated data.
        assert!(read_npy(&good[..good.len() - 4]).is_err());
        // A huge declared shape with no data behind it is refused before allocating.
        let header = String::from_utf8_lossy(&good).replace("(2, 3)", "(100000000000, 3)");
        let err = read_npy(header.as_bytes()).unwrap_err();
        assert!(err.contains("needs") || err.contains("valid"), "{err}");
        // A header longer than the file (found by the npy fuzz target: 2.2 GB declared in
        // 121 bytes) is refused before npyz allocates it.
        let mut long = b"\x93NUMPY\x03\x00\x2e\x76\x00\x85".to_vec();
        long.extend_from_slice(b"{'descr': '<f4'}");
        let err = read_npy(&long).unwrap_err();
        assert!(
            err.contains("its header is 2231399982 bytes but the file has 28"),
            "{err}"
        );
        // Brackets after an escaped quote are outside no string (found by the npy fuzz
        // target: npyz took minutes on the nesting the escape hid).
        let mut hidden = b"\x93NUMPY\x01\x00\x00\x00{'a\\'b': ".to_vec();
        hidden.extend_from_slice(&[b'('; 30]);
        let n = (hidden.len() - 10) as u16;
        hidden[8..10].copy_from_slice(&n.to_le_bytes());
        let err = read_npy(&hidden).unwrap_err();
        assert!(err.contains("not the dictionary"), "{err}");
        // Nor inside what looks like a string: a `\\N{...}` escape runs to its `}` (found by
        // the npy fuzz target).
        let mut named = b"\x93NUMPY\x01\x00\x00\x00{'a\\N{x'b}c': ".to_vec();
        named.extend_from_slice(&[b'{'; 30]);
        let n = (named.len() - 10) as u16;
        named[8..10].copy_from_slice(&n.to_le_bytes());
        let err = read_npy(&named).unwrap_err();
        assert!(err.contains("not the dictionary"), "{err}");
    }
}
