//! Type annotations to types, after PyTorch's `script_type_parser.cpp`: `int`, `float`,
//! `bool`, `str`, `Tensor`, `List[T]`, `Dict[K, V]`, `Tuple[...]`, `Optional[T]`, `Union[...]`,
//! `T | None`, `Any`, `Device`, classes, NamedTuples and enums of the file.

use ember_dialects::types::{optional_of, union_of};
use ember_dialects::Type;

use super::{Global, ModuleCx, R};
use crate::frontend::ast::{BinOp, Expr, ExprKind};
use crate::frontend::error::FrontendError;
use crate::frontend::span::SourceFile;

/// The dotted name an expression spells (`torch.Tensor`, `typing.List`), if it is one.
pub fn dotted_name(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.clone()),
        ExprKind::Attribute { value, attr } => {
            Some(format!("{}.{}", dotted_name(value)?, attr.name))
        }
        _ => None,
    }
}

/// The last component of a dotted type name, with the module paths TorchScript accepts for
/// builtin types removed (`typing.List` → `List`, `torch.Tensor` → `Tensor`).
fn builtin_type_name(name: &str) -> &str {
    for prefix in ["typing.", "torch.", "t.", "builtins."] {
        if let Some(rest) = name.strip_prefix(prefix) {
            if !rest.contains('.') {
                return rest;
            }
        }
    }
    name
}

fn simple_type(name: &str) -> Option<Type> {
    Some(match name {
        "int" => Type::Int,
        "float" => Type::Float,
        "bool" => Type::Bool,
        "str" => Type::Str,
        "complex" => Type::Complex,
        "Tensor" => Type::tensor(),
        "Any" => Type::Any,
        "None" | "NoneType" => Type::None,
        "number" | "Number" => Type::Number,
        "device" | "Device" => Type::Device,
        "Stream" => Type::Stream,
        "Generator" => Type::Generator,
        // dtypes, layouts and memory formats are ints in TorchScript.
        "dtype" | "layout" | "memory_format" => Type::Int,
        "qscheme" => Type::QScheme,
        _ => return None,
    })
}

