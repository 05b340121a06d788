//! Activation functions: relu, relu6, hardtanh, gelu (exact and tanh), silu, hardswish,
//! hardsigmoid, leaky_relu, elu, selu, celu, softplus, mish, log_sigmoid, threshold, and the
//! dropout family in evaluation mode. `sigmoid` and `tanh` are unary math (unary.rs).

use super::{build, fast, prepare, round_to, run, run_into, Call, Scalar, Support};
use crate::ops::registry::Registry;
use crate::tensor::elementwise::{Arg, Compute};
use crate::tensor::{DType, Tensor};

pub fn register(r: &mut Registry) {
    super::add(r, "relu", true, |g, n| build(g, n, relu));
    super::add(r, "relu6", true, |g, n| {
        build(g, n, |c| hardtanh(c, Scalar::Int(0), Scalar::Int(6)))
    });
    super::add(r, "hardtanh", true, |g, n| {
        build(g, n, |c| {
            let lo = c.scalar("min_val").unwrap_or(Scalar::Int(-1));
            let hi = c.scalar("max_val").unwrap_or(Scalar::Int(1));
            hardtanh(c, lo, hi)
        })
    });
    super::add(r, "gelu", true, |g, n| build(g, n, gelu));
    super::add(r, "silu", true, |g, n| {
        build(g, n, |c| {
            floating_fast(c, "silu_cpu", Some(fast::Unary::Silu), |x| {
                x / (1.0 + (-x).exp())
            })
        })
    });
    super::add(r, "hardswish", true, |g, n| {
        build(g, n, |c| {
            floating_fast(c, "hardswish_cpu", Some(fast::Unary::Hardswish), |x| {
                x * (x + 3.0).clamp(0.0, 6.0) / 6.0
            })
        })
    });
    super::add(r, "hardsigmoid", true, |g, n| {
        build(g, n, |c| {
            floating_fast(c, "hardsigmoid_cpu", Some(fast::Unary::Hardsigmoid), |x| {
                (x + 3.0).clamp(0.0, 6.0) / 6.0
            })
        })
    });
    super::add(r, "mish", true, |g, n| {
        build(g, n, |c| {
            floating(c, "mish_cpu", |x| x * softplus1(x).tanh())
        })
    });
    super::add(r, "log_sigmoid", false, |g, n| {
        build(g, n, |c| {
            floating(c, "log_sigmoid_cpu", |x| {
                x.min(0.0) - (-x.abs()).exp().ln_1p()
            })
        })
    });
    super::add(r, "leaky_relu", true, |g, n| build(g, n, leaky_relu));
    super::add(r, "elu", true, |g, n| {
        build(g, n, |c| {
            let alpha = c.f64("alpha").unwrap_or(1.0);
            let scale = c.f64("scale").unwrap_or(1.0);
            let input_scale = c.f64("input_scale").unwrap_or(1.0);
            elu(c, alpha, scale, input_scale)
        })
    });
    super::add(r, "selu", true, |g, n| {
        build(g, n, |c| elu(c, SELU_ALPHA, SELU_SCALE, 1.0))
    });
    super::add(r, "celu", true, |g, n| {
        build(g, n, |c| {
            let alpha = c.f64("alpha").unwrap_or(1.0);
            if alpha == 0.0 {
                return Err("ZeroDivisionError: alpha cannot be 0 for CELU".into());
            }
            elu(c, alpha, 1.0, 1.0 / alpha)
        })
    });
    super::add(r, "softplus", false, |g, n| build(g, n, softplus));
    super::add(r, "threshold", true, |g, n| build(g, n, threshold));
    for name in [
        "dropout",
        "feature_dropout",
        "alpha_dropout",
        "feature_alpha_dropout",
    ] {
        super::add(r, name, true, |g, n| build(g, n, dropout));
    }
}

const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
const SELU_SCALE: f64 = 1.050_700_987_355_480_5;

/// The `out=` of an activation must have the input's dtype.
fn out_exact(c: &Call, dtype: DType) -> Result<(), String> {
    if c.name == "log_sigmoid" {
        if let Some(o) = c.out().filter(|o| o.dtype() != dtype) {
            return Err(format!(
                "expected scalar type {} but found {}",
                super::type_name(dtype),
                super::type_name(o.dtype())
            ));
        }
        return Ok(());
    }
    super::check_out_exact(c, dtype)
}

