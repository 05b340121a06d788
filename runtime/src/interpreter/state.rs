//! Running [`Code`]: one register file, one operand stack and a stack of frames.
//!
//! A call pushes a frame (the caller's code, its resume point and the base of its registers);
//! the callee's registers are a window above the caller's, its arguments are moved off the
//! operand stack into its first registers, and on return its outputs are left on the stack
//! for the caller to store. Calls never grow the Rust stack. The frames give errors their
//! TorchScript call stack.

use std::ops::Deref;
use std::ptr::NonNull;
use std::sync::Arc;

use ember_dialects::symbol::sym;
use ember_dialects::Symbol;

use super::calls::CallTarget;
use super::code::{Code, Inlined, Instr, OpSite};
use super::error::{RuntimeError, StackEntry};
use crate::ivalue::IValue;
use crate::ops::builtins::int_float::range_element;
use crate::ops::builtins::scalar::{BinOp, Scalar, UnOp};

/// Calls may nest this deep at run time (interface calls can cycle through objects).
pub const MAX_CALL_DEPTH: usize = 1000;

/// Runs `code` on `inputs` and returns its outputs.
pub fn run(code: &Code, inputs: Vec<IValue>) -> Result<Vec<IValue>, RuntimeError> {
    execute(code, inputs, false)
}

/// Runs `code` and reports every error with a call stack, even one raised in `code` itself
/// (the body of a fork, whose errors surface at a `wait` in another function).
pub(super) fn run_traced(code: &Code, inputs: Vec<IValue>) -> Result<Vec<IValue>, RuntimeError> {
    execute(code, inputs, true)
}

fn execute(code: &Code, inputs: Vec<IValue>, traced: bool) -> Result<Vec<IValue>, RuntimeError> {
    if inputs.len() != code.num_inputs {
        return Err(RuntimeError::new(format!(
            "expected {} inputs, got {}",
            code.num_inputs,
            inputs.len()
        )));
    }
    let mut regs: Vec<IValue> = Vec::with_capacity(code.num_registers);
    regs.extend(inputs);
    regs.resize(code.num_registers, IValue::Uninitialized);
    set_constants(&mut regs, code);
    let mut m = Machine {
        frames: Vec::new(),
        cur: Frame {
            code: CodeRef::Top(code),
            pc: 0,
            base: 0,
        },
        regs,
        stack: Vec::with_capacity(16),
        entered: Vec::new(),
        enter_kind: sym::enter(),
        exit_kind: sym::exit(),
    };
    m.run_loop().map_err(|fault| {
        m.exit_entered();
        m.traceback(*fault, traced)
    })
}

/// Sets the registers of a frame that hold constants.
fn set_constants(regs: &mut [IValue], code: &Code) {
    for &(r, c) in &code.register_constants {
        regs[r as usize] = code.constants[c as usize].clone();
    }
}

/// The code a frame runs.
enum CodeRef<'a> {
    /// The code `run` was given.
    Top(&'a Code),
    /// A callee known when its caller's code was built, held by that code's call sites.
    Static(NonNull<Code>),
    /// A method found on an object when the call ran.
    Owned(Arc<Code>),
}

impl Deref for CodeRef<'_> {
    type Target = Code;
    fn deref(&self) -> &Code {
        match self {
            CodeRef::Top(c) => c,
            // SAFETY: the pointer comes from an `Arc<Code>` in the call sites of the caller's
            // code. The caller's frame stays below this one until this one returns, and keeps
            // its code alive (by reference, by `Arc`, or in turn through its own caller), and
            // code is never changed while it runs.
            CodeRef::Static(c) => unsafe { c.as_ref() },
            CodeRef::Owned(c) => c,
        }
    }
}

struct Frame<'a> {
    code: CodeRef<'a>,
    /// The next instruction; in a suspended caller, its `Call`.
    pc: usize,
    /// Where the frame's registers start.
    base: usize,
}

/// Why the loop stopped with an error (boxed: the loop's results stay small).
type Fault = Box<FaultKind>;

enum FaultKind {
    /// An error of the current frame (at its failing node, when there is one).
    Here(RuntimeError),
    /// An error at a node of a callee inlined into the current frame's code.
    Inlined(Arc<Inlined>, RuntimeError),
    /// The error of forked code, surfacing at a `wait` of the current frame.
    Waited(OpSite, RuntimeError),
}

