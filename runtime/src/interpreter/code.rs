//! Code: a graph linearized into instructions of a register machine, as PyTorch's interpreter
//! does, but with registers as operands where the graph's types allow.
//!
//! Every value gets a register (values that [`coalesce`](super::coalesce) joins share one).
//! Scalar operators whose operands the graph types as ints, floats or bools run as register
//! instructions (`Bin`, `Un`): no operand stack, no boxed closure, no argument vector; a
//! comparison that only decides a branch jumps directly (`JumpUnless`). Every other node
//! gathers its inputs onto the operand stack, runs its operation and stores its outputs.
//!
//! An input is *moved* out of its register at its last use so tensors are freed as early as in
//! PyTorch; where the last use sits in a branch or a loop the value does not dominate, the
//! value is loaded instead (loops) or moved in that branch, and an explicit `Drop` after the
//! control-flow node frees it on every path. Ints, floats, bools and None are never moved or
//! dropped: there is nothing to free. Constants are pushed directly at their uses, or read from
//! registers set when a frame starts.
//!
//! `prim::If` and `prim::Loop` become jumps. A loop tests its condition once on entry and once
//! at the bottom of each iteration (`*Enter`, `*Next`); loops whose trip count is the maximum
//! int (`while`) skip the trip counter, and loops whose condition is always true (`for`) skip
//! the condition. Values a block returns are copied into the registers that receive them as
//! one parallel move, unless they were computed there in the first place.
//!
//! Calls (`prim::CallFunction`, `prim::CallMethod`) become `Call` instructions that push a
//! frame (see `calls.rs` for how callees are found); `aten::wait` becomes `Wait`.

use std::sync::{Arc, Weak};

use ember_dialects::symbol::sym;
use ember_dialects::{Block, Graph, Node, SourceRange, Symbol, Value};
use hashbrown::HashMap;

use super::calls::{self, CallSite};
use super::coalesce::{is_plain_scalar, Coalescing};
use super::liveness::Liveness;
use super::objects::{self, SlotRead};
use super::specialize::{is_comparison, special, Binary, Special, Unary};
use crate::ivalue::IValue;
use crate::ops::builtins::scalar::{BinOp, UnOp};
use crate::ops::registry::registry;
use crate::ops::Operation;
use crate::unit::CompilationUnit;

