use ember_dialects::parse::parse_graph;
use ember_dialects::{Graph, Node, Value};

use super::AliasDb;

fn graph(text: &str) -> Graph {
    parse_graph(text).unwrap_or_else(|d| panic!("{}", d.render("test")))
}

fn value(g: &Graph, name: &str) -> Value {
    g.nodes()
        .into_iter()
        .flat_map(|n| g.node_outputs(n).to_vec())
        .chain(g.inputs().iter().copied())
        .find(|&v| g.value_name(v) == name)
        .unwrap_or_else(|| panic!("no value %{name}"))
}

fn producer(g: &Graph, name: &str) -> Node {
    g.producer(value(g, name))
}

#[test]
fn views_alias_their_base_and_fresh_results_do_not() {
    let g = graph(
        "graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::add(%x, %x, %one)
  %v : Tensor = aten::select(%a, %one, %one)
  %b : Tensor = aten::mul(%a, %a)
  return (%v, %b)
",
    );
    let db = AliasDb::new(&g);
    let (x, a, v, b) = (
        value(&g, "x"),
        value(&g, "a"),
        value(&g, "v"),
        value(&g, "b"),
    );
    assert!(db.may_alias(v, a));
    assert!(!db.may_alias(a, x), "add returns a new tensor");
    assert!(!db.may_alias(b, a));
    assert!(!db.has_writers(a));
}

#[test]
fn in_place_ops_write_their_self_and_its_aliases() {
    let g = graph(
        "graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::clone(%x, %one)
  %v : Tensor = aten::select(%a, %one, %one)
  %w : Tensor = aten::add_(%v, %x, %one)
  %c : Tensor = aten::mul(%x, %x)
  return (%a, %c)
",
    );
    let db = AliasDb::new(&g);
    let write = producer(&g, "w");
    assert!(db.has_writers(value(&g, "a")), "a view of a is written");
    assert!(!db.has_writers(value(&g, "c")));
    assert!(!db.has_writers(value(&g, "x")));
    assert!(db.writes_to_alias(&g, write, &[value(&g, "a")]));
    assert!(!db.writes_to_wildcard(write));
    assert!(db.may_alias(value(&g, "w"), value(&g, "a")));
}

#[test]
fn inputs_are_wildcards_and_writing_them_is_untracked() {
    let g = graph(
        "graph(%x : Tensor, %y : Tensor):
  %one : int = prim::Constant[value=1]()
  %w : Tensor = aten::add_(%x, %y, %one)
  return (%w)
",
    );
    let db = AliasDb::new(&g);
    assert!(db.may_alias(value(&g, "x"), value(&g, "y")));
    assert!(db.writes_to_wildcard(producer(&g, "w")));
    assert!(db.has_writers(value(&g, "y")), "y may be x");
}

#[test]
fn containers_hold_wildcards_unless_read_once_by_a_functional_op() {
    let g = graph(
        "graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::neg(%x)
  %b : Tensor = aten::neg(%x)
  %l : Tensor[] = prim::ListConstruct(%a)
  %c : Tensor = aten::cat(%l, %one)
  %m : Tensor[] = prim::ListConstruct(%b)
  %e : Tensor = aten::__getitem__(%m, %one)
  return (%c, %e)
",
    );
    let db = AliasDb::new(&g);
    let (a, b, e) = (value(&g, "a"), value(&g, "b"), value(&g, "e"));
    assert!(
        !db.may_alias_wildcard(a),
        "a list read by cat keeps a apart"
    );
    assert!(
        db.may_alias_wildcard(b),
        "b went into a list others read from"
    );
    assert!(db.may_alias(e, b));
    assert!(db.may_contain_alias(&[value(&g, "m")], &[b]));
    assert!(db.may_contain_alias(&[value(&g, "l")], &[a]));
    assert!(!db.may_contain_alias(&[value(&g, "l")], &[b]));
}

