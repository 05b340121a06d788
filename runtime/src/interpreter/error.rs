//! Errors raised while a program runs, reported the way PyTorch reports them: the message,
//! the node that raised it with its source location and, when the error happened inside a
//! call, the TorchScript call stack (PyTorch's "Traceback of TorchScript").

use std::fmt;

use ember_dialects::{Node, SourceRange, Symbol};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeError {
    pub message: String,
    /// The node that failed, when the failure is an operation's. It belongs to the graph of
    /// the innermost function of `call_stack` (the graph the code was built from when the
    /// stack is empty).
    pub node: Option<Node>,
    pub kind: Option<Symbol>,
    pub source: Option<SourceRange>,
    /// Empty when the error happened in the code `run` was given. Otherwise one entry per
    /// active function, outermost first: where each one was when the error happened (a call,
    /// a `wait`, and last the failing node). `call_stack[0].node` is in the graph the code was
    /// built from.
    pub call_stack: Vec<StackEntry>,
}

/// One function of a call stack and the node it was executing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StackEntry {
    /// The function's name (`forward`, `helper`, `<forked function>`; `<graph>` for a graph
    /// run directly).
    pub function: String,
    pub node: Node,
    pub kind: Symbol,
    pub source: Option<SourceRange>,
}

impl RuntimeError {
    pub fn new(message: impl Into<String>) -> RuntimeError {
        RuntimeError {
            message: message.into(),
            node: None,
            kind: None,
            source: None,
            call_stack: Vec::new(),
        }
    }

    /// The node of the code `run` was given where the error surfaced: the outermost call
    /// when the error happened inside one, else the failing node.
    pub fn top_node(&self) -> Option<Node> {
        match self.call_stack.first() {
            Some(entry) => Some(entry.node),
            None => self.node,
        }
    }
}

impl fmt::Display for RuntimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)?;
        if !self.call_stack.is_empty() {
            f.write_str("\nTraceback of TorchScript (most recent call last):")?;
            for entry in &self.call_stack {
                write!(f, "\n  {}", entry)?;
            }
            return Ok(());
        }
        if let Some(kind) = self.kind {
            write!(f, "\n  in {kind}")?;
            if let Some(s) = &self.source {
                write!(f, " at {s}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for StackEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "in {}: {}", self.function, self.kind)?;
        if let Some(s) = &self.source {
            write!(f, " at {s}")?;
        }
        Ok(())
    }
}

impl std::error::Error for RuntimeError {}

/// The message of a caught panic (`catch_unwind`'s payload), for the error that reports it.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_else(|| "unknown panic".into())
}
