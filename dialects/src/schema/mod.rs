//! Operator schemas (`FunctionSchema`), as PyTorch's `c10::FunctionSchema`: the qualified name
//! and overload name, typed arguments with defaults, alias annotations, kwarg-only markers,
//! varargs and returns. [`parse_schema`] reads the text form of
//! `torch/csrc/jit/frontend/function_schema_parser.cpp`; `Display` prints it back as
//! `str(schema)` does.

mod lexer;
mod matching;
mod parser;
mod print;

pub use matching::{
    const_type, default_type, is_blocklisted, match_schemas, schema_accepts, try_match_schema,
    Conversion, MatchedArg, MatchedSchema, Source,
};
pub use parser::{parse_function_schema, parse_schema};
pub use print::{format_double, quoted_string};

use crate::attr::ConstValue;
use crate::symbol::Symbol;
use crate::types::Type;

/// An alias annotation: `(a)`, `(a!)`, `(a -> *)`, `(*)`, or the sets of a list's elements.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AliasInfo {
    /// Alias sets before the call, in the order written, without duplicates; `*` is the
    /// wildcard set.
    pub before: Vec<String>,
    /// Alias sets after the call (the same as `before` unless written with `->`).
    pub after: Vec<String>,
    pub is_write: bool,
    /// The annotation of the contained type (`Tensor(a)[]` puts `(a)` here).
    pub contained: Vec<AliasInfo>,
}

impl AliasInfo {
    pub const WILDCARD: &'static str = "*";

    pub fn is_wildcard_before(&self) -> bool {
        self.before.iter().any(|s| s == Self::WILDCARD)
    }

    pub fn is_wildcard_after(&self) -> bool {
        self.after.iter().any(|s| s == Self::WILDCARD)
    }

    /// Set equality of the before and after sets (PyTorch keeps them as unordered sets).
    pub fn sets_unchanged(&self) -> bool {
        self.before.len() == self.after.len() && self.before.iter().all(|s| self.after.contains(s))
    }
}

/// One argument or return of a schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Argument {
    /// Empty for unnamed returns.
    pub name: String,
    /// The type as written (`ScalarType`, `SymInt[]`, …): PyTorch's `real_type()`.
    pub ty: Type,
    /// The size of a fixed-size list, `int[2]`.
    pub n: Option<i64>,
    pub default: Option<ConstValue>,
    pub kwarg_only: bool,
    pub alias: Option<AliasInfo>,
}

impl Argument {
    /// PyTorch's `Argument::type()`: the type calls are checked against, where `ScalarType`,
    /// `Layout`, `MemoryFormat` and `SymInt` are `int`.
    pub fn fake_type(&self) -> Type {
        fake_type(&self.ty)
    }

    /// Whether the argument is written to (`Tensor(a!)`).
    pub fn is_write(&self) -> bool {
        self.alias.as_ref().is_some_and(|a| a.is_write)
    }

    /// PyTorch's `is_out()`: a kwarg-only argument that is written to.
    pub fn is_out(&self) -> bool {
        self.kwarg_only && self.is_write()
    }
}

/// The `int` stand-ins PyTorch's schema parser uses for enum-like types (its "fake" types).
pub fn fake_type(ty: &Type) -> Type {
    match ty {
        Type::ScalarType | Type::Layout | Type::MemoryFormat | Type::SymInt => Type::Int,
        Type::List(e) => Type::list(fake_type(e)),
        Type::Optional(e) => Type::optional(fake_type(e)),
        other => other.clone(),
    }
}

/// An operator schema such as `aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1)
/// -> Tensor`.
#[derive(Clone, Debug, PartialEq)]
pub struct FunctionSchema {
    /// The qualified operator name, `aten::add`.
    pub name: String,
    /// The overload name, `Tensor` (empty for the default overload).
    pub overload_name: String,
    pub arguments: Vec<Argument>,
    pub returns: Vec<Argument>,
    /// `...` ends the arguments.
    pub is_vararg: bool,
    /// `...` ends the returns.
    pub is_varret: bool,
}

impl std::str::FromStr for FunctionSchema {
    type Err = crate::source::Diagnostic;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_schema(s)
    }
}

impl FunctionSchema {
    /// The node kind this schema is an overload of.
    pub fn kind(&self) -> Symbol {
        Symbol::new(&self.name)
    }

    /// `aten::add.Tensor`, or just the name for the default overload.
    pub fn full_name(&self) -> String {
        if self.overload_name.is_empty() {
            self.name.clone()
        } else {
            format!("{}.{}", self.name, self.overload_name)
        }
    }

    pub fn argument_index_with_name(&self, name: &str) -> Option<usize> {
        self.arguments.iter().position(|a| a.name == name)
    }

    /// Whether any argument is written to.
    pub fn is_mutable(&self) -> bool {
        self.arguments.iter().any(Argument::is_write)
    }
}

#[cfg(test)]
mod tests;
