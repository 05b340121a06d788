//! `constant-propagation`: folds nodes whose inputs are all constants, after PyTorch's
//! `torch/csrc/jit/passes/constant_propagation.cpp`. Scalar, string, list and tuple ops are
//! evaluated by [`crate::fold::eval`]; tensor ops on constant tensors run in the runtime
//! ([`crate::fold::tensor`]) when their result is small (any size in frozen graphs, whose
//! weights are constants); `prim::If` on a constant condition is replaced by the taken block,
//! a `prim::Loop` that never runs by its initial values, and outputs of `If`s and loops that
//! never change are removed. `x is None` and `isinstance` are also settled from static types
//! where the type alone decides (PyTorch's peephole does that part).
//!
//! Never folded: ops with side effects, random ops, ops that may raise (division by zero
//! stays, to raise at run time), and values that anything may write or that a caller
//! receives (a mutable constant is one object shared by every run).

use ember_dialects::attr::{AttrValue, ConstValue};
use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, Symbol, Type, Value};

use crate::analysis::alias::{self, is_mutable_type, AliasDb};
use crate::fold::tensor::{const_of_ivalue, constant_ivalue, fold_tensor_op};
use crate::fold::{constant_value, eval, identical, insert_constant_before, type_facts};
use crate::passes::{LogLevel, PassContext};
use ember_runtime::ivalue::IValue;

/// Tensor results up to this many elements are folded into constants: a small result costs
/// nothing to keep. Frozen graphs fold weights of any size ([`run_with_tensor_limit`]).
pub const TENSOR_LIMIT: usize = 4096;

pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    run_with_tensor_limit(g, cx, TENSOR_LIMIT)
}

/// The pass, folding tensor results of up to `tensor_limit` elements (0: none).
pub fn run_with_tensor_limit(
    g: &mut Graph,
    cx: &mut PassContext,
    tensor_limit: usize,
) -> Result<bool, String> {
    // Folding enables more folding: a mutation removed as dead at the end of one sweep frees
    // its list to fold in the next. Sweep until nothing changes, so the pass is idempotent;
    // the graph only shrinks, and the cap guards against any rule that would oscillate.
    const MAX_SWEEPS: usize = 16;
    let mut changed = false;
    for _ in 0..MAX_SWEEPS {
        if !sweep(g, cx, tensor_limit) {
            break;
        }
        changed = true;
    }
    Ok(changed)
}

/// One pass over the graph; whether it changed anything.
fn sweep(g: &mut Graph, cx: &mut PassContext, tensor_limit: usize) -> bool {
    let db = AliasDb::new(g);
    let mut p = Propagator {
        cx,
        db: &db,
        tensor_limit,
        changed: false,
        maybe_dead: Vec::new(),
    };
    p.block(g, g.block());
    p.remove_dead(g);
    p.changed
}

struct Propagator<'a> {
    cx: &'a mut PassContext,
    /// The graph's aliasing as the sweep began (values made since count as written).
    db: &'a AliasDb,
    tensor_limit: usize,
    changed: bool,
    /// Folded nodes and the constants they read, removed at the end once unused.
    maybe_dead: Vec<Node>,
}

