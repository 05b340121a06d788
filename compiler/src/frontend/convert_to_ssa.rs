//! `convert-to-ssa`: turns the graph the IR emitter builds, where variables are read and written
//! through `prim::Load`/`prim::Store`, into SSA form, after PyTorch's
//! `torch/csrc/jit/frontend/convert_to_ssa.cpp` (`ConvertToSSA`), followed, as PyTorch's `to_ir`
//! does right after it, by `CanonicalizeModifiedLoops`.
//!
//! # The pre-SSA graph this accepts (what the emitter must produce)
//!
//! Everything `torch.jit.script` shows, except that control flow carries no values yet:
//!
//! - **Variables.** An assignment is `= prim::Store[name="x"](%v)` (one input, no output; the
//!   variable takes `%v`'s type). A read is `%x : T = prim::Load[name="x"]()` (no input, one
//!   output typed with the variable's current type). Names starting with `$` are temporaries.
//! - **If.** `= prim::If(%cond)`: one bool input, *no outputs*, two blocks with no inputs and
//!   no outputs, `block0` the true branch and `block1` the false branch. Branches assign
//!   variables with Stores. When one branch always exits (break, continue, return or raise) and
//!   the other assigns `x`, the exiting branch ends with `%u : T = prim::Uninitialized()` and
//!   `= prim::Store[name="x"](%u)` (PyTorch's `emitIfElseBlocks`).
//! - **Loop.** `= prim::Loop(%max_trip_count)`: *one* int input, no outputs, two blocks:
//!   - `block0(%i : int)`, the body, with no outputs. A `for` body starts by storing the
//!     element for iteration `%i` to the target variable(s): `%i` itself for `range(n)`, an
//!     `aten::__getitem__(%list, %i)` (or the like) otherwise.
//!   - `block1()`, the condition, with one bool output. For `while c:` it holds the nodes
//!     computing `c` (reading variables through Loads) and returns it. For a `for` it is empty
//!     and returns `%true : bool = prim::Constant[value=1]()`, emitted just before the Loop.
//!
//!   `%max_trip_count` is the iterable's length for a `for`, and
//!   `prim::Constant[value=9223372036854775807]()` for a `while`.
//! - **Exits.** `= prim::BreakStmt()` and `= prim::ContinueStmt()` (no inputs) inside a loop
//!   body, possibly nested in Ifs; `= prim::ReturnStmt(%v)` with the returned value (already of
//!   the function's return type; `None` is a `prim::Constant()`); `= prim::RaiseException(..)`
//!   marks a block that always throws. Nodes after an exit in the same block are dropped.
//! - **Graph output.** The function's result is a placeholder: the top block ends with
//!   `%ret : R = prim::Uninitialized()` and `return (%ret)` (PyTorch's `emitOutput`); the
//!   `prim::ReturnStmt`s supply the real value. A function without a final `return` gets a
//!   `prim::ReturnStmt(%none)` at the end of its body, as PyTorch's `handleMaybeNoReturn`.
//! - **With.** `%e = prim::Enter(%obj)` ... `= prim::Exit(%obj)`, flat, in one block.
//! - **Comprehensions** sit in a `= prim::ComprehensionScope()` with one block (no inputs or
//!   outputs): stores inside stay local, and the block is inlined in place.
//! - **Closures** (`prim::Closure`, one block) are scopes of their own for returns and loops.
//!
//! # What comes out
//!
//! No Load, Store, BreakStmt, ContinueStmt, ReturnStmt, LoopContinuation or ComprehensionScope
//! remains. `prim::If` returns the variables both branches define (typed by `unifyTypes` with
//! `default_to_union`); `prim::Loop(%max, %start_cond, %carried..)` with body
//! `block0(%i, %carried..) -> (%next_cond, %carried..)` carries the variables the body assigns
//! that were defined before the loop. Exits become flags carried through If and Loop outputs
//! (`exit_transform`). A loop with both a trip count and a condition (a `for` with a `break`)
//! becomes a `while`-style loop counting its own iterations (`canonicalize_modified_loop`).
//!
//! # Errors
//!
//! PyTorch's emitter reports type errors itself, knowing annotations this pass cannot see (it
//! throws `Type mismatch: x is set to type int in the true branch and type str in the false
//! branch` when `x` was defined before the `if`, and `Variable 'x' previously had type ...` on
//! the assignment); like PyTorch's pass, this one then unifies branch types with
//! `default_to_union`, so `x: Union[int, str]` assigned an int and a str comes out as a Union.
//! What the pass still reports, with the node's source range ([`SsaError`]): a variable read
//! where it is not defined (`undefined value x`; `x is not defined in the false branch` when
//! only one branch of an `if` assigned it, with the read as `used_at`), a loop body assigning a
//! type that does not unify with the variable's type before the loop (PyTorch's message),
//! `break`/`continue` outside a loop, and malformed nodes. Nothing panics on bad input.
//!
//! After this, PyTorch's `to_ir` runs `NormalizeOps` and its cleanup passes
//! ([`super::cleanup::run_cleanup_passes`]).

