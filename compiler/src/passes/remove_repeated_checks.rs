//! `remove-repeated-checks`: a check that raises on a condition already checked cannot raise.
//! `if c: raise ...` (nothing else in either branch) after an earlier such check of the same
//! value `c` that dominates it: when the later one runs, `c` is false, or the earlier one would
//! have raised. So it goes. (Raising in the else branch checks `c` is true, the same way.)
//!
//! Inlined modules repeat their input checks (each batch norm's `_check_input_dim`); once the
//! shape rules of `canonicalize` show they all read the model's input, one check remains.

use hashbrown::HashSet;

use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Value};

use super::{LogLevel, PassContext};

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let top = g.block();
    Ok(walk(g, top, &mut Known::default(), cx))
}

/// Conditions known at a point: false (a check raising when true passed) or true.
#[derive(Clone, Default)]
struct Known {
    falses: HashSet<Value>,
    trues: HashSet<Value>,
}

fn walk(g: &mut Graph, b: Block, known: &mut Known, cx: &mut PassContext) -> bool {
    let mut changed = false;
    for n in g.block_nodes(b).collect::<Vec<_>>() {
        if let Some((cond, raises_when)) = check(g, n) {
            let settled = if raises_when {
                known.falses.contains(&cond)
            } else {
                known.trues.contains(&cond)
            };
            if settled && cx.may_rewrite() {
                cx.log(LogLevel::Update, || {
                    format!("removed a repeated check of %{}", g.value_name(cond))
                });
                g.destroy(n);
                changed = true;
                continue;
            }
            if raises_when {
                known.falses.insert(cond);
            } else {
                known.trues.insert(cond);
            }
            continue;
        }
        for sub in g.node_blocks(n).to_vec() {
            // What is known around a block holds in it; what it learns stays in it.
            changed |= walk(g, sub, &mut known.clone(), cx);
        }
    }
    changed
}

/// `(c, true)` for `if c: raise`, `(c, false)` for `if c: pass else: raise`: an `If` with no
/// outputs, one branch empty and the other raising.
fn check(g: &Graph, n: Node) -> Option<(Value, bool)> {
    if g.kind(n) != sym::if_() || !g.node_outputs(n).is_empty() {
        return None;
    }
    let (&cond, blocks) = (g.node_inputs(n).first()?, g.node_blocks(n));
    let [then_b, else_b] = blocks else {
        return None;
    };
    let empty = |b: Block| g.block_nodes(b).next().is_none();
    let raises = |b: Block| {
        g.block_nodes(b)
            .any(|m| g.kind(m) == ember_dialects::Symbol::prim("RaiseException"))
    };
    if raises(*then_b) && empty(*else_b) {
        Some((cond, true))
    } else if raises(*else_b) && empty(*then_b) {
        Some((cond, false))
    } else {
        None
    }
}
