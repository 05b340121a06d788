//! Test helpers: run one-op graphs through the interpreter.

use ember_dialects::parse::parse_graph;

use crate::interpreter::{run, Code};
use crate::ivalue::IValue;
use crate::tensor::{Element, Tensor};

/// Runs graph text on `inputs`; the error is the operation's message.
pub fn run_graph(src: &str, inputs: Vec<IValue>) -> Result<Vec<IValue>, String> {
    let g = parse_graph(src).map_err(|d| format!("{d:?}"))?;
    let code = Code::new(&g).map_err(|e| e.message)?;
    run(&code, inputs).map_err(|e| e.message)
}

/// The graph `graph(%x : Tensor, ...): %r = <op>(<args>); return (%r)` where `params` are
/// `name : Type` pairs and `body` lines define `%r`.
pub fn graph(params: &str, body: &str) -> String {
    format!("graph({params}):\n{body}\n  return (%r)\n")
}

pub fn t<T: Element>(v: Vec<T>, s: &[i64]) -> IValue {
    IValue::Tensor(Tensor::from_vec(v, s).unwrap())
}

/// Runs and returns the single output tensor.
pub fn run1(src: &str, inputs: Vec<IValue>) -> Result<Tensor, String> {
    let out = run_graph(src, inputs)?;
    Ok(out[0].as_tensor().expect("a tensor result").clone())
}

/// Checks two float vectors within a relative tolerance, NaNs matching NaNs.
pub fn assert_close(got: &[f64], want: &[f64], rtol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        let ok = (g.is_nan() && w.is_nan())
            || g == w
            || (g - w).abs() <= rtol * w.abs().max(1e-30) + 1e-12;
        assert!(ok, "{got:?} vs {want:?}");
    }
}
