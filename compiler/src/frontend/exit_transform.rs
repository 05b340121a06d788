//! `exit-transform`: removes `prim::LoopContinuation` and `prim::ReturnStmt` nodes, after
//! PyTorch's `torch/csrc/jit/frontend/exit_transforms.cpp` (`TransformExits`).
//!
//! A `prim::LoopContinuation(%cond, %carried..)` targets the innermost loop body: its inputs
//! become the body's outputs. A `prim::ReturnStmt(%v..)` targets the graph (or closure) block:
//! its inputs become the block's outputs. Once an exit is hit nothing else runs until its
//! target: the rest of the block is dropped when the exit is certain, and put in the else
//! branch of an If on a "has exited" flag when it is not; Ifs and Loops gain outputs for the
//! flag and the exit values, and a loop stops early once the flag is set. A block that always
//! throws (`prim::RaiseException`) counts as neither exiting nor not, so an If whose other
//! branch exits is treated as exiting. Values that are never read after an exit are
//! `prim::Uninitialized` (one per type, at the top of the graph).
//!
//! PyTorch shares one `prim::Uninitialized` per type *object*; Ember shares one per equal
//! type, so where PyTorch holds two equal but separately built types (e.g. two `List[int]`)
//! it may show two placeholders where Ember shows one.
//!
//! Afterwards, pairs of Ifs where the second branches on a flag the first set to different
//! constants are merged (`if x: return 1` / `return 2` becomes one If), and `prim::Enter` ..
//! `prim::Exit` pairs, wrapped in `prim::With` during the transform, are flattened again.

use hashbrown::HashMap;

use ember_dialects::symbol::sym;
use ember_dialects::types::unify_types_ext;
use ember_dialects::{Block, Graph, Node, Symbol, Type, Value};

use super::convert_to_ssa::{bool_constant_before, front, kind, sub_block, SsaError};
use crate::fold::constant_bool;
use crate::passes::PassContext;

/// PyTorch's `TransformExits`: loop continuations first, then returns.
pub fn transform_exits(g: &mut Graph) -> Result<(), SsaError> {
    convert_enter_exit_to_with(g)?;
    ExitTransformer::new(g, kind::loop_continuation()).transform(g, g.block())?;
    ExitTransformer::new(g, kind::return_stmt()).transform(g, g.block())?;
    inline_consecutive_ifs_in(g, g.block());
    convert_with_to_enter_exit(g);
    Ok(())
}

/// The `exit-transform` pass of `ember-opt`.
pub fn run(g: &mut Graph, _cx: &mut PassContext) -> Result<bool, String> {
    if !super::convert_to_ssa::has_any_kind(g, &["prim::ReturnStmt", "prim::LoopContinuation"]) {
        return Ok(false);
    }
    transform_exits(g).map_err(|e| e.to_string())?;
    Ok(true)
}

/// Whether a block (or the nodes so far) exits: `Will` for certain, `Wont`, `Might`, or
/// `Throws` when it always raises.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum ExitStatus {
    Will,
    Might,
    Wont,
    Throws,
}

/// Whether the exit was hit (`true_val`: yes, `false_val`: no, `throws_val`: the block threw,
/// anything else: decided at run time) and the values taken to the exit's target.
#[derive(Clone, Debug)]
struct ExitPair {
    has_exited: Value,
    exit_values: Vec<Value>,
}

struct ExitTransformer {
    /// `prim::LoopContinuation` or `prim::ReturnStmt`.
    exit_kind: Symbol,
    true_val: Value,
    false_val: Value,
    throws_val: Value,
    /// One `prim::Uninitialized` per type, shared.
    unit_values: HashMap<Type, Value>,
    /// The block the exits being transformed go to.
    target_block: Option<Block>,
}

impl ExitTransformer {
    fn new(g: &mut Graph, exit_kind: Symbol) -> ExitTransformer {
        let at = front(g, g.block());
        let true_val = bool_constant_before(g, at, true);
        let false_val = bool_constant_before(g, at, false);
        let mut t = ExitTransformer {
            exit_kind,
            true_val,
            false_val,
            throws_val: true_val,
            unit_values: HashMap::new(),
            target_block: None,
        };
        // Never read: a block that throws does not get past its raise.
        t.throws_val = t.unit_value(g, Type::Bool);
        t
    }

    fn throws(&self) -> ExitPair {
        ExitPair {
            has_exited: self.throws_val,
            exit_values: Vec::new(),
        }
    }

