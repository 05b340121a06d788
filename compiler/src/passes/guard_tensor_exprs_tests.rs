use ember_dialects::parse::parse_graph;

use super::*;
use crate::passes::testing;

#[test]
fn without_groups_only_the_specializations_go() {
    let mut g = parse_graph(
        "graph(%a : Float(2, strides=[1], requires_grad=0, device=cpu)):
  %c : Float(2, strides=[1], requires_grad=0, device=cpu) = prim::Constant[value= 1  2 [ CPUFloatType{2} ]]()
  %b : Float(2, strides=[1], requires_grad=0, device=cpu) = aten::mm(%a, %c)
  return (%b)
",
    )
    .unwrap();
    assert!(testing::run(run, &mut g));
    assert_eq!(
        testing::dump(&g),
        "graph(%a : Tensor):
  %c : Float(2, strides=[1], requires_grad=0, device=cpu) = prim::Constant[value= 1  2 [ CPUFloatType{2} ]]()
  %b : Tensor = aten::mm(%a, %c)
  return (%b)
"
    );
    assert!(!testing::run(run, &mut g), "a second run changes nothing");
}

#[test]
fn a_group_without_a_subgraph_is_an_error() {
    let mut g = Graph::new();
    let x = testing::input(&mut g, "x", Type::tensor());
    testing::op(&mut g, "prim::TensorExprGroup", &[x], Type::tensor());
    let err = run(&mut g, &mut PassContext::unlimited("test")).unwrap_err();
    assert!(err.contains("Subgraph"), "{err}");
}

#[test]
fn a_second_run_guards_nothing_twice() {
    let mut g = parse_graph(
        "graph(%a : Float(2, strides=[1], requires_grad=0, device=cpu)):
  %y : Float(2, strides=[1], requires_grad=0, device=cpu) = prim::TensorExprGroup_0(%a)
  return (%y)
with prim::TensorExprGroup_0 = graph(%x : Float(2, strides=[1], requires_grad=0, device=cpu)):
  %e : Float(2, strides=[1], requires_grad=0, device=cpu) = aten::exp(%x)
  %t : Float(2, strides=[1], requires_grad=0, device=cpu) = aten::tanh(%e)
  return (%t)
",
    )
    .unwrap();
    assert!(testing::run(run, &mut g));
    let once = testing::dump(&g);
    assert!(!testing::run(run, &mut g));
    assert_eq!(testing::dump(&g), once);
}
