//! A fusion group's subgraph as compiled kernels (the JIT's and whole-compiled models') run it: typed elementwise expressions over the
//! group's parameters (tensor elements and scalars), with PyTorch's type promotion applied and
//! every composite op (gelu, softplus, hardswish, ...) spelled in primitive operations.
//!
//! Values have a runtime [`DType`]. Arithmetic on float16/bfloat16 is computed in float32 and
//! rounded to the value's dtype after each op, as PyTorch's eager kernels round each result;
//! composite activations on those dtypes run wholly in float32 and round once, as PyTorch's
//! kernels do.
//!
//! `prim::ConstantChunk` pieces become views of tensor parameters ([`ChunkView`]), so chunks
//! share one iteration space; an `aten::cat` output is written part by part into its slices
//! ([`OutputPlan::Cat`]). Results whose types give them different shapes (the parts of a cat
//! of unequal sizes, independent outputs of different shapes) are computed in sweeps of their
//! own ([`PointwiseKernel::sweeps`]): one loop nest per shape, each over the iteration space
//! of what it reads, as PyTorch's fuser computes each part of a cat in its own range.
//!
//! Reductions over the innermost dimensions of the iteration space (`sum`, `mean`, `amax`,
//! `amin` over one or several, `softmax`, `log_softmax` over the last, `layer_norm` over its
//! normalized shape) make the kernel work row by row: a row spans the reduced dimensions
//! ([`PointwiseKernel::row_dims`], one count for the whole kernel; the launch merges them into
//! one), each [`Expr::Reduce`] is a value per row, computed by a loop over the row before the
//! loop that uses it, and results of the row's shape ([`ResultShape::Row`]) are written once
//! per row. Refused (the group then runs in
//! the interpreter): `aten::cat` other than as an output, reductions over other dimensions,
//! reductions of one kernel over different numbers of dimensions,
//! ops not listed in [`Builder::lower`], chunks of chunks or of reduced values, integer pow
//! with a non-constant exponent, division with a rounding mode.

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
    /// `1 + e^x` (sigmoid's and silu's denominator), as `vmath::one_plus_exp` computes it.
    OnePlusExp,
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
    /// The length of a row (the iteration space's last size), as `I64`.
    Columns,
    /// The reduction of the operand over the row: one value per row.
    Reduce(Reduction, Val),
}