    fn wont(&self) -> ExitPair {
        ExitPair {
            has_exited: self.false_val,
            exit_values: Vec::new(),
        }
    }

    fn will(&self, values: Vec<Value>) -> ExitPair {
        ExitPair {
            has_exited: self.true_val,
            exit_values: values,
        }
    }

    fn status(&self, p: &ExitPair) -> ExitStatus {
        if p.has_exited == self.true_val {
            ExitStatus::Will
        } else if p.has_exited == self.false_val {
            ExitStatus::Wont
        } else if p.has_exited == self.throws_val {
            ExitStatus::Throws
        } else {
            ExitStatus::Might
        }
    }

    /// The shared `prim::Uninitialized` of type `ty`, made at the top of the graph.
    fn unit_value(&mut self, g: &mut Graph, ty: Type) -> Value {
        if let Some(&v) = self.unit_values.get(&ty) {
            return v;
        }
        let n = g.create(sym::uninitialized(), &[], 1);
        let v = g.output(n, 0);
        g.set_ty(v, ty.clone());
        let param = g.param_node(g.block());
        g.insert_after(n, param);
        self.unit_values.insert(ty, v);
        v
    }

    fn match_with_uninitialized(&mut self, g: &mut Graph, values: &[Value]) -> Vec<Value> {
        values
            .iter()
            .map(|&v| {
                let ty = g.ty(v).clone();
                self.unit_value(g, ty)
            })
            .collect()
    }

    fn is_target_kind(g: &Graph, b: Block, k: Symbol) -> bool {
        g.owning_node(b).is_some_and(|n| g.kind(n) == k)
    }

    fn update_target_block(&mut self, g: &Graph, b: Block) {
        let graph_or_closure =
            g.owning_node(b).is_none() || Self::is_target_kind(g, b, kind::closure());
        if (Self::is_target_kind(g, b, sym::loop_()) && self.exit_kind == kind::loop_continuation())
            || (graph_or_closure && self.exit_kind == kind::return_stmt())
        {
            self.target_block = Some(b);
        }
    }

    fn transform(&mut self, g: &mut Graph, b: Block) -> Result<ExitPair, SsaError> {
        let prev_target = self.target_block;
        self.update_target_block(g, b);
        let mut exit_pair = self.wont();
        let mut cur = g.first_node(b);
        while let Some(n) = cur {
            let next = g.next_node(n);
            let k = g.kind(n);
            if k == sym::raise_exception() {
                exit_pair = self.throws();
            } else if k == kind::return_stmt() || k == kind::loop_continuation() {
                if k == self.exit_kind {
                    exit_pair = self.will(g.node_inputs(n).to_vec());
                    g.destroy(n);
                }
            } else if k == sym::if_() {
                exit_pair = self.transform_if(g, n)?;
            } else if k == sym::with() {
                let body = sub_block(g, n, 0, 2)?;
                exit_pair = self.transform(g, body)?;
            } else if k == kind::closure() {
                // Exits in a closure stay in it.
                let body = sub_block(g, n, 0, 1)?;
                self.transform(g, body)?;
            } else if k == sym::loop_() {
                exit_pair = self.transform_loop(g, n)?;
            }
            // After a certain exit nothing runs; after a possible one the rest is guarded.
            match self.status(&exit_pair) {
                ExitStatus::Will | ExitStatus::Throws => {
                    self.delete_after_exit_nodes(g, next);
                    break;
                }
                ExitStatus::Might => {
                    if let Some(rest) = next {
                        exit_pair = self.guard_block_nodes(g, b, &exit_pair, rest)?;
                    }
                    break;
                }
                ExitStatus::Wont => {}
            }
            cur = next;
        }
        // At the exit's target, the exit values become the block's outputs; the exit goes no
        // further (a throw does not leave a loop that may not run, nor a closure definition).
        if self.target_block == Some(b) {
            match self.status(&exit_pair) {
                ExitStatus::Might => {
                    if exit_pair.exit_values.len() != g.block_outputs(b).len() {
                        return Err(self.arity_error(g, b, exit_pair.exit_values.len()));
                    }
                    let new_if = g.create(sym::if_(), &[exit_pair.has_exited], 0);
                    g.insert_before(new_if, g.return_node(b));
                    g.add_block(new_if);
                    g.add_block(new_if);
                    let outs = g.block_outputs(b).to_vec();
                    self.add_if_outputs(g, new_if, &exit_pair.exit_values, &outs);
                    let new_outs = g.node_outputs(new_if).to_vec();
                    replace_block_outputs(g, b, &new_outs);
                }
                ExitStatus::Will => {
                    if exit_pair.exit_values.len() != g.block_outputs(b).len() {
                        return Err(self.arity_error(g, b, exit_pair.exit_values.len()));
                    }
                    replace_block_outputs(g, b, &exit_pair.exit_values)
                }
                _ => {}
            }
            exit_pair = self.wont();
        }
        self.target_block = prev_target;
        Ok(exit_pair)
    }

