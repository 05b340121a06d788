//! Facts about graphs that passes share: effects of nodes, node equality, escaping values.

pub mod effects;
pub mod escape;
pub mod node_eq;
