//! Schema-driven operators: a node is matched to its overload once, when its code is built,
//! and its kernel reads arguments by their schema names (`self`, `dim`, `dtype`), so every
//! overload of an op shares one way of reading optional and keyword arguments. `out=` forms
//! are handled here for every kernel: the result is written into `out` (resized as PyTorch
//! resizes it) and `out` itself is returned.

use std::sync::Arc;

use ember_dialects::catalogue::{catalogue, resolve_node};
use ember_dialects::schema::FunctionSchema;
use ember_dialects::{Graph, Node};

use crate::bail;
use crate::ivalue::IValue;
use crate::ops::args::copy_out;
use crate::ops::Operation;
use crate::tensor::{DType, Device, Element, Tensor, TensorError, TensorResult};

/// A kernel: computes the op's result from its arguments.
pub type Kernel = fn(&Call) -> TensorResult<IValue>;

/// Chooses the kernel for an overload name (`""` for the default overload).
pub type Pick = fn(&str) -> Option<Kernel>;

/// Registers `$pick`'s kernels for the nodes of `$kind` whose overload it knows.
macro_rules! kernels {
    ($r:expr, $kind:expr, $pick:expr) => {
        $r.add_if(
            $kind,
            |g, n| $crate::ops::shape::call::accepts(g, n, $pick),
            |g, n| $crate::ops::shape::call::build(g, n, $pick),
        )
    };
}
pub(crate) use kernels;

/// The arguments of one call, read by schema name.
pub struct Call<'a> {
    args: &'a [IValue],
    schema: &'static FunctionSchema,
}

static NONE: IValue = IValue::None;

/// A Python number as a `Scalar` argument holds it.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Scalar {
    pub fn to_f64(self) -> f64 {
        match self {
            Scalar::Bool(b) => b as i64 as f64,
            Scalar::Int(i) => i as f64,
            Scalar::Float(f) => f,
        }
    }

    /// Truncates floats toward zero, as `Scalar::to<int64_t>()`.
    pub fn to_i64(self) -> i64 {
        match self {
            Scalar::Bool(b) => b as i64,
            Scalar::Int(i) => i,
            Scalar::Float(f) => f as i64,
        }
    }

    /// The dtype PyTorch infers for a tensor made from this number.
    pub fn default_dtype(self) -> DType {
        match self {
            Scalar::Bool(_) => DType::Bool,
            Scalar::Int(_) => DType::I64,
            Scalar::Float(_) => crate::tensor::elementwise::DEFAULT_FLOAT,
        }
    }

    pub fn is_float(self) -> bool {
        matches!(self, Scalar::Float(_))
    }

    /// The value converted to `T` exactly as PyTorch stores a Scalar into a tensor.
    pub fn to_element<T: Element>(self) -> T {
        match self {
            Scalar::Float(f) => T::from_f64(f),
            other => T::from_i64(other.to_i64()),
        }
    }

    /// PyTorch's `checked_convert` when a Scalar is stored into a tensor of `dtype`
    /// (`fill_`, `full`): integers must fit (unsigned types also accept down to -max, which
    /// wraps), finite floats must fit the float type's range.
    pub fn check_fits(self, dtype: DType) -> TensorResult<()> {
        let (lo, hi, name): (f64, f64, &str) = match dtype {
            DType::Bool => return Ok(()),
            DType::U8 => (-255.0, 255.0, "uint8_t"),
            DType::I8 => (-128.0, 127.0, "int8_t"),
            DType::I16 => (-32768.0, 32767.0, "int16_t"),
            DType::I32 => (-2147483648.0, 2147483647.0, "int32_t"),
            DType::I64 => return Ok(()),
            DType::F16 => (-65504.0, 65504.0, "c10::Half"),
            DType::BF16 => (
                -3.3895313892515355e38,
                3.3895313892515355e38,
                "c10::BFloat16",
            ),
            DType::F32 => (f32::MIN as f64, f32::MAX as f64, "float"),
            DType::F64 => return Ok(()),
        };
        let v = self.to_f64();
        let overflows = match self {
            Scalar::Float(f) if dtype.is_floating() => f.is_finite() && (f < lo || f > hi),
            Scalar::Float(f) => !f.is_finite() || f.trunc() < lo || f.trunc() > hi,
            _ => v < lo || v > hi,
        };
        if overflows {
            bail!("value cannot be converted to type {name} without overflow");
        }
        Ok(())
    }

    pub fn to_ivalue(self) -> IValue {
        match self {
            Scalar::Bool(b) => IValue::Bool(b),
            Scalar::Int(i) => IValue::Int(i),
            Scalar::Float(f) => IValue::Double(f),
        }
    }
}

