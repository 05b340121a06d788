//! Code: a graph linearized into stack-machine instructions, as PyTorch's interpreter does.
//!
//! Every value gets a register. Each node gathers its inputs onto the stack, runs its
//! operation and stores its outputs. An input is *moved* out of its register at its last use
//! so tensors are freed as early as in PyTorch; where the last use sits in a branch or a loop
//! the value does not dominate, the value is loaded instead (loops) or moved in that branch,
//! and an explicit `Drop` after the control-flow node frees it on every path. Constants are
//! pushed directly at their uses. `prim::If` and `prim::Loop` become jumps; loops whose trip
//! count is the maximum int (`while`) skip the trip counter, and loops whose condition is
//! always true (`for`) skip the condition.
//!
//! Calls (`prim::CallFunction`, `prim::CallMethod`) become `Call` instructions that push a
//! frame (see `calls.rs` for how callees are found); `aten::wait` becomes `Wait`.

use std::sync::{Arc, Weak};

use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, SourceRange, Symbol, Value};
use hashbrown::HashMap;

use super::calls::{self, CallSite};
use crate::ivalue::IValue;
use crate::ops::registry::registry;
use crate::ops::Operation;
use crate::unit::CompilationUnit;

/// One instruction. Jump targets are absolute instruction indices.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Instr {
    /// Push a copy of a register.
    Load(u32),
    /// Push a register's value, leaving it empty.
    Move(u32),
    /// Push constant number `n`.
    Const(u32),
    /// Pop into a register.
    Store(u32),
    /// Empty a register.
    Drop(u32),
    /// Discard the top of the stack.
    Pop,
    /// Run operation `n`.
    Op(u32),
    /// Pop a bool; jump if it is false.
    JumpIfFalse(u32),
    Jump(u32),
    /// Set a register to int 0 (a trip counter).
    ZeroInt(u32),
    /// Add one to an int register.
    Increment(u32),
    /// Leave the loop unless `trip < max` and `cond`.
    LoopTest {
        trip: u32,
        max: u32,
        cond: u32,
        exit: u32,
    },
    /// `for` fast path: leave unless `trip < max`.
    ForTest {
        trip: u32,
        max: u32,
        exit: u32,
    },
    /// `while` fast path: leave unless `cond`.
    WhileTest {
        cond: u32,
        exit: u32,
    },
    /// Call `calls[n]`: its inputs are on the stack; its outputs are pushed when it returns.
    Call(u32),
    /// Pop a future, wait for it and push its value; `waits[n]` is the site.
    Wait(u32),
    /// Return the stack.
    Ret,
}

/// Builds the operation of a node in place of the registry (`None`: the registry's), for
/// [`Code::build_with`].
pub type OperationHook = dyn Fn(&Graph, Node) -> Option<Result<Operation, String>>;

/// What building does with a node the runtime has no operation for (an operator Ember lacks,
/// or one it cannot run on these inputs).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum MissingOperators {
    /// The code is refused: the first such node is the build error.
    #[default]
    Refuse,
    /// The node becomes an operation that raises the build error's message when it runs, and
    /// is listed in [`Code::missing`]: code that never reaches it runs, as in PyTorch.
    RaiseWhenRun,
}

/// What an error of operation `n` reports: the node's kind and where it came from.
#[derive(Clone, Debug)]
pub struct OpSite {
    pub node: Node,
    pub kind: Symbol,
    pub source: Option<SourceRange>,
}

/// A linearized graph, ready to run any number of times.
pub struct Code {
    pub instrs: Vec<Instr>,
    pub operations: Vec<Operation>,
    pub sites: Vec<OpSite>,
    pub constants: Vec<IValue>,
    pub num_registers: usize,
    pub num_inputs: usize,
    pub num_outputs: usize,
    /// The calls of `Instr::Call`.
    pub calls: Vec<CallSite>,
    /// The sites of `Instr::Wait`.
    pub waits: Vec<OpSite>,
    /// The function's name in tracebacks (`<graph>` for a graph built directly).
    pub name: String,
    /// The unit the code was built with: methods found at run time (interface calls) are
    /// built with it. Weak, since the unit's functions own their code.
    pub unit: Option<Weak<CompilationUnit>>,
    /// The nodes of this code (not its callees) built to raise their build error when run
    /// ([`MissingOperators::RaiseWhenRun`]).
    pub missing: Vec<BuildError>,
}

