//! The operator catalogue: every schema registered in real PyTorch, from
//! `dialects/data/schemas.txt` (written by `tools/gen/dump_schemas.py`), indexed by node kind.
//! Overloads keep the registry's order, which is the order PyTorch tries them in. Further
//! sources (Ember's own operators) are read after it, their overloads after PyTorch's.
//!
//! Start-up reads only each line's name to index it; a kind's schemas are parsed the first
//! time they are asked for, so a program pays for the operators it uses, not for the
//! thousands it does not.

use std::borrow::Cow;
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

/// The catalogue's sources, in the order their overloads are tried.
pub const SOURCES: &[&str] = &[SCHEMAS_TXT, EMBER_SCHEMAS_TXT];

/// Schemas by node kind.
#[derive(Debug, Default)]
pub struct Catalogue {
    texts: Vec<Cow<'static, str>>,
    by_kind: HashMap<Symbol, Overloads>,
    kinds: Vec<Symbol>,
    /// Every kind parsed: the lines that failed, in source and line order.
    all_errors: OnceLock<Vec<Diagnostic>>,
}

/// The schema lines of one kind and, once asked for, their parsed schemas.
#[derive(Debug, Default)]
struct Overloads {
    lines: Vec<Line>,
    parsed: OnceLock<Parsed>,
}

#[derive(Debug, Default)]
struct Parsed {
    schemas: Vec<FunctionSchema>,
    errors: Vec<(usize, Diagnostic)>,
}

/// A line of a source: the source, its 1-based line number and its text's byte range.
#[derive(Copy, Clone, Debug)]
struct Line {
    source: u32,
    number: u32,
    start: u32,
    end: u32,
}

impl Catalogue {
    /// Reads catalogue text: one schema a line; `#` lines and blank lines are skipped. Lines
    /// that do not parse are left out and reported by [`Catalogue::errors`].
    pub fn parse(text: &str) -> Catalogue {
        Catalogue::from_sources(vec![Cow::Owned(text.to_string())])
    }

    /// Reads several catalogue texts; a kind's overloads of an earlier text come first.
    pub fn from_sources(texts: Vec<Cow<'static, str>>) -> Catalogue {
        let mut cat = Catalogue::default();
        for (source, text) in texts.iter().enumerate() {
            let mut offset = 0usize;
            for (i, line) in text.split_inclusive('\n').enumerate() {
                let start = offset;
                offset += line.len();
                let line = line.trim_end_matches(['\n', '\r']);
                if line.trim().is_empty() || line.starts_with('#') {
                    continue;
                }
                let kind = Symbol::new(line_kind(line));
                let entry = cat.by_kind.entry(kind).or_default();
                if entry.lines.is_empty() {
                    cat.kinds.push(kind);
                }
                entry.lines.push(Line {
                    source: source as u32,
                    number: i as u32 + 1,
                    start: start as u32,
                    end: (start + line.len()) as u32,
                });
            }
        }
        cat.texts = texts;
        cat
    }

    /// Adds a schema after the overloads already known for its kind.
    pub fn add(&mut self, schema: FunctionSchema) {
        let kind = schema.kind();
        let entry = self.by_kind.entry(kind).or_default();
        if entry.lines.is_empty() && entry.parsed.get().is_none() {
            self.kinds.push(kind);
        }
        // The kind's lines are parsed first, so the schema comes after them.
        let texts = &self.texts;
        entry
            .parsed
            .get_or_init(|| parse_lines(texts, &entry.lines));
        if let Some(parsed) = entry.parsed.get_mut() {
            parsed.schemas.push(schema);
        }
        self.all_errors = OnceLock::new();
    }

    /// The overloads of `kind`, in the order PyTorch tries them; empty if it has none.
    pub fn schemas(&self, kind: Symbol) -> &[FunctionSchema] {
        match self.by_kind.get(&kind) {
            Some(entry) => &self.parsed(entry).schemas,
            None => &[],
        }
    }

    pub fn has_schemas(&self, kind: Symbol) -> bool {
        !self.schemas(kind).is_empty()
    }

    /// The schema named `aten::add.Tensor` (or `aten::add` for the default overload).
    pub fn find(&self, full_name: &str) -> Option<&FunctionSchema> {
        let (name, overload) = split_overload(full_name);
        self.schemas(Symbol::new(name))
            .iter()
            .find(|s| s.overload_name == overload)
    }

    /// Every kind with schema lines, in catalogue order.
    pub fn kinds(&self) -> &[Symbol] {
        &self.kinds
    }

    /// Every schema, kind by kind (parses them all).
    pub fn iter(&self) -> impl Iterator<Item = &FunctionSchema> {
        self.kinds.iter().flat_map(|k| self.schemas(*k).iter())
    }

    /// Number of schemas (parses them all).
    pub fn len(&self) -> usize {
        self.kinds.iter().map(|&k| self.schemas(k).len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lines that failed to parse (line numbers of their catalogue text), in order (parses
    /// every kind).
    pub fn errors(&self) -> &[Diagnostic] {
        self.all_errors.get_or_init(|| {
            let mut errors: Vec<(usize, Diagnostic)> = self
                .kinds
                .iter()
                .filter_map(|k| self.by_kind.get(k))
                .flat_map(|entry| self.parsed(entry).errors.iter().cloned())
                .collect();
            errors.sort_by_key(|(source, d)| (*source, d.pos.line));
            errors.into_iter().map(|(_, d)| d).collect()
        })
    }

    /// The schemas of a kind, parsed the first time they are asked for.
    fn parsed<'a>(&'a self, entry: &'a Overloads) -> &'a Parsed {
        entry
            .parsed
            .get_or_init(|| parse_lines(&self.texts, &entry.lines))
    }
}

/// The node kind a schema line declares: its name up to `(`, without the overload.
fn line_kind(line: &str) -> &str {
    let name = line[..line.find('(').unwrap_or(line.len())].trim();
    split_overload(name).0
}

fn parse_lines(texts: &[Cow<'static, str>], lines: &[Line]) -> Parsed {
    let mut parsed = Parsed::default();
    for l in lines {
        let text = &texts[l.source as usize][l.start as usize..l.end as usize];
        match parse_schema(text) {
            Ok(schema) => parsed.schemas.push(schema),
            Err(d) => parsed.errors.push((
                l.source as usize,
                Diagnostic::new(
                    Pos {
                        line: l.number,
                        col: d.pos.col,
                    },
                    d.message,
                ),
            )),
        }
    }
    parsed
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

/// The catalogue of real PyTorch's schemas (and Ember's own), indexed on first use.
pub fn catalogue() -> &'static Catalogue {
    static CATALOGUE: OnceLock<Catalogue> = OnceLock::new();
    CATALOGUE.get_or_init(|| {
        Catalogue::from_sources(SOURCES.iter().map(|&t| Cow::Borrowed(t)).collect())
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
