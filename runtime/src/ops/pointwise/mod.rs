//! Pointwise tensor operators: every overload (Tensor/Scalar operands, in-place `_`, `out=`)
//! of the elementwise math, comparison, logical, ternary and activation ops, on the
//! elementwise engine with PyTorch's type promotion, dtype support and messages.
//!
//! A node's overload is resolved from its input types when the code is built; the operation
//! reads its inputs by the schema's argument names, so one kernel serves the functional,
//! in-place and `out=` forms alike.

mod activation;
mod binary;
mod compare;
pub(crate) mod fast;
mod logical;
mod strided;
mod ternary;
mod unary;
pub(crate) mod vmath;

use std::sync::Arc;

/// Cephes' single-precision log polynomial (`logf`: log(1 + f) = f - f²/2 + f³ P(f) on
/// sqrt(1/2) <= 1 + f < sqrt(2)), highest degree first; the decimals as C rounds them to
/// float. Shared by the seeded normals and the compiled kernels' log.
#[allow(clippy::excessive_precision)]
pub const CEPHES_LOGF_POLY: [f32; 9] = [
    7.0376836292E-2,
    -1.1514610310E-1,
    1.1676998740E-1,
    -1.2420140846E-1,
    1.4249322787E-1,
    -1.6668057665E-1,
    2.0000714765E-1,
    -2.4999993993E-1,
    3.3333331174E-1,
];

use ember_dialects::catalogue::resolve_node;
use ember_dialects::schema::FunctionSchema;
use ember_dialects::{Graph, Node};

pub(crate) use super::args::Scalar;
use super::args::{arg_by_name, resize_output, scalar_of};
use super::registry::{has_tensor_input, Registry};
use super::{pop_n, Operation, Stack};
use crate::ivalue::IValue;
use crate::tensor::elementwise::{can_cast, map, promoted_dtype, Arg, Compute, Target};
use crate::tensor::{broadcast_shapes, DType, Tensor};

pub(crate) use fast::output_for_overwrite;
pub use fast::{HEAVY_PARALLEL_THRESHOLD, PARALLEL_THRESHOLD};

pub fn register(r: &mut Registry) {
    unary::register(r);
    binary::register(r);
    compare::register(r);
    logical::register(r);
    ternary::register(r);
    activation::register(r);
}

/// Registers `kernel` for the tensor overloads of `kind`, its in-place form `kind_` unless
/// `inplace` is false (the `out=` forms share the kind).
pub(crate) fn add(r: &mut Registry, name: &str, inplace: bool, builder: super::registry::Builder) {
    r.add_if(&format!("aten::{name}"), has_tensor_input, builder);
    if inplace {
        r.add_if(&format!("aten::{name}_"), has_tensor_input, builder);
    }
}

/// The op name of a node without namespace and in-place suffix (`aten::add_` -> `add`;
/// dunder names such as `__and__` are kept).
pub(crate) fn base_name(g: &Graph, n: Node) -> &'static str {
    let name = g.kind(n).as_str();
    let name = name.split_once("::").map_or(name, |(_, b)| b);
    if name.starts_with("__") {
        name
    } else {
        name.strip_suffix('_').unwrap_or(name)
    }
}

/// Builds the operation of node `n` around `kernel`: the schema is resolved once here.
pub(crate) fn build(
    g: &Graph,
    n: Node,
    kernel: impl Fn(&Call) -> Result<Tensor, String> + Send + Sync + 'static,
) -> Result<Operation, String> {
    let schema = resolve_node(g, n)?;
    let count = g.node_inputs(n).len();
    let name = base_name(g, n);
    Ok(Arc::new(move |s: &mut Stack| {
        let values = pop_n(s, count)?;
        let call = Call {
            schema,
            values,
            name,
        };
        let t = kernel(&call)?;
        s.push(IValue::Tensor(t));
        Ok(())
    }))
}

/// One call of an operator: its inputs, read by the schema's argument names.
pub(crate) struct Call {
    pub schema: &'static FunctionSchema,
    pub values: Vec<IValue>,
    /// The op's base name (`add` for `aten::add_`).
    pub name: &'static str,
}

