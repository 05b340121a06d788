//! The small prim ops around Python values: `print`, `warnings.warn`, Optional unwrapping,
//! `isinstance` checks, device queries, enums, `torch.jit.is_scripting()`, grad and autocast
//! mode queries.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use ember_dialects::symbol::Symbol;
use ember_dialects::types::Type;
use ember_dialects::{AttrValue, Graph, Node};

use super::display::write_value;
use super::{builtin, string, unary};
use crate::ivalue::IValue;
use crate::ops::registry::Registry;
use crate::ops::{pop, pop_n, Operation, Stack};
use crate::tensor::Device;

pub fn register(r: &mut Registry) {
    r.add("prim::Print", print);
    r.add("prim::isinstance", isinstance);
    builtin!(r, "aten::_print", |_, _, _| Some(
        Arc::new(|s: &mut Stack| {
            let v = pop(s)?;
            emit_stdout(&format!("{}\n", string(&v)?));
            Ok(())
        }) as Operation
    ));
    builtin!(r, "aten::warn", |_, _, _| Some(warn()));
    builtin!(r, "aten::_unwrap_optional", |_, _, _| Some(unary(
        |v| match v {
            IValue::None => Err("Unwrapping null optional".into()),
            other => Ok(other.clone()),
        }
    )));
    builtin!(r, "prim::unchecked_unwrap_optional", |_, _, _| Some(
        Arc::new(|_: &mut Stack| Ok(())) as Operation
    ));
    builtin!(r, "aten::is_scripting", |_, _, _| Some(
        Arc::new(|s: &mut Stack| {
            s.push(IValue::Bool(true));
            Ok(())
        }) as Operation
    ));
    // Ember runs models for inference only, as under `torch.inference_mode()`: no gradient
    // recording and no autocast (scripted nn.MultiheadAttention asks both).
    for query in ["aten::is_grad_enabled", "aten::is_autocast_enabled"] {
        builtin!(r, query, |_, _, _| Some(Arc::new(|s: &mut Stack| {
            s.push(IValue::Bool(false));
            Ok(())
        }) as Operation));
    }
    builtin!(r, "prim::type", |_, _, _| Some(unary(|d| match d {
        IValue::Device(Device::Cpu) => Ok(IValue::str("cpu")),
        IValue::Device(Device::Cuda(_)) => Ok(IValue::str("cuda")),
        other => Err(format!("expected a Device, got {}", other.kind_name())),
    })));
    builtin!(r, "prim::index", |_, _, _| Some(unary(|d| match d {
        IValue::Device(Device::Cpu) => Ok(IValue::None),
        IValue::Device(Device::Cuda(i)) => Ok(IValue::Int(*i as i64)),
        other => Err(format!("expected a Device, got {}", other.kind_name())),
    })));
    builtin!(r, "aten::device", |o, _, _| Some(if o == "with_index" {
        super::binary(|t, i| {
            let device = format!("{}:{}", string(t)?, super::int(i)?);
            Ok(IValue::Device(crate::ops::prim::parse_device(&device)?))
        })
    } else {
        unary(|t| Ok(IValue::Device(crate::ops::prim::parse_device(string(t)?)?)))
    }));
    // Grad mode (`torch.no_grad()`'s __enter__/__exit__): Ember computes no gradients, but
    // the flag reads back what was set, per thread, as PyTorch's thread-local GradMode.
    builtin!(r, "aten::is_grad_enabled", |_, _, _| Some(
        Arc::new(|s: &mut Stack| {
            s.push(IValue::Bool(GRAD_ENABLED.with(|g| g.get())));
            Ok(())
        }) as Operation
    ));
    builtin!(r, "aten::set_grad_enabled", |_, _, _| Some(
        Arc::new(|s: &mut Stack| {
            let enabled = match pop(s)? {
                IValue::Bool(b) => b,
                other => return Err(format!("expected a bool, got {}", other.kind_name())),
            };
            GRAD_ENABLED.with(|g| g.set(enabled));
            Ok(())
        }) as Operation
    ));
    builtin!(r, "prim::EnumName", |_, _, _| Some(unary(|e| match e {
        IValue::Enum(e) => Ok(IValue::str(e.name.clone())),
        other => Err(format!("expected an enum, got {}", other.kind_name())),
    })));
    builtin!(r, "prim::EnumValue", |_, _, _| Some(unary(|e| match e {
        IValue::Enum(e) => Ok(e.value.clone()),
        other => Err(format!("expected an enum, got {}", other.kind_name())),
    })));
}

