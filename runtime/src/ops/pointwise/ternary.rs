//! Ops of three operands: where, clamp (clamp_min, clamp_max, clip), lerp, addcmul, addcdiv,
//! masked_fill, with their Scalar/Tensor, in-place and `out=` forms.

use super::{build, common_dtype, round_to, run, type_name, Call, Scalar, Support};
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::tensor::elementwise::{Arg, Compute};
use crate::tensor::{DType, Tensor};

pub fn register(r: &mut Registry) {
    // `where(condition)` alone is `nonzero(as_tuple=True)`, not a pointwise op.
    r.add_if(
        "aten::where",
        |g, n| g.node_inputs(n).len() >= 3,
        |g, n| build(g, n, where_),
    );
    for name in ["clamp", "clip"] {
        super::add(r, name, true, |g, n| {
            build(g, n, |c| clamp(c, "min", "max"))
        });
    }
    super::add(r, "clamp_min", true, |g, n| {
        build(g, n, |c| clamp(c, "min", ""))
    });
    super::add(r, "clamp_max", true, |g, n| {
        build(g, n, |c| clamp(c, "", "max"))
    });
    super::add(r, "lerp", true, |g, n| build(g, n, lerp));
    super::add(r, "addcmul", true, |g, n| build(g, n, |c| addc(c, false)));
    super::add(r, "addcdiv", true, |g, n| build(g, n, |c| addc(c, true)));
    super::add(r, "masked_fill", true, |g, n| build(g, n, masked_fill));
}

fn where_(c: &Call) -> Result<Tensor, String> {
    let cond = c.tensor("condition")?;
    // uint8 conditions are still accepted (deprecated) by PyTorch.
    if cond.dtype() != DType::Bool && cond.dtype() != DType::U8 {
        return Err(format!(
            "where expected condition to be a boolean tensor, but got a tensor with dtype {}",
            type_name(cond.dtype())
        ));
    }
    let a = c.operand("self")?;
    let b = c.operand("other")?;
    let common = common_dtype(&[a.clone(), b.clone()]);
    if let Some(o) = c.out().filter(|o| o.dtype() != common) {
        return Err(format!(
            "Expected out type to be {} but got {}",
            type_name(common),
            type_name(o.dtype())
        ));
    }
    let args = [Arg::Tensor(cond), a, b];
    if common.is_floating() {
        let f = |x: &[f64]| if x[0] != 0.0 { x[1] } else { x[2] };
        run(c, &args, common, common, Compute::Float(&f))
    } else {
        let f = |x: &[i64]| if x[0] != 0 { x[1] } else { x[2] };
        run(c, &args, common, common, Compute::Int(&f))
    }
}