impl From<RuntimeError> for Fault {
    fn from(e: RuntimeError) -> Fault {
        Box::new(FaultKind::Here(e))
    }
}

struct Machine<'a> {
    /// Suspended callers, outermost first.
    frames: Vec<Frame<'a>>,
    cur: Frame<'a>,
    regs: Vec<IValue>,
    stack: Vec<IValue>,
    /// Objects of `with` blocks entered and not exited yet, innermost last: an error leaving
    /// them calls their `__exit__`, as Python does.
    entered: Vec<IValue>,
    enter_kind: Symbol,
    exit_kind: Symbol,
}

/// Why a frame stopped running its instructions.
enum Switch {
    Call(u32),
    Ret,
}

/// Runs the instructions of one frame (`code` on its registers `regs`) from `*pc` until it
/// calls or returns; `*pc` is left at that instruction.
fn run_frame(
    code: &Code,
    regs: &mut [IValue],
    stack: &mut Vec<IValue>,
    pc_out: &mut usize,
) -> Result<Switch, Fault> {
    let instrs = &code.instrs[..];
    let mut pc = *pc_out;
    assert!(regs.len() >= code.num_registers && pc < instrs.len());
    // SAFETY (of `reg!`, `reg_mut!` and the instruction fetch): `Code::check` proved when the
    // code was built that every register an instruction names is below `num_registers`,
    // which the frame's registers cover (asserted above), that every jump lands on an
    // instruction and that the code ends with `Ret`, so `pc` stays in range.
    macro_rules! reg {
        ($r:expr) => {
            unsafe { regs.get_unchecked($r as usize) }
        };
    }
    macro_rules! reg_mut {
        ($r:expr) => {
            unsafe { regs.get_unchecked_mut($r as usize) }
        };
    }
    let fail = |pc: usize, message: String| instr_fault(code, pc, message);
    // A binary operator on registers: `$fast` on the operands when it applies, else the
    // general form (which raises the errors).
    macro_rules! binary {
        ($op:expr, $fast:expr, $a:ident, $b:ident, $dst:ident) => {{
            let (x, y) = (reg!($a), reg!($b));
            match $fast(x, y) {
                Some(v) => v.store(reg_mut!($dst)),
                None => match bin_slow($op, x, y) {
                    Ok(v) => *reg_mut!($dst) = v,
                    Err(m) => {
                        *pc_out = pc;
                        return Err(fail(pc, m));
                    }
                },
            }
        }};
    }
    macro_rules! ints {
        ($op:expr, $a:ident, $b:ident, $dst:ident) => {
            binary!(
                $op,
                |x: &IValue, y: &IValue| match (x, y) {
                    (IValue::Int(x), IValue::Int(y)) => $op.ints(*x, *y),
                    _ => None,
                },
                $a,
                $b,
                $dst
            )
        };
    }
    // A branch on a comparison of two ints.
    macro_rules! int_test {
        ($op:expr, $a:ident, $b:ident, $target:ident) => {{
            let (x, y) = (reg!($a), reg!($b));
            let fast = match (x, y) {
                (IValue::Int(x), IValue::Int(y)) => $op.ints(*x, *y),
                _ => None,
            };
            let taken = match fast {
                Some(Scalar::Bool(b)) => Ok(b),
                _ => branch(bin_slow($op, x, y)),
            };
            match taken {
                Ok(true) => {}
                Ok(false) => {
                    pc = $target as usize;
                    continue;
                }
                Err(m) => {
                    *pc_out = pc;
                    return Err(fail(pc, m));
                }
            }
        }};
    }
    loop {
        match *unsafe { instrs.get_unchecked(pc) } {
            Instr::AddInt { a, b, dst } => ints!(BinOp::Add, a, b, dst),
            Instr::SubInt { a, b, dst } => ints!(BinOp::Sub, a, b, dst),
            Instr::MulInt { a, b, dst } => ints!(BinOp::Mul, a, b, dst),
            Instr::FloorDivInt { a, b, dst } => ints!(BinOp::FloorDiv, a, b, dst),
            Instr::RemInt { a, b, dst } => ints!(BinOp::Rem, a, b, dst),
            Instr::LtInt { a, b, dst } => ints!(BinOp::Lt, a, b, dst),
            Instr::LeInt { a, b, dst } => ints!(BinOp::Le, a, b, dst),
            Instr::GtInt { a, b, dst } => ints!(BinOp::Gt, a, b, dst),
            Instr::GeInt { a, b, dst } => ints!(BinOp::Ge, a, b, dst),
            Instr::EqInt { a, b, dst } => ints!(BinOp::Eq, a, b, dst),
            Instr::NeInt { a, b, dst } => ints!(BinOp::Ne, a, b, dst),
            Instr::JumpUnlessLtInt { a, b, target } => int_test!(BinOp::Lt, a, b, target),
            Instr::JumpUnlessLeInt { a, b, target } => int_test!(BinOp::Le, a, b, target),
            Instr::JumpUnlessGtInt { a, b, target } => int_test!(BinOp::Gt, a, b, target),
            Instr::JumpUnlessGeInt { a, b, target } => int_test!(BinOp::Ge, a, b, target),
            Instr::JumpUnlessEqInt { a, b, target } => int_test!(BinOp::Eq, a, b, target),
            Instr::JumpUnlessNeInt { a, b, target } => int_test!(BinOp::Ne, a, b, target),
            Instr::Bin { op, a, b, dst } => binary!(op, |x, y| op.fast(x, y), a, b, dst),
            Instr::JumpUnless { op, a, b, target } => {
                let (x, y) = (reg!(a), reg!(b));
                let taken = match op.fast(x, y) {
                    Some(Scalar::Bool(b)) => Ok(b),
                    _ => branch(bin_slow(op, x, y)),
                };
                match taken {
                    Ok(true) => {}
                    Ok(false) => {
                        pc = target as usize;
                        continue;
                    }
                    Err(m) => {
                        *pc_out = pc;
                        return Err(fail(pc, m));
                    }
                }
            }
            Instr::JumpUnlessUn { op, a, target } => {
                let x = reg!(a);
                let taken = match op.fast(x) {
                    Some(Scalar::Bool(b)) => Ok(b),
                    _ => branch(un_slow(op, x)),
                };
                match taken {
                    Ok(true) => {}
                    Ok(false) => {
                        pc = target as usize;
                        continue;
                    }
                    Err(m) => {
                        *pc_out = pc;
                        return Err(fail(pc, m));
                    }
                }
            }
            Instr::Un { op, a, dst } => {
                let x = reg!(a);
                match op.fast(x) {
                    Some(v) => v.store(reg_mut!(dst)),
                    None => match un_slow(op, x) {
                        Ok(v) => *reg_mut!(dst) = v,
                        Err(m) => {
                            *pc_out = pc;
                            return Err(fail(pc, m));
                        }
                    },
                }
            }
            Instr::Call1 { f, a, dst } => match (code.unary[f as usize])(reg!(a)) {
                Ok(v) => store(reg_mut!(dst), v),
                Err(m) => {
                    *pc_out = pc;
                    return Err(fail(pc, m));
                }
            },
            Instr::Call2 { f, a, b, dst } => match (code.binary[f as usize])(reg!(a), reg!(b)) {
                Ok(v) => store(reg_mut!(dst), v),
                Err(m) => {
                    *pc_out = pc;
                    return Err(fail(pc, m));
                }
            },
            Instr::RangeElement {
                index,
                start,
                step,
                dst,
            } => {
                let (i, a, s) = (reg!(index), reg!(start), reg!(step));
                if let (IValue::Int(i), IValue::Int(a), IValue::Int(s)) = (i, a, s) {
                    Scalar::Int(a.wrapping_add(i.wrapping_mul(*s))).store(reg_mut!(dst));
                } else {
                    match range_element(i, a, s) {
                        Ok(v) => *reg_mut!(dst) = v,
                        Err(m) => {
                            *pc_out = pc;
                            return Err(fail(pc, m));
                        }
                    }
                }
            }
            Instr::GetAttr { obj, k, dst } => match code.slot_reads[k as usize].read(reg!(obj)) {
                Ok(v) => store(reg_mut!(dst), v),
                Err(m) => {
                    *pc_out = pc;
                    return Err(fail(pc, m));
                }
            },
            Instr::Copy { src, dst } => match plain(reg!(src)) {
                Some(v) => v.store(reg_mut!(dst)),
                None => *reg_mut!(dst) = reg!(src).clone(),
            },
            Instr::Take { src, dst } => {
                *reg_mut!(dst) = std::mem::replace(reg_mut!(src), IValue::Uninitialized)
            }
            Instr::SetConst { c, dst } => *reg_mut!(dst) = code.constants[c as usize].clone(),
            Instr::Jump(target) => {
                pc = target as usize;
                continue;
            }
            Instr::JumpIfFalse { cond, target } => {
                if !truthy(reg!(cond))? {
                    pc = target as usize;
                    continue;
                }
            }
            Instr::ForEnter { trip, max, exit } => {
                *reg_mut!(trip) = IValue::Int(0);
                if 0 >= int(reg!(max))? {
                    pc = exit as usize;
                    continue;
                }
            }
            Instr::ForNext { trip, max, body } => {
                if step(reg_mut!(trip))? < int(reg!(max))? {
                    pc = body as usize;
                    continue;
                }
            }
            Instr::WhileEnter { cond, exit } => {
                if !truthy(reg!(cond))? {
                    pc = exit as usize;
                    continue;
                }
            }
            Instr::WhileNext { cond, body } => {
                if truthy(reg!(cond))? {
                    pc = body as usize;
                    continue;
                }
            }
            Instr::LoopEnter {
                trip,
                max,
                cond,
                exit,
            } => {
                *reg_mut!(trip) = IValue::Int(0);
                if 0 >= int(reg!(max))? || !truthy(reg!(cond))? {
                    pc = exit as usize;
                    continue;
                }
            }
            Instr::LoopNext {
                trip,
                max,
                cond,
                body,
            } => {
                if step(reg_mut!(trip))? < int(reg!(max))? && truthy(reg!(cond))? {
                    pc = body as usize;
                    continue;
                }
            }
            Instr::Load(r) => stack.push(reg!(r).clone()),
            Instr::Move(r) => stack.push(std::mem::replace(reg_mut!(r), IValue::Uninitialized)),
            Instr::Const(c) => stack.push(code.constants[c as usize].clone()),
            Instr::Store(r) => *reg_mut!(r) = pop(stack)?,
            Instr::Drop(r) => *reg_mut!(r) = IValue::Uninitialized,
            Instr::Pop => {
                pop(stack)?;
            }
            Instr::Op(k) => {
                if let Err(message) = (code.operations[k as usize])(stack) {
                    *pc_out = pc;
                    return Err(site_fault(message, &code.sites[k as usize]));
                }
            }
            Instr::Wait(k) => {
                let value = match pop(stack)? {
                    IValue::Future(f) => f.wait(),
                    other => {
                        return Err(site_fault(
                            format!(
                                "aten::wait expected a Future, but got {}",
                                other.kind_name()
                            ),
                            &code.waits[k as usize],
                        ))
                    }
                };
                match value {
                    Ok(v) => stack.push(v),
                    Err(e) => {
                        return Err(Box::new(FaultKind::Waited(
                            code.waits[k as usize].clone(),
                            e,
                        )))
                    }
                }
            }
            Instr::Call(k) => {
                *pc_out = pc;
                return Ok(Switch::Call(k));
            }
            Instr::Ret => {
                *pc_out = pc;
                return Ok(Switch::Ret);
            }
        }
        pc += 1;
    }
}

