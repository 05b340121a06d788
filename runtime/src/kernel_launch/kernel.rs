//! A fusion group's subgraph as compiled kernels (the JIT's and whole-compiled models') run it: typed elementwise expressions over the
//! group's parameters (tensor elements and scalars), with PyTorch's type promotion applied and
//! every composite op (gelu, softplus, hardswish, ...) spelled in primitive operations.
//!
//! Values have a runtime [`DType`]. Arithmetic on float16/bfloat16 is computed in float32 and
//! rounded to the value's dtype after each op, as PyTorch's eager kernels round each result;
//! composite activations on those dtypes run wholly in float32 and round once, as PyTorch's
//! kernels do.
//!
//! `prim::ConstantChunk` pieces become views of tensor parameters ([`ChunkView`]), so a kernel
//! has one iteration space; an `aten::cat` output of parts of that space is written part by
//! part into its slices ([`OutputPlan::Cat`]). Refused (the group then runs in the
//! interpreter): `aten::cat` other than as an output, reductions, ops not listed in [`Builder::lower`], chunks of chunks, integer pow with a
//! non-constant exponent, division with a rounding mode.

use crate::tensor::{promote_types, result_type, DType, Operand as Promo, ScalarKind};
use ember_dialects::attr::ConstValue;
use ember_dialects::symbol::{sym, Symbol};
use ember_dialects::types::Dim;
use ember_dialects::{AttrValue, Graph, Node, Type, Value};
use hashbrown::HashMap;

/// An expression of the kernel: index into [`PointwiseKernel::exprs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Val(pub usize);

/// A parameter of the group (one per subgraph input).
#[derive(Clone, Debug, PartialEq)]
pub enum Param {
    /// A tensor of this dtype and rank; `sizes[d]` is `Some` where the type fixes it.
    Tensor {
        dtype: DType,
        sizes: Vec<Option<i64>>,
    },
    /// A TorchScript `int` (`i64`), `float` (`f64`) or `bool`, passed as 64 bits.
    Scalar(ScalarKind),
}

impl Param {
    /// A tensor whose every element is the same at run time (0-dim, or all sizes known 1):
    /// loaded once per call instead of per element.
    pub fn is_single_element(&self) -> bool {
        matches!(self, Param::Tensor { sizes, .. } if sizes.iter().all(|s| *s == Some(1)))
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unary {
    Neg,
    Abs,
    Exp,
    Expm1,
    Log,
    Log1p,
    Sqrt,
    Tanh,
    Erf,
    /// In float64 for float32 too, as the runtime computes them.
    Sin,
    Cos,
    /// Logical not (bool only).
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    Xor,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// Parameter `i`: the current element of a tensor, or a scalar (in its own dtype:
    /// `I64`, `F64` or `Bool`).
    Param(usize),
    /// A number of the expression's dtype (integers and bools exactly, as `i64`).
    Float(f64),
    Int(i64),
    /// Conversion of the operand to this expression's dtype.
    Cast(Val),
    Unary(Unary, Val),
    /// Both operands have this expression's dtype, except comparisons (result `Bool`).
    Binary(Binary, Val, Val),
    /// `cond ? a : b` with a `Bool` condition.
    Select(Val, Val, Val),
}

#[derive(Clone, Debug, PartialEq)]
pub struct TypedExpr {
    pub expr: Expr,
    pub dtype: DType,
}

/// One result of the group.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelResult {
    pub value: Val,
    pub dtype: DType,
    /// The tensor parameters the result's shape broadcasts from.
    pub shape_from: Vec<usize>,
}

/// How a group output is made from the kernel's results.
#[derive(Clone, Debug, PartialEq)]
pub enum OutputPlan {
    /// Result `r`, in a tensor of its own.
    Result(usize),
    /// `aten::cat` along `dim` of these results (all of the iteration shape): one tensor,
    /// each result written into its slice.
    Cat { dim: usize, results: Vec<usize> },
}

/// One output of a `prim::ConstantChunk` of a tensor parameter: a view the kernel reads as
/// one more tensor operand (numbered after the parameters: `Expr::Param(params.len() + i)`).
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkView {
    /// The parameter chunked.
    pub input: usize,
    pub chunks: i64,
    pub dim: i64,
    /// How many pieces the node has (the run checks the tensor gives as many).
    pub outputs: usize,
    /// Which piece this is.
    pub index: usize,
    /// Which `prim::ConstantChunk` node of the group made it.
    pub node: usize,
    pub dtype: DType,
    /// The piece's sizes where the parameter's type fixes them.
    pub sizes: Vec<Option<i64>>,
}

/// The group as elementwise expressions over a broadcast iteration space of `rank` dims.
#[derive(Clone, Debug, PartialEq)]
pub struct PointwiseKernel {
    pub params: Vec<Param>,
    /// The group's outputs, in order.
    pub outputs: Vec<OutputPlan>,
    pub views: Vec<ChunkView>,
    /// Per parameter and then per view: whether the kernel reads its elements or a result
    /// takes its shape from it (a parameter only chunked is neither, and its shape takes no
    /// part in broadcasting).
    pub streamed: Vec<bool>,
    pub exprs: Vec<TypedExpr>,
    pub results: Vec<KernelResult>,
    /// The largest rank of any tensor parameter: the rank of every result.
    pub tensor_rank: usize,
    /// The rank of the kernel's iteration space: `tensor_rank`, at least 1.
    pub rank: usize,
}

impl PointwiseKernel {
    pub fn dtype(&self, v: Val) -> DType {
        self.exprs[v.0].dtype
    }

