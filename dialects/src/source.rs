//! Source locations carried by nodes: the `# file:line:col` comments of PyTorch's graph text.

use std::fmt;
use std::sync::Arc;

/// Where a node came from, as PyTorch prints it after a node (`# test.py:3:11`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SourceRange {
    pub file: Arc<str>,
    pub line: u32,
    pub col: u32,
}

impl fmt::Display for SourceRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// A position in a text being parsed (1-based line and column), for error messages.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

/// An error in some input text, reported as `file:line:col: error: message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub pos: Pos,
    pub message: String,
}

impl Diagnostic {
    pub fn new(pos: Pos, message: impl Into<String>) -> Self {
        Diagnostic {
            pos,
            message: message.into(),
        }
    }

    /// Renders as `file:line:col: error: message`, the form every Ember tool reports.
    pub fn render(&self, file: &str) -> String {
        format!(
            "{}:{}:{}: error: {}",
            file, self.pos.line, self.pos.col, self.message
        )
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: error: {}",
            self.pos.line, self.pos.col, self.message
        )
    }
}

impl std::error::Error for Diagnostic {}
