//! Reading types back from graph text: every form `operator<<` and `Type::str()` print, the
//! 2018 spelling `Dynamic`, and the symbolic sizes `SS(-2)` of the `Symbolic` verbosity.

use super::{Device, Dim, NamedTupleInfo, ScalarType, TensorType, TupleType, Type};
use crate::cursor::Cursor;
use crate::source::Diagnostic;

/// Nesting deeper than this is refused instead of overflowing the stack.
const MAX_DEPTH: usize = 64;

/// Parses one type; the whole text (but surrounding whitespace) must be the type.
pub fn parse_type(text: &str) -> Result<Type, Diagnostic> {
    let mut c = Cursor::new(text);
    c.skip_ws();
    let ty = parse_type_at(&mut c)?;
    c.skip_ws();
    if !c.at_end() {
        return Err(c.error(format!("unexpected {} after type", c.describe())));
    }
    Ok(ty)
}

/// Parses one type at the cursor and leaves the cursor just after it.
pub fn parse_type_at(c: &mut Cursor) -> Result<Type, Diagnostic> {
    parse_ty(c, 0)
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.'
}

fn parse_ty(c: &mut Cursor, depth: usize) -> Result<Type, Diagnostic> {
    if depth > MAX_DEPTH {
        return Err(c.error("type nested too deeply"));
    }
    let mut ty = parse_primary(c, depth)?;
    loop {
        if c.starts_with("[Undefined]") {
            c.eat("[Undefined]");
            match &mut ty {
                Type::Tensor(t) => t.undefined = Some(true),
                _ => return Err(c.error("[Undefined] after a type that is not a tensor")),
            }
        } else if c.eat("[]") {
            ty = Type::List(Box::new(ty));
        } else if c.eat("?") {
            ty = Type::Optional(Box::new(ty));
        } else {
            return Ok(ty);
        }
    }
}

