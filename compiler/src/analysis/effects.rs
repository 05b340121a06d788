//! What a node may do besides computing its outputs: side effects, writes to memory it does not
//! own, non-determinism, and whether its outputs can alias its inputs. The passes ask these
//! questions before they remove, merge or move a node.
//!
//! PyTorch answers them with operator schemas and alias analysis (`Node::hasSideEffects`,
//! `Node::isNondeterministic`, `AliasDb::writesToWildcard`). Ember asks the operator catalogue
//! for `aten` ops (the overload the node resolves to: a `(a!)` argument writes, a result without
//! an alias annotation is fresh) and falls back on explicit, conservative rules for what the
//! catalogue does not know: what they do not know to be harmless is treated as effectful.
//!
//! - Side effects: PyTorch's list (`prim::Print`, `prim::RaiseException`, `prim::SetAttr`,
//!   `aten::warn`, calls, …), ops that set global state (`aten::_set_grad_enabled`,
//!   `aten::manual_seed`), `aten` ops that return nothing, every node that may write, every op
//!   outside the `aten` and `prim` namespaces, every `prim` op not in [`KNOWN_PURE_PRIMS`], and
//!   every node whose blocks or subgraph hold such a node.
//! - Writes: `aten` ops whose resolved schema writes an argument (`add_`, `append`, `out=`
//!   overloads); without a schema, `aten` ops named in-place (`add_`, `__iadd__`) or that mutate
//!   lists and dicts (`aten::append`, `aten::_set_item`, …); calls and unknown ops.
//! - Fresh outputs: `aten` ops whose resolved schema annotates no result; without a schema, the
//!   ops in [`FRESH_RESULT_ATEN`]. Everything else may return an alias of an input.

use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::catalogue::resolve_node;
use ember_dialects::schema::FunctionSchema;
use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Node, Symbol, Type, Value};

/// `prim` ops that PyTorch gives no side effects and that write nothing. Control-flow and
/// subgraph nodes are here; their contents are checked separately.
pub const KNOWN_PURE_PRIMS: &[&str] = &[
    "Constant",
    "TupleConstruct",
    "TupleUnpack",
    "TupleIndex",
    "TupleSlice",
    "ListConstruct",
    "ListUnpack",
    "DictConstruct",
    "DictIndex",
    "GetAttr",
    "Uninitialized",
    "If",
    "Loop",
    "With",
    "NumToTensor",
    "ImplicitTensorToNum",
    "device",
    "dtype",
    "layout",
    "shape",
    "data",
    "requires_grad",
    "is_cuda",
    "is_cpu",
    "is_xpu",
    "is_mps",
    "is_sparse",
    "is_mkldnn",
    "is_quantized",
    "is_meta",
    "is_nested",
    "is_vulkan",
    "is_ipu",
    "is_xla",
    "is_lazy",
    "is_hpu",
    "is_maia",
    "is_mtia",
    "is_sparse_csr",
    "type",
    "grad",
    "itemsize",
    "nbytes",
    "name",
    "unchecked_cast",
    "unchecked_unwrap_optional",
    "isinstance",
    "min",
    "max",
    "abs",
    "rangelist",
    "StringIndex",
    "id",
    "tolist",
    "EnumName",
    "EnumValue",
    "CreateObject",
    "Closure",
    "AutogradZero",
    "AutogradAdd",
    "AutogradAnyNonZero",
    "AutogradAllZero",
    "AutogradAllNonZero",
    "BroadcastSizes",
    "ConstantChunk",
    "BroadcastingChunk",
    "VarConcat",
    "VarStack",
    "ModuleContainerIndex",
    "MMTreeReduce",
    "MMBatchSide",
    "FusionGroup",
    "TensorExprGroup",
    "CudaFusionGroup",
    "DifferentiableGraph",
    "TensorExprDynamicGroup",
    "oneDNNFusionGroup",
    "oneDNNFusionGuard",
    "TensorExprDynamicGuard",
    "IfThenElse",
    "ConstantMKLDNNTensor",
    "TypeCheck",
    "RequiresGradCheck",
];