    /// Whether the kernel spends several nanoseconds per element (transcendental functions,
    /// division, pow) rather than being bound by memory.
    pub fn is_compute_heavy(&self) -> bool {
        self.exprs.iter().any(|e| {
            matches!(
                e.expr,
                Expr::Unary(
                    Unary::Exp
                        | Unary::Expm1
                        | Unary::Log
                        | Unary::Log1p
                        | Unary::Tanh
                        | Unary::Erf,
                    _
                ) | Expr::Binary(Binary::Div | Binary::Pow, _, _)
            )
        })
    }
}

/// What a subgraph value is while building.
#[derive(Clone, Debug)]
enum Item {
    /// An elementwise value; `rank` is `Some` for tensors (0 for 0-dim), `None` for scalars.
    Value {
        val: Val,
        rank: Option<usize>,
        shape_from: Vec<usize>,
    },
    /// A constant only an op's non-numeric parameters use.
    Const(ConstValue),
    /// A `prim::ListConstruct` of tensors (what `aten::cat` reads).
    List(Vec<Item>),
    /// `aten::cat(parts, dim)`: fused only as an output, each part a result written into its
    /// slice of the output.
    Cat(Vec<Item>, i64),
}

struct Builder<'g> {
    g: &'g Graph,
    k: PointwiseKernel,
    /// Structural sharing: the same expression (by its printed form) is built once.
    memo: HashMap<String, Val>,
}

/// Builds the kernel of a fusion group's subgraph; every error names the node it is about.
pub fn build(g: &Graph) -> Result<PointwiseKernel, KernelError> {
    let mut b = Builder {
        g,
        k: PointwiseKernel {
            params: Vec::new(),
            outputs: Vec::new(),
            views: Vec::new(),
            streamed: Vec::new(),
            exprs: Vec::new(),
            results: Vec::new(),
            tensor_rank: 0,
            rank: 1,
        },
        memo: HashMap::new(),
    };
    let mut items: HashMap<Value, Item> = HashMap::new();
    for (i, &p) in g.inputs().iter().enumerate() {
        let (param, rank) = param_of(g, p)?;
        if let Some(r) = rank {
            b.k.tensor_rank = b.k.tensor_rank.max(r);
            b.k.rank = b.k.rank.max(r);
        }
        let dtype = match &param {
            Param::Tensor { dtype, .. } => *dtype,
            Param::Scalar(kind) => scalar_dtype(*kind),
        };
        b.k.params.push(param);
        let val = b.push(Expr::Param(i), dtype);
        let shape_from = if rank.is_some() { vec![i] } else { vec![] };
        items.insert(
            p,
            Item::Value {
                val,
                rank,
                shape_from,
            },
        );
    }
    for n in g.block_nodes(g.block()) {
        if !g.node_blocks(n).is_empty() {
            return Err(KernelError::at(n, "control flow inside a fused kernel"));
        }
        if g.kind(n) == sym::constant() {
            let item = constant_item(&mut b, n)?;
            items.insert(g.output(n, 0), item);
            continue;
        }
        if g.kind(n) == sym::list_construct() {
            let parts: Vec<Item> = g
                .node_inputs(n)
                .iter()
                .map(|v| match items.get(v) {
                    Some(item @ Item::Value { rank: Some(_), .. }) => Ok(item.clone()),
                    _ => Err(KernelError::at(n, "prim::ListConstruct: only lists of tensors computed in the group are fused")),
                })
                .collect::<Result<_, _>>()?;
            items.insert(g.output(n, 0), Item::List(parts));
            continue;
        }
        if g.kind(n) == Symbol::aten("cat") {
            let list = g.node_inputs(n).first().and_then(|v| items.get(v));
            let dim = g.node_inputs(n).get(1).and_then(|v| items.get(v));
            let dim = match dim {
                Some(Item::Value {
                    val, rank: None, ..
                }) => match b.k.exprs[val.0].expr {
                    Expr::Int(d) => Some(d),
                    _ => None,
                },
                _ => None,
            };
            let (Some(Item::List(parts)), Some(dim)) = (list, dim) else {
                return Err(KernelError::at(
                    n,
                    "aten::cat: needs a list of tensors and a constant dim",
                ));
            };
            items.insert(g.output(n, 0), Item::Cat(parts.clone(), dim));
            continue;
        }
        if g.kind(n) == Symbol::prim("ConstantChunk") {
            let input = g.node_inputs(n).first().and_then(|v| items.get(v));
            for (j, view) in chunk_views(&mut b, n, input)?.into_iter().enumerate() {
                items.insert(g.output(n, j), view);
            }
            continue;
        }
        let inputs: Vec<Item> = g
            .node_inputs(n)
            .iter()
            .map(|v| {
                items
                    .get(v)
                    .cloned()
                    .ok_or_else(|| KernelError::at(n, "input defined outside the group"))
            })
            .collect::<Result<_, _>>()?;
        if g.node_outputs(n).len() != 1 {
            return Err(KernelError::at(n, "fused ops have one output"));
        }
        let item = b.lower(n, &inputs)?;
        items.insert(g.output(n, 0), item);
    }
    let ret = g.return_node(g.block());
    for (i, &v) in g.outputs().iter().enumerate() {
        let plan = match items.get(&v) {
            Some(Item::Cat(parts, dim)) => {
                let rank = b.k.tensor_rank as i64;
                let d = if *dim < 0 { dim + rank } else { *dim };
                if !(0..rank).contains(&d) {
                    return Err(KernelError::at(
                        ret,
                        format!("output {i}: cat dimension {dim} is out of range"),
                    ));
                }
                // The parts in their common dtype, as `cat` promotes them.
                let common = parts
                    .iter()
                    .filter_map(|p| match p {
                        Item::Value { val, .. } => Some(b.k.dtype(*val)),
                        _ => None,
                    })
                    .reduce(promote_types)
                    .unwrap_or(DType::F32);
                let results = parts
                    .iter()
                    .map(|p| {
                        let p = match p {
                            Item::Value {
                                val,
                                rank,
                                shape_from,
                            } => Item::Value {
                                val: b.cast(*val, common),
                                rank: *rank,
                                shape_from: shape_from.clone(),
                            },
                            other => other.clone(),
                        };
                        add_result(&mut b, &p, ret, i)
                    })
                    .collect::<Result<_, _>>()?;
                OutputPlan::Cat {
                    dim: d as usize,
                    results,
                }
            }
            Some(item) => OutputPlan::Result(add_result(&mut b, item, ret, i)?),
            None => return Err(KernelError::at(ret, format!("output {i} is not a tensor"))),
        };
        b.k.outputs.push(plan);
    }
    if b.k.results.is_empty() {
        return Err(KernelError::at(ret, "the group has no outputs"));
    }
    b.k.streamed = streamed_operands(&b.k);
    Ok(b.k)
}

