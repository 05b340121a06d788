//! prim operators that are built from their node: constants, tuples, lists, exceptions, casts.

use std::sync::Arc;

use ember_dialects::attr::{ConstValue, TensorLiteral};
use ember_dialects::symbol::sym;
use ember_dialects::types::Type;
use ember_dialects::{AttrValue, Graph, Node};

use super::registry::Registry;
use super::{pop, pop_n, Operation, Stack};
use crate::ivalue::IValue;
use crate::tensor::{DType, Device, Tensor};

pub fn register(r: &mut Registry) {
    r.add("prim::Constant", constant);
    r.add("prim::TupleConstruct", tuple_construct);
    r.add("prim::TupleUnpack", tuple_unpack);
    r.add("prim::TupleIndex", |_, _| Ok(op(tuple_index)));
    r.add("prim::ListConstruct", list_construct);
    r.add("prim::ListUnpack", list_unpack);
    r.add("prim::RaiseException", raise_exception);
    r.add("prim::Uninitialized", |_, _| {
        Ok(op(|s| Ok(s.push(IValue::Uninitialized))))
    });
    r.add("prim::unchecked_cast", |_, _| Ok(op(|_| Ok(()))));
    // Outside the executor (which records what passes) a profile node passes its input on;
    // the input-less counter does nothing.
    r.add("prim::profile", |_, _| Ok(op(|_| Ok(()))));
    // Outside the executor and compiled code (which run its kernel) a fusion group runs its
    // subgraph.
    r.add("prim::TensorExprGroup", tensor_expr_group);
    r.add("aten::__is__", |_, _| Ok(op(|s| is_op(s, false))));
    r.add("aten::__isnot__", |_, _| Ok(op(|s| is_op(s, true))));
}

fn op(f: impl Fn(&mut Stack) -> Result<(), String> + Send + Sync + 'static) -> Operation {
    Arc::new(f)
}

/// `prim::TensorExprGroup`: its subgraph, interpreted.
fn tensor_expr_group(g: &Graph, n: Node) -> Result<Operation, String> {
    match g.attr(n, sym::attr_subgraph()) {
        Some(AttrValue::Graph(body)) => interpreted_subgraph(body),
        _ => Err("prim::TensorExprGroup carries no subgraph".into()),
    }
}

/// An operation running `body` in the interpreter: its inputs are the top of the stack, and
/// its outputs replace them.
pub fn interpreted_subgraph(body: &Graph) -> Result<Operation, String> {
    let code = Arc::new(crate::interpreter::Code::new(body).map_err(|e| e.message)?);
    let count = body.inputs().len();
    Ok(op(move |s| {
        let first = s
            .len()
            .checked_sub(count)
            .ok_or("prim::TensorExprGroup: too few inputs")?;
        let inputs = s.split_off(first);
        let outputs = crate::interpreter::run(&code, inputs).map_err(|e| e.message)?;
        s.extend(outputs);
        Ok(())
    }))
}

/// `prim::Constant`: pushes its value, converted once when the code is built.
fn constant(g: &Graph, n: Node) -> Result<Operation, String> {
    let value = constant_value(g, n)?;
    Ok(op(move |s| {
        s.push(value.clone());
        Ok(())
    }))
}

/// The value of `prim::Constant` node `n`: its attribute's, or an enum member whose value the
/// node carries (see [`ENUM_VALUE_ATTR`]).
pub fn constant_value(g: &Graph, n: Node) -> Result<IValue, String> {
    let out_ty = g
        .node_outputs(n)
        .first()
        .map(|&v| g.ty(v).clone())
        .unwrap_or(Type::None);
    if let Some(member) = carried_enum_member(g, n) {
        return member;
    }
    match g.attr(n, sym::attr_value()) {
        None => Ok(IValue::None),
        Some(attr) => attr_to_ivalue(attr, &out_ty),
    }
}

/// The attribute with which a compiled model's graph carries an enum constant's member value
/// (`prim::Constant[value=__torch__.Color.RED, enum_value=1]`): such a graph runs without the
/// program's classes.
pub const ENUM_VALUE_ATTR: &str = "attr::enum_value";

