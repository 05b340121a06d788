//! egg rewrite rule sets, one file per topic, over the scalar language of [`scalar`] and the
//! tensor language of [`tensor`].
//!
//! Rules are one-directional and named; there is no general commutativity or associativity, so
//! each rule lists the operand orders it handles. Rules about ints say so in a condition: most
//! integer identities are wrong for IEEE floats (`x * 0` is not `0` for NaN, `x + 0.0` is not
//! `x` for `-0.0`), and the float rules here hold bit for bit.

pub mod boolean;
pub mod scalar;
pub mod scalar_arith;
pub mod scalar_compare;
pub mod tensor;
pub mod tensor_linear;
pub mod tensor_shape;
pub mod tensor_views;

use egg::Rewrite;

use scalar::{Scalar, ScalarAnalysis};
use tensor::{TensorAnalysis, TensorLang};

/// Every scalar rule set, in one list for the runner.
pub fn scalar_rules() -> Vec<Rewrite<Scalar, ScalarAnalysis>> {
    let mut rules = scalar_arith::rules();
    rules.extend(scalar_compare::rules());
    rules.extend(boolean::rules());
    rules
}

/// Every tensor rule set.
pub fn tensor_rules() -> Vec<Rewrite<TensorLang, TensorAnalysis>> {
    let mut rules = tensor_views::rules();
    rules.extend(tensor_linear::rules());
    rules.extend(tensor_shape::rules());
    rules
}