use std::collections::BTreeMap;
use std::fmt;

use hashbrown::HashMap;

use ember_dialects::attr::AttrValue;
use ember_dialects::attr::ConstValue;
use ember_dialects::symbol::sym;
use ember_dialects::types::{unify_types, unify_types_ext};
use ember_dialects::{Block, Graph, Node, SourceRange, Type, Value};

use super::canonicalize_modified_loop::canonicalize_modified_loops;
use super::exit_transform::transform_exits;
use super::inline_loop_condition::{inline_block_before_node, inline_loop_condition};
use crate::fold::constant::insert_constant_before;
use crate::passes::PassContext;

/// The node kinds of the pre-SSA form.
pub mod kind {
    use ember_dialects::Symbol;

    pub fn store() -> Symbol {
        Symbol::prim("Store")
    }
    pub fn load() -> Symbol {
        Symbol::prim("Load")
    }
    pub fn break_stmt() -> Symbol {
        Symbol::prim("BreakStmt")
    }
    pub fn continue_stmt() -> Symbol {
        Symbol::prim("ContinueStmt")
    }
    pub fn return_stmt() -> Symbol {
        Symbol::prim("ReturnStmt")
    }
    pub fn loop_continuation() -> Symbol {
        Symbol::prim("LoopContinuation")
    }
    pub fn closure() -> Symbol {
        Symbol::prim("Closure")
    }
    pub fn comprehension_scope() -> Symbol {
        Symbol::prim("ComprehensionScope")
    }
    /// The `name` attribute of Loads and Stores.
    pub fn name_attr() -> Symbol {
        Symbol::attr("name")
    }
}

/// An error found while converting, with where it happened when the node knew.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SsaError {
    pub message: String,
    pub range: Option<SourceRange>,
    /// For an error that PyTorch reports where a variable is used ("... and was used here").
    pub used_at: Option<SourceRange>,
}

impl SsaError {
    pub(crate) fn at(g: &Graph, n: Node, message: impl Into<String>) -> SsaError {
        SsaError {
            message: message.into(),
            range: g.source_range(n).cloned(),
            used_at: None,
        }
    }
}

impl fmt::Display for SsaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.range {
            Some(r) => write!(f, "{r}: error: {}", self.message)?,
            None => write!(f, "{}", self.message)?,
        }
        match &self.used_at {
            Some(r) => write!(f, "\n{r}: note: and was used here"),
            None => Ok(()),
        }
    }
}

/// PyTorch's `ConvertToSSA` followed by `CanonicalizeModifiedLoops`, on the whole graph.
pub fn convert_to_ssa(g: &mut Graph) -> Result<(), String> {
    convert_to_ssa_located(g).map_err(|e| e.to_string())
}