#[test]
fn list_mutation_writes_the_list() {
    let g = graph(
        "graph(%x : Tensor):
  %l : Tensor[] = prim::ListConstruct()
  %r : Tensor[] = aten::append(%l, %x)
  return (%l)
",
    );
    let db = AliasDb::new(&g);
    let l = value(&g, "l");
    assert!(db.has_writers(l));
    assert!(db.writes_to_alias(&g, producer(&g, "r"), &[l]));
    assert!(db.may_contain_alias(&[l], &[value(&g, "x")]));
}

#[test]
fn branches_and_loops_merge_aliases() {
    let g = graph(
        "graph(%c : bool, %n : int, %x : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::neg(%x)
  %b : Tensor = aten::neg(%x)
  %r : Tensor = prim::If(%c)
    block0():
      -> (%a)
    block1():
      -> (%b)
  %t : Tensor = prim::Loop(%n, %c, %a)
    block0(%i : int, %p : Tensor):
      %q : Tensor = aten::select(%b, %one, %one)
      -> (%c, %q)
  return (%r, %t)
",
    );
    let db = AliasDb::new(&g);
    let (a, b, r, t) = (
        value(&g, "a"),
        value(&g, "b"),
        value(&g, "r"),
        value(&g, "t"),
    );
    assert!(db.may_alias(r, a) && db.may_alias(r, b));
    assert!(!db.may_alias(a, b));
    assert!(db.may_alias(t, a), "a loop may not run");
    assert!(db.may_alias(t, b), "or return the body's view of b");
}

#[test]
fn calls_write_everything_they_get() {
    let g = graph(
        "graph(%x : Tensor):
  %a : Tensor = aten::neg(%x)
  %f : Function = prim::Constant[name=\"f\"]()
  %r : Tensor = prim::CallFunction(%f, %a)
  return (%r)
",
    );
    let db = AliasDb::new(&g);
    assert!(db.has_writers(value(&g, "a")));
    assert!(db.may_alias(value(&g, "r"), value(&g, "a")));
}

#[test]
fn batch_norm_writes_running_stats_only_when_training() {
    let text = |training: &str| {
        format!(
            "graph(%x : Tensor, %w : Tensor, %b : Tensor, %m : Tensor, %v : Tensor):
  %t : bool = prim::Constant[value={training}]()
  %mom : float = prim::Constant[value=0.1]()
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %y : Tensor = aten::batch_norm(%x, %w, %b, %m, %v, %t, %mom, %eps, %t)
  return (%y)
"
        )
    };
    let g = graph(&text("0"));
    let db = AliasDb::new(&g);
    assert!(!db.writes_to_wildcard(producer(&g, "y")));
    let g = graph(&text("1"));
    let db = AliasDb::new(&g);
    assert!(db.writes_to_wildcard(producer(&g, "y")));
}

#[test]
fn moves_respect_writes() {
    let mut g = graph(
        "graph(%x : Tensor):
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::clone(%x, %one)
  %s : Tensor = aten::sum(%a, %one)
  %w : Tensor = aten::add_(%a, %x, %one)
  %m : Tensor = aten::mul(%x, %x)
  return (%s, %w, %m)
",
    );
    let db = AliasDb::new(&g);
    let (s, w, m) = (producer(&g, "s"), producer(&g, "w"), producer(&g, "m"));
    // The read of %a cannot move after its write; an unrelated op can move anywhere.
    assert!(!db.could_move_after_topologically(&mut g, s, w));
    assert!(db.could_move_before_topologically(&mut g, m, s));
    assert!(db.move_before_topologically_valid(&mut g, m, s));
    assert_eq!(g.next_node(m), Some(s));
    ember_dialects::verify::verify(&g).expect("still valid");
}

#[test]
fn frozen_module_attributes_are_their_own() {
    let text = "graph(%self : __torch__.M, %x : Tensor):
  %w : Tensor = prim::GetAttr[name=\"weight\"](%self)
  %y : Tensor = aten::mul(%x, %w)
  return (%y)
";
    let g = graph(text);
    assert!(AliasDb::new(&g).may_alias(value(&g, "w"), value(&g, "x")));
    assert!(!AliasDb::frozen(&g).may_alias(value(&g, "w"), value(&g, "x")));
}
