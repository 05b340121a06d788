//! The TorchScript type system: the types PyTorch's JIT gives values, their printed forms
//! (exactly as `str(graph)` shows them), subtyping and unification.

use std::fmt;

mod names;
mod subtype;
mod union;
mod vars;

pub use subtype::{merge_tensor_types, unify_type_list, unify_types, unify_types_ext};
pub use union::{optional_of, union_of};
pub use vars::{eval_type_variables, match_type_variables, TypeEnv};

/// A scalar type (dtype) of tensors, spelled as PyTorch's `c10::ScalarType`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarType {
    Byte,
    Char,
    Short,
    Int,
    Long,
    Half,
    Float,
    Double,
    ComplexHalf,
    ComplexFloat,
    ComplexDouble,
    Bool,
    QInt8,
    QUInt8,
    QInt32,
    BFloat16,
    QUInt4x2,
    QUInt2x4,
    Bits1x8,
    Bits2x4,
    Bits4x2,
    Bits8,
    Bits16,
    Float8_e5m2,
    Float8_e4m3fn,
    Float8_e5m2fnuz,
    Float8_e4m3fnuz,
    UInt16,
    UInt32,
    UInt64,
}

/// A device such as `cpu` or `cuda:0`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Device {
    pub kind: String,
    pub index: Option<i64>,
}

/// A tensor type with PyTorch's optional refinements. `None` means unknown.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct TensorType {
    pub dtype: Option<ScalarType>,
    /// Known rank with per-dimension sizes; a `None` size is an unknown dim (`*`), and
    /// symbolic sizes keep their `SS(-N)` id.
    pub sizes: Option<Vec<Dim>>,
    pub strides: Option<Vec<Option<i64>>>,
    pub device: Option<Device>,
    pub requires_grad: Option<bool>,
    pub undefined: Option<bool>,
}

/// One dimension of a tensor type's sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    Known(i64),
    Unknown,
    /// A symbolic shape, printed `SS(-2)`.
    Symbolic(i64),
}

/// A TorchScript type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    Any,
    Tensor(TensorType),
    Int,
    Float,
    Complex,
    Bool,
    Str,
    None,
    Number,
    Device,
    Stream,
    Layout,
    ScalarType,
    MemoryFormat,
    QScheme,
    Generator,
    Storage,
    Capsule,
    SymInt,
    SymFloat,
    SymBool,
    AnyList,
    AnyTuple,
    AnyClass,
    AnyEnum,
    List(Box<Type>),
    Tuple(TupleType),
    Optional(Box<Type>),
    Union(Vec<Type>),
    Dict(Box<Type>, Box<Type>),
    Future(Box<Type>),
    RRef(Box<Type>),
    Await(Box<Type>),
    /// A class type by qualified name (`__torch__.MyModule`).
    Class(String),
    /// An interface type by qualified name.
    Interface(String),
    /// An enum type by qualified name.
    Enum(String),
    /// A function type by qualified name.
    Function(String),
    /// A type variable of a schema (`t`, `t1`).
    Var(String),
}

/// A tuple type; named tuples carry their qualified name and field names.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TupleType {
    pub elements: Vec<Type>,
    pub names: Option<NamedTupleInfo>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NamedTupleInfo {
    pub qualified_name: String,
    pub fields: Vec<String>,
}

impl Type {
    /// The plain `Tensor` type with no refinements.
    pub fn tensor() -> Type {
        Type::Tensor(TensorType::default())
    }

    pub fn list(elem: Type) -> Type {
        Type::List(Box::new(elem))
    }

    pub fn optional(elem: Type) -> Type {
        Type::Optional(Box::new(elem))
    }

    pub fn tuple(elements: Vec<Type>) -> Type {
        Type::Tuple(TupleType { elements, names: None })
    }

    pub fn is_tensor(&self) -> bool {
        matches!(self, Type::Tensor(_))
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        print_type(self, f)
    }
}

/// Prints a type the way PyTorch's `operator<<(ostream, Type)` does.
fn print_type(ty: &Type, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    match ty {
        Type::Tensor(_) => f.write_str("Tensor"),
        Type::Int => f.write_str("int"),
        Type::Float => f.write_str("float"),
        Type::Bool => f.write_str("bool"),
        Type::Str => f.write_str("str"),
        Type::None => f.write_str("NoneType"),
        Type::List(e) => write!(f, "{e}[]"),
        Type::Optional(e) => write!(f, "{e}?"),
        other => write!(f, "{other:?}"),
    }
}
