//! Node attributes, as PyTorch's `Node` stores them: int, float, complex, string, tensor, graph,
//! type, lists of each, and IValue constants (lists, tuples, devices, …) for `prim::Constant`.

use std::sync::Arc;

use crate::ir::Graph;
use crate::types::{ScalarType, Type};

/// A tensor held in an attribute (a constant). `data` is the raw little-endian contents, row
/// major; graph text that prints only `<Tensor>` leaves it unknown.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorLiteral {
    pub dtype: ScalarType,
    pub sizes: Vec<i64>,
    pub data: Option<Arc<[u8]>>,
    /// The exact text PyTorch printed for this tensor, kept so that forms the parser cannot
    /// rebuild into data still print back byte for byte.
    pub printed: Option<String>,
    /// The runtime's tensor, when the constant was made from one (a frozen module's weight):
    /// running the graph uses it without a copy. Opaque to the IR.
    pub handle: Option<Handle>,
}

/// A runtime object held by a constant, opaque to the IR; equal only to itself.
#[derive(Clone)]
pub struct Handle(pub Arc<dyn std::any::Any + Send + Sync>);

impl PartialEq for Handle {
    fn eq(&self, other: &Handle) -> bool {
        std::ptr::addr_eq(Arc::as_ptr(&self.0), Arc::as_ptr(&other.0))
    }
}

impl std::fmt::Debug for Handle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Handle")
    }
}

/// An IValue constant, as `prim::Constant[value=...]` holds for non-scalar values.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Complex(f64, f64),
    Str(String),
    Device(String),
    Tensor(TensorLiteral),
    List(Vec<ConstValue>),
    Tuple(Vec<ConstValue>),
    /// Anything else PyTorch can print in a constant, kept as its printed text.
    Opaque(String),
}

/// The value of one node attribute.
#[derive(Clone, Debug, PartialEq)]
pub enum AttrValue {
    Int(i64),
    Float(f64),
    Complex(f64, f64),
    Str(String),
    Tensor(TensorLiteral),
    Graph(Box<Graph>),
    Type(Type),
    Ints(Vec<i64>),
    Floats(Vec<f64>),
    Strs(Vec<String>),
    Tensors(Vec<TensorLiteral>),
    Graphs(Vec<Graph>),
    Types(Vec<Type>),
    IValue(ConstValue),
}

/// One element of a tensor literal, widened the way PyTorch's `item()` widens it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scalar {
    Int(i64),
    Float(f64),
    Complex(f64, f64),
}

impl TensorLiteral {
    /// Number of elements, `None` on a negative size or overflow.
    pub fn numel(&self) -> Option<usize> {
        self.sizes
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?))
    }

    /// Decodes `data` (little endian, row major) into scalars; `None` when there is no data,
    /// the dtype is not a plain numeric one, or the byte count does not match the sizes.
    pub fn scalar_values(&self) -> Option<Vec<Scalar>> {
        let data = self.data.as_ref()?;
        let width = element_width(self.dtype)?;
        if data.len() != self.numel()?.checked_mul(width)? {
            return None;
        }
        Some(
            data.chunks_exact(width)
                .map(|b| decode(self.dtype, b))
                .collect(),
        )
    }

    /// A literal holding `values` (converted to `dtype`), or `None` for a dtype that has no
    /// plain encoding here or a count that does not match `sizes`.
    pub fn from_values(dtype: ScalarType, sizes: Vec<i64>, values: &[Scalar]) -> Option<Self> {
        element_width(dtype)?;
        let lit = TensorLiteral {
            dtype,
            sizes,
            data: None,
            printed: None,
            handle: None,
        };
        if lit.numel()? != values.len() {
            return None;
        }
        let mut bytes = Vec::new();
        for &v in values {
            encode(dtype, v, &mut bytes);
        }
        Some(TensorLiteral {
            data: Some(bytes.into()),
            ..lit
        })
    }
}