impl<'a> Machine<'a> {
    fn run_loop(&mut self) -> Result<Vec<IValue>, Fault> {
        loop {
            let code: *const Code = &*self.cur.code;
            // SAFETY: the current frame's code lives at least as long as the frame, which
            // stays current until `run_frame` returns.
            let code = unsafe { &*code };
            let base = self.cur.base;
            match run_frame(
                code,
                &mut self.regs[base..],
                &mut self.stack,
                &mut self.cur.pc,
            )? {
                Switch::Call(k) => self.call(k as usize)?,
                Switch::Ret => match self.frames.pop() {
                    // The callee's outputs stay on the stack for the caller's stores.
                    Some(caller) => {
                        self.regs.truncate(self.cur.base);
                        self.cur = caller;
                        self.cur.pc += 1;
                    }
                    None => return Ok(std::mem::take(&mut self.stack)),
                },
            }
        }
    }

    /// Enters the callee of call `k` of the current code: its arguments are on the stack.
    fn call(&mut self, k: usize) -> Result<(), Fault> {
        let call = &self.cur.code.calls[k];
        if call.site.kind == self.enter_kind {
            if let Some(receiver) = self.stack.last() {
                self.entered.push(receiver.clone());
            }
        } else if call.site.kind == self.exit_kind {
            self.entered.pop();
        }
        let callee = match &call.target {
            CallTarget::Code(code) => CodeRef::Static(NonNull::from(&**code)),
            CallTarget::Method(name) => {
                let site = call.site.clone();
                let (nargs, nouts) = (call.num_inputs, call.num_outputs);
                let code = self
                    .find_method(name, nargs)
                    .map_err(|m| site_fault(m, &site))?;
                if code.num_inputs != nargs || code.num_outputs != nouts {
                    return Err(site_fault(
                        format!(
                            "method '{name}' takes {} inputs and returns {} values, but the call passes {nargs} and expects {nouts}",
                            code.num_inputs, code.num_outputs
                        ),
                        &site,
                    ));
                }
                CodeRef::Owned(code)
            }
        };
        if self.frames.len() + 1 >= MAX_CALL_DEPTH {
            return Err(site_fault(
                format!("maximum call depth ({MAX_CALL_DEPTH}) exceeded"),
                &self.cur.code.calls[k].site,
            ));
        }
        let nargs = callee.num_inputs;
        if self.stack.len() < nargs {
            return Err(RuntimeError::new("interpreter stack underflow").into());
        }
        let base = self.regs.len();
        let args = self.stack.len() - nargs;
        self.regs.extend(self.stack.drain(args..));
        let rest = callee.num_registers.saturating_sub(nargs);
        self.regs
            .extend(std::iter::repeat_with(|| IValue::Uninitialized).take(rest));
        set_constants(&mut self.regs[base..], &callee);
        let caller = std::mem::replace(
            &mut self.cur,
            Frame {
                code: callee,
                pc: 0,
                base,
            },
        );
        self.frames.push(caller);
        Ok(())
    }

