//! Constants the graph parser keeps as text because their printed form carries a type:
//! `annotate(List[int], [])`, `annotate(Dict[str, int],{})`,
//! `annotate(List[Optional[int]], [1, None])` (what PyTorch prints for empty lists and dicts
//! and for lists whose element type the items do not tell) and dict literals `{1: [2]}`.
//! Their values become runtime values here; the items are read by the graph parser's own
//! constant reader.

use ember_dialects::attr::ConstValue;
use ember_dialects::AttrValue;

use super::prim::{attr_to_ivalue, const_to_ivalue};
use crate::ivalue::{Dict, DictKey, IValue};

/// The value of an opaque constant, or why it cannot run.
pub fn opaque_to_ivalue(text: &str) -> Result<IValue, String> {
    let cannot = || format!("constant '{text}' cannot run");
    let t = text.trim();
    if let Some(inner) = t
        .strip_prefix("annotate(")
        .and_then(|s| s.strip_suffix(')'))
    {
        let parts = split_top(inner, ',');
        if parts.len() < 2 {
            return Err(cannot());
        }
        // The type (Python's spelling, unused: lists and dicts hold any value at run time)
        // is everything before the last top-level item; `Dict[str, int]` has a comma.
        let value = parts[parts.len() - 1].trim();
        let ty = inner[..inner.len() - parts[parts.len() - 1].len() - 1].trim();
        if ty.is_empty() || split_top(ty, ',').iter().any(|p| p.trim().is_empty()) {
            return Err(cannot());
        }
        return text_to_ivalue(value).map_err(|e| format!("{}: {e}", cannot()));
    }
    if t.starts_with('{') && t.ends_with('}') {
        return dict_literal(&t[1..t.len() - 1]).map_err(|e| format!("{}: {e}", cannot()));
    }
    Err(cannot())
}

/// `k: v, k: v` (the inside of a dict literal).
fn dict_literal(inner: &str) -> Result<IValue, String> {
    let dict = Dict::default();
    if !inner.trim().is_empty() {
        for entry in split_top(inner, ',') {
            let kv = split_top(entry, ':');
            if kv.len() != 2 {
                return Err(format!("malformed dict entry '{}'", entry.trim()));
            }
            let key = text_to_ivalue(kv[0].trim())?;
            let key = DictKey::from_ivalue(&key)
                .ok_or_else(|| format!("unhashable dict key '{}'", kv[0].trim()))?;
            dict.insert(key, text_to_ivalue(kv[1].trim())?);
        }
    }
    Ok(IValue::Dict(dict))
}

/// A constant's printed value read by the graph parser (through a one-node graph), then
/// converted as `prim::Constant` converts it.
fn text_to_ivalue(value: &str) -> Result<IValue, String> {
    if value.starts_with('{') || value.starts_with("annotate(") {
        return opaque_to_ivalue(value);
    }
    let graph_text =
        format!("graph():\n  %0 : Any = prim::Constant[value={value}]()\n  return (%0)\n");
    let g = ember_dialects::parse::parse_graph(&graph_text).map_err(|d| d.message)?;
    let node = g
        .nodes()
        .first()
        .copied()
        .ok_or_else(|| format!("no constant in '{value}'"))?;
    match g.attr(node, ember_dialects::symbol::sym::attr_value()) {
        Some(AttrValue::IValue(ConstValue::Opaque(inner))) if inner == value => {
            Err(format!("value '{value}' cannot run"))
        }
        Some(AttrValue::IValue(c)) => const_to_ivalue(c),
        Some(attr) => attr_to_ivalue(attr, &ember_dialects::Type::Any),
        None => Ok(IValue::None),
    }
}

/// Splits `s` at `sep` outside brackets, braces, parentheses and quotes.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut quote, mut escaped, mut start) = (0i32, None::<char>, false, 0);
    for (i, ch) in s.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if ch == '\\' {
                escaped = true;
            } else if ch == q {
                quote = None;
            }
            continue;
        }
        match ch {
            '"' | '\'' => quote = Some(ch),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            c if c == sep && depth == 0 => {
                parts.push(&s[start..i]);
                start = i + ch.len_utf8();
            }
            _ => {}
        }
    }
    parts.push(&s[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(text: &str) -> String {
        match opaque_to_ivalue(text) {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn annotated_constants_run() {
        assert_eq!(show("annotate(List[int], [])"), "[]");
        assert_eq!(
            show("annotate(List[Optional[int]], [1, None])"),
            "[1, None]"
        );
        assert_eq!(show("annotate(Dict[str, int],{})"), "{}");
        assert_eq!(
            show("{1: [2], 3: annotate(List[int], [])}"),
            "{1: [2], 3: []}"
        );
        assert_eq!(show(r#"{"a, b": 1.5}"#), r#"{"a, b": 1.5}"#);
        assert_eq!(
            show("(annotate(List[int], []), 1)"),
            "error: constant '(annotate(List[int], []), 1)' cannot run"
        );
        assert!(show("annotate(List[int], [1, 2")
            .starts_with("error: constant 'annotate(List[int], [1, 2' cannot run"));
        assert!(show("annotate(NoSuchType[, [])").starts_with("error:"));
        assert!(show("object(0x1234)").starts_with("error: constant 'object(0x1234)' cannot run"));
    }
}