impl ModuleCx<'_> {
    pub fn parse_type(&self, e: &Expr) -> R<Type> {
        match &e.kind {
            ExprKind::None => Ok(Type::None),
            ExprKind::Str(text) => self.parse_type_string(e, text),
            ExprKind::BinOp {
                op: BinOp::BitOr,
                lhs,
                rhs,
            } => {
                let a = self.parse_type(lhs)?;
                let b = self.parse_type(rhs)?;
                union_of(vec![a, b]).map_err(|m| FrontendError::new(e.span, m))
            }
            ExprKind::Subscript { value, indices } => {
                let Some(name) = dotted_name(value) else {
                    return Err(FrontendError::new(e.span, "Unknown type constructor"));
                };
                self.parse_subscript_type(e, builtin_type_name(&name), indices)
            }
            ExprKind::Name(_) | ExprKind::Attribute { .. } => {
                let name = dotted_name(e).unwrap_or_default();
                if let Some(t) = self.resolve_type_name(&name) {
                    return Ok(t);
                }
                let short = builtin_type_name(&name);
                if let Some(t) = simple_type(short) {
                    return Ok(t);
                }
                // The typing forms need their contained types (PyTorch's annotations.py); the
                // builtin classes alone mean any list, tuple or dict.
                let uncontained = |what: &str, example: &str| {
                    Err(FrontendError::new(
                        e.span,
                        format!("Attempted to use {what} without a contained type. Please add a contained type, e.g. {what}[{example}]"),
                    ))
                };
                match short {
                    "List" => uncontained("List", "int"),
                    "Tuple" => uncontained("Tuple", "int"),
                    "Optional" => uncontained("Optional", "int"),
                    "Dict" => Err(FrontendError::new(
                        e.span,
                        "Attempted to use Dict without contained types. Please add contained type, e.g. Dict[int, int]",
                    )),
                    "list" => Ok(Type::list(Type::Any)),
                    "tuple" => Ok(Type::AnyTuple),
                    "dict" => Ok(Type::Dict(Box::new(Type::Any), Box::new(Type::Any))),
                    _ => Err(FrontendError::new(
                        e.span,
                        format!("Unknown type name '{name}'"),
                    )),
                }
            }
            ExprKind::Tuple(items) if items.is_empty() => Ok(Type::tuple(vec![])),
            // PyTorch names the tree kind (`+` for an addition).
            _ => Err(FrontendError::new(
                e.span,
                format!(
                    "Expression of type {} cannot be used in a type expression",
                    match &e.kind {
                        ExprKind::BinOp { op, .. } => op.symbol(),
                        ExprKind::Ellipsis => "dots",
                        ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Imaginary(_) => "const",
                        ExprKind::List(_) => "list-literal",
                        ExprKind::Tuple(_) => "tuple-literal",
                        _ => "",
                    }
                ),
            )),
        }
    }

    /// A class, NamedTuple or enum of the file (or the resolver) named `name`.
    pub fn resolve_type_name(&self, name: &str) -> Option<Type> {
        let st = self.state.borrow();
        let local = name
            .strip_prefix(self.prefix.as_str())
            .and_then(|n| n.strip_prefix('.'))
            .unwrap_or(name);
        if let Some(Global::Class(_)) = self.globals.get(local) {
            let qual = format!("{}.{local}", self.prefix);
            if let Some(info) = st.classes.get(&qual) {
                if let Some(t) = &info.named_tuple {
                    return Some(t.clone());
                }
                if info.enum_members.is_some() {
                    return Some(Type::Enum(qual));
                }
                if info.is_interface {
                    return Some(Type::Interface(qual));
                }
            }
            return Some(Type::Class(qual));
        }
        drop(st);
        match self.resolver.resolve(name) {
            Some(super::Resolved::Class(c)) if c.is_interface => {
                Some(Type::Interface(c.qualname.clone()))
            }
            Some(super::Resolved::Class(c)) => Some(Type::Class(c.qualname.clone())),
            Some(super::Resolved::Type(t)) => Some(t),
            _ => None,
        }
    }

    fn parse_subscript_type(&self, e: &Expr, ctor: &str, indices: &[Expr]) -> R<Type> {
        // `Tuple[int, str]` arrives as one index holding a tuple or as several indices.
        let args: Vec<&Expr> = match indices {
            [one] => match &one.kind {
                ExprKind::Tuple(items) => items.iter().collect(),
                _ => vec![one],
            },
            many => many.iter().collect(),
        };
        let expect = |n: usize| -> R<()> {
            if args.len() != n {
                return Err(FrontendError::new(
                    e.span,
                    format!(
                        "{ctor} expected {n} type argument(s) but found {}",
                        args.len()
                    ),
                ));
            }
            Ok(())
        };
        match ctor {
            "List" | "list" => {
                expect(1)?;
                Ok(Type::list(self.parse_type(args[0])?))
            }
            "Optional" => {
                expect(1)?;
                let t = self.parse_type(args[0])?;
                optional_of(t).map_err(|m| FrontendError::new(e.span, m))
            }
            "Dict" | "dict" => {
                expect(2)?;
                let k = self.parse_type(args[0])?;
                let v = self.parse_type(args[1])?;
                dict_type(k, v).map_err(|m| FrontendError::new(e.span, m))
            }
            "Tuple" | "tuple" => {
                // `Tuple[()]` is the empty tuple.
                if let [only] = indices {
                    if matches!(&only.kind, ExprKind::Tuple(items) if items.is_empty()) {
                        return Ok(Type::tuple(vec![]));
                    }
                }
                let items = args
                    .iter()
                    .map(|a| self.parse_type(a))
                    .collect::<R<Vec<_>>>()?;
                Ok(Type::tuple(items))
            }
            "Union" => {
                let items = args
                    .iter()
                    .map(|a| self.parse_type(a))
                    .collect::<R<Vec<_>>>()?;
                if items.len() == 1 {
                    return Ok(items.into_iter().next().unwrap_or(Type::Any));
                }
                union_of(items).map_err(|m| FrontendError::new(e.span, m))
            }
            "BroadcastingList1" | "BroadcastingList2" | "BroadcastingList3" => {
                expect(1)?;
                Ok(Type::list(self.parse_type(args[0])?))
            }
            "Final" => {
                expect(1)?;
                self.parse_type(args[0])
            }
            "Future" => {
                expect(1)?;
                Ok(Type::Future(Box::new(self.parse_type(args[0])?)))
            }
            "Await" => {
                expect(1)?;
                Ok(Type::Await(Box::new(self.parse_type(args[0])?)))
            }
            "RRef" => {
                expect(1)?;
                Ok(Type::RRef(Box::new(self.parse_type(args[0])?)))
            }
            other => Err(FrontendError::new(
                e.span,
                format!("Unknown type constructor {other}"),
            )),
        }
    }

    /// A type written as a string (`x: "List[int]"`): parsed as an expression, then as a type.
    fn parse_type_string(&self, e: &Expr, text: &str) -> R<Type> {
        let file = SourceFile::new(self.file.name.clone(), text.to_string());
        let parsed = crate::frontend::parser::parse_expr(&file)
            .map_err(|err| FrontendError::new(e.span, err.message))?;
        self.parse_type(&parsed)
            .map_err(|err| FrontendError::new(e.span, err.message))
    }
}

/// N of a `BroadcastingListN[T]` annotation.
pub fn broadcasting_len(e: &Expr) -> Option<i64> {
    let ExprKind::Subscript { value, .. } = &e.kind else {
        return None;
    };
    let name = dotted_name(value)?;
    let n = builtin_type_name(&name).strip_prefix("BroadcastingList")?;
    n.parse().ok()
}

/// Whether an annotation is `Final[...]` (module constants).
pub fn is_final(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Subscript { value, .. } => {
            dotted_name(value).is_some_and(|n| builtin_type_name(&n) == "Final")
        }
        ExprKind::Name(n) => n == "Final",
        ExprKind::Attribute { .. } => {
            dotted_name(e).is_some_and(|n| builtin_type_name(&n) == "Final")
        }
        _ => false,
    }
}

/// `Dict(key, value)`, for the key types PyTorch's `DictType::create` accepts (an Enum key
/// must go through its `.name` or `.value`), with its message otherwise.
pub(crate) fn dict_type(key: Type, value: Type) -> Result<Type, String> {
    match key {
        Type::Any
        | Type::Int
        | Type::Bool
        | Type::Float
        | Type::Complex
        | Type::Str
        | Type::Tensor(_)
        | Type::Device => Ok(Type::Dict(Box::new(key), Box::new(value))),
        other => Err(format!(
            "Cannot create dict for key type '{other}', only int, float, complex, Tensor, device and string keys are supported"
        )),
    }
}
