//! Profiling, as PyTorch's profiling executor does it (`ProfilingRecord`): the graph is
//! instrumented with a `prim::profile` node before every tensor use, the instrumented graph runs
//! in the interpreter, each profile node records the tensors it sees, and what was seen is
//! written back as `profiled_type` attributes. Runs that saw different sizes merge into an
//! unknown size (`Float(*, 3)`), so the specialization built from the profile serves them all.
//!
//! `insert-profiles` (the instrumentation) is a pass of its own; [`ProfileRecord`] is the
//! recorder the executor hands the interpreter.

use std::sync::{Arc, Mutex};

use ember_dialects::symbol::sym;
use ember_dialects::types::{merge_tensor_types as merge, Device as TypeDevice, Dim, TensorType};
use ember_dialects::{AttrValue, Block, Graph, Node, Symbol, Type};
use ember_runtime::ivalue::IValue;
use ember_runtime::ops::Operation;
use ember_runtime::tensor::{Device, Tensor};
use hashbrown::HashMap;

use crate::passes::{LogLevel, PassContext};

/// `attr::profiled_type`: the merged type of the tensors a profile node saw.
pub fn profiled_type_attr() -> Symbol {
    Symbol::attr("profiled_type")
}

/// `attr::seen_none`: whether a profile node saw `None` (an optional tensor).
pub fn seen_none_attr() -> Symbol {
    Symbol::attr("seen_none")
}

/// Whether values of type `t` are profiled: tensors and optional tensors.
fn profiled(t: &Type) -> bool {
    match t {
        Type::Optional(inner) => inner.is_tensor(),
        t => t.is_tensor(),
    }
}

/// `insert-profiles`: a `prim::profile` node before each tensor use of every node and block
/// return, and a final input-less `prim::profile()` (PyTorch's run counter), as PyTorch's
/// `ProfilingRecord::instrumentGraph` prints them.
pub fn run(g: &mut Graph, cx: &mut PassContext) -> Result<bool, String> {
    if g.nodes().iter().any(|&n| g.kind(n) == sym::profile()) {
        return Ok(false); // instrumented already
    }
    let mut count = 0;
    instrument_block(g, g.block(), &mut count);
    let ret = g.return_node(g.block());
    let counter = g.create(sym::profile(), &[], 0);
    g.insert_before(counter, ret);
    cx.log(LogLevel::Update, || {
        format!("inserted {count} profile nodes")
    });
    Ok(true)
}

fn instrument_block(g: &mut Graph, b: Block, count: &mut usize) {
    let mut nodes: Vec<Node> = g.block_nodes(b).collect();
    nodes.push(g.return_node(b));
    for n in nodes {
        for i in 0..g.node_inputs(n).len() {
            let v = g.input(n, i);
            if !profiled(g.ty(v)) {
                continue;
            }
            let p = g.create(sym::profile(), &[v], 1);
            let out = g.output(p, 0);
            g.set_ty(out, g.ty(v).clone());
            g.insert_before(p, n);
            g.replace_input(n, i, out);
            *count += 1;
        }
        for sub in g.node_blocks(n).to_vec() {
            instrument_block(g, sub, count);
        }
    }
}

/// What one profile node saw over the profiling runs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Observed {
    /// The merge of every tensor seen; `None` while none was.
    pub tensor: Option<TensorType>,
    pub seen_none: bool,
}

impl Observed {
    fn record(&mut self, v: &IValue) {
        match v {
            IValue::Tensor(t) => {
                let seen = type_of_tensor(t);
                self.tensor = Some(match self.tensor.take() {
                    Some(before) => merge(&before, &seen),
                    None => seen,
                });
            }
            IValue::None => self.seen_none = true,
            _ => {}
        }
    }
}

/// The complete type of a tensor: dtype, sizes, strides, device and requires_grad.
pub fn type_of_tensor(t: &Tensor) -> TensorType {
    let meta = t.meta();
    TensorType {
        dtype: Some(meta.dtype.scalar_type()),
        sizes: Some(meta.sizes.iter().map(|&s| Dim::Known(s)).collect()),
        strides: Some(meta.strides.iter().map(|&s| Some(s)).collect()),
        device: Some(match meta.device {
            Device::Cpu => TypeDevice {
                kind: "cpu".into(),
                index: None,
            },
            Device::Cuda(i) => TypeDevice {
                kind: "cuda".into(),
                index: Some(i as i64),
            },
        }),
        requires_grad: Some(meta.requires_grad),
        undefined: None,
    }
}

/// What the profile nodes of one instrumented graph saw, shared with the operations the
/// interpreter runs for them.
#[derive(Clone, Default)]
pub struct ProfileRecord {
    seen: Arc<Mutex<HashMap<Node, Observed>>>,
}