/// One instruction. Registers are numbered within a frame; jump targets are absolute
/// instruction indices.
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
    /// Run operation `n` on the stack.
    Op(u32),
    /// `dst = src`, `src` keeping its value.
    Copy {
        src: u32,
        dst: u32,
    },
    /// `dst = src`, leaving `src` empty (its last use).
    Take {
        src: u32,
        dst: u32,
    },
    /// `dst = constants[c]`.
    SetConst {
        c: u32,
        dst: u32,
    },
    /// `dst = a op b` on registers.
    Bin {
        op: BinOp,
        a: u32,
        b: u32,
        dst: u32,
    },
    /// `dst = a op b` where the graph types both operands as ints: one instruction per
    /// operator, so that dispatch selects the operation (other operands take `Bin`'s path).
    AddInt {
        a: u32,
        b: u32,
        dst: u32,
    },
    SubInt {
        a: u32,
        b: u32,
        dst: u32,
    },
    MulInt {
        a: u32,
        b: u32,
        dst: u32,
    },
    FloorDivInt {
        a: u32,
        b: u32,
        dst: u32,
    },
    RemInt {
        a: u32,
        b: u32,
        dst: u32,
    },
    LtInt {
        a: u32,
        b: u32,
        dst: u32,
    },
    LeInt {
        a: u32,
        b: u32,
        dst: u32,
    },
    GtInt {
        a: u32,
        b: u32,
        dst: u32,
    },
    GeInt {
        a: u32,
        b: u32,
        dst: u32,
    },
    EqInt {
        a: u32,
        b: u32,
        dst: u32,
    },
    NeInt {
        a: u32,
        b: u32,
        dst: u32,
    },
    /// `JumpUnless` on two ints, one instruction per comparison.
    JumpUnlessLtInt {
        a: u32,
        b: u32,
        target: u32,
    },
    JumpUnlessLeInt {
        a: u32,
        b: u32,
        target: u32,
    },
    JumpUnlessGtInt {
        a: u32,
        b: u32,
        target: u32,
    },
    JumpUnlessGeInt {
        a: u32,
        b: u32,
        target: u32,
    },
    JumpUnlessEqInt {
        a: u32,
        b: u32,
        target: u32,
    },
    JumpUnlessNeInt {
        a: u32,
        b: u32,
        target: u32,
    },
    /// `dst = op a`.
    Un {
        op: UnOp,
        a: u32,
        dst: u32,
    },
    /// `dst = unary[f](a)`.
    Call1 {
        f: u32,
        a: u32,
        dst: u32,
    },
    /// `dst = binary[f](a, b)`.
    Call2 {
        f: u32,
        a: u32,
        b: u32,
        dst: u32,
    },
    /// `dst = start + index * step` (`aten::__derive_index`).
    RangeElement {
        index: u32,
        start: u32,
        step: u32,
        dst: u32,
    },
    /// `dst = obj.attr` by `slot_reads[k]`.
    GetAttr {
        obj: u32,
        k: u32,
        dst: u32,
    },
    Jump(u32),
    /// Jump unless the bool in register `cond` is true.
    JumpIfFalse {
        cond: u32,
        target: u32,
    },
    /// Jump unless `a op b` (a comparison) is true.
    JumpUnless {
        op: BinOp,
        a: u32,
        b: u32,
        target: u32,
    },
    /// Jump unless `op a` (a conversion to bool) is true.
    JumpUnlessUn {
        op: UnOp,
        a: u32,
        target: u32,
    },
    /// `for` loop entry: `trip = 0`; leave unless `trip < max`.
    ForEnter {
        trip: u32,
        max: u32,
        exit: u32,
    },
    /// `for` loop bottom: `trip += 1`; repeat from `body` while `trip < max`.
    ForNext {
        trip: u32,
        max: u32,
        body: u32,
    },
    /// `while` loop entry: leave unless `cond`.
    WhileEnter {
        cond: u32,
        exit: u32,
    },
    /// `while` loop bottom: repeat from `body` while `cond`.
    WhileNext {
        cond: u32,
        body: u32,
    },
    /// General loop entry: `trip = 0`; leave unless `trip < max` and `cond`.
    LoopEnter {
        trip: u32,
        max: u32,
        cond: u32,
        exit: u32,
    },
    /// General loop bottom: `trip += 1`; repeat from `body` while `trip < max` and `cond`.
    LoopNext {
        trip: u32,
        max: u32,
        cond: u32,
        body: u32,
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

/// What an error of an instruction reports: the node's kind and where it came from.
#[derive(Clone, Debug)]
pub struct OpSite {
    pub node: Node,
    pub kind: Symbol,
    pub source: Option<SourceRange>,
    /// The calls the node was inlined through, when it is a callee's.
    pub inlined: Option<Arc<Inlined>>,
}

/// Where an inlined callee's node sits: the calls it was inlined through, outermost first.
/// `calls[0]` is a node of the code's own function, `calls[i + 1]` a node of
/// `functions[i]`, and the node itself belongs to the last function. A traceback shows one
/// entry per call, as if each had run in a frame of its own.
#[derive(Clone, Debug, Default)]
pub struct Inlined {
    pub calls: Vec<OpSite>,
    pub functions: Vec<String>,
}

/// A linearized graph, ready to run any number of times. Its instructions and tables are
/// private: the interpreter indexes them without checks, as `Code::check` proved safe.
pub struct Code {
    pub(crate) instrs: Vec<Instr>,
    pub(crate) operations: Vec<Operation>,
    /// The site of each operation.
    pub(crate) sites: Vec<OpSite>,
    /// The sites of the register instructions that can fail, by instruction index (sorted).
    pub(crate) instr_sites: Vec<(u32, OpSite)>,
    pub(crate) constants: Vec<IValue>,
    /// Registers that hold a constant, set when a frame starts: (register, constant index).
    pub(crate) register_constants: Vec<(u32, u32)>,
    pub(crate) num_registers: usize,
    pub num_inputs: usize,
    pub num_outputs: usize,
    /// The attribute reads of `Instr::GetAttr`.
    pub(crate) slot_reads: Vec<SlotRead>,
    /// The builtins of `Instr::Call1` and `Instr::Call2`.
    pub(crate) unary: Vec<Unary>,
    pub(crate) binary: Vec<Binary>,
    /// The calls of `Instr::Call`.
    pub(crate) calls: Vec<CallSite>,
    /// The sites of `Instr::Wait`.
    pub(crate) waits: Vec<OpSite>,
    /// The function's name in tracebacks (`<graph>` for a graph built directly).
    pub name: String,
    /// The unit the code was built with: methods found at run time (interface calls) are
    /// built with it. Weak, since the unit's functions own their code.
    pub unit: Option<Weak<CompilationUnit>>,
    /// The nodes of this code (not its callees) built to raise their build error when run
    /// ([`MissingOperators::RaiseWhenRun`]).
    pub missing: Vec<BuildError>,
}

impl Instr {
    /// The registers the instruction names.
    fn registers(&self) -> Vec<u32> {
        use Instr::*;
        match *self {
            Load(r) | Move(r) | Store(r) | Drop(r) => vec![r],
            Copy { src, dst } | Take { src, dst } => vec![src, dst],
            SetConst { dst, .. } => vec![dst],
            Bin { a, b, dst, .. }
            | AddInt { a, b, dst }
            | SubInt { a, b, dst }
            | MulInt { a, b, dst }
            | FloorDivInt { a, b, dst }
            | RemInt { a, b, dst }
            | LtInt { a, b, dst }
            | LeInt { a, b, dst }
            | GtInt { a, b, dst }
            | GeInt { a, b, dst }
            | EqInt { a, b, dst }
            | NeInt { a, b, dst }
            | Call2 { a, b, dst, .. } => vec![a, b, dst],
            JumpUnless { a, b, .. }
            | JumpUnlessLtInt { a, b, .. }
            | JumpUnlessLeInt { a, b, .. }
            | JumpUnlessGtInt { a, b, .. }
            | JumpUnlessGeInt { a, b, .. }
            | JumpUnlessEqInt { a, b, .. }
            | JumpUnlessNeInt { a, b, .. } => vec![a, b],
            Un { a, dst, .. } | Call1 { a, dst, .. } => vec![a, dst],
            JumpUnlessUn { a, .. } => vec![a],
            RangeElement {
                index,
                start,
                step,
                dst,
            } => vec![index, start, step, dst],
            GetAttr { obj, dst, .. } => vec![obj, dst],
            JumpIfFalse { cond, .. } | WhileEnter { cond, .. } | WhileNext { cond, .. } => {
                vec![cond]
            }
            ForEnter { trip, max, .. } | ForNext { trip, max, .. } => vec![trip, max],
            LoopEnter {
                trip, max, cond, ..
            }
            | LoopNext {
                trip, max, cond, ..
            } => vec![trip, max, cond],
            Const(_) | Pop | Op(_) | Jump(_) | Call(_) | Wait(_) | Ret => Vec::new(),
        }
    }

    /// Where the instruction may jump.
    fn target(&self) -> Option<u32> {
        use Instr::*;
        match *self {
            Jump(t)
            | JumpIfFalse { target: t, .. }
            | JumpUnless { target: t, .. }
            | JumpUnlessLtInt { target: t, .. }
            | JumpUnlessLeInt { target: t, .. }
            | JumpUnlessGtInt { target: t, .. }
            | JumpUnlessGeInt { target: t, .. }
            | JumpUnlessEqInt { target: t, .. }
            | JumpUnlessNeInt { target: t, .. }
            | JumpUnlessUn { target: t, .. }
            | ForEnter { exit: t, .. }
            | WhileEnter { exit: t, .. }
            | LoopEnter { exit: t, .. }
            | ForNext { body: t, .. }
            | WhileNext { body: t, .. }
            | LoopNext { body: t, .. } => Some(t),
            _ => None,
        }
    }

    /// The index into a table of the code the instruction names, and that table's length.
    fn table(&self, code: &Code) -> Option<(u32, usize)> {
        use Instr::*;
        Some(match *self {
            Const(c) | SetConst { c, .. } => (c, code.constants.len()),
            Op(k) => (k, code.operations.len()),
            Call(k) => (k, code.calls.len()),
            Wait(k) => (k, code.waits.len()),
            GetAttr { k, .. } => (k, code.slot_reads.len()),
            Call1 { f, .. } => (f, code.unary.len()),
            Call2 { f, .. } => (f, code.binary.len()),
            _ => return None,
        })
    }
}

impl Code {
    /// The instructions (for inspection and tests).
    pub fn instrs(&self) -> &[Instr] {
        &self.instrs
    }

    /// The calls the code makes (callees not inlined).
    pub fn calls(&self) -> &[CallSite] {
        &self.calls
    }

    /// Checks what the interpreter relies on to index without checks: every register is
    /// below `num_registers`, every jump and table index in range, and the code ends with
    /// `Ret` (no instruction falls through past the end).
    fn check(&self) -> Result<(), String> {
        if self.instrs.last() != Some(&Instr::Ret) {
            return Err("code does not end with Ret".into());
        }
        if self.sites.len() != self.operations.len() {
            return Err("an operation has no site".into());
        }
        for (pc, i) in self.instrs.iter().enumerate() {
            let bad_register = i
                .registers()
                .into_iter()
                .any(|r| r as usize >= self.num_registers);
            let bad_target = i.target().is_some_and(|t| t as usize >= self.instrs.len());
            let bad_table = i.table(self).is_some_and(|(k, len)| k as usize >= len);
            if bad_register || bad_target || bad_table {
                return Err(format!("instruction {pc} ({i:?}) is out of range"));
            }
        }
        let constants_ok = self.register_constants.iter().all(|&(r, c)| {
            (r as usize) < self.num_registers && (c as usize) < self.constants.len()
        });
        if !constants_ok || self.num_inputs > self.num_registers {
            return Err("a constant or input register is out of range".into());
        }
        Ok(())
    }

    /// The site of the register instruction at `pc`, when it has one.
    pub fn instr_site(&self, pc: usize) -> Option<&OpSite> {
        let i = self
            .instr_sites
            .binary_search_by_key(&(pc as u32), |(p, _)| *p)
            .ok()?;
        Some(&self.instr_sites[i].1)
    }
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
    /// returns an operation runs that operation instead of the registry's, as a generic
    /// operation (its inputs on the stack, its outputs pushed), inside blocks too: how the
    /// executor runs profiling nodes, guards and compiled kernels without the runtime knowing
    /// them.
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
        let mut code = Code {
            instrs: Vec::new(),
            operations: Vec::new(),
            sites: Vec::new(),
            instr_sites: Vec::new(),
            constants: Vec::new(),
            register_constants: Vec::new(),
            slot_reads: Vec::new(),
            unary: Vec::new(),
            binary: Vec::new(),
            num_registers: 0,
            num_inputs: g.inputs().len(),
            num_outputs: g.outputs().len(),
            calls: Vec::new(),
            waits: Vec::new(),
            name: name.to_string(),
            unit: unit.map(Arc::downgrade),
            missing: Vec::new(),
        };
        let mut b = Builder::new(g, unit, hook, missing, None, &mut code);
        // Graph inputs take the first registers, in order.
        for &v in g.inputs() {
            let r = b.fresh_register();
            b.registers.insert(v, r);
        }
        b.drop_unused_inputs();
        b.emit_block_body(g.block())?;
        let outputs = g.outputs().to_vec();
        b.push_uses(g.return_node(g.block()), &outputs, 0);
        b.emit(Instr::Ret);
        code.check().map_err(|m| {
            let ret = g.return_node(g.block());
            self_error(g, ret, format!("internal error: {m}"))
        })?;
        Ok(code)
    }
}