    /// The code of method `name` of the class of the receiver (the first of the `nargs`
    /// arguments on the stack).
    fn find_method(&self, name: &str, nargs: usize) -> Result<Arc<Code>, String> {
        let receiver = self
            .stack
            .len()
            .checked_sub(nargs)
            .and_then(|i| self.stack.get(i))
            .ok_or("interpreter stack underflow")?;
        let IValue::Object(o) = receiver else {
            return Err(format!(
                "cannot call method '{name}' on a value of type {}",
                receiver.kind_name()
            ));
        };
        let f = o
            .class
            .method(name)
            .ok_or_else(|| format!("'{}' object has no method '{name}'", o.class_name()))?;
        let unit = self.cur.code.unit.as_ref().and_then(|u| u.upgrade());
        f.code(unit.as_ref()).map_err(|e| {
            let at = e.source.map(|s| format!(" at {s}")).unwrap_or_default();
            format!("{} (in '{}'{at})", e.message, f.qualname)
        })
    }

    /// Calls `__exit__(None, None, None)` of every object whose `with` block the error
    /// leaves, innermost first. Their own errors are dropped: the first error is reported.
    fn exit_entered(&mut self) {
        let unit = self.cur.code.unit.as_ref().and_then(|u| u.upgrade());
        while let Some(obj) = self.entered.pop() {
            let IValue::Object(o) = &obj else { continue };
            let Some(f) = o.class.method("__exit__") else {
                continue;
            };
            if let Ok(code) = f.code(unit.as_ref()) {
                let args = vec![obj.clone(), IValue::None, IValue::None, IValue::None];
                if code.num_inputs == args.len() {
                    let _ = run(&code, args);
                }
            }
        }
    }

