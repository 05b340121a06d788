//! Elementwise unary math: `exp`, `sin`, `abs`, `round`, `isnan`, ... with their in-place and
//! `out=` forms. Floating functions promote integer inputs to the default float dtype;
//! dtype-preserving ones (`abs`, `neg`, `ceil`, ...) keep integers exact.

use ember_dialects::{Graph, Node};

use super::{
    base_name, build, fast, not_implemented, prepare, round_to, run, run_into, to_float, Call,
    Support,
};
use crate::ops::registry::Registry;
use crate::ops::Operation;
use crate::tensor::elementwise::{Arg, Compute};
use crate::tensor::{DType, Tensor};

/// How an op treats dtypes.
#[derive(Copy, Clone)]
enum Rule {
    /// Integers and bools are computed in (and give) the default float dtype.
    Float,
    /// The result keeps the input dtype; `Support` says which dtypes the kernel has.
    Same(Support),
    /// A bool result (`isnan`).
    Test,
}

/// One unary op.
pub(crate) struct Unary {
    pub name: &'static str,
    /// The kernel name PyTorch's dispatch error uses.
    kernel: &'static str,
    rule: Rule,
    float: fn(f64) -> f64,
    /// For `Same` ops on integers and bools (computed in i64).
    int: fn(i64) -> i64,
    /// For `Test` ops.
    test_float: fn(f64) -> bool,
    test_int: fn(i64) -> bool,
}

const fn float_op(name: &'static str, f: fn(f64) -> f64) -> Unary {
    Unary {
        name,
        kernel: name,
        rule: Rule::Float,
        float: f,
        int: |x| x,
        test_float: |_| false,
        test_int: |_| false,
    }
}

const fn same_op(
    name: &'static str,
    kernel: &'static str,
    support: Support,
    f: fn(f64) -> f64,
    i: fn(i64) -> i64,
) -> Unary {
    Unary {
        name,
        kernel,
        rule: Rule::Same(support),
        float: f,
        int: i,
        test_float: |_| false,
        test_int: |_| false,
    }
}