impl ProfileRecord {
    /// The operation of profile node `n` of the instrumented graph: records its input and
    /// passes it on; the input-less counter does nothing. `None` for any other node.
    pub fn operation(&self, g: &Graph, n: Node) -> Option<Operation> {
        if g.kind(n) != sym::profile() {
            return None;
        }
        if g.node_inputs(n).is_empty() {
            return Some(Arc::new(|_: &mut ember_runtime::ops::Stack| Ok(())));
        }
        let seen = self.seen.clone();
        Some(Arc::new(move |stack: &mut ember_runtime::ops::Stack| {
            let v = stack.last().ok_or("prim::profile: no input")?;
            // A poisoned lock only means another profiling thread panicked; the data is
            // still a valid merge.
            let mut seen = seen.lock().unwrap_or_else(|e| e.into_inner());
            seen.entry(n).or_default().record(v);
            Ok(())
        }))
    }

    /// Writes what was seen into the instrumented graph's profile nodes (`profiled_type`,
    /// `seen_none`), as PyTorch prints a profiled graph. A node no run reached gets no
    /// `profiled_type`: nothing is assumed about it.
    pub fn annotate(&self, g: &mut Graph) {
        let seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        for n in g.nodes() {
            if g.kind(n) != sym::profile() || g.node_inputs(n).is_empty() {
                continue;
            }
            let Some(o) = seen.get(&n) else { continue };
            if let Some(t) = &o.tensor {
                g.set_attr(
                    n,
                    profiled_type_attr(),
                    AttrValue::Type(Type::Tensor(t.clone())),
                );
            }
            g.set_attr(n, seen_none_attr(), AttrValue::Int(o.seen_none as i64));
        }
    }

    /// Forgets everything seen.
    pub fn clear(&self) {
        self.seen.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// Merges what `other` (the same instrumented graph, profiled again) saw into this record.
    pub fn absorb(&self, other: &ProfileRecord) {
        let theirs = other.seen.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let mut ours = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        for (n, o) in theirs {
            let entry = ours.entry(n).or_default();
            entry.seen_none |= o.seen_none;
            entry.tensor = match (entry.tensor.take(), o.tensor) {
                (Some(a), Some(b)) => Some(merge(&a, &b)),
                (a, b) => a.or(b),
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ember_dialects::parse::parse_graph;
    use ember_runtime::interpreter::{run as interpret, Code};

    fn tensor(sizes: &[i64]) -> IValue {
        let n: i64 = sizes.iter().product();
        IValue::Tensor(Tensor::from_vec(vec![1f32; n as usize], sizes).unwrap())
    }

    #[test]
    fn instruments_uses_and_records_merged_sizes() {
        let mut g = parse_graph(
            "graph(%a : Tensor, %b : Tensor):\n  %c : int = prim::Constant[value=1]()\n  %d : Tensor = aten::add(%a, %b, %c)\n  return (%d)\n",
        )
        .unwrap();
        assert!(run(&mut g, &mut PassContext::unlimited("insert-profiles")).unwrap());
        let profiles = g
            .nodes()
            .into_iter()
            .filter(|&n| g.kind(n) == sym::profile())
            .count();
        assert_eq!(profiles, 4, "two inputs, the output, the counter:\n{g}");
        let record = ProfileRecord::default();
        let hook = {
            let record = record.clone();
            move |g: &Graph, n: Node| record.operation(g, n).map(Ok)
        };
        let code = Code::build_with(&g, None, "<graph>", Some(&hook)).unwrap();
        interpret(&code, vec![tensor(&[2, 3]), tensor(&[2, 3])]).unwrap();
        interpret(&code, vec![tensor(&[4, 3]), tensor(&[4, 3])]).unwrap();
        record.annotate(&mut g);
        let text = g.to_string();
        assert!(
            text.contains(
                "prim::profile[profiled_type=Float(*, 3, strides=[3, 1], requires_grad=0, device=cpu), seen_none=0](%a)"
            ),
            "{text}"
        );
    }

    #[test]
    fn merge_keeps_what_both_say() {
        let t = |s: &[i64]| {
            let n = s.iter().product::<i64>() as usize;
            type_of_tensor(&Tensor::from_vec(vec![0f32; n], s).unwrap())
        };
        let m = merge(&t(&[2, 3]), &t(&[2, 5]));
        assert_eq!(m.sizes, Some(vec![Dim::Known(2), Dim::Unknown]));
        assert_eq!(m.strides, Some(vec![None, Some(1)]));
        assert_eq!(merge(&t(&[2]), &t(&[2, 1])).sizes, None);
    }
}
