//! The arguments of one call, read by their schema names: every overload of an op runs the
//! same function, which asks for `dim`, `keepdim`, `dtype` or the out tensors by name and
//! gets `None` where the overload has no such argument.

use std::sync::Arc;

use ember_dialects::catalogue::resolve_node;
use ember_dialects::schema::FunctionSchema;
use ember_dialects::{Graph, Node};

use crate::ivalue::IValue;
use crate::ops::args::arg_by_name;
use crate::ops::{pop_n, Operation, Stack};
use crate::tensor::{DType, Tensor};

/// One call's arguments under its overload's schema.
pub struct Args {
    pub schema: &'static FunctionSchema,
    vals: Vec<IValue>,
}

/// What an op computes from its arguments: its outputs, in schema order.
pub type OpFn = fn(&Args) -> Result<Vec<IValue>, String>;

/// Builds the operation of node `n`: the overload is resolved once, at load time.
pub fn build(g: &Graph, n: Node, f: OpFn) -> Result<Operation, String> {
    let schema = resolve_node(g, n)?;
    let count = schema.arguments.len();
    Ok(Arc::new(move |stack: &mut Stack| {
        let vals = pop_n(stack, count)?;
        let args = Args { schema, vals };
        let outs = f(&args)?;
        stack.extend(outs);
        Ok(())
    }))
}

impl Args {
    fn get(&self, name: &str) -> Option<&IValue> {
        arg_by_name(self.schema, &self.vals, name)
    }

    /// Whether the overload has an argument called `name`.
    pub fn has(&self, name: &str) -> bool {
        self.schema.arguments.iter().any(|a| a.name == name)
    }

    pub fn tensor(&self, name: &str) -> Result<Tensor, String> {
        match self.get(name) {
            Some(IValue::Tensor(t)) => Ok(t.clone()),
            Some(v) => Err(format!(
                "{}(): argument '{name}' must be Tensor, not {}",
                self.op_name(),
                v.kind_name()
            )),
            None => Err(format!("{}(): missing argument '{name}'", self.op_name())),
        }
    }

    /// The out tensors (`out`, `values`/`indices`, ...), in schema order; empty for the
    /// functional overloads.
    pub fn outs(&self) -> Result<Vec<Tensor>, String> {
        let mut outs = Vec::new();
        for (a, v) in self.schema.arguments.iter().zip(&self.vals) {
            if a.is_out() {
                match v {
                    IValue::Tensor(t) => outs.push(t.clone()),
                    other => {
                        return Err(format!(
                            "{}(): argument '{}' must be Tensor, not {}",
                            self.op_name(),
                            a.name,
                            other.kind_name()
                        ))
                    }
                }
            }
        }
        Ok(outs)
    }

    /// An `int` argument; `None` when absent or None.
    pub fn opt_int(&self, name: &str) -> Option<i64> {
        self.get(name).and_then(IValue::as_int)
    }

    pub fn int(&self, name: &str, default: i64) -> i64 {
        self.opt_int(name).unwrap_or(default)
    }

    /// A `bool` argument (`bool?` None counts as absent).
    pub fn opt_bool(&self, name: &str) -> Option<bool> {
        match self.get(name) {
            Some(IValue::Bool(b)) => Some(*b),
            Some(IValue::Int(i)) => Some(*i != 0),
            _ => None,
        }
    }

    pub fn bool(&self, name: &str, default: bool) -> bool {
        self.opt_bool(name).unwrap_or(default)
    }

    /// An `int[]?` argument: `None` when absent or None; a bare int is a one-element list.
    pub fn dims(&self, name: &str) -> Option<Vec<i64>> {
        match self.get(name)? {
            IValue::Int(i) => Some(vec![*i]),
            IValue::List(l) => Some(l.to_vec().iter().filter_map(IValue::as_int).collect()),
            IValue::Tuple(t) => Some(t.iter().filter_map(IValue::as_int).collect()),
            _ => None,
        }
    }

    /// A `ScalarType?` argument.
    pub fn dtype(&self, name: &str) -> Result<Option<DType>, String> {
        match self.get(name) {
            None | Some(IValue::None) => Ok(None),
            Some(IValue::ScalarType(d)) => Ok(Some(*d)),
            Some(IValue::Int(code)) => DType::from_code(*code)
                .map(Some)
                .ok_or_else(|| format!("Ember does not support dtype code {code}")),
            Some(v) => Err(format!(
                "{}(): argument '{name}' must be ScalarType, not {}",
                self.op_name(),
                v.kind_name()
            )),
        }
    }

    /// A `Scalar?` argument as a number; `Err` carries a string value (`'fro'`).
    pub fn scalar(&self, name: &str) -> Option<Scalar> {
        match self.get(name)? {
            IValue::Int(i) => Some(Scalar::Int(*i)),
            IValue::Bool(b) => Some(Scalar::Int(*b as i64)),
            IValue::Double(d) => Some(Scalar::Float(*d)),
            IValue::Str(s) => Some(Scalar::Str(s.to_string())),
            _ => None,
        }
    }

    /// The op's name without namespace, as PyTorch's messages spell it.
    pub fn op_name(&self) -> &str {
        self.schema
            .name
            .rsplit("::")
            .next()
            .unwrap_or(&self.schema.name)
    }
}

/// A `Scalar` argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Scalar {
    Int(i64),
    Float(f64),
    Str(String),
}

impl Scalar {
    pub fn to_f64(&self) -> Option<f64> {
        match self {
            Scalar::Int(i) => Some(*i as f64),
            Scalar::Float(f) => Some(*f),
            Scalar::Str(_) => None,
        }
    }
}
