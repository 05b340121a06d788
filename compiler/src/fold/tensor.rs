//! Tensor constants: runtime tensors held by `prim::Constant` nodes (frozen weights, folded
//! results), and folding tensor ops whose inputs are all constants by running them in the
//! runtime.
//!
//! A folded op runs its real runtime kernel, so the constant is what running the graph would
//! have computed. Only ops whose result size is bounded by their inputs' are run here (an
//! elementwise op with its broadcast shape, views and shape changes, reductions, `cat`,
//! dtype conversions), and only up to a size limit, so hostile constants cannot make the
//! compiler allocate without bound.

use std::sync::Arc;

use ember_dialects::attr::{AttrValue, ConstValue, Handle, TensorLiteral};
use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Node, Type, Value};
use ember_runtime::ivalue::IValue;
use ember_runtime::ops::prim::attr_to_ivalue;
use ember_runtime::ops::registry::registry;
use ember_runtime::tensor::Tensor;

/// Tensors of at most this many elements also keep their values in the literal, so the graph
/// prints them as PyTorch does (`{0.5}`, small tensors in full).
const PRINTED_ELEMENTS: usize = 16;

/// The literal of a constant holding `t`: the tensor itself (shared, no copy, unless it must
/// be made contiguous: a constant's type says its strides are), and its values when it is
/// small enough to print.
pub fn tensor_constant(t: &Tensor) -> TensorLiteral {
    let mut t = t.contiguous().unwrap_or_else(|_| t.clone());
    // A constant never requires grad, as its type says (PyTorch refuses code constants that
    // do): a frozen parameter becomes a new tensor object over the same storage.
    if t.meta().requires_grad {
        let mut meta = t.meta().clone();
        meta.requires_grad = false;
        t = Tensor::from_meta(meta).unwrap_or(t);
    }
    let data = (t.numel() <= PRINTED_ELEMENTS).then(|| {
        let nbytes = t.numel() * t.dtype().size();
        // SAFETY: a contiguous tensor's elements are `nbytes` initialized bytes from data_ptr,
        // within its storage.
        let bytes = unsafe { std::slice::from_raw_parts(t.data_ptr() as *const u8, nbytes) };
        Arc::<[u8]>::from(bytes)
    });
    TensorLiteral {
        dtype: t.dtype().scalar_type(),
        sizes: t.sizes().to_vec(),
        data,
        printed: None,
        handle: Some(Handle(Arc::new(t))),
    }
}

/// The value of `v` as the runtime sees it, when `v` is a constant the runtime can make
/// (tensors included).
pub fn constant_ivalue(g: &Graph, v: Value) -> Option<IValue> {
    let n = g.producer(v);
    if g.kind(n) != sym::constant() || g.node_outputs(n).len() != 1 {
        return None;
    }
    match g.attr(n, sym::attr_value()) {
        None => matches!(g.ty(v), Type::None | Type::Optional(_)).then_some(IValue::None),
        Some(attr) => attr_to_ivalue(attr, g.ty(v)).ok(),
    }
}

/// The constant form of a runtime value (tensors as [`tensor_constant`]s).
pub fn const_of_ivalue(v: &IValue) -> Option<ConstValue> {
    Some(match v {
        IValue::None => ConstValue::None,
        IValue::Bool(b) => ConstValue::Bool(*b),
        IValue::Int(i) => ConstValue::Int(*i),
        IValue::Double(f) => ConstValue::Float(*f),
        IValue::Str(s) => ConstValue::Str(s.to_string()),
        IValue::Tensor(t) => ConstValue::Tensor(tensor_constant(t)),
        IValue::Tuple(items) => {
            ConstValue::Tuple(items.iter().map(const_of_ivalue).collect::<Option<_>>()?)
        }
        IValue::List(l) => {
            let items = l.0.read().unwrap_or_else(|e| e.into_inner());
            ConstValue::List(items.iter().map(const_of_ivalue).collect::<Option<_>>()?)
        }
        _ => return None,
    })
}