/// The first input (named `self` or `input`).
fn input(c: &Call) -> Result<Tensor, String> {
    match c.values.first() {
        Some(crate::ivalue::IValue::Tensor(t)) => Ok(t.clone()),
        _ => Err(format!("{}: expected a Tensor input", c.name)),
    }
}

fn softplus1(x: f64) -> f64 {
    if x > 20.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

/// An activation defined on floating dtypes only (`kernel` names PyTorch's kernel).
fn floating(c: &Call, kernel: &str, f: fn(f64) -> f64) -> Result<Tensor, String> {
    floating_fast(c, kernel, None, f)
}

/// As [`floating`], with a float32 fast path.
fn floating_fast(
    c: &Call,
    kernel: &str,
    fast_op: Option<fast::Unary>,
    f: fn(f64) -> f64,
) -> Result<Tensor, String> {
    let x = input(c)?;
    let dtype = x.dtype();
    out_exact(c, dtype)?;
    Support::Floating.check(kernel, dtype)?;
    let args = [Arg::Tensor(x)];
    let dst = prepare(c, &args, dtype)?;
    if let (Some(op), DType::F32) = (fast_op, dtype) {
        if let Some(t) = fast::unary(op, &args[0], dst.as_ref()) {
            return Ok(t);
        }
    }
    run_into(
        &args,
        dtype,
        dtype,
        Compute::Float(&|v| f(v[0])),
        dst.as_ref(),
    )
}

fn relu(c: &Call) -> Result<Tensor, String> {
    let x = input(c)?;
    let dtype = x.dtype();
    if dtype == DType::Bool {
        return Err("Boolean inputs not supported for relu".into());
    }
    let args = [Arg::Tensor(x)];
    let dst = prepare(c, &args, dtype)?;
    if dtype == DType::F32 {
        if let Some(t) = fast::unary(fast::Unary::Relu, &args[0], dst.as_ref()) {
            return Ok(t);
        }
    }
    if dtype.is_floating() {
        let f = |v: &[f64]| if v[0] < 0.0 { 0.0 } else { v[0] };
        run_into(&args, dtype, dtype, Compute::Float(&f), dst.as_ref())
    } else {
        run_into(
            &args,
            dtype,
            dtype,
            Compute::Int(&|v| v[0].max(0)),
            dst.as_ref(),
        )
    }
}

/// `hardtanh(x, lo, hi)`, also `relu6`: a clamp that keeps NaN.
fn hardtanh(c: &Call, lo: Scalar, hi: Scalar) -> Result<Tensor, String> {
    let x = input(c)?;
    let dtype = x.dtype();
    out_exact(c, dtype)?;
    if dtype == DType::Bool {
        return Err("Bool inputs not supported for hardtanh".into());
    }
    let args = [Arg::Tensor(x)];
    if dtype == DType::F32 {
        let dst = prepare(c, &args, dtype)?;
        let op = fast::Unary::Hardtanh(lo.to_f64() as f32, hi.to_f64() as f32);
        if let Some(t) = fast::unary(op, &args[0], dst.as_ref()) {
            return Ok(t);
        }
    }
    if dtype.is_floating() {
        let (lo, hi) = (round_to(dtype, lo.to_f64()), round_to(dtype, hi.to_f64()));
        let f = move |v: &[f64]| {
            let x = v[0];
            if x < lo {
                lo
            } else if x > hi {
                hi
            } else {
                x
            }
        };
        run(c, &args, dtype, dtype, Compute::Float(&f))
    } else {
        let (lo, hi) = (lo.to_i64(), hi.to_i64());
        let f = move |v: &[i64]| {
            if v[0] < lo {
                lo
            } else if v[0] > hi {
                hi
            } else {
                v[0]
            }
        };
        run(c, &args, dtype, dtype, Compute::Int(&f))
    }
}

fn gelu(c: &Call) -> Result<Tensor, String> {
    let tanh = match c.opt_str("approximate").unwrap_or("none") {
        "none" => false,
        "tanh" => true,
        _ => return Err("approximate argument must be either none or tanh.".into()),
    };
    if tanh {
        floating_fast(c, "GeluKernelImpl", Some(fast::Unary::GeluTanh), |x| {
            let k = (2.0 / std::f64::consts::PI).sqrt();
            0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh())
        })
    } else {
        floating_fast(c, "GeluKernelImpl", Some(fast::Unary::Gelu), |x| {
            0.5 * x * (1.0 + libm::erf(x * std::f64::consts::FRAC_1_SQRT_2))
        })
    }
}

