//! Frontend diagnostics: a message and the span it is about, rendered the way Ember's tools report
//! errors (`file:line:col: error: message`) followed by the highlighted source line, as PyTorch
//! shows the offending range with `~~~~ <--- HERE`.

use std::fmt::Write;

use super::span::{SourceFile, Span};

#[derive(Clone, Debug, PartialEq)]
pub struct FrontendError {
    pub span: Span,
    pub message: String,
}

impl FrontendError {
    pub fn new(span: Span, message: impl Into<String>) -> FrontendError {
        FrontendError {
            span,
            message: message.into(),
        }
    }

    /// `file:line:col: error: message`, then the first line of the span with `~` under it.
    pub fn render(&self, file: &SourceFile) -> String {
        let pos = file.pos(self.span.start);
        let mut out = format!(
            "{}:{}:{}: error: {}",
            file.name, pos.line, pos.col, self.message
        );
        let line = file.line_text(pos.line);
        if !line.is_empty() {
            let end = file.pos(self.span.end.max(self.span.start + 1));
            let width = if end.line == pos.line {
                end.col.saturating_sub(pos.col).max(1)
            } else {
                (line.chars().count() as u32 + 1)
                    .saturating_sub(pos.col)
                    .max(1)
            };
            let pad = " ".repeat(pos.col as usize - 1);
            let _ = write!(
                out,
                "\n{line}\n{pad}{} <--- HERE",
                "~".repeat(width as usize)
            );
        }
        out
    }
}

pub type Result<T, E = FrontendError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_location_and_highlight() {
        let f = SourceFile::new("t.py", "def f(x):\n    return y + x\n");
        let e = FrontendError::new(Span::new(21, 22), "undefined value y");
        assert_eq!(
            e.render(&f),
            "t.py:2:12: error: undefined value y\n    return y + x\n           ~ <--- HERE"
        );
    }
}
