//! The e-graph language of tensor ops: any op of the graph is a node (`Op`, spelled by its
//! kind: `(aten::t ?x)`), graph values the e-graph cannot see into are leaves (`leaf%3`), and
//! constants are literals (`int:2`, `ints:[1, 1]`, `none`, `bool:false`) so that equal
//! constants are one class. The analysis keeps what is known of each class: the rank, dtype,
//! sizes and contiguity of a tensor (from its type, or from the op), the value of a constant,
//! and whether the value is a constant tensor.
//!
//! Only ops that write nothing, whose inputs and outputs nothing writes, enter: then a value
//! and any expression equal to it are interchangeable, except that a rule replacing a view by
//! its base also needs the view to be unobservable as a distinct object, which the same
//! condition gives.

use std::fmt;
use std::str::FromStr;

use egg::{define_language, Analysis, CostFunction, DidMerge, EGraph, Id, Language, Subst, Var};
use ember_dialects::types::{ScalarType, TensorType};
use ember_dialects::Type;

/// A leaf: value number `index` of the block being rewritten.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TensorLeaf(pub u32);

impl fmt::Display for TensorLeaf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "leaf%{}", self.0)
    }
}

impl FromStr for TensorLeaf {
    type Err = ();
    fn from_str(s: &str) -> Result<TensorLeaf, ()> {
        s.strip_prefix("leaf%")
            .and_then(|i| i.parse().ok())
            .map(TensorLeaf)
            .ok_or(())
    }
}

/// A constant operand: an int, a list of ints, a bool or None.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lit {
    Int(i64),
    Ints(Vec<i64>),
    Bool(bool),
    None,
}

impl fmt::Display for Lit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Lit::Int(i) => write!(f, "int:{i}"),
            Lit::Ints(v) => {
                let items: Vec<String> = v.iter().map(|i| i.to_string()).collect();
                write!(f, "ints:[{}]", items.join(","))
            }
            Lit::Bool(b) => write!(f, "bool:{b}"),
            Lit::None => f.write_str("none"),
        }
    }
}

impl FromStr for Lit {
    type Err = ();
    fn from_str(s: &str) -> Result<Lit, ()> {
        if s == "none" {
            return Ok(Lit::None);
        }
        if let Some(i) = s.strip_prefix("int:") {
            return i.parse().map(Lit::Int).map_err(|_| ());
        }
        if let Some(b) = s.strip_prefix("bool:") {
            return b.parse().map(Lit::Bool).map_err(|_| ());
        }
        if let Some(list) = s.strip_prefix("ints:[").and_then(|r| r.strip_suffix(']')) {
            if list.is_empty() {
                return Ok(Lit::Ints(Vec::new()));
            }
            return list
                .split(',')
                .map(|i| i.parse().map_err(|_| ()))
                .collect::<Result<_, _>>()
                .map(Lit::Ints);
        }
        Err(())
    }
}

/// A leaf that is the result of an op entered for its rank only: it exists, but using an
/// earlier value of the same rank is better (it lets the op go, or fold into another).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DerivedLeaf(pub u32);

impl fmt::Display for DerivedLeaf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "derived%{}", self.0)
    }
}

impl FromStr for DerivedLeaf {
    type Err = ();
    fn from_str(s: &str) -> Result<DerivedLeaf, ()> {
        s.strip_prefix("derived%")
            .and_then(|i| i.parse().ok())
            .map(DerivedLeaf)
            .ok_or(())
    }
}

define_language! {
    /// Tensor ops; the symbol of `Op` is the node kind.
    pub enum TensorLang {
        Lit(Lit),
        Leaf(TensorLeaf),
        Derived(DerivedLeaf),
        Op(egg::Symbol, Vec<Id>),
    }
}

/// What is known of a tensor value.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TensorFacts {
    pub rank: Option<usize>,
    pub dtype: Option<ScalarType>,
    /// Sizes, when every one is known.
    pub sizes: Option<Vec<i64>>,
    /// Known to be contiguous (row major).
    pub contiguous: bool,
}