/// Makes `item` (output `i`) a result of the kernel; returns its index.
fn add_result(b: &mut Builder, item: &Item, ret: Node, i: usize) -> Result<usize, KernelError> {
    let Item::Value {
        val,
        rank: Some(r),
        shape_from,
    } = item
    else {
        return Err(KernelError::at(ret, format!("output {i} is not a tensor")));
    };
    if *r != b.k.tensor_rank {
        return Err(KernelError::at(ret,
            format!("output {i} has rank {r} but the group iterates over rank {}: only results of the full broadcast shape are fused", b.k.tensor_rank),
        ));
    }
    b.k.results.push(KernelResult {
        value: *val,
        dtype: b.k.dtype(*val),
        shape_from: shape_from.clone(),
    });
    Ok(b.k.results.len() - 1)
}

/// Which parameters and views the results read or take their shape from.
fn streamed_operands(k: &PointwiseKernel) -> Vec<bool> {
    let mut needed = vec![false; k.exprs.len()];
    for r in &k.results {
        needed[r.value.0] = true;
    }
    let mut streamed = vec![false; k.params.len() + k.views.len()];
    // What gives a result its shape takes part too (`pow(x, 0)` reads nothing of `x`).
    for r in &k.results {
        for &p in &r.shape_from {
            streamed[p] = true;
        }
    }
    for i in (0..k.exprs.len()).rev() {
        if !needed[i] {
            continue;
        }
        match &k.exprs[i].expr {
            Expr::Param(p) => streamed[*p] = true,
            Expr::Cast(a) | Expr::Unary(_, a) => needed[a.0] = true,
            Expr::Binary(_, a, c) => {
                needed[a.0] = true;
                needed[c.0] = true;
            }
            Expr::Select(c, a, d) => {
                needed[c.0] = true;
                needed[a.0] = true;
                needed[d.0] = true;
            }
            Expr::Float(_) | Expr::Int(_) => {}
        }
    }
    streamed
}

/// The outputs of `prim::ConstantChunk[chunks, dim](input)`. Piece `k` of an elementwise value
/// is the same expression over piece `k` of every tensor parameter it reads (parameters that
/// broadcast along `dim` are read whole), as PyTorch's fuser computes a chunk at shifted
/// indices: each such parameter piece becomes a [`ChunkView`] operand.
fn chunk_views(b: &mut Builder, n: Node, input: Option<&Item>) -> Result<Vec<Item>, KernelError> {
    let g = b.g;
    let fail = |m: &str| KernelError::at(n, format!("prim::ConstantChunk: {m}"));
    let attr = |name: &str| match g.attr(n, Symbol::new(&format!("attr::{name}"))) {
        Some(AttrValue::Int(v)) => Ok(*v),
        _ => Err(fail(&format!("needs an int attribute '{name}'"))),
    };
    let (chunks, dim) = (attr("chunks")?, attr("dim")?);
    let (val, rank) = match input {
        Some(Item::Value {
            val, rank: Some(r), ..
        }) => (*val, *r as i64),
        _ => return Err(fail("expects a tensor")),
    };
    let d = if dim < 0 { dim + rank } else { dim };
    if chunks <= 0 || !(0..rank).contains(&d) {
        return Err(fail("chunks must be positive and dim within the rank"));
    }
    let mut leaves = Vec::new();
    params_read(&b.k, val, &mut leaves);
    if leaves.iter().any(|&p| p >= b.k.params.len()) {
        return Err(fail(
            "a chunk of a value computed from another chunk is not fused",
        ));
    }
    let outputs = g.node_outputs(n).len();
    let node = b.k.views.iter().map(|v| v.node + 1).max().unwrap_or(0);
    let mut items = Vec::with_capacity(outputs);
    for index in 0..outputs {
        let mut replaced: HashMap<usize, usize> = HashMap::new();
        let mut shape_from = Vec::new();
        for &p in &leaves {
            let Param::Tensor { dtype, sizes } = b.k.params[p].clone() else {
                continue;
            };
            // The parameter's dimension aligned with `d` (broadcasting aligns at the right).
            let pd = d + sizes.len() as i64 - rank;
            if pd < 0 || sizes[pd as usize] == Some(1) {
                shape_from.push(p);
                continue;
            }
            let mut piece = sizes.clone();
            // torch.chunk: pieces of ceil(size / chunks), the last one shorter.
            piece[pd as usize] = sizes[pd as usize].and_then(|s| {
                let split = (s + chunks - 1) / chunks;
                Some((s - split * index as i64).clamp(0, split)).filter(|_| split > 0)
            });
            let id = b.k.params.len() + b.k.views.len();
            b.k.views.push(ChunkView {
                input: p,
                chunks,
                dim: pd,
                outputs,
                index,
                node,
                dtype,
                sizes: piece,
            });
            b.push(Expr::Param(id), dtype);
            replaced.insert(p, id);
            shape_from.push(id);
        }
        let piece = substitute(b, val, &replaced, &mut HashMap::new());
        items.push(Item::Value {
            val: piece,
            rank: Some(rank as usize),
            shape_from,
        });
    }
    Ok(items)
}

/// The parameters (and views) expression `v` reads.
fn params_read(k: &PointwiseKernel, v: Val, out: &mut Vec<usize>) {
    match &k.exprs[v.0].expr {
        Expr::Param(p) => {
            if !out.contains(p) {
                out.push(*p);
            }
        }
        Expr::Float(_) | Expr::Int(_) => {}
        Expr::Cast(a) | Expr::Unary(_, a) => params_read(k, *a, out),
        Expr::Binary(_, a, c) => {
            params_read(k, *a, out);
            params_read(k, *c, out);
        }
        Expr::Select(c, a, e) => {
            params_read(k, *c, out);
            params_read(k, *a, out);
            params_read(k, *e, out);
        }
    }
}

