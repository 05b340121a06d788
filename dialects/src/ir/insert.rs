//! `Graph::insert`, as PyTorch's `Graph::insert`: build a call to an operator from values and
//! literals, choosing the overload the way the TorchScript compiler does (`matchSchemas`).
//! Literals and defaults become `prim::Constant` nodes, implicit conversions become their
//! conversion nodes, and everything is inserted at the insertion point, in argument order,
//! before the call itself.

use crate::attr::{AttrValue, ConstValue};
use crate::catalogue::catalogue;
use crate::schema::{
    const_type, default_type, match_schemas, Conversion, FunctionSchema, MatchedSchema, Source,
};
use crate::symbol::{sym, Symbol};
use crate::types::Type;

use super::{Graph, Node, Value};

/// One argument of [`Graph::insert`]: a value of the graph or a literal (PyTorch's
/// `NamedValue`).
#[derive(Clone, Debug, PartialEq)]
pub enum InsertArg {
    Value(Value),
    Int(i64),
    Float(f64),
    Bool(bool),
    Str(String),
    None,
    IntList(Vec<i64>),
}

impl From<Value> for InsertArg {
    fn from(v: Value) -> Self {
        InsertArg::Value(v)
    }
}

impl From<i64> for InsertArg {
    fn from(v: i64) -> Self {
        InsertArg::Int(v)
    }
}

impl From<f64> for InsertArg {
    fn from(v: f64) -> Self {
        InsertArg::Float(v)
    }
}

impl From<bool> for InsertArg {
    fn from(v: bool) -> Self {
        InsertArg::Bool(v)
    }
}

impl From<&str> for InsertArg {
    fn from(v: &str) -> Self {
        InsertArg::Str(v.to_string())
    }
}

impl From<Vec<i64>> for InsertArg {
    fn from(v: Vec<i64>) -> Self {
        InsertArg::IntList(v)
    }
}

impl InsertArg {
    fn literal(&self) -> Option<ConstValue> {
        Some(match self {
            InsertArg::Value(_) => return None,
            InsertArg::Int(i) => ConstValue::Int(*i),
            InsertArg::Float(f) => ConstValue::Float(*f),
            InsertArg::Bool(b) => ConstValue::Bool(*b),
            InsertArg::Str(s) => ConstValue::Str(s.clone()),
            InsertArg::None => ConstValue::None,
            InsertArg::IntList(v) => {
                ConstValue::List(v.iter().map(|&i| ConstValue::Int(i)).collect())
            }
        })
    }

    fn ty(&self, g: &Graph) -> Type {
        match self {
            InsertArg::Value(v) => g.ty(*v).clone(),
            InsertArg::IntList(_) => Type::list(Type::Int),
            lit => lit.literal().map_or(Type::Any, |c| const_type(&c)),
        }
    }
}

/// What [`Graph::insert_call`] built: the call node, the overload it calls and its outputs.
#[derive(Clone, Debug)]
pub struct InsertedCall {
    pub node: Node,
    pub schema: &'static FunctionSchema,
    pub outputs: Vec<Value>,
}

impl Graph {
    /// Inserts a call of `kind` with positional `args` at the insertion point and returns the
    /// outputs of the new node, typed from the chosen schema's returns.
    pub fn insert(&mut self, kind: Symbol, args: &[InsertArg]) -> Result<Vec<Value>, String> {
        self.insert_with_kwargs(kind, args, &[])
    }

    /// [`Graph::insert`] with keyword arguments.
    pub fn insert_with_kwargs(
        &mut self,
        kind: Symbol,
        args: &[InsertArg],
        kwargs: &[(&str, InsertArg)],
    ) -> Result<Vec<Value>, String> {
        Ok(self.insert_call(kind, args, kwargs)?.outputs)
    }

    /// [`Graph::insert_with_kwargs`], also telling which node and overload it made. Matching
    /// happens before anything is inserted, so a call that matches no overload changes nothing.
    pub fn insert_call(
        &mut self,
        kind: Symbol,
        args: &[InsertArg],
        kwargs: &[(&str, InsertArg)],
    ) -> Result<InsertedCall, String> {
        let schemas = catalogue().schemas(kind);
        if schemas.is_empty() {
            return Err(format!(
                "Unknown builtin op: {kind}.\nCould not find any similar ops to {kind}. This op may not exist or may not be currently supported in TorchScript."
            ));
        }
        let positional: Vec<Type> = args.iter().map(|a| a.ty(self)).collect();
        let keyword: Vec<(&str, Type)> = kwargs.iter().map(|(n, a)| (*n, a.ty(self))).collect();
        let matched = match_schemas(schemas, &positional, &keyword)?;
        let node = self.emit_matched(kind, &matched, args, kwargs)?;
        Ok(InsertedCall {
            node,
            schema: matched.schema,
            outputs: self.node_outputs(node).to_vec(),
        })
    }

