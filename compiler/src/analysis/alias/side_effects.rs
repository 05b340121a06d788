//! What a node does besides computing its outputs and writing memory (the writes are the
//! alias analysis' business): side effects, and whether two runs may give different results.
//!
//! PyTorch's `Node::hasSideEffects` lists the kinds with side effects; every other operator
//! has none, writes included (dead code elimination keeps a write through alias analysis when
//! it writes to something still used). Ember adds ops that change or check global state, which
//! PyTorch registers as conservative, and treats an operator it does not know (no schema in
//! the catalogue and not a known `prim`) as effectful: what is not known to be harmless is
//! kept.

use ember_dialects::attr::AttrValue;
use ember_dialects::catalogue::catalogue;
use ember_dialects::symbol::sym;
use ember_dialects::{Graph, Node, Symbol};

use crate::fold::constant_bool;

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

fn name_in(kind: Symbol, list: &[&str]) -> bool {
    list.contains(&kind.as_str())
}

/// Whether the op is one Ember knows: an op with a schema in the catalogue, or a `prim` op
/// known to be pure or effectful.
pub fn is_known_op(kind: Symbol) -> bool {
    (kind.is_prim() && KNOWN_PURE_PRIMS.contains(&kind.unqualified()))
        || name_in(kind, EFFECTFUL)
        || catalogue().has_schemas(kind)
}

/// Whether `n` must be kept even when nothing uses its outputs or what it writes: PyTorch's
/// `hasSideEffects`, for `n` and every node of its blocks and of the subgraph it runs.
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
        || subgraph.is_some_and(|sub| {
            sub.block_nodes(sub.block())
                .any(|m| has_side_effects(sub, m))
        })
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

#[cfg(test)]
mod tests {
    use super::*;
    use ember_dialects::Type;

    fn node(g: &mut Graph, kind: &str, inputs: &[ember_dialects::Value]) -> Node {
        g.create_and_insert(Symbol::new(kind), inputs, 1)
    }

    #[test]
    fn classifies_ops() {
        let mut g = Graph::new();
        let x = g.add_input(Type::tensor());
        let l = g.add_input(Type::list(Type::tensor()));
        // Writes are not side effects: alias analysis tracks them.
        let cases: &[(&str, Vec<ember_dialects::Value>, bool)] = &[
            ("aten::add", vec![x, x], false),
            ("aten::add_", vec![x, x], false),
            ("aten::append", vec![l, x], false),
            ("aten::warn", vec![], true),
            ("aten::_set_grad_enabled", vec![], true),
            ("prim::Print", vec![x], true),
            ("prim::RaiseException", vec![], true),
            ("prim::SetAttr", vec![x, x], true),
            ("prim::CallFunction", vec![x], true),
            ("prim::ListConstruct", vec![x], false),
            ("prim::SomethingNew", vec![x], true),
            ("mylib::op", vec![x], true),
        ];
        for (kind, inputs, effects) in cases {
            let n = node(&mut g, kind, inputs);
            assert_eq!(has_side_effects(&g, n), *effects, "side effects of {kind}");
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
}
