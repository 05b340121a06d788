//! Byte ranges in a source file, and the file they index: what every AST node and frontend
//! diagnostic carries.

use std::sync::Arc;

use ember_dialects::source::{Pos, SourceRange};

/// A half-open byte range `start..end` of one [`SourceFile`].
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: u32, end: u32) -> Span {
        Span { start, end }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// A named source text with its line index, shared by the AST, the emitter and diagnostics.
#[derive(Debug)]
pub struct SourceFile {
    pub name: Arc<str>,
    pub text: String,
    /// Byte offset of the start of each line.
    line_starts: Vec<u32>,
}

impl SourceFile {
    pub fn new(name: impl Into<Arc<str>>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn pos(&self, offset: u32) -> Pos {
        let offset = offset.min(self.text.len() as u32);
        let line = self.line_starts.partition_point(|&s| s <= offset) - 1;
        let start = self.line_starts[line] as usize;
        let end = (offset as usize).max(start);
        let col = self
            .text
            .get(start..end)
            .map_or(end - start, |s| s.chars().count());
        Pos {
            line: line as u32 + 1,
            col: col as u32 + 1,
        }
    }

    /// The text of a 1-based line, without its newline.
    pub fn line_text(&self, line: u32) -> &str {
        let i = (line as usize).saturating_sub(1);
        let Some(&start) = self.line_starts.get(i) else {
            return "";
        };
        let end = self
            .line_starts
            .get(i + 1)
            .map_or(self.text.len(), |&e| e as usize - 1);
        self.text.get(start as usize..end).unwrap_or("")
    }

    pub fn slice(&self, span: Span) -> &str {
        self.text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    /// The graph-node source range of a span: what `# file:line:col` prints after a node.
    /// As in PyTorch's graphs, the line counts from 1 and the column from 0 (diagnostics,
    /// like compilers', count both from 1).
    pub fn source_range(&self, span: Span) -> SourceRange {
        let pos = self.pos(span.start);
        SourceRange {
            file: self.name.clone(),
            line: pos.line,
            col: pos.col - 1,
        }
    }
}
