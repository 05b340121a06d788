//! Running [`Code`]: a register file, an operand stack and a program counter.

use super::code::{Code, Instr};
use super::error::RuntimeError;
use crate::ivalue::IValue;

/// Runs `code` on `inputs` and returns its outputs.
pub fn run(code: &Code, inputs: Vec<IValue>) -> Result<Vec<IValue>, RuntimeError> {
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
    let mut stack: Vec<IValue> = Vec::with_capacity(16);
    let mut pc = 0usize;
    loop {
        match code.instrs[pc] {
            Instr::Load(r) => stack.push(regs[r as usize].clone()),
            Instr::Move(r) => stack.push(std::mem::replace(
                &mut regs[r as usize],
                IValue::Uninitialized,
            )),
            Instr::Const(c) => stack.push(code.constants[c as usize].clone()),
            Instr::Store(r) => regs[r as usize] = pop(&mut stack)?,
            Instr::Drop(r) => regs[r as usize] = IValue::Uninitialized,
            Instr::Pop => {
                pop(&mut stack)?;
            }
            Instr::Op(k) => {
                if let Err(message) = (code.operations[k as usize])(&mut stack) {
                    let site = &code.sites[k as usize];
                    return Err(RuntimeError {
                        message,
                        node: Some(site.node),
                        kind: Some(site.kind),
                        source: site.source.clone(),
                    });
                }
            }
            Instr::JumpIfFalse(target) => {
                if !truthy(&pop(&mut stack)?)? {
                    pc = target as usize;
                    continue;
                }
            }
            Instr::Jump(target) => {
                pc = target as usize;
                continue;
            }
            Instr::ZeroInt(r) => regs[r as usize] = IValue::Int(0),
            Instr::Increment(r) => {
                if let IValue::Int(i) = &mut regs[r as usize] {
                    *i += 1;
                }
            }
            Instr::ForTest { trip, max, exit } => {
                if int(&regs[trip as usize])? >= int(&regs[max as usize])? {
                    pc = exit as usize;
                    continue;
                }
            }
            Instr::WhileTest { cond, exit } => {
                if !truthy(&regs[cond as usize])? {
                    pc = exit as usize;
                    continue;
                }
            }
            Instr::LoopTest {
                trip,
                max,
                cond,
                exit,
            } => {
                if int(&regs[trip as usize])? >= int(&regs[max as usize])?
                    || !truthy(&regs[cond as usize])?
                {
                    pc = exit as usize;
                    continue;
                }
            }
            Instr::Ret => return Ok(stack),
        }
        pc += 1;
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
