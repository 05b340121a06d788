//! The Python printer: a graph back to TorchScript source, the way `fn.code` and the code/
//! folder of a saved module show it (PyTorch's torch/csrc/jit/serialization/python_print.cpp).
//!
//! What it does, as PyTorch does:
//! - expressions are inlined into their single use when the value is unnamed and the nodes
//!   would be emitted in the same order when the expression is parsed back (a right-to-left
//!   pre-order scan of each node's inputs against the nodes before it); constants are always
//!   inlined;
//! - a line that grows to 40 columns or more splits its inlined inputs into assignments, left
//!   to right, so side effects keep their order;
//! - `prim::If` prints as `if`/`else` assigning the outputs in each branch, `prim::Loop` as
//!   `for _ in range(n)` or `while c` with loop-carried values assigned before the loop and at
//!   the end of the body, `prim::Enter`/`prim::Exit` as a `with` block;
//! - names come from debug names without their `.N` suffix (or `_`), made unique with numeric
//!   suffixes; aten ops print as `torch.op(...)`, others as `ops.ns.op(...)`, arguments with
//!   their schema's default values dropped from the end and keyword-only ones named.
//!
//! Signatures need argument names and defaults, which graphs do not hold: they come from the
//! function's schema when one is given, else from the graph's inputs.

use hashbrown::{HashMap, HashSet};

use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::catalogue::resolve_node;
use ember_dialects::schema::{format_double, quoted_string, Argument, FunctionSchema};
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Symbol, Type, Value};

use crate::fold::constant::constant_value;

/// Prints function `name` with graph `g` as `def name(...) -> T:` and its body. `schema`, when
/// given, supplies the argument names, types, defaults and the return type.
pub fn print_function(
    g: &Graph,
    name: &str,
    schema: Option<&FunctionSchema>,
) -> Result<String, String> {
    print_function_in(g, name, schema, "__torch__")
}

/// [`print_function`] for a function of the Python module `namespace` (`__torch__.m` for module
/// `m`): function constants, which graphs name without their module, print as
/// `<namespace>.<name>`.
pub fn print_function_in(
    g: &Graph,
    name: &str,
    schema: Option<&FunctionSchema>,
    namespace: &str,
) -> Result<String, String> {
    let mut p = Printer::new(g, namespace);
    p.print_function(name, schema, true)?;
    Ok(p.body)
}

/// As [`print_function_in`] for an archive's code: values code cannot spell (tensors,
/// non-ASCII strings) print as `CONSTANTS.cN` and are appended to `constants`, whose length
/// numbers the next one (the archive's `constants.pkl` holds them in that order).
pub fn print_function_with_constants(
    g: &Graph,
    name: &str,
    schema: Option<&FunctionSchema>,
    constants: &mut Vec<AttrValue>,
) -> Result<Printed, String> {
    let mut p = Printer::new(g, "__torch__");
    p.constant_base = constants.len();
    p.print_function(name, schema, true)?;
    constants.extend(p.constants.take());
    Ok(Printed {
        text: p.body,
        ranges: p.ranges,
    })
}

/// Printed code and, for the byte offset where each node's statement starts, the node's
/// source range (an archive's `.debug_pkl`).
pub struct Printed {
    pub text: String,
    pub ranges: Vec<(usize, ember_dialects::SourceRange)>,
}

/// A method: as [`print_function`], with the first argument (`self`) printed without its type,
/// as PyTorch prints the methods of a class.
pub fn print_method(
    g: &Graph,
    name: &str,
    schema: Option<&FunctionSchema>,
) -> Result<String, String> {
    let mut p = Printer::new(g, "__torch__");
    p.print_function(name, schema, false)?;
    Ok(p.body)
}

/// Names PyTorch never gives a printed value: keywords, and names the printed code uses.
const RESERVED_NAMES: &[&str] = &[
    "_",
    "as",
    "aten",
    "attribute",
    "CONSTANTS",
    "fork",
    "getattr",
    "inf",
    "nan",
    "infj",
    "nanj",
    "ops",
    "__torch__",
    "and",
    "assert",
    "async",
    "await",
    "break",
    "class",
    "continue",
    "def",
    "del",
    "elif",
    "else",
    "except",
    "False",
    "finally",
    "for",
    "from",
    "global",
    "if",
    "import",
    "in",
    "is",
    "lambda",
    "None",
    "nonlocal",
    "not",
    "or",
    "pass",
    "raise",
    "return",
    "True",
    "try",
    "with",
    "while",
    "yield",
    "uninitialized",
    "unchecked_cast",
];

pub(crate) fn is_valid_identifier(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .enumerate()
            .all(|(i, c)| c.is_ascii_alphabetic() || c == b'_' || (i > 0 && c.is_ascii_digit()))
        && !PYTHON_KEYWORDS.contains(&name)
}

/// Python's keywords: names code cannot spell as identifiers (`getattr(self, "if")` instead).
const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// `candidate` rewritten into an identifier: a leading `_` before a digit (or for an empty
/// name), other characters than letters, digits and `_` replaced by `_`.
/// The name a parameter with debug name `debug` is printed with: its base (no `.N`), made a
/// valid identifier.
pub fn parameter_name(debug: &str) -> String {
    make_valid_identifier(debug_name_base(debug))
}

