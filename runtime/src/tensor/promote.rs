//! PyTorch's type promotion: the dtype lattice (`promoteTypes`) and `result_type` over
//! tensors, 0-dim tensors and Python scalars, which rank below dimensioned tensors of the
//! same category.

use super::dtype::{Category, DType};

/// PyTorch's `promoteTypes` for the dtypes Ember has.
pub fn promote_types(a: DType, b: DType) -> DType {
    use DType::*;
    if a == b {
        return a;
    }
    match (a.category(), b.category()) {
        (Category::Bool, _) => b,
        (_, Category::Bool) => a,
        (Category::Integral, Category::Floating) => b,
        (Category::Floating, Category::Integral) => a,
        (Category::Integral, Category::Integral) => match (a, b) {
            (U8, I8) | (I8, U8) => I16,
            (U8, x) | (x, U8) => x,
            _ => {
                if a.size() >= b.size() {
                    a
                } else {
                    b
                }
            }
        },
        (Category::Floating, Category::Floating) => match (a, b) {
            (F16, BF16) | (BF16, F16) => F32,
            _ => {
                if a.size() >= b.size() {
                    a
                } else {
                    b
                }
            }
        },
    }
}

/// One operand of an op, as type promotion sees it.
#[derive(Copy, Clone, Debug)]
pub enum Operand {
    /// A tensor with at least one dimension.
    Tensor(DType),
    /// A 0-dim tensor.
    ZeroDim(DType),
    /// A Python scalar (`int`, `float`, `bool`), wrapped into a tensor by PyTorch.
    Scalar(ScalarKind),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ScalarKind {
    Bool,
    Int,
    Float,
}

/// The dtype PyTorch's `result_type` gives for these operands; `default_float` is
/// `torch.get_default_dtype()` (float32 unless changed).
pub fn result_type(operands: &[Operand], default_float: DType) -> DType {
    let mut dim: Option<DType> = None;
    let mut zero: Option<DType> = None;
    let mut wrapped: Option<DType> = None;
    let join = |slot: &mut Option<DType>, d: DType| {
        *slot = Some(slot.map_or(d, |s| promote_types(s, d)));
    };
    for op in operands {
        match *op {
            Operand::Tensor(d) => join(&mut dim, d),
            Operand::ZeroDim(d) => join(&mut zero, d),
            Operand::Scalar(kind) => join(
                &mut wrapped,
                match kind {
                    ScalarKind::Bool => DType::Bool,
                    ScalarKind::Int => DType::I64,
                    ScalarKind::Float => default_float,
                },
            ),
        }
    }
    combine(dim, combine(zero, wrapped)).unwrap_or(default_float)
}

/// PyTorch's `combine_categories`: a lower-priority group only matters when it brings a
/// higher category (bool < integral < floating).
fn combine(higher: Option<DType>, lower: Option<DType>) -> Option<DType> {
    match (higher, lower) {
        (None, l) => l,
        (h, None) => h,
        (Some(h), Some(l)) => {
            if h.is_floating() {
                Some(h)
            } else if h == DType::Bool || l.is_floating() {
                Some(promote_types(h, l))
            } else {
                Some(h)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DType::*;

    #[test]
    fn lattice() {
        assert_eq!(promote_types(U8, I8), I16);
        assert_eq!(promote_types(U8, I64), I64);
        assert_eq!(promote_types(Bool, U8), U8);
        assert_eq!(promote_types(F16, BF16), F32);
        assert_eq!(promote_types(I64, F16), F16);
        assert_eq!(promote_types(F32, F64), F64);
        assert_eq!(promote_types(I32, I16), I32);
    }

    #[test]
    fn result_types_match_pytorch() {
        let f = F32;
        // torch.ones(2, dtype=int32) + 2.5 -> float32
        assert_eq!(
            result_type(
                &[Operand::Tensor(I32), Operand::Scalar(ScalarKind::Float)],
                f
            ),
            F32
        );
        // int32 tensor + int -> int32
        assert_eq!(
            result_type(&[Operand::Tensor(I32), Operand::Scalar(ScalarKind::Int)], f),
            I32
        );
        // uint8 tensor + 0-dim int64 tensor -> uint8
        assert_eq!(
            result_type(&[Operand::Tensor(U8), Operand::ZeroDim(I64)], f),
            U8
        );
        // int tensor + 0-dim float64 tensor -> float64? No: default category rule gives the
        // 0-dim dtype when it brings a higher category: float64.
        assert_eq!(
            result_type(&[Operand::Tensor(I32), Operand::ZeroDim(F64)], f),
            F64
        );
        // float16 tensor + 0-dim float64 -> float16
        assert_eq!(
            result_type(&[Operand::Tensor(F16), Operand::ZeroDim(F64)], f),
            F16
        );
        // bool tensor + int -> int64
        assert_eq!(
            result_type(
                &[Operand::Tensor(Bool), Operand::Scalar(ScalarKind::Int)],
                f
            ),
            I64
        );
        // two 0-dim tensors promote normally
        assert_eq!(
            result_type(&[Operand::ZeroDim(I32), Operand::ZeroDim(I64)], f),
            I64
        );
        // 0-dim int tensor + float scalar -> default float
        assert_eq!(
            result_type(
                &[Operand::ZeroDim(I64), Operand::Scalar(ScalarKind::Float)],
                f
            ),
            F32
        );
    }
}
