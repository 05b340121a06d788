//! Identities of scalar comparisons. `x == x` is not `True` for a float NaN, so the reflexive
//! rules are for ints and bools, except `x < x` and `x > x`, false for every float too.
//! Comparisons of constants fold in the analysis ([`super::scalar::ScalarAnalysis`]).

use egg::{rewrite as rw, Rewrite};

use super::scalar::{has_type, is_constant, not_float, Scalar, ScalarAnalysis, ScalarTy::*};

pub fn rules() -> Vec<Rewrite<Scalar, ScalarAnalysis>> {
    vec![
        rw!("eq-self"; "(aten::eq ?x ?x)" => "True" if not_float("?x")),
        rw!("ne-self"; "(aten::ne ?x ?x)" => "False" if not_float("?x")),
        rw!("le-self"; "(aten::le ?x ?x)" => "True" if not_float("?x")),
        rw!("ge-self"; "(aten::ge ?x ?x)" => "True" if not_float("?x")),
        rw!("lt-self"; "(aten::lt ?x ?x)" => "False"),
        rw!("gt-self"; "(aten::gt ?x ?x)" => "False"),
        // Wrapping subtraction is zero exactly when the operands are equal.
        rw!("sub-eq-zero"; "(aten::eq (aten::sub ?x ?y) 0)" => "(aten::eq ?x ?y)"
            if has_type("?x", Int) if has_type("?y", Int)),
        rw!("sub-ne-zero"; "(aten::ne (aten::sub ?x ?y) 0)" => "(aten::ne ?x ?y)"
            if has_type("?x", Int) if has_type("?y", Int)),
        // Negation is a bijection that keeps equality (for floats too: `-0.0 == 0.0`, NaN).
        rw!("neg-eq-neg"; "(aten::eq (aten::neg ?x) (aten::neg ?y))" => "(aten::eq ?x ?y)"),
        rw!("neg-ne-neg"; "(aten::ne (aten::neg ?x) (aten::neg ?y))" => "(aten::ne ?x ?y)"),
        // Adding a constant is a bijection on wrapping ints: it moves across `==` and `!=`
        // (not across `<`, which overflow breaks).
        rw!("add-const-eq"; "(aten::eq (aten::add ?x ?a) ?b)" => "(aten::eq ?x (aten::sub ?b ?a))"
            if has_type("?x", Int) if is_constant("?a") if is_constant("?b")
            if has_type("?a", Int) if has_type("?b", Int)),
        rw!("add-const-ne"; "(aten::ne (aten::add ?x ?a) ?b)" => "(aten::ne ?x (aten::sub ?b ?a))"
            if has_type("?x", Int) if is_constant("?a") if is_constant("?b")
            if has_type("?a", Int) if has_type("?b", Int)),
    ]
}
