//! Operators a loaded program calls that Ember has no implementation for (or cannot run on
//! those inputs). Loading is lenient, as PyTorch's running is: such nodes are built to raise
//! their error when execution reaches them ([`MissingOperators::RaiseWhenRun`]), and this
//! module lists them once — ember-run's warning and `ember-opt --check-ops` — or, with
//! `--strict`, turns the first into today's refusal. Nothing here runs while a program runs.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Arc;

use ember_runtime::interpreter::{BuildError, CallTarget, Code, MissingOperators};
use ember_runtime::unit::{CompilationUnit, Function};

/// One node built to raise: the function it is in and its build error.
#[derive(Clone, Debug)]
pub struct MissingNode {
    pub function: String,
    pub error: BuildError,
}

/// What a `--strict` flag chooses.
pub fn mode(strict: bool) -> MissingOperators {
    if strict {
        MissingOperators::Refuse
    } else {
        MissingOperators::RaiseWhenRun
    }
}

/// The nodes built to raise in `code` and in every function it can call: the callees known
/// when it was built, and for calls resolved at run time (interface methods) every method of
/// that name in `unit`. Each function's code is visited once.
pub fn missing_nodes(code: &Arc<Code>, unit: Option<&Arc<CompilationUnit>>) -> Vec<MissingNode> {
    let mut seen: Vec<*const Code> = Vec::new();
    let mut out = Vec::new();
    let mut work = vec![code.clone()];
    while let Some(code) = work.pop() {
        if seen.contains(&Arc::as_ptr(&code)) {
            continue;
        }
        seen.push(Arc::as_ptr(&code));
        out.extend(code.missing.iter().map(|e| MissingNode {
            function: code.name.clone(),
            error: e.clone(),
        }));
        for call in code.calls().iter().rev() {
            match &call.target {
                CallTarget::Code(callee) => work.push(callee.clone()),
                CallTarget::Method(name) => {
                    let Some(unit) = unit else { continue };
                    for class in unit.classes() {
                        if let Some(Ok(callee)) = class.method(name).map(|m| m.code(Some(unit))) {
                            work.push(callee);
                        }
                    }
                }
            }
        }
    }
    out
}

/// The missing nodes of every function and method of `unit` (built as the unit says),
/// functions first, in definition order. Functions whose code cannot be built at all are
/// left to whoever runs them.
pub fn missing_in_unit(unit: &Arc<CompilationUnit>) -> Vec<MissingNode> {
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for f in unit_functions(unit) {
        if let Ok(code) = f.code(Some(unit)) {
            for m in missing_nodes(&code, Some(unit)) {
                let key = (m.function.clone(), m.error.node);
                if !seen.contains(&key) {
                    seen.push(key);
                    out.push(m);
                }
            }
        }
    }
    out
}

/// Every function of `unit`, then every method of its classes (interfaces, whose methods are
/// declarations, left out), in definition order.
pub fn unit_functions(unit: &CompilationUnit) -> Vec<Arc<Function>> {
    let mut functions = unit.functions();
    for c in unit.classes() {
        if c.is_interface {
            continue;
        }
        let methods = c.methods.read().unwrap_or_else(|e| e.into_inner());
        functions.extend(methods.values().cloned());
    }
    functions
}

/// One line per operator: how many nodes, and where the first is, with its message:
/// `  aten::glu: 2 nodes, first in 'forward' at m.py:3:4 (unknown operator ...)`.
pub fn report(nodes: &[MissingNode]) -> String {
    let mut by_kind: BTreeMap<String, Vec<&MissingNode>> = BTreeMap::new();
    for n in nodes {
        by_kind.entry(n.error.kind.to_string()).or_default().push(n);
    }
    let mut out = String::new();
    for (kind, uses) in by_kind {
        let first = uses[0];
        let at = first
            .error
            .source
            .as_ref()
            .map(|s| format!(" at {s}"))
            .unwrap_or_default();
        let count = match uses.len() {
            1 => "1 node".to_string(),
            n => format!("{n} nodes, first"),
        };
        let _ = writeln!(
            out,
            "  {kind}: {count} in '{}'{at} ({})",
            first.function, first.error.message
        );
    }
    out
}

/// The headline of a report: how many operators, for `what` (a file name).
pub fn headline(what: &str, nodes: &[MissingNode]) -> String {
    let mut kinds: Vec<_> = nodes.iter().map(|n| n.error.kind).collect();
    kinds.sort();
    kinds.dedup();
    match kinds.len() {
        0 => format!("{what}: every operator can run in Ember"),
        1 => format!("{what}: 1 operator cannot run in Ember"),
        n => format!("{what}: {n} operators cannot run in Ember"),
    }
}
