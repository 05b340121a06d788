//! Identities of scalar `+ - * / // %` and negation. Integer rules hold under PyTorch's
//! wrapping 64-bit arithmetic; float rules hold bit for bit under IEEE 754 (`x * 1.0`,
//! `x + -0.0`, `x - 0.0`, `x / 1.0` are `x` for every `x`, NaN and `-0.0` included; `x + 0.0`
//! and `x * 0.0` are not, so there are no such rules).

use egg::{rewrite as rw, Rewrite};

use super::scalar::{has_type, is_constant, Scalar, ScalarAnalysis, ScalarTy::*};

pub fn rules() -> Vec<Rewrite<Scalar, ScalarAnalysis>> {
    vec![
        rw!("add-zero"; "(aten::add ?x 0)" => "?x" if has_type("?x", Int)),
        rw!("zero-add"; "(aten::add 0 ?x)" => "?x" if has_type("?x", Int)),
        rw!("add-neg-zero"; "(aten::add ?x -0.0)" => "?x" if has_type("?x", Float)),
        rw!("sub-zero"; "(aten::sub ?x 0)" => "?x" if has_type("?x", Int)),
        rw!("sub-pos-zero"; "(aten::sub ?x 0.0)" => "?x" if has_type("?x", Float)),
        rw!("sub-self"; "(aten::sub ?x ?x)" => "0" if has_type("?x", Int)),
        rw!("zero-sub"; "(aten::sub 0 ?x)" => "(aten::neg ?x)" if has_type("?x", Int)),
        rw!("mul-one"; "(aten::mul ?x 1)" => "?x" if has_type("?x", Int)),
        rw!("one-mul"; "(aten::mul 1 ?x)" => "?x" if has_type("?x", Int)),
        rw!("mul-one-float"; "(aten::mul ?x 1.0)" => "?x" if has_type("?x", Float)),
        rw!("one-mul-float"; "(aten::mul 1.0 ?x)" => "?x" if has_type("?x", Float)),
        rw!("mul-zero"; "(aten::mul ?x 0)" => "0" if has_type("?x", Int)),
        rw!("zero-mul"; "(aten::mul 0 ?x)" => "0" if has_type("?x", Int)),
        rw!("mul-neg-one"; "(aten::mul ?x -1)" => "(aten::neg ?x)" if has_type("?x", Int)),
        rw!("div-one-float"; "(aten::div ?x 1.0)" => "?x" if has_type("?x", Float)),
        rw!("floordiv-one"; "(aten::floordiv ?x 1)" => "?x" if has_type("?x", Int)),
        rw!("remainder-one"; "(aten::remainder ?x 1)" => "0" if has_type("?x", Int)),
        // Negation is exact in both worlds: a sign flip, or wrapping two's complement.
        rw!("neg-neg"; "(aten::neg (aten::neg ?x))" => "?x"),
        rw!("add-neg"; "(aten::add ?x (aten::neg ?y))" => "(aten::sub ?x ?y)"),
        rw!("sub-neg"; "(aten::sub ?x (aten::neg ?y))" => "(aten::add ?x ?y)"),
        // `-(x - y)` is `y - x` for ints; for floats `-(x - x)` is `-0.0` but `x - x` is `0.0`.
        rw!("neg-sub"; "(aten::neg (aten::sub ?x ?y))" => "(aten::sub ?y ?x)"
            if has_type("?x", Int) if has_type("?y", Int)),
        // Constants gather, for ints only (wrapping arithmetic is associative; float
        // arithmetic is not). The analysis then folds the gathered constants.
        rw!("add-add-const"; "(aten::add (aten::add ?x ?a) ?b)" => "(aten::add ?x (aten::add ?a ?b))"
            if has_type("?x", Int) if is_constant("?a") if is_constant("?b")
            if has_type("?a", Int) if has_type("?b", Int)),
        rw!("sub-sub-const"; "(aten::sub (aten::sub ?x ?a) ?b)" => "(aten::sub ?x (aten::add ?a ?b))"
            if has_type("?x", Int) if is_constant("?a") if is_constant("?b")
            if has_type("?a", Int) if has_type("?b", Int)),
        rw!("add-sub-const"; "(aten::sub (aten::add ?x ?a) ?b)" => "(aten::add ?x (aten::sub ?a ?b))"
            if has_type("?x", Int) if is_constant("?a") if is_constant("?b")
            if has_type("?a", Int) if has_type("?b", Int)),
        rw!("mul-mul-const"; "(aten::mul (aten::mul ?x ?a) ?b)" => "(aten::mul ?x (aten::mul ?a ?b))"
            if has_type("?x", Int) if is_constant("?a") if is_constant("?b")
            if has_type("?a", Int) if has_type("?b", Int)),
    ]
}