fn parse_primary(c: &mut Cursor, depth: usize) -> Result<Type, Diagnostic> {
    if c.eat("(") {
        let elements = parse_list(c, depth, ")")?;
        return Ok(Type::Tuple(TupleType {
            elements,
            names: None,
        }));
    }
    let start = c.offset();
    let name = c.take_while(is_name_byte);
    if name.is_empty() {
        return Err(c.error(format!("expected a type but found {}", c.describe())));
    }
    let simple = match name {
        "Any" => Some(Type::Any),
        "int" => Some(Type::Int),
        "float" => Some(Type::Float),
        "complex" => Some(Type::Complex),
        "bool" => Some(Type::Bool),
        "str" => Some(Type::Str),
        "NoneType" => Some(Type::None),
        "Scalar" => Some(Type::Number),
        "Device" => Some(Type::Device),
        "Stream" => Some(Type::Stream),
        "Layout" => Some(Type::Layout),
        "ScalarType" => Some(Type::ScalarType),
        "MemoryFormat" => Some(Type::MemoryFormat),
        "QScheme" => Some(Type::QScheme),
        "Generator" => Some(Type::Generator),
        "Storage" => Some(Type::Storage),
        "Capsule" => Some(Type::Capsule),
        "SymInt" => Some(Type::SymInt),
        "SymFloat" => Some(Type::SymFloat),
        "SymBool" => Some(Type::SymBool),
        "list" => Some(Type::AnyList),
        "tuple" => Some(Type::AnyTuple),
        "AnyClassType" => Some(Type::AnyClass),
        "AnyEnumType" => Some(Type::AnyEnum),
        "Function" => Some(Type::Function(String::new())),
        "Dynamic" => Some(Type::tensor()),
        _ => None,
    };
    if let Some(t) = simple {
        return Ok(t);
    }
    match name {
        "Tensor" => return parse_tensor(c, None, true),
        "Future" | "RRef" | "Await" => {
            let close = if c.eat("[") {
                "]"
            } else if c.eat("(") {
                ")"
            } else {
                return Err(c.error(format!("expected '[' or '(' after {name}")));
            };
            let elem = Box::new(parse_ty(c, depth + 1)?);
            c.expect(close)?;
            return Ok(match name {
                "Future" => Type::Future(elem),
                "RRef" => Type::RRef(elem),
                _ => Type::Await(elem),
            });
        }
        "Optional" | "List" if c.starts_with("[") => {
            c.eat("[");
            let elem = Box::new(parse_ty(c, depth + 1)?);
            c.expect("]")?;
            return Ok(if name == "List" {
                Type::List(elem)
            } else {
                Type::Optional(elem)
            });
        }
        "Dict" => {
            c.expect("(")?;
            let k = parse_ty(c, depth + 1)?;
            c.expect(", ")?;
            let v = parse_ty(c, depth + 1)?;
            c.expect(")")?;
            return Ok(Type::Dict(Box::new(k), Box::new(v)));
        }
        "Union" => {
            c.expect("(")?;
            return parse_union(c, depth);
        }
        "NamedTuple" if c.starts_with("(") => {
            c.eat("(");
            return parse_named_tuple(c, depth);
        }
        "Enum" | "InterfaceType" if c.starts_with("<") => {
            c.eat("<");
            let qualified = c.take_while(|b| b != b'>' && b != b'\n');
            c.expect(">")?;
            return Ok(if name == "Enum" {
                Type::Enum(qualified.to_string())
            } else {
                Type::Interface(qualified.to_string())
            });
        }
        _ => {}
    }
    if let Some(dt) = ScalarType::from_name(name) {
        if c.starts_with("(") {
            return parse_tensor(c, Some(dt), false);
        }
        // A 2018 dump may print a dtype with no parentheses; read it as unsized.
        return Ok(Type::Tensor(TensorType {
            dtype: Some(dt),
            ..TensorType::default()
        }));
    }
    if let Some(dt) = name.strip_suffix("Tensor").and_then(ScalarType::from_name) {
        return parse_tensor(c, Some(dt), true);
    }
    if name.starts_with('.') || name.ends_with('.') || name.contains("..") {
        c.set_offset(start);
        return Err(c.error(format!("'{name}' is not a type")));
    }
    if c.starts_with("(") || c.starts_with("<") {
        c.set_offset(start);
        return Err(c.error(format!("unknown type '{name}'")));
    }
    if name.contains('.') {
        Ok(Type::Class(name.to_string()))
    } else if name.as_bytes()[0].is_ascii_digit() {
        c.set_offset(start);
        Err(c.error(format!("expected a type but found '{name}'")))
    } else {
        Ok(Type::Var(name.to_string()))
    }
}

/// Comma-separated types up to `close`.
fn parse_list(c: &mut Cursor, depth: usize, close: &str) -> Result<Vec<Type>, Diagnostic> {
    let mut out = Vec::new();
    if c.eat(close) {
        return Ok(out);
    }
    loop {
        out.push(parse_ty(c, depth + 1)?);
        if c.eat(close) {
            return Ok(out);
        }
        c.expect(", ")?;
    }
}

/// The elements of `Union(...)`. PyTorch folds int, float and complex into one trailing
/// `Scalar` after a separator of their own (`Union(, str, Scalar)`); they come back first.
fn parse_union(c: &mut Cursor, depth: usize) -> Result<Type, Diagnostic> {
    let mut elems = Vec::new();
    let mut leading_empty = false;
    if c.starts_with(", ") {
        c.eat(", ");
        leading_empty = true;
    }
    if !c.eat(")") {
        loop {
            elems.push(parse_ty(c, depth + 1)?);
            if c.eat(")") {
                break;
            }
            c.expect(", ")?;
        }
    }
    if leading_empty && elems.last() == Some(&Type::Number) {
        elems.pop();
        let mut all = vec![Type::Int, Type::Float, Type::Complex];
        all.extend(elems);
        elems = all;
    }
    Ok(Type::Union(elems))
}