fn kind_error(name: &str, want: &str, got: &IValue) -> TensorError {
    TensorError::new(format!(
        "expected argument '{name}' to be {want}, but got {}",
        got.kind_name()
    ))
}

impl<'a> Call<'a> {
    /// A call over `args` for `schema` (used by tests and by ops built by hand).
    pub fn new(args: &'a [IValue], schema: &'static FunctionSchema) -> Call<'a> {
        Call { args, schema }
    }

    /// The overload being run (`"dim"` for `aten::squeeze.dim`).
    pub fn overload(&self) -> &str {
        &self.schema.overload_name
    }

    /// The operator's qualified name (`aten::zeros`), for messages that name it.
    pub fn op_name(&self) -> &str {
        &self.schema.name
    }

    /// Whether the schema has an argument `name`.
    pub fn has(&self, name: &str) -> bool {
        self.schema.argument_index_with_name(name).is_some()
    }

    /// The argument `name`, or None when the schema or the node lacks it.
    pub fn get(&self, name: &str) -> &IValue {
        self.schema
            .argument_index_with_name(name)
            .and_then(|i| self.args.get(i))
            .unwrap_or(&NONE)
    }

    pub fn tensor(&self, name: &str) -> TensorResult<Tensor> {
        match self.get(name) {
            IValue::Tensor(t) => Ok(t.clone()),
            other => Err(kind_error(name, "a Tensor", other)),
        }
    }

    pub fn opt_tensor(&self, name: &str) -> TensorResult<Option<Tensor>> {
        match self.get(name) {
            IValue::None => Ok(None),
            _ => self.tensor(name).map(Some),
        }
    }

    pub fn int(&self, name: &str) -> TensorResult<i64> {
        match self.get(name) {
            IValue::Int(i) => Ok(*i),
            IValue::Bool(b) => Ok(*b as i64),
            other => Err(kind_error(name, "an int", other)),
        }
    }

    pub fn opt_int(&self, name: &str) -> TensorResult<Option<i64>> {
        match self.get(name) {
            IValue::None => Ok(None),
            _ => self.int(name).map(Some),
        }
    }

    pub fn float(&self, name: &str) -> TensorResult<f64> {
        match self.get(name) {
            IValue::Double(d) => Ok(*d),
            IValue::Int(i) => Ok(*i as f64),
            IValue::Bool(b) => Ok(*b as i64 as f64),
            other => Err(kind_error(name, "a float", other)),
        }
    }

    pub fn boolean(&self, name: &str) -> TensorResult<bool> {
        match self.get(name) {
            IValue::Bool(b) => Ok(*b),
            IValue::Int(i) => Ok(*i != 0),
            IValue::None => Ok(false),
            other => Err(kind_error(name, "a bool", other)),
        }
    }

    pub fn string(&self, name: &str) -> TensorResult<String> {
        match self.get(name) {
            IValue::Str(s) => Ok(s.to_string()),
            other => Err(kind_error(name, "a str", other)),
        }
    }

    pub fn scalar(&self, name: &str) -> TensorResult<Scalar> {
        scalar_of(self.get(name)).ok_or_else(|| kind_error(name, "a number", self.get(name)))
    }

    /// An `int[]` argument; a single int stands for a one-element list (`int[1]`).
    pub fn ints(&self, name: &str) -> TensorResult<Vec<i64>> {
        match self.get(name) {
            IValue::Int(i) => Ok(vec![*i]),
            IValue::List(l) => l
                .to_vec()
                .iter()
                .map(|v| {
                    v.as_int()
                        .ok_or_else(|| kind_error(name, "a list of ints", v))
                })
                .collect(),
            IValue::Tuple(items) => items
                .iter()
                .map(|v| {
                    v.as_int()
                        .ok_or_else(|| kind_error(name, "a list of ints", v))
                })
                .collect(),
            other => Err(kind_error(name, "a list of ints", other)),
        }
    }

    pub fn tensors(&self, name: &str) -> TensorResult<Vec<Tensor>> {
        match self.get(name) {
            IValue::List(l) => l
                .to_vec()
                .iter()
                .map(|v| match v {
                    IValue::Tensor(t) => Ok(t.clone()),
                    other => Err(kind_error(name, "a list of Tensors", other)),
                })
                .collect(),
            other => Err(kind_error(name, "a list of Tensors", other)),
        }
    }

    /// A `Tensor?[]` argument (`aten::index`): Nones stay None.
    pub fn opt_tensors(&self, name: &str) -> TensorResult<Vec<Option<Tensor>>> {
        match self.get(name) {
            IValue::List(l) => l
                .to_vec()
                .iter()
                .map(|v| match v {
                    IValue::Tensor(t) => Ok(Some(t.clone())),
                    IValue::None => Ok(None),
                    other => Err(kind_error(name, "a list of optional Tensors", other)),
                })
                .collect(),
            other => Err(kind_error(name, "a list of optional Tensors", other)),
        }
    }

    /// A `ScalarType?` argument (an int code in graphs, or a dtype value).
    pub fn opt_dtype(&self, name: &str) -> TensorResult<Option<DType>> {
        dtype_of(self.get(name)).map_err(|e| TensorError::new(format!("{e} (argument '{name}')")))
    }

    /// Checks `device=` (when the schema has it): only the CPU computes here.
    pub fn check_device(&self) -> TensorResult<()> {
        check_device(self.get("device"))
    }
}

