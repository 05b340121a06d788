//! Constant folding shared by the passes: reading and making `prim::Constant` nodes, and
//! evaluating scalar, string, list and tuple ops on constants with TorchScript's semantics.
//! `constant-propagation` and the e-graph analysis of `canonicalize` both fold through here, so
//! the two always agree on what an op computes.

pub mod constant;
pub mod eval;
pub mod tensor;
pub mod type_facts;

pub use constant::{
    constant_bool, constant_int, constant_type, constant_value, identical, insert_constant_before,
};
pub use eval::eval;
