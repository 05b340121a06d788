//! The scalar operators the interpreter runs as instructions of their own (no boxed closure,
//! no operand stack): int, float and bool arithmetic, comparisons and conversions.
//!
//! Each operator has one meaning, [`BinOp::apply`] / [`UnOp::apply`] on any values, which is
//! exactly what the registry's operation for the same node computes (they share the functions
//! of int_float.rs). [`BinOp::ints`] and [`BinOp::floats`] are fast paths for the common operand
//! tags; they give `None` where the general form must decide (errors such as division by zero,
//! operands they do not handle), so messages are written once.

use ember_dialects::Symbol;

use super::int_float::{self as f, float_to_int};
use crate::ivalue::IValue;

/// The result of a fast path: a plain value, kept in machine registers until it is stored.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scalar {
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl Scalar {
    #[inline(always)]
    pub fn to_ivalue(self) -> IValue {
        match self {
            Scalar::Int(i) => IValue::Int(i),
            Scalar::Float(f) => IValue::Double(f),
            Scalar::Bool(b) => IValue::Bool(b),
        }
    }

    /// Stores the value into `slot`; a slot that already holds a plain value is overwritten
    /// in place, without running a destructor.
    #[inline(always)]
    pub fn store(self, slot: &mut IValue) {
        match (self, &mut *slot) {
            (Scalar::Int(v), IValue::Int(x)) => *x = v,
            (Scalar::Float(v), IValue::Double(x)) => *x = v,
            (Scalar::Bool(v), IValue::Bool(x)) => *x = v,
            (
                v,
                IValue::None
                | IValue::Int(_)
                | IValue::Double(_)
                | IValue::Bool(_)
                | IValue::Uninitialized,
            ) => {
                // Nothing to free: skip the destructor of the old value.
                std::mem::forget(std::mem::replace(slot, v.to_ivalue()))
            }
            (v, _) => *slot = v.to_ivalue(),
        }
    }
}

/// A binary scalar operator.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    /// `/`: always a float.
    Div,
    FloorDiv,
    /// `%` (`aten::remainder`, `aten::__mod__`): the sign of the divisor.
    Rem,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    /// `prim::min(a, b)` / `prim::max(a, b)` on two numbers.
    Min,
    Max,
}

/// A unary scalar operator.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    Neg,
    Not,
    /// `aten::Int` (`int(x)`) of a number.
    ToInt,
    /// `aten::Float` (`float(x)`) of a number.
    ToFloat,
    /// `aten::Bool` (`bool(x)`, an `if` on a number) of a number.
    ToBool,
}

impl BinOp {
    /// The operator of node kind `kind` (`aten::add`), whatever its operand types.
    pub fn of_kind(kind: Symbol) -> Option<BinOp> {
        Some(match kind.as_str() {
            "aten::add" => BinOp::Add,
            "aten::sub" => BinOp::Sub,
            "aten::mul" => BinOp::Mul,
            "aten::div" => BinOp::Div,
            "aten::floordiv" => BinOp::FloorDiv,
            "aten::remainder" | "aten::__mod__" => BinOp::Rem,
            "aten::lt" => BinOp::Lt,
            "aten::le" => BinOp::Le,
            "aten::gt" => BinOp::Gt,
            "aten::ge" => BinOp::Ge,
            "aten::eq" => BinOp::Eq,
            "aten::ne" => BinOp::Ne,
            "aten::__and__" => BinOp::And,
            "aten::__or__" => BinOp::Or,
            "aten::__xor__" => BinOp::Xor,
            "aten::__lshift__" => BinOp::Shl,
            "aten::__rshift__" => BinOp::Shr,
            "prim::min" => BinOp::Min,
            "prim::max" => BinOp::Max,
            _ => return None,
        })
    }

    /// Whether the operator is defined on two bools (`&`, `|`, `^`, `==`, `!=` and the
    /// orderings, which compare them as ints).
    pub fn takes_bools(self) -> bool {
        !matches!(
            self,
            BinOp::Add
                | BinOp::Sub
                | BinOp::Mul
                | BinOp::Div
                | BinOp::FloorDiv
                | BinOp::Rem
                | BinOp::Shl
                | BinOp::Shr
                | BinOp::Min
                | BinOp::Max
        )
    }

