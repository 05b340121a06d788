//! A graph as Graphviz dot, for `ember-opt --emit=dot`: one dot node per IR node (block param
//! and return nodes included) labelled with its kind, one edge per use of a value labelled with
//! the value's name, and a cluster per sub-block, nested as the blocks are. A dashed edge ties
//! a node to each of its blocks.

use std::fmt::Write;

use crate::ir::{Block, Graph, Node};

/// The dot text of `g`.
pub fn print_dot(g: &Graph) -> String {
    let mut p = DotPrinter {
        g,
        out: String::new(),
        nodes: Vec::new(),
    };
    p.out.push_str("digraph ember {\n");
    p.out.push_str("  compound=true;\n");
    p.out.push_str("  fontname=\"monospace\";\n");
    p.out
        .push_str("  node [shape=box, fontname=\"monospace\"];\n");
    p.out.push_str("  edge [fontname=\"monospace\"];\n");
    p.block(g.block(), 1);
    // Edges come after every node is placed: an edge that names a node first would put that
    // node in the cluster the edge is written in.
    for i in 0..p.nodes.len() {
        p.edges(p.nodes[i]);
    }
    p.out.push_str("}\n");
    p.out
}

struct DotPrinter<'g> {
    g: &'g Graph,
    out: String,
    /// Every node written, in order, for the edges.
    nodes: Vec<Node>,
}

impl DotPrinter<'_> {
    /// The nodes of block `b`, its param node first and its return node last, with the
    /// blocks of each node as clusters right after it.
    fn block(&mut self, b: Block, depth: usize) {
        let g = self.g;
        self.node(g.param_node(b), depth);
        for n in g.block_nodes(b) {
            self.node(n, depth);
            for (i, &sub) in g.node_blocks(n).iter().enumerate() {
                let pad = indent(depth);
                let label = quote(&format!("{} block {i}", g.kind(n)));
                let _ = writeln!(self.out, "{pad}subgraph cluster_{sub} {{");
                let _ = writeln!(self.out, "{pad}  label={label};");
                self.block(sub, depth + 1);
                let _ = writeln!(self.out, "{pad}}}");
            }
        }
        self.node(g.return_node(b), depth);
    }

    fn node(&mut self, n: Node, depth: usize) {
        let label = quote(self.g.kind(n).as_str());
        let _ = writeln!(self.out, "{}{n} [label={label}];", indent(depth));
        self.nodes.push(n);
    }

    /// The edges into `n`: one per input, from the value's producer, then a dashed edge to
    /// each of its blocks.
    fn edges(&mut self, n: Node) {
        let g = self.g;
        for &v in g.node_inputs(n) {
            let label = quote(&format!("%{}", g.value_name(v)));
            let _ = writeln!(self.out, "  {} -> {n} [label={label}];", g.producer(v));
        }
        for &sub in g.node_blocks(n) {
            let param = g.param_node(sub);
            let _ = writeln!(
                self.out,
                "  {n} -> {param} [style=dashed, lhead=cluster_{sub}];"
            );
        }
    }
}

fn indent(depth: usize) -> String {
    "  ".repeat(depth)
}

