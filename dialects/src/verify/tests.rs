//! Each test breaks one invariant of a good graph (through the Graph API, or through the
//! test-only hooks of `ir::test_hooks` for what the API never produces) and checks the exact
//! messages the verifier gives.

use std::sync::Arc;

use expect_test::{expect, Expect};

use super::*;
use crate::ir::{Block, Use, Value};
use crate::source::SourceRange;
use crate::symbol::{sym, Symbol};
use crate::types::Type;

fn check(g: &Graph, expected: Expect) {
    let text = match verify(g) {
        Ok(()) => "ok\n".to_string(),
        Err(errors) => errors.iter().map(|e| format!("{e}\n")).collect(),
    };
    expected.assert_eq(&text);
}

fn input(g: &mut Graph, name: &str, ty: Type) -> Value {
    let v = g.add_input(ty);
    g.set_debug_name(v, name);
    v
}

/// Inserts `%out = kind(inputs)` at the insertion point.
fn op(g: &mut Graph, kind: &str, inputs: &[Value], out: &str) -> (Node, Value) {
    let n = g.create_and_insert(Symbol::new(kind), inputs, 1);
    let v = g.output(n, 0);
    g.set_debug_name(v, out);
    (n, v)
}

/// Handles on the parts of [`good`]'s graph that the tests break.
#[allow(dead_code)]
struct Parts {
    x: Value,
    c: Value,
    n: Value,
    one: Value,
    constant: Node,
    if_node: Node,
    then_b: Block,
    else_b: Block,
    relu: Node,
    t: Value,
    y: Value,
    loop_node: Node,
    body: Block,
    i: Value,
    acc: Value,
    add: Node,
    acc2: Value,
    lt: Node,
    cont: Value,
    z: Value,
    with_node: Node,
    neg: Node,
    fusion: Node,
    f: Value,
}

/// ```text
/// graph(%x : Tensor, %c : bool, %n : int):
///   %one : int = prim::Constant[value=1]()
///   %y : Tensor = prim::If(%c)
///     block0():
///       %t : Tensor = aten::relu(%x)
///       -> (%t)
///     block1():
///       -> (%x)
///   %z : Tensor = prim::Loop(%n, %c, %y)
///     block0(%i : int, %acc : Tensor):
///       %acc2 : Tensor = aten::add(%acc, %x, %one)
///       %cont : bool = aten::lt(%i, %n)
///       -> (%cont, %acc2)
///   = prim::With()
///     block0():
///       %w : Tensor = aten::neg(%z)
///       -> ()
///     block1():
///       -> ()
///   %f : Tensor = prim::FusionGroup_0(%z, %y)
///   return (%f)
/// with prim::FusionGroup_0 = graph(%a : Tensor, %b : Tensor):
///   %m : Tensor = aten::mul(%a, %b)
///   return (%m)
/// ```
fn good() -> (Graph, Parts) {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let c = input(&mut g, "c", Type::Bool);
    let n = input(&mut g, "n", Type::Int);

    let (constant, one) = op(&mut g, "prim::Constant", &[], "one");
    g.set_ty(one, Type::Int);
    g.set_attr(constant, sym::attr_value(), AttrValue::Int(1));

    let (if_node, y) = op(&mut g, "prim::If", &[c], "y");
    let then_b = g.add_block(if_node);
    let else_b = g.add_block(if_node);
    g.set_insert_point_to_end(then_b);
    let (relu, t) = op(&mut g, "aten::relu", &[x], "t");
    g.block_register_output(then_b, t);
    g.block_register_output(else_b, x);

    g.set_insert_point_to_end(g.block());
    let (loop_node, z) = op(&mut g, "prim::Loop", &[n, c, y], "z");
    let body = g.add_block(loop_node);
    let i = g.block_add_input(body, Type::Int);
    g.set_debug_name(i, "i");
    let acc = g.block_add_input(body, Type::tensor());
    g.set_debug_name(acc, "acc");
    g.set_insert_point_to_end(body);
    let (add, acc2) = op(&mut g, "aten::add", &[acc, x, one], "acc2");
    let (lt, cont) = op(&mut g, "aten::lt", &[i, n], "cont");
    g.set_ty(cont, Type::Bool);
    g.block_register_output(body, cont);
    g.block_register_output(body, acc2);

    g.set_insert_point_to_end(g.block());
    let with_node = g.create_and_insert(sym::with(), &[], 0);
    let with_body = g.add_block(with_node);
    g.add_block(with_node);
    g.set_insert_point_to_end(with_body);
    let (neg, _) = op(&mut g, "aten::neg", &[z], "w");

    g.set_insert_point_to_end(g.block());
    let (fusion, f) = op(&mut g, "prim::FusionGroup", &[z, y], "f");
    g.set_attr(
        fusion,
        sym::attr_subgraph(),
        AttrValue::Graph(Box::new(mul_graph())),
    );
    g.register_output(f);

    let parts = Parts {
        x,
        c,
        n,
        one,
        constant,
        if_node,
        then_b,
        else_b,
        relu,
        t,
        y,
        loop_node,
        body,
        i,
        acc,
        add,
        acc2,
        lt,
        cont,
        z,
        with_node,
        neg,
        fusion,
        f,
    };
    (g, parts)
}

