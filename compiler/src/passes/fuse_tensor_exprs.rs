//! `fuse-tensor-exprs`: groups fusible nodes into `prim::TensorExprGroup` nodes whose
//! `Subgraph` attribute holds them, after PyTorch's TensorExpr fuser
//! (`torch/csrc/jit/passes/tensorexpr_fuser.cpp`, `createFusionGroups`).
//!
//! Each block is walked from its end. A fusible node becomes a group of one; the producers of
//! the group's inputs are then tried latest first, and one that can be merged is moved next to
//! the group (only where alias analysis allows the move) and pulled into its subgraph; the scan
//! restarts at the grown group. Constants the merged nodes use are copied into the subgraph,
//! except tensors (a frozen model's weights), which the group takes as inputs. The walk
//! repeats until nothing changes, then each group is tried into the next one (groups with no
//! dependence between them merge too, when their outputs have one rank), and the blocks of `prim::If`/`prim::Loop` get
//! the same treatment: groups never cross a block boundary. At the end, groups of fewer than
//! [`MIN_GROUP_SIZE`] nodes (constants not counted) are inlined back. [`run_with`] takes
//! other settings ([`FuseOptions`]), as PyTorch's `FuseTensorExprs` does.
//!
//! Fusible ops are listed once, in [`is_fusible`], for the kernel compiler to read as well:
//! elementwise ops on CPU tensors whose dtype, device, rank and `requires_grad=0` are known
//! (sizes may be `*`), as `specialize-profiled-types` leaves them, and at group boundaries
//! `prim::ConstantChunk` and `aten::cat` of a `prim::ListConstruct` (which comes along).
//! Reductions over the innermost dimensions ([`is_fusible_reduction`]: sums, means, maxima,
//! softmax, layer norm) join too, since Ember's kernels compute them row by row (a group's
//! reductions all over as many dimensions: a kernel has one kind of row); PyTorch's fuser
//! leaves them out by default, and [`FuseOptions::reductions`] turns them off. The pass only
//! relies on those types inside groups, which `guard-tensor-exprs` then puts behind type
//! checks.

use hashbrown::HashMap;

use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::catalogue::resolve_node;
use ember_dialects::symbol::{sym, Symbol};
use ember_dialects::types::{Dim, ScalarType, TensorType, Type};
use ember_dialects::{Block, Graph, Node, Value, ValueDef};

use super::{constant_pooling, dce, LogLevel, PassContext};
use crate::analysis::alias::AliasDb;
use crate::fold::{constant_bool, constant_int, constant_value};
use ember_runtime::kernel_launch::kernel::innermost_count;

/// Groups with fewer nodes (constants and list constructions not counted) are inlined back.
pub const MIN_GROUP_SIZE: usize = 2;

/// The most inputs and outputs two merging nodes may have together (PyTorch's
/// `subgraphArgLimit`): kernels take one argument per tensor.
const SUBGRAPH_ARG_LIMIT: usize = 128;

/// Elementwise ops the fuser groups, as `name` or `name.overload` of their `aten::` schema.
pub const ELEMENTWISE_OPS: &[&str] = &[
    // Unary.
    "neg",
    "abs",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "sin",
    "cos",
    "tanh",
    "sigmoid",
    "relu",
    "gelu",
    "silu",
    "hardswish",
    "hardsigmoid",
    "hardtanh",
    "leaky_relu",
    "elu",
    "softplus",
    "clamp",
    "clamp_min",
    "clamp_max",
    // Binary, with tensor or scalar operands.
    "add.Tensor",
    "add.Scalar",
    "sub.Tensor",
    "sub.Scalar",
    "mul.Tensor",
    "mul.Scalar",
    "div.Tensor",
    "div.Scalar",
    "pow.Tensor_Scalar",
    "eq.Tensor",
    "eq.Scalar",
    "ne.Tensor",
    "ne.Scalar",
    "lt.Tensor",
    "lt.Scalar",
    "le.Tensor",
    "le.Scalar",
    "gt.Tensor",
    "gt.Scalar",
    "ge.Tensor",
    "ge.Scalar",
    "type_as",
    // Ternary.
    "where.self",
    "where.ScalarSelf",
    "where.ScalarOther",
    "where.Scalar",
    // Casts to a dtype (on the same device).
    "to.dtype",
    "to.prim_dtype",
    "to.dtype_layout",
];

/// Tensor dtypes the fuser accepts (PyTorch's fuser also refuses `Byte`: its promotion
/// corner cases).
pub const FUSIBLE_DTYPES: &[ScalarType] = &[
    ScalarType::Float,
    ScalarType::Double,
    ScalarType::Half,
    ScalarType::BFloat16,
    ScalarType::Char,
    ScalarType::Short,
    ScalarType::Int,
    ScalarType::Long,
    ScalarType::Bool,
];

