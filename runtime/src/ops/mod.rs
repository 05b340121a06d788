//! Operators: what the interpreter calls for each node. An [`Operation`] pops its inputs off the
//! stack and pushes its outputs. Most operators are looked up by schema (`aten::add.Tensor`);
//! operators that need their node (`prim::Constant`, `prim::TupleConstruct`, …) are built from
//! it. A graph whose node has no operator is refused when its code is built, never when the
//! node would run.

pub mod args;
pub mod attention;
pub mod builtins;
pub mod cpu;
pub mod create;
pub mod index;
pub mod linalg;
pub mod nn;
pub mod node_cache;
mod opaque;
pub mod pointwise;
pub mod prim;
pub mod real;
pub mod reduce;
pub mod registry;
pub mod rnn;
pub mod shape;
pub(crate) mod simd;
#[cfg(feature = "torchvision")]
pub mod torchvision;

use std::sync::Arc;

use crate::ivalue::IValue;

/// The interpreter's operand stack.
pub type Stack = Vec<IValue>;

/// What an operator reports on failure: a message in PyTorch's words. The interpreter adds
/// the node, its source location and schema.
pub type OpResult = Result<(), String>;

/// A callable operator.
pub type Operation = Arc<dyn Fn(&mut Stack) -> OpResult + Send + Sync>;

/// Whether this thread's kernels take their AVX-512 loops (the CPU has them and neither
/// `EMBER_CPU_FEATURES` nor a test caps them: see [`cpu`]).
pub fn has_avx512() -> bool {
    cpu::isa() == cpu::Isa::Avx512
}

/// Pops the last `n` values off `stack`, in order.
pub fn pop_n(stack: &mut Stack, n: usize) -> Result<Vec<IValue>, String> {
    if stack.len() < n {
        return Err(format!(
            "stack underflow: needed {n} values, have {}",
            stack.len()
        ));
    }
    let at = stack.len() - n;
    Ok(stack.split_off(at))
}

/// Pops one value.
pub fn pop(stack: &mut Stack) -> Result<IValue, String> {
    stack.pop().ok_or_else(|| "stack underflow".to_string())
}
