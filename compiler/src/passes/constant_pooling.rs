//! `constant-pooling`: one `prim::Constant` per value, at the start of the graph, after PyTorch's
//! `passes/constant_pooling.cpp`.
//!
//! Every constant, in nested blocks too, is moved to the start of the top block; a constant
//! equal to one already moved (same value, compared bit for bit for floats, and same type) is
//! replaced by it. Only constants of immutable types (numbers, strings, None, devices, tuples
//! of those) are merged: tensor and object constants are mutable, and merging two would make
//! a write to one show in the other (PyTorch asks alias analysis; Ember keeps them apart).
//!
//! PyTorch moves each constant in front of the first node, which reverses their order on every
//! run; Ember keeps them in the order found, so a second run changes nothing.

use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node};

use super::{LogLevel, PassContext};
use crate::analysis::alias::is_mutable_type;
use crate::analysis::node_eq::nodes_equal;

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let mut pool = Pool {
        hoisted: Vec::new(),
        last: None,
    };
    let top = g.block();
    Ok(pool.block(g, top, cx))
}

struct Pool {
    /// Constants already at the start of the graph, which others may be merged into.
    hoisted: Vec<Node>,
    /// The last of them: the next one goes after it.
    last: Option<Node>,
}

impl Pool {
    fn block(&mut self, g: &mut Graph, b: Block, cx: &mut PassContext) -> bool {
        let mut changed = false;
        for n in g.block_nodes(b).collect::<Vec<_>>() {
            if !g.node_blocks(n).is_empty() {
                for sub in g.node_blocks(n).to_vec() {
                    changed |= self.block(g, sub, cx);
                }
                continue;
            }
            if g.kind(n) != sym::constant() {
                continue;
            }
            if let Some(existing) = self.equal_constant(g, n) {
                if cx.may_rewrite() {
                    cx.log(LogLevel::Update, || {
                        format!(
                            "replaced constant %{} with %{}",
                            g.value_name(g.output(n, 0)),
                            g.value_name(g.output(existing, 0))
                        )
                    });
                    g.replace_all_uses_of_node_with(n, existing);
                    g.destroy(n);
                    changed = true;
                }
                continue;
            }
            let top = g.block();
            let in_place = g.owning_block(n) == Some(top) && g.prev_node(n) == self.last;
            if !in_place {
                // A constant that may not move stays out of the pool: it does not dominate the
                // rest of the graph.
                if !cx.may_rewrite() {
                    continue;
                }
                cx.log(LogLevel::Debug, || {
                    let names: Vec<String> =
                        g.node_outputs(n).iter().map(|&v| g.value_name(v)).collect();
                    format!("moved constant %{} to the start", names.join(", %"))
                });
                g.remove_from_list(n);
                match self.last {
                    Some(last) => g.insert_after(n, last),
                    None => {
                        g.block_prepend(top, n);
                    }
                }
                changed = true;
            }
            self.last = Some(n);
            self.hoisted.push(n);
        }
        changed
    }

    /// A pooled constant equal to `n`, if `n` may be merged at all.
    fn equal_constant(&self, g: &Graph, n: Node) -> Option<Node> {
        if g.node_outputs(n).len() != 1 || is_mutable_type(g.ty(g.output(n, 0))) {
            return None;
        }
        self.hoisted.iter().copied().find(|&m| nodes_equal(g, m, n))
    }
}

#[cfg(test)]
mod tests {
    use expect_test::expect;

    use ember_dialects::attr::{AttrValue, ConstValue, TensorLiteral};
    use ember_dialects::types::ScalarType;
    use ember_dialects::{Graph, Type};

    use super::run as pool;
    use crate::passes::testing::*;

