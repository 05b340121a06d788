//! The TorchScript type system: the types PyTorch's JIT gives values, their printed forms
//! (exactly as `str(graph)` shows them), subtyping and unification.

mod parse;
mod print;

pub use parse::{parse_type, parse_type_at};

mod names;
mod subtype;
mod union;
mod vars;

pub use subtype::{
    merge_tensor_types, unify_type_list, unify_type_list_ext, unify_types, unify_types_ext,
};
pub use union::{optional_of, union_of};
pub use vars::{eval_type_variables, match_type_variables, TypeEnv};

/// A scalar type (dtype) of tensors, spelled as PyTorch's `c10::ScalarType`.
#[allow(non_camel_case_types)]
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
    UInt1,
    UInt2,
    UInt3,
    UInt4,
    UInt5,
    UInt6,
    UInt7,
    Int1,
    Int2,
    Int3,
    Int4,
    Int5,
    Int6,
    Int7,
    Float8_e8m0fnu,
    Float4_e2m1fn_x2,
}

impl ScalarType {
    /// Every scalar type, in `c10::ScalarType` order of the names above.
    pub const ALL: [ScalarType; 46] = {
        use ScalarType::*;
        [
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
            UInt1,
            UInt2,
            UInt3,
            UInt4,
            UInt5,
            UInt6,
            UInt7,
            Int1,
            Int2,
            Int3,
            Int4,
            Int5,
            Int6,
            Int7,
            Float8_e8m0fnu,
            Float4_e2m1fn_x2,
        ]
    };

    /// The name PyTorch prints (`toString(ScalarType)`): `Float`, `Long`, `BFloat16`, ...
    pub fn name(self) -> &'static str {
        use ScalarType::*;
        match self {
            Byte => "Byte",
            Char => "Char",
            Short => "Short",
            Int => "Int",
            Long => "Long",
            Half => "Half",
            Float => "Float",
            Double => "Double",
            ComplexHalf => "ComplexHalf",
            ComplexFloat => "ComplexFloat",
            ComplexDouble => "ComplexDouble",
            Bool => "Bool",
            QInt8 => "QInt8",
            QUInt8 => "QUInt8",
            QInt32 => "QInt32",
            BFloat16 => "BFloat16",
            QUInt4x2 => "QUInt4x2",
            QUInt2x4 => "QUInt2x4",
            Bits1x8 => "Bits1x8",
            Bits2x4 => "Bits2x4",
            Bits4x2 => "Bits4x2",
            Bits8 => "Bits8",
            Bits16 => "Bits16",
            Float8_e5m2 => "Float8_e5m2",
            Float8_e4m3fn => "Float8_e4m3fn",
            Float8_e5m2fnuz => "Float8_e5m2fnuz",
            Float8_e4m3fnuz => "Float8_e4m3fnuz",
            UInt16 => "UInt16",
            UInt32 => "UInt32",
            UInt64 => "UInt64",
            UInt1 => "UInt1",
            UInt2 => "UInt2",
            UInt3 => "UInt3",
            UInt4 => "UInt4",
            UInt5 => "UInt5",
            UInt6 => "UInt6",
            UInt7 => "UInt7",
            Int1 => "Int1",
            Int2 => "Int2",
            Int3 => "Int3",
            Int4 => "Int4",
            Int5 => "Int5",
            Int6 => "Int6",
            Int7 => "Int7",
            Float8_e8m0fnu => "Float8_e8m0fnu",
            Float4_e2m1fn_x2 => "Float4_e2m1fn_x2",
        }
    }

    /// The scalar type printed as `name`.
    pub fn from_name(name: &str) -> Option<ScalarType> {
        ScalarType::ALL.into_iter().find(|s| s.name() == name)
    }
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

impl TensorType {
    /// Every size, when the rank and each dimension's size are known.
    pub fn known_sizes(&self) -> Option<Vec<i64>> {
        self.sizes
            .as_ref()?
            .iter()
            .map(|d| match d {
                Dim::Known(n) => Some(*n),
                Dim::Unknown | Dim::Symbolic(_) => None,
            })
            .collect()
    }
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

#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct NamedTupleInfo {
    /// Empty when only the printed form (`NamedTuple(x : int)`) is known: graph text omits it.
    pub qualified_name: String,
    pub fields: Vec<String>,
    /// Default values as printed after ` = ` (one per field; may be shorter than `fields`).
    pub defaults: Vec<Option<String>>,
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
        Type::Tuple(TupleType {
            elements,
            names: None,
        })
    }

    pub fn is_tensor(&self) -> bool {
        matches!(self, Type::Tensor(_))
    }
}
