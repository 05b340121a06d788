use ember_dialects::parse::parse_graph;

use super::*;
use crate::passes::testing;

fn fuse(text: &str) -> String {
    let mut g = parse_graph(text).unwrap();
    testing::run(run, &mut g);
    ember_dialects::verify::verify(&g).unwrap();
    testing::dump(&g)
}

#[test]
fn a_chain_becomes_one_group_with_its_constants() {
    let out = fuse(
        "graph(%a : Float(4, 1, strides=[1, 1], requires_grad=0, device=cpu),
      %b : Float(1, 5, strides=[5, 1], requires_grad=0, device=cpu)):
  %2 : int = prim::Constant[value=1]()
  %3 : Float(4, 5, strides=[5, 1], requires_grad=0, device=cpu) = aten::add(%a, %b, %2)
  %4 : Float(4, 5, strides=[5, 1], requires_grad=0, device=cpu) = aten::sub(%a, %b, %2)
  %5 : Float(4, 5, strides=[5, 1], requires_grad=0, device=cpu) = aten::mul(%3, %4)
  return (%5)
",
    );
    assert_eq!(
        out,
        "graph(%a : Float(4, 1, strides=[1, 1], requires_grad=0, device=cpu),
      %b : Float(1, 5, strides=[5, 1], requires_grad=0, device=cpu)):
  %2 : int = prim::Constant[value=1]()
  %8 : Float(4, 5, strides=[5, 1], requires_grad=0, device=cpu) = prim::TensorExprGroup_0(%a, %b)
  return (%8)
with prim::TensorExprGroup_0 = graph(%a : Float(4, 1, strides=[1, 1], requires_grad=0, device=cpu),
      %b : Float(1, 5, strides=[5, 1], requires_grad=0, device=cpu)):
  %7 : int = prim::Constant[value=1]()
  %8 : Float(4, 5, strides=[5, 1], requires_grad=0, device=cpu) = aten::add(%a, %b, %7)
  %6 : Float(4, 5, strides=[5, 1], requires_grad=0, device=cpu) = aten::sub(%a, %b, %7)
  %2 : Float(4, 5, strides=[5, 1], requires_grad=0, device=cpu) = aten::mul(%8, %6)
  return (%2)
"
    );
}
