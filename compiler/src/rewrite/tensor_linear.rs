//! Matrix products in the forms the kernels serve best: `matmul` of two matrices is `mm`;
//! `matmul` by a constant weight matrix is `linear` by its transpose (which constant
//! propagation then folds: one packed weight, the bias epilogue free); `addmm` of a bias
//! vector and a transposed weight (traced `nn.Linear`) is `linear`.

use egg::{rewrite as rw, Rewrite};

use super::tensor::{facts, var, Lit, TensorAnalysis, TensorGraph, TensorLang};

pub fn rules() -> Vec<Rewrite<TensorLang, TensorAnalysis>> {
    vec![
        rw!("matmul-of-matrices"; "(aten::matmul ?a ?b)" => "(aten::mm ?a ?b)"
            if rank_is("?a", 2) if rank_is("?b", 2)),
        rw!("matmul-by-constant-weight"; "(aten::matmul ?x ?w)" => "(aten::linear ?x (aten::t ?w) none)"
            if rank_is("?w", 2) if constant_tensor("?w") if rank_at_least("?x", 3)),
        rw!("addmm-of-transposed-weight";
            "(aten::addmm ?b ?x (aten::t ?w) ?beta ?alpha)" => "(aten::linear ?x ?w ?b)"
            if rank_is("?b", 1) if rank_is("?w", 2) if is_one("?beta") if is_one("?alpha")),
    ]
}

fn rank_is(
    x: &'static str,
    rank: usize,
) -> impl Fn(&mut TensorGraph, egg::Id, &egg::Subst) -> bool {
    let x = var(x);
    move |eg, _, s| facts(eg, s, &x).tensor.as_ref().and_then(|t| t.rank) == Some(rank)
}

fn rank_at_least(
    x: &'static str,
    rank: usize,
) -> impl Fn(&mut TensorGraph, egg::Id, &egg::Subst) -> bool {
    let x = var(x);
    move |eg, _, s| {
        facts(eg, s, &x)
            .tensor
            .as_ref()
            .and_then(|t| t.rank)
            .is_some_and(|r| r >= rank)
    }
}

fn constant_tensor(x: &'static str) -> impl Fn(&mut TensorGraph, egg::Id, &egg::Subst) -> bool {
    let x = var(x);
    move |eg, _, s| facts(eg, s, &x).constant_tensor
}

fn is_one(x: &'static str) -> impl Fn(&mut TensorGraph, egg::Id, &egg::Subst) -> bool {
    let x = var(x);
    move |eg, _, s| facts(eg, s, &x).lit == Some(Lit::Int(1))
}
