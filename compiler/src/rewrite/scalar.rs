//! The e-graph language of scalar (int, float, bool) TorchScript arithmetic: operators keep
//! PyTorch's spelling, leaves are graph values (`int%3` is the value numbered 3 in the region,
//! typed int) and literals (`2`, `-0.0`, `True`). The analysis gives every e-class its scalar
//! type and, when known, its constant value, folded with [`crate::fold::eval`] so that the
//! e-graph and `constant-propagation` agree on what each op computes.

use std::fmt;
use std::str::FromStr;

use egg::{define_language, Analysis, CostFunction, DidMerge, EGraph, Id, Language, Subst, Var};
use ember_dialects::attr::ConstValue;
use ember_dialects::{Symbol, Type};

use crate::fold::eval;

/// The scalar types the language covers.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ScalarTy {
    Int,
    Float,
    Bool,
}

impl ScalarTy {
    pub fn of(t: &Type) -> Option<ScalarTy> {
        match t {
            Type::Int => Some(ScalarTy::Int),
            Type::Float => Some(ScalarTy::Float),
            Type::Bool => Some(ScalarTy::Bool),
            _ => None,
        }
    }

    pub fn to_type(self) -> Type {
        match self {
            ScalarTy::Int => Type::Int,
            ScalarTy::Float => Type::Float,
            ScalarTy::Bool => Type::Bool,
        }
    }

    fn name(self) -> &'static str {
        match self {
            ScalarTy::Int => "int",
            ScalarTy::Float => "float",
            ScalarTy::Bool => "bool",
        }
    }
}

/// A leaf: value number `index` of the region being rewritten, of type `ty`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Leaf {
    pub ty: ScalarTy,
    pub index: u32,
}

impl fmt::Display for Leaf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}%{}", self.ty.name(), self.index)
    }
}

impl FromStr for Leaf {
    type Err = ();
    fn from_str(s: &str) -> Result<Leaf, ()> {
        let (ty, index) = s.split_once('%').ok_or(())?;
        let ty = match ty {
            "int" => ScalarTy::Int,
            "float" => ScalarTy::Float,
            "bool" => ScalarTy::Bool,
            _ => return Err(()),
        };
        Ok(Leaf {
            ty,
            index: index.parse().map_err(|_| ())?,
        })
    }
}

/// A float literal, kept as its bits so that `0.0` and `-0.0` are different nodes.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FloatLit(pub u64);

impl FloatLit {
    pub fn new(f: f64) -> FloatLit {
        FloatLit(f.to_bits())
    }

    pub fn get(self) -> f64 {
        f64::from_bits(self.0)
    }
}

impl fmt::Display for FloatLit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.get())
    }
}

impl FromStr for FloatLit {
    type Err = ();
    fn from_str(s: &str) -> Result<FloatLit, ()> {
        // Only spellings with a point or exponent, so `1` stays an int.
        if !s.contains(['.', 'e', 'E']) && !s.ends_with("inf") && !s.ends_with("NaN") {
            return Err(());
        }
        s.parse::<f64>().map(FloatLit::new).map_err(|_| ())
    }
}

/// A bool literal, spelled `True`/`False` as Python does.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BoolLit(pub bool);

impl fmt::Display for BoolLit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0 { "True" } else { "False" })
    }
}

impl FromStr for BoolLit {
    type Err = ();
    fn from_str(s: &str) -> Result<BoolLit, ()> {
        match s {
            "True" => Ok(BoolLit(true)),
            "False" => Ok(BoolLit(false)),
            _ => Err(()),
        }
    }
}

