//! `remove-mutation`: in-place ops on values nothing else can observe become their functional
//! forms, after PyTorch's `passes/remove_mutation.cpp`.
//!
//! - Tensors: `y = x.add_(z)` where `x` is a new tensor (made by a node whose inputs cannot
//!   contain it, with no blocks or side effects) becomes `y = aten::add(x, z)`, and the uses of
//!   `x` after it use `y`. Like PyTorch, the creation of `x` must be movable right before the
//!   write without crossing anything that reads or writes `x` (alias analysis decides), so
//!   every read of the old `x` comes first. `zero_` and `fill_` become `zeros_like` and
//!   `full_like`. An `x` that is an `If` output made fresh in both branches counts too.
//! - Lists: `l = [a]; l.append(b)` becomes `l = [a, b]` under the same condition.
//!
//! Where PyTorch rewrites any in-place op, Ember rewrites only when the functional form is known
//! to give the same tensor: elementwise ops (the functional result has `x`'s shape) on a
//! floating `x` whose dtype is known, with every tensor operand of `x`'s dtype and a shape known
//! to broadcast into `x`'s. Otherwise an in-place op that PyTorch would reject (an `int` tensor
//! taking a float result, an operand broadcasting `x` larger) would run as a functional op that
//! succeeds with another answer.

use ember_dialects::symbol::sym;
use ember_dialects::types::{Dim, ScalarType, TensorType};
use ember_dialects::{Graph, Node, Symbol, Type, Value, ValueDef};

use super::{LogLevel, PassContext};
use crate::analysis::alias::{has_side_effects, AliasDb};

/// In-place elementwise ops whose functional form (the name without `_`) computes the same
/// values into a new tensor of `self`'s shape.
const ELEMENTWISE: &[&str] = &[
    "abs",
    "acos",
    "asin",
    "atan",
    "ceil",
    "cos",
    "cosh",
    "erf",
    "erfc",
    "exp",
    "exp2",
    "expm1",
    "floor",
    "frac",
    "log",
    "log10",
    "log1p",
    "log2",
    "neg",
    "reciprocal",
    "relu",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "tan",
    "tanh",
    "trunc",
    "hardsigmoid",
    "hardswish",
    "silu",
    "mish",
    "relu6",
    "gelu",
    "elu",
    "selu",
    "celu",
    "leaky_relu",
    "hardtanh",
    "clamp",
    "clamp_min",
    "clamp_max",
    "threshold",
    "nan_to_num",
    "logit",
    "add",
    "sub",
    "mul",
    "div",
    "pow",
    "remainder",
    "fmod",
    "atan2",
    "floor_divide",
    "true_divide",
    "lerp",
    "addcmul",
    "addcdiv",
    "masked_fill",
];

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let mut changed = false;
    let candidates: Vec<Node> = g
        .nodes()
        .into_iter()
        .filter(|&n| g.kind(n) == Symbol::aten("append") || functional_kind(g, n).is_some())
        .collect();
    // A rewrite updates the db as PyTorch's pass does (a failed attempt at most moves a node,
    // which changes no alias).
    let mut db = AliasDb::new(g);
    for n in candidates {
        if !g.is_alive(n) {
            continue;
        }
        if !cx.may_rewrite() {
            break;
        }
        changed |= if g.kind(n) == Symbol::aten("append") {
            remove_list_mutation(g, &mut db, n, cx)
        } else {
            remove_tensor_mutation(g, &mut db, n, cx)
        };
    }
    Ok(changed)
}

/// `l.append(v)` right after `l = [...]` (nothing between them touching `l`): `v` joins the
/// construction.
fn remove_list_mutation(g: &mut Graph, db: &mut AliasDb, n: Node, cx: &mut PassContext) -> bool {
    let (Some(&list), Some(&item)) = (g.node_inputs(n).first(), g.node_inputs(n).get(1)) else {
        return false;
    };
    let construct = g.producer(list);
    if g.kind(construct) != sym::list_construct() || g.node_outputs(n).len() != 1 {
        return false;
    }
    if !new_memory_location(g, db, list) || !db.move_before_topologically_valid(g, construct, n) {
        return false;
    }
    cx.log(LogLevel::Update, || {
        format!(
            "folded aten::append into the construction of %{}",
            g.value_name(list)
        )
    });
    g.add_node_input(construct, item);
    let out = g.output(n, 0);
    g.replace_all_uses_with(out, list);
    db.forget_writes(n);
    g.destroy(n);
    true
}

fn remove_tensor_mutation(g: &mut Graph, db: &mut AliasDb, n: Node, cx: &mut PassContext) -> bool {
    let Some(functional) = functional_kind(g, n) else {
        return false;
    };
    let always_same = matches!(g.kind(n).unqualified(), "zero_" | "fill_");
    if !writes_only_self(g, db, n) || !(always_same || same_result(g, n)) {
        return false;
    }
    let x = g.input(n, 0);
    if !make_creation_atomic(g, db, x, n) {
        return false;
    }
    let kind = g.kind(n);
    let inputs: Vec<Value> = if kind == Symbol::aten("zero_") {
        // zeros_like(self, dtype, layout, device, pin_memory, memory_format)
        let none = none_constant(g, n);
        vec![x, none, none, none, none, none]
    } else if kind == Symbol::aten("fill_") {
        let none = none_constant(g, n);
        vec![x, g.input(n, 1), none, none, none, none, none]
    } else {
        g.node_inputs(n).to_vec()
    };
    let new = g.create(functional, &inputs, 1);
    g.insert_before(new, n);
    let out = g.output(new, 0);
    g.set_ty(out, g.ty(g.output(n, 0)).clone());
    g.set_source_range(new, g.source_range(n).cloned());
    if ember_dialects::catalogue::resolve_node(g, new).is_err() {
        g.destroy(new);
        return false;
    }
    cx.log(LogLevel::Update, || {
        format!(
            "{} on %{} became {}",
            kind,
            g.value_name(x),
            functional.as_str()
        )
    });
    g.replace_all_uses_after_node_with(n, x, out);
    let old = g.output(n, 0);
    g.replace_all_uses_with(old, out);
    db.value_took_over(x, out);
    db.forget_writes(n);
    g.destroy(n);
    true
}

