//! `any` and `all` over the whole tensor, one dim or a dim list. The result is bool, or
//! uint8 for uint8 inputs; an out tensor must be bool or uint8.

use super::args::{build, Args};
use super::output::{finish, st_name};
use super::plan::{fold, from_i64, reduce_mask, Plan};
use crate::ivalue::IValue;
use crate::ops::registry::{has_tensor_input, Registry};
use crate::tensor::DType;

pub fn register(r: &mut Registry) {
    r.add_if("aten::any", has_tensor_input, |g, n| build(g, n, any));
    r.add_if("aten::all", has_tensor_input, |g, n| build(g, n, all));
}

fn any(a: &Args) -> Result<Vec<IValue>, String> {
    any_all(a, true)
}

fn all(a: &Args) -> Result<Vec<IValue>, String> {
    any_all(a, false)
}

fn any_all(a: &Args, is_any: bool) -> Result<Vec<IValue>, String> {
    let x = a.tensor("self")?;
    let outs = a.outs()?;
    if let Some(out) = outs.first() {
        if !matches!(out.dtype(), DType::Bool | DType::U8) {
            return Err(format!(
                "{} only supports bool tensor for result, got: {}",
                a.op_name(),
                st_name(out.dtype())
            ));
        }
    }
    let dims = a.dims("dim");
    // Unlike sum, an empty dim list reduces nothing.
    let mask = match dims.as_deref() {
        Some([]) => vec![false; x.dim()],
        d => reduce_mask(d, x.dim()).map_err(|e| e.message)?,
    };
    let plan = Plan::new(&x, &mask, a.bool("keepdim", false)).map_err(|e| e.message)?;
    let vals = fold(
        &x,
        &plan,
        Some(DType::Bool),
        |c: &[i64], _| {
            if is_any {
                c.iter().any(|&v| v != 0)
            } else {
                c.iter().all(|&v| v != 0)
            }
        },
        |p, q| if is_any { p || q } else { p && q },
    );
    let vals: Vec<i64> = vals.into_iter().map(i64::from).collect();
    let dtype = if x.dtype() == DType::U8 {
        DType::U8
    } else {
        DType::Bool
    };
    let r = from_i64(&vals, &plan.out_sizes, dtype).map_err(|e| e.message)?;
    finish(r, &outs)
}
