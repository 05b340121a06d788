//! The TorchScript lexer: source text to tokens, with Python's layout tokens.
//!
//! As PyTorch's lexer (torch/csrc/jit/frontend/lexer.h) it injects NEWLINE at the end of each
//! logical line, INDENT/DEDENT when the indentation changes, and suppresses all three inside
//! brackets and after a `\` line continuation. Blank and comment-only lines produce nothing.
//! Comments are skipped, but `# type: ...` comments are kept in a side table
//! ([`Lexer::type_comments`]) so the parser can fold them into signatures and assignments.
//! Like PyTorch, the indentation of the first line is the base level, so indented snippets lex.
//!
//! Literal values are decoded by [`decode_number`] and [`decode_string`] when the parser needs
//! them; the lexer only finds where each literal ends.

use std::collections::VecDeque;

use super::error::{FrontendError, Result};
use super::span::{SourceFile, Span};

/// PyTorch's words for an integer literal that does not fit an int (`Const::asIntegral`).
pub const INTEGRAL_OUT_OF_RANGE: &str =
    "Integral constant out of range (must fit in a signed 64 bit integer)";

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TokenKind {
    Eof,
    Newline,
    Indent,
    Dedent,
    Ident,
    /// An int, float or imaginary literal.
    Number,
    /// One string literal with its prefix and quotes; adjacent literals are separate tokens.
    String,
    /// An f-string literal (`f"..."`); the parser turns it into a `str.format` call.
    FString,
    // Keywords.
    False,
    None,
    True,
    And,
    As,
    Assert,
    Async,
    Await,
    Break,
    Class,
    Continue,
    Def,
    Del,
    Elif,
    Else,
    Except,
    Finally,
    For,
    From,
    Global,
    If,
    Import,
    In,
    Is,
    Lambda,
    Nonlocal,
    Not,
    Or,
    Pass,
    Raise,
    Return,
    Try,
    While,
    With,
    Yield,
    // Punctuation.
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Colon,
    Semi,
    Dot,
    Ellipsis,
    Arrow,
    At,
    Assign,
    Walrus,
    Plus,
    Minus,
    Star,
    DoubleStar,
    Slash,
    DoubleSlash,
    Percent,
    LShift,
    RShift,
    Amp,
    Pipe,
    Caret,
    Tilde,
    Lt,
    Gt,
    Le,
    Ge,
    EqEq,
    NotEq,
    PlusEq,
    MinusEq,
    StarEq,
    SlashEq,
    DoubleSlashEq,
    PercentEq,
    AtEq,
    AmpEq,
    PipeEq,
    CaretEq,
    LShiftEq,
    RShiftEq,
    DoubleStarEq,
}

const KEYWORDS: &[(&str, TokenKind)] = &[
    ("False", TokenKind::False),
    ("None", TokenKind::None),
    ("True", TokenKind::True),
    ("and", TokenKind::And),
    ("as", TokenKind::As),
    ("assert", TokenKind::Assert),
    ("async", TokenKind::Async),
    ("await", TokenKind::Await),
    ("break", TokenKind::Break),
    ("class", TokenKind::Class),
    ("continue", TokenKind::Continue),
    ("def", TokenKind::Def),
    ("del", TokenKind::Del),
    ("elif", TokenKind::Elif),
    ("else", TokenKind::Else),
    ("except", TokenKind::Except),
    ("finally", TokenKind::Finally),
    ("for", TokenKind::For),
    ("from", TokenKind::From),
    ("global", TokenKind::Global),
    ("if", TokenKind::If),
    ("import", TokenKind::Import),
    ("in", TokenKind::In),
    ("is", TokenKind::Is),
    ("lambda", TokenKind::Lambda),
    ("nonlocal", TokenKind::Nonlocal),
    ("not", TokenKind::Not),
    ("or", TokenKind::Or),
    ("pass", TokenKind::Pass),
    ("raise", TokenKind::Raise),
    ("return", TokenKind::Return),
    ("try", TokenKind::Try),
    ("while", TokenKind::While),
    ("with", TokenKind::With),
    ("yield", TokenKind::Yield),
];

