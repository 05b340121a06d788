//! Environments: one frame per block being emitted, mapping names to sugared values and to the
//! types of first-class variables (PyTorch's `Environment` in ir_emitter.cpp). Assigning a
//! first-class variable emits `prim::Store`, reading it emits `prim::Load`; SSA conversion
//! turns them into block arguments and outputs afterwards.

use std::collections::BTreeMap;

use ember_dialects::attr::AttrValue;
use ember_dialects::{Block, Symbol, Type, Value};

use super::sugared::Sugared;
use super::{FnEmitter, R};
use crate::frontend::error::FrontendError;
use crate::frontend::span::Span;

/// One scope: the block it emits into, sugared (not first-class) values, and the types of the
/// first-class variables stored in it.
pub struct Frame {
    pub block: Block,
    pub values: BTreeMap<String, Sugared>,
    pub types: BTreeMap<String, Type>,
}

impl Frame {
    pub fn new(block: Block) -> Frame {
        Frame {
            block,
            values: BTreeMap::new(),
            types: BTreeMap::new(),
        }
    }

    /// Names of the first-class variables set in this frame, sorted.
    pub fn defined_variables(&self) -> Vec<String> {
        self.types.keys().cloned().collect()
    }
}

/// `_N` names and `$` temporaries are not recorded as value names.
pub fn meaningful_name(name: &str) -> bool {
    if name.is_empty() || name.starts_with('$') {
        return false;
    }
    if !name.starts_with('_') {
        return true;
    }
    name[1..].chars().any(|c| !c.is_ascii_digit())
}

