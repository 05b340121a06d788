//! The error of reading an archive: a message naming the record it concerns.

use std::fmt;

/// Why an archive (or one of its records) was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    /// The record the problem is in (`data.pkl`, `data/3`, `code/__torch__.py`), relative to
    /// the archive's top-level folder; `None` for problems of the zip container itself.
    pub record: Option<String>,
    pub message: String,
}

impl ImportError {
    pub fn new(message: impl Into<String>) -> ImportError {
        ImportError {
            record: None,
            message: message.into(),
        }
    }

    pub fn in_record(record: impl Into<String>, message: impl Into<String>) -> ImportError {
        ImportError {
            record: Some(record.into()),
            message: message.into(),
        }
    }

    /// The same error attributed to `record` unless it already names one.
    pub fn with_record(mut self, record: &str) -> ImportError {
        if self.record.is_none() {
            self.record = Some(record.to_string());
        }
        self
    }
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.record {
            Some(r) => write!(f, "{r}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ImportError {}

/// Returns early with an [`ImportError`] built from a format string.
macro_rules! refuse {
    ($($arg:tt)*) => {
        return Err($crate::import::error::ImportError::new(format!($($arg)*)))
    };
}
pub(crate) use refuse;