impl Call {
    pub fn has(&self, name: &str) -> bool {
        arg_by_name(self.schema, &self.values, name).is_some()
    }

    /// The value of argument `name` (None when the schema has no such argument).
    pub fn value(&self, name: &str) -> &IValue {
        static NONE: IValue = IValue::None;
        arg_by_name(self.schema, &self.values, name).unwrap_or(&NONE)
    }

    pub fn tensor(&self, name: &str) -> Result<Tensor, String> {
        match self.value(name) {
            IValue::Tensor(t) => Ok(t.clone()),
            other => Err(format!(
                "{}: expected a Tensor for argument '{name}' but got {}",
                self.name,
                other.kind_name()
            )),
        }
    }

    /// A Tensor or Scalar operand.
    pub fn operand(&self, name: &str) -> Result<Arg, String> {
        to_arg(self.value(name)).ok_or_else(|| {
            format!(
                "{}: expected a Tensor or a number for argument '{name}' but got {}",
                self.name,
                self.value(name).kind_name()
            )
        })
    }

    /// A Scalar argument as a number, or None when absent/None.
    pub fn scalar(&self, name: &str) -> Option<Scalar> {
        scalar_of(self.value(name))
    }

    pub fn f64(&self, name: &str) -> Result<f64, String> {
        self.scalar(name).map(Scalar::to_f64).ok_or_else(|| {
            format!(
                "{}: expected a number for argument '{name}' but got {}",
                self.name,
                self.value(name).kind_name()
            )
        })
    }

    pub fn i64(&self, name: &str) -> Result<i64, String> {
        match self.value(name) {
            IValue::Int(i) => Ok(*i),
            IValue::Bool(b) => Ok(*b as i64),
            other => Err(format!(
                "{}: expected an int for argument '{name}' but got {}",
                self.name,
                other.kind_name()
            )),
        }
    }

    pub fn bool(&self, name: &str) -> Result<bool, String> {
        match self.value(name) {
            IValue::Bool(b) => Ok(*b),
            IValue::Int(i) => Ok(*i != 0),
            other => Err(format!(
                "{}: expected a bool for argument '{name}' but got {}",
                self.name,
                other.kind_name()
            )),
        }
    }

    pub fn opt_str(&self, name: &str) -> Option<&str> {
        self.value(name).as_str()
    }

    /// The `out=` tensor of an out overload.
    pub fn out(&self) -> Option<Tensor> {
        let i = self.schema.arguments.iter().position(|a| a.is_out())?;
        self.values.get(i)?.as_tensor().cloned()
    }

    /// Whether this is the in-place form (`self` is written).
    pub fn in_place(&self) -> bool {
        self.schema
            .arguments
            .first()
            .is_some_and(|a| a.is_write() && !a.kwarg_only)
    }

    /// Where the result goes: the in-place `self`, the `out=` tensor, or a new tensor.
    pub fn destination(&self) -> Result<Option<Tensor>, String> {
        if self.in_place() {
            return self
                .tensor(self.schema.arguments[0].name.as_str())
                .map(Some);
        }
        Ok(self.out())
    }
}

pub(crate) fn to_arg(v: &IValue) -> Option<Arg> {
    Some(match v {
        IValue::Tensor(t) => Arg::Tensor(t.clone()),
        IValue::Int(i) => Arg::Int(*i),
        IValue::Bool(b) => Arg::Bool(*b),
        IValue::Double(d) => Arg::Float(*d),
        _ => return None,
    })
}

/// PyTorch's C++ name of a dtype, as its messages spell it (`Float`, `Long`).
pub(crate) fn type_name(d: DType) -> &'static str {
    d.scalar_type().name()
}

/// `"kernel" not implemented for 'Type'`, PyTorch's dispatch error.
pub(crate) fn not_implemented(kernel: &str, d: DType) -> String {
    format!("\"{kernel}\" not implemented for '{}'", type_name(d))
}

