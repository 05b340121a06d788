//! Reading PyTorch's graph text back into a [`Graph`]: the `str(graph)` format (see print.rs),
//! so that printing a parsed graph gives the same bytes, and the 2018 brace format
//! (`graph(%x : Dynamic) { ... return (%1); }`). Every error names a 1-based line and column;
//! no input panics.
//!
//! The text does not say which attribute kind PyTorch stored, so values map to one canonical
//! kind that prints the same: `1` Int, `1.` Float, `1.+2.j` Complex, `"s"` Str, `[1, 2]` Ints,
//! `[1., 2.]` Floats, `["a"]` Strs, `[int, Tensor]` Types, a type elsewhere Type, `{2}` and
//! printed tensors Tensor (with `printed` kept, and data where the print is exact), `<Tensor>`
//! a Tensor without data, `<Graph>` an empty Graph, `[<Tensors>]` / `[<Graphs>]` empty lists,
//! anything else (bool lists, tuples, None, devices, enums, dicts, objects) an IValue.
//! Numeric value names become unique numbers, others debug names. A node `kind_<i>` whose `i`
//! counts the subgraph nodes seen so far gets the graph of section `with kind_<i> = ...` as
//! `attr::Subgraph`. Python operators (`^Name[...](...)`) keep their name and scalar text in
//! the attributes `python::name` and `python::scalars`, which print outside the brackets.

use std::sync::Arc;

use hashbrown::HashMap;

use crate::attr::{AttrValue, ConstValue, Scalar, TensorLiteral};
use crate::cursor::Cursor;
use crate::ir::{Block, Graph, Node, Value};
use crate::source::{Diagnostic, Pos, SourceRange};
use crate::symbol::{sym, Symbol};
use crate::types::{parse_type_at, ScalarType, Type};

/// Blocks, subgraphs and constants nested deeper than this are refused (stack safety).
const MAX_DEPTH: usize = 48;

/// Parses one graph as PyTorch prints it (or in the 2018 brace format).
pub fn parse_graph(text: &str) -> Result<Graph, Diagnostic> {
    parse_graph_located(text).map(|located| located.graph)
}

/// A parsed graph with the text position of each of its top-level graph's nodes, so that
/// tools can report errors about nodes (the verifier's) at their line in the input.
pub struct Located {
    pub graph: Graph,
    pub node_positions: HashMap<Node, Pos>,
}

/// Like [`parse_graph`], also keeping where each node of the graph was written.
pub fn parse_graph_located(text: &str) -> Result<Located, Diagnostic> {
    let mut p = Parser {
        c: Cursor::new(text),
        depth: 0,
        graphs: 0,
        positions: HashMap::new(),
    };
    p.c.skip_ws_and_comment_lines();
    let g = p.graph()?;
    p.c.skip_ws_and_comment_lines();
    if !p.c.at_end() {
        return Err(p
            .c
            .error(format!("unexpected {} after the graph", p.c.describe())));
    }
    Ok(Located {
        graph: g,
        node_positions: p.positions,
    })
}

struct Parser<'a> {
    c: Cursor<'a>,
    depth: usize,
    /// How many graphs are being read (1 in the top graph, more inside `with` sections).
    graphs: usize,
    /// Where each node of the top graph starts.
    positions: HashMap<Node, Pos>,
}

/// Per-graph state: the names defined so far and the subgraph nodes awaiting `with` sections.
struct Scope {
    values: HashMap<String, Value>,
    groups: Vec<Node>,
    brace: bool,
    /// Values with a debug name, renumbered after the graph so that no unique number of a
    /// named value equals a numeric name (they would clash if the name were dropped).
    named: Vec<Value>,
    max_numbered: Option<u64>,
    /// The value numbers given so far.
    numbers: hashbrown::HashSet<u64>,
}

fn is_name_byte(b: u8) -> bool {
    !matches!(
        b,
        b' ' | b',' | b')' | b'(' | b'\n' | b'\t' | b'\r' | b'[' | b']' | b'=' | b':' | b';'
    )
}

fn is_kind_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b':' || b == b'.'
}