/// Whether the fuser may put `n` in a group: an op of [`ELEMENTWISE_OPS`] (or
/// `prim::ConstantChunk`, or `aten::cat` of a `prim::ListConstruct` read only by it) whose tensors all have a fusible dtype, live on the CPU, have a known
/// rank and do not require grad, and whose other operands are plain numbers (a dtype,
/// approximation or cast argument must be a constant).
pub fn is_fusible(g: &Graph, n: Node) -> bool {
    let kind = g.kind(n);
    let tensors_ok = g
        .node_inputs(n)
        .iter()
        .chain(g.node_outputs(n))
        .all(|&v| match g.ty(v) {
            Type::Tensor(t) => is_fusible_tensor(t),
            _ => true,
        });
    if !tensors_ok || g.node_outputs(n).is_empty() {
        return false;
    }
    if kind == Symbol::prim("ConstantChunk") {
        return g.node_inputs(n).len() == 1 && g.ty(g.input(n, 0)).is_tensor();
    }
    if kind == sym::list_construct() {
        // Only as the tensor list of a fusible `cat`, which reads it once.
        return matches!(g.ty(g.output(n, 0)), Type::List(e) if e.is_tensor())
            && g.node_inputs(n).iter().all(|&v| g.ty(v).is_tensor())
            && matches!(g.uses(g.output(n, 0)), [u]
                if is_group(g, u.user) || (u.offset == 0 && is_fusible_cat(g, u.user)));
    }
    if kind == Symbol::aten("cat") {
        return is_fusible_cat(g, n);
    }
    if !kind.is_aten() || g.node_outputs(n).len() != 1 || !g.ty(g.output(n, 0)).is_tensor() {
        return false;
    }
    let Ok(schema) = resolve_node(g, n) else {
        return false;
    };
    let name = kind.unqualified();
    let full = format!("{name}.{}", schema.overload_name);
    let listed = if schema.overload_name.is_empty() {
        ELEMENTWISE_OPS.contains(&name)
    } else {
        ELEMENTWISE_OPS.contains(&full.as_str())
    };
    if !listed {
        return false;
    }
    for (i, &v) in g.node_inputs(n).iter().enumerate() {
        let constant = g.kind(g.producer(v)) == sym::constant();
        let arg = schema.arguments.get(i).map(|a| a.name.as_str());
        // The output type must follow from the guarded tensor types: what picks a dtype or
        // an approximation has to be known now.
        if (name == "to" || matches!(arg, Some("dtype" | "approximate"))) && i > 0 && !constant {
            return false;
        }
        match g.ty(v) {
            Type::Tensor(_) | Type::Int | Type::Float | Type::Bool | Type::None => {}
            _ if constant => {}
            _ => return false,
        }
    }
    // Integer powers raise on negative exponents; PyTorch fuses only floating bases.
    if full == "pow.Tensor_Scalar" && !tensor_dtype(g, g.input(n, 0)).is_some_and(is_floating) {
        return false;
    }
    true
}

/// Whether `n`'s result may share memory with an input: a chunk, or a schema result with
/// an alias annotation (`to` and `type_as` return `self` when nothing changes).
fn may_return_alias(g: &Graph, n: Node) -> bool {
    g.kind(n) == Symbol::prim("ConstantChunk")
        || resolve_node(g, n).map_or(true, |s| s.returns.iter().any(|r| r.alias.is_some()))
        || g.kind(n) == Symbol::aten("type_as")
}

/// `aten::cat(ListConstruct(tensors...), dim)` with a constant `dim`, the list read by it
/// alone, and parts that agree outside `dim` as far as their types tell: the kernel computes
/// each part (over its own iteration space where their sizes along `dim` differ) and writes it
/// into its slice of the result (so a cat is only ever a group's output, see `can_merge`).
fn is_fusible_cat(g: &Graph, n: Node) -> bool {
    if g.kind(n) != Symbol::aten("cat") || g.node_inputs(n).len() != 2 {
        return false;
    }
    let (list, dim) = (g.input(n, 0), g.input(n, 1));
    let producer = g.producer(list);
    let parts = g.node_inputs(producer);
    let sizes = |v: Value| match g.ty(v) {
        Type::Tensor(t) => t.sizes.clone(),
        _ => None,
    };
    // Parts whose known sizes differ outside `dim` are PyTorch's error, which the
    // interpreter raises.
    let agree = |a: &[Dim], b: &[Dim]| {
        let along = constant_int(g, dim).map(|d| if d < 0 { d + a.len() as i64 } else { d });
        a.len() == b.len()
            && a.iter().zip(b).enumerate().all(|(d, (x, y))| match (x, y) {
                (Dim::Known(x), Dim::Known(y)) => x == y || along == Some(d as i64),
                _ => true,
            })
    };
    let agreeing = parts.windows(2).all(|w| match (sizes(w[0]), sizes(w[1])) {
        (Some(a), Some(b)) => agree(&a, &b),
        _ => true,
    });
    g.kind(producer) == sym::list_construct()
        && !parts.is_empty()
        && agreeing
        && g.uses(list).len() == 1
        && g.kind(g.producer(dim)) == sym::constant()
        && matches!(g.ty(dim), Type::Int)
        && parts
            .iter()
            .chain(g.node_outputs(n))
            .all(|&v| matches!(g.ty(v), Type::Tensor(t) if is_fusible_tensor(t)))
}

