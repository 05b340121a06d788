//! Facts about graphs that passes share: aliasing, writes and side effects ([`alias`]), and
//! node equality.

pub mod alias;
pub mod node_eq;