fn leaky_relu(c: &Call) -> Result<Tensor, String> {
    let x = input(c)?;
    let dtype = x.dtype();
    out_exact(c, dtype)?;
    Support::Floating.check("leaky_relu_cpu", dtype)?;
    let slope = round_to(dtype, c.f64("negative_slope").unwrap_or(0.01));
    let f = move |v: &[f64]| if v[0] > 0.0 { v[0] } else { v[0] * slope };
    run(c, &[Arg::Tensor(x)], dtype, dtype, Compute::Float(&f))
}

/// `elu`: `x * scale` above 0, `alpha * scale * (exp(x * input_scale) - 1)` below.
fn elu(c: &Call, alpha: f64, scale: f64, input_scale: f64) -> Result<Tensor, String> {
    let x = input(c)?;
    let dtype = x.dtype();
    out_exact(c, dtype)?;
    Support::Floating.check("elu_cpu", dtype)?;
    let neg = alpha * scale;
    let f = move |v: &[f64]| {
        let x = v[0];
        if x <= 0.0 {
            ((x * input_scale).exp_m1()) * neg
        } else {
            x * scale
        }
    };
    run(c, &[Arg::Tensor(x)], dtype, dtype, Compute::Float(&f))
}

/// `softplus(x, beta, threshold)`: linear where `x * beta > threshold`.
fn softplus(c: &Call) -> Result<Tensor, String> {
    let x = input(c)?;
    let dtype = x.dtype();
    out_exact(c, dtype)?;
    Support::Floating.check("softplus_cpu", dtype)?;
    let beta = c.f64("beta").unwrap_or(1.0);
    let limit = c.f64("threshold").unwrap_or(20.0);
    let f = move |v: &[f64]| {
        let x = v[0];
        if x * beta > limit {
            x
        } else {
            (x * beta).exp().ln_1p() / beta
        }
    };
    run(c, &[Arg::Tensor(x)], dtype, dtype, Compute::Float(&f))
}

/// `threshold(x, threshold, value)`: `value` where `x <= threshold`.
fn threshold(c: &Call) -> Result<Tensor, String> {
    let x = input(c)?;
    let dtype = x.dtype();
    Support::NoBool.check("threshold_cpu", dtype)?;
    let th = c.f64("threshold")?;
    let value = c.scalar("value").unwrap_or(Scalar::Int(0));
    if let Some(t) = c.scalar("threshold") {
        super::checked_scalar(t, dtype)?;
    }
    super::checked_scalar(value, dtype)?;
    let args = [Arg::Tensor(x)];
    if dtype.is_floating() {
        let (th, v) = (round_to(dtype, th), round_to(dtype, value.to_f64()));
        let f = move |x: &[f64]| if x[0] <= th { v } else { x[0] };
        run(c, &args, dtype, dtype, Compute::Float(&f))
    } else {
        let v = value.to_i64();
        let f = move |x: &[i64]| if (x[0] as f64) <= th { v } else { x[0] };
        run(c, &args, dtype, dtype, Compute::Int(&f))
    }
}