/// Reductions over the innermost dimensions, fused unless [`FuseOptions::reductions`] is off (as
/// PyTorch's `texpr_reductions_enabled` is by default), as `name` or `name.overload`.
pub const REDUCTION_OPS: &[&str] = &[
    "sum",
    "sum.dim_IntList",
    "mean",
    "mean.dim",
    "amax",
    "amin",
    "softmax.int",
    "log_softmax.int",
    "layer_norm",
];

/// Whether `n` is a reduction of [`REDUCTION_OPS`] over the innermost dimensions of a
/// fusible tensor (what the kernels compute).
pub fn is_fusible_reduction(g: &Graph, n: Node) -> bool {
    reduction_row_dims(g, n).is_some()
}

/// How many innermost dimensions `n` reduces, when it is a fusible reduction: a constant
/// `dim` (softmax's one dim, or dims; None or `[]` for all), a constant `keepdim`, and no
/// `dtype`; a `layer_norm` over its normalized shape (the sizes known), with a constant `eps`
/// and fusible (or no) weight and bias.
fn reduction_row_dims(g: &Graph, n: Node) -> Option<usize> {
    let kind = g.kind(n);
    if !kind.is_aten() || g.node_outputs(n).len() != 1 || g.node_inputs(n).is_empty() {
        return None;
    }
    let all_fusible = g
        .node_inputs(n)
        .iter()
        .take(1)
        .chain(g.node_outputs(n))
        .all(|&v| matches!(g.ty(v), Type::Tensor(t) if is_fusible_tensor(t)));
    if !all_fusible {
        return None;
    }
    let schema = resolve_node(g, n).ok()?;
    let name = kind.unqualified();
    let full = if schema.overload_name.is_empty() {
        name.to_string()
    } else {
        format!("{name}.{}", schema.overload_name)
    };
    if !REDUCTION_OPS.contains(&full.as_str()) {
        return None;
    }
    let rank = tensor_rank(g, g.input(n, 0))?;
    if name == "layer_norm" {
        return layer_norm_row_dims(g, n);
    }
    let arg = |name: &str| {
        schema
            .arguments
            .iter()
            .position(|a| a.name == name)
            .and_then(|i| g.node_inputs(n).get(i).copied())
    };
    // No dtype conversion on the way.
    if arg("dtype").is_some_and(|v| constant_value(g, v) != Some(ConstValue::None)) {
        return None;
    }
    if arg("keepdim").is_some_and(|v| constant_bool(g, v).is_none()) {
        return None;
    }
    let dims: Vec<i64> = match arg("dim") {
        None => (0..rank).collect(),
        Some(v) if name.ends_with("softmax") => vec![constant_int(g, v)?],
        Some(v) => match constant_int_list(g, v)? {
            None => (0..rank).collect(),
            Some(ds) if ds.is_empty() => (0..rank).collect(),
            Some(ds) => ds,
        },
    };
    innermost_count(&dims, rank as usize)
}

/// `layer_norm(input, normalized_shape, weight, bias, eps, cudnn_enable)` normalizing
/// innermost dimensions of sizes the input's type knows: how many.
fn layer_norm_row_dims(g: &Graph, n: Node) -> Option<usize> {
    let inputs = g.node_inputs(n);
    if inputs.len() != 6 || constant_value(g, inputs[4]).is_none() {
        return None;
    }
    let normalized = constant_int_list(g, inputs[1])??;
    let Type::Tensor(t) = g.ty(inputs[0]) else {
        return None;
    };
    let sizes = t.sizes.as_ref()?;
    let k = normalized.len();
    let trailing = sizes.get(sizes.len().checked_sub(k)?..)?;
    let known = trailing
        .iter()
        .zip(&normalized)
        .all(|(d, &n)| *d == Dim::Known(n));
    let optional_tensor = |v: Value| {
        constant_value(g, v) == Some(ConstValue::None)
            || matches!(g.ty(v), Type::Tensor(t) if is_fusible_tensor(t) && t.sizes.as_ref().is_some_and(|s| s.len() == k))
    };
    (k > 0 && known && optional_tensor(inputs[2]) && optional_tensor(inputs[3])).then_some(k)
}