/// Expression `v` with the parameters in `replaced` read through their views instead.
fn substitute(
    b: &mut Builder,
    v: Val,
    replaced: &HashMap<usize, usize>,
    done: &mut HashMap<Val, Val>,
) -> Val {
    if let Some(&r) = done.get(&v) {
        return r;
    }
    let te = b.k.exprs[v.0].clone();
    let mut sub = |b: &mut Builder, a: Val| substitute(b, a, replaced, done);
    let expr = match te.expr {
        Expr::Param(p) => match replaced.get(&p) {
            Some(&id) => Expr::Param(id),
            None => Expr::Param(p),
        },
        Expr::Float(_) | Expr::Int(_) => te.expr.clone(),
        Expr::Cast(a) => Expr::Cast(sub(b, a)),
        Expr::Unary(u, a) => Expr::Unary(u, sub(b, a)),
        Expr::Binary(op, a, c) => {
            let (a, c) = (sub(b, a), sub(b, c));
            Expr::Binary(op, a, c)
        }
        Expr::Select(c, a, e) => {
            let (c, a, e) = (sub(b, c), sub(b, a), sub(b, e));
            Expr::Select(c, a, e)
        }
    };
    let r = b.push(expr, te.dtype);
    done.insert(v, r);
    r
}

fn scalar_dtype(kind: ScalarKind) -> DType {
    match kind {
        ScalarKind::Bool => DType::Bool,
        ScalarKind::Int => DType::I64,
        ScalarKind::Float => DType::F64,
    }
}

fn param_of(g: &Graph, p: Value) -> Result<(Param, Option<usize>), KernelError> {
    let err = |m: String| KernelError::at_input(p, m);
    match g.ty(p) {
        Type::Int => Ok((Param::Scalar(ScalarKind::Int), None)),
        Type::Float => Ok((Param::Scalar(ScalarKind::Float), None)),
        Type::Bool => Ok((Param::Scalar(ScalarKind::Bool), None)),
        Type::Tensor(t) => {
            let st = t
                .dtype
                .ok_or_else(|| err("a fused tensor input needs a known dtype".into()))?;
            let dtype = DType::from_scalar_type(st)
                .ok_or_else(|| err(format!("dtype {st:?} cannot be fused")))?;
            if matches!(&t.device, Some(d) if d.kind != "cpu") {
                return Err(err("only CPU tensors are compiled by the CPU JIT".into()));
            }
            let dims = t
                .sizes
                .as_ref()
                .ok_or_else(|| err("a fused tensor input needs a known rank".into()))?;
            let sizes: Vec<Option<i64>> = dims
                .iter()
                .map(|d| match d {
                    Dim::Known(n) if *n >= 0 => Some(*n),
                    _ => None,
                })
                .collect();
            let rank = sizes.len();
            Ok((Param::Tensor { dtype, sizes }, Some(rank)))
        }
        t => Err(err(format!(
            "input of type {t} cannot be fused (tensors, int, float and bool can)"
        ))),
    }
}

fn constant_item(b: &mut Builder, n: Node) -> Result<Item, KernelError> {
    let g = b.g;
    let c = match g.attr(n, sym::attr_value()) {
        None => ConstValue::None,
        Some(AttrValue::Int(i)) => ConstValue::Int(*i),
        Some(AttrValue::Float(f)) => ConstValue::Float(*f),
        Some(AttrValue::Str(s)) => ConstValue::Str(s.clone()),
        Some(AttrValue::IValue(c)) => c.clone(),
        Some(_) => {
            return Err(KernelError::at(
                n,
                "prim::Constant: tensor constants are not fused",
            ))
        }
    };
    let (expr, dtype) = match (&c, g.ty(g.output(n, 0))) {
        (ConstValue::Int(i), _) => (Expr::Int(*i), DType::I64),
        (ConstValue::Bool(v), _) => (Expr::Int(*v as i64), DType::Bool),
        (ConstValue::Float(f), _) => (Expr::Float(*f), DType::F64),
        _ => return Ok(Item::Const(c)),
    };
    let val = b.push(expr, dtype);
    Ok(Item::Value {
        val,
        rank: None,
        shape_from: vec![],
    })
}

/// An operand of an op as type promotion sees it.
fn promo(b: &Builder, item: &Item) -> Option<Promo> {
    match item {
        Item::Value { val, rank, .. } => {
            let d = b.k.dtype(*val);
            Some(match rank {
                Some(0) => Promo::ZeroDim(d),
                Some(_) => Promo::Tensor(d),
                None => Promo::Scalar(match d {
                    DType::Bool => ScalarKind::Bool,
                    DType::F64 => ScalarKind::Float,
                    _ => ScalarKind::Int,
                }),
            })
        }
        Item::Const(_) | Item::List(_) | Item::Cat(..) => None,
    }
}

/// float16 and bfloat16 compute in float32 (PyTorch's `opmath_type`).
fn opmath(d: DType) -> DType {
    match d {
        DType::F16 | DType::BF16 => DType::F32,
        d => d,
    }
}

