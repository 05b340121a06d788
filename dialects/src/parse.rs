//! TODO(owner): see issue 2.