/// Operators and delimiters, longest first so the first prefix match is the longest.
const PUNCTUATION: &[(&str, TokenKind)] = &[
    ("...", TokenKind::Ellipsis),
    ("**=", TokenKind::DoubleStarEq),
    ("//=", TokenKind::DoubleSlashEq),
    ("<<=", TokenKind::LShiftEq),
    (">>=", TokenKind::RShiftEq),
    ("->", TokenKind::Arrow),
    (":=", TokenKind::Walrus),
    ("**", TokenKind::DoubleStar),
    ("//", TokenKind::DoubleSlash),
    ("<<", TokenKind::LShift),
    (">>", TokenKind::RShift),
    ("<=", TokenKind::Le),
    (">=", TokenKind::Ge),
    ("==", TokenKind::EqEq),
    ("!=", TokenKind::NotEq),
    ("+=", TokenKind::PlusEq),
    ("-=", TokenKind::MinusEq),
    ("*=", TokenKind::StarEq),
    ("/=", TokenKind::SlashEq),
    ("%=", TokenKind::PercentEq),
    ("@=", TokenKind::AtEq),
    ("&=", TokenKind::AmpEq),
    ("|=", TokenKind::PipeEq),
    ("^=", TokenKind::CaretEq),
    ("(", TokenKind::LParen),
    (")", TokenKind::RParen),
    ("[", TokenKind::LBracket),
    ("]", TokenKind::RBracket),
    ("{", TokenKind::LBrace),
    ("}", TokenKind::RBrace),
    (",", TokenKind::Comma),
    (":", TokenKind::Colon),
    (";", TokenKind::Semi),
    (".", TokenKind::Dot),
    ("@", TokenKind::At),
    ("=", TokenKind::Assign),
    ("+", TokenKind::Plus),
    ("-", TokenKind::Minus),
    ("*", TokenKind::Star),
    ("/", TokenKind::Slash),
    ("%", TokenKind::Percent),
    ("&", TokenKind::Amp),
    ("|", TokenKind::Pipe),
    ("^", TokenKind::Caret),
    ("~", TokenKind::Tilde),
    ("<", TokenKind::Lt),
    (">", TokenKind::Gt),
];

impl TokenKind {
    /// The name PyTorch's `kindToString` gives the kind, as error messages quote it.
    pub fn name(self) -> &'static str {
        use TokenKind::*;
        match self {
            Eof => "eof",
            Newline => "newline",
            Indent => "indent",
            Dedent => "dedent",
            Ident => "ident",
            Number => "number",
            String => "string_literal",
            FString => "f-string",
            Ellipsis => "dots",
            Arrow => "arrow",
            DoubleStar => "pow operator",
            DoubleSlash => "floordiv",
            EqEq => "eq",
            NotEq => "ne",
            Le => "le",
            Ge => "ge",
            kind => KEYWORDS
                .iter()
                .chain(PUNCTUATION)
                .find(|(_, k)| *k == kind)
                .map_or("?", |(text, _)| text),
        }
    }

    pub fn keyword(text: &str) -> Option<TokenKind> {
        // Keywords are short and lowercase but for three: skip the search for most identifiers.
        let first = *text.as_bytes().first()?;
        if text.len() > 8 || !(first.is_ascii_lowercase() || b"FNT".contains(&first)) {
            return None;
        }
        KEYWORDS.iter().find(|(t, _)| *t == text).map(|(_, k)| *k)
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: TokenKind,
    pub span: Span,
}

/// A `# type: ...` comment: where it is, and the text after `type:`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct TypeComment {
    pub span: Span,
    pub content: Span,
}

/// One indentation level, measured as Python does twice (tabs to multiples of 8, and tabs as 1
/// column) so inconsistent mixes of tabs and spaces are caught.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Indentation {
    tab8: u32,
    tab1: u32,
}

pub struct Lexer<'a> {
    file: &'a SourceFile,
    bytes: &'a [u8],
    pos: usize,
    end: usize,
    /// Whether NEWLINE/INDENT/DEDENT are produced (false when lexing a type comment's text).
    layout: bool,
    /// Depth of `(`, `[`, `{`: inside brackets newlines and indentation do not count.
    nesting: u32,
    /// Where the outermost open bracket is, to report it if it is never closed.
    outer_bracket: Option<Token>,
    indents: Vec<Indentation>,
    at_line_start: bool,
    /// Whether the current logical line has produced a token (so a NEWLINE is due).
    line_has_tokens: bool,
    pending: VecDeque<Token>,
    done: bool,
    type_comments: Vec<TypeComment>,
}