/// [`convert_to_ssa`] keeping the error's source ranges apart, for the emitter's diagnostics.
pub fn convert_to_ssa_located(g: &mut Graph) -> Result<(), SsaError> {
    let deferred = ControlFlowLoadStores::run(g)?;
    LoopContinuations::run(g, g.block())?;
    inline_loop_condition(g)?;
    EraseLoadStores::run(g, deferred)?;
    transform_exits(g)?;
    canonicalize_modified_loops(g)?;
    Ok(())
}

/// The `convert-to-ssa` pass of `ember-opt`. It rewrites the graph as a whole, so
/// `EMBER_OPT_LIMIT` does not apply.
pub fn run(g: &mut Graph, _cx: &mut PassContext) -> Result<bool, String> {
    // A graph without the emitter's Load/Store/exit nodes is already SSA: leave it alone.
    if !has_any_kind(
        g,
        &[
            "prim::Store",
            "prim::Load",
            "prim::ReturnStmt",
            "prim::LoopContinuation",
            "prim::BreakStmt",
            "prim::ContinueStmt",
        ],
    ) {
        return Ok(false);
    }
    convert_to_ssa(g)?;
    Ok(true)
}

/// Whether any node of the graph, at any depth, has one of `kinds`.
pub(crate) fn has_any_kind(g: &Graph, kinds: &[&str]) -> bool {
    g.nodes()
        .into_iter()
        .any(|n| kinds.contains(&g.kind(n).as_str()))
}

/// PyTorch's `meaningfulName`: names the graph shows (not `$temporaries`, nor `_123`).
pub(crate) fn meaningful_name(name: &str) -> bool {
    match name.as_bytes() {
        [] | [b'$', ..] => false,
        [b'_', rest @ ..] => !rest.iter().all(u8::is_ascii_digit),
        _ => true,
    }
}

/// The variable name a Load or Store names.
fn var_name(g: &Graph, n: Node) -> Result<String, SsaError> {
    match g.attr(n, kind::name_attr()) {
        Some(AttrValue::Str(s)) => Ok(s.clone()),
        _ => Err(SsaError::at(
            g,
            n,
            format!("{} has no string attribute 'name'", g.kind(n)),
        )),
    }
}

/// The sub-block `i` of `n`, or an error naming what was expected.
pub(crate) fn sub_block(g: &Graph, n: Node, i: usize, want: usize) -> Result<Block, SsaError> {
    let blocks = g.node_blocks(n);
    if blocks.len() != want {
        return Err(SsaError::at(
            g,
            n,
            format!(
                "{} must have {want} block(s) here, found {}",
                g.kind(n),
                blocks.len()
            ),
        ));
    }
    Ok(blocks[i])
}

/// Inserts `prim::Constant[value=b]()` typed bool before `before`.
pub(crate) fn bool_constant_before(g: &mut Graph, before: Node, b: bool) -> Value {
    insert_constant_before(g, before, &ConstValue::Bool(b), &Type::Bool)
        .expect("a bool is always a constant")
}

/// The first node of `b`, or its return node when it is empty (PyTorch's `nodes().front()`).
pub(crate) fn front(g: &Graph, b: Block) -> Node {
    g.first_node(b).unwrap_or_else(|| g.return_node(b))
}

fn create_load(g: &mut Graph, name: &str, ty: Type) -> Node {
    let n = g.create(kind::load(), &[], 1);
    g.set_attr(n, kind::name_attr(), AttrValue::Str(name.to_string()));
    let out = g.output(n, 0);
    g.set_ty(out, ty);
    n
}

fn create_store(g: &mut Graph, name: &str, v: Value) -> Node {
    let n = g.create(kind::store(), &[v], 0);
    g.set_attr(n, kind::name_attr(), AttrValue::Str(name.to_string()));
    n
}

type TypeFrame = BTreeMap<String, Type>;

/// Step 1: gives each If and Loop the outputs (and each Loop the carried inputs) for the
/// variables they assign, as Loads before and Stores after them, so that step 4 can resolve
/// every Load to one value.
struct ControlFlowLoadStores {
    /// The variables each enclosing block has stored so far, innermost last.
    stack: Vec<TypeFrame>,
    /// Why a variable is missing after an If, for the error if it is used later.
    deferred: HashMap<String, SsaError>,
}