impl Builder<'_> {
    fn push(&mut self, expr: Expr, dtype: DType) -> Val {
        let key = format!("{expr:?}:{dtype:?}");
        if let Some(v) = self.memo.get(&key) {
            return *v;
        }
        let v = Val(self.k.exprs.len());
        self.k.exprs.push(TypedExpr { expr, dtype });
        self.memo.insert(key, v);
        v
    }

    fn cast(&mut self, v: Val, to: DType) -> Val {
        if self.k.dtype(v) == to {
            return v;
        }
        // Constants convert here, so `x * 0.5` multiplies by a float32 constant.
        match (&self.k.exprs[v.0].expr, to.is_floating(), to) {
            (Expr::Float(f), true, _) => return self.push(Expr::Float(*f), to),
            (Expr::Int(i), true, _) => return self.push(Expr::Float(*i as f64), to),
            (Expr::Int(i), false, DType::I64) => return self.push(Expr::Int(*i), to),
            _ => {}
        }
        self.push(Expr::Cast(v), to)
    }

    fn float(&mut self, x: f64, d: DType) -> Val {
        self.push(Expr::Float(x), d)
    }

    fn un(&mut self, op: Unary, a: Val) -> Val {
        let d = self.k.dtype(a);
        self.push(Expr::Unary(op, a), d)
    }

    fn bin(&mut self, op: Binary, a: Val, b: Val) -> Val {
        let d = match op {
            Binary::Eq | Binary::Ne | Binary::Lt | Binary::Le | Binary::Gt | Binary::Ge => {
                DType::Bool
            }
            _ => self.k.dtype(a),
        };
        self.push(Expr::Binary(op, a, b), d)
    }

    fn select(&mut self, c: Val, a: Val, b: Val) -> Val {
        let d = self.k.dtype(a);
        self.push(Expr::Select(c, a, b), d)
    }

    /// `lo` below `lo`, `hi` above `hi`, NaN kept (PyTorch's clamp on floats).
    fn clamp(&mut self, x: Val, lo: Option<Val>, hi: Option<Val>) -> Val {
        let mut r = x;
        if let Some(lo) = lo {
            let below = self.bin(Binary::Lt, r, lo);
            r = self.select(below, lo, r);
        }
        if let Some(hi) = hi {
            let above = self.bin(Binary::Gt, r, hi);
            r = self.select(above, hi, r);
        }
        r
    }

    fn sigmoid(&mut self, x: Val) -> Val {
        let d = self.k.dtype(x);
        let one = self.float(1.0, d);
        let e = self.un(Unary::Neg, x);
        let e = self.un(Unary::Exp, e);
        let den = self.bin(Binary::Add, one, e);
        self.bin(Binary::Div, one, den)
    }

    fn lower(&mut self, n: Node, inputs: &[Item]) -> Result<Item, KernelError> {
        let g = self.g;
        let name = g.kind(n).as_str().to_string();
        let op = name.strip_prefix("aten::").unwrap_or(&name).to_string();
        let fail = |m: String| KernelError::at(n, format!("{name}: {m}"));
        let value = |i: usize| -> Result<(Val, Option<usize>, Vec<usize>), KernelError> {
            match inputs.get(i) {
                Some(Item::Value {
                    val,
                    rank,
                    shape_from,
                }) => Ok((*val, *rank, shape_from.clone())),
                _ => Err(fail(format!("operand {i} must be a number or tensor"))),
            }
        };
        let konst = |i: usize| -> Option<ConstValue> {
            match inputs.get(i) {
                Some(Item::Const(c)) => Some(c.clone()),
                _ => None,
            }
        };
        // A number argument known at compile time (alpha, slopes, bounds).
        let number = |b: &Self, i: usize| -> Option<f64> {
            match inputs.get(i) {
                Some(Item::Value {
                    val, rank: None, ..
                }) => match b.k.exprs[val.0].expr {
                    Expr::Float(f) => Some(f),
                    Expr::Int(x) => Some(x as f64),
                    _ => None,
                },
                _ => None,
            }
        };
        let arity = |lo: usize, hi: usize| {
            if (lo..=hi).contains(&inputs.len()) {
                Ok(())
            } else {
                Err(fail(format!(
                    "expected {lo} to {hi} operands, found {}",
                    inputs.len()
                )))
            }
        };
        // The first operand of every fused op is a tensor.
        let (x, x_rank, x_from) = value(0)?;
        if x_rank.is_none() {
            return Err(fail("the first operand must be a tensor".into()));
        }
        let mut rank = x_rank;
        let mut shape_from = x_from;
        let mut join = |r: Option<usize>, from: &[usize]| {
            if let Some(r) = r {
                rank = Some(rank.unwrap_or(0).max(r));
            }
            for f in from {
                if !shape_from.contains(f) {
                    shape_from.push(*f);
                }
            }
        };
        let xd = self.k.dtype(x);
        let promoted = |b: &Self, items: &[&Item]| -> DType {
            let ops: Vec<Promo> = items.iter().filter_map(|i| promo(b, i)).collect();
            result_type(&ops, DType::F32)
        };
        let floating = |d: DType| if d.is_floating() { d } else { DType::F32 };
        let val = match op.as_str() {
            "add" | "sub" | "mul" | "div" | "pow" | "eq" | "ne" | "lt" | "le" | "gt" | "ge"
            | "logical_and" | "logical_or" | "logical_xor" | "__and__" | "__or__" | "__xor__"
            | "bitwise_and" | "bitwise_or" | "bitwise_xor" | "maximum" | "minimum" | "rsub" => {
                let (y, y_rank, y_from) = value(1)?;
                join(y_rank, &y_from);
                let common = promoted(self, &inputs[..2].iter().collect::<Vec<_>>());
                self.binary_op(&op, x, y, common, inputs, &fail, &number)?
            }
            "where" => {
                arity(3, 3)?;
                let (a, a_rank, a_from) = value(1)?;
                let (c, c_rank, c_from) = value(2)?;
                join(a_rank, &a_from);
                join(c_rank, &c_from);
                if xd != DType::Bool {
                    return Err(fail("the condition must be a bool tensor".into()));
                }
                let d = promoted(self, &[&inputs[1], &inputs[2]]);
                let (a, c) = (self.cast(a, d), self.cast(c, d));
                self.select(x, a, c)
            }
            "neg" | "abs" | "relu" => {
                arity(1, 1)?;
                if xd == DType::Bool {
                    return Err(fail("bool tensors are not supported".into()));
                }
                let zero = self.zero(xd);
                match op.as_str() {
                    "neg" => self.un(Unary::Neg, x),
                    "abs" => self.un(Unary::Abs, x),
                    _ => {
                        let neg = self.bin(Binary::Lt, x, zero);
                        self.select(neg, zero, x)
                    }
                }
            }
            "logical_not" | "bitwise_not" if xd == DType::Bool => {
                arity(1, 1)?;
                self.un(Unary::Not, x)
            }
            "exp" | "log" | "sqrt" | "rsqrt" | "reciprocal" | "sigmoid" | "tanh" | "erf"
            | "expm1" | "log1p" | "silu" | "hardswish" | "hardsigmoid" | "gelu" | "mish"
            | "sin" | "cos" => {
                if op == "gelu" {
                    arity(1, 2)?;
                } else {
                    arity(1, 1)?;
                }
                let out = floating(xd);
                let gelu_tanh = match konst(1) {
                    Some(ConstValue::Str(s)) if s == "tanh" => true,
                    Some(ConstValue::Str(s)) if s == "none" => false,
                    None => false,
                    Some(c) => return Err(fail(format!("unsupported approximate={c:?}"))),
                };
                self.in_opmath(x, out, |b, x, d| b.activation(&op, x, d, gelu_tanh))
            }
            "hardtanh" | "clamp" | "clamp_min" | "clamp_max" | "relu6" => {
                let (lo, hi) = match op.as_str() {
                    "hardtanh" => (
                        Some(number(self, 1).unwrap_or(-1.0)),
                        Some(number(self, 2).unwrap_or(1.0)),
                    ),
                    "relu6" => (Some(0.0), Some(6.0)),
                    "clamp_min" => (Some(self.need(number(self, 1), &fail)?), None),
                    "clamp_max" => (None, Some(self.need(number(self, 1), &fail)?)),
                    _ => {
                        arity(3, 3)?;
                        let bound = |b: &Self, i: usize| -> Result<Option<f64>, KernelError> {
                            match (konst(i), number(b, i)) {
                                (Some(ConstValue::None), _) => Ok(None),
                                (_, Some(f)) => Ok(Some(f)),
                                _ => Err(fail("bounds must be constants or None".into())),
                            }
                        };
                        (bound(self, 1)?, bound(self, 2)?)
                    }
                };
                if xd == DType::Bool {
                    return Err(fail("bool tensors are not supported".into()));
                }
                // A float bound on an integer tensor promotes clamp (not hardtanh), as PyTorch.
                let float_bound = op.starts_with("clamp")
                    && (1..inputs.len()).any(|i| {
                        matches!(&inputs[i], Item::Value { val, rank: None, .. } if self.k.dtype(*val) == DType::F64)
                    });
                let d = if float_bound && !xd.is_floating() {
                    DType::F32
                } else {
                    xd
                };
                let x = self.cast(x, d);
                let lo = lo.map(|f| self.number_in(f, d));
                let hi = hi.map(|f| self.number_in(f, d));
                if op.starts_with("clamp") {
                    self.clamp(x, lo, hi)
                } else {
                    // hardtanh: the lower bound wins when the bounds cross.
                    let r = self.clamp(x, None, hi);
                    let lo = lo.expect("hardtanh has both bounds");
                    let below = self.bin(Binary::Lt, x, lo);
                    self.select(below, lo, r)
                }
            }
            "leaky_relu" | "elu" | "softplus" | "celu" | "selu" => {
                if !xd.is_floating() {
                    return Err(fail(format!("{op} needs a floating tensor")));
                }
                let args: Vec<Option<f64>> = (1..inputs.len()).map(|i| number(self, i)).collect();
                if args.iter().any(Option::is_none) {
                    return Err(fail("parameters must be constants".into()));
                }
                let arg =
                    |i: usize, default: f64| args.get(i).copied().flatten().unwrap_or(default);
                let params = match op.as_str() {
                    "leaky_relu" => vec![arg(0, 0.01)],
                    "elu" => vec![arg(0, 1.0), arg(1, 1.0), arg(2, 1.0)],
                    "celu" => {
                        let a = arg(0, 1.0);
                        if a == 0.0 {
                            return Err(fail("alpha cannot be 0".into()));
                        }
                        vec![a, 1.0, 1.0 / a]
                    }
                    "selu" => vec![1.673_263_242_354_377_3, 1.050_700_987_355_480_5, 1.0],
                    _ => vec![arg(0, 1.0), arg(1, 20.0)],
                };
                if op == "leaky_relu" {
                    // The slope is rounded to the tensor's dtype, as PyTorch's kernel does.
                    let slope = self.number_in(params[0], xd);
                    let zero = self.zero(xd);
                    let pos = self.bin(Binary::Gt, x, zero);
                    let scaled = self.bin(Binary::Mul, x, slope);
                    self.select(pos, x, scaled)
                } else {
                    let name = if op == "softplus" { "softplus" } else { "elu" };
                    self.in_opmath(x, xd, |b, x, d| b.parametric(name, x, d, &params))
                }
            }
            "to" | "type_as" | "_to_copy" | "float" | "double" | "half" | "bfloat16" | "int"
            | "long" | "bool" => {
                let target = match op.as_str() {
                    "type_as" => {
                        let (y, _, _) = value(1)?;
                        self.k.dtype(y)
                    }
                    "float" => DType::F32,
                    "double" => DType::F64,
                    "half" => DType::F16,
                    "bfloat16" => DType::BF16,
                    "int" => DType::I32,
                    "long" => DType::I64,
                    "bool" => DType::Bool,
                    _ => self.cast_target(inputs, &fail)?,
                };
                self.cast(x, target)
            }
            _ => {
                return Err(fail(
                    "this operation is not supported in a fused kernel".into(),
                ))
            }
        };
        Ok(Item::Value {
            val,
            rank,
            shape_from,
        })
    }

    fn need(
        &self,
        v: Option<f64>,
        fail: &dyn Fn(String) -> KernelError,
    ) -> Result<f64, KernelError> {
        v.ok_or_else(|| fail("the parameter must be a constant".into()))
    }

    /// The dtype `aten::to` converts to: its first int operand after `self`.
    fn cast_target(
        &self,
        inputs: &[Item],
        fail: &dyn Fn(String) -> KernelError,
    ) -> Result<DType, KernelError> {
        for item in &inputs[1..] {
            match item {
                Item::Const(ConstValue::Device(d)) if d != "cpu" => {
                    return Err(fail(format!("a cast to device {d} is not fused")))
                }
                Item::Value {
                    val, rank: None, ..
                } => {
                    if let Expr::Int(code) = self.k.exprs[val.0].expr {
                        return DType::from_code(code)
                            .ok_or_else(|| fail(format!("dtype code {code} is not supported")));
                    }
                    return Err(fail("the dtype must be a constant".into()));
                }
                _ => {}
            }
        }
        Err(fail("no dtype to convert to".into()))
    }

    fn zero(&mut self, d: DType) -> Val {
        self.number_in(0.0, d)
    }

    fn number_in(&mut self, x: f64, d: DType) -> Val {
        if d.is_floating() {
            self.float(x, d)
        } else {
            self.push(Expr::Int(x as i64), d)
        }
    }

    /// Runs `f` on `x` converted to `out`'s opmath dtype and converts the result to `out`.
    fn in_opmath(
        &mut self,
        x: Val,
        out: DType,
        f: impl FnOnce(&mut Self, Val, DType) -> Val,
    ) -> Val {
        let d = opmath(out);
        let xm = self.cast(x, d);
        let r = f(self, xm, d);
        self.cast(r, out)
    }

    #[allow(clippy::too_many_arguments)]
    fn binary_op(
        &mut self,
        op: &str,
        x: Val,
        y: Val,
        common: DType,
        inputs: &[Item],
        fail: &dyn Fn(String) -> KernelError,
        number: &dyn Fn(&Self, usize) -> Option<f64>,
    ) -> Result<Val, KernelError> {
        let cmp = |op: &str| match op {
            "eq" => Some(Binary::Eq),
            "ne" => Some(Binary::Ne),
            "lt" => Some(Binary::Lt),
            "le" => Some(Binary::Le),
            "gt" => Some(Binary::Gt),
            "ge" => Some(Binary::Ge),
            _ => None,
        };
        if let Some(c) = cmp(op) {
            if inputs.len() != 2 {
                return Err(fail("expected 2 operands".into()));
            }
            let (a, b) = (self.cast(x, common), self.cast(y, common));
            return Ok(self.bin(c, a, b));
        }
        let logical = match op {
            "logical_and" => Some(Binary::And),
            "logical_or" => Some(Binary::Or),
            "logical_xor" => Some(Binary::Xor),
            _ => None,
        };
        if let Some(l) = logical {
            let (a, b) = (self.cast(x, DType::Bool), self.cast(y, DType::Bool));
            return Ok(self.bin(l, a, b));
        }
        let bitwise = match op {
            "__and__" | "bitwise_and" => Some(Binary::And),
            "__or__" | "bitwise_or" => Some(Binary::Or),
            "__xor__" | "bitwise_xor" => Some(Binary::Xor),
            _ => None,
        };
        if let Some(bw) = bitwise {
            if common != DType::Bool {
                return Err(fail("bitwise ops are fused on bool tensors only".into()));
            }
            let (a, b) = (self.cast(x, common), self.cast(y, common));
            return Ok(self.bin(bw, a, b));
        }
        if op == "maximum" || op == "minimum" {
            if common == DType::Bool {
                return Err(fail("bool tensors are not supported".into()));
            }
            let (a, b) = (self.cast(x, common), self.cast(y, common));
            // NaN propagates from either side.
            let pick = if op == "maximum" {
                self.bin(Binary::Gt, a, b)
            } else {
                self.bin(Binary::Lt, a, b)
            };
            let mut r = self.select(pick, a, b);
            if common.is_floating() {
                let a_nan = self.bin(Binary::Ne, a, a);
                r = self.select(a_nan, a, r);
            }
            return Ok(r);
        }
        if common == DType::Bool && op != "mul" {
            return Err(fail("arithmetic on bool tensors is not fused".into()));
        }
        let d = if op == "div" {
            floating_of(common)
        } else {
            common
        };
        if op == "div" && inputs.len() == 3 {
            return Err(fail("division with a rounding mode is not fused".into()));
        }
        let (a, b) = (self.cast(x, d), self.cast(y, d));
        let val = match op {
            "add" | "sub" | "rsub" => {
                if !(2..=3).contains(&inputs.len()) {
                    return Err(fail("expected 2 or 3 operands".into()));
                }
                let (a, b) = if op == "rsub" { (b, a) } else { (a, b) };
                // `a + alpha * b` in opmath, rounded once (float16/bfloat16 as PyTorch).
                let dm = opmath(d);
                let (a, b) = (self.cast(a, dm), self.cast(b, dm));
                let scaled = match inputs.get(2) {
                    None => b,
                    Some(_) => match number(self, 2) {
                        Some(1.0) => b,
                        Some(al) => {
                            let al = self.number_in(al, dm);
                            self.bin(Binary::Mul, al, b)
                        }
                        None => match inputs.get(2) {
                            Some(Item::Value {
                                val, rank: None, ..
                            }) => {
                                let al = self.cast(*val, dm);
                                self.bin(Binary::Mul, al, b)
                            }
                            _ => return Err(fail("alpha must be a number".into())),
                        },
                    },
                };
                let kind = if op == "add" {
                    Binary::Add
                } else {
                    Binary::Sub
                };
                let r = self.bin(kind, a, scaled);
                self.cast(r, d)
            }
            "mul" if d == DType::Bool => self.bin(Binary::And, a, b),
            "mul" => self.bin(Binary::Mul, a, b),
            "div" => self.bin(Binary::Div, a, b),
            _ => {
                // pow: small constant exponents are multiplications, as PyTorch special-cases.
                let exponent = match inputs.get(1) {
                    Some(Item::Value { rank: None, .. }) => number(self, 1),
                    _ => None,
                };
                return self.pow(a, b, d, exponent, fail);
            }
        };
        Ok(val)
    }

    fn pow(
        &mut self,
        a: Val,
        b: Val,
        d: DType,
        exponent: Option<f64>,
        fail: &dyn Fn(String) -> KernelError,
    ) -> Result<Val, KernelError> {
        let Some(e) = exponent else {
            if !d.is_floating() {
                return Err(fail("integer pow needs a constant exponent".into()));
            }
            return Ok(self.in_opmath2(a, b, d, Binary::Pow));
        };
        if !d.is_floating() && (e < 0.0 || e.fract() != 0.0) {
            return Err(fail(
                "integer pow needs a non-negative integer exponent".into(),
            ));
        }
        let out = if e == 0.0 {
            self.number_in(1.0, d)
        } else if e == 1.0 {
            a
        } else if e == 2.0 {
            self.bin(Binary::Mul, a, a)
        } else if e == 3.0 {
            let sq = self.in_opmath_keep(a, d, |b, x, _| b.bin(Binary::Mul, x, x));
            let sq = self.cast(sq, opmath(d));
            let am = self.cast(a, opmath(d));
            let r = self.bin(Binary::Mul, sq, am);
            self.cast(r, d)
        } else if e == 0.5 {
            self.in_opmath(a, d, |b, x, _| b.un(Unary::Sqrt, x))
        } else if e == -1.0 {
            self.in_opmath(a, d, |b, x, dm| {
                let one = b.float(1.0, dm);
                b.bin(Binary::Div, one, x)
            })
        } else if e == -0.5 {
            self.in_opmath(a, d, |b, x, dm| {
                let one = b.float(1.0, dm);
                let s = b.un(Unary::Sqrt, x);
                b.bin(Binary::Div, one, s)
            })
        } else if !d.is_floating() && e <= 16.0 {
            let mut r = a;
            for _ in 1..e as i64 {
                r = self.bin(Binary::Mul, r, a);
            }
            r
        } else {
            self.in_opmath2(a, b, d, Binary::Pow)
        };
        Ok(out)
    }

    fn in_opmath_keep(
        &mut self,
        x: Val,
        d: DType,
        f: impl FnOnce(&mut Self, Val, DType) -> Val,
    ) -> Val {
        let xm = self.cast(x, opmath(d));
        let r = f(self, xm, opmath(d));
        self.cast(r, d)
    }

    fn in_opmath2(&mut self, a: Val, b: Val, d: DType, op: Binary) -> Val {
        let dm = opmath(d);
        let (am, bm) = (self.cast(a, dm), self.cast(b, dm));
        let r = self.bin(op, am, bm);
        self.cast(r, d)
    }

    /// A float activation computed in dtype `d` (float32 or float64).
    fn activation(&mut self, op: &str, x: Val, d: DType, gelu_tanh: bool) -> Val {
        let one = self.float(1.0, d);
        match op {
            "exp" => self.un(Unary::Exp, x),
            "log" => self.un(Unary::Log, x),
            "sqrt" => self.un(Unary::Sqrt, x),
            "rsqrt" => {
                let s = self.un(Unary::Sqrt, x);
                self.bin(Binary::Div, one, s)
            }
            "reciprocal" => self.bin(Binary::Div, one, x),
            "sigmoid" => self.sigmoid(x),
            "tanh" => self.un(Unary::Tanh, x),
            "erf" => self.un(Unary::Erf, x),
            "sin" => self.un(Unary::Sin, x),
            "cos" => self.un(Unary::Cos, x),
            "expm1" => self.un(Unary::Expm1, x),
            "log1p" => self.un(Unary::Log1p, x),
            "silu" => {
                let nx = self.un(Unary::Neg, x);
                let e = self.un(Unary::Exp, nx);
                let den = self.bin(Binary::Add, one, e);
                self.bin(Binary::Div, x, den)
            }
            "mish" => {
                let sp = self.parametric("softplus", x, d, &[1.0, 20.0]);
                let t = self.un(Unary::Tanh, sp);
                self.bin(Binary::Mul, x, t)
            }
            "hardswish" | "hardsigmoid" => {
                let three = self.float(3.0, d);
                let (zero, six) = (self.float(0.0, d), self.float(6.0, d));
                let s = self.bin(Binary::Add, x, three);
                let c = self.clamp(s, Some(zero), Some(six));
                let c = if op == "hardswish" {
                    self.bin(Binary::Mul, x, c)
                } else {
                    c
                };
                self.bin(Binary::Div, c, six)
            }
            _ => {
                let half = self.float(0.5, d);
                let inner = if gelu_tanh {
                    let k = self.float((2.0 / std::f64::consts::PI).sqrt(), d);
                    let c = self.float(0.044715, d);
                    // ((c * x) * x) * x, the runtime's order.
                    let t = self.bin(Binary::Mul, c, x);
                    let t = self.bin(Binary::Mul, t, x);
                    let t = self.bin(Binary::Mul, t, x);
                    let t = self.bin(Binary::Add, x, t);
                    let t = self.bin(Binary::Mul, k, t);
                    self.un(Unary::Tanh, t)
                } else {
                    let r = self.float(std::f64::consts::FRAC_1_SQRT_2, d);
                    let t = self.bin(Binary::Mul, x, r);
                    self.un(Unary::Erf, t)
                };
                let t = self.bin(Binary::Add, one, inner);
                let hx = self.bin(Binary::Mul, half, x);
                self.bin(Binary::Mul, hx, t)
            }
        }
    }

    /// `elu` (`[alpha, scale, input_scale]`) and `softplus` (`[beta, threshold]`) in `d`.
    fn parametric(&mut self, op: &str, x: Val, d: DType, p: &[f64]) -> Val {
        if op == "softplus" {
            let beta = self.float(p[0], d);
            let limit = self.float(p[1], d);
            let xb = self.bin(Binary::Mul, x, beta);
            let linear = self.bin(Binary::Gt, xb, limit);
            let e = self.un(Unary::Exp, xb);
            let l = self.un(Unary::Log1p, e);
            let soft = self.bin(Binary::Div, l, beta);
            return self.select(linear, x, soft);
        }
        let (neg, scale, input_scale) = (p[0] * p[1], p[1], p[2]);
        let zero = self.float(0.0, d);
        let nonpos = self.bin(Binary::Le, x, zero);
        let is = self.float(input_scale, d);
        let xi = self.bin(Binary::Mul, x, is);
        let em = self.un(Unary::Expm1, xi);
        let negf = self.float(neg, d);
        let below = self.bin(Binary::Mul, em, negf);
        let sc = self.float(scale, d);
        let above = self.bin(Binary::Mul, x, sc);
        self.select(nonpos, below, above)
    }
}

fn floating_of(d: DType) -> DType {
    if d.is_floating() {
        d
    } else {
        DType::F32
    }
}

/// Why a subgraph is not a kernel, at the node (or graph input) of the subgraph it concerns.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelError {
    pub site: Option<ErrorSite>,
    pub message: String,
}

/// Where in the subgraph a [`KernelError`] is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErrorSite {
    Node(Node),
    Input(Value),
}

impl KernelError {
    fn at(n: Node, message: impl Into<String>) -> KernelError {
        KernelError {
            site: Some(ErrorSite::Node(n)),
            message: message.into(),
        }
    }

    fn at_input(v: Value, message: impl Into<String>) -> KernelError {
        KernelError {
            site: Some(ErrorSite::Input(v)),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for KernelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