fn make_valid_identifier(candidate: &str) -> String {
    let mut s = String::new();
    if candidate.is_empty() || candidate.as_bytes()[0].is_ascii_digit() {
        s.push('_');
    }
    for c in candidate.chars() {
        s.push(if c.is_ascii_alphanumeric() || c == '_' {
            c
        } else {
            '_'
        });
    }
    s
}

/// `Value::debugNameBase`: the debug name without a trailing `.N`.
fn debug_name_base(name: &str) -> &str {
    match name.rfind('.') {
        Some(dot)
            if dot + 1 < name.len() && name[dot + 1..].bytes().all(|c| c.is_ascii_digit()) =>
        {
            &name[..dot]
        }
        _ => name,
    }
}

/// Whether a list or dict of `elem` can be printed without an `annotate(...)`.
fn element_type_can_be_inferred(elem: &Type) -> bool {
    !matches!(
        elem,
        Type::Union(_) | Type::Optional(_) | Type::Number | Type::Interface(_) | Type::Any
    )
}

/// How code annotates a value of type `ty`: its `repr_str`, with enum types by their
/// qualified name (PyTorch's `annotation_str`; `repr_str` writes `Enum<__torch__.Color>`).
pub(crate) fn annotation(ty: &Type) -> String {
    let mut text = ty.repr_str();
    while let Some(start) = text.find("Enum<") {
        let Some(len) = text[start..].find('>') else {
            break;
        };
        let name = text[start + 5..start + len].to_string();
        text.replace_range(start..start + len + 1, &name);
    }
    text
}

struct Printer<'g> {
    g: &'g Graph,
    namespace: &'g str,
    body: String,
    level: usize,
    /// Nodes whose single output is printed inline at its use.
    output_inline: HashSet<Node>,
    /// How a value prints when it is an expression.
    expr_table: HashMap<Value, String>,
    /// How a value prints when a statement assigned it a name (takes precedence).
    ident_refs: HashMap<Value, String>,
    used_names: HashSet<String>,
    next_id: HashMap<String, usize>,
    visited_split_inline_uses: HashMap<Node, i64>,
    seen_constants: HashSet<Node>,
    /// Optional and Union values already annotated at an assignment.
    annotated_unions: HashSet<Value>,
    /// Where each node with a source range started printing.
    ranges: Vec<(usize, ember_dialects::SourceRange)>,
    /// Values printed as `CONSTANTS.c{constant_base + i}`, in order.
    constants: std::cell::RefCell<Vec<AttrValue>>,
    constant_base: usize,
}

