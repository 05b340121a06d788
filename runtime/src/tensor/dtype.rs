//! Tensor element types: the ten dtypes Ember computes with, their sizes, names and the
//! mapping to PyTorch's `ScalarType`.

use std::fmt;

use ember_dialects::types::ScalarType;
use half::{bf16, f16};

/// The element type of a tensor.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    Bool,
    U8,
    I8,
    I16,
    I32,
    I64,
    F16,
    BF16,
    F32,
    F64,
}

/// The kinds PyTorch's type promotion orders dtypes by.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Category {
    Bool,
    Integral,
    Floating,
}

impl DType {
    pub const ALL: [DType; 10] = [
        DType::Bool,
        DType::U8,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
    ];

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            DType::Bool | DType::U8 | DType::I8 => 1,
            DType::I16 | DType::F16 | DType::BF16 => 2,
            DType::I32 | DType::F32 => 4,
            DType::I64 | DType::F64 => 8,
        }
    }

    pub fn category(self) -> Category {
        match self {
            DType::Bool => Category::Bool,
            DType::U8 | DType::I8 | DType::I16 | DType::I32 | DType::I64 => Category::Integral,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 => Category::Floating,
        }
    }

    pub fn is_floating(self) -> bool {
        self.category() == Category::Floating
    }

    pub fn is_integral(self) -> bool {
        self.category() == Category::Integral
    }

    /// PyTorch's name for it, as `torch.float32` prints without the prefix.
    pub fn name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "uint8",
            DType::I8 => "int8",
            DType::I16 => "int16",
            DType::I32 => "int32",
            DType::I64 => "int64",
            DType::F16 => "float16",
            DType::BF16 => "bfloat16",
            DType::F32 => "float32",
            DType::F64 => "float64",
        }
    }

    /// The legacy tensor type name PyTorch's messages use (`torch.FloatTensor`).
    pub fn legacy_tensor_name(self) -> &'static str {
        match self {
            DType::Bool => "torch.BoolTensor",
            DType::U8 => "torch.ByteTensor",
            DType::I8 => "torch.CharTensor",
            DType::I16 => "torch.ShortTensor",
            DType::I32 => "torch.IntTensor",
            DType::I64 => "torch.LongTensor",
            DType::F16 => "torch.HalfTensor",
            DType::BF16 => "torch.BFloat16Tensor",
            DType::F32 => "torch.FloatTensor",
            DType::F64 => "torch.DoubleTensor",
        }
    }

    /// PyTorch's `ScalarType` name of the dtype, as its messages print it (`Float`, `Long`).
    pub fn scalar_type_name(self) -> &'static str {
        match self {
            DType::Bool => "Bool",
            DType::U8 => "Byte",
            DType::I8 => "Char",
            DType::I16 => "Short",
            DType::I32 => "Int",
            DType::I64 => "Long",
            DType::F16 => "Half",
            DType::BF16 => "BFloat16",
            DType::F32 => "Float",
            DType::F64 => "Double",
        }
    }

    /// The C++ type name of the dtype, as PyTorch's messages print it (`float`, `long int`).
    pub fn cpp_type_name(self) -> &'static str {
        match self {
            DType::Bool => "bool",
            DType::U8 => "unsigned char",
            DType::I8 => "signed char",
            DType::I16 => "short int",
            DType::I32 => "int",
            DType::I64 => "long int",
            DType::F16 => "c10::Half",
            DType::BF16 => "c10::BFloat16",
            DType::F32 => "float",
            DType::F64 => "double",
        }
    }

    /// The dtype named like numpy's `dtype.name` / PyTorch's short names.
    pub fn from_name(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    pub fn scalar_type(self) -> ScalarType {
        match self {
            DType::Bool => ScalarType::Bool,
            DType::U8 => ScalarType::Byte,
            DType::I8 => ScalarType::Char,
            DType::I16 => ScalarType::Short,
            DType::I32 => ScalarType::Int,
            DType::I64 => ScalarType::Long,
            DType::F16 => ScalarType::Half,
            DType::BF16 => ScalarType::BFloat16,
            DType::F32 => ScalarType::Float,
            DType::F64 => ScalarType::Double,
        }
    }

    /// The dtype of a `ScalarType`, if Ember computes with it.
    pub fn from_scalar_type(s: ScalarType) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.scalar_type() == s)
    }

    /// The integer code PyTorch uses for this dtype in `ScalarType` arguments (`dtype=6`).
    pub fn code(self) -> i64 {
        match self {
            DType::U8 => 0,
            DType::I8 => 1,
            DType::I16 => 2,
            DType::I32 => 3,
            DType::I64 => 4,
            DType::F16 => 5,
            DType::F32 => 6,
            DType::F64 => 7,
            DType::Bool => 11,
            DType::BF16 => 15,
        }
    }

    pub fn from_code(code: i64) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.code() == code)
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "torch.{}", self.name())
    }
}

