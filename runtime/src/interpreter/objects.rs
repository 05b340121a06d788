//! Objects: `prim::CreateObject`, `prim::GetAttr[name=...]` and `prim::SetAttr[name=...]`.
//!
//! When the object's static type is a class of the unit, the attribute's slot is resolved
//! once, when the code is built (a module's parameters, buffers and submodules are slots; a
//! name that is no slot but a class constant reads the constant). Otherwise the name is looked
//! up on the runtime object's class when the node runs.
//!
//! The operations hold their class weakly: a class owns its methods, whose code owns these
//! operations, and a strong reference back would keep every loaded module alive forever.

use std::sync::{Arc, Weak};

use ember_dialects::attr::AttrValue;
use ember_dialects::types::Type;
use ember_dialects::{Graph, Node, Symbol};

use crate::ivalue::{IValue, Object};
use crate::ops::{pop, Operation, Stack};
use crate::unit::{ClassType, CompilationUnit};

fn name_attr(g: &Graph, n: Node, what: &str) -> Result<String, String> {
    match g.attr(n, Symbol::new("attr::name")) {
        Some(AttrValue::Str(s)) => Ok(s.clone()),
        _ => Err(format!("{what} needs a name")),
    }
}

/// The class of `g.ty(v)` when it is a class the unit defines.
fn static_class(
    g: &Graph,
    v: ember_dialects::Value,
    unit: Option<&Arc<CompilationUnit>>,
) -> Option<Arc<ClassType>> {
    match g.ty(v) {
        Type::Class(q) => unit?.class(q),
        _ => None,
    }
}

fn object(v: IValue, what: &str) -> Result<Arc<Object>, String> {
    match v {
        IValue::Object(o) => Ok(o),
        other => Err(format!(
            "{what} expected an object, but got {}",
            other.kind_name()
        )),
    }
}

fn no_attribute(class: &str, name: &str) -> String {
    format!("'{class}' object has no attribute or method '{name}'")
}

/// Where an attribute of a class lives.
enum Place {
    Slot(usize),
    Constant(IValue),
}

/// Whether `o` is an instance of `class`. A `Weak` keeps its allocation, so no other class can
/// have its address while `class` is held: pointer equality is identity.
fn is_instance_of(o: &Object, class: &Weak<ClassType>) -> bool {
    std::ptr::eq(Arc::as_ptr(&o.class), class.as_ptr())
}

fn place(class: &ClassType, name: &str) -> Option<Place> {
    class
        .attribute_slot(name)
        .map(Place::Slot)
        .or_else(|| class.constant(name).map(Place::Constant))
}

/// Reads attribute `name` of `o`, through the class's slot table.
fn read_by_name(o: &Object, name: &str) -> Result<IValue, String> {
    match place(&o.class, name) {
        Some(Place::Slot(i)) => o.slot(i).ok_or_else(|| no_attribute(o.class_name(), name)),
        Some(Place::Constant(c)) => Ok(c),
        None => Err(no_attribute(o.class_name(), name)),
    }
}

/// A `prim::GetAttr` on an object whose class is known when the code is built: the slot
/// is read directly from an instance of that class, by name from any other object.
pub struct SlotRead {
    class: Weak<ClassType>,
    slot: usize,
    name: String,
}

impl SlotRead {
    /// The attribute of the object `v`.
    #[inline]
    pub fn read(&self, v: &IValue) -> Result<IValue, String> {
        let IValue::Object(o) = v else {
            return Err(format!(
                "prim::GetAttr expected an object, but got {}",
                v.kind_name()
            ));
        };
        if is_instance_of(o, &self.class) {
            o.slot(self.slot)
                .ok_or_else(|| no_attribute(o.class_name(), &self.name))
        } else {
            read_by_name(o, &self.name)
        }
    }
}

