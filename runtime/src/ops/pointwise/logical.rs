//! Logical ops (`logical_and/or/xor/not`, bool results) and bitwise ops (`bitwise_and/or/
//! xor`, the `&`, `|`, `^` operators and their in-place `&=` forms, shifts), integers and
//! bools only for the bitwise ones.

use ember_dialects::{Graph, Node};

use super::binary::operands;
use super::{base_name, build, common_dtype, run, Call, Support};
use crate::ops::registry::Registry;
use crate::ops::Operation;
use crate::tensor::elementwise::{Arg, Compute};
use crate::tensor::{DType, Tensor};

#[derive(Copy, Clone)]
enum Bit {
    And,
    Or,
    Xor,
    Shl,
    Shr,
}

const BITWISE: &[(&str, Bit)] = &[
    ("bitwise_and", Bit::And),
    ("__and__", Bit::And),
    ("__iand__", Bit::And),
    ("bitwise_or", Bit::Or),
    ("__or__", Bit::Or),
    ("__ior__", Bit::Or),
    ("bitwise_xor", Bit::Xor),
    ("__xor__", Bit::Xor),
    ("__ixor__", Bit::Xor),
    ("bitwise_left_shift", Bit::Shl),
    ("__lshift__", Bit::Shl),
    ("__ilshift__", Bit::Shl),
    ("bitwise_right_shift", Bit::Shr),
    ("__rshift__", Bit::Shr),
    ("__irshift__", Bit::Shr),
];

pub fn register(r: &mut Registry) {
    for (name, _) in BITWISE {
        super::add(r, name, !name.starts_with("__"), build_bitwise);
    }
    super::add(r, "logical_and", true, |g, n| {
        build(g, n, |c| logical(c, |p, q| p && q))
    });
    super::add(r, "logical_or", true, |g, n| {
        build(g, n, |c| logical(c, |p, q| p || q))
    });
    super::add(r, "logical_xor", true, |g, n| {
        build(g, n, |c| logical(c, |p, q| p != q))
    });
    super::add(r, "logical_not", true, |g, n| build(g, n, logical_not));
}

fn build_bitwise(g: &Graph, n: Node) -> Result<Operation, String> {
    let name = base_name(g, n);
    let &(_, bit) = BITWISE
        .iter()
        .find(|(k, _)| *k == name)
        .ok_or_else(|| format!("no bitwise op named {name}"))?;
    build(g, n, move |c| bitwise(c, bit))
}

/// The width in bits of an integral dtype.
fn bits(d: DType) -> i64 {
    d.size() as i64 * 8
}

fn bitwise(c: &Call, bit: Bit) -> Result<Tensor, String> {
    let (a, b) = operands(c)?;
    let common = common_dtype(&[a.clone(), b.clone()]);
    let args = [a, b];
    let width = bits(common);
    let unsigned = common == DType::U8;
    // Shapes and the destination are checked before the dtype is dispatched.
    let dst = super::prepare(c, &args, common)?;
    let f: &(dyn Fn(&[i64]) -> i64 + Sync) = match bit {
        Bit::And => {
            Support::Integral.check("bitwise_and_cpu", common)?;
            &|x| x[0] & x[1]
        }
        Bit::Or => {
            Support::Integral.check("bitwise_or_cpu", common)?;
            &|x| x[0] | x[1]
        }
        Bit::Xor => {
            Support::Integral.check("bitwise_xor_cpu", common)?;
            &|x| x[0] ^ x[1]
        }
        Bit::Shl => {
            Support::IntegerNoBool.check("lshift_cpu", common)?;
            // Shifts by a negative amount or the width or more give 0.
            &move |x| {
                if x[1] < 0 || x[1] >= width {
                    0
                } else {
                    ((x[0] as u64) << x[1]) as i64
                }
            }
        }
        Bit::Shr => {
            Support::IntegerNoBool.check("rshift_cpu", common)?;
            // Out-of-range shifts fill with the sign bit.
            &move |x| {
                if x[1] < 0 || x[1] >= width {
                    if unsigned {
                        0
                    } else {
                        x[0] >> (width - 1).min(63)
                    }
                } else {
                    x[0] >> x[1]
                }
            }
        }
    };
    super::run_into(&args, common, common, Compute::Int(f), dst.as_ref())
}

