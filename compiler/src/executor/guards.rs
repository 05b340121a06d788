//! The run-time side of guards: `prim::TypeCheck[types=[T...]](%x...)` passes its inputs
//! through and adds whether every one matches its type (PyTorch's `TensorType::matchTensor`:
//! dtype, device, requires_grad, rank, every known size and stride). `EMBER_JIT_CHAOS=<seed>`
//! makes checks fail at random so tests exercise the fallback path.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use ember_dialects::types::TensorType;
use ember_dialects::{AttrValue, Graph, Node, Symbol, Type};
use ember_runtime::ivalue::IValue;
use ember_runtime::ops::{Operation, Stack};

/// Random guard failures: a xorshift state shared by every guard of the process.
#[derive(Debug)]
pub struct Chaos {
    state: AtomicU64,
}

impl Chaos {
    /// `EMBER_JIT_CHAOS=<seed>` (a number); unset or empty means no chaos.
    pub fn from_env() -> Result<Option<Arc<Chaos>>, String> {
        match std::env::var("EMBER_JIT_CHAOS") {
            Ok(s) if !s.trim().is_empty() => {
                let seed: u64 = s
                    .trim()
                    .parse()
                    .map_err(|_| format!("EMBER_JIT_CHAOS: '{s}' is not a seed (a number)"))?;
                Ok(Some(Arc::new(Chaos::new(seed))))
            }
            _ => Ok(None),
        }
    }

    pub fn new(seed: u64) -> Chaos {
        // xorshift never leaves 0.
        Chaos {
            state: AtomicU64::new(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
        }
    }

    /// Whether this check fails: one in two.
    fn strikes(&self) -> bool {
        let mut x = self.state.load(Ordering::Relaxed);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.state.store(x, Ordering::Relaxed);
        x & 1 == 1
    }
}

/// `attr::types`.
pub fn types_attr() -> Symbol {
    Symbol::attr("types")
}

/// Whether tensor `t` has every property a tensor type states (the runtime's check, which
/// whole compiled models' entry guards use too).
pub use ember_runtime::guard::matches;

/// The operation of a `prim::TypeCheck` node; failures are counted in `failures`.
pub fn type_check(
    g: &Graph,
    n: Node,
    chaos: Option<Arc<Chaos>>,
    failures: Arc<AtomicUsize>,
) -> Result<Operation, String> {
    let types: Vec<Option<TensorType>> = match g.attr(n, types_attr()) {
        Some(AttrValue::Types(ts)) => ts
            .iter()
            .map(|t| match t {
                Type::Tensor(t) => Some(t.clone()),
                _ => None,
            })
            .collect(),
        _ => return Err("prim::TypeCheck needs a types attribute".into()),
    };
    let count = g.node_inputs(n).len();
    if types.len() != count || g.node_outputs(n).len() != count + 1 {
        return Err(format!(
            "prim::TypeCheck: {count} inputs, {} types and {} outputs do not agree",
            types.len(),
            g.node_outputs(n).len()
        ));
    }
    Ok(Arc::new(move |stack: &mut Stack| {
        let first = super::inputs_start(stack, count, "prim::TypeCheck")?;
        let mut ok = stack[first..]
            .iter()
            .zip(&types)
            .all(|(v, ty)| match (v, ty) {
                (IValue::Tensor(t), Some(ty)) => matches(ty, t),
                _ => false,
            });
        if ok && chaos.as_ref().is_some_and(|c| c.strikes()) {
            ok = false;
        }
        if !ok {
            failures.fetch_add(1, Ordering::Relaxed);
        }
        stack.push(IValue::Bool(ok));
        Ok(())
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::executor::profile::type_of_tensor;
    use ember_dialects::types::Dim;
    use ember_runtime::tensor::Tensor;

    fn t(sizes: &[i64]) -> Tensor {
        Tensor::from_vec(vec![0f32; sizes.iter().product::<i64>() as usize], sizes).unwrap()
    }

    #[test]
    fn checks_every_stated_property() {
        let ty = type_of_tensor(&t(&[2, 3]));
        assert!(matches(&ty, &t(&[2, 3])));
        assert!(!matches(&ty, &t(&[3, 2])));
        assert!(!matches(&ty, &t(&[2, 3, 1])));
        let dynamic = TensorType {
            sizes: Some(vec![Dim::Unknown, Dim::Known(3)]),
            strides: Some(vec![None, Some(1)]),
            ..ty.clone()
        };
        assert!(matches(&dynamic, &t(&[7, 3])));
        let transposed = t(&[3, 2]).transpose(0, 1).unwrap();
        assert!(!matches(&ty, &transposed), "strides differ");
        let double = Tensor::from_vec(vec![0f64; 6], &[2, 3]).unwrap();
        assert!(!matches(&ty, &double), "dtype differs");
    }

    #[test]
    fn chaos_fails_some_checks_not_all() {
        let chaos = Chaos::new(7);
        let strikes = (0..1000).filter(|_| chaos.strikes()).count();
        assert!((300..700).contains(&strikes), "{strikes}");
    }
}
