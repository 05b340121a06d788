//! The guarded, fused graph computes what the profiled graph computes. For every profiled
//! corpus graph (`test/corpus/graphs/profiled/*.te.profiling.ir`) whose inputs are all
//! profiled tensors, random inputs of the profiled shapes run through
//! - the graph with its profile nodes removed, and
//! - the graph after `specialize-profiled-types`, `fuse-tensor-exprs` and
//!   `guard-tensor-exprs`, with `prim::TypeCheck` checking the inputs against the types it
//!   carries and `prim::TensorExprGroup` interpreting its subgraph (operation hooks, as the
//!   executor supplies them), once with the checks as they come out and once with every check
//!   failing, so that the fallback functions run too; with the default fuser and with one
//!   that also fuses innermost reductions.
//!
//! The results must be equal: the same interpreter ops run in both.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::profiled_corpus;
use profiled_corpus::{run_passes, te_cases};

use ember_compiler::passes::fuse_tensor_exprs::{run_with, FuseOptions};
use ember_compiler::passes::PassContext;

use ember_dialects::attr::AttrValue;
use ember_dialects::parse::parse_graph;
use ember_dialects::symbol::{sym, Symbol};
use ember_dialects::types::{Dim, ScalarType, TensorType};
use ember_dialects::{Graph, Node, Type};
use ember_runtime::interpreter::{run, Code, OperationHook};
use ember_runtime::ivalue::IValue;
use ember_runtime::ops::{Operation, Stack};
use ember_runtime::tensor::{DType, Tensor};

fn dtype_of(s: ScalarType) -> Option<DType> {
    Some(match s {
        ScalarType::Float => DType::F32,
        ScalarType::Double => DType::F64,
        ScalarType::Long => DType::I64,
        ScalarType::Int => DType::I32,
        ScalarType::Bool => DType::Bool,
        _ => return None,
    })
}

/// Whether tensor `t` has every property `ty` fixes.
fn matches(t: &Tensor, ty: &TensorType) -> bool {
    if ty.dtype.and_then(dtype_of).is_some_and(|d| d != t.dtype()) {
        return false;
    }
    if let Some(sizes) = &ty.sizes {
        let actual = t.sizes();
        if sizes.len() != actual.len()
            || sizes
                .iter()
                .zip(actual.iter())
                .any(|(d, &a)| matches!(d, Dim::Known(k) if *k != a))
        {
            return false;
        }
    }
    if let Some(strides) = &ty.strides {
        let actual = t.strides();
        if strides.len() != actual.len()
            || strides
                .iter()
                .zip(actual.iter())
                .any(|(s, &a)| s.is_some_and(|s| s != a))
        {
            return false;
        }
    }
    true
}

/// Operations for the nodes the runtime does not have yet: the type check (failing every
/// time when `fail`) and the group (its subgraph, interpreted).
fn hook(fail: bool, group_runs: Arc<AtomicUsize>) -> Box<OperationHook> {
    Box::new(move |g: &Graph, n: Node| {
        if g.kind(n) == sym::type_check() {
            let Some(AttrValue::Types(types)) = g.attr(n, Symbol::attr("types")) else {
                return Some(Err("TypeCheck without types".into()));
            };
            let types = types.clone();
            let op: Operation = Arc::new(move |s: &mut Stack| {
                let inputs = s.split_off(s.len() - types.len());
                let ok = !fail
                    && inputs.iter().zip(&types).all(|(v, ty)| match (v, ty) {
                        (IValue::Tensor(t), Type::Tensor(tt)) => matches(t, tt),
                        _ => false,
                    });
                s.extend(inputs);
                s.push(IValue::Bool(ok));
                Ok(())
            });
            return Some(Ok(op));
        }
        if g.kind(n) == sym::tensor_expr_group() {
            let Some(AttrValue::Graph(sub)) = g.attr(n, sym::attr_subgraph()) else {
                return Some(Err("group without a subgraph".into()));
            };
            let code = match Code::new(sub) {
                Ok(c) => Arc::new(c),
                Err(e) => return Some(Err(format!("{e:?}"))),
            };
            let count = sub.inputs().len();
            let group_runs = group_runs.clone();
            let op: Operation = Arc::new(move |s: &mut Stack| {
                group_runs.fetch_add(1, Ordering::Relaxed);
                let inputs = s.split_off(s.len() - count);
                let outputs = run(&code, inputs).map_err(|e| format!("{e:?}"))?;
                s.extend(outputs);
                Ok(())
            });
            return Some(Ok(op));
        }
        None
    })
}

