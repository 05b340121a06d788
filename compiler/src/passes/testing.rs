//! Helpers for the passes' unit tests: building graphs in few lines and printing them as
//! PyTorch does, for expect-test snapshots.

use ember_dialects::attr::AttrValue;
use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Node, Symbol, Type, Value};

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

/// The graph as PyTorch prints it.
pub fn dump(g: &Graph) -> String {
    g.to_string()
}
