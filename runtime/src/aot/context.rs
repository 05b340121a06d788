//! What compiled code calls: the `ember_rt_*` functions of the contract (see the module
//! above), over a per-call [`Context`] (the registers and the first error) and a per-model
//! [`Program`] (the graph, its nodes in the contract's numbering and their operations, each
//! built once and shared by every call and thread).

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use ember_dialects::symbol::sym;
use ember_dialects::{AttrValue, Graph, Node, Symbol, Type};

use crate::guard::value_matches;
use crate::interpreter::{panic_message, RuntimeError};
use crate::ivalue::IValue;
use crate::kernel_abi::JitKernelFn;
use crate::kernel_launch::{self, LaunchCache, PointwiseKernel};
use crate::ops::registry::registry;
use crate::ops::Operation;

/// How a node's input or output crosses the call: a machine scalar or a register.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Slot {
    Int,
    Float,
    Bool,
    Register,
}

impl Slot {
    fn of(ty: &Type) -> Slot {
        match ty {
            Type::Int => Slot::Int,
            Type::Float => Slot::Float,
            Type::Bool => Slot::Bool,
            _ => Slot::Register,
        }
    }
}

/// A node's operation: a constant's value, an operation on the stack, or a fusion group.
enum NodeOp {
    Value(IValue),
    Run(Operation),
    Group(GroupOp),
}

/// A `prim::TensorExprGroup` node: the description of the kernel compiled code passes to
/// `ember_rt_group` (rebuilt from the subgraph, as the compiler built it), the subgraph's input
/// types (the group's guard: the kernel was built for them), and the subgraph interpreted,
/// which runs the group when the guard fails, when there is no kernel, or for `ember_rt_op`.
struct GroupOp {
    kernel: Option<PointwiseKernel>,
    launches: LaunchCache,
    guard: Vec<Type>,
    interpreted: Operation,
}

impl GroupOp {
    fn build(g: &Graph, n: Node, interpreted: Operation) -> GroupOp {
        let body = match g.attr(n, sym::attr_subgraph()) {
            Some(AttrValue::Graph(body)) => Some(body),
            _ => None,
        };
        GroupOp {
            kernel: body.and_then(|b| kernel_launch::build(b).ok()),
            launches: LaunchCache::default(),
            guard: body
                .map(|b| b.inputs().iter().map(|&v| b.ty(v).clone()).collect())
                .unwrap_or_default(),
            interpreted,
        }
    }

    /// The group's outputs: the kernel's when `entry` is given and the inputs are what it was
    /// built for (and it accepts them), else the interpreter's.
    fn run(
        &self,
        entry: Option<JitKernelFn>,
        mut stack: Vec<IValue>,
    ) -> Result<Vec<IValue>, String> {
        if let (Some(entry), Some(kernel)) = (entry, &self.kernel) {
            let guard_holds = stack.len() == self.guard.len()
                && self
                    .guard
                    .iter()
                    .zip(&stack)
                    .all(|(ty, v)| value_matches(ty, v));
            if guard_holds {
                if let Ok(outputs) = kernel_launch::run(kernel, entry, &stack, &self.launches) {
                    return Ok(outputs);
                }
            }
        }
        (self.interpreted)(&mut stack)?;
        Ok(stack)
    }
}

/// A model's graph with its nodes numbered as the contract says (pre-order) and their
/// operations, built on first use.
pub struct Program {
    graph: Graph,
    nodes: Vec<Node>,
    inputs: Vec<Vec<Slot>>,
    outputs: Vec<Vec<Slot>>,
    ops: Vec<OnceLock<Result<NodeOp, RuntimeError>>>,
}

/// Kinds the interpreter runs itself (control flow, calls, objects, forks, context
/// managers): the registry has no operation for them, and compiled code lowers them.
const INTERPRETER_KINDS: &[&str] = &[
    "prim::If",
    "prim::Loop",
    "prim::CallFunction",
    "prim::CallMethod",
    "prim::fork",
    "aten::wait",
    "prim::Enter",
    "prim::Exit",
    "prim::GetAttr",
    "prim::SetAttr",
    "prim::CreateObject",
];

