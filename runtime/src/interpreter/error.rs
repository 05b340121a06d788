//! Errors raised while a program runs, reported the way PyTorch reports them: the message,
//! and the node that raised it with its source location.

use std::fmt;

use ember_dialects::{Node, SourceRange, Symbol};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    pub message: String,
    /// The node that failed (in the graph the code was built from), when the failure is an
    /// operation's.
    pub node: Option<Node>,
    pub kind: Option<Symbol>,
    pub source: Option<SourceRange>,
}

impl RuntimeError {
    pub fn new(message: impl Into<String>) -> RuntimeError {
        RuntimeError {
            message: message.into(),
            node: None,
            kind: None,
            source: None,
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if let Some(kind) = self.kind {
            write!(f, "\n  in {kind}")?;
            if let Some(s) = &self.source {
                write!(f, " at {s}")?;
            }
        }
        Ok(())
    }
}

impl std::error::Error for RuntimeError {}