impl<'g> Printer<'g> {
    fn new(g: &'g Graph, namespace: &'g str) -> Printer<'g> {
        Printer {
            g,
            namespace,
            body: String::new(),
            level: 0,
            output_inline: HashSet::new(),
            expr_table: HashMap::new(),
            ident_refs: HashMap::new(),
            used_names: HashSet::new(),
            next_id: HashMap::new(),
            visited_split_inline_uses: HashMap::new(),
            seen_constants: HashSet::new(),
            annotated_unions: HashSet::new(),
            constants: std::cell::RefCell::new(Vec::new()),
            constant_base: 0,
            ranges: Vec::new(),
        }
    }

    // ---- deciding what to inline -------------------------------------------------------

    fn can_inline(&self, v: Value) -> bool {
        let g = self.g;
        let n = g.producer(v);
        if g.node_outputs(n).len() != 1 || g.uses(v).len() != 1 {
            return false;
        }
        let u = g.uses(v)[0];
        let user_kind = g.kind(u.user);
        if g.debug_name(v).is_some() && user_kind != sym::ret() {
            return false;
        }
        if !g.node_blocks(n).is_empty() {
            return false;
        }
        if user_kind == sym::loop_() && u.offset >= 2 {
            return false;
        }
        if [
            "prim::fork",
            "prim::rpc_async",
            "prim::rpc_sync",
            "prim::rpc_remote",
        ]
        .contains(&user_kind.as_str())
        {
            return false;
        }
        g.kind(n).as_str() != "prim::isinstance"
    }

    /// The node before `n` in its block, or the block's param node at the start.
    fn prev(&self, n: Node) -> Node {
        let g = self.g;
        let b = g.owning_block(n).expect("node in a block");
        if n == g.return_node(b) {
            return g.last_node(b).unwrap_or_else(|| g.param_node(b));
        }
        g.prev_node(n).unwrap_or_else(|| g.param_node(b))
    }

    fn previous_non_constant(&self, mut n: Node) -> Node {
        loop {
            n = self.prev(n);
            if self.g.kind(n) != sym::constant() {
                return n;
            }
        }
    }

    fn scan_value(&mut self, block_point: Node, v: Value) -> Node {
        let n = self.g.producer(v);
        let mut block_point = block_point;
        if n == block_point && self.can_inline(v) {
            block_point = self.scan_node(block_point);
            self.output_inline.insert(n);
        } else if self.g.kind(n) == sym::constant() {
            self.output_inline.insert(n);
        }
        block_point
    }

    fn scan_node(&mut self, n: Node) -> Node {
        if self.output_inline.contains(&n) {
            return n;
        }
        for b in self.g.node_blocks(n).to_vec() {
            self.scan_block(b);
        }
        let mut block_point = self.previous_non_constant(n);
        for &v in self.g.node_inputs(n).to_vec().iter().rev() {
            block_point = self.scan_value(block_point, v);
        }
        block_point
    }

    fn scan_block(&mut self, b: Block) {
        let ret = self.g.return_node(b);
        self.scan_node(ret);
        let nodes: Vec<Node> = self.g.block_nodes(b).collect();
        for n in nodes.into_iter().rev() {
            self.scan_node(n);
        }
    }

    fn build_constant_list_node(&mut self, n: Node, out: &mut Vec<Node>) {
        for &v in self.g.node_inputs(n) {
            let p = self.g.producer(v);
            if self.g.kind(p) == sym::constant() && self.seen_constants.insert(p) {
                out.push(p);
            }
        }
        for b in self.g.node_blocks(n).to_vec() {
            self.build_constant_list_block(b, out);
        }
    }

    fn build_constant_list_block(&mut self, b: Block, out: &mut Vec<Node>) {
        let nodes: Vec<Node> = self.g.block_nodes(b).collect();
        for n in nodes {
            self.build_constant_list_node(n, out);
        }
        let ret = self.g.return_node(b);
        self.build_constant_list_node(ret, out);
    }

    // ---- names --------------------------------------------------------------------------

    fn gen_name(&mut self, candidate: &str) -> String {
        let mut name = candidate.to_string();
        while self.used_names.contains(&name) || RESERVED_NAMES.contains(&name.as_str()) {
            let id = self.next_id.entry(name.clone()).or_insert(0);
            name = format!("{candidate}{id}");
            *id += 1;
        }
        self.used_names.insert(name.clone());
        name
    }

    fn gen_unique_name_for(&mut self, v: Value) -> String {
        let candidate = match self.g.debug_name(v) {
            Some(name) => make_valid_identifier(debug_name_base(name)),
            None => "_".to_string(),
        };
        self.gen_name(&candidate)
    }

    fn use_of(&self, v: Value) -> String {
        if let Some(name) = self.ident_refs.get(&v) {
            return name.clone();
        }
        self.expr_table.get(&v).cloned().unwrap_or_else(|| {
            // A value defined in a way the printer does not know: print its graph name.
            format!("%{}", self.g.value_name(v))
        })
    }

    fn assign_names(&mut self, values: &[Value]) {
        for &v in values {
            let name = self.gen_unique_name_for(v);
            self.ident_refs.insert(v, name);
        }
    }

    // ---- statements ---------------------------------------------------------------------

    fn indent(&mut self) {
        for _ in 0..self.level {
            self.body.push_str("  ");
        }
    }

    fn value_list(&self, values: &[Value], begin: &str, end: &str) -> String {
        let mut s = String::from(begin);
        for (i, &v) in values.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            s.push_str(&self.use_of(v));
        }
        s.push_str(end);
        s
    }

    fn print_assignment(&mut self, lhs: &[Value], rhs: &[Value]) {
        if lhs.is_empty() {
            return;
        }
        self.indent();
        let mut line = self.value_list(lhs, "", "");
        // Optional and Union types are kept with an annotation, once, where Python allows one
        // (not in a multiple assignment).
        if let [v] = lhs {
            let ty = self.g.ty(*v);
            if matches!(ty, Type::Optional(_) | Type::Union(_))
                && !self.expr_table.contains_key(v)
                && self.annotated_unions.insert(*v)
            {
                line.push_str(" : ");
                line.push_str(&annotation(ty));
            }
        }
        line.push_str(" = ");
        line.push_str(&self.value_list(rhs, "", ""));
        line.push('\n');
        self.body.push_str(&line);
    }

    fn print_annotated_assignment(&mut self, lhs: &[Value], rhs: &[Value]) {
        for (&l, &r) in lhs.iter().zip(rhs) {
            self.indent();
            let mut line = self.use_of(l);
            if self.g.ty(l) != self.g.ty(r) {
                line.push_str(": ");
                line.push_str(&annotation(self.g.ty(l)));
            }
            line.push_str(" = ");
            line.push_str(&self.use_of(r));
            line.push('\n');
            self.body.push_str(&line);
        }
    }

    fn print_if(&mut self, n: Node) -> Result<(), String> {
        let g = self.g;
        let outputs = g.node_outputs(n).to_vec();
        self.assign_names(&outputs);
        self.indent();
        let cond = self.use_of(g.input(n, 0));
        self.body.push_str(&format!("if {cond}:\n"));
        let blocks = g.node_blocks(n).to_vec();
        for (i, b) in blocks.into_iter().enumerate() {
            if i == 1 {
                self.indent();
                self.body.push_str("else:\n");
            }
            self.level += 1;
            self.print_block(b, !outputs.is_empty())?;
            let block_outputs = g.block_outputs(b).to_vec();
            self.print_assignment(&outputs, &block_outputs);
            self.level -= 1;
        }
        Ok(())
    }

    fn print_loop(&mut self, n: Node) -> Result<(), String> {
        let g = self.g;
        let body = g.node_blocks(n)[0];
        let max_trip_count = g.input(n, 0);
        let input_cond = g.input(n, 1);
        let carried_inputs = g.node_inputs(n)[2..].to_vec();
        let carried_outputs = g.node_outputs(n).to_vec();
        let body_inputs = g.block_inputs(body).to_vec();
        let body_outputs = g.block_outputs(body).to_vec();
        let current_trip_count = body_inputs[0];
        let next_cond = body_outputs[0];

        let is_true = |v: Value| matches!(constant_value(g, v), Some(ConstValue::Bool(true)));
        let always_true = is_true(input_cond) && is_true(next_cond);
        let trip_count_specified = !matches!(
            constant_value(g, max_trip_count),
            Some(ConstValue::Int(i64::MAX))
        ) || g.has_uses(current_trip_count);
        let emit_as_for = match (always_true, trip_count_specified) {
            (true, specified) => specified,
            (false, true) => {
                return Err(
                    "loop cannot be printed as python because it has gone through an \
                     optimization that combined while and for loops. File a bug"
                        .into(),
                )
            }
            (false, false) => false,
        };

        self.assign_names(&carried_outputs);
        for (&block_input, &output) in body_inputs[1..].iter().zip(&carried_outputs) {
            let expr = self.use_of(output);
            self.expr_table.insert(block_input, expr);
        }
        self.print_annotated_assignment(&carried_outputs, &carried_inputs);
        self.assign_names(&[current_trip_count]);
        if emit_as_for {
            self.indent();
            let line = format!(
                "for {} in range({}):\n",
                self.use_of(current_trip_count),
                self.use_of(max_trip_count)
            );
            self.body.push_str(&line);
        } else {
            self.print_assignment(&[current_trip_count], &[input_cond]);
            self.indent();
            let line = format!("while {}:\n", self.use_of(current_trip_count));
            self.body.push_str(&line);
        }
        self.level += 1;
        let offset = usize::from(emit_as_for);
        let carried_block_inputs = &body_inputs[offset..];
        self.print_block(body, !carried_block_inputs.is_empty())?;
        self.print_assignment(carried_block_inputs, &body_outputs[offset..]);
        self.level -= 1;
        Ok(())
    }

    fn is_long_line(&self, s: &str) -> bool {
        s.len() + self.level * 2 >= 40
    }

    fn is_non_constant_inline(&self, v: Value) -> bool {
        let p = self.g.producer(v);
        self.g.kind(p) != sym::constant() && self.output_inline.contains(&p)
    }

    /// Un-inlines the inlined inputs that precede `v`'s use (see the module documentation).
    fn split_long_inlines(&mut self, v: Value) {
        let mut to_split_reversed = Vec::new();
        let u = self.g.uses(v)[0];
        self.scan_long_inlines(u.user, u.offset as i64, &mut to_split_reversed);
        for &x in to_split_reversed.iter().rev() {
            let expr = self.use_of(x);
            self.print_output_definition(self.g.producer(x), &expr);
        }
    }

    fn scan_long_inlines(&mut self, user: Node, offset: i64, out: &mut Vec<Value>) {
        let present = self.visited_split_inline_uses.get(&user).copied();
        let lower = present.map_or(0, |p| p + 1);
        let mut i = offset;
        while i >= lower {
            let prev_arg = self.g.input(user, i as usize);
            if self.is_non_constant_inline(prev_arg) {
                out.push(prev_arg);
            }
            i -= 1;
        }
        self.visited_split_inline_uses.insert(user, offset);
        if present.is_none() && self.output_inline.contains(&user) {
            let u = self.g.uses(self.g.output(user, 0))[0];
            self.scan_long_inlines(u.user, u.offset as i64 - 1, out);
        }
    }

    fn print_output_definition(&mut self, n: Node, expr: &str) {
        let outputs = self.g.node_outputs(n).to_vec();
        self.assign_names(&outputs);
        self.indent();
        if !outputs.is_empty() {
            let lhs = self.value_list(&outputs, "", " = ");
            self.body.push_str(&lhs);
        }
        self.body.push_str(expr);
        self.body.push('\n');
    }

    fn print_node(&mut self, n: Node, print_const: bool) -> Result<(), String> {
        let g = self.g;
        let kind = g.kind(n);
        if !print_const && kind == sym::constant() {
            return Ok(());
        }
        if let Some(r) = g.source_range(n) {
            self.ranges.push((self.body.len(), r.clone()));
        }
        match kind.as_str() {
            "prim::Return" => {
                let inputs = g.node_inputs(n).to_vec();
                if !inputs.is_empty() {
                    self.indent();
                    let line = self.value_list(&inputs, "return ", "\n");
                    self.body.push_str(&line);
                }
            }
            "prim::Loop" => self.print_loop(n)?,
            "prim::If" => self.print_if(n)?,
            "prim::TupleUnpack" | "prim::ListUnpack" => {
                let outputs = g.node_outputs(n).to_vec();
                self.assign_names(&outputs);
                self.indent();
                if !outputs.is_empty() {
                    let lhs = self.value_list(&outputs, "", ", = ");
                    self.body.push_str(&lhs);
                }
                let rhs = self.use_of(g.input(n, 0));
                self.body.push_str(&rhs);
                self.body.push('\n');
            }
            "prim::SetAttr" => {
                let line = format!(
                    "{}.{} = {}\n",
                    self.use_of(g.input(n, 0)),
                    string_attr(g, n, "name")?,
                    self.use_of(g.input(n, 1))
                );
                self.indent();
                self.body.push_str(&line);
            }
            "prim::Enter" => {
                let (input, out) = (g.input(n, 0), g.output(n, 0));
                self.indent();
                let mut line = format!("with {}", self.use_of(input));
                if g.has_uses(out) {
                    self.assign_names(&[out]);
                    line.push_str(" as ");
                    line.push_str(&self.use_of(out));
                }
                line.push_str(":\n");
                self.body.push_str(&line);
                self.level += 1;
            }
            "prim::Exit" => {
                if g.prev_node(n).is_some_and(|p| g.kind(p) == sym::enter()) {
                    self.indent();
                    self.body.push_str("pass\n");
                }
                self.level = self.level.saturating_sub(1);
            }
            _ => {
                let rhs = self.rhs(n)?;
                let inline = self.output_inline.contains(&n);
                if !inline || (kind == sym::constant() && self.is_long_line(&rhs)) {
                    self.print_output_definition(n, &rhs);
                } else {
                    let out = g.output(n, 0);
                    let long = self.is_long_line(&rhs);
                    self.expr_table.insert(out, rhs);
                    if long {
                        self.split_long_inlines(out);
                    }
                }
            }
        }
        Ok(())
    }

    // ---- expressions --------------------------------------------------------------------

    fn rhs(&self, n: Node) -> Result<String, String> {
        let g = self.g;
        let kind = g.kind(n);
        let inputs = g.node_inputs(n);
        let out_ty = || g.ty(g.output(n, 0));
        Ok(match kind.as_str() {
            "prim::Uninitialized" => format!("uninitialized({})", annotation(out_ty())),
            "prim::Constant" => self.constant_rhs(n)?,
            "aten::ScalarImplicit" | "aten::FloatImplicit" | "aten::IntImplicit" => format!(
                "annotate({}, {})",
                annotation(out_ty()),
                self.use_of(inputs[0])
            ),
            "aten::Int" => self.value_list(inputs, "int(", ")"),
            "aten::Float" => self.value_list(inputs, "float(", ")"),
            "aten::Bool" => self.value_list(inputs, "bool(", ")"),
            "aten::str" => self.value_list(inputs, "str(", ")"),
            "aten::__getitem__" => {
                let base = self.use_of(inputs[0]);
                let base = if is_valid_identifier(&base) {
                    base
                } else {
                    format!("({base})")
                };
                format!("{base}[{}]", self.use_of(inputs[1]))
            }
            "prim::Print" => self.value_list(inputs, "print(", ")"),
            "aten::sorted" => self.value_list(inputs, "sorted(", ")"),
            "prim::TupleConstruct" => {
                let mut s = String::new();
                if let Type::Tuple(t) = out_ty() {
                    if t.names
                        .as_ref()
                        .is_some_and(|i| !i.qualified_name.is_empty())
                    {
                        s.push_str(&annotation(out_ty()));
                    }
                }
                let end = if inputs.len() == 1 { ",)" } else { ")" };
                s + &self.value_list(inputs, "(", end)
            }
            "prim::TupleIndex" => {
                format!("({})[{}]", self.use_of(inputs[0]), self.use_of(inputs[1]))
            }
            "prim::TupleSlice" => format!(
                "({})[{}:{}]",
                self.use_of(inputs[0]),
                int_attr(g, n, "beg")?,
                int_attr(g, n, "end")?
            ),
            "prim::ListConstruct" => {
                let elem = match out_ty() {
                    Type::List(e) => (**e).clone(),
                    _ => Type::Any,
                };
                if inputs.is_empty() {
                    format!("annotate({}, [])", annotation(out_ty()))
                } else if !element_type_can_be_inferred(&elem) {
                    format!(
                        "annotate({}, {})",
                        annotation(out_ty()),
                        self.value_list(inputs, "[", "]")
                    )
                } else {
                    self.value_list(inputs, "[", "]")
                }
            }
            "prim::DictConstruct" => {
                let mut d = String::from("{");
                for (i, pair) in inputs.chunks(2).enumerate() {
                    if i > 0 {
                        d.push_str(", ");
                    }
                    d.push_str(&self.use_of(pair[0]));
                    d.push_str(": ");
                    d.push_str(&pair.get(1).map(|&v| self.use_of(v)).unwrap_or_default());
                }
                d.push('}');
                let annotate = match out_ty() {
                    Type::Dict(k, v) => {
                        !element_type_can_be_inferred(k) || !element_type_can_be_inferred(v)
                    }
                    _ => true,
                };
                if inputs.is_empty() || annotate {
                    format!("annotate({}, {d})", annotation(out_ty()))
                } else {
                    d
                }
            }
            "prim::CreateObject" => {
                let cls = annotation(out_ty());
                format!("{cls}.__new__({cls})")
            }
            "prim::GetAttr" => {
                let field = string_attr(g, n, "name")?;
                if is_valid_identifier(&field) {
                    format!("{}.{field}", self.use_of(inputs[0]))
                } else {
                    format!(
                        "getattr({}, {})",
                        self.use_of(inputs[0]),
                        quoted_string(&field)
                    )
                }
            }
            "prim::CallFunction" => {
                let mut s = format!("{}(", self.use_of(inputs[0]));
                for &v in &inputs[1..] {
                    s.push_str(&self.use_of(v));
                    s.push_str(", ");
                }
                s + ")"
            }
            "prim::CallMethod" => {
                let mut s = format!(
                    "({}).{}(",
                    self.use_of(inputs[0]),
                    string_attr(g, n, "name")?
                );
                for &v in &inputs[1..] {
                    s.push_str(&self.use_of(v));
                    s.push_str(", ");
                }
                s + ")"
            }
            "aten::_unwrap_optional" => {
                let input = inputs[0];
                let arg = if *g.ty(input) == Type::None {
                    format!(
                        "annotate({}, {})",
                        annotation(&Type::optional(out_ty().clone())),
                        self.use_of(input)
                    )
                } else {
                    self.use_of(input)
                };
                format!("torch._unwrap_optional({arg})")
            }
            "prim::unchecked_unwrap_optional" | "prim::unchecked_cast" => format!(
                "unchecked_cast({}, {})",
                annotation(out_ty()),
                self.use_of(inputs[0])
            ),
            "prim::isinstance" => {
                let types = match g.attr(n, Symbol::attr("types")) {
                    Some(AttrValue::Types(ts)) => ts.clone(),
                    Some(AttrValue::Type(t)) => vec![t.clone()],
                    _ => return Err("prim::isinstance without attr::types".into()),
                };
                let names: Vec<String> = types.iter().map(annotation).collect();
                let tys = if names.len() == 1 {
                    names[0].clone()
                } else {
                    format!("({})", names.join(", "))
                };
                format!("isinstance({}, {tys})", self.use_of(inputs[0]))
            }
            "prim::tolist" => format!(
                "annotate({}, {}.tolist())",
                annotation(out_ty()),
                self.use_of(inputs[0])
            ),
            "prim::EnumValue" => format!("({}).value", self.use_of(inputs[0])),
            "prim::EnumName" => format!("({}).name", self.use_of(inputs[0])),
            _ => self.op_call(n),
        })
    }

    fn constant_rhs(&self, n: Node) -> Result<String, String> {
        let g = self.g;
        let out = g.output(n, 0);
        let ty = g.ty(out);
        if let Type::Function(qualname) = ty {
            return Ok(function_name(g, n, qualname, self.namespace));
        }
        if g.attr(n, sym::attr_value()).is_none() {
            return Ok("None".into());
        }
        // Tensors and strings code cannot spell go to the constant table.
        match g.attr(n, sym::attr_value()) {
            Some(v @ AttrValue::Tensor(_)) => return Ok(self.table_constant(v.clone())),
            // A list of tensors: a list of table entries.
            Some(AttrValue::Tensors(ts)) => {
                let items: Vec<String> = ts
                    .iter()
                    .map(|t| self.table_constant(AttrValue::Tensor(t.clone())))
                    .collect();
                return Ok(format!("[{}]", items.join(", ")));
            }
            Some(AttrValue::IValue(ConstValue::List(items)))
                if !items.is_empty()
                    && items.iter().all(|c| matches!(c, ConstValue::Tensor(_))) =>
            {
                let items: Vec<String> = items
                    .iter()
                    .filter_map(|c| match c {
                        ConstValue::Tensor(t) => {
                            Some(self.table_constant(AttrValue::Tensor(t.clone())))
                        }
                        _ => None,
                    })
                    .collect();
                return Ok(format!("[{}]", items.join(", ")));
            }
            Some(AttrValue::Str(s)) if !s.is_ascii() && !matches!(ty, Type::Enum(_)) => {
                return Ok(self.table_constant(AttrValue::Str(s.clone())))
            }
            _ => {}
        }
        match constant_value(g, out) {
            Some(c) => Ok(constant_repr(&c, ty)),
            None => match g.attr(n, sym::attr_value()) {
                // Tensors and other values code cannot spell go to the constant table.
                Some(AttrValue::Tensor(_)) => Ok("CONSTANTS.c0".into()),
                Some(AttrValue::Str(s)) if matches!(ty, Type::Enum(_)) => Ok(s.clone()),
                Some(AttrValue::IValue(ConstValue::Opaque(s))) => Ok(s.clone()),
                _ => Err(format!(
                    "constant of type {ty} cannot be printed as code: {}",
                    ember_dialects::print::print_node(g, n).trim_end()
                )),
            },
        }
    }

    fn table_constant(&self, v: AttrValue) -> String {
        let mut table = self.constants.borrow_mut();
        table.push(v);
        format!("CONSTANTS.c{}", self.constant_base + table.len() - 1)
    }

    /// `torch.op(...)` or `ops.ns.op(...)` with the arguments the schema needs.
    fn op_call(&self, n: Node) -> String {
        let g = self.g;
        let kind = g.kind(n);
        let mut s = if kind.namespace() == "aten" {
            format!("torch.{}(", kind.unqualified())
        } else {
            format!("ops.{}.{}(", kind.namespace(), kind.unqualified())
        };
        let inputs = g.node_inputs(n);
        let Ok(schema) = resolve_node(g, n) else {
            // Unknown to the catalogue: every input, positionally.
            return s + &self.value_list(inputs, "", ")");
        };
        let args = &schema.arguments;
        if args.is_empty() {
            return s + ")";
        }
        let (necessary, num_out) = necessary_args(g, args, inputs);
        for i in 0..necessary.min(inputs.len()) {
            if i > 0 {
                s.push_str(", ");
            }
            if let Some(arg) = args.get(i) {
                if arg.kwarg_only {
                    s.push_str(&arg.name);
                    s.push('=');
                }
            }
            s.push_str(&self.use_of(inputs[i]));
        }
        for i in args.len() - num_out..args.len() {
            if let Some(&v) = inputs.get(i) {
                s.push_str(&format!(", {}={}", args[i].name, self.use_of(v)));
            }
        }
        s + ")"
    }

    // ---- blocks and functions -----------------------------------------------------------

    fn print_block(&mut self, b: Block, has_other_statements: bool) -> Result<(), String> {
        let nodes: Vec<Node> = self.g.block_nodes(b).collect();
        if !has_other_statements && nodes.is_empty() {
            self.indent();
            self.body.push_str("pass\n");
        }
        for n in nodes {
            self.print_node(n, false)?;
        }
        Ok(())
    }

    fn print_body(&mut self, b: Block) -> Result<(), String> {
        let mut constants = Vec::new();
        self.build_constant_list_block(b, &mut constants);
        self.scan_block(b);
        self.level += 1;
        for n in constants {
            self.print_node(n, true)?;
        }
        let ret = self.g.return_node(b);
        let has_return_values = !self.g.node_inputs(ret).is_empty();
        self.print_block(b, has_return_values)?;
        self.print_node(ret, false)?;
        self.level -= 1;
        Ok(())
    }

    fn print_function(
        &mut self,
        name: &str,
        schema: Option<&FunctionSchema>,
        first_argument_type: bool,
    ) -> Result<(), String> {
        let g = self.g;
        let inputs = g.inputs().to_vec();
        let args: Vec<Argument> = match schema {
            Some(s) if s.arguments.len() == inputs.len() => s.arguments.clone(),
            _ => inputs
                .iter()
                .enumerate()
                .map(|(i, &v)| Argument {
                    name: g
                        .debug_name(v)
                        .map(parameter_name)
                        .unwrap_or_else(|| format!("argument_{i}")),
                    ty: g.ty(v).clone(),
                    n: None,
                    default: None,
                    kwarg_only: false,
                    alias: None,
                })
                .collect(),
        };
        self.indent();
        let mut header = format!("def {name}(");
        for (i, (arg, &v)) in args.iter().zip(&inputs).enumerate() {
            let arg_name = self.gen_name(&arg.name);
            if i > 0 {
                header.push_str(",\n    ");
            }
            header.push_str(&arg_name);
            if i > 0 || first_argument_type {
                header.push_str(": ");
                header.push_str(&annotation(&arg.ty));
            }
            if let Some(d) = &arg.default {
                header.push('=');
                header.push_str(&default_repr(arg, d));
            }
            self.ident_refs.insert(v, arg_name);
        }
        let ret = match schema.and_then(|s| s.returns.first()) {
            Some(r) if schema.is_some_and(|s| s.returns.len() == 1) => r.ty.clone(),
            _ => match g.outputs() {
                [one] => g.ty(*one).clone(),
                many => Type::tuple(many.iter().map(|&v| g.ty(v).clone()).collect()),
            },
        };
        header.push_str(&format!(") -> {}:\n", annotation(&ret)));
        self.body.push_str(&header);
        self.print_body(g.block())
    }
}