fn mul_graph() -> Graph {
    let mut sub = Graph::new();
    let a = input(&mut sub, "a", Type::tensor());
    let b = input(&mut sub, "b", Type::tensor());
    let (_, m) = op(&mut sub, "aten::mul", &[a, b], "m");
    sub.register_output(m);
    sub
}

#[test]
fn good_graph_verifies() {
    let (g, _) = good();
    check(
        &g,
        expect![[r#"
        ok
    "#]],
    );
    check(
        &Graph::new(),
        expect![[r#"
        ok
    "#]],
    );
}

// ----- SSA and scoping -----

#[test]
fn use_before_definition() {
    let (mut g, p) = good();
    // %cont = aten::lt(%i, %n) moved before %acc2 = aten::add(...) and made to use %acc2.
    g.move_before(p.lt, p.add);
    g.replace_input(p.lt, 0, p.acc2);
    g.set_ty(p.acc2, Type::Int);
    check(
        &g,
        expect![[r#"
        error: value %acc2 used by aten::lt is not defined before it
    "#]],
    );
}

#[test]
fn node_using_its_own_output() {
    let (mut g, p) = good();
    g.replace_input(p.relu, 0, p.t);
    check(
        &g,
        expect![[r#"
        error: value %t used by aten::relu is not defined before it
    "#]],
    );
}

#[test]
fn loop_output_used_in_its_own_body() {
    let (mut g, p) = good();
    g.replace_input(p.add, 1, p.z);
    check(
        &g,
        expect![[r#"
        error: value %z used by aten::add is not defined before it
    "#]],
    );
}

#[test]
fn value_of_an_inner_block_used_after_it() {
    let (mut g, p) = good();
    // The Loop's initial value becomes %t, defined inside the If's then block.
    g.replace_input(p.loop_node, 2, p.t);
    check(
        &g,
        expect![[r#"
        error: value %t used by prim::Loop is out of scope: it is defined in block 0 of prim::If, which does not enclose this use
    "#]],
    );
}

#[test]
fn value_of_a_sibling_block_returned() {
    let (mut g, p) = good();
    g.replace_input(g.return_node(p.else_b), 0, p.t);
    check(
        &g,
        expect![[r#"
        error: value %t returned by block 1 of prim::If is out of scope: it is defined in block 0 of prim::If, which does not enclose this use
    "#]],
    );
}

#[test]
fn block_input_used_outside_its_block() {
    let (mut g, p) = good();
    g.replace_input(g.return_node(g.block()), 0, p.i);
    check(
        &g,
        expect![[r#"
        error: value %i returned by the graph is out of scope: it is defined in block 0 of prim::Loop, which does not enclose this use
    "#]],
    );
}

#[test]
fn output_of_a_destroyed_node() {
    let (mut g, p) = good();
    let (dead, gone) = op(&mut g, "aten::sin", &[p.x], "gone");
    g.destroy(dead);
    // What a pass that kept a stale value behind would leave: %f is returned, but %f's
    // producer was destroyed (a hook makes the use list agree).
    let ret = g.return_node(g.block());
    g.raw_set_input(ret, 0, gone);
    g.raw_uses_mut(p.f).clear();
    g.raw_uses_mut(gone).push(Use {
        user: ret,
        offset: 0,
    });
    check(
        &g,
        expect![[r#"
        error: value %13 returned by the graph is an output of destroyed node aten::sin
    "#]],
    );
}

#[test]
fn input_of_a_destroyed_block() {
    let (mut g, p) = good();
    let ret = g.return_node(g.block());
    g.erase_block(p.loop_node, 0);
    g.raw_set_input(ret, 0, p.i);
    g.raw_uses_mut(p.f).clear();
    g.raw_uses_mut(p.i).push(Use {
        user: ret,
        offset: 0,
    });
    check(
        &g,
        expect![[r#"
        error: prim::Loop must have 1 block, found 0
        error: value %7 returned by the graph is an input of a destroyed block
    "#]],
    );
}

#[test]
fn output_of_a_node_not_in_the_graph() {
    let (mut g, p) = good();
    // Created but never inserted: both its output's user and its own use of %x are wrong.
    let free = g.create(Symbol::aten("sin"), &[p.x], 1);
    let s = g.output(free, 0);
    g.set_debug_name(s, "s");
    g.replace_input(p.neg, 0, s);
    check(
        &g,
        expect![[r#"
        error: value %x is used by aten::sin, which is not in the graph
        error: value %s used by aten::neg is defined by aten::sin, which is not in the graph
    "#]],
    );
}

#[test]
fn value_no_longer_an_output_of_its_node() {
    let (mut g, p) = good();
    g.raw_remove_output(p.relu, 0);
    check(
        &g,
        expect![[r#"
        error: value %t returned by block 0 of prim::If is no longer defined by aten::relu
    "#]],
    );
}

#[test]
fn value_recording_another_definition() {
    let (mut g, p) = good();
    g.raw_set_value_def(p.acc2, p.lt, 0);
    check(
        &g,
        expect![[r#"
        error: output 0 of aten::add is %acc2, but %acc2 records output 0 of aten::lt as its definition
        error: value %acc2 returned by block 0 of prim::Loop is no longer defined by aten::lt
    "#]],
    );
}

#[test]
fn two_values_with_one_name() {
    let (mut g, p) = good();
    let (_, a) = op(&mut g, "aten::cos", &[p.x], "");
    let (_, b) = op(&mut g, "aten::tan", &[p.x], "");
    g.set_unique(a, 40);
    g.set_unique(b, 40);
    check(
        &g,
        expect![[r#"
        error: two values are named %40: one defined by aten::cos, one by aten::tan
    "#]],
    );
}

// ----- use lists -----

#[test]
fn input_missing_from_use_list() {
    let (mut g, p) = good();
    g.raw_uses_mut(p.f).clear();
    g.raw_uses_mut(p.x).retain(|u| u.user != p.relu);
    check(
        &g,
        expect![[r#"
        error: input 0 of aten::relu (%x) is missing from the use list of %x
        error: graph output 0 (%f) is missing from the use list of %f
    "#]],
    );
}

#[test]
fn use_recorded_twice() {
    let (mut g, p) = good();
    let ret = g.return_node(p.then_b);
    g.raw_uses_mut(p.t).push(Use {
        user: ret,
        offset: 0,
    });
    check(
        &g,
        expect![[r#"
        error: the use list of %t records output 0 of block 0 of prim::If 2 times
    "#]],
    );
}

#[test]
fn use_that_does_not_match_the_input() {
    let (mut g, p) = good();
    g.raw_uses_mut(p.y).push(Use {
        user: p.relu,
        offset: 0,
    });
    g.raw_uses_mut(p.y).push(Use {
        user: p.relu,
        offset: 3,
    });
    check(
        &g,
        expect![[r#"
        error: value %y records a use as input 0 of aten::relu, but that input is %x
        error: value %y records a use as input 3 of aten::relu, but aten::relu has only 1 input
    "#]],
    );
}

#[test]
fn dangling_use_by_a_destroyed_node() {
    let (mut g, p) = good();
    let (dead, _) = op(&mut g, "aten::sin", &[p.x], "gone");
    g.destroy(dead);
    g.raw_uses_mut(p.c).push(Use {
        user: dead,
        offset: 0,
    });
    check(
        &g,
        expect![[r#"
        error: value %c has a dangling use by destroyed node aten::sin
    "#]],
    );
}

// ----- layout -----

#[test]
fn node_list_with_a_cycle() {
    let (mut g, p) = good();
    g.raw_set_next(p.lt, Some(p.add));
    check(
        &g,
        expect![[r#"
        error: the node list of block 0 of prim::Loop is corrupt: it reaches aten::add a second time
    "#]],
    );
}

#[test]
fn node_list_with_a_broken_back_link() {
    let (mut g, p) = good();
    g.raw_set_prev(p.lt, None);
    check(
        &g,
        expect![[r#"
        error: the node list of block 0 of prim::Loop is corrupt: the link back from aten::lt does not lead to the node before it
    "#]],
    );
}

#[test]
fn node_list_ending_elsewhere() {
    let (mut g, p) = good();
    g.raw_set_last(p.body, Some(p.add));
    check(
        &g,
        expect![[r#"
        error: the node list of block 0 of prim::Loop is corrupt: its last node is not where the list ends
    "#]],
    );
}

#[test]
fn destroyed_node_left_in_a_block() {
    let (mut g, p) = good();
    g.raw_set_alive(p.relu, false);
    check(
        &g,
        expect![[r#"
        error: aten::relu was destroyed but is still in block 0 of prim::If
        error: value %x has a dangling use by destroyed node aten::relu
        error: value %t returned by block 0 of prim::If is an output of destroyed node aten::relu
    "#]],
    );
}

#[test]
fn node_recording_another_block() {
    let (mut g, p) = good();
    g.raw_set_owning_block(p.relu, p.else_b);
    check(
        &g,
        expect![[r#"
        error: aten::relu is in the node list of block 0 of prim::If but does not record it as its block
        error: value %t returned by block 0 of prim::If is out of scope: it is defined in block 1 of prim::If, which does not enclose this use
    "#]],
    );
}

#[test]
fn sub_blocks_destroyed_foreign_or_repeated() {
    let (mut g, p) = good();
    let extra = g.add_block(p.with_node);
    g.erase_block(p.with_node, 2);
    g.raw_push_block(p.with_node, extra);
    g.raw_push_block(p.with_node, p.body);
    g.raw_push_block(p.with_node, g.node_blocks(p.with_node)[0]);
    check(
        &g,
        expect![[r#"
        error: block 2 of prim::With was destroyed
        error: block 3 of prim::With belongs to another node
        error: block 4 of prim::With appears twice in the graph
        error: prim::With must have 2 blocks (body and exit), found 5
    "#]],
    );
}

// ----- structure -----

#[test]
fn param_and_return_inside_a_block() {
    let (mut g, _) = good();
    g.create_and_insert(sym::param(), &[], 0);
    g.create_and_insert(sym::ret(), &[], 0);
    check(
        &g,
        expect![[r#"
        error: prim::Param may only be the parameter node of a block
        error: prim::Return may only be the return node of a block
    "#]],
    );
}

#[test]
fn malformed_block_boundaries() {
    let (mut g, p) = good();
    let top_param = g.param_node(g.block());
    g.set_kind(top_param, Symbol::aten("foo"));
    g.add_node_input(g.param_node(p.then_b), p.x);
    let ret = g.return_node(g.block());
    let extra = g.add_node_output(ret, Type::tensor());
    g.set_debug_name(extra, "extra");
    g.add_block(ret);
    check(
        &g,
        expect![[r#"
        error: the parameter node of the top block has kind aten::foo instead of prim::Param
        error: the parameter node of block 0 of prim::If has 1 input; it must have none
        error: the return node of the top block has 1 output; it must have none
        error: the return node of the top block has blocks; it must have none
    "#]],
    );
}

#[test]
fn malformed_if() {
    let (mut g, p) = good();
    g.add_node_input(p.if_node, p.c);
    g.block_add_input(p.then_b, Type::Int);
    g.block_register_output(p.else_b, p.x);
    check(
        &g,
        expect![[r#"
        error: prim::If must have 1 input (the condition), found 2
        error: block 0 of prim::If must have no inputs, found 1
        error: block 1 of prim::If returns 2 values but prim::If has 1 output
    "#]],
    );

    let (mut g, p) = good();
    g.replace_input(p.if_node, 0, p.n);
    g.add_block(p.if_node);
    check(
        &g,
        expect![[r#"
        error: the condition of prim::If must be a bool, found %n of type int
        error: prim::If must have 2 blocks, found 3
    "#]],
    );
}

#[test]
fn malformed_loop_counts() {
    let (mut g, p) = good();
    g.add_node_input(p.loop_node, p.x);
    g.block_erase_output(p.body, 1);
    check(
        &g,
        expect![[r#"
        error: prim::Loop has 1 output but 2 loop-carried values
        error: the body of prim::Loop takes 2 inputs, expected 3 (the iteration number and 2 loop-carried values)
        error: the body of prim::Loop returns 1 value, expected 3 (the continue condition and 2 loop-carried values)
    "#]],
    );

    let (mut g, p) = good();
    g.remove_all_inputs(p.loop_node);
    g.add_node_input(p.loop_node, p.n);
    g.add_block(p.loop_node);
    check(
        &g,
        expect![[r#"
        error: prim::Loop must have at least 2 inputs (the max trip count and the initial condition), found 1
        error: prim::Loop must have 1 block, found 2
    "#]],
    );
}

#[test]
fn malformed_loop_types() {
    let (mut g, p) = good();
    g.replace_input(p.loop_node, 0, p.c);
    g.replace_input(p.loop_node, 1, p.n);
    g.set_ty(p.i, Type::Float);
    g.set_ty(p.cont, Type::tensor());
    check(
        &g,
        expect![[r#"
        error: the max trip count of prim::Loop must be an int, found %c of type bool
        error: the initial condition of prim::Loop must be a bool, found %n of type int
        error: the iteration number of prim::Loop's body must be an int, found %i of type float
        error: the continue condition returned by prim::Loop's body must be a bool, found %cont of type Tensor
    "#]],
    );
}

#[test]
fn malformed_with() {
    let (mut g, p) = good();
    let body = g.node_blocks(p.with_node)[0];
    let exit = g.node_blocks(p.with_node)[1];
    g.block_add_input(exit, Type::tensor());
    g.block_register_output(body, p.x);
    check(
        &g,
        expect![[r#"
        error: block 1 of prim::With must have no inputs, found 1
        error: block 0 of prim::With returns 1 value but prim::With has 0 outputs
    "#]],
    );

    let (mut g, p) = good();
    g.erase_block(p.with_node, 1);
    check(
        &g,
        expect![[r#"
        error: prim::With must have 2 blocks (body and exit), found 1
    "#]],
    );
}

#[test]
fn malformed_constant() {
    let (mut g, p) = good();
    g.add_node_input(p.constant, p.n);
    g.add_node_output(p.constant, Type::Int);
    check(
        &g,
        expect![[r#"
        error: prim::Constant must have no inputs, found 1
        error: prim::Constant must have 1 output, found 2
    "#]],
    );
}

// ----- graphs in attributes -----

#[test]
fn fusion_group_interface() {
    let (mut g, p) = good();
    g.add_node_input(p.fusion, p.x);
    g.add_node_output(p.fusion, Type::tensor());
    check(
        &g,
        expect![[r#"
        error: prim::FusionGroup has 3 inputs but its subgraph takes 2
        error: prim::FusionGroup has 2 outputs but its subgraph returns 1
    "#]],
    );

    // A DifferentiableGraph's subgraph may return more (what the backward pass needs).
    let (mut g, p) = good();
    g.set_kind(p.fusion, sym::differentiable_graph());
    let Some(AttrValue::Graph(sub)) = g.attr_mut(p.fusion, sym::attr_subgraph()) else {
        unreachable!()
    };
    let extra = sub.inputs()[0];
    sub.register_output(extra);
    check(
        &g,
        expect![[r#"
        ok
    "#]],
    );
    g.add_node_output(p.fusion, Type::tensor());
    g.add_node_output(p.fusion, Type::tensor());
    check(
        &g,
        expect![[r#"
        error: prim::DifferentiableGraph has 3 outputs but its subgraph returns only 2
    "#]],
    );

    let (mut g, p) = good();
    g.remove_attr(p.fusion, sym::attr_subgraph());
    let te = g.create_and_insert(sym::tensor_expr_group(), &[], 0);
    g.set_attr(te, sym::attr_subgraph(), AttrValue::Int(3));
    check(
        &g,
        expect![[r#"
        error: prim::FusionGroup must have a Subgraph attribute
        error: the Subgraph attribute of prim::TensorExprGroup must be a graph
    "#]],
    );
}

#[test]
fn errors_inside_subgraphs_name_their_holder() {
    let (mut g, p) = good();
    let mut inner = mul_graph();
    let mul = inner.nodes()[0];
    let a = inner.inputs()[0];
    let m = inner.output(mul, 0);
    inner.replace_input(mul, 0, m);
    inner.set_source_range(
        mul,
        Some(SourceRange {
            file: Arc::from("model.py"),
            line: 7,
            col: 9,
        }),
    );
    // A DifferentiableGraph inside the FusionGroup's subgraph, holding the broken graph.
    let mut outer = mul_graph();
    outer.set_insert_point_to_end(outer.block());
    let dg = outer.create_and_insert(sym::differentiable_graph(), &[a, a], 1);
    outer.set_attr(dg, sym::attr_subgraph(), AttrValue::Graph(Box::new(inner)));
    g.set_attr(
        p.fusion,
        sym::attr_subgraph(),
        AttrValue::Graph(Box::new(outer)),
    );
    let holder = g.create_and_insert(Symbol::prim("Holder"), &[], 0);
    g.set_source_range(
        holder,
        Some(SourceRange {
            file: Arc::from("m.py"),
            line: 2,
            col: 1,
        }),
    );
    g.set_attr(
        holder,
        Symbol::attr("Subgraphs"),
        AttrValue::Graphs(vec![mul_graph(), Graph::new()]),
    );
    let Some(AttrValue::Graphs(gs)) = g.attr_mut(holder, Symbol::attr("Subgraphs")) else {
        unreachable!()
    };
    let sub_ret = gs[1].return_node(gs[1].block());
    gs[1].add_node_output(sub_ret, Type::tensor());
    let errors = verify(&g).unwrap_err();
    check(
        &g,
        expect![[r#"
        model.py:7:9: error: in the Subgraph attribute of prim::FusionGroup: in the Subgraph attribute of prim::DifferentiableGraph: value %m used by aten::mul is not defined before it
        m.py:2:1: error: in graph 1 of the Subgraphs attribute of prim::Holder: the return node of the top block has 1 output; it must have none
    "#]],
    );
    assert_eq!(errors[0].node, p.fusion);
    assert_eq!(errors[1].node, holder);
}

#[test]
fn errors_carry_the_node_and_its_source_range() {
    let (mut g, p) = good();
    g.set_source_range(
        p.relu,
        Some(SourceRange {
            file: Arc::from("test.py"),
            line: 3,
            col: 11,
        }),
    );
    g.replace_input(p.relu, 0, p.t);
    let errors = verify(&g).unwrap_err();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].node, p.relu);
    assert_eq!(
        errors[0].message,
        "value %t used by aten::relu is not defined before it"
    );
    assert_eq!(
        errors[0].to_string(),
        "test.py:3:11: error: value %t used by aten::relu is not defined before it"
    );
}

#[test]
fn deep_nesting_does_not_overflow_the_stack() {
    let mut g = Graph::new();
    let c = input(&mut g, "c", Type::Bool);
    let mut block = g.block();
    for _ in 0..50_000 {
        g.set_insert_point_to_end(block);
        let n = g.create_and_insert(sym::if_(), &[c], 0);
        block = g.add_block(n);
        g.add_block(n);
    }
    check(
        &g,
        expect![[r#"
        ok
    "#]],
    );
}

// ----- schemas -----

#[test]
fn node_matching_no_schema_of_its_kind() {
    let (mut g, p) = good();
    g.replace_input(p.relu, 0, p.n);
    // Kinds without schemas (prim::If, a user's op) are not checked against the catalogue.
    g.create_and_insert(Symbol::new("mylib::custom"), &[p.c], 0);
    check(
        &g,
        expect![[r#"
        error: Schema not found for node. File a bug report.
        Node: aten::relu
        Input types:int
        candidates were:
          aten::relu(Tensor self) -> Tensor
          aten::relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
    "#]],
    );
}