    /// Whether the operator is defined on floats (the bitwise ones are not).
    pub fn takes_floats(self) -> bool {
        !matches!(
            self,
            BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::Shr
        )
    }

    /// The operator on any two values, with the registry's semantics and messages.
    pub fn apply(self, a: &IValue, b: &IValue) -> Result<IValue, String> {
        match self {
            BinOp::Add => f::add(a, b),
            BinOp::Sub => f::sub(a, b),
            BinOp::Mul => f::mul(a, b),
            BinOp::Div => f::true_div(a, b),
            BinOp::FloorDiv => f::floordiv(a, b),
            BinOp::Rem => f::remainder(a, b),
            BinOp::Lt => f::compare(|o| o.is_lt())(a, b),
            BinOp::Le => f::compare(|o| o.is_le())(a, b),
            BinOp::Gt => f::compare(|o| o.is_gt())(a, b),
            BinOp::Ge => f::compare(|o| o.is_ge())(a, b),
            BinOp::Eq => f::equal(false)(a, b),
            BinOp::Ne => f::equal(true)(a, b),
            BinOp::And => f::bool_op(|a, b| a & b, |a, b| a & b)(a, b),
            BinOp::Or => f::bool_op(|a, b| a | b, |a, b| a | b)(a, b),
            BinOp::Xor => f::bool_op(|a, b| a ^ b, |a, b| a ^ b)(a, b),
            BinOp::Shl => f::shift(true)(a, b),
            BinOp::Shr => f::shift(false)(a, b),
            BinOp::Min => f::min_max(std::cmp::Ordering::Less)(a, b),
            BinOp::Max => f::min_max(std::cmp::Ordering::Greater)(a, b),
        }
    }

    /// The operator on two ints; `None` where [`BinOp::apply`] raises (division by zero).
    #[inline(always)]
    pub fn ints(self, x: i64, y: i64) -> Option<Scalar> {
        Some(match self {
            BinOp::Add => Scalar::Int(x.wrapping_add(y)),
            BinOp::Sub => Scalar::Int(x.wrapping_sub(y)),
            BinOp::Mul => Scalar::Int(x.wrapping_mul(y)),
            BinOp::Div => Scalar::Float(x as f64 / y as f64),
            BinOp::FloorDiv => {
                if y == 0 {
                    return None;
                }
                Scalar::Int(
                    x.wrapping_div(y) - ((x.wrapping_rem(y) != 0 && ((x < 0) != (y < 0))) as i64),
                )
            }
            BinOp::Rem => {
                if y == 0 {
                    return None;
                }
                let r = x.wrapping_rem(y);
                Scalar::Int(if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                })
            }
            BinOp::Lt => Scalar::Bool(x < y),
            BinOp::Le => Scalar::Bool(x <= y),
            BinOp::Gt => Scalar::Bool(x > y),
            BinOp::Ge => Scalar::Bool(x >= y),
            BinOp::Eq => Scalar::Bool(x == y),
            BinOp::Ne => Scalar::Bool(x != y),
            BinOp::And => Scalar::Int(x & y),
            BinOp::Or => Scalar::Int(x | y),
            BinOp::Xor => Scalar::Int(x ^ y),
            BinOp::Shl => Scalar::Int(x.wrapping_shl(y as u32)),
            BinOp::Shr => Scalar::Int(x.wrapping_shr(y as u32)),
            BinOp::Min => Scalar::Int(x.min(y)),
            BinOp::Max => Scalar::Int(x.max(y)),
        })
    }

    /// The operator on two floats (an int operand converted); `None` for the operators that
    /// take no floats.
    #[inline(always)]
    pub fn floats(self, x: f64, y: f64) -> Option<Scalar> {
        Some(match self {
            BinOp::Add => Scalar::Float(x + y),
            BinOp::Sub => Scalar::Float(x - y),
            BinOp::Mul => Scalar::Float(x * y),
            BinOp::Div => Scalar::Float(x / y),
            BinOp::FloorDiv => Scalar::Float(f::float_floordiv(x, y)),
            BinOp::Rem => Scalar::Float(f::float_remainder(x, y)),
            // NaN compares false every way, and unequal.
            BinOp::Lt => Scalar::Bool(x < y),
            BinOp::Le => Scalar::Bool(x <= y),
            BinOp::Gt => Scalar::Bool(x > y),
            BinOp::Ge => Scalar::Bool(x >= y),
            BinOp::Eq => Scalar::Bool(x == y),
            BinOp::Ne => Scalar::Bool(x != y),
            // PyTorch's `a < b ? a : b` and `a > b ? a : b`: a NaN operand gives `b`.
            BinOp::Min => Scalar::Float(if x < y { x } else { y }),
            BinOp::Max => Scalar::Float(if x > y { x } else { y }),
            BinOp::And | BinOp::Or | BinOp::Xor | BinOp::Shl | BinOp::Shr => return None,
        })
    }

    /// The operator on two bools, for the operators that keep them bools.
    #[inline(always)]
    pub fn bools(self, x: bool, y: bool) -> Option<Scalar> {
        Some(Scalar::Bool(match self {
            BinOp::And => x & y,
            BinOp::Or => x | y,
            BinOp::Xor => x ^ y,
            BinOp::Eq => x == y,
            BinOp::Ne => x != y,
            _ => return None,
        }))
    }

    /// The fast path for two values: ints, floats (or one of each) and bools; `None` where
    /// the general form must decide.
    #[inline(always)]
    pub fn fast(self, a: &IValue, b: &IValue) -> Option<Scalar> {
        match (a, b) {
            (IValue::Int(x), IValue::Int(y)) => self.ints(*x, *y),
            (IValue::Double(x), IValue::Double(y)) => self.floats(*x, *y),
            (IValue::Int(x), IValue::Double(y)) => self.floats(*x as f64, *y),
            (IValue::Double(x), IValue::Int(y)) => self.floats(*x, *y as f64),
            (IValue::Bool(x), IValue::Bool(y)) => self.bools(*x, *y),
            _ => None,
        }
    }

    /// The operator on two values: the fast paths, else the general form.
    #[inline(always)]
    pub fn eval(self, a: &IValue, b: &IValue) -> Result<IValue, String> {
        match self.fast(a, b) {
            Some(v) => Ok(v.to_ivalue()),
            None => self.apply(a, b),
        }
    }
}

