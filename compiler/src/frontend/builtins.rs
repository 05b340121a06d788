//! Builtin names of TorchScript: PyTorch's TorchScript-defined builtin functions
//! (`builtin_functions.cpp`, tried after the operators of the same name and inlined), the
//! Python builtins the emitter's environment binds (`len`, `int`, `min`, `range`, … as
//! `ir_emitter.cpp`'s globals table), and what the attributes of the builtin modules
//! (`torch`, `torch.nn.functional`, `math`, …) resolve to, as PyTorch's Python resolver
//! (`torch.jit._builtins._find_builtin`) and `BuiltinModule` find them.

use std::sync::OnceLock;

use hashbrown::HashMap;

use ember_dialects::attr::ConstValue;
use ember_dialects::parse::parse_graph;
use ember_dialects::schema::{parse_schema, FunctionSchema};
use ember_dialects::symbol::Symbol;
use ember_dialects::types::Type;
use ember_dialects::{Graph, Value};

/// `compiler/src/frontend/data/builtin_functions.txt`, written by
/// `tools/gen/gen_builtin_functions.py`.
const BUILTIN_FUNCTIONS_TXT: &str = include_str!("data/builtin_functions.txt");

/// `compiler/src/frontend/data/python_functions.txt`, written by
/// `tools/gen/gen_python_functions.py`.
const PYTHON_FUNCTIONS_TXT: &str = include_str!("data/python_functions.txt");

/// `compiler/src/frontend/data/builtin_names.txt`, written by
/// `tools/gen/gen_builtin_names.py`.
const BUILTIN_NAMES_TXT: &str = include_str!("data/builtin_names.txt");

/// A builtin function written in TorchScript: its schema (no namespace, as PyTorch prints it:
/// `mul(int a, Tensor b) -> Tensor`) and its cleaned-up graph, inlined where it is called.
#[derive(Debug)]
pub struct BuiltinFunction {
    /// The symbol it is registered under (`aten::mul`, `prim::ndim`).
    pub name: Symbol,
    pub schema: FunctionSchema,
    pub graph: Graph,
}

/// Parses the builtin functions data: `## ns::name`, the schema line, then the graph text.
fn parse_builtin_functions(text: &str) -> Result<Vec<BuiltinFunction>, String> {
    let mut out = Vec::new();
    if text.starts_with("## ") {
        return Err("builtin functions data must start with its header".to_string());
    }
    for section in text.split("\n## ").skip(1) {
        let mut lines = section.splitn(3, '\n');
        let name = lines.next().unwrap_or_default().trim();
        let schema_text = lines.next().unwrap_or_default();
        let graph_text = lines.next().unwrap_or_default();
        let schema = parse_schema(schema_text)
            .map_err(|d| format!("{name}: schema {schema_text:?}: {}", d.message))?;
        let graph = parse_graph(graph_text).map_err(|d| format!("{name}: graph: {}", d.message))?;
        out.push(BuiltinFunction {
            name: Symbol::new(name),
            schema,
            graph,
        });
    }
    Ok(out)
}

/// Builtin functions by name, in PyTorch's registration order.
fn builtin_function_table() -> &'static HashMap<Symbol, Vec<BuiltinFunction>> {
    static TABLE: OnceLock<HashMap<Symbol, Vec<BuiltinFunction>>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table: HashMap<Symbol, Vec<BuiltinFunction>> = HashMap::new();
        // The data is generated and checked by a test; a broken file leaves the table empty.
        for f in parse_builtin_functions(BUILTIN_FUNCTIONS_TXT).unwrap_or_default() {
            table.entry(f.name).or_default().push(f);
        }
        table
    })
}

/// `getAllBuiltinFunctionsFor`: the TorchScript-defined overloads of `name`.
pub fn builtin_functions_for(name: Symbol) -> &'static [BuiltinFunction] {
    builtin_function_table()
        .get(&name)
        .map_or(&[], Vec::as_slice)
}

