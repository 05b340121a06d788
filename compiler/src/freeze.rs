//! Freezing a module method for inference, as `torch.jit.freeze` does
//! (`passes/freeze_module.cpp`): the method's graph with the module's submodule calls inlined,
//! and its parameters, buffers and attributes that are never written folded in as constants;
//! then the optimization pipeline and the inference rewrites run on the result.
//!
//! 1. Objects: `self` is the module; `GetAttr` of an object-valued attribute of a known object
//!    that no `SetAttr` rebinds is that object. `prim::CallMethod` on a known object is
//!    replaced by the method's graph; function calls are inlined too. Repeated until no call
//!    on a known object is left (TorchScript has no recursion; a bound stops hostile input).
//! 2. Attributes: a `GetAttr` of a known object becomes a constant holding the attribute's
//!    value unless the method rebinds it (`SetAttr`) or writes to it in place (alias analysis
//!    in frozen mode, where each attribute is its own memory). Written attributes stay reads
//!    of the module, as PyTorch keeps them.
//! 3. The optimization pipeline, with tensor constant folding of any size (weights are
//!    constants now), and the inference rewrites ([`INFERENCE_PASSES`]).
//!
//! The frozen graph keeps its `self` input, so it is called like the method.

use std::sync::Arc;

use hashbrown::{HashMap, HashSet};

use ember_dialects::attr::AttrValue;
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Symbol, Value};
use ember_runtime::ivalue::{IValue, Object};

use crate::analysis::alias::AliasDb;
use crate::fold::tensor::const_of_ivalue;
use crate::fold::{constant_type, insert_constant_before};
use crate::model::Model;
use crate::passes::{lookup, PassConfig, PassContext, OPTIMIZATION_PIPELINE};

/// Frozen graphs fold tensor ops on weights up to this many elements (a bound against hostile
/// archives; real weights are far smaller).
const FROZEN_TENSOR_LIMIT: usize = 1 << 27;

/// Inlining rounds before freezing gives up (nested submodule calls need one round per level).
const MAX_INLINE_ROUNDS: usize = 256;

/// The rewrites that only hold for inference on a frozen graph, run after the pipeline.
pub const INFERENCE_PASSES: &[&str] = &["remove-dropout"];

/// What freezing did.
#[derive(Debug, Default)]
pub struct FreezeReport {
    /// Attributes folded into constants.
    pub folded: usize,
    /// Attributes the method writes, kept as reads of the module (`module.attr`).
    pub written: Vec<String>,
}

/// Whether method `method` of an archive's module writes any attribute (rebinds it or writes
/// it in place, directly or in a submodule): such methods are not frozen by default.
pub fn writes_attributes(model: &Model, method: &str) -> Result<bool, String> {
    let (_, report) = freeze_graph(model, method, &PassConfig::default())?;
    Ok(!report.written.is_empty())
}

/// Freezes method `method` of the model's module in place: the model's entry runs the frozen
/// graph from now on.
pub fn freeze(
    model: &mut Model,
    method: &str,
    config: &PassConfig,
) -> Result<FreezeReport, String> {
    let (graph, report) = freeze_graph(model, method, config)?;
    let entry = model
        .entries
        .iter_mut()
        .find(|e| e.name == method)
        .ok_or_else(|| format!("{}: no method '{method}'", model.name))?;
    entry.function = Arc::new(ember_runtime::unit::Function::new(
        entry.function.qualname.clone(),
        graph,
    ));
    Ok(report)
}

/// The frozen graph of `method` and what freezing did.
pub fn freeze_graph(
    model: &Model,
    method: &str,
    config: &PassConfig,
) -> Result<(Graph, FreezeReport), String> {
    let module = model
        .module
        .clone()
        .ok_or_else(|| format!("{}: only a module (.pt) can be frozen", model.name))?;
    let entry = model.entry(Some(method))?;
    let mut g = entry.graph().clone();
    let this = *g
        .inputs()
        .first()
        .ok_or_else(|| format!("{}: method '{method}' has no self", model.name))?;
    inline_calls(&mut g, this, &module, config)?;
    // Writes in code that folding removes (batch norm's `if self.training:` update of its
    // counter, with `training` now the constant False) stop counting: fold again after the
    // pipeline until the written attributes are the ones the frozen graph really writes.
    let mut report = fold_attributes(&mut g, this, &module);
    run_pipeline(&mut g, config)?;
    for _ in 0..MAX_INLINE_ROUNDS {
        let again = fold_attributes(&mut g, this, &module);
        let settled = again.written == report.written && again.folded == 0;
        report.folded += again.folded;
        report.written = again.written;
        if settled {
            break;
        }
        run_pipeline(&mut g, config)?;
    }
    ember_dialects::verify::verify(&g).map_err(|e| {
        format!(
            "{}: frozen graph does not verify: {}",
            model.name, e[0].message
        )
    })?;
    Ok((g, report))
}