/// Ops with side effects whatever their inputs (PyTorch's `Node::hasSideEffects` list).
const EFFECTFUL: &[&str] = &[
    "prim::PythonOp",
    "prim::IgnoredPythonOp",
    "prim::Print",
    "prim::RaiseException",
    "prim::SetAttr",
    "aten::warn",
    "aten::save",
    "aten::manual_seed",
    "prim::AddStatValue",
    "prim::TimePoint",
    "prim::CallFunction",
    "prim::CallMethod",
    "prim::BailoutTemplate",
    "prim::profile",
    "prim::profile_ivalue",
    "prim::BailOut",
    "prim::Guard",
    "prim::rpc_async",
    "prim::rpc_sync",
    "prim::rpc_remote",
    "aten::wait",
    "prim::Enter",
    "prim::Exit",
    "prim::fork",
    // Ops that change or check global state, which PyTorch registers as conservative.
    "aten::_set_grad_enabled",
    "aten::set_num_threads",
    "aten::set_num_interop_threads",
    "aten::seed",
    "aten::set_rng_state",
    "aten::_assert_async",
    "aten::_assert_scalar",
    "aten::_assert_tensor_metadata",
    "aten::_print",
    "aten::record_stream",
    "aten::sym_constrain_range",
    "aten::sym_constrain_range_for_size",
    "aten::_record_function_enter",
    "aten::_record_function_enter_new",
    "aten::_record_function_exit",
];

/// `aten` ops whose result depends on global state that other ops change: two calls may differ.
const READS_GLOBAL_STATE: &[&str] = &[
    "is_grad_enabled",
    "initial_seed",
    "get_num_threads",
    "get_num_interop_threads",
    "get_rng_state",
];

/// `aten` ops that mutate a list, dict or tensor argument though their name has no trailing `_`.
const MUTATING_ATEN: &[&str] = &[
    "append",
    "extend",
    "insert",
    "pop",
    "popitem",
    "remove",
    "clear",
    "setdefault",
    "update",
    "Delete",
    "_set_item",
    "reverse",
    "backward",
];

/// In-place dunder methods (`x += y` on tensors and lists).
const INPLACE_DUNDERS: &[&str] = &[
    "__iadd__",
    "__isub__",
    "__imul__",
    "__idiv__",
    "__itruediv__",
    "__ifloordiv__",
    "__imod__",
    "__ipow__",
    "__iand__",
    "__ior__",
    "__ixor__",
    "__ilshift__",
    "__irshift__",
];

/// `aten` ops whose results PyTorch documents as random (`SchemaInfo::is_nondeterministic`).
const NONDETERMINISTIC_ATEN: &[&str] = &[
    "bernoulli",
    "multinomial",
    "native_dropout",
    "normal",
    "poisson",
    "binomial",
    "rrelu",
    "rrelu_with_noise",
    "_fused_dropout",
    "_standard_gamma",
    "_sample_dirichlet",
    "uniform",
    "exponential",
    "cauchy",
    "geometric",
    "log_normal",
    "random",
];

/// Dropout variants: random only when `train` (input 2) is not the constant `False`.
const DROPOUTS: &[&str] = &[
    "dropout",
    "feature_dropout",
    "alpha_dropout",
    "feature_alpha_dropout",
];

/// `aten` ops that allocate a new tensor from nothing or copy one (`zeros`, `clone`): their
/// results are fresh mutable memory, and two calls are two buffers, so CSE keeps them apart.
const FRESH_ALLOCATIONS: &[&str] = &[
    "zeros",
    "ones",
    "empty",
    "full",
    "zeros_like",
    "ones_like",
    "empty_like",
    "full_like",
    "new_zeros",
    "new_ones",
    "new_empty",
    "new_full",
    "tensor",
    "as_tensor",
    "scalar_tensor",
    "arange",
    "range",
    "linspace",
    "logspace",
    "eye",
    "empty_strided",
    "new_empty_strided",
    "clone",
    "from_numpy",
];