/// PyTorch's `CalculateNecessaryArgs` with trailing out arguments allowed: how many leading
/// inputs must be printed (trailing ones equal to their defaults are dropped), and how many
/// out arguments end the schema.
fn necessary_args(g: &Graph, args: &[Argument], inputs: &[Value]) -> (usize, usize) {
    let mut idx = args.len() as i64 - 1;
    while idx >= 0 && args[idx as usize].is_out() {
        idx -= 1;
    }
    let num_out = (args.len() as i64 - idx - 1) as usize;
    if args.len() < inputs.len() {
        return (inputs.len(), num_out);
    }
    while idx >= 0 {
        let arg = &args[idx as usize];
        let Some(default) = &arg.default else {
            return (idx as usize + 1, num_out);
        };
        let Some(&input) = inputs.get(idx as usize) else {
            return (idx as usize + 1, num_out);
        };
        match constant_value(g, input) {
            Some(actual) if same_default(default, &actual, &arg.ty) => {}
            _ => return (idx as usize + 1, num_out),
        }
        idx -= 1;
    }
    (0, num_out)
}

/// Whether an input's constant equals a schema default (`IValue` equality: ints equal floats
/// of the same value, a scalar default of an `int[N]` argument is that scalar repeated).
fn same_default(default: &ConstValue, actual: &ConstValue, ty: &Type) -> bool {
    use ConstValue as C;
    match (default, actual) {
        (C::Int(a), C::List(items)) if matches!(ty, Type::List(_)) => {
            items.iter().all(|x| matches!(x, C::Int(b) if b == a))
        }
        (C::Int(a), C::Float(b)) | (C::Float(b), C::Int(a)) => *a as f64 == *b,
        (C::Int(a), C::Bool(b)) | (C::Bool(b), C::Int(a)) => *a == i64::from(*b),
        (C::List(a), C::List(b)) | (C::Tuple(a), C::Tuple(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_default(x, y, &Type::Any))
        }
        (C::Float(a), C::Float(b)) => a == b || (a.is_nan() && b.is_nan()),
        _ => default == actual,
    }
}