/// The objects that values of `g` are known to hold: `self`, and attributes of known objects
/// that hold objects and that nothing rebinds.
fn known_objects(g: &Graph, this: Value, module: &Arc<Object>) -> HashMap<Value, Arc<Object>> {
    let rebound = rebound_attributes(g);
    let mut known = HashMap::new();
    known.insert(this, module.clone());
    fn walk(
        g: &Graph,
        b: Block,
        known: &mut HashMap<Value, Arc<Object>>,
        rebound: &HashSet<String>,
    ) {
        for n in g.block_nodes(b) {
            if g.kind(n) == sym::get_attr() {
                if let (Some(obj), Some(name)) = (
                    g.node_inputs(n).first().and_then(|v| known.get(v)).cloned(),
                    attr_name(g, n),
                ) {
                    if let (Some(IValue::Object(inner)), false) =
                        (obj.attr(&name), rebound.contains(&name))
                    {
                        known.insert(g.output(n, 0), inner);
                    }
                }
            }
            for &sub in g.node_blocks(n) {
                walk(g, sub, known, rebound);
            }
        }
    }
    walk(g, g.block(), &mut known, &rebound);
    known
}

/// Names of attributes some `SetAttr` of the graph rebinds (by name: which object it stores
/// to may not be known).
fn rebound_attributes(g: &Graph) -> HashSet<String> {
    g.nodes()
        .into_iter()
        .filter(|&n| g.kind(n) == sym::set_attr())
        .filter_map(|n| attr_name(g, n))
        .collect()
}

fn attr_name(g: &Graph, n: Node) -> Option<String> {
    match g.attr(n, Symbol::attr("name")) {
        Some(AttrValue::Str(s)) => Some(s.clone()),
        _ => None,
    }
}

/// Inlines method calls on known objects and function calls until none is left.
fn inline_calls(
    g: &mut Graph,
    this: Value,
    module: &Arc<Object>,
    config: &PassConfig,
) -> Result<(), String> {
    for _ in 0..MAX_INLINE_ROUNDS {
        let inline = lookup("inline").expect("the inline pass");
        (inline.run)(g, &mut config.context_for(inline.name))?;
        let known = known_objects(g, this, module);
        let calls: Vec<(Node, Arc<Object>)> = g
            .nodes()
            .into_iter()
            .filter(|&n| g.kind(n) == sym::call_method())
            .filter_map(|n| Some((n, known.get(g.node_inputs(n).first()?)?.clone())))
            .collect();
        let mut any = false;
        for (call, obj) in calls {
            any |= inline_method(g, call, &obj);
        }
        if !any {
            return Ok(());
        }
    }
    Err(format!(
        "method calls nest deeper than {MAX_INLINE_ROUNDS} levels"
    ))
}

/// Replaces `prim::CallMethod[name=m](%obj, args…)` by the graph of `obj`'s method `m`.
fn inline_method(g: &mut Graph, call: Node, obj: &Arc<Object>) -> bool {
    let Some(name) = attr_name(g, call) else {
        return false;
    };
    let Some(callee) = obj.class.method(&name) else {
        return false;
    };
    let inputs = g.node_inputs(call).to_vec();
    if callee.graph.inputs().len() != inputs.len()
        || callee.graph.outputs().len() != g.node_outputs(call).len()
    {
        return false;
    }
    g.set_insert_point(call);
    let results = g.insert_graph(&callee.graph, &inputs);
    for (i, r) in results.into_iter().enumerate() {
        let out = g.output(call, i);
        g.replace_all_uses_with(out, r);
    }
    g.destroy(call);
    g.set_insert_point_to_end(g.block());
    true
}

/// Turns reads of attributes of known objects into constants where the method never writes
/// them.
fn fold_attributes(g: &mut Graph, this: Value, module: &Arc<Object>) -> FreezeReport {
    let known = known_objects(g, this, module);
    let rebound = rebound_attributes(g);
    let db = AliasDb::frozen(g);
    let mut report = FreezeReport::default();
    let mut written: HashSet<String> = HashSet::new();
    for n in g.nodes() {
        if g.kind(n) != sym::get_attr() {
            continue;
        }
        let Some(name) = attr_name(g, n) else {
            continue;
        };
        let Some(obj) = g.node_inputs(n).first().and_then(|v| known.get(v)).cloned() else {
            continue;
        };
        let Some(value) = obj.attr(&name) else {
            continue;
        };
        if matches!(value, IValue::Object(_)) {
            continue;
        }
        let out = g.output(n, 0);
        if rebound.contains(&name) || db.has_writers(out) {
            written.insert(format!("{}.{name}", obj.class_name()));
            continue;
        }
        let Some(c) = const_of_ivalue(&value) else {
            continue;
        };
        let like = g.ty(out).clone();
        // A constant's type is its value's; a None attribute keeps the declared optional.
        if constant_type(&c, &like).is_none() {
            continue;
        }
        let Some(new) = insert_constant_before(g, n, &c, &like) else {
            continue;
        };
        g.replace_all_uses_with(out, new);
        report.folded += 1;
    }
    report.written = written.into_iter().collect();
    report.written.sort();
    report
}

/// The optimization pipeline with tensor folding of any size, then the inference rewrites and
/// a last cleanup.
fn run_pipeline(g: &mut Graph, config: &PassConfig) -> Result<(), String> {
    let names = OPTIMIZATION_PIPELINE
        .iter()
        .chain(INFERENCE_PASSES)
        .chain(&["constant-propagation", "cse", "dce"]);
    for &name in names {
        let mut cx: PassContext = config.context_for(lookup(name).expect("a pass").name);
        if name == "constant-propagation" {
            crate::passes::constant_propagation::run_with_tensor_limit(
                g,
                &mut cx,
                FROZEN_TENSOR_LIMIT,
            )?;
        } else {
            (lookup(name).expect("a pass").run)(g, &mut cx)?;
        }
    }
    Ok(())
}
