//! `ember-run`'s ARG literals, as shared/DESIGN.md fixes them: `path.npy` is a tensor, `3` an
//! int, `2.5` / `1e-3` a float, `true`/`false` a bool, `none` None, `[a, b]` a list, `(a, b)` a
//! tuple, `"text"` a string. Then each value is matched to the type of the input it is for,
//! with TorchScript's implicit conversions (an int where a float is expected).

use std::path::Path;

use ember_dialects::types::Type;
use ember_runtime::ivalue::IValue;
use ember_runtime::npy::read_npy;

/// An ARG as written, before files are read.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Npy(String),
    Int(i64),
    Float(f64),
    Bool(bool),
    None,
    Str(String),
    List(Vec<Arg>),
    Tuple(Vec<Arg>),
}

/// Parses one ARG; the error names the column (1-based) where it went wrong.
pub fn parse_arg(text: &str) -> Result<Arg, String> {
    let mut p = ArgParser {
        s: text.as_bytes(),
        i: 0,
        depth: 0,
    };
    p.ws();
    let arg = p.arg()?;
    p.ws();
    if p.i != p.s.len() {
        return Err(p.error("unexpected text after the value"));
    }
    Ok(arg)
}

struct ArgParser<'a> {
    s: &'a [u8],
    i: usize,
    depth: usize,
}

/// Lists and tuples nested deeper than this are refused.
const MAX_DEPTH: usize = 64;

impl ArgParser<'_> {
    fn error(&self, msg: &str) -> String {
        format!("column {}: {msg}", self.i + 1)
    }

    fn ws(&mut self) {
        while self.s.get(self.i).is_some_and(|b| b.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn arg(&mut self) -> Result<Arg, String> {
        match self.s.get(self.i) {
            None => Err(self.error("expected a value")),
            Some(b'[') => Ok(Arg::List(self.sequence(b']')?)),
            Some(b'(') => Ok(Arg::Tuple(self.sequence(b')')?)),
            Some(&q @ (b'"' | b'\'')) => self.string(q),
            Some(_) => self.word(),
        }
    }

    fn sequence(&mut self, close: u8) -> Result<Vec<Arg>, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.ws();
            if self.s.get(self.i) == Some(&close) {
                self.i += 1;
                break;
            }
            items.push(self.arg()?);
            self.ws();
            match self.s.get(self.i) {
                Some(b',') => self.i += 1,
                Some(&c) if c == close => {}
                _ => return Err(self.error(&format!("expected ',' or '{}'", close as char))),
            }
        }
        self.depth -= 1;
        Ok(items)
    }

    fn string(&mut self, quote: u8) -> Result<Arg, String> {
        self.i += 1;
        let mut out = Vec::new();
        loop {
            match self.s.get(self.i) {
                None => return Err(self.error("unterminated string")),
                Some(&b) if b == quote => {
                    self.i += 1;
                    break;
                }
                Some(b'\\') => {
                    let escaped = match self.s.get(self.i + 1) {
                        Some(b'n') => b'\n',
                        Some(b't') => b'\t',
                        Some(b'\\') => b'\\',
                        Some(&c @ (b'"' | b'\'')) => c,
                        _ => return Err(self.error("unknown escape in string")),
                    };
                    out.push(escaped);
                    self.i += 2;
                }
                Some(&b) => {
                    out.push(b);
                    self.i += 1;
                }
            }
        }
        String::from_utf8(out)
            .map(Arg::Str)
            .map_err(|_| self.error("string is not UTF-8"))
    }

    fn word(&mut self) -> Result<Arg, String> {
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|&b| !matches!(b, b',' | b']' | b')') && !b.is_ascii_whitespace())
        {
            self.i += 1;
        }
        let w = std::str::from_utf8(&self.s[start..self.i]).map_err(|_| self.error("not UTF-8"))?;
        let lower = w.to_ascii_lowercase();
        Ok(match lower.as_str() {
            "true" => Arg::Bool(true),
            "false" => Arg::Bool(false),
            "none" => Arg::None,
            "inf" | "+inf" => Arg::Float(f64::INFINITY),
            "-inf" => Arg::Float(f64::NEG_INFINITY),
            "nan" => Arg::Float(f64::NAN),
            _ if lower.ends_with(".npy") => Arg::Npy(w.to_string()),
            _ => {
                if let Ok(i) = w.parse::<i64>() {
                    Arg::Int(i)
                } else if w.bytes().any(|b| b.is_ascii_digit()) && w.parse::<f64>().is_ok() {
                    Arg::Float(w.parse().unwrap())
                } else {
                    self.i = start;
                    return Err(self.error(&format!(
                        "'{w}' is not a value: expected a .npy path, a number, true, false, none, a list, a tuple or a quoted string"
                    )));
                }
            }
        })
    }
}

