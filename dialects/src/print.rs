//! Graph text exactly as PyTorch's `str(graph)` prints it (torch/csrc/jit/ir/ir.cpp:
//! `Graph::print`, `Node::print`, `printAttrValue`): typed value lists, attributes in brackets,
//! blocks `blockN(...):` ending in `-> (...)`, `, scope: ...`, `# file:line:col` comments, and
//! subgraph attributes printed after the graph as `with prim::FusionGroup_0 = graph(...)`.

use std::fmt::{self, Write};

use crate::attr::{AttrValue, ConstValue, TensorLiteral};
use crate::floatfmt::{format_complex_repr, format_g, format_repr};
use crate::ir::{Graph, Node, Value};
use crate::symbol::sym;

/// Tensors with more elements than this print as `<Tensor>` (`max_tensor_display_size`).
pub const MAX_TENSOR_DISPLAY_SIZE: usize = 10;

/// Graphs are equal when they print the same: names, types, attributes and order included.
impl PartialEq for Graph {
    fn eq(&self, other: &Graph) -> bool {
        self.to_string() == other.to_string()
    }
}

impl fmt::Display for Graph {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_graph(self, f)
    }
}

/// The graph as `str(graph)` prints it.
pub fn print_graph(g: &Graph) -> String {
    g.to_string()
}

/// One node as PyTorch prints it inside a graph at indentation `level`, its blocks included.
/// Subgraph attributes print as `<Graph>` here since there is no graph to append them to.
pub fn print_node(g: &Graph, n: Node) -> String {
    let mut s = String::new();
    let _ = write_node(g, n, 0, None, &mut s);
    s
}

fn write_graph(g: &Graph, f: &mut impl Write) -> fmt::Result {
    f.write_str("graph(")?;
    write_typed_values(g, g.inputs(), ",\n      ", f)?;
    f.write_str("):\n")?;
    let mut groups = Vec::new();
    for n in g.block_nodes(g.block()) {
        write_node(g, n, 1, Some(&mut groups), f)?;
    }
    f.write_str("  return (")?;
    write_value_refs(g, g.outputs(), f)?;
    f.write_str(")\n")?;
    for (i, &n) in groups.iter().enumerate() {
        write!(f, "with {}_{} = ", g.kind(n), i)?;
        match g.attr(n, sym::attr_subgraph()) {
            Some(AttrValue::Graph(sub)) => write_graph(sub, f)?,
            _ => f.write_str("<Graph>\n")?,
        }
    }
    Ok(())
}

fn write_value_refs(g: &Graph, values: &[Value], f: &mut impl Write) -> fmt::Result {
    for (i, &v) in values.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "%{}", g.value_name(v))?;
    }
    Ok(())
}

fn write_typed_values(g: &Graph, values: &[Value], delim: &str, f: &mut impl Write) -> fmt::Result {
    for (i, &v) in values.iter().enumerate() {
        if i > 0 {
            f.write_str(delim)?;
        }
        write!(f, "%{} : {}", g.value_name(v), g.ty(v))?;
    }
    Ok(())
}

fn indent(level: usize, f: &mut impl Write) -> fmt::Result {
    for _ in 0..level {
        f.write_str("  ")?;
    }
    Ok(())
}

fn has_subgraph(g: &Graph, n: Node) -> bool {
    matches!(g.attr(n, sym::attr_subgraph()), Some(AttrValue::Graph(_)))
}