/// Whether every tensor output of `nodes` has the same known rank.
fn outputs_share_a_rank(g: &Graph, nodes: &[Node]) -> bool {
    let mut ranks = nodes
        .iter()
        .flat_map(|&n| g.node_outputs(n).iter().map(|&v| tensor_rank(g, v)));
    let first = ranks.next().flatten();
    first.is_some() && ranks.all(|r| r == first)
}

fn tensor_rank(g: &Graph, v: Value) -> Option<i64> {
    match g.ty(v) {
        Type::Tensor(t) => t.sizes.as_ref().map(|s| s.len() as i64),
        _ => None,
    }
}

/// A constant int list (`Some(None)` for None): a list constant, or a list construction of
/// int constants.
fn constant_int_list(g: &Graph, v: Value) -> Option<Option<Vec<i64>>> {
    if let Some(c) = constant_value(g, v) {
        return match c {
            ConstValue::None => Some(None),
            ConstValue::List(items) => items
                .iter()
                .map(|i| match i {
                    ConstValue::Int(x) => Some(*x),
                    _ => None,
                })
                .collect::<Option<Vec<_>>>()
                .map(Some),
            _ => None,
        };
    }
    let p = g.producer(v);
    (g.kind(p) == sym::list_construct())
        .then(|| {
            g.node_inputs(p)
                .iter()
                .map(|&i| constant_int(g, i))
                .collect()
        })
        .flatten()
        .map(Some)
}

/// A list construction of constants: copied into a group like a constant.
fn is_constant_list(g: &Graph, v: Value) -> bool {
    let p = g.producer(v);
    g.kind(p) == sym::list_construct()
        && g.node_inputs(p)
            .iter()
            .all(|&i| g.kind(g.producer(i)) == sym::constant())
}

fn is_fusible_tensor(t: &TensorType) -> bool {
    t.dtype.is_some_and(|d| FUSIBLE_DTYPES.contains(&d))
        && t.device.as_ref().is_some_and(|d| d.kind == "cpu")
        && t.sizes.is_some()
        && t.requires_grad == Some(false)
}

fn tensor_dtype(g: &Graph, v: Value) -> Option<ScalarType> {
    match g.ty(v) {
        Type::Tensor(t) => t.dtype,
        _ => None,
    }
}

fn is_floating(d: ScalarType) -> bool {
    matches!(
        d,
        ScalarType::Float | ScalarType::Double | ScalarType::Half | ScalarType::BFloat16
    )
}

fn is_group(g: &Graph, n: Node) -> bool {
    g.kind(n) == sym::tensor_expr_group()
}

/// Whether group `n` holds an `aten::cat` (one of its outputs).
fn has_cat(g: &Graph, n: Node) -> bool {
    match g.attr(n, sym::attr_subgraph()) {
        Some(AttrValue::Graph(body)) => body
            .nodes()
            .into_iter()
            .any(|m| body.kind(m) == Symbol::aten("cat")),
        _ => false,
    }
}

/// Whether `n` (a cat, or a group holding one) is a cat whose parts' types do not fix one
/// size along its dimension: a kernel computes such parts one by one, which a kernel that
/// reduces rows does not, so such a group takes no reductions.
fn holds_cat_of_unequal_parts(g: &Graph, n: Node) -> bool {
    let unequal = |g: &Graph, cat: Node| {
        let parts = g.node_inputs(g.producer(g.input(cat, 0)));
        let along = constant_int(g, g.input(cat, 1));
        let size = |v: Value| match (g.ty(v), along) {
            (Type::Tensor(t), Some(d)) => t.sizes.as_ref().and_then(|s| {
                let d = if d < 0 { d + s.len() as i64 } else { d };
                match s.get(usize::try_from(d).ok()?) {
                    Some(Dim::Known(n)) => Some(*n),
                    _ => None,
                }
            }),
            _ => None,
        };
        let first = parts.first().and_then(|&p| size(p));
        first.is_none() || parts.iter().any(|&p| size(p) != first)
    };
    match g.attr(n, sym::attr_subgraph()) {
        Some(AttrValue::Graph(body)) if is_group(g, n) => body
            .nodes()
            .into_iter()
            .any(|m| body.kind(m) == Symbol::aten("cat") && unequal(body, m)),
        _ => g.kind(n) == Symbol::aten("cat") && unequal(g, n),
    }
}

/// How many innermost dimensions the reductions of `n` (a node, or a group's) reduce, if it
/// has any: a kernel's reductions must agree.
fn row_dims(g: &Graph, n: Node) -> Option<usize> {
    match g.attr(n, sym::attr_subgraph()) {
        Some(AttrValue::Graph(body)) if is_group(g, n) => body
            .nodes()
            .into_iter()
            .find_map(|m| reduction_row_dims(body, m)),
        _ => reduction_row_dims(g, n),
    }
}