    /// An exit carrying a different number of values than its target block returns.
    fn arity_error(&self, g: &Graph, b: Block, carried: usize) -> SsaError {
        let message = format!(
            "{} carries {carried} value(s) but its target block returns {}",
            self.exit_kind,
            g.block_outputs(b).len()
        );
        match g.owning_node(b) {
            Some(owner) => SsaError::at(g, owner, message),
            None => SsaError {
                message,
                range: None,
                used_at: None,
            },
        }
    }

    fn transform_if(&mut self, g: &mut Graph, n: Node) -> Result<ExitPair, SsaError> {
        let then_block = sub_block(g, n, 0, 2)?;
        let else_block = sub_block(g, n, 1, 2)?;
        let mut then_pair = self.transform(g, then_block)?;
        let mut else_pair = self.transform(g, else_block)?;
        let then_status = self.status(&then_pair);
        let else_status = self.status(&else_pair);
        let if_status = if_exit_status(then_status, else_status);
        match if_status {
            ExitStatus::Throws => return Ok(self.throws()),
            ExitStatus::Wont => return Ok(self.wont()),
            _ => {}
        }
        // The branch that does not exit never has its exit values read.
        let quiet = |s| s == ExitStatus::Wont || s == ExitStatus::Throws;
        if quiet(then_status) {
            then_pair.exit_values = self.match_with_uninitialized(g, &else_pair.exit_values);
        } else if quiet(else_status) {
            else_pair.exit_values = self.match_with_uninitialized(g, &then_pair.exit_values);
        }
        if then_pair.exit_values.len() != else_pair.exit_values.len() {
            return Err(SsaError::at(
                g,
                n,
                "the exits in the branches of this prim::If carry different numbers of values",
            ));
        }
        let has_exited = if if_status == ExitStatus::Will {
            // Keeps the invariant: `true_val` means exited for certain.
            self.true_val
        } else {
            self.add_if_outputs(g, n, &[then_pair.has_exited], &[else_pair.has_exited]);
            *g.node_outputs(n).last().expect("just added")
        };
        self.add_if_outputs(g, n, &then_pair.exit_values, &else_pair.exit_values);
        let outs = g.node_outputs(n);
        let exit_values = outs[outs.len() - then_pair.exit_values.len()..].to_vec();
        Ok(ExitPair {
            has_exited,
            exit_values,
        })
    }

    fn transform_loop(&mut self, g: &mut Graph, n: Node) -> Result<ExitPair, SsaError> {
        let body = sub_block(g, n, 0, 1)?;
        let exit_pair = self.transform(g, body)?;
        // A loop may run zero times, so a throw inside does not make it throw.
        if matches!(
            self.status(&exit_pair),
            ExitStatus::Wont | ExitStatus::Throws
        ) {
            return Ok(self.wont());
        }
        // Stop the loop once exited: the continue condition becomes
        // `false if has_exited else <the old condition>`.
        let Some(&next_cond) = g.block_outputs(body).first() else {
            return Err(SsaError::at(
                g,
                n,
                "a prim::Loop body must return its condition",
            ));
        };
        let new_if = g.create(sym::if_(), &[exit_pair.has_exited], 0);
        g.block_append(body, new_if);
        let exited = g.add_block(new_if);
        g.block_register_output(exited, self.false_val);
        let not_exited = g.add_block(new_if);
        g.block_register_output(not_exited, next_cond);
        let new_cond = g.add_node_output(new_if, Type::Bool);
        g.block_erase_output(body, 0);
        g.block_insert_output(body, 0, new_cond);
        // Carry the flag (false when the loop does not run) and the exit values out.
        g.add_node_input(n, self.false_val);
        g.block_add_input(body, Type::Bool);
        g.block_register_output(body, exit_pair.has_exited);
        let new_has_exited = g.add_node_output(n, Type::Bool);
        for &v in &exit_pair.exit_values {
            let ty = g.ty(v).clone();
            let unit = self.unit_value(g, ty.clone());
            g.add_node_input(n, unit);
            g.add_node_output(n, ty.clone());
            g.block_add_input(body, ty);
            g.block_register_output(body, v);
        }
        let outs = g.node_outputs(n);
        let exit_values = outs[outs.len() - exit_pair.exit_values.len()..].to_vec();
        Ok(ExitPair {
            has_exited: new_has_exited,
            exit_values,
        })
    }