/// A function constant's qualified name: the type's when known, else `<namespace>.<name>` from
/// its `name` attribute.
fn function_name(g: &Graph, n: Node, qualname: &str, namespace: &str) -> String {
    if !qualname.is_empty() && qualname != "Function" {
        return qualname.to_string();
    }
    match g.attr(n, Symbol::attr("name")) {
        Some(AttrValue::Str(name)) => format!("{namespace}.{name}"),
        _ => format!("{namespace}.<function>"),
    }
}

fn string_attr(g: &Graph, n: Node, name: &str) -> Result<String, String> {
    match g.attr(n, Symbol::attr(name)) {
        Some(AttrValue::Str(s)) => Ok(s.clone()),
        _ => Err(format!("{} without a string attr::{name}", g.kind(n))),
    }
}

fn int_attr(g: &Graph, n: Node, name: &str) -> Result<i64, String> {
    match g.attr(n, Symbol::attr(name)) {
        Some(AttrValue::Int(i)) => Ok(*i),
        _ => Err(format!("{} without an int attr::{name}", g.kind(n))),
    }
}

/// A default value in a signature: a scalar default of an `int[N]` argument prints as the
/// list it stands for.
fn default_repr(arg: &Argument, value: &ConstValue) -> String {
    if let (Type::List(_), Some(n)) = (&arg.ty, arg.n) {
        if matches!(
            value,
            ConstValue::Int(_) | ConstValue::Float(_) | ConstValue::Bool(_)
        ) {
            let items = vec![value.clone(); n.max(0) as usize];
            return constant_repr(&ConstValue::List(items), &arg.ty);
        }
    }
    constant_repr(value, &arg.ty)
}

