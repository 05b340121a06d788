//! Node attributes, as PyTorch's `Node` stores them: int, float, complex, string, tensor, graph,
//! type, lists of each, and IValue constants (lists, tuples, devices, …) for `prim::Constant`.

use std::sync::Arc;

use crate::ir::Graph;
use crate::types::{ScalarType, Type};

/// A tensor held in an attribute (a constant). `data` is the raw little-endian contents, row
/// major; graph text that prints only `<Tensor>` leaves it unknown.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorLiteral {
    pub dtype: ScalarType,
    pub sizes: Vec<i64>,
    pub data: Option<Arc<[u8]>>,
    /// The exact text PyTorch printed for this tensor, kept so that forms the parser cannot
    /// rebuild into data still print back byte for byte.
    pub printed: Option<String>,
}

/// An IValue constant, as `prim::Constant[value=...]` holds for non-scalar values.
#[derive(Clone, Debug, PartialEq)]
pub enum ConstValue {
    None,
    Bool(bool),
    Int(i64),
    Float(f64),
    Complex(f64, f64),
    Str(String),
    Device(String),
    Tensor(TensorLiteral),
    List(Vec<ConstValue>),
    Tuple(Vec<ConstValue>),
    /// Anything else PyTorch can print in a constant, kept as its printed text.
    Opaque(String),
}

/// The value of one node attribute.
#[derive(Clone, Debug)]
pub enum AttrValue {
    Int(i64),
    Float(f64),
    Complex(f64, f64),
    Str(String),
    Tensor(TensorLiteral),
    Graph(Box<Graph>),
    Type(Type),
    Ints(Vec<i64>),
    Floats(Vec<f64>),
    Strs(Vec<String>),
    Tensors(Vec<TensorLiteral>),
    Graphs(Vec<Graph>),
    Types(Vec<Type>),
    IValue(ConstValue),
}