/// A node the interpreter cannot run, found while building code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BuildError {
    /// The node that cannot run (in the graph given to `Code::new`).
    pub node: Node,
    pub kind: Symbol,
    pub source: Option<SourceRange>,
    pub message: String,
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.message)?;
        if let Some(s) = &self.source {
            write!(f, " (at {s})")?;
        }
        Ok(())
    }
}

impl Code {
    /// Linearizes `g`. Every node must have an operator; otherwise the first one missing is
    /// reported here, before anything runs. Called functions must carry their graphs (a
    /// function constant's `attr::Subgraph`); methods are found on the objects' classes.
    pub fn new(g: &Graph) -> Result<Code, BuildError> {
        Code::build(g, None, "<graph>")
    }

    /// Linearizes `g`, resolving function calls, method calls, attribute slots and the
    /// classes of `prim::CreateObject` through `unit`. Callees' code is built now (once per
    /// function, kept by the unit's functions), so every operator they miss is reported here.
    pub fn with_unit(g: &Graph, unit: &Arc<CompilationUnit>) -> Result<Code, BuildError> {
        Code::build(g, Some(unit), "<graph>")
    }

    /// Linearizes `g` as the body of the function `name` (the name tracebacks show).
    pub fn build(
        g: &Graph,
        unit: Option<&Arc<CompilationUnit>>,
        name: &str,
    ) -> Result<Code, BuildError> {
        Code::build_with(g, unit, name, None)
    }

    /// As [`Code::build`], but a node of `g` itself (not of its callees) for which `hook`
    /// returns an operation runs that operation instead of the registry's: how the executor
    /// runs profiling nodes, guards and compiled kernels without the runtime knowing them.
    pub fn build_with(
        g: &Graph,
        unit: Option<&Arc<CompilationUnit>>,
        name: &str,
        hook: Option<&OperationHook>,
    ) -> Result<Code, BuildError> {
        let missing = unit.map_or(MissingOperators::Refuse, |u| u.missing_operators());
        Code::build_with_options(g, unit, name, hook, missing)
    }

    /// As [`Code::build_with`], with `missing` deciding what a node without an operation
    /// becomes (the unit's setting decides for its functions' code, and for `build_with`).
    pub fn build_with_options(
        g: &Graph,
        unit: Option<&Arc<CompilationUnit>>,
        name: &str,
        hook: Option<&OperationHook>,
        missing: MissingOperators,
    ) -> Result<Code, BuildError> {
        let _nesting = calls::enter_build(g)?;
        let liveness = Liveness::compute(g);
        let mut b = Builder {
            g,
            liveness,
            code: Code {
                instrs: Vec::new(),
                operations: Vec::new(),
                sites: Vec::new(),
                constants: Vec::new(),
                num_registers: 0,
                num_inputs: g.inputs().len(),
                num_outputs: g.outputs().len(),
                calls: Vec::new(),
                waits: Vec::new(),
                name: name.to_string(),
                unit: unit.map(Arc::downgrade),
                missing: Vec::new(),
            },
            registers: HashMap::new(),
            next_register: 0,
            constant_of: HashMap::new(),
            unit,
            callees: HashMap::new(),
            hook,
            missing,
        };
        // Graph inputs take the first registers, in order.
        for &v in g.inputs() {
            b.register(v);
        }
        for &v in g.inputs() {
            if !g.has_uses(v) {
                let r = b.register(v);
                b.emit(Instr::Drop(r));
            }
        }
        b.emit_block_body(g.block())?;
        let outputs = g.outputs().to_vec();
        b.push_uses(g.return_node(g.block()), &outputs, 0);
        b.emit(Instr::Ret);
        b.code.num_registers = b.next_register as usize;
        Ok(b.code)
    }
}

/// For each use that is a value's last: whether it moves, and which drops follow which nodes.
struct Liveness {
    /// (user, input offset) pairs where the value is moved out of its register.
    moves: hashbrown::HashSet<(Node, usize)>,
    /// Values to drop after a node (a branch or loop that held their last use).
    drops_after: HashMap<Node, Vec<Value>>,
}