/// The dtype sets PyTorch's kernels dispatch on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Support {
    All,
    /// Every dtype except bool.
    NoBool,
    /// Floating dtypes only.
    Floating,
    /// Bool and integers.
    Integral,
    /// Integers only.
    IntegerNoBool,
}

impl Support {
    pub fn check(self, kernel: &str, d: DType) -> Result<(), String> {
        let ok = match self {
            Support::All => true,
            Support::NoBool => d != DType::Bool,
            Support::Floating => d.is_floating(),
            Support::Integral => !d.is_floating(),
            Support::IntegerNoBool => d.is_integral(),
        };
        if ok {
            Ok(())
        } else {
            Err(not_implemented(kernel, d))
        }
    }
}

/// The dtype of an operand as it takes part in promotion.
pub(crate) fn arg_dtype(a: &Arg) -> DType {
    match a {
        Arg::Tensor(t) => t.dtype(),
        Arg::Int(_) => DType::I64,
        Arg::Bool(_) => DType::Bool,
        Arg::Float(_) => DType::F64,
    }
}

/// PyTorch's result type of these operands.
pub(crate) fn common_dtype(args: &[Arg]) -> DType {
    promoted_dtype(args)
}

/// Integral dtypes become the default float (`promote_integer_inputs_to_float`).
pub(crate) fn to_float(d: DType) -> DType {
    if d.is_floating() {
        d
    } else {
        crate::tensor::elementwise::DEFAULT_FLOAT
    }
}

/// The broadcast shape of the operands.
pub(crate) fn broadcast_all(args: &[Arg]) -> Result<Vec<i64>, String> {
    let mut shape: Vec<i64> = Vec::new();
    for a in args {
        if let Arg::Tensor(t) = a {
            shape = broadcast_shapes(&shape, &t.sizes())
                .map_err(|e| e.message)?
                .to_vec();
        }
    }
    Ok(shape)
}

/// Checks that `dst` can receive a result of dtype `result` (PyTorch's `canCast`).
pub(crate) fn check_cast(result: DType, dst: DType) -> Result<(), String> {
    if can_cast(result, dst) {
        Ok(())
    } else {
        Err(format!(
            "result type {} can't be cast to the desired output type {}",
            type_name(result),
            type_name(dst)
        ))
    }
}

/// Refuses destinations where several elements share one memory location (expanded views).
pub(crate) fn check_no_internal_overlap(t: &Tensor) -> Result<(), String> {
    let m = t.meta();
    if m.sizes
        .iter()
        .zip(&m.strides)
        .any(|(&s, &st)| s > 1 && st == 0)
    {
        return Err("unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.".into());
    }
    Ok(())
}

/// Structured kernels want an `out=` tensor of exactly the result dtype.
pub(crate) fn check_out_exact(c: &Call, expected: DType) -> Result<(), String> {
    match c.out() {
        Some(o) if o.dtype() != expected => Err(format!(
            "Found dtype {} but expected {}",
            type_name(o.dtype()),
            type_name(expected)
        )),
        _ => Ok(()),
    }
}

/// A Scalar converted to `dtype` with PyTorch's overflow check (`Scalar::to<T>()`), as f64.
pub(crate) fn checked_scalar(s: Scalar, dtype: DType) -> Result<f64, String> {
    let v = s.to_f64();
    let (lo, hi, name) = match dtype {
        DType::U8 => (0.0, 255.0, "uint8_t"),
        DType::I8 => (-128.0, 127.0, "int8_t"),
        DType::I16 => (-32768.0, 32767.0, "int16_t"),
        DType::I32 => (-2147483648.0, 2147483647.0, "int"),
        DType::I64 => (-9.223372036854776e18, 9.223372036854776e18, "int64_t"),
        DType::F16 => (-65504.0, 65504.0, "c10::Half"),
        DType::BF16 => (
            -3.3895313892515355e38,
            3.3895313892515355e38,
            "c10::BFloat16",
        ),
        DType::F32 => (f32::MIN as f64, f32::MAX as f64, "float"),
        DType::F64 | DType::Bool => return Ok(v),
    };
    let t = if dtype.is_floating() { v } else { v.trunc() };
    if t.is_finite() && (t < lo || t > hi) || (!dtype.is_floating() && !v.is_finite()) {
        return Err(format!(
            "value cannot be converted to type {name} without overflow"
        ));
    }
    Ok(v)
}

