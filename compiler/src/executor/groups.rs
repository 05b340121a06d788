//! The run-time side of fusion groups: a `prim::TensorExprGroup` runs its kernel compiled for
//! the group's specialization, or, where codegen refuses the group, its subgraph in the
//! interpreter. The group's inputs are on the stack; its outputs replace them.

use ember_dialects::symbol::sym;
use ember_dialects::{AttrValue, Graph, Node};
use ember_runtime::ops::Operation;

use crate::passes::{LogLevel, PassContext};

/// The subgraph a group node carries.
pub fn subgraph(g: &Graph, n: Node) -> Option<&Graph> {
    match g.attr(n, sym::attr_subgraph()) {
        Some(AttrValue::Graph(body)) => Some(body),
        _ => None,
    }
}

/// Whether `n` is a fusion group of the TensorExpr fuser.
pub fn is_group(g: &Graph, n: Node) -> bool {
    g.kind(n) == sym::tensor_expr_group() && subgraph(g, n).is_some()
}

/// The operation of group node `n`: its compiled kernel when `jit` holds and codegen takes it,
/// else its subgraph interpreted. The reason a kernel was not built goes to `EMBER_LOG`.
pub fn group_operation(
    g: &Graph,
    n: Node,
    jit: bool,
    cx: &PassContext,
) -> Result<Operation, String> {
    let body = subgraph(g, n).ok_or("prim::TensorExprGroup carries no subgraph")?;
    if jit {
        match super::jit::compile(body) {
            Ok(kernel) => return Ok(kernel),
            Err(why) => cx.log(LogLevel::Dump, || {
                format!(
                    "group %{} runs in the interpreter: {why}",
                    g.value_name(g.output(n, 0))
                )
            }),
        }
    }
    interpreted(body)
}

/// The group's subgraph run by the interpreter.
pub(super) fn interpreted(body: &Graph) -> Result<Operation, String> {
    ember_runtime::ops::prim::interpreted_subgraph(body)
}
