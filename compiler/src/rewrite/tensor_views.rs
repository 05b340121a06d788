//! Views of views and no-op conversions: `t(t(x))`, a transpose undone, reshape chains, and
//! `contiguous`/`to`/`expand` that return their input unchanged (PyTorch returns `self` for
//! them, so the rewrite is exact). Only values nothing writes are in the e-graph, so a view
//! replaced by its base is never written through.

use egg::{rewrite as rw, Rewrite};
use ember_runtime::tensor::DType;

use super::tensor::{facts, var, Lit, TensorAnalysis, TensorGraph, TensorLang};

pub fn rules() -> Vec<Rewrite<TensorLang, TensorAnalysis>> {
    vec![
        rw!("t-of-t"; "(aten::t (aten::t ?x))" => "?x"),
        rw!("transpose-of-transpose"; "(aten::transpose (aten::transpose ?x ?a ?b) ?a ?b)" => "?x"),
        rw!("transpose-of-transpose-swapped";
            "(aten::transpose (aten::transpose ?x ?a ?b) ?b ?a)" => "?x"),
        rw!("reshape-of-reshape"; "(aten::reshape (aten::reshape ?x ?s) ?t)" => "(aten::reshape ?x ?t)"),
        // memory_format 0 is torch.contiguous_format.
        rw!("contiguous-of-contiguous"; "(aten::contiguous ?x int:0)" => "?x" if contiguous("?x")),
        rw!("contiguous-twice";
            "(aten::contiguous (aten::contiguous ?x int:0) int:0)" => "(aten::contiguous ?x int:0)"),
        rw!("to-own-dtype"; "(aten::to ?x ?dtype bool:false bool:false none)" => "?x"
            if dtype_is("?dtype", "?x")),
        rw!("expand-to-own-size"; "(aten::expand ?x ?size bool:false)" => "?x"
            if sizes_are("?size", "?x")),
    ]
}

/// The class `x` matched is a tensor known to be contiguous.
fn contiguous(x: &'static str) -> impl Fn(&mut TensorGraph, egg::Id, &egg::Subst) -> bool {
    let x = var(x);
    move |eg, _, s| {
        facts(eg, s, &x)
            .tensor
            .as_ref()
            .is_some_and(|t| t.contiguous)
    }
}

/// `dtype` is the constant dtype code of the known dtype of `x`.
fn dtype_is(
    dtype: &'static str,
    x: &'static str,
) -> impl Fn(&mut TensorGraph, egg::Id, &egg::Subst) -> bool {
    let (d, x) = (var(dtype), var(x));
    move |eg, _, s| {
        let Some(Lit::Int(code)) = facts(eg, s, &d).lit else {
            return false;
        };
        let known = facts(eg, s, &x).tensor.as_ref().and_then(|t| t.dtype);
        known.is_some() && DType::from_code(code).map(DType::scalar_type) == known
    }
}

/// `size` is the constant list of the known sizes of `x`.
fn sizes_are(
    size: &'static str,
    x: &'static str,
) -> impl Fn(&mut TensorGraph, egg::Id, &egg::Subst) -> bool {
    let (size, x) = (var(size), var(x));
    move |eg, _, s| {
        let Some(Lit::Ints(want)) = &facts(eg, s, &size).lit else {
            return false;
        };
        facts(eg, s, &x)
            .tensor
            .as_ref()
            .and_then(|t| t.sizes.as_ref())
            .is_some_and(|have| have == want)
    }
}