fn parse_named_tuple(c: &mut Cursor, depth: usize) -> Result<Type, Diagnostic> {
    let mut info = NamedTupleInfo::default();
    let mut elements = Vec::new();
    if !c.eat(")") {
        loop {
            let field = c.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
            if field.is_empty() {
                return Err(c.error("expected a field name in NamedTuple"));
            }
            c.expect(" : ")?;
            elements.push(parse_ty(c, depth + 1)?);
            info.fields.push(field.to_string());
            let default = if c.eat(" = ") {
                Some(take_default(c)?)
            } else {
                None
            };
            info.defaults.push(default);
            if c.eat(")") {
                break;
            }
            c.expect(", ")?;
        }
    }
    if info.defaults.iter().all(|d| d.is_none()) {
        info.defaults.clear();
    }
    Ok(Type::Tuple(TupleType {
        elements,
        names: Some(info),
    }))
}

/// A default value's printed text: up to the next `,` or `)` outside brackets and quotes.
fn take_default(c: &mut Cursor) -> Result<String, Diagnostic> {
    let start = c.offset();
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    loop {
        let Some(ch) = c.peek() else {
            return Err(c.error("unterminated default value"));
        };
        if let Some(q) = quote {
            c.bump();
            if ch == '\\' {
                c.bump();
            } else if ch == q {
                quote = None;
            }
            continue;
        }
        match ch {
            '\n' => return Err(c.error("unterminated default value")),
            '"' | '\'' => quote = Some(ch),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' if depth > 0 => depth -= 1,
            ')' | ',' if depth == 0 => break,
            _ => {}
        }
        c.bump();
    }
    Ok(c.text()[start..c.offset()].to_string())
}

/// A tensor type after its head: `Tensor`, `Float`, `FloatTensor`. `(...)` holds sizes,
/// strides, requires_grad and device; an unsized head (`Tensor`, `FloatTensor`) only the flags.
fn parse_tensor(
    c: &mut Cursor,
    dtype: Option<ScalarType>,
    unsized_head: bool,
) -> Result<Type, Diagnostic> {
    let mut t = TensorType {
        dtype,
        ..TensorType::default()
    };
    if !c.eat("(") {
        return Ok(Type::Tensor(t));
    }
    let mut sizes = Vec::new();
    let mut saw_flag = false;
    if !c.eat(")") {
        loop {
            if c.eat("strides=[") {
                let mut strides = Vec::new();
                if !c.eat("]") {
                    loop {
                        strides.push(if c.eat("*") { None } else { Some(c.int()?) });
                        if c.eat("]") {
                            break;
                        }
                        c.expect(", ")?;
                    }
                }
                t.strides = Some(strides);
                saw_flag = true;
            } else if c.eat("requires_grad=") {
                t.requires_grad = Some(match c.bump() {
                    Some('0') => false,
                    Some('1') => true,
                    _ => return Err(c.error("expected 0 or 1 after requires_grad=")),
                });
                saw_flag = true;
            } else if c.eat("device=") {
                t.device = Some(parse_device(c)?);
                saw_flag = true;
            } else if saw_flag {
                return Err(c.error(format!(
                    "expected a tensor property but found {}",
                    c.describe()
                )));
            } else if c.eat("*") {
                sizes.push(Dim::Unknown);
            } else if c.eat("SS(") {
                sizes.push(Dim::Symbolic(c.int()?));
                c.expect(")")?;
            } else {
                sizes.push(Dim::Known(c.int()?));
            }
            if c.eat(")") {
                break;
            }
            // 2018 dumps separated sizes with "," and no space.
            if !c.eat(", ") {
                c.expect(",")?;
            }
        }
    }
    if unsized_head {
        if !sizes.is_empty() && dtype.is_some() {
            return Err(c.error("a 'Tensor'-suffixed type cannot have sizes"));
        }
        // `Tensor(2, 3)`: no dtype but known sizes.
        if !sizes.is_empty() || (dtype.is_none() && !saw_flag) {
            t.sizes = Some(sizes);
        }
    } else {
        t.sizes = Some(sizes);
    }
    Ok(Type::Tensor(t))
}

fn parse_device(c: &mut Cursor) -> Result<Device, Diagnostic> {
    let kind = c.take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
    if kind.is_empty() {
        return Err(c.error("expected a device"));
    }
    let index = if c.eat(":") { Some(c.int()?) } else { None };
    Ok(Device {
        kind: kind.to_string(),
        index,
    })
}

#[cfg(test)]
mod tests;