/// Inlines a builtin function at the insertion point (`insertGraph`); its single result.
pub fn inline_builtin_function(
    g: &mut Graph,
    f: &BuiltinFunction,
    inputs: &[Value],
) -> Result<Value, String> {
    g.insert_graph(&f.graph, inputs)
        .first()
        .copied()
        .ok_or_else(|| format!("builtin function {} returns nothing", f.name))
}

/// What a Python builtin name means in TorchScript (the emitter's globals table).
#[derive(Clone, Debug, PartialEq)]
pub enum PythonBuiltin {
    /// `print`: `prim::Print` of its arguments.
    Print,
    /// Forms the emitter handles itself (`tuple`, `getattr`, `hasattr`, `isinstance`, `list`,
    /// `dict`, `range`, `zip`, `enumerate`), named by the node kind PyTorch uses.
    SpecialForm(Symbol),
    /// A cast (`int(x)`, `float(x)`, …): the operator to call, unless the value already has
    /// the type; for classes, the magic method is called instead.
    Cast {
        ty: Type,
        op: Symbol,
        magic: Option<&'static str>,
    },
    /// A builtin operator call (`len`, `min`, `abs`, …); for classes with the magic method
    /// (`__len__`), that method is called instead.
    Function {
        op: Symbol,
        magic: Option<&'static str>,
    },
    /// An exception class (`AssertionError`), for `raise` and `assert`.
    Exception(&'static str),
}

/// `Environment::getSugaredVar`'s globals: what a Python builtin name is bound to.
pub fn python_builtin(name: &str) -> Option<PythonBuiltin> {
    use PythonBuiltin::*;
    let function = |op: &str| Function {
        op: Symbol::new(op),
        magic: None,
    };
    let magic = |m: &'static str, op: &str| Function {
        op: Symbol::new(op),
        magic: Some(m),
    };
    let cast = |ty: Type, op: &str, m: Option<&'static str>| Cast {
        ty,
        op: Symbol::new(op),
        magic: m,
    };
    Some(match name {
        "print" => Print,
        "tuple" => SpecialForm(Symbol::prim("TupleConstruct")),
        "float" => cast(Type::Float, "aten::Float", Some("__float__")),
        "complex" => cast(Type::Complex, "aten::Complex", Some("__complex__")),
        "int" => cast(Type::Int, "aten::Int", Some("__int__")),
        "bool" => cast(Type::Bool, "aten::Bool", Some("__bool__")),
        "str" => cast(Type::Str, "aten::str", Some("__str__")),
        "getattr" => SpecialForm(Symbol::prim("GetAttr")),
        "hasattr" => SpecialForm(Symbol::prim("HasAttr")),
        "isinstance" => SpecialForm(Symbol::prim("isinstance")),
        "_to_tensor" => cast(Type::tensor(), "prim::NumToTensor", None),
        "len" => magic("__len__", "aten::len"),
        "hex" => magic("__hex__", "aten::hex"),
        "oct" => magic("__oct__", "aten::oct"),
        "round" => magic("__round__", "aten::round"),
        "hash" => function("aten::hash"),
        "id" => function("prim::id"),
        "min" => function("prim::min"),
        "max" => function("prim::max"),
        "abs" => function("prim::abs"),
        "all" => function("aten::all"),
        "any" => function("aten::any"),
        "divmod" => function("aten::divmod"),
        "sum" => function("aten::sum"),
        "list" => SpecialForm(Symbol::prim("list")),
        "dict" => SpecialForm(Symbol::prim("dict")),
        "ord" => function("aten::ord"),
        "chr" => function("aten::chr"),
        "bin" => function("aten::bin"),
        "pow" => function("aten::pow"),
        "range" => SpecialForm(Symbol::prim("range")),
        "zip" => SpecialForm(Symbol::prim("zip")),
        "enumerate" => SpecialForm(Symbol::prim("enumerate")),
        "rangelist" => function("prim::rangelist"),
        "sorted" => function("aten::sorted"),
        "AssertionError" => Exception("AssertionError"),
        _ => return None,
    })
}

