//! A byte cursor over text being parsed, shared by the type parser and the graph parser. It
//! never panics: every read checks bounds, and errors carry 1-based line and column.

use crate::source::{Diagnostic, Pos};

#[derive(Clone)]
pub struct Cursor<'a> {
    text: &'a str,
    pos: usize,
    /// Byte offsets where lines start, built on the first position lookup so that turning an
    /// offset into a line and column costs a binary search, not a scan of the text.
    line_starts: std::cell::OnceCell<Vec<usize>>,
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str) -> Cursor<'a> {
        Cursor {
            text,
            pos: 0,
            line_starts: std::cell::OnceCell::new(),
        }
    }

    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The byte offset of the cursor.
    pub fn offset(&self) -> usize {
        self.pos
    }

    /// Moves to byte offset `pos` (clamped to the text, and to a char boundary).
    pub fn set_offset(&mut self, pos: usize) {
        let mut p = pos.min(self.text.len());
        while !self.text.is_char_boundary(p) {
            p -= 1;
        }
        self.pos = p;
    }

    pub fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.text.len()
    }

    pub fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub fn peek_byte(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    /// The byte `n` places ahead, if any.
    pub fn peek_byte_at(&self, n: usize) -> Option<u8> {
        self.text.as_bytes().get(self.pos + n).copied()
    }

    pub fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    pub fn starts_with(&self, s: &str) -> bool {
        self.rest().starts_with(s)
    }

    /// Consumes `s` if the text continues with it.
    pub fn eat(&mut self, s: &str) -> bool {
        if self.starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    pub fn expect(&mut self, s: &str) -> Result<(), Diagnostic> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.error(format!(
                "expected '{}' but found {}",
                s.escape_debug(),
                self.describe()
            )))
        }
    }

    /// Skips spaces and tabs (not newlines).
    pub fn skip_spaces(&mut self) {
        while matches!(self.peek_byte(), Some(b' ' | b'\t' | b'\r')) {
            self.pos += 1;
        }
    }

    /// Skips all whitespace, newlines included.
    pub fn skip_ws(&mut self) {
        while matches!(self.peek_byte(), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.pos += 1;
        }
    }

    /// Skips whitespace and whole comment lines (`# ...` or `// ...`): at a statement boundary
    /// a comment can only be a comment, as in PyTorch's lexer. Lit tests put `RUN:` and
    /// `CHECK:` lines there.
    pub fn skip_ws_and_comment_lines(&mut self) {
        loop {
            self.skip_ws();
            if self.starts_with("#") || self.starts_with("//") {
                while !matches!(self.peek_byte(), None | Some(b'\n')) {
                    self.pos += 1;
                }
            } else {
                return;
            }
        }
    }

    /// Consumes the longest run of bytes satisfying `f` and returns it.
    pub fn take_while(&mut self, f: impl Fn(u8) -> bool) -> &'a str {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        while self.pos < bytes.len() && f(bytes[self.pos]) {
            self.pos += 1;
        }
        // Only ASCII predicates are used, but stay on a char boundary regardless.
        while !self.text.is_char_boundary(self.pos) {
            self.pos += 1;
        }
        &self.text[start..self.pos]
    }

    /// Consumes the rest of the current line (without the newline).
    pub fn take_line(&mut self) -> &'a str {
        self.take_while(|b| b != b'\n')
    }

    /// A signed decimal integer.
    pub fn int(&mut self) -> Result<i64, Diagnostic> {
        let start = self.pos;
        self.eat("-");
        let digits = self.take_while(|b| b.is_ascii_digit());
        if digits.is_empty() {
            self.pos = start;
            return Err(self.error(format!("expected an integer but found {}", self.describe())));
        }
        self.text[start..self.pos].parse::<i64>().map_err(|_| {
            let e = Diagnostic::new(self.pos_at(start), "integer out of range");
            self.pos = start;
            e
        })
    }

    pub fn pos(&self) -> Pos {
        self.pos_at(self.pos)
    }

    /// The 1-based line and column of byte offset `offset`.
    pub fn pos_at(&self, offset: usize) -> Pos {
        let offset = offset.min(self.text.len());
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(
                    self.text
                        .bytes()
                        .enumerate()
                        .filter(|&(_, b)| b == b'\n')
                        .map(|(i, _)| i + 1),
                )
                .collect()
        });
        // The last line start at or before `offset`.
        let line_index = starts.partition_point(|&s| s <= offset) - 1;
        let line = line_index as u32 + 1;
        let line_start = starts[line_index];
        let mut start = line_start;
        while !self.text.is_char_boundary(start) {
            start += 1;
        }
        let mut end = offset;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let col = self
            .text
            .get(start..end.max(start))
            .map_or(0, |s| s.chars().count()) as u32
            + 1;
        Pos { line, col }
    }

    pub fn error(&self, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.pos(), message)
    }

    /// What the cursor is looking at, for error messages.
    pub fn describe(&self) -> String {
        match self.peek() {
            None => "end of input".to_string(),
            Some('\n') => "end of line".to_string(),
            Some(_) => {
                let token: String = self
                    .rest()
                    .chars()
                    .take(12)
                    .take_while(|&c| c != '\n')
                    .collect();
                format!("'{token}'")
            }
        }
    }
}
