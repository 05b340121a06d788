//! Sugared values: what a name or an expression stands for before it is a graph value
//! (PyTorch's `sugared_value.h`). Modules, builtin operators, casts, special forms, ranges,
//! functions and classes of the file become graph nodes only when they are called, indexed or
//! iterated; `Simple` is an ordinary graph value.

use ember_dialects::{Symbol, Type, Value};

/// A value as the emitter sees it before it is forced into the graph.
#[derive(Clone, Debug)]
pub enum Sugared {
    /// An ordinary value of the graph.
    Simple(Value),
    /// A namespace of builtins: `torch`, `math`, `torch.nn.functional`, `typing`, ... (a dotted
    /// path).
    Namespace(String),
    /// A builtin operator, bound to `self` for methods (`x.add`).
    Builtin { op: Symbol, self_: Option<Value> },
    /// `len`, `int`, ...: call `magic` on a class instance, else `base`.
    Magic {
        magic: &'static str,
        base: Box<Sugared>,
    },
    /// `int(x)`, `float(x)`, `bool(x)`, `str(x)`: the cast operator, or the value itself when it
    /// already has the type.
    Cast { ty: Type, op: Symbol },
    /// `x.int()`, `x.float()`, ...: `aten::to` with a dtype.
    TensorCast { dtype: i64, self_: Value },
    /// A call with its own evaluation rules (`isinstance`, `range`, `torch.jit.annotate`, ...).
    SpecialForm(Symbol),
    /// `print`.
    Print,
    /// `range(...)`.
    Range(RangeValue),
    /// `zip(...)`/`enumerate(...)`: iterated in lockstep.
    IterableTree(Vec<Sugared>),
    /// A tuple whose items are kept apart (an unrolled iteration source).
    Tuple(Vec<Sugared>),
    /// A function of the file.
    Function(String),
    /// A free function of the file decorated `@torch.jit.unused`: PyTorch never compiles it,
    /// and a call raises in place.
    DroppedFunction(String),
    /// A class of the file (or of the resolver), by qualified name.
    Class(String),
    /// A method bound to an object of a class.
    Method {
        self_: Value,
        class: String,
        name: String,
    },
    /// An exception class: `AssertionError` (PyTorch's builtin `ExceptionValue`), or a
    /// Python exception class (`RuntimeError`), whose raise carries its qualified name.
    Exception { name: String, python: bool },
    /// An exception instance: its message and its qualified class name.
    ExceptionMessage {
        message: Value,
        class: Option<Value>,
    },
    /// A NamedTuple type used as a constructor.
    NamedTupleCtor(Type),
    /// `slice(a, b, c)`.
    Slice {
        start: Option<Value>,
        stop: Option<Value>,
        step: Option<Value>,
    },
    /// A Python value of the file's scope that TorchScript cannot use (a module-level
    /// constant), by its Python type name.
    PythonValue(String),
    /// A Python function TorchScript does not know (`reversed`): calls match a signature of
    /// Tensors only, as PyTorch infers for Python functions.
    PythonFunction(String),
    /// A function of torch.nn.functional that PyTorch compiles from Python source.
    Functional(String),
    /// A static method of a class of the file: class and method.
    StaticMethod { class: String, name: String },
    /// `torch.nn.Sequential`: a call makes a class for the modules it is given.
    Sequential,
    /// A value that stands for nothing callable: `torch.jit.ignore`d functions and the like.
    Opaque(String),
}

/// `range(start, end, step)`; with only `end`, the loop counter is the value itself.
#[derive(Clone, Debug)]
pub struct RangeValue {
    pub start: Value,
    pub end: Value,
    pub step: Value,
    pub only_end: bool,
    pub static_len: Option<i64>,
}

impl Sugared {
    /// PyTorch's `SugaredValue::kind()`, used in messages.
    pub fn kind(&self) -> String {
        match self {
            Sugared::Simple(_) => "value".into(),
            Sugared::Namespace(_) => "python value of type 'module'".into(),
            Sugared::Builtin { .. } => "builtin".into(),
            Sugared::Magic { base, .. } => base.kind(),
            Sugared::Cast { .. } | Sugared::TensorCast { .. } => "builtin".into(),
            Sugared::SpecialForm(_) => "builtin".into(),
            Sugared::Print => "print".into(),
            Sugared::Range(_) => "range".into(),
            Sugared::IterableTree(_) => "iterabletree".into(),
            Sugared::Tuple(_) => "Tuple".into(),
            Sugared::Function(_) => "function".into(),
            Sugared::DroppedFunction(_) => "python value of type 'function'".into(),
            Sugared::Class(_) => "class".into(),
            Sugared::Method { .. } => "method".into(),
            Sugared::Exception { .. } => "exception".into(),
            Sugared::ExceptionMessage { .. } => "exception message".into(),
            Sugared::NamedTupleCtor(_) => "NamedTuple".into(),
            Sugared::Slice { .. } => "Python slice value".into(),
            Sugared::PythonValue(t) => format!("python value of type '{t}'"),
            Sugared::PythonFunction(_) => {
                "python value of type 'builtin_function_or_method'".into()
            }
            Sugared::StaticMethod { .. } | Sugared::Functional(_) => "function".into(),
            Sugared::Sequential => "class".into(),
            Sugared::Opaque(k) => k.clone(),
        }
    }

    pub fn as_simple(&self) -> Option<Value> {
        match self {
            Sugared::Simple(v) => Some(*v),
            _ => None,
        }
    }

    /// The static length of an iteration source that is unrolled.
    pub fn static_len(&self) -> Option<i64> {
        match self {
            Sugared::Tuple(items) => Some(items.len() as i64),
            Sugared::Range(r) => r.static_len,
            Sugared::IterableTree(children) => children.iter().filter_map(|c| c.static_len()).min(),
            _ => None,
        }
    }

    /// Whether iterating this is unrolled at compile time (tuples, and trees holding them).
    pub fn should_emit_unrolled(&self) -> bool {
        match self {
            Sugared::Tuple(_) => true,
            Sugared::IterableTree(children) => children.iter().any(|c| c.should_emit_unrolled()),
            _ => false,
        }
    }
}