/// `aten` ops whose tensor results never alias their inputs (they compute new values). Used to
/// stop the search for values that may reach the graph outputs; every other op may alias.
pub const FRESH_RESULT_ATEN: &[&str] = &[
    "add",
    "sub",
    "mul",
    "div",
    "rsub",
    "neg",
    "abs",
    "pow",
    "exp",
    "log",
    "log2",
    "log10",
    "log1p",
    "expm1",
    "sqrt",
    "rsqrt",
    "sin",
    "cos",
    "tan",
    "tanh",
    "sigmoid",
    "relu",
    "gelu",
    "silu",
    "elu",
    "leaky_relu",
    "hardtanh",
    "softplus",
    "erf",
    "floor",
    "ceil",
    "round",
    "trunc",
    "sign",
    "reciprocal",
    "clamp",
    "clamp_min",
    "clamp_max",
    "minimum",
    "maximum",
    "remainder",
    "fmod",
    "floor_divide",
    "eq",
    "ne",
    "lt",
    "le",
    "gt",
    "ge",
    "logical_and",
    "logical_or",
    "logical_not",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bitwise_not",
    "where",
    "matmul",
    "mm",
    "bmm",
    "addmm",
    "linear",
    "conv1d",
    "conv2d",
    "conv3d",
    "_convolution",
    "batch_norm",
    "layer_norm",
    "group_norm",
    "softmax",
    "log_softmax",
    "sum",
    "mean",
    "prod",
    "amax",
    "amin",
    "var",
    "std",
    "norm",
    "cat",
    "stack",
    "max_pool2d",
    "avg_pool2d",
    "adaptive_avg_pool2d",
    "embedding",
    "cumsum",
    "lerp",
    "addcmul",
    "addcdiv",
    "masked_fill",
    "index_select",
    "gather",
    "sum_to_size",
    "type_as",
    "mv",
    "dot",
    "outer",
];

fn name_in(kind: Symbol, list: &[&str]) -> bool {
    list.contains(&kind.as_str())
}

fn aten_name_in(kind: Symbol, list: &[&str]) -> bool {
    kind.is_aten() && list.contains(&kind.unqualified())
}

/// Whether the op is one Ember knows: an `aten` op, or a `prim` op known to be pure or effectful.
pub fn is_known_op(kind: Symbol) -> bool {
    kind.is_aten()
        || (kind.is_prim()
            && (KNOWN_PURE_PRIMS.contains(&kind.unqualified()) || name_in(kind, EFFECTFUL)))
}

/// Whether an `aten` op's name says it works in place: `add_`, `__iadd__` (not `__and__`).
fn is_inplace_name(name: &str) -> bool {
    if name.starts_with("__") {
        return INPLACE_DUNDERS.contains(&name);
    }
    name.ends_with('_')
}

/// Whether `n` may write to memory it does not own: an input, something reachable from one, or
/// state outside the graph. Unknown ops and calls may write.
pub fn may_write(g: &Graph, n: Node) -> bool {
    writes_itself(g, n) || nested_nodes_any(g, n, &mut |g, m| may_write(g, m))
}

/// Whether `n` itself (not the nodes in its blocks or subgraph) may write.
pub fn writes_itself(g: &Graph, n: Node) -> bool {
    let kind = g.kind(n);
    if kind.is_aten() {
        match schema_of(g, n) {
            Some(schema) => schema.is_mutable(),
            None => {
                let name = kind.unqualified();
                is_inplace_name(name)
                    || MUTATING_ATEN.contains(&name)
                    || (name == "sort"
                        && g.node_inputs(n).first().is_some_and(|&v| is_list(g.ty(v))))
            }
        }
    } else {
        !is_known_op(kind)
            || matches!(
                kind.as_str(),
                "prim::SetAttr"
                    | "prim::CallFunction"
                    | "prim::CallMethod"
                    | "prim::PythonOp"
                    | "prim::IgnoredPythonOp"
                    | "prim::Enter"
                    | "prim::Exit"
                    | "prim::fork"
                    | "prim::rpc_async"
                    | "prim::rpc_sync"
                    | "prim::rpc_remote"
            )
    }
}

/// The catalogue overload `n` resolves to, for `aten` ops.
fn schema_of(g: &Graph, n: Node) -> Option<&'static FunctionSchema> {
    if !g.kind(n).is_aten() {
        return None;
    }
    resolve_node(g, n).ok()
}