    /// The error with the call stack of the frames it passed through.
    fn traceback(&self, fault: FaultKind, traced: bool) -> RuntimeError {
        let mut entries: Vec<StackEntry> = self
            .frames
            .iter()
            .flat_map(|f| match f.code.instrs.get(f.pc) {
                Some(Instr::Call(k)) => entries(&f.code.name, &f.code.calls[*k as usize].site),
                _ => Vec::new(),
            })
            .collect();
        match fault {
            FaultKind::Here(e) if entries.is_empty() && !traced => e,
            FaultKind::Here(mut e) => {
                if let (Some(node), Some(kind)) = (e.node, e.kind) {
                    entries.push(StackEntry {
                        function: self.cur.code.name.clone(),
                        node,
                        kind,
                        source: e.source.clone(),
                    });
                }
                e.call_stack = entries;
                e
            }
            FaultKind::Inlined(chain, mut e) => {
                entries.extend(calls_of(&self.cur.code.name, &chain));
                if let (Some(node), Some(kind)) = (e.node, e.kind) {
                    entries.push(StackEntry {
                        function: chain.functions.last().cloned().unwrap_or_default(),
                        node,
                        kind,
                        source: e.source.clone(),
                    });
                }
                e.call_stack = entries;
                e
            }
            FaultKind::Waited(site, mut e) => {
                entries.extend(self::entries(&self.cur.code.name, &site));
                entries.append(&mut e.call_stack);
                e.call_stack = entries;
                e
            }
        }
    }
}