impl Propagator<'_> {
    fn block(&mut self, g: &mut Graph, b: Block) {
        let mut next = g.block_nodes(b).next();
        while let Some(n) = next {
            // Read ahead: `n` may be destroyed, and an inlined block lands before it.
            next = g.next_node(n);
            self.node(g, n);
        }
    }

    fn node(&mut self, g: &mut Graph, n: Node) {
        let kind = g.kind(n);
        if kind == sym::if_() {
            match g.node_inputs(n).first().and_then(|&c| constant_value(g, c)) {
                Some(ConstValue::Bool(cond)) => self.inline_if(g, n, cond),
                _ => {
                    self.blocks(g, n);
                    self.remove_extra_if_outputs(g, n);
                }
            }
        } else if kind == sym::loop_() {
            if loop_will_not_run(g, n) {
                self.remove_loop(g, n);
            } else {
                self.blocks(g, n);
                self.remove_extra_loop_outputs(g, n);
            }
        } else if kind == sym::constant() || !g.node_blocks(n).is_empty() {
            self.blocks(g, n);
        } else {
            self.fold(g, n);
        }
    }

    fn blocks(&mut self, g: &mut Graph, n: Node) {
        for b in g.node_blocks(n).to_vec() {
            self.block(g, b);
        }
    }

    /// Replaces the outputs of `n` by constants when they are known.
    fn fold(&mut self, g: &mut Graph, n: Node) {
        let Some(results) = self.evaluate(g, n) else {
            return;
        };
        if !self.cx.may_rewrite() {
            return;
        }
        for (i, c) in results.iter().enumerate() {
            let out = g.output(n, i);
            let like = g.ty(out).clone();
            let Some(new) = insert_constant_before(g, n, c, &like) else {
                continue;
            };
            self.cx.log(LogLevel::Update, || {
                format!(
                    "folding %{} = {}(..) to {}",
                    g.value_name(out),
                    g.kind(n),
                    show(c)
                )
            });
            g.replace_all_uses_with(out, new);
            self.changed = true;
        }
        self.mark_dead(g, n);
    }

    /// The values of `n`'s outputs, when they can be known now.
    fn evaluate(&self, g: &Graph, n: Node) -> Option<Vec<ConstValue>> {
        let kind = g.kind(n);
        let inputs = g.node_inputs(n);
        let outputs = g.node_outputs(n);
        let consts: Vec<Option<ConstValue>> =
            inputs.iter().map(|&v| constant_value(g, v)).collect();

        if kind == Symbol::aten("__is__") || kind == Symbol::aten("__isnot__") {
            return settle_is_none(g, n, &consts).map(|b| vec![ConstValue::Bool(b)]);
        }
        if kind == Symbol::prim("isinstance") {
            return settle_isinstance(g, n, &consts).map(|b| vec![ConstValue::Bool(b)]);
        }
        if touches_tensors(g, n) {
            return self.evaluate_tensor_op(g, n);
        }
        let consts: Vec<ConstValue> = consts.into_iter().collect::<Option<_>>()?;
        // A list folded into a constant is shared by every run: only if nothing writes it and
        // no caller receives it.
        let escapes = outputs
            .iter()
            .any(|&v| is_mutable_type(g.ty(v)) && self.db.escapes_scope(g, &[v]));
        if self.db.node_has_writers(g, n) || escapes {
            self.cx.log(LogLevel::Debug, || {
                format!("not folding {}: a list it touches may be written", kind)
            });
            return None;
        }
        let types: Vec<Type> = outputs.iter().map(|&v| g.ty(v).clone()).collect();
        let results = eval(kind, &consts, &types);
        if results.is_none() && !outputs.is_empty() {
            self.cx.log(LogLevel::Debug, || {
                let args: Vec<String> = consts.iter().map(show).collect();
                format!("leaving {}({}) to run time", kind, args.join(", "))
            });
        }
        results
    }

    /// A tensor op whose inputs are all constants, run by the runtime: only when it is
    /// deterministic, has no side effects, writes nothing, and its result is within the size
    /// limit.
    fn evaluate_tensor_op(&self, g: &Graph, n: Node) -> Option<Vec<ConstValue>> {
        if self.tensor_limit == 0
            || alias::has_side_effects(g, n)
            || alias::is_nondeterministic(g, n)
            || self.db.node_has_writers(g, n)
        {
            return None;
        }
        let inputs: Vec<IValue> = g
            .node_inputs(n)
            .iter()
            .map(|&v| constant_ivalue(g, v))
            .collect::<Option<_>>()?;
        let results = fold_tensor_op(g, n, &inputs, self.tensor_limit)?;
        results.iter().map(const_of_ivalue).collect()
    }

    /// `prim::If` on a constant: the taken block's nodes move before the `If`, which goes.
    fn inline_if(&mut self, g: &mut Graph, n: Node, cond: bool) {
        if !self.cx.may_rewrite() {
            self.blocks(g, n);
            return;
        }
        self.cx.log(LogLevel::Update, || {
            format!("folding prim::If where condition = {cond}")
        });
        let taken = g.node_blocks(n)[if cond { 0 } else { 1 }];
        self.block(g, taken);
        for m in g.block_nodes(taken).collect::<Vec<_>>() {
            g.move_before(m, n);
        }
        let outs: Vec<Value> = g.node_outputs(n).to_vec();
        let results: Vec<Value> = g.block_outputs(taken).to_vec();
        for (o, r) in outs.into_iter().zip(results) {
            if o != r {
                g.replace_all_uses_with(o, r);
            }
        }
        let cond_value = g.input(n, 0);
        self.maybe_dead.push(g.producer(cond_value));
        g.destroy(n);
        self.changed = true;
    }

    /// Drops `If` outputs that are the same in both blocks (PyTorch's `removeExtraIfOutputs`).
    fn remove_extra_if_outputs(&mut self, g: &mut Graph, n: Node) {
        let [then_b, else_b] = g.node_blocks(n)[..] else {
            return;
        };
        let mut i = 0;
        while i < g.node_outputs(n).len() {
            let (t, f) = (g.block_outputs(then_b)[i], g.block_outputs(else_b)[i]);
            let replacement = if t == f {
                Some(t)
            } else {
                match (constant_value(g, t), constant_value(g, f)) {
                    (Some(a), Some(b)) if identical(&a, &b) && g.ty(t) == g.ty(f) => {
                        if self.cx.may_rewrite() {
                            let like = g.ty(t).clone();
                            insert_constant_before(g, n, &a, &like)
                        } else {
                            None
                        }
                    }
                    _ => None,
                }
            };
            let Some(r) = replacement else {
                i += 1;
                continue;
            };
            if t == f && !self.cx.may_rewrite() {
                i += 1;
                continue;
            }
            self.cx.log(LogLevel::Update, || {
                format!("prim::If output {i} is %{} in both blocks", g.value_name(r))
            });
            let out = g.output(n, i);
            g.replace_all_uses_with(out, r);
            g.erase_node_output(n, i);
            g.block_erase_output(then_b, i);
            g.block_erase_output(else_b, i);
            self.maybe_dead.extend([g.producer(t), g.producer(f)]);
            self.changed = true;
        }
    }

    /// A loop that never runs is its initial values.
    fn remove_loop(&mut self, g: &mut Graph, n: Node) {
        if !self.cx.may_rewrite() {
            return;
        }
        self.cx.log(LogLevel::Update, || {
            "removing a prim::Loop that never runs".to_string()
        });
        let outs: Vec<Value> = g.node_outputs(n).to_vec();
        for (i, o) in outs.into_iter().enumerate() {
            let init = g.input(n, i + 2);
            g.replace_all_uses_with(o, init);
        }
        self.maybe_dead.extend(
            g.node_inputs(n)
                .iter()
                .map(|&v| g.producer(v))
                .collect::<Vec<_>>(),
        );
        g.destroy(n);
        self.changed = true;
    }

    /// Drops loop-carried values the body passes through unchanged.
    fn remove_extra_loop_outputs(&mut self, g: &mut Graph, n: Node) {
        let Some(&body) = g.node_blocks(n).first() else {
            return;
        };
        for i in (0..g.node_outputs(n).len()).rev() {
            let carried_in = g.block_inputs(body)[i + 1];
            if carried_in != g.block_outputs(body)[i + 1] || !self.cx.may_rewrite() {
                continue;
            }
            self.cx.log(LogLevel::Update, || {
                format!(
                    "prim::Loop carries %{} through unchanged",
                    g.value_name(carried_in)
                )
            });
            let init = g.input(n, i + 2);
            let out = g.output(n, i);
            g.replace_all_uses_with(out, init);
            g.replace_all_uses_with(carried_in, init);
            g.erase_node_output(n, i);
            g.remove_node_input(n, i + 2);
            g.block_erase_output(body, i + 1);
            g.block_erase_input(body, i + 1);
            self.changed = true;
        }
    }

    fn mark_dead(&mut self, g: &Graph, n: Node) {
        self.maybe_dead.push(n);
        self.maybe_dead
            .extend(g.node_inputs(n).iter().map(|&v| g.producer(v)));
    }

    /// Removes the folded nodes and the constants they read once nothing uses them. Only
    /// nodes this pass folded or constants are removed; DCE handles the rest.
    fn remove_dead(&mut self, g: &mut Graph) {
        for n in std::mem::take(&mut self.maybe_dead) {
            if g.is_alive(n)
                && g.owning_block(n).is_some()
                && !g.is_block_boundary(n)
                && g.node_outputs(n).iter().all(|&o| !g.has_uses(o))
            {
                g.destroy(n);
            }
        }
    }
}

