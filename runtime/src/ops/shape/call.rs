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
use crate::ops::args::{arg_by_name, copy_out};
pub use crate::ops::args::{check_device, dtype_of, scalar_of, Scalar};
use crate::ops::Operation;
use crate::tensor::{DType, Tensor, TensorError, TensorResult};

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
        arg_by_name(self.schema, self.args, name).unwrap_or(&NONE)
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