/// Prepares the destination of a call whose operands broadcast to `shape` and whose result
/// has dtype `result`: a fresh tensor, or the checked in-place / `out=` tensor.
pub(crate) fn prepare(c: &Call, args: &[Arg], result: DType) -> Result<Option<Tensor>, String> {
    let shape = broadcast_all(args)?;
    let Some(dst) = c.destination()? else {
        return Ok(None);
    };
    check_cast(result, dst.dtype())?;
    if c.in_place() {
        let sizes = dst.sizes();
        if sizes.as_slice() != shape.as_slice()
            && broadcast_shapes(&sizes, &shape)
                .map_err(|e| e.message)?
                .as_slice()
                != sizes.as_slice()
        {
            return Err(format!(
                "output with shape [{}] doesn't match the broadcast shape [{}]",
                join(&sizes),
                join(&shape)
            ));
        }
    } else {
        resize_output(&dst, &shape).map_err(|e| e.message)?;
    }
    check_no_internal_overlap(&dst)?;
    // PyTorch's generated `Scalar_out` overloads compute into a temporary and copy, so they
    // never see the overlap (and read every input before writing, as the engine does).
    if !c.schema.overload_name.ends_with("Scalar_out") {
        for a in args {
            if let Arg::Tensor(t) = a {
                check_no_partial_overlap(&dst, t)?;
            }
        }
    }
    Ok(Some(dst))
}

/// Refuses an input that overlaps the destination without being exactly it, as PyTorch's
/// `assert_no_partial_overlap` (decided, like it, only for contiguous tensors).
pub(crate) fn check_no_partial_overlap(dst: &Tensor, input: &Tensor) -> Result<(), String> {
    if !dst.shares_storage(input) || !dst.is_contiguous() || !input.is_contiguous() {
        return Ok(());
    }
    let (n, m) = (dst.numel() as i64, input.numel() as i64);
    if n == 0 || m == 0 {
        return Ok(());
    }
    let (a, b) = (dst.storage_offset(), input.storage_offset());
    let same = a == b && n == m;
    if !same && a < b + m && b < a + n {
        return Err("unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.".into());
    }
    Ok(())
}