impl Expr {
    /// The expressions this one reads.
    pub fn operands(&self) -> Vec<Val> {
        match *self {
            Expr::Param(_) | Expr::Float(_) | Expr::Int(_) | Expr::Columns => Vec::new(),
            Expr::Cast(a) | Expr::Unary(_, a) | Expr::Reduce(_, a) => vec![a],
            Expr::Binary(_, a, b) => vec![a, b],
            Expr::Select(c, a, b) => vec![c, a, b],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reduction {
    Sum,
    /// NaN wins, as PyTorch's `amax`.
    Max,
    Min,
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
    /// Parameters it broadcasts from with their row's sizes made 1 (through a reduction).
    pub reduced_from: Vec<usize>,
    pub shape: ResultShape,
}

/// Which part of the iteration space a result covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResultShape {
    /// All of it: written element by element.
    Full,
    /// One value per row, written once per row: the iteration shape with the row's sizes 1
    /// (`keepdim`) or without the row's dimensions.
    Row { keepdim: bool },
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
    pub exprs: Vec<TypedExpr>,
    pub results: Vec<KernelResult>,
    /// The largest rank of any tensor parameter: the rank of every result.
    pub tensor_rank: usize,
    /// The rank of the kernel's iteration space: `tensor_rank`, at least 1.
    pub rank: usize,
    /// Per reduction, the operands its input takes its shape from: one of them must span the
    /// row (an input broadcast along the row would be summed once per column).
    pub reduced_rows: Vec<Vec<usize>>,
    /// The row's sizes a `layer_norm`'s normalized shape requires.
    pub row_sizes: Option<Vec<i64>>,
    /// Operands that must have exactly those sizes (what a `layer_norm`'s weight and bias
    /// read: PyTorch refuses other shapes rather than broadcasting them).
    pub row_shaped: Vec<usize>,
    /// How many innermost dimensions of the iteration space a row spans: what the kernel's
    /// reductions reduce (1 when it has none).
    pub row_dims: usize,
    /// The results computed together over one iteration space, in the order they run: one
    /// sweep per shape the results' types give them (results of a kernel that reduces share
    /// one). The entry point computes the sweep whose index follows the sizes.
    pub sweeps: Vec<Vec<usize>>,
}

impl PointwiseKernel {
    pub fn dtype(&self, v: Val) -> DType {
        self.exprs[v.0].dtype
    }

    /// Whether the kernel reduces rows: it then runs whole rows, row by row.
    pub fn reduces(&self) -> bool {
        self.exprs
            .iter()
            .any(|e| matches!(e.expr, Expr::Reduce(..)))
    }

    /// Whether a row of length 0 has no value: a result of the row's shape reads its maximum
    /// or minimum (a softmax of an empty row is empty, its maximum never read).
    pub fn needs_nonempty_rows(&self) -> bool {
        let rows = self.results.iter().filter(|r| r.shape != ResultShape::Full);
        self.reaches(rows.map(|r| r.value), |_, e| {
            matches!(e, Expr::Reduce(Reduction::Max | Reduction::Min, _))
        })
    }

    /// Whether `is` holds for an expression `roots` read (or a root), each visited once.
    pub fn reaches(
        &self,
        roots: impl IntoIterator<Item = Val>,
        mut is: impl FnMut(Val, &Expr) -> bool,
    ) -> bool {
        let mut seen = vec![false; self.exprs.len()];
        let mut stack: Vec<Val> = roots.into_iter().collect();
        while let Some(v) = stack.pop() {
            if std::mem::replace(&mut seen[v.0], true) {
                continue;
            }
            if is(v, &self.exprs[v.0].expr) {
                return true;
            }
            stack.extend(self.exprs[v.0].expr.operands());
        }
        false
    }

    /// Whether the kernel spends several nanoseconds per element (transcendental functions,
    /// division, pow) rather than being bound by memory.
    pub fn is_compute_heavy(&self) -> bool {
        self.exprs.iter().any(|e| {
            matches!(
                e.expr,
                Expr::Unary(
                    Unary::Exp
                        | Unary::OnePlusExp
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
        shape: Shape,
    },
    /// A constant only an op's non-numeric parameters use.
    Const(ConstValue),
    /// A `prim::ListConstruct` of tensors (what `aten::cat` reads) or of numbers (a
    /// reduction's dims).
    List(Vec<Item>),
    /// `aten::cat(parts, dim)`: fused only as an output, each part a result written into its
    /// slice of the output.
    Cat(Vec<Item>, i64),
}

/// Where a value's shape comes from: the broadcast of the tensor parameters it reads, those
/// read through a reduction with the row's sizes made 1.
#[derive(Clone, Debug, Default)]
struct Shape {
    from: Vec<usize>,
    reduced_from: Vec<usize>,
    /// A reduction without `keepdim`: the row's shape without the row's dimensions.
    squeezed: bool,
}

impl Shape {
    fn of(param: usize) -> Shape {
        Shape {
            from: vec![param],
            ..Shape::default()
        }
    }

    /// The shape of an elementwise op of a value of this shape and one of `other`'s.
    fn join(
        &mut self,
        rank: Option<usize>,
        other: &Shape,
        other_rank: Option<usize>,
    ) -> Result<(), String> {
        // A squeezed row value aligns its dimensions with the row's outer ones: it only
        // combines with other squeezed values, numbers and 0-dim tensors.
        let plain = |squeezed: bool, r: Option<usize>| !squeezed && r.is_some_and(|r| r > 0);
        if (self.squeezed && plain(other.squeezed, other_rank))
            || (other.squeezed && plain(self.squeezed, rank))
        {
            return Err(
                "a reduction without keepdim combined with a tensor of the full rank".into(),
            );
        }
        for (mine, theirs) in [
            (&mut self.from, &other.from),
            (&mut self.reduced_from, &other.reduced_from),
        ] {
            for p in theirs {
                if !mine.contains(p) {
                    mine.push(*p);
                }
            }
        }
        self.squeezed |= other.squeezed;
        Ok(())
    }

    /// The shape after reducing the row's dimensions.
    fn reduced(&self, keepdim: bool) -> Shape {
        let mut reduced_from = self.reduced_from.clone();
        for p in &self.from {
            if !reduced_from.contains(p) {
                reduced_from.push(*p);
            }
        }
        Shape {
            from: Vec::new(),
            reduced_from,
            squeezed: !keepdim,
        }
    }
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
            exprs: Vec::new(),
            results: Vec::new(),
            tensor_rank: 0,
            rank: 1,
            reduced_rows: Vec::new(),
            row_sizes: None,
            row_shaped: Vec::new(),
            row_dims: 1,
            sweeps: Vec::new(),
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
        let shape = if rank.is_some() {
            Shape::of(i)
        } else {
            Shape::default()
        };
        items.insert(p, Item::Value { val, rank, shape });
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
                    Some(item @ Item::Value { .. }) => Ok(item.clone()),
                    _ => Err(KernelError::at(n, "prim::ListConstruct: only lists of tensors or numbers computed in the group are fused")),
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
    // Per result, what decides its sweep: the shape its type gives it.
    let mut shapes: Vec<SweepKey> = Vec::new();
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
                // The parts' values: the list construction the cat reads. A part whose size
                // along the cat's dimension is open gets a sweep of its own: parts differ
                // there as often as not.
                let list = g.producer(g.input(g.producer(v), 0));
                for &part in g.node_inputs(list) {
                    let sizes = static_sizes(g, part);
                    let fixed = sizes
                        .as_ref()
                        .is_some_and(|s| s.get(d as usize).is_some_and(|n| n.is_some()));
                    let own = (!fixed).then_some(shapes.len());
                    shapes.push((sizes, own));
                }
                let keys = &shapes[shapes.len() - parts.len()..];
                if b.k.reduces() && keys.iter().any(|k| k != &keys[0] || k.1.is_some()) {
                    return Err(KernelError::at(
                        ret,
                        format!("output {i}: a cat of parts of different sizes in a kernel that reduces rows is not fused"),
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
                            Item::Value { val, rank, shape } => Item::Value {
                                val: b.cast(*val, common),
                                rank: *rank,
                                shape: shape.clone(),
                            },
                            other => other.clone(),
                        };
                        let r = add_result(&mut b, &p, ret, i)?;
                        if b.k.results[r].shape != ResultShape::Full {
                            return Err(KernelError::at(
                                ret,
                                format!("output {i}: a cat of reduced values is not fused"),
                            ));
                        }
                        Ok(r)
                    })
                    .collect::<Result<_, _>>()?;
                OutputPlan::Cat {
                    dim: d as usize,
                    results,
                }
            }
            Some(item) => {
                shapes.push((static_sizes(g, v), None));
                OutputPlan::Result(add_result(&mut b, item, ret, i)?)
            }
            None => return Err(KernelError::at(ret, format!("output {i} is not a tensor"))),
        };
        b.k.outputs.push(plan);
    }
    if b.k.results.is_empty() {
        return Err(KernelError::at(ret, "the group has no outputs"));
    }
    b.k.sweeps = sweeps(&b.k, &shapes);
    Ok(b.k)
}

/// The sizes `v`'s type fixes (`None` where it leaves one open), or `None` for no sizes.
fn static_sizes(g: &Graph, v: Value) -> Option<Vec<Option<i64>>> {
    match g.ty(v) {
        Type::Tensor(t) => t.sizes.as_ref().map(|sizes| {
            sizes
                .iter()
                .map(|d| match d {
                    Dim::Known(n) => Some(*n),
                    _ => None,
                })
                .collect()
        }),
        _ => None,
    }
}

/// What puts results in one sweep: the sizes their types fix, and for a part of a cat whose
/// size along the cat's dimension is open, a number of its own.
type SweepKey = (Option<Vec<Option<i64>>>, Option<usize>);

/// Results grouped by [`SweepKey`], in order of their first result. A kernel that reduces
/// keeps one sweep: its row results have their rows' shape, not the iteration space's, and
/// are computed with it.
fn sweeps(k: &PointwiseKernel, shapes: &[SweepKey]) -> Vec<Vec<usize>> {
    if k.reduces() {
        return vec![(0..k.results.len()).collect()];
    }
    let mut keys: Vec<&SweepKey> = Vec::new();
    let mut sweeps: Vec<Vec<usize>> = Vec::new();
    for (r, shape) in shapes.iter().enumerate() {
        match keys.iter().position(|k| *k == shape) {
            Some(s) => sweeps[s].push(r),
            None => {
                keys.push(shape);
                sweeps.push(vec![r]);
            }
        }
    }
    sweeps
}

/// How many dimensions `dims` reduces when they are the innermost ones of a rank-`rank`
/// tensor (in any order, negative ones counted from the end), or `None`.
pub fn innermost_count(dims: &[i64], rank: usize) -> Option<usize> {
    let rank = rank as i64;
    let mut normalized: Vec<i64> = Vec::with_capacity(dims.len());
    for &d in dims {
        let d = if d < 0 { d + rank } else { d };
        if !(0..rank).contains(&d) || normalized.contains(&d) {
            return None;
        }
        normalized.push(d);
    }
    normalized.sort_unstable();
    let k = normalized.len() as i64;
    (k > 0 && normalized.iter().copied().eq(rank - k..rank)).then_some(k as usize)
}

/// Makes `item` (output `i`) a result of the kernel; returns its index.
fn add_result(b: &mut Builder, item: &Item, ret: Node, i: usize) -> Result<usize, KernelError> {
    let Item::Value {
        val,
        rank: Some(r),
        shape,
    } = item
    else {
        return Err(KernelError::at(ret, format!("output {i} is not a tensor")));
    };
    // A reduced value is a row's if whatever else it broadcasts from has the row's sizes 1.
    let row_dims = b.k.row_dims;
    let row = !shape.reduced_from.is_empty()
        && shape.from.iter().all(|&p| {
            let sizes = operand_sizes(&b.k, p);
            sizes[sizes.len().saturating_sub(row_dims)..]
                .iter()
                .all(|s| *s == Some(1))
        });
    let (result_shape, rank) = match (shape.squeezed, row) {
        (true, _) => (
            ResultShape::Row { keepdim: false },
            b.k.tensor_rank - row_dims,
        ),
        (false, true) => (ResultShape::Row { keepdim: true }, b.k.tensor_rank),
        (false, false) => (ResultShape::Full, b.k.tensor_rank),
    };
    if *r != rank {
        return Err(KernelError::at(ret,
            format!("output {i} has rank {r} but the group iterates over rank {}: only results of the full broadcast shape or of its rows are fused", b.k.tensor_rank),
        ));
    }
    b.k.results.push(KernelResult {
        value: *val,
        dtype: b.k.dtype(*val),
        shape_from: shape.from.clone(),
        reduced_from: shape.reduced_from.clone(),
        shape: result_shape,
    });
    Ok(b.k.results.len() - 1)
}

/// The sizes a tensor operand's type fixes (a parameter, or a chunk view after them).
pub fn operand_sizes(k: &PointwiseKernel, operand: usize) -> &[Option<i64>] {
    match k.params.get(operand) {
        Some(Param::Tensor { sizes, .. }) => sizes,
        Some(Param::Scalar(_)) => &[],
        None => &k.views[operand - k.params.len()].sizes,
    }
}

impl PointwiseKernel {
    /// Per parameter and then per view: whether `results` read its elements or take their
    /// shape from it (a parameter only chunked is neither, and its shape takes no part in
    /// broadcasting).
    pub fn reads(&self, results: &[usize]) -> Vec<bool> {
        let k = self;
        let mut needed = vec![false; k.exprs.len()];
        for &r in results {
            needed[k.results[r].value.0] = true;
        }
        let mut reads = vec![false; k.params.len() + k.views.len()];
        // What gives a result its shape takes part too (`pow(x, 0)` reads nothing of `x`).
        for &r in results {
            let r = &k.results[r];
            for &p in r.shape_from.iter().chain(&r.reduced_from) {
                reads[p] = true;
            }
        }
        for i in (0..k.exprs.len()).rev() {
            if !needed[i] {
                continue;
            }
            if let Expr::Param(p) = k.exprs[i].expr {
                reads[p] = true;
            }
            for a in k.exprs[i].expr.operands() {
                needed[a.0] = true;
            }
        }
        reads
    }
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
    if b.k.reaches([val], |_, e| matches!(e, Expr::Reduce(..))) {
        return Err(fail("a chunk of a reduced value is not fused"));
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
            shape: Shape {
                from: shape_from,
                ..Shape::default()
            },
        });
    }
    Ok(items)
}

/// The parameters (and views) expression `v` reads.
fn params_read(k: &PointwiseKernel, v: Val, out: &mut Vec<usize>) {
    // Each expression once: a chain of `x * sigmoid(x)` shares its operands.
    k.reaches([v], |_, e| {
        if let Expr::Param(p) = *e {
            if !out.contains(&p) {
                out.push(p);
            }
        }
        false
    });
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
        Expr::Float(_) | Expr::Int(_) | Expr::Columns => te.expr.clone(),
        Expr::Reduce(r, a) => Expr::Reduce(r, sub(b, a)),
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
        Some(AttrValue::Ints(xs)) => {
            ConstValue::List(xs.iter().map(|&x| ConstValue::Int(x)).collect())
        }
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
        shape: Shape::default(),
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
        let den = self.un(Unary::OnePlusExp, e);
        self.bin(Binary::Div, one, den)
    }

