use expect_test::{expect, Expect};

use ember_dialects::attr::AttrValue;
use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Symbol, Type, Value};

use super::{run as inline, CALLEE_ATTR};
use crate::passes::testing::*;

fn check(mut g: Graph, changed: bool, expected: Expect) {
    assert_eq!(run(inline, &mut g), changed);
    expected.assert_eq(&dump(&g));
    assert!(!run(inline, &mut g));
}

/// `def name(a, b): return relu(a) + b` (or the given body).
fn callee(build: impl FnOnce(&mut Graph, Value, Value) -> Value) -> Graph {
    let mut f = Graph::new();
    let a = input(&mut f, "a", Type::tensor());
    let b = input(&mut f, "b", Type::tensor());
    let r = build(&mut f, a, b);
    f.register_output(r);
    f
}

fn relu_add(f: &mut Graph, a: Value, b: Value) -> Value {
    let one = int(f, 1);
    let r = op(f, "aten::relu", &[a], Type::tensor());
    op(f, "aten::add", &[r, b, one], Type::tensor())
}

/// `%f : Function = prim::Constant[name=..., graph=...]()`; `body: None` is an unknown callee.
fn function(g: &mut Graph, name: &str, body: Option<Graph>) -> Value {
    let f = constant(
        g,
        Type::Function(name.into()),
        Some(AttrValue::Str(name.into())),
    );
    let n = g.producer(f);
    let value = g.remove_attr(n, sym::attr_value()).unwrap();
    g.set_attr(n, Symbol::attr("name"), value);
    if let Some(body) = body {
        g.set_attr(
            n,
            Symbol::new(CALLEE_ATTR),
            AttrValue::Graph(Box::new(body)),
        );
    }
    f
}

#[test]
fn inlines_known_calls_and_their_nested_calls() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let y = input(&mut g, "y", Type::tensor());
    let direct = function(&mut g, "relu_add", Some(callee(relu_add)));
    let r1 = op(
        &mut g,
        "prim::CallFunction",
        &[direct, x, y],
        Type::tensor(),
    );
    // `def outer(a, b): return relu_add(b, a) * a`
    let outer = callee(|f, a, b| {
        let inner = function(f, "relu_add", Some(callee(relu_add)));
        let c = op(f, "prim::CallFunction", &[inner, b, a], Type::tensor());
        op(f, "aten::mul", &[c, a], Type::tensor())
    });
    let outer_fn = function(&mut g, "outer", Some(outer));
    let r2 = op(
        &mut g,
        "prim::CallFunction",
        &[outer_fn, r1, x],
        Type::tensor(),
    );
    g.register_output(r2);
    check(
        g,
        true,
        expect![[r#"
            graph(%x : Tensor,
                  %y : Tensor):
              %6 : int = prim::Constant[value=1]()
              %7 : Tensor = aten::relu(%x)
              %8 : Tensor = aten::add(%7, %y, %6)
              %12 : int = prim::Constant[value=1]()
              %13 : Tensor = aten::relu(%x)
              %14 : Tensor = aten::add(%13, %8, %12)
              %11 : Tensor = aten::mul(%14, %8)
              return (%11)
        "#]],
    );
}

#[test]
fn inlines_calls_inside_blocks_and_keeps_unknown_ones() {
    let mut g = Graph::new();
    let c = input(&mut g, "c", Type::Bool);
    let x = input(&mut g, "x", Type::tensor());
    let known = function(&mut g, "relu_add", Some(callee(relu_add)));
    let unknown = function(&mut g, "elsewhere", None);
    let if_node = g.create_and_insert(sym::if_(), &[c], 1);
    g.set_ty(g.output(if_node, 0), Type::tensor());
    let then_b = g.add_block(if_node);
    let else_b = g.add_block(if_node);
    g.set_insert_point_to_end(then_b);
    let t = op(&mut g, "prim::CallFunction", &[known, x, x], Type::tensor());
    g.block_register_output(then_b, t);
    g.set_insert_point_to_end(else_b);
    let e = op(&mut g, "prim::CallFunction", &[unknown, x], Type::tensor());
    // Wrong number of arguments: left alone.
    let bad = op(&mut g, "prim::CallFunction", &[known, e], Type::tensor());
    g.block_register_output(else_b, bad);
    g.set_insert_point_to_end(g.block());
    let r = g.output(if_node, 0);
    g.register_output(r);
    check(
        g,
        true,
        expect![[r#"
            graph(%c : bool,
                  %x : Tensor):
              %2 : Function = prim::Constant_0[name="relu_add"]()
              %3 : Function = prim::Constant[name="elsewhere"]()
              %4 : Tensor = prim::If(%c)
                block0():
                  %8 : int = prim::Constant[value=1]()
                  %9 : Tensor = aten::relu(%x)
                  %10 : Tensor = aten::add(%9, %x, %8)
                  -> (%10)
                block1():
                  %6 : Tensor = prim::CallFunction(%3, %x)
                  %7 : Tensor = prim::CallFunction(%2, %6)
                  -> (%7)
              return (%4)
            with prim::Constant_0 = graph(%a : Tensor,
                  %b : Tensor):
              %2 : int = prim::Constant[value=1]()
              %3 : Tensor = aten::relu(%a)
              %4 : Tensor = aten::add(%3, %b, %2)
              return (%4)
        "#]],
    );
}

#[test]
fn inlines_subgraph_nodes() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let y = input(&mut g, "y", Type::tensor());
    let fused = g.create_and_insert(sym::fusion_group(), &[x, y], 1);
    g.set_attr(
        fused,
        sym::attr_subgraph(),
        AttrValue::Graph(Box::new(callee(relu_add))),
    );
    let f = g.output(fused, 0);
    let diff = g.create_and_insert(sym::differentiable_graph(), &[f, x], 1);
    let body = callee(|s, a, b| op(s, "aten::mul", &[a, b], Type::tensor()));
    g.set_attr(diff, sym::attr_subgraph(), AttrValue::Graph(Box::new(body)));
    let d = g.output(diff, 0);
    // No subgraph attribute: nothing to inline.
    let opaque = g.create_and_insert(sym::tensor_expr_group(), &[d], 1);
    let o = g.output(opaque, 0);
    g.register_output(o);
    check(
        g,
        true,
        expect![[r#"
            graph(%x : Tensor,
                  %y : Tensor):
              %5 : int = prim::Constant[value=1]()
              %6 : Tensor = aten::relu(%x)
              %7 : Tensor = aten::add(%6, %y, %5)
              %8 : Tensor = aten::mul(%7, %x)
              %4 : Tensor = prim::TensorExprGroup(%8)
              return (%4)
        "#]],
    );
}

#[test]
fn respects_the_rewrite_limit() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let f = function(&mut g, "relu_add", Some(callee(relu_add)));
    let a = op(&mut g, "prim::CallFunction", &[f, x, x], Type::tensor());
    let b = op(&mut g, "prim::CallFunction", &[f, a, x], Type::tensor());
    g.register_output(b);
    assert!(run_limited(inline, &mut g, "inline", 1));
    let calls = |g: &Graph| {
        g.nodes()
            .iter()
            .filter(|&&n| g.kind(n) == sym::call_function())
            .count()
    };
    assert_eq!(calls(&g), 1);
    assert!(!run_limited(inline, &mut g, "inline", 0));
    assert!(run(inline, &mut g));
    assert_eq!(calls(&g), 0);
}