/// The functional op an in-place `n` becomes, if `n` is one this pass knows.
fn functional_kind(g: &Graph, n: Node) -> Option<Symbol> {
    let kind = g.kind(n);
    if !kind.is_aten() || g.node_outputs(n).len() != 1 || g.node_inputs(n).is_empty() {
        return None;
    }
    match kind.unqualified() {
        "zero_" => return Some(Symbol::aten("zeros_like")),
        "fill_" if g.node_inputs(n).len() == 2 && !g.ty(g.input(n, 1)).is_tensor() => {
            return Some(Symbol::aten("full_like"))
        }
        _ => {}
    }
    let base = kind.unqualified().strip_suffix('_')?;
    ELEMENTWISE.contains(&base).then(|| Symbol::aten(base))
}

/// PyTorch's check that an in-place op writes its first input and nothing else.
fn writes_only_self(g: &Graph, db: &AliasDb, n: Node) -> bool {
    let inputs = g.node_inputs(n);
    db.writes_to_alias(g, n, &inputs[..1]) && !db.writes_to_alias(g, n, &inputs[1..])
}

/// Whether the functional op gives exactly the in-place result: `self` a floating tensor of
/// known dtype, every other tensor operand of that dtype (a bool mask for `masked_fill`) with
/// a shape that broadcasts into `self`'s.
fn same_result(g: &Graph, n: Node) -> bool {
    let Type::Tensor(this) = g.ty(g.input(n, 0)) else {
        return false;
    };
    let Some(dtype) = this.dtype else {
        return false;
    };
    if !is_floating(dtype) {
        return false;
    }
    let is_mask = g.kind(n) == Symbol::aten("masked_fill_");
    g.node_inputs(n)[1..]
        .iter()
        .enumerate()
        .all(|(i, &v)| match g.ty(v) {
            Type::Tensor(other) => {
                let want = if is_mask && i == 0 {
                    ScalarType::Bool
                } else {
                    dtype
                };
                other.dtype == Some(want) && broadcasts_into(other, this)
            }
            Type::Optional(inner) if inner.is_tensor() => false,
            _ => true,
        })
}

fn is_floating(t: ScalarType) -> bool {
    matches!(
        t,
        ScalarType::Float | ScalarType::Double | ScalarType::Half | ScalarType::BFloat16
    )
}

/// Whether `from`'s known shape broadcasts into `into`'s known shape without growing it.
fn broadcasts_into(from: &TensorType, into: &TensorType) -> bool {
    let (Some(a), Some(b)) = (&from.sizes, &into.sizes) else {
        return false;
    };
    if a.len() > b.len() {
        return false;
    }
    a.iter()
        .rev()
        .zip(b.iter().rev())
        .all(|(x, y)| match (x, y) {
            (Dim::Known(1), _) => true,
            (Dim::Known(p), Dim::Known(q)) => p == q,
            _ => false,
        })
}

/// PyTorch's `newMemoryLocation`: `v` is made by a plain node (no blocks, subgraph or side
/// effects, not a graph input) whose inputs cannot contain it. A list construction always
/// makes a new list (its elements are not the list).
fn new_memory_location(g: &Graph, db: &AliasDb, v: Value) -> bool {
    let ValueDef::Output(n, _) = g.value_def(v) else {
        return false;
    };
    let may_alias_inputs =
        g.kind(n) != sym::list_construct() && db.may_contain_alias(g.node_inputs(n), &[v]);
    g.node_blocks(n).is_empty()
        && !g.has_attr(n, sym::attr_subgraph())
        && !has_side_effects(g, n)
        && !may_alias_inputs
}

/// Makes the creation of `x` and its write by `n` adjacent (so every read of the old `x`
/// comes before): `x`'s node moves right before `n`, or for an `If` output made fresh in both
/// branches (and used nowhere else), the `If` does.
fn make_creation_atomic(g: &mut Graph, db: &AliasDb, x: Value, n: Node) -> bool {
    let ValueDef::Output(producer, offset) = g.value_def(x) else {
        return false;
    };
    if g.owning_block(producer) != g.owning_block(n) {
        return false;
    }
    if new_memory_location(g, db, x) {
        return db.move_before_topologically_valid(g, producer, n);
    }
    if g.kind(producer) != sym::if_() {
        return false;
    }
    let branches = g.node_blocks(producer).to_vec();
    let fresh_in_all = branches.iter().all(|&b| {
        let v = g.block_outputs(b)[offset];
        g.uses(v).len() == 1 && new_memory_location(g, db, v)
    });
    fresh_in_all && db.move_before_topologically_valid(g, producer, n)
}

fn none_constant(g: &mut Graph, before: Node) -> Value {
    let c = g.create(sym::constant(), &[], 1);
    g.insert_before(c, before);
    let v = g.output(c, 0);
    g.set_ty(v, Type::None);
    v
}