/// A loop whose trip count is a constant `<= 0` or whose start condition is a constant false.
fn loop_will_not_run(g: &Graph, n: Node) -> bool {
    let inputs = g.node_inputs(n);
    if inputs.len() < 2 {
        return false;
    }
    let trips = match constant_value(g, inputs[0]) {
        Some(ConstValue::Int(t)) => t,
        _ => 1,
    };
    let cond = !matches!(constant_value(g, inputs[1]), Some(ConstValue::Bool(false)));
    !(cond && trips > 0)
}

/// `a is b` / `a is not b` when one side is None and the other is a constant or has a type
/// that settles it.
fn settle_is_none(g: &Graph, n: Node, consts: &[Option<ConstValue>]) -> Option<bool> {
    let [a, b] = g.node_inputs(n)[..] else {
        return None;
    };
    let is_none = |v: Value, c: &Option<ConstValue>| -> Option<bool> {
        match c {
            Some(ConstValue::None) => Some(true),
            Some(_) => Some(false),
            None if matches!(g.ty(v), Type::None) => Some(true),
            None if type_facts::must_not_be_none(g.ty(v)) => Some(false),
            None => None,
        }
    };
    let (a_none, b_none) = (is_none(a, &consts[0]), is_none(b, &consts[1]));
    let same = match (a_none, b_none) {
        (Some(true), Some(true)) => true,
        (Some(true), Some(false)) | (Some(false), Some(true)) => false,
        _ => return None,
    };
    Some(same == (g.kind(n) == Symbol::aten("__is__")))
}

