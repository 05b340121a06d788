//! egg rewrite rule sets, one file per topic, over the scalar language of [`scalar`].
//!
//! Rules are one-directional and named; there is no general commutativity or associativity, so
//! each rule lists the operand orders it handles. Rules about ints say so in a condition: most
//! integer identities are wrong for IEEE floats (`x * 0` is not `0` for NaN, `x + 0.0` is not
//! `x` for `-0.0`), and the float rules here hold bit for bit.

pub mod boolean;
pub mod scalar;
pub mod scalar_arith;
pub mod scalar_compare;

use egg::Rewrite;

use scalar::{Scalar, ScalarAnalysis};

/// Every scalar rule set, in one list for the runner.
pub fn scalar_rules() -> Vec<Rewrite<Scalar, ScalarAnalysis>> {
    let mut rules = scalar_arith::rules();
    rules.extend(scalar_compare::rules());
    rules.extend(boolean::rules());
    rules
}