/// `text` as a dot string: in double quotes, with `"` and `\` escaped and line breaks as `\n`.
fn quote(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use expect_test::{expect, Expect};

    use super::*;
    use crate::symbol::{sym, Symbol};
    use crate::types::Type;

    fn check(g: &Graph, expect: Expect) {
        let dot = print_dot(g);
        assert_well_formed(g, &dot);
        expect.assert_eq(&dot);
    }

    /// What makes the text valid dot for our purposes: balanced braces outside strings, every
    /// edge between declared nodes, and each live IR node declared exactly once.
    fn assert_well_formed(g: &Graph, dot: &str) {
        let (mut depth, mut in_string, mut escaped) = (0i32, false, false);
        for c in dot.chars() {
            match (in_string, escaped, c) {
                (true, true, _) => escaped = false,
                (true, false, '\\') => escaped = true,
                (_, false, '"') => in_string = !in_string,
                (false, _, '{') => depth += 1,
                (false, _, '}') => {
                    depth -= 1;
                    assert!(depth >= 0, "unbalanced braces in\n{dot}");
                }
                _ => {}
            }
        }
        assert!(depth == 0 && !in_string, "unterminated dot:\n{dot}");
        let declared: Vec<&str> = dot
            .lines()
            .filter_map(|l| l.trim().split_once(" [label=").map(|(id, _)| id))
            .filter(|id| !id.contains(' '))
            .collect();
        let mut expected: Vec<String> = vec![];
        let mut stack = vec![g.block()];
        while let Some(b) = stack.pop() {
            expected.push(g.param_node(b).to_string());
            expected.push(g.return_node(b).to_string());
            for n in g.block_nodes(b) {
                expected.push(n.to_string());
                stack.extend(g.node_blocks(n).iter().copied());
            }
        }
        let mut sorted = declared.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(
            sorted.len(),
            declared.len(),
            "a node is declared twice:\n{dot}"
        );
        expected.sort();
        assert_eq!(
            sorted, expected,
            "declared nodes differ from the graph's nodes"
        );
        for line in dot.lines().filter(|l| l.contains(" -> ")) {
            let (from, rest) = line.trim().split_once(" -> ").unwrap();
            let to = rest.split_once(' ').map_or(rest, |(t, _)| t);
            assert!(
                declared.contains(&from) && declared.contains(&to),
                "undeclared end in {line}"
            );
        }
    }

    #[test]
    fn straight_line_graph() {
        let mut g = Graph::new();
        let x = g.add_input(Type::tensor());
        let y = g.add_input(Type::tensor());
        g.set_debug_name(x, "x");
        g.set_debug_name(y, "y");
        let add = g.create_and_insert(Symbol::aten("add"), &[x, y], 1);
        let sum = g.output(add, 0);
        let mul = g.create_and_insert(Symbol::aten("mul"), &[sum, sum], 1);
        let out = g.output(mul, 0);
        g.register_output(out);
        check(
            &g,
            expect![[r#"
                digraph ember {
                  compound=true;
                  fontname="monospace";
                  node [shape=box, fontname="monospace"];
                  edge [fontname="monospace"];
                  node0 [label="prim::Param"];
                  node2 [label="aten::add"];
                  node3 [label="aten::mul"];
                  node1 [label="prim::Return"];
                  node0 -> node2 [label="%x"];
                  node0 -> node2 [label="%y"];
                  node2 -> node3 [label="%2"];
                  node2 -> node3 [label="%2"];
                  node3 -> node1 [label="%3"];
                }
            "#]],
        );
    }

    #[test]
    fn blocks_become_nested_clusters() {
        let mut g = Graph::new();
        let x = g.add_input(Type::tensor());
        let cond = g.add_input(Type::Bool);
        g.set_debug_name(x, "x");
        g.set_debug_name(cond, "cond");
        let if_node = g.create_and_insert(sym::if_(), &[cond], 1);
        let then_b = g.add_block(if_node);
        let else_b = g.add_block(if_node);
        g.set_insert_point_to_end(then_b);
        let relu = g.create_and_insert(Symbol::aten("relu"), &[x], 1);
        let r = g.output(relu, 0);
        g.set_debug_name(r, "r");
        g.block_register_output(then_b, r);
        // A loop inside the else branch: clusters nest, and the body's param feeds its nodes.
        g.set_insert_point_to_end(else_b);
        let trip = g.create_and_insert(sym::constant(), &[], 1);
        let n = g.output(trip, 0);
        let loop_node = g.create_and_insert(sym::loop_(), &[n, cond, x], 1);
        let body = g.add_block(loop_node);
        let _i = g.block_add_input(body, Type::Int);
        let carried = g.block_add_input(body, Type::tensor());
        g.set_debug_name(carried, "acc");
        g.set_insert_point_to_end(body);
        let neg = g.create_and_insert(Symbol::aten("neg"), &[carried], 1);
        let negated = g.output(neg, 0);
        g.block_register_output(body, cond);
        g.block_register_output(body, negated);
        let looped = g.output(loop_node, 0);
        g.block_register_output(else_b, looped);
        let result = g.output(if_node, 0);
        g.register_output(result);
        check(
            &g,
            expect![[r#"
                digraph ember {
                  compound=true;
                  fontname="monospace";
                  node [shape=box, fontname="monospace"];
                  edge [fontname="monospace"];
                  node0 [label="prim::Param"];
                  node2 [label="prim::If"];
                  subgraph cluster_block1 {
                    label="prim::If block 0";
                    node3 [label="prim::Param"];
                    node7 [label="aten::relu"];
                    node4 [label="prim::Return"];
                  }
                  subgraph cluster_block2 {
                    label="prim::If block 1";
                    node5 [label="prim::Param"];
                    node8 [label="prim::Constant"];
                    node9 [label="prim::Loop"];
                    subgraph cluster_block3 {
                      label="prim::Loop block 0";
                      node10 [label="prim::Param"];
                      node12 [label="aten::neg"];
                      node11 [label="prim::Return"];
                    }
                    node6 [label="prim::Return"];
                  }
                  node1 [label="prim::Return"];
                  node0 -> node2 [label="%cond"];
                  node2 -> node3 [style=dashed, lhead=cluster_block1];
                  node2 -> node5 [style=dashed, lhead=cluster_block2];
                  node0 -> node7 [label="%x"];
                  node7 -> node4 [label="%r"];
                  node8 -> node9 [label="%4"];
                  node0 -> node9 [label="%cond"];
                  node0 -> node9 [label="%x"];
                  node9 -> node10 [style=dashed, lhead=cluster_block3];
                  node10 -> node12 [label="%acc"];
                  node0 -> node11 [label="%cond"];
                  node12 -> node11 [label="%8"];
                  node9 -> node6 [label="%5"];
                  node2 -> node1 [label="%2"];
                }
            "#]],
        );
    }

    #[test]
    fn labels_are_escaped() {
        let mut g = Graph::new();
        let x = g.add_input(Type::tensor());
        g.set_debug_name(x, "a\"b\\c\nd");
        let n = g.create_and_insert(Symbol::new("my\"lib::op\\x"), &[x], 0);
        let _ = n;
        check(
            &g,
            expect![[r#"
                digraph ember {
                  compound=true;
                  fontname="monospace";
                  node [shape=box, fontname="monospace"];
                  edge [fontname="monospace"];
                  node0 [label="prim::Param"];
                  node2 [label="my\"lib::op\\x"];
                  node1 [label="prim::Return"];
                  node0 -> node2 [label="%a\"b\\c\nd"];
                }
            "#]],
        );
    }
}
