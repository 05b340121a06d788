//! Helpers for the constant-propagation and canonicalize tests: constants built as the folder
//! builds them, and a compact listing of a graph to compare against.

use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Symbol, Type, Value};

use crate::fold::insert_constant_before;

/// Appends a constant to the end of block `b`.
pub fn constant_in(g: &mut Graph, b: Block, c: ConstValue, like: Type) -> Value {
    let ret = g.return_node(b);
    insert_constant_before(g, ret, &c, &like).expect("constant")
}

pub fn constant(g: &mut Graph, c: ConstValue) -> Value {
    let b = g.block();
    constant_in(g, b, c, Type::None)
}

pub fn int(g: &mut Graph, i: i64) -> Value {
    constant(g, ConstValue::Int(i))
}

/// Appends `kind(inputs)` with one output of type `ty` to block `b`.
pub fn op_in(g: &mut Graph, b: Block, kind: &str, inputs: &[Value], ty: Type) -> Value {
    let n = g.create(Symbol::new(kind), inputs, 0);
    let v = g.add_node_output(n, ty);
    g.block_append(b, n);
    v
}

pub fn op(g: &mut Graph, kind: &str, inputs: &[Value], ty: Type) -> Value {
    let b = g.block();
    op_in(g, b, kind, inputs, ty)
}

/// One line per node, nested blocks indented, then the outputs:
/// `%3 : int = aten::add(%1, %2)`, constants as `%1 : int = 2`.
pub fn listing(g: &Graph) -> String {
    let mut out = String::new();
    block(g, g.block(), 0, &mut out);
    out
}

fn names(g: &Graph, vs: &[Value]) -> String {
    vs.iter()
        .map(|&v| format!("%{}", g.value_name(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

fn block(g: &Graph, b: Block, depth: usize, out: &mut String) {
    let pad = "  ".repeat(depth);
    for n in g.block_nodes(b) {
        node(g, n, &pad, out);
        for &sub in g.node_blocks(n) {
            out.push_str(&format!(
                "{pad}  block({}):\n",
                names(g, g.block_inputs(sub))
            ));
            block(g, sub, depth + 2, out);
        }
    }
    out.push_str(&format!("{pad}-> ({})\n", names(g, g.block_outputs(b))));
}

fn node(g: &Graph, n: Node, pad: &str, out: &mut String) {
    let outs: Vec<String> = g
        .node_outputs(n)
        .iter()
        .map(|&v| format!("%{} : {}", g.value_name(v), type_name(g.ty(v))))
        .collect();
    let rhs = if g.kind(n) == sym::constant() {
        match g.attr(n, sym::attr_value()) {
            None => "None".to_string(),
            Some(AttrValue::Int(i)) => format!("Int({i})"),
            Some(AttrValue::Float(f)) => format!("Float({f:?})"),
            Some(AttrValue::Str(s)) => format!("Str({s:?})"),
            Some(AttrValue::IValue(c)) => format!("IValue({c:?})"),
            Some(other) => format!("{other:?}"),
        }
    } else {
        format!("{}({})", g.kind(n), names(g, g.node_inputs(n)))
    };
    out.push_str(&format!("{pad}{} = {rhs}\n", outs.join(", ")));
}

/// Types as PyTorch prints them, for the kinds these tests use.
fn type_name(t: &Type) -> String {
    match t {
        Type::Tuple(tt) => {
            let items: Vec<String> = tt.elements.iter().map(type_name).collect();
            format!("({})", items.join(", "))
        }
        other => other.to_string(),
    }
}