fn element_width(dtype: ScalarType) -> Option<usize> {
    use ScalarType::*;
    Some(match dtype {
        Bool | Byte | Char => 1,
        Short | Half | BFloat16 => 2,
        Int | Float => 4,
        Long | Double | ComplexFloat => 8,
        ComplexDouble => 16,
        _ => return None,
    })
}

fn decode(dtype: ScalarType, b: &[u8]) -> Scalar {
    use ScalarType::*;
    let f32_at = |i: usize| f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]) as f64;
    let f64_at = |i: usize| {
        let mut a = [0u8; 8];
        a.copy_from_slice(&b[i..i + 8]);
        f64::from_le_bytes(a)
    };
    match dtype {
        Bool => Scalar::Int((b[0] != 0) as i64),
        Byte => Scalar::Int(b[0] as i64),
        Char => Scalar::Int(b[0] as i8 as i64),
        Short => Scalar::Int(i16::from_le_bytes([b[0], b[1]]) as i64),
        Int => Scalar::Int(i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as i64),
        Long => Scalar::Int(i64::from_le_bytes([
            b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
        ])),
        Half => Scalar::Float(half_to_f64(u16::from_le_bytes([b[0], b[1]]))),
        BFloat16 => {
            Scalar::Float(f32::from_bits((u16::from_le_bytes([b[0], b[1]]) as u32) << 16) as f64)
        }
        Float => Scalar::Float(f32_at(0)),
        Double => Scalar::Float(f64_at(0)),
        ComplexFloat => Scalar::Complex(f32_at(0), f32_at(4)),
        _ => Scalar::Complex(f64_at(0), f64_at(8)),
    }
}

fn encode(dtype: ScalarType, v: Scalar, out: &mut Vec<u8>) {
    use ScalarType::*;
    let (re, im) = match v {
        Scalar::Int(i) => (i as f64, 0.0),
        Scalar::Float(x) => (x, 0.0),
        Scalar::Complex(r, i) => (r, i),
    };
    let int = match v {
        Scalar::Int(i) => i,
        _ => re as i64,
    };
    match dtype {
        Bool => out.push((re != 0.0 || im != 0.0) as u8),
        Byte => out.push(int as u8),
        Char => out.push(int as i8 as u8),
        Short => out.extend((int as i16).to_le_bytes()),
        Int => out.extend((int as i32).to_le_bytes()),
        Long => out.extend(int.to_le_bytes()),
        Half => out.extend(f32_to_half(re as f32).to_le_bytes()),
        BFloat16 => out.extend(f32_to_bf16(re as f32).to_le_bytes()),
        Float => out.extend((re as f32).to_le_bytes()),
        Double => out.extend(re.to_le_bytes()),
        ComplexFloat => {
            out.extend((re as f32).to_le_bytes());
            out.extend((im as f32).to_le_bytes());
        }
        _ => {
            out.extend(re.to_le_bytes());
            out.extend(im.to_le_bytes());
        }
    }
}

fn half_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let frac = (h & 0x3ff) as f64;
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// Round-to-nearest-even f32 to IEEE half.
fn f32_to_half(x: f32) -> u16 {
    let bits = x.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32;
    let mant = bits & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if mant != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 31 {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        let m = mant | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rounded = (m + half - 1 + ((m >> shift) & 1)) >> shift;
        return sign | rounded as u16;
    }
    let rounded = mant + 0xfff + ((mant >> 13) & 1);
    let (e, rounded) = if rounded & 0x80_0000 != 0 {
        (e + 1, 0)
    } else {
        (e, rounded)
    };
    if e >= 31 {
        return sign | 0x7c00;
    }
    sign | ((e as u16) << 10) | (rounded >> 13) as u16
}

fn f32_to_bf16(x: f32) -> u16 {
    let bits = x.to_bits();
    if x.is_nan() {
        return 0x7fc0;
    }
    ((bits + 0x7fff + ((bits >> 16) & 1)) >> 16) as u16
}