/// Settings of the fuser.
#[derive(Clone, Debug)]
pub struct FuseOptions {
    /// Groups with fewer nodes (constants and list constructions not counted) are inlined.
    pub min_group_size: usize,
    /// Whether `prim::ConstantChunk` and `aten::cat` join groups (for kernel compilers that
    /// handle them).
    pub chunk_and_cat: bool,
    /// Whether the reductions of [`REDUCTION_OPS`] over the innermost dimensions join groups.
    pub reductions: bool,
}

impl Default for FuseOptions {
    fn default() -> Self {
        FuseOptions {
            min_group_size: MIN_GROUP_SIZE,
            chunk_and_cat: true,
            reductions: true,
        }
    }
}

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    run_with(g, cx, &FuseOptions::default())
}

/// The pass with settings other than the default ones.
pub fn run_with(
    g: &mut Graph,
    cx: &mut PassContext,
    options: &FuseOptions,
) -> Result<bool, String> {
    check_existing_groups(g)?;
    let mut fuser = Fuser {
        db: AliasDb::new(g),
        chunk_and_cat: options.chunk_and_cat,
        reductions: options.reductions,
        grown: Vec::new(),
    };
    let top = g.block();
    fuser.create_fusion_groups(g, top, cx);
    inline_small_groups(g, top, options.min_group_size, cx);
    for n in g.nodes() {
        if is_group(g, n) {
            tidy_subgraph(g, n)?;
        }
    }
    Ok(fuser.grown.iter().any(|&n| g.is_alive(n)))
}

struct Fuser {
    /// Kept up to date as groups take over the values of the nodes they absorb.
    db: AliasDb,
    chunk_and_cat: bool,
    reductions: bool,
    /// Groups that took in a node: the pass changed the graph if one of them is still there
    /// (groups of one made on the way and inlined again leave the graph as it was).
    grown: Vec<Node>,
}

impl Fuser {
    fn create_fusion_groups(&mut self, g: &mut Graph, block: Block, cx: &mut PassContext) {
        // Until nothing merges, so that a second run finds nothing to do.
        let mut any_changed = true;
        while any_changed {
            any_changed = false;
            let mut cur = g.last_node(block);
            while let Some(n) = cur {
                let (next, changed) = self.scan_node(g, n, cx);
                cur = next;
                any_changed |= changed;
            }
            // Groups have only forward dependences, so each may merge into the next one, when
            // their outputs have one rank: a kernel has one iteration space.
            let groups: Vec<Node> = g.block_nodes(block).filter(|&n| is_group(g, n)).collect();
            if let Some((&first, rest)) = groups.split_first() {
                let mut prev = first;
                for &group in rest {
                    if !outputs_share_a_rank(g, &[prev, group]) {
                        prev = group;
                        continue;
                    }
                    match self.try_merge(g, group, prev, cx) {
                        Some(merged) => {
                            prev = merged;
                            any_changed = true;
                        }
                        None => prev = group,
                    }
                }
            }
        }
        let nested: Vec<Block> = g
            .block_nodes(block)
            .flat_map(|n| g.node_blocks(n).to_vec())
            .collect();
        for b in nested {
            self.create_fusion_groups(g, b, cx);
        }
    }

    /// Grows a group at `n` from its inputs' producers; returns the node to scan next (the
    /// group again after a merge) and whether anything merged.
    fn scan_node(&mut self, g: &mut Graph, n: Node, cx: &mut PassContext) -> (Option<Node>, bool) {
        if !self.can_handle(g, n) {
            if g.kind(n).is_aten() {
                cx.log(LogLevel::Debug, || {
                    format!("not fusible: {}", describe(g, n))
                });
            }
            return (g.prev_node(n), false);
        }
        // Supported, but not worth starting a group from.
        let kind = g.kind(n);
        if kind == Symbol::prim("ConstantChunk")
            || kind == sym::list_construct()
            || kind == sym::constant()
        {
            return (g.prev_node(n), false);
        }
        // Each new group and each merge is one rewrite of the EMBER_OPT_LIMIT budget.
        if !is_group(g, n) && !cx.may_rewrite() {
            return (g.prev_node(n), false);
        }
        let group = self.get_or_create_group(g, n);
        for input in sort_reverse_topological(g, g.node_inputs(group).to_vec(), group) {
            let ValueDef::Output(producer, _) = g.value_def(input) else {
                continue;
            };
            if let Some(merged) = self.try_merge(g, group, producer, cx) {
                return (Some(merged), true);
            }
        }
        (g.prev_node(group), false)
    }

