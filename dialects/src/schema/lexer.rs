//! Tokens of the schema language: the subset of TorchScript's lexer that schemas use.

use crate::source::{Diagnostic, Pos};

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    /// A number as written (`1`, `-` is a separate token, `1e-05`, `2j`).
    Number(String),
    /// A string literal as written, quotes included.
    Str(String),
    /// `None`, `True`, `False`, `NoneType`: keywords, never identifiers.
    None,
    True,
    False,
    NoneType,
    Arrow,
    Dots,
    Punct(char),
    Eof,
}

impl Tok {
    pub(super) fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("identifier '{s}'"),
            Tok::Number(s) => format!("number '{s}'"),
            Tok::Str(s) => format!("string {s}"),
            Tok::None => "'None'".into(),
            Tok::True => "'True'".into(),
            Tok::False => "'False'".into(),
            Tok::NoneType => "'NoneType'".into(),
            Tok::Arrow => "'->'".into(),
            Tok::Dots => "'...'".into(),
            Tok::Punct(c) => format!("'{c}'"),
            Tok::Eof => "end of input".into(),
        }
    }
}

/// Line and column (in characters) of byte `at`, advanced forward so lexing stays linear.
struct Cursor {
    line: u32,
    col: u32,
    at: usize,
}

impl Cursor {
    fn pos(&mut self, src: &str, i: usize) -> Pos {
        self.col += src[self.at..i].chars().count() as u32;
        self.at = i;
        Pos {
            line: self.line,
            col: self.col,
        }
    }
}

pub(super) fn tokenize(src: &str) -> Result<Vec<(Tok, Pos)>, Diagnostic> {
    let bytes = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0usize;
    let mut at = Cursor {
        line: 1,
        col: 1,
        at: 0,
    };
    while i < bytes.len() {
        let pos = at.pos(src, i);
        let c = bytes[i];
        match c {
            b'\n' => {
                i += 1;
                at = Cursor {
                    line: at.line + 1,
                    col: 1,
                    at: i,
                };
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let word = &src[start..i];
                let tok = match word {
                    "None" => Tok::None,
                    "True" => Tok::True,
                    "False" => Tok::False,
                    "NoneType" => Tok::NoneType,
                    _ => Tok::Ident(word.to_string()),
                };
                out.push((tok, pos));
            }
            b'0'..=b'9' => {
                let len = number_len(&bytes[i..]);
                out.push((Tok::Number(src[i..i + len].to_string()), pos));
                i += len;
            }
            b'.' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => {
                let len = number_len(&bytes[i..]);
                out.push((Tok::Number(src[i..i + len].to_string()), pos));
                i += len;
            }
            b'"' | b'\'' => {
                let len = string_len(&bytes[i..])
                    .ok_or_else(|| Diagnostic::new(pos, "unterminated string literal"))?;
                out.push((Tok::Str(src[i..i + len].to_string()), pos));
                i += len;
            }
            b'-' if bytes.get(i + 1) == Some(&b'>') => {
                out.push((Tok::Arrow, pos));
                i += 2;
            }
            b'.' if bytes[i..].starts_with(b"...") => {
                out.push((Tok::Dots, pos));
                i += 3;
            }
            b'(' | b')' | b'[' | b']' | b',' | b'.' | b':' | b'*' | b'?' | b'!' | b'=' | b'|'
            | b'-' => {
                out.push((Tok::Punct(c as char), pos));
                i += 1;
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or('?');
                return Err(Diagnostic::new(pos, format!("unexpected character '{ch}'")));
            }
        }
    }
    let pos = at.pos(src, bytes.len());
    out.push((Tok::Eof, pos));
    Ok(out)
}

/// `123`, `1.5`, `.5`, `1e-05`, `1.`, `2j`.
fn number_len(b: &[u8]) -> usize {
    let digits = |mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    let mut i = digits(0);
    if i < b.len() && b[i] == b'.' {
        i = digits(i + 1);
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        let mut j = i + 1;
        if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            i = digits(j);
        }
    }
    if i < b.len() && b[i] == b'j' {
        i += 1;
    }
    i
}

/// Length of a quoted string starting at `b[0]` (single, double or triple quotes).
fn string_len(b: &[u8]) -> Option<usize> {
    let q = b[0];
    let triple = b.len() >= 3 && b[1] == q && b[2] == q;
    let quote_len = if triple { 3 } else { 1 };
    let mut i = quote_len;
    while i < b.len() {
        if b[i] == b'\\' {
            i += 2;
            continue;
        }
        if !triple && b[i] == b'\n' {
            return None;
        }
        if b[i] == q && (!triple || b[i..].starts_with(&[q, q, q])) {
            return Some(i + quote_len);
        }
        i += 1;
    }
    None
}