fn write_node(
    g: &Graph,
    n: Node,
    level: usize,
    mut groups: Option<&mut Vec<Node>>,
    f: &mut impl Write,
) -> fmt::Result {
    indent(level, f)?;
    write_typed_values(g, g.node_outputs(n), ", ", f)?;
    f.write_str(" = ")?;
    let kind = g.kind(n);
    let python_name = g.attr(n, crate::parse::python_name());
    match groups.as_deref_mut() {
        _ if kind == crate::symbol::Symbol::prim("PythonOp") && python_name.is_some() => {
            // `^name[attrs](scalars)`: brackets always, the name and scalars not among them.
            if let Some(AttrValue::Str(name)) = python_name {
                write!(f, "^{name}")?;
            }
            write_attributes(g, n, false, f)?;
            if let Some(AttrValue::Str(scalars)) = g.attr(n, crate::parse::python_scalars()) {
                f.write_str(scalars)?;
            }
        }
        Some(groups) if has_subgraph(g, n) => {
            write!(f, "{}_{}", kind, groups.len())?;
            if g.attrs(n).len() > 1 && kind != sym::differentiable_graph() {
                write_attributes(g, n, true, f)?;
            }
            groups.push(n);
        }
        _ => {
            f.write_str(kind.as_str())?;
            if !g.attrs(n).is_empty() {
                write_attributes(g, n, false, f)?;
            }
        }
    }
    f.write_str("(")?;
    write_value_refs(g, g.node_inputs(n), f)?;
    f.write_str(")")?;
    if let Some(scope) = g.scope(n) {
        if !scope.is_empty() {
            write!(f, ", scope: {scope}")?;
        }
    }
    if let Some(src) = g.source_range(n) {
        write!(f, " # {src}")?;
    }
    f.write_str("\n")?;
    for (i, &b) in g.node_blocks(n).iter().enumerate() {
        indent(level + 1, f)?;
        write!(f, "block{i}(")?;
        write_typed_values(g, g.block_inputs(b), ", ", f)?;
        f.write_str("):\n")?;
        for nested in g.block_nodes(b) {
            write_node(g, nested, level + 2, groups.as_deref_mut(), f)?;
        }
        indent(level + 2, f)?;
        f.write_str("-> (")?;
        write_value_refs(g, g.block_outputs(b), f)?;
        f.write_str(")\n")?;
    }
    Ok(())
}

fn write_attributes(g: &Graph, n: Node, ignore_subgraph: bool, f: &mut impl Write) -> fmt::Result {
    f.write_str("[")?;
    let mut i = 0;
    for (name, value) in g.attrs(n) {
        if ignore_subgraph && *name == sym::attr_subgraph() {
            continue;
        }
        if name.namespace() == "python" {
            continue;
        }
        if i > 0 {
            f.write_str(", ")?;
        }
        i += 1;
        write!(f, "{}=", name.unqualified())?;
        // An empty list knows its element type: `IValue::repr` prints `annotate(List[T], [])`.
        if let (AttrValue::IValue(ConstValue::List(items)), [out]) = (value, g.node_outputs(n)) {
            if items.is_empty() && matches!(g.ty(*out), crate::Type::List(_)) {
                write!(f, "annotate({}, [])", g.ty(*out).repr_str())?;
                continue;
            }
        }
        write_attr_value(value, f)?;
    }
    f.write_str("]")
}

/// One attribute value (`Node::printAttrValue`).
pub fn write_attr_value(value: &AttrValue, f: &mut impl Write) -> fmt::Result {
    match value {
        AttrValue::Int(i) => write!(f, "{i}"),
        AttrValue::Float(x) => f.write_str(&format_repr(*x)),
        AttrValue::Complex(re, im) => f.write_str(&format_complex_repr(*re, *im)),
        AttrValue::Str(s) => write_quoted(s, f),
        AttrValue::Tensor(t) => write_tensor_literal(t, f),
        AttrValue::Graph(_) => f.write_str("<Graph>"),
        AttrValue::Type(t) => write!(f, "{t}"),
        AttrValue::Ints(v) => write_list(v, f, |x, f| write!(f, "{x}")),
        AttrValue::Floats(v) => write_list(v, f, |x, f| f.write_str(&format_repr(*x))),
        AttrValue::Strs(v) => write_list(v, f, |s, f| write_quoted(s, f)),
        AttrValue::Tensors(_) => f.write_str("[<Tensors>]"),
        AttrValue::Graphs(_) => f.write_str("[<Graphs>]"),
        AttrValue::Types(v) => write_list(v, f, |t, f| write!(f, "{t}")),
        AttrValue::IValue(c) => write_const(c, f),
    }
}

