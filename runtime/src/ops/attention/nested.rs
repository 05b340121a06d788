//! The nested-tensor questions scripted `nn.TransformerEncoder` asks before its fast path.
//! Ember has no nested tensors: `prim::is_nested` is always false, the left-alignment test of a
//! padding mask is answered from the mask, and the two conversions to and from nested tensors
//! refuse when they run (their graphs still load, for the branches that do not take them).

use std::sync::Arc;

use ember_dialects::{Graph, Node};

use super::super::args::{op_n, tensor};
use super::super::registry::Registry;
use super::super::{pop_n, Operation, Stack};
use crate::ivalue::IValue;
use crate::tensor::{DType, Tensor};

pub fn register(r: &mut Registry) {
    r.add("prim::is_nested", |_, _| {
        Ok(Arc::new(|s: &mut Stack| {
            pop_n(s, 1)?;
            s.push(IValue::Bool(false));
            Ok(())
        }) as Operation)
    });
    r.add("aten::_nested_tensor_from_mask_left_aligned", |g, n| {
        let count = g.node_inputs(n).len();
        Ok(op_n(count, |a| {
            left_aligned(&tensor(&a[0])?, &tensor(&a[1])?).map(IValue::Bool)
        }))
    });
    r.add("aten::_nested_tensor_from_mask", refuse);
    r.add("aten::to_padded_tensor", refuse);
}

/// Builds an operation that says, when it runs, that the node needs nested tensors.
fn refuse(g: &Graph, n: Node) -> Result<Operation, String> {
    let kind = g.kind(n).to_string();
    let count = g.node_inputs(n).len();
    Ok(Arc::new(move |s: &mut Stack| {
        pop_n(s, count)?;
        Err(format!(
            "{kind} makes or reads a nested tensor, which Ember does not have (for \
             nn.TransformerEncoder pass enable_nested_tensor=False)"
        ))
    }))
}

/// `_nested_tensor_from_mask_left_aligned(t, mask)`: whether every row of the `[N, L]` keep-mask
/// is a run of `true` followed only by `false` (padding only at the end).
fn left_aligned(t: &Tensor, mask: &Tensor) -> Result<bool, String> {
    if mask.dtype() != DType::Bool {
        return Err(format!(
            "Expected mask to be of ScalarType Bool, but got {} instead.",
            mask.dtype().scalar_type_name()
        ));
    }
    if mask.dim() != 2 {
        return Err("Padding mask should be 2D".into());
    }
    if t.dim() != 3 {
        return Err("Input should be a 3D tensor, N * L * D".into());
    }
    let (n, l) = (mask.sizes()[0], mask.sizes()[1]);
    if t.sizes()[0] != n || t.sizes()[1] != l {
        return Err("Mask size should match input size".into());
    }
    let flags = mask.to_vec::<bool>();
    if l == 0 {
        return Ok(true);
    }
    Ok(flags.chunks(l as usize).all(|row| {
        let kept = row.iter().filter(|&&b| b).count();
        let first_false = row.iter().position(|&b| !b).unwrap_or(row.len());
        kept == first_false
    }))
}