fn is_list(ty: &Type) -> bool {
    matches!(ty, Type::List(_) | Type::AnyList)
}

/// Whether `n` must be kept even when its outputs are unused (PyTorch's `hasSideEffects` plus
/// `hasUntrackedMutation` without alias analysis, plus conservatism for unknown ops).
pub fn has_side_effects(g: &Graph, n: Node) -> bool {
    own_side_effects(g, n)
        || g.node_blocks(n)
            .iter()
            .any(|&b| g.block_nodes(b).any(|m| has_side_effects(g, m)))
}

/// [`has_side_effects`] for `n` itself and the subgraph it runs, not the nodes of its blocks
/// (for callers that memoize the walk over blocks).
pub fn own_side_effects(g: &Graph, n: Node) -> bool {
    let kind = g.kind(n);
    // An op that returns nothing is only called for what it does.
    let returns_nothing = kind.is_aten() && g.node_outputs(n).is_empty();
    let subgraph = match g.attr(n, sym::attr_subgraph()) {
        Some(AttrValue::Graph(sub)) if kind != sym::constant() => Some(sub),
        _ => None,
    };
    name_in(kind, EFFECTFUL)
        || returns_nothing
        || !is_known_op(kind)
        || writes_itself(g, n)
        || subgraph.is_some_and(|sub| {
            sub.block_nodes(sub.block())
                .any(|m| has_side_effects(sub, m))
        })
}

/// Whether any node in `n`'s blocks, or in the graph its `Subgraph` attribute runs, satisfies
/// `pred` (nested nodes are checked by `pred` itself, which recurses). A constant's graph (the
/// body of a known function) does not run where the constant is.
fn nested_nodes_any(g: &Graph, n: Node, pred: &mut dyn FnMut(&Graph, Node) -> bool) -> bool {
    for &b in g.node_blocks(n) {
        for m in g.block_nodes(b) {
            if pred(g, m) {
                return true;
            }
        }
    }
    if g.kind(n) == sym::constant() {
        return false;
    }
    if let Some(AttrValue::Graph(sub)) = g.attr(n, sym::attr_subgraph()) {
        for m in sub.block_nodes(sub.block()) {
            if pred(sub, m) {
                return true;
            }
        }
    }
    false
}

/// Whether running `n` twice may give different results (random ops; dropout unless `train` is
/// the constant `False`; reads of global state such as `aten::is_grad_enabled`).
pub fn is_nondeterministic(g: &Graph, n: Node) -> bool {
    let kind = g.kind(n);
    if !kind.is_aten() {
        return false;
    }
    let name = kind.unqualified();
    if DROPOUTS.contains(&name) {
        let train = g.node_inputs(n).get(2).and_then(|&v| constant_bool(g, v));
        return train != Some(false);
    }
    name.starts_with("rand")
        || NONDETERMINISTIC_ATEN.contains(&name)
        || READS_GLOBAL_STATE.contains(&name)
}

/// Whether `n` allocates a fresh tensor from nothing or copies one (`aten::zeros`, `clone`).
pub fn is_fresh_allocation(g: &Graph, n: Node) -> bool {
    aten_name_in(g.kind(n), FRESH_ALLOCATIONS)
}

/// Whether `n`'s results are known never to alias its inputs.
pub fn returns_fresh(g: &Graph, n: Node) -> bool {
    let kind = g.kind(n);
    if kind == sym::constant() {
        return true;
    }
    if let Some(schema) = schema_of(g, n) {
        return schema.returns.iter().all(|r| r.alias.is_none());
    }
    aten_name_in(kind, FRESH_RESULT_ATEN) || aten_name_in(kind, FRESH_ALLOCATIONS)
}

