//! Code read back against an already compiled unit: PyTorch's save/load path prints a function
//! as code naming the unit's other functions and classes by qualified name
//! (`__torch__.helper(x)`, `__torch__.Point.__new__(__torch__.Point)`, `__torch__.Color.RED`),
//! and reading it back resolves those names to the unit, as `torch.jit.load` does through its
//! resolver.

use ember_runtime::unit::CompilationUnit;

use super::{Resolved, Resolver};

/// What the unit holds under qualified name `name`: a NamedTuple or Enum type, a class, a
/// function.
pub fn lookup(unit: &CompilationUnit, name: &str) -> Option<Resolved> {
    if let Some(t) = unit.named_type(name) {
        return Some(Resolved::Type(t));
    }
    if let Some(c) = unit.class(name) {
        return Some(Resolved::Class(c));
    }
    unit.function(name).map(Resolved::Function)
}

/// Resolves the `__torch__.` names of printed code to `unit` (a source file's unit, whose
/// top-level defs are named by the def).
pub struct UnitResolver<'a> {
    unit: &'a CompilationUnit,
}

impl<'a> UnitResolver<'a> {
    pub fn new(unit: &'a CompilationUnit) -> UnitResolver<'a> {
        UnitResolver { unit }
    }
}

impl Resolver for UnitResolver<'_> {
    fn resolve(&self, name: &str) -> Option<Resolved> {
        let local = name.strip_prefix("__torch__.")?;
        if let Some(found) = lookup(self.unit, name) {
            return Some(found);
        }
        // A top-level def of a source file enters the unit by its plain name.
        if local.contains('.') {
            return None;
        }
        self.unit.function(local).map(Resolved::Function)
    }
}
