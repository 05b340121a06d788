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
  %5 : Float(4, 5, strides=[5, 1], requires_grad=0, device=cpu) = prim::TensorExprGroup_0(%a, %b)
  return (%5)
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

/// `a -> relu -> sigmoid` on an input of type `ty`.
fn chain_on(ty: TensorType) -> Graph {
    let mut g = Graph::new();
    let x = testing::input(&mut g, "x", Type::Tensor(ty.clone()));
    let r = testing::op(&mut g, "aten::relu", &[x], Type::Tensor(ty.clone()));
    let s = testing::op(&mut g, "aten::sigmoid", &[r], Type::Tensor(ty));
    g.register_output(s);
    g
}

fn cpu_float(sizes: Option<Vec<ember_dialects::types::Dim>>) -> TensorType {
    TensorType {
        dtype: Some(ScalarType::Float),
        sizes,
        strides: None,
        device: Some(ember_dialects::types::Device {
            kind: "cpu".into(),
            index: None,
        }),
        requires_grad: Some(false),
        undefined: None,
    }
}

#[test]
fn an_unknown_rank_is_not_fused_but_unknown_sizes_are() {
    use ember_dialects::types::Dim;
    let mut g = chain_on(cpu_float(None));
    assert!(!testing::run(run, &mut g));
    let mut g = chain_on(cpu_float(Some(vec![Dim::Unknown, Dim::Known(3)])));
    assert!(testing::run(run, &mut g));
    let groups = g.nodes().into_iter().filter(|&n| is_group(&g, n)).count();
    assert_eq!(groups, 1);
}

#[test]
fn the_fusible_ops_are_those_of_the_list() {
    use ember_dialects::types::Dim;
    let g = chain_on(cpu_float(Some(vec![Dim::Known(2)])));
    let kinds: Vec<bool> = g.nodes().into_iter().map(|n| is_fusible(&g, n)).collect();
    assert_eq!(kinds, [true, true]);
    let mut g = Graph::new();
    let t = Type::Tensor(cpu_float(Some(vec![Dim::Known(2)])));
    let x = testing::input(&mut g, "x", t.clone());
    let m = testing::op(&mut g, "aten::mm", &[x, x], t.clone());
    let c = testing::op(&mut g, "aten::cumsum", &[m], t);
    assert!(!is_fusible(&g, g.producer(m)) && !is_fusible(&g, g.producer(c)));
}

#[test]
fn a_group_whose_subgraph_does_not_fit_is_an_error() {
    let mut g = parse_graph(
        "graph(%a : Float(2, strides=[1], requires_grad=0, device=cpu)):
  %y : Float(2, strides=[1], requires_grad=0, device=cpu) = prim::TensorExprGroup_0(%a, %a)
  return (%y)
with prim::TensorExprGroup_0 = graph(%x : Float(2, strides=[1], requires_grad=0, device=cpu)):
  %e : Float(2, strides=[1], requires_grad=0, device=cpu) = aten::exp(%x)
  return (%e)
",
    )
    .unwrap();
    let err = run(&mut g, &mut PassContext::unlimited("test")).unwrap_err();
    assert!(err.contains("Subgraph"), "{err}");
}

#[test]
fn options_turn_off_chunk_and_cat_and_change_the_minimum_size() {
    let text = "graph(%x : Float(2, 8, strides=[8, 1], requires_grad=0, device=cpu)):
  %one : int = prim::Constant[value=1]()
  %g : Float(2, 8, strides=[8, 1], requires_grad=0, device=cpu) = aten::add(%x, %x, %one)
  %a : Float(2, 4, strides=[8, 1], requires_grad=0, device=cpu), %b : Float(2, 4, strides=[8, 1], requires_grad=0, device=cpu) = prim::ConstantChunk[chunks=2, dim=1](%g)
  %s : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu) = aten::sigmoid(%a)
  %t : Float(2, 4, strides=[4, 1], requires_grad=0, device=cpu) = aten::mul(%s, %b)
  return (%t)