fn write_list<T, W: Write>(
    items: &[T],
    f: &mut W,
    mut each: impl FnMut(&T, &mut W) -> fmt::Result,
) -> fmt::Result {
    f.write_str("[")?;
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        each(x, f)?;
    }
    f.write_str("]")
}

/// An IValue constant as `IValue::repr` prints it (with ir.cpp's tensor formatter).
pub fn write_const(c: &ConstValue, f: &mut impl Write) -> fmt::Result {
    match c {
        ConstValue::None => f.write_str("None"),
        ConstValue::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
        ConstValue::Int(i) => write!(f, "{i}"),
        ConstValue::Float(x) => f.write_str(&format_repr(*x)),
        ConstValue::Complex(re, im) => f.write_str(&format_complex_repr(*re, *im)),
        ConstValue::Str(s) => write_quoted(s, f),
        ConstValue::Device(d) => {
            f.write_str("torch.device(")?;
            write_quoted(d, f)?;
            f.write_str(")")
        }
        ConstValue::Tensor(t) => write_tensor_literal(t, f),
        ConstValue::List(items) => write_list(items, f, |x, f| write_const(x, f)),
        ConstValue::Tuple(items) => {
            f.write_str("(")?;
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write_const(x, f)?;
            }
            f.write_str(if items.len() == 1 { ",)" } else { ")" })
        }
        ConstValue::Opaque(text) => f.write_str(text),
    }
}

/// A string as `c10::printQuotedString` writes it. Bytes outside printable ASCII become three
/// "octal digits" computed on a signed `char`, as C++ does on x86 (so `é` is `\0)+\/.)`).
pub fn write_quoted(s: &str, f: &mut impl Write) -> fmt::Result {
    f.write_char('"')?;
    for &byte in s.as_bytes() {
        match byte {
            b'\\' => f.write_str("\\\\")?,
            b'\'' => f.write_str("\\'")?,
            b'"' => f.write_str("\\\"")?,
            0x07 => f.write_str("\\a")?,
            0x08 => f.write_str("\\b")?,
            0x0c => f.write_str("\\f")?,
            b'\n' => f.write_str("\\n")?,
            b'\r' => f.write_str("\\r")?,
            b'\t' => f.write_str("\\t")?,
            0x0b => f.write_str("\\v")?,
            0x20..=0x7e => f.write_char(byte as char)?,
            _ => {
                let mut c = byte as i8 as i32;
                let d2 = c % 8;
                c /= 8;
                let d1 = c % 8;
                c /= 8;
                let digit = |d: i32| char::from((b'0' as i32 + d) as u8);
                f.write_char('\\')?;
                f.write_char(digit(c))?;
                f.write_char(digit(d1))?;
                f.write_char(digit(d2))?;
            }
        }
    }
    f.write_char('"')
}

/// A tensor attribute (`printAttribute(ostream, at::Tensor)`): one element as `{value}`, small
/// tensors with PyTorch's tensor printer (kept as printed), larger ones as `<Tensor>`.
pub fn write_tensor_literal(t: &TensorLiteral, f: &mut impl Write) -> fmt::Result {
    if let Some(text) = &t.printed {
        return f.write_str(text);
    }
    let numel = t
        .sizes
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(usize::try_from(d).ok()?));
    match (numel, t.scalar_values()) {
        (Some(1), Some(values)) if values.len() == 1 => {
            f.write_char('{')?;
            match values[0] {
                crate::attr::Scalar::Int(i) => write!(f, "{i}")?,
                crate::attr::Scalar::Float(x) => f.write_str(&format_g(x, 6))?,
                crate::attr::Scalar::Complex(re, im) => {
                    write!(f, "({},{})", format_g(re, 6), format_g(im, 6))?
                }
            }
            f.write_char('}')
        }
        (Some(n), Some(values)) if n <= MAX_TENSOR_DISPLAY_SIZE && values.len() == n => {
            f.write_str(&crate::tensorfmt::format_tensor(t.dtype, &t.sizes, &values))
        }
        _ => f.write_str("<Tensor>"),
    }
}
