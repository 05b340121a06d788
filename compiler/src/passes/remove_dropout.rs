//! `remove-dropout`: dropout that does not train is the identity (PyTorch's `removeDropout`
//! on frozen graphs): `aten::dropout(x, p, False)` and its feature and alpha variants, in
//! place or not, are replaced by `x`.

use ember_dialects::{Graph, Node};

use super::{LogLevel, PassContext};
use crate::fold::constant_bool;

const DROPOUTS: &[&str] = &[
    "dropout",
    "dropout_",
    "feature_dropout",
    "feature_dropout_",
    "alpha_dropout",
    "alpha_dropout_",
    "feature_alpha_dropout",
    "feature_alpha_dropout_",
];

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let mut changed = false;
    for n in g.nodes() {
        if !is_eval_dropout(g, n) || !cx.may_rewrite() {
            continue;
        }
        let (x, out) = (g.input(n, 0), g.output(n, 0));
        cx.log(LogLevel::Update, || {
            format!("removed {} (%{})", g.kind(n), g.value_name(out))
        });
        g.replace_all_uses_with(out, x);
        g.destroy(n);
        changed = true;
    }
    Ok(changed)
}

/// `dropout(x, p, train)` with `train` the constant False.
fn is_eval_dropout(g: &Graph, n: Node) -> bool {
    let kind = g.kind(n);
    kind.is_aten()
        && DROPOUTS.contains(&kind.unqualified())
        && g.node_inputs(n).len() == 3
        && g.node_outputs(n).len() == 1
        && constant_bool(g, g.input(n, 2)) == Some(false)
}
