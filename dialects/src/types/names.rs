//! The two spellings PyTorch gives a type besides the graph printer: `str()`, used when a
//! schema is printed (`int[]`, `Dict(str, t)`, `Scalar`), and `annotation_str()` (`repr_str`),
//! the Python spelling used in error messages (`List[int]`, `Optional[Tensor]`, `number`).

use super::{TupleType, Type};

impl Type {
    /// PyTorch's `Type::str()`: the spelling inside a printed schema (the same as
    /// [`Type::str`], which the graph printer uses inside `Dict`, `Union` and `Await`).
    pub fn schema_str(&self) -> String {
        self.str()
    }

    /// PyTorch's `Type::repr_str()` (`annotation_str`): the Python spelling of error messages.
    pub fn repr_str(&self) -> String {
        let mut s = String::new();
        write_repr(self, &mut s);
        s
    }
}

fn join(out: &mut String, items: &[Type], f: fn(&Type, &mut String)) {
    for (i, t) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        f(t, out);
    }
}

fn is_number_member(t: &Type) -> bool {
    matches!(t, Type::Int | Type::Float | Type::Complex)
}

fn union_holds_number(items: &[Type]) -> bool {
    [Type::Int, Type::Float, Type::Complex]
        .iter()
        .all(|n| items.contains(n))
}

/// `UnionType::unionStr`, comma quirk included: number members fold into one trailing `Scalar`
/// (`number`), and a separator is written only before members at index > 0.
fn write_union(items: &[Type], out: &mut String, repr: bool) {
    let (open, close) = if repr {
        ("Union[", "]")
    } else {
        ("Union(", ")")
    };
    let holds_number = union_holds_number(items);
    out.push_str(open);
    let mut printed = false;
    for (i, t) in items.iter().enumerate() {
        if !holds_number || !is_number_member(t) {
            if i > 0 {
                out.push_str(", ");
                printed = true;
            }
            if repr {
                write_repr(t, out)
            } else {
                out.push_str(&t.str())
            }
        }
    }
    if holds_number {
        if printed {
            out.push_str(", ");
        }
        out.push_str(if repr { "number" } else { "Scalar" });
    }
    out.push_str(close);
}

fn simple_name(t: &Type) -> Option<&'static str> {
    Some(match t {
        Type::Any => "Any",
        Type::Tensor(_) => "Tensor",
        Type::Int => "int",
        Type::Float => "float",
        Type::Complex => "complex",
        Type::Bool => "bool",
        Type::Str => "str",
        Type::None => "NoneType",
        Type::Device => "Device",
        Type::Stream => "Stream",
        Type::Layout => "Layout",
        Type::ScalarType => "ScalarType",
        Type::MemoryFormat => "MemoryFormat",
        Type::QScheme => "QScheme",
        Type::Generator => "Generator",
        Type::Storage => "Storage",
        Type::Capsule => "Capsule",
        Type::SymInt => "SymInt",
        Type::SymFloat => "SymFloat",
        Type::SymBool => "SymBool",
        Type::AnyList => "list",
        Type::AnyTuple => "tuple",
        Type::AnyClass => "AnyClassType",
        Type::AnyEnum => "AnyEnumType",
        _ => return None,
    })
}

fn wrap(open: &str, e: &Type, close: &str, out: &mut String, f: fn(&Type, &mut String)) {
    out.push_str(open);
    f(e, out);
    out.push_str(close);
}

fn write_repr(t: &Type, out: &mut String) {
    let symbolic = match t {
        Type::SymInt => Some("int"),
        Type::SymFloat => Some("float"),
        Type::SymBool => Some("bool"),
        _ => None,
    };
    if let Some(name) = symbolic.or_else(|| simple_name(t)) {
        out.push_str(name);
        return;
    }
    match t {
        Type::Number => out.push_str("number"),
        Type::List(e) => wrap("List[", e, "]", out, write_repr),
        Type::Optional(e) => wrap("Optional[", e, "]", out, write_repr),
        Type::Tuple(TupleType { elements, names }) => match names {
            Some(info) if !info.qualified_name.is_empty() => out.push_str(&info.qualified_name),
            _ if elements.is_empty() => out.push_str("Tuple[()]"),
            _ => {
                out.push_str("Tuple[");
                join(out, elements, write_repr);
                out.push(']');
            }
        },
        Type::Union(items) => write_union(items, out, true),
        Type::Dict(k, v) => {
            out.push_str("Dict[");
            write_repr(k, out);
            out.push_str(", ");
            write_repr(v, out);
            out.push(']');
        }
        Type::Future(e) => wrap("Future[", e, "]", out, write_repr),
        Type::RRef(e) => wrap("RRef[", e, "]", out, write_repr),
        Type::Await(e) => wrap("Await[", e, "]", out, write_repr),
        Type::Interface(name) | Type::Function(name) => out.push_str(name),
        _ => out.push_str(&t.str()),
    }
}