    #[test]
    fn merges_equal_constants_and_hoists_them() {
        let mut g = Graph::new();
        let c = input(&mut g, "c", Type::Bool);
        let x = input(&mut g, "x", Type::tensor());
        let one = int(&mut g, 1);
        let a = op(&mut g, "aten::add", &[x, x, one], Type::tensor());
        let if_node = g.create_and_insert(ember_dialects::symbol::sym::if_(), &[c], 1);
        g.set_ty(g.output(if_node, 0), Type::tensor());
        let then_b = g.add_block(if_node);
        let else_b = g.add_block(if_node);
        g.set_insert_point_to_end(then_b);
        let one_again = int(&mut g, 1);
        let two = int(&mut g, 2);
        let t = op(&mut g, "aten::add", &[a, x, one_again], Type::tensor());
        let t = op(&mut g, "aten::mul", &[t, two], Type::tensor());
        g.block_register_output(then_b, t);
        g.set_insert_point_to_end(else_b);
        let neg_zero = float(&mut g, -0.0);
        let zero = float(&mut g, 0.0);
        let true_ = boolean(&mut g, true);
        let int_one_as_bool = boolean(&mut g, true);
        let tuple = constant(
            &mut g,
            Type::tuple(vec![Type::Int, Type::Str]),
            Some(AttrValue::IValue(ConstValue::Tuple(vec![
                ConstValue::Int(1),
                ConstValue::Str("a".into()),
            ]))),
        );
        let tuple2 = constant(
            &mut g,
            Type::tuple(vec![Type::Int, Type::Str]),
            Some(AttrValue::IValue(ConstValue::Tuple(vec![
                ConstValue::Int(1),
                ConstValue::Str("a".into()),
            ]))),
        );
        let e = op(
            &mut g,
            "mylib::use",
            &[a, neg_zero, zero, true_, int_one_as_bool, tuple, tuple2],
            Type::tensor(),
        );
        g.block_register_output(else_b, e);
        g.set_insert_point_to_end(g.block());
        let r = g.output(if_node, 0);
        g.register_output(r);
        assert!(run(pool, &mut g));
        expect![[r#"
            graph(%c : bool,
                  %x : Tensor):
              %2 : int = prim::Constant[value=1]()
              %6 : int = prim::Constant[value=2]()
              %9 : float = prim::Constant[value=-0.]()
              %10 : float = prim::Constant[value=0.]()
              %11 : bool = prim::Constant[value=1]()
              %13 : (int, str) = prim::Constant[value=(1, "a")]()
              %3 : Tensor = aten::add(%x, %x, %2)
              %4 : Tensor = prim::If(%c)
                block0():
                  %7 : Tensor = aten::add(%3, %x, %2)
                  %8 : Tensor = aten::mul(%7, %6)
                  -> (%8)
                block1():
                  %15 : Tensor = mylib::use(%3, %9, %10, %11, %11, %13, %13)
                  -> (%15)
              return (%4)
        "#]]
        .assert_eq(&dump(&g));
        assert!(!run(pool, &mut g));
    }

    #[test]
    fn keeps_tensor_constants_apart() {
        let mut g = Graph::new();
        let lit = || {
            AttrValue::Tensor(TensorLiteral {
                dtype: ScalarType::Float,
                sizes: vec![1],
                data: Some(vec![0u8, 0, 128, 63].into()),
                printed: None,
                handle: None,
            })
        };
        let a = constant(&mut g, Type::tensor(), Some(lit()));
        let b = constant(&mut g, Type::tensor(), Some(lit()));
        let s = op(&mut g, "aten::add_", &[a, b], Type::tensor());
        g.register_output(s);
        g.register_output(b);
        assert!(!run(pool, &mut g));
        assert_eq!(g.nodes().len(), 3);
    }

    #[test]
    fn respects_the_rewrite_limit() {
        let mut g = Graph::new();
        let x = input(&mut g, "x", Type::tensor());
        let n = op(&mut g, "aten::neg", &[x], Type::tensor());
        let one = int(&mut g, 1);
        let one_again = int(&mut g, 1);
        let s = op(&mut g, "aten::add", &[n, x, one], Type::tensor());
        let s = op(&mut g, "aten::add", &[s, x, one_again], Type::tensor());
        g.register_output(s);
        // The one rewrite moves the first constant; the second is merged on the next run.
        assert!(run_limited(pool, &mut g, "constant-pooling", 1));
        assert_eq!(g.nodes().len(), 5);
        assert!(run(pool, &mut g));
        assert_eq!(g.nodes().len(), 4);
        assert!(!run(pool, &mut g));
    }
}
