//! Running [`Code`]: one register file, one operand stack and a stack of frames.
//!
//! A call pushes a frame (the caller's code, its resume point and the base of its registers);
//! the callee's registers are a window above the caller's, its arguments are moved off the
//! operand stack into its first registers, and on return its outputs are left on the stack
//! for the caller to store. Calls never grow the Rust stack. The frames give errors their
//! TorchScript call stack.

use std::ops::Deref;
use std::sync::Arc;

use ember_dialects::symbol::sym;
use ember_dialects::Symbol;

use super::calls::CallTarget;
use super::code::{Code, Instr, OpSite};
use super::error::{RuntimeError, StackEntry};
use crate::ivalue::IValue;

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
        m.traceback(fault, traced)
    })
}

/// The code a frame runs: the one `run` was given, or a callee's.
enum CodeRef<'a> {
    Top(&'a Code),
    Callee(Arc<Code>),
}

impl Deref for CodeRef<'_> {
    type Target = Code;
    fn deref(&self) -> &Code {
        match self {
            CodeRef::Top(c) => c,
            CodeRef::Callee(c) => c,
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

/// Why the loop stopped with an error.
enum Fault {
    /// An error of the current frame (at its failing node, when there is one).
    Here(RuntimeError),
    /// The error of forked code, surfacing at a `wait` of the current frame.
    Waited(OpSite, RuntimeError),
}

impl From<RuntimeError> for Fault {
    fn from(e: RuntimeError) -> Fault {
        Fault::Here(e)
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

impl<'a> Machine<'a> {
    fn run_loop(&mut self) -> Result<Vec<IValue>, Fault> {
        loop {
            let base = self.cur.base;
            let pc = self.cur.pc;
            let regs = &mut self.regs;
            let stack = &mut self.stack;
            match self.cur.code.instrs[pc] {
                Instr::Load(r) => stack.push(regs[base + r as usize].clone()),
                Instr::Move(r) => stack.push(std::mem::replace(
                    &mut regs[base + r as usize],
                    IValue::Uninitialized,
                )),
                Instr::Const(c) => stack.push(self.cur.code.constants[c as usize].clone()),
                Instr::Store(r) => regs[base + r as usize] = pop(stack)?,
                Instr::Drop(r) => regs[base + r as usize] = IValue::Uninitialized,
                Instr::Pop => {
                    pop(stack)?;
                }
                Instr::Op(k) => {
                    let code = &*self.cur.code;
                    if let Err(message) = (code.operations[k as usize])(stack) {
                        return Err(Fault::Here(site_error(message, &code.sites[k as usize])));
                    }
                }
                Instr::JumpIfFalse(target) => {
                    if !truthy(&pop(stack)?)? {
                        self.cur.pc = target as usize;
                        continue;
                    }
                }
                Instr::Jump(target) => {
                    self.cur.pc = target as usize;
                    continue;
                }
                Instr::ZeroInt(r) => regs[base + r as usize] = IValue::Int(0),
                Instr::Increment(r) => {
                    if let IValue::Int(i) = &mut regs[base + r as usize] {
                        *i += 1;
                    }
                }
                Instr::ForTest { trip, max, exit } => {
                    if int(&regs[base + trip as usize])? >= int(&regs[base + max as usize])? {
                        self.cur.pc = exit as usize;
                        continue;
                    }
                }
                Instr::WhileTest { cond, exit } => {
                    if !truthy(&regs[base + cond as usize])? {
                        self.cur.pc = exit as usize;
                        continue;
                    }
                }
                Instr::LoopTest {
                    trip,
                    max,
                    cond,
                    exit,
                } => {
                    if int(&regs[base + trip as usize])? >= int(&regs[base + max as usize])?
                        || !truthy(&regs[base + cond as usize])?
                    {
                        self.cur.pc = exit as usize;
                        continue;
                    }
                }
                Instr::Call(k) => {
                    self.call(k as usize)?;
                    continue;
                }
                Instr::Wait(k) => {
                    let value = match pop(stack)? {
                        IValue::Future(f) => f.wait(),
                        other => {
                            return Err(Fault::Here(site_error(
                                format!(
                                    "aten::wait expected a Future, but got {}",
                                    other.kind_name()
                                ),
                                &self.cur.code.waits[k as usize],
                            )))
                        }
                    };
                    match value {
                        Ok(v) => stack.push(v),
                        Err(e) => {
                            return Err(Fault::Waited(self.cur.code.waits[k as usize].clone(), e))
                        }
                    }
                }
                Instr::Ret => match self.frames.pop() {
                    // The callee's outputs stay on the stack for the caller's stores.
                    Some(caller) => {
                        self.regs.truncate(self.cur.base);
                        self.cur = caller;
                        self.cur.pc += 1;
                        continue;
                    }
                    None => return Ok(std::mem::take(stack)),
                },
            }
            self.cur.pc += 1;
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
            CallTarget::Code(code) => code.clone(),
            CallTarget::Method(name) => {
                let site = call.site.clone();
                let (nargs, nouts) = (call.num_inputs, call.num_outputs);
                let code = self
                    .find_method(name, nargs)
                    .map_err(|m| site_error(m, &site))?;
                if code.num_inputs != nargs || code.num_outputs != nouts {
                    return Err(Fault::Here(site_error(
                        format!(
                            "method '{name}' takes {} inputs and returns {} values, but the call passes {nargs} and expects {nouts}",
                            code.num_inputs, code.num_outputs
                        ),
                        &site,
                    )));
                }
                code
            }
        };
        if self.frames.len() + 1 >= MAX_CALL_DEPTH {
            return Err(Fault::Here(site_error(
                format!("maximum call depth ({MAX_CALL_DEPTH}) exceeded"),
                &self.cur.code.calls[k].site,
            )));
        }
        let nargs = callee.num_inputs;
        if self.stack.len() < nargs {
            return Err(Fault::Here(RuntimeError::new(
                "interpreter stack underflow",
            )));
        }
        let base = self.regs.len();
        self.regs
            .resize(base + callee.num_registers, IValue::Uninitialized);
        let args = self.stack.drain(self.stack.len() - nargs..);
        for (slot, v) in self.regs[base..base + nargs].iter_mut().zip(args) {
            *slot = v;
        }
        let caller = std::mem::replace(
            &mut self.cur,
            Frame {
                code: CodeRef::Callee(callee),
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
    fn traceback(&self, fault: Fault, traced: bool) -> RuntimeError {
        let mut entries: Vec<StackEntry> = self
            .frames
            .iter()
            .filter_map(|f| match f.code.instrs.get(f.pc) {
                Some(Instr::Call(k)) => Some(entry(&f.code.name, &f.code.calls[*k as usize].site)),
                _ => None,
            })
            .collect();
        match fault {
            Fault::Here(e) if entries.is_empty() && !traced => e,
            Fault::Here(mut e) => {
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
            Fault::Waited(site, mut e) => {
                entries.push(entry(&self.cur.code.name, &site));
                entries.append(&mut e.call_stack);
                e.call_stack = entries;
                e
            }
        }
    }
}

fn entry(function: &str, site: &OpSite) -> StackEntry {
    StackEntry {
        function: function.to_string(),
        node: site.node,
        kind: site.kind,
        source: site.source.clone(),
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

fn truthy(v: &IValue) -> Result<bool, RuntimeError> {
    match v {
        IValue::Bool(b) => Ok(*b),
        other => Err(RuntimeError::new(format!(
            "expected a bool condition, got {}",
            other.kind_name()
        ))),
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