    /// A fused op reads its inputs where the group runs, which the alias-checked moves make
    /// safe, and its result is a new tensor. That is a change for ops whose result may be
    /// (a view of) an input, so those are fused only where nothing writes either.
    fn can_handle(&self, g: &Graph, n: Node) -> bool {
        if is_group(g, n) {
            return true;
        }
        let kind = g.kind(n);
        let boundary = kind == Symbol::prim("ConstantChunk")
            || kind == Symbol::aten("cat")
            || kind == sym::list_construct();
        let fusible = ((self.chunk_and_cat || !boundary) && is_fusible(g, n))
            || (self.reductions && is_fusible_reduction(g, n));
        fusible && !(may_return_alias(g, n) && self.db.node_has_writers(g, n))
    }

    fn get_or_create_group(&mut self, g: &mut Graph, n: Node) -> Node {
        if is_group(g, n) {
            return n;
        }
        let group = g.create(sym::tensor_expr_group(), &[], 0);
        g.set_attr(
            group,
            sym::attr_subgraph(),
            AttrValue::Graph(Box::new(Graph::new())),
        );
        g.insert_before(group, n);
        self.merge_node_into_group(g, n, group);
        group
    }

    /// PyTorch's `canMerge`: whether `producer` may join group `consumer`.
    fn can_merge(&self, g: &mut Graph, consumer: Node, producer: Node) -> bool {
        if g.owning_block(consumer) != g.owning_block(producer) {
            return false;
        }
        if !self.can_handle(g, producer) {
            return false;
        }
        let args = g.node_inputs(consumer).len()
            + g.node_outputs(consumer).len()
            + g.node_inputs(producer).len()
            + g.node_outputs(producer).len();
        if args > SUBGRAPH_ARG_LIMIT {
            return false;
        }
        // A cat joins only the group it starts, as that group's output: kernels write a
        // cat's parts into their slices, and nothing reads the result inside the kernel.
        if g.kind(producer) == Symbol::aten("cat")
            || (is_group(g, producer) && has_cat(g, producer))
        {
            return false;
        }
        if let (Some(a), Some(b)) = (row_dims(g, consumer), row_dims(g, producer)) {
            if a != b {
                return false;
            }
        }
        if row_dims(g, producer).is_some() && holds_cat_of_unequal_parts(g, consumer) {
            return false;
        }
        // A chunk's outputs are views: fuse it only into the group that reads them.
        if g.kind(producer) == Symbol::prim("ConstantChunk")
            && g.uses(g.output(producer, 0))
                .iter()
                .any(|u| u.user != consumer)
        {
            return false;
        }
        self.db
            .could_move_before_topologically(g, producer, consumer)
    }

    /// PyTorch's `tryMerge`: moves `producer` next to `group` and merges it in.
    fn try_merge(
        &mut self,
        g: &mut Graph,
        group: Node,
        producer: Node,
        cx: &mut PassContext,
    ) -> Option<Node> {
        if !self.can_merge(g, group, producer) || !cx.may_rewrite() {
            return None;
        }
        // A cat brings its tensor list along: both move next to the group first.
        let list =
            (g.kind(producer) == Symbol::aten("cat")).then(|| g.producer(g.input(producer, 0)));
        if !self.db.move_before_topologically_valid(g, producer, group) {
            return None;
        }
        if let Some(list) = list {
            if !self.db.move_before_topologically_valid(g, list, producer) {
                return None;
            }
        }
        cx.log(LogLevel::Update, || {
            format!("merged {} into a group", describe(g, producer))
        });
        if is_group(g, producer) {
            self.merge_group(g, producer, group);
        } else {
            self.merge_node_into_group(g, producer, group);
            if let Some(list) = list {
                self.merge_node_into_group(g, list, group);
            }
        }
        self.grown.push(group);
        Some(group)
    }

    /// Merges group `from` (right before `into`) into `into`: its nodes go back into the
    /// block and then, last first, into `into`.
    fn merge_group(&mut self, g: &mut Graph, from: Node, into: Node) {
        let before = g.prev_node(from);
        self.unmerge(g, from);
        let mut cur = g.prev_node(into);
        while cur != before {
            let Some(n) = cur else { break };
            cur = g.prev_node(n);
            self.merge_node_into_group(g, n, into);
        }
    }

    /// Inlines group `group`'s subgraph where it stands, taking over its outputs.
    fn unmerge(&mut self, g: &mut Graph, group: Node) {
        let outputs = unmerge_group(g, group);
        for (old, new) in outputs {
            self.db.value_took_over(old, new);
        }
    }

