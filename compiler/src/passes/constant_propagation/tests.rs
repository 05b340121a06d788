use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Symbol, Type};
use expect_test::{expect, Expect};

use super::run;
use crate::passes::testing_fold::{constant, constant_in, int, listing, op, op_in};
use crate::passes::{PassConfig, PassContext};

fn check(mut g: Graph, changed: bool, expect: Expect) {
    let mut cx = PassContext::unlimited("constant-propagation");
    assert_eq!(run(&mut g, &mut cx), Ok(changed));
    expect.assert_eq(&listing(&g));
}

/// `kind(consts...)` with an output of type `ty`, returned from the graph.
fn single(kind: &str, args: &[ConstValue], ty: Type) -> Graph {
    let mut g = Graph::new();
    let vs: Vec<_> = args.iter().map(|c| constant(&mut g, c.clone())).collect();
    let r = op(&mut g, kind, &vs, ty);
    g.register_output(r);
    g
}

#[test]
fn folds_int_arithmetic_chains() {
    let mut g = Graph::new();
    let (a, b, c) = (int(&mut g, 2), int(&mut g, 3), int(&mut g, 4));
    let s = op(&mut g, "aten::add", &[a, b], Type::Int);
    let m = op(&mut g, "aten::mul", &[s, c], Type::Int);
    let d = op(&mut g, "aten::floordiv", &[m, b], Type::Int);
    g.register_output(d);
    check(
        g,
        true,
        expect![[r#"
        %8 : int = Int(6)
        -> (%8)
    "#]],
    );
}

#[test]
fn bools_are_ints_with_a_bool_type() {
    let g = single(
        "aten::lt",
        &[ConstValue::Int(1), ConstValue::Int(2)],
        Type::Bool,
    );
    check(
        g,
        true,
        expect![[r#"
        %3 : bool = Int(1)
        -> (%3)
    "#]],
    );
}

#[test]
fn division_by_zero_is_left_to_raise() {
    let g = single(
        "aten::floordiv",
        &[ConstValue::Int(1), ConstValue::Int(0)],
        Type::Int,
    );
    check(
        g,
        false,
        expect![[r#"
        %0 : int = Int(1)
        %1 : int = Int(0)
        %2 : int = aten::floordiv(%0, %1)
        -> (%2)
    "#]],
    );
}

#[test]
fn tensor_ops_are_never_folded() {
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    let zero = int(&mut g, 0);
    let one = int(&mut g, 1);
    let r = op(&mut g, "aten::add", &[x, zero, one], Type::tensor());
    g.register_output(r);
    check(
        g,
        false,
        expect![[r#"
        %1 : int = Int(0)
        %2 : int = Int(1)
        %3 : Tensor = aten::add(%0, %1, %2)
        -> (%3)
    "#]],
    );
}

#[test]
fn non_constant_inputs_are_left_alone() {
    let mut g = Graph::new();
    let x = g.add_input(Type::Int);
    let one = int(&mut g, 1);
    let r = op(&mut g, "aten::add", &[x, one], Type::Int);
    g.register_output(r);
    check(
        g,
        false,
        expect![[r#"
        %1 : int = Int(1)
        %2 : int = aten::add(%0, %1)
        -> (%2)
    "#]],
    );
}

#[test]
fn strings_fold() {
    let s = |x: &str| ConstValue::Str(x.into());
    let g = single("aten::add", &[s("ab"), s("cd")], Type::Str);
    check(
        g,
        true,
        expect![[r#"
        %3 : str = Str("abcd")
        -> (%3)
    "#]],
    );
    let g = single("aten::len", &[s("héllo")], Type::Int);
    check(
        g,
        true,
        expect![[r#"
        %2 : int = Int(6)
        -> (%2)
    "#]],
    );
}

#[test]
fn tuples_construct_index_and_unpack() {
    let mut g = Graph::new();
    let (a, b) = (int(&mut g, 1), constant(&mut g, ConstValue::Float(2.5)));
    let t = op(
        &mut g,
        "prim::TupleConstruct",
        &[a, b],
        Type::tuple(vec![Type::Int, Type::Float]),
    );
    let i = int(&mut g, -1);
    let x = op(&mut g, "prim::TupleIndex", &[t, i], Type::Float);
    g.register_output(x);
    g.register_output(t);
    check(
        g,
        true,
        expect![[r#"
        %5 : (int, float) = IValue(Tuple([Int(1), Float(2.5)]))
        %6 : float = Float(2.5)
        -> (%6, %5)
    "#]],
    );
}

#[test]
fn lists_fold_only_when_nothing_writes_them() {
    let mut g = Graph::new();
    let (a, b) = (int(&mut g, 1), int(&mut g, 2));
    let l = op(
        &mut g,
        "prim::ListConstruct",
        &[a, b],
        Type::list(Type::Int),
    );
    let n = op(&mut g, "aten::len", &[l], Type::Int);
    g.register_output(n);
    check(
        g,
        true,
        expect![[r#"
        %5 : int = Int(2)
        -> (%5)
    "#]],
    );

    let mut g = Graph::new();
    let (a, b) = (int(&mut g, 1), int(&mut g, 2));
    let l = op(
        &mut g,
        "prim::ListConstruct",
        &[a, b],
        Type::list(Type::Int),
    );
    op(&mut g, "aten::append", &[l, a], Type::list(Type::Int));
    let n = op(&mut g, "aten::len", &[l], Type::Int);
    g.register_output(n);
    check(
        g,
        false,
        expect![[r#"
        %0 : int = Int(1)
        %1 : int = Int(2)
        %2 : int[] = prim::ListConstruct(%0, %1)
        %3 : int[] = aten::append(%2, %0)
        %4 : int = aten::len(%2)
        -> (%4)
    "#]],
    );

    // A list returned from the graph escapes: it stays a fresh list per call.
    let g = single(
        "prim::ListConstruct",
        &[ConstValue::Int(1)],
        Type::list(Type::Int),
    );
    check(
        g,
        false,
        expect![[r#"
        %0 : int = Int(1)
        %1 : int[] = prim::ListConstruct(%0)
        -> (%1)
    "#]],
    );
}

#[test]
fn if_on_a_constant_inlines_the_taken_block() {
    for cond in [true, false] {
        let mut g = Graph::new();
        let x = g.add_input(Type::Int);
        let c = constant(&mut g, ConstValue::Bool(cond));
        let n = g.create(sym::if_(), &[c], 0);
        let r = g.add_node_output(n, Type::Int);
        g.append_node(n);
        let (then_b, else_b) = (g.add_block(n), g.add_block(n));
        let one = constant_in(&mut g, then_b, ConstValue::Int(1), Type::Int);
        let t = op_in(&mut g, then_b, "aten::add", &[x, one], Type::Int);
        g.block_register_output(then_b, t);
        let e = op_in(&mut g, else_b, "aten::neg", &[x], Type::Int);
        g.block_register_output(else_b, e);
        g.register_output(r);
        let mut cx = PassContext::unlimited("constant-propagation");
        assert_eq!(run(&mut g, &mut cx), Ok(true));
        let want = if cond {
            "%3 : int = Int(1)\n%4 : int = aten::add(%0, %3)\n-> (%4)\n"
        } else {
            "%5 : int = aten::neg(%0)\n-> (%5)\n"
        };
        assert_eq!(listing(&g), want, "condition {cond}");
    }
}

#[test]
fn if_outputs_equal_in_both_blocks_are_removed() {
    let mut g = Graph::new();
    let x = g.add_input(Type::Int);
    let c = g.add_input(Type::Bool);
    let n = g.create(sym::if_(), &[c], 0);
    let (r0, r1) = (
        g.add_node_output(n, Type::Int),
        g.add_node_output(n, Type::Int),
    );
    g.append_node(n);
    let (then_b, else_b) = (g.add_block(n), g.add_block(n));
    let t = constant_in(&mut g, then_b, ConstValue::Int(7), Type::Int);
    let f = constant_in(&mut g, else_b, ConstValue::Int(7), Type::Int);
    for (b, v) in [(then_b, x), (else_b, x), (then_b, t), (else_b, f)] {
        g.block_register_output(b, v);
    }
    g.register_output(r0);
    g.register_output(r1);
    check(
        g,
        true,
        expect![[r#"
        %6 : int = Int(7)
         = prim::If(%1)
          block():
            -> ()
          block():
            -> ()
        -> (%0, %6)
    "#]],
    );
}

#[test]
fn loops_that_never_run_are_their_initial_values() {
    for (trips, cond, removed) in [
        (0, true, true),
        (3, false, true),
        (-1, true, true),
        (2, true, false),
    ] {
        let mut g = Graph::new();
        let x = g.add_input(Type::Int);
        let t = int(&mut g, trips);
        let c = constant(&mut g, ConstValue::Bool(cond));
        let n = g.create(sym::loop_(), &[t, c, x], 0);
        let r = g.add_node_output(n, Type::Int);
        g.append_node(n);
        let body = g.add_block(n);
        let i = g.block_add_input(body, Type::Int);
        let acc = g.block_add_input(body, Type::Int);
        let next = op_in(&mut g, body, "aten::add", &[acc, i], Type::Int);
        g.block_register_output(body, c);
        g.block_register_output(body, next);
        g.register_output(r);
        let mut cx = PassContext::unlimited("constant-propagation");
        assert_eq!(
            run(&mut g, &mut cx),
            Ok(removed),
            "trips {trips} cond {cond}"
        );
        assert_eq!(listing(&g) == "-> (%0)\n", removed, "{}", listing(&g));
    }
}

#[test]
fn loop_carried_values_passed_through_are_removed() {
    let mut g = Graph::new();
    let (x, n_trips) = (g.add_input(Type::Int), g.add_input(Type::Int));
    let t = constant(&mut g, ConstValue::Bool(true));
    let n = g.create(sym::loop_(), &[n_trips, t, x], 0);
    let r = g.add_node_output(n, Type::Int);
    g.append_node(n);
    let body = g.add_block(n);
    g.block_add_input(body, Type::Int);
    let carried = g.block_add_input(body, Type::Int);
    op_in(&mut g, body, "prim::Print", &[carried], Type::None);
    g.block_register_output(body, t);
    g.block_register_output(body, carried);
    g.register_output(r);
    check(
        g,
        true,
        expect![[r#"
        %2 : bool = Int(1)
         = prim::Loop(%1, %2)
          block(%4):
            %6 : NoneType = prim::Print(%0)
            -> (%2)
        -> (%0)
    "#]],
    );
}

#[test]
fn is_none_from_constants_and_types() {
    let mut g = Graph::new();
    let x = g.add_input(Type::Int);
    let y = g.add_input(Type::optional(Type::Int));
    let none = constant(&mut g, ConstValue::None);
    let a = op(&mut g, "aten::__is__", &[x, none], Type::Bool);
    let b = op(&mut g, "aten::__isnot__", &[none, none], Type::Bool);
    let c = op(&mut g, "aten::__is__", &[y, none], Type::Bool);
    for v in [a, b, c] {
        g.register_output(v);
    }
    check(
        g,
        true,
        expect![[r#"
        %2 : NoneType = None
        %6 : bool = Int(0)
        %7 : bool = Int(0)
        %5 : bool = aten::__is__(%1, %2)
        -> (%6, %7, %5)
    "#]],
    );
}

#[test]
fn isinstance_on_known_types() {
    let mut g = Graph::new();
    let x = g.add_input(Type::Int);
    let y = g.add_input(Type::Any);
    for (v, candidates) in [
        (x, vec![Type::Float]),
        (x, vec![Type::Float, Type::Int]),
        (y, vec![Type::Int]),
    ] {
        let n = g.create(Symbol::prim("isinstance"), &[v], 0);
        g.set_attr(n, Symbol::attr("types"), AttrValue::Types(candidates));
        let r = g.add_node_output(n, Type::Bool);
        g.append_node(n);
        g.register_output(r);
    }
    check(
        g,
        true,
        expect![[r#"
        %5 : bool = Int(0)
        %6 : bool = Int(1)
        %4 : bool = prim::isinstance(%1)
        -> (%5, %6, %4)
    "#]],
    );
}

#[test]
fn unchecked_cast_of_a_constant() {
    let g = single("prim::unchecked_cast", &[ConstValue::Int(3)], Type::Int);
    check(
        g,
        true,
        expect![[r#"
        %2 : int = Int(3)
        -> (%2)
    "#]],
    );
}

#[test]
fn none_keeps_the_optional_type_it_replaces() {
    let g = single(
        "prim::unchecked_cast",
        &[ConstValue::None],
        Type::optional(Type::Int),
    );
    check(
        g,
        true,
        expect![[r#"
        %2 : int? = None
        -> (%2)
    "#]],
    );
}

#[test]
fn opt_limit_stops_after_the_budget() {
    let mut g = Graph::new();
    let (a, b) = (int(&mut g, 2), int(&mut g, 3));
    let s = op(&mut g, "aten::add", &[a, b], Type::Int);
    let m = op(&mut g, "aten::mul", &[s, b], Type::Int);
    g.register_output(m);
    let config = PassConfig::parse("", "constant-propagation=1").unwrap();
    let mut cx = config.context_for("constant-propagation");
    assert_eq!(run(&mut g, &mut cx), Ok(true));
    expect![[r#"
        %1 : int = Int(3)
        %4 : int = Int(5)
        %3 : int = aten::mul(%4, %1)
        -> (%3)
    "#]]
    .assert_eq(&listing(&g));
}

#[test]
fn list_unpack_and_contains_of_constant_lists() {
    let mut g = Graph::new();
    let (a, b) = (int(&mut g, 4), int(&mut g, 5));
    let l = op(
        &mut g,
        "prim::ListConstruct",
        &[a, b],
        Type::list(Type::Int),
    );
    let n = g.create(Symbol::prim("ListUnpack"), &[l], 0);
    let x = g.add_node_output(n, Type::Int);
    let y = g.add_node_output(n, Type::Int);
    g.append_node(n);
    let has = op(&mut g, "aten::__contains__", &[l, b], Type::Bool);
    for v in [y, x, has] {
        g.register_output(v);
    }
    check(
        g,
        true,
        expect![[r#"
        %7 : int = Int(4)
        %8 : int = Int(5)
        %9 : bool = Int(1)
        -> (%8, %7, %9)
    "#]],
    );
}

#[test]
fn folds_inside_nested_blocks() {
    let mut g = Graph::new();
    let c = g.add_input(Type::Bool);
    let n = g.create(sym::if_(), &[c], 0);
    let r = g.add_node_output(n, Type::Int);
    g.append_node(n);
    let (then_b, else_b) = (g.add_block(n), g.add_block(n));
    let two = constant_in(&mut g, then_b, ConstValue::Int(2), Type::Int);
    let t = op_in(&mut g, then_b, "aten::mul", &[two, two], Type::Int);
    g.block_register_output(then_b, t);
    let one = constant_in(&mut g, else_b, ConstValue::Int(1), Type::Int);
    g.block_register_output(else_b, one);
    g.register_output(r);
    check(
        g,
        true,
        expect![[r#"
        %1 : int = prim::If(%0)
          block():
            %5 : int = Int(4)
            -> (%5)
          block():
            %4 : int = Int(1)
            -> (%4)
        -> (%1)
    "#]],
    );
}

#[test]
fn ops_without_outputs_or_unknown_ops_stay() {
    let mut g = Graph::new();
    let s = constant(&mut g, ConstValue::Str("hi".into()));
    op(&mut g, "prim::Print", &[s], Type::None);
    let r = op(&mut g, "aten::warn", &[s], Type::None);
    let u = op(&mut g, "aten::rand_int", &[], Type::Int);
    g.register_output(r);
    g.register_output(u);
    check(
        g,
        false,
        expect![[r#"
        %0 : str = Str("hi")
        %1 : NoneType = prim::Print(%0)
        %2 : NoneType = aten::warn(%0)
        %3 : int = aten::rand_int()
        -> (%2, %3)
    "#]],
    );
}