/// What an attribute of a builtin module resolves to.
#[derive(Clone, Debug, PartialEq)]
pub enum ModuleAttr {
    /// A builtin operator (`torch.relu` → `aten::relu`, `math.sqrt` → `aten::sqrt`).
    Op(Symbol),
    /// A function PyTorch implements in Python and compiles from its source when scripted
    /// (`F.relu`, `torch.norm`): a `prim::CallFunction`, not an operator.
    PythonFunction,
    /// A Python function that picks one of two implementations by a boolean argument
    /// (`F.max_pool2d` by `return_indices`): PyTorch's `BooleanDispatchValue`. The
    /// implementations are named by their qualified names (see [`python_function_code`]).
    BooleanDispatch {
        arg_name: String,
        /// The argument's position when passed positionally.
        index: usize,
        /// Its value when not passed.
        default: bool,
        if_true: String,
        if_false: String,
    },
    /// A constant (`math.pi`, `torch.float32` as its `ScalarType` number, `torch.strided`).
    Constant(ConstValue),
    /// A submodule (`torch.nn`, `torch.linalg`), named by its full dotted name.
    Module(String),
}

/// The modules the name table covers, by the names a `.py` file imports them under.
pub const BUILTIN_MODULES: &[&str] = &[
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.linalg",
    "torch.fft",
    "torch.special",
    "math",
    "cmath",
];

/// Parses one value of the names table (`op aten::relu`, `python`, `int 6`, `float 3.14`,
/// `bool True`, `module torch.nn`, `dispatch return_indices 6 False IF_TRUE IF_FALSE`).
fn parse_module_attr(kind: &str, value: &str) -> Option<ModuleAttr> {
    Some(match kind {
        "dispatch" => {
            let f: Vec<&str> = value.split(' ').collect();
            let [arg_name, index, default, if_true, if_false] = f.as_slice() else {
                return None;
            };
            ModuleAttr::BooleanDispatch {
                arg_name: arg_name.to_string(),
                index: index.parse().ok()?,
                default: *default == "True",
                if_true: if_true.to_string(),
                if_false: if_false.to_string(),
            }
        }
        "op" => ModuleAttr::Op(Symbol::new(value)),
        "python" => ModuleAttr::PythonFunction,
        "int" => ModuleAttr::Constant(ConstValue::Int(value.parse().ok()?)),
        "float" => ModuleAttr::Constant(ConstValue::Float(parse_float(value)?)),
        "bool" => ModuleAttr::Constant(ConstValue::Bool(value == "True")),
        "module" => ModuleAttr::Module(value.to_string()),
        _ => return None,
    })
}

/// Python's float spellings, `inf` and `nan` included.
fn parse_float(s: &str) -> Option<f64> {
    match s {
        "inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" => Some(f64::NAN),
        _ => s.parse().ok(),
    }
}

/// `(module, name)` → attribute, from the generated table.
fn module_attr_table() -> &'static HashMap<(String, String), ModuleAttr> {
    static TABLE: OnceLock<HashMap<(String, String), ModuleAttr>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = HashMap::new();
        for line in BUILTIN_NAMES_TXT.lines() {
            if line.starts_with('#') || line.trim().is_empty() {
                continue;
            }
            let mut fields = line.split_whitespace();
            let (Some(module), Some(name), Some(kind)) =
                (fields.next(), fields.next(), fields.next())
            else {
                continue;
            };
            let value = fields.collect::<Vec<_>>().join(" ");
            if let Some(attr) = parse_module_attr(kind, &value) {
                table.insert((module.to_string(), name.to_string()), attr);
            }
        }
        table
    })
}