impl ControlFlowLoadStores {
    fn run(g: &mut Graph) -> Result<HashMap<String, SsaError>, SsaError> {
        let mut pass = ControlFlowLoadStores {
            stack: Vec::new(),
            deferred: HashMap::new(),
        };
        pass.block(g, g.block())?;
        Ok(pass.deferred)
    }

    fn find_in_stack(&self, name: &str) -> Option<&Type> {
        self.stack.iter().rev().find_map(|f| f.get(name))
    }

    /// `findInAnyFrame` on a frame just popped: the frame, then the enclosing ones.
    fn find<'a>(&'a self, frame: &'a TypeFrame, name: &str) -> Option<&'a Type> {
        frame.get(name).or_else(|| self.find_in_stack(name))
    }

    fn block(&mut self, g: &mut Graph, b: Block) -> Result<TypeFrame, SsaError> {
        self.stack.push(TypeFrame::new());
        // Read the next node after handling this one: the Stores an If or Loop gains right
        // after it must be seen, so the variables it now defines enter this frame.
        let mut cur = g.first_node(b);
        while let Some(n) = cur {
            let k = g.kind(n);
            if k == sym::if_() {
                self.add_if(g, n)?;
            } else if k == sym::loop_() {
                self.add_loop(g, n)?;
            } else if k == kind::closure() {
                for sub in g.node_blocks(n).to_vec() {
                    self.block(g, sub)?;
                }
            } else if k == kind::store() {
                let name = var_name(g, n)?;
                let Some(&v) = g.node_inputs(n).first() else {
                    return Err(SsaError::at(g, n, "prim::Store must have one input"));
                };
                let ty = g.ty(v).clone();
                self.stack
                    .last_mut()
                    .expect("frame pushed")
                    .insert(name, ty);
            } else if k == kind::comprehension_scope() {
                let body = sub_block(g, n, 0, 1)?;
                self.block(g, body)?;
            }
            cur = g.next_node(n);
        }
        Ok(self.stack.pop().expect("frame pushed"))
    }

    fn add_if(&mut self, g: &mut Graph, n: Node) -> Result<(), SsaError> {
        let then_block = sub_block(g, n, 0, 2)?;
        let else_block = sub_block(g, n, 1, 2)?;
        let then_vars = self.block(g, then_block)?;
        let else_vars = self.block(g, else_block)?;
        let mut mutated = std::collections::BTreeSet::new();
        for (vars, other, missing_in) in [
            (&then_vars, &else_vars, "false"),
            (&else_vars, &then_vars, "true"),
        ] {
            for v in vars.keys() {
                if self.find(other, v).is_some() {
                    mutated.insert(v.clone());
                } else {
                    let message = format!("{v} is not defined in the {missing_in} branch");
                    self.deferred.insert(v.clone(), SsaError::at(g, n, message));
                }
            }
        }
        for x in mutated {
            let then_ty = self.find(&then_vars, &x).expect("defined").clone();
            let else_ty = self.find(&else_vars, &x).expect("defined").clone();
            let Some(unified) = unify_types_ext(&then_ty, &else_ty, true, None) else {
                let message = format!(
                    "Type mismatch: {x} is set to type {} in the true branch and type {} in \
                     the false branch",
                    then_ty.repr_str(),
                    else_ty.repr_str()
                );
                self.deferred.insert(x, SsaError::at(g, n, message));
                continue;
            };
            add_block_output(g, then_block, then_ty, &x);
            add_block_output(g, else_block, else_ty, &x);
            add_node_output(g, n, unified, &x);
        }
        Ok(())
    }

