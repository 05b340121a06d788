//! Nodes the interpreter runs as register instructions of their own instead of a generic
//! operation: the scalar operators (ints, floats, bools) where the graph's types say every
//! operand is one, a range's elements, and the list builtins of loops (`len`, `l[i]`)
//! called directly. The instruction computes exactly what the registry's operation does (see
//! ops/builtins/scalar.rs), so the choice is only about speed.

use ember_dialects::types::Type;
use ember_dialects::{Graph, Node};

use crate::ivalue::IValue;
use crate::ops::builtins::list;
use crate::ops::builtins::scalar::{BinOp, UnOp};

/// A builtin on one value.
pub type Unary = fn(&IValue) -> Result<IValue, String>;
/// A builtin on two values.
pub type Binary = fn(&IValue, &IValue) -> Result<IValue, String>;

/// A node's register form.
#[derive(Copy, Clone, Debug)]
pub(super) enum Special {
    Bin(BinOp),
    Un(UnOp),
    /// A builtin of the registry on one or two values, called directly.
    Call1(Unary),
    Call2(Binary),
    /// `aten::__derive_index(index, start, step)`.
    RangeElement,
}

fn is_list(ty: &Type) -> bool {
    matches!(ty, Type::List(_))
}

fn is_sequence(ty: &Type) -> bool {
    matches!(ty, Type::List(_) | Type::Tuple(_) | Type::AnyTuple)
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
    match (kind.as_str(), inputs) {
        ("aten::len", &[a]) if is_sequence(g.ty(a)) => return Some(Special::Call1(list::len)),
        ("aten::__getitem__", &[a, b]) if is_list(g.ty(a)) && *g.ty(b) == Type::Int => {
            return Some(Special::Call2(list::get))
        }
        ("aten::__derive_index", &[a, b, c])
            if [a, b, c].iter().all(|&v| *g.ty(v) == Type::Int) =>
        {
            return Some(Special::RangeElement)
        }
        _ => {}
    }
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