/// `clamp(self, min, max)` with Scalar or Tensor bounds; `lo`/`hi` name the bound
/// arguments ("" when the op has no such bound).
fn clamp(c: &Call, lo: &str, hi: &str) -> Result<Tensor, String> {
    let x = c.tensor("self")?;
    let bound = |name: &str| -> Result<Option<Arg>, String> {
        if name.is_empty() || matches!(c.value(name), IValue::None) {
            return Ok(None);
        }
        c.operand(name).map(Some)
    };
    let (min, max) = (bound(lo)?, bound(hi)?);
    if min.is_none() && max.is_none() {
        return Err("torch.clamp: At least one of 'min' or 'max' must not be None".into());
    }
    let self_dtype = x.dtype();
    let tensor_bounds = [&min, &max]
        .iter()
        .any(|b| matches!(b, Some(Arg::Tensor(_))));
    let mut args = vec![Arg::Tensor(x)];
    args.extend(min.clone());
    args.extend(max.clone());
    let common = common_dtype(&args);
    if common == DType::Bool {
        let kernel = match (tensor_bounds, &min, &max) {
            (true, _, _) => "clamp_cpu",
            (false, Some(_), Some(_)) => "clamp_scalar_cpu",
            (false, Some(_), None) => "clamp_min_scalar_cpu",
            _ => "clamp_max_scalar_cpu",
        };
        Support::NoBool.check(kernel, common)?;
    }
    if c.in_place() && !crate::tensor::elementwise::can_cast(common, self_dtype) {
        return Err(format!(
            "result type {} can't be cast to the desired output type {}",
            type_name(common),
            self_dtype.cpp_type_name()
        ));
    }
    if !common.is_floating() {
        // Integer bounds compare in full range: saturate them to the dtype's range.
        for a in args.iter_mut().skip(1) {
            if let Arg::Int(v) = a {
                *v = saturate(common, *v);
            }
        }
    }
    let (has_min, has_max) = (min.is_some(), max.is_some());
    // Positions of the bounds in the argument list.
    let imax = if has_min { 2 } else { 1 };
    if common.is_floating() {
        let f = move |x: &[f64]| {
            let mut v = x[0];
            if v.is_nan() {
                return v;
            }
            if has_min {
                let m = x[1];
                if m.is_nan() {
                    return m;
                }
                v = v.max(m);
            }
            if has_max {
                let m = x[imax];
                if m.is_nan() {
                    return m;
                }
                v = v.min(m);
            }
            v
        };
        run(c, &args, common, common, Compute::Float(&f))
    } else {
        let f = move |x: &[i64]| {
            let mut v = x[0];
            if has_min {
                v = v.max(x[1]);
            }
            if has_max {
                v = v.min(x[imax]);
            }
            v
        };
        run(c, &args, common, common, Compute::Int(&f))
    }
}

/// `v` limited to the range of the integral dtype `d`.
fn saturate(d: DType, v: i64) -> i64 {
    let (lo, hi) = match d {
        DType::Bool => (0, 1),
        DType::U8 => (0, 255),
        DType::I8 => (-128, 127),
        DType::I16 => (-32768, 32767),
        DType::I32 => (i32::MIN as i64, i32::MAX as i64),
        _ => (i64::MIN, i64::MAX),
    };
    v.clamp(lo, hi)
}

/// `lerp(self, end, weight)`: `self + weight * (end - self)`, computed from the nearer end as
/// PyTorch does for accuracy.
fn lerp(c: &Call) -> Result<Tensor, String> {
    let x = c.tensor("self")?;
    let end = c.tensor("end")?;
    let weight = c.operand("weight")?;
    let dtype = x.dtype();
    if end.dtype() != dtype {
        return Err(format!(
            "expected dtype {} for `end` but got dtype {}",
            dtype.cpp_type_name(),
            end.dtype().cpp_type_name()
        ));
    }
    let tensor_weight = matches!(weight, Arg::Tensor(_));
    if let Arg::Tensor(w) = &weight {
        if w.dtype() != dtype {
            return Err(format!(
                "expected dtype {} for `weight` but got dtype {}",
                dtype.cpp_type_name(),
                w.dtype().cpp_type_name()
            ));
        }
    }
    let kernel = if tensor_weight {
        "lerp_kernel_tensor"
    } else {
        "lerp_kernel_scalar"
    };
    Support::Floating.check(kernel, dtype)?;
    let args = [Arg::Tensor(x), Arg::Tensor(end), weight];
    let f = |x: &[f64]| {
        let (s, e, w) = (x[0], x[1], x[2]);
        if w.abs() < 0.5 {
            s + w * (e - s)
        } else {
            e - (e - s) * (1.0 - w)
        }
    };
    run(c, &args, dtype, dtype, Compute::Float(&f))
}