/// The traceback entries of `site` in the code of `function`: one per call it was inlined
/// through, and its own.
fn entries(function: &str, site: &OpSite) -> Vec<StackEntry> {
    let Some(chain) = &site.inlined else {
        return vec![entry(function, site)];
    };
    let mut out = calls_of(function, chain);
    let innermost = chain.functions.last().map_or(function, String::as_str);
    out.push(entry(innermost, site));
    out
}

/// One entry per inlined call, in the function that made it.
fn calls_of(function: &str, chain: &Inlined) -> Vec<StackEntry> {
    chain
        .calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let caller = if i == 0 {
                function
            } else {
                &chain.functions[i - 1]
            };
            entry(caller, call)
        })
        .collect()
}

fn entry(function: &str, site: &OpSite) -> StackEntry {
    StackEntry {
        function: function.to_string(),
        node: site.node,
        kind: site.kind,
        source: site.source.clone(),
    }
}

/// The fault of an error at `site`.
fn site_fault(message: String, site: &OpSite) -> Fault {
    let e = site_error(message, site);
    match &site.inlined {
        Some(chain) => Box::new(FaultKind::Inlined(chain.clone(), e)),
        None => e.into(),
    }
}

fn site_error(message: String, site: &OpSite) -> RuntimeError {
    RuntimeError {
        message,
        node: Some(site.node),
        kind: Some(site.kind),
        source: site.source.clone(),
        call_stack: Vec::new(),
    }
}

fn pop(stack: &mut Vec<IValue>) -> Result<IValue, RuntimeError> {
    stack
        .pop()
        .ok_or_else(|| RuntimeError::new("interpreter stack underflow"))
}

/// An error of the register instruction at `pc`, at its node.
#[cold]
#[inline(never)]
fn instr_fault(code: &Code, pc: usize, message: String) -> Fault {
    match code.instr_site(pc) {
        Some(site) => site_fault(message, site),
        None => RuntimeError::new(message).into(),
    }
}

/// The general form of a binary scalar operator, off the fast path.
#[cold]
#[inline(never)]
fn bin_slow(op: BinOp, x: &IValue, y: &IValue) -> Result<IValue, String> {
    op.apply(x, y)
}

#[cold]
#[inline(never)]
fn un_slow(op: UnOp, x: &IValue) -> Result<IValue, String> {
    op.apply(x)
}

/// Stores `v` into a register, in place when it is a plain value.
#[inline(always)]
fn store(slot: &mut IValue, v: IValue) {
    match plain(&v) {
        Some(s) => s.store(slot),
        None => *slot = v,
    }
}

/// An int, float or bool as a [`Scalar`] (copied without a reference count or destructor).
#[inline(always)]
fn plain(v: &IValue) -> Option<Scalar> {
    match v {
        IValue::Int(i) => Some(Scalar::Int(*i)),
        IValue::Double(d) => Some(Scalar::Float(*d)),
        IValue::Bool(b) => Some(Scalar::Bool(*b)),
        _ => None,
    }
}

/// The outcome of a branch's test, which gives a bool.
#[inline(always)]
fn branch(v: Result<IValue, String>) -> Result<bool, String> {
    match v? {
        IValue::Bool(b) => Ok(b),
        other => Err(format!(
            "expected a bool condition, got {}",
            other.kind_name()
        )),
    }
}

fn truthy(v: &IValue) -> Result<bool, RuntimeError> {
    match v {
        IValue::Bool(b) => Ok(*b),
        other => Err(RuntimeError::new(format!(
            "expected a bool condition, got {}",
            other.kind_name()
        ))),
    }
}

/// Adds one to a trip counter and returns it.
fn step(v: &mut IValue) -> Result<i64, RuntimeError> {
    match v {
        IValue::Int(i) => {
            *i = i.wrapping_add(1);
            Ok(*i)
        }
        other => int(other),
    }
}

fn int(v: &IValue) -> Result<i64, RuntimeError> {
    match v {
        IValue::Int(i) => Ok(*i),
        other => Err(RuntimeError::new(format!(
            "expected an int trip count, got {}",
            other.kind_name()
        ))),
    }
}
