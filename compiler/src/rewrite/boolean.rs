//! Identities of `not`, `&`, `|`, `^` on bools (and the bitwise ones on ints), and of
//! negated comparisons. `not (a < b)` is `a >= b` only without NaN, so not for floats;
//! `not (a == b)` is `a != b` for floats as well.

use egg::{rewrite as rw, Rewrite};

use super::scalar::{has_type, not_float, Scalar, ScalarAnalysis, ScalarTy::*};

pub fn rules() -> Vec<Rewrite<Scalar, ScalarAnalysis>> {
    vec![
        rw!("not-not"; "(aten::__not__ (aten::__not__ ?b))" => "?b"),
        rw!("and-true"; "(aten::__and__ ?b True)" => "?b"),
        rw!("true-and"; "(aten::__and__ True ?b)" => "?b"),
        rw!("and-false"; "(aten::__and__ ?b False)" => "False"),
        rw!("false-and"; "(aten::__and__ False ?b)" => "False"),
        rw!("or-false"; "(aten::__or__ ?b False)" => "?b"),
        rw!("false-or"; "(aten::__or__ False ?b)" => "?b"),
        rw!("or-true"; "(aten::__or__ ?b True)" => "True"),
        rw!("true-or"; "(aten::__or__ True ?b)" => "True"),
        rw!("xor-false"; "(aten::__xor__ ?b False)" => "?b"),
        rw!("xor-true"; "(aten::__xor__ ?b True)" => "(aten::__not__ ?b)"),
        rw!("and-self"; "(aten::__and__ ?b ?b)" => "?b"),
        rw!("or-self"; "(aten::__or__ ?b ?b)" => "?b"),
        rw!("xor-self"; "(aten::__xor__ ?b ?b)" => "False" if has_type("?b", Bool)),
        rw!("xor-self-int"; "(aten::__xor__ ?x ?x)" => "0" if has_type("?x", Int)),
        rw!("and-zero"; "(aten::__and__ ?x 0)" => "0" if has_type("?x", Int)),
        rw!("or-zero"; "(aten::__or__ ?x 0)" => "?x" if has_type("?x", Int)),
        rw!("xor-zero"; "(aten::__xor__ ?x 0)" => "?x" if has_type("?x", Int)),
        rw!("eq-true"; "(aten::eq ?b True)" => "?b" if has_type("?b", Bool)),
        rw!("eq-false"; "(aten::eq ?b False)" => "(aten::__not__ ?b)" if has_type("?b", Bool)),
        rw!("ne-false"; "(aten::ne ?b False)" => "?b" if has_type("?b", Bool)),
        rw!("ne-true"; "(aten::ne ?b True)" => "(aten::__not__ ?b)" if has_type("?b", Bool)),
        rw!("not-eq"; "(aten::__not__ (aten::eq ?a ?b))" => "(aten::ne ?a ?b)"),
        rw!("not-ne"; "(aten::__not__ (aten::ne ?a ?b))" => "(aten::eq ?a ?b)"),
        rw!("not-lt"; "(aten::__not__ (aten::lt ?a ?b))" => "(aten::ge ?a ?b)"
            if not_float("?a") if not_float("?b")),
        rw!("not-le"; "(aten::__not__ (aten::le ?a ?b))" => "(aten::gt ?a ?b)"
            if not_float("?a") if not_float("?b")),
        rw!("not-gt"; "(aten::__not__ (aten::gt ?a ?b))" => "(aten::le ?a ?b)"
            if not_float("?a") if not_float("?b")),
        rw!("not-ge"; "(aten::__not__ (aten::ge ?a ?b))" => "(aten::lt ?a ?b)"
            if not_float("?a") if not_float("?b")),
    ]
}
