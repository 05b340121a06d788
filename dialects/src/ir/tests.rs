use hashbrown::HashMap;

use super::*;

fn add(g: &mut Graph, a: Value, b: Value) -> Node {
    g.create_and_insert(Symbol::aten("add"), &[a, b], 1)
}

#[test]
fn insertion_keeps_order_and_use_lists() {
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    let y = g.add_input(Type::tensor());
    let n1 = add(&mut g, x, y);
    let o1 = g.output(n1, 0);
    let n2 = add(&mut g, o1, y);
    let n0 = g.create(Symbol::aten("neg"), &[x], 1);
    g.insert_before(n0, n1);
    assert_eq!(
        g.block_nodes(g.block()).collect::<Vec<_>>(),
        vec![n0, n1, n2]
    );
    assert_eq!(g.uses(y).len(), 2);
    g.move_after(n0, n2);
    assert_eq!(
        g.block_nodes(g.block()).collect::<Vec<_>>(),
        vec![n1, n2, n0]
    );
    assert!(g.is_before(n1, n0));
    assert!(!g.is_before(n0, n1));
}

#[test]
fn replace_and_destroy_update_uses() {
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    let y = g.add_input(Type::tensor());
    let n1 = add(&mut g, x, x);
    let o = g.output(n1, 0);
    g.register_output(o);
    g.replace_input_with(n1, x, y);
    assert!(g.uses(x).is_empty());
    assert_eq!(
        g.uses(y),
        &[
            Use {
                user: n1,
                offset: 0
            },
            Use {
                user: n1,
                offset: 1
            }
        ]
    );
    g.remove_node_input(n1, 0);
    assert_eq!(
        g.uses(y),
        &[Use {
            user: n1,
            offset: 0
        }]
    );
    let n2 = g.create_and_insert(Symbol::aten("relu"), &[y], 1);
    let o2 = g.output(n2, 0);
    g.replace_all_uses_with(o, o2);
    g.destroy(n1);
    assert!(g.uses(y).len() == 1 && !g.is_alive(n1));
    assert_eq!(g.outputs(), &[o2]);
}

#[test]
fn debug_names_follow_pytorch_renaming() {
    let mut g = Graph::new();
    let a = g.add_input(Type::Int);
    let b = g.add_input(Type::Int);
    let c = g.add_input(Type::Int);
    assert!(g.set_debug_name(a, "x"));
    assert!(g.set_debug_name(b, "x"));
    assert_eq!(g.value_name(a), "x.1");
    assert_eq!(g.value_name(b), "x");
    assert!(g.set_debug_name(c, "x"));
    // PyTorch remembers the last suffix per base and skips past it: x.1, then x.3.
    assert_eq!(g.value_name(b), "x.3");
    assert!(!g.set_debug_name(c, "12"));
    assert_eq!(g.value_name(c), "x");
}

#[test]
fn blocks_and_inlining() {
    let mut callee = Graph::new();
    let p = callee.add_input(Type::tensor());
    let n = callee.create_and_insert(Symbol::aten("relu"), &[p], 1);
    let o = callee.output(n, 0);
    callee.register_output(o);

    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    let cond = g.add_input(Type::Bool);
    let if_node = g.create_and_insert(sym::if_(), &[cond], 1);
    let then_b = g.add_block(if_node);
    let else_b = g.add_block(if_node);
    g.set_insert_point_to_end(then_b);
    let outs = g.insert_graph(&callee, &[x]);
    g.block_register_output(then_b, outs[0]);
    g.block_register_output(else_b, x);
    let r = g.output(if_node, 0);
    g.register_output(r);
    assert_eq!(g.all_nodes(g.block()).len(), 2);
    let relu = g.producer(outs[0]);
    assert!(g.is_in_block(relu, then_b) && g.is_in_block(relu, g.block()));
    assert!(g.is_before(if_node, relu));

    // Cloning the If copies its blocks with their values.
    let mut map = HashMap::new();
    g.set_insert_point_to_end(g.block());
    let c = g.clone_node(if_node, &mut map);
    g.insert_node(c);
    assert_eq!(g.node_blocks(c).len(), 2);
    assert_eq!(g.uses(x).len(), 4);
    g.erase_block(if_node, 0);
    assert_eq!(g.uses(x).len(), 3);
}
