use expect_test::{expect, Expect};

use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Type};

use super::run as cse;
use crate::passes::testing::*;

fn check(mut g: Graph, changed: bool, expected: Expect) {
    assert_eq!(run(cse, &mut g), changed);
    expected.assert_eq(&dump(&g));
    assert!(!run(cse, &mut g));
}

#[test]
fn merges_pure_tensor_ops_and_scalars() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let y = input(&mut g, "y", Type::tensor());
    let one = int(&mut g, 1);
    let one_again = int(&mut g, 1);
    let a = op(&mut g, "aten::add", &[x, y, one], Type::tensor());
    let b = op(&mut g, "aten::add", &[x, y, one_again], Type::tensor());
    let d1 = op(&mut g, "aten::dim", &[x], Type::Int);
    let d2 = op(&mut g, "aten::dim", &[x], Type::Int);
    let s = op(&mut g, "aten::mul", &[a, b], Type::tensor());
    let t = op(&mut g, "aten::add", &[d1, d2], Type::Int);
    g.register_output(s);
    g.register_output(t);
    check(
        g,
        true,
        expect![[r#"
            graph(%x : Tensor,
                  %y : Tensor):
              %2 : int = prim::Constant[value=1]()
              %4 : Tensor = aten::add(%x, %y, %2)
              %6 : int = aten::dim(%x)
              %8 : Tensor = aten::mul(%4, %4)
              %9 : int = aten::add(%6, %6)
              return (%8, %9)
        "#]],
    );
}

#[test]
fn leaves_effects_randomness_and_escaping_allocations_alone() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let r1 = op(&mut g, "aten::rand_like", &[x], Type::tensor());
    let r2 = op(&mut g, "aten::rand_like", &[x], Type::tensor());
    let p = float(&mut g, 0.5);
    let train = boolean(&mut g, true);
    let d1 = op(&mut g, "aten::dropout", &[x, p, train], Type::tensor());
    let d2 = op(&mut g, "aten::dropout", &[x, p, train], Type::tensor());
    let size = op(&mut g, "prim::ListConstruct", &[], Type::list(Type::Int));
    let size2 = op(&mut g, "prim::ListConstruct", &[], Type::list(Type::Int));
    let none = none(&mut g);
    let z1 = op(
        &mut g,
        "aten::zeros",
        &[size, none, none, none, none],
        Type::tensor(),
    );
    let z2 = op(
        &mut g,
        "aten::zeros",
        &[size2, none, none, none, none],
        Type::tensor(),
    );
    let c1 = op(&mut g, "aten::clone", &[x, none], Type::tensor());
    let c2 = op(&mut g, "aten::clone", &[x, none], Type::tensor());
    let u1 = op(&mut g, "mylib::f", &[x], Type::tensor());
    let u2 = op(&mut g, "mylib::f", &[x], Type::tensor());
    let outs = [r1, r2, d1, d2, z1, z2, c1, c2, u1, u2];
    let t = op(
        &mut g,
        "prim::ListConstruct",
        &outs,
        Type::list(Type::tensor()),
    );
    g.register_output(t);
    // The two empty size lists are never written: PyTorch merges them, and so does Ember.
    // The allocations all reach the output, so they stay two buffers each.
    check(
        g,
        true,
        expect![[r#"
            graph(%x : Tensor):
              %1 : Tensor = aten::rand_like(%x)
              %2 : Tensor = aten::rand_like(%x)
              %3 : float = prim::Constant[value=0.5]()
              %4 : bool = prim::Constant[value=1]()
              %5 : Tensor = aten::dropout(%x, %3, %4)
              %6 : Tensor = aten::dropout(%x, %3, %4)
              %7 : int[] = prim::ListConstruct()
              %9 : NoneType = prim::Constant()
              %10 : Tensor = aten::zeros(%7, %9, %9, %9, %9)
              %11 : Tensor = aten::zeros(%7, %9, %9, %9, %9)
              %12 : Tensor = aten::clone(%x, %9)
              %13 : Tensor = aten::clone(%x, %9)
              %14 : Tensor = mylib::f(%x)
              %15 : Tensor = mylib::f(%x)
              %16 : Tensor[] = prim::ListConstruct(%1, %2, %5, %6, %10, %11, %12, %13, %14, %15)
              return (%16)
        "#]],
    );
}

#[test]
fn eval_dropout_is_deterministic() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let p = float(&mut g, 0.5);
    let train = boolean(&mut g, false);
    let d1 = op(&mut g, "aten::dropout", &[x, p, train], Type::tensor());
    let d2 = op(&mut g, "aten::dropout", &[x, p, train], Type::tensor());
    let s = op(&mut g, "aten::mul", &[d1, d2], Type::tensor());
    g.register_output(s);
    assert!(run(cse, &mut g));
    assert_eq!(g.nodes().len(), 4);
}

#[test]
fn writers_block_merging_of_mutable_inputs_and_results() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let a = op(&mut g, "aten::relu", &[x], Type::tensor());
    let d1 = op(&mut g, "aten::dim", &[x], Type::Int);
    let one = int(&mut g, 1);
    op(&mut g, "aten::add_", &[x, x, one], Type::tensor());
    let b = op(&mut g, "aten::relu", &[x], Type::tensor());
    let d2 = op(&mut g, "aten::dim", &[x], Type::Int);
    // Scalars of scalars still merge.
    let s1 = op(&mut g, "aten::mul", &[d1, d2], Type::Int);
    let s2 = op(&mut g, "aten::mul", &[d1, d2], Type::Int);
    let t = op(
        &mut g,
        "prim::TupleConstruct",
        &[a, b, s1, s2],
        Type::tuple(vec![Type::tensor(), Type::tensor(), Type::Int, Type::Int]),
    );
    g.register_output(t);
    check(
        g,
        true,
        expect![[r#"
            graph(%x : Tensor):
              %1 : Tensor = aten::relu(%x)
              %2 : int = aten::dim(%x)
              %3 : int = prim::Constant[value=1]()
              %4 : Tensor = aten::add_(%x, %x, %3)
              %5 : Tensor = aten::relu(%x)
              %6 : int = aten::dim(%x)
              %7 : int = aten::mul(%2, %6)
              %9 : (Tensor, Tensor, int, int) = prim::TupleConstruct(%1, %5, %7, %7)
              return (%9)
        "#]],
    );
}

#[test]
fn does_not_alias_two_graph_outputs() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let a = op(&mut g, "aten::relu", &[x], Type::tensor());
    let b = op(&mut g, "aten::relu", &[x], Type::tensor());
    g.register_output(a);
    g.register_output(b);
    check(
        g,
        false,
        expect![[r#"
            graph(%x : Tensor):
              %1 : Tensor = aten::relu(%x)
              %2 : Tensor = aten::relu(%x)
              return (%1, %2)
        "#]],
    );
}

#[test]
fn nested_blocks_see_outer_nodes_but_not_siblings() {
    let mut g = Graph::new();
    let c = input(&mut g, "c", Type::Bool);
    let x = input(&mut g, "x", Type::tensor());
    let outer = op(&mut g, "aten::neg", &[x], Type::tensor());
    let if_node = g.create_and_insert(sym::if_(), &[c], 1);
    g.set_ty(g.output(if_node, 0), Type::tensor());
    let then_b = g.add_block(if_node);
    let else_b = g.add_block(if_node);
    g.set_insert_point_to_end(then_b);
    let inner = op(&mut g, "aten::neg", &[x], Type::tensor());
    let t1 = op(&mut g, "aten::sigmoid", &[inner], Type::tensor());
    g.block_register_output(then_b, t1);
    g.set_insert_point_to_end(else_b);
    let e1 = op(&mut g, "aten::sigmoid", &[outer], Type::tensor());
    g.block_register_output(else_b, e1);
    g.set_insert_point_to_end(g.block());
    let after = op(&mut g, "aten::sigmoid", &[outer], Type::tensor());
    let r = g.output(if_node, 0);
    let s = op(&mut g, "aten::mul", &[r, after], Type::tensor());
    g.register_output(s);
    // `inner` merges into `outer`; then the two `sigmoid(outer)` in the branches stay apart
    // and the one after the `If` sees neither.
    check(
        g,
        true,
        expect![[r#"
            graph(%c : bool,
                  %x : Tensor):
              %2 : Tensor = aten::neg(%x)
              %3 : Tensor = prim::If(%c)
                block0():
                  %5 : Tensor = aten::sigmoid(%2)
                  -> (%5)
                block1():
                  %6 : Tensor = aten::sigmoid(%2)
                  -> (%6)
              %7 : Tensor = aten::sigmoid(%2)
              %8 : Tensor = aten::mul(%3, %7)
              return (%8)
        "#]],
    );
}

#[test]
fn respects_the_rewrite_limit() {
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let vs: Vec<_> = (0..3)
        .map(|_| op(&mut g, "aten::neg", &[x], Type::tensor()))
        .collect();
    let t = op(
        &mut g,
        "prim::TupleConstruct",
        &vs,
        Type::tuple(vec![Type::tensor(); 3]),
    );
    g.register_output(t);
    // All three reach the output through the tuple, so nothing merges.
    assert!(!run(cse, &mut g));
    let mut g = Graph::new();
    let x = input(&mut g, "x", Type::tensor());
    let vs: Vec<_> = (0..3)
        .map(|_| op(&mut g, "aten::neg", &[x], Type::tensor()))
        .collect();
    let s = op(&mut g, "aten::mul", &[vs[0], vs[1]], Type::tensor());
    let s = op(&mut g, "aten::mul", &[s, vs[2]], Type::tensor());
    g.register_output(s);
    assert!(run_limited(cse, &mut g, "cse", 1));
    assert_eq!(g.nodes().len(), 4);
    assert!(run(cse, &mut g));
    assert_eq!(g.nodes().len(), 3);
}

/// `self.weight` read twice, with `extra` (nothing, an in-place op on an input, or an
/// attribute store) in between.
fn attribute_reads(extra: &str) -> Graph {
    let mut g = Graph::new();
    let module = input(&mut g, "self", Type::Class("__torch__.M".into()));
    let x = input(&mut g, "x", Type::tensor());
    let read = |g: &mut Graph| {
        let w = op(g, "prim::GetAttr", &[module], Type::tensor());
        let n = g.producer(w);
        g.set_attr(
            n,
            ember_dialects::Symbol::attr("name"),
            ember_dialects::AttrValue::Str("weight".into()),
        );
        w
    };
    let w1 = read(&mut g);
    match extra {
        "add_" => {
            let one = int(&mut g, 1);
            op(&mut g, "aten::add_", &[x, x, one], Type::tensor());
        }
        "setattr" => {
            let n = stmt(&mut g, "prim::SetAttr", &[module, x]);
            g.set_attr(
                n,
                ember_dialects::Symbol::attr("name"),
                ember_dialects::AttrValue::Str("weight".into()),
            );
        }
        _ => {}
    }
    let w2 = read(&mut g);
    let s = op(&mut g, "aten::mul", &[w1, w2], Type::tensor());
    g.register_output(s);
    g
}

#[test]
fn attribute_reads_merge_unless_something_may_write_them() {
    let mut g = attribute_reads("");
    assert!(run(cse, &mut g));
    expect![[r#"
        graph(%self : __torch__.M,
              %x : Tensor):
          %2 : Tensor = prim::GetAttr[name="weight"](%self)
          %4 : Tensor = aten::mul(%2, %2)
          return (%4)
    "#]]
    .assert_eq(&dump(&g));
    // `x` may be the attribute's tensor: a write to it may change what the second read sees
    // (PyTorch's CSE leaves it too).
    let mut g = attribute_reads("add_");
    assert!(!run(cse, &mut g));
    let mut g = attribute_reads("setattr");
    assert!(!run(cse, &mut g));
}