impl<'a> Parser<'a> {
    fn enter(&mut self) -> Result<(), Diagnostic> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.c.error("nested too deeply"));
        }
        Ok(())
    }

    /// `graph(params):` body `return (...)` and the `with` sections of its subgraphs.
    fn graph(&mut self) -> Result<Graph, Diagnostic> {
        self.enter()?;
        self.graphs += 1;
        let mut g = Graph::new();
        let mut scope = Scope {
            values: HashMap::new(),
            groups: Vec::new(),
            brace: false,
            named: Vec::new(),
            max_numbered: None,
            numbers: hashbrown::HashSet::new(),
        };
        self.c.expect("graph(")?;
        let top = g.block();
        self.params(&mut g, &mut scope, top)?;
        self.c.skip_spaces();
        if self.c.eat(":") {
            scope.brace = false;
        } else if self.c.eat("{") {
            scope.brace = true;
        } else {
            return Err(self.c.error(format!(
                "expected ':' after the graph inputs but found {}",
                self.c.describe()
            )));
        }
        self.end_of_line()?;
        self.body(&mut g, &mut scope, top)?;
        self.c.skip_spaces();
        self.open_list("return")?;
        let outs = self.refs(&scope, ")")?;
        for v in outs {
            g.register_output(v);
        }
        if scope.brace {
            self.c.eat(";");
            self.end_of_line()?;
            self.c.skip_ws();
            self.c.expect("}")?;
        }
        self.end_of_line_or_end()?;
        let first_free = scope.max_numbered.map_or(0, |m| m + 1);
        for (i, &v) in scope.named.iter().enumerate() {
            g.set_unique(v, first_free + i as u64);
        }
        self.graphs -= 1;
        self.subgraphs(&mut g, &scope)?;
        self.depth -= 1;
        Ok(g)
    }

    /// The `with <kind>_<i> = graph(...)` sections, one per subgraph node, in order.
    /// Section `i` names `kind_i`: it belongs to the next candidate node printed so, which then
    /// loses the suffix. A section no candidate claims belongs to an enclosing graph.
    fn subgraphs(&mut self, g: &mut Graph, scope: &Scope) -> Result<(), Diagnostic> {
        let mut next = 0;
        let mut i = 0;
        loop {
            let save = self.c.offset();
            self.c.skip_ws_and_comment_lines();
            if !self.c.eat("with ") {
                self.c.set_offset(save);
                return Ok(());
            }
            let text = self.c.take_while(is_kind_byte);
            let suffix = format!("_{i}");
            let found = (text.ends_with(&suffix) && self.c.eat(" = "))
                .then(|| {
                    scope.groups[next..]
                        .iter()
                        .position(|&n| g.kind(n).as_str() == text)
                })
                .flatten();
            let Some(at) = found else {
                self.c.set_offset(save);
                return Ok(());
            };
            let n = scope.groups[next + at];
            g.set_kind(n, Symbol::new(&text[..text.len() - suffix.len()]));
            let sub = self.graph()?;
            g.set_attr(n, sym::attr_subgraph(), AttrValue::Graph(Box::new(sub)));
            next += at + 1;
            i += 1;
        }
    }

    /// Values up to `)`, separated by commas and/or newlines (2018 dumps omit commas), each
    /// with its type or, as PyTorch's parser allows, none (a Tensor).
    fn params(&mut self, g: &mut Graph, scope: &mut Scope, b: Block) -> Result<(), Diagnostic> {
        self.c.skip_ws();
        if self.c.eat(")") {
            return Ok(());
        }
        loop {
            self.c.skip_ws();
            let (name, pos) = self.def_name()?;
            let ty = self.optional_type()?;
            let v = g.block_add_input(b, ty);
            self.define(g, scope, v, name, pos)?;
            self.c.skip_spaces();
            let comma = self.c.eat(",");
            self.c.skip_ws();
            if self.c.eat(")") {
                return Ok(());
            }
            if !comma && !self.c.starts_with("%") {
                return Err(self.c.error(format!(
                    "expected ',' or ')' but found {}",
                    self.c.describe()
                )));
            }
        }
    }

    /// `%name` being defined; returns the name and its offset.
    fn def_name(&mut self) -> Result<(&'a str, usize), Diagnostic> {
        let pos = self.c.offset();
        self.c.expect("%")?;
        let name = self.c.take_while(is_name_byte);
        if name.is_empty() {
            return Err(self.c.error("expected a value name after '%'"));
        }
        Ok((name, pos))
    }

    /// `: type` after a value being defined, or `Tensor` where the text gives none (PyTorch's
    /// parser infers Tensor for `graph(%a):` and `%x = a::a(%x)`).
    fn optional_type(&mut self) -> Result<Type, Diagnostic> {
        self.c.skip_spaces();
        if !self.c.eat(":") {
            return Ok(Type::tensor());
        }
        self.c.skip_spaces();
        parse_type_at(&mut self.c)
    }

    /// `word (`, the opening of a `return` or `->` list, with any spaces between.
    fn open_list(&mut self, word: &str) -> Result<(), Diagnostic> {
        if self.c.eat(&format!("{word} (")) {
            return Ok(());
        }
        self.c.expect(word)?;
        self.c.skip_spaces();
        self.c.expect("(")
    }

    /// After an item of a list closed by `close`: `true` at the close (consumed), `false`
    /// after a comma (consumed). PyTorch prints `, `; its parser takes any spacing.
    fn list_separator(&mut self, close: &str) -> Result<bool, Diagnostic> {
        if self.c.eat(close) {
            return Ok(true);
        }
        if self.c.eat(", ") {
            return Ok(false);
        }
        self.c.skip_spaces();
        if self.c.eat(close) {
            return Ok(true);
        }
        if !self.c.eat(",") {
            self.c.expect(", ")?;
        }
        self.c.skip_spaces();
        Ok(false)
    }

    fn define(
        &mut self,
        g: &mut Graph,
        scope: &mut Scope,
        v: Value,
        name: &str,
        pos: usize,
    ) -> Result<(), Diagnostic> {
        // A name defined again names the new value from here on, as in PyTorch's parser; the
        // earlier value keeps its uses (a debug name moves to `name.N`, see set_debug_name).
        if name.bytes().all(|b| b.is_ascii_digit()) {
            let unique: u64 = name
                .parse()
                .ok()
                .filter(|&u: &u64| u < u64::MAX / 2)
                .ok_or_else(|| Diagnostic::new(self.c.pos_at(pos), "value number out of range"))?;
            if scope.numbers.insert(unique) {
                g.set_unique(v, unique);
                scope.max_numbered = Some(scope.max_numbered.map_or(unique, |m| m.max(unique)));
            } else {
                // Its number is taken (`%6` again, or `%06`): it gets a fresh one after the
                // graph, as named values do.
                scope.named.push(v);
            }
        } else {
            g.set_debug_name(v, name);
            scope.named.push(v);
        }
        scope.values.insert(name.to_string(), v);
        Ok(())
    }

    /// `%a, %b` up to `close`.
    fn refs(&mut self, scope: &Scope, close: &str) -> Result<Vec<Value>, Diagnostic> {
        let mut out = Vec::new();
        self.c.skip_spaces();
        if self.c.eat(close) {
            return Ok(out);
        }
        loop {
            let pos = self.c.offset();
            self.c.expect("%")?;
            let name = self.c.take_while(is_name_byte);
            match scope.values.get(name) {
                Some(&v) => out.push(v),
                None => {
                    return Err(Diagnostic::new(
                        self.c.pos_at(pos),
                        format!("use of undefined value %{name}"),
                    ))
                }
            }
            if self.list_separator(close)? {
                return Ok(out);
            }
        }
    }

    fn end_of_line(&mut self) -> Result<(), Diagnostic> {
        self.c.skip_spaces();
        if self.c.eat("\n") {
            Ok(())
        } else {
            Err(self.c.error(format!(
                "expected end of line but found {}",
                self.c.describe()
            )))
        }
    }

    fn end_of_line_or_end(&mut self) -> Result<(), Diagnostic> {
        self.c.skip_spaces();
        if self.c.at_end() || self.c.eat("\n") {
            Ok(())
        } else {
            Err(self.c.error(format!(
                "expected end of line but found {}",
                self.c.describe()
            )))
        }
    }

    /// Skips blank lines and the indentation of the next one.
    fn next_line(&mut self) {
        self.c.skip_ws_and_comment_lines();
    }

    /// Node lines of block `b` until `return`, `->` or `}`.
    fn body(&mut self, g: &mut Graph, scope: &mut Scope, b: Block) -> Result<(), Diagnostic> {
        loop {
            self.next_line();
            if self.c.at_end() {
                return Err(self.c.error("unexpected end of input inside a graph body"));
            }
            if self.c.starts_with("return") || self.c.starts_with("->") || self.c.starts_with("}") {
                return Ok(());
            }
            let n = self.node(g, scope)?;
            g.block_append(b, n);
            loop {
                let save = self.c.offset();
                self.next_line();
                if self.c.starts_with("block") {
                    self.block(g, scope, n)?;
                } else {
                    self.c.set_offset(save);
                    break;
                }
            }
        }
    }

    /// `blockN(params):` node lines `-> (outputs)`.
    fn block(&mut self, g: &mut Graph, scope: &mut Scope, n: Node) -> Result<(), Diagnostic> {
        self.enter()?;
        let index = g.node_blocks(n).len();
        self.c.expect(&format!("block{index}("))?;
        let b = g.add_block(n);
        self.params(g, scope, b)?;
        if scope.brace {
            self.c.skip_spaces();
            self.c.expect("{")?;
        } else {
            self.c.expect(":")?;
        }
        self.end_of_line()?;
        self.body(g, scope, b)?;
        self.open_list("->")?;
        for v in self.refs(scope, ")")? {
            g.block_register_output(b, v);
        }
        self.end_of_line()?;
        if scope.brace {
            self.c.skip_ws();
            self.c.expect("}")?;
            self.end_of_line()?;
        }
        self.depth -= 1;
        Ok(())
    }

    /// One node line: outputs, kind, attributes, inputs, scope and source comment.
    fn node(&mut self, g: &mut Graph, scope: &mut Scope) -> Result<Node, Diagnostic> {
        let start = self.c.pos();
        let mut outs = Vec::new();
        if self.c.starts_with("%") {
            loop {
                let (name, pos) = self.def_name()?;
                let ty = self.optional_type()?;
                outs.push((name, pos, ty));
                if self.c.eat(", ") {
                    continue;
                }
                let save = self.c.offset();
                self.c.skip_spaces();
                if !self.c.eat(",") {
                    self.c.set_offset(save);
                    break;
                }
                self.c.skip_spaces();
            }
        }
        self.c.skip_spaces();
        self.c.expect("=")?;
        self.c.skip_spaces();
        let n;
        if self.c.eat("^") {
            n = self.python_op(g)?;
        } else {
            let kind_pos = self.c.offset();
            let text = self.c.take_while(is_kind_byte);
            let Some((ns, name)) = text.split_once("::") else {
                return Err(Diagnostic::new(
                    self.c.pos_at(kind_pos),
                    format!("expected an operator 'namespace::name' but found '{text}'"),
                ));
            };
            if ns.is_empty() || name.is_empty() || name.contains(':') {
                return Err(Diagnostic::new(
                    self.c.pos_at(kind_pos),
                    format!("'{text}' is not an operator name"),
                ));
            }
            // A subgraph node prints as `kind_<i>`; whether it is one (and not an operator
            // whose name ends in digits) is settled by the `with` sections after the graph.
            let digits = text
                .bytes()
                .rev()
                .take_while(|b| b.is_ascii_digit())
                .count();
            let stem = &text[..text.len() - digits];
            n = g.create(Symbol::new(text), &[], 0);
            if digits > 0 && stem.ends_with('_') && !stem.ends_with(":_") {
                scope.groups.push(n);
            }
            self.c.skip_spaces();
            if self.c.starts_with("[") {
                self.attributes(g, n, &outs)?;
                self.c.skip_spaces();
            }
        }
        self.c.expect("(")?;
        for v in self.refs(scope, ")")? {
            g.add_node_input(n, v);
        }
        if self.graphs == 1 {
            self.positions.insert(n, start);
        }
        for (name, pos, ty) in outs {
            let v = g.add_node_output(n, ty);
            self.define(g, scope, v, name, pos)?;
        }
        if self.c.eat(", scope: ") {
            let rest = self.c.rest();
            let line_end = rest.find('\n').unwrap_or(rest.len());
            let end = rest[..line_end].find(" # ").unwrap_or(line_end);
            g.set_scope(n, Some(rest[..end].to_string()));
            self.c.set_offset(self.c.offset() + end);
        }
        if self.c.eat(" # ") {
            let pos = self.c.offset();
            let text = self.c.take_line();
            let range = parse_source_range(text).ok_or_else(|| {
                Diagnostic::new(
                    self.c.pos_at(pos),
                    "expected a source location 'file:line:col'",
                )
            })?;
            g.set_source_range(n, Some(range));
        }
        self.end_of_line()?;
        Ok(n)
    }

    /// `^name[attrs](scalars)` of a Python operator.
    fn python_op(&mut self, g: &mut Graph) -> Result<Node, Diagnostic> {
        let name = self.c.take_while(|b| b != b'[' && b != b'(' && b != b'\n');
        let n = g.create(Symbol::prim("PythonOp"), &[], 0);
        g.set_attr(n, python_name(), AttrValue::Str(name.to_string()));
        if self.c.starts_with("[") {
            self.attributes(g, n, &[])?;
        }
        let start = self.c.offset();
        self.balanced('(', ')')?;
        let scalars = self.c.text()[start..self.c.offset()].to_string();
        g.set_attr(n, python_scalars(), AttrValue::Str(scalars));
        Ok(n)
    }

    /// Skips a balanced `open ... close` group, quotes respected.
    fn balanced(&mut self, open: char, close: char) -> Result<(), Diagnostic> {
        self.c.expect(&open.to_string())?;
        let mut depth = 1usize;
        while depth > 0 {
            match self.c.bump() {
                None | Some('\n') => return Err(self.c.error(format!("missing '{close}'"))),
                Some('"') => {
                    self.c.set_offset(self.c.offset() - 1);
                    self.quoted()?;
                }
                Some(ch) if ch == open => depth += 1,
                Some(ch) if ch == close => depth -= 1,
                _ => {}
            }
        }
        Ok(())
    }

    /// `[name=value, ...]`.
    fn attributes(
        &mut self,
        g: &mut Graph,
        n: Node,
        outs: &[(&str, usize, Type)],
    ) -> Result<(), Diagnostic> {
        self.c.expect("[")?;
        self.c.skip_spaces();
        if self.c.eat("]") {
            return Ok(());
        }
        let out_ty = outs.first().map(|o| &o.2);
        loop {
            let name = self
                .c
                .take_while(|b| b.is_ascii_alphanumeric() || b == b'_');
            if name.is_empty() {
                return Err(self.c.error(format!(
                    "expected an attribute name but found {}",
                    self.c.describe()
                )));
            }
            self.c.skip_spaces();
            self.c.expect("=")?;
            let value = self.attr_value(g.kind(n), out_ty)?;
            g.set_attr(n, Symbol::attr(name), value);
            if self.list_separator("]")? {
                return Ok(());
            }
        }
    }

    fn attr_value(&mut self, kind: Symbol, out_ty: Option<&Type>) -> Result<AttrValue, Diagnostic> {
        if let Some(t) = self.tensor_print(out_ty)? {
            return Ok(AttrValue::Tensor(t));
        }
        // Not a tensor print (which may start with a space): spaces before a value are
        // PyTorch's parser's to skip (`[ a = 1 ]`). Text that is neither keeps them (an
        // opaque value prints as written).
        let before_spaces = self.c.offset();
        self.c.skip_spaces();
        if self.c.offset() > before_spaces
            && self
                .c
                .peek()
                .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_')
            && !self.const_word_ahead()
        {
            self.c.set_offset(before_spaces);
        }
        if self.c.eat("<Graph>") {
            return Ok(AttrValue::Graph(Box::default()));
        }
        if self.c.eat("[<Graphs>]") {
            return Ok(AttrValue::Graphs(Vec::new()));
        }
        if self.c.eat("[<Tensors>]") {
            return Ok(AttrValue::Tensors(Vec::new()));
        }
        if self.c.starts_with("[") && self.type_list_ahead() {
            self.c.eat("[");
            let mut tys = Vec::new();
            loop {
                tys.push(parse_type_at(&mut self.c)?);
                if self.list_separator("]")? {
                    return Ok(AttrValue::Types(tys));
                }
            }
        }
        let starts_ident = self
            .c
            .peek()
            .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '_');
        if starts_ident && !self.const_word_ahead() {
            if kind == sym::constant() {
                return Ok(AttrValue::IValue(ConstValue::Opaque(self.opaque()?)));
            }
            return Ok(AttrValue::Type(parse_type_at(&mut self.c)?));
        }
        let value = self.constant(out_ty)?;
        Ok(match value {
            ConstValue::Int(i) => AttrValue::Int(i),
            ConstValue::Float(x) => AttrValue::Float(x),
            ConstValue::Complex(re, im) => AttrValue::Complex(re, im),
            ConstValue::Str(s) => AttrValue::Str(s),
            ConstValue::Tensor(t) => AttrValue::Tensor(t),
            ConstValue::List(items) => list_attr(items),
            other => AttrValue::IValue(other),
        })
    }

    /// Whether the text is `[` followed by a type (for `types=[...]`).
    fn type_list_ahead(&self) -> bool {
        let rest = &self.c.rest()[1..];
        let first = rest.chars().next();
        if !first
            .is_some_and(|ch| ch.is_ascii_alphabetic() || ch == '(' && !rest.starts_with("(1,.,"))
        {
            return false;
        }
        // `[(int, str)]` is a tuple type; `[(1, 2)]` and `[(True, 1)]` are constants.
        let rest = rest.strip_prefix('(').unwrap_or(rest);
        if first == Some('(') && !rest.starts_with(|ch: char| ch.is_ascii_alphabetic()) {
            return false;
        }
        !["True", "False", "None", "torch.device(", "object("]
            .iter()
            .any(|w| rest.starts_with(w))
    }

    fn const_word_ahead(&self) -> bool {
        ["True", "False", "None", "inf", "nan", "torch.device("]
            .iter()
            .any(|w| {
                self.c.starts_with(w)
                    && !self.c.rest()[w.len()..]
                        .bytes()
                        .next()
                        .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.')
                    || (*w == "torch.device(" && self.c.starts_with(w))
            })
    }

    /// Text up to the next `,`, `]` or `)` outside brackets and quotes (enum values, objects).
    fn opaque(&mut self) -> Result<String, Diagnostic> {
        let start = self.c.offset();
        let mut depth = 0usize;
        loop {
            match self.c.peek() {
                None | Some('\n') => break,
                Some('"') => {
                    self.quoted()?;
                    continue;
                }
                Some('(' | '[' | '{') => depth += 1,
                Some(')' | ']' | '}') if depth == 0 => break,
                Some(')' | ']' | '}') => depth -= 1,
                Some(',') if depth == 0 => break,
                _ => {}
            }
            self.c.bump();
        }
        if self.c.offset() == start {
            return Err(self
                .c
                .error(format!("expected a value but found {}", self.c.describe())));
        }
        Ok(self.c.text()[start..self.c.offset()].to_string())
    }

    /// An IValue as `IValue::repr` prints it.
    fn constant(&mut self, out_ty: Option<&Type>) -> Result<ConstValue, Diagnostic> {
        self.enter()?;
        let v = self.constant_inner(out_ty);
        self.depth -= 1;
        v
    }

    fn constant_inner(&mut self, out_ty: Option<&Type>) -> Result<ConstValue, Diagnostic> {
        if let Some(t) = self.tensor_print(out_ty)? {
            return Ok(ConstValue::Tensor(t));
        }
        if self.c.eat("[<Tensors>]") {
            return Ok(ConstValue::Opaque("[<Tensors>]".into()));
        }
        let before_spaces = self.c.offset();
        self.c.skip_spaces();
        match self.c.peek() {
            Some('"') => return Ok(ConstValue::Str(self.quoted()?)),
            Some('[') => {
                self.c.bump();
                let mut items = Vec::new();
                let save = self.c.offset();
                self.c.skip_spaces();
                if !self.c.eat("]") {
                    self.c.set_offset(save);
                    loop {
                        items.push(self.constant(None)?);
                        if self.list_separator("]")? {
                            break;
                        }
                    }
                }
                return Ok(ConstValue::List(items));
            }
            Some('(') => {
                self.c.bump();
                let mut items = Vec::new();
                let save = self.c.offset();
                self.c.skip_spaces();
                if !self.c.eat(")") {
                    self.c.set_offset(save);
                    loop {
                        items.push(self.constant(None)?);
                        if items.len() == 1 && self.c.eat(",)") {
                            break;
                        }
                        if self.list_separator(")")? {
                            break;
                        }
                    }
                }
                return Ok(ConstValue::Tuple(items));
            }
            Some('{') => {
                let start = self.c.offset();
                self.balanced('{', '}')?;
                let text = &self.c.text()[start..self.c.offset()];
                return Ok(ConstValue::Opaque(text.to_string()));
            }
            _ => {}
        }
        for (word, value) in [
            ("True", ConstValue::Bool(true)),
            ("False", ConstValue::Bool(false)),
            ("None", ConstValue::None),
        ] {
            if self.c.starts_with(word)
                && !self.c.rest()[word.len()..]
                    .bytes()
                    .next()
                    .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
            {
                self.c.eat(word);
                return Ok(value);
            }
        }
        if self.c.eat("torch.device(") {
            let d = self.quoted()?;
            self.c.expect(")")?;
            return Ok(ConstValue::Device(d));
        }
        if let Some(v) = self.number()? {
            return Ok(v);
        }
        // Opaque text keeps its spaces: it prints back as written.
        self.c.set_offset(before_spaces);
        Ok(ConstValue::Opaque(self.opaque()?))
    }

    /// An int, a float (`1.`, `2.5e-05`, `inf`, `-nan`) or a complex (`1.+2.j`).
    fn number(&mut self) -> Result<Option<ConstValue>, Diagnostic> {
        let start = self.c.offset();
        let Some(re) = self.real()? else {
            return Ok(None);
        };
        if matches!(self.c.peek(), Some('+' | '-')) {
            let save = self.c.offset();
            if let Some(im) = self.real()? {
                if self.c.eat("j") {
                    return Ok(Some(ConstValue::Complex(re.as_f64(), im.as_f64())));
                }
            }
            self.c.set_offset(save);
        }
        if self.c.eat("j") {
            return Ok(Some(ConstValue::Complex(0.0, re.as_f64())));
        }
        let _ = start;
        Ok(Some(match re {
            Num::Int(i) => ConstValue::Int(i),
            Num::Float(x) => ConstValue::Float(x),
        }))
    }

    fn real(&mut self) -> Result<Option<Num>, Diagnostic> {
        let start = self.c.offset();
        let mut len = 0;
        let rest = self.c.rest().as_bytes();
        if matches!(rest.first(), Some(b'-' | b'+')) {
            len += 1;
        }
        for word in ["inf", "nan"] {
            if self.c.rest()[len..].starts_with(word) {
                let text = &self.c.rest()[..len + 3];
                self.c.set_offset(start + len + 3);
                let neg = text.starts_with('-');
                let x = if word == "inf" {
                    f64::INFINITY
                } else {
                    f64::NAN
                };
                return Ok(Some(Num::Float(if neg { -x } else { x })));
            }
        }
        let digits_start = len;
        while rest.get(len).is_some_and(|b| b.is_ascii_digit()) {
            len += 1;
        }
        if len == digits_start {
            return Ok(None);
        }
        let mut float = false;
        if rest.get(len) == Some(&b'.') {
            float = true;
            len += 1;
            while rest.get(len).is_some_and(|b| b.is_ascii_digit()) {
                len += 1;
            }
        }
        if matches!(rest.get(len), Some(b'e' | b'E')) {
            let mut k = len + 1;
            if matches!(rest.get(k), Some(b'-' | b'+')) {
                k += 1;
            }
            if rest.get(k).is_some_and(|b| b.is_ascii_digit()) {
                float = true;
                while rest.get(k).is_some_and(|b| b.is_ascii_digit()) {
                    k += 1;
                }
                len = k;
            }
        }
        let text = &self.c.rest()[..len];
        self.c.set_offset(start + len);
        if float {
            let t = text.strip_suffix('.').unwrap_or(text);
            let t = t.replace(".e", "e");
            t.parse::<f64>()
                .map(|x| Some(Num::Float(x)))
                .map_err(|_| Diagnostic::new(self.c.pos_at(start), format!("bad number '{text}'")))
        } else {
            text.parse::<i64>().map(|i| Some(Num::Int(i))).map_err(|_| {
                Diagnostic::new(
                    self.c.pos_at(start),
                    format!("integer '{text}' out of range"),
                )
            })
        }
    }

    /// A string in `c10::printQuotedString` form.
    fn quoted(&mut self) -> Result<String, Diagnostic> {
        let start = self.c.offset();
        self.c.expect("\"")?;
        let mut bytes = Vec::new();
        loop {
            let Some(ch) = self.c.bump() else {
                return Err(Diagnostic::new(self.c.pos_at(start), "unterminated string"));
            };
            match ch {
                '"' => break,
                '\n' => return Err(Diagnostic::new(self.c.pos_at(start), "unterminated string")),
                '\\' => {
                    let esc_pos = self.c.offset();
                    let Some(e) = self.c.bump() else {
                        return Err(Diagnostic::new(self.c.pos_at(start), "unterminated string"));
                    };
                    let simple = match e {
                        '\\' => Some(b'\\'),
                        '\'' => Some(b'\''),
                        '"' => Some(b'"'),
                        'a' => Some(0x07),
                        'b' => Some(0x08),
                        'f' => Some(0x0c),
                        'n' => Some(b'\n'),
                        'r' => Some(b'\r'),
                        't' => Some(b'\t'),
                        'v' => Some(0x0b),
                        _ => None,
                    };
                    if let Some(b) = simple {
                        bytes.push(b);
                        continue;
                    }
                    // Three "digits" '0'+d computed on a signed char (see print.rs).
                    self.c.set_offset(esc_pos);
                    let digits = self.c.rest().as_bytes();
                    if digits.len() < 3
                        || digits[..3]
                            .iter()
                            .any(|&d| !(b'0' - 8..=b'0' + 8).contains(&d))
                    {
                        return Err(self.c.error("bad escape in string"));
                    }
                    let v = (digits[0] as i32 - 48) * 64
                        + (digits[1] as i32 - 48) * 8
                        + (digits[2] as i32 - 48);
                    bytes.push(v as u8);
                    self.c.set_offset(esc_pos + 3);
                }
                other => {
                    let mut buf = [0u8; 4];
                    bytes.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
        String::from_utf8(bytes)
            .map_err(|_| Diagnostic::new(self.c.pos_at(start), "string is not valid UTF-8"))
    }

    /// A tensor in attribute form: `{2.5}`, `<Tensor>`, or the tensor printer's text ending in
    /// `[ CPUFloatType{2,2} ]`. `None` (cursor unchanged) when the text is not a tensor.
    fn tensor_print(&mut self, out_ty: Option<&Type>) -> Result<Option<TensorLiteral>, Diagnostic> {
        let out_tensor = match out_ty {
            Some(Type::Tensor(t)) => Some(t),
            _ => None,
        };
        let known_sizes = out_tensor.and_then(|t| t.sizes.as_ref()).and_then(|s| {
            s.iter()
                .map(|d| match d {
                    crate::types::Dim::Known(n) => Some(*n),
                    _ => None,
                })
                .collect::<Option<Vec<i64>>>()
        });
        let out_dtype = out_tensor.and_then(|t| t.dtype);
        let start = self.c.offset();
        if self.c.eat("<Tensor>") {
            return Ok(Some(TensorLiteral {
                dtype: out_dtype.unwrap_or(ScalarType::Float),
                sizes: known_sizes.unwrap_or_default(),
                data: None,
                printed: Some("<Tensor>".into()),
                handle: None,
            }));
        }
        if self.c.starts_with("{") && !self.c.rest()[1..].trim_start().starts_with('"') {
            self.c.bump();
            let value = if self.c.eat("(") {
                let re = self
                    .real()?
                    .ok_or_else(|| self.c.error("expected a number"))?;
                self.c.expect(",")?;
                let im = self
                    .real()?
                    .ok_or_else(|| self.c.error("expected a number"))?;
                self.c.expect(")")?;
                Scalar::Complex(re.as_f64(), im.as_f64())
            } else {
                match self.real()? {
                    Some(Num::Int(i)) => Scalar::Int(i),
                    Some(Num::Float(x)) => Scalar::Float(x),
                    None => {
                        self.c.set_offset(start);
                        return Ok(None);
                    }
                }
            };
            if !self.c.eat("}") {
                self.c.set_offset(start);
                return Ok(None);
            }
            let dtype = out_dtype.unwrap_or(match value {
                Scalar::Int(_) => ScalarType::Long,
                Scalar::Float(_) => ScalarType::Double,
                Scalar::Complex(..) => ScalarType::ComplexDouble,
            });
            let sizes = known_sizes
                .filter(|s| s.iter().product::<i64>() == 1)
                .unwrap_or_default();
            let printed = self.c.text()[start..self.c.offset()].to_string();
            let mut lit = TensorLiteral::from_values(dtype, sizes.clone(), &[value]).unwrap_or(
                TensorLiteral {
                    dtype,
                    sizes,
                    data: None,
                    printed: None,
                    handle: None,
                },
            );
            lit.printed = Some(printed);
            return Ok(Some(lit));
        }
        // The tensor printer: starts with a space, a sign or digit followed by a space, a
        // `(1,.,.) =` header, or its `[ XType{...} ]` footer alone (empty tensors).
        let rest = self.c.rest();
        let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
        let looks_printed = line.starts_with(' ')
            || line.starts_with("MKLDNN Tensor: ")
            || line.starts_with("(1,")
            || line.starts_with("[ ")
            || {
                let num_len = line
                    .bytes()
                    .take_while(|b| b.is_ascii_digit() || b"+-.e".contains(b))
                    .count();
                num_len > 0 && line[num_len..].starts_with(' ')
            };
        if !looks_printed {
            return Ok(None);
        }
        // `[ CPUFloatType{2} ]`, or `[ Variable[CPUFloatType]{2} ]` in 2018 dumps.
        let (type_at, brace_at) = match (line.find("Type{"), line.find("Type]{")) {
            (Some(i), _) => (i, i + 4),
            (None, Some(i)) => (i, i + 5),
            (None, None) => return Ok(None),
        };
        let Some(footer_start) = line[..type_at].rfind("[ ") else {
            return Ok(None);
        };
        let Some(close) = line[type_at..].find(" ]") else {
            return Err(self.c.error("unterminated tensor constant"));
        };
        let end = type_at + close + 2;
        let text = &line[..end];
        let head = &line[footer_start + 2..type_at];
        let dtype = ScalarType::ALL
            .into_iter()
            .filter(|s| head.ends_with(s.name()))
            .max_by_key(|s| s.name().len())
            .or(out_dtype)
            .unwrap_or(ScalarType::Float);
        let dims_text = &line[brace_at + 1..];
        let dims_text = &dims_text[..dims_text.find('}').unwrap_or(0)];
        let sizes: Vec<i64> = if dims_text.is_empty() {
            Vec::new()
        } else {
            dims_text
                .split(',')
                .map(|d| d.trim().parse::<i64>().unwrap_or(-1))
                .collect()
        };
        let body = &line[..footer_start];
        let data = printed_integers(body.strip_prefix("MKLDNN Tensor: ").unwrap_or(body));
        let mut lit = TensorLiteral {
            dtype,
            sizes: sizes.clone(),
            data: None,
            printed: Some(text.to_string()),
            handle: None,
        };
        // Only integral prints are exact; fixed and scientific prints keep 4 digits.
        if let Some(values) = data {
            if let Some(with_data) = TensorLiteral::from_values(dtype, sizes, &values) {
                lit.data = with_data.data;
            }
        }
        self.c.set_offset(start + end);
        Ok(Some(lit))
    }
}

#[derive(Copy, Clone)]
enum Num {
    Int(i64),
    Float(f64),
}

impl Num {
    fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(x) => x,
        }
    }
}