    /// PyTorch's `mergeNodeIntoSubgraph`: copies `n` (which stands before `group`) to the
    /// start of the subgraph, wires its inputs (constants other than tensors are copied in), makes its results
    /// group outputs where they are used after the group, and removes `n`.
    fn merge_node_into_group(&mut self, g: &mut Graph, n: Node, group: Node) {
        let mut sub = take_subgraph(g, group);
        let mut map: HashMap<Value, Value> = g
            .node_inputs(group)
            .iter()
            .copied()
            .zip(sub.inputs().iter().copied())
            .collect();
        let first = sub.first_node(sub.block());
        let place = |sub: &mut Graph, node: Node| match first {
            Some(f) => sub.insert_before(node, f),
            None => {
                sub.block_append(sub.block(), node);
            }
        };
        for input in g.node_inputs(n).to_vec() {
            if map.contains_key(&input) {
                continue;
            }
            let producer = g.producer(input);
            // Tensor constants (a frozen model's weights) stay outside, as inputs: a kernel
            // reads tensors through its arguments, and its code does not depend on their values.
            let copied = g.kind(producer) == sym::constant()
                && g.node_outputs(producer).len() == 1
                && !matches!(g.ty(input), Type::Tensor(_));
            if copied {
                let mut cmap = HashMap::new();
                let c = sub.clone_node_from(g, producer, &mut cmap);
                place(&mut sub, c);
                map.insert(input, sub.output(c, 0));
            } else if is_constant_list(g, input) {
                // A reduction's dims: the kernel needs them as constants.
                let mut cmap = HashMap::new();
                for &item in g.node_inputs(producer) {
                    let c = sub.clone_node_from(g, g.producer(item), &mut cmap);
                    place(&mut sub, c);
                }
                let list = sub.clone_node_from(g, producer, &mut cmap);
                place(&mut sub, list);
                map.insert(input, sub.output(list, 0));
            } else {
                g.add_node_input(group, input);
                let inner = sub.add_input(g.ty(input).clone());
                if let Some(name) = g.debug_name(input) {
                    sub.set_debug_name(inner, name);
                }
                map.insert(input, inner);
            }
        }
        let merged = sub.clone_node_from(g, n, &mut map);
        place(&mut sub, merged);
        // Results the group took as inputs now come from inside it.
        for i in 0..g.node_outputs(n).len() {
            let out = g.output(n, i);
            if let Some(p) = g.node_inputs(group).iter().position(|&v| v == out) {
                g.remove_node_input(group, p);
                let inner = sub.inputs()[p];
                sub.replace_all_uses_with(inner, sub.output(merged, i));
                sub.erase_input(p);
            }
        }
        for i in 0..g.node_outputs(n).len() {
            let old = g.output(n, i);
            if !g.has_uses(old) {
                continue;
            }
            sub.register_output(sub.output(merged, i));
            let new = g.add_node_output(group, g.ty(old).clone());
            take_name(g, old, new);
            g.replace_all_uses_with(old, new);
            self.db.value_took_over(old, new);
        }
        g.set_attr(group, sym::attr_subgraph(), AttrValue::Graph(Box::new(sub)));
        self.db.forget_writes(n);
        g.destroy(n);
    }
}

/// Groups already in the graph may grow: each must have a subgraph that fits its node.
fn check_existing_groups(g: &Graph) -> Result<(), String> {
    for n in g.nodes() {
        if !is_group(g, n) {
            continue;
        }
        let fits = matches!(g.attr(n, sym::attr_subgraph()), Some(AttrValue::Graph(sub))
            if sub.inputs().len() == g.node_inputs(n).len()
                && sub.outputs().len() == g.node_outputs(n).len());
        if !fits {
            let at = g
                .source_range(n)
                .map(|r| format!("{r}: "))
                .unwrap_or_default();
            return Err(format!(
                "{at}prim::TensorExprGroup needs a Subgraph attribute with as many inputs and outputs as the node"
            ));
        }
    }
    Ok(())
}

/// `kind (file:line:col)` of `n`, for the log.
fn describe(g: &Graph, n: Node) -> String {
    match g.source_range(n) {
        Some(r) => format!("{} ({r})", g.kind(n)),
        None => g.kind(n).to_string(),
    }
}

/// The subgraph of group `n`, taken out of it (put it back with `set_attr`).
fn take_subgraph(g: &mut Graph, n: Node) -> Graph {
    match g.remove_attr(n, sym::attr_subgraph()) {
        Some(AttrValue::Graph(sub)) => *sub,
        _ => Graph::new(),
    }
}