    fn emit_matched(
        &mut self,
        kind: Symbol,
        matched: &MatchedSchema<'_>,
        args: &[InsertArg],
        kwargs: &[(&str, InsertArg)],
    ) -> Result<Node, String> {
        let mut inputs = Vec::with_capacity(matched.args.len() + matched.varargs.len());
        for (arg, m) in matched.schema.arguments.iter().zip(&matched.args) {
            let value = match &m.source {
                Source::Positional(i) => self.materialize(&args[*i]),
                Source::Keyword(k) => self.materialize(&kwargs[*k].1),
                Source::Default(d) => insert_constant_node(self, d, default_type(arg, d)),
                Source::VarargsList {
                    start,
                    elem,
                    conversions,
                } => {
                    let mut items = Vec::with_capacity(conversions.len());
                    for (a, c) in args[*start..].iter().zip(conversions) {
                        let v = self.materialize(a);
                        items.push(self.apply_conversion(v, c.as_ref())?);
                    }
                    let list = self.create(sym::list_construct(), &items, 0);
                    self.add_node_output(list, Type::list(elem.clone()));
                    self.insert_node(list);
                    self.output(list, 0)
                }
            };
            let value = self.apply_conversion(value, m.conversion.as_ref())?;
            inputs.push(value);
        }
        for &i in &matched.varargs {
            let v = self.materialize(&args[i]);
            inputs.push(v);
        }
        let n = self.create(kind, &inputs, 0);
        for ty in &matched.return_types {
            self.add_node_output(n, ty.clone());
        }
        self.insert_node(n);
        Ok(n)
    }

    /// A `prim::Constant` holding `value` of type `ty`, inserted at the insertion point with
    /// attributes as PyTorch's `insertConstant` sets them.
    pub fn insert_constant(&mut self, value: &ConstValue, ty: Type) -> Value {
        insert_constant_node(self, value, ty)
    }

    fn apply_conversion(&mut self, value: Value, c: Option<&Conversion>) -> Result<Value, String> {
        Ok(match c {
            None => value,
            Some(Conversion::RepeatAsList(n)) => {
                let elem = self.ty(value).clone();
                let list = self.create(sym::list_construct(), &vec![value; *n], 0);
                self.add_node_output(list, Type::list(elem));
                self.insert_node(list);
                self.output(list, 0)
            }
            Some(Conversion::TupleToList(elem)) => {
                let items = self.tuple_items(value);
                let list = self.create(sym::list_construct(), &items, 0);
                self.add_node_output(list, Type::list(elem.clone()));
                self.insert_node(list);
                self.output(list, 0)
            }
            Some(Conversion::Call(op)) => {
                let out = self.insert(*op, &[InsertArg::Value(value)])?;
                out.first()
                    .copied()
                    .ok_or_else(|| format!("{op} has no output"))?
            }
        })
    }

    /// The items of a tuple value: the inputs of the `prim::TupleConstruct` that made it, or
    /// the outputs of a new `prim::TupleUnpack` (PyTorch's `createTupleUnpack`).
    fn tuple_items(&mut self, tuple: Value) -> Vec<Value> {
        let producer = self.producer(tuple);
        if self.kind(producer) == sym::tuple_construct() {
            return self.node_inputs(producer).to_vec();
        }
        let elements = match self.ty(tuple) {
            Type::Tuple(t) => t.elements.clone(),
            _ => Vec::new(),
        };
        let unpack = self.create(sym::tuple_unpack(), &[tuple], 0);
        for e in elements {
            self.add_node_output(unpack, e);
        }
        self.insert_node(unpack);
        self.node_outputs(unpack).to_vec()
    }

    fn materialize(&mut self, arg: &InsertArg) -> Value {
        match arg {
            InsertArg::Value(v) => *v,
            lit => {
                let c = lit.literal().unwrap_or(ConstValue::None);
                let ty = arg.ty(self);
                insert_constant_node(self, &c, ty)
            }
        }
    }
}

/// A `prim::Constant` holding `value`, with attributes as PyTorch's `insertConstant` sets
/// them: ints and bools as `i`, floats as `f`, strings and devices as `s`, lists as an IValue,
/// nothing for None.
fn insert_constant_node(g: &mut Graph, value: &ConstValue, ty: Type) -> Value {
    let n = g.create(sym::constant(), &[], 0);
    let attr = match value {
        ConstValue::None => None,
        ConstValue::Bool(b) => Some(AttrValue::Int(*b as i64)),
        ConstValue::Int(i) => Some(AttrValue::Int(*i)),
        ConstValue::Float(f) => Some(AttrValue::Float(*f)),
        ConstValue::Complex(re, im) => Some(AttrValue::Complex(*re, *im)),
        ConstValue::Str(s) | ConstValue::Device(s) => Some(AttrValue::Str(s.clone())),
        ConstValue::Tensor(t) => Some(AttrValue::Tensor(t.clone())),
        other => Some(AttrValue::IValue(other.clone())),
    };
    if let Some(a) = attr {
        g.set_attr(n, sym::attr_value(), a);
    }
    g.add_node_output(n, ty);
    g.insert_node(n);
    g.output(n, 0)
}

#[cfg(test)]
#[path = "insert_tests.rs"]
mod tests;