/// The dropout family. In evaluation mode (`train=False`), with `p=0` or on an empty tensor
/// it returns its input itself, as PyTorch does; `p=1` in training zeroes it. Any other
/// training-mode call would draw a random mask, which Ember refuses rather than differ.
fn dropout(c: &Call) -> Result<Tensor, String> {
    let x = input(c)?;
    let p = c.f64("p")?;
    let train = c.bool("train")?;
    if !(0.0..=1.0).contains(&p) {
        return Err(format!(
            "dropout probability has to be between 0 and 1, but got {}",
            crate::ivalue::format_float(p)
        ));
    }
    if !train || p == 0.0 || x.numel() == 0 {
        return Ok(x);
    }
    let alpha = c.name.contains("alpha");
    if p == 1.0 && !alpha {
        let args = [Arg::Tensor(x.clone())];
        let dtype = x.dtype();
        return if c.in_place() {
            run(c, &args, dtype, dtype, Compute::Float(&|_| 0.0))
        } else {
            run(c, &args, dtype, dtype, Compute::Float(&|v| v[0] * 0.0))
        };
    }
    Err(format!(
        "{} with train=True and p={} draws a random mask; Ember runs dropout in evaluation mode only (call model.eval() before scripting, or pass train=False)",
        c.name,
        crate::ivalue::format_float(p)
    ))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use crate::ivalue::IValue;
    use crate::tensor::Tensor;

    fn act(op: &str) -> String {
        graph("%x : Tensor", &format!("  %r : Tensor = {op}(%x)"))
    }

    #[test]
    fn relu_family() {
        let x = t(vec![-1.0f32, 0.5, f32::NAN, 7.0], &[4]);
        let out = run1(&act("aten::relu"), vec![x.clone()]).unwrap();
        let v = out.to_vec::<f32>();
        assert_eq!(&v[..2], &[0.0, 0.5]);
        assert!(v[2].is_nan());
        let out = run1(&act("aten::relu6"), vec![x]).unwrap();
        assert_eq!(out.to_vec::<f32>()[3], 6.0);
        let err = run_graph(&act("aten::relu"), vec![t(vec![true], &[1])]).unwrap_err();
        assert_eq!(err, "Boolean inputs not supported for relu");
        let out = run1(&act("aten::relu"), vec![t(vec![-3i64, 4], &[2])]).unwrap();
        assert_eq!(out.to_vec::<i64>(), vec![0, 4]);
    }

    #[test]
    fn gelu_both_approximations() {
        let src = |a: &str| {
            graph(
                "%x : Tensor",
                &format!("  %a : str = prim::Constant[value=\"{a}\"]()\n  %r : Tensor = aten::gelu(%x, %a)"),
            )
        };
        let x = t(vec![-1.0f64, 0.0, 1.0], &[3]);
        let exact = run1(&src("none"), vec![x.clone()]).unwrap().to_vec::<f64>();
        assert_close(
            &exact,
            &[-0.15865525393145707, 0.0, 0.8413447460685429],
            1e-12,
        );
        let tanh = run1(&src("tanh"), vec![x.clone()]).unwrap().to_vec::<f64>();
        assert_close(
            &tanh,
            &[-0.15880800939172324, 0.0, 0.8411919906082768],
            1e-12,
        );
        let err = run_graph(&src("bad"), vec![x]).unwrap_err();
        assert_eq!(err, "approximate argument must be either none or tanh.");
        let err = run_graph(&src("none"), vec![t(vec![1i32], &[1])]).unwrap_err();
        assert_eq!(err, "\"GeluKernelImpl\" not implemented for 'Int'");
    }

    #[test]
    fn dropout_in_eval_is_the_identity_and_training_is_refused() {
        let src = graph(
            "%x : Tensor, %p : float, %train : bool",
            "  %r : Tensor = aten::dropout(%x, %p, %train)",
        );
        let x = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
        let out = run1(
            &src,
            vec![
                IValue::Tensor(x.clone()),
                IValue::Double(0.5),
                IValue::Bool(false),
            ],
        )
        .unwrap();
        assert!(out.is_same(&x));
        let err = run_graph(
            &src,
            vec![
                IValue::Tensor(x.clone()),
                IValue::Double(0.5),
                IValue::Bool(true),
            ],
        )
        .unwrap_err();
        assert!(err.contains("train=True"), "{err}");
        let err = run_graph(
            &src,
            vec![IValue::Tensor(x), IValue::Double(1.5), IValue::Bool(false)],
        )
        .unwrap_err();
        assert_eq!(
            err,
            "dropout probability has to be between 0 and 1, but got 1.5"
        );
    }

    #[test]
    fn elu_family() {
        let x = t(vec![-1.0f64, 2.0], &[2]);
        let out = run1(&act("aten::selu"), vec![x.clone()])
            .unwrap()
            .to_vec::<f64>();
        assert_close(&out, &[-1.1113307378125625, 2.101401974710961], 1e-12);
        let src = graph(
            "%x : Tensor",
            "  %a : float = prim::Constant[value=0.]()\n  %r : Tensor = aten::celu(%x, %a)",
        );
        let err = run_graph(&src, vec![x]).unwrap_err();
        assert_eq!(err, "ZeroDivisionError: alpha cannot be 0 for CELU");
    }
}
