//! The operator catalogue: every schema registered in real PyTorch, from
//! `dialects/data/schemas.txt` (written by `tools/gen/dump_schemas.py`), parsed once on first
//! use and indexed by node kind. Overloads keep the registry's order, which is the order
//! PyTorch tries them in.

use std::sync::OnceLock;

use hashbrown::HashMap;

use crate::ir::{Graph, Node};
use crate::schema::{parse_schema, schema_accepts, FunctionSchema};
use crate::source::{Diagnostic, Pos};
use crate::symbol::Symbol;
use crate::types::Type;

/// The text of the catalogue, embedded at build time.
pub const SCHEMAS_TXT: &str = include_str!("../data/schemas.txt");

/// Ember's own operators (`ember::`), hand-written; parsed after [`SCHEMAS_TXT`].
pub const EMBER_SCHEMAS_TXT: &str = include_str!("../data/ember_schemas.txt");

/// Schemas by node kind.
#[derive(Debug, Default)]
pub struct Catalogue {
    by_kind: HashMap<Symbol, Vec<FunctionSchema>>,
    kinds: Vec<Symbol>,
    len: usize,
    errors: Vec<Diagnostic>,
}

impl Catalogue {
    /// Parses catalogue text: one schema a line; `#` lines and blank lines are skipped. Lines
    /// that do not parse are left out and reported by [`Catalogue::errors`].
    pub fn parse(text: &str) -> Catalogue {
        let mut cat = Catalogue::default();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            match parse_schema(line) {
                Ok(schema) => cat.add(schema),
                Err(d) => cat.errors.push(Diagnostic::new(
                    Pos {
                        line: i as u32 + 1,
                        col: d.pos.col,
                    },
                    d.message,
                )),
            }
        }
        cat
    }

    /// Adds a schema after the overloads already known for its kind.
    pub fn add(&mut self, schema: FunctionSchema) {
        let kind = schema.kind();
        let list = self.by_kind.entry(kind).or_default();
        if list.is_empty() {
            self.kinds.push(kind);
        }
        list.push(schema);
        self.len += 1;
    }

    /// The overloads of `kind`, in the order PyTorch tries them; empty if it has none.
    pub fn schemas(&self, kind: Symbol) -> &[FunctionSchema] {
        self.by_kind.get(&kind).map_or(&[], Vec::as_slice)
    }

    pub fn has_schemas(&self, kind: Symbol) -> bool {
        self.by_kind.contains_key(&kind)
    }

    /// The schema named `aten::add.Tensor` (or `aten::add` for the default overload).
    pub fn find(&self, full_name: &str) -> Option<&FunctionSchema> {
        let (name, overload) = split_overload(full_name);
        self.schemas(Symbol::new(name))
            .iter()
            .find(|s| s.overload_name == overload)
    }

    /// Every kind with schemas, in catalogue order.
    pub fn kinds(&self) -> &[Symbol] {
        &self.kinds
    }

    /// Every schema, kind by kind.
    pub fn iter(&self) -> impl Iterator<Item = &FunctionSchema> {
        self.kinds.iter().flat_map(|k| self.schemas(*k).iter())
    }

    /// Number of schemas.
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Lines that failed to parse (line numbers of the catalogue text).
    pub fn errors(&self) -> &[Diagnostic] {
        &self.errors
    }
}

/// `aten::add.Tensor` → (`aten::add`, `Tensor`); the overload is after the last `.` that
/// follows the `::`.
fn split_overload(full_name: &str) -> (&str, &str) {
    let start = full_name.find("::").map_or(0, |i| i + 2);
    match full_name[start..].find('.') {
        Some(dot) => (&full_name[..start + dot], &full_name[start + dot + 1..]),
        None => (full_name, ""),
    }
}

/// The catalogue of real PyTorch's schemas, parsed on first use.
pub fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        let mut cat = Catalogue::parse(SCHEMAS_TXT);
        let ember = Catalogue::parse(EMBER_SCHEMAS_TXT);
        cat.errors.extend(ember.errors);
        for kind in ember.kinds {
            for schema in ember.by_kind[&kind].iter().cloned() {
                cat.add(schema);
            }
        }
        cat
    })
}

/// The overload of `n`'s kind that accepts its inputs (PyTorch's `Node::maybeSchema`: the
/// first in registry order whose arguments accept the input types positionally, type
/// variables binding consistently). The error lists the candidates as `Node::getOperator`.
pub fn resolve_node(g: &Graph, n: Node) -> Result<&'static FunctionSchema, String> {
    let kind = g.kind(n);
    let types: Vec<Type> = g.node_inputs(n).iter().map(|&v| g.ty(v).clone()).collect();
    let candidates = catalogue().schemas(kind);
    if let Some(s) = candidates.iter().find(|s| schema_accepts(s, &types)) {
        return Ok(s);
    }
    let mut msg =
        format!("Schema not found for node. File a bug report.\nNode: {kind}\nInput types:");
    for (i, t) in types.iter().enumerate() {
        msg.push_str(if i > 0 { ", " } else { "" });
        msg.push_str(&t.to_string());
    }
    if candidates.is_empty() {
        msg.push_str("\nno candidates found\n");
    } else {
        msg.push_str("\ncandidates were:\n");
        for s in candidates {
            msg.push_str(&format!("  {s}\n"));
        }
    }
    Err(msg)
}

#[cfg(test)]
#[path = "catalogue_tests.rs"]
mod tests;