    fn add_loop(&mut self, g: &mut Graph, n: Node) -> Result<(), SsaError> {
        let body = sub_block(g, n, 0, 2)?;
        let loop_vars = self.block(g, body)?;
        for (name, block_ty) in &loop_vars {
            // A variable first defined in the body is local to it: nothing to carry.
            let Some(parent_ty) = self.find_in_stack(name).cloned() else {
                continue;
            };
            let Some(unified) = unify_types(&parent_ty, block_ty) else {
                return Err(SsaError::at(
                    g,
                    n,
                    format!(
                        "Variable '{name}' previously had type {} but is now being assigned to \
                         a value of type {}",
                        parent_ty.repr_str(),
                        block_ty.repr_str()
                    ),
                ));
            };
            add_node_input(g, n, parent_ty, name);
            add_block_input(g, body, unified.clone(), name);
            add_block_output(g, body, block_ty.clone(), name);
            add_node_output(g, n, unified, name);
        }
        Ok(())
    }
}

fn add_block_input(g: &mut Graph, b: Block, ty: Type, name: &str) {
    let v = g.block_add_input(b, ty);
    g.set_debug_name(v, name);
    let store = create_store(g, name, v);
    let param = g.param_node(b);
    g.insert_after(store, param);
}

fn add_block_output(g: &mut Graph, b: Block, ty: Type, name: &str) {
    let load = create_load(g, name, ty);
    g.block_append(b, load);
    let v = g.output(load, 0);
    g.block_register_output(b, v);
}

fn add_node_output(g: &mut Graph, n: Node, ty: Type, name: &str) {
    let out = g.add_node_output(n, ty);
    if meaningful_name(name) {
        g.set_debug_name(out, name);
    }
    let store = create_store(g, name, out);
    g.insert_after(store, n);
}

fn add_node_input(g: &mut Graph, n: Node, ty: Type, name: &str) {
    let load = create_load(g, name, ty);
    g.insert_before(load, n);
    let v = g.output(load, 0);
    g.add_node_input(n, v);
}

/// Step 2: replaces each `prim::BreakStmt` and `prim::ContinueStmt` with
/// `prim::LoopContinuation(%continue_condition, %carried..)`: false for a break, the loop
/// condition evaluated again for a continue, and the current value of every carried variable.
struct LoopContinuations {
    false_val: Value,
    curr_loop: Option<Node>,
}

impl LoopContinuations {
    fn run(g: &mut Graph, b: Block) -> Result<(), SsaError> {
        let at = front(g, b);
        let false_val = bool_constant_before(g, at, false);
        let mut pass = LoopContinuations {
            false_val,
            curr_loop: None,
        };
        pass.assign(g, b)
    }

    fn assign(&mut self, g: &mut Graph, b: Block) -> Result<(), SsaError> {
        let mut cur = g.first_node(b);
        while let Some(n) = cur {
            // The continuation is inserted after `n`: it must not be visited.
            cur = g.next_node(n);
            let k = g.kind(n);
            if k == sym::if_() {
                let then_block = sub_block(g, n, 0, 2)?;
                let else_block = sub_block(g, n, 1, 2)?;
                self.assign(g, then_block)?;
                self.assign(g, else_block)?;
            } else if k == kind::closure() {
                let body = sub_block(g, n, 0, 1)?;
                LoopContinuations::run(g, body)?;
            } else if k == sym::loop_() {
                let body = sub_block(g, n, 0, 2)?;
                let prev = self.curr_loop.replace(n);
                self.assign(g, body)?;
                self.curr_loop = prev;
            } else if k == kind::continue_stmt() {
                let lp = self.current_loop(g, n, "continue")?;
                let continuation = g.create(kind::loop_continuation(), &[], 0);
                g.insert_after(continuation, n);
                // Evaluate the loop condition again, just before the continue.
                let header = g.add_block(continuation);
                let pre_header = sub_block(g, lp, 1, 2)?;
                g.clone_block_into(None, pre_header, header, &mut HashMap::new());
                inline_block_before_node(g, n, header);
                let Some(&cond) = g.block_outputs(header).first() else {
                    return Err(SsaError::at(
                        g,
                        lp,
                        "the loop condition block returns nothing",
                    ));
                };
                g.add_node_input(continuation, cond);
                g.erase_block(continuation, 0);
                self.add_loop_carried_outputs(g, lp, continuation)?;
                g.destroy(n);
            } else if k == kind::break_stmt() {
                let lp = self.current_loop(g, n, "break")?;
                let exit = g.create(kind::loop_continuation(), &[self.false_val], 0);
                g.insert_after(exit, n);
                self.add_loop_carried_outputs(g, lp, exit)?;
                g.destroy(n);
            }
        }
        Ok(())
    }