pub(crate) fn join(v: &[i64]) -> String {
    v.iter()
        .map(|x| x.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Runs `compute` over `args` into the call's destination. `common` is the dtype values are
/// computed in: when the destination has another dtype, results are first rounded to
/// `common` (as PyTorch computes in it and then casts).
pub(crate) fn run(
    c: &Call,
    args: &[Arg],
    common: DType,
    result: DType,
    compute: Compute<'_>,
) -> Result<Tensor, String> {
    let dst = prepare(c, args, result)?;
    run_into(args, common, result, compute, dst.as_ref())
}

/// As [`run`], with the destination already prepared (`None`: a fresh tensor).
pub(crate) fn run_into(
    args: &[Arg],
    common: DType,
    result: DType,
    compute: Compute<'_>,
    dst: Option<&Tensor>,
) -> Result<Tensor, String> {
    let target = match dst {
        Some(t) => Target::Into(t),
        None => Target::New(result),
    };
    // Scalars and 0-dim tensors are cast to the computation dtype first, as PyTorch does.
    let args: Vec<Arg> = args.iter().map(|a| cast_scalar(a, common)).collect();
    // Tensors whose values the computation dtype cannot hold exactly are rounded to it.
    let round_inputs = common.is_floating()
        && args.iter().any(|a| match a {
            Arg::Tensor(t) => !exact_in(t.dtype(), common),
            _ => false,
        });
    let round_output = dst.is_some_and(|t| t.dtype() != result) && common == result;
    let rounded = |x: &[f64]| -> smallvec::SmallVec<[f64; 4]> {
        x.iter().map(|&v| round_to(common, v)).collect()
    };
    if !round_inputs && !round_output {
        if let Some(t) = fast::general(&args, compute, common, result, dst) {
            return Ok(t);
        }
    }
    let out = match compute {
        Compute::Float(f) if round_inputs || round_output => {
            let g = move |x: &[f64]| {
                let v = if round_inputs { f(&rounded(x)) } else { f(x) };
                if round_output {
                    round_to(common, v)
                } else {
                    v
                }
            };
            map(&args, Compute::Float(&g), target)
        }
        Compute::FloatToBool(f) if round_inputs => {
            let g = move |x: &[f64]| f(&rounded(x));
            map(&args, Compute::FloatToBool(&g), target)
        }
        Compute::Int(f) if round_output => {
            let g = move |x: &[i64]| wrap_to(common, f(x));
            map(&args, Compute::Int(&g), target)
        }
        other => map(&args, other, target),
    };
    out.map_err(|e| e.message)
}

/// Whether every value of dtype `from` is exactly representable in `to`.
fn exact_in(from: DType, to: DType) -> bool {
    use DType::*;
    match to {
        F64 => from != I64,
        F32 => matches!(from, Bool | U8 | I8 | I16 | F16 | BF16 | F32),
        F16 => matches!(from, Bool | U8 | I8 | F16),
        BF16 => matches!(from, Bool | U8 | I8 | BF16),
        _ => true,
    }
}

/// A scalar operand (or 0-dim tensor of another dtype) converted to `common`.
fn cast_scalar(a: &Arg, common: DType) -> Arg {
    let float = common.is_floating();
    match a {
        Arg::Tensor(t) if t.dim() == 0 && t.dtype() != common => {
            if float {
                Arg::Float(round_to(common, t.item_f64().unwrap_or(f64::NAN)))
            } else if t.dtype().is_floating() {
                Arg::Int(wrap_to(common, t.item_f64().unwrap_or(0.0) as i64))
            } else {
                Arg::Int(wrap_to(common, t.item_i64().unwrap_or(0)))
            }
        }
        Arg::Float(v) if float => Arg::Float(round_to(common, *v)),
        Arg::Float(v) => Arg::Int(wrap_to(common, *v as i64)),
        Arg::Int(v) if float => Arg::Float(round_to(common, *v as f64)),
        Arg::Int(v) => Arg::Int(wrap_to(common, *v)),
        Arg::Bool(b) => Arg::Int(*b as i64),
        other => other.clone(),
    }
}

/// `v` rounded to the floating dtype `d` and back.
pub(crate) fn round_to(d: DType, v: f64) -> f64 {
    match d {
        DType::F32 => v as f32 as f64,
        DType::F16 => half::f16::from_f64(v).to_f64(),
        DType::BF16 => half::bf16::from_f64(v).to_f64(),
        _ => v,
    }
}

/// `v` wrapped to the integral dtype `d` and back.
pub(crate) fn wrap_to(d: DType, v: i64) -> i64 {
    match d {
        DType::Bool => (v != 0) as i64,
        DType::U8 => v as u8 as i64,
        DType::I8 => v as i8 as i64,
        DType::I16 => v as i16 as i64,
        DType::I32 => v as i32 as i64,
        _ => v,
    }
}

/// The largest finite value of a floating dtype.
pub(crate) fn float_max(d: DType) -> f64 {
    match d {
        DType::F16 => half::f16::MAX.to_f64(),
        DType::BF16 => half::bf16::MAX.to_f64(),
        DType::F32 => f32::MAX as f64,
        _ => f64::MAX,
    }
}

/// Whether any element of a broadcast operand is zero (integer division checks).
pub(crate) fn has_zero(a: &Arg) -> bool {
    match a {
        Arg::Tensor(t) => t.to_vec::<i64>().contains(&0),
        Arg::Int(i) => *i == 0,
        Arg::Bool(b) => !*b,
        Arg::Float(f) => *f as i64 == 0,
    }
}

/// The number of elements the operands broadcast to.
pub(crate) fn broadcast_numel(args: &[Arg]) -> Result<usize, String> {
    Ok(broadcast_all(args)?.iter().map(|&s| s as usize).product())
}

#[cfg(test)]
pub(crate) mod testing;