/// What `module.name` resolves to (`module_attr("torch", "relu")` is `aten::relu`); `None`
/// for names the module does not have. `torch.ops.NS.NAME` is an operator of namespace `NS`
/// for any name, as PyTorch's `BuiltinModule` treats it.
pub fn module_attr(module: &str, name: &str) -> Option<ModuleAttr> {
    if let Some(ns) = module.strip_prefix("torch.ops.") {
        if !ns.contains('.') {
            return Some(ModuleAttr::Op(Symbol::ns(ns, name)));
        }
        return None;
    }
    if module == "torch" && name == "ops" {
        return Some(ModuleAttr::Module("torch.ops".to_string()));
    }
    if module == "torch.ops" {
        return Some(ModuleAttr::Module(format!("torch.ops.{name}")));
    }
    module_attr_table()
        .get(&(module.to_string(), name.to_string()))
        .cloned()
}

/// The TorchScript code PyTorch compiles for a builtin-module function written in Python
/// (`python_function_code("torch.nn.functional.relu")`), in the serialized form `.code` prints
/// (as an archive's code/ folder holds it): scripting a call of it makes this a function of the
/// compilation unit, called through `prim::CallFunction`. Helpers it calls by qualified name
/// (`__torch__.torch.nn.functional._get_softmax_dim`) are in the table under the name without
/// `__torch__.`. `None` for functions TorchScript cannot compile.
pub fn python_function_code(qualified: &str) -> Option<&'static str> {
    static TABLE: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    TABLE
        .get_or_init(|| {
            PYTHON_FUNCTIONS_TXT
                .split("\n## ")
                .skip(1)
                .filter_map(|section| section.split_once('\n'))
                .map(|(name, code)| (name.trim(), code))
                .collect()
        })
        .get(qualified)
        .copied()
}

/// The operator a Tensor method call `x.name(...)` resolves to: `aten::name` with `x` as
/// `self` (PyTorch's `SimpleValue::attr` makes a `BuiltinFunction` with `self`).
pub fn tensor_method(name: &str) -> Symbol {
    Symbol::aten(name)
}

/// The builtin a property of a Tensor (`x.shape`, `x.dtype`, `x.T`) or a Device (`d.type`)
/// reads, as `SimpleValue::attr`'s table: the node is emitted through `emitBuiltinCall`, so
/// the properties defined in TorchScript (`prim::shape`, `prim::T`, …) are inlined.
pub fn property_builtin(receiver: &Type, field: &str) -> Option<Symbol> {
    const TENSOR_PROPERTIES: &[(&str, &str)] = &[
        ("dtype", "prim"),
        ("device", "prim"),
        ("grad", "prim"),
        ("data", "prim"),
        ("shape", "prim"),
        ("is_cuda", "prim"),
        ("is_cpu", "prim"),
        ("is_xla", "prim"),
        ("is_xpu", "prim"),
        ("is_sparse", "prim"),
        ("is_sparse_csr", "prim"),
        ("is_mkldnn", "prim"),
        ("is_mps", "prim"),
        ("is_mtia", "prim"),
        ("is_quantized", "prim"),
        ("is_vulkan", "prim"),
        ("is_ipu", "prim"),
        ("is_meta", "prim"),
        ("is_leaf", "aten"),
        ("is_nested", "prim"),
        ("requires_grad", "prim"),
        ("layout", "prim"),
        ("T", "prim"),
        ("H", "prim"),
        ("mT", "aten"),
        ("mH", "aten"),
        ("is_maia", "prim"),
        ("itemsize", "prim"),
        ("nbytes", "prim"),
        ("ndim", "prim"),
        ("name", "prim"),
        ("real", "aten"),
        ("imag", "aten"),
        ("retains_grad", "aten"),
    ];
    const DEVICE_PROPERTIES: &[(&str, &str)] = &[("type", "prim"), ("index", "prim")];
    let table = match receiver {
        Type::Tensor(_) => TENSOR_PROPERTIES,
        Type::Device => DEVICE_PROPERTIES,
        _ => return None,
    };
    table
        .iter()
        .find(|(name, _)| *name == field)
        .map(|(name, ns)| Symbol::ns(ns, name))
}

#[cfg(test)]
#[path = "builtins_tests.rs"]
mod tests;