impl TensorFacts {
    /// The facts a tensor type states.
    pub fn of_type(t: &Type) -> Option<TensorFacts> {
        let Type::Tensor(tt) = t else {
            return None;
        };
        Some(TensorFacts {
            rank: tt.sizes.as_ref().map(Vec::len),
            dtype: tt.dtype,
            sizes: tt.known_sizes(),
            contiguous: is_contiguous(tt),
        })
    }
}

fn is_contiguous(t: &TensorType) -> bool {
    let (Some(sizes), Some(strides)) = (t.known_sizes(), &t.strides) else {
        return false;
    };
    if strides.len() != sizes.len() {
        return false;
    }
    let mut expected = 1i64;
    for (size, stride) in sizes.iter().zip(strides).rev() {
        if *size != 1 && *stride != Some(expected) {
            return false;
        }
        expected = expected.saturating_mul((*size).max(1));
    }
    true
}

/// What is known of an e-class.
#[derive(Clone, Debug, Default)]
pub struct ClassFacts {
    pub tensor: Option<TensorFacts>,
    pub lit: Option<Lit>,
    /// A constant tensor (a frozen weight): ops on it fold.
    pub constant_tensor: bool,
    /// The type of a leaf that is a number (`int`, `float`).
    pub scalar: Option<Type>,
}

/// Facts of the leaves, by leaf index, set before the e-graph is built.
#[derive(Default)]
pub struct TensorAnalysis {
    pub leaves: Vec<ClassFacts>,
}

pub type TensorGraph = EGraph<TensorLang, TensorAnalysis>;

/// The prefix of ops in the e-graph for their rank only (`rank:aten::relu_`): in-place ops,
/// or ops on values something writes. Only the shape rules read them; extraction never
/// builds them.
pub const RANK_ONLY: &str = "rank:";

/// Whether `kind` (an op's symbol in the e-graph) keeps its first input's rank.
pub fn keeps_rank(kind: &str) -> bool {
    kind.starts_with(RANK_ONLY) || RANK_PRESERVING.contains(&kind)
}

/// Elementwise ops of two tensors, whose result's rank is the larger of their operands' ranks
/// (broadcasting): `dim(mul(a, b))` is `dim(a)` when `dim(a)` and `dim(b)` are one class.
pub const BROADCASTING: &[&str] = &[
    "aten::add",
    "aten::sub",
    "aten::mul",
    "aten::div",
    "aten::maximum",
    "aten::minimum",
    "aten::pow",
    "aten::where",
];

/// Ops whose result has the rank of their first input (elementwise on one tensor,
/// normalization, pooling, convolution, copies): `dim(op(x, …))` is `dim(x)`.
pub const RANK_PRESERVING: &[&str] = &[
    "aten::relu",
    "aten::relu_",
    "aten::sigmoid",
    "aten::tanh",
    "aten::gelu",
    "aten::silu",
    "aten::hardswish",
    "aten::hardsigmoid",
    "aten::hardtanh",
    "aten::clamp",
    "aten::neg",
    "aten::exp",
    "aten::log",
    "aten::sqrt",
    "aten::abs",
    "aten::dropout",
    "aten::contiguous",
    "aten::clone",
    "aten::batch_norm",
    "aten::layer_norm",
    "aten::group_norm",
    "aten::instance_norm",
    "aten::conv1d",
    "aten::conv2d",
    "aten::conv3d",
    "aten::max_pool1d",
    "aten::max_pool2d",
    "aten::max_pool3d",
    "aten::avg_pool1d",
    "aten::avg_pool2d",
    "aten::avg_pool3d",
    "aten::adaptive_avg_pool1d",
    "aten::adaptive_avg_pool2d",
    "aten::adaptive_avg_pool3d",
    "aten::adaptive_max_pool2d",
    "aten::leaky_relu",
    "aten::elu",
    "aten::softmax",
    "aten::log_softmax",
    "aten::to",
    "aten::detach",
];

impl Analysis<TensorLang> for TensorAnalysis {
    type Data = ClassFacts;