/// How `prim::GetAttr` node `n` reads: from a slot of a class known now (`Ok(Some)`), or
/// `Ok(None)` when it needs the generic operation ([`get_attr`]).
pub(super) fn slot_read(
    g: &Graph,
    n: Node,
    unit: Option<&Arc<CompilationUnit>>,
) -> Result<Option<SlotRead>, String> {
    let name = name_attr(g, n, "prim::GetAttr")?;
    if g.node_inputs(n).len() != 1 || g.node_outputs(n).len() != 1 {
        return Err("prim::GetAttr takes one object and makes one value".into());
    }
    let Some(class) = static_class(g, g.node_inputs(n)[0], unit) else {
        return Ok(None);
    };
    Ok(match place(&class, &name) {
        None => return Err(no_attribute(&class.qualname, &name)),
        Some(Place::Constant(_)) => None,
        Some(Place::Slot(slot)) => Some(SlotRead {
            class: Arc::downgrade(&class),
            slot,
            name,
        }),
    })
}

pub(super) fn get_attr(
    g: &Graph,
    n: Node,
    unit: Option<&Arc<CompilationUnit>>,
) -> Result<Operation, String> {
    if let Some(read) = slot_read(g, n, unit)? {
        return Ok(Arc::new(move |s: &mut Stack| {
            let v = read.read(&pop(s)?)?;
            s.push(v);
            Ok(())
        }));
    }
    let name = name_attr(g, n, "prim::GetAttr")?;
    let op: Operation = match static_class(g, g.node_inputs(n)[0], unit) {
        Some(class) => match place(&class, &name) {
            Some(Place::Constant(c)) => Arc::new(move |s: &mut Stack| {
                pop(s)?;
                s.push(c.clone());
                Ok(())
            }),
            _ => return Err(no_attribute(&class.qualname, &name)),
        },
        None => Arc::new(move |s: &mut Stack| {
            let o = object(pop(s)?, "prim::GetAttr")?;
            s.push(read_by_name(&o, &name)?);
            Ok(())
        }),
    };
    Ok(op)
}

pub(super) fn set_attr(
    g: &Graph,
    n: Node,
    unit: Option<&Arc<CompilationUnit>>,
) -> Result<Operation, String> {
    let name = name_attr(g, n, "prim::SetAttr")?;
    if g.node_inputs(n).len() != 2 || !g.node_outputs(n).is_empty() {
        return Err("prim::SetAttr takes an object and a value".into());
    }
    let slot = match static_class(g, g.node_inputs(n)[0], unit) {
        Some(class) => match class.attribute_slot(&name) {
            Some(i) => Some((Arc::downgrade(&class), i)),
            None => return Err(no_attribute(&class.qualname, &name)),
        },
        None => None,
    };
    Ok(Arc::new(move |s: &mut Stack| {
        let v = pop(s)?;
        let o = object(pop(s)?, "prim::SetAttr")?;
        match &slot {
            Some((class, i)) if is_instance_of(&o, class) => o.set_slot(*i, v),
            _ => {
                if !o.set_attr(&name, v) {
                    return Err(no_attribute(o.class_name(), &name));
                }
            }
        }
        Ok(())
    }))
}

pub(super) fn create_object(
    g: &Graph,
    n: Node,
    unit: Option<&Arc<CompilationUnit>>,
) -> Result<Operation, String> {
    let [out] = g.node_outputs(n) else {
        return Err("prim::CreateObject makes one object".into());
    };
    let Type::Class(q) = g.ty(*out) else {
        return Err(format!(
            "prim::CreateObject makes an object of a class, not of type '{}'",
            g.ty(*out)
        ));
    };
    let Some(unit) = unit else {
        return Err(format!(
            "prim::CreateObject of class '{q}' needs the compilation unit that defines it"
        ));
    };
    let Some(class) = unit.class(q) else {
        return Err(format!("unknown class '{q}'"));
    };
    let (class, name) = (Arc::downgrade(&class), q.clone());
    Ok(Arc::new(move |s: &mut Stack| {
        let class = class
            .upgrade()
            .ok_or_else(|| format!("prim::CreateObject: class '{name}' was unloaded"))?;
        s.push(IValue::Object(class.instantiate()));
        Ok(())
    }))
}