/// `addcmul`: `self + value * t1 * t2`; `addcdiv`: `self + value * t1 / t2`.
fn addc(c: &Call, divide: bool) -> Result<Tensor, String> {
    let x = c.operand("self")?;
    let t1 = c.operand("tensor1")?;
    let t2 = c.operand("tensor2")?;
    let value = c.scalar("value").unwrap_or(Scalar::Int(1));
    let args = [x, t1, t2];
    let common = common_dtype(&args);
    if divide && !common.is_floating() {
        return Err("Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes.".into());
    }
    if !divide {
        Support::NoBool.check("addcmul_cpu_out", common)?;
    }
    if common.is_floating() {
        let v = round_to(common, value.to_f64());
        if divide {
            run(
                c,
                &args,
                common,
                common,
                Compute::Float(&|x| x[0] + v * (x[1] / x[2])),
            )
        } else {
            run(
                c,
                &args,
                common,
                common,
                Compute::Float(&|x| x[0] + v * x[1] * x[2]),
            )
        }
    } else {
        let v = value.to_i64();
        let f = |x: &[i64]| x[0].wrapping_add(v.wrapping_mul(x[1]).wrapping_mul(x[2]));
        run(c, &args, common, common, Compute::Int(&f))
    }
}

/// `masked_fill_` on a tensor whose elements share memory (an expanded view, which PyTorch
/// still accepts): `value` is written where `mask` is true and nothing elsewhere, so a
/// location takes `value` when the mask is true at any element on it.
fn masked_fill_shared(x: &Tensor, mask: &Tensor, value: Scalar) -> Result<Tensor, String> {
    let sizes = x.sizes();
    let shape = crate::tensor::broadcast_shapes(&sizes, &mask.sizes()).map_err(|e| e.message)?;
    if shape != sizes {
        return Err(format!(
            "output with shape [{}] doesn't match the broadcast shape [{}]",
            super::join(&sizes),
            super::join(&shape)
        ));
    }
    let selected = mask.expand(&sizes).map_err(|e| e.message)?.to_vec::<i64>();
    let base = x.data_ptr();
    crate::dispatch_dtype!(x.dtype(), T => {
        let v: T = value.to_element();
        for (o, m) in x.element_offsets().into_iter().zip(selected) {
            if m != 0 {
                // SAFETY: an in-bounds element offset of `x`, whose elements are T.
                unsafe { *(base as *mut T).offset(o as isize) = v };
            }
        }
    });
    Ok(x.clone())
}