    /// Adds outputs to If `n` returning `then_outs` and `else_outs`, typed by unifying each
    /// pair (a union when nothing narrower fits).
    fn add_if_outputs(&self, g: &mut Graph, n: Node, then_outs: &[Value], else_outs: &[Value]) {
        let then_block = g.node_blocks(n)[0];
        let else_block = g.node_blocks(n)[1];
        for &v in then_outs {
            g.block_register_output(then_block, v);
        }
        for &v in else_outs {
            g.block_register_output(else_block, v);
        }
        for (&t, &e) in then_outs.iter().zip(else_outs) {
            let (tt, et) = (g.ty(t).clone(), g.ty(e).clone());
            let ty = unify_types_ext(&tt, &et, true, None).unwrap_or(Type::Any);
            g.add_node_output(n, ty);
        }
    }

    /// Moves the nodes from `rest` to the end of `b` into the else branch of an If on the
    /// exit flag; the then branch takes the exit to its target.
    fn guard_block_nodes(
        &mut self,
        g: &mut Graph,
        b: Block,
        exit_pair: &ExitPair,
        rest: Node,
    ) -> Result<ExitPair, SsaError> {
        let new_if = g.create(sym::if_(), &[exit_pair.has_exited], 0);
        g.insert_before(new_if, rest);
        let exit_block = g.add_block(new_if);
        let guard_block = g.add_block(new_if);
        let mut cur = Some(rest);
        while let Some(n) = cur {
            cur = g.next_node(n);
            g.move_before(n, g.return_node(guard_block));
        }
        // After an exit only the flag and exit values are read: the block's other outputs
        // are uninitialized on that path.
        let outs = g.block_outputs(b).to_vec();
        let exit_vals = self.match_with_uninitialized(g, &outs);
        for (i, &out) in outs.iter().enumerate() {
            g.block_register_output(exit_block, exit_vals[i]);
            g.block_register_output(guard_block, out);
            let ty = g.ty(out).clone();
            g.add_node_output(new_if, ty);
        }
        let new_outs = g.node_outputs(new_if).to_vec();
        replace_block_outputs(g, b, &new_outs);
        let exit = g.create(self.exit_kind, &exit_pair.exit_values, 0);
        g.block_append(exit_block, exit);
        self.transform_if(g, new_if)
    }

    /// Destroys `from` and every node after it, last first; their outputs still read (by the
    /// block's outputs) become uninitialized.
    fn delete_after_exit_nodes(&mut self, g: &mut Graph, from: Option<Node>) {
        let Some(from) = from else { return };
        let b = g.owning_block(from).expect("node in a block");
        while let Some(last) = g.last_node(b) {
            for out in g.node_outputs(last).to_vec() {
                if g.has_uses(out) {
                    let ty = g.ty(out).clone();
                    let unit = self.unit_value(g, ty);
                    g.replace_all_uses_with(out, unit);
                }
            }
            g.destroy(last);
            if last == from {
                break;
            }
        }
    }
}

fn if_exit_status(then_status: ExitStatus, else_status: ExitStatus) -> ExitStatus {
    use ExitStatus::*;
    match (then_status, else_status) {
        (Throws, s) | (s, Throws) => s,
        (Wont, Wont) => Wont,
        (Will, Will) => Will,
        _ => Might,
    }
}

fn replace_block_outputs(g: &mut Graph, b: Block, outs: &[Value]) {
    while !g.block_outputs(b).is_empty() {
        g.block_erase_output(b, 0);
    }
    for &v in outs {
        g.block_register_output(b, v);
    }
}

