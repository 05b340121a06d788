//! Types as PyTorch prints them in graph text: `operator<<(ostream, Type)` (type.cpp), which
//! refines tensors and recurses into lists, optionals, tuples, futures and rrefs, and falls back
//! to `Type::str()` for everything else (dicts, unions and awaits print their elements with
//! `str()`, so tensors inside them are plain `Tensor`).

use std::fmt::{self, Write};

use super::{Device, Dim, ScalarType, TensorType, TupleType, Type};

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_type(self, f)
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(i) => write!(f, "{}:{}", self.kind, i),
            None => f.write_str(&self.kind),
        }
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_tensor(self, f)
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(n) => write!(f, "{n}"),
            Dim::Unknown => f.write_str("*"),
            Dim::Symbolic(s) => write!(f, "SS({s})"),
        }
    }
}

impl Type {
    /// PyTorch's `Type::str()`: the form used inside dicts, unions and awaits.
    pub fn str(&self) -> String {
        let mut s = String::new();
        let _ = write_str_form(self, &mut s);
        s
    }
}

/// `operator<<(ostream, Type)`.
fn write_type(ty: &Type, f: &mut impl Write) -> fmt::Result {
    match ty {
        Type::Tensor(t) => write_tensor(t, f),
        Type::List(e) => {
            write_type(e, f)?;
            f.write_str("[]")
        }
        Type::Optional(e) => {
            write_type(e, f)?;
            f.write_str("?")
        }
        Type::Future(e) => {
            f.write_str("Future[")?;
            write_type(e, f)?;
            f.write_str("]")
        }
        Type::RRef(e) => {
            f.write_str("RRef[")?;
            write_type(e, f)?;
            f.write_str("]")
        }
        Type::Tuple(t) => write_tuple(t, f),
        Type::Function(_) => f.write_str("Function"),
        other => write_str_form(other, f),
    }
}

fn write_tuple(t: &TupleType, f: &mut impl Write) -> fmt::Result {
    match &t.names {
        Some(info) => {
            f.write_str("NamedTuple(")?;
            for (i, e) in t.elements.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                let name = info.fields.get(i).map_or("", |s| s.as_str());
                write!(f, "{name} : ")?;
                write_type(e, f)?;
                if let Some(Some(default)) = info.defaults.get(i) {
                    write!(f, " = {default}")?;
                }
            }
            f.write_str(")")
        }
        None => {
            f.write_str("(")?;
            for (i, e) in t.elements.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_type(e, f)?;
            }
            f.write_str(")")
        }
    }
}

/// `TensorType` under `operator<<` with the default (`Full`) type verbosity.
fn write_tensor(t: &TensorType, f: &mut impl Write) -> fmt::Result {
    match t.dtype {
        Some(dt) => {
            f.write_str(dt.name())?;
            if t.sizes.is_none() {
                f.write_str("Tensor")?;
            }
        }
        None => f.write_str("Tensor")?,
    }
    if let Some(sizes) = &t.sizes {
        f.write_str("(")?;
        for (i, d) in sizes.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{d}")?;
        }
        let mut count = sizes.len();
        if let Some(strides) = &t.strides {
            let complete = strides.iter().all(|s| s.is_some());
            if !sizes.is_empty() && complete && strides.len() == sizes.len() {
                f.write_str(", strides=[")?;
                for (i, s) in strides.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{}", s.unwrap_or(0))?;
                }
                f.write_str("]")?;
            }
        }
        if let Some(rg) = t.requires_grad {
            if count > 0 {
                f.write_str(", ")?;
            }
            count += 1;
            write!(f, "requires_grad={}", rg as u8)?;
        }
        if let Some(dev) = &t.device {
            if count > 0 {
                f.write_str(", ")?;
            }
            write!(f, "device={dev}")?;
        }
        f.write_str(")")?;
    } else {
        let mut count = 0;
        if let Some(rg) = t.requires_grad {
            write!(f, "(requires_grad={}", rg as u8)?;
            count += 1;
        }
        if let Some(dev) = &t.device {
            f.write_str(if count > 0 { ", " } else { "(" })?;
            write!(f, "device={dev}")?;
            count += 1;
        }
        if count > 0 {
            f.write_str(")")?;
        }
    }
    if t.undefined == Some(true) {
        f.write_str("[Undefined]")?;
    }
    Ok(())
}

/// `Type::str()`.
fn write_str_form(ty: &Type, f: &mut impl Write) -> fmt::Result {
    let simple = match ty {
        Type::Any => "Any",
        Type::Tensor(_) => "Tensor",
        Type::Int => "int",
        Type::Float => "float",
        Type::Complex => "complex",
        Type::Bool => "bool",
        Type::Str => "str",
        Type::None => "NoneType",
        Type::Number => "Scalar",
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
        Type::Function(_) => "Function",
        Type::Class(name) | Type::Var(name) => name,
        Type::Interface(name) => {
            let short = name.rsplit('.').next().unwrap_or(name);
            return write!(f, "InterfaceType<{short}>");
        }
        Type::Enum(name) => return write!(f, "Enum<{name}>"),
        Type::List(e) => {
            write_str_form(e, f)?;
            return f.write_str("[]");
        }
        Type::Optional(e) => {
            write_str_form(e, f)?;
            return f.write_str("?");
        }
        Type::Tuple(t) => {
            if let Some(info) = &t.names {
                if !info.qualified_name.is_empty() {
                    return f.write_str(&info.qualified_name);
                }
            }
            f.write_str("(")?;
            for (i, e) in t.elements.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_str_form(e, f)?;
            }
            return f.write_str(")");
        }
        Type::Dict(k, v) => {
            f.write_str("Dict(")?;
            write_str_form(k, f)?;
            f.write_str(", ")?;
            write_str_form(v, f)?;
            return f.write_str(")");
        }
        Type::Future(e) | Type::RRef(e) | Type::Await(e) => {
            let head = match ty {
                Type::Future(_) => "Future(",
                Type::RRef(_) => "RRef(",
                _ => "Await(",
            };
            f.write_str(head)?;
            write_str_form(e, f)?;
            return f.write_str(")");
        }
        Type::Union(elems) => return write_union(elems, f),
    };
    f.write_str(simple)
}

/// `UnionType::unionStr`: int, float and complex together print as one trailing `Scalar`, and
/// the separator logic is PyTorch's, leading comma included (`Union(, str, Scalar)`).
fn write_union(elems: &[Type], f: &mut impl Write) -> fmt::Result {
    let has = |t: &Type| elems.iter().any(|e| e == t);
    let holds_number =
        has(&Type::Number) || (has(&Type::Int) && has(&Type::Float) && has(&Type::Complex));
    let is_number = |t: &Type| matches!(t, Type::Int | Type::Float | Type::Complex);
    f.write_str("Union(")?;
    let mut printed = false;
    for (i, e) in elems.iter().enumerate() {
        if !holds_number || !is_number(e) {
            if i > 0 {
                f.write_str(", ")?;
                printed = true;
            }
            write_str_form(e, f)?;
        }
    }
    if holds_number {
        if printed {
            f.write_str(", ")?;
        }
        f.write_str("Scalar")?;
    }
    f.write_str(")")
}
