//! Helpers for the passes' unit tests: building graphs in few lines and dumping them in a form
//! close to PyTorch's graph text (attributes shown compactly), for expect-test snapshots.

use std::fmt::Write;

use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Symbol, Type, Value};

use super::{PassContext, PassFn};

/// Appends `kind(inputs)` with one output of type `ty` at the insertion point.
pub fn op(g: &mut Graph, kind: &str, inputs: &[Value], ty: Type) -> Value {
    let n = g.create_and_insert(Symbol::new(kind), inputs, 1);
    let v = g.output(n, 0);
    g.set_ty(v, ty);
    v
}

/// Appends a node with no outputs.
pub fn stmt(g: &mut Graph, kind: &str, inputs: &[Value]) -> Node {
    g.create_and_insert(Symbol::new(kind), inputs, 0)
}

/// Appends `prim::Constant[value=v]` typed `int`.
pub fn int(g: &mut Graph, v: i64) -> Value {
    constant(g, Type::Int, Some(AttrValue::Int(v)))
}

pub fn boolean(g: &mut Graph, v: bool) -> Value {
    constant(g, Type::Bool, Some(AttrValue::Int(v as i64)))
}

pub fn float(g: &mut Graph, v: f64) -> Value {
    constant(g, Type::Float, Some(AttrValue::Float(v)))
}

pub fn none(g: &mut Graph) -> Value {
    constant(g, Type::None, None)
}

pub fn constant(g: &mut Graph, ty: Type, value: Option<AttrValue>) -> Value {
    let n = g.create_and_insert(sym::constant(), &[], 1);
    if let Some(value) = value {
        g.set_attr(n, sym::attr_value(), value);
    }
    let v = g.output(n, 0);
    g.set_ty(v, ty);
    v
}

/// Adds a named graph input.
pub fn input(g: &mut Graph, name: &str, ty: Type) -> Value {
    let v = g.add_input(ty);
    g.set_debug_name(v, name);
    v
}

/// Runs `pass` with no limit and returns whether it changed the graph.
pub fn run(pass: PassFn, g: &mut Graph) -> bool {
    let mut cx = PassContext::unlimited("test");
    pass(g, &mut cx).expect("pass failed")
}

/// Runs `pass` allowing only `limit` rewrites.
pub fn run_limited(pass: PassFn, g: &mut Graph, name: &'static str, limit: usize) -> bool {
    let config = super::PassConfig::parse("", &format!("{name}={limit}")).unwrap();
    let mut cx = config.context_for(name);
    pass(g, &mut cx).expect("pass failed")
}

/// The graph as text, PyTorch's layout: `graph(%x : Tensor):`, one node a line, blocks
/// indented, `return (...)`.
pub fn dump(g: &Graph) -> String {
    let mut out = String::new();
    let params: Vec<String> = g.inputs().iter().map(|&v| typed(g, v)).collect();
    let _ = writeln!(out, "graph({}):", params.join(", "));
    dump_nodes(g, g.block(), 1, &mut out);
    let _ = writeln!(out, "  return ({})", names(g, g.outputs()));
    out
}

fn typed(g: &Graph, v: Value) -> String {
    format!("%{} : {}", g.value_name(v), type_text(g.ty(v)))
}

/// PyTorch's spelling for the types the tests use (kept here so the snapshots do not depend on
/// the printer of the text format).
fn type_text(ty: &Type) -> String {
    match ty {
        Type::Tuple(t) => {
            format!(
                "({})",
                t.elements
                    .iter()
                    .map(type_text)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        }
        Type::List(e) => format!("{}[]", type_text(e)),
        Type::Optional(e) => format!("{}?", type_text(e)),
        Type::Function(_) => "Function".to_string(),
        Type::Class(name) => name.clone(),
        other => other.to_string(),
    }
}

fn names(g: &Graph, vs: &[Value]) -> String {
    vs.iter()
        .map(|&v| format!("%{}", g.value_name(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn dump_nodes(g: &Graph, b: Block, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    for n in g.block_nodes(b) {
        let outs: Vec<String> = g.node_outputs(n).iter().map(|&v| typed(g, v)).collect();
        let lhs = if outs.is_empty() {
            String::new()
        } else {
            format!("{} ", outs.join(", "))
        };
        let _ = writeln!(
            out,
            "{pad}{lhs}= {}{}({})",
            g.kind(n),
            attrs(g, n),
            names(g, g.node_inputs(n))
        );
        for (i, &sub) in g.node_blocks(n).iter().enumerate() {
            let params: Vec<String> = g.block_inputs(sub).iter().map(|&v| typed(g, v)).collect();
            let _ = writeln!(out, "{pad}  block{i}({}):", params.join(", "));
            dump_nodes(g, sub, depth + 2, out);
            let _ = writeln!(out, "{pad}    -> ({})", names(g, g.block_outputs(sub)));
        }
    }
}

fn attrs(g: &Graph, n: Node) -> String {
    if g.attrs(n).is_empty() {
        return String::new();
    }
    let parts: Vec<String> = g
        .attrs(n)
        .iter()
        .map(|(k, v)| format!("{}={}", k.unqualified(), attr_text(v)))
        .collect();
    format!("[{}]", parts.join(", "))
}

fn attr_text(v: &AttrValue) -> String {
    match v {
        AttrValue::Int(i) => i.to_string(),
        AttrValue::Float(f) => format!("{f:?}"),
        AttrValue::Str(s) => format!("{s:?}"),
        AttrValue::Graph(_) => "<Graph>".to_string(),
        AttrValue::IValue(c) => const_text(c),
        other => format!("{other:?}"),
    }
}

fn const_text(c: &ConstValue) -> String {
    match c {
        ConstValue::None => "None".into(),
        ConstValue::Bool(b) => if *b { "True" } else { "False" }.into(),
        ConstValue::Int(i) => i.to_string(),
        ConstValue::Float(f) => format!("{f:?}"),
        ConstValue::Str(s) => format!("{s:?}"),
        ConstValue::Tuple(items) => {
            format!(
                "({})",
                items.iter().map(const_text).collect::<Vec<_>>().join(", ")
            )
        }
        ConstValue::List(items) => {
            format!(
                "[{}]",
                items.iter().map(const_text).collect::<Vec<_>>().join(", ")
            )
        }
        other => format!("{other:?}"),
    }
}