impl Program {
    pub fn new(graph: Graph) -> Program {
        let nodes = graph.nodes();
        let slots = |vs: &[ember_dialects::Value]| -> Vec<Slot> {
            vs.iter().map(|&v| Slot::of(graph.ty(v))).collect()
        };
        let inputs = nodes.iter().map(|&n| slots(graph.node_inputs(n))).collect();
        let outputs = nodes
            .iter()
            .map(|&n| slots(graph.node_outputs(n)))
            .collect();
        let ops = nodes.iter().map(|_| OnceLock::new()).collect();
        Program {
            graph,
            nodes,
            inputs,
            outputs,
            ops,
        }
    }

    /// [`Program::new`], with the graph's inputs from `first_weight` on (the weights) made
    /// constants holding `weights` for the operators built from it: operators pack constant
    /// weights once (GEMM panels) as they do in a frozen graph. The nodes keep their numbers
    /// (the constants are new nodes, numbered by nobody), and compiled code still passes the
    /// weights in their registers.
    pub fn with_weights(
        graph: Graph,
        first_weight: usize,
        weights: &[crate::tensor::Tensor],
    ) -> Program {
        use ember_dialects::attr::{AttrValue, Handle, TensorLiteral};
        let mut p = Program::new(graph);
        let g = &mut p.graph;
        let inputs: Vec<_> = g.inputs()[first_weight..].to_vec();
        for (&input, w) in inputs.iter().zip(weights) {
            let literal = TensorLiteral {
                dtype: w.dtype().scalar_type(),
                sizes: w.sizes().to_vec(),
                data: None,
                printed: None,
                handle: Some(Handle(std::sync::Arc::new(w.clone()))),
            };
            let c = g.create(Symbol::new("prim::Constant"), &[], 1);
            g.set_attr(c, Symbol::attr("value"), AttrValue::Tensor(literal));
            g.set_ty(g.output(c, 0), g.ty(input).clone());
            g.prepend_node(c);
            g.replace_all_uses_with(input, g.output(c, 0));
        }
        p
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// The node numbered `i` (pre-order over the graph).
    pub fn node(&self, i: usize) -> Option<Node> {
        self.nodes.get(i).copied()
    }

    pub fn num_nodes(&self) -> usize {
        self.nodes.len()
    }

    /// An error raised by node `n`, located as the interpreter locates its errors.
    fn error_at(&self, n: Node, message: impl Into<String>) -> RuntimeError {
        RuntimeError {
            node: Some(n),
            kind: Some(self.graph.kind(n)),
            source: self.graph.source_range(n).cloned(),
            ..RuntimeError::new(message)
        }
    }

    /// The operation of node `i`, built the first time any call asks.
    fn op(&self, i: usize) -> &Result<NodeOp, RuntimeError> {
        self.ops[i].get_or_init(|| {
            let (g, n) = (&self.graph, self.nodes[i]);
            let kind = g.kind(n);
            if INTERPRETER_KINDS.iter().any(|k| kind == Symbol::new(k))
                || !g.node_blocks(n).is_empty()
            {
                return Err(self.error_at(
                    n,
                    format!(
                        "ember_rt_op cannot run '{kind}': the interpreter runs it itself \
                         (control flow, calls, objects and forks have no operator), so \
                         compiled code must lower it"
                    ),
                ));
            }
            let operation = registry().build(g, n).map_err(|m| self.error_at(n, m))?;
            if kind == sym::tensor_expr_group() {
                return Ok(NodeOp::Group(GroupOp::build(g, n, operation)));
            }
            if kind != Symbol::new("prim::Constant") {
                return Ok(NodeOp::Run(operation));
            }
            // Constants run once, as the interpreter runs them when it builds its code.
            let mut stack = Vec::new();
            operation(&mut stack).map_err(|m| self.error_at(n, m))?;
            match (stack.pop(), stack.is_empty()) {
                (Some(v), true) => Ok(NodeOp::Value(v)),
                _ => Err(self.error_at(n, "prim::Constant must give one value")),
            }
        })
    }
}

/// One call's state: its registers and the first error.
#[repr(C)]
pub struct Context<'p> {
    /// 1 once the call has failed: the `int32_t` at offset 0 that compiled code loads in its
    /// loop conditions (a load, where a call of `ember_rt_failed` would make it save its
    /// registers every iteration).
    failed: i32,
    program: &'p Program,
    regs: Vec<Option<IValue>>,
    error: Option<RuntimeError>,
}

