//! The error of tensor operations: a message in PyTorch's words, raised to the program.

use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorError {
    pub message: String,
}

impl TensorError {
    pub fn new(message: impl Into<String>) -> TensorError {
        TensorError {
            message: message.into(),
        }
    }
}

impl fmt::Display for TensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for TensorError {}

pub type TensorResult<T> = Result<T, TensorError>;

/// Returns early with a `TensorError` built from a format string.
#[macro_export]
macro_rules! bail {
    ($($arg:tt)*) => {
        return Err($crate::tensor::TensorError::new(format!($($arg)*)))
    };
}