impl UnOp {
    /// The operator of node kind `kind`.
    pub fn of_kind(kind: Symbol) -> Option<UnOp> {
        Some(match kind.as_str() {
            "aten::neg" => UnOp::Neg,
            "aten::__not__" => UnOp::Not,
            "aten::Int" => UnOp::ToInt,
            "aten::Float" => UnOp::ToFloat,
            "aten::Bool" => UnOp::ToBool,
            _ => return None,
        })
    }

    /// The operator on any value, with the registry's semantics and messages.
    pub fn apply(self, a: &IValue) -> Result<IValue, String> {
        match self {
            UnOp::Neg => f::neg(a),
            UnOp::Not => f::not(a),
            UnOp::ToInt => f::to_int(a),
            UnOp::ToFloat => f::to_float(a),
            UnOp::ToBool => f::to_bool(a),
        }
    }

    /// The fast path for ints, floats and bools; `None` where the general form must decide.
    #[inline(always)]
    pub fn fast(self, a: &IValue) -> Option<Scalar> {
        match (self, a) {
            (UnOp::Neg, IValue::Int(x)) => Some(Scalar::Int(x.wrapping_neg())),
            (UnOp::Neg, IValue::Double(x)) => Some(Scalar::Float(-x)),
            (UnOp::Not, IValue::Bool(x)) => Some(Scalar::Bool(!x)),
            (UnOp::ToInt, IValue::Int(x)) => Some(Scalar::Int(*x)),
            (UnOp::ToInt, IValue::Double(x)) => Some(Scalar::Int(float_to_int(*x))),
            (UnOp::ToFloat, IValue::Int(x)) => Some(Scalar::Float(*x as f64)),
            (UnOp::ToFloat, IValue::Double(x)) => Some(Scalar::Float(*x)),
            (UnOp::ToBool, IValue::Int(x)) => Some(Scalar::Bool(*x != 0)),
            (UnOp::ToBool, IValue::Double(x)) => Some(Scalar::Bool(*x != 0.0)),
            (UnOp::ToBool, IValue::Bool(x)) => Some(Scalar::Bool(*x)),
            _ => None,
        }
    }