impl<'p> Context<'p> {
    pub fn new(program: &'p Program, num_registers: usize) -> Context<'p> {
        Context {
            failed: 0,
            program,
            regs: vec![None; num_registers],
            error: None,
        }
    }

    /// The pointer compiled code receives as `ctx`.
    pub fn as_ptr(&mut self) -> *mut c_void {
        self as *mut Context<'p> as *mut c_void
    }

    /// Puts `v` in register `r` (the graph's inputs, before the call).
    pub fn set(&mut self, r: usize, v: IValue) -> Result<(), String> {
        let n = self.regs.len();
        let slot = self
            .regs
            .get_mut(r)
            .ok_or_else(|| format!("register {r} out of range ({n} registers)"))?;
        *slot = Some(v);
        Ok(())
    }

    /// Empties register `r` and gives its value (the graph's outputs, after the call).
    pub fn take(&mut self, r: usize) -> Option<IValue> {
        self.regs.get_mut(r).and_then(Option::take)
    }

    /// Whether register `r` holds a value.
    pub fn holds(&self, r: usize) -> bool {
        self.regs.get(r).is_some_and(Option::is_some)
    }

    pub fn error(&self) -> Option<&RuntimeError> {
        self.error.as_ref()
    }

    pub fn failed(&self) -> bool {
        self.failed != 0
    }

    fn fail(&mut self, e: RuntimeError) {
        if self.error.is_none() {
            self.error = Some(e);
            self.failed = 1;
        }
    }

    fn register(&self, r: i64) -> Result<usize, String> {
        usize::try_from(r)
            .ok()
            .filter(|&r| r < self.regs.len())
            .ok_or_else(|| format!("register {r} out of range ({} registers)", self.regs.len()))
    }

    fn copy_of(&self, r: i64) -> Result<IValue, String> {
        let i = self.register(r)?;
        self.regs[i]
            .clone()
            .ok_or_else(|| format!("register {r} is empty"))
    }

    fn moved(&mut self, r: i64) -> Result<IValue, String> {
        let i = self.register(r)?;
        self.regs[i]
            .take()
            .ok_or_else(|| format!("register {r} is empty"))
    }

    /// `ember_rt_op` on checked arguments: `args` and `outs` have one entry per input and
    /// output of the node.
    fn run_node(&mut self, i: usize, args: &[i64], outs: &mut [i64]) -> Result<(), RuntimeError> {
        let program = self.program;
        let n = program.nodes[i];
        let mut stack = self.node_inputs(i, args)?;
        match program.op(i) {
            Ok(NodeOp::Value(v)) => stack.push(v.clone()),
            Ok(NodeOp::Run(operation)) => {
                operation(&mut stack).map_err(|m| program.error_at(n, m))?
            }
            Ok(NodeOp::Group(group)) => {
                stack = group.run(None, stack).map_err(|m| program.error_at(n, m))?
            }
            Err(e) => return Err(e.clone()),
        }
        self.node_outputs(i, stack, outs)
    }

    /// `ember_rt_group` on checked arguments: the group's kernel `entry` (none: interpreted).
    fn run_group(
        &mut self,
        i: usize,
        entry: Option<JitKernelFn>,
        args: &[i64],
        outs: &mut [i64],
    ) -> Result<(), RuntimeError> {
        let program = self.program;
        let n = program.nodes[i];
        let stack = self.node_inputs(i, args)?;
        let outputs = match program.op(i) {
            Ok(NodeOp::Group(group)) => group.run(entry, stack),
            Ok(_) => Err(format!(
                "ember_rt_group ran node {i}, a {}, not a prim::TensorExprGroup",
                program.graph.kind(n)
            )),
            Err(e) => return Err(e.clone()),
        }
        .map_err(|m| program.error_at(n, m))?;
        self.node_outputs(i, outputs, outs)
    }

    /// The values of node `i`'s inputs as `args` passes them (see the contract).
    fn node_inputs(&mut self, i: usize, args: &[i64]) -> Result<Vec<IValue>, RuntimeError> {
        let program = self.program;
        let n = program.nodes[i];
        let mut stack = Vec::with_capacity(args.len().max(program.outputs[i].len()));
        for (&a, &slot) in args.iter().zip(&program.inputs[i]) {
            stack.push(
                match slot {
                    Slot::Int => Ok(IValue::Int(a)),
                    Slot::Float => Ok(IValue::Double(f64::from_bits(a as u64))),
                    Slot::Bool => Ok(IValue::Bool(a != 0)),
                    Slot::Register if a >= 0 => self.copy_of(a),
                    // `-(r + 1)`: moved; `a` is at least i64::MIN, so `-(a + 1)` cannot overflow.
                    Slot::Register => self.moved(-(a + 1)),
                }
                .map_err(|m| program.error_at(n, m))?,
            );
        }
        Ok(stack)
    }

    /// Writes node `i`'s outputs `stack` as `outs` asks (see the contract).
    fn node_outputs(
        &mut self,
        i: usize,
        stack: Vec<IValue>,
        outs: &mut [i64],
    ) -> Result<(), RuntimeError> {
        let program = self.program;
        let n = program.nodes[i];
        if stack.len() != outs.len() {
            let m = format!("gave {} values for {} outputs", stack.len(), outs.len());
            return Err(program.error_at(n, m));
        }
        for (j, (v, &slot)) in stack.into_iter().zip(&program.outputs[i]).enumerate() {
            let bits = match (slot, v) {
                (Slot::Int, IValue::Int(x)) => x,
                (Slot::Float, IValue::Double(x)) => x.to_bits() as i64,
                (Slot::Bool, IValue::Bool(x)) => x as i64,
                (Slot::Register, v) => {
                    let r = self.register(outs[j]).map_err(|m| program.error_at(n, m))?;
                    self.regs[r] = Some(v);
                    continue;
                }
                (slot, v) => {
                    let m = format!(
                        "output {j} is a {}, but the graph types it {slot:?}",
                        v.kind_name()
                    );
                    return Err(program.error_at(n, m));
                }
            };
            outs[j] = bits;
        }
        Ok(())
    }

    fn zero_scalar_outputs(&self, i: usize, outs: &mut [i64]) {
        for (o, &slot) in outs.iter_mut().zip(&self.program.outputs[i]) {
            if slot != Slot::Register {
                *o = 0;
            }
        }
    }
}

/// The context behind `ctx`, or `None` for a null pointer.
///
/// # Safety
/// `ctx` is null or the pointer a live [`Context`] gave with [`Context::as_ptr`], used by one
/// thread at a time.
unsafe fn context<'a>(ctx: *mut c_void) -> Option<&'a mut Context<'a>> {
    (ctx as *mut Context<'a>).as_mut()
}

/// Runs `f` on the context, turning a panic into the context's error.
fn guarded<R>(cx: &mut Context, on_panic: R, what: &str, f: impl FnOnce(&mut Context) -> R) -> R {
    match catch_unwind(AssertUnwindSafe(|| f(&mut *cx))) {
        Ok(r) => r,
        Err(payload) => {
            let detail = panic_message(&*payload);
            cx.fail(RuntimeError::new(format!(
                "internal error: {what} panicked: {detail}"
            )));
            on_panic
        }
    }
}

/// Runs node `node` (see the contract): 0, or 1 with the error in the context.
///
/// # Safety
/// `ctx` comes from [`Context::as_ptr`]; `args` points to one `int64_t` per input of the node
/// and `outs` to one per output (either may be null when there are none).
#[no_mangle]
pub unsafe extern "C" fn ember_rt_op(
    ctx: *mut c_void,
    node: i64,
    args: *const i64,
    outs: *mut i64,
) -> i32 {
    run_checked(ctx, "ember_rt_op", node, args, outs, |cx, i, args, outs| {
        cx.run_node(i, args, outs)
    })
}

/// Runs fusion group `node` (see the contract) with the best of `kernels`, the forms of the
/// group's compiled kernel for AVX-512, AVX2 and baseline x86-64 in that order, that this CPU
/// runs (`ops::cpu::isa`); null, or only null forms it can run: the group's subgraph in the
/// interpreter. 0, or 1 with the error in the context.
///
/// # Safety
/// As [`ember_rt_op`]; `kernels` is null or points to three pointers, each null or a
/// [`JitKernelFn`] compiled for the kernel that the runtime builds from the node's subgraph.
#[no_mangle]
pub unsafe extern "C" fn ember_rt_group(
    ctx: *mut c_void,
    node: i64,
    kernels: *const *const c_void,
    args: *const i64,
    outs: *mut i64,
) -> i32 {
    let usable = match crate::ops::cpu::isa() {
        crate::ops::cpu::Isa::Avx512 => 0..3,
        crate::ops::cpu::Isa::Avx2 => 1..3,
        crate::ops::cpu::Isa::Baseline => 2..3,
    };
    let kernel = if kernels.is_null() {
        std::ptr::null()
    } else {
        // SAFETY: a non-null `kernels` holds three pointers (the caller's promise).
        usable
            .map(|i| *kernels.add(i))
            .find(|k| !k.is_null())
            .unwrap_or(std::ptr::null())
    };
    // SAFETY: a non-null form is a `JitKernelFn` (the caller's promise).
    let entry =
        (!kernel.is_null()).then(|| std::mem::transmute::<*const c_void, JitKernelFn>(kernel));
    run_checked(
        ctx,
        "ember_rt_group",
        node,
        args,
        outs,
        |cx, i, args, outs| cx.run_group(i, entry, args, outs),
    )
}

/// The checks `ember_rt_op` and `ember_rt_group` share (the context, the node number, the
/// arrays, an earlier failure), then `run` on the node's arguments.
///
/// # Safety
/// As [`ember_rt_op`].
unsafe fn run_checked(
    ctx: *mut c_void,
    what: &str,
    node: i64,
    args: *const i64,
    outs: *mut i64,
    run: impl FnOnce(&mut Context, usize, &[i64], &mut [i64]) -> Result<(), RuntimeError>,
) -> i32 {
    let Some(cx) = context(ctx) else { return 1 };
    guarded(cx, 1, what, |cx| {
        let program = cx.program;
        let Some(i) = usize::try_from(node)
            .ok()
            .filter(|&i| i < program.num_nodes())
        else {
            let m = format!(
                "compiled code ran node {node}; the graph has {} nodes",
                program.num_nodes()
            );
            cx.fail(RuntimeError::new(m));
            return 1;
        };
        let (n_in, n_out) = (program.inputs[i].len(), program.outputs[i].len());
        if (n_in > 0 && args.is_null()) || (n_out > 0 && outs.is_null()) {
            let m = format!("{what} got a null argument or output array");
            cx.fail(program.error_at(program.nodes[i], m));
            return 1;
        }
        let args = if n_in == 0 {
            &[][..]
        } else {
            std::slice::from_raw_parts(args, n_in)
        };
        let outs = if n_out == 0 {
            &mut [][..]
        } else {
            std::slice::from_raw_parts_mut(outs, n_out)
        };
        if cx.failed() {
            cx.zero_scalar_outputs(i, outs);
            return 1;
        }
        match run(cx, i, args, outs) {
            Ok(()) => 0,
            Err(e) => {
                cx.fail(e);
                cx.zero_scalar_outputs(i, outs);
                1
            }
        }
    })
}

/// The bits of the int, float or bool in `reg`, which keeps it; anything else is an error
/// (and 0).
///
/// # Safety
/// `ctx` comes from [`Context::as_ptr`].
#[no_mangle]
pub unsafe extern "C" fn ember_rt_unbox(ctx: *mut c_void, reg: i64) -> i64 {
    let Some(cx) = context(ctx) else { return 0 };
    guarded(cx, 0, "ember_rt_unbox", |cx| {
        if cx.failed() {
            return 0;
        }
        let bits = match cx.copy_of(reg) {
            Ok(IValue::Int(x)) => Ok(x),
            Ok(IValue::Double(x)) => Ok(x.to_bits() as i64),
            Ok(IValue::Bool(x)) => Ok(x as i64),
            Ok(v) => Err(format!(
                "cannot unbox a {} in register {reg} as a scalar",
                v.kind_name()
            )),
            Err(m) => Err(m),
        };
        bits.unwrap_or_else(|m| {
            cx.fail(RuntimeError::new(m));
            0
        })
    })
}

/// Puts an int (`kind` 0), a float (1, the bits of a `double`) or a bool (2) in `reg`.
///
/// # Safety
/// `ctx` comes from [`Context::as_ptr`].
#[no_mangle]
pub unsafe extern "C" fn ember_rt_box(ctx: *mut c_void, reg: i64, kind: i64, bits: i64) {
    let Some(cx) = context(ctx) else { return };
    guarded(cx, (), "ember_rt_box", |cx| {
        if cx.failed() {
            return;
        }
        let v = match kind {
            0 => IValue::Int(bits),
            1 => IValue::Double(f64::from_bits(bits as u64)),
            2 => IValue::Bool(bits != 0),
            _ => {
                cx.fail(RuntimeError::new(format!(
                    "ember_rt_box: unknown kind {kind} (0 int, 1 float, 2 bool)"
                )));
                return;
            }
        };
        match cx.register(reg) {
            Ok(r) => cx.regs[r] = Some(v),
            Err(m) => cx.fail(RuntimeError::new(m)),
        }
    })
}

/// Copies `src` into `dst` (`move_` also empties `src`; a no-op when they are the same).
fn transfer(cx: &mut Context, dst: i64, src: i64, move_: bool) {
    if cx.failed() {
        return;
    }
    let moved = match (cx.register(dst), move_) {
        (Err(m), _) => Err(m),
        (Ok(_), true) if dst == src => cx.copy_of(src).map(|_| ()),
        (Ok(d), true) => cx.moved(src).map(|v| cx.regs[d] = Some(v)),
        (Ok(d), false) => cx.copy_of(src).map(|v| cx.regs[d] = Some(v)),
    };
    if let Err(m) = moved {
        cx.fail(RuntimeError::new(m));
    }
}

/// # Safety
/// `ctx` comes from [`Context::as_ptr`].
#[no_mangle]
pub unsafe extern "C" fn ember_rt_copy(ctx: *mut c_void, dst: i64, src: i64) {
    let Some(cx) = context(ctx) else { return };
    guarded(cx, (), "ember_rt_copy", |cx| transfer(cx, dst, src, false))
}

/// # Safety
/// `ctx` comes from [`Context::as_ptr`].
#[no_mangle]
pub unsafe extern "C" fn ember_rt_move(ctx: *mut c_void, dst: i64, src: i64) {
    let Some(cx) = context(ctx) else { return };
    guarded(cx, (), "ember_rt_move", |cx| transfer(cx, dst, src, true))
}

/// Empties `reg` (dropping an empty register is allowed: error paths skip producers).
///
/// # Safety
/// `ctx` comes from [`Context::as_ptr`].
#[no_mangle]
pub unsafe extern "C" fn ember_rt_drop(ctx: *mut c_void, reg: i64) {
    let Some(cx) = context(ctx) else { return };
    guarded(cx, (), "ember_rt_drop", |cx| match cx.register(reg) {
        Ok(r) => cx.regs[r] = None,
        Err(m) => cx.fail(RuntimeError::new(m)),
    })
}

/// 1 once a call of this context has failed.
///
/// # Safety
/// `ctx` comes from [`Context::as_ptr`].
#[no_mangle]
pub unsafe extern "C" fn ember_rt_failed(ctx: *mut c_void) -> i32 {
    match context(ctx) {
        Some(cx) => cx.failed() as i32,
        None => 1,
    }
}

/// The `ember_rt_*` functions by name and address, for a JIT binding in-process compiled
/// code to them (a Rust executable does not export them to the dynamic linker).
pub fn rt_symbols() -> [(&'static str, usize); 8] {
    [
        ("ember_rt_op", ember_rt_op as *const () as usize),
        ("ember_rt_unbox", ember_rt_unbox as *const () as usize),
        ("ember_rt_box", ember_rt_box as *const () as usize),
        ("ember_rt_copy", ember_rt_copy as *const () as usize),
        ("ember_rt_move", ember_rt_move as *const () as usize),
        ("ember_rt_drop", ember_rt_drop as *const () as usize),
        ("ember_rt_failed", ember_rt_failed as *const () as usize),
        ("ember_rt_group", ember_rt_group as *const () as usize),
    ]
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
