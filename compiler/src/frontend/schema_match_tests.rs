//! Checks overload resolution against real TorchScript: every case of
//! `compiler/tests/data/match_cases.txt` (written by `tools/gen/gen_match_cases.py`) builds a
//! graph whose inputs carry the argument types, emits the builtin call, and compares the nodes
//! (or the error message) with what PyTorch emitted for the same call.

use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::symbol::{sym, Symbol};
use ember_dialects::types::{parse_type, Type};
use ember_dialects::{Block, Graph, Value};
use hashbrown::HashMap;

use super::*;
use crate::frontend::span::Span;

const CASES: &str = include_str!("../../tests/data/match_cases.txt");

/// One recorded call.
struct Case<'a> {
    title: &'a str,
    op: &'a str,
    args: Vec<&'a str>,
    expected: Expected,
}

enum Expected {
    Graph(Vec<String>),
    Error(String),
}

/// Decodes a JSON string literal (the generator writes messages with `json.dumps`).
fn json_string(text: &str) -> String {
    let inner = text
        .trim()
        .strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or_else(|| panic!("not a JSON string: {text}"));
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('"') => out.push('"'),
            Some('\\') => out.push('\\'),
            Some('/') => out.push('/'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let code = u32::from_str_radix(&hex, 16).expect("\\u escape");
                out.push(char::from_u32(code).expect("a character"));
            }
            other => panic!("unknown escape \\{other:?} in {text}"),
        }
    }
    out
}

fn parse_cases(text: &str) -> Vec<Case<'_>> {
    let mut cases = Vec::new();
    for record in text.split("\n## ").skip(1) {
        let mut lines = record.lines();
        let title = lines.next().expect("a title");
        let op = lines
            .next()
            .and_then(|l| l.strip_prefix("op "))
            .expect("an op line");
        let args_line = lines
            .next()
            .and_then(|l| l.strip_prefix("args"))
            .expect("an args line");
        let args = args_line
            .split(" ; ")
            .map(str::trim)
            .filter(|a| !a.is_empty())
            .collect();
        let next = lines.next().expect("graph or error");
        let expected = if let Some(msg) = next.strip_prefix("error ") {
            Expected::Error(json_string(msg))
        } else {
            assert_eq!(next, "graph", "in case {title}");
            Expected::Graph(
                lines
                    .take_while(|l| !l.is_empty())
                    .map(str::to_string)
                    .collect(),
            )
        };
        cases.push(Case {
            title,
            op,
            args,
            expected,
        });
    }
    cases
}

/// A literal as the emitter would emit it: constants, list and tuple literals.
fn emit_literal(g: &mut Graph, text: &str) -> Value {
    let text = text.trim();
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let items: Vec<Value> = split_items(inner)
            .iter()
            .map(|i| emit_literal(g, i))
            .collect();
        let elem = items.first().map_or(Type::tensor(), |&v| g.ty(v).clone());
        return insert_list(g, elem, &items);
    }
    if let Some(inner) = text.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        let items: Vec<Value> = split_items(inner)
            .iter()
            .map(|i| emit_literal(g, i))
            .collect();
        return insert_tuple(g, &items, None);
    }
    let value = match text {
        "True" => ConstValue::Bool(true),
        "False" => ConstValue::Bool(false),
        "None" => ConstValue::None,
        t if t.starts_with('"') => ConstValue::Str(json_string(t)),
        t if t.contains(['.', 'e']) => ConstValue::Float(t.parse().expect("a float literal")),
        t => ConstValue::Int(t.parse().expect("an int literal")),
    };
    insert_literal(g, &value)
}