/// The enum member a constant of an enum type carries with [`ENUM_VALUE_ATTR`]; `None` for
/// any other constant.
pub fn carried_enum_member(g: &Graph, n: Node) -> Option<Result<IValue, String>> {
    let out = *g.node_outputs(n).first()?;
    let Type::Enum(class_name) = g.ty(out) else {
        return None;
    };
    let carried = g.attr(n, ember_dialects::Symbol::new(ENUM_VALUE_ATTR))?;
    let text = match g.attr(n, sym::attr_value()) {
        Some(AttrValue::IValue(ConstValue::Opaque(text))) | Some(AttrValue::Str(text)) => text,
        _ => return None,
    };
    let Some(member) = text
        .strip_prefix(class_name.as_str())
        .and_then(|m| m.strip_prefix('.'))
    else {
        return Some(Err(format!(
            "enum constant '{text}' is not a member of {class_name}"
        )));
    };
    let value = match carried {
        AttrValue::Int(i) => IValue::Int(*i),
        AttrValue::Float(f) => IValue::Double(*f),
        AttrValue::Str(s) => IValue::str(s.clone()),
        other => return Some(Err(format!("enum constant '{text}': bad value {other:?}"))),
    };
    Some(Ok(IValue::Enum(Arc::new(crate::ivalue::EnumValue {
        class_name: class_name.clone(),
        name: member.to_string(),
        value,
    }))))
}

/// The IValue of a constant's attribute; `ty` (the output type) tells bools and devices
/// from ints and strings, as PyTorch stores them.
pub fn attr_to_ivalue(attr: &AttrValue, ty: &Type) -> Result<IValue, String> {
    Ok(match attr {
        AttrValue::Int(i) if *ty == Type::Bool => IValue::Bool(*i != 0),
        AttrValue::Int(i) => IValue::Int(*i),
        AttrValue::Float(f) => IValue::Double(*f),
        AttrValue::Complex(re, im) => IValue::Complex(Arc::new((*re, *im))),
        AttrValue::Str(s) if *ty == Type::Device => IValue::Device(parse_device(s)?),
        AttrValue::Str(s) => IValue::str(s.clone()),
        AttrValue::Tensor(t) => IValue::Tensor(literal_to_tensor(t)?),
        AttrValue::Ints(v) => IValue::list(v.iter().map(|&i| IValue::Int(i)).collect()),
        AttrValue::Floats(v) => IValue::list(v.iter().map(|&f| IValue::Double(f)).collect()),
        AttrValue::Strs(v) => IValue::list(v.iter().map(|s| IValue::str(s.clone())).collect()),
        AttrValue::IValue(c) => const_to_ivalue(c)?,
        other => {
            return Err(format!(
                "prim::Constant with a value of kind {other:?} cannot run"
            ))
        }
    })
}

pub fn const_to_ivalue(c: &ConstValue) -> Result<IValue, String> {
    Ok(match c {
        ConstValue::None => IValue::None,
        ConstValue::Bool(b) => IValue::Bool(*b),
        ConstValue::Int(i) => IValue::Int(*i),
        ConstValue::Float(f) => IValue::Double(*f),
        ConstValue::Complex(re, im) => IValue::Complex(Arc::new((*re, *im))),
        ConstValue::Str(s) => IValue::str(s.clone()),
        ConstValue::Device(d) => IValue::Device(parse_device(d)?),
        ConstValue::Tensor(t) => IValue::Tensor(literal_to_tensor(t)?),
        ConstValue::List(items) => IValue::list(
            items
                .iter()
                .map(const_to_ivalue)
                .collect::<Result<_, _>>()?,
        ),
        ConstValue::Tuple(items) => IValue::tuple(
            items
                .iter()
                .map(const_to_ivalue)
                .collect::<Result<_, _>>()?,
        ),
        ConstValue::Opaque(text) => super::opaque::opaque_to_ivalue(text)?,
    })
}

/// `cpu`, `cuda`, `cuda:1`.
pub fn parse_device(s: &str) -> Result<Device, String> {
    let (kind, index) = match s.split_once(':') {
        Some((k, i)) => (
            k,
            Some(
                i.parse::<i8>()
                    .map_err(|_| format!("invalid device string: '{s}'"))?,
            ),
        ),
        None => (s, None),
    };
    match kind {
        "cpu" => Ok(Device::Cpu),
        "cuda" => Ok(Device::Cuda(index.unwrap_or(0))),
        _ => Err(format!("invalid device string: '{s}'")),
    }
}