impl<'a> Lexer<'a> {
    pub fn new(file: &'a SourceFile) -> Lexer<'a> {
        // A UTF-8 byte order mark at the start is not part of the program, as in Python.
        let start = if file.text.starts_with('\u{feff}') {
            3
        } else {
            0
        };
        Lexer::with_range(file, start, file.text.len(), true)
    }

    /// Tokens of a part of the file with no layout tokens (no NEWLINE, INDENT or DEDENT), as
    /// inside brackets: used for the text of `# type:` comments and f-string replacement fields.
    pub fn for_span(file: &'a SourceFile, span: Span) -> Lexer<'a> {
        let end = (span.end as usize).min(file.text.len());
        let start = (span.start as usize).min(end);
        Lexer::with_range(file, start, end, false)
    }

    fn with_range(file: &'a SourceFile, start: usize, end: usize, layout: bool) -> Lexer<'a> {
        Lexer {
            file,
            bytes: file.text.as_bytes(),
            pos: start,
            end,
            layout,
            nesting: 0,
            outer_bracket: None,
            indents: Vec::new(),
            at_line_start: layout,
            line_has_tokens: false,
            pending: VecDeque::new(),
            done: false,
            type_comments: Vec::new(),
        }
    }

    /// The `# type:` comments seen so far, in source order.
    pub fn type_comments(&self) -> &[TypeComment] {
        &self.type_comments
    }

    pub fn into_type_comments(self) -> Vec<TypeComment> {
        self.type_comments
    }

    fn peek_byte(&self, ahead: usize) -> Option<u8> {
        let i = self.pos + ahead;
        if i < self.end {
            Some(self.bytes[i])
        } else {
            None
        }
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(start as u32, end as u32)
    }

    fn error(&self, start: usize, end: usize, message: impl Into<String>) -> FrontendError {
        FrontendError::new(self.span(start, end), message)
    }

    /// The next token; after the end it keeps returning EOF.
    pub fn next_token(&mut self) -> Result<Token> {
        loop {
            if let Some(t) = self.pending.pop_front() {
                return Ok(t);
            }
            if self.done {
                return Ok(Token {
                    kind: TokenKind::Eof,
                    span: self.span(self.end, self.end),
                });
            }
            if self.at_line_start && self.nesting == 0 {
                self.at_line_start = false;
                self.lex_indentation()?;
                continue;
            }
            self.skip_blanks();
            let Some(c) = self.peek_byte(0) else {
                if let Some(open) = self.outer_bracket.filter(|_| self.nesting > 0) {
                    let text = self.file.slice(open.span);
                    return Err(FrontendError::new(
                        open.span,
                        format!("'{text}' was never closed"),
                    ));
                }
                self.finish();
                continue;
            };
            match c {
                b'#' => self.skip_comment(),
                b'\\' => {
                    let start = self.pos;
                    self.pos += 1;
                    if self.peek_byte(0) == Some(b'\r') {
                        self.pos += 1;
                    }
                    match self.peek_byte(0) {
                        Some(b'\n') => self.pos += 1,
                        _ => {
                            return Err(self.error(
                                start,
                                start + 1,
                                "unexpected character after line continuation character",
                            ))
                        }
                    }
                }
                b'\n' => {
                    let start = self.pos;
                    self.pos += 1;
                    if self.layout && self.nesting == 0 {
                        self.at_line_start = true;
                        if self.line_has_tokens {
                            self.line_has_tokens = false;
                            return Ok(Token {
                                kind: TokenKind::Newline,
                                span: self.span(start, start + 1),
                            });
                        }
                    }
                }
                _ => {
                    let t = self.lex_token()?;
                    self.line_has_tokens = true;
                    match t.kind {
                        TokenKind::LParen | TokenKind::LBracket | TokenKind::LBrace => {
                            if self.nesting == 0 {
                                self.outer_bracket = Some(t);
                            }
                            self.nesting += 1
                        }
                        TokenKind::RParen | TokenKind::RBracket | TokenKind::RBrace => {
                            self.nesting = self.nesting.saturating_sub(1)
                        }
                        _ => {}
                    }
                    return Ok(t);
                }
            }
        }
    }

    /// At the end: close the last line and every open indentation level, then EOF.
    fn finish(&mut self) {
        let at = self.span(self.end, self.end);
        if self.layout {
            if self.line_has_tokens {
                self.line_has_tokens = false;
                self.pending.push_back(Token {
                    kind: TokenKind::Newline,
                    span: at,
                });
            }
            while self.indents.len() > 1 {
                self.indents.pop();
                self.pending.push_back(Token {
                    kind: TokenKind::Dedent,
                    span: at,
                });
            }
        }
        self.done = true;
    }

    fn skip_blanks(&mut self) {
        while let Some(b' ' | b'\t' | b'\x0c' | b'\r') = self.peek_byte(0) {
            self.pos += 1;
        }
    }

    /// Skips a comment up to (not including) the newline, recording `# type:` comments.
    fn skip_comment(&mut self) {
        let start = self.pos;
        while let Some(c) = self.peek_byte(0) {
            if c == b'\n' {
                break;
            }
            self.pos += 1;
        }
        let text = &self.file.text[start + 1..self.pos];
        let body = text.trim_start_matches([' ', '\t']);
        if let Some(rest) = body.strip_prefix("type:") {
            let content_start = self.pos - rest.len();
            let content = rest.trim();
            let lead = rest.len() - rest.trim_start().len();
            self.type_comments.push(TypeComment {
                span: self.span(start, self.pos),
                content: self.span(content_start + lead, content_start + lead + content.len()),
            });
        }
    }

    /// Measures the indentation of a new line and queues INDENT/DEDENT tokens. Blank and
    /// comment-only lines leave the levels as they are.
    fn lex_indentation(&mut self) -> Result<()> {
        let mut indent = Indentation { tab8: 0, tab1: 0 };
        let start = self.pos;
        while let Some(c) = self.peek_byte(0) {
            match c {
                b' ' => {
                    indent.tab8 += 1;
                    indent.tab1 += 1;
                }
                b'\t' => {
                    indent.tab8 = (indent.tab8 / 8 + 1) * 8;
                    indent.tab1 += 1;
                }
                // A form feed resets the column, as in Python.
                b'\x0c' => indent = Indentation { tab8: 0, tab1: 0 },
                _ => break,
            }
            self.pos += 1;
        }
        match self.peek_byte(0) {
            None | Some(b'\n' | b'#' | b'\r') => return Ok(()),
            Some(b'\\') if matches!(self.peek_byte(1), Some(b'\n' | b'\r')) => return Ok(()),
            _ => {}
        }
        let span = self.span(start, self.pos);
        let inconsistent =
            || FrontendError::new(span, "inconsistent use of tabs and spaces in indentation");
        let Some(&top) = self.indents.last() else {
            self.indents.push(indent);
            return Ok(());
        };
        if indent.tab8 > top.tab8 {
            if indent.tab1 <= top.tab1 {
                return Err(inconsistent());
            }
            self.indents.push(indent);
            self.pending.push_back(Token {
                kind: TokenKind::Indent,
                span,
            });
        } else if indent.tab8 == top.tab8 {
            if indent.tab1 != top.tab1 {
                return Err(inconsistent());
            }
        } else {
            while self.indents.len() > 1 && indent.tab8 < self.indents.last().unwrap().tab8 {
                self.indents.pop();
                self.pending.push_back(Token {
                    kind: TokenKind::Dedent,
                    span: self.span(self.pos, self.pos),
                });
            }
            let top = *self.indents.last().unwrap();
            if indent.tab8 != top.tab8 {
                return Err(FrontendError::new(
                    span,
                    "unindent does not match any outer indentation level",
                ));
            }
            if indent.tab1 != top.tab1 {
                return Err(inconsistent());
            }
        }
        Ok(())
    }

    fn lex_token(&mut self) -> Result<Token> {
        let start = self.pos;
        let c = self.bytes[start];
        if c.is_ascii_digit()
            || (c == b'.' && self.peek_byte(1).is_some_and(|d| d.is_ascii_digit()))
        {
            self.lex_number();
            return Ok(Token {
                kind: TokenKind::Number,
                span: self.span(start, self.pos),
            });
        }
        if c == b'"' || c == b'\'' {
            self.lex_string_body(start)?;
            return Ok(Token {
                kind: TokenKind::String,
                span: self.span(start, self.pos),
            });
        }
        let ch = self.file.text[start..self.end]
            .chars()
            .next()
            .unwrap_or('\0');
        if ch == '_' || ch.is_alphabetic() {
            while let Some(ch) = self.file.text[self.pos..self.end].chars().next() {
                if ch == '_' || ch.is_alphanumeric() {
                    self.pos += ch.len_utf8();
                } else {
                    break;
                }
            }
            let text = &self.file.text[start..self.pos];
            if matches!(self.peek_byte(0), Some(b'"' | b'\'')) {
                if let Some(kind) = self.string_prefix(text, start)? {
                    let quote_start = self.pos;
                    self.lex_string_body(quote_start)?;
                    return Ok(Token {
                        kind,
                        span: self.span(start, self.pos),
                    });
                }
            }
            let kind = TokenKind::keyword(text).unwrap_or(TokenKind::Ident);
            return Ok(Token {
                kind,
                span: self.span(start, self.pos),
            });
        }
        let rest = &self.bytes[start..self.end];
        for (text, kind) in PUNCTUATION {
            if rest.starts_with(text.as_bytes()) {
                self.pos += text.len();
                return Ok(Token {
                    kind: *kind,
                    span: self.span(start, self.pos),
                });
            }
        }
        let shown: String = ch.escape_debug().collect();
        Err(self.error(
            start,
            start + ch.len_utf8().max(1),
            format!("expected a valid token but found '{shown}' here"),
        ))
    }

    /// The kind of a string literal with prefix `text`, or `None` when `text` is no prefix.
    fn string_prefix(&self, text: &str, start: usize) -> Result<Option<TokenKind>> {
        let lower = text.to_ascii_lowercase();
        match lower.as_str() {
            "r" | "u" => Ok(Some(TokenKind::String)),
            "f" | "rf" | "fr" => Ok(Some(TokenKind::FString)),
            // frontend.py's words for a bytes constant.
            "b" | "rb" | "br" => {
                Err(self.error(start, self.pos + 1, "Unknown Constant expression type"))
            }
            _ => Ok(None),
        }
    }

    /// From an opening quote at `quote_start`, moves past the closing quote.
    fn lex_string_body(&mut self, quote_start: usize) -> Result<()> {
        let quote = self.bytes[quote_start];
        let triple = self.bytes[quote_start..self.end].starts_with(&[quote; 3]);
        let quote_len = if triple { 3 } else { 1 };
        self.pos = quote_start + quote_len;
        loop {
            let Some(c) = self.peek_byte(0) else {
                let message = if triple {
                    "unterminated triple-quoted string literal"
                } else {
                    "unterminated string literal"
                };
                let end = if triple { quote_start + 3 } else { self.pos };
                return Err(self.error(quote_start, end, message));
            };
            if c == b'\n' && !triple {
                return Err(self.error(quote_start, self.pos, "unterminated string literal"));
            }
            if c == b'\\' {
                self.pos += 1;
                if self.peek_byte(0).is_some() {
                    // Keep the escaped character whole (it may be a multi-byte char).
                    let ch = self.file.text[self.pos..self.end].chars().next().unwrap();
                    self.pos += ch.len_utf8();
                }
                continue;
            }
            if c == quote && (!triple || self.bytes[self.pos..self.end].starts_with(&[quote; 3])) {
                self.pos += quote_len;
                return Ok(());
            }
            self.pos += 1;
        }
    }

    /// Finds the end of a number; [`decode_number`] validates it.
    fn lex_number(&mut self) {
        let is_word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
        let start = self.pos;
        if self.bytes[start] == b'0'
            && matches!(
                self.peek_byte(1),
                Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B')
            )
        {
            self.pos += 2;
            while self.peek_byte(0).is_some_and(is_word) {
                self.pos += 1;
            }
            return;
        }
        while self
            .peek_byte(0)
            .is_some_and(|c| c.is_ascii_digit() || c == b'_')
        {
            self.pos += 1;
        }
        if self.peek_byte(0) == Some(b'.') {
            self.pos += 1;
            while self
                .peek_byte(0)
                .is_some_and(|c| c.is_ascii_digit() || c == b'_')
            {
                self.pos += 1;
            }
        }
        if matches!(self.peek_byte(0), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(self.peek_byte(1), Some(b'+' | b'-')));
            if self.peek_byte(1 + sign).is_some_and(|c| c.is_ascii_digit()) {
                self.pos += 1 + sign;
                while self
                    .peek_byte(0)
                    .is_some_and(|c| c.is_ascii_digit() || c == b'_')
                {
                    self.pos += 1;
                }
            }
        }
        // Trailing letters (`3j`, or a malformed `12abc`) stay in the token so the error shows
        // the whole thing.
        while self.peek_byte(0).is_some_and(is_word) {
            self.pos += 1;
        }
    }
}

/// Lexes a whole file (or stops at the first error), with its `# type:` comments.
pub fn tokenize(file: &SourceFile) -> Result<(Vec<Token>, Vec<TypeComment>)> {
    let mut lexer = Lexer::new(file);
    let mut tokens = Vec::new();
    loop {
        let t = lexer.next_token()?;
        tokens.push(t);
        if t.kind == TokenKind::Eof {
            return Ok((tokens, lexer.into_type_comments()));
        }
    }
}

/// The value of a number literal.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Number {
    Int(i128),
    Float(f64),
    Imaginary(f64),
}

/// Decodes a number token's text (`0x1F`, `1_000`, `1.5e-3`, `3j`); `span` is for errors.
pub fn decode_number(text: &str, span: Span) -> Result<Number> {
    let invalid = || FrontendError::new(span, format!("invalid number literal '{text}'"));
    let check_underscores = |digits: &str| {
        !digits.is_empty()
            && !digits.starts_with('_')
            && !digits.ends_with('_')
            && !digits.contains("__")
    };
    let lower = text.to_ascii_lowercase();
    let radix = match lower.get(..2) {
        Some("0x") => 16,
        Some("0o") => 8,
        Some("0b") => 2,
        _ => 10,
    };
    if radix != 10 {
        let digits = lower[2..].strip_prefix('_').unwrap_or(&lower[2..]);
        if !check_underscores(digits) {
            return Err(invalid());
        }
        let digits: String = digits.chars().filter(|&c| c != '_').collect();
        return match i128::from_str_radix(&digits, radix) {
            Ok(v) => Ok(Number::Int(v)),
            Err(e) if matches!(e.kind(), std::num::IntErrorKind::PosOverflow) => {
                Err(FrontendError::new(span, INTEGRAL_OUT_OF_RANGE))
            }
            Err(_) => Err(invalid()),
        };
    }
    let (body, imaginary) = match lower.strip_suffix('j') {
        Some(b) => (b, true),
        None => (lower.as_str(), false),
    };
    // Underscores only between digits.
    let bytes = body.as_bytes();
    for (i, &c) in bytes.iter().enumerate() {
        if c == b'_' {
            let digit_before = i > 0 && bytes[i - 1].is_ascii_digit();
            let digit_after = bytes.get(i + 1).is_some_and(|d| d.is_ascii_digit());
            if !digit_before || !digit_after {
                return Err(invalid());
            }
        } else if !(c.is_ascii_digit() || c == b'.' || c == b'e' || c == b'+' || c == b'-') {
            return Err(invalid());
        }
    }
    let clean: String = body.chars().filter(|&c| c != '_').collect();
    let is_float = clean.contains(['.', 'e']);
    if imaginary {
        return clean
            .parse::<f64>()
            .map(Number::Imaginary)
            .map_err(|_| invalid());
    }
    if is_float {
        return clean
            .parse::<f64>()
            .map(Number::Float)
            .map_err(|_| invalid());
    }
    if clean.len() > 1 && clean.starts_with('0') && clean.bytes().any(|c| c != b'0') {
        return Err(FrontendError::new(
            span,
            "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
        ));
    }
    match clean.parse::<i128>() {
        Ok(v) => Ok(Number::Int(v)),
        Err(e) if matches!(e.kind(), std::num::IntErrorKind::PosOverflow) => {
            Err(FrontendError::new(span, INTEGRAL_OUT_OF_RANGE))
        }
        Err(_) => Err(invalid()),
    }
}

/// The prefix, quote length and body of a string token's text.
pub struct StringParts<'t> {
    pub raw: bool,
    pub fstring: bool,
    /// Byte offset of the body in the token text.
    pub body_offset: usize,
    pub body: &'t str,
}

