//! Shape queries answered from what is known: `x.dim()` of a value whose rank is known is a
//! constant, and the rank of an op that keeps its input's rank (an activation, a convolution,
//! a normalization, a pooling) is its input's: `dim(conv2d(x, …))` is `dim(x)`. Batch norm's
//! `_check_input_dim` after a convolution then reads the model's input, and checks of one
//! rank merge.

use egg::{Applier, Id, PatternAst, Rewrite, Subst, Symbol};

use super::tensor::{var, Lit, TensorAnalysis, TensorGraph, TensorLang, RANK_PRESERVING};

pub fn rules() -> Vec<Rewrite<TensorLang, TensorAnalysis>> {
    vec![
        Rewrite::new(
            "dim-of-rank-preserving",
            "(aten::dim ?v)"
                .parse::<egg::Pattern<TensorLang>>()
                .expect("pattern"),
            DimOfInput,
        )
        .expect("rule"),
        Rewrite::new(
            "dim-known",
            "(aten::dim ?v)"
                .parse::<egg::Pattern<TensorLang>>()
                .expect("pattern"),
            KnownDim,
        )
        .expect("rule"),
    ]
}

/// `dim(op(x, …))` is `dim(x)` when `op` keeps its first input's rank.
struct DimOfInput;

impl Applier<TensorLang, TensorAnalysis> for DimOfInput {
    fn apply_one(
        &self,
        egraph: &mut TensorGraph,
        eclass: Id,
        subst: &Subst,
        _ast: Option<&PatternAst<TensorLang>>,
        _rule: Symbol,
    ) -> Vec<Id> {
        let v = subst[var("?v")];
        let inputs: Vec<Id> = egraph[v]
            .nodes
            .iter()
            .filter_map(|n| match n {
                TensorLang::Op(kind, children) if RANK_PRESERVING.contains(&kind.as_str()) => {
                    children.first().copied()
                }
                _ => None,
            })
            .collect();
        let mut changed = Vec::new();
        for x in inputs {
            let dim = egraph.add(TensorLang::Op(Symbol::from("aten::dim"), vec![x]));
            if egraph.union(eclass, dim) {
                changed.push(eclass);
            }
        }
        changed
    }
}

/// `dim(x)` of an `x` whose rank is known is that rank.
struct KnownDim;

impl Applier<TensorLang, TensorAnalysis> for KnownDim {
    fn apply_one(
        &self,
        egraph: &mut TensorGraph,
        eclass: Id,
        subst: &Subst,
        _ast: Option<&PatternAst<TensorLang>>,
        _rule: Symbol,
    ) -> Vec<Id> {
        let v = subst[var("?v")];
        let Some(rank) = egraph[v].data.tensor.as_ref().and_then(|t| t.rank) else {
            return Vec::new();
        };
        let lit = egraph.add(TensorLang::Lit(Lit::Int(rank as i64)));
        if egraph.union(eclass, lit) {
            vec![eclass]
        } else {
            Vec::new()
        }
    }
}