/// A Rust type that is the element of some dtype. Conversions go through f64/i64 the way
/// PyTorch's `static_cast` chains do: floats to ints truncate toward zero, to bool test != 0.
pub trait Element: Copy + Send + Sync + 'static + PartialEq + fmt::Debug {
    const DTYPE: DType;
    fn to_f64(self) -> f64;
    fn to_i64(self) -> i64;
    fn from_f64(v: f64) -> Self;
    fn from_i64(v: i64) -> Self;
    fn from_bool(v: bool) -> Self {
        Self::from_i64(v as i64)
    }
    fn is_nonzero(self) -> bool;
}

macro_rules! int_element {
    ($t:ty, $d:expr) => {
        impl Element for $t {
            const DTYPE: DType = $d;
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn to_i64(self) -> i64 {
                self as i64
            }
            fn from_f64(v: f64) -> Self {
                // C++ float-to-int conversion is undefined out of range; PyTorch on x86 goes
                // through int64 first, which wraps into the narrow type.
                (v as i64) as $t
            }
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            fn is_nonzero(self) -> bool {
                self != 0
            }
        }
    };
}

int_element!(u8, DType::U8);
int_element!(i8, DType::I8);
int_element!(i16, DType::I16);
int_element!(i32, DType::I32);
int_element!(i64, DType::I64);

impl Element for bool {
    const DTYPE: DType = DType::Bool;
    fn to_f64(self) -> f64 {
        self as u8 as f64
    }
    fn to_i64(self) -> i64 {
        self as i64
    }
    fn from_f64(v: f64) -> Self {
        v != 0.0
    }
    fn from_i64(v: i64) -> Self {
        v != 0
    }
    fn is_nonzero(self) -> bool {
        self
    }
}

macro_rules! float_element {
    ($t:ty, $d:expr, $from:expr, $to:expr) => {
        impl Element for $t {
            const DTYPE: DType = $d;
            fn to_f64(self) -> f64 {
                $to(self)
            }
            fn to_i64(self) -> i64 {
                $to(self) as i64
            }
            fn from_f64(v: f64) -> Self {
                $from(v)
            }
            fn from_i64(v: i64) -> Self {
                $from(v as f64)
            }
            fn is_nonzero(self) -> bool {
                $to(self) != 0.0
            }
        }
    };
}

float_element!(f32, DType::F32, |v: f64| v as f32, |x: f32| x as f64);
float_element!(f64, DType::F64, |v: f64| v, |x: f64| x);
float_element!(f16, DType::F16, f16::from_f64, f16::to_f64);
float_element!(bf16, DType::BF16, bf16::from_f64, bf16::to_f64);

/// Calls `$body` with the type alias `$T` bound to the Rust element type of `$dtype`.
#[macro_export]
macro_rules! dispatch_dtype {
    ($dtype:expr, $T:ident => $body:expr) => {
        match $dtype {
            $crate::tensor::DType::Bool => {
                type $T = bool;
                $body
            }
            $crate::tensor::DType::U8 => {
                type $T = u8;
                $body
            }
            $crate::tensor::DType::I8 => {
                type $T = i8;
                $body
            }
            $crate::tensor::DType::I16 => {
                type $T = i16;
                $body
            }
            $crate::tensor::DType::I32 => {
                type $T = i32;
                $body
            }
            $crate::tensor::DType::I64 => {
                type $T = i64;
                $body
            }
            $crate::tensor::DType::F16 => {
                type $T = half::f16;
                $body
            }
            $crate::tensor::DType::BF16 => {
                type $T = half::bf16;
                $body
            }
            $crate::tensor::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::tensor::DType::F64 => {
                type $T = f64;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_round_trip() {
        for d in DType::ALL {
            assert_eq!(DType::from_code(d.code()), Some(d));
            assert_eq!(DType::from_name(d.name()), Some(d));
            assert_eq!(DType::from_scalar_type(d.scalar_type()), Some(d));
        }
        assert_eq!(DType::F32.to_string(), "torch.float32");
    }

    #[test]
    fn conversions_follow_cpp_casts() {
        assert_eq!(i64::from_f64(-2.7), -2);
        assert_eq!(u8::from_f64(257.0), 1);
        assert_eq!(u8::from_i64(-1), 255);
        assert!(bool::from_f64(0.1));
        assert_eq!(f16::from_f64(1.0).to_f64(), 1.0);
        assert_eq!(bf16::from_f64(3.0).to_i64(), 3);
    }
}