impl Liveness {
    fn compute(g: &Graph) -> Liveness {
        // Number every use site in execution order: a node's inputs, then its blocks, each
        // block's nodes and finally its return node.
        let mut order: HashMap<(Node, usize), usize> = HashMap::new();
        let mut last: HashMap<Value, (Node, usize)> = HashMap::new();
        let mut counter = 0usize;
        type Sites = HashMap<(Node, usize), usize>;
        fn visit(
            g: &Graph,
            n: Node,
            counter: &mut usize,
            order: &mut Sites,
            last: &mut HashMap<Value, (Node, usize)>,
        ) {
            for (i, &v) in g.node_inputs(n).iter().enumerate() {
                *counter += 1;
                order.insert((n, i), *counter);
                last.insert(v, (n, i));
            }
        }
        fn walk(
            g: &Graph,
            b: Block,
            counter: &mut usize,
            order: &mut Sites,
            last: &mut HashMap<Value, (Node, usize)>,
        ) {
            for n in g.block_nodes(b) {
                visit(g, n, counter, order, last);
                for &sub in g.node_blocks(n) {
                    walk(g, sub, counter, order, last);
                }
            }
            visit(g, g.return_node(b), counter, order, last);
        }
        walk(g, g.block(), &mut counter, &mut order, &mut last);

        let mut moves = hashbrown::HashSet::new();
        let mut drops_after: HashMap<Node, Vec<Value>> = HashMap::new();
        let mut values: Vec<_> = last.into_iter().collect();
        values.sort_by_key(|(_, site)| order[site]);
        for (v, (user, offset)) in values {
            let def_block = match g.value_def(v) {
                ember_dialects::ValueDef::Param(b, _) => b,
                ember_dialects::ValueDef::Output(n, _) => g.owning_block(n).unwrap_or(g.block()),
            };
            // Walk from the use up to the defining block, noting the control nodes crossed.
            let mut outermost = None;
            let mut crosses_loop = false;
            let mut b = g.owning_block(user).unwrap_or(g.block());
            while b != def_block {
                let Some(owner) = g.owning_node(b) else { break };
                if g.kind(owner) == sym::loop_() {
                    crosses_loop = true;
                }
                outermost = Some(owner);
                b = g.owning_block(owner).unwrap_or(g.block());
            }
            if !crosses_loop {
                moves.insert((user, offset));
            }
            if let Some(node) = outermost {
                drops_after.entry(node).or_default().push(v);
            }
        }
        Liveness { moves, drops_after }
    }
}

struct Builder<'g> {
    g: &'g Graph,
    liveness: Liveness,
    code: Code,
    registers: HashMap<Value, u32>,
    next_register: u32,
    /// Values produced by `prim::Constant`, by constant index.
    constant_of: HashMap<Value, u32>,
    unit: Option<&'g Arc<CompilationUnit>>,
    /// Code of the functions carried by function constants, built once per constant.
    callees: HashMap<Node, Arc<Code>>,
    hook: Option<&'g OperationHook>,
    missing: MissingOperators,
}