const fn test_op(name: &'static str, f: fn(f64) -> bool, i: fn(i64) -> bool) -> Unary {
    Unary {
        name,
        kernel: name,
        rule: Rule::Test,
        float: |x| x,
        int: |x| x,
        test_float: f,
        test_int: i,
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// PyTorch's `sign`: NaN gives 0, zeros give +0.
fn sign(x: f64) -> f64 {
    ((0.0 < x) as i64 - (x < 0.0) as i64) as f64
}

/// The inverse error function: a rational first guess refined by two Newton steps, as
/// PyTorch's `calc_erfinv`.
pub(crate) fn erfinv(y: f64) -> f64 {
    const A: [f64; 4] = [0.886226899, -1.645349621, 0.914624893, -0.140543331];
    const B: [f64; 4] = [-2.118377725, 1.442710462, -0.329097515, 0.012229801];
    const C: [f64; 4] = [-1.970840454, -1.624906493, 3.429567803, 1.641345311];
    const D: [f64; 2] = [3.543889200, 1.637067800];
    let ya = y.abs();
    if ya.is_nan() || ya > 1.0 {
        return f64::NAN;
    }
    if ya == 1.0 {
        return f64::INFINITY.copysign(y);
    }
    let mut x = if ya <= 0.7 {
        let z = y * y;
        let num = ((A[3] * z + A[2]) * z + A[1]) * z + A[0];
        let dem = (((B[3] * z + B[2]) * z + B[1]) * z + B[0]) * z + 1.0;
        y * num / dem
    } else {
        let z = (-((1.0 - ya) / 2.0).ln()).sqrt();
        let num = ((C[3] * z + C[2]) * z + C[1]) * z + C[0];
        let dem = (D[1] * z + D[0]) * z + 1.0;
        num.copysign(y) / dem
    };
    let two_over_sqrt_pi = std::f64::consts::FRAC_2_SQRT_PI;
    for _ in 0..2 {
        x -= (libm::erf(x) - y) / (two_over_sqrt_pi * (-x * x).exp());
    }
    x
}

static UNARY: &[Unary] = &[
    float_op("exp", f64::exp),
    float_op("exp2", f64::exp2),
    float_op("expm1", f64::exp_m1),
    float_op("log", f64::ln),
    float_op("log2", f64::log2),
    float_op("log10", f64::log10),
    float_op("log1p", f64::ln_1p),
    float_op("sqrt", f64::sqrt),
    float_op("rsqrt", |x| 1.0 / x.sqrt()),
    float_op("sin", f64::sin),
    float_op("cos", f64::cos),
    float_op("tan", f64::tan),
    float_op("asin", f64::asin),
    float_op("acos", f64::acos),
    float_op("atan", f64::atan),
    float_op("arcsin", f64::asin),
    float_op("arccos", f64::acos),
    float_op("arctan", f64::atan),
    float_op("sinh", f64::sinh),
    float_op("cosh", f64::cosh),
    float_op("tanh", f64::tanh),
    float_op("asinh", f64::asinh),
    float_op("acosh", f64::acosh),
    float_op("atanh", f64::atanh),
    float_op("arcsinh", f64::asinh),
    float_op("arccosh", f64::acosh),
    float_op("arctanh", f64::atanh),
    float_op("erf", libm::erf),
    float_op("erfc", libm::erfc),
    float_op("erfinv", erfinv),
    float_op("reciprocal", |x| 1.0 / x),
    float_op("sigmoid", sigmoid),
    same_op(
        "abs",
        "abs_cpu",
        Support::NoBool,
        f64::abs,
        i64::wrapping_abs,
    ),
    same_op(
        "absolute",
        "abs_cpu",
        Support::NoBool,
        f64::abs,
        i64::wrapping_abs,
    ),
    same_op("neg", "neg", Support::NoBool, |x| -x, i64::wrapping_neg),
    same_op(
        "negative",
        "neg",
        Support::NoBool,
        |x| -x,
        i64::wrapping_neg,
    ),
    same_op("positive", "positive", Support::NoBool, |x| x, |x| x),
    same_op("sign", "sign_cpu", Support::All, sign, i64::signum),
    same_op("sgn", "sgn_cpu", Support::All, sign, i64::signum),
    same_op("ceil", "ceil_vml_cpu", Support::NoBool, f64::ceil, |x| x),
    same_op("floor", "floor_vml_cpu", Support::NoBool, f64::floor, |x| x),
    same_op("trunc", "trunc_vml_cpu", Support::NoBool, f64::trunc, |x| x),
    same_op("fix", "trunc_vml_cpu", Support::NoBool, f64::trunc, |x| x),
    same_op(
        "frac",
        "frac_cpu",
        Support::Floating,
        |x| x - x.trunc(),
        |x| x,
    ),
    same_op(
        "bitwise_not",
        "bitwise_not_cpu",
        Support::Integral,
        |x| x,
        |x| !x,
    ),
    test_op("isnan", f64::is_nan, |_| false),
    test_op("isinf", f64::is_infinite, |_| false),
    test_op("isfinite", f64::is_finite, |_| true),
    test_op("isposinf", |x| x == f64::INFINITY, |_| false),
    test_op("isneginf", |x| x == f64::NEG_INFINITY, |_| false),
    test_op("signbit", f64::is_sign_negative, |x| x < 0),
];

pub fn register(r: &mut Registry) {
    for u in UNARY {
        let inplace = !matches!(u.rule, Rule::Test) && u.name != "positive";
        super::add(r, u.name, inplace, build_unary);
    }
    super::add(r, "round", true, |g, n| build(g, n, round));
    super::add(r, "square", true, |g, n| build(g, n, square));
    super::add(r, "nan_to_num", true, |g, n| build(g, n, nan_to_num));
    // `abs(t)` in TorchScript source is `prim::abs(Tensor x)`, aten::abs under another name.
    r.add_if("prim::abs", super::has_tensor_input, build_unary);
}

fn build_unary(g: &Graph, n: Node) -> Result<Operation, String> {
    let name = base_name(g, n);
    let spec = UNARY
        .iter()
        .find(|u| u.name == name)
        .ok_or_else(|| format!("no unary kernel named {name}"))?;
    build(g, n, move |c| unary(c, spec))
}

/// Runs a unary op on the call's `self` (`x` for the prim:: spelling).
pub(crate) fn unary(c: &Call, u: &Unary) -> Result<Tensor, String> {
    let x = c.tensor(if c.has("self") { "self" } else { "x" })?;
    let dtype = x.dtype();
    let args = [Arg::Tensor(x)];
    match u.rule {
        Rule::Float => {
            let common = to_float(dtype);
            if let Some(op) = fast::Unary::of(u.name) {
                let dst = prepare(c, &args, common)?;
                if let Some(t) = fast::unary(op, &args[0], dst.as_ref()) {
                    return Ok(t);
                }
                return float_map(u, &args, dtype, common, dst.as_ref());
            }
            let dst = prepare(c, &args, common)?;
            float_map(u, &args, dtype, common, dst.as_ref())
        }
        Rule::Same(support) => {
            super::check_out_exact(c, dtype)?;
            check_same(u, support, dtype)?;
            if dtype == DType::Bool && u.name == "bitwise_not" {
                return run(
                    c,
                    &args,
                    dtype,
                    dtype,
                    Compute::Int(&|x| (x[0] == 0) as i64),
                );
            }
            if dtype.is_floating() {
                let f = u.float;
                run(c, &args, dtype, dtype, Compute::Float(&|x| f(x[0])))
            } else {
                let i = u.int;
                run(c, &args, dtype, dtype, Compute::Int(&|x| i(x[0])))
            }
        }
        Rule::Test => {
            if let Some(o) = c.out().filter(|o| o.dtype() != DType::Bool) {
                return Err(match u.name {
                    "isnan" | "isinf" => format!(
                        "Expected out tensor to have dtype bool, but got {} instead",
                        o.dtype().cpp_type_name()
                    ),
                    name => format!("{name} does not support non-boolean outputs."),
                });
            }
            if dtype.is_floating() {
                let f = u.test_float;
                run(
                    c,
                    &args,
                    dtype,
                    DType::Bool,
                    Compute::FloatToBool(&|x| f(x[0])),
                )
            } else {
                let i = u.test_int;
                run(
                    c,
                    &args,
                    dtype,
                    DType::Bool,
                    Compute::IntToBool(&|x| i(x[0])),
                )
            }
        }
    }
}

fn float_map(
    u: &Unary,
    args: &[Arg],
    input: DType,
    common: DType,
    dst: Option<&Tensor>,
) -> Result<Tensor, String> {
    let f = u.float;
    if input.is_floating() {
        run_into(args, common, common, Compute::Float(&|x| f(x[0])), dst)
    } else {
        // PyTorch casts integers to the float dtype before computing.
        run_into(
            args,
            common,
            common,
            Compute::Float(&|x| f(round_to(common, x[0]))),
            dst,
        )
    }
}

fn check_same(u: &Unary, support: Support, dtype: DType) -> Result<(), String> {
    if dtype == DType::Bool && support != Support::All && support != Support::Integral {
        match u.kernel {
            "neg" => return Err("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.".into()),
            "positive" => return Err("The `+` operator, on a bool tensor is not supported.".into()),
            _ => {}
        }
    }
    support.check(u.kernel, dtype)
}

/// `round(self)` (half to even) and `round(self, decimals=)`.
fn round(c: &Call) -> Result<Tensor, String> {
    let x = c.tensor("self")?;
    let dtype = x.dtype();
    let args = [Arg::Tensor(x)];
    super::check_out_exact(c, dtype)?;
    if !c.has("decimals") {
        if dtype == DType::Bool {
            return Err(not_implemented("round_vml_cpu", dtype));
        }
        if !dtype.is_floating() {
            return run(c, &args, dtype, dtype, Compute::Int(&|x| x[0]));
        }
        return run(
            c,
            &args,
            dtype,
            dtype,
            Compute::Float(&|x| x[0].round_ties_even()),
        );
    }
    let decimals = c.i64("decimals")?;
    Support::Floating.check("round_cpu", dtype)?;
    // Computed in the tensor's dtype, as PyTorch does (the scaled value is rounded first).
    let f = move |x: &[f64]| {
        let r = |v: f64| round_to(dtype, v);
        if decimals < 0 {
            let p = r(10f64.powi((-decimals).min(400) as i32));
            r(r(x[0] / p).round_ties_even() * p)
        } else {
            let p = r(10f64.powi(decimals.min(400) as i32));
            r(r(x[0] * p).round_ties_even() / p)
        }
    };
    run(c, &args, dtype, dtype, Compute::Float(&f))
}

/// `square(self)`: `pow(self, 2)`, so bools give int64.
fn square(c: &Call) -> Result<Tensor, String> {
    let x = c.tensor("self")?;
    let dtype = x.dtype();
    let args = [Arg::Tensor(x)];
    if dtype.is_floating() {
        run(c, &args, dtype, dtype, Compute::Float(&|x| x[0] * x[0]))
    } else {
        let result = if dtype == DType::Bool {
            DType::I64
        } else {
            dtype
        };
        run(
            c,
            &args,
            result,
            result,
            Compute::Int(&|x| x[0].wrapping_mul(x[0])),
        )
    }
}

/// `nan_to_num(self, nan=None, posinf=None, neginf=None)`: the defaults are 0 and the
/// dtype's largest and smallest finite values.
fn nan_to_num(c: &Call) -> Result<Tensor, String> {
    let x = c.tensor("self")?;
    let dtype = x.dtype();
    let args = [Arg::Tensor(x)];
    if let Some(o) = c.out().filter(|o| o.dtype() != dtype) {
        return Err(format!(
            "nan_to_num: dtype of out: {} should be same as input: {}",
            super::type_name(o.dtype()),
            super::type_name(dtype)
        ));
    }
    if !dtype.is_floating() {
        return run(c, &args, dtype, dtype, Compute::Int(&|x| x[0]));
    }
    let opt = |name: &str| -> Result<Option<f64>, String> {
        match c.value(name) {
            crate::ivalue::IValue::None => Ok(None),
            _ => c.f64(name).map(Some),
        }
    };
    let max = super::float_max(dtype);
    let nan = opt("nan")?.unwrap_or(0.0);
    let pos = opt("posinf")?.unwrap_or(max);
    let neg = opt("neginf")?.unwrap_or(-max);
    let f = move |x: &[f64]| {
        let v = x[0];
        if v.is_nan() {
            nan
        } else if v == f64::INFINITY {
            pos
        } else if v == f64::NEG_INFINITY {
            neg
        } else {
            v
        }
    };
    run(c, &args, dtype, dtype, Compute::Float(&f))
}

#[cfg(test)]
mod tests {
    use super::super::testing::*;
    use super::*;
    use crate::ivalue::IValue;

    fn unary_graph(op: &str) -> String {
        graph("%x : Tensor", &format!("  %r : Tensor = {op}(%x)"))
    }

    #[test]
    fn float_functions_promote_integers() {
        let out = run1(&unary_graph("aten::exp"), vec![t(vec![0i32, 1], &[2])]).unwrap();
        assert_eq!(out.dtype(), DType::F32);
        assert_close(
            &out.to_vec::<f64>(),
            &[1.0, std::f32::consts::E as f64],
            1e-7,
        );
        let out = run1(&unary_graph("aten::sqrt"), vec![t(vec![true, false], &[2])]).unwrap();
        assert_eq!(out.to_vec::<f32>(), vec![1.0, 0.0]);
    }

    #[test]
    fn in_place_float_op_on_int_is_refused() {
        let err = run_graph(&unary_graph("aten::sqrt_"), vec![t(vec![4i64], &[1])]).unwrap_err();
        assert_eq!(
            err,
            "result type Float can't be cast to the desired output type Long"
        );
        let x = Tensor::from_vec(vec![4.0f32, 9.0], &[2]).unwrap();
        let out = run1(&unary_graph("aten::sqrt_"), vec![IValue::Tensor(x.clone())]).unwrap();
        assert!(out.is_same(&x));
        assert_eq!(x.to_vec::<f32>(), vec![2.0, 3.0]);
    }

    #[test]
    fn dtype_preserving_ops_and_their_errors() {
        let out = run1(&unary_graph("aten::abs"), vec![t(vec![-128i8, 5], &[2])]).unwrap();
        assert_eq!(out.to_vec::<i8>(), vec![-128, 5]);
        let out = run1(&unary_graph("aten::neg"), vec![t(vec![3u8], &[1])]).unwrap();
        assert_eq!(out.to_vec::<u8>(), vec![253]);
        let err = run_graph(&unary_graph("aten::abs"), vec![t(vec![true], &[1])]).unwrap_err();
        assert_eq!(err, "\"abs_cpu\" not implemented for 'Bool'");
        let err = run_graph(&unary_graph("aten::frac"), vec![t(vec![1i32], &[1])]).unwrap_err();
        assert_eq!(err, "\"frac_cpu\" not implemented for 'Int'");
        let err = run_graph(&unary_graph("aten::neg"), vec![t(vec![true], &[1])]).unwrap_err();
        assert!(err.starts_with("Negation, the `-` operator"));
        let out = run1(
            &unary_graph("aten::sign"),
            vec![t(vec![-2.0f64, -0.0, f64::NAN, 3.0], &[4])],
        )
        .unwrap();
        let v = out.to_vec::<f64>();
        assert_eq!(v, vec![-1.0, 0.0, 0.0, 1.0]);
        assert!(v[1].is_sign_positive());
    }

    #[test]
    fn rounding_is_half_to_even() {
        let x = t(vec![0.5f32, 1.5, 2.5, -0.5, -1.5], &[5]);
        let out = run1(&unary_graph("aten::round"), vec![x]).unwrap();
        assert_eq!(out.to_vec::<f32>(), vec![0.0, 2.0, 2.0, -0.0, -2.0]);
        let src = graph(
            "%x : Tensor",
            "  %d : int = prim::Constant[value=1]()\n  %r : Tensor = aten::round(%x, %d)",
        );
        let out = run1(&src, vec![t(vec![1.25f32, 1234.5678], &[2])]).unwrap();
        assert_eq!(out.to_vec::<f32>(), vec![1.2, 1234.6]);
        let err = run_graph(&src, vec![t(vec![1i64], &[1])]).unwrap_err();
        assert_eq!(err, "\"round_cpu\" not implemented for 'Long'");
    }

    #[test]
    fn tests_give_bools_and_nan_to_num_uses_dtype_limits() {
        let x = t(vec![f32::NAN, f32::INFINITY, -f32::INFINITY, -0.0], &[4]);
        let out = run1(&unary_graph("aten::isnan"), vec![x.clone()]).unwrap();
        assert_eq!(out.to_vec::<bool>(), vec![true, false, false, false]);
        let out = run1(&unary_graph("aten::signbit"), vec![x.clone()]).unwrap();
        assert_eq!(out.to_vec::<bool>(), vec![false, false, true, true]);
        let src = graph(
            "%x : Tensor",
            "  %n : NoneType = prim::Constant()\n  %r : Tensor = aten::nan_to_num(%x, %n, %n, %n)",
        );
        let out = run1(&src, vec![x]).unwrap();
        assert_eq!(out.to_vec::<f32>(), vec![0.0, f32::MAX, f32::MIN, -0.0]);
    }

    #[test]
    fn erfinv_inverts_erf() {
        for y in [-0.999, -0.7, -0.3, 0.0, 0.2, 0.5, 0.71, 0.95] {
            assert!((libm::erf(erfinv(y)) - y).abs() < 1e-12, "{y}");
        }
        assert_eq!(erfinv(1.0), f64::INFINITY);
        assert!(erfinv(1.5).is_nan());
    }

    #[test]
    fn out_form_resizes_and_casts() {
        let src = graph(
            "%x : Tensor, %o : Tensor",
            "  %r : Tensor = aten::exp(%x, %o)",
        );
        let o = Tensor::zeros(&[0], DType::F64).unwrap();
        let out = run1(
            &src,
            vec![t(vec![0.0f32, 1.0], &[2]), IValue::Tensor(o.clone())],
        )
        .unwrap();
        assert!(out.is_same(&o));
        assert_eq!(o.sizes().as_slice(), &[2]);
        assert_eq!(o.to_vec::<f64>(), vec![1.0, (1.0f32).exp() as f64]);
    }
}