/// The dtype of a `ScalarType?` value.
pub fn dtype_of(v: &IValue) -> TensorResult<Option<DType>> {
    match v {
        IValue::None => Ok(None),
        IValue::ScalarType(d) => Ok(Some(*d)),
        IValue::Int(code) => match DType::from_code(*code) {
            Some(d) => Ok(Some(d)),
            None => bail!("dtype with ScalarType code {code} is not supported by Ember"),
        },
        other => bail!("expected a dtype, but got {}", other.kind_name()),
    }
}

/// Refuses devices other than the CPU with a clear message.
pub fn check_device(v: &IValue) -> TensorResult<()> {
    let device = match v {
        IValue::None => return Ok(()),
        IValue::Device(d) => *d,
        IValue::Str(s) => crate::ops::prim::parse_device(s).map_err(TensorError::new)?,
        other => bail!("expected a device, but got {}", other.kind_name()),
    };
    if device != Device::Cpu {
        bail!(
            "Ember's interpreter computes on the CPU only; device '{device}' is not available here"
        );
    }
    Ok(())
}

/// The number a `Scalar` argument holds.
pub fn scalar_of(v: &IValue) -> Option<Scalar> {
    match v {
        IValue::Bool(b) => Some(Scalar::Bool(*b)),
        IValue::Int(i) => Some(Scalar::Int(*i)),
        IValue::Double(d) => Some(Scalar::Float(*d)),
        _ => None,
    }
}

pub fn tensor_value(t: Tensor) -> IValue {
    IValue::Tensor(t)
}

pub fn tensor_list(ts: Vec<Tensor>) -> IValue {
    IValue::list(ts.into_iter().map(IValue::Tensor).collect())
}

