use expect_test::{expect, Expect};

use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Type};

use super::run as dce;
use crate::passes::testing::*;

fn check(mut g: Graph, changed: bool, expected: Expect) {
    assert_eq!(run(dce, &mut g), changed);
    expected.assert_eq(&dump(&g));
    // A second run finds nothing more.
    assert!(!run(dce, &mut g));
}

#[test]
fn removes_unused_pure_nodes_and_keeps_effects() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let y = input(&mut g, "y", Type::tensor());
    let one = int(&mut g, 1);
    let a = op(&mut g, "aten::add", &[x, y, one], Type::tensor());
    let _dead = op(&mut g, "aten::mul", &[a, y], Type::tensor());
    let _dead_len = op(&mut g, "aten::dim", &[x], Type::Int);
    stmt(&mut g, "prim::Print", &[y]);
    // In place: writes to x, so it stays with what it reads.
    let two = int(&mut g, 2);
    let _inplace = op(&mut g, "aten::mul_", &[x, two], Type::tensor());
    let _unknown = op(&mut g, "mylib::log_value", &[y], Type::tensor());
    g.register_output(a);
    check(
        g,
        true,
        expect![[r#"
            graph(%x : Tensor,
                  %y : Tensor):
              %2 : int = prim::Constant[value=1]()
              %3 : Tensor = aten::add(%x, %y, %2)
               = prim::Print(%y)
              %6 : int = prim::Constant[value=2]()
              %7 : Tensor = aten::mul_(%x, %6)
              %8 : Tensor = mylib::log_value(%y)
              return (%3)
        "#]],
    );
}

#[test]
fn drops_unused_if_outputs_and_their_branch_code() {
    let mut g = Graph::new();
    let c = input(&mut g, "c", Type::Bool);
    let x = input(&mut g, "x", Type::tensor());
    let if_node = g.create_and_insert(sym::if_(), &[c], 2);
    let (used, unused) = (g.output(if_node, 0), g.output(if_node, 1));
    let then_b = g.add_block(if_node);
    let else_b = g.add_block(if_node);
    g.set_insert_point_to_end(then_b);
    let t0 = op(&mut g, "aten::neg", &[x], Type::tensor());
    let t1 = op(&mut g, "aten::relu", &[x], Type::tensor());
    g.block_register_output(then_b, t0);
    g.block_register_output(then_b, t1);
    g.set_insert_point_to_end(else_b);
    let e1 = op(&mut g, "aten::sigmoid", &[x], Type::tensor());
    g.block_register_output(else_b, x);
    g.block_register_output(else_b, e1);
    g.set_insert_point_to_end(g.block());
    let _ = unused;
    g.register_output(used);
    check(
        g,
        true,
        expect![[r#"
            graph(%c : bool,
                  %x : Tensor):
              %2 : Tensor = prim::If(%c)
                block0():
                  %4 : Tensor = aten::neg(%x)
                  -> (%4)
                block1():
                  -> (%x)
              return (%2)
        "#]],
    );
}

#[test]
fn keeps_if_with_effects_but_drops_its_outputs() {
    let mut g = Graph::new();
    let c = input(&mut g, "c", Type::Bool);
    let x = input(&mut g, "x", Type::tensor());
    let if_node = g.create_and_insert(sym::if_(), &[c], 1);
    let then_b = g.add_block(if_node);
    let else_b = g.add_block(if_node);
    g.set_insert_point_to_end(then_b);
    let msg = constant(
        &mut g,
        Type::Str,
        Some(ember_dialects::AttrValue::Str("bad".into())),
    );
    stmt(&mut g, "prim::RaiseException", &[msg]);
    g.block_register_output(then_b, x);
    g.set_insert_point_to_end(else_b);
    let e = op(&mut g, "aten::relu", &[x], Type::tensor());
    g.block_register_output(else_b, e);
    g.set_insert_point_to_end(g.block());
    g.register_output(x);
    check(
        g,
        true,
        expect![[r#"
            graph(%c : bool,
                  %x : Tensor):
               = prim::If(%c)
                block0():
                  %3 : str = prim::Constant[value="bad"]()
                   = prim::RaiseException(%3)
                  -> ()
                block1():
                  -> ()
              return (%x)
        "#]],
    );
}

/// Builds `for i in range(n): a = a + x; b = (b or x) * x; print?(b)` with carried `a`, `b`.
fn loop_graph(b_reads_b: bool, print_b: bool, use_b_after: bool) -> Graph {
    let mut g = Graph::new();
    let n = input(&mut g, "n", Type::Int);
    let x = input(&mut g, "x", Type::tensor());
    let t = boolean(&mut g, true);
    let loop_node = g.create_and_insert(sym::loop_(), &[n, t, x, x], 2);
    let body = g.add_block(loop_node);
    let _i = g.block_add_input(body, Type::Int);
    let a = g.block_add_input(body, Type::tensor());
    let b = g.block_add_input(body, Type::tensor());
    g.set_insert_point_to_end(body);
    let a2 = op(&mut g, "aten::add", &[a, x], Type::tensor());
    let b2 = op(
        &mut g,
        "aten::mul",
        &[if b_reads_b { b } else { x }, x],
        Type::tensor(),
    );
    if print_b {
        stmt(&mut g, "prim::Print", &[b]);
    }
    g.block_register_output(body, t);
    g.block_register_output(body, a2);
    g.block_register_output(body, b2);
    g.set_insert_point_to_end(g.block());
    let out_a = g.output(loop_node, 0);
    g.register_output(out_a);
    if use_b_after {
        let out_b = g.output(loop_node, 1);
        g.register_output(out_b);
    }
    g
}

#[test]
fn drops_dead_loop_carried_values() {
    check(
        loop_graph(false, false, false),
        true,
        expect![[r#"
            graph(%n : int,
                  %x : Tensor):
              %2 : bool = prim::Constant[value=1]()
              %3 : Tensor = prim::Loop(%n, %2, %x)
                block0(%5 : int, %6 : Tensor):
                  %8 : Tensor = aten::add(%6, %x)
                  -> (%2, %8)
              return (%3)
        "#]],
    );
}

#[test]
fn keeps_loop_carried_values_used_in_the_body() {
    check(
        loop_graph(true, true, false),
        false,
        expect![[r#"
            graph(%n : int,
                  %x : Tensor):
              %2 : bool = prim::Constant[value=1]()
              %3 : Tensor, %4 : Tensor = prim::Loop(%n, %2, %x, %x)
                block0(%5 : int, %6 : Tensor, %7 : Tensor):
                  %8 : Tensor = aten::add(%6, %x)
                  %9 : Tensor = aten::mul(%7, %x)
                   = prim::Print(%7)
                  -> (%2, %8, %9)
              return (%3)
        "#]],
    );
    let mut g = loop_graph(false, false, true);
    assert!(!run(dce, &mut g));
    // As in PyTorch, a value that feeds itself (`b = b * x`) counts as used in the body, so it
    // stays even when nothing reads it after the loop.
    let mut g = loop_graph(true, false, false);
    assert!(!run(dce, &mut g));
}

#[test]
fn respects_the_rewrite_limit() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let a = op(&mut g, "aten::neg", &[x], Type::tensor());
    let b = op(&mut g, "aten::neg", &[a], Type::tensor());
    let _c = op(&mut g, "aten::neg", &[b], Type::tensor());
    g.register_output(x);
    assert!(run_limited(dce, &mut g, "dce", 1));
    // Only the last node went; the others are still used.
    assert_eq!(g.nodes().len(), 2);
    assert!(!run_limited(dce, &mut g, "dce", 0));
    assert_eq!(g.nodes().len(), 2);
    assert!(run(dce, &mut g));
    assert!(g.nodes().is_empty());
}

#[test]
fn drops_unused_fork_inputs() {
    let mut body = Graph::new();
    let a = input(&mut body, "a", Type::tensor());
    let _unused = input(&mut body, "b", Type::tensor());
    let r = op(&mut body, "aten::relu", &[a], Type::tensor());
    body.register_output(r);
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let y = input(&mut g, "y", Type::tensor());
    let fork = op(
        &mut g,
        "prim::fork",
        &[x, y],
        Type::Future(Box::new(Type::tensor())),
    );
    let n = g.producer(fork);
    g.set_attr(
        n,
        sym::attr_subgraph(),
        ember_dialects::AttrValue::Graph(Box::new(body)),
    );
    let w = op(&mut g, "aten::wait", &[fork], Type::tensor());
    g.register_output(w);
    assert!(run(dce, &mut g));
    assert_eq!(g.node_inputs(n), &[x]);
    let Some(ember_dialects::AttrValue::Graph(body)) = g.attr(n, sym::attr_subgraph()) else {
        panic!("the fork lost its subgraph")
    };
    assert_eq!(body.inputs().len(), 1);
    assert!(!run(dce, &mut g));
}