/// Inserts a constant holding tensor `t` before `before`, typed as PyTorch types it.
pub fn insert_tensor_constant(g: &mut Graph, before: Node, t: &Tensor) -> Value {
    let literal = tensor_constant(t);
    let ty = Type::Tensor(super::constant::literal_type(&literal));
    let n = g.create(sym::constant(), &[], 1);
    g.set_attr(n, sym::attr_value(), AttrValue::Tensor(literal));
    let out = g.output(n, 0);
    g.set_ty(out, ty);
    g.insert_before(n, before);
    out
}

/// Runs tensor op `n` on its constant `inputs` in the runtime, when its result size is
/// bounded by its inputs' and at most `max_elements`. `None` when it cannot be folded.
pub fn fold_tensor_op(
    g: &Graph,
    n: Node,
    inputs: &[IValue],
    max_elements: usize,
) -> Option<Vec<IValue>> {
    let bound = result_bound(g, n, inputs)?;
    if bound > max_elements {
        return None;
    }
    let operation = registry().build(g, n).ok()?;
    let mut stack = inputs.to_vec();
    operation(&mut stack).ok()?;
    let outputs = g.node_outputs(n).len();
    if stack.len() != outputs {
        return None;
    }
    Some(stack)
}

/// Ops whose result has as many elements as their (broadcast) tensor inputs.
const ELEMENTWISE: &[&str] = &[
    "add",
    "sub",
    "mul",
    "div",
    "neg",
    "abs",
    "pow",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "sigmoid",
    "tanh",
    "relu",
    "clamp",
    "clamp_min",
    "clamp_max",
    "reciprocal",
    "sign",
    "floor",
    "ceil",
    "round",
    "trunc",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "where",
    "maximum",
    "minimum",
    "remainder",
    "fmod",
    "rsub",
    "to",
    "type_as",
    "contiguous",
    "clone",
    "detach",
    "float",
    "double",
    "half",
    "int",
    "long",
    "bool",
    "masked_fill",
    "hardtanh",
    "erf",
    "sin",
    "cos",
    "_weight_norm",
];

/// Ops whose result has at most as many elements as their first input.
const SHRINKING: &[&str] = &[
    "t",
    "transpose",
    "permute",
    "reshape",
    "view",
    "flatten",
    "squeeze",
    "unsqueeze",
    "select",
    "slice",
    "narrow",
    "chunk",
    "split",
    "unbind",
    "sum",
    "mean",
    "amax",
    "amin",
    "max",
    "min",
    "prod",
    "numpy_T",
    "mT",
    "expand_as",
    "view_as",
    "reshape_as",
    "size",
    "dim",
    "numel",
    "item",
    "__getitem__",
    "len",
];

/// An upper bound of the elements the op makes, from its tensor inputs; `None` for ops that
/// are not folded.
fn result_bound(g: &Graph, n: Node, inputs: &[IValue]) -> Option<usize> {
    let kind = g.kind(n);
    if !kind.is_aten() {
        return None;
    }
    let name = kind.unqualified();
    let tensors: Vec<&Tensor> = inputs.iter().filter_map(IValue::as_tensor).collect();
    let first = tensors.first()?;
    if ELEMENTWISE.contains(&name) {
        return broadcast_numel(&tensors);
    }
    if SHRINKING.contains(&name) {
        return Some(first.numel());
    }
    if matches!(name, "cat" | "stack") {
        let IValue::List(list) = inputs.first()? else {
            return None;
        };
        let items = list.0.read().unwrap_or_else(|e| e.into_inner());
        return items
            .iter()
            .try_fold(0usize, |acc, v| acc.checked_add(v.as_tensor()?.numel()));
    }
    None
}

/// The element count of the broadcast of `tensors`' shapes.
fn broadcast_numel(tensors: &[&Tensor]) -> Option<usize> {
    let rank = tensors.iter().map(|t| t.dim()).max()?;
    let mut total = 1usize;
    for i in 0..rank {
        let mut size = 1i64;
        for t in tensors {
            let sizes = t.sizes();
            let offset = rank - sizes.len();
            if i >= offset {
                let s = sizes[i - offset];
                if s != 1 {
                    size = s;
                }
            }
        }
        total = total.checked_mul(usize::try_from(size).ok()?)?;
    }
    Some(total)
}