pub fn split_string(text: &str) -> StringParts<'_> {
    let quote_at = text.find(['"', '\'']).unwrap_or(0);
    let prefix = text[..quote_at].to_ascii_lowercase();
    let quote = text.as_bytes().get(quote_at).copied().unwrap_or(b'"');
    let triple = text.as_bytes()[quote_at..].starts_with(&[quote; 3]) && text.len() >= quote_at + 6;
    let q = if triple { 3 } else { 1 };
    let body_end = text.len().saturating_sub(q).max(quote_at + q);
    StringParts {
        raw: prefix.contains('r'),
        fstring: prefix.contains('f'),
        body_offset: quote_at + q,
        body: text.get(quote_at + q..body_end).unwrap_or(""),
    }
}

/// Decodes a string literal token's text (prefix, quotes, escapes) to its value.
pub fn decode_string(text: &str, span: Span) -> Result<String> {
    let parts = split_string(text);
    if parts.raw {
        return Ok(parts.body.to_string());
    }
    unescape(parts.body, span.start + parts.body_offset as u32)
}

/// Python's escape sequences; `base` is the byte offset of `body` in the file, for errors.
pub fn unescape(body: &str, base: u32) -> Result<String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some((_, e)) = chars.next() else {
            out.push('\\');
            break;
        };
        let err = |len: usize, what: &str| {
            FrontendError::new(
                Span::new(base + i as u32, base + (i + len) as u32),
                what.to_string(),
            )
        };
        match e {
            '\n' => {}
            '\r' => {
                if let Some((_, '\n')) = chars.peek() {
                    chars.next();
                }
            }
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '0'..='7' => {
                let mut value = e.to_digit(8).unwrap();
                for _ in 0..2 {
                    match chars.peek() {
                        Some(&(_, d @ '0'..='7')) => {
                            value = value * 8 + d.to_digit(8).unwrap();
                            chars.next();
                        }
                        _ => break,
                    }
                }
                out.push(char::from_u32(value).unwrap_or('\u{fffd}'));
            }
            'x' | 'u' | 'U' => {
                let n = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let mut value = 0u32;
                for k in 0..n {
                    match chars.peek().and_then(|&(_, d)| d.to_digit(16)) {
                        Some(d) => {
                            value = value.wrapping_mul(16) + d;
                            chars.next();
                        }
                        None => {
                            return Err(err(
                                2 + k,
                                &format!("truncated \\{e}{} escape", "X".repeat(n)),
                            ))
                        }
                    }
                }
                match char::from_u32(value) {
                    Some(ch) => out.push(ch),
                    None => return Err(err(2 + n, "invalid unicode escape in string literal")),
                }
            }
            'N' => {
                return Err(err(
                    2,
                    "named unicode escapes (\\N{...}) are not supported in TorchScript",
                ))
            }
            // Unknown escapes keep their backslash, as in Python.
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use expect_test::{expect, Expect};

    fn check(src: &str, expected: Expect) {
        let file = SourceFile::new("t.py", src);
        let mut lexer = Lexer::new(&file);
        let mut out = Vec::new();
        loop {
            match lexer.next_token() {
                Ok(t) => {
                    let text = file.slice(t.span);
                    out.push(match t.kind {
                        TokenKind::Ident | TokenKind::Number | TokenKind::String => {
                            format!("{}({text})", t.kind.name())
                        }
                        TokenKind::FString => format!("fstring({text})"),
                        k => k.name().to_string(),
                    });
                    if t.kind == TokenKind::Eof {
                        break;
                    }
                }
                Err(e) => {
                    out.push(format!("ERROR {}", e.render(&file)));
                    break;
                }
            }
        }
        for c in lexer.type_comments() {
            out.push(format!("type-comment({})", file.slice(c.content)));
        }
        expected.assert_eq(&out.join(" "));
    }

    #[test]
    fn layout_tokens() {
        check(
            "def f(x):\n    if x:\n        return 1\n    return 2\n",
            expect![[
                r#"def ident(f) ( ident(x) ) : newline indent if ident(x) : newline indent return number(1) newline dedent return number(2) newline dedent eof"#
            ]],
        );
        // Blank lines and comment-only lines produce nothing; no NEWLINE inside brackets.
        check(
            "x = (1,\n  2)  # c\n\n   # only a comment\ny = [\n]\n",
            expect![[r#"ident(x) = ( number(1) , number(2) ) newline ident(y) = [ ] newline eof"#]],
        );
        // A line continuation joins lines.
        check(
            "x = 1 + \\\n      2\n",
            expect!["ident(x) = number(1) + number(2) newline eof"],
        );
        // The indentation of the first line is the base; missing final newline.
        check(
            "  a\n  b",
            expect![[r#"ident(a) newline ident(b) newline eof"#]],
        );
        // Several dedents at once, and at the end of the file.
        check(
            "if a:\n  if b:\n    c\nd\nif e:\n  f",
            expect![[
                r#"if ident(a) : newline indent if ident(b) : newline indent ident(c) newline dedent dedent ident(d) newline if ident(e) : newline indent ident(f) newline dedent eof"#
            ]],
        );
        // Tabs count to the next multiple of 8, consistently used.
        check(
            "if a:\n\tb\n\tc\n",
            expect![[
                r#"if ident(a) : newline indent ident(b) newline ident(c) newline dedent eof"#
            ]],
        );
        // A byte order mark is skipped.
        check("\u{feff}x\n", expect![[r#"ident(x) newline eof"#]]);
        // CRLF line ends.
        check(
            "if a:\r\n  b\r\n",
            expect![[r#"if ident(a) : newline indent ident(b) newline dedent eof"#]],
        );
    }

    #[test]
    fn layout_errors() {
        check(
            "if a:\n    b\n  c\n",
            expect![[
                r#"if ident(a) : newline indent ident(b) newline ERROR t.py:3:1: error: unindent does not match any outer indentation level
  c
~~ <--- HERE"#
            ]],
        );
        check(
            "if a:\n        b\n\tc\n",
            expect![[
                r#"if ident(a) : newline indent ident(b) newline ERROR t.py:3:1: error: inconsistent use of tabs and spaces in indentation
	c
~ <--- HERE"#
            ]],
        );
        check(
            "x = 1 \\ 2\n",
            expect![[
                r#"ident(x) = number(1) ERROR t.py:1:7: error: unexpected character after line continuation character
x = 1 \ 2
      ~ <--- HERE"#
            ]],
        );
        check(
            "x = 1 $ 2\n",
            expect![[
                r#"ident(x) = number(1) ERROR t.py:1:7: error: expected a valid token but found '$' here
x = 1 $ 2
      ~ <--- HERE"#
            ]],
        );
    }

    #[test]
    fn tokens() {
        check(
            "a**=b//c->d...e<<=f!=g==h<=i>=j:=k@l",
            expect![[
                r#"ident(a) **= ident(b) floordiv ident(c) arrow ident(d) dots ident(e) <<= ident(f) ne ident(g) eq ident(h) le ident(i) ge ident(j) := ident(k) @ ident(l) newline eof"#
            ]],
        );
        check(
            "is not in and or lambda None True False def_ _x x1 été",
            expect![[
                r#"is not in and or lambda None True False ident(def_) ident(_x) ident(x1) ident(été) newline eof"#
            ]],
        );
        check(
            "1 1.5 .5 1. 1e5 1.5E-3 0x1F 0o17 0b101 1_000 3j 2.5J x.y 1.real",
            expect!["number(1) number(1.5) number(.5) number(1.) number(1e5) number(1.5E-3) number(0x1F) number(0o17) number(0b101) number(1_000) number(3j) number(2.5J) ident(x) . ident(y) number(1.real) newline eof"],
        );
    }

    #[test]
    fn strings() {
        check(
            r#"'a' "b" '''c
d''' """e"f""" r'\q' u"x" 'it\'s' f"{x}" F'y' Rf"z""#,
            expect![[
                r#"string_literal('a') string_literal("b") string_literal('''c
d''') string_literal("""e"f""") string_literal(r'\q') string_literal(u"x") string_literal('it\'s') fstring(f"{x}") fstring(F'y') fstring(Rf"z") newline eof"#
            ]],
        );
        check(
            "x = 'abc\n",
            expect![[
                r#"ident(x) = ERROR t.py:1:5: error: unterminated string literal
x = 'abc
    ~~~~ <--- HERE"#
            ]],
        );
        check(
            "x = '''abc\n",
            expect![[
                r#"ident(x) = ERROR t.py:1:5: error: unterminated triple-quoted string literal
x = '''abc
    ~~~ <--- HERE"#
            ]],
        );
        check(
            "x = b'abc'\n",
            expect![[r#"
                ident(x) = ERROR t.py:1:5: error: Unknown Constant expression type
                x = b'abc'
                    ~~ <--- HERE"#]],
        );
    }

    #[test]
    fn type_comments() {
        check(
            "def f(x):\n    # type: (int) -> int\n    return x  #type:ignore\n# not a type comment\n",
            expect![[r#"def ident(f) ( ident(x) ) : newline indent return ident(x) newline dedent eof type-comment((int) -> int) type-comment(ignore)"#]],
        );
    }

    fn decode_num(text: &str) -> String {
        match decode_number(text, Span::new(0, text.len() as u32)) {
            Ok(n) => format!("{n:?}"),
            Err(e) => format!("error: {}", e.message),
        }
    }

    #[test]
    fn numbers() {
        let cases = [
            "0",
            "42",
            "1_000_000",
            "0x_ff",
            "0XFF",
            "0o777",
            "0b1010",
            "1.5",
            ".5",
            "1.",
            "1e3",
            "1E-3",
            "2.5e+2",
            "3j",
            "1.5j",
            "1_0.0_1",
            "007",
            "00",
            "1__0",
            "1_",
            "0x",
            "0b2",
            "12abc",
            "1e",
            "170141183460469231731687303715884105728",
        ];
        let out: Vec<String> = cases
            .iter()
            .map(|c| format!("{c} => {}", decode_num(c)))
            .collect();
        expect![[r#"
            0 => Int(0)
            42 => Int(42)
            1_000_000 => Int(1000000)
            0x_ff => Int(255)
            0XFF => Int(255)
            0o777 => Int(511)
            0b1010 => Int(10)
            1.5 => Float(1.5)
            .5 => Float(0.5)
            1. => Float(1.0)
            1e3 => Float(1000.0)
            1E-3 => Float(0.001)
            2.5e+2 => Float(250.0)
            3j => Imaginary(3.0)
            1.5j => Imaginary(1.5)
            1_0.0_1 => Float(10.01)
            007 => error: leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers
            00 => Int(0)
            1__0 => error: invalid number literal '1__0'
            1_ => error: invalid number literal '1_'
            0x => error: invalid number literal '0x'
            0b2 => error: invalid number literal '0b2'
            12abc => error: invalid number literal '12abc'
            1e => error: invalid number literal '1e'
            170141183460469231731687303715884105728 => error: Integral constant out of range (must fit in a signed 64 bit integer)"#]]
        .assert_eq(&out.join("\n"));
    }

    fn decode_str(text: &str) -> String {
        match decode_string(text, Span::new(0, text.len() as u32)) {
            Ok(s) => format!("{s:?}"),
            Err(e) => format!("error: {} at {:?}", e.message, e.span),
        }
    }

    #[test]
    fn string_values() {
        let cases = [
            r#"'a'"#,
            r#""""tri"ple""""#,
            r#"'\n\t\\\'\"\a\b\f\v\r'"#,
            r#"'\x41\101\u00e9\U0001F600\0'"#,
            r#"'\q\d'"#,
            r#"r'\n\q'"#,
            "'line\\\ncontinued'",
            r#"'\x4'"#,
            r#"'\N{DASH}'"#,
            r#"''"#,
            r#"''''''"#,
        ];
        let out: Vec<String> = cases
            .iter()
            .map(|c| format!("{c} => {}", decode_str(c)))
            .collect();
        expect![[r#"
            'a' => "a"
            """tri"ple""" => "tri\"ple"
            '\n\t\\\'\"\a\b\f\v\r' => "\n\t\\'\"\u{7}\u{8}\u{c}\u{b}\r"
            '\x41\101\u00e9\U0001F600\0' => "AAé😀\0"
            '\q\d' => "\\q\\d"
            r'\n\q' => "\\n\\q"
            'line\
            continued' => "linecontinued"
            '\x4' => error: truncated \xXX escape at Span { start: 1, end: 4 }
            '\N{DASH}' => error: named unicode escapes (\N{...}) are not supported in TorchScript at Span { start: 1, end: 3 }
            '' => ""
            '''''' => """#]]
        .assert_eq(&out.join("\n"));
    }
}