/// Callees this small (in nodes, blocks included) are inlined into their callers' code.
const INLINE_MAX_NODES: usize = 40;
/// Inlined calls nest at most this deep.
const INLINE_MAX_DEPTH: usize = 4;

/// Linearizes one graph into `code`: the graph the code is built from, or a callee inlined
/// into it.
struct Builder<'g, 'c> {
    g: &'g Graph,
    liveness: Liveness,
    coalescing: Coalescing,
    code: &'c mut Code,
    /// Registers by root value (see `Coalescing::root`).
    registers: HashMap<Value, u32>,
    /// Values produced by `prim::Constant`, by constant index.
    constant_of: HashMap<Value, u32>,
    /// Registers holding constants, by constant index.
    constant_registers: HashMap<u32, u32>,
    unit: Option<&'g Arc<CompilationUnit>>,
    /// Code of the functions carried by function constants, built once per constant.
    callees: HashMap<Node, Arc<Code>>,
    hook: Option<&'g OperationHook>,
    missing: MissingOperators,
    /// The calls this graph is inlined through (`None` for the code's own graph).
    inlined: Option<Arc<Inlined>>,
    /// Inputs of an inlined callee that read the caller's registers: never moved or dropped.
    shared: hashbrown::HashSet<Value>,
}

/// Where a value handed to a block boundary comes from.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Source {
    Constant(u32),
    /// A register, and whether this is the value's last use (it may be moved).
    Register(u32, bool),
}