impl Builder<'_> {
    fn emit(&mut self, i: Instr) -> usize {
        self.code.instrs.push(i);
        self.code.instrs.len() - 1
    }

    fn register(&mut self, v: Value) -> u32 {
        if let Some(&r) = self.registers.get(&v) {
            return r;
        }
        let r = self.fresh_register();
        self.registers.insert(v, r);
        r
    }

    /// A register that belongs to no value (loop counters and conditions).
    fn fresh_register(&mut self) -> u32 {
        self.next_register += 1;
        self.next_register - 1
    }

    fn here(&self) -> u32 {
        self.code.instrs.len() as u32
    }

    /// Pushes `values`, inputs `first..` of `user` (a node or a return node), in order.
    fn push_uses(&mut self, user: Node, values: &[Value], first: usize) {
        for (i, &v) in values.iter().enumerate() {
            let i = i + first;
            if let Some(&c) = self.constant_of.get(&v) {
                self.emit(Instr::Const(c));
            } else {
                let r = self.register(v);
                let moved = self.liveness.moves.contains(&(user, i));
                self.emit(if moved {
                    Instr::Move(r)
                } else {
                    Instr::Load(r)
                });
            }
        }
    }

    /// Stores the values on the stack into `values`' registers (popping unused ones).
    fn store_outputs(&mut self, values: &[Value]) {
        for &v in values.iter().rev() {
            if self.g.has_uses(v) {
                let r = self.register(v);
                self.emit(Instr::Store(r));
            } else {
                self.emit(Instr::Pop);
            }
        }
    }

    fn emit_block_body(&mut self, b: Block) -> Result<(), BuildError> {
        for n in self.g.block_nodes(b) {
            self.emit_node(n)?;
            if let Some(values) = self.liveness.drops_after.get(&n).cloned() {
                for v in values {
                    if !self.constant_of.contains_key(&v) {
                        let r = self.register(v);
                        self.emit(Instr::Drop(r));
                    }
                }
            }
        }
        Ok(())
    }

    fn emit_node(&mut self, n: Node) -> Result<(), BuildError> {
        let g = self.g;
        let kind = g.kind(n);
        if kind == sym::if_() {
            return self.emit_if(n);
        }
        if kind == sym::loop_() {
            return self.emit_loop(n);
        }
        if !g.node_blocks(n).is_empty() {
            return Err(self.error(
                n,
                format!("the interpreter cannot run '{kind}' nodes with blocks"),
            ));
        }
        if kind == sym::call_function() || kind == sym::call_method() {
            let target = if kind == sym::call_function() {
                self.function_callee(n)?
            } else {
                calls::method_callee(g, n, self.unit)?
            };
            return self.emit_call(n, target);
        }
        if kind == sym::enter() || kind == sym::exit() {
            return self.emit_context_call(n);
        }
        if kind == calls::wait_kind() {
            let inputs = g.node_inputs(n).to_vec();
            if inputs.len() != 1 || g.node_outputs(n).len() != 1 {
                return Err(self.error(n, "aten::wait needs one future".into()));
            }
            self.push_uses(n, &inputs, 0);
            self.code.waits.push(self.site(n));
            self.emit(Instr::Wait(self.code.waits.len() as u32 - 1));
            let outputs = g.node_outputs(n).to_vec();
            self.store_outputs(&outputs);
            return Ok(());
        }
        let hooked = match self.hook {
            Some(hook) => hook(g, n).transpose().map_err(|m| self.error(n, m))?,
            None => None,
        };
        let mut raises = false;
        let operation = match hooked {
            Some(operation) => operation,
            None => match calls::special_operation(g, n, self.unit)? {
                Some(operation) => operation,
                None => match registry().build(g, n) {
                    Ok(operation) => operation,
                    Err(message) => {
                        raises = true;
                        self.raising_operation(n, message)?
                    }
                },
            },
        };
        if kind == sym::constant() && g.node_outputs(n).len() == 1 && !raises {
            // Constants run once, now; their uses push the value directly.
            let mut stack = Vec::new();
            operation(&mut stack).map_err(|m| self.error(n, m))?;
            let value = stack
                .pop()
                .ok_or_else(|| self.error(n, "prim::Constant produced no value".into()))?;
            self.code.constants.push(value);
            let index = self.code.constants.len() as u32 - 1;
            self.constant_of.insert(g.output(n, 0), index);
            return Ok(());
        }
        let inputs = g.node_inputs(n).to_vec();
        self.push_uses(n, &inputs, 0);
        self.code.operations.push(operation);
        self.code.sites.push(self.site(n));
        self.emit(Instr::Op(self.code.operations.len() as u32 - 1));
        let outputs = g.node_outputs(n).to_vec();
        self.store_outputs(&outputs);
        Ok(())
    }

    /// For a node the registry cannot build: the refusal, or (`RaiseWhenRun`) an operation
    /// raising the same message, noted in `Code::missing`.
    fn raising_operation(&mut self, n: Node, message: String) -> Result<Operation, BuildError> {
        let error = self.error(n, message);
        if self.missing == MissingOperators::Refuse {
            return Err(error);
        }
        let message = error.message.clone();
        self.code.missing.push(error);
        Ok(Arc::new(move |_: &mut crate::ops::Stack| {
            Err(message.clone())
        }))
    }

    fn site(&self, n: Node) -> OpSite {
        OpSite {
            node: n,
            kind: self.g.kind(n),
            source: self.g.source_range(n).cloned(),
        }
    }

    /// The callee of `prim::CallFunction`, its code built once per function constant.
    fn function_callee(&mut self, n: Node) -> Result<calls::CallTarget, BuildError> {
        let g = self.g;
        let Some(&f) = g.node_inputs(n).first() else {
            return Err(self.error(n, "prim::CallFunction needs a function input".into()));
        };
        if let ember_dialects::ValueDef::Output(c, _) = g.value_def(f) {
            if let Some(code) = self.callees.get(&c) {
                return Ok(calls::CallTarget::Code(code.clone()));
            }
            let target = calls::function_callee(g, n, c, self.unit, self.missing)?;
            if let calls::CallTarget::Code(code) = &target {
                self.callees.insert(c, code.clone());
            }
            return Ok(target);
        }
        Err(self.error(
            n,
            "prim::CallFunction on a function that is not a constant cannot run".into(),
        ))
    }

    /// `prim::Enter(%obj)` calls `obj.__enter__()`; `prim::Exit(%obj)` calls
    /// `obj.__exit__(None, None, None)` (the `with` block ended normally).
    fn emit_context_call(&mut self, n: Node) -> Result<(), BuildError> {
        let g = self.g;
        let enter = g.kind(n) == sym::enter();
        let name = if enter { "__enter__" } else { "__exit__" };
        let target = calls::named_method_callee(g, n, name, self.unit)?;
        let inputs = g.node_inputs(n).to_vec();
        if inputs.len() != 1 {
            return Err(self.error(n, format!("{} takes one object", g.kind(n))));
        }
        self.push_uses(n, &inputs, 0);
        let extra = if enter { 0 } else { 3 };
        if extra > 0 {
            self.code.constants.push(IValue::None);
            let none = self.code.constants.len() as u32 - 1;
            for _ in 0..extra {
                self.emit(Instr::Const(none));
            }
        }
        self.finish_call(n, target, 1 + extra)
    }

    /// A call: the arguments (a function call's function input excluded) are pushed, the
    /// callee runs in a frame of its own and its outputs are stored.
    fn emit_call(&mut self, n: Node, target: calls::CallTarget) -> Result<(), BuildError> {
        let g = self.g;
        let first = usize::from(g.kind(n) == sym::call_function());
        let args = g.node_inputs(n)[first..].to_vec();
        self.push_uses(n, &args, first);
        self.finish_call(n, target, args.len())
    }

    /// Emits the call of `target` with its `nargs` arguments pushed, and stores its outputs.
    fn finish_call(
        &mut self,
        n: Node,
        target: calls::CallTarget,
        nargs: usize,
    ) -> Result<(), BuildError> {
        let outputs = self.g.node_outputs(n).to_vec();
        if let calls::CallTarget::Code(code) = &target {
            if code.num_inputs != nargs || code.num_outputs != outputs.len() {
                return Err(self.error(
                    n,
                    format!(
                        "'{}' takes {} inputs and returns {} values, but the call passes {} and expects {}",
                        code.name,
                        code.num_inputs,
                        code.num_outputs,
                        nargs,
                        outputs.len()
                    ),
                ));
            }
        }
        self.code.calls.push(CallSite {
            target,
            num_inputs: nargs,
            num_outputs: outputs.len(),
            site: self.site(n),
        });
        self.emit(Instr::Call(self.code.calls.len() as u32 - 1));
        self.store_outputs(&outputs);
        Ok(())
    }

    fn emit_if(&mut self, n: Node) -> Result<(), BuildError> {
        let g = self.g;
        if g.node_inputs(n).len() != 1 || g.node_blocks(n).len() != 2 {
            return Err(self.error(n, "prim::If needs one condition and two blocks".into()));
        }
        let (then_b, else_b) = (g.node_blocks(n)[0], g.node_blocks(n)[1]);
        let cond = g.node_inputs(n).to_vec();
        self.push_uses(n, &cond, 0);
        let jump_else = self.emit(Instr::JumpIfFalse(0));
        let outputs = g.node_outputs(n).to_vec();
        self.emit_branch(then_b, &outputs)?;
        let jump_end = self.emit(Instr::Jump(0));
        let else_start = self.here();
        self.emit_branch(else_b, &outputs)?;
        let end = self.here();
        self.code.instrs[jump_else] = Instr::JumpIfFalse(else_start);
        self.code.instrs[jump_end] = Instr::Jump(end);
        Ok(())
    }

    fn emit_branch(&mut self, b: Block, outputs: &[Value]) -> Result<(), BuildError> {
        self.emit_block_body(b)?;
        let returned = self.g.block_outputs(b).to_vec();
        self.push_uses(self.g.return_node(b), &returned, 0);
        self.store_outputs(outputs);
        Ok(())
    }

    fn emit_loop(&mut self, n: Node) -> Result<(), BuildError> {
        let g = self.g;
        let inputs = g.node_inputs(n).to_vec();
        if inputs.len() < 2 || g.node_blocks(n).len() != 1 {
            return Err(self.error(
                n,
                "prim::Loop needs a trip count, a condition and one block".into(),
            ));
        }
        let body = g.node_blocks(n)[0];
        let params = g.block_inputs(body).to_vec();
        let returned = g.block_outputs(body).to_vec();
        let carried = inputs.len() - 2;
        if params.len() != carried + 1
            || returned.len() != carried + 1
            || g.node_outputs(n).len() != carried
        {
            return Err(self.error(
                n,
                "prim::Loop's block does not match its carried values".into(),
            ));
        }
        let is_true = |v: Value| {
            self.constant_value(v)
                .is_some_and(|c| matches!(c, IValue::Bool(true)))
        };
        let is_while = self
            .constant_value(inputs[0])
            .is_some_and(|c| matches!(c, IValue::Int(i64::MAX)))
            && !g.has_uses(params[0]);
        let is_for = !is_while && is_true(inputs[1]) && is_true(returned[0]);

        // The trip counter, its bound and the condition live in registers of their own, so
        // no value of the program is overwritten and the counter is never moved away.
        let (trip, max, cond) = (
            self.fresh_register(),
            self.fresh_register(),
            self.fresh_register(),
        );
        self.push_uses(n, &inputs, 0);
        for &p in params[1..].iter().rev() {
            let r = self.register(p);
            self.emit(Instr::Store(r));
        }
        self.emit(Instr::Store(cond));
        self.emit(Instr::Store(max));
        self.emit(Instr::ZeroInt(trip));
        let top = self.here();
        let test = self.emit(Instr::Jump(0));
        if g.has_uses(params[0]) {
            let r = self.register(params[0]);
            self.emit(Instr::Load(trip));
            self.emit(Instr::Store(r));
        }
        self.emit_block_body(body)?;
        // A `for` loop's condition is always true: it is neither pushed nor stored.
        let first = if is_for { 1 } else { 0 };
        self.push_uses(g.return_node(body), &returned[first..], first);
        for &p in params[1..].iter().rev() {
            let r = self.register(p);
            self.emit(Instr::Store(r));
        }
        if !is_for {
            self.emit(Instr::Store(cond));
        }
        if !is_while {
            self.emit(Instr::Increment(trip));
        }
        self.emit(Instr::Jump(top));
        let exit = self.here();
        self.code.instrs[test] = if is_while {
            Instr::WhileTest { cond, exit }
        } else if is_for {
            Instr::ForTest { trip, max, exit }
        } else {
            Instr::LoopTest {
                trip,
                max,
                cond,
                exit,
            }
        };
        // The loop's outputs are the final carried values.
        for (i, &out) in g.node_outputs(n).iter().enumerate() {
            let r = self.register(params[i + 1]);
            if g.has_uses(out) {
                self.emit(Instr::Move(r));
                let o = self.register(out);
                self.emit(Instr::Store(o));
            } else {
                self.emit(Instr::Drop(r));
            }
        }
        Ok(())
    }

    /// The value of `v` if it is a constant already emitted.
    fn constant_value(&self, v: Value) -> Option<&IValue> {
        self.constant_of
            .get(&v)
            .map(|&c| &self.code.constants[c as usize])
    }

    fn error(&self, n: Node, message: String) -> BuildError {
        BuildError {
            node: n,
            kind: self.g.kind(n),
            source: self.g.source_range(n).cloned(),
            message,
        }
    }
}