    fn current_loop(&self, g: &Graph, n: Node, what: &str) -> Result<Node, SsaError> {
        self.curr_loop
            .ok_or_else(|| SsaError::at(g, n, format!("SyntaxError: '{what}' outside loop")))
    }

    /// Adds to `n` a fresh Load of each variable the loop body returns.
    fn add_loop_carried_outputs(&self, g: &mut Graph, lp: Node, n: Node) -> Result<(), SsaError> {
        let body = g.node_blocks(lp)[0];
        for out in g.block_outputs(body).to_vec() {
            let load = g.producer(out);
            if g.kind(load) != kind::load() || !g.node_blocks(load).is_empty() {
                return Err(SsaError::at(
                    g,
                    lp,
                    "a loop body output that is not a prim::Load before SSA conversion",
                ));
            }
            let copy = g.clone_node(load, &mut HashMap::new());
            g.insert_before(copy, n);
            let v = g.output(copy, 0);
            g.add_node_input(n, v);
        }
        Ok(())
    }
}

type ValueFrame = HashMap<String, Value>;

/// Step 4: with every control-flow output in place, replaces each Load by the value last
/// stored to its variable in this block or an enclosing one, and removes the Stores.
struct EraseLoadStores {
    stack: Vec<ValueFrame>,
    deferred: HashMap<String, SsaError>,
}

impl EraseLoadStores {
    fn run(g: &mut Graph, deferred: HashMap<String, SsaError>) -> Result<(), SsaError> {
        let mut pass = EraseLoadStores {
            stack: Vec::new(),
            deferred,
        };
        pass.block(g, g.block())
    }

    fn block(&mut self, g: &mut Graph, b: Block) -> Result<(), SsaError> {
        self.stack.push(ValueFrame::new());
        let mut cur = g.first_node(b);
        while let Some(n) = cur {
            cur = g.next_node(n);
            let k = g.kind(n);
            if k == kind::store() {
                let name = var_name(g, n)?;
                let Some(&v) = g.node_inputs(n).first() else {
                    return Err(SsaError::at(g, n, "prim::Store must have one input"));
                };
                self.stack.last_mut().expect("frame pushed").insert(name, v);
                g.destroy(n);
            } else if k == kind::load() {
                let name = var_name(g, n)?;
                let found = self.stack.iter().rev().find_map(|f| f.get(&name)).copied();
                let Some(var) = found else {
                    return Err(self.undefined(g, n, &name));
                };
                let Some(&out) = g.node_outputs(n).first() else {
                    return Err(SsaError::at(g, n, "prim::Load must have one output"));
                };
                g.replace_all_uses_with(out, var);
                g.destroy(n);
            } else if k == kind::comprehension_scope() {
                // Writes inside a comprehension do not leak; its nodes are inlined in place.
                let body = sub_block(g, n, 0, 1)?;
                self.block(g, body)?;
                inline_block_before_node(g, n, body);
                g.destroy(n);
            } else {
                for sub in g.node_blocks(n).to_vec() {
                    self.block(g, sub)?;
                }
            }
        }
        self.stack.pop();
        Ok(())
    }

    fn undefined(&self, g: &Graph, load: Node, name: &str) -> SsaError {
        match self.deferred.get(name) {
            Some(why) => SsaError {
                used_at: g.source_range(load).cloned(),
                ..why.clone()
            },
            None => SsaError::at(g, load, format!("undefined value {name}")),
        }
    }
}

#[cfg(test)]
#[path = "convert_to_ssa_tests.rs"]
mod tests;