/// `prim::isinstance[types=[...]](x)` from `x`'s constant value or static type.
fn settle_isinstance(g: &Graph, n: Node, consts: &[Option<ConstValue>]) -> Option<bool> {
    let Some(AttrValue::Types(candidates)) = g.attr(n, Symbol::attr("types")) else {
        return None;
    };
    let [x] = g.node_inputs(n)[..] else {
        return None;
    };
    let actual = match &consts[0] {
        Some(c) => crate::fold::constant_type(c, g.ty(x))?,
        None => g.ty(x).clone(),
    };
    let actual = match (&consts[0], actual) {
        (Some(ConstValue::None), _) => Type::None,
        (_, t) => t,
    };
    type_facts::isinstance(&actual, candidates)
}

/// A constant as a log line shows it.
fn show(c: &ConstValue) -> String {
    match c {
        ConstValue::None => "None".to_string(),
        ConstValue::Bool(b) => if *b { "True" } else { "False" }.to_string(),
        ConstValue::Int(i) => i.to_string(),
        ConstValue::Float(f) => format!("{f:?}"),
        ConstValue::Str(s) => format!("{s:?}"),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests;

/// Whether `n` takes or makes a tensor (or an optional, list or tuple of tensors).
fn touches_tensors(g: &Graph, n: Node) -> bool {
    fn has_tensor(t: &Type) -> bool {
        match t {
            Type::Tensor(_) => true,
            Type::Optional(e) | Type::List(e) => has_tensor(e),
            Type::Tuple(t) => t.elements.iter().any(has_tensor),
            _ => false,
        }
    }
    g.node_inputs(n)
        .iter()
        .chain(g.node_outputs(n))
        .any(|&v| has_tensor(g.ty(v)))
}