    /// The operator on a value: the fast path, else the general form.
    #[inline(always)]
    pub fn eval(self, a: &IValue) -> Result<IValue, String> {
        match self.fast(a) {
            Some(v) => Ok(v.to_ivalue()),
            None => self.apply(a),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIN_OPS: [BinOp; 19] = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::FloorDiv,
        BinOp::Rem,
        BinOp::Lt,
        BinOp::Le,
        BinOp::Gt,
        BinOp::Ge,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::And,
        BinOp::Or,
        BinOp::Xor,
        BinOp::Shl,
        BinOp::Shr,
        BinOp::Min,
        BinOp::Max,
    ];

    fn same(a: &Result<IValue, String>, b: &Result<IValue, String>) -> bool {
        match (a, b) {
            (Ok(IValue::Double(x)), Ok(IValue::Double(y))) => x.to_bits() == y.to_bits(),
            (Ok(x), Ok(y)) => {
                x.kind_name() == y.kind_name() && crate::repr::repr(x) == crate::repr::repr(y)
            }
            (Err(x), Err(y)) => x == y,
            _ => false,
        }
    }

    /// The fast paths compute what the general form computes, bit for bit, on edge values
    /// of every operand kind they take.
    #[test]
    fn fast_paths_agree_with_the_general_form() {
        let ints = [
            i64::MIN,
            i64::MIN + 1,
            -7,
            -2,
            -1,
            0,
            1,
            2,
            3,
            7,
            63,
            64,
            i64::MAX,
        ];
        let floats = [
            f64::NEG_INFINITY,
            -7.5,
            -1.0,
            -0.0,
            0.0,
            0.1,
            2.0,
            f64::INFINITY,
            f64::NAN,
        ];
        let mut values: Vec<IValue> = ints.iter().map(|&i| IValue::Int(i)).collect();
        values.extend(floats.iter().map(|&f| IValue::Double(f)));
        values.extend([IValue::Bool(false), IValue::Bool(true)]);
        let mut checked = 0;
        for op in BIN_OPS {
            for a in &values {
                for b in &values {
                    let fast = op.eval(a, b);
                    let general = op.apply(a, b);
                    assert!(
                        same(&fast, &general),
                        "{op:?}({}, {}): fast {:?} general {:?}",
                        crate::repr::repr(a),
                        crate::repr::repr(b),
                        fast.as_ref().map(crate::repr::repr),
                        general.as_ref().map(crate::repr::repr)
                    );
                    checked += 1;
                }
            }
        }
        for op in [
            UnOp::Neg,
            UnOp::Not,
            UnOp::ToInt,
            UnOp::ToFloat,
            UnOp::ToBool,
        ] {
            for a in &values {
                assert!(same(&op.eval(a), &op.apply(a)), "{op:?}");
            }
        }
        assert_eq!(checked, BIN_OPS.len() * values.len() * values.len());
    }

    #[test]
    fn ints_wrap_and_division_by_zero_raises_pytorchs_message() {
        let i = IValue::Int;
        assert_eq!(
            BinOp::Add.eval(&i(i64::MAX), &i(1)).unwrap().as_int(),
            Some(i64::MIN)
        );
        assert_eq!(
            BinOp::Mul.eval(&i(1 << 62), &i(4)).unwrap().as_int(),
            Some(0)
        );
        assert_eq!(
            BinOp::Sub.eval(&i(i64::MIN), &i(1)).unwrap().as_int(),
            Some(i64::MAX)
        );
        assert_eq!(
            UnOp::Neg.eval(&i(i64::MIN)).unwrap().as_int(),
            Some(i64::MIN)
        );
        assert_eq!(
            BinOp::FloorDiv.eval(&i(1), &i(0)).unwrap_err(),
            "division by 0"
        );
        assert_eq!(
            BinOp::Rem.eval(&i(1), &i(0)).unwrap_err(),
            "ZeroDivisionError: integer division or modulo by zero"
        );
        assert_eq!(
            BinOp::FloorDiv.eval(&i(i64::MIN), &i(-1)).unwrap().as_int(),
            Some(i64::MIN)
        );
        assert_eq!(
            BinOp::Rem.eval(&i(i64::MIN), &i(-1)).unwrap().as_int(),
            Some(0)
        );
    }
}
