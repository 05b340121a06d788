//! Comparisons: eq, ne, lt, le, gt, ge (and their aliases) on Tensor and Scalar operands,
//! computed in the promoted dtype and giving bool tensors; the in-place forms write 0/1 in
//! `self`'s dtype, `out=` in the out tensor's.

use ember_dialects::{Graph, Node};

use super::binary::operands;
use super::{base_name, build, common_dtype, run, Call};
use crate::ops::registry::Registry;
use crate::ops::Operation;
use crate::tensor::elementwise::Compute;
use crate::tensor::{DType, Tensor};

#[derive(Copy, Clone)]
enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
}

const NAMES: &[(&str, Cmp)] = &[
    ("eq", Cmp::Eq),
    ("ne", Cmp::Ne),
    ("not_equal", Cmp::Ne),
    ("lt", Cmp::Lt),
    ("less", Cmp::Lt),
    ("le", Cmp::Le),
    ("less_equal", Cmp::Le),
    ("gt", Cmp::Gt),
    ("greater", Cmp::Gt),
    ("ge", Cmp::Ge),
    ("greater_equal", Cmp::Ge),
];

pub fn register(r: &mut Registry) {
    for (name, _) in NAMES {
        super::add(r, name, true, build_compare);
    }
}

fn build_compare(g: &Graph, n: Node) -> Result<Operation, String> {
    let name = base_name(g, n);
    let &(_, cmp) = NAMES
        .iter()
        .find(|(k, _)| *k == name)
        .ok_or_else(|| format!("no comparison named {name}"))?;
    build(g, n, move |c| compare(c, cmp))
}

fn compare(c: &Call, cmp: Cmp) -> Result<Tensor, String> {
    let (a, b) = operands(c)?;
    let common = common_dtype(&[a.clone(), b.clone()]);
    let args = [a, b];
    if common.is_floating() {
        let f: &(dyn Fn(&[f64]) -> bool + Sync) = match cmp {
            Cmp::Eq => &|x| x[0] == x[1],
            Cmp::Ne => &|x| x[0] != x[1],
            Cmp::Lt => &|x| x[0] < x[1],
            Cmp::Le => &|x| x[0] <= x[1],
            Cmp::Gt => &|x| x[0] > x[1],
            Cmp::Ge => &|x| x[0] >= x[1],
        };
        run(c, &args, common, DType::Bool, Compute::FloatToBool(f))
    } else {
        let f: &(dyn Fn(&[i64]) -> bool + Sync) = match cmp {
            Cmp::Eq => &|x| x[0] == x[1],
            Cmp::Ne => &|x| x[0] != x[1],
            Cmp::Lt => &|x| x[0] < x[1],
            Cmp::Le => &|x| x[0] <= x[1],
            Cmp::Gt => &|x| x[0] > x[1],
            Cmp::Ge => &|x| x[0] >= x[1],
        };
        run(c, &args, common, DType::Bool, Compute::IntToBool(f))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::ivalue::IValue;
    use crate::tensor::{DType, Tensor};

    fn cmp(op: &str, ty: &str) -> String {
        graph(
            &format!("%x : Tensor, %y : {ty}"),
            &format!("  %r : Tensor = {op}(%x, %y)"),
        )
    }

    #[test]
    fn compares_in_the_promoted_dtype() {
        // 0.1 as a float32 equals float32(0.1): the scalar is cast to the tensor's dtype.
        let out = run1(
            &cmp("aten::eq", "float"),
            vec![t(vec![0.1f32, 0.2], &[2]), IValue::Double(0.1)],
        )
        .unwrap();
        assert_eq!(out.to_vec::<bool>(), vec![true, false]);
        let out = run1(
            &cmp("aten::gt", "int"),
            vec![t(vec![1i64 << 40], &[1]), IValue::Int((1 << 40) - 1)],
        )
        .unwrap();
        assert_eq!(out.to_vec::<bool>(), vec![true]);
        let out = run1(
            &cmp("aten::ne", "Tensor"),
            vec![t(vec![f64::NAN, 1.0], &[2]), t(vec![f64::NAN], &[1])],
        )
        .unwrap();
        assert_eq!(out.to_vec::<bool>(), vec![true, true]);
    }

    #[test]
    fn in_place_keeps_the_dtype() {
        let x = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
        run1(
            &cmp("aten::lt_", "int"),
            vec![IValue::Tensor(x.clone()), IValue::Int(2)],
        )
        .unwrap();
        assert_eq!(x.dtype(), DType::F32);
        assert_eq!(x.to_vec::<f32>(), vec![1.0, 0.0, 0.0]);
    }
}
