//! `specialize-profiled-types`: removes the `prim::profile` nodes of a profiled graph and types
//! each profiled value with what profiling saw (PyTorch's `RemoveProfileNodesAndSpecializeTypes`
//! in `tensorexpr_fuser.cpp`).
//!
//! Each use of a profiled value goes through its own `prim::profile[profiled_type=T]` node;
//! the uses now take the value itself. Where several uses saw different types, the types merge
//! (a size that differs becomes `*`, differing strides unknown, and so on). A use never run
//! (`profiled_type=Tensor`) and an optional value (`Tensor?`, which may have been None) add
//! nothing. The counter node `prim::profile()` goes too.
//!
//! The types are assumptions about the runs seen, not facts: only code behind the guards that
//! `guard-tensor-exprs` inserts may rely on them.

use ember_dialects::attr::AttrValue;
use ember_dialects::symbol::{sym, Symbol};
use ember_dialects::types::{merge_tensor_types, TensorType, Type};
use ember_dialects::{Graph, Node};

use super::{LogLevel, PassContext};

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    let mut changed = false;
    for n in g.nodes() {
        if g.kind(n) != sym::profile() {
            continue;
        }
        match g.node_inputs(n).len() {
            // The counter node the profiler appends.
            0 if g.node_outputs(n).is_empty() => {}
            1 if g.node_outputs(n).len() == 1 => specialize(g, n, cx)?,
            _ => {
                return Err(format!(
                    "{}prim::profile must have one input and one output (or neither)",
                    location(g, n)
                ))
            }
        }
        g.destroy(n);
        changed = true;
    }
    Ok(changed)
}

/// Replaces the uses of profile node `n` by its input and refines the input's type.
fn specialize(g: &mut Graph, n: Node, cx: &mut PassContext) -> Result<(), String> {
    let (input, output) = (g.input(n, 0), g.output(n, 0));
    g.replace_all_uses_with(output, input);
    let profiled = match g.attr(n, Symbol::attr("profiled_type")) {
        Some(AttrValue::Type(Type::Tensor(t))) => t.clone(),
        Some(AttrValue::Type(other)) => {
            return Err(format!(
                "{}prim::profile: profiled_type must be a tensor type, found {other}",
                location(g, n)
            ))
        }
        Some(_) => {
            return Err(format!(
                "{}prim::profile: profiled_type must be a type",
                location(g, n)
            ))
        }
        None => return Ok(()),
    };
    // A use that never ran saw nothing.
    if profiled == TensorType::default() {
        return Ok(());
    }
    let current = match g.ty(input) {
        Type::Tensor(t) => t.clone(),
        // An optional tensor may be None at run time: PyTorch leaves it unspecialized.
        Type::Optional(_) => return Ok(()),
        other => {
            return Err(format!(
                "{}prim::profile of a value of type {other}: only tensors are profiled",
                location(g, n)
            ))
        }
    };
    let merged = if current == TensorType::default() {
        profiled
    } else {
        merge_tensor_types(&current, &profiled)
    };
    cx.log(LogLevel::Update, || {
        format!(
            "%{} : {}",
            g.value_name(input),
            Type::Tensor(merged.clone())
        )
    });
    g.set_ty(input, Type::Tensor(merged));
    Ok(())
}

/// `file:line:col: ` of `n` when it has a source range.
fn location(g: &Graph, n: Node) -> String {
    g.source_range(n)
        .map(|r| format!("{r}: "))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use ember_dialects::parse::parse_graph;

    use super::*;
    use crate::passes::testing;

    fn specialize(text: &str) -> String {
        let mut g = parse_graph(text).unwrap();
        testing::run(run, &mut g);
        testing::dump(&g)
    }

    #[test]
    fn differing_uses_merge_and_unseen_uses_add_nothing() {
        let out = specialize(
            "graph(%a : Tensor, %o : Tensor?):
  %1 : Tensor = prim::profile[profiled_type=Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu), seen_none=0](%a)
  %2 : Tensor = prim::profile[profiled_type=Float(4, 3, strides=[3, 1], requires_grad=0, device=cpu), seen_none=0](%a)
  %3 : Tensor = prim::profile[profiled_type=Tensor, seen_none=0](%a)
  %4 : Tensor? = prim::profile[profiled_type=Float(2, strides=[1], requires_grad=0, device=cpu), seen_none=1](%o)
  %5 : (Tensor, Tensor, Tensor, Tensor?) = prim::TupleConstruct(%1, %2, %3, %4)
   = prim::profile()
  return (%5)
",
        );
        assert_eq!(
            out,
            "graph(%a : Float(*, 3, strides=[3, 1], requires_grad=0, device=cpu),
      %o : Tensor?):
  %5 : (Tensor, Tensor, Tensor, Tensor?) = prim::TupleConstruct(%a, %a, %a, %o)
  return (%5)
"
        );
    }

    #[test]
    fn a_profile_of_a_non_tensor_is_an_error() {
        let mut g = parse_graph(
            "graph(%a : int):
  %1 : int = prim::profile[profiled_type=Float(2, strides=[1], requires_grad=0, device=cpu)](%a)
  return (%1)
",
        )
        .unwrap();
        let err = run(&mut g, &mut PassContext::unlimited("test")).unwrap_err();
        assert!(err.contains("only tensors are profiled"), "{err}");
    }
}