thread_local! {
    static GRAD_ENABLED: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

/// Writes program output to stdout at once, as PyTorch's print handler does.
fn emit_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    // Output errors (a closed pipe) do not fail the program, as in PyTorch.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// `print(a, b, ...)`: the values' `str()` separated by spaces, then a newline.
fn print(g: &Graph, n: Node) -> Result<Operation, String> {
    let count = g.node_inputs(n).len();
    Ok(Arc::new(move |s: &mut Stack| {
        let args = pop_n(s, count)?;
        emit_stdout(&print_line(&args)?);
        Ok(())
    }))
}

/// The line `print(args...)` writes.
pub fn print_line(args: &[IValue]) -> Result<String, String> {
    let mut line = String::new();
    for (i, v) in args.iter().enumerate() {
        if i > 0 {
            line.push(' ');
        }
        write_value(&mut line, v)?;
    }
    line.push('\n');
    Ok(line)
}

/// `warnings.warn(msg)`: reported on stderr once per call site, as Python's default filter.
fn warn() -> Operation {
    let shown = Arc::new(AtomicBool::new(false));
    Arc::new(move |s: &mut Stack| {
        let _stacklevel = pop(s)?;
        let message = pop(s)?;
        if !shown.swap(true, Ordering::Relaxed) {
            eprintln!("UserWarning: {}", string(&message)?);
        }
        Ok(())
    })
}

/// `prim::isinstance[types=[...]](x)`: whether the value is of one of the types.
fn isinstance(g: &Graph, n: Node) -> Result<Operation, String> {
    let types = match g.attr(n, Symbol::new("attr::types")) {
        Some(AttrValue::Types(t)) => t.clone(),
        Some(AttrValue::Type(t)) => vec![t.clone()],
        _ => return Err("prim::isinstance needs a types attribute".into()),
    };
    Ok(Arc::new(move |s: &mut Stack| {
        let v = pop(s)?;
        s.push(IValue::Bool(types.iter().any(|t| value_is(&v, t))));
        Ok(())
    }))
}

/// Whether `v` is a value of type `ty`. Containers are checked element by element, since
/// Ember's values do not carry their static element types.
pub fn value_is(v: &IValue, ty: &Type) -> bool {
    match (ty, v) {
        (Type::Any, _) => true,
        (Type::Optional(inner), _) => matches!(v, IValue::None) || value_is(v, inner),
        (Type::Union(options), _) => options.iter().any(|t| value_is(v, t)),
        (Type::None, IValue::None) => true,
        (Type::Int | Type::SymInt, IValue::Int(_)) => true,
        (Type::Float | Type::SymFloat, IValue::Double(_)) => true,
        (Type::Bool | Type::SymBool, IValue::Bool(_)) => true,
        (Type::Complex, IValue::Complex(_)) => true,
        (Type::Number, IValue::Int(_) | IValue::Double(_) | IValue::Complex(_)) => true,
        (Type::Str, IValue::Str(_)) => true,
        (Type::Device, IValue::Device(_)) => true,
        (Type::ScalarType, IValue::ScalarType(_)) => true,
        (Type::Tensor(_), IValue::Tensor(_)) => true,
        (Type::AnyList, IValue::List(_)) => true,
        (Type::AnyTuple, IValue::Tuple(_)) => true,
        (Type::List(elem), IValue::List(l)) => l.to_vec().iter().all(|x| value_is(x, elem)),
        (Type::Tuple(t), IValue::Tuple(items)) => {
            t.elements.len() == items.len()
                && t.elements
                    .iter()
                    .zip(items.iter())
                    .all(|(t, x)| value_is(x, t))
        }
        (Type::Dict(k, val), IValue::Dict(d)) => d
            .items()
            .iter()
            .all(|(key, x)| value_is(&key.to_ivalue(), k) && value_is(x, val)),
        (Type::Class(name), IValue::Object(o)) => o.class_name() == name,
        (Type::AnyClass, IValue::Object(_)) => true,
        (Type::Enum(name), IValue::Enum(e)) => e.class_name == *name,
        (Type::AnyEnum, IValue::Enum(_)) => true,
        (Type::Future(_), IValue::Future(_)) => true,
        (Type::Generator, IValue::Generator(_)) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn print_joins_with_spaces() {
        let args = [
            IValue::str("n ="),
            IValue::Int(3),
            IValue::Double(0.5),
            IValue::list(vec![IValue::Double(1.0)]),
            IValue::None,
        ];
        assert_eq!(print_line(&args).unwrap(), "n = 3 0.5 [1.] None\n");
    }

    #[test]
    fn isinstance_checks_containers() {
        let ints = IValue::list(vec![IValue::Int(1)]);
        assert!(value_is(&ints, &Type::list(Type::Int)));
        assert!(!value_is(&ints, &Type::list(Type::Str)));
        assert!(value_is(&IValue::None, &Type::optional(Type::Int)));
        assert!(value_is(
            &IValue::tuple(vec![IValue::Int(1), IValue::str("a")]),
            &Type::tuple(vec![Type::Int, Type::Str])
        ));
        assert!(!value_is(&IValue::Double(1.0), &Type::Int));
    }
}
