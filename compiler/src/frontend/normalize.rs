//! A normal form of graphs, so that the graph Ember's frontend emits for a function can be
//! compared as text with the one PyTorch printed for it (the script corpus, test/script/).
//!
//! Both graphs go through the same steps, none of which changes what the graph computes:
//! - source ranges and scopes are dropped (they name files and columns, not semantics);
//! - a function constant's callee body (Ember's `attr::Subgraph`, see passes/inline.rs) is
//!   dropped: PyTorch's `prim::Constant[name="f"]` carries only the name;
//! - dead code elimination and constant pooling (compiler/src/passes);
//! - the pooled constants at the start of the graph are sorted by what they hold, since their
//!   order depends only on the order in which the emitter met them;
//! - values are renumbered `%0`, `%1`, ... in order of definition (graph inputs, then each
//!   node's outputs, then its blocks' parameters and nodes), so debug names do not matter.
//!
//! Class names are normalized on the text before parsing, with [`strip_module_path`]: PyTorch
//! qualifies a class `Foo` of module `m` as `__torch__.m.Foo`, Ember as `__torch__.Foo`.

use ember_dialects::print::print_node;
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Type};

use crate::passes::{constant_pooling, dce, PassContext};

/// Puts `g` in normal form (see the module documentation).
pub fn normalize(g: &mut Graph) -> Result<(), String> {
    strip_locations(g);
    drop_callee_bodies(g);
    dce::run(g, &mut PassContext::unlimited("dce"))?;
    constant_pooling::run(g, &mut PassContext::unlimited("constant-pooling"))?;
    sort_leading_constants(g);
    renumber_values(g);
    Ok(())
}

/// The normal form of `g`, printed.
pub fn normalized_text(g: &Graph) -> Result<String, String> {
    let mut g = g.clone();
    normalize(&mut g)?;
    Ok(g.to_string())
}

/// `text` with PyTorch's module part of qualified names removed: `__torch__.<module>.Foo`
/// becomes `__torch__.Foo`.
pub fn strip_module_path(text: &str, module: &str) -> String {
    text.replace(&format!("__torch__.{module}."), "__torch__.")
}

/// Drops every node's source range and scope.
pub fn strip_locations(g: &mut Graph) {
    for n in g.nodes() {
        g.set_source_range(n, None);
        g.set_scope(n, None);
    }
}

/// Drops the callee bodies Ember attaches to function constants.
fn drop_callee_bodies(g: &mut Graph) {
    for n in g.nodes() {
        if g.kind(n) == sym::constant() {
            g.remove_attr(n, sym::attr_subgraph());
        }
    }
}

/// Sorts the run of constants at the start of the top block by their printed type and value.
fn sort_leading_constants(g: &mut Graph) {
    let top = g.block();
    let leading: Vec<Node> = g
        .block_nodes(top)
        .take_while(|&n| g.kind(n) == sym::constant() && g.node_blocks(n).is_empty())
        .collect();
    let Some(&last) = leading.last() else {
        return;
    };
    let anchor = g.next_node(last).unwrap_or_else(|| g.return_node(top));
    let mut keyed: Vec<(String, Node)> = leading.iter().map(|&n| (constant_key(g, n), n)).collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    for (_, n) in keyed {
        g.move_before(n, anchor);
    }
}

/// A constant's printed form without its output names: `int = prim::Constant[value=1]()`.
fn constant_key(g: &Graph, n: Node) -> String {
    let text = print_node(g, n);
    let mut key = String::new();
    for (i, &o) in g.node_outputs(n).iter().enumerate() {
        if i > 0 {
            key.push_str(", ");
        }
        key.push_str(&type_key(g.ty(o)));
    }
    match text.split_once(" = ") {
        Some((_, rest)) => key + " = " + rest.trim_end(),
        None => key,
    }
}

fn type_key(ty: &Type) -> String {
    ty.to_string()
}

/// Renames every value `%0`, `%1`, ... in order of definition.
pub fn renumber_values(g: &mut Graph) {
    let mut next = 0u64;
    let inputs = g.inputs().to_vec();
    for v in inputs {
        rename(g, v, &mut next);
    }
    let top = g.block();
    renumber_block_nodes(g, top, &mut next);
}

fn renumber_block_nodes(g: &mut Graph, b: Block, next: &mut u64) {
    let nodes: Vec<Node> = g.block_nodes(b).collect();
    for n in nodes {
        for v in g.node_outputs(n).to_vec() {
            rename(g, v, next);
        }
        for sub in g.node_blocks(n).to_vec() {
            for v in g.block_inputs(sub).to_vec() {
                rename(g, v, next);
            }
            renumber_block_nodes(g, sub, next);
        }
    }
}

fn rename(g: &mut Graph, v: ember_dialects::Value, next: &mut u64) {
    g.set_debug_name(v, "");
    g.set_unique(v, *next);
    *next += 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use ember_dialects::parse::parse_graph;

    fn norm(text: &str) -> String {
        let g = parse_graph(text).unwrap();
        normalized_text(&g).unwrap()
    }

    #[test]
    fn names_locations_and_constant_order_do_not_matter() {
        let a = norm(
            "graph(%x.1 : int):
  %2 : int = prim::Constant[value=2]() # a.py:1:2
  %1 : int = prim::Constant[value=1]()
  %y.1 : int = aten::add(%x.1, %1) # a.py:3:4
  %z : int = aten::mul(%y.1, %2)
  return (%z)
",
        );
        let b = norm(
            "graph(%a : int):
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %5 : int = aten::add(%a, %one)
  %6 : int = aten::mul(%5, %two)
  return (%6)
",
        );
        assert_eq!(a, b);
        expect_test::expect![[r#"
            graph(%0 : int):
              %1 : int = prim::Constant[value=1]()
              %2 : int = prim::Constant[value=2]()
              %3 : int = aten::add(%0, %1)
              %4 : int = aten::mul(%3, %2)
              return (%4)
        "#]]
        .assert_eq(&a);
    }

    #[test]
    fn dead_code_and_duplicate_constants_go_and_blocks_are_numbered_in_order() {
        let text = norm(
            "graph(%c : bool, %x : int):
  %unused : int = aten::add(%x, %x)
  %r : int = prim::If(%c)
    block0():
      %k : int = prim::Constant[value=3]()
      %s : int = aten::add(%x, %k)
      -> (%s)
    block1():
      %k2 : int = prim::Constant[value=3]()
      -> (%k2)
  %n : int = prim::Loop(%x, %c, %r)
    block0(%i : int, %acc : int):
      %t : int = aten::add(%acc, %i)
      -> (%c, %t)
  return (%n)
",
        );
        expect_test::expect![[r#"
            graph(%0 : bool,
                  %1 : int):
              %2 : int = prim::Constant[value=3]()
              %3 : int = prim::If(%0)
                block0():
                  %4 : int = aten::add(%1, %2)
                  -> (%4)
                block1():
                  -> (%2)
              %5 : int = prim::Loop(%1, %0, %3)
                block0(%6 : int, %7 : int):
                  %8 : int = aten::add(%7, %6)
                  -> (%0, %8)
              return (%5)
        "#]]
        .assert_eq(&text);
    }

    #[test]
    fn module_path_is_stripped_from_class_names() {
        assert_eq!(
            strip_module_path(
                "%p : __torch__.case_classes_pt.Point = prim::CreateObject()",
                "case_classes_pt"
            ),
            "%p : __torch__.Point = prim::CreateObject()"
        );
    }
}
