//! Nodes the interpreter runs as register instructions of their own instead of a generic
//! operation: the scalar operators (ints, floats, bools) where the graph's types say every
//! operand is one. The instruction computes exactly what the registry's operation does (see
//! ops/builtins/scalar.rs), so the choice is only about speed.

use ember_dialects::types::Type;
use ember_dialects::{Graph, Node};

use crate::ops::builtins::scalar::{BinOp, UnOp};

/// A node's register form.
#[derive(Copy, Clone, Debug)]
pub(super) enum Special {
    Bin(BinOp),
    Un(UnOp),
}

fn is_number(ty: &Type) -> bool {
    matches!(ty, Type::Int | Type::Float)
}

pub(super) fn special(g: &Graph, n: Node) -> Option<Special> {
    if g.node_outputs(n).len() != 1 || !g.node_blocks(n).is_empty() {
        return None;
    }
    let kind = g.kind(n);
    let inputs = g.node_inputs(n);
    match *inputs {
        [a, b] => {
            let op = BinOp::of_kind(kind)?;
            let (ta, tb) = (g.ty(a), g.ty(b));
            let accepted = match (ta, tb) {
                (Type::Int, Type::Int) => true,
                (Type::Bool, Type::Bool) => op.takes_bools(),
                _ => is_number(ta) && is_number(tb) && op.takes_floats(),
            };
            // `x == x` on one value is folded by the registry (as PyTorch's executor does).
            let same_operand = a == b && matches!(op, BinOp::Eq | BinOp::Ne);
            (accepted && !same_operand).then_some(Special::Bin(op))
        }
        [a] => {
            let op = UnOp::of_kind(kind)?;
            let accepted = match op {
                UnOp::Neg => is_number(g.ty(a)),
                UnOp::Not => *g.ty(a) == Type::Bool,
                UnOp::ToInt | UnOp::ToFloat | UnOp::ToBool => {
                    is_number(g.ty(a)) || *g.ty(a) == Type::Bool
                }
            };
            accepted.then_some(Special::Un(op))
        }
        _ => None,
    }
}

/// Whether `op` gives a bool, so a branch can test it without storing it.
pub(super) fn is_comparison(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
    )
}