    fn make(egraph: &mut TensorGraph, enode: &TensorLang, _id: Id) -> ClassFacts {
        match enode {
            TensorLang::Lit(l) => ClassFacts {
                lit: Some(l.clone()),
                scalar: matches!(l, Lit::Int(_)).then_some(Type::Int),
                ..ClassFacts::default()
            },
            TensorLang::Leaf(TensorLeaf(i)) | TensorLang::Derived(DerivedLeaf(i)) => egraph
                .analysis
                .leaves
                .get(*i as usize)
                .cloned()
                .unwrap_or_default(),
            TensorLang::Op(kind, children) => {
                let first = children
                    .first()
                    .and_then(|&c| egraph[c].data.tensor.clone());
                let kind = kind.as_str();
                let tensor = if kind == "aten::t" {
                    first.and_then(|f| {
                        let rank = f.rank?;
                        (rank <= 2).then(|| TensorFacts {
                            rank: Some(rank),
                            dtype: f.dtype,
                            sizes: f.sizes.map(|mut s| {
                                s.reverse();
                                s
                            }),
                            contiguous: rank < 2 && f.contiguous,
                        })
                    })
                } else if keeps_rank(kind) {
                    first.map(|f| TensorFacts {
                        rank: f.rank,
                        ..TensorFacts::default()
                    })
                } else {
                    None
                };
                ClassFacts {
                    tensor,
                    ..ClassFacts::default()
                }
            }
        }
    }

    fn merge(&mut self, a: &mut ClassFacts, b: ClassFacts) -> DidMerge {
        let mut did = DidMerge(false, false);
        match (&mut a.tensor, b.tensor) {
            (None, Some(t)) => {
                a.tensor = Some(t);
                did.0 = true;
            }
            (Some(x), Some(y)) => {
                // Both describe the same value: keep what either knows.
                let before = x.clone();
                x.rank = x.rank.or(y.rank);
                x.dtype = x.dtype.or(y.dtype);
                x.sizes = x.sizes.take().or(y.sizes);
                x.contiguous |= y.contiguous;
                did.0 |= *x != before;
                did.1 = true;
            }
            (Some(_), None) => did.1 = true,
            (None, None) => {}
        }
        if a.lit.is_none() && b.lit.is_some() {
            a.lit = b.lit;
            did.0 = true;
        }
        if a.scalar.is_none() && b.scalar.is_some() {
            a.scalar = b.scalar;
            did.0 = true;
        }
        if !a.constant_tensor && b.constant_tensor {
            a.constant_tensor = true;
            did.0 = true;
        }
        did
    }
}

/// The facts of the class `var` matched.
pub fn facts<'a>(egraph: &'a TensorGraph, subst: &Subst, var: &Var) -> &'a ClassFacts {
    &egraph[subst[*var]].data
}

pub fn var(name: &str) -> Var {
    name.parse().expect("pattern variable")
}

/// Cost of an expression: each op node 10, each literal 1 (a new constant), each leaf nothing.
pub struct FewestOps;

pub const OP_COST: usize = 10;
pub const LIT_COST: usize = 1;
pub const DERIVED_COST: usize = 1;

impl CostFunction<TensorLang> for FewestOps {
    type Cost = usize;

    fn cost<C>(&mut self, enode: &TensorLang, mut costs: C) -> usize
    where
        C: FnMut(Id) -> usize,
    {
        let own = match enode {
            TensorLang::Leaf(_) => 0,
            TensorLang::Derived(_) => DERIVED_COST,
            TensorLang::Lit(_) => LIT_COST,
            // Never built anew: only its original node computes it.
            TensorLang::Op(kind, _) if kind.as_str().starts_with(RANK_ONLY) => usize::MAX / 4,
            // matmul decides what to compute from its operands' ranks when it runs; the op it
            // would pick, once the ranks are known, is cheaper.
            TensorLang::Op(kind, _) if kind.as_str() == "aten::matmul" => OP_COST + 1,
            TensorLang::Op(..) => OP_COST,
        };
        enode.fold(own, |sum, id| sum.saturating_add(costs(id)))
    }
}