";
    let grouped = |options: FuseOptions| {
        let mut g = parse_graph(text).unwrap();
        run_with(&mut g, &mut PassContext::unlimited("test"), &options).unwrap();
        let kinds: Vec<String> = g
            .nodes()
            .into_iter()
            .filter(|&n| g.kind(n) != sym::constant())
            .map(|n| g.kind(n).unqualified().to_string())
            .collect();
        kinds.join(" ")
    };
    assert_eq!(grouped(FuseOptions::default()), "TensorExprGroup");
    let no_chunk = FuseOptions {
        chunk_and_cat: false,
        ..FuseOptions::default()
    };
    assert_eq!(
        grouped(no_chunk.clone()),
        "add ConstantChunk TensorExprGroup"
    );
    let singletons = FuseOptions {
        min_group_size: 1,
        ..no_chunk
    };
    assert_eq!(
        grouped(singletons),
        "TensorExprGroup ConstantChunk TensorExprGroup"
    );
}

#[test]
fn innermost_reductions_join_groups_unless_turned_off() {
    let text = "graph(%x : Float(2, 3, 4, strides=[12, 4, 1], requires_grad=0, device=cpu)):
  %m1 : int = prim::Constant[value=-1]()
  %m2 : int = prim::Constant[value=-2]()
  %z : int = prim::Constant[value=0]()
  %true : bool = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %e : Float(2, 3, 4, strides=[12, 4, 1], requires_grad=0, device=cpu) = aten::exp(%x)
  %inner : int[] = prim::ListConstruct(%m1, %m2)
  %s : Float(2, 1, 1, strides=[1, 1, 1], requires_grad=0, device=cpu) = aten::sum(%e, %inner, %true, %none)
  %d : Float(2, 3, 4, strides=[12, 4, 1], requires_grad=0, device=cpu) = aten::div(%e, %s)
  %p : Float(2, 3, 4, strides=[12, 4, 1], requires_grad=0, device=cpu) = aten::softmax(%d, %m1, %none)
  %outer : int[] = prim::ListConstruct(%z)
  %false : bool = prim::Constant[value=0]()
  %o : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu) = aten::amax(%p, %outer, %false)
  %r : Float(3, 4, strides=[4, 1], requires_grad=0, device=cpu) = aten::relu(%o)
  return (%r)
";
    let fused = |reductions: bool| {
        let mut g = parse_graph(text).unwrap();
        let options = FuseOptions {
            reductions,
            ..FuseOptions::default()
        };
        run_with(&mut g, &mut PassContext::unlimited("test"), &options).unwrap();
        ember_dialects::verify::verify(&g).unwrap();
        let mut groups = Vec::new();
        for n in g.nodes() {
            if let Some(AttrValue::Graph(sub)) = g.attr(n, sym::attr_subgraph()) {
                let kinds: Vec<String> = sub
                    .nodes()
                    .into_iter()
                    .filter(|&m| sub.kind(m).is_aten())
                    .map(|m| sub.kind(m).unqualified().to_string())
                    .collect();
                groups.push(kinds.join(" "));
            }
        }
        groups.join(" | ")
    };
    assert_eq!(fused(false), "");
    // The sum over two dimensions and the softmax over the last one make two groups (a
    // kernel's rows are of one kind); amax over the outer dimension stays out (and the relu
    // alone with it).
    assert_eq!(fused(true), "exp sum | div softmax");
}

#[test]
fn a_second_run_changes_nothing_and_lone_ops_are_left_as_they_were() {
    let text = "graph(%x : Float(2, strides=[1], requires_grad=0, device=cpu)):
  %1 : int = prim::Constant[value=1]()
  %2 : Float(2, strides=[1], requires_grad=0, device=cpu) = aten::add(%x, %x, %1)
  %3 : Tensor = aten::mm(%2, %2)
  %4 : Float(2, strides=[1], requires_grad=0, device=cpu) = aten::relu(%x)
  %5 : Float(2, strides=[1], requires_grad=0, device=cpu) = aten::sigmoid(%4)
  %6 : (Tensor, Tensor) = prim::TupleConstruct(%3, %5)
  return (%6)
";
    let mut g = parse_graph(text).unwrap();
    assert!(testing::run(run, &mut g));
    let once = testing::dump(&g);
    assert!(!testing::run(run, &mut g));
    assert_eq!(testing::dump(&g), once);
    // One fusible op only: a group of one is made, then inlined back as it was.
    let lone_text = text
        .replace("aten::sigmoid(%4)", "aten::mm(%4, %4)")
        .replace("aten::relu(%x)", "aten::mm(%x, %x)");
    let mut lone = parse_graph(&lone_text).unwrap();
    let before = testing::dump(&lone);
    assert!(!testing::run(run, &mut lone));
    assert_eq!(testing::dump(&lone), before);
}