/// `IValue::repr` as the printer calls it: strings quoted, floats as `2.` or with 17
/// significant digits, empty or ambiguous lists annotated, one-element tuples with a comma.
fn constant_repr(c: &ConstValue, ty: &Type) -> String {
    match c {
        ConstValue::None => "None".into(),
        ConstValue::Bool(b) => if *b { "True" } else { "False" }.into(),
        ConstValue::Int(i) => i.to_string(),
        ConstValue::Float(d) => format_double(*d),
        ConstValue::Complex(re, im) => {
            let sign = if *im >= 0.0 { "+" } else { "-" };
            format!("{}{sign}{}j", format_double(*re), format_double(im.abs()))
        }
        ConstValue::Str(s) if !s.is_ascii() => "CONSTANTS.c0".into(),
        ConstValue::Str(s) => quoted_string(s),
        ConstValue::Device(d) => format!("torch.device({})", quoted_string(d)),
        ConstValue::Tensor(_) => "CONSTANTS.c0".into(),
        ConstValue::Opaque(s) => s.clone(),
        ConstValue::List(items) => {
            let elem = match ty {
                Type::List(e) => (**e).clone(),
                _ => Type::Any,
            };
            let list = format!(
                "[{}]",
                items
                    .iter()
                    .map(|x| constant_repr(x, &elem))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            if items.is_empty() || !element_type_can_be_inferred(&elem) {
                format!("annotate({}, {list})", annotation(ty))
            } else {
                list
            }
        }
        ConstValue::Tuple(items) => {
            let elems: Vec<Type> = match ty {
                Type::Tuple(t) => t.elements.clone(),
                _ => Vec::new(),
            };
            let parts: Vec<String> = items
                .iter()
                .enumerate()
                .map(|(i, x)| constant_repr(x, elems.get(i).unwrap_or(&Type::Any)))
                .collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
    }
}