fn literal_to_tensor(t: &TensorLiteral) -> Result<Tensor, String> {
    // A constant made from a runtime tensor (a frozen weight) is that tensor, shared.
    if let Some(tensor) = t.handle.as_ref().and_then(|h| h.0.downcast_ref::<Tensor>()) {
        return Ok(tensor.clone());
    }
    let dtype = DType::from_scalar_type(t.dtype)
        .ok_or_else(|| format!("tensor constant of dtype {:?} is not supported", t.dtype))?;
    let data = t
        .data
        .as_ref()
        .ok_or("tensor constant whose data the graph text does not hold (<Tensor>) cannot run")?;
    let out = Tensor::zeros(&t.sizes, dtype).map_err(|e| e.message)?;
    if data.len() != out.numel() * dtype.size() {
        return Err(format!(
            "tensor constant holds {} bytes, its sizes {:?} need {}",
            data.len(),
            t.sizes,
            out.numel() * dtype.size()
        ));
    }
    // SAFETY: fresh contiguous storage of exactly data.len() bytes.
    unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), out.data_ptr(), data.len()) };
    Ok(out)
}

fn tuple_construct(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = g.node_inputs(n).len();
    Ok(op(move |s| {
        let items = pop_n(s, count)?;
        s.push(IValue::tuple(items));
        Ok(())
    }))
}

fn tuple_unpack(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = g.node_outputs(n).len();
    Ok(op(move |s| match pop(s)? {
        IValue::Tuple(items) if items.len() == count => {
            s.extend(items.iter().cloned());
            Ok(())
        }
        IValue::Tuple(items) => Err(format!(
            "cannot unpack a tuple of {} elements into {count}",
            items.len()
        )),
        other => Err(format!(
            "expected a tuple to unpack, got {}",
            other.kind_name()
        )),
    }))
}

fn tuple_index(s: &mut Stack) -> Result<(), String> {
    let index = pop(s)?.as_int().ok_or("tuple index must be an int")?;
    let IValue::Tuple(items) = pop(s)? else {
        return Err("expected a tuple".into());
    };
    let len = items.len() as i64;
    let i = if index < 0 { index + len } else { index };
    if i < 0 || i >= len {
        return Err("tuple index out of range".into());
    }
    s.push(items[i as usize].clone());
    Ok(())
}

fn list_construct(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = g.node_inputs(n).len();
    Ok(op(move |s| {
        let items = pop_n(s, count)?;
        s.push(IValue::list(items));
        Ok(())
    }))
}

fn list_unpack(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = g.node_outputs(n).len();
    Ok(op(move |s| match pop(s)? {
        IValue::List(l) => {
            let items = l.to_vec();
            if items.len() != count {
                return Err(format!(
                    "Expected {count} elements in a list but found {}",
                    items.len()
                ));
            }
            s.extend(items);
            Ok(())
        }
        other => Err(format!(
            "expected a list to unpack, got {}",
            other.kind_name()
        )),
    }))
}

/// `prim::RaiseException(str msg, str? cls=None)`: fails with the message, prefixed with the
/// exception class's name when the graph names one (`builtins.ValueError` -> `ValueError: msg`).
fn raise_exception(g: &Graph, n: Node) -> Result<Operation, String> {
    let has_class = g.node_inputs(n).len() == 2;
    Ok(op(move |s| {
        let class = if has_class {
            pop(s)?.as_str().map(str::to_string)
        } else {
            None
        };
        let message = match pop(s)? {
            IValue::Str(m) => m.to_string(),
            other => {
                return Err(format!(
                    "prim::RaiseException with a {} message",
                    other.kind_name()
                ))
            }
        };
        Err(match class {
            Some(c) => format!("{}: {message}", c.rsplit('.').next().unwrap_or(&c)),
            None => message,
        })
    }))
}

fn is_op(s: &mut Stack, negate: bool) -> Result<(), String> {
    let b = pop(s)?;
    let a = pop(s)?;
    s.push(IValue::Bool(a.is(&b) != negate));
    Ok(())
}