impl<'g, 'c> Builder<'g, 'c> {
    fn new(
        g: &'g Graph,
        unit: Option<&'g Arc<CompilationUnit>>,
        hook: Option<&'g OperationHook>,
        missing: MissingOperators,
        inlined: Option<Arc<Inlined>>,
        code: &'c mut Code,
    ) -> Self {
        Builder {
            g,
            liveness: Liveness::compute(g),
            coalescing: Coalescing::plan(g),
            code,
            registers: HashMap::new(),
            constant_of: HashMap::new(),
            constant_registers: HashMap::new(),
            unit,
            callees: HashMap::new(),
            hook,
            missing,
            inlined,
            shared: hashbrown::HashSet::new(),
        }
    }

    /// Frees inputs of the graph nobody reads.
    fn drop_unused_inputs(&mut self) {
        for &v in self.g.inputs() {
            if !self.g.has_uses(v) && !is_plain_scalar(self.g.ty(v)) && !self.shared.contains(&v) {
                let r = self.register(v);
                self.emit(Instr::Drop(r));
            }
        }
    }

    fn emit(&mut self, i: Instr) -> usize {
        self.code.instrs.push(i);
        self.code.instrs.len() - 1
    }

    /// The register of `v` (shared with the values it is coalesced with).
    fn register(&mut self, v: Value) -> u32 {
        let root = self.coalescing.root(v);
        if let Some(&r) = self.registers.get(&root) {
            return r;
        }
        let r = self.fresh_register();
        self.registers.insert(root, r);
        r
    }

    /// A register that belongs to no value (loop counters and conditions).
    fn fresh_register(&mut self) -> u32 {
        self.code.num_registers += 1;
        self.code.num_registers as u32 - 1
    }

    fn here(&self) -> u32 {
        self.code.instrs.len() as u32
    }

    /// The register an instruction reads `v` from: its own, or one holding its constant.
    fn operand(&mut self, v: Value) -> u32 {
        let Some(&c) = self.constant_of.get(&v) else {
            return self.register(v);
        };
        if let Some(&r) = self.constant_registers.get(&c) {
            return r;
        }
        let r = self.fresh_register();
        self.constant_registers.insert(c, r);
        self.code.register_constants.push((r, c));
        r
    }

    /// Whether the use `offset` of `user` is `v`'s last and may move it out of its register.
    fn moves(&self, v: Value, user: Node, offset: usize) -> bool {
        self.liveness.moves.contains(&(user, offset))
            && !is_plain_scalar(self.g.ty(v))
            && !self.shared.contains(&v)
    }

