use expect_test::{expect, Expect};

use ember_dialects::attr::AttrValue;
use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Symbol, Type, Value};

use super::run as lower_tuples;
use crate::passes::testing::*;

fn check(mut g: Graph, changed: bool, expected: Expect) {
    assert_eq!(run(lower_tuples, &mut g), changed);
    expected.assert_eq(&dump(&g));
    assert!(!run(lower_tuples, &mut g));
}

fn pair() -> Type {
    Type::tuple(vec![Type::tensor(), Type::Int])
}

fn tuple(g: &mut Graph, parts: &[Value], ty: Type) -> Value {
    op(g, "prim::TupleConstruct", parts, ty)
}

fn index(g: &mut Graph, t: Value, i: Value, ty: Type) -> Value {
    op(g, "prim::TupleIndex", &[t, i], ty)
}

#[test]
fn forwards_unpack_index_and_slice() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let n = input(&mut g, "n", Type::Int);
    let k = input(&mut g, "k", Type::Int);
    let t = tuple(
        &mut g,
        &[x, n, k],
        Type::tuple(vec![Type::tensor(), Type::Int, Type::Int]),
    );
    let unpack = g.create_and_insert(sym::tuple_unpack(), &[t], 3);
    let (a, b) = (g.output(unpack, 0), g.output(unpack, 1));
    let last = int(&mut g, -1);
    let c = index(&mut g, t, last, Type::Int);
    let slice = op(
        &mut g,
        "prim::TupleSlice",
        &[t],
        Type::tuple(vec![Type::Int, Type::Int]),
    );
    let sn = g.producer(slice);
    g.set_attr(sn, Symbol::attr("beg"), AttrValue::Int(1));
    g.set_attr(sn, Symbol::attr("end"), AttrValue::Int(3));
    let s0 = int(&mut g, 0);
    let s = index(&mut g, slice, s0, Type::Int);
    let r = op(&mut g, "aten::add", &[a, b, c], Type::tensor());
    g.register_output(r);
    g.register_output(s);
    check(
        g,
        true,
        expect![[r#"
            graph(%x : Tensor,
                  %n : int,
                  %k : int):
              %7 : int = prim::Constant[value=-1]()
              %10 : int = prim::Constant[value=0]()
              %12 : Tensor = aten::add(%x, %n, %k)
              return (%12, %n)
        "#]],
    );
}

#[test]
fn leaves_unknown_tuples_and_odd_indices_alone() {
    let mut g = Graph::new();
    let p = input(&mut g, "p", pair());
    let i = input(&mut g, "i", Type::Int);
    let x = input(&mut g, "x", Type::tensor());
    let n = input(&mut g, "n", Type::Int);
    let from_input = index(&mut g, p, i, Type::tensor());
    let t = tuple(&mut g, &[x, n], pair());
    let by_variable = index(&mut g, t, i, Type::tensor());
    let two = int(&mut g, 2);
    let out_of_range = index(&mut g, t, two, Type::tensor());
    let r = op(
        &mut g,
        "aten::add",
        &[from_input, by_variable, out_of_range],
        Type::tensor(),
    );
    g.register_output(r);
    g.register_output(t);
    check(
        g,
        false,
        expect![[r#"
            graph(%p : (Tensor, int),
                  %i : int,
                  %x : Tensor,
                  %n : int):
              %4 : Tensor = prim::TupleIndex(%p, %i)
              %5 : (Tensor, int) = prim::TupleConstruct(%x, %n)
              %6 : Tensor = prim::TupleIndex(%5, %i)
              %7 : int = prim::Constant[value=2]()
              %8 : Tensor = prim::TupleIndex(%5, %7)
              %9 : Tensor = aten::add(%4, %6, %8)
              return (%9, %5)
        "#]],
    );
}

#[test]
fn splits_if_outputs_built_in_every_branch() {
    let mut g = Graph::new();
    let c = input(&mut g, "c", Type::Bool);
    let x = input(&mut g, "x", Type::tensor());
    let n = input(&mut g, "n", Type::Int);
    let p = input(&mut g, "p", pair());
    let if_node = g.create_and_insert(sym::if_(), &[c], 2);
    g.set_ty(g.output(if_node, 0), pair());
    g.set_ty(g.output(if_node, 1), pair());
    let then_b = g.add_block(if_node);
    let else_b = g.add_block(if_node);
    g.set_insert_point_to_end(then_b);
    let neg = op(&mut g, "aten::neg", &[x], Type::tensor());
    let t0 = tuple(&mut g, &[neg, n], pair());
    g.block_register_output(then_b, t0);
    g.block_register_output(then_b, t0);
    g.set_insert_point_to_end(else_b);
    let e0 = tuple(&mut g, &[x, n], pair());
    g.block_register_output(else_b, e0);
    // Not built here: the second output stays a tuple.
    g.block_register_output(else_b, p);
    g.set_insert_point_to_end(g.block());
    let zero = int(&mut g, 0);
    let (r0, r1) = (g.output(if_node, 0), g.output(if_node, 1));
    let first = index(&mut g, r0, zero, Type::tensor());
    let other = index(&mut g, r1, zero, Type::tensor());
    let s = op(&mut g, "aten::mul", &[first, other], Type::tensor());
    g.register_output(s);
    check(
        g,
        true,
        expect![[r#"
            graph(%c : bool,
                  %x : Tensor,
                  %n : int,
                  %p : (Tensor, int)):
              %13 : Tensor, %14 : int, %5 : (Tensor, int) = prim::If(%c)
                block0():
                  %6 : Tensor = aten::neg(%x)
                  %7 : (Tensor, int) = prim::TupleConstruct(%6, %n)
                  -> (%6, %n, %7)
                block1():
                  -> (%x, %n, %p)
              %9 : int = prim::Constant[value=0]()
              %11 : Tensor = prim::TupleIndex(%5, %9)
              %12 : Tensor = aten::mul(%13, %11)
              return (%12)
        "#]],
    );
}

#[test]
fn splits_loop_carried_tuples() {
    // t = (x, 0); for i in range(n): t = (t[0] * 2, t[1] + i); return t[0]
    let mut g = Graph::new();
    let n = input(&mut g, "n", Type::Int);
    let x = input(&mut g, "x", Type::tensor());
    let zero = int(&mut g, 0);
    let one = int(&mut g, 1);
    let two = int(&mut g, 2);
    let yes = boolean(&mut g, true);
    let t = tuple(&mut g, &[x, zero], pair());
    let loop_node = g.create_and_insert(sym::loop_(), &[n, yes, t], 1);
    g.set_ty(g.output(loop_node, 0), pair());
    let body = g.add_block(loop_node);
    let i = g.block_add_input(body, Type::Int);
    let carried = g.block_add_input(body, pair());
    g.set_insert_point_to_end(body);
    let a = index(&mut g, carried, zero, Type::tensor());
    let b = index(&mut g, carried, one, Type::Int);
    let a2 = op(&mut g, "aten::mul", &[a, two], Type::tensor());
    let b2 = op(&mut g, "aten::add", &[b, i], Type::Int);
    let next = tuple(&mut g, &[a2, b2], pair());
    g.block_register_output(body, yes);
    g.block_register_output(body, next);
    g.set_insert_point_to_end(g.block());
    let out = g.output(loop_node, 0);
    let r = index(&mut g, out, zero, Type::tensor());
    g.register_output(r);
    check(
        g,
        true,
        expect![[r#"
            graph(%n : int,
                  %x : Tensor):
              %2 : int = prim::Constant[value=0]()
              %3 : int = prim::Constant[value=1]()
              %4 : int = prim::Constant[value=2]()
              %5 : bool = prim::Constant[value=1]()
              %19 : Tensor, %20 : int = prim::Loop(%n, %5, %x, %2)
                block0(%8 : int, %16 : Tensor, %17 : int):
                  %12 : Tensor = aten::mul(%16, %4)
                  %13 : int = aten::add(%17, %8)
                  -> (%5, %12, %13)
              return (%19)
        "#]],
    );
}

#[test]
fn keeps_graph_outputs_as_they_are() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let n = input(&mut g, "n", Type::Int);
    let t = tuple(&mut g, &[x, n], pair());
    let zero = int(&mut g, 0);
    let a = index(&mut g, t, zero, Type::tensor());
    g.register_output(t);
    g.register_output(a);
    check(
        g,
        true,
        expect![[r#"
            graph(%x : Tensor,
                  %n : int):
              %2 : (Tensor, int) = prim::TupleConstruct(%x, %n)
              %3 : int = prim::Constant[value=0]()
              return (%2, %x)
        "#]],
    );
}

#[test]
fn respects_the_rewrite_limit() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let n = input(&mut g, "n", Type::Int);
    let t = tuple(&mut g, &[x, n], pair());
    let zero = int(&mut g, 0);
    let one = int(&mut g, 1);
    let a = index(&mut g, t, zero, Type::tensor());
    let b = index(&mut g, t, one, Type::Int);
    let r = op(&mut g, "aten::add", &[a, a, b], Type::tensor());
    g.register_output(r);
    assert!(run_limited(lower_tuples, &mut g, "lower-tuples", 1));
    assert!(g
        .nodes()
        .iter()
        .any(|&m| g.kind(m) == sym::tuple_construct()));
    assert!(run(lower_tuples, &mut g));
    assert!(!g
        .nodes()
        .iter()
        .any(|&m| g.kind(m) == sym::tuple_construct()));
}