/// Whether values of `ty` can never be changed in place: numbers, strings, None, devices and
/// tuples or optionals of those. Tensors, lists, dicts, objects and `Any` are mutable.
pub fn is_immutable_type(ty: &Type) -> bool {
    match ty {
        Type::Int
        | Type::Float
        | Type::Complex
        | Type::Bool
        | Type::Str
        | Type::None
        | Type::Number
        | Type::Device
        | Type::Layout
        | Type::ScalarType
        | Type::MemoryFormat
        | Type::QScheme
        | Type::SymInt
        | Type::SymFloat
        | Type::SymBool
        | Type::Enum(_)
        | Type::Function(_) => true,
        Type::Tuple(t) => t.elements.iter().all(is_immutable_type),
        Type::Optional(e) => is_immutable_type(e),
        Type::Union(ts) => ts.iter().all(is_immutable_type),
        _ => false,
    }
}

/// The value of `v` if it is a `prim::Constant` bool (stored as `value=1`/`0` or an IValue).
pub fn constant_bool(g: &Graph, v: Value) -> Option<bool> {
    match constant_attr(g, v)? {
        AttrValue::Int(i) => Some(*i != 0),
        AttrValue::IValue(ConstValue::Bool(b)) => Some(*b),
        AttrValue::IValue(ConstValue::Int(i)) => Some(*i != 0),
        _ => None,
    }
}

/// The value of `v` if it is a `prim::Constant` int.
pub fn constant_int(g: &Graph, v: Value) -> Option<i64> {
    if !matches!(g.ty(v), Type::Int) {
        return None;
    }
    match constant_attr(g, v)? {
        AttrValue::Int(i) => Some(*i),
        AttrValue::IValue(ConstValue::Int(i)) => Some(*i),
        _ => None,
    }
}

fn constant_attr(g: &Graph, v: Value) -> Option<&AttrValue> {
    let p = g.producer(v);
    if g.kind(p) != sym::constant() {
        return None;
    }
    g.attr(p, sym::attr_value())
}

/// Whether some node in the whole graph (at any depth) may write: then mutable values cannot be
/// assumed unchanged between two reads.
pub fn graph_has_writers(g: &Graph) -> bool {
    any_writer(g, |_| true)
}