/// Inlines group `group` before itself and removes it; returns each group output with the
/// value that replaced it. Results keep the group outputs' names and the subgraph's constants
/// map to equal constants already visible there, so that a group inlined at the end leaves
/// the graph as it was (a second run then finds the same graph).
fn unmerge_group(g: &mut Graph, group: Node) -> Vec<(Value, Value)> {
    let sub = take_subgraph(g, group);
    let mut map: HashMap<Value, Value> = sub
        .inputs()
        .iter()
        .copied()
        .zip(g.node_inputs(group).iter().copied())
        .collect();
    for n in sub.block_nodes(sub.block()).collect::<Vec<_>>() {
        if sub.kind(n) == sym::constant() {
            if let Some(existing) = visible_equal_constant(g, &sub, n, group) {
                map.insert(sub.output(n, 0), existing);
                continue;
            }
        }
        let c = g.clone_node_from(&sub, n, &mut map);
        g.insert_before(c, group);
    }
    let outputs = g.node_outputs(group).to_vec();
    let results: Vec<Value> = sub.outputs().iter().map(|v| map[v]).collect();
    let mut pairs = Vec::with_capacity(outputs.len());
    for (&old, &new) in outputs.iter().zip(&results) {
        g.set_ty(new, g.ty(old).clone());
        g.replace_all_uses_with(old, new);
        take_name(g, old, new);
        pairs.push((old, new));
    }
    g.destroy(group);
    pairs
}

/// An outer constant equal to constant `c` of `sub` (same attributes and type) that is
/// defined before `at` in a block enclosing it.
fn visible_equal_constant(g: &Graph, sub: &Graph, c: Node, at: Node) -> Option<Value> {
    let (attrs, ty) = (sub.attrs(c), sub.ty(sub.output(c, 0)));
    let mut block = g.owning_block(at);
    let mut before = at;
    while let Some(b) = block {
        let mut cur = g.prev_node(before);
        while let Some(n) = cur {
            if g.kind(n) == sym::constant()
                && g.node_outputs(n).len() == 1
                && g.attrs(n) == attrs
                && g.ty(g.output(n, 0)) == ty
            {
                return Some(g.output(n, 0));
            }
            cur = g.prev_node(n);
        }
        before = g.owning_node(b)?;
        block = g.owning_block(before);
    }
    None
}

/// Gives `to` the printed name of `from` (its debug name or number), which `from` loses:
/// `to` stands for `from` from now on.
fn take_name(g: &mut Graph, from: Value, to: Value) {
    let name = g.debug_name(from).map(str::to_string);
    let unique = g.unique(from);
    g.set_debug_name(from, "");
    g.set_unique(to, unique);
    g.set_debug_name(to, name.as_deref().unwrap_or(""));
}

/// The values of `inputs` made by nodes in the block of `at`, latest producer first.
fn sort_reverse_topological(g: &Graph, mut inputs: Vec<Value>, at: Node) -> Vec<Value> {
    let block = g.owning_block(at);
    let position: HashMap<Node, usize> = match block {
        Some(b) => g.block_nodes(b).enumerate().map(|(i, n)| (n, i)).collect(),
        None => HashMap::new(),
    };
    inputs.retain(|&v| position.contains_key(&g.producer(v)));
    inputs.sort_by_key(|&v| std::cmp::Reverse(position[&g.producer(v)]));
    inputs
}

/// Nodes of a group that count toward the minimum group size.
fn group_size(sub: &Graph) -> usize {
    sub.block_nodes(sub.block())
        .filter(|&n| {
            let k = sub.kind(n);
            k != sym::constant() && k != sym::list_construct()
        })
        .count()
}

/// Inlines groups too small to be worth a kernel (PyTorch's `inlineSmallFusionGroups`).
fn inline_small_groups(g: &mut Graph, block: Block, min_size: usize, cx: &mut PassContext) {
    let nodes: Vec<Node> = g.block_nodes(block).collect();
    for n in nodes {
        for b in g.node_blocks(n).to_vec() {
            inline_small_groups(g, b, min_size, cx);
        }
        if !is_group(g, n) {
            continue;
        }
        let small = matches!(
            g.attr(n, sym::attr_subgraph()),
            Some(AttrValue::Graph(sub)) if group_size(sub) < min_size
        );
        if small {
            cx.log(LogLevel::Update, || {
                "inlined a group smaller than the minimum size".into()
            });
            unmerge_group(g, n);
        }
    }
}

/// Merges the duplicate constants merging left in a group's subgraph and drops dead ones.
fn tidy_subgraph(g: &mut Graph, n: Node) -> Result<(), String> {
    let mut sub = take_subgraph(g, n);
    let result = constant_pooling::run(&mut sub, &mut PassContext::unlimited("constant-pooling"))
        .and_then(|_| dce::run(&mut sub, &mut PassContext::unlimited("dce")));
    g.set_attr(n, sym::attr_subgraph(), AttrValue::Graph(Box::new(sub)));
    result.map(|_| ())
}

#[cfg(test)]
#[path = "fuse_tensor_exprs_tests.rs"]
mod tests;