/// The values of a tensor print when every one is a plain integer (the exact `intMode` form);
/// `None` when any is scaled, fractional or in scientific notation.
fn printed_integers(body: &str) -> Option<Vec<Scalar>> {
    let mut out = Vec::new();
    let mut tokens = body.split_whitespace().peekable();
    while let Some(tok) = tokens.next() {
        if tok.starts_with('(') && tok.ends_with(".,.)") {
            tokens.next_if_eq(&"=");
            continue;
        }
        if tok == "*" || tokens.peek() == Some(&"*") {
            return None;
        }
        out.push(Scalar::Int(tok.parse::<i64>().ok()?));
    }
    Some(out)
}

fn list_attr(items: Vec<ConstValue>) -> AttrValue {
    if items.iter().all(|v| matches!(v, ConstValue::Int(_))) {
        return AttrValue::Ints(
            items
                .iter()
                .map(|v| if let ConstValue::Int(i) = v { *i } else { 0 })
                .collect(),
        );
    }
    if items.iter().all(|v| matches!(v, ConstValue::Float(_))) {
        return AttrValue::Floats(
            items
                .iter()
                .map(|v| {
                    if let ConstValue::Float(x) = v {
                        *x
                    } else {
                        0.0
                    }
                })
                .collect(),
        );
    }
    if items.iter().all(|v| matches!(v, ConstValue::Str(_))) {
        return AttrValue::Strs(
            items
                .into_iter()
                .map(|v| {
                    if let ConstValue::Str(s) = v {
                        s
                    } else {
                        String::new()
                    }
                })
                .collect(),
        );
    }
    AttrValue::IValue(ConstValue::List(items))
}

/// `file:line:col` (the file may itself contain colons).
fn parse_source_range(text: &str) -> Option<SourceRange> {
    let mut parts = text.rsplitn(3, ':');
    let col = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    let file = parts.next()?;
    Some(SourceRange {
        file: Arc::from(file),
        line,
        col,
    })
}

/// The attribute holding a Python operator's name (`^name`), not printed in its brackets.
pub fn python_name() -> Symbol {
    Symbol::new("python::name")
}

/// The attribute holding a Python operator's printed scalar arguments.
pub fn python_scalars() -> Symbol {
    Symbol::new("python::scalars")
}
