//! Creation operators: filled tensors, ranges, tensors from Python values, random tensors,
//! and dtype/device conversions.

pub mod convert;
pub mod factory;
pub mod literal;
pub mod matrix;
pub mod mt19937;
pub mod random;
pub mod range;

use super::registry::Registry;

pub fn register(r: &mut Registry) {
    factory::register(r);
    range::register(r);
    literal::register(r);
    matrix::register(r);
    random::register(r);
    convert::register(r);
}

#[cfg(test)]
mod tests;