/// The schema of node `n` if `pick` has a kernel for it: the overload PyTorch resolves for
/// the input types, or, when the graph's types are too loose to resolve, the first overload
/// `pick` knows that has as many arguments as the node has inputs.
fn schema_for(g: &Graph, n: Node, pick: Pick) -> Option<&'static FunctionSchema> {
    match resolve_node(g, n) {
        Ok(s) => pick(&s.overload_name).map(|_| s),
        Err(_) => {
            let count = g.node_inputs(n).len();
            catalogue()
                .schemas(g.kind(n))
                .iter()
                .find(|s| s.arguments.len() == count && pick(&s.overload_name).is_some())
        }
    }
}

/// Whether `pick` has a kernel for node `n`.
pub fn accepts(g: &Graph, n: Node, pick: Pick) -> bool {
    schema_for(g, n, pick).is_some()
}

/// The operation of node `n`: its inputs are read from the top of the stack and replaced by
/// its outputs (a kernel's tuple result is spread over several outputs).
pub fn build(g: &Graph, n: Node, pick: Pick) -> Result<Operation, String> {
    let schema = schema_for(g, n, pick)
        .ok_or_else(|| format!("no kernel for this overload of '{}'", g.kind(n)))?;
    let kernel = pick(&schema.overload_name).ok_or("no kernel")?;
    let inputs = g.node_inputs(n).len();
    let outputs = g.node_outputs(n).len();
    let out_index = schema
        .arguments
        .iter()
        .position(|a| a.is_out() && a.name == "out")
        .filter(|&i| i < inputs);
    Ok(Arc::new(move |stack: &mut Vec<IValue>| {
        let at = stack
            .len()
            .checked_sub(inputs)
            .ok_or("stack underflow: too few operands")?;
        let result = {
            let call = Call {
                args: &stack[at..],
                schema,
            };
            if let Some(i) = out_index {
                check_out_overlap(&stack[at..], i, &schema.name).map_err(|e| e.message)?;
            }
            let r = kernel(&call).map_err(|e| e.message)?;
            match out_index {
                Some(i) => write_out(&stack[at + i], r, &schema.name).map_err(|e| e.message)?,
                None => r,
            }
        };
        stack.truncate(at);
        match outputs {
            0 => {}
            1 => stack.push(result),
            k => match result {
                IValue::Tuple(items) if items.len() == k => stack.extend(items.iter().cloned()),
                IValue::List(l) if l.len() == k => stack.extend(l.to_vec()),
                _ => return Err(format!("expected {k} results from the operator")),
            },
        }
        Ok(())
    }))
}

/// The gathering ops refuse an `out=` tensor that shares memory with an input, as PyTorch's
/// do (`cat` and the others allow it).
fn check_out_overlap(args: &[IValue], out: usize, op: &str) -> TensorResult<()> {
    if !matches!(
        op,
        "aten::gather"
            | "aten::index_select"
            | "aten::index"
            | "aten::take"
            | "aten::masked_select"
    ) {
        return Ok(());
    }
    let IValue::Tensor(o) = &args[out] else {
        return Ok(());
    };
    for (i, a) in args.iter().enumerate() {
        if let (true, IValue::Tensor(t)) = (i != out, a) {
            super::elements::assert_no_overlap(o, t)?;
        }
    }
    Ok(())
}

/// Writes a kernel's fresh result into the `out=` tensor, resizing it when its shape differs
/// (as `resize_output` does), and returns `out`.
pub fn write_out(out: &IValue, result: IValue, op: &str) -> TensorResult<IValue> {
    let IValue::Tensor(out) = out else {
        bail!(
            "expected argument 'out' to be a Tensor, but got {}",
            out.kind_name()
        );
    };
    let IValue::Tensor(result) = result else {
        bail!("out= is only supported for operators returning one tensor");
    };
    if !crate::tensor::elementwise::can_cast(result.dtype(), out.dtype()) {
        let to = out.dtype().scalar_type_name();
        if matches!(
            op,
            "aten::cat" | "aten::concat" | "aten::concatenate" | "aten::stack"
        ) {
            bail!("torch.cat(): input types can't be cast to the desired output type {to}");
        }
        bail!(
            "result type {} can't be cast to the desired output type {to}",
            result.dtype().scalar_type_name()
        );
    }
    copy_out(out, &result).map(IValue::Tensor)
}