define_language! {
    /// Scalar TorchScript ops; the strings are the graph's node kinds.
    pub enum Scalar {
        "aten::add" = Add([Id; 2]),
        "aten::sub" = Sub([Id; 2]),
        "aten::mul" = Mul([Id; 2]),
        "aten::div" = Div([Id; 2]),
        "aten::floordiv" = FloorDiv([Id; 2]),
        "aten::remainder" = Remainder([Id; 2]),
        "aten::neg" = Neg([Id; 1]),
        "aten::__not__" = Not([Id; 1]),
        "aten::__and__" = And([Id; 2]),
        "aten::__or__" = Or([Id; 2]),
        "aten::__xor__" = Xor([Id; 2]),
        "aten::eq" = Eq([Id; 2]),
        "aten::ne" = Ne([Id; 2]),
        "aten::lt" = Lt([Id; 2]),
        "aten::le" = Le([Id; 2]),
        "aten::gt" = Gt([Id; 2]),
        "aten::ge" = Ge([Id; 2]),
        Bool(BoolLit),
        Int(i64),
        Float(FloatLit),
        Leaf(Leaf),
    }
}

impl Scalar {
    /// The literal node for a constant, if it is a scalar.
    pub fn literal(c: &ConstValue) -> Option<Scalar> {
        match c {
            ConstValue::Int(i) => Some(Scalar::Int(*i)),
            ConstValue::Float(f) => Some(Scalar::Float(FloatLit::new(*f))),
            ConstValue::Bool(b) => Some(Scalar::Bool(BoolLit(*b))),
            _ => None,
        }
    }

    /// The constant a literal node holds.
    pub fn literal_value(&self) -> Option<ConstValue> {
        match self {
            Scalar::Int(i) => Some(ConstValue::Int(*i)),
            Scalar::Float(f) => Some(ConstValue::Float(f.get())),
            Scalar::Bool(b) => Some(ConstValue::Bool(b.0)),
            _ => None,
        }
    }

    /// The node kind of an operator node (`None` for leaves and literals).
    pub fn op_kind(&self) -> Option<Symbol> {
        match self {
            Scalar::Bool(_) | Scalar::Int(_) | Scalar::Float(_) | Scalar::Leaf(_) => None,
            op => Some(Symbol::new(&op.to_string())),
        }
    }

    /// The type TorchScript gives this op on operands of types `args` (the overloads of
    /// `register_prim_ops.cpp`); `None` where there is no such overload.
    pub fn result_type(&self, args: &[ScalarTy]) -> Option<ScalarTy> {
        use ScalarTy::*;
        let numeric = |t: &ScalarTy| matches!(t, Int | Float);
        match (self, args) {
            (Scalar::Add(_) | Scalar::Sub(_) | Scalar::Mul(_), [Int, Int])
            | (Scalar::FloorDiv(_) | Scalar::Remainder(_), [Int, Int]) => Some(Int),
            (
                Scalar::Add(_)
                | Scalar::Sub(_)
                | Scalar::Mul(_)
                | Scalar::FloorDiv(_)
                | Scalar::Remainder(_)
                | Scalar::Div(_),
                [a, b],
            ) if numeric(a) && numeric(b) => Some(Float),
            (Scalar::Neg(_), [t]) if numeric(t) => Some(*t),
            (Scalar::Not(_), [Bool]) => Some(Bool),
            (Scalar::And(_) | Scalar::Or(_) | Scalar::Xor(_), [a, b]) if a == b && *a != Float => {
                Some(*a)
            }
            (
                Scalar::Eq(_)
                | Scalar::Ne(_)
                | Scalar::Lt(_)
                | Scalar::Le(_)
                | Scalar::Gt(_)
                | Scalar::Ge(_),
                [a, b],
            ) if (numeric(a) && numeric(b)) || (*a == Bool && *b == Bool) => Some(Bool),
            _ => None,
        }
    }
}

/// What is known of an e-class: its type and, if constant, its value.
#[derive(Clone, Debug, Default)]
pub struct Facts {
    pub ty: Option<ScalarTy>,
    pub value: Option<Scalar>,
}

/// Types every e-class and folds constants through [`crate::fold::eval`].
#[derive(Default)]
pub struct ScalarAnalysis;

pub type ScalarGraph = EGraph<Scalar, ScalarAnalysis>;

impl Analysis<Scalar> for ScalarAnalysis {
    type Data = Facts;