    fn lower(&mut self, n: Node, inputs: &[Item]) -> Result<Item, KernelError> {
        let g = self.g;
        let name = g.kind(n).as_str().to_string();
        let op = name.strip_prefix("aten::").unwrap_or(&name).to_string();
        let fail = |m: String| KernelError::at(n, format!("{name}: {m}"));
        let value = |i: usize| -> Result<(Val, Option<usize>, Shape), KernelError> {
            match inputs.get(i) {
                Some(Item::Value { val, rank, shape }) => Ok((*val, *rank, shape.clone())),
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
        let (x, x_rank, x_shape) = value(0)?;
        if x_rank.is_none() {
            return Err(fail("the first operand must be a tensor".into()));
        }
        if let Some(item) = self.reduction(&op, inputs, &fail)? {
            return Ok(item);
        }
        let mut rank = x_rank;
        let mut shape = x_shape;
        let mut join = |r: Option<usize>, other: &Shape| -> Result<(), KernelError> {
            shape.join(rank, other, r).map_err(&fail)?;
            if let Some(r) = r {
                rank = Some(rank.unwrap_or(0).max(r));
            }
            Ok(())
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
                let (y, y_rank, y_shape) = value(1)?;
                join(y_rank, &y_shape)?;
                let common = promoted(self, &inputs[..2].iter().collect::<Vec<_>>());
                self.binary_op(&op, x, y, common, inputs, &fail, &number)?
            }
            "where" => {
                arity(3, 3)?;
                let (a, a_rank, a_shape) = value(1)?;
                let (c, c_rank, c_shape) = value(2)?;
                join(a_rank, &a_shape)?;
                join(c_rank, &c_shape)?;
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
        Ok(Item::Value { val, rank, shape })
    }

    /// A reduction over the innermost dimensions of the iteration space (`None` when `op` is
    /// not a reduction), in float32 for float16 and bfloat16 as PyTorch accumulates.
    fn reduction(
        &mut self,
        op: &str,
        inputs: &[Item],
        fail: &dyn Fn(String) -> KernelError,
    ) -> Result<Option<Item>, KernelError> {
        if op == "layer_norm" {
            return self.layer_norm(inputs, fail).map(Some);
        }
        let softmax = matches!(op, "softmax" | "log_softmax");
        if !softmax && !matches!(op, "sum" | "mean" | "amax" | "amin") {
            return Ok(None);
        }
        let Some(Item::Value {
            val: x,
            rank: Some(rank),
            shape,
        }) = inputs.first()
        else {
            return Err(fail("the operand must be a tensor".into()));
        };
        let (x, rank) = (*x, *rank);
        self.check_spans_rows(rank, shape, fail)?;
        // Where the dims, keepdim and dtype are, by overload: sum(self, dtype),
        // sum(self, dim, keepdim, dtype), amax(self, dim, keepdim), softmax(self, dim, dtype).
        let (dims_at, keepdim_at, dtype_at) = match (op, inputs.len()) {
            ("sum" | "mean", 2) => (None, None, Some(1)),
            ("sum" | "mean", 4) => (Some(1), Some(2), Some(3)),
            ("amax" | "amin", 3) => (Some(1), Some(2), None),
            ("softmax" | "log_softmax", 3) => (Some(1), None, Some(2)),
            _ => return Err(fail("this overload is not fused".into())),
        };
        if dtype_at.is_some_and(|i| !matches!(inputs[i], Item::Const(ConstValue::None))) {
            return Err(fail("a reduction with a dtype is not fused".into()));
        }
        // No dims, None or [] reduce every dimension.
        let dims = match dims_at {
            None => Vec::new(),
            Some(i) => self
                .int_list(&inputs[i])
                .ok_or_else(|| fail("the dims must be constants".into()))?,
        };
        let row_dims = match dims.as_slice() {
            [] if !softmax => Some(rank),
            [_] if softmax => innermost_count(&dims, rank).filter(|&k| k == 1),
            _ if softmax => None,
            _ => innermost_count(&dims, rank),
        };
        let Some(row_dims) = row_dims else {
            return Err(fail(
                "only reductions over the innermost dimensions are fused".into(),
            ));
        };
        self.fix_row_dims(row_dims, fail)?;
        // sum(self) keeps no dimension; softmax keeps them all.
        let keepdim = match keepdim_at {
            None => softmax,
            Some(i) => {
                self.constant_int(&inputs[i])
                    .ok_or_else(|| fail("keepdim must be a constant".into()))?
                    != 0
            }
        };
        let xd = self.k.dtype(x);
        let floating_only = matches!(op, "mean" | "softmax" | "log_softmax");
        if (xd == DType::Bool && op != "sum") || (floating_only && !xd.is_floating()) {
            return Err(fail(format!("{op} of a {xd:?} tensor is not fused")));
        }
        self.k.reduced_rows.push(shape.from.clone());
        let val = match op {
            "sum" | "mean" => {
                // Integer sums are int64, as PyTorch's.
                let d = if xd.is_floating() { xd } else { DType::I64 };
                let acc = opmath(d);
                let xa = self.cast(x, acc);
                let mut r = self.push(Expr::Reduce(Reduction::Sum, xa), acc);
                if op == "mean" {
                    let columns = self.push(Expr::Columns, DType::I64);
                    let n = self.cast(columns, acc);
                    r = self.bin(Binary::Div, r, n);
                }
                self.cast(r, d)
            }
            "amax" => self.push(Expr::Reduce(Reduction::Max, x), xd),
            "amin" => self.push(Expr::Reduce(Reduction::Min, x), xd),
            _ => {
                // PyTorch's vectorized softmax over the last dimension: the row's maximum,
                // the sum of exp(x - max), then a multiplication by its reciprocal (or the
                // subtraction of its log).
                let acc = opmath(xd);
                let xa = self.cast(x, acc);
                let max = self.push(Expr::Reduce(Reduction::Max, xa), acc);
                let shifted = self.bin(Binary::Sub, xa, max);
                let exp = self.un(Unary::Exp, shifted);
                let sum = self.push(Expr::Reduce(Reduction::Sum, exp), acc);
                let r = if op == "softmax" {
                    let one = self.float(1.0, acc);
                    let inverse = self.bin(Binary::Div, one, sum);
                    self.bin(Binary::Mul, exp, inverse)
                } else {
                    let log = self.un(Unary::Log, sum);
                    self.bin(Binary::Sub, shifted, log)
                };
                self.cast(r, xd)
            }
        };
        let (rank, shape) = match (softmax, keepdim) {
            (true, _) => (rank, shape.clone()),
            (false, true) => (rank, shape.reduced(true)),
            (false, false) => (rank - row_dims, shape.reduced(false)),
        };
        Ok(Some(Item::Value {
            val,
            rank: Some(rank),
            shape,
        }))
    }

    /// Makes the kernel's rows span `row_dims` innermost dimensions: the first reduction
    /// decides, and every other must reduce as many.
    fn fix_row_dims(
        &mut self,
        row_dims: usize,
        fail: &dyn Fn(String) -> KernelError,
    ) -> Result<(), KernelError> {
        // Called before the reduction's own expressions exist: any there are an earlier one's.
        if self.k.reduces() && self.k.row_dims != row_dims {
            return Err(fail(format!(
                "reductions over {} and over {row_dims} innermost dimensions in one kernel",
                self.k.row_dims
            )));
        }
        self.k.row_dims = row_dims;
        Ok(())
    }

    /// A reduction reads a tensor value of the kernel's rows: of the iteration space's rank,
    /// or lower (aligned at the right, so its rows are the kernel's, reduced again for each
    /// outer position it is broadcast along), and not itself squeezed by a reduction.
    fn check_spans_rows(
        &self,
        rank: usize,
        shape: &Shape,
        fail: &dyn Fn(String) -> KernelError,
    ) -> Result<(), KernelError> {
        if rank == 0 || shape.squeezed || shape.from.is_empty() {
            return Err(fail(
                "only a reduction of a value that spans the kernel's rows is fused".into(),
            ));
        }
        Ok(())
    }

    /// `layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable)` over the
    /// innermost dimensions:
    /// the row's mean, then the mean of the squared deviations (two passes, in float32 for
    /// float16 and bfloat16), `(x - mean) / sqrt(var + eps) * weight + bias`.
    fn layer_norm(
        &mut self,
        inputs: &[Item],
        fail: &dyn Fn(String) -> KernelError,
    ) -> Result<Item, KernelError> {
        let (
            [Item::Value {
                val: x,
                rank: Some(rank),
                shape,
            }, normalized, weight, bias, _, _],
            Some(eps),
        ) = (inputs, self.constant_float(inputs.get(4)))
        else {
            return Err(fail(
                "expects a tensor, its normalized shape and a constant eps".into(),
            ));
        };
        let (x, rank, mut shape) = (*x, *rank, shape.clone());
        self.check_spans_rows(rank, &shape, fail)?;
        let xd = self.k.dtype(x);
        if !xd.is_floating() {
            return Err(fail(format!("layer_norm of a {xd:?} tensor is not fused")));
        }
        // The row's length is what the normalized shape says (checked when the kernel runs).
        let sizes = self.int_list(normalized).unwrap_or_default();
        if sizes.is_empty() || sizes.len() > rank {
            return Err(fail(
                "only a constant normalized shape of the innermost dimensions is fused".into(),
            ));
        }
        self.fix_row_dims(sizes.len(), fail)?;
        let row_dims = sizes.len();
        self.k.row_sizes = Some(sizes);
        self.k.reduced_rows.push(shape.from.clone());
        let acc = opmath(xd);
        let xa = self.cast(x, acc);
        let columns = self.push(Expr::Columns, DType::I64);
        let count = self.cast(columns, acc);
        let sum = self.push(Expr::Reduce(Reduction::Sum, xa), acc);
        let mean = self.bin(Binary::Div, sum, count);
        let centered = self.bin(Binary::Sub, xa, mean);
        let squares = self.bin(Binary::Mul, centered, centered);
        let sum_squares = self.push(Expr::Reduce(Reduction::Sum, squares), acc);
        let var = self.bin(Binary::Div, sum_squares, count);
        let eps = self.float(eps, acc);
        let var_eps = self.bin(Binary::Add, var, eps);
        let std = self.un(Unary::Sqrt, var_eps);
        let one = self.float(1.0, acc);
        let rstd = self.bin(Binary::Div, one, std);
        let mut y = self.bin(Binary::Mul, centered, rstd);
        for (item, op) in [(weight, Binary::Mul), (bias, Binary::Add)] {
            match item {
                Item::Const(ConstValue::None) => {}
                Item::Value {
                    val,
                    rank: Some(r),
                    shape: s,
                } if *r == row_dims && !s.squeezed && s.reduced_from.is_empty() => {
                    shape.join(Some(rank), s, Some(*r)).map_err(fail)?;
                    self.k.row_shaped.extend(&s.from);
                    let v = self.cast(*val, acc);
                    y = self.bin(op, y, v);
                }
                _ => {
                    return Err(fail(
                        "the weight and bias must be tensors of the normalized shape or None"
                            .into(),
                    ))
                }
            }
        }
        let val = self.cast(y, xd);
        Ok(Item::Value {
            val,
            rank: Some(rank),
            shape,
        })
    }

    /// A float constant (an int one converted).
    fn constant_float(&self, item: Option<&Item>) -> Option<f64> {
        match item? {
            Item::Value {
                val, rank: None, ..
            } => match self.k.exprs[val.0].expr {
                Expr::Float(f) => Some(f),
                Expr::Int(i) => Some(i as f64),
                _ => None,
            },
            _ => None,
        }
    }

    /// An int constant (a bool one as 0 or 1).
    fn constant_int(&self, item: &Item) -> Option<i64> {
        match item {
            Item::Value {
                val, rank: None, ..
            } => match self.k.exprs[val.0].expr {
                Expr::Int(i) => Some(i),
                _ => None,
            },
            _ => None,
        }
    }

    /// A constant list of ints (an int alone as a list of one; None as the empty list).
    fn int_list(&self, item: &Item) -> Option<Vec<i64>> {
        match item {
            Item::Const(ConstValue::None) => Some(Vec::new()),
            Item::Const(ConstValue::List(xs)) => xs
                .iter()
                .map(|x| match x {
                    ConstValue::Int(i) => Some(*i),
                    _ => None,
                })
                .collect(),
            Item::List(parts) => parts.iter().map(|p| self.constant_int(p)).collect(),
            item => self.constant_int(item).map(|d| vec![d]),
        }
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
                let den = self.un(Unary::OnePlusExp, nx);
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