/// Merges an If into the one before it when its condition is an output of that If that the
/// two branches set to different constants: each branch of the first If gets the matching
/// branch of the second appended.
fn inline_consecutive_ifs(g: &mut Graph, first: Node) -> bool {
    let Some(second) = g.next_node(first) else {
        return false;
    };
    if g.kind(first) != sym::if_() || g.kind(second) != sym::if_() {
        return false;
    }
    let Some(&cond) = g.node_inputs(second).first() else {
        return false;
    };
    let first_blocks = g.node_blocks(first).to_vec();
    let second_blocks = g.node_blocks(second).to_vec();
    if g.producer(cond) != first || first_blocks.len() != 2 || second_blocks.len() != 2 {
        return false;
    }
    let offset = g.offset(cond);
    let branch_value = |b: Block| {
        let v = g.block_outputs(b).get(offset).copied()?;
        constant_bool(g, v)
    };
    let then_value = branch_value(first_blocks[0]);
    let else_value = branch_value(first_blocks[1]);
    let (Some(then_value), Some(else_value)) = (then_value, else_value) else {
        return false;
    };
    // Equal constants: constant propagation removes the second If; copying would double it.
    if then_value == else_value {
        return false;
    }
    for (i, taken) in [then_value, else_value].into_iter().enumerate() {
        let into = first_blocks[i];
        let from = second_blocks[if taken { 0 } else { 1 }];
        // Outputs of the first If read by the second are, in this branch, what it returns.
        let mut map: HashMap<Value, Value> = g
            .node_outputs(first)
            .iter()
            .copied()
            .zip(g.block_outputs(into).iter().copied())
            .collect();
        g.clone_block_into(None, from, into, &mut map);
    }
    for out in g.node_outputs(second).to_vec() {
        let ty = g.ty(out).clone();
        let new_out = g.add_node_output(first, ty);
        g.copy_metadata(new_out, out);
        g.replace_all_uses_with(out, new_out);
    }
    g.destroy(second);
    true
}

fn inline_consecutive_ifs_in(g: &mut Graph, b: Block) {
    let mut cur = g.first_node(b);
    while let Some(n) = cur {
        for sub in g.node_blocks(n).to_vec() {
            inline_consecutive_ifs_in(g, sub);
        }
        // After a merge, the new next node may merge too.
        if !inline_consecutive_ifs(g, n) {
            cur = g.next_node(n);
        }
    }
}

/// Wraps the nodes between each `prim::Enter` and its `prim::Exit` in a `prim::With` (body
/// block, then a block holding the Exit), so that exits inside are guarded like an If's.
fn convert_enter_exit_to_with(g: &mut Graph) -> Result<(), SsaError> {
    let mut pairs = Vec::new();
    let mut stack: Vec<Node> = Vec::new();
    for n in g.nodes() {
        if g.kind(n) == sym::enter() {
            stack.push(n);
        } else if g.kind(n) == sym::exit() {
            let Some(enter) = stack.pop() else {
                return Err(SsaError::at(g, n, "prim::Exit without a prim::Enter"));
            };
            let same_object = g.node_inputs(enter).first() == g.node_inputs(n).first();
            if !same_object || g.owning_block(enter) != g.owning_block(n) {
                return Err(SsaError::at(
                    g,
                    n,
                    "prim::Exit does not match the prim::Enter before it",
                ));
            }
            pairs.push((enter, n));
        }
    }
    if let Some(&enter) = stack.last() {
        return Err(SsaError::at(g, enter, "prim::Enter without a prim::Exit"));
    }
    // Inner pairs were found first and are wrapped first.
    for (enter, exit) in pairs {
        let with = g.create(sym::with(), &[], 0);
        let body = g.add_block(with);
        let exit_block = g.add_block(with);
        let mut cur = g.next_node(enter);
        while let Some(n) = cur {
            if n == exit {
                break;
            }
            cur = g.next_node(n);
            g.move_before(n, g.return_node(body));
        }
        g.move_before(exit, g.return_node(exit_block));
        g.insert_after(with, enter);
    }
    Ok(())
}

/// Undoes [`convert_enter_exit_to_with`]: the With's body and exit nodes go back in place.
fn convert_with_to_enter_exit(g: &mut Graph) {
    let withs: Vec<Node> = g
        .nodes()
        .into_iter()
        .filter(|&n| g.kind(n) == sym::with())
        .collect();
    for with in withs {
        let blocks = g.node_blocks(with).to_vec();
        for b in blocks {
            let nodes: Vec<Node> = g.block_nodes(b).collect();
            for n in nodes {
                g.move_before(n, with);
            }
        }
        g.destroy(with);
    }
}