fn split_items(text: &str) -> Vec<String> {
    text.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Builds the call of `case` in a fresh graph: its result, or the error.
fn emit_case(case: &Case<'_>) -> (Graph, HashMap<Value, String>, Result<Value, String>) {
    let mut g = Graph::new();
    let mut names = HashMap::new();
    let (mut positional, mut keyword, mut self_value) = (Vec::new(), Vec::new(), None);
    let span = Span::new(0, 0);
    for (i, spec) in case.args.iter().enumerate() {
        let (keyword_name, is_self, ty) = if let Some(t) = spec.strip_prefix("self:") {
            (None, true, t)
        } else {
            match spec.split_once('=') {
                Some((k, t))
                    if !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_') =>
                {
                    (Some(k), false, t)
                }
                _ => (None, false, *spec),
            }
        };
        let value = if let Some(lit) = ty.strip_prefix('=') {
            emit_literal(&mut g, lit)
        } else {
            let ty = parse_type(ty).unwrap_or_else(|d| panic!("type {ty}: {}", d.message));
            let v = g.add_input(ty);
            names.insert(v, format!("%a{i}"));
            v
        };
        match (is_self, keyword_name) {
            (true, _) => self_value = Some(NamedValue::new(value, span)),
            (false, Some(k)) => keyword.push(NamedValue::named(k, value, span)),
            (false, None) => positional.push(NamedValue::new(value, span)),
        }
    }
    let result = emit_builtin_call_value(
        &mut g,
        Symbol::new(case.op),
        &positional,
        &keyword,
        self_value,
    );
    if let Ok(v) = result {
        g.register_output(v);
    }
    (g, names, result)
}

/// Python's `repr` of a float (`0.0`, `1e-05`, `0.1`).
fn python_float_repr(f: f64) -> String {
    if f.is_nan() {
        return "nan".to_string();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    // The shortest digits that round-trip, as `d.ddde±x`.
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').expect("an exponent");
    let exp: i32 = exp.parse().expect("an exponent");
    if (-4..16).contains(&exp) {
        let s = format!("{f}");
        if s.contains('.') {
            s
        } else {
            format!("{s}.0")
        }
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mantissa}e{sign}{:02}", exp.abs())
    }
}

/// Python's `json.dumps` of a string.
fn json_quote(s: &str) -> String {
    let mut out = String::from('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || (c as u32) > 0x7e => {
                let mut buf = [0u16; 2];
                for unit in c.encode_utf16(&mut buf) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A constant value as Python prints the IValue.
fn python_value(v: &ConstValue) -> String {
    match v {
        ConstValue::None => "None".to_string(),
        ConstValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        ConstValue::Int(i) => i.to_string(),
        ConstValue::Float(f) => python_float_repr(*f),
        ConstValue::Str(s) => json_quote(s),
        ConstValue::List(items) => {
            let items: Vec<String> = items.iter().map(python_value).collect();
            format!("[{}]", items.join(", "))
        }
        other => format!("{other:?}"),
    }
}

/// A constant as the generator describes it: `TYPE VALUE`, or `None`.
fn describe_constant(g: &Graph, v: Value) -> String {
    let n = g.producer(v);
    let ty = g.ty(v);
    if *ty == Type::None {
        return "None".to_string();
    }
    let value = match (g.attr(n, sym::attr_value()), ty) {
        (Some(AttrValue::Int(i)), Type::Bool) => python_value(&ConstValue::Bool(*i != 0)),
        (Some(AttrValue::Int(i)), _) => i.to_string(),
        (Some(AttrValue::Float(f)), _) => python_float_repr(*f),
        (Some(AttrValue::Str(s)), Type::Str) => json_quote(s),
        (Some(AttrValue::Str(s)), _) => s.clone(),
        (Some(AttrValue::IValue(c)), _) => python_value(c),
        (Some(other), _) => format!("{other:?}"),
        (None, _) => "?".to_string(),
    };
    format!("{} {value}", ty.repr_str())
}

/// Nodes PyTorch's cleanup passes remove or fold after emission: tuple literals left unused
/// once converted to lists (dead code), and the empty tuple of an op with no results
/// (constant propagation makes it a constant).
fn cleaned_up_by_pytorch(g: &Graph, n: ember_dialects::Node) -> bool {
    g.kind(n) == sym::tuple_construct()
        && (g.node_inputs(n).is_empty() || g.node_outputs(n).iter().all(|&o| !g.has_uses(o)))
}

/// The generator's summary of the nodes in `b`: one line per non-constant node.
fn summarize(
    g: &Graph,
    b: Block,
    depth: usize,
    names: &mut HashMap<Value, String>,
    counter: &mut usize,
    lines: &mut Vec<String>,
) {
    for n in g.block_nodes(b) {
        if g.kind(n) == sym::constant() {
            let out = g.output(n, 0);
            names.insert(out, describe_constant(g, out));
            continue;
        }
        if cleaned_up_by_pytorch(g, n) {
            continue;
        }
        let k = *counter;
        *counter += 1;
        for (j, &o) in g.node_outputs(n).iter().enumerate() {
            let name = if j == 0 {
                format!("%n{k}")
            } else {
                format!("%n{k}.{j}")
            };
            names.insert(o, name);
        }
        let inputs: Vec<String> = g
            .node_inputs(n)
            .iter()
            .map(|v| names.get(v).cloned().unwrap_or_else(|| "?".to_string()))
            .collect();
        let types: Vec<String> = g
            .node_outputs(n)
            .iter()
            .map(|&o| g.ty(o).repr_str())
            .collect();
        let mut line = format!(
            "{}{}({}) -> {}",
            "  ".repeat(depth + 1),
            g.kind(n),
            inputs.join(", "),
            types.join(", ")
        );
        if types.is_empty() {
            line.truncate(line.len() - " -> ".len());
        }
        lines.push(line);
        for &inner in g.node_blocks(n) {
            lines.push(format!("{}block", "  ".repeat(depth + 2)));
            for (j, &v) in g.block_inputs(inner).iter().enumerate() {
                names.insert(v, format!("%b{j}"));
            }
            summarize(g, inner, depth + 2, names, counter, lines);
        }
    }
}

/// Runs one case; `None` when Ember agrees with PyTorch, else a report.
fn check_case(case: &Case<'_>) -> Option<String> {
    let (g, mut names, result) = emit_case(case);
    match (&case.expected, result) {
        (Expected::Graph(want), Ok(_)) => {
            let mut got = Vec::new();
            summarize(&g, g.block(), 0, &mut names, &mut 0, &mut got);
            (got != *want).then(|| {
                format!(
                    "## {} ({})\nwant:\n{}\ngot:\n{}",
                    case.title,
                    case.args.join(" ; "),
                    want.join("\n"),
                    got.join("\n")
                )
            })
        }
        (Expected::Graph(want), Err(e)) => Some(format!(
            "## {}\nwant:\n{}\ngot error:\n{e}",
            case.title,
            want.join("\n")
        )),
        (Expected::Error(want), Err(e)) => (sorted_suggestions(want) != sorted_suggestions(&e))
            .then(|| {
                format!(
                    "## {} ({})\nwant error:\n{want}\ngot error:\n{e}",
                    case.title,
                    case.args.join(" ; ")
                )
            }),
        (Expected::Error(want), Ok(_)) => Some(format!(
            "## {}\nwant error:\n{want}\ngot a graph",
            case.title
        )),
    }
}

/// The message with the similar-op suggestions (`\taten::relu` lines) sorted: PyTorch lists
/// suggestions of equal edit distance in its heap's order.
fn sorted_suggestions(msg: &str) -> String {
    let mut lines: Vec<&str> = msg.split('\n').collect();
    let start = lines.iter().position(|l| l.starts_with('\t'));
    if let Some(start) = start {
        let end = lines[start..]
            .iter()
            .position(|l| !l.starts_with('\t'))
            .map_or(lines.len(), |e| start + e);
        lines[start..end].sort_unstable();
    }
    lines.join("\n")
}

#[test]
fn resolves_calls_as_torchscript_does() {
    let cases = parse_cases(CASES);
    assert!(cases.len() > 250, "only {} cases", cases.len());
    let failures: Vec<String> = cases.iter().filter_map(check_case).collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ from PyTorch:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

#[test]
fn failed_attempts_leave_no_nodes() {
    // `add(Tensor, bool)` tries every overload without conversions first; the conversions of
    // the failed attempts must not stay in the graph.
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    let b = g.add_input(Type::Bool);
    let span = Span::new(0, 0);
    let args = [NamedValue::new(x, span), NamedValue::new(b, span)];
    emit_builtin_call(&mut g, Symbol::aten("add"), &args, &[], None).unwrap();
    let kinds: Vec<String> = g
        .block_nodes(g.block())
        .map(|n| g.kind(n).to_string())
        .collect();
    // The bool converts while matching `other`, before `alpha`'s default is filled in.
    assert_eq!(kinds, ["aten::Int", "prim::Constant", "aten::add"]);
}

#[test]
fn a_failed_call_leaves_the_graph_unchanged() {
    let mut g = Graph::new();
    let x = g.add_input(Type::tensor());
    let s = g.add_input(Type::Str);
    let span = Span::new(0, 0);
    let args = [NamedValue::new(x, span), NamedValue::new(s, span)];
    let err = emit_builtin_call(&mut g, Symbol::aten("add"), &args, &[], None).unwrap_err();
    assert!(
        err.starts_with("Arguments for call are not valid.\n"),
        "{err}"
    );
    assert_eq!(g.block_nodes(g.block()).count(), 0);
}

#[test]
fn match_schemas_reports_the_chosen_index_and_types() {
    let mut g = Graph::new();
    let l = g.add_input(Type::list(Type::Float));
    let span = Span::new(0, 0);
    let cat = catalogue();
    let schemas: Vec<&FunctionSchema> = cat.schemas(Symbol::aten("len")).iter().collect();
    let m = match_schemas(&mut g, &schemas, &[NamedValue::new(l, span)], &[], None).unwrap();
    assert_eq!(m.schema_name, "aten::len.t");
    assert_eq!(m.index, 0);
    assert_eq!(m.inputs, vec![l]);
    assert_eq!(m.return_types, vec![Type::Int]);
    assert_eq!(m.return_field_names, None);
}

#[test]
fn try_convert_to_type_unwraps_optional_and_converts_tensors() {
    let mut g = Graph::new();
    let t = g.add_input(Type::tensor());
    let v = try_convert_to_type(&mut g, &Type::optional(Type::Float), t, true, None).unwrap();
    assert_eq!(*g.ty(v), Type::Float);
    assert_eq!(g.kind(g.producer(v)), Symbol::aten("FloatImplicit"));
    // Without conversions the value is returned as it is.
    let same = try_convert_to_type(&mut g, &Type::Float, t, false, None).unwrap();
    assert_eq!(same, t);
}

#[test]
fn prefix_lines_prefixes_each_line_but_not_after_the_last_newline() {
    assert_eq!(prefix_lines("\na:\nb\n", "  "), "  \n  a:\n  b\n");
}

#[test]
fn edit_distance_stops_beyond_the_limit() {
    assert_eq!(edit_distance("aten::relu", "aten::reluu", 2), 1);
    assert_eq!(edit_distance("aten::relu", "aten::gelu", 2), 1);
    assert_eq!(edit_distance("aten::relu", "aten::sigmoid", 2), 3);
}

/// `dialects/data/call_checks.txt` (written by `tools/gen/dump_call_checks.py`): calls
/// `torch.ops.NS.NAME(args)` and the overload real TorchScript resolved each to.
const CALL_CHECKS: &str = include_str!("../../../dialects/data/call_checks.txt");

/// An argument of a call check: a parameter of a schema type, or a literal as the emitter
/// emits it (`=1`, `=2.5`, `=True`, `=None`, `=[1, 2]`, `="cpu"`).
fn call_check_arg(g: &mut Graph, text: &str) -> Value {
    match text.strip_prefix('=') {
        Some(lit) => emit_literal(g, lit),
        None => {
            let schema = ember_dialects::schema::parse_schema(&format!("a::b({text} x) -> ()"))
                .unwrap_or_else(|d| panic!("{text}: {d}"));
            g.add_input(schema.arguments[0].fake_type())
        }
    }
}

#[test]
fn emit_builtin_call_picks_the_overload_torchscript_picks() {
    let (mut count, mut failures) = (0, Vec::new());
    let span = Span::new(0, 0);
    for (i, line) in CALL_CHECKS.lines().enumerate() {
        if line.starts_with('#') {
            continue;
        }
        let f: Vec<&str> = line.split(" | ").collect();
        let want = f[2];
        // Constant propagation removed PyTorch's call: nothing to compare.
        if want == "folded" {
            continue;
        }
        count += 1;
        let mut g = Graph::new();
        let args: Vec<NamedValue> = f[1]
            .split(" ; ")
            .filter(|a| !a.is_empty())
            .map(|a| NamedValue::new(call_check_arg(&mut g, a), span))
            .collect();
        let got = match emit_builtin_call_at(&mut g, Symbol::new(f[0]), &args, &[], None, None) {
            Ok(BuiltinCall { node: None, .. }) => "builtin".to_string(),
            // PyTorch's answer is `Node::schema()` of the node it built.
            Ok(BuiltinCall { node: Some(n), .. }) => ember_dialects::catalogue::resolve_node(&g, n)
                .map_or("(no schema)".to_string(), |s| s.full_name()),
            Err(_) => "error".to_string(),
        };
        if got != want {
            failures.push(format!(
                "line {}: {}({}): got {got}, PyTorch {want}",
                i + 1,
                f[0],
                f[1]
            ));
        }
    }
    assert!(count > 19000, "only {count} checks");
    assert!(
        failures.is_empty(),
        "{} of {count} calls differ from PyTorch:\n{}",
        failures.len(),
        failures
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