    fn make(egraph: &mut ScalarGraph, enode: &Scalar, _id: Id) -> Facts {
        let facts = |id: Id| &egraph[id].data;
        match enode {
            Scalar::Int(_) => Facts {
                ty: Some(ScalarTy::Int),
                value: Some(enode.clone()),
            },
            Scalar::Float(_) => Facts {
                ty: Some(ScalarTy::Float),
                value: Some(enode.clone()),
            },
            Scalar::Bool(_) => Facts {
                ty: Some(ScalarTy::Bool),
                value: Some(enode.clone()),
            },
            Scalar::Leaf(leaf) => Facts {
                ty: Some(leaf.ty),
                value: None,
            },
            op => {
                let tys: Option<Vec<ScalarTy>> =
                    op.children().iter().map(|&c| facts(c).ty).collect();
                let ty = tys.and_then(|tys| op.result_type(&tys));
                let consts: Option<Vec<ConstValue>> = op
                    .children()
                    .iter()
                    .map(|&c| facts(c).value.as_ref().and_then(Scalar::literal_value))
                    .collect();
                let value = match (ty, consts, op.op_kind()) {
                    (Some(ty), Some(consts), Some(kind)) => eval(kind, &consts, &[ty.to_type()])
                        .and_then(|r| r.first().and_then(Scalar::literal)),
                    _ => None,
                };
                Facts { ty, value }
            }
        }
    }

    fn merge(&mut self, a: &mut Facts, b: Facts) -> DidMerge {
        let mut did = DidMerge(false, false);
        if a.ty.is_none() && b.ty.is_some() {
            a.ty = b.ty;
            did.0 = true;
        } else if a.ty.is_some() && b.ty.is_none() {
            did.1 = true;
        }
        if a.value.is_none() && b.value.is_some() {
            a.value = b.value;
            did.0 = true;
        } else if a.value.is_some() && b.value.is_none() {
            did.1 = true;
        }
        did
    }

    /// A class with a known value also holds its literal, which extraction prefers.
    fn modify(egraph: &mut ScalarGraph, id: Id) {
        if let Some(lit) = egraph[id].data.value.clone() {
            let added = egraph.add(lit);
            egraph.union(id, added);
        }
    }
}

/// A rule condition: the e-class matched by `var` has type `ty`.
pub fn has_type(var: &'static str, ty: ScalarTy) -> impl Fn(&mut ScalarGraph, Id, &Subst) -> bool {
    let var: Var = var.parse().expect("pattern variable");
    move |egraph, _, subst| egraph[subst[var]].data.ty == Some(ty)
}

/// A rule condition: the e-class matched by `var` is a known constant.
pub fn is_constant(var: &'static str) -> impl Fn(&mut ScalarGraph, Id, &Subst) -> bool {
    let var: Var = var.parse().expect("pattern variable");
    move |egraph, _, subst| egraph[subst[var]].data.value.is_some()
}

/// A rule condition: the e-class matched by `var` is not a float (ints and bools compare
/// totally; floats have NaN).
pub fn not_float(var: &'static str) -> impl Fn(&mut ScalarGraph, Id, &Subst) -> bool {
    let var: Var = var.parse().expect("pattern variable");
    move |egraph, _, subst| {
        matches!(
            egraph[subst[var]].data.ty,
            Some(ScalarTy::Int | ScalarTy::Bool)
        )
    }
}

/// Cost of an expression: each operator node 10, each literal 1 (a new `prim::Constant`),
/// each leaf nothing (it already exists).
pub struct FewestNodes;

pub const OP_COST: usize = 10;
pub const LITERAL_COST: usize = 1;

impl CostFunction<Scalar> for FewestNodes {
    type Cost = usize;

    fn cost<C>(&mut self, enode: &Scalar, mut costs: C) -> usize
    where
        C: FnMut(Id) -> usize,
    {
        let own = match enode {
            Scalar::Leaf(_) => 0,
            Scalar::Int(_) | Scalar::Float(_) | Scalar::Bool(_) => LITERAL_COST,
            _ => OP_COST,
        };
        enode.fold(own, |sum, id| sum.saturating_add(costs(id)))
    }
}