impl FnEmitter<'_> {
    pub fn push_frame(&mut self, b: Block) {
        self.frames.push(Frame::new(b));
    }

    pub fn pop_frame(&mut self) -> Frame {
        self.frames.pop().expect("frame stack underflow")
    }

    pub fn current_block(&self) -> Block {
        self.frames.last().map_or(self.g.block(), |f| f.block)
    }

    pub fn insert_load(&mut self, name: &str, ty: &Type) -> Value {
        let n = self.g.create(Symbol::prim("Load"), &[], 0);
        self.g
            .set_attr(n, Symbol::attr("name"), AttrValue::Str(name.to_string()));
        let v = self.g.add_node_output(n, ty.clone());
        self.g.insert_node(n);
        if meaningful_name(name) {
            self.g.set_debug_name(v, name);
        }
        v
    }

    pub fn insert_store(&mut self, name: &str, span: Span, v: Value, ty: Type) {
        let n = self.g.create(Symbol::prim("Store"), &[v], 0);
        self.g
            .set_attr(n, Symbol::attr("name"), AttrValue::Str(name.to_string()));
        self.set_span(n, span);
        self.g.insert_node(n);
        if let Some(f) = self.frames.last_mut() {
            f.types.insert(name.to_string(), ty);
        }
    }

    /// `findInThisFrame` on frame `i` of the stack.
    fn find_in_frame(&mut self, i: usize, name: &str) -> Option<Sugared> {
        if let Some(v) = self.frames[i].values.get(name) {
            return Some(v.clone());
        }
        if let Some(t) = self.frames[i].types.get(name).cloned() {
            return Some(Sugared::Simple(self.insert_load(name, &t)));
        }
        None
    }

    /// `findInAnyFrame` from the innermost frame.
    pub fn find_in_any_frame(&mut self, name: &str) -> Option<Sugared> {
        (0..self.frames.len())
            .rev()
            .find_map(|i| self.find_in_frame(i, name))
    }

    /// `findInAnyFrame` from a frame that was popped off the top of the current stack.
    pub fn find_in_popped(&mut self, popped: &Frame, name: &str) -> Option<Sugared> {
        if let Some(v) = popped.values.get(name) {
            return Some(v.clone());
        }
        if let Some(t) = popped.types.get(name).cloned() {
            return Some(Sugared::Simple(self.insert_load(name, &t)));
        }
        self.find_in_any_frame(name)
    }

    /// `findInParentFrame`: frames below the innermost one.
    pub fn find_in_parent_frame(&mut self, name: &str) -> Option<Sugared> {
        let n = self.frames.len();
        (0..n.saturating_sub(1))
            .rev()
            .find_map(|i| self.find_in_frame(i, name))
    }

    pub fn set_type(&mut self, name: &str, ty: Type) {
        if let Some(f) = self.frames.last_mut() {
            f.types.insert(name.to_string(), ty);
        }
    }

    pub fn set_var(&mut self, span: Span, name: &str, v: Value) -> R<()> {
        self.set_sugared_var(span, name, Sugared::Simple(v), None)
    }

    /// `setSugaredVar`: first-class values are stored (converted to the type the variable
    /// already has in an outer block); other sugared values are only remembered.
    pub fn set_sugared_var(
        &mut self,
        span: Span,
        name: &str,
        value: Sugared,
        annotated: Option<Type>,
    ) -> R<()> {
        let mut simple = value.as_simple();
        if let Some(v) = simple {
            let owner = self.g.owning_block(self.g.producer(v));
            if self.g.debug_name(v).is_none()
                && meaningful_name(name)
                && owner == Some(self.current_block())
            {
                self.g.set_debug_name(v, name);
            }
        }
        if let Some(parent) = self.find_in_parent_frame(name) {
            if annotated.is_some() {
                return Err(FrontendError::new(
                    span,
                    format!("Attempting to declare and annotate the type of variable '{name}' but it is already defined in an outer block"),
                ));
            }
            let Some(v) = simple else {
                return Err(FrontendError::new(span, format!("Cannot re-assign '{name}' to a value of type {} because {name} is not a first-class value.  Only reassignments to first-class values are allowed", value.kind())));
            };
            let Some(parent_v) = parent.as_simple() else {
                // PyTorch names the new value's kind, as `SimpleValue::kind` spells it.
                let kind = format!("value of type '{}'", self.g.ty(v).repr_str());
                return Err(FrontendError::new(span, format!("Cannot re-assign '{name}' because it has type {kind} and {name} is not a first-class value.  Only reassignments to first-class values are allowed")));
            };
            let parent_ty = self.g.ty(parent_v).unshaped();
            let v = self.try_convert_to_type(span, &parent_ty, v, true)?;
            simple = Some(v);
            if !self.g.ty(v).is_subtype_of(&parent_ty) {
                let pt = self.g.ty(parent_v).clone();
                let vt = self.g.ty(v).clone();
                let mut msg = format!(
                    "Variable '{name}' previously had type {} but is now being assigned to a value of type {}",
                    pt.repr_str(),
                    vt.repr_str()
                );
                if matches!(pt, Type::List(_)) && matches!(vt, Type::List(_)) {
                    msg.push_str("\nEmpty lists default to List[Tensor]. Add a variable annotation to the assignment to create an empty list of another type (torch.jit.annotate(List[T, []]) where T is the type of elements in the list for Python 2)");
                }
                return Err(FrontendError::new(span, msg));
            }
        }
        match simple {
            Some(v) => {
                let vt = self.g.ty(v).clone();
                if let Some(a) = &annotated {
                    if !vt.is_subtype_of(a) {
                        return Err(FrontendError::new(
                            span,
                            format!(
                                "Variable '{name}' is annotated with type {} but is being assigned to a value of type {}",
                                a.repr_str(),
                                vt.repr_str()
                            ),
                        ));
                    }
                }
                let store_ty = annotated.unwrap_or(vt);
                self.insert_store(name, span, v, store_ty);
            }
            None => {
                if let Some(f) = self.frames.last_mut() {
                    f.values.insert(name.to_string(), value);
                }
            }
        }
        Ok(())
    }

    /// Removes a variable from every frame (`del x`).
    pub fn remove_var(&mut self, span: Span, name: &str) -> R<()> {
        let mut removed = false;
        for f in &mut self.frames {
            let a = f.values.remove(name).is_some();
            let b = f.types.remove(name).is_some();
            removed = a || b;
        }
        if !removed {
            return Err(self.var_not_found(span, name));
        }
        Ok(())
    }

    pub fn var_not_found(&self, span: Span, name: &str) -> FrontendError {
        if let Some(msg) = self.var_errors.get(name) {
            return FrontendError::new(span, format!("{msg}\nand was used here"));
        }
        FrontendError::new(span, format!("undefined value {name}"))
    }
}