/// `masked_fill(self, mask, value)`: `value` (a Scalar or a 0-dim tensor) where `mask`.
fn masked_fill(c: &Call) -> Result<Tensor, String> {
    let x = c.tensor("self")?;
    let mask = c.tensor("mask")?;
    if mask.dtype() != DType::Bool {
        return Err(format!(
            "masked_fill_ only supports boolean masks, but got mask with dtype {}",
            mask.dtype().cpp_type_name()
        ));
    }
    let value = match c.value("value") {
        IValue::Tensor(v) => {
            if v.dim() != 0 {
                return Err(format!(
                    "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {} dimension(s).",
                    v.dim()
                ));
            }
            if v.dtype().is_floating() {
                Scalar::Float(v.item_f64().map_err(|e| e.message)?)
            } else {
                Scalar::Int(v.item_i64().map_err(|e| e.message)?)
            }
        }
        _ => c
            .scalar("value")
            .ok_or_else(|| "masked_fill: expected a number for 'value'".to_string())?,
    };
    let dtype = x.dtype();
    super::checked_scalar(value, dtype)?;
    if c.in_place() && super::check_no_internal_overlap(&x).is_err() {
        return masked_fill_shared(&x, &mask, value);
    }
    let args = [Arg::Tensor(x), Arg::Tensor(mask)];
    if dtype.is_floating() {
        let v = round_to(dtype, value.to_f64());
        let f = move |x: &[f64]| if x[1] != 0.0 { v } else { x[0] };
        run(c, &args, dtype, dtype, Compute::Float(&f))
    } else {
        let v = if dtype == DType::Bool {
            (value.to_f64() != 0.0) as i64
        } else {
            value.to_i64()
        };
        let f = move |x: &[i64]| if x[1] != 0 { v } else { x[0] };
        run(c, &args, dtype, dtype, Compute::Int(&f))
    }
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::ivalue::IValue;
    use crate::tensor::DType;

    #[test]
    fn where_promotes_its_branches() {
        let src = graph(
            "%c : Tensor, %x : Tensor, %y : float",
            "  %r : Tensor = aten::where(%c, %x, %y)",
        );
        let out = run1(
            &src,
            vec![
                t(vec![true, false, true], &[3]),
                t(vec![3i32, -7, 0], &[3]),
                IValue::Double(1.5),
            ],
        )
        .unwrap();
        assert_eq!(out.dtype(), DType::F32);
        assert_eq!(out.to_vec::<f32>(), vec![3.0, 1.5, 0.0]);
        let err = run_graph(
            &src,
            vec![
                t(vec![1i32], &[1]),
                t(vec![3i32], &[1]),
                IValue::Double(1.5),
            ],
        )
        .unwrap_err();
        assert_eq!(
            err,
            "where expected condition to be a boolean tensor, but got a tensor with dtype Int"
        );
    }

    #[test]
    fn clamp_bounds() {
        let src = graph(
            "%x : Tensor, %lo : Scalar?, %hi : Scalar?",
            "  %r : Tensor = aten::clamp(%x, %lo, %hi)",
        );
        let x = t(vec![3i32, -7, 0], &[3]);
        let out = run1(&src, vec![x.clone(), IValue::Double(0.5), IValue::None]).unwrap();
        assert_eq!(out.to_vec::<f32>(), vec![3.0, 0.5, 0.5]);
        let out = run1(&src, vec![x.clone(), IValue::Int(-1), IValue::Int(1)]).unwrap();
        assert_eq!(out.to_vec::<i32>(), vec![1, -1, 0]);
        let err = run_graph(&src, vec![x, IValue::None, IValue::None]).unwrap_err();
        assert_eq!(
            err,
            "torch.clamp: At least one of 'min' or 'max' must not be None"
        );
        let out = run1(
            &src,
            vec![t(vec![f32::NAN, 5.0], &[2]), IValue::Int(2), IValue::Int(1)],
        )
        .unwrap();
        let v = out.to_vec::<f32>();
        assert!(v[0].is_nan() && v[1] == 1.0);
    }

    #[test]
    fn masked_fill_casts_the_value() {
        let src = graph(
            "%x : Tensor, %m : Tensor, %v : float",
            "  %r : Tensor = aten::masked_fill(%x, %m, %v)",
        );
        let out = run1(
            &src,
            vec![
                t(vec![3i32, -7, 0], &[3]),
                t(vec![true, false, true], &[3]),
                IValue::Double(2.5),
            ],
        )
        .unwrap();
        assert_eq!(out.to_vec::<i32>(), vec![2, -7, 2]);
        let err = run_graph(
            &src,
            vec![
                t(vec![3.0f32], &[1]),
                t(vec![1i32], &[1]),
                IValue::Double(2.5),
            ],
        )
        .unwrap_err();
        assert_eq!(
            err,
            "masked_fill_ only supports boolean masks, but got mask with dtype int"
        );
    }

    #[test]
    fn lerp_and_addcmul() {
        let src = graph(
            "%x : Tensor, %e : Tensor, %w : float",
            "  %r : Tensor = aten::lerp(%x, %e, %w)",
        );
        let out = run1(
            &src,
            vec![
                t(vec![0.0f32, 10.0], &[2]),
                t(vec![10.0f32, 20.0], &[2]),
                IValue::Double(0.75),
            ],
        )
        .unwrap();
        assert_eq!(out.to_vec::<f32>(), vec![7.5, 17.5]);
        let src = graph(
            "%x : Tensor, %a : Tensor, %b : Tensor",
            "  %v : float = prim::Constant[value=0.5]()\n  %r : Tensor = aten::addcmul(%x, %a, %b, %v)",
        );
        let i = t(vec![3i32, -7], &[2]);
        let out = run1(&src, vec![i.clone(), i.clone(), i]).unwrap();
        assert_eq!(out.to_vec::<i32>(), vec![3, -7]);
    }
}
