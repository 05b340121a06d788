//! `@torch.jit.unused` defs. PyTorch (torch/jit/frontend.py `get_jit_def`) compiles an unused
//! method with its body replaced by `raise RuntimeError("Cannot call @unused methods")` and
//! every parameter annotated `Any`, so that scripted code calling it compiles and fails only if
//! the call runs. An unused free function it never compiles: a call of it raises in place
//! (`PythonValue::call` of a dropped function, see call.rs). This rewrites the module's AST
//! before it is emitted: methods as PyTorch does; free functions get the raising body too (the
//! unit still holds a function by that name) but keep their annotations, which calls match,
//! and their decorator, by which calls know them.

use crate::frontend::ast::{Def, Expr, ExprKind, SourceModule, Stmt, StmtKind};

use super::types::dotted_name;

/// Whether a def is decorated `@torch.jit.unused`.
pub fn is_unused(decorators: &[Expr]) -> bool {
    decorators.iter().any(|d| {
        let e = match &d.kind {
            ExprKind::Call { func, .. } => func.as_ref(),
            _ => d,
        };
        dotted_name(e).is_some_and(|n| n.ends_with("jit.unused") || n == "unused")
    })
}

/// `module` with the body of every `@torch.jit.unused` def (top level or method) replaced.
pub fn drop_unused_bodies(module: &SourceModule) -> SourceModule {
    SourceModule {
        body: module.body.iter().map(|s| rewrite_stmt(s, true)).collect(),
    }
}

/// Whether `d` is a free function PyTorch drops: calls of it raise where they are.
pub fn is_dropped_function(d: &Def) -> bool {
    is_unused(&d.decorators)
}

fn rewrite_stmt(s: &Stmt, top_level: bool) -> Stmt {
    let kind = match &s.kind {
        StmtKind::Def(d) if is_unused(&d.decorators) => StmtKind::Def(raising(d, top_level)),
        StmtKind::Class(c) => {
            let mut c = c.clone();
            c.body = c.body.iter().map(|s| rewrite_stmt(s, false)).collect();
            StmtKind::Class(c)
        }
        other => other.clone(),
    };
    Stmt { kind, span: s.span }
}

fn raising(d: &Def, top_level: bool) -> Def {
    let at = |kind| Expr { kind, span: d.span };
    let error = at(ExprKind::Call {
        func: Box::new(at(ExprKind::Name("RuntimeError".into()))),
        args: vec![at(ExprKind::Str("Cannot call @unused methods".into()))],
        kwargs: Vec::new(),
    });
    let mut d = d.clone();
    d.body = vec![Stmt {
        kind: StmtKind::Raise(Some(error)),
        span: d.span,
    }];
    if top_level {
        return d;
    }
    for (i, p) in d.params.iter_mut().enumerate() {
        // `self` keeps its class type; PyTorch annotates it Any too, but a method's first
        // parameter is typed by its class whatever the annotation says.
        if i > 0 || p.name.name != "self" {
            p.annotation = Some(at(ExprKind::Name("Any".into())));
        }
    }
    d.decorators.retain(|e| !is_unused(std::slice::from_ref(e)));
    d
}