/// The IValue of `arg` for an input of type `ty`; `.npy` paths are read relative to the
/// working directory.
pub fn to_ivalue(arg: &Arg, ty: &Type) -> Result<IValue, String> {
    let mismatch = |what: &str| Err(format!("expected {ty} but got {what}"));
    match (arg, ty) {
        (_, Type::Optional(inner)) => match arg {
            Arg::None => Ok(IValue::None),
            _ => to_ivalue(arg, inner),
        },
        (Arg::None, Type::None | Type::Any) => Ok(IValue::None),
        (Arg::Npy(path), Type::Tensor(_) | Type::Any) => {
            let bytes =
                std::fs::read(Path::new(path)).map_err(|e| format!("cannot read '{path}': {e}"))?;
            read_npy(&bytes)
                .map(IValue::Tensor)
                .map_err(|e| format!("{path}: {e}"))
        }
        (Arg::Int(i), Type::Int | Type::SymInt | Type::Number | Type::Any) => Ok(IValue::Int(*i)),
        (Arg::Int(i), Type::Float | Type::SymFloat) => Ok(IValue::Double(*i as f64)),
        (Arg::Float(f), Type::Float | Type::SymFloat | Type::Number | Type::Any) => {
            Ok(IValue::Double(*f))
        }
        (Arg::Bool(b), Type::Bool | Type::Any) => Ok(IValue::Bool(*b)),
        (Arg::Str(s), Type::Str | Type::Any) => Ok(IValue::str(s.clone())),
        (Arg::List(items), Type::List(elem)) => {
            let values = items
                .iter()
                .enumerate()
                .map(|(k, a)| to_ivalue(a, elem).map_err(|e| format!("element {k}: {e}")))
                .collect::<Result<_, _>>()?;
            Ok(IValue::list(values))
        }
        (Arg::Tuple(items), Type::Tuple(t)) => {
            if items.len() != t.elements.len() {
                return mismatch(&format!("a tuple of {} elements", items.len()));
            }
            let values = items
                .iter()
                .zip(&t.elements)
                .enumerate()
                .map(|(k, (a, ety))| to_ivalue(a, ety).map_err(|e| format!("element {k}: {e}")))
                .collect::<Result<_, _>>()?;
            Ok(IValue::tuple(values))
        }
        (Arg::List(items) | Arg::Tuple(items), Type::Any) => {
            let values = items
                .iter()
                .map(|a| to_ivalue(a, &Type::Any))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(if matches!(arg, Arg::List(_)) {
                IValue::list(values)
            } else {
                IValue::tuple(values)
            })
        }
        _ => mismatch(match arg {
            Arg::Npy(_) => "a tensor (.npy)",
            Arg::Int(_) => "an int",
            Arg::Float(_) => "a float",
            Arg::Bool(_) => "a bool",
            Arg::None => "none",
            Arg::Str(_) => "a string",
            Arg::List(_) => "a list",
            Arg::Tuple(_) => "a tuple",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        use Arg::*;
        let cases = [
            ("3", Int(3)),
            ("-2", Int(-2)),
            ("2.5", Float(2.5)),
            ("1e-3", Float(1e-3)),
            ("true", Bool(true)),
            ("False", Bool(false)),
            ("none", None),
            ("x.npy", Npy("x.npy".into())),
            ("\"a b\"", Str("a b".into())),
            ("'it\\'s'", Str("it's".into())),
            ("[1, 2]", List(vec![Int(1), Int(2)])),
            (
                "(1, [2.5, x.npy], ())",
                Tuple(vec![
                    Int(1),
                    List(vec![Float(2.5), Npy("x.npy".into())]),
                    Tuple(vec![]),
                ]),
            ),
            ("[]", List(vec![])),
        ];
        for (text, want) in cases {
            assert_eq!(parse_arg(text).unwrap(), want, "{text}");
        }
    }

    #[test]
    fn reports_bad_args_with_columns() {
        assert_eq!(
            parse_arg("[1, 2").unwrap_err(),
            "column 6: expected ',' or ']'"
        );
        assert!(parse_arg("\"open")
            .unwrap_err()
            .contains("unterminated string"));
        assert!(parse_arg("hello")
            .unwrap_err()
            .starts_with("column 1: 'hello' is not a value"));
        assert!(parse_arg("1 2").unwrap_err().contains("unexpected text"));
        assert!(parse_arg(&"[".repeat(100))
            .unwrap_err()
            .contains("nested too deeply"));
        assert!(parse_arg("").is_err());
    }

    #[test]
    fn converts_to_input_types() {
        let v = to_ivalue(&Arg::Int(3), &Type::Float).unwrap();
        assert!(matches!(v, IValue::Double(d) if d == 3.0));
        assert!(matches!(
            to_ivalue(&Arg::None, &Type::optional(Type::Int)).unwrap(),
            IValue::None
        ));
        assert_eq!(
            to_ivalue(&Arg::Float(1.5), &Type::Int).unwrap_err(),
            "expected int but got a float"
        );
        let l = to_ivalue(
            &Arg::List(vec![Arg::Int(1), Arg::Float(2.0)]),
            &Type::list(Type::Int),
        )
        .unwrap_err();
        assert_eq!(l, "element 1: expected int but got a float");
        assert!(
            to_ivalue(&Arg::Npy("/nonexistent.npy".into()), &Type::tensor())
                .unwrap_err()
                .starts_with("cannot read")
        );
    }
}