fn logical(c: &Call, f: fn(bool, bool) -> bool) -> Result<Tensor, String> {
    let (a, b) = operands(c)?;
    let common = common_dtype(&[a.clone(), b.clone()]);
    let args = [a, b];
    if common.is_floating() {
        let g = move |x: &[f64]| f(x[0] != 0.0, x[1] != 0.0);
        run(c, &args, common, DType::Bool, Compute::FloatToBool(&g))
    } else {
        let g = move |x: &[i64]| f(x[0] != 0, x[1] != 0);
        run(c, &args, common, DType::Bool, Compute::IntToBool(&g))
    }
}

fn logical_not(c: &Call) -> Result<Tensor, String> {
    let x = c.tensor("self")?;
    let dtype = x.dtype();
    let args = [Arg::Tensor(x)];
    if dtype.is_floating() {
        run(
            c,
            &args,
            dtype,
            DType::Bool,
            Compute::FloatToBool(&|x| x[0] == 0.0),
        )
    } else {
        run(
            c,
            &args,
            dtype,
            DType::Bool,
            Compute::IntToBool(&|x| x[0] == 0),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::ivalue::IValue;
    use crate::tensor::DType;

    fn bin(op: &str, ty: &str) -> String {
        graph(
            &format!("%x : Tensor, %y : {ty}"),
            &format!("  %r : Tensor = {op}(%x, %y)"),
        )
    }

    #[test]
    fn bitwise_ops_and_their_dtypes() {
        let out = run1(
            &bin("aten::__and__", "int"),
            vec![t(vec![true, false], &[2]), IValue::Int(1)],
        )
        .unwrap();
        assert_eq!(out.dtype(), DType::I64);
        assert_eq!(out.to_vec::<i64>(), vec![1, 0]);
        let err = run_graph(
            &bin("aten::bitwise_and", "Tensor"),
            vec![t(vec![1.0f32], &[1]), t(vec![1.0f32], &[1])],
        )
        .unwrap_err();
        assert_eq!(err, "\"bitwise_and_cpu\" not implemented for 'Float'");
        let out = run1(
            &bin("aten::__xor__", "Tensor"),
            vec![t(vec![true, false], &[2]), t(vec![true], &[])],
        )
        .unwrap();
        assert_eq!(out.to_vec::<bool>(), vec![false, true]);
    }

    #[test]
    fn shifts_out_of_range() {
        let out = run1(
            &bin("aten::__lshift__", "int"),
            vec![t(vec![1i8, 2], &[2]), IValue::Int(9)],
        )
        .unwrap();
        assert_eq!(out.to_vec::<i8>(), vec![0, 0]);
        let out = run1(
            &bin("aten::__rshift__", "int"),
            vec![t(vec![-128i8, 64], &[2]), IValue::Int(9)],
        )
        .unwrap();
        assert_eq!(out.to_vec::<i8>(), vec![-1, 0]);
        let out = run1(
            &bin("aten::__rshift__", "int"),
            vec![t(vec![-8i64, 8], &[2]), IValue::Int(-1)],
        )
        .unwrap();
        assert_eq!(out.to_vec::<i64>(), vec![-1, 0]);
        let out = run1(
            &bin("aten::__lshift__", "int"),
            vec![t(vec![3i32, -7], &[2]), IValue::Int(2)],
        )
        .unwrap();
        assert_eq!(out.to_vec::<i32>(), vec![12, -28]);
    }

    #[test]
    fn logical_ops_give_bools() {
        let out = run1(
            &bin("aten::logical_and", "Tensor"),
            vec![
                t(vec![1.5f32, f32::NAN, 0.0], &[3]),
                t(vec![3i32, 1, 1], &[3]),
            ],
        )
        .unwrap();
        assert_eq!(out.to_vec::<bool>(), vec![true, true, false]);
        let src = graph("%x : Tensor", "  %r : Tensor = aten::logical_not(%x)");
        let out = run1(&src, vec![t(vec![0i32, 2], &[2])]).unwrap();
        assert_eq!(out.to_vec::<bool>(), vec![true, false]);
    }
}