    /// Pushes `values`, inputs `first..` of `user` (a node or a return node), in order.
    fn push_uses(&mut self, user: Node, values: &[Value], first: usize) {
        for (i, &v) in values.iter().enumerate() {
            let i = i + first;
            if let Some(&c) = self.constant_of.get(&v) {
                self.emit(Instr::Const(c));
            } else {
                let r = self.register(v);
                self.emit(if self.moves(v, user, i) {
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

    fn source(&mut self, user: Node, v: Value, offset: usize) -> Source {
        match self.constant_of.get(&v) {
            Some(&c) => Source::Constant(c),
            None => {
                let moved = self.moves(v, user, offset);
                Source::Register(self.register(v), moved)
            }
        }
    }

    /// Hands `values` (inputs `first..` of `user`) to the registers `dsts` as one parallel
    /// move (`None`: nobody reads it; a value whose last use this is is dropped).
    fn transfer(&mut self, user: Node, values: &[Value], first: usize, dsts: &[Option<u32>]) {
        let sources: Vec<Source> = values
            .iter()
            .enumerate()
            .map(|(i, &v)| self.source(user, v, first + i))
            .collect();
        // A value already in its receiving register stays; nothing may move it away.
        let kept: Vec<u32> = sources
            .iter()
            .zip(dsts)
            .filter_map(|(s, d)| match (s, d) {
                (Source::Register(r, _), Some(d)) if r == d => Some(*r),
                _ => None,
            })
            .collect();
        let pairs: Vec<(Source, u32)> = sources
            .iter()
            .zip(dsts)
            .filter_map(|(&s, &d)| Some((s, d?)))
            .filter(|&(s, d)| !matches!(s, Source::Register(r, _) if r == d))
            .collect();
        // Registers whose value this is the last use of: the last copy takes it.
        let last_uses: Vec<u32> = pairs
            .iter()
            .filter_map(|&(s, _)| match s {
                Source::Register(r, true) if !kept.contains(&r) => Some(r),
                _ => None,
            })
            .collect();
        let reads = |pairs: &[(Source, u32)], r: u32| {
            pairs
                .iter()
                .any(|&(s, _)| matches!(s, Source::Register(x, _) if x == r))
        };
        // Copy first what no pending copy still reads; what is left is a cycle, exchanged
        // through the stack.
        let mut pending = pairs.clone();
        while let Some(i) = pending.iter().position(|&(_, d)| !reads(&pending, d)) {
            let (s, dst) = pending.remove(i);
            self.emit(match s {
                Source::Constant(c) => Instr::SetConst { c, dst },
                Source::Register(src, _) if last_uses.contains(&src) && !reads(&pending, src) => {
                    Instr::Take { src, dst }
                }
                Source::Register(src, _) => Instr::Copy { src, dst },
            });
        }
        for (i, &(s, _)) in pending.iter().enumerate() {
            self.emit(match s {
                Source::Constant(c) => Instr::Const(c),
                Source::Register(r, _)
                    if last_uses.contains(&r) && !reads(&pending[i + 1..], r) =>
                {
                    Instr::Move(r)
                }
                Source::Register(r, _) => Instr::Load(r),
            });
        }
        for &(_, d) in pending.iter().rev() {
            self.emit(Instr::Store(d));
        }
        // Values nobody receives are freed here when this was their last use.
        for (&s, d) in sources.iter().zip(dsts) {
            if let (Source::Register(r, true), None) = (s, d) {
                if !kept.contains(&r) && !pairs.iter().any(|&(_, d)| d == r) {
                    self.emit(Instr::Drop(r));
                }
            }
        }
    }

    fn emit_block_body(&mut self, b: Block) -> Result<(), BuildError> {
        let nodes: Vec<Node> = self.g.block_nodes(b).collect();
        let mut i = 0;
        while i < nodes.len() {
            let n = nodes[i];
            if let Some(&next) = nodes.get(i + 1) {
                if let Some(test) = self.fusable_test(n, next)? {
                    self.emit_if(next, Some(test))?;
                    self.drops_after(n);
                    self.drops_after(next);
                    i += 2;
                    continue;
                }
            }
            self.emit_node(n)?;
            self.drops_after(n);
            i += 1;
        }
        Ok(())
    }

    /// Frees the values whose last use was inside `n`'s blocks.
    fn drops_after(&mut self, n: Node) {
        if let Some(values) = self.liveness.drops_after.get(&n).cloned() {
            for v in values {
                if !self.constant_of.contains_key(&v)
                    && !is_plain_scalar(self.g.ty(v))
                    && !self.shared.contains(&v)
                {
                    let r = self.register(v);
                    self.emit(Instr::Drop(r));
                }
            }
        }
    }

    /// A comparison or conversion to bool `n` whose only use is the condition of the
    /// `prim::If` that follows it: the branch tests it directly.
    fn fusable_test(&mut self, n: Node, next: Node) -> Result<Option<FusedTest>, BuildError> {
        let g = self.g;
        if g.kind(next) != sym::if_() || g.node_inputs(next).len() != 1 {
            return Ok(None);
        }
        let cond = match g.node_outputs(n) {
            &[cond] => cond,
            _ => return Ok(None),
        };
        if g.node_inputs(next)[0] != cond || g.uses(cond).len() != 1 {
            return Ok(None);
        }
        let test = match special(g, n) {
            Some(Special::Bin(op)) if is_comparison(op) => Test::Bin(op),
            Some(Special::Un(UnOp::ToBool)) => Test::Un(UnOp::ToBool),
            _ => return Ok(None),
        };
        if self.hooked_or_checked(n)?.is_some() {
            return Ok(None);
        }
        let inputs = g.node_inputs(n).to_vec();
        let operands: Vec<u32> = inputs.iter().map(|&v| self.operand(v)).collect();
        Ok(Some(FusedTest {
            test,
            operands,
            ints: inputs
                .iter()
                .all(|&v| *g.ty(v) == ember_dialects::Type::Int),
            site: self.site(n),
        }))
    }

    /// The hook's operation for `n` when it claims the node; otherwise checks that the
    /// registry has an operation for it (so a register instruction is chosen only for nodes
    /// the registry runs too) and returns `None`.
    fn hooked_or_checked(&mut self, n: Node) -> Result<Option<Operation>, BuildError> {
        if let Some(hook) = self.hook {
            if let Some(op) = hook(self.g, n).transpose().map_err(|m| self.error(n, m))? {
                return Ok(Some(op));
            }
        }
        match registry().build(self.g, n) {
            Ok(_) => Ok(None),
            Err(m) => self.raising_operation(n, m).map(Some),
        }
    }

    /// For a node the registry cannot build: the refusal, or (`RaiseWhenRun`) an operation
    /// raising the same message, noted once in `Code::missing`.
    fn raising_operation(&mut self, n: Node, message: String) -> Result<Operation, BuildError> {
        let error = self.error(n, message);
        if self.missing == MissingOperators::Refuse {
            return Err(error);
        }
        let message = error.message.clone();
        if !self.code.missing.contains(&error) {
            self.code.missing.push(error);
        }
        Ok(Arc::new(move |_: &mut crate::ops::Stack| {
            Err(message.clone())
        }))
    }

    fn emit_node(&mut self, n: Node) -> Result<(), BuildError> {
        let g = self.g;
        let kind = g.kind(n);
        if kind == sym::if_() {
            return self.emit_if(n, None);
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
        if kind == sym::call_function() {
            let (target, body) = self.function_callee(n)?;
            return self.emit_call(n, target, body);
        }
        if kind == sym::call_method() {
            let (target, body) = calls::method_callee(g, n, self.unit)?;
            return self.emit_call(n, target, body);
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
        if let Some(s) = special(g, n) {
            match self.hooked_or_checked(n)? {
                Some(operation) => return self.emit_operation(n, operation),
                None => return self.emit_special(n, s),
            }
        }
        let hooked = match self.hook {
            Some(hook) => hook(g, n).transpose().map_err(|m| self.error(n, m))?,
            None => None,
        };
        if hooked.is_none() && kind == sym::get_attr() {
            let read = objects::slot_read(g, n, self.unit).map_err(|m| self.error(n, m))?;
            if let Some(read) = read {
                return self.emit_get_attr(n, read);
            }
        }
        // A value no correct program reads: a constant, like `prim::Constant`.
        let mut runs_once =
            kind == sym::constant() || (kind == sym::uninitialized() && hooked.is_none());
        let operation = match hooked {
            Some(operation) => operation,
            None => match calls::special_operation(g, n, self.unit)? {
                Some(operation) => operation,
                None => match registry().build(g, n) {
                    Ok(operation) => operation,
                    Err(message) => {
                        runs_once = false;
                        self.raising_operation(n, message)?
                    }
                },
            },
        };
        if runs_once && g.node_outputs(n).len() == 1 {
            // Constants run once, now; their uses push the value directly.
            let mut stack = Vec::new();
            operation(&mut stack).map_err(|m| self.error(n, m))?;
            let value = stack
                .pop()
                .ok_or_else(|| self.error(n, format!("{kind} produced no value")))?;
            self.code.constants.push(value);
            let index = self.code.constants.len() as u32 - 1;
            self.constant_of.insert(g.output(n, 0), index);
            return Ok(());
        }
        self.emit_operation(n, operation)
    }

    /// A generic operation: inputs pushed, the operation run, outputs stored.
    fn emit_operation(&mut self, n: Node, operation: Operation) -> Result<(), BuildError> {
        let g = self.g;
        let inputs = g.node_inputs(n).to_vec();
        self.push_uses(n, &inputs, 0);
        self.code.operations.push(operation);
        self.code.sites.push(self.site(n));
        self.emit(Instr::Op(self.code.operations.len() as u32 - 1));
        let outputs = g.node_outputs(n).to_vec();
        self.store_outputs(&outputs);
        Ok(())
    }

    fn emit_special(&mut self, n: Node, s: Special) -> Result<(), BuildError> {
        let g = self.g;
        let inputs = g.node_inputs(n).to_vec();
        let dst = self.register(g.output(n, 0));
        let site = self.site(n);
        self.code.instr_sites.push((self.here(), site));
        match s {
            Special::Bin(op) => {
                let (a, b) = (self.operand(inputs[0]), self.operand(inputs[1]));
                let ints = inputs
                    .iter()
                    .all(|&v| *g.ty(v) == ember_dialects::Type::Int);
                self.emit(match int_instr(op, a, b, dst).filter(|_| ints) {
                    Some(i) => i,
                    None => Instr::Bin { op, a, b, dst },
                });
            }
            Special::Un(op) => {
                let a = self.operand(inputs[0]);
                self.emit(Instr::Un { op, a, dst });
            }
            Special::Call1(f) => {
                let a = self.operand(inputs[0]);
                self.code.unary.push(f);
                let f = self.code.unary.len() as u32 - 1;
                self.emit(Instr::Call1 { f, a, dst });
            }
            Special::Call2(f) => {
                let (a, b) = (self.operand(inputs[0]), self.operand(inputs[1]));
                self.code.binary.push(f);
                let f = self.code.binary.len() as u32 - 1;
                self.emit(Instr::Call2 { f, a, b, dst });
            }
            Special::RangeElement => {
                let index = self.operand(inputs[0]);
                let (start, step) = (self.operand(inputs[1]), self.operand(inputs[2]));
                self.emit(Instr::RangeElement {
                    index,
                    start,
                    step,
                    dst,
                });
            }
        }
        Ok(())
    }

    fn emit_get_attr(&mut self, n: Node, read: SlotRead) -> Result<(), BuildError> {
        let g = self.g;
        let obj = self.operand(g.node_inputs(n)[0]);
        let out = g.output(n, 0);
        let dst = self.register(out);
        self.code.slot_reads.push(read);
        let k = self.code.slot_reads.len() as u32 - 1;
        let site = self.site(n);
        self.code.instr_sites.push((self.here(), site));
        self.emit(Instr::GetAttr { obj, k, dst });
        Ok(())
    }

    fn site(&self, n: Node) -> OpSite {
        OpSite {
            node: n,
            kind: self.g.kind(n),
            source: self.g.source_range(n).cloned(),
            inlined: self.inlined.clone(),
        }
    }

    /// The callee of `prim::CallFunction`, its code built once per function constant, and
    /// the graph it runs.
    fn function_callee(
        &mut self,
        n: Node,
    ) -> Result<(calls::CallTarget, Option<calls::Body<'g>>), BuildError> {
        let g = self.g;
        let Some(&f) = g.node_inputs(n).first() else {
            return Err(self.error(n, "prim::CallFunction needs a function input".into()));
        };
        if let ember_dialects::ValueDef::Output(c, _) = g.value_def(f) {
            if let Some(code) = self.callees.get(&c) {
                let code = code.clone();
                // Built before: the body is found again the same way, without building.
                let body = match g.attr(c, sym::attr_subgraph()) {
                    Some(ember_dialects::AttrValue::Graph(body)) => {
                        Some(calls::Body::Subgraph(body))
                    }
                    _ => calls::function_callee_body(g, n, c, self.unit, self.missing)?.1,
                };
                return Ok((calls::CallTarget::Code(code), body));
            }
            let (target, body) = calls::function_callee_body(g, n, c, self.unit, self.missing)?;
            if let calls::CallTarget::Code(code) = &target {
                self.callees.insert(c, code.clone());
            }
            return Ok((target, body));
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
    /// callee runs in a frame of its own and its outputs are stored. A small callee known
    /// now is inlined instead.
    fn emit_call(
        &mut self,
        n: Node,
        target: calls::CallTarget,
        body: Option<calls::Body<'_>>,
    ) -> Result<(), BuildError> {
        let g = self.g;
        let first = usize::from(g.kind(n) == sym::call_function());
        let args = g.node_inputs(n)[first..].to_vec();
        if let (calls::CallTarget::Code(code), Some(body)) = (&target, &body) {
            let callee = body.graph();
            let depth = self.inlined.as_ref().map_or(0, |i| i.calls.len());
            // A callee with nodes built to raise keeps its frame: they are listed as its own.
            if depth < INLINE_MAX_DEPTH
                && code.missing.is_empty()
                && count_nodes(callee, callee.block()) <= INLINE_MAX_NODES
                && callee.inputs().len() == args.len()
                && callee.outputs().len() == g.node_outputs(n).len()
            {
                return self.emit_inlined(n, &args, first, callee, &code.name);
            }
        }
        self.push_uses(n, &args, first);
        self.finish_call(n, target, args.len())
    }

    /// Emits `callee`'s body in place of call `n`: the arguments are handed to the callee's
    /// input registers, its results to the call's outputs. Its nodes' sites name the call, so
    /// errors read as if the call had run in a frame of its own.
    fn emit_inlined(
        &mut self,
        n: Node,
        args: &[Value],
        first: usize,
        callee: &Graph,
        name: &str,
    ) -> Result<(), BuildError> {
        let g = self.g;
        let mut chain = self.inlined.as_deref().cloned().unwrap_or_default();
        let mut call = self.site(n);
        call.inlined = None;
        chain.calls.push(call);
        chain.functions.push(name.to_string());
        // An argument the caller keeps (a plain value, a constant, or one used again) is read
        // by the callee in the caller's register; one whose last use this is moves into a
        // register of the callee's, which frees it. A value passed twice is kept: moving it
        // for one parameter would empty the register the other reads.
        let mut inputs = Vec::with_capacity(args.len());
        let mut shared = Vec::with_capacity(args.len());
        for (i, &arg) in args.iter().enumerate() {
            let passed_twice = args.iter().filter(|&&a| a == arg).count() > 1;
            let kept = self.constant_of.contains_key(&arg)
                || passed_twice
                || !self.moves(arg, n, first + i);
            shared.push(kept);
            inputs.push(if kept {
                self.operand(arg)
            } else {
                self.fresh_register()
            });
        }
        let moved: Vec<Option<u32>> = inputs
            .iter()
            .zip(&shared)
            .map(|(&r, &kept)| (!kept).then_some(r))
            .collect();
        let (moved_args, moved_dsts): (Vec<(usize, Value)>, Vec<Option<u32>>) = args
            .iter()
            .copied()
            .enumerate()
            .zip(moved)
            .filter(|(_, d)| d.is_some())
            .unzip();
        for ((i, arg), dst) in moved_args.into_iter().zip(moved_dsts) {
            self.transfer(n, &[arg], first + i, &[dst]);
        }
        let outputs = g.node_outputs(n).to_vec();
        let receivers = self.receivers(&outputs);
        let unit = self.unit;
        let mut inner = Builder::new(
            callee,
            unit,
            None,
            self.missing,
            Some(Arc::new(chain)),
            self.code,
        );
        for ((&v, &r), &kept) in callee.inputs().iter().zip(&inputs).zip(&shared) {
            inner.registers.insert(v, r);
            if kept {
                inner.shared.insert(v);
            }
        }
        inner.drop_unused_inputs();
        // The callee's own code was built: what fails here is reported at the call.
        inner.emit_block_body(callee.block()).map_err(|e| {
            let at = e.source.map(|s| format!(" at {s}")).unwrap_or_default();
            self_error(g, n, format!("{} (in '{name}'{at})", e.message))
        })?;
        let returned = callee.outputs().to_vec();
        inner.transfer(callee.return_node(callee.block()), &returned, 0, &receivers);
        Ok(())
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

    /// The registers that receive `values` (`None` for values nobody reads).
    fn receivers(&mut self, values: &[Value]) -> Vec<Option<u32>> {
        values
            .iter()
            .map(|&v| self.g.has_uses(v).then(|| self.register(v)))
            .collect()
    }

    fn emit_if(&mut self, n: Node, test: Option<FusedTest>) -> Result<(), BuildError> {
        let g = self.g;
        if g.node_inputs(n).len() != 1 || g.node_blocks(n).len() != 2 {
            return Err(self.error(n, "prim::If needs one condition and two blocks".into()));
        }
        let (then_b, else_b) = (g.node_blocks(n)[0], g.node_blocks(n)[1]);
        let jump_else = match test {
            Some(t) => {
                self.code.instr_sites.push((self.here(), t.site));
                self.emit(match t.test {
                    Test::Bin(op) => {
                        let (a, b) = (t.operands[0], t.operands[1]);
                        match int_test(op, a, b, 0).filter(|_| t.ints) {
                            Some(i) => i,
                            None => Instr::JumpUnless {
                                op,
                                a,
                                b,
                                target: 0,
                            },
                        }
                    }
                    Test::Un(op) => Instr::JumpUnlessUn {
                        op,
                        a: t.operands[0],
                        target: 0,
                    },
                })
            }
            None => {
                let cond = self.operand(g.node_inputs(n)[0]);
                self.emit(Instr::JumpIfFalse { cond, target: 0 })
            }
        };
        let outputs = g.node_outputs(n).to_vec();
        let dsts = self.receivers(&outputs);
        self.emit_branch(then_b, &dsts)?;
        let jump_end = self.emit(Instr::Jump(0));
        let else_start = self.here();
        self.emit_branch(else_b, &dsts)?;
        if self.here() == else_start {
            // An empty else branch: the then branch falls through to the end.
            self.code.instrs.pop();
            let end = self.here();
            self.set_target(jump_else, end);
        } else {
            let end = self.here();
            self.code.instrs[jump_end] = Instr::Jump(end);
            self.set_target(jump_else, else_start);
        }
        Ok(())
    }

    fn set_target(&mut self, at: usize, to: u32) {
        match &mut self.code.instrs[at] {
            Instr::JumpUnless { target, .. }
            | Instr::JumpUnlessLtInt { target, .. }
            | Instr::JumpUnlessLeInt { target, .. }
            | Instr::JumpUnlessGtInt { target, .. }
            | Instr::JumpUnlessGeInt { target, .. }
            | Instr::JumpUnlessEqInt { target, .. }
            | Instr::JumpUnlessNeInt { target, .. }
            | Instr::JumpUnlessUn { target, .. }
            | Instr::JumpIfFalse { target, .. } => *target = to,
            Instr::ForEnter { exit, .. }
            | Instr::WhileEnter { exit, .. }
            | Instr::LoopEnter { exit, .. } => *exit = to,
            other => unreachable!("not a jump: {other:?}"),
        }
    }

    fn emit_branch(&mut self, b: Block, dsts: &[Option<u32>]) -> Result<(), BuildError> {
        self.emit_block_body(b)?;
        let returned = self.g.block_outputs(b).to_vec();
        self.transfer(self.g.return_node(b), &returned, 0, dsts);
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

        // The trip counter is the body's first parameter when the body reads it as an int;
        // the bound is read where it lives (an int is never moved); the condition gets the
        // register of the value the body computes it into, when it computes it itself.
        let trip = if g.has_uses(params[0]) && *g.ty(params[0]) == ember_dialects::Type::Int {
            self.register(params[0])
        } else {
            self.fresh_register()
        };
        let max = if *g.ty(inputs[0]) == ember_dialects::Type::Int {
            self.operand(inputs[0])
        } else {
            let r = self.fresh_register();
            self.push_uses(n, &inputs[..1], 0);
            self.emit(Instr::Store(r));
            r
        };
        let own_cond = returned[0];
        let cond = if !is_for
            && defined_directly_in(g, own_cond, body)
            && !self.constant_of.contains_key(&own_cond)
            && !self.coalescing.is_joined(own_cond)
            && !returned[1..].contains(&own_cond)
        {
            self.register(own_cond)
        } else {
            self.fresh_register()
        };
        // Entry: the initial values into the parameters, the condition into its register.
        let mut entry_dsts: Vec<Option<u32>> = Vec::with_capacity(inputs.len() - 1);
        entry_dsts.push((!is_for).then_some(cond));
        for &p in &params[1..] {
            entry_dsts.push(Some(self.register(p)));
        }
        self.transfer(n, &inputs[1..], 1, &entry_dsts);
        let enter = self.emit(if is_while {
            Instr::WhileEnter { cond, exit: 0 }
        } else if is_for {
            Instr::ForEnter { trip, max, exit: 0 }
        } else {
            Instr::LoopEnter {
                trip,
                max,
                cond,
                exit: 0,
            }
        });
        let top = self.here();
        self.emit_block_body(body)?;
        // Bottom: the carried values (and the condition) into place, then the test.
        let mut dsts = Vec::with_capacity(returned.len());
        dsts.push((!is_for).then_some(cond));
        for &p in &params[1..] {
            dsts.push(Some(self.register(p)));
        }
        if is_for {
            self.transfer(g.return_node(body), &returned[1..], 1, &dsts[1..]);
        } else {
            self.transfer(g.return_node(body), &returned, 0, &dsts);
        }
        self.emit(if is_while {
            Instr::WhileNext { cond, body: top }
        } else if is_for {
            Instr::ForNext {
                trip,
                max,
                body: top,
            }
        } else {
            Instr::LoopNext {
                trip,
                max,
                cond,
                body: top,
            }
        });
        let exit = self.here();
        self.set_target(enter, exit);
        // The loop's outputs share their parameters' registers; unread ones are freed.
        for (i, &out) in g.node_outputs(n).iter().enumerate() {
            let p = self.register(params[i + 1]);
            if !g.has_uses(out) {
                if !is_plain_scalar(g.ty(params[i + 1])) {
                    self.emit(Instr::Drop(p));
                }
            } else if self.register(out) != p {
                let dst = self.register(out);
                self.emit(Instr::Take { src: p, dst });
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
        self_error(self.g, n, message)
    }
}

/// A comparison or conversion a branch tests directly, on its operands' registers.
struct FusedTest {
    test: Test,
    operands: Vec<u32>,
    /// Whether the graph types every operand as an int.
    ints: bool,
    site: OpSite,
}

enum Test {
    Bin(BinOp),
    Un(UnOp),
}

/// The instruction of `op` on two ints, when it has one of its own.
fn int_instr(op: BinOp, a: u32, b: u32, dst: u32) -> Option<Instr> {
    Some(match op {
        BinOp::Add => Instr::AddInt { a, b, dst },
        BinOp::Sub => Instr::SubInt { a, b, dst },
        BinOp::Mul => Instr::MulInt { a, b, dst },
        BinOp::FloorDiv => Instr::FloorDivInt { a, b, dst },
        BinOp::Rem => Instr::RemInt { a, b, dst },
        BinOp::Lt => Instr::LtInt { a, b, dst },
        BinOp::Le => Instr::LeInt { a, b, dst },
        BinOp::Gt => Instr::GtInt { a, b, dst },
        BinOp::Ge => Instr::GeInt { a, b, dst },
        BinOp::Eq => Instr::EqInt { a, b, dst },
        BinOp::Ne => Instr::NeInt { a, b, dst },
        _ => return None,
    })
}

/// The branch on comparison `op` of two ints.
fn int_test(op: BinOp, a: u32, b: u32, target: u32) -> Option<Instr> {
    Some(match op {
        BinOp::Lt => Instr::JumpUnlessLtInt { a, b, target },
        BinOp::Le => Instr::JumpUnlessLeInt { a, b, target },
        BinOp::Gt => Instr::JumpUnlessGtInt { a, b, target },
        BinOp::Ge => Instr::JumpUnlessGeInt { a, b, target },
        BinOp::Eq => Instr::JumpUnlessEqInt { a, b, target },
        BinOp::Ne => Instr::JumpUnlessNeInt { a, b, target },
        _ => return None,
    })
}

fn self_error(g: &Graph, n: Node, message: String) -> BuildError {
    BuildError {
        node: n,
        kind: g.kind(n),
        source: g.source_range(n).cloned(),
        message,
    }
}

/// The nodes of block `b`, those of nested blocks included.
fn count_nodes(g: &Graph, b: Block) -> usize {
    g.block_nodes(b)
        .map(|n| {
            1 + g
                .node_blocks(n)
                .iter()
                .map(|&sub| count_nodes(g, sub))
                .sum::<usize>()
        })
        .sum()
}

fn defined_directly_in(g: &Graph, v: Value, b: Block) -> bool {
    match g.value_def(v) {
        ember_dialects::ValueDef::Output(n, _) => g.owning_block(n) == Some(b),
        ember_dialects::ValueDef::Param(..) => false,
    }
}