/// Whether some node of the graph (at any depth, subgraphs included) of a kind that
/// `kind_filter` accepts may write. Each node is looked at once.
pub fn any_writer(g: &Graph, kind_filter: impl Fn(Symbol) -> bool + Copy) -> bool {
    g.nodes().into_iter().any(|n| {
        let subgraph = match g.attr(n, sym::attr_subgraph()) {
            Some(AttrValue::Graph(sub)) if g.kind(n) != sym::constant() => Some(sub),
            _ => None,
        };
        (kind_filter(g.kind(n)) && writes_itself(g, n))
            || subgraph.is_some_and(|sub| any_writer(sub, kind_filter))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(g: &mut Graph, kind: &str, inputs: &[Value]) -> Node {
        g.create_and_insert(Symbol::new(kind), inputs, 1)
    }

    #[test]
    fn classifies_ops() {
        let mut g = Graph::new();
        let x = g.add_input(Type::tensor());
        let l = g.add_input(Type::list(Type::tensor()));
        let cases: &[(&str, Vec<Value>, bool, bool)] = &[
            // kind, inputs, side effects, writes
            ("aten::add", vec![x, x], false, false),
            ("aten::add_", vec![x, x], true, true),
            ("aten::__iand__", vec![x, x], true, true),
            ("aten::__and__", vec![x, x], false, false),
            ("aten::__is__", vec![x, x], false, false),
            ("aten::append", vec![l, x], true, true),
            ("aten::sort", vec![l], true, true),
            ("aten::sort", vec![x], false, false),
            ("aten::warn", vec![], true, false),
            ("aten::_set_grad_enabled", vec![], true, false),
            ("prim::Print", vec![x], true, false),
            ("prim::RaiseException", vec![], true, false),
            ("prim::SetAttr", vec![x, x], true, true),
            ("prim::ListConstruct", vec![x], false, false),
            ("prim::SomethingNew", vec![x], true, true),
            ("mylib::op", vec![x], true, true),
        ];
        for (kind, inputs, effects, writes) in cases {
            let n = node(&mut g, kind, inputs);
            assert_eq!(has_side_effects(&g, n), *effects, "side effects of {kind}");
            assert_eq!(may_write(&g, n), *writes, "writes of {kind}");
        }
    }

    #[test]
    fn aten_ops_that_return_nothing_have_effects() {
        let mut g = Graph::new();
        let x = g.add_input(Type::tensor());
        let void = g.create_and_insert(Symbol::aten("_foreach_zero"), &[x], 0);
        assert!(has_side_effects(&g, void));
        let grad = node(&mut g, "aten::is_grad_enabled", &[]);
        assert!(is_nondeterministic(&g, grad) && !has_side_effects(&g, grad));
    }

    #[test]
    fn the_catalogue_tells_out_variants_and_views() {
        let mut g = Graph::new();
        let x = g.add_input(Type::tensor());
        let y = g.add_input(Type::tensor());
        let out = g.add_input(Type::tensor());
        let alpha = g.add_input(Type::Int);
        let pure = node(&mut g, "aten::add", &[x, y, alpha]);
        let into = node(&mut g, "aten::add", &[x, y, alpha, out]);
        let neg1 = g.add_input(Type::Int);
        let view = node(&mut g, "aten::flatten", &[x, alpha, neg1]);
        assert!(!may_write(&g, pure) && returns_fresh(&g, pure));
        assert!(may_write(&g, into) && has_side_effects(&g, into));
        assert!(!returns_fresh(&g, into));
        assert!(!may_write(&g, view) && !returns_fresh(&g, view));
    }

    #[test]
    fn nondeterminism_follows_train_flag() {
        let mut g = Graph::new();
        let x = g.add_input(Type::tensor());
        let p = g.add_input(Type::Float);
        let f = g.create_and_insert(sym::constant(), &[], 1);
        g.set_ty(g.output(f, 0), Type::Bool);
        g.set_attr(f, sym::attr_value(), AttrValue::Int(0));
        let off = g.output(f, 0);
        let train = g.add_input(Type::Bool);
        let eval_dropout = node(&mut g, "aten::dropout", &[x, p, off]);
        let train_dropout = node(&mut g, "aten::dropout", &[x, p, train]);
        let rand = node(&mut g, "aten::rand_like", &[x]);
        let add = node(&mut g, "aten::add", &[x, x]);
        assert!(!is_nondeterministic(&g, eval_dropout));
        assert!(is_nondeterministic(&g, train_dropout));
        assert!(is_nondeterministic(&g, rand));
        assert!(!is_nondeterministic(&g, add));
    }

    #[test]
    fn effects_inside_blocks_count() {
        let mut g = Graph::new();
        let c = g.add_input(Type::Bool);
        let x = g.add_input(Type::tensor());
        let if_node = g.create_and_insert(sym::if_(), &[c], 0);
        let then_b = g.add_block(if_node);
        g.add_block(if_node);
        assert!(!has_side_effects(&g, if_node));
        let p = g.create(Symbol::prim("Print"), &[x], 0);
        g.block_append(then_b, p);
        assert!(has_side_effects(&g, if_node));
        assert!(!may_write(&g, if_node));
    }

    #[test]
    fn subgraphs_count_but_function_bodies_do_not() {
        let mut body = Graph::new();
        let a = body.add_input(Type::tensor());
        body.create_and_insert(Symbol::prim("Print"), &[a], 0);
        let mut g = Graph::new();
        let x = g.add_input(Type::tensor());
        let group = g.create_and_insert(sym::differentiable_graph(), &[x], 0);
        g.set_attr(
            group,
            sym::attr_subgraph(),
            AttrValue::Graph(Box::new(body.clone())),
        );
        let f = g.create_and_insert(sym::constant(), &[], 1);
        g.set_attr(f, sym::attr_subgraph(), AttrValue::Graph(Box::new(body)));
        assert!(has_side_effects(&g, group));
        assert!(!has_side_effects(&g, f));
    }

    #[test]
    fn immutable_types() {
        assert!(is_immutable_type(&Type::tuple(vec![
            Type::Int,
            Type::optional(Type::Str)
        ])));
        assert!(!is_immutable_type(&Type::tuple(vec![
            Type::Int,
            Type::tensor()
        ])));
        assert!(!is_immutable_type(&Type::list(Type::Int)));
        assert!(!is_immutable_type(&Type::Any));
    }
}