/// A deterministic random tensor of type `ty` (complete sizes, a dtype the test knows).
fn random_tensor(ty: &TensorType, seed: &mut u64) -> Option<Tensor> {
    let sizes = ty.known_sizes()?;
    let n: i64 = sizes.iter().product();
    let mut next = || {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((*seed >> 33) as f64 / (1u64 << 31) as f64) * 4.0 - 2.0
    };
    let values: Vec<f64> = (0..n).map(|_| next()).collect();
    Some(match dtype_of(ty.dtype?)? {
        DType::F32 => Tensor::from_vec(values.iter().map(|&v| v as f32).collect(), &sizes).ok()?,
        DType::F64 => Tensor::from_vec(values, &sizes).ok()?,
        DType::I64 => {
            Tensor::from_vec(values.iter().map(|&v| (v * 3.0) as i64).collect(), &sizes).ok()?
        }
        _ => return None,
    })
}

fn same(a: &IValue, b: &IValue) -> bool {
    match (a, b) {
        (IValue::Tensor(x), IValue::Tensor(y)) => {
            x.dtype() == y.dtype()
                && x.sizes() == y.sizes()
                && x.to_vec::<f64>()
                    .iter()
                    .zip(y.to_vec::<f64>())
                    .all(|(p, q)| p == &q || (p.is_nan() && q.is_nan()))
        }
        (IValue::Tuple(x), IValue::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same(p, q))
        }
        _ => format!("{a:?}") == format!("{b:?}"),
    }
}

#[test]
fn guarded_groups_compute_what_the_profiled_graph_computes() {
    let (mut compared, mut with_groups) = (0, 0);
    // Group runs with the checks as they come out, and with every check failing.
    let runs = [Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0))];
    let mut failures = Vec::new();
    for (case, file) in te_cases() {
        let mut original = parse_graph(&std::fs::read_to_string(&file).unwrap()).unwrap();
        run_passes(&mut original, &["specialize-profiled-types"], &case);
        // Inputs of the profiled shapes; cases with other inputs (modules, scalars) are not
        // this test's.
        let mut seed = 17u64;
        let Some(inputs) = original
            .inputs()
            .iter()
            .map(|&v| match original.ty(v) {
                Type::Tensor(t) => random_tensor(t, &mut seed).map(IValue::Tensor),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
        else {
            continue;
        };
        let expected = run(&Code::new(&original).unwrap(), inputs.clone())
            .unwrap_or_else(|e| panic!("{case}: the original graph failed: {e:?}"));
        // The default fuser, and one that also fuses innermost reductions.
        let mut groups = 0;
        for reductions in [false, true] {
            let mut optimized = original.clone();
            let options = FuseOptions {
                reductions,
                ..FuseOptions::default()
            };
            run_with(
                &mut optimized,
                &mut PassContext::unlimited("fuse"),
                &options,
            )
            .unwrap_or_else(|e| panic!("{case}: fuse-tensor-exprs: {e}"));
            run_passes(&mut optimized, &["guard-tensor-exprs"], &case);
            let count = optimized
                .nodes()
                .into_iter()
                .filter(|&n| optimized.kind(n) == sym::tensor_expr_group())
                .count();
            if !reductions {
                groups = count;
            }
            for fail in [false, true] {
                let hook = hook(fail, runs[usize::from(fail)].clone());
                let code = Code::build_with(&optimized, None, "optimized", Some(&*hook))
                    .unwrap_or_else(|e| panic!("{case}: cannot build the optimized graph: {e:?}"));
                let got = run(&code, inputs.clone()).unwrap_or_else(|e| {
                    panic!("{case} (reductions: {reductions}, checks failing: {fail}): {e:?}")
                });
                if got.len() != expected.len()
                    || !got.iter().zip(&expected).all(|(a, b)| same(a, b))
                {
                    failures.push(format!(
                        "{case} (reductions: {reductions}, checks failing: {fail}): {got:?} != {expected:?}"
                    ));
                }
            }
        }
        compared += 1;
        with_groups += usize::from(groups > 0);
    }
    let runs = runs.map(|r| r.load(Ordering::Relaxed));
    eprintln!(
        "fuser differential: {compared} graphs compared, {with_groups} with groups, groups run {} times (none with failing checks: {})",
        runs[0], runs[1]
    );
    assert_eq!(runs[1], 0, "a group ran although its check failed");
    assert!(runs[0] >= with_groups, "groups ran {} times", runs[0]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        compared >= 10 && with_groups >= 8,
        "{compared} compared, {with_groups} with groups"
    );
}
